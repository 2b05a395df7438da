//! The recording's file, written past the kernel's page cache where the platform allows it.
//!
//! A recording of a lidar and RGB-D world streams 100-200 MB a second. Through the page cache
//! every byte is copied into kernel pages and written back later, and that copy alone was about
//! a third of the writer thread's CPU time (`copy_folio_from_iter_atomic`). On Linux the file is
//! therefore opened with `O_DIRECT` and written from our own block-aligned buffer: the disk
//! reads that buffer itself, and the writer thread sleeps instead of copying while it does.
//!
//! `O_DIRECT` wants addresses, offsets and lengths aligned to the device's logical block, so
//! only whole blocks are written; `flush` pads the last partial block with zeros, writes it and
//! truncates the file to its true length, keeping that block in memory so that later writes
//! rewrite it. Where the file system refuses `O_DIRECT` (at open or at the first write) the
//! file falls back to ordinary buffered writes with the same semantics.
//!
//! Owns: the bytes on disk and their offsets. Must not touch: what the bytes mean.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Alignment of direct writes: the largest logical block size in common use.
const BLOCK: usize = 4096;

/// Bytes gathered before a write; a multiple of `BLOCK`.
const BUFFER: usize = 4 << 20;

/// A file created for sequential writing, buffered in memory and written in large aligned
/// pieces. Call `flush` at the end: dropping it does not write what is still buffered.
pub(crate) struct OutputFile {
    file: File,
    path: PathBuf,
    direct: bool,
    /// The allocation; the buffer proper is `storage[start..start + BUFFER]`, block-aligned.
    storage: Vec<u8>,
    start: usize,
    /// Bytes of the buffer in use.
    filled: usize,
    /// Where the buffer's first byte goes in the file; a multiple of `BLOCK` while direct.
    offset: u64,
}

impl OutputFile {
    /// Creates (or truncates) `path`, direct where possible.
    pub(crate) fn create(path: &Path) -> io::Result<OutputFile> {
        let (file, direct) = match open_direct(path) {
            Some(file) => (file, true),
            None => (File::create(path)?, false),
        };
        let storage = vec![0u8; BUFFER + BLOCK];
        let start = storage.as_ptr().align_offset(BLOCK);
        Ok(OutputFile {
            file,
            path: path.to_owned(),
            direct,
            storage,
            start,
            filled: 0,
            offset: 0,
        })
    }

    /// Whether writes bypass the page cache (for tests and diagnostics).
    #[cfg(test)]
    fn is_direct(&self) -> bool {
        self.direct
    }

    fn buffer(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + BUFFER]
    }

    /// Writes the first `len` bytes of the buffer at `self.offset`; direct writes round `len`
    /// up to whole blocks (the caller has zeroed the padding). Buffered writes are sequential
    /// (no seeking, so a pipe works too).
    fn write_out(&mut self, len: usize) -> io::Result<()> {
        let start = self.start;
        if self.direct {
            let padded = len.next_multiple_of(BLOCK);
            self.file.seek(SeekFrom::Start(self.offset))?;
            match self.file.write_all(&self.storage[start..start + padded]) {
                Ok(()) => return Ok(()),
                // The file system took `O_DIRECT` at open but not for writing: buffered from
                // here on. A partial direct write is simply written again.
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                    self.file = OpenOptions::new().write(true).open(&self.path)?;
                    self.file.seek(SeekFrom::Start(self.offset))?;
                    self.direct = false;
                }
                Err(e) => return Err(e),
            }
        }
        self.file.write_all(&self.storage[start..start + len])
    }
}

impl Write for OutputFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let filled = self.filled;
            let n = rest.len().min(BUFFER - filled);
            self.buffer()[filled..filled + n].copy_from_slice(&rest[..n]);
            self.filled += n;
            rest = &rest[n..];
            if self.filled == BUFFER {
                self.write_out(BUFFER)?;
                self.offset += BUFFER as u64;
                self.filled = 0;
            }
        }
        Ok(bytes.len())
    }

    /// Writes everything buffered so the file holds every byte written so far, and no more.
    fn flush(&mut self) -> io::Result<()> {
        let filled = self.filled;
        if filled == 0 {
            return Ok(());
        }
        let padded = filled.next_multiple_of(BLOCK);
        self.buffer()[filled..padded].fill(0);
        self.write_out(filled)?;
        if self.direct {
            self.file.set_len(self.offset + filled as u64)?;
            // The partial last block stays buffered: the next flush writes it again, longer.
            let whole = filled / BLOCK * BLOCK;
            let start = self.start;
            self.storage
                .copy_within(start + whole..start + filled, start);
            self.offset += whole as u64;
            self.filled = filled - whole;
        } else {
            self.offset += filled as u64;
            self.filled = 0;
        }
        Ok(())
    }
}

impl crate::mcap_file::Rewind for OutputFile {
    /// The file's length: what reached it, a failed write's part included.
    fn stored_len(&mut self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// Drops what is buffered, cuts the file to `len` and writes from there, buffered (the
    /// cut need not fall on a block).
    fn rewind_to(&mut self, len: u64) -> io::Result<()> {
        if self.direct {
            self.file = OpenOptions::new().write(true).open(&self.path)?;
            self.direct = false;
        }
        self.file.set_len(len)?;
        self.file.seek(SeekFrom::Start(len))?;
        self.offset = len;
        self.filled = 0;
        Ok(())
    }
}

#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .ok()
}

#[cfg(not(target_os = "linux"))]
fn open_direct(_path: &Path) -> Option<File> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes 0, 1, ..., 250, 0, 1, ...: every offset's byte is known.
    fn pattern(from: usize, len: usize) -> Vec<u8> {
        (from..from + len).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn the_file_holds_exactly_what_was_written_at_every_flush() {
        let dir_scratch = tempfile::tempdir().unwrap();
        let dir = dir_scratch.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.bin");
        let mut file = OutputFile::create(&path).unwrap();
        // Small, block-crossing and buffer-crossing pieces, with flushes between some of them.
        let pieces = [1, 4095, 4096, 10, BUFFER - 3, 7, 3 * BUFFER + 5, 100_000];
        let mut written = 0;
        for (i, len) in pieces.into_iter().enumerate() {
            file.write_all(&pattern(written, len)).unwrap();
            written += len;
            if i % 2 == 1 {
                file.flush().unwrap();
                assert_eq!(
                    std::fs::read(&path).unwrap(),
                    pattern(0, written),
                    "piece {i}"
                );
            }
        }
        file.flush().unwrap();
        let direct = file.is_direct();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), pattern(0, written));
        eprintln!("direct writes: {direct}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Mending a recording cut short (a killed process, a power loss, a full disk): every complete
//! record of its data section is read in order and written again into a new file with indexes
//! and a summary, as `mcap recover` does. Schemas, channels and metadata are kept; a chunk is
//! kept whole if it is complete and its CRC matches, else dropped; reading stops at the first
//! record cut short.
//!
//! Reading is streaming and bounded: a record's length is checked against what the file still
//! holds and against [`MAX_RECORD_BYTES`] before anything is allocated for it, and a chunk's
//! stated size bounds its decompression.
//!
//! Owns: reading MCAP records. Must not touch: what the messages mean.

use crate::mcap_file::{Compression, Content, McapWriter, MessageHeader};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// The largest record (or decompressed chunk) read: far beyond any message we write (a 4K
/// RGB-D frame is ~60 MB), small enough to allocate.
pub const MAX_RECORD_BYTES: u64 = 1 << 30;

/// What a recovery found and wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Messages written to the new file.
    pub messages: u64,
    /// Complete chunks read.
    pub chunks: u64,
    /// Chunks dropped: a CRC that did not match, a compression we cannot read, or contents
    /// that do not parse.
    pub bad_chunks: u64,
    /// Messages dropped because their channel was never defined.
    pub orphans: u64,
    /// Metadata records kept.
    pub metadata: u64,
    /// Bytes at the end that did not form a complete record (0: the data section was whole).
    pub cut_bytes: u64,
    /// Whether the input already ended its data section properly.
    pub was_complete: bool,
}

/// Why a file could not be recovered at all.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    /// Reading the input or writing the output failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The input does not start as an MCAP file does.
    #[error("{0} is not an MCAP file (no MCAP magic and header at its start)")]
    NotMcap(PathBuf),
    /// The input is cut inside its header: there is nothing to recover.
    #[error("{0} is cut before the end of its header: it holds no message to recover")]
    Empty(PathBuf),
    /// Input and output are the same file.
    #[error("the recovered file must not be the file being read ({0})")]
    SameFile(PathBuf),
}

/// Rewrites the complete records of `input` into `output` (created or replaced).
pub fn recover(input: &Path, output: &Path) -> Result<Recovery, RecoverError> {
    let in_err = |source| RecoverError::Io {
        path: input.to_owned(),
        source,
    };
    let out_err = |source| RecoverError::Io {
        path: output.to_owned(),
        source,
    };
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize())
        && a == b
    {
        return Err(RecoverError::SameFile(input.to_owned()));
    }
    let file = File::open(input).map_err(in_err)?;
    let len = file.metadata().map_err(in_err)?.len();
    let mut records = Records {
        reader: BufReader::with_capacity(1 << 20, file),
        left: len,
    };
    let mut magic = [0u8; 8];
    if records.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return Err(RecoverError::NotMcap(input.to_owned()));
    }
    let (profile, library) = match records.next().map_err(in_err)? {
        Next::Record(0x01, content) => {
            let mut f = Fields(&content);
            match (f.string(), f.string()) {
                (Some(p), Some(l)) => (p.to_owned(), l.to_owned()),
                _ => return Err(RecoverError::NotMcap(input.to_owned())),
            }
        }
        Next::Cut(_) => return Err(RecoverError::Empty(input.to_owned())),
        _ => return Err(RecoverError::NotMcap(input.to_owned())),
    };
    let out = File::create(output).map_err(out_err)?;
    let writer = McapWriter::new(
        BufWriter::with_capacity(1 << 20, out),
        &profile,
        &library,
        Compression::Auto,
    )
    .map_err(out_err)?;
    let mut state = Rewriter {
        writer,
        schemas: HashMap::new(),
        channels: HashMap::new(),
        report: Recovery::default(),
    };
    loop {
        match records.next().map_err(in_err)? {
            Next::Record(opcode, content) => {
                if state.record(opcode, &content, None).map_err(out_err)? == Flow::DataEnd {
                    state.report.was_complete = true;
                    break;
                }
            }
            Next::Cut(bytes) => {
                state.report.cut_bytes = bytes;
                break;
            }
        }
    }
    let Rewriter { writer, report, .. } = state;
    let mut out = writer.finish().map_err(out_err)?;
    io::Write::flush(&mut out).map_err(out_err)?;
    Ok(report)
}

/// A record, or how many bytes were left that do not make one.
enum Next {
    Record(u8, Vec<u8>),
    Cut(u64),
}

/// Records read one by one from the input, never past its end.
struct Records<R: Read> {
    reader: R,
    left: u64,
}

impl<R: Read> Records<R> {
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.reader.read_exact(buf)?;
        self.left -= buf.len() as u64;
        Ok(())
    }

    fn next(&mut self) -> io::Result<Next> {
        let left = self.left;
        if left < 9 {
            return Ok(Next::Cut(left));
        }
        let mut head = [0u8; 9];
        self.read_exact(&mut head)?;
        let len = u64::from_le_bytes(head[1..9].try_into().unwrap_or_default());
        if len > self.left || len > MAX_RECORD_BYTES {
            return Ok(Next::Cut(left));
        }
        let mut content = vec![0u8; len as usize];
        self.read_exact(&mut content)?;
        Ok(Next::Record(head[0], content))
    }
}

/// Little-endian fields of a record's content; `None` once they run out.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes32(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn bytes64(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn string(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes32()?).ok()
    }
    fn string_map(&mut self) -> Option<BTreeMap<String, String>> {
        let mut inner = Fields(self.bytes32()?);
        let mut map = BTreeMap::new();
        while !inner.0.is_empty() {
            let k = inner.string()?;
            let v = inner.string()?;
            map.insert(k.to_owned(), v.to_owned());
        }
        Some(map)
    }
}

#[derive(PartialEq, Eq)]
enum Flow {
    Go,
    DataEnd,
}

/// The new file and the ids it gave the input's schemas and channels.
struct Rewriter<W: io::Write> {
    writer: McapWriter<W>,
    schemas: HashMap<u16, u16>,
    channels: HashMap<u16, u16>,
    report: Recovery,
}

impl<W: io::Write> Rewriter<W> {
    /// Handles one record; `in_chunk` says how the chunk holding it was stored. Records that
    /// do not parse are skipped (counted with their chunk).
    fn record(
        &mut self,
        opcode: u8,
        content: &[u8],
        in_chunk: Option<Content>,
    ) -> io::Result<Flow> {
        let mut f = Fields(content);
        match opcode {
            0x03 => {
                if let (Some(id), Some(name), Some(encoding), Some(data)) =
                    (f.u16(), f.string(), f.string(), f.bytes32())
                    && !self.schemas.contains_key(&id)
                {
                    let new = self.writer.add_schema(name, encoding, data);
                    self.schemas.insert(id, new);
                }
            }
            0x04 => {
                if let (Some(id), Some(schema), Some(topic), Some(encoding)) =
                    (f.u16(), f.u16(), f.string(), f.string())
                    && !self.channels.contains_key(&id)
                {
                    // Schema 0 means none; a schema never seen is dropped with it.
                    let new_schema = if schema == 0 {
                        Some(0)
                    } else {
                        self.schemas.get(&schema).copied()
                    };
                    if let Some(s) = new_schema {
                        let new = self.writer.add_channel(s, topic, encoding);
                        self.channels.insert(id, new);
                    }
                }
            }
            0x05 => {
                let header = (f.u16(), f.u32(), f.u64(), f.u64());
                if let (Some(channel), Some(sequence), Some(log_time), Some(publish_time)) = header
                {
                    match self.channels.get(&channel) {
                        Some(&new) => {
                            let header = MessageHeader {
                                channel: new,
                                sequence,
                                log_time,
                                publish_time,
                            };
                            let content = in_chunk.unwrap_or(Content::Compressible);
                            self.writer.write_message(&header, f.0, content)?;
                            self.report.messages += 1;
                        }
                        None => self.report.orphans += 1,
                    }
                }
            }
            0x06 if in_chunk.is_none() => self.chunk(content)?,
            0x0C if in_chunk.is_none() => {
                if let (Some(name), Some(entries)) = (f.string(), f.string_map()) {
                    self.writer.write_metadata(name, &entries)?;
                    self.report.metadata += 1;
                }
            }
            0x0F if in_chunk.is_none() => return Ok(Flow::DataEnd),
            // Header, indexes, statistics, attachments, summary offsets: rebuilt or not ours.
            _ => {}
        }
        Ok(Flow::Go)
    }

    /// A chunk record: its records if it is whole, readable and its CRC matches.
    fn chunk(&mut self, content: &[u8]) -> io::Result<()> {
        let Some(records) = chunk_records(content) else {
            self.report.bad_chunks += 1;
            return Ok(());
        };
        let (records, stored) = records;
        self.report.chunks += 1;
        let kind = if stored {
            Content::Incompressible
        } else {
            Content::Compressible
        };
        let mut f = Fields(&records);
        while !f.0.is_empty() {
            let (Some(op), Some(body)) = (f.take(1), f.bytes64()) else {
                break;
            };
            self.record(op[0], body, Some(kind))?;
        }
        Ok(())
    }
}

/// A chunk's records, decompressed and checked, and whether it was stored uncompressed.
fn chunk_records(content: &[u8]) -> Option<(Vec<u8>, bool)> {
    let mut f = Fields(content);
    let (_start, _end) = (f.u64()?, f.u64()?);
    let size = f.u64()?;
    let crc = f.u32()?;
    let compression = f.string()?;
    let data = f.bytes64()?;
    if size > MAX_RECORD_BYTES {
        return None;
    }
    let (records, stored) = match compression {
        "" => (data.to_vec(), true),
        "lz4" => {
            let mut out = Vec::new();
            lz4::Decoder::new(data)
                .ok()?
                .take(size + 1)
                .read_to_end(&mut out)
                .ok()?;
            (out, false)
        }
        // zstd is not in our build: such chunks are reported as dropped.
        _ => return None,
    };
    if records.len() as u64 != size || (crc != 0 && crc32fast::hash(&records) != crc) {
        return None;
    }
    Some((records, stored))
}

/// The default output for `input`: `NAME.recovered.mcap` beside it.
pub fn default_output(input: &Path) -> PathBuf {
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".mcap").unwrap_or(&name);
    input.with_file_name(format!("{stem}.recovered.mcap"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    /// A recording of 3000 messages on two channels with a metadata record, in LZ4 chunks.
    fn recording() -> Vec<u8> {
        let mut w = McapWriter::new(Vec::new(), "ros2", "test", Compression::Auto).unwrap();
        let s = w.add_schema("std_msgs/msg/String", "ros2msg", b"string data");
        let a = w.add_channel(s, "/a", "cdr");
        let b = w.add_channel(s, "/b", "cdr");
        let meta = BTreeMap::from([("k".to_owned(), "v".to_owned())]);
        w.write_metadata("labels", &meta).unwrap();
        for i in 0..3000u64 {
            let header = MessageHeader {
                channel: if i % 3 == 0 { b } else { a },
                sequence: i as u32,
                log_time: 1000 + i,
                publish_time: 1000 + i,
            };
            let data: Vec<u8> = (0..900).map(|k| ((k * i) % 251) as u8).collect();
            w.write_message(&header, &data, Content::Compressible)
                .unwrap();
        }
        w.finish().unwrap()
    }

    fn messages(bytes: &[u8]) -> Vec<(String, u64, Vec<u8>)> {
        mcap::MessageStream::new(bytes)
            .unwrap()
            .map(|m| {
                let m = m.unwrap();
                (m.channel.topic.clone(), m.log_time, m.data.to_vec())
            })
            .collect()
    }

    #[test]
    fn a_file_cut_at_any_byte_gives_back_every_message_of_its_complete_chunks() {
        let whole = recording();
        let all = messages(&whole);
        let summary = mcap::Summary::read(&whole).unwrap().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (cut_path, out) = (dir.path().join("cut.mcap"), dir.path().join("out.mcap"));
        // Cuts in and between every chunk, in the summary, and none.
        let mut cuts = vec![whole.len()];
        for c in &summary.chunk_indexes {
            let start = c.chunk_start_offset as usize;
            let end = start + (c.chunk_length + c.message_index_length) as usize;
            cuts.extend([start + 5, start + 40, (start + end) / 2, end - 1, end]);
        }
        cuts.push(whole.len() - 10);
        for cut in cuts {
            std::fs::File::create(&cut_path)
                .unwrap()
                .write_all(&whole[..cut])
                .unwrap();
            let report = recover(&cut_path, &out).unwrap();
            let bytes = std::fs::read(&out).unwrap();
            // Every message of the chunks that end before the cut, in order, and no other.
            let complete: u64 = summary
                .chunk_indexes
                .iter()
                .filter(|c| (c.chunk_start_offset + c.chunk_length) as usize <= cut)
                .map(|c| {
                    summary
                        .read_message_indexes(&whole, c)
                        .unwrap()
                        .values()
                        .map(|v| v.len() as u64)
                        .sum::<u64>()
                })
                .sum();
            let got = messages(&bytes);
            assert_eq!(got.len() as u64, complete, "cut at {cut}");
            assert_eq!(got[..], all[..got.len()], "cut at {cut}");
            assert_eq!(report.messages, complete);
            let stats = mcap::Summary::read(&bytes).unwrap().unwrap().stats.unwrap();
            assert_eq!(stats.message_count, complete);
            let meta = &summary.metadata_indexes[0];
            let meta_whole = (meta.offset + meta.length) as usize <= cut;
            assert_eq!(report.metadata, u64::from(meta_whole), "cut at {cut}");
            assert_eq!(report.was_complete, cut >= whole.len() - 10, "cut at {cut}");
        }
    }

    #[test]
    fn a_corrupt_chunk_is_dropped_and_the_rest_kept() {
        let mut whole = recording();
        let summary = mcap::Summary::read(&whole).unwrap().unwrap();
        let second = &summary.chunk_indexes[1];
        // A flipped byte in the second chunk's compressed records.
        let at = (second.chunk_start_offset + second.chunk_length / 2) as usize;
        whole[at] ^= 0x55;
        let dir = tempfile::tempdir().unwrap();
        let (input, out) = (dir.path().join("in.mcap"), dir.path().join("out.mcap"));
        std::fs::write(&input, &whole).unwrap();
        let report = recover(&input, &out).unwrap();
        assert_eq!(report.bad_chunks, 1);
        assert_eq!(report.chunks as usize, summary.chunk_indexes.len() - 1);
        let got = messages(&std::fs::read(&out).unwrap());
        assert_eq!(got.len() as u64, report.messages);
        assert!(report.was_complete);
    }

    #[test]
    fn what_is_not_mcap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("x.mcap");
        for bytes in [
            &b""[..],
            b"hello world",
            b"\x89MCAP0\r\n\x02\0\0\0\0\0\0\0\0",
        ] {
            std::fs::write(&input, bytes).unwrap();
            let e = recover(&input, &dir.path().join("o.mcap")).unwrap_err();
            assert!(matches!(e, RecoverError::NotMcap(_)), "{e}");
        }
        // Cut inside the header.
        std::fs::write(&input, &recording()[..20]).unwrap();
        let e = recover(&input, &dir.path().join("o.mcap")).unwrap_err();
        assert!(matches!(e, RecoverError::Empty(_)), "{e}");
        std::fs::write(&input, recording()).unwrap();
        assert!(matches!(
            recover(&input, &input).unwrap_err(),
            RecoverError::SameFile(_)
        ));
        assert_eq!(
            default_output(Path::new("/r/run.mcap")),
            Path::new("/r/run.recovered.mcap")
        );
    }
}

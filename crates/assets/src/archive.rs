//! Model archives (`…/x.zip/inner/model.dae`) extracted once per archive, safely.
//!
//! Archives come with worlds from anywhere, and the folder they are extracted into is read
//! again by later runs, so:
//! - the extraction root is private: created with mode 0700, and refused if it is a symlink,
//!   belongs to another user or is writable by others (a shared, predictable folder under
//!   `/tmp` let another local user plant files or symlinks there);
//! - an archive is extracted into a fresh, uniquely named folder inside the root, files created
//!   new (no existing file or symlink is ever opened), then renamed into place whole;
//! - a folder already in place is used only if its manifest (every member's name, size and
//!   CRC-32, from the archive's directory) matches the archive and its files have those sizes;
//! - extraction streams each member to disk under three bounds: bytes per member, bytes per
//!   archive, and the ratio of extracted to compressed bytes (a zip bomb's tell), besides a
//!   bound on the number of members. Names with `..` or absolute paths are skipped (zip-slip).
//!
//! Owns: the extraction root's layout. Must not touch: what the models hold.

use std::collections::hash_map::DefaultHasher;
use std::fs::{File, OpenOptions};
use std::hash::{Hash, Hasher};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Most bytes extracted from one member.
pub const MAX_MEMBER_BYTES: u64 = 1 << 30;
/// Most bytes extracted from one archive.
pub const MAX_ARCHIVE_BYTES: u64 = 2 << 30;
/// Most members of one archive.
pub const MAX_MEMBERS: usize = 100_000;
/// Most extracted bytes per compressed byte of a member (text models compress 10-20 times;
/// zip bombs a thousand and more)...
pub const MAX_RATIO: u64 = 250;
/// ...beyond this many bytes, which any member may extract to.
const RATIO_SLACK: u64 = 1 << 20;

/// The file in an extracted folder that lists what it holds.
const MANIFEST: &str = ".passerby-manifest";

/// The platform's per-user cache folder for extracted archives: `$XDG_CACHE_HOME` or
/// `~/.cache`, then `passerby-extracted`; without a home, a folder named for the user under
/// the temporary directory (checked private like any other).
pub fn default_root() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| Path::new(d).is_absolute())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    match cache {
        Some(dir) => dir.join("passerby-extracted"),
        None => std::env::temp_dir().join(format!("passerby-extracted-{}", user_tag())),
    }
}

/// A name for this user: the uid where the platform tells.
fn user_tag() -> String {
    current_uid().map_or_else(|| "user".into(), |u| u.to_string())
}

/// The effective user id (Linux: the owner of `/proc/self`).
#[cfg(unix)]
fn current_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").ok().map(|m| m.uid())
}

#[cfg(not(unix))]
fn current_uid() -> Option<u32> {
    None
}

/// Creates `root` (mode 0700) if needed and checks that it is a private folder of ours.
fn private_root(root: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(root).is_err() {
        if let Some(parent) = root.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
        }
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        if let Err(e) = builder.create(root)
            && e.kind() != io::ErrorKind::AlreadyExists
        {
            return Err(format!("cannot create `{}`: {e}", root.display()));
        }
    }
    let meta = std::fs::symlink_metadata(root)
        .map_err(|e| format!("cannot read `{}`: {e}", root.display()))?;
    if !meta.is_dir() {
        return Err(format!(
            "extraction folder `{}` is not a folder (a symlink?): refusing to extract there",
            root.display()
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if current_uid().is_some_and(|uid| uid != meta.uid()) || meta.mode() & 0o022 != 0 {
            return Err(format!(
                "extraction folder `{}` belongs to another user or others may write to it: refusing to extract there",
                root.display()
            ));
        }
    }
    Ok(())
}

/// One member as the archive's directory states it.
struct Member {
    index: usize,
    name: PathBuf,
    size: u64,
    compressed: u64,
    crc: u32,
    is_dir: bool,
}

/// The folder holding `archive`'s members, extracted under `root` if not already there.
pub fn extracted(root: &Path, archive: &Path) -> Result<PathBuf, String> {
    private_root(root)?;
    let file = File::open(archive).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| format!("not a readable zip: {e}"))?;
    if zip.len() > MAX_MEMBERS {
        return Err(format!("{} members, more than {MAX_MEMBERS}", zip.len()));
    }
    let mut members = Vec::new();
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(|e| e.to_string())?;
        // `enclosed_name` refuses absolute paths and `..` (zip-slip).
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        // A name given twice: the first member stands (as unzip's default keeps one).
        if members.iter().any(|m: &Member| m.name == name) {
            continue;
        }
        members.push(Member {
            index,
            name,
            size: entry.size(),
            compressed: entry.compressed_size(),
            crc: entry.crc32(),
            is_dir: entry.is_dir(),
        });
    }
    let manifest = manifest_of(&members);
    let mut hasher = DefaultHasher::new();
    std::fs::canonicalize(archive)
        .unwrap_or_else(|_| archive.to_owned())
        .hash(&mut hasher);
    meta.len().hash(&mut hasher);
    meta.modified().ok().hash(&mut hasher);
    manifest.hash(&mut hasher);
    let stem = archive
        .file_stem()
        .map_or("archive".into(), |s| s.to_string_lossy().into_owned());
    let dir = root.join(format!("{stem}-{:016x}", hasher.finish()));
    if std::fs::symlink_metadata(&dir).is_ok() {
        if holds(&dir, &members, &manifest) {
            return Ok(dir);
        }
        // Left half-made or changed: made again. `remove_dir_all` does not follow symlinks.
        std::fs::remove_dir_all(&dir)
            .map_err(|e| format!("cannot remove stale `{}`: {e}", dir.display()))?;
    }
    let fresh = tempfile_dir(root)?;
    let made = extract_into(&mut zip, &members, &fresh)
        .and_then(|()| write_new(&fresh.join(MANIFEST), manifest.as_bytes()));
    if let Err(e) = made {
        let _ = std::fs::remove_dir_all(&fresh);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&fresh, &dir) {
        let _ = std::fs::remove_dir_all(&fresh);
        // Another process may have put the same folder in place first.
        if holds(&dir, &members, &manifest) {
            return Ok(dir);
        }
        return Err(format!(
            "cannot move extracted files to `{}`: {e}",
            dir.display()
        ));
    }
    Ok(dir)
}

/// A new, uniquely named folder (mode 0700) in `root`.
fn tempfile_dir(root: &Path) -> Result<PathBuf, String> {
    for attempt in 0..100u32 {
        let mut hasher = DefaultHasher::new();
        std::time::SystemTime::now().hash(&mut hasher);
        std::process::id().hash(&mut hasher);
        std::thread::current().id().hash(&mut hasher);
        attempt.hash(&mut hasher);
        let path = root.join(format!(".extracting-{:016x}", hasher.finish()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create `{}`: {e}", path.display())),
        }
    }
    Err(format!(
        "cannot create a fresh folder in `{}`",
        root.display()
    ))
}

/// The manifest's text: a line per member, `crc size name` (`/` ending a folder's name).
fn manifest_of(members: &[Member]) -> String {
    let mut text = String::new();
    for m in members {
        let slash = if m.is_dir { "/" } else { "" };
        text += &format!("{:08x} {} {}{slash}\n", m.crc, m.size, m.name.display());
    }
    text
}

/// Whether `dir` is a folder (not a symlink) whose manifest is `manifest` and whose member
/// files are regular files of the stated sizes.
fn holds(dir: &Path, members: &[Member], manifest: &str) -> bool {
    let is_dir = std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let listed = std::fs::symlink_metadata(dir.join(MANIFEST)).is_ok_and(|m| m.is_file())
        && std::fs::read_to_string(dir.join(MANIFEST)).is_ok_and(|t| t == manifest);
    is_dir
        && listed
        && members.iter().filter(|m| !m.is_dir).all(|m| {
            std::fs::symlink_metadata(dir.join(&m.name))
                .is_ok_and(|meta| meta.is_file() && meta.len() == m.size)
        })
}

/// Streams every member into `dir`, within the bounds.
fn extract_into(
    zip: &mut zip::ZipArchive<File>,
    members: &[Member],
    dir: &Path,
) -> Result<(), String> {
    let mut total = 0u64;
    for m in members {
        let target = dir.join(&m.name);
        if m.is_dir {
            std::fs::create_dir_all(&target)
                .map_err(|e| format!("cannot create `{}`: {e}", target.display()))?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
        }
        let ratio_cap = m
            .compressed
            .saturating_mul(MAX_RATIO)
            .saturating_add(RATIO_SLACK);
        let cap = MAX_MEMBER_BYTES
            .min(ratio_cap)
            .min(MAX_ARCHIVE_BYTES - total);
        let mut entry = zip.by_index(m.index).map_err(|e| e.to_string())?;
        let mut out = new_file(&target)?;
        let n = io::copy(&mut (&mut entry).take(cap + 1), &mut out)
            .map_err(|e| format!("`{}`: {e}", m.name.display()))?;
        if n > cap {
            let why = if cap == ratio_cap {
                format!(
                    "extracts to more than {MAX_RATIO} times its compressed size ({} bytes): a zip bomb?",
                    m.compressed
                )
            } else if cap == MAX_MEMBER_BYTES {
                format!("extracts to more than {MAX_MEMBER_BYTES} bytes")
            } else {
                format!("the archive extracts to more than {MAX_ARCHIVE_BYTES} bytes")
            };
            return Err(format!("member `{}` {why}", m.name.display()));
        }
        if n != m.size {
            return Err(format!(
                "member `{}` holds {n} bytes where the archive says {}",
                m.name.display(),
                m.size
            ));
        }
        total += n;
    }
    Ok(())
}

/// Creates `path`, which must not exist yet (so no planted file or symlink is followed).
fn new_file(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create `{}`: {e}", path.display()))
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), String> {
    new_file(path)?
        .write_all(bytes)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

//! Archive extraction and remote URIs are safe against a hostile world or another local user
//! (issue 23, cases 6 and 7): a private extraction folder, nothing trusted or followed that
//! was planted, bounded extraction, no URI that leaves the asset cache.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_assets::{Resolver, UriError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A zip at `path` with `members` (name, bytes), deflated.
fn zip_file(path: &Path, members: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in members {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// A resolver whose asset cache holds `models.zip` (`m/a.obj`, `m/b.txt`), extracting into
/// `root`.
fn setup(scratch: &Path, root: PathBuf) -> Resolver {
    let cache = scratch.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    zip_file(
        &cache.join("models.zip"),
        &[
            ("m/a.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
            ("m/b.txt", b"texture"),
        ],
    );
    let mut r = Resolver::new(cache);
    r.extract_dir = root;
    r
}

const URI: &str = "https://example.org/models.zip/m/a.obj";

#[cfg(unix)]
#[test]
fn the_extraction_folder_is_private_and_nothing_planted_in_it_is_trusted() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("private");
    let r = setup(scratch.path(), root.clone());
    let a = r.resolve(URI, Path::new("/")).unwrap();
    assert_eq!(std::fs::read_to_string(&a).unwrap().lines().count(), 4);
    let mode = std::fs::metadata(&root).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "created private");

    // A member changed after extraction (or a folder left half-made) is not trusted.
    std::fs::write(&a, "planted").unwrap();
    let again = r.resolve(URI, Path::new("/")).unwrap();
    assert_eq!(again, a);
    assert_eq!(std::fs::read_to_string(&a).unwrap().lines().count(), 4);

    // A member replaced by a symlink is not followed: extracted again, the target untouched.
    let outside = scratch.path().join("outside.txt");
    std::fs::write(&outside, "keep me").unwrap();
    std::fs::remove_file(&a).unwrap();
    std::os::unix::fs::symlink(&outside, &a).unwrap();
    let again = r.resolve(URI, Path::new("/")).unwrap();
    assert!(!std::fs::symlink_metadata(&again).unwrap().is_symlink());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");

    // A root others may write to, or a symlink as the root, is refused.
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).unwrap();
    let e = r.resolve(URI, Path::new("/")).unwrap_err();
    assert!(e.to_string().contains("others may write to it"), "{e}");
    let link = scratch.path().join("link");
    std::os::unix::fs::symlink(&root, &link).unwrap();
    let r = setup(scratch.path(), link);
    let e = r.resolve(URI, Path::new("/")).unwrap_err();
    assert!(
        e.to_string().contains("is not a folder (a symlink?)"),
        "{e}"
    );
}

#[test]
fn zip_bombs_are_stopped_while_streaming() {
    let scratch = tempfile::tempdir().unwrap();
    let cache = scratch.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    // 64 MB of zeros deflate to ~64 kB: a ratio of a thousand.
    let zeros = vec![0u8; 64 << 20];
    zip_file(
        &cache.join("bomb.zip"),
        &[("m/a.obj", b"v 0 0 0\n"), ("m/zeros.bin", &zeros)],
    );
    let mut r = Resolver::new(cache);
    r.extract_dir = scratch.path().join("root");
    let e = r
        .resolve("https://example.org/bomb.zip/m/a.obj", Path::new("/"))
        .unwrap_err();
    assert!(matches!(e, UriError::BadArchive { .. }), "{e}");
    assert!(e.to_string().contains("times its compressed size"), "{e}");
    // Nothing half-extracted is left behind.
    let left: Vec<_> = std::fs::read_dir(scratch.path().join("root"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn remote_uris_cannot_leave_the_asset_cache() {
    let scratch = tempfile::tempdir().unwrap();
    let r = setup(scratch.path(), scratch.path().join("root"));
    // The cache's parent holds a model the URI would have reached.
    std::fs::create_dir_all(scratch.path().join("dir")).unwrap();
    std::fs::write(scratch.path().join("dir/file.obj"), "v 0 0 0\n").unwrap();
    for uri in [
        "http://../dir/file.obj",
        "https://./dir/file.obj",
        "https:///dir/file.obj",
        "https://example.org/../dir/file.obj",
        "https://example.org/a/../../dir/file.obj",
        "https://example.org/models.zip/../../dir/file.obj",
    ] {
        let e = r.resolve(uri, Path::new("/")).unwrap_err();
        assert!(matches!(e, UriError::BadUri { .. }), "{uri}: {e}");
    }
    assert!(r.resolve(URI, Path::new("/")).is_ok());
}

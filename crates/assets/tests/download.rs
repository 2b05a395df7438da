//! `--download`: a remote model missing from the cache is fetched into it (over plain HTTP from a
//! server of the test's own on loopback), then read from the cache. Without the `download`
//! feature the same request is a clear error.
#![allow(clippy::unwrap_used)] // test setup failures should panic

use passerby_assets::{Resolver, load_model};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// Serves `body` to every request on a loopback port; returns the port.
fn serve(body: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let header = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(header.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    port
}

#[test]
fn missing_remote_models_are_downloaded_into_the_cache_when_asked() {
    let port = serve(std::fs::read(shared().join("assets/mvsim-models/pallet.zip")).unwrap());
    let cache_scratch = tempfile::tempdir().unwrap();
    let cache = cache_scratch.path().to_path_buf();
    let _ = std::fs::remove_dir_all(&cache);
    let mut resolver = Resolver::new(cache.clone());
    resolver.extract_dir = cache.join("extracted");
    let uri = format!("http://127.0.0.1:{port}/mvsim-models/pallet.zip/pallet/pallet.dae");
    assert!(
        resolver.resolve(&uri, Path::new("/")).is_err(),
        "no download unless asked"
    );
    resolver.download = true;
    let result = resolver.resolve(&uri, Path::new("/"));
    if cfg!(feature = "download") {
        let path = result.unwrap();
        assert_eq!(load_model(&path).unwrap().triangle_count(), 4572);
        assert!(
            cache
                .join(format!("127.0.0.1:{port}/mvsim-models/pallet.zip"))
                .is_file(),
            "stored in the cache"
        );
    } else {
        let err = result.unwrap_err().to_string();
        assert!(err.contains("this build has no download support"), "{err}");
    }
}

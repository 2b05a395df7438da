//! The bundled viewer: a few static files, embedded in the binary, served over plain HTTP on
//! loopback; the page connects to the Foxglove WebSocket server and draws the lidar clouds
//! coloured by label, actors' boxes and skeletons, vehicles and one camera image, with play,
//! pause and step buttons. Nothing is fetched from elsewhere.
//!
//! The server answers `GET` of its files and `/config.json` (the WebSocket's port), one short
//! thread per connection, at most [`MAX_CONNECTIONS`] at once, with read and write timeouts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Connections served at once; more wait in the kernel's backlog.
pub const MAX_CONNECTIONS: usize = 16;

const INDEX: &str = include_str!("../web/index.html");
const VIEWER: &str = include_str!("../web/viewer.js");
const CDR: &str = include_str!("../web/cdr.js");

/// A running web server.
pub struct WebServer {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl WebServer {
    /// Serves the viewer on `host:port`, pointing it at the WebSocket on `ws_port`.
    pub fn start(host: &str, port: u16, ws_port: u16) -> Result<WebServer, String> {
        let listener = TcpListener::bind((host, port))
            .map_err(|e| format!("cannot serve the viewer on {host}:{port}: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("viewer socket: {e}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("web".into())
                .spawn(move || accept(&listener, &stop, ws_port))
                .map_err(|e| format!("cannot start the viewer's thread: {e}"))?
        };
        Ok(WebServer {
            port,
            stop,
            thread: Some(thread),
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn accept(listener: &TcpListener, stop: &AtomicBool, ws_port: u16) {
    let open = Arc::new(AtomicUsize::new(0));
    while !stop.load(Ordering::Acquire) {
        match listener.accept() {
            Ok((stream, _)) => {
                if open.load(Ordering::Acquire) >= MAX_CONNECTIONS {
                    drop(stream);
                    continue;
                }
                open.fetch_add(1, Ordering::AcqRel);
                let open = open.clone();
                let spawned = std::thread::Builder::new()
                    .name("web-connection".into())
                    .spawn(move || {
                        let _ = answer(stream, ws_port);
                        open.fetch_sub(1, Ordering::AcqRel);
                    });
                if spawned.is_err() {
                    tracing::warn!("viewer: cannot start a connection thread");
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                tracing::warn!("viewer: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// The file a path names: its type and contents.
fn file(path: &str, ws_port: u16) -> Option<(&'static str, String)> {
    match path {
        "/" | "/index.html" => Some(("text/html; charset=utf-8", INDEX.to_owned())),
        "/viewer.js" => Some(("text/javascript; charset=utf-8", VIEWER.to_owned())),
        "/cdr.js" => Some(("text/javascript; charset=utf-8", CDR.to_owned())),
        "/config.json" => Some(("application/json", format!("{{\"port\":{ws_port}}}"))),
        _ => None,
    }
}

fn answer(stream: TcpStream, ws_port: u16) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?).take(16 << 10);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // The headers are read and ignored (bounded by the 16 kB taken).
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, kind, body) = match (method, file(path, ws_port)) {
        ("GET", Some((kind, body))) => ("200 OK", kind, body),
        // Browsers ask for an icon; there is none.
        ("GET", None) if path == "/favicon.ico" => ("204 No Content", "text/plain", String::new()),
        ("GET", None) => ("404 Not Found", "text/plain", "not found\n".to_owned()),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n".to_owned(),
        ),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn get(port: u16, request: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn the_viewer_serves_its_files_and_nothing_else() {
        let web = WebServer::start("127.0.0.1", 0, 4321).unwrap();
        let page = get(web.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(
            page.starts_with("HTTP/1.1 200 OK") && page.contains("viewer.js"),
            "{page}"
        );
        let config = get(web.port(), "GET /config.json HTTP/1.1\r\n\r\n");
        assert!(config.ends_with("{\"port\":4321}"), "{config}");
        assert!(get(web.port(), "GET /../etc/passwd HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(web.port(), "POST / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        // A request line of garbage, or none at all, is answered without harm.
        assert!(get(web.port(), "\r\n\r\n").starts_with("HTTP/1.1 405"));
    }
}

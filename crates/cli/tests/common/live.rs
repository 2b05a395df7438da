//! `passerby serve` driven by `tests/live/client.mjs` (Foxglove's WebSocket client and its ROS 2
//! CDR reader and writer, from npm, installed on first use into the tests' temporary folder from
//! `tests/live/package-lock.json`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The client script beside its installed packages; installed once per test binary.
pub fn client_script() -> PathBuf {
    static CLIENT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CLIENT.get_or_init(install_clients).clone()
}

fn install_clients() -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/live");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-clients");
    std::fs::create_dir_all(&dir).unwrap();
    // Installed anew whenever the lock file changed since the last install.
    let lock = std::fs::read(source.join("package-lock.json")).unwrap();
    let installed_lock = dir.join("node_modules/.installed-lock.json");
    let stale = std::fs::read(&installed_lock).ok().as_ref() != Some(&lock);
    for file in [
        "package.json",
        "package-lock.json",
        "client.mjs",
        "viewer_check.mjs",
    ] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    if stale {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm (Node.js) is needed to test the live server with independent clients");
        assert!(installed.success(), "npm ci of the live clients failed");
        std::fs::write(&installed_lock, &lock).unwrap();
    }
    dir.join("client.mjs")
}

/// Loads the viewer at `url` in headless Chromium; what it showed (see `viewer_check.mjs`).
pub fn check_viewer(url: &str, screenshot: &Path) -> serde_json::Value {
    let script = client_script().with_file_name("viewer_check.mjs");
    let out = Command::new("node")
        .arg(script)
        .arg(url)
        .arg(screenshot)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the viewer check failed (Chromium is Debian's `chromium`, installed by .ci/run): {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

/// A `passerby serve` running, its port, and its standard error as it comes.
pub struct Served {
    pub child: Child,
    pub port: u16,
    /// The viewer's port.
    pub web_port: u16,
    pub stderr: mpsc::Receiver<String>,
}

pub fn serve(world: &str, extra: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_passerby"))
        .current_dir(repo())
        .env("PASSERBY_OFFLINE", "1")
        .args(["serve", world, "--foxglove", "0", "--web", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, stderr) = mpsc::channel();
    let reader = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let (mut port, mut web_port) = (None, None);
    while port.is_none() || web_port.is_none() {
        let line = stderr
            .recv_timeout(Duration::from_secs(60))
            .expect("passerby serve printed its addresses");
        if let Some(rest) = line.strip_prefix("foxglove: ws://127.0.0.1:") {
            port = Some(rest.parse().unwrap());
        }
        if let Some(rest) = line.strip_prefix("web: http://127.0.0.1:") {
            web_port = Some(rest.trim_end_matches('/').parse().unwrap());
        }
    }
    Served {
        child,
        port: port.unwrap(),
        web_port: web_port.unwrap(),
        stderr,
    }
}

impl Served {
    /// Asks it to stop (SIGTERM) unless it ended already; its exit status and standard output.
    pub fn stop(mut self) -> (std::process::ExitStatus, String) {
        if self.child.try_wait().unwrap().is_none() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.child.id().to_string()])
                .status();
        }
        let out = self.child.wait_with_output().unwrap();
        let rest: Vec<String> = self.stderr.try_iter().collect();
        eprintln!("{}", rest.join("\n"));
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }
}

/// Runs the client in `mode`; its JSON line.
pub fn client(mode: &str, port: u16, arg: &str) -> serde_json::Value {
    let out = Command::new("node")
        .arg(client_script())
        .args([mode, &port.to_string(), arg])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client {mode}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
}

impl Served {
    /// Waits for it to end by itself (`--duration`).
    pub fn stop_when_done(mut self) -> (std::process::ExitStatus, String) {
        let status = self.child.wait().unwrap();
        let mut stdout = String::new();
        if let Some(mut s) = self.child.stdout.take() {
            std::io::Read::read_to_string(&mut s, &mut stdout).unwrap();
        }
        (status, stdout)
    }
}

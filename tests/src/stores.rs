//! Real shared stores for the team cache's tests (issue 51), each started by the test on a free
//! loopback port and killed when dropped: Debian's `redis-server`, and moto's S3 server from
//! PyPI (installed by `scripts/test` into `tests/moto/`). `redis-cli` reads and rewrites what
//! Redis holds, as an attacker with access to the store would.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::testenv::wait_until;

/// A port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Whether `program` is on `PATH`.
pub fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Redis server of the test's own: no persistence, loopback only.
pub struct Redis {
    child: Option<Child>,
    /// Its port.
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl Redis {
    /// Starts one and waits until it answers `PING`.
    pub fn start() -> Self {
        let dir = tempfile::tempdir().expect("a folder for Redis");
        let port = free_port();
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                // `DEBUG SLEEP` makes a slow store (Redis 7 allows it only when asked).
                "--enable-debug-command",
                "local",
                "--dir",
            ])
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server (Debian: redis-server)");
        let redis = Self {
            child: Some(child),
            port,
            _dir: dir,
        };
        assert!(
            wait_until(Duration::from_secs(20), || redis
                .try_cli(&["PING"])
                .is_some_and(|o| o.trim() == "PONG")),
            "redis-server did not answer on port {port}"
        );
        redis
    }

    /// `redis://127.0.0.1:<port>/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    fn try_cli(&self, args: &[&str]) -> Option<String> {
        let out = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// What `redis-cli <args>` printed.
    pub fn cli(&self, args: &[&str]) -> String {
        self.try_cli(args)
            .unwrap_or_else(|| panic!("redis-cli {args:?} failed"))
    }

    /// The keys matching `pattern`.
    pub fn keys(&self, pattern: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .cli(&["--scan", "--pattern", pattern])
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        keys.sort();
        keys
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> String {
        let mut value = self.cli(&["GET", key]);
        if value.ends_with('\n') {
            value.pop();
        }
        value
    }

    /// Sets `key` to `value` exactly (through standard input, so any bytes go).
    pub fn set(&self, key: &str, value: &str) {
        use std::io::Write;
        let mut child = Command::new("redis-cli")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-x",
                "SET",
                key,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-cli");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(value.as_bytes())
            .expect("write the value");
        assert!(child.wait().expect("redis-cli").success());
    }

    /// Kills the server (a store that goes away).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The folder `scripts/test` installs moto into.
fn moto_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("moto")
}

/// Whether moto's server is installed for the tests.
pub fn moto_installed() -> bool {
    moto_dir().join("moto/server.py").exists()
}

/// An S3-compatible server of the test's own (moto), with one bucket.
pub struct S3 {
    child: Child,
    /// Its port.
    pub port: u16,
    /// The bucket made at start.
    pub bucket: String,
}

impl S3 {
    /// Starts moto's server, waits until it answers, and makes `bucket`.
    pub fn start(bucket: &str) -> Self {
        let port = free_port();
        let child = Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .env("PYTHONPATH", moto_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto's server (scripts/test installs it into tests/moto)");
        let s3 = Self {
            child,
            port,
            bucket: bucket.to_owned(),
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::blocking::Client::new();
        let made = wait_until(Duration::from_secs(60), || {
            client
                .put(format!("{}/{bucket}", s3.endpoint()))
                .send()
                .is_ok_and(|r| r.status().is_success())
        });
        assert!(made, "moto did not answer on port {port}");
        s3
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `s3://<bucket>/<prefix>?endpoint=…&region=us-east-1`.
    pub fn url(&self, prefix: &str) -> String {
        format!(
            "s3://{}/{prefix}?endpoint={}&region=us-east-1",
            self.bucket,
            self.endpoint()
        )
    }

    /// How many objects the bucket holds.
    pub fn objects(&self) -> usize {
        let body =
            reqwest::blocking::get(format!("{}/{}?list-type=2", self.endpoint(), self.bucket))
                .and_then(|r| r.text())
                .unwrap_or_default();
        body.matches("<Key>").count()
    }
}

impl Drop for S3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

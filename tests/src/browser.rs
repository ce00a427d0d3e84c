//! A real headless Chromium for the page tests, driven over WebDriver by ChromeDriver (Debian's
//! `chromium` and `chromium-driver`, which `scripts/test` installs): open an address, read the
//! rendered text and the cookies, run a script, wait for a change, save a screenshot. Each
//! browser gets its own empty profile and its own driver on a free port, and both end with it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// Where the browser and its driver are (`STANLEY_TEST_CHROMIUM` and
/// `STANLEY_TEST_CHROMEDRIVER` override Debian's paths).
fn binaries() -> (PathBuf, PathBuf) {
    let pick = |var: &str, default: &str| {
        std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from)
    };
    (
        pick("STANLEY_TEST_CHROMIUM", "/usr/bin/chromium"),
        pick("STANLEY_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"),
    )
}

/// A browser session.
pub struct Browser {
    driver: Child,
    base: String,
    http: reqwest::blocking::Client,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium with JavaScript on or off. Panics, naming
    /// what is missing, when either is not installed.
    pub fn start(javascript: bool) -> Self {
        let (chromium, chromedriver) = binaries();
        for (what, path) in [("chromium", &chromium), ("chromedriver", &chromedriver)] {
            assert!(
                path.exists(),
                "{} is missing: scripts/test installs Debian's chromium and chromium-driver \
                 (or set STANLEY_TEST_{})",
                path.display(),
                what.to_uppercase()
            );
        }
        // reqwest is built without a default crypto provider (TLS is not used here).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let profile = tempfile::tempdir().unwrap();
        // ChromeDriver now and then ends before it says its port (seen once in a full run on
        // a busy machine): a driver that did is started again, three times at most.
        let (driver, port) = (0..3)
            .find_map(|_| {
                let mut driver = Command::new(&chromedriver)
                    .arg("--port=0")
                    .env_clear()
                    .env("HOME", profile.path())
                    .env("PATH", "/usr/bin:/bin")
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("chromedriver starts");
                match driver_port(&mut driver) {
                    Some(port) => Some((driver, port)),
                    None => {
                        let _ = driver.kill();
                        let _ = driver.wait();
                        None
                    }
                }
            })
            .expect("chromedriver ended before it said its port, three times");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::blocking::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--window-size=1280,1000".into(),
            format!(
                "--user-data-dir={}",
                profile.path().join("chrome").display()
            ),
        ];
        if !javascript {
            args.push("--blink-settings=scriptEnabled=false".into());
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": args}
        }}});
        let started: Value = http
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .and_then(|r| r.json())
            .expect("a WebDriver session starts");
        let session = started["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {started}"))
            .to_owned();
        Self {
            driver,
            base: format!("{base}/session/{session}"),
            http,
            _profile: profile,
        }
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let reply: Value = request
            .send()
            .and_then(|r| r.json())
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"));
        if reply["value"]["error"].is_string() {
            panic!("WebDriver {path}: {}", reply["value"]);
        }
        reply["value"].clone()
    }

    /// Opens `url` and waits for it to load.
    pub fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({"url": url})));
    }

    /// The address now shown.
    pub fn url(&self) -> String {
        self.call(reqwest::Method::GET, "/url", None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    /// Runs `script` (a function body) in the page and returns what it returns.
    pub fn run(&self, script: &str) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// The rendered text of the first element matching `css` ("" when there is none), read
    /// in one step so a live update in between cannot make it stale.
    pub fn text(&self, css: &str) -> String {
        let script = format!(
            "const e = document.querySelector({}); return e ? e.innerText : ''",
            Value::from(css)
        );
        self.run(&script).as_str().unwrap_or("").to_owned()
    }

    /// The page's whole HTML as the browser has it now.
    pub fn source(&self) -> String {
        self.call(reqwest::Method::GET, "/source", None)
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    /// Every cookie the browser holds for the page now shown, `HttpOnly` ones included.
    pub fn cookies(&self) -> Vec<Value> {
        self.call(reqwest::Method::GET, "/cookie", None)
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Saves a PNG of the window to `path` (its folder is made).
    pub fn screenshot(&self, path: &Path) {
        let data = self.call(reqwest::Method::GET, "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap_or(""))
            .expect("a base64 PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// Polls `check` until it holds or `limit` passes; whether it held.
    pub fn wait_for(&self, limit: Duration, mut check: impl FnMut(&Self) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            if check(self) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.http.delete(&self.base).send();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Reads ChromeDriver's first lines until it says which port it took; None if it ends first.
fn driver_port(driver: &mut Child) -> Option<u16> {
    let out = driver.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(out).lines();
    for line in lines.by_ref() {
        let line = line.unwrap_or_default();
        if let Some(rest) = line.split("started successfully on port ").nth(1) {
            let port = rest.trim_end_matches('.').trim().parse().expect("a port");
            // Keep draining its output so it never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            return Some(port);
        }
    }
    None
}

/// Where the page tests save their screenshots: `target/ui-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("target/ui-screenshots")
}

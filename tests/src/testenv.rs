//! A hermetic environment for running the real binaries: a cleared environment, a temporary
//! HOME and socket folder, a fake System One server and a test key.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fake_jev::FakeJev;
use crate::repo::TempRepo;

/// The key tests put in `TYPESAFE_API_KEY`; it must never appear in output.
pub const TEST_KEY: &str = "sk-test-stanley-key-0123456789";

/// What a binary printed and how it exited.
#[derive(Clone, Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// stdout parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:?}"))
    }
}

/// The folder holding the built binaries (`target/<profile>/`).
pub fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let mut dir = exe.parent().expect("exe folder").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    for bin in ["stanley", "stanleyd", "stanleyctl"] {
        assert!(
            dir.join(bin).exists(),
            "{} is missing: run `cargo build --workspace --bins` (scripts/test does) before the tests",
            dir.join(bin).display()
        );
    }
    dir
}

/// A hermetic environment.
pub struct TestEnv {
    pub jev: FakeJev,
    home: tempfile::TempDir,
    runtime: tempfile::TempDir,
    extra: Vec<(String, String)>,
    without_key: bool,
    untrusted: bool,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    /// A new environment with its own fake server.
    pub fn new() -> Self {
        Self::with_jev(FakeJev::start_blocking())
    }

    /// A new environment whose fake server speaks TLS with a test authority and offers
    /// `offer` by ALPN (the client trusts it only through `STANLEY_JEV_CA_FILE`).
    pub fn over_tls(offer: crate::tls::Offer) -> Self {
        Self::with_jev(FakeJev::start_tls_blocking(offer))
    }

    fn with_jev(jev: FakeJev) -> Self {
        Self {
            jev,
            home: tempfile::Builder::new()
                .prefix("stanley-home")
                .tempdir()
                .expect("home"),
            runtime: crate::private_tempdir("st-run"),
            extra: Vec::new(),
            without_key: false,
            untrusted: false,
        }
    }

    /// Sets an extra environment variable for every command.
    pub fn set(&mut self, key: &str, value: &str) {
        self.extra.push((key.to_owned(), value.to_owned()));
    }

    /// Runs every command without `TYPESAFE_API_KEY`.
    pub fn without_key(&mut self) {
        self.without_key = true;
    }

    /// Runs every command without `STANLEY_TRUST_WORKTREE=1`. By default the harness runs as CI
    /// does, trusting the temporary repository's workflows and flow commands as they are; the
    /// trust tests turn that off and trust through `stanleyctl trust`.
    pub fn untrusted(&mut self) {
        self.untrusted = true;
    }

    /// The temporary HOME (the daemon keeps its trust file under it).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The socket folder (`STANLEY_RUNTIME_DIR`).
    pub fn runtime_dir(&self) -> &Path {
        self.runtime.path()
    }

    /// A command for one of the binaries with the hermetic environment.
    pub fn command(&self, bin: &str, cwd: &Path) -> Command {
        self.program(&bin_dir().join(bin), cwd)
    }

    /// Any program (a test client that starts the binaries itself) with the same hermetic
    /// environment as [`TestEnv::command`].
    pub fn program(&self, program: &Path, cwd: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("STANLEY_RUNTIME_DIR", self.runtime.path())
            .env("STANLEY_IDLE_TIMEOUT_MS", "120000")
            .env("STANLEY_LOG", "debug")
            .env("TYPESAFE_BASE_URL", self.jev.base_url());
        if !self.without_key {
            cmd.env("TYPESAFE_API_KEY", TEST_KEY);
        }
        if !self.untrusted {
            cmd.env("STANLEY_TRUST_WORKTREE", "1");
        }
        for (k, v) in &self.extra {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `stanley` in `repo` with `args` and empty stdin.
    pub fn stanley(&self, repo: &TempRepo, args: &[&str]) -> Output {
        self.stanley_with_stdin(repo, args, None)
    }

    /// Runs `stanley` in `repo` with `args`, piping `stdin` when given (else /dev/null).
    pub fn stanley_with_stdin(
        &self,
        repo: &TempRepo,
        args: &[&str],
        stdin: Option<&[u8]>,
    ) -> Output {
        let mut cmd = self.command("stanley", repo.root());
        cmd.args(args);
        run(cmd, stdin)
    }

    /// Runs `stanleyctl` in `repo`.
    pub fn stanleyctl(&self, repo: &TempRepo, args: &[&str]) -> Output {
        let mut cmd = self.command("stanleyctl", repo.root());
        cmd.args(args);
        run(cmd, None)
    }

    /// Delegates to the stand-in `pi` (`src/bin/fake_pi.rs`) playing `mode`, with the background
    /// improvement worker off.
    pub fn stand_in_pi(&mut self, mode: &str) {
        let pi = bin_dir().join("fake-pi");
        self.set("STANLEY_PI_BIN", pi.to_str().expect("utf-8 path"));
        self.set("FAKE_PI_MODE", mode);
        self.set("STANLEY_AUTO_IMPROVE", "off");
    }

    /// Stops `repo`'s daemon and waits until its process is gone: it writes its last state
    /// (the judgment cache's manifest) on its way out, after `daemon.json` is removed.
    pub fn stop_daemon(&self, repo: &TempRepo) {
        let pid = repo.daemon_pid().expect("a daemon");
        let stop = self.stanleyctl(repo, &["daemon", "stop"]);
        assert_eq!(stop.code, 0, "{stop:?}");
        assert!(
            wait_until(Duration::from_secs(10), || {
                // SAFETY: signal 0 only checks that the process exists.
                unsafe { libc::kill(pid, 0) != 0 }
            }),
            "the daemon stops"
        );
    }
}

/// `tests/pygrpc`, where `scripts/test` installs the Python packages the tests use; panics,
/// naming the script, when `module` is not there.
pub fn python_site(module: &str) -> PathBuf {
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("pygrpc");
    assert!(
        site.join(module).join("__init__.py").exists(),
        "{module} is not installed in tests/pygrpc: run scripts/test"
    );
    site
}

/// `python3` with a cleared environment (only `PATH`) and `tests/pygrpc` on its path, which
/// must hold `module`.
pub fn python(module: &str) -> Command {
    let mut cmd = Command::new("python3");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("PYTHONPATH", python_site(module));
    cmd
}

/// Runs a command to completion with a 60 s safety limit.
pub fn run(mut cmd: Command, stdin: Option<&[u8]>) -> Output {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn binary");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        let bytes = bytes.to_vec();
        // A client that refuses the input early closes the pipe; that is not a test failure.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    // Watchdog: a hung binary is killed after 60 s so the test fails instead of hanging.
    std::thread::spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(60)).is_err() {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
        }
    });
    let out = child.wait_with_output().expect("output");
    let _ = done_tx.send(());
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Polls `check` every 10 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    check()
}

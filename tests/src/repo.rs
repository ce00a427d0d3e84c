//! Hermetic temporary Git repositories: branch `main`, a fixed author and dates, no user or
//! system Git configuration.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A Git repository in a temporary folder, removed on drop.
pub struct TempRepo {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl TempRepo {
    /// An empty repository on branch `main` (no commits).
    pub fn empty() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("stanley-repo")
            .tempdir()
            .expect("temp dir");
        let root = dir.path().join("repo");
        fs::create_dir_all(&root).expect("create repo dir");
        let root = root.canonicalize().expect("canonical root");
        let repo = Self { dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// A repository with one commit holding `files`.
    pub fn with_files(files: &[(&str, &str)]) -> Self {
        let repo = Self::empty();
        for (path, content) in files {
            repo.write(path, content);
        }
        repo.commit("initial");
        repo
    }

    /// A committed repository of `files` JavaScript files (`src/m<n>.js`), each of
    /// `hunks_per_file` × 20 one-line functions, whose worktree changes one line in every twenty:
    /// `files` × `hunks_per_file` separate hunks (the bench's and the concurrency tests' shape).
    pub fn with_hunks(files: usize, hunks_per_file: usize) -> Self {
        let contents: Vec<(String, String)> = (0..files)
            .map(|f| {
                let body: String = (0..hunks_per_file * 20)
                    .map(|i| format!("export function f{f}_{i}(x) {{ return x + {i}; }}\n"))
                    .collect();
                (format!("src/m{f}.js"), body)
            })
            .collect();
        let refs: Vec<(&str, &str)> = contents
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        let repo = Self::with_files(&refs);
        for (path, content) in &contents {
            let changed: String = content
                .lines()
                .enumerate()
                .map(|(i, line)| {
                    if i % 20 == 10 {
                        format!("{}\n", line.replace("x +", "x * 2 +"))
                    } else {
                        format!("{line}\n")
                    }
                })
                .collect();
            repo.write(path, &changed);
        }
        repo
    }

    /// A clone of the assembled upstream repository `name` (`tests/upstream/work/<name>`, built
    /// by `tests/upstream/assemble`), sharing its objects, with its `main` branch made local and
    /// its checked-out branch checked out. Panics naming the script when it was not built.
    pub fn upstream(name: &str) -> Self {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("upstream/work");
        assert!(
            source.join(format!("{name}.done")).exists(),
            "the upstream repository {name} is not assembled: run tests/upstream/assemble \
             (scripts/test does)"
        );
        let dir = tempfile::Builder::new()
            .prefix("stanley-upstream")
            .tempdir()
            .expect("temp dir");
        let root = dir.path().join("repo");
        let ok = Command::new("git")
            .args(["-c", "advice.detachedHead=false", "clone", "-q", "--shared"])
            .arg(source.join(name))
            .arg(&root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("run git clone")
            .success();
        assert!(ok, "git clone of {name} failed");
        let root = root.canonicalize().expect("canonical root");
        let repo = Self { dir, root };
        if !repo.git(&["branch", "--show-current"]).trim().eq("main") {
            repo.git(&["branch", "-q", "main", "origin/main"]);
        }
        repo
    }

    /// The pid recorded in the daemon's `daemon.json`, if a daemon has started.
    pub fn daemon_pid(&self) -> Option<i32> {
        // Bounded and not through a link: tests plant links to `/dev/zero` there.
        let bytes = stanley_adapters::records::read_bounded(
            &self.root().join(".stanley/daemon/daemon.json"),
            64 * 1024,
        )
        .ok()?;
        serde_json::from_slice::<serde_json::Value>(&bytes).ok()?["pid"]
            .as_i64()
            .and_then(|p| i32::try_from(p).ok())
    }

    /// The worktree root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A scratch folder outside the repository.
    /// Moves the repository to `parent/repo` (on the same file system), for tests that need it
    /// below a particular folder; whoever owns `parent` removes it.
    pub fn relocate(&mut self, parent: &Path) {
        let to = parent.join("repo");
        fs::rename(&self.root, &to).expect("move the repository");
        self.root = to.canonicalize().expect("canonical root");
    }

    pub fn outside(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file, creating folders.
    pub fn write(&self, path: &str, content: &str) {
        let full = self.root.join(path);
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).expect("create parent");
        }
        fs::write(full, content).expect("write file");
    }

    /// Runs `git` hermetically in the repository and returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Stages everything and commits.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }
}

impl Drop for TempRepo {
    fn drop(&mut self) {
        // Stop a daemon a test left running for this repository.
        let info = self.root.join(".stanley/daemon/daemon.json");
        if let Some(pid) = stanley_adapters::records::read_bounded(&info, 64 * 1024)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v["pid"].as_i64())
            .filter(|pid| *pid > 0 && *pid != i64::from(std::process::id()))
        {
            // SAFETY: kill has no memory-safety preconditions; a stale pid at worst gets a
            // SIGTERM it ignores or that targets no process.
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGTERM);
            }
        }
    }
}

//! A full disk under `.stanley/`: the daemon keeps answering, says what it could not record,
//! counts the log lines it lost, recovers when space returns, and still stops on request.
//!
//! The disk is a 4 MiB tmpfs mounted over the repository's `.stanley/`, which needs
//! CAP_SYS_ADMIN; where mounting is not permitted the test says so and checks nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use stanley_tests::testenv::wait_until;

use crate::summarize::{changed_repo, summarize_env};

/// A mounted tmpfs, unmounted on drop (lazily: a daemon a failed test left may hold it).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(at)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| Self(at.to_owned()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Writes zeros to `path` until the file system refuses.
fn fill(path: &Path) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).unwrap();
    let block = vec![0u8; 64 * 1024];
    while file.write_all(&block).is_ok() {}
    let _ = file.sync_all();
}

fn runs(root: &Path) -> Vec<PathBuf> {
    let mut runs: Vec<PathBuf> = std::fs::read_dir(root.join(".stanley/runs"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    runs.sort();
    runs
}

#[test]
fn a_full_disk_degrades_to_unrecorded_answers_and_recovers() {
    let env = summarize_env();
    let repo = changed_repo();
    let Some(_disk) = Tmpfs::mount(&repo.root().join(".stanley"), "4m") else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };

    // A first request starts the daemon and records its run.
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(runs(repo.root()).len(), 1);
    let pid = repo.daemon_pid().expect("a daemon");

    // Fill the disk: the next request still answers, and says its record is missing.
    let filler = repo.root().join(".stanley/filler");
    fill(&filler);
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("src/math.js"), "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains("the run record is incomplete")
            || said.contains("run records could not be written"),
        "{out:?}"
    );
    assert!(
        said.contains("No space left on device"),
        "the reason is named: {out:?}"
    );
    assert_eq!(repo.daemon_pid(), Some(pid), "the same daemon serves on");

    // The daemon's status counts the log lines it could not write.
    let status = env.stanleyctl(&repo, &["daemon", "status", "--json"]);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(
        status.json()["logWriteErrors"].as_u64().unwrap() > 0,
        "{status:?}"
    );
    let human = env.stanleyctl(&repo, &["daemon", "status"]);
    assert!(
        human.stdout.contains("log line(s) could not be written"),
        "{human:?}"
    );

    // Space returns: the next run is recorded whole.
    std::fs::remove_file(&filler).unwrap();
    let before = runs(repo.root()).len();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("run record"), "{out:?}");
    let after = runs(repo.root());
    assert_eq!(after.len(), before + 1);
    assert!(after.iter().any(|r| r.join("packet.json").is_file()));

    // Full again, the daemon still stops when asked.
    fill(&filler);
    let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(
        wait_until(Duration::from_secs(10), || {
            // SAFETY: signal 0 only checks that the process exists.
            unsafe { libc::kill(pid, 0) != 0 }
        }),
        "the daemon exited"
    );
}

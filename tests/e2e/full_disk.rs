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
    // The report wraps its lines; the words are what count.
    let said = format!("{}{}", out.stdout, out.stderr)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
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

#[test]
fn a_full_disk_still_delegates_and_says_the_job_was_not_queued() {
    let mut env = stanley_tests::TestEnv::new();
    env.set(
        "STANLEY_PI_BIN",
        stanley_tests::testenv::bin_dir()
            .join("fake-pi")
            .to_str()
            .unwrap(),
    );
    env.set("FAKE_PI_MODE", "finished");
    env.set("STANLEY_AUTO_IMPROVE", "off");
    let repo = changed_repo();
    let Some(_disk) = Tmpfs::mount(&repo.root().join(".stanley"), "4m") else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    // Start the daemon (and its queue) while there is space.
    let list = env.stanleyctl(&repo, &["queue", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    let filler = repo.root().join(".stanley/filler");
    fill(&filler);

    let out = env.stanley(&repo, &["Audit the TODO comments"]);
    assert_eq!(out.code, 0, "the agent's answer still arrives: {out:?}");
    assert!(
        out.stderr.contains("no improvement job was queued")
            && out.stderr.contains("No space left on device"),
        "{out:?}"
    );
    let list = env.stanleyctl(&repo, &["queue", "list", "--json"]);
    assert_eq!(list.stdout.trim(), "[]", "{list:?}");

    // With space again the same request queues its job, and the queue opens clean next time.
    std::fs::remove_file(&filler).unwrap();
    let out = env.stanley(&repo, &["Audit the TODO comments"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("queued improvement job"), "{out:?}");
    let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    let list = env.stanleyctl(&repo, &["queue", "list", "--json"]);
    assert!(!list.stderr.contains("was damaged"), "{list:?}");
    assert_eq!(list.json().as_array().map(Vec::len), Some(1), "{list:?}");
}

#[test]
fn a_full_disk_stops_a_flow_run_with_one_line_and_keeps_the_journal() {
    let mut env = stanley_tests::TestEnv::new();
    env.set(
        "STANLEY_PI_BIN",
        stanley_tests::testenv::bin_dir()
            .join("fake-pi")
            .to_str()
            .unwrap(),
    );
    env.set("STANLEY_AUTO_IMPROVE", "off");
    let repo = changed_repo();
    let Some(_disk) = Tmpfs::mount(&repo.root().join(".stanley"), "4m") else {
        eprintln!("skipped: mounting a tmpfs is not permitted here");
        return;
    };
    repo.write(
        ".stanley/flow.json",
        r#"{"goal": "g", "phases": [{"id": "a", "name": "A", "done_when": "d"}]}"#,
    );
    // A journal from an earlier run, which a full disk must not truncate.
    let status = env.stanleyctl(&repo, &["flow", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
    std::fs::create_dir_all(repo.root().join(".stanley/flow")).unwrap();
    let flow = stanley_workflows::flow::parse_flow(
        &std::fs::read_to_string(repo.root().join(".stanley/flow.json")).unwrap(),
    )
    .unwrap();
    let journal = serde_json::to_string_pretty(&stanley_workflows::flow::state::FlowState::new(
        &flow,
        stanley_workflows::time::Stamp(
            stanley_workflows::time::parse_stamp("2026-11-30T10:00:00.000Z").unwrap(),
        ),
    ))
    .unwrap();
    stanley_tests::write_sealed_journal(repo.root(), env.home(), &journal);
    fill(&repo.root().join(".stanley/filler"));

    let out = env.stanleyctl(&repo, &["flow", "run"]);
    assert_eq!(out.code, 4, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("the flow journal cannot be used")
                && l.contains("No space left on device")),
        "{out:?}"
    );
    assert_eq!(
        stanley_tests::flow_journal(repo.root()),
        journal,
        "the journal on disk is whole"
    );
    // SIGTERM stops a daemon whose log and records cannot be written.
    let pid = repo.daemon_pid().expect("a daemon");
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    assert!(
        wait_until(Duration::from_secs(10), || {
            // SAFETY: signal 0 only checks that the process exists.
            unsafe { libc::kill(pid, 0) != 0 }
        }),
        "the daemon exited on SIGTERM"
    );
}

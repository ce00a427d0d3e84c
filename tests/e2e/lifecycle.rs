//! The daemon's lifecycle as a user meets it: autostart, SIGKILL then restart, a stale socket,
//! a daemon of another version, racing clients, idle exit, a daemon that dies mid-request, and
//! a daemon binary that cannot start.

use std::fs;
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use stanley_tests::testenv::wait_until;
use stanley_tests::{Fault, TempRepo, TestEnv};

use crate::summarize::{changed_repo, summarize_env};

fn socket(env: &TestEnv, repo: &TempRepo) -> PathBuf {
    env.runtime_dir()
        .join(stanley_proto::socket::socket_name(repo.root()))
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn kill9(pid: i32) {
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[test]
fn a_killed_daemon_is_replaced_by_the_next_request() {
    let env = summarize_env();
    let repo = changed_repo();
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    let first = repo.daemon_pid().expect("daemon.json after autostart");
    kill9(first);
    assert!(wait_until(Duration::from_secs(5), || !alive(first)));
    assert!(
        socket(&env, &repo).exists(),
        "SIGKILL leaves the socket file behind"
    );
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    let second = repo.daemon_pid().unwrap();
    assert_ne!(first, second);
}

#[test]
fn a_stale_socket_file_is_removed() {
    let env = summarize_env();
    let repo = changed_repo();
    let path = socket(&env, &repo);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    drop(UnixListener::bind(&path).unwrap());
    assert!(path.exists());
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn leftovers_of_ours_at_the_socket_path_are_recovered() {
    use std::os::unix::fs::FileTypeExt;
    let env = summarize_env();
    let repo = changed_repo();
    let path = socket(&env, &repo);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    // A dangling link (a socket folder cleaned by the system under a link), then a plain file.
    std::os::unix::fs::symlink(repo.outside().join("gone.sock"), &path).unwrap();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_socket());
    assert!(
        !repo.outside().join("gone.sock").exists(),
        "the link was not followed"
    );
    let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(wait_until(Duration::from_secs(10), || !path.exists()));
    fs::write(&path, "not a socket").unwrap();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_socket());
}

#[test]
fn a_daemon_of_another_version_is_replaced() {
    let env = summarize_env();
    let repo = changed_repo();
    let path = socket(&env, &repo);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let files = stanleyd::DaemonFiles::new(repo.root(), path.clone());
    let prepared = stanleyd::prepare(files.clone(), stanley_workflows::time::Stamp::EPOCH).unwrap();
    let mut config = stanleyd::DaemonConfig::new(files);
    config.version = "0.0.1-old".into();
    let old = runtime.spawn(async move {
        let lock = prepared.lock;
        prepared.listener.set_nonblocking(true).unwrap();
        let listener = tokio::net::UnixListener::from_std(prepared.listener).unwrap();
        let result = stanleyd::run(
            config,
            stanleyd::Ports::real(),
            listener,
            std::future::pending(),
        )
        .await;
        drop(lock);
        result
    });
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        runtime.block_on(old).unwrap().is_ok(),
        "the old daemon stopped cleanly"
    );
    let pid = repo.daemon_pid().unwrap();
    assert_ne!(
        pid,
        std::process::id() as i32,
        "a new daemon process serves now"
    );
}

#[test]
fn racing_clients_start_one_daemon() {
    let env = summarize_env();
    let repo = changed_repo();
    let outs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| s.spawn(|| env.stanley(&repo, &["Summarize what changed"])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for out in &outs {
        assert_eq!(out.code, 0, "{out:?}");
    }
    let log = fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
    assert_eq!(log.matches("stanleyd::server: serving").count(), 1, "{log}");
}

#[test]
fn an_idle_daemon_exits_and_cleans_up() {
    let mut env = summarize_env();
    env.set("STANLEY_IDLE_TIMEOUT_MS", "300");
    let repo = changed_repo();
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    let pid = repo.daemon_pid().unwrap();
    assert!(
        wait_until(Duration::from_secs(10), || !alive(pid)),
        "the daemon did not exit when idle"
    );
    assert!(!socket(&env, &repo).exists());
    assert!(!repo.root().join(".stanley/daemon/daemon.json").exists());
}

#[test]
fn a_daemon_that_dies_mid_request_is_reported() {
    let env = summarize_env();
    env.jev.fail_next([Fault::Delay(Duration::from_secs(20))]);
    let repo = changed_repo();
    let out = std::thread::scope(|s| {
        let client = s.spawn(|| env.stanley(&repo, &["Summarize what changed"]));
        assert!(wait_until(Duration::from_secs(10), || !env
            .jev
            .requests()
            .is_empty()));
        kill9(repo.daemon_pid().unwrap());
        client.join().unwrap()
    });
    assert_eq!(out.code, 69, "{out:?}");
    assert!(out.stderr.contains("stanleyd stopped before answering"));
    assert!(out.stderr.contains("stanleyd.log"));
}

#[test]
fn a_daemon_that_cannot_start_names_its_log() {
    let mut env = summarize_env();
    env.set("STANLEY_DAEMON_BIN", "/nonexistent/stanleyd");
    let out = env.stanley(&changed_repo(), &["Summarize what changed"]);
    assert_eq!(out.code, 69, "{out:?}");
    assert!(out.stderr.contains("could not start /nonexistent/stanleyd"));
    assert!(out.stderr.contains(".stanley/daemon/stanleyd.log"));
}

#[test]
fn stanleyctl_reports_and_stops_the_daemon() {
    let env = summarize_env();
    let repo = changed_repo();
    let none = env.stanleyctl(&repo, &["daemon", "status"]);
    assert_eq!(none.code, 0);
    assert!(none.stdout.contains("no stanleyd is running"));
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    let status = env.stanleyctl(&repo, &["daemon", "status", "--json"]);
    let doc: Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(doc["running"], true);
    let pid = doc["pid"].as_i64().unwrap() as i32;
    let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(wait_until(Duration::from_secs(10), || !alive(pid)));
    assert!(!socket(&env, &repo).exists());
}

#[test]
fn ctrl_c_cancels_the_request_in_the_daemon() {
    let env = summarize_env();
    env.jev.fail_next([Fault::Delay(Duration::from_secs(30))]);
    let repo = changed_repo();
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("Summarize what changed")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    assert!(wait_until(Duration::from_secs(10), || !env
        .jev
        .requests()
        .is_empty()));
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    // An interrupt, not a crash: 130 (issue 14).
    assert_eq!(out.status.code(), Some(130));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interrupted: the request was cancelled")
    );
    let idle = wait_until(Duration::from_secs(10), || {
        let status = env.stanleyctl(&repo, &["daemon", "status", "--json"]);
        serde_json::from_str::<Value>(&status.stdout).is_ok_and(|v| v["activeRequests"] == 0)
    });
    assert!(idle, "the daemon still runs the cancelled request");
}

#[test]
fn a_daemon_started_with_another_runtime_folder_is_named_not_waited_for() {
    let env = summarize_env();
    let repo = changed_repo();
    assert_eq!(env.stanley(&repo, &["Summarize what changed"]).code, 0);
    let pid = repo.daemon_pid().unwrap();
    let other = stanley_tests::private_tempdir("st-other");
    let with_other = |args: &[&str]| {
        let mut cmd = env.command(args[0], repo.root());
        cmd.args(&args[1..])
            .env("STANLEY_RUNTIME_DIR", other.path());
        stanley_tests::testenv::run(cmd, None)
    };
    let out = with_other(&["stanley", "Summarize what changed"]);
    assert_eq!(out.code, 69, "{out:?}");
    assert!(
        out.stderr.contains(&format!("stanleyd (pid {pid}) serves"))
            && out.stderr.contains("started with another runtime folder"),
        "{out:?}"
    );
    let status = with_other(&["stanleyctl", "daemon", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(status.stdout.contains(&format!("pid {pid}")), "{status:?}");
    let stop = with_other(&["stanleyctl", "daemon", "stop"]);
    assert_eq!(stop.code, 69, "{stop:?}");
    assert!(alive(pid), "the daemon it cannot reach is left alone");
    assert_eq!(env.stanleyctl(&repo, &["daemon", "stop"]).code, 0);
}

//! The daemon's connections under pressure: a connection that never speaks is closed, at most
//! 256 are served at once, and running out of file descriptors makes the accept loop wait
//! rather than spin or shut the daemon down.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::Duration;

use stanley_tests::testenv::{run, wait_until};
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::changed_repo;

fn socket(env: &TestEnv, repo: &TempRepo) -> PathBuf {
    env.runtime_dir()
        .join(stanley_proto::socket::socket_name(repo.root()))
}

fn open_fds(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

fn quick_env() -> TestEnv {
    let mut env = TestEnv::new();
    env.set("STANLEY_SILENT_CONNECTION_MS", "1000");
    env
}

#[test]
fn a_silent_connection_is_closed_and_no_more_than_256_are_served() {
    let env = quick_env();
    let repo = changed_repo();
    let start = env.stanleyctl(&repo, &["queue", "list"]);
    assert_eq!(start.code, 0, "{start:?}");
    let pid = repo.daemon_pid().unwrap();
    let base = open_fds(pid);

    // One connection that never sends a request is closed by the daemon.
    let mut quiet = UnixStream::connect(socket(&env, &repo)).unwrap();
    quiet
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    // The server speaks first (its HTTP/2 settings), then closes: read to the end.
    let mut said = Vec::new();
    quiet.read_to_end(&mut said).expect("closed by the daemon");
    assert!(said.len() < 1024, "{} bytes", said.len());

    // 300 at once: the daemon holds no more than 256 of them; the rest wait in the backlog.
    let many: Vec<UnixStream> = (0..300)
        .map(|_| UnixStream::connect(socket(&env, &repo)).unwrap())
        .collect();
    let mut most = 0;
    assert!(wait_until(Duration::from_secs(10), || {
        most = most.max(open_fds(pid));
        most >= base + 200
    }));
    for _ in 0..20 {
        most = most.max(open_fds(pid));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(most <= base + 256 + 8, "{most} descriptors (base {base})");
    drop(many);
    let status = env.stanleyctl(&repo, &["daemon", "status"]);
    assert_eq!(status.code, 0, "{status:?}");
    assert_eq!(repo.daemon_pid(), Some(pid));
}

#[test]
fn running_out_of_descriptors_backs_off_and_keeps_the_daemon() {
    let env = quick_env();
    let repo = changed_repo();
    // The daemon inherits the client's limits: start it with 64 descriptors.
    let mut cmd = env.command("stanleyctl", repo.root());
    cmd.args(["queue", "list"]);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = run(cmd, None);
    assert_eq!(start.code, 0, "{start:?}");
    let pid = repo.daemon_pid().unwrap();
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    assert!(
        limits
            .lines()
            .any(|l| l.starts_with("Max open files") && l.contains(" 64 ")),
        "{limits}"
    );

    let log = repo.root().join(".stanley/daemon/stanleyd.log");
    let many: Vec<UnixStream> = (0..200)
        .map(|_| UnixStream::connect(socket(&env, &repo)).unwrap())
        .collect();
    assert!(
        wait_until(Duration::from_secs(20), || {
            std::fs::read_to_string(&log)
                .is_ok_and(|l| l.contains("accept failed") && l.contains("Too many open files"))
        }),
        "the daemon ran out of descriptors"
    );
    // Silent connections are closed as they time out; the daemon stays and stays ours.
    drop(many);
    assert!(alive(pid));
    let status = env.stanleyctl(&repo, &["daemon", "status", "--json"]);
    assert_eq!(status.code, 0, "{status:?}");
    assert_eq!(status.json()["pid"], pid);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("names another daemon"), "{text}");
    assert!(!text.contains("shutting down"), "{text}");
}

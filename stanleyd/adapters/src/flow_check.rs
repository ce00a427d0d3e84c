//! Runs a flow phase's `check` (or a loop's `until`) as a shell command in the repository, with
//! the environment the daemon prepared for repository code (no Jev key), a time limit that kills
//! its whole process group, and the tail of its output kept for the agent and the journal; and
//! runs the flow's notify command the same way.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use stanley_workflows::flow::policy::CheckRun;
use stanley_workflows::text::tail_chars;
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// How much of a check's output is kept.
pub const TAIL_CHARS: usize = 2_000;

/// Runs `command` with `sh -c` in `root` with exactly `env` (the daemon's environment for
/// repository code).
pub async fn run_check(
    root: &Path,
    command: &str,
    env: &HashMap<String, String>,
    timeout: Duration,
) -> CheckRun {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(root)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return CheckRun {
                passed: false,
                tail: format!("cannot run the check: {e}"),
            };
        }
    };
    let pid = child.id();
    let (mut out, mut err) = (child.stdout.take(), child.stderr.take());
    let run = async {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let read_out = async {
            if let Some(o) = out.as_mut() {
                let _ = o.read_to_end(&mut a).await;
            }
        };
        let read_err = async {
            if let Some(e) = err.as_mut() {
                let _ = e.read_to_end(&mut b).await;
            }
        };
        tokio::join!(read_out, read_err);
        let status = child.wait().await;
        a.extend_from_slice(&b);
        (status, a)
    };
    match tokio::time::timeout(timeout, run).await {
        Ok((status, output)) => CheckRun {
            passed: status.is_ok_and(|s| s.success()),
            tail: tail_chars(&String::from_utf8_lossy(&output), TAIL_CHARS),
        },
        Err(_) => {
            // The group is the check's own.
            if let Some(pid) = pid
                .and_then(|p| i32::try_from(p).ok())
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            CheckRun {
                passed: false,
                tail: format!("the check timed out after {} s", timeout.as_secs()),
            }
        }
    }
}

/// The wire name of a notify event.
pub fn event_name(event: stanley_workflows::flow::NotifyEvent) -> &'static str {
    use stanley_workflows::flow::NotifyEvent;
    match event {
        NotifyEvent::AskHuman => "ask_human",
        NotifyEvent::GoalComplete => "goal_complete",
        NotifyEvent::Budget => "budget",
    }
}

/// Runs the flow's notify command for `event` when the flow asks for it, with exactly `env`
/// (the daemon adds the event and its message). `None` when the event is not wanted.
pub async fn notify(
    root: &Path,
    notify: &stanley_workflows::flow::Notify,
    event: stanley_workflows::flow::NotifyEvent,
    env: &HashMap<String, String>,
) -> Option<CheckRun> {
    if !notify.on.contains(&event) {
        return None;
    }
    Some(
        run_check(
            root,
            &notify.command,
            env,
            Duration::from_secs(u64::from(notify.timeout_s)),
        )
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> HashMap<String, String> {
        HashMap::from([
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("VISIBLE".to_owned(), "yes".to_owned()),
        ])
    }

    #[tokio::test]
    async fn notify_runs_only_for_wanted_events_with_the_environment_given() {
        use stanley_workflows::flow::{Notify, NotifyEvent};
        let dir = tempfile::tempdir().unwrap();
        let config = Notify {
            command: "echo \"$VISIBLE|${UNSET:-none}\" >> notified.txt".into(),
            on: vec![NotifyEvent::GoalComplete],
            timeout_s: 10,
        };
        let skipped = notify(dir.path(), &config, NotifyEvent::Budget, &env()).await;
        assert_eq!(skipped, None);
        let ran = notify(dir.path(), &config, NotifyEvent::GoalComplete, &env())
            .await
            .unwrap();
        assert!(ran.passed, "{ran:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notified.txt")).unwrap(),
            "yes|none\n"
        );
    }

    #[tokio::test]
    async fn checks_pass_fail_time_out_and_see_only_what_they_are_given() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let limit = Duration::from_secs(20);
        let ok = run_check(root, "test -d .", &env(), limit).await;
        assert!(ok.passed, "{ok:?}");
        let failed = run_check(root, "echo out; echo boom >&2; exit 3", &env(), limit).await;
        assert!(!failed.passed);
        assert_eq!(failed.tail, "out\nboom\n");
        let seen = run_check(
            root,
            "echo \"${HOME:-none} ${USER:-none} $VISIBLE\"",
            &env(),
            limit,
        )
        .await;
        assert_eq!(seen.tail, "none none yes\n");
        let long = run_check(root, "seq 1 5000", &env(), limit).await;
        assert_eq!(long.tail.chars().count(), TAIL_CHARS);
        assert!(long.tail.ends_with("5000\n"));
        let slow = run_check(
            root,
            "sleep 30 & echo $! > bg.pid; wait",
            &env(),
            Duration::from_millis(300),
        )
        .await;
        assert!(!slow.passed && slow.tail.contains("timed out"), "{slow:?}");
        // The whole group died, the background sleep included.
        let pid: i32 = std::fs::read_to_string(root.join("bg.pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = (0..200).any(|_| {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let dead = state.is_empty()
                || state
                    .rsplit_once(')')
                    .is_some_and(|(_, r)| r.trim_start().starts_with('Z'));
            if !dead {
                std::thread::sleep(Duration::from_millis(10));
            }
            dead
        });
        assert!(gone, "the check's background process was killed");
    }
}

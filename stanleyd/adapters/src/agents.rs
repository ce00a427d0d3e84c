//! Agent processes a dead daemon may leave behind. Each Pi run carries a token in its
//! environment (the variable the daemon names, `STANLEY_AGENT_RUN`) and is recorded as
//! `.stanley/daemon/agents/<token>` while it runs; the record goes when the run ends. Pi dies
//! with the daemon (`PR_SET_PDEATHSIG`), but its tools may not: a daemon that starts kills every
//! process of its user still carrying a recorded token, whatever process group or session it
//! moved to, and removes the records.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

/// The folder of the records, under a repository root.
pub fn records_dir(root: &Path) -> PathBuf {
    root.join(".stanley/daemon/agents")
}

/// One running agent's record, removed on drop.
#[derive(Debug)]
pub struct RunMark {
    path: PathBuf,
    token: String,
}

impl RunMark {
    /// Records a new run under `dir` with a fresh token.
    pub fn record(dir: &Path) -> io::Result<Self> {
        crate::records::create_private_dir(dir)?;
        let token = format!(
            "{}-{}{}",
            std::process::id(),
            crate::clock::random_hex6(),
            crate::clock::random_hex6()
        );
        let path = dir.join(&token);
        crate::records::write_atomic(&path, token.as_bytes())?;
        Ok(Self { path, token })
    }

    /// The token the run's environment carries.
    pub fn token(&self) -> &str {
        &self.token
    }
}

impl Drop for RunMark {
    fn drop(&mut self) {
        let _ = crate::records::remove_file(&self.path);
    }
}

/// The processes of this user whose environment holds `var=<one of tokens>`.
pub fn carrying(var: &str, tokens: &HashSet<String>) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let uid = crate::records::current_uid();
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let prefix = format!("{var}=");
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me || entry.metadata().map(|m| m.uid()).ok() != Some(uid) {
            continue;
        }
        // Unreadable (gone, or not ours): skip.
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        let marked = environ.split(|b| *b == 0).any(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| p.strip_prefix(&prefix))
                .is_some_and(|token| tokens.contains(token))
        });
        if marked {
            out.push(pid);
        }
    }
    out
}

/// Kills (SIGKILL) every process still carrying a token recorded under `dir` by a daemon that
/// is gone, and removes those records. Returns the pids killed. Call it while holding the
/// daemon lock, before any agent of this daemon runs.
pub fn reap(dir: &Path, var: &str) -> Vec<u32> {
    // The folder must be one Stanley made: a committed `.stanley/daemon/agents` (or a link
    // on the way to it) would name files to delete and tokens to kill by.
    if crate::records::refuse_foreign_dir(dir).is_err() {
        return Vec::new();
    }
    let Ok(entries) = crate::records::list_dir(dir) else {
        return Vec::new();
    };
    let records: Vec<(PathBuf, String)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| (e.path(), e.file_name().to_string_lossy().into_owned()))
        .collect();
    if records.is_empty() {
        return Vec::new();
    }
    let tokens: HashSet<String> = records.iter().map(|(_, t)| t.clone()).collect();
    let pids = carrying(var, &tokens);
    for pid in &pids {
        // The pid was just read from /proc with our uid and the recorded token in its
        // environment.
        if let Some(pid) = i32::try_from(*pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    for (path, _) in &records {
        let _ = crate::records::remove_file(path);
    }
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_run_left_behind_is_killed_and_its_record_removed() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        let mark = RunMark::record(&agents).unwrap();
        let mut marked = std::process::Command::new("sleep")
            .arg("300")
            .env("TEST_AGENT_RUN", mark.token())
            .spawn()
            .unwrap();
        let mut unmarked = std::process::Command::new("sleep")
            .arg("300")
            .env("TEST_AGENT_RUN", "someone-else")
            .spawn()
            .unwrap();
        // The daemon died: its mark was never dropped.
        let token = mark.token().to_owned();
        std::mem::forget(mark);
        // spawn can return just before the kernel has set up the new program's environment in
        // /proc (the exec pipe closes first): wait until it shows, with a deadline.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let environ = format!("/proc/{}/environ", marked.id());
        while !std::fs::read(&environ)
            .unwrap_or_default()
            .split(|b| *b == 0)
            .any(|pair| pair == format!("TEST_AGENT_RUN={token}").as_bytes())
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the child's environment never showed"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let killed = reap(&agents, "TEST_AGENT_RUN");
        assert_eq!(killed, vec![marked.id()]);
        assert!(
            marked.wait().unwrap().code().is_none(),
            "killed by a signal"
        );
        assert!(
            unmarked.try_wait().unwrap().is_none(),
            "an unmarked process runs on"
        );
        assert_eq!(std::fs::read_dir(&agents).unwrap().count(), 0);
        unmarked.kill().unwrap();
        let _ = unmarked.wait();
    }

    #[test]
    fn a_finished_run_leaves_no_record() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        drop(RunMark::record(&agents).unwrap());
        assert_eq!(std::fs::read_dir(&agents).unwrap().count(), 0);
        assert!(reap(&agents, "TEST_AGENT_RUN").is_empty());
    }
}

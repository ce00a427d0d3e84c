//! Starting an agent so that it dies with the daemon, without an `unsafe` block of our own: the
//! daemon starts its own executable as `stanleyd --agent-exec <daemon pid> -- <program> <args>`;
//! that process asks the kernel for SIGKILL when its parent goes (`PR_SET_PDEATHSIG`, kept
//! across `execve`), checks the daemon did not die before it asked, and replaces itself with the
//! agent (same pid, process group, environment, working folder and standard streams).

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rustix::process::Signal;

/// The first argument of the launcher mode.
pub const AGENT_EXEC: &str = "--agent-exec";

/// The launcher, when this process is a daemon that understands [`AGENT_EXEC`].
static LAUNCHER: OnceLock<PathBuf> = OnceLock::new();

/// Says this process's own executable starts agents ([`exec_agent`] is wired into its `main`).
/// `/proc/self/exe` still names the running program after the file was replaced or removed.
pub fn launch_through_self() {
    let _ = LAUNCHER.set(PathBuf::from("/proc/self/exe"));
}

/// The program and leading arguments that start `program` so it dies with this process; the
/// program itself when no launcher was set (an embedding without the launcher mode, tests).
pub fn wrap(program: &Path) -> (PathBuf, Vec<OsString>) {
    match LAUNCHER.get() {
        Some(exe) => (
            exe.clone(),
            vec![
                AGENT_EXEC.into(),
                std::process::id().to_string().into(),
                "--".into(),
                program.as_os_str().to_owned(),
            ],
        ),
        None => (program.to_path_buf(), Vec::new()),
    }
}

/// Why the launcher could not start the agent.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The arguments are not `<pid> -- <program> [args]`.
    #[error("usage: {AGENT_EXEC} <daemon pid> -- <program> [arguments]")]
    Usage,
    /// The daemon is gone already: starting the agent would leave an orphan.
    #[error("the daemon (pid {0}) is gone")]
    DaemonGone(u32),
    /// The kernel refused the parent-death signal.
    #[error("cannot ask for the parent-death signal: {0}")]
    DeathSignal(#[source] std::io::Error),
    /// `execve` failed.
    #[error("cannot start {program}: {source}")]
    Exec {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

/// The launcher mode: `args` are what follows [`AGENT_EXEC`]. Returns only on failure.
pub fn exec_agent(args: &[OsString]) -> LaunchError {
    let [parent, dashes, program, rest @ ..] = args else {
        return LaunchError::Usage;
    };
    let Some(parent) = parent.to_str().and_then(|p| p.parse::<u32>().ok()) else {
        return LaunchError::Usage;
    };
    if dashes != "--" {
        return LaunchError::Usage;
    }
    if let Err(e) = rustix::process::set_parent_process_death_signal(Some(Signal::KILL)) {
        return LaunchError::DeathSignal(e.into());
    }
    // The daemon may have died between starting this process and the request above.
    if rustix::process::getppid().map(|p| p.as_raw_pid() as u32) != Some(parent) {
        return LaunchError::DaemonGone(parent);
    }
    let source = std::process::Command::new(program).args(rest).exec();
    LaunchError::Exec {
        program: program.to_string_lossy().into_owned(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_arguments_are_refused_before_anything_runs() {
        for args in [
            vec![],
            vec!["12"],
            vec!["12", "--"],
            vec!["x", "--", "/bin/true"],
            vec!["12", "-", "/bin/true"],
        ] {
            let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
            assert!(
                matches!(exec_agent(&args), LaunchError::Usage),
                "{args:?} was accepted"
            );
        }
    }

    #[test]
    fn a_parent_that_is_not_ours_is_taken_for_a_dead_daemon() {
        // A pid that is not this process's parent: the launcher must refuse to start anything.
        let not_parent = std::process::id();
        let args: Vec<OsString> = [&not_parent.to_string(), "--", "/bin/true"]
            .into_iter()
            .map(OsString::from)
            .collect();
        let err = exec_agent(&args);
        assert!(
            matches!(err, LaunchError::DaemonGone(p) if p == not_parent),
            "{err}"
        );
        // The death signal it asked for is the calling thread's: clear it again.
        rustix::process::set_parent_process_death_signal(None).unwrap();
    }

    #[test]
    fn without_a_launcher_the_program_starts_directly() {
        let (program, lead) = wrap(Path::new("/usr/bin/pi"));
        assert_eq!(program, Path::new("/usr/bin/pi"));
        assert!(lead.is_empty());
    }
}

//! Discovery and lifecycle files: the lifetime lock, the socket (folder 0700, socket 0600, stale
//! ones removed only when a connection is refused), and `daemon.json` written atomically.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use stanley_adapters::records::{create_private_dir, ensure_state_dir, write_atomic};

use crate::error::DaemonError;

/// How long a starting daemon waits for the lifetime lock of a daemon that is going away.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The lifecycle files of one worktree's daemon.
#[derive(Clone, Debug)]
pub struct DaemonFiles {
    /// The canonical worktree root.
    pub root: PathBuf,
    /// `.stanley/daemon/`.
    pub dir: PathBuf,
    /// The socket path.
    pub socket: PathBuf,
}

impl DaemonFiles {
    /// The files for `root` with the socket at `socket`.
    pub fn new(root: &Path, socket: PathBuf) -> Self {
        Self {
            root: root.to_path_buf(),
            dir: root.join(".stanley").join("daemon"),
            socket,
        }
    }

    /// `.stanley/daemon/daemon.json`.
    pub fn info(&self) -> PathBuf {
        self.dir.join("daemon.json")
    }

    /// `.stanley/daemon/daemon.lock`, held for the daemon's lifetime.
    pub fn lock(&self) -> PathBuf {
        self.dir.join("daemon.lock")
    }

    /// `.stanley/daemon/stanleyd.log`.
    pub fn log(&self) -> PathBuf {
        self.dir.join("stanleyd.log")
    }

    /// This daemon's own folder beside its socket, inside the private runtime folder: the
    /// workflow hosts' staged copies, and the `TMPDIR` of the processes Stanley starts for its
    /// own work. Nothing another user can write is ever used for either.
    pub fn private_dir(&self) -> PathBuf {
        self.socket.with_extension("d")
    }

    /// `TMPDIR` for the workflow hosts and the coding agent.
    pub fn private_tmp(&self) -> PathBuf {
        self.private_dir().join("tmp")
    }

    /// Makes (or checks) [`Self::private_dir`] and [`Self::private_tmp`]: real folders of this
    /// user, mode 0700. Returns the second.
    pub fn ensure_private(&self) -> Result<PathBuf, stanley_proto::private::Unsafe> {
        stanley_proto::private::ensure_private_dir(&self.private_dir())?;
        let tmp = self.private_tmp();
        stanley_proto::private::ensure_private_dir(&tmp)?;
        Ok(tmp)
    }

    /// Removes [`Self::private_dir`] with everything in it (a previous daemon's leftovers at
    /// start, this daemon's at exit).
    pub fn clear_private(&self) {
        let _ = fs::remove_dir_all(self.private_dir());
    }
}

/// What `daemon.json` records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DaemonInfo {
    pub pid: u32,
    pub socket: String,
    pub root: String,
    pub version: String,
    pub protocol_version: u32,
    pub started_at: stanley_workflows::time::Stamp,
}

/// A daemon ready to serve: its bound listener and the lock it holds until dropped.
#[derive(Debug)]
pub struct Prepared {
    /// The bound socket.
    pub listener: UnixListener,
    /// The lifetime lock; dropping it releases the lock.
    pub lock: File,
    /// Its files.
    pub files: DaemonFiles,
}

/// Takes the lifetime lock, clears a stale socket, binds, and writes `daemon.json`.
pub fn prepare(
    files: DaemonFiles,
    started_at: stanley_workflows::time::Stamp,
) -> Result<Prepared, DaemonError> {
    ensure_state_dir(&files.root).map_err(DaemonError::io("cannot create .stanley/"))?;
    create_private_dir(&files.dir).map_err(DaemonError::io("cannot create .stanley/daemon/"))?;
    let lock = stanley_adapters::records::open_lock(&files.lock())
        .map_err(DaemonError::io("cannot open the daemon lock"))?;
    // A daemon that is shutting down releases the lock moments after its socket goes away, so
    // wait briefly before concluding that another daemon is alive.
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(fs::TryLockError::WouldBlock) => {
                return Err(DaemonError::AlreadyRunning(files.root.clone()));
            }
            Err(fs::TryLockError::Error(e)) => {
                return Err(DaemonError::io("cannot take the daemon lock")(e));
            }
        }
    }
    if let Some(dir) = files.socket.parent() {
        // Created atomically 0700 when missing; an existing folder that is a link, another
        // user's or open to others is refused, never repaired (docs/security.md).
        stanley_proto::private::ensure_private_dir(dir)?;
    }
    clear_stale_socket(&files)?;
    // This daemon holds the lifetime lock, so whatever is in its private folder was left by an
    // earlier one (staged workflows, temporary files of a host that died with it).
    files.clear_private();
    let listener = UnixListener::bind(&files.socket).map_err(DaemonError::io(format!(
        "cannot bind {}",
        files.socket.display()
    )))?;
    fs::set_permissions(&files.socket, fs::Permissions::from_mode(0o600))
        .map_err(DaemonError::io("cannot restrict the socket"))?;
    let info = DaemonInfo {
        pid: std::process::id(),
        socket: files.socket.display().to_string(),
        root: files.root.display().to_string(),
        version: stanley_proto::VERSION.to_owned(),
        protocol_version: stanley_proto::PROTOCOL_VERSION,
        started_at,
    };
    let mut text = serde_json::to_string_pretty(&info).unwrap_or_default();
    text.push('\n');
    write_atomic(&files.info(), text.as_bytes())
        .map_err(DaemonError::io("cannot write daemon.json"))?;
    Ok(Prepared {
        listener,
        lock,
        files,
    })
}

/// Removes a socket left by a dead daemon: only when connecting to it is refused. A socket that
/// answers belongs to a live daemon.
fn clear_stale_socket(files: &DaemonFiles) -> Result<(), DaemonError> {
    // Another user's file, or a link that leads somewhere, is refused rather than removed or
    // followed; a leftover of ours (a dangling link, a plain file) is removed.
    use stanley_proto::private::SocketAt;
    match stanley_proto::private::check_socket(&files.socket)? {
        SocketAt::Missing => return Ok(()),
        SocketAt::Leftover => {
            tracing::info!(socket = %files.socket.display(), "removing a leftover at the socket path");
            return fs::remove_file(&files.socket).map_err(DaemonError::io(
                "cannot remove the leftover at the socket path",
            ));
        }
        SocketAt::Socket => {}
    }
    match UnixStream::connect(&files.socket) {
        Ok(_) => Err(DaemonError::AlreadyRunning(files.root.clone())),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            tracing::info!(socket = %files.socket.display(), "removing a stale socket");
            fs::remove_file(&files.socket)
                .map_err(DaemonError::io("cannot remove the stale socket"))
        }
        Err(e) => Err(DaemonError::io(format!(
            "cannot probe {}",
            files.socket.display()
        ))(e)),
    }
}

/// Whose `daemon.json` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// It names this process and socket.
    Us,
    /// It names another daemon, or is gone: a takeover (or a person removed it).
    Other,
    /// It could not be read right now (out of file descriptors, an I/O error): not a takeover.
    Unknown(String),
}

/// The most of `daemon.json` read (it holds a pid, a socket path and versions).
const MAX_INFO_BYTES: u64 = 64 * 1024;

/// Whether `daemon.json` still names this process.
pub(crate) fn owner(files: &DaemonFiles) -> Owner {
    // Bounded and not through a link: a branch can force-add `daemon.json` as a link to
    // `/dev/zero`, and this is read at every tick.
    let bytes = match stanley_adapters::records::read_bounded(&files.info(), MAX_INFO_BYTES) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Owner::Other,
        Err(e) => return Owner::Unknown(e.to_string()),
    };
    match serde_json::from_slice::<DaemonInfo>(&bytes) {
        Ok(info) if info.pid == std::process::id() && Path::new(&info.socket) == files.socket => {
            Owner::Us
        }
        Ok(_) => Owner::Other,
        // A torn write by a daemon taking over, or a corrupted file: not ours any more.
        Err(_) => Owner::Other,
    }
}

/// Removes the socket and `daemon.json` if they are still ours.
pub(crate) fn cleanup(files: &DaemonFiles) {
    if owner(files) == Owner::Us {
        let _ = fs::remove_file(&files.socket);
        let _ = fs::remove_file(files.info());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_is_removed_only_when_a_connect_to_it_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let files = DaemonFiles::new(dir.path(), dir.path().join("d.sock"));
        let live = std::os::unix::net::UnixListener::bind(&files.socket).unwrap();
        assert!(matches!(
            clear_stale_socket(&files),
            Err(DaemonError::AlreadyRunning(_))
        ));
        assert!(files.socket.exists(), "a socket that answers is kept");
        drop(live);
        assert!(files.socket.exists());
        clear_stale_socket(&files).unwrap();
        assert!(!files.socket.exists(), "a socket that refuses is removed");
        clear_stale_socket(&files).unwrap();
    }

    #[test]
    fn only_a_file_naming_another_daemon_is_a_takeover() {
        let dir = tempfile::tempdir().unwrap();
        let files = DaemonFiles::new(dir.path(), dir.path().join("d.sock"));
        fs::create_dir_all(&files.dir).unwrap();
        let info = |pid: u32| DaemonInfo {
            pid,
            socket: files.socket.display().to_string(),
            root: dir.path().display().to_string(),
            version: "0".into(),
            protocol_version: 1,
            started_at: stanley_workflows::time::Stamp::EPOCH,
        };
        let write = |i: &DaemonInfo| fs::write(files.info(), serde_json::to_vec(i).unwrap());
        write(&info(std::process::id())).unwrap();
        assert_eq!(owner(&files), Owner::Us);
        write(&info(std::process::id() + 1)).unwrap();
        assert_eq!(owner(&files), Owner::Other);
        fs::remove_file(files.info()).unwrap();
        assert_eq!(owner(&files), Owner::Other, "removed: gone");
        // A read that fails (here EISDIR; EMFILE in the field) is no takeover.
        fs::create_dir(files.info()).unwrap();
        assert!(
            matches!(owner(&files), Owner::Unknown(_)),
            "{:?}",
            owner(&files)
        );
    }
}

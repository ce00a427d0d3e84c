//! The places a client and its daemon meet, checked before either trusts them: the runtime
//! folder (a real folder, owned by the caller, closed to everyone else), the socket (not a link,
//! owned by the caller) and the process on the other end of a connection (the caller's uid, read
//! from the kernel with `SO_PEERCRED`). Everything is inspected with `lstat`, never by following
//! a link. See `docs/security.md` for the threat model.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::socket::current_uid;

/// What kind of place failed, which decides what the person can do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The runtime folder belongs to someone else, is a link, or is not a folder.
    ForeignFolder,
    /// The runtime folder is the caller's but others may write or read it.
    OpenFolder,
    /// The runtime folder is shared (world-writable with the sticky bit, like `/tmp`).
    SharedFolder,
    /// The socket or the process behind it is not the caller's.
    ForeignSocket,
    /// Anything else (a folder that cannot be created or inspected, a link under `.stanley/`).
    Other,
}

/// A path Stanley refuses to use, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsafe {
    /// The path that failed the check.
    pub path: PathBuf,
    /// What is wrong with it, as the end of a sentence ("is a symbolic link").
    pub problem: String,
    /// What kind of place it is.
    pub place: Place,
}

impl Unsafe {
    fn new(path: &Path, problem: impl Into<String>) -> Self {
        Self::at(path, problem, Place::Other)
    }

    fn at(path: &Path, problem: impl Into<String>, place: Place) -> Self {
        Self {
            path: path.to_path_buf(),
            problem: problem.into(),
            place,
        }
    }

    /// The `hint:` line: what the person can do, naming `variable` (the one that chose the
    /// runtime folder: `STANLEY_RUNTIME_DIR` when it is set, else `XDG_RUNTIME_DIR`).
    pub fn hint(&self, variable: &str) -> String {
        let elsewhere = format!("set {variable} to a folder only you can use (mode 0700)");
        match self.place {
            Place::OpenFolder => format!(
                "make it private with `chmod 700 {}`, or {elsewhere}",
                self.path.display()
            ),
            Place::SharedFolder => format!("it is shared with other users; {elsewhere}"),
            Place::ForeignFolder => format!("another user may have made it; {elsewhere}"),
            Place::ForeignSocket => format!(
                "only you or root can write in your runtime folder, so find out who put it there; meanwhile {elsewhere}"
            ),
            Place::Other => elsewhere,
        }
    }
}

impl fmt::Display for Unsafe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.path.display(), self.problem)
    }
}

impl std::error::Error for Unsafe {}

fn foreign(path: &Path, uid: u32, place: Place) -> Unsafe {
    Unsafe::at(
        path,
        format!("is owned by uid {uid}, not by you (uid {})", current_uid()),
        place,
    )
}

/// `lstat`: `None` when nothing is there, an error for a link (never followed) or a failure.
fn lstat(path: &Path, link: &str, place: Place) -> Result<Option<fs::Metadata>, Unsafe> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Unsafe::new(path, format!("cannot be inspected: {e}"))),
    };
    if meta.file_type().is_symlink() {
        return Err(Unsafe::at(path, link, place));
    }
    Ok(Some(meta))
}

/// Checks a folder without following links: `Ok(false)` when it does not exist, `Ok(true)` when
/// it is a real folder owned by the caller with no group or other permission bits.
pub fn check_private_dir(path: &Path) -> Result<bool, Unsafe> {
    let Some(meta) = lstat(path, "is a symbolic link", Place::ForeignFolder)? else {
        return Ok(false);
    };
    if !meta.is_dir() {
        return Err(Unsafe::at(path, "is not a folder", Place::ForeignFolder));
    }
    if meta.uid() != current_uid() {
        return Err(foreign(path, meta.uid(), Place::ForeignFolder));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        let shared = mode & 0o1002 == 0o1002;
        return Err(Unsafe::at(
            path,
            format!("is open to other users (mode {mode:04o}, expected 0700)"),
            if shared {
                Place::SharedFolder
            } else {
                Place::OpenFolder
            },
        ));
    }
    Ok(true)
}

/// Creates the runtime folder when it is missing (its parents as needed, the folder itself with
/// one `mkdir` at mode 0700, so it never exists with looser bits) and checks it. A folder that
/// already exists is never chmod-ed: one that is foreign, linked or open to others is refused.
pub fn ensure_private_dir(path: &Path) -> Result<(), Unsafe> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .map_err(|e| Unsafe::new(parent, format!("cannot be created: {e}")))?;
    }
    match fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Unsafe::new(path, format!("cannot be created: {e}"))),
    }
    if check_private_dir(path)? {
        Ok(())
    } else {
        Err(Unsafe::new(path, "vanished while it was being created"))
    }
}

/// What is at a socket path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SocketAt {
    /// Nothing.
    Missing,
    /// A socket owned by the caller.
    Socket,
    /// A leftover of the caller's own: a dangling link, or a file that is not a socket. The
    /// daemon removes it before it binds; a client treats it as no daemon.
    Leftover,
}

/// Checks a socket path without following links. A link that points somewhere, or anything
/// owned by another user, is refused.
pub fn check_socket(path: &Path) -> Result<SocketAt, Unsafe> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(SocketAt::Missing),
        Err(e) => return Err(Unsafe::new(path, format!("cannot be inspected: {e}"))),
    };
    if meta.uid() != current_uid() {
        return Err(foreign(path, meta.uid(), Place::ForeignSocket));
    }
    if meta.file_type().is_symlink() {
        // A dangling link of ours is a leftover; one that leads somewhere is never followed.
        return if fs::metadata(path).is_err() {
            Ok(SocketAt::Leftover)
        } else {
            Err(Unsafe::at(
                path,
                "is a symbolic link, not the daemon's socket",
                Place::ForeignSocket,
            ))
        };
    }
    if !meta.file_type().is_socket() {
        return if meta.is_file() {
            Ok(SocketAt::Leftover)
        } else {
            Err(Unsafe::at(path, "is not a socket", Place::ForeignSocket))
        };
    }
    Ok(SocketAt::Socket)
}

/// Checks the socket's folder and the socket itself, as a client does before connecting:
/// `true` when there is a socket of the caller's to connect to.
pub fn check_socket_path(socket: &Path) -> Result<bool, Unsafe> {
    if let Some(dir) = socket.parent()
        && !check_private_dir(dir)?
    {
        return Ok(false);
    }
    Ok(check_socket(socket)? == SocketAt::Socket)
}

/// Checks that the process on the other end of a connected socket runs as the caller's uid.
pub fn check_peer(stream: &tokio::net::UnixStream, socket: &Path) -> Result<(), Unsafe> {
    let cred = stream
        .peer_cred()
        .map_err(|e| Unsafe::new(socket, format!("cannot tell who listens on it: {e}")))?;
    if cred.uid() != current_uid() {
        return Err(Unsafe::at(
            socket,
            format!(
                "is served by a process of uid {}, not by you (uid {}); nothing was sent",
                cred.uid(),
                current_uid()
            ),
            Place::ForeignSocket,
        ));
    }
    Ok(())
}

/// Walks `root/<parts...>`, creating each missing folder with mode 0700 and refusing any part
/// that is a symbolic link or not a folder. Returns the final path. This is how the client
/// reaches `.stanley/daemon/` in a repository it does not control. The root and every part must
/// be the caller's own: nothing is written into a tree another user owns (a folder they made
/// open to everyone included).
pub fn private_subdir(root: &Path, parts: &[&str]) -> Result<PathBuf, Unsafe> {
    let owned = |path: &Path, meta: &fs::Metadata| {
        if meta.uid() == current_uid() {
            Ok(())
        } else {
            Err(Unsafe::new(
                path,
                format!(
                    "is owned by uid {}, not by you (uid {}); Stanley works only in repositories you own",
                    meta.uid(),
                    current_uid()
                ),
            ))
        }
    };
    let meta =
        fs::metadata(root).map_err(|e| Unsafe::new(root, format!("cannot be inspected: {e}")))?;
    owned(root, &meta)?;
    let mut path = root.to_path_buf();
    for part in parts {
        path.push(part);
        match fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Unsafe::new(&path, format!("cannot be created: {e}"))),
        }
        let meta = fs::symlink_metadata(&path)
            .map_err(|e| Unsafe::new(&path, format!("cannot be inspected: {e}")))?;
        if meta.file_type().is_symlink() {
            return Err(Unsafe::new(
                &path,
                "is a symbolic link; Stanley never writes through a link",
            ));
        }
        if !meta.is_dir() {
            return Err(Unsafe::new(&path, "is not a folder"));
        }
        owned(&path, &meta)?;
    }
    Ok(path)
}

/// Opens `path` for appending (created 0600) without following a link at its last component.
pub fn open_append_nofollow(path: &Path) -> io::Result<File> {
    regular_only(
        path,
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)?,
    )
}

/// Opens a file the person named on the command line for reading (`stanley --input FILE` with a
/// file outside the repository): links are followed, since the person chose the path; a regular
/// file or a pipe (`<(gh run view --log)`) is read, anything else is an error naming the path.
/// The open never waits for a FIFO's writer (a pipe with none reads as empty); reads then block
/// as usual.
pub fn open_named(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if !(kind.is_file() || std::os::unix::fs::FileTypeExt::is_fifo(&kind)) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file or a pipe", path.display()),
        ));
    }
    rustix::fs::fcntl_setfl(&file, rustix::fs::OFlags::empty())?;
    Ok(file)
}

/// `file` when it is a regular file (an open without blocking reaches a FIFO or device
/// planted at `path` too); otherwise an error naming the path.
fn regular_only(path: &Path, file: File) -> io::Result<File> {
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ))
    }
}

/// Opens a regular file for reading without following a link at its last component and
/// without blocking on a FIFO; anything but a regular file is an error naming the path. The
/// clients' twin of the daemon's `records::open_regular` (the clients link no daemon crate).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if is_link_error(&e) {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is a symbolic link; not read", path.display()),
                )
            } else {
                e
            }
        })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file; not read", path.display()),
        ));
    }
    Ok(file)
}

/// The first `limit` bytes (at most) of a regular file opened by [`open_regular`].
pub fn read_head(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    open_regular(path)?.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The last `limit` bytes (at most) of a regular file opened by [`open_regular`].
pub fn read_tail(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = open_regular(path)?;
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(limit)))?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether an open with `O_NOFOLLOW` failed because the last component is a link.
pub fn is_link_error(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

/// Opens (creating 0600) a lock file without following a link at its last component.
pub fn open_lock_nofollow(path: &Path) -> io::Result<File> {
    regular_only(
        path,
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn private_dir_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        assert_eq!(check_private_dir(&dir), Ok(false));
        ensure_private_dir(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(check_private_dir(&dir), Ok(true));

        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        let err = ensure_private_dir(&dir).unwrap_err();
        assert!(err.problem.contains("mode 0777"), "{err}");
        assert_eq!(err.place, Place::OpenFolder);
        assert!(
            err.hint("XDG_RUNTIME_DIR")
                .starts_with("make it private with `chmod 700")
        );
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o1777)).unwrap();
        let err = ensure_private_dir(&dir).unwrap_err();
        assert_eq!(err.place, Place::SharedFolder, "{err}");
        assert!(!err.hint("STANLEY_RUNTIME_DIR").contains("chmod"));
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
        // Refused, not repaired.
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o777);

        let link = tmp.path().join("link");
        let target = tmp.path().join("target");
        fs::DirBuilder::new().mode(0o700).create(&target).unwrap();
        symlink(&target, &link).unwrap();
        let err = ensure_private_dir(&link).unwrap_err();
        assert!(err.problem.contains("symbolic link"), "{err}");

        let file = tmp.path().join("file");
        fs::write(&file, "").unwrap();
        assert!(
            check_private_dir(&file)
                .unwrap_err()
                .problem
                .contains("not a folder")
        );
    }

    #[test]
    fn socket_rules() {
        let tmp = tempfile::tempdir().unwrap();
        let sock = tmp.path().join("x.sock");
        assert_eq!(check_socket(&sock), Ok(SocketAt::Missing));
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert_eq!(check_socket(&sock), Ok(SocketAt::Socket));
        let link = tmp.path().join("y.sock");
        symlink(&sock, &link).unwrap();
        assert!(
            check_socket(&link)
                .unwrap_err()
                .problem
                .contains("symbolic link")
        );
        // Leftovers of our own: a file that is not a socket, a dangling link.
        let plain = tmp.path().join("z.sock");
        fs::write(&plain, "").unwrap();
        assert_eq!(check_socket(&plain), Ok(SocketAt::Leftover));
        let dangling = tmp.path().join("d.sock");
        symlink(tmp.path().join("gone"), &dangling).unwrap();
        assert_eq!(check_socket(&dangling), Ok(SocketAt::Leftover));
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(
            check_socket_path(&dangling),
            Ok(false),
            "a client sees no daemon"
        );
        let folder = tmp.path().join("f.sock");
        fs::create_dir(&folder).unwrap();
        assert!(
            check_socket(&folder)
                .unwrap_err()
                .problem
                .contains("not a socket")
        );
    }

    #[test]
    fn subdirs_refuse_links() {
        let tmp = tempfile::tempdir().unwrap();
        let made = private_subdir(tmp.path(), &[".stanley", "daemon"]).unwrap();
        assert!(made.is_dir());
        let elsewhere = tempfile::tempdir().unwrap();
        let other = tmp.path().join("other");
        fs::create_dir(&other).unwrap();
        symlink(elsewhere.path(), other.join(".stanley")).unwrap();
        let err = private_subdir(&other, &[".stanley", "daemon"]).unwrap_err();
        assert!(err.problem.contains("symbolic link"), "{err}");
        assert!(!elsewhere.path().join("daemon").exists());
        let log = made.join("stanleyd.out");
        symlink(elsewhere.path().join("victim"), &log).unwrap();
        assert!(open_append_nofollow(&log).is_err());
        assert!(!elsewhere.path().join("victim").exists());
    }
}

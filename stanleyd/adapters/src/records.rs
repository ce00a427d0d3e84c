//! The `.stanley/` state folder and built-in run records under `.stanley/runs/<run-id>/`:
//! folders 0700, files 0600, JSON written atomically (temp file, fsync, rename), NDJSON appended,
//! everything redacted first.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use serde_json::value::RawValue;
use stanley_workflows::ports::{Redactor, RunRecorder};

/// The content of `.stanley/.gitignore`: ignore everything but `workflows/` and the flow plan
/// `flow.json` (both are reviewed and committed like code).
pub const GITIGNORE: &str = "*\n!workflows/\n!workflows/**\n!flow.json\n";
/// Earlier contents, migrated to [`GITIGNORE`] when found.
const OLD_GITIGNORES: [&str; 2] = ["*\n", "*\n!workflows/\n!workflows/**\n"];

/// Index of the last `.stanley` component of `path`, from which on no component may be a link.
fn state_component(path: &Path) -> Option<usize> {
    path.components()
        .enumerate()
        .filter(|(_, c)| c.as_os_str() == ".stanley")
        .map(|(i, _)| i)
        .last()
}

fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} {what}; Stanley never writes through a link",
            path.display()
        ),
    )
}

/// Creates `dir` (and parents) with mode 0700 when missing. From the `.stanley` component down,
/// every part must be a real folder: a symbolic link there (a cloned repository can commit one)
/// is refused, never followed.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    let Some(from) = state_component(dir) else {
        return fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir);
    };
    let mut path = PathBuf::new();
    for (i, part) in dir.components().enumerate() {
        path.push(part);
        if i < from {
            continue;
        }
        if i == from && path.parent().is_some_and(|p| !p.exists()) {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(path.parent().unwrap_or(Path::new("/")))?;
        }
        match fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        let meta = fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            return Err(refused(&path, "is a symbolic link"));
        }
        if !meta.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a folder", path.display()),
            ));
        }
    }
    Ok(())
}

/// The current user's (effective) id: the owner of what this process creates.
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Refuses a folder under `.stanley/` that Stanley did not make: one owned by another user or
/// open to others (Stanley makes its folders 0700; a checkout of committed files makes them
/// with the umask, 0755). A cloned repository must not bring its own store.
pub fn refuse_foreign_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::symlink_metadata(dir)?;
    let uid = crate::records::current_uid();
    if meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} was not made by Stanley (mode {:o}, owner uid {}); a repository cannot bring its own; move it aside",
                dir.display(),
                meta.mode() & 0o7777,
                meta.uid()
            ),
        ));
    }
    Ok(())
}

/// Ensures `<root>/.stanley/` exists (0700, a real folder) with its `.gitignore` (created
/// exclusively, 0600; an earlier Stanley's file is migrated; any other content is left alone).
/// Returns the folder.
pub fn ensure_state_dir(root: &Path) -> io::Result<PathBuf> {
    let dir = root.join(".stanley");
    create_private_dir(&dir)?;
    let ignore = dir.join(".gitignore");
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&ignore)
    {
        Ok(mut f) => f.write_all(GITIGNORE.as_bytes())?,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let old = read_bounded(&ignore, 4096)
                .is_ok_and(|c| OLD_GITIGNORES.iter().any(|o| o.as_bytes() == c.as_slice()));
            if old {
                write_atomic(&ignore, GITIGNORE.as_bytes())?;
            }
        }
        Err(e) => return Err(e),
    }
    Ok(dir)
}

/// Opens `path` for appending (created 0600) without following a link at its last component;
/// its folder is checked by [`create_private_dir`] first.
pub fn open_append(path: &Path) -> io::Result<fs::File> {
    if let Some(parent) = path.parent() {
        create_private_dir(parent)?;
    }
    // Without blocking: a FIFO planted there would hold the open until a reader came.
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| nofollow_error(path, e))?;
    if !file.metadata()?.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    Ok(file)
}

/// Opens (creating 0600) a lock file without following a link at its last component.
pub fn open_lock(path: &Path) -> io::Result<fs::File> {
    refuse_linked_folders(path)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| nofollow_error(path, e))?;
    if !file.metadata()?.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    Ok(file)
}

/// Refuses `path` when a part of it from its `.stanley` component down to its parent is a link or
/// not a folder: a committed `.stanley/flow -> ../../elsewhere` would otherwise aim every read,
/// listing, rename and removal at a folder outside the repository, though the last component is
/// checked. Parts that do not exist pass (the operation then finds nothing); a path without a
/// `.stanley` component passes.
pub fn refuse_linked_folders(path: &Path) -> io::Result<()> {
    let Some(from) = state_component(path) else {
        return Ok(());
    };
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let mut at = PathBuf::new();
    for (i, part) in parent.components().enumerate() {
        at.push(part);
        if i < from {
            continue;
        }
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refused(&at, "is a symbolic link"));
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a folder", at.display()),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The entries of one of Stanley's folders: refused when the folder or a part above it (from
/// `.stanley` down) is a link or not a folder, so a listing never reaches outside.
pub fn list_dir(dir: &Path) -> io::Result<fs::ReadDir> {
    refuse_linked_folders(&dir.join("entry"))?;
    fs::read_dir(dir)
}

/// Removes one file Stanley keeps, never through a linked folder (a link at `path` itself is
/// removed, not followed).
pub fn remove_file(path: &Path) -> io::Result<()> {
    refuse_linked_folders(path)?;
    fs::remove_file(path)
}

/// Renames within Stanley's folders, never through a linked folder on either side.
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    refuse_linked_folders(from)?;
    refuse_linked_folders(to)?;
    fs::rename(from, to)
}

/// Removes one of Stanley's folders and what it holds (links inside are removed, never
/// followed), never through a linked folder above it or at it.
pub fn remove_tree(dir: &Path) -> io::Result<()> {
    refuse_linked_folders(&dir.join("entry"))?;
    fs::remove_dir_all(dir)
}

/// Opens a regular file for reading the one way Stanley reads anything it did not just create:
/// without following a link at its last component, without blocking (a FIFO or device planted
/// there is refused, never waited on or read), and only when it is a regular file. NotFound
/// passes through; a link or a non-file is an error that names the path.
pub fn open_regular(path: &Path) -> io::Result<fs::File> {
    refuse_linked_folders(path)?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                not_read(path, "is a symbolic link")
            } else {
                e
            }
        })?;
    if !file.metadata()?.is_file() {
        return Err(not_read(path, "is not a regular file"));
    }
    Ok(file)
}

/// Reads at most `limit` bytes of a regular file opened by [`open_regular`]. NotFound passes
/// through; a link, a non-file or a larger file is an error that names the path.
pub fn read_bounded(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (bytes, whole) = read_at_most(path, limit)?;
    if !whole {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(bytes)
}

/// The first `limit` bytes of a regular file, as [`read_bounded`] opens it, and whether that
/// was the whole file.
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<(Vec<u8>, bool)> {
    use std::io::Read;
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    let whole = bytes.len() as u64 <= limit;
    bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok((bytes, whole))
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

/// Whether the regular file at `path` ends without a line end (a torn last line), read from its
/// last byte only; false when it is empty, missing, a link or not a regular file.
pub fn ends_mid_line(path: &Path) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(file) = open_regular(path) else {
        return false;
    };
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let mut last = [0u8; 1];
    meta.len() > 0 && file.read_exact_at(&mut last, meta.len() - 1).is_ok() && last[0] != b'\n'
}

fn not_read(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} {what}; not read", path.display()),
    )
}

/// `ELOOP` from `O_NOFOLLOW` means the last component is a link: say so.
fn nofollow_error(path: &Path, e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        refused(path, "is a symbolic link")
    } else {
        e
    }
}

/// Refuses `dir` when anything inside it (at any depth) is a symbolic link: for stores such as
/// sled that open their own files by name.
pub fn refuse_links_within(dir: &Path) -> io::Result<()> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path)?;
        if meta.file_type().is_symlink() {
            return Err(refused(&path, "is a symbolic link"));
        }
        if meta.is_dir() {
            refuse_links_within(&path)?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically with mode 0600: a new temporary file beside it (created
/// exclusively, so a planted link is never followed), fsync, rename (which replaces a link at
/// `path` rather than writing through it).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replacing(path, bytes, true)
}

/// [`write_atomic`] without waiting for the disk: the file is whole or absent under its name at
/// once, and durable once [`sync_paths`] has run over it (a run's records, D-176).
pub fn write_replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replacing(path, bytes, false)
}

fn write_replacing(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        create_private_dir(parent)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!("{name}.tmp-{}", std::process::id()));
    // A leftover from a crashed writer of the same pid (or a planted link) is removed, not
    // followed: remove_file unlinks a link itself.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)?;
    f.write_all(bytes)?;
    if sync {
        f.sync_all()?;
    }
    f.set_permissions(fs::Permissions::from_mode(0o600))?;
    fs::rename(&tmp, path)
}

/// Makes files and folders durable (fsync), each opened without following a link; what is
/// missing or cannot be opened is left (its writer already reported it).
pub fn sync_paths(paths: &[PathBuf]) {
    for path in paths {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path);
        if let Ok(file) = file {
            let _ = file.sync_all();
        }
    }
}

/// [`sync_paths`] on a blocking thread of the running Tokio runtime, after the caller has
/// gone on (its answer sent); inline when there is no runtime.
fn sync_later(paths: Vec<PathBuf>) {
    if paths.is_empty() {
        return;
    }
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(move || sync_paths(&paths))),
        Err(_) => sync_paths(&paths),
    }
}

/// Writes one run's records on disk.
pub struct FsRecorder {
    dir: PathBuf,
    relative: String,
    redactor: Arc<dyn Redactor>,
    lock: Mutex<()>,
    /// The record files appended to so far, kept open for the run.
    /// Buffered (D-175): a run's lines reach the file in blocks, not a write per line; they are
    /// all written before the run's failures are read and when the recorder goes.
    appending: Mutex<std::collections::HashMap<String, io::BufWriter<fs::File>>>,
    /// The first write that failed.
    failed: Mutex<Option<String>>,
    /// The whole files written so far, made durable when the recorder goes (D-176).
    written: Mutex<Vec<PathBuf>>,
}

impl std::fmt::Debug for FsRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsRecorder")
            .field("dir", &self.dir)
            .finish()
    }
}

impl FsRecorder {
    /// Creates `.stanley/runs/<run_id>/` under `root`.
    pub fn create(
        root: &Path,
        run_id: &stanley_workflows::runs::RunId,
        redactor: Arc<dyn Redactor>,
    ) -> io::Result<Self> {
        let state = ensure_state_dir(root)?;
        let runs = state.join("runs");
        create_private_dir(&runs)?;
        let dir = runs.join(run_id.as_str());
        create_private_dir(&dir)?;
        Ok(Self {
            dir,
            relative: format!(".stanley/runs/{run_id}"),
            redactor,
            lock: Mutex::new(()),
            appending: Mutex::new(std::collections::HashMap::new()),
            failed: Mutex::new(None),
            written: Mutex::new(Vec::new()),
        })
    }

    fn report(&self, name: &str, result: io::Result<()>) {
        if let Err(e) = result {
            tracing::warn!(file = %self.dir.join(name).display(), error = %e, "could not write a run record");
            let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
            if failed.is_none() {
                *failed = Some(format!("{}/{name}: {e}", self.relative));
            }
        }
    }
}

impl RunRecorder for FsRecorder {
    fn write_json(&self, name: &str, value: &Value) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut text = self.redactor.json_text(value, true).0;
        text.push(b'\n');
        let path = self.dir.join(name);
        let result = write_replace(&path, &text);
        if result.is_ok() {
            let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
            if !written.contains(&path) {
                written.push(path);
            }
        }
        self.report(name, result);
    }

    fn append(&self, name: &str, value: &Value) {
        let mut line = self.redactor.json_text(value, false).0;
        line.push(b'\n');
        self.write_line(name, &line);
    }

    fn append_with(&self, name: &str, value: &Value, key: &str, raw: &RawValue) {
        let mut line = self.redactor.json_text(value, false).0;
        // An object's text ends with its `}`: the raw field goes in before it, as it is.
        if !value.is_object() || line.pop() != Some(b'}') {
            let mut whole = value.clone();
            if let (Some(fields), Ok(raw)) = (
                whole.as_object_mut(),
                serde_json::from_str::<Value>(raw.get()),
            ) {
                fields.insert(key.to_owned(), raw);
            }
            return self.append(name, &whole);
        }
        if line.len() > 1 {
            line.push(b',');
        }
        let _ = serde_json::to_writer(&mut line, key);
        line.push(b':');
        line.extend_from_slice(raw.get().as_bytes());
        line.extend_from_slice(b"}\n");
        self.write_line(name, &line);
    }

    fn artifact(&self) -> Option<String> {
        Some(self.relative.clone())
    }

    fn failure(&self) -> Option<String> {
        self.flush();
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// How much of a run's appended lines is held before it is written.
const APPEND_BUFFER: usize = 64 * 1024;

impl FsRecorder {
    /// Appends `line` (whole, newline included) to the run's file `name`.
    fn write_line(&self, name: &str, line: &[u8]) {
        let mut open = self.appending.lock().unwrap_or_else(|e| e.into_inner());
        let file = match open.entry(name.to_owned()) {
            std::collections::hash_map::Entry::Occupied(f) => Ok(f.into_mut()),
            std::collections::hash_map::Entry::Vacant(slot) => open_append(&self.dir.join(name))
                .map(|f| slot.insert(io::BufWriter::with_capacity(APPEND_BUFFER, f))),
        };
        let result = file.and_then(|f| f.write_all(line));
        self.report(name, result);
    }

    /// Writes every appended line still held.
    fn flush(&self) {
        let mut open = self.appending.lock().unwrap_or_else(|e| e.into_inner());
        for (name, file) in open.iter_mut() {
            let result = file.flush();
            self.report(name, result);
        }
    }
}

impl Drop for FsRecorder {
    /// Writes what is held, then makes the run's files and folder durable on a blocking thread:
    /// a request does not wait on the disk for its records (D-176).
    fn drop(&mut self) {
        self.flush();
        let mut paths = std::mem::take(self.written.get_mut().unwrap_or_else(|e| e.into_inner()));
        paths.extend(
            self.appending
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .keys()
                .map(|name| self.dir.join(name)),
        );
        if !paths.is_empty() {
            paths.push(self.dir.clone());
        }
        sync_later(paths);
    }
}

/// How long opening a sled store waits for a lock another handle still holds: sled's flusher
/// thread can outlive the last handle by a moment (a daemon replaced by the next one).
const SLED_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Opens the sled store in `dir` with a cache of `cache_bytes`. A store sled cannot read, or
/// panics on, is an error ("it does not open: …"), never a panic; a lock still held is waited
/// for, for a moment.
pub fn open_sled(
    dir: &Path,
    cache_bytes: u64,
    mode: sled::Mode,
) -> Result<sled::Db, crate::store_error::StoreError> {
    use crate::store_error::StoreError;
    let deadline = std::time::Instant::now() + SLED_LOCK_WAIT;
    loop {
        let opened = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sled::Config::new()
                .cache_capacity(cache_bytes)
                .path(dir)
                .mode(mode)
                .open()
        }));
        match opened {
            Ok(Ok(db)) => return Ok(db),
            Ok(Err(sled::Error::Io(_)))
                if locked_elsewhere(dir) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            Ok(Err(e)) => return Err(StoreError::Open(e)),
            Err(_) => return Err(StoreError::OpenPanicked),
        }
    }
}

/// Whether another process holds the store's lock (sled locks its `db` file): asked of the
/// lock itself, never read from an error's words.
fn locked_elsewhere(dir: &std::path::Path) -> bool {
    let Ok(file) = std::fs::File::open(dir.join("db")) else {
        return false;
    };
    matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::SecretRedactor;
    use serde_json::json;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    /// A store another handle still holds is waited for (its lock probed, not its error
    /// read), and opens once that handle lets go; one held past the wait is an error.
    #[test]
    fn a_held_store_is_waited_for_by_its_lock() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s");
        let held = open_sled(&store, 1 << 20, sled::Mode::LowSpace).unwrap();
        assert!(locked_elsewhere(&store));
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(held);
        });
        let reopened = open_sled(&store, 1 << 20, sled::Mode::LowSpace);
        release.join().unwrap();
        let reopened = reopened.expect("opens once the other handle lets go");
        assert!(locked_elsewhere(&store));
        // Held past the wait: an error naming the store, never a hang.
        let err = open_sled(&store, 1 << 20, sled::Mode::LowSpace).unwrap_err();
        assert!(
            matches!(err, crate::store_error::StoreError::Open(_)),
            "{err:?}"
        );
        drop(reopened);
        assert!(!locked_elsewhere(&store));
    }

    #[test]
    fn bounded_reads_take_only_regular_files_and_never_wait() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_bounded(&file, 10).unwrap(), b"0123456789");
        let over = read_bounded(&file, 9).unwrap_err();
        assert_eq!(over.kind(), io::ErrorKind::InvalidData);
        assert_eq!(read_at_most(&file, 4).unwrap(), (b"0123".to_vec(), false));
        assert!(read_at_most(&file, 10).unwrap().1);
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(
            read_bounded(&link, 10)
                .unwrap_err()
                .to_string()
                .ends_with("is a symbolic link; not read")
        );
        // A FIFO with no writer: refused at once, not waited on.
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid C string.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert!(
            read_bounded(&fifo, 10)
                .unwrap_err()
                .to_string()
                .ends_with("is not a regular file; not read")
        );
        let missing = read_bounded(&dir.path().join("none"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        // A tail: the end of a regular file only; a FIFO, a device or a link is never read.
        assert_eq!(read_tail(&file, 4).unwrap(), b"6789");
        assert_eq!(read_tail(&file, 64).unwrap(), b"0123456789");
        for refused in [&fifo, Path::new("/dev/zero"), &link] {
            assert!(read_tail(refused, 10).is_err(), "{}", refused.display());
        }
    }

    #[test]
    fn a_torn_last_line_is_seen_from_the_last_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        assert!(!ends_mid_line(&path), "missing");
        fs::write(&path, "").unwrap();
        assert!(!ends_mid_line(&path), "empty");
        fs::write(&path, "{\"a\":1}\n").unwrap();
        assert!(!ends_mid_line(&path));
        fs::write(&path, "{\"a\":1}\n{\"a\"").unwrap();
        assert!(ends_mid_line(&path));
    }

    /// A line with a field already redacted (a Jev request after `prepare`) is the line the
    /// whole value would have made, byte for byte, and the rest of it is still redacted.
    #[test]
    fn a_line_with_a_redacted_field_is_the_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let redactor = Arc::new(SecretRedactor::new(["sk-secret-value-1".to_owned()]));
        let rec = FsRecorder::create(
            dir.path(),
            &stanley_workflows::runs::RunId::parse("review-x").unwrap(),
            redactor,
        )
        .unwrap();
        let request = json!({"state": {"hunk": "é \"q\"\n"}, "questions": {"q": {"type": "noul"}}});
        let raw = serde_json::value::to_raw_value(&request).unwrap();
        let head = json!({"runId": "r", "error": "sk-secret-value-1", "n": 1.5});
        rec.append_with("a.ndjson", &head, "request", &raw);
        let mut whole = head.clone();
        whole["request"] = request;
        rec.append("b.ndjson", &whole);
        rec.append_with("a.ndjson", &json!({}), "request", &raw);
        rec.append("b.ndjson", &json!({"request": whole["request"]}));
        assert_eq!(rec.failure(), None);
        let run = dir.path().join(".stanley/runs/review-x");
        let (a, b) = (
            fs::read_to_string(run.join("a.ndjson")).unwrap(),
            fs::read_to_string(run.join("b.ndjson")).unwrap(),
        );
        assert_eq!(a, b);
        assert!(!a.contains("sk-secret-value-1"), "{a}");
    }

    #[test]
    fn records_are_private_redacted_and_atomic() {
        let dir = tempfile::tempdir().unwrap();
        let redactor = Arc::new(SecretRedactor::new(["sk-secret-value-1".to_owned()]));
        let rec = FsRecorder::create(
            dir.path(),
            &stanley_workflows::runs::RunId::parse("summarize-x").unwrap(),
            redactor,
        )
        .unwrap();
        rec.write_json("manifest.json", &json!({"k": "sk-secret-value-1"}));
        rec.append("frames.ndjson", &json!({"a": 1}));
        rec.append("frames.ndjson", &json!({"a": 2}));
        let run = dir.path().join(".stanley/runs/summarize-x");
        assert_eq!(mode(&dir.path().join(".stanley")), 0o700);
        assert_eq!(mode(&run), 0o700);
        assert_eq!(mode(&run.join("manifest.json")), 0o600);
        assert_eq!(mode(&run.join("frames.ndjson")), 0o600);
        let manifest = fs::read_to_string(run.join("manifest.json")).unwrap();
        assert_eq!(manifest, "{\n  \"k\": \"[REDACTED:env_secret]\"\n}\n");
        // Appended lines are held in blocks; they are all written once the run's failures are
        // read (the run reads them as it finishes).
        assert_eq!(rec.failure(), None);
        assert_eq!(
            fs::read_to_string(run.join("frames.ndjson")).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n"
        );
        let names: Vec<String> = fs::read_dir(&run)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
        assert_eq!(rec.artifact().unwrap(), ".stanley/runs/summarize-x");
    }

    #[test]
    fn the_first_failed_write_is_kept_and_earlier_records_stay_whole() {
        let dir = tempfile::tempdir().unwrap();
        let rec = FsRecorder::create(
            dir.path(),
            &stanley_workflows::runs::RunId::parse("x").unwrap(),
            Arc::new(SecretRedactor::default()),
        )
        .unwrap();
        rec.write_json("manifest.json", &json!({"status": "running"}));
        assert_eq!(rec.failure(), None);
        // A folder where a record goes makes its writes fail, whatever the user's rights.
        let run = dir.path().join(".stanley/runs/x");
        fs::create_dir(run.join("packet.json")).unwrap();
        fs::create_dir(run.join("frames.ndjson")).unwrap();
        rec.write_json("packet.json", &json!({}));
        rec.append("frames.ndjson", &json!({}));
        rec.write_json("manifest.json", &json!({"status": "complete"}));
        let failure = rec.failure().unwrap();
        assert!(
            failure.starts_with(".stanley/runs/x/packet.json: "),
            "{failure}"
        );
        // An atomic write that failed left the earlier file as it was; a later one still lands.
        let manifest = fs::read_to_string(run.join("manifest.json")).unwrap();
        assert!(manifest.contains("complete"), "{manifest}");
    }

    #[test]
    fn gitignore_is_created_and_migrated() {
        let dir = tempfile::tempdir().unwrap();
        ensure_state_dir(dir.path()).unwrap();
        let ignore = dir.path().join(".stanley/.gitignore");
        assert_eq!(fs::read_to_string(&ignore).unwrap(), GITIGNORE);
        assert_eq!(mode(&ignore), 0o600);
        for old in OLD_GITIGNORES {
            fs::write(&ignore, old).unwrap();
            ensure_state_dir(dir.path()).unwrap();
            assert_eq!(fs::read_to_string(&ignore).unwrap(), GITIGNORE);
        }
        fs::write(&ignore, "custom\n").unwrap();
        ensure_state_dir(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(&ignore).unwrap(), "custom\n");
    }
}

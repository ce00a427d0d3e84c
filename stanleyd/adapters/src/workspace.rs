//! Workspace file reads with the safety rules: the path must stay inside the repository (also
//! after resolving links), must not be credential-shaped, must be a regular file, and must fit
//! the size limit. Oversize files are refused, never truncated.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use stanley_workflows::paths::is_secret_path;

/// Why a workspace file cannot be read; each message is one line naming the path as given.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("path is empty or invalid")]
    InvalidPath,
    #[error("cannot resolve the repository root: {0}")]
    Root(#[source] std::io::Error),
    #[error("path escapes the workspace: {0}")]
    Escapes(String),
    #[error("file not found inside workspace: {0}")]
    NotFound(String),
    #[error("refusing to read a credential-shaped path: {0}")]
    Credential(String),
    #[error("not a regular file: {0}")]
    NotAFile(String),
    #[error("{path} is {size} bytes; the limit is {limit} bytes")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Lexically normalizes `path` (resolving `.` and `..` without touching the file system).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Reads `user_path` (relative to `root`) under the workspace rules, returning the
/// repository-relative POSIX path and the bytes. Every failure is a one-line input error.
pub fn read_workspace_file(
    root: &Path,
    user_path: &str,
    max_bytes: u64,
) -> Result<(String, Vec<u8>), WorkspaceError> {
    let (rel_posix, real, meta) = resolve(root, user_path)?;
    if meta.len() > max_bytes {
        return Err(WorkspaceError::TooLarge {
            path: user_path.to_owned(),
            size: meta.len(),
            limit: max_bytes,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    crate::records::open_regular(&real)
        .and_then(|f| f.take(max_bytes + 1).read_to_end(&mut bytes))
        .map_err(|source| WorkspaceError::Read {
            path: user_path.to_owned(),
            source,
        })?;
    if bytes.len() as u64 > max_bytes {
        return Err(WorkspaceError::TooLarge {
            path: user_path.to_owned(),
            size: bytes.len() as u64,
            limit: max_bytes,
        });
    }
    Ok((rel_posix, bytes))
}

/// Opens `user_path` under the same rules, for a reader that reads it in one pass.
pub fn open_workspace_file(
    root: &Path,
    user_path: &str,
) -> Result<(String, fs::File, u64), WorkspaceError> {
    let (rel, real, meta) = resolve(root, user_path)?;
    let file = crate::records::open_regular(&real).map_err(|source| WorkspaceError::Read {
        path: user_path.to_owned(),
        source,
    })?;
    Ok((rel, file, meta.len()))
}

/// Reads at most the first `max_bytes` of `user_path` under the same rules, whatever its size.
pub fn read_workspace_head(
    root: &Path,
    user_path: &str,
    max_bytes: usize,
) -> Result<Vec<u8>, WorkspaceError> {
    let (_, real, _) = resolve(root, user_path)?;
    let mut bytes = Vec::with_capacity(max_bytes.min(65_536));
    crate::records::open_regular(&real)
        .and_then(|f| f.take(max_bytes as u64).read_to_end(&mut bytes))
        .map_err(|source| WorkspaceError::Read {
            path: user_path.to_owned(),
            source,
        })?;
    Ok(bytes)
}

/// Resolves `user_path` inside `root`: its repository-relative POSIX path, real path and
/// metadata, refusing escapes, credential-shaped paths and anything but a regular file.
fn resolve(
    root: &Path,
    user_path: &str,
) -> Result<(String, std::path::PathBuf, fs::Metadata), WorkspaceError> {
    if user_path.is_empty() || user_path.contains('\0') {
        return Err(WorkspaceError::InvalidPath);
    }
    let canonical_root = root.canonicalize().map_err(WorkspaceError::Root)?;
    let escapes = || WorkspaceError::Escapes(user_path.to_owned());
    for base in [root, canonical_root.as_path()] {
        let joined = normalize(&base.join(user_path));
        if !joined.starts_with(normalize(base)) {
            return Err(escapes());
        }
    }
    let joined = canonical_root.join(user_path);
    let real = joined
        .canonicalize()
        .map_err(|_| WorkspaceError::NotFound(user_path.to_owned()))?;
    let Ok(rel) = real.strip_prefix(&canonical_root) else {
        return Err(escapes());
    };
    let rel_posix = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    if is_secret_path(&rel_posix) || is_secret_path(user_path) {
        return Err(WorkspaceError::Credential(user_path.to_owned()));
    }
    let meta = fs::metadata(&real).map_err(|_| WorkspaceError::NotFound(user_path.to_owned()))?;
    if !meta.is_file() {
        return Err(WorkspaceError::NotAFile(user_path.to_owned()));
    }
    Ok((rel_posix, real, meta))
}

/// Splits text into lines on `\r?\n`, dropping one trailing empty line.
pub fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enforces_the_workspace_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::write(root.join("notes/a.txt"), "hello").unwrap();
        fs::write(root.join(".env"), "A=1").unwrap();
        fs::write(dir.path().join("outside.log"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.log"), root.join("link.log")).unwrap();
        fs::write(root.join("big.txt"), "x".repeat(11)).unwrap();

        assert_eq!(
            read_workspace_file(&root, "notes/a.txt", 10).unwrap(),
            ("notes/a.txt".into(), b"hello".to_vec())
        );
        assert_eq!(
            read_workspace_file(&root, "./notes/../notes/a.txt", 10)
                .unwrap()
                .0,
            "notes/a.txt"
        );
        let err = |p: &str| read_workspace_file(&root, p, 10).unwrap_err().to_string();
        assert!(matches!(
            read_workspace_file(&root, "link.log", 10),
            Err(WorkspaceError::Escapes(_))
        ));
        assert!(matches!(
            read_workspace_file(&root, "big.txt", 10),
            Err(WorkspaceError::TooLarge { size: 11, .. })
        ));
        assert_eq!(
            err("../outside.log"),
            "path escapes the workspace: ../outside.log"
        );
        assert_eq!(
            err("../../etc/passwd"),
            "path escapes the workspace: ../../etc/passwd"
        );
        assert_eq!(err("link.log"), "path escapes the workspace: link.log");
        assert_eq!(
            err(".env"),
            "refusing to read a credential-shaped path: .env"
        );
        assert_eq!(err("nope.txt"), "file not found inside workspace: nope.txt");
        assert_eq!(err("notes"), "not a regular file: notes");
        assert_eq!(err("big.txt"), "big.txt is 11 bytes; the limit is 10 bytes");
        assert_eq!(err(""), "path is empty or invalid");
    }

    #[test]
    fn lines() {
        assert_eq!(split_lines("a\r\nb\n"), ["a", "b"]);
        assert_eq!(split_lines("a\n\n"), ["a", ""]);
        assert!(split_lines("").is_empty());
    }
}

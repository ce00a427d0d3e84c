//! Where the daemon of a worktree listens: `$STANLEY_RUNTIME_DIR`, else
//! `$XDG_RUNTIME_DIR/stanley`, else `/tmp/stanley-<uid>`, holding `<16 hex of SHA-256(root)>.sock`.
//! Hashing the canonical root keeps the path under the 108-byte `sun_path` limit.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Overrides the socket folder (tests, unusual setups).
pub const RUNTIME_DIR_VAR: &str = crate::env::STANLEY_RUNTIME_DIR;

/// The current user's (effective) id: the owner of what this process creates.
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The socket folder given the values of `STANLEY_RUNTIME_DIR` and `XDG_RUNTIME_DIR`.
pub fn socket_dir(runtime_override: Option<&OsStr>, xdg_runtime: Option<&OsStr>) -> PathBuf {
    if let Some(dir) = runtime_override.filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = xdg_runtime.filter(|d| !d.is_empty() && Path::new(d).is_absolute()) {
        return Path::new(dir).join("stanley");
    }
    PathBuf::from(format!("/tmp/stanley-{}", current_uid()))
}

/// The socket file name for a canonical worktree root.
pub fn socket_name(canonical_root: &Path) -> String {
    let digest = Sha256::digest(canonical_root.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{hex}.sock")
}

/// The socket path for a root, reading the two variables from the process environment.
pub fn socket_path(canonical_root: &Path) -> PathBuf {
    let over = std::env::var_os(RUNTIME_DIR_VAR);
    let xdg = std::env::var_os(crate::env::XDG_RUNTIME_DIR);
    socket_dir(over.as_deref(), xdg.as_deref()).join(socket_name(canonical_root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_precedence_and_short_names() {
        assert_eq!(
            socket_dir(Some("/x".as_ref()), Some("/run/user/1".as_ref())),
            PathBuf::from("/x")
        );
        assert_eq!(
            socket_dir(None, Some("/run/user/1".as_ref())),
            PathBuf::from("/run/user/1/stanley")
        );
        assert_eq!(
            socket_dir(Some("".as_ref()), Some("relative".as_ref())),
            PathBuf::from(format!("/tmp/stanley-{}", current_uid()))
        );
        let deep = PathBuf::from(format!("/{}", "d/".repeat(200)));
        let name = socket_name(&deep);
        assert_eq!(name.len(), 21);
        assert_eq!(name, socket_name(&deep));
        assert_ne!(name, socket_name(Path::new("/other")));
    }
}

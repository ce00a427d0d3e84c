//! The daemon's start-up and serving errors.

use std::io;
use std::path::PathBuf;

use thiserror::Error;

/// Why the daemon could not start or serve.
#[derive(Debug, Error)]
pub enum DaemonError {
    /// Another daemon holds the lock for this root.
    #[error("another stanleyd already serves {0}")]
    AlreadyRunning(PathBuf),
    /// The root is not a Git worktree.
    #[error("{0}")]
    NotARepository(String),
    /// A place the daemon would use is not safe (a link, another user's, open to others).
    #[error("{0}; set XDG_RUNTIME_DIR to a folder only you can use")]
    Unsafe(#[from] stanley_proto::private::Unsafe),
    /// A file-system step failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: io::Error,
    },
    /// The gRPC server failed.
    #[error("the gRPC server failed: {0}")]
    Serve(#[from] tonic::transport::Error),
}

impl DaemonError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let what = what.into();
        move |source| DaemonError::Io { what, source }
    }
}

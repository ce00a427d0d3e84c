//! The client-side errors and the exit codes they end with, from the table the daemon shares
//! (`stanley_proto::exit`): a kind decides the code, and a refused call's gRPC code decides the
//! kind, each in one place.

pub use stanley_proto::exit::{ErrorKind, Exit, FlowCode};

/// An error the client reports itself (before or instead of a daemon result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// One line.
    pub message: String,
    /// Extra `hint:` line.
    pub hint: Option<String>,
}

impl ClientError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// A usage error (64).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// An input error (65).
    pub fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Input, message)
    }

    /// An internal error (70).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// The daemon could not be started or reached (69).
    pub fn unavailable(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            hint: Some(hint.into()),
            ..Self::new(ErrorKind::Unavailable, message)
        }
    }

    /// A call the daemon refused, by the kind it names.
    pub fn from_status(status: &tonic::Status) -> Self {
        Self::new(ErrorKind::of_status(status), status.message().to_owned())
    }

    /// The exit code of this error.
    pub fn exit_code(&self) -> u8 {
        self.kind.exit().code()
    }
}

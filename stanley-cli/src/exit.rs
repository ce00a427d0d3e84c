//! The documented exit codes, and the client-side errors that map to them.

/// Complete, help, version.
pub const COMPLETE: u8 = 0;
/// Incomplete coverage.
pub const INCOMPLETE: u8 = 10;
/// The shared Jev budget was exhausted.
pub const BUDGET_EXHAUSTED: u8 = 12;
/// Usage error or unsupported request.
pub const USAGE: u8 = 64;
/// Invalid input.
pub const INPUT: u8 = 65;
/// The daemon could not be started or reached.
pub const UNAVAILABLE: u8 = 69;
/// Internal error.
pub const INTERNAL: u8 = 70;

/// An error the client reports itself (before or instead of a daemon result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientError {
    /// `usage`, `input`, `internal` or `unavailable`.
    pub kind: &'static str,
    /// One line.
    pub message: String,
    /// Extra `hint:` line.
    pub hint: Option<String>,
}

impl ClientError {
    /// A usage error (64).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: "usage",
            message: message.into(),
            hint: None,
        }
    }
    /// An input error (65).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            kind: "input",
            message: message.into(),
            hint: None,
        }
    }
    /// An internal error (70).
    pub fn internal(message: impl Into<String>) -> Self {
        Self {
            kind: "internal",
            message: message.into(),
            hint: None,
        }
    }
    /// The daemon could not be started or reached (69).
    pub fn unavailable(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            kind: "unavailable",
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// The exit code of this error.
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            "usage" => USAGE,
            "input" => INPUT,
            "unavailable" => UNAVAILABLE,
            _ => INTERNAL,
        }
    }
}

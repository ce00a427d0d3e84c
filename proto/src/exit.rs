//! Every exit code Stanley's commands end with, the error kinds of `stanley.error/v1`, and the
//! gRPC code each kind travels as: one table that the daemon and its clients share, so a
//! refusal means the same number wherever it is decided.

/// How a `stanley` or `stanleyctl` command ends (sysexits where one fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Exit {
    /// Complete; also help and version.
    Complete = 0,
    /// Coverage incomplete.
    Incomplete = 10,
    /// The shared Jev budget was exhausted.
    BudgetExhausted = 12,
    /// A usage error, or a request no workflow supports (`EX_USAGE`).
    Usage = 64,
    /// Invalid input: a file, a value, a repository that cannot be used (`EX_DATAERR`).
    Input = 65,
    /// The daemon cannot be started or reached, or is not the caller's; or Jev cannot be
    /// reached or keeps failing (`EX_UNAVAILABLE`).
    Unavailable = 69,
    /// An internal error (`EX_SOFTWARE`).
    Internal = 70,
    /// Writing the output failed (`EX_IOERR`).
    Output = 74,
    /// Jev refused the key (`EX_NOPERM`).
    Permission = 77,
    /// `stanleyctl doctor` found a failing check (`EX_CONFIG`).
    Config = 78,
    /// Interrupted (SIGINT, 128 + 2).
    Interrupted = 130,
    /// The reader of standard output went away (`stanley ... | head`), as Unix tools killed by
    /// SIGPIPE end (128 + 13).
    BrokenPipe = 141,
    /// Terminated (SIGTERM, 128 + 15).
    Terminated = 143,
}

impl Exit {
    /// Every code, in order.
    pub const ALL: [Exit; 13] = [
        Exit::Complete,
        Exit::Incomplete,
        Exit::BudgetExhausted,
        Exit::Usage,
        Exit::Input,
        Exit::Unavailable,
        Exit::Internal,
        Exit::Output,
        Exit::Permission,
        Exit::Config,
        Exit::Interrupted,
        Exit::BrokenPipe,
        Exit::Terminated,
    ];

    /// The number.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// How `stanleyctl flow run` ends (the supervisor's codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FlowCode {
    /// The goal is complete.
    Complete = 0,
    /// A limit was reached (time, Jev calls, restarts).
    Limit = 2,
    /// A configuration error: no or bad flow file, no coding agent, an untrusted flow, a journal
    /// that cannot be written.
    Configuration = 3,
    /// Waiting on a person (`.stanley/flow/NEEDS_HUMAN.md`).
    NeedsPerson = 4,
    /// Another supervisor is running.
    AlreadyRunning = 5,
    /// Interrupted.
    Interrupted = 130,
}

impl FlowCode {
    /// Every code, in order.
    pub const ALL: [FlowCode; 6] = [
        FlowCode::Complete,
        FlowCode::Limit,
        FlowCode::Configuration,
        FlowCode::NeedsPerson,
        FlowCode::AlreadyRunning,
        FlowCode::Interrupted,
    ];

    /// The number.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The code a number stands for, if any.
    pub fn from_code(code: i32) -> Option<FlowCode> {
        Self::ALL.into_iter().find(|e| i32::from(e.code()) == code)
    }

    /// How a refused flow command (`flow init`, `flow status`, `hook`) ends: a flow that is
    /// missing, does not load or is not trusted is a configuration error, as in `flow run`;
    /// anything else ends as other commands do.
    pub fn for_refusal(kind: ErrorKind) -> u8 {
        match kind {
            ErrorKind::Configuration => FlowCode::Configuration.code(),
            other => other.exit().code(),
        }
    }
}

/// What kind of failure ended a command (`stanley.error/v1` `error.kind`). A refused gRPC call
/// carries it in the `stanley-error-kind` metadata entry, beside a gRPC code chosen for what
/// went wrong (`NOT_FOUND`, `FAILED_PRECONDITION`, ...), so the exit code never depends on how
/// the code was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The command line or the request cannot be served as asked (64).
    Usage,
    /// An input, a file, an id or the repository's state is not usable (65).
    Input,
    /// The flow file is missing, does not load or is not trusted (65; 3 for flow commands).
    Configuration,
    /// The daemon, or something it needs, cannot be reached (69).
    Unavailable,
    /// A fault of Stanley's own (70).
    Internal,
    /// Jev refused the key in `TYPESAFE_API_KEY` (77).
    JevAuth,
    /// Jev cannot be reached at `TYPESAFE_BASE_URL` (69).
    JevUnreachable,
    /// Jev kept failing: throttled, server errors or timeouts until retries ran out (69).
    JevUnavailable,
    /// The person interrupted the command (SIGINT, 130).
    Interrupted,
    /// The command was terminated (SIGTERM, 143).
    Terminated,
}

/// The metadata entry of a refused call that names its [`ErrorKind`].
pub const KIND_METADATA: &str = "stanley-error-kind";

impl ErrorKind {
    /// Every kind.
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::Usage,
        ErrorKind::Input,
        ErrorKind::Configuration,
        ErrorKind::Unavailable,
        ErrorKind::Internal,
        ErrorKind::JevAuth,
        ErrorKind::JevUnreachable,
        ErrorKind::JevUnavailable,
        ErrorKind::Interrupted,
        ErrorKind::Terminated,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Input => "input",
            ErrorKind::Configuration => "configuration",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Internal => "internal",
            ErrorKind::JevAuth => "jev_auth",
            ErrorKind::JevUnreachable => "jev_unreachable",
            ErrorKind::JevUnavailable => "jev_unavailable",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Terminated => "terminated",
        }
    }

    /// How a person reads it after the program's name: `stanley: <label> error: <message>`.
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::JevAuth | ErrorKind::JevUnreachable | ErrorKind::JevUnavailable => "Jev",
            other => other.as_str(),
        }
    }

    /// The kind a wire spelling names.
    pub fn parse(text: &str) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The kind on the wire (`ErrorInfo.error_kind`).
    pub const fn wire(self) -> crate::v1::ErrorKind {
        use crate::v1::ErrorKind as W;
        match self {
            ErrorKind::Usage => W::Usage,
            ErrorKind::Input => W::Input,
            ErrorKind::Configuration => W::Configuration,
            ErrorKind::Unavailable => W::Unavailable,
            ErrorKind::Internal => W::Internal,
            ErrorKind::JevAuth => W::JevAuth,
            ErrorKind::JevUnreachable => W::JevUnreachable,
            ErrorKind::JevUnavailable => W::JevUnavailable,
            ErrorKind::Interrupted => W::Interrupted,
            ErrorKind::Terminated => W::Terminated,
        }
    }

    /// The kind a wire value names (none for the unspecified value).
    pub fn from_wire(kind: crate::v1::ErrorKind) -> Option<ErrorKind> {
        Self::ALL.into_iter().find(|k| k.wire() == kind)
    }

    /// The exit code of `stanley` and of `stanleyctl` outside flow commands.
    pub fn exit(self) -> Exit {
        match self {
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::Input | ErrorKind::Configuration => Exit::Input,
            ErrorKind::Unavailable | ErrorKind::JevUnreachable | ErrorKind::JevUnavailable => {
                Exit::Unavailable
            }
            ErrorKind::Internal => Exit::Internal,
            ErrorKind::JevAuth => Exit::Permission,
            ErrorKind::Interrupted => Exit::Interrupted,
            ErrorKind::Terminated => Exit::Terminated,
        }
    }

    /// The kind of a refused call: its metadata entry, else (a call refused by something other
    /// than Stanley's services, such as the transport) what its gRPC code suggests.
    pub fn of_status(status: &tonic::Status) -> ErrorKind {
        status
            .metadata()
            .get(KIND_METADATA)
            .and_then(|v| v.to_str().ok())
            .and_then(ErrorKind::parse)
            .unwrap_or(match status.code() {
                tonic::Code::InvalidArgument => ErrorKind::Usage,
                tonic::Code::NotFound
                | tonic::Code::AlreadyExists
                | tonic::Code::FailedPrecondition => ErrorKind::Input,
                tonic::Code::Unavailable => ErrorKind::Unavailable,
                _ => ErrorKind::Internal,
            })
    }

    /// A refused call of this kind, with `code` chosen for what went wrong.
    pub fn status(self, code: tonic::Code, message: impl Into<String>) -> tonic::Status {
        let mut status = tonic::Status::new(code, message);
        status.metadata_mut().insert(
            KIND_METADATA,
            tonic::metadata::MetadataValue::from_static(self.as_str()),
        );
        status
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_survives_the_wire_and_has_its_documented_code() {
        for kind in ErrorKind::ALL {
            for code in [tonic::Code::NotFound, tonic::Code::FailedPrecondition] {
                assert_eq!(
                    ErrorKind::of_status(&kind.status(code, "m")),
                    kind,
                    "{kind:?}"
                );
            }
            // The enum of `ErrorInfo` says the same word as the document's `error.kind`.
            assert_eq!(kind.wire().word(), kind.as_str());
            assert_eq!(ErrorKind::from_wire(kind.wire()), Some(kind));
        }
        assert_eq!(
            ErrorKind::from_wire(crate::v1::ErrorKind::Unspecified),
            None
        );
        assert_eq!(crate::v1::ErrorKind::KNOWN.len(), ErrorKind::ALL.len());
        let codes: Vec<u8> = Exit::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(
            codes,
            [0, 10, 12, 64, 65, 69, 70, 74, 77, 78, 130, 141, 143]
        );
        let kinds: Vec<u8> = ErrorKind::ALL.iter().map(|k| k.exit().code()).collect();
        assert_eq!(kinds, [64, 65, 65, 69, 70, 77, 69, 69, 130, 143]);
        let flow: Vec<u8> = FlowCode::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(flow, [0, 2, 3, 4, 5, 130]);
        for e in FlowCode::ALL {
            assert_eq!(FlowCode::from_code(i32::from(e.code())), Some(e));
        }
        assert_eq!(FlowCode::for_refusal(ErrorKind::Configuration), 3);
        assert_eq!(FlowCode::for_refusal(ErrorKind::Usage), 64);
        // A call refused by the transport, without Stanley's metadata.
        let plain = tonic::Status::unavailable("connection reset");
        assert_eq!(ErrorKind::of_status(&plain), ErrorKind::Unavailable);
    }
}

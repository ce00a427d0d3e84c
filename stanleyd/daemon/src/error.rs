//! The daemon's errors: why it could not start or serve ([`DaemonError`]), and why one request
//! or administrative call was refused ([`RequestError`]), whose kind decides both its exit code
//! and its gRPC code through the table in `stanley_proto::exit`.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use stanley_proto::exit::ErrorKind;
use thiserror::Error;

/// What went wrong with a refused request or call. Its public kind (`stanley.error/v1`
/// `error.kind`, which decides the exit code) and its gRPC code are both functions of it, in
/// [`Refusal::kind`] and [`Refusal::code`];
/// `every_refusal_reaches_the_client_with_its_documented_code` walks [`Refusal::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not valid as asked (64).
    Usage,
    /// An input or the repository's state does not allow it (65).
    Input,
    /// No such job, candidate, run or file (65).
    NotFound,
    /// It exists already (65).
    Exists,
    /// The flow file is missing (65; 3 for flow commands).
    FlowMissing,
    /// The flow file does not load or is not trusted (65; 3 for flow commands).
    FlowUnusable,
    /// Something the daemon needs cannot be reached, or is busy (69).
    Unavailable,
    /// A fault of Stanley's own (70).
    Internal,
    /// Jev refused the key (77).
    JevAuth,
    /// Jev cannot be reached (69).
    JevUnreachable,
    /// Jev kept failing until retries ran out (69).
    JevUnavailable,
    /// The request was cancelled before it finished: its client went away or the daemon is
    /// stopping (130).
    Interrupted,
}

impl Refusal {
    /// Every refusal (a new variant fails to build `position` in the test until it is listed).
    #[cfg(test)]
    pub(crate) const ALL: [Refusal; 12] = [
        Refusal::Usage,
        Refusal::Input,
        Refusal::NotFound,
        Refusal::Exists,
        Refusal::FlowMissing,
        Refusal::FlowUnusable,
        Refusal::Unavailable,
        Refusal::Internal,
        Refusal::JevAuth,
        Refusal::JevUnreachable,
        Refusal::JevUnavailable,
        Refusal::Interrupted,
    ];

    /// The public kind, which decides the exit code.
    pub(crate) fn kind(self) -> ErrorKind {
        match self {
            Refusal::Usage => ErrorKind::Usage,
            Refusal::Input | Refusal::NotFound | Refusal::Exists => ErrorKind::Input,
            Refusal::FlowMissing | Refusal::FlowUnusable => ErrorKind::Configuration,
            Refusal::Unavailable => ErrorKind::Unavailable,
            Refusal::Internal => ErrorKind::Internal,
            Refusal::JevAuth => ErrorKind::JevAuth,
            Refusal::JevUnreachable => ErrorKind::JevUnreachable,
            Refusal::JevUnavailable => ErrorKind::JevUnavailable,
            Refusal::Interrupted => ErrorKind::Interrupted,
        }
    }

    /// The gRPC code of the refused call.
    pub(crate) fn code(self) -> tonic::Code {
        match self {
            Refusal::Usage => tonic::Code::InvalidArgument,
            Refusal::Input | Refusal::FlowUnusable => tonic::Code::FailedPrecondition,
            Refusal::NotFound | Refusal::FlowMissing => tonic::Code::NotFound,
            Refusal::Exists => tonic::Code::AlreadyExists,
            Refusal::Unavailable | Refusal::JevUnreachable | Refusal::JevUnavailable => {
                tonic::Code::Unavailable
            }
            Refusal::Internal => tonic::Code::Internal,
            Refusal::JevAuth => tonic::Code::PermissionDenied,
            Refusal::Interrupted => tonic::Code::Cancelled,
        }
    }
}

/// A refused request or call: what went wrong ([`Refusal`], which decides its kind and gRPC
/// code) and one line saying it. The one error the request path and the administrative
/// services fail with.
#[derive(Clone, Debug, Error)]
#[error("{message}")]
pub(crate) struct RequestError {
    /// What went wrong.
    pub(crate) refusal: Refusal,
    /// One line (redacted and cut where it leaves the daemon).
    pub(crate) message: String,
    /// The workflow that was running, when one had been selected.
    pub(crate) workflow: Option<String>,
    /// What caused it, kept to the edge for the daemon's log (its chain never leaves the
    /// daemon: the message is what a client hears).
    #[source]
    pub(crate) cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// Two refusals are alike when they say the same thing; their causes are the log's.
impl PartialEq for RequestError {
    fn eq(&self, other: &Self) -> bool {
        (self.refusal, &self.message, &self.workflow)
            == (other.refusal, &other.message, &other.workflow)
    }
}

impl Eq for RequestError {}

impl RequestError {
    pub(crate) fn new(refusal: Refusal, message: impl Into<String>) -> Self {
        Self {
            refusal,
            message: message.into(),
            workflow: None,
            cause: None,
        }
    }

    /// A refusal that says `what` failed and why (`{what}: {cause}`), keeping the cause as
    /// its source.
    pub(crate) fn context(
        refusal: Refusal,
        what: impl std::fmt::Display,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            refusal,
            message: format!("{what}: {cause}"),
            workflow: None,
            cause: Some(Arc::new(cause)),
        }
    }

    /// A refusal that keeps what caused it as its source.
    pub(crate) fn caused(
        refusal: Refusal,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self {
            refusal,
            message: cause.to_string(),
            workflow: None,
            cause: Some(Arc::new(cause)),
        }
    }

    /// The public kind.
    pub(crate) fn kind(&self) -> ErrorKind {
        self.refusal.kind()
    }

    /// The gRPC code.
    pub(crate) fn code(&self) -> tonic::Code {
        self.refusal.code()
    }

    /// The request or call is not valid as asked (64, `INVALID_ARGUMENT`).
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::new(Refusal::Usage, message)
    }

    /// An input or the repository's state does not allow it (65, `FAILED_PRECONDITION`).
    pub(crate) fn input(message: impl Into<String>) -> Self {
        Self::new(Refusal::Input, message)
    }

    /// No such job, candidate or file (65, `NOT_FOUND`).
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(Refusal::NotFound, message)
    }

    /// It already exists (65, `ALREADY_EXISTS`).
    pub(crate) fn exists(message: impl Into<String>) -> Self {
        Self::new(Refusal::Exists, message)
    }

    /// The flow file is missing (`NOT_FOUND`): 3 for flow commands. (One that does not load
    /// or is not trusted is refused with its cause, [`Refusal::FlowUnusable`].)
    pub(crate) fn flow_missing(message: impl Into<String>) -> Self {
        Self::new(Refusal::FlowMissing, message)
    }

    /// Something the daemon needs cannot be reached, or is busy (69, `UNAVAILABLE`).
    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        Self::new(Refusal::Unavailable, message)
    }

    /// A fault of Stanley's own (70, `INTERNAL`).
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(Refusal::Internal, message)
    }

    /// The request was cancelled (its client went away, or the daemon is stopping) and its work
    /// ended early; its run record says so (130, `CANCELLED`).
    pub(crate) fn aborted() -> Self {
        Self::new(
            Refusal::Interrupted,
            "the request was interrupted before it finished (its client went away or the daemon is stopping)",
        )
    }

    /// Jev could not answer: the key was refused (77), the base URL cannot be reached (69), or
    /// Jev kept failing until retries ran out (69). The line names the variable to look at and
    /// the host, never the key.
    pub(crate) fn jev(trouble: &stanley_core::JevTrouble, base_url: &str) -> Self {
        use stanley_core::JevTrouble;
        let host = stanley_adapters::jev_http::host_of(base_url);
        let host = host.as_str();
        match trouble {
            JevTrouble::Auth { status } => Self::new(
                Refusal::JevAuth,
                format!(
                    "the key in TYPESAFE_API_KEY was refused{}; check that it is current and complete",
                    status
                        .map(|s| format!(" (HTTP {s} from {host})"))
                        .unwrap_or_default()
                ),
            ),
            JevTrouble::Unreachable {
                detail,
                certificate,
            } => {
                let (problem, advice) = unreachable(host, detail, certificate.as_deref());
                Self::new(Refusal::JevUnreachable, format!("{problem}; {advice}"))
            }
            JevTrouble::Unavailable { .. } => Self::new(
                Refusal::JevUnavailable,
                format!("{trouble} at {host}; try again later"),
            ),
            JevTrouble::Invalid { .. } => Self::new(
                Refusal::JevUnavailable,
                format!(
                    "{trouble} (from {host}); check that TYPESAFE_MODEL names a Jev model the \
                     endpoint serves"
                ),
            ),
        }
    }

    /// The same error, raised while `id` ran.
    pub(crate) fn in_workflow(mut self, id: &str) -> Self {
        self.workflow = Some(id.to_owned());
        self
    }

    /// The exit code the client ends with.
    pub(crate) fn exit_code(&self) -> i32 {
        i32::from(self.kind().exit().code())
    }
}

/// A built-in's request text is blank or too long: the request is at fault (65).
impl From<stanley_workflows::text::RequestTextError> for RequestError {
    fn from(e: stanley_workflows::text::RequestTextError) -> Self {
        Self::input(e.to_string())
    }
}

/// A built-in that cannot be planned: the request's text or input (65), or a mode this build
/// lacks (70).
impl From<stanley_workflows::builtin::Refused> for RequestError {
    fn from(e: stanley_workflows::builtin::Refused) -> Self {
        match e {
            stanley_workflows::builtin::Refused::NoRunner(_) => Self::internal(e.to_string()),
            e => Self::input(e.to_string()),
        }
    }
}

/// A workspace file the request named cannot be read: the request's input is at fault (65).
impl From<stanley_adapters::workspace::WorkspaceError> for RequestError {
    fn from(e: stanley_adapters::workspace::WorkspaceError) -> Self {
        Self::input(e.to_string())
    }
}

/// A sled store's failure, once, into the request error: the store is the daemon's own, so its
/// failure is an internal one (a full disk included), named in the store's words.
impl From<stanley_adapters::store_error::StoreError> for RequestError {
    fn from(e: stanley_adapters::store_error::StoreError) -> Self {
        Self::internal(e.to_string())
    }
}

impl From<RequestError> for tonic::Status {
    fn from(e: RequestError) -> Self {
        e.kind().status(e.code(), e.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_proto::exit::Exit;

    /// A flow file that does not load is refused with its load error as the source, its words
    /// the message; a missing one says how to start one (issue 50, item 3).
    #[test]
    fn a_flow_that_does_not_load_keeps_its_cause() {
        use crate::flow::eval::FlowLoad;
        let unreadable = FlowLoad::Unreadable(io::Error::other("not a regular file"));
        let refused = RequestError::from(unreadable);
        assert_eq!(refused.refusal, Refusal::FlowUnusable);
        assert!(
            refused.message.contains("not a regular file"),
            "{}",
            refused.message
        );
        let source = std::error::Error::source(&refused).map(ToString::to_string);
        assert!(source.is_some_and(|s| s.contains("not a regular file")));
        let missing = RequestError::from(FlowLoad::Missing);
        assert_eq!(missing.refusal, Refusal::FlowMissing);
        assert!(std::error::Error::source(&missing).is_none());
    }

    /// Every constructor, through the wire, back to the kind and exit code a client sees; and
    /// the workflows' statuses with the same numbers as the client's table.
    #[test]
    fn every_refusal_reaches_the_client_with_its_documented_code() {
        let cases = [
            (RequestError::usage("m"), 64),
            (RequestError::input("m"), 65),
            (RequestError::not_found("m"), 65),
            (RequestError::exists("m"), 65),
            (RequestError::flow_missing("m"), 65),
            (RequestError::unavailable("m"), 69),
            (RequestError::internal("m"), 70),
            (
                RequestError::jev(
                    &stanley_core::JevTrouble::Auth { status: Some(401) },
                    "https://api.typesafe.ai",
                ),
                77,
            ),
            (
                RequestError::jev(
                    &stanley_core::JevTrouble::Unreachable {
                        detail: "x: Connection refused".into(),
                        certificate: None,
                    },
                    "http://127.0.0.1:9",
                ),
                69,
            ),
        ];
        for (error, code) in cases {
            assert_eq!(error.exit_code(), code, "{error:?}");
            let status = tonic::Status::from(error.clone());
            assert_eq!(status.code(), error.code());
            assert_eq!(ErrorKind::of_status(&status), error.kind());
        }
        // Every refusal: its kind survives the wire under its own gRPC code, and the exit code
        // is the kind's.
        for refusal in Refusal::ALL {
            let error = RequestError::new(refusal, "m");
            let status = tonic::Status::from(error.clone());
            assert_eq!(status.code(), refusal.code(), "{refusal:?}");
            assert_eq!(ErrorKind::of_status(&status), refusal.kind(), "{refusal:?}");
            assert_eq!(error.exit_code(), i32::from(refusal.kind().exit().code()));
        }
        // A variant missing from ALL: this match does not build until it has a place there.
        let position = |r: Refusal| match r {
            Refusal::Usage => 0,
            Refusal::Input => 1,
            Refusal::NotFound => 2,
            Refusal::Exists => 3,
            Refusal::FlowMissing => 4,
            Refusal::FlowUnusable => 5,
            Refusal::Unavailable => 6,
            Refusal::Internal => 7,
            Refusal::JevAuth => 8,
            Refusal::JevUnreachable => 9,
            Refusal::JevUnavailable => 10,
            Refusal::Interrupted => 11,
        };
        for (i, r) in Refusal::ALL.iter().enumerate() {
            assert_eq!(position(*r), i, "{r:?}");
        }
        let pairs: std::collections::HashSet<(ErrorKind, tonic::Code)> =
            Refusal::ALL.iter().map(|r| (r.kind(), r.code())).collect();
        assert_eq!(pairs.len(), Refusal::ALL.len(), "two refusals say the same");
        use stanley_core::Status;
        for (status, exit) in [
            (Status::Complete, Exit::Complete),
            (Status::Incomplete, Exit::Incomplete),
            (Status::BudgetExhausted, Exit::BudgetExhausted),
            (Status::Unsupported, Exit::Usage),
        ] {
            assert_eq!(status.exit_code(), i32::from(exit.code()), "{status:?}");
        }
    }
}

/// Why the daemon could not start or serve.
#[derive(Debug, Error)]
pub enum DaemonError {
    /// Another daemon holds the lock for this root.
    #[error("another stanleyd already serves {0}")]
    AlreadyRunning(PathBuf),
    /// The root is not a Git worktree.
    #[error(transparent)]
    NotARepository(#[from] stanley_workflows::ports::GitError),
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

/// Why `host` could not be reached, from the transport's error chain, and what to do about it.
/// A refused TLS certificate (the transport says so by type) is told apart from a network
/// problem: its fix is a setting.
pub(crate) fn unreachable(
    host: &str,
    detail: &str,
    certificate: Option<&str>,
) -> (String, &'static str) {
    if let Some(why) = certificate {
        return (
            format!(
                "{host} (TYPESAFE_BASE_URL) presented a TLS certificate that was not accepted ({why})"
            ),
            "if a private authority or a TLS-inspecting proxy signs it, set STANLEY_JEV_CA_FILE \
             to that authority's PEM file",
        );
    }
    // The transport's last words say why ("Connection refused", "dns error").
    let why = detail.rsplit(": ").next().unwrap_or(detail);
    (
        format!("cannot reach {host} (TYPESAFE_BASE_URL): {why}"),
        "check the address and your network",
    )
}

/// A repository that cannot be read is an input error (65), its Git error the source.
impl From<stanley_workflows::ports::GitError> for RequestError {
    fn from(e: stanley_workflows::ports::GitError) -> Self {
        Self::caused(Refusal::Input, e)
    }
}

/// The queue's store failing is the daemon's fault (an internal error), its cause the source.
impl From<stanley_workflows::improve::QueueError> for RequestError {
    fn from(e: stanley_workflows::improve::QueueError) -> Self {
        Self::caused(Refusal::Internal, e)
    }
}

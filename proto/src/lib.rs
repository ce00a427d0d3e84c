//! Stanley's wire: the `stanley.v1` gRPC types and services, the protocol version, where a
//! repository's daemon socket lives, and the Unix-socket connector clients use.

#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod connect;
pub mod env;
pub mod exit;
pub mod private;
pub mod quote;
pub mod socket;
pub mod window;
pub mod words;

/// The generated `stanley.v1` types, clients and servers.
pub mod v1 {
    #![allow(missing_docs, unreachable_pub, clippy::all)]
    tonic::include_proto!("stanley.v1");
}

impl v1::Check {
    /// One `stanleyctl doctor` line: `name` is `state` because of `detail`; `fix` says what to
    /// do (empty when nothing is needed). The deprecated word is written too.
    pub fn new(
        name: &str,
        state: v1::CheckState,
        detail: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            detail: detail.into(),
            fix: fix.into(),
            check_state: state as i32,
            ..Self::default()
        }
        .with_words()
    }
}

/// The encoded file descriptor set of `stanley.v1`, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/stanley_descriptor.bin"));

/// The wire protocol version. Bumped only for an incompatible change; clients replace a daemon
/// whose version differs.
pub const PROTOCOL_VERSION: u32 = 1;

/// A Claude Code hook event `stanleyctl hook` answers (the `event` of `FlowHookRequest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookEvent {
    SessionStart,
    Stop,
    PreToolUse,
    PostToolUse,
    SubagentStop,
    TaskCompleted,
}

impl HookEvent {
    /// Every event, in the order `stanleyctl hook --help` lists them.
    pub const ALL: [HookEvent; 6] = [
        HookEvent::SessionStart,
        HookEvent::Stop,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::SubagentStop,
        HookEvent::TaskCompleted,
    ];

    /// The event on the wire.
    pub const fn wire(self) -> v1::HookEvent {
        match self {
            HookEvent::SessionStart => v1::HookEvent::SessionStart,
            HookEvent::Stop => v1::HookEvent::Stop,
            HookEvent::PreToolUse => v1::HookEvent::PreToolUse,
            HookEvent::PostToolUse => v1::HookEvent::PostToolUse,
            HookEvent::SubagentStop => v1::HookEvent::SubagentStop,
            HookEvent::TaskCompleted => v1::HookEvent::TaskCompleted,
        }
    }

    /// The event a wire value names (none for the unspecified value).
    pub fn from_wire(event: v1::HookEvent) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.wire() == event)
    }

    /// The event's command-line name (the wire's word).
    pub const fn as_str(self) -> &'static str {
        self.wire().word()
    }

    /// The event a command-line name names, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// The hook events by their command-line names, for the command line's value parser.
pub const HOOK_EVENTS: [&str; 6] = {
    let mut names = [""; 6];
    let mut i = 0;
    while i < names.len() {
        names[i] = HookEvent::ALL[i].as_str();
        i += 1;
    }
    names
};

/// The release version shared by the daemon and its clients.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The metadata entry a client puts on a `Prompt` it sends without a handshake: its
/// [`client_version`]. A daemon of another version refuses the call before any work
/// ([`is_other_version`]); a daemon answers a call without it as before (a client that
/// handshook first, a third-party client).
pub const CLIENT_VERSION_METADATA: &str = "stanley-client-version";

/// The metadata entry of a call refused because the daemon is of another version; its value is
/// the daemon's [`client_version`] spelling.
pub const OTHER_VERSION_METADATA: &str = "stanley-other-version";

/// This build's version and protocol as [`CLIENT_VERSION_METADATA`] spells them:
/// `<version>/<protocol>`.
pub fn client_version() -> String {
    format!("{VERSION}/{PROTOCOL_VERSION}")
}

/// The refusal a daemon of version `daemon` (spelled as [`client_version`] spells it) answers a
/// call with whose [`CLIENT_VERSION_METADATA`] is `client`, another.
pub fn other_version(daemon: &str, client: &str) -> tonic::Status {
    let mut status = tonic::Status::failed_precondition(format!(
        "this daemon is {daemon}, the client {client}; the client replaces it"
    ));
    if let Ok(value) = daemon.parse() {
        status.metadata_mut().insert(OTHER_VERSION_METADATA, value);
    }
    status
}

/// Whether a call was refused by a daemon of another version (by code and metadata, never by
/// its text).
pub fn is_other_version(status: &tonic::Status) -> bool {
    status.code() == tonic::Code::FailedPrecondition
        && status.metadata().contains_key(OTHER_VERSION_METADATA)
}

/// The largest message either side accepts (the 5 MiB input limit plus room for the envelope).
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::{HOOK_EVENTS, HookEvent};

    #[test]
    fn each_hook_event_name_parses_back_to_its_event() {
        assert_eq!(HOOK_EVENTS.len(), HookEvent::ALL.len());
        for (event, name) in HookEvent::ALL.into_iter().zip(HOOK_EVENTS) {
            assert_eq!(event.as_str(), name);
            assert_eq!(HookEvent::parse(name), Some(event));
        }
        assert_eq!(HookEvent::parse("Stop"), None);
        for &wire in super::v1::HookEvent::KNOWN {
            assert_eq!(HookEvent::from_wire(wire).map(HookEvent::wire), Some(wire));
        }
        assert_eq!(
            HookEvent::from_wire(super::v1::HookEvent::Unspecified),
            None
        );
    }
}

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

/// The generated `stanley.v1` types, clients and servers.
pub mod v1 {
    #![allow(missing_docs, unreachable_pub, clippy::all)]
    tonic::include_proto!("stanley.v1");
}

impl v1::Check {
    /// One `stanleyctl doctor` line: `name` is `state` (`ok`, `warn` or `fail`) because of
    /// `detail`; `fix` says what to do (empty when nothing is needed).
    pub fn new(name: &str, state: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            state: state.into(),
            detail: detail.into(),
            fix: fix.into(),
        }
    }
}

/// The encoded file descriptor set of `stanley.v1`, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/stanley_descriptor.bin"));

/// The wire protocol version. Bumped only for an incompatible change; clients replace a daemon
/// whose version differs.
pub const PROTOCOL_VERSION: u32 = 1;

/// The Claude Code hook events `stanleyctl hook` answers, by their command-line names (the
/// `event` of `FlowHookRequest`).
pub const HOOK_EVENTS: [&str; 6] = [
    "session-start",
    "stop",
    "pre-tool-use",
    "post-tool-use",
    "subagent-stop",
    "task-completed",
];

/// The release version shared by the daemon and its clients.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The largest message either side accepts (the 5 MiB input limit plus room for the envelope).
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

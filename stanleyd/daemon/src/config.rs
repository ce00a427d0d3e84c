//! The daemon's configuration: what `main` (or a test) hands the server, fixed for the daemon's
//! life. A request's own settings are in `settings.rs`.

use std::path::PathBuf;
use std::time::Duration;

use stanley_core::BudgetLimits;

use crate::discovery::DaemonFiles;

/// How long the daemon stays up with nothing to do (`STANLEY_IDLE_TIMEOUT_MS` shortens it).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How long the page stays up with no request and no live stream open
/// (`STANLEY_UI_IDLE_MS` shortens it).
pub(crate) const UI_IDLE: Duration = Duration::from_secs(15 * 60);

/// What the daemon needs to serve.
#[derive(Clone, Debug)]
pub struct DaemonConfig {
    /// Its lifecycle files (root, socket, `daemon.json`).
    pub files: DaemonFiles,
    /// The release version it reports (tests set another to exercise replacement).
    pub version: String,
    /// The protocol version it reports.
    pub protocol_version: u32,
    /// Idle time before exiting.
    pub idle_timeout: Duration,
    /// The shared Jev budget of each request (fixed policy; tests and embedders may lower it).
    pub budget: BudgetLimits,
    /// Whether to exit when `daemon.json` names another daemon (off for in-process tests
    /// that do not write one).
    pub watch_info: bool,
    /// The per-user trust file (`None`: nothing is trusted unless a request sets
    /// `STANLEY_TRUST_WORKTREE`). `main` derives it from `XDG_STATE_HOME` or `HOME`.
    pub trust_file: Option<PathBuf>,
    /// How long a connection may stay silent before its first byte (tests lower it).
    pub silent_connection: Duration,
    /// The longest a single Jev call may take (fixed policy per call site; tests lower it).
    pub jev_timeout_cap: Option<Duration>,
    /// The workflow host folder for requests that do not set `STANLEY_WORKFLOW_HOST` (`main`
    /// takes it from the daemon's own environment).
    pub workflow_host: Option<PathBuf>,
    /// The judgment cache's bound in bytes of stored answers (`STANLEY_CACHE_MAX_MB`).
    pub cache_max_bytes: u64,
    /// How long the local web page stays up unwanted (`STANLEY_UI_IDLE_MS`).
    pub ui_idle: Duration,
    /// How long the warm evidence outlives the last request (`STANLEY_WARM_IDLE_MS`).
    pub warm_idle: Duration,
}

impl DaemonConfig {
    /// The production configuration for `files`.
    pub fn new(files: DaemonFiles) -> Self {
        Self {
            files,
            version: stanley_proto::VERSION.to_owned(),
            protocol_version: stanley_proto::PROTOCOL_VERSION,
            idle_timeout: IDLE_TIMEOUT,
            budget: BudgetLimits::TREE,
            watch_info: true,
            trust_file: None,
            workflow_host: None,
            jev_timeout_cap: None,
            silent_connection: crate::connections::SILENT_CONNECTION,
            cache_max_bytes: stanley_adapters::judgments::DEFAULT_MAX_BYTES,
            ui_idle: UI_IDLE,
            warm_idle: crate::warm::WARM_IDLE,
        }
    }

    /// The canonical root.
    pub fn root(&self) -> &PathBuf {
        &self.files.root
    }
}

//! The repository workflows' slot in the daemon's state: what the warm workflow host loaded,
//! the key it was loaded from, and why the workflows are off when they are (trust, a host that
//! could not serve, a folder too large). Loading is `repository.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use stanley_adapters::guard::Fingerprint;
use stanley_adapters::trust::WORKFLOWS_DIR;
use stanley_adapters::workflow_host::{
    Diagnostic, HostError, LoadedWorkflow, LogRecord, WorkflowHost,
};
use stanley_adapters::workflow_tree::{StageError, Staged};
use stanley_proto::private::Unsafe;
use stanley_workflows::trust::{Verdict, workflows_off_reason};

/// Why a workflow host could not serve a folder.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HostUnavailable {
    /// No `node` on the request's `PATH`.
    #[error("Node.js (`node`) was not found on PATH; install Node.js 20 or newer")]
    NoNode,
    /// The host could not be found, started or asked.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The daemon's private folder could not be made.
    #[error("no private folder for the workflow host: {0}")]
    Private(#[from] Unsafe),
    /// The copy the host loads could not be written.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// The host failed while loading.
    #[error("the workflow host failed while loading: {0}")]
    Load(HostError),
}

/// Why nothing can be trusted now.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TrustUnavailable {
    /// The daemon has no place for a trust file.
    #[error(
        "the daemon knows no HOME or XDG_STATE_HOME to keep its trust file in, so nothing is \
         trusted; set HOME, or STANLEY_TRUST_WORKTREE=1 where the checkout is your own"
    )]
    NoTrustFile,
    /// The trust file cannot be read or written.
    #[error(transparent)]
    File(#[from] stanley_adapters::trust::TrustError),
}

/// Why the repository's workflows are off: the line each request warns with, and (trust's
/// answer) part of the key a load is kept under.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum WorkflowsOff {
    /// Trust does not allow them: never trusted here, or changed since.
    #[error("{}", workflows_off_reason(.0).unwrap_or_default())]
    NotTrusted(Verdict),
    /// Trust cannot be checked.
    #[error(transparent)]
    TrustUnavailable(Arc<TrustUnavailable>),
    /// The folder could not be staged, or no host could load it.
    #[error(transparent)]
    Host(Arc<HostUnavailable>),
    /// The folder holds more than a load takes: the walk's last refusal.
    #[error("{WORKFLOWS_DIR}/ {0}")]
    Incomplete(String),
}

/// Two reasons are the same key when trust said the same, or when they read the same (a
/// failure that says something new is tried again).
impl PartialEq for WorkflowsOff {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::NotTrusted(a), Self::NotTrusted(b)) => a == b,
            (Self::NotTrusted(_), _) | (_, Self::NotTrusted(_)) => false,
            _ => self.to_string() == other.to_string(),
        }
    }
}

impl Eq for WorkflowsOff {}

/// A loaded repository workflow.
pub(crate) type RepoWorkflow = LoadedWorkflow;

/// The repository workflows as of the last load.
#[derive(Debug, Default)]
pub(crate) struct RepoSnapshot {
    pub(crate) host: Option<Arc<WorkflowHost>>,
    pub(crate) workflows: Vec<RepoWorkflow>,
    /// Quarantines.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Log records emitted while loading.
    pub(crate) init_logs: Vec<LogRecord>,
    /// Why repository workflows are off, when they are.
    pub(crate) off: Option<WorkflowsOff>,
    /// The environment the host was started with (no Jev keys), reused when the watcher
    /// reloads ahead of the next request.
    pub(crate) host_env: Option<HashMap<String, String>>,
    /// The staged copy the host loaded from, kept while the host lives (a workflow may import
    /// lazily) and removed with it.
    #[expect(
        dead_code,
        reason = "held for its Drop: the copy goes when the snapshot does"
    )]
    pub(crate) staged: Option<Staged>,
}

/// What a snapshot was loaded from: the content of `.stanley/workflows/` (`node_modules`
/// included) and whether trust allowed it (`Err` holds why not).
pub(crate) type LoadKey = (Fingerprint, Result<(), WorkflowsOff>);

/// The loaded state and the key it was loaded from.
pub(crate) type RepoSlot = tokio::sync::Mutex<Option<(LoadKey, Arc<RepoSnapshot>)>>;

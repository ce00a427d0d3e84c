//! The repository workflows' slot in the daemon's state: what the warm workflow host loaded,
//! and the key it was loaded from. Loading is `repository.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use stanley_adapters::guard::Fingerprint;
use stanley_adapters::workflow_host::{Diagnostic, LoadedWorkflow, LogRecord, WorkflowHost};
use stanley_adapters::workflow_tree::Staged;

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
    pub(crate) off: Option<String>,
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
pub(crate) type LoadKey = (Fingerprint, Result<(), String>);

/// The loaded state and the key it was loaded from.
pub(crate) type RepoSlot = tokio::sync::Mutex<Option<(LoadKey, Arc<RepoSnapshot>)>>;

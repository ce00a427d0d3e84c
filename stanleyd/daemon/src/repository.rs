//! Repository workflows on the daemon side: the warm workflow host, reloaded before a request
//! whenever `.stanley/workflows/` changed (its fingerprint is the source of truth), and the one
//! registry shared with the built-ins (reserved and duplicate ids fail registration).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use stanley_adapters::guard::Fingerprint;
use stanley_adapters::trust::OnDisk;
use stanley_adapters::workflow_host::{WorkflowHost, locate};
use stanley_workflows::registry::Builtin;
use stanley_workflows::routing::CANNOT_TELL;
use stanley_workflows::trust::workflows_off_reason;

use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// A loaded repository workflow.
#[derive(Clone, Debug)]
pub(crate) struct RepoWorkflow {
    pub(crate) id: String,
    pub(crate) source: String,
    pub(crate) metadata: Value,
    pub(crate) gated: bool,
}

/// The repository workflows as of the last load.
#[derive(Debug, Default)]
pub(crate) struct RepoSnapshot {
    pub(crate) host: Option<Arc<WorkflowHost>>,
    pub(crate) workflows: Vec<RepoWorkflow>,
    /// Quarantines: `(source, phase, message)`.
    pub(crate) diagnostics: Vec<(String, String, String)>,
    /// Log records emitted while loading.
    pub(crate) init_logs: Vec<Value>,
    /// Why repository workflows are off, when they are.
    pub(crate) off: Option<String>,
    /// The environment the host was started with (no Jev keys), reused when the watcher
    /// reloads ahead of the next request.
    pub(crate) host_env: Option<HashMap<String, String>>,
}

/// What a snapshot was loaded from: the content of `.stanley/workflows/` (`node_modules`
/// included) and whether trust allowed it (`Err` holds why not).
pub(crate) type LoadKey = (Fingerprint, Result<(), String>);

/// The loaded state and the key it was loaded from.
pub(crate) type RepoSlot = tokio::sync::Mutex<Option<(LoadKey, Arc<RepoSnapshot>)>>;

/// Starts a workflow host for this repository with the request's environment for repository
/// code (the serving host and the candidate-validation host alike).
pub(crate) async fn start_host(
    state: &DaemonState,
    settings: &RequestSettings,
) -> Result<WorkflowHost, String> {
    let node = settings.node().ok_or_else(|| {
        "Node.js (`node`) was not found on PATH; install Node.js 20 or newer".to_owned()
    })?;
    let dir = settings
        .workflow_host
        .clone()
        .or_else(|| state.config.workflow_host.clone());
    let files = locate(
        dir.as_deref().and_then(|d| d.to_str()),
        &std::env::current_exe().unwrap_or_default(),
    )?;
    WorkflowHost::start(
        &node,
        &files,
        &state.config.files.root,
        &settings.repository_env(),
    )
    .await
}

async fn load(state: &DaemonState, settings: &RequestSettings) -> RepoSnapshot {
    let off = |reason: String| RepoSnapshot {
        off: Some(reason),
        ..RepoSnapshot::default()
    };
    let root = &state.config.files.root;
    let host = match start_host(state, settings).await {
        Ok(h) => Arc::new(h),
        Err(e) => return off(e),
    };
    let loaded = match host
        .request(
            "load",
            json!({"root": root.display().to_string(), "dir": ".stanley/workflows"}),
        )
        .await
    {
        Ok(v) => v,
        Err(e) => {
            host.kill();
            return off(format!("the workflow host failed while loading: {e}"));
        }
    };
    let workflows = loaded["workflows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| RepoWorkflow {
            id: w["id"].as_str().unwrap_or("").to_owned(),
            source: w["source"].as_str().unwrap_or("").to_owned(),
            metadata: w["metadata"].clone(),
            gated: w["gated"].as_bool().unwrap_or(false),
        })
        .collect();
    let diagnostics = loaded["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            (
                d["source"].as_str().unwrap_or("").to_owned(),
                d["phase"].as_str().unwrap_or("").to_owned(),
                d["message"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let init_logs = host.take_init_logs();
    tracing::info!(workflows = %loaded["workflows"].as_array().map_or(0, Vec::len), "repository workflows loaded");
    RepoSnapshot {
        host: Some(host),
        workflows,
        diagnostics,
        init_logs,
        off: None,
        host_env: Some(settings.repository_env()),
    }
}

/// The current repository workflows, reloading them first when `.stanley/workflows/` changed,
/// its trust changed, or the host died. Untrusted content is never handed to the host.
pub(crate) async fn refresh(state: &DaemonState, settings: &RequestSettings) -> Arc<RepoSnapshot> {
    let disk = OnDisk::read(&state.config.files.root);
    let allowed = if disk.workflows.is_empty() {
        Ok(())
    } else {
        match crate::trust::check(state, settings, &disk) {
            Ok(a) => workflows_off_reason(&a.workflows).map_or(Ok(()), Err),
            Err(why) => Err(why),
        }
    };
    let key: LoadKey = (disk.workflows, allowed);
    let mut slot = state.repo.lock().await;
    if let Some((old, snapshot)) = slot.as_ref() {
        let healthy = snapshot.host.as_ref().is_none_or(|h| h.is_alive());
        if *old == key && healthy {
            return snapshot.clone();
        }
        if let Some(host) = &snapshot.host {
            // Cleanup in reverse load order before the old host goes away.
            if let Ok(result) = host.request("unload", json!({})).await {
                for e in result["errors"].as_array().into_iter().flatten() {
                    tracing::warn!(source = %e["source"], message = %e["message"], "workflow cleanup failed");
                }
            }
            host.kill();
        }
    }
    let snapshot = Arc::new(match &key {
        (files, _) if files.is_empty() => RepoSnapshot::default(),
        (_, Err(reason)) => {
            tracing::warn!(%reason, "repository workflows not loaded: not trusted");
            RepoSnapshot {
                off: Some(reason.clone()),
                // Kept so the watcher can re-check after the next edit.
                host_env: Some(settings.repository_env()),
                ..RepoSnapshot::default()
            }
        }
        (_, Ok(())) => load(state, settings).await,
    });
    *slot = Some((key, snapshot.clone()));
    snapshot
}

/// Checks one id space for built-ins and repository workflows.
pub(crate) fn register(builtins: &[&Builtin], repo: &[RepoWorkflow]) -> Result<(), String> {
    let mut seen: Vec<(String, String)> = builtins
        .iter()
        .map(|b| (b.id.to_owned(), "builtin".to_owned()))
        .collect();
    for w in repo {
        if w.id == CANNOT_TELL {
            return Err(format!(
                "reserved workflow id: {} (from {})",
                w.id, w.source
            ));
        }
        if let Some((_, origin)) = seen.iter().find(|(id, _)| *id == w.id) {
            return Err(format!(
                "duplicate workflow id: {} (registered by {origin} and {})",
                w.id, w.source
            ));
        }
        seen.push((w.id.clone(), w.source.clone()));
    }
    Ok(())
}

//! Repository workflows on the daemon side: the warm workflow host, reloaded before a request
//! whenever `.stanley/workflows/` changed (its fingerprint is the source of truth), and the one
//! registry shared with the built-ins (reserved and duplicate ids fail registration). A host
//! loads a staged copy of the folder in the daemon's private folder, written from the bytes
//! whose hashes trust allowed (docs/security.md).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use stanley_adapters::trust::{OnDisk, WORKFLOWS_DIR};
use stanley_adapters::workflow_host::{
    Confinement, Diagnostic, GateFacts, LoadParams, WorkflowHost, locate,
};
use stanley_adapters::workflow_tree::{Staged, stage};
use stanley_workflows::registry::Builtin;
use stanley_workflows::routing::{CANNOT_TELL, Facts};
use stanley_workflows::trust::workflows_off_reason;

use crate::settings::RequestSettings;
use crate::state::DaemonState;

pub(crate) use crate::state::repo::{
    HostUnavailable, LoadKey, RepoSnapshot, RepoWorkflow, WorkflowsOff,
};

/// Why a workflow id cannot be registered beside the others: the request is refused (65).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RegisterError {
    /// A repository workflow takes the id the router keeps for "cannot tell".
    #[error("reserved workflow id: {id} (from {file})")]
    Reserved { id: String, file: String },
    /// Two workflows (or a workflow and a built-in) share an id.
    #[error("duplicate workflow id: {id} (registered by {first} and {file})")]
    Duplicate {
        id: String,
        first: String,
        file: String,
    },
}

impl From<RegisterError> for crate::error::RequestError {
    fn from(e: RegisterError) -> Self {
        Self::input(e.to_string())
    }
}

/// A host started for a folder of this repository and loaded from its staged copy.
pub(crate) struct HostLoad {
    /// The host, serving.
    pub(crate) host: WorkflowHost,
    /// What it loaded and quarantined.
    pub(crate) loaded: stanley_adapters::workflow_host::Loaded,
    /// The copy it loaded (exactly the bytes `staged.tree` hashed).
    pub(crate) staged: Staged,
}

/// Stages the folder `rel_dir` into this daemon's private folder: one read of every file,
/// hashed and copied, so what a host loads is what was hashed.
pub(crate) fn stage_folder(state: &DaemonState, rel_dir: &str) -> Result<Staged, HostUnavailable> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    state.private_tmp()?;
    let dest: PathBuf = state
        .config()
        .files
        .private_dir()
        .join(format!("load-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    Ok(stage(&state.config().files.root, rel_dir, &dest)?)
}

/// Starts a workflow host for this repository with the request's environment for repository
/// code (the serving host and the candidate-validation host alike) and loads `staged`, which
/// stands for the repository folder `label`.
pub(crate) async fn start_host(
    state: &DaemonState,
    settings: &RequestSettings,
    staged: Staged,
    label: &str,
) -> Result<HostLoad, HostUnavailable> {
    let node = settings.node().ok_or(HostUnavailable::NoNode)?;
    let dir = settings
        .workflow_host
        .clone()
        .or_else(|| state.config().workflow_host.clone());
    let files = locate(
        dir.as_deref().and_then(|d| d.to_str()),
        &std::env::current_exe().unwrap_or_default(),
    )?;
    let root = &state.config().files.root;
    let tmp = state.private_tmp()?;
    let folder = staged.dir.join("workflows");
    let confinement = Confinement {
        folder: std::fs::canonicalize(&folder).unwrap_or(folder),
        label: label.to_owned(),
    };
    let host = WorkflowHost::start(
        &node,
        &files,
        root,
        &settings.repository_env(),
        &tmp,
        &confinement,
    )
    .await?;
    let params = LoadParams {
        root: root.display().to_string(),
        snapshot: staged.dir.display().to_string(),
        label: label.to_owned(),
    };
    match host.load(&params).await {
        Ok(loaded) => Ok(HostLoad {
            host,
            loaded,
            staged,
        }),
        Err(e) => {
            host.kill();
            Err(HostUnavailable::Load(e))
        }
    }
}

/// The facts a workflow's `available` gate is shown.
pub(crate) fn gate_facts(facts: Facts) -> GateFacts {
    GateFacts {
        diff: if facts.diff { "present" } else { "absent" },
        input: facts.input.as_str(),
    }
}

/// Whether trust allows the workflows `disk` holds (`Err` says why not).
fn allowed(
    state: &DaemonState,
    settings: &RequestSettings,
    disk: &OnDisk,
) -> Result<(), WorkflowsOff> {
    if disk.workflows.is_empty() {
        return Ok(());
    }
    match crate::trust::check(state, settings, disk) {
        Ok(a) if workflows_off_reason(&a.workflows).is_some() => {
            Err(WorkflowsOff::NotTrusted(a.workflows))
        }
        Ok(_) => Ok(()),
        Err(why) => Err(WorkflowsOff::TrustUnavailable(Arc::new(why))),
    }
}

fn off(reason: WorkflowsOff, settings: &RequestSettings) -> RepoSnapshot {
    RepoSnapshot {
        off: Some(reason),
        // Kept so the watcher can re-check after the next edit.
        host_env: Some(settings.repository_env()),
        ..RepoSnapshot::default()
    }
}

/// Loads the folder as it is now: stages it, checks trust again on exactly the staged bytes
/// (a checkout may have changed the folder since `seen` was read), and starts a host on them.
async fn load(
    state: &DaemonState,
    settings: &RequestSettings,
    seen: &OnDisk,
) -> (LoadKey, RepoSnapshot) {
    let staged = match stage_folder(state, WORKFLOWS_DIR) {
        Ok(s) => s,
        Err(e) => {
            let reason = WorkflowsOff::Host(Arc::new(e));
            return (
                (seen.workflows.clone(), Err(reason.clone())),
                off(reason, settings),
            );
        }
    };
    let now = OnDisk {
        workflows: staged.tree.files.clone(),
        flow: seen.flow.clone(),
        agent: Default::default(),
        head: seen.head.clone(),
    };
    let allowed = if now.workflows == seen.workflows {
        Ok(())
    } else {
        allowed(state, settings, &now)
    };
    let key: LoadKey = (now.workflows, allowed.clone());
    if let Err(reason) = allowed {
        tracing::warn!(%reason, "repository workflows not loaded: not trusted");
        return (key, off(reason, settings));
    }
    if !staged.tree.complete {
        let why = staged
            .tree
            .refused
            .last()
            .map(|r| r.why.clone())
            .unwrap_or_default();
        return (key, off(WorkflowsOff::Incomplete(why), settings));
    }
    let refused: Vec<Diagnostic> = staged
        .tree
        .refused
        .iter()
        .map(|r| Diagnostic {
            source: format!("{WORKFLOWS_DIR}/{}", r.path),
            phase: stanley_adapters::workflow_host::LoadPhase::Discover,
            message: r.why.clone(),
        })
        .collect();
    let HostLoad {
        host,
        loaded,
        staged,
    } = match start_host(state, settings, staged, WORKFLOWS_DIR).await {
        Ok(h) => h,
        Err(e) => return (key, off(WorkflowsOff::Host(Arc::new(e)), settings)),
    };
    let init_logs = host.take_init_logs();
    tracing::info!(
        workflows = loaded.workflows.len(),
        "repository workflows loaded"
    );
    let mut diagnostics = refused;
    diagnostics.extend(loaded.diagnostics);
    let snapshot = RepoSnapshot {
        host: Some(Arc::new(host)),
        workflows: loaded.workflows,
        diagnostics,
        init_logs,
        off: None,
        host_env: Some(settings.repository_env()),
        staged: Some(staged),
    };
    (key, snapshot)
}

/// The current repository workflows, reloading them first when `.stanley/workflows/` changed,
/// its trust changed, or the host died. Untrusted content is never handed to the host.
pub(crate) async fn refresh(state: &DaemonState, settings: &RequestSettings) -> Arc<RepoSnapshot> {
    // The walk reads every file of the folder (bounded by the tree's limits): off the runtime.
    let root = state.config().files.root.clone();
    let disk = match tokio::task::spawn_blocking(move || OnDisk::read(&root)).await {
        Ok(disk) => disk,
        Err(_) => OnDisk::read(&state.config().files.root),
    };
    let key: LoadKey = (disk.workflows.clone(), allowed(state, settings, &disk));
    let mut slot = state.repo().lock().await;
    if let Some((old, snapshot)) = slot.as_ref() {
        let healthy = snapshot.host.as_ref().is_none_or(|h| h.is_alive());
        if *old == key && healthy {
            return snapshot.clone();
        }
        if let Some(host) = &snapshot.host {
            // Cleanup in reverse load order before the old host goes away.
            if let Ok(errors) = host.unload().await {
                for e in errors {
                    tracing::warn!(source = %e.source, message = %e.message, "workflow cleanup failed");
                }
            }
            host.kill();
        }
    }
    let (key, snapshot) = match key {
        (files, _) if files.is_empty() => ((files, Ok(())), RepoSnapshot::default()),
        (files, Err(reason)) => {
            tracing::warn!(%reason, "repository workflows not loaded: not trusted");
            let snapshot = off(reason.clone(), settings);
            ((files, Err(reason)), snapshot)
        }
        (_, Ok(())) => load(state, settings, &disk).await,
    };
    let snapshot = Arc::new(snapshot);
    *slot = Some((key, snapshot.clone()));
    snapshot
}

/// Checks one id space for built-ins and repository workflows.
pub(crate) fn register(builtins: &[&Builtin], repo: &[RepoWorkflow]) -> Result<(), RegisterError> {
    let mut seen: Vec<(String, String)> = builtins
        .iter()
        .map(|b| (b.id.to_owned(), "builtin".to_owned()))
        .collect();
    for w in repo {
        if w.id == CANNOT_TELL {
            return Err(RegisterError::Reserved {
                id: w.id.clone(),
                file: w.source.clone(),
            });
        }
        if let Some((_, origin)) = seen.iter().find(|(id, _)| *id == w.id) {
            return Err(RegisterError::Duplicate {
                id: w.id.clone(),
                first: origin.clone(),
                file: w.source.clone(),
            });
        }
        seen.push((w.id.clone(), w.source.clone()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_workflows::trust::Verdict;

    fn workflow(id: &str, source: &str) -> RepoWorkflow {
        RepoWorkflow {
            id: id.into(),
            source: source.into(),
            metadata: serde_json::Value::Null,
            gated: false,
        }
    }

    /// A reserved id and a duplicate are told apart, each naming the files involved.
    #[test]
    fn a_reserved_or_duplicate_id_is_refused_with_its_variant() {
        let builtins: Vec<&Builtin> = stanley_workflows::registry::BUILTINS.iter().collect();
        let taken = builtins[0].id;
        let reserved = register(
            &builtins,
            &[workflow(CANNOT_TELL, ".stanley/workflows/x.ts")],
        )
        .unwrap_err();
        assert_eq!(
            reserved,
            RegisterError::Reserved {
                id: CANNOT_TELL.into(),
                file: ".stanley/workflows/x.ts".into()
            }
        );
        assert_eq!(
            reserved.to_string(),
            format!("reserved workflow id: {CANNOT_TELL} (from .stanley/workflows/x.ts)")
        );
        let twice = [
            workflow("mine", ".stanley/workflows/a.ts"),
            workflow("mine", ".stanley/workflows/b.ts"),
        ];
        let duplicate = register(&builtins, &twice).unwrap_err();
        assert_eq!(
            duplicate.to_string(),
            "duplicate workflow id: mine (registered by .stanley/workflows/a.ts and \
             .stanley/workflows/b.ts)"
        );
        let shadow = register(&builtins, &[workflow(taken, ".stanley/workflows/c.ts")]);
        assert!(
            matches!(&shadow, Err(RegisterError::Duplicate { first, .. }) if first == "builtin"),
            "{shadow:?}"
        );
        assert_eq!(crate::error::RequestError::from(duplicate).exit_code(), 65);
        assert!(register(&builtins, &[workflow("fresh", ".stanley/workflows/d.ts")]).is_ok());
    }

    /// The same trust verdict is the same key (no reload); another verdict, or a failure that
    /// says something new, is not.
    #[test]
    fn an_off_reason_keys_a_load_by_what_trust_said() {
        let never = WorkflowsOff::NotTrusted(Verdict::NeverTrusted);
        assert_eq!(never, WorkflowsOff::NotTrusted(Verdict::NeverTrusted));
        assert!(
            never
                .to_string()
                .contains("is not trusted in this worktree")
        );
        let changed = WorkflowsOff::NotTrusted(Verdict::Changed(vec!["a.ts".into()]));
        assert_ne!(never, changed);
        assert!(
            changed
                .to_string()
                .contains("changed since you trusted it (a.ts)")
        );
        let incomplete = WorkflowsOff::Incomplete("is too large".into());
        assert_eq!(incomplete.to_string(), ".stanley/workflows/ is too large");
        assert_eq!(incomplete, WorkflowsOff::Incomplete("is too large".into()));
        assert_ne!(incomplete, WorkflowsOff::Incomplete("holds a link".into()));
        let no_node = WorkflowsOff::Host(Arc::new(HostUnavailable::NoNode));
        assert_eq!(
            no_node,
            WorkflowsOff::Host(Arc::new(HostUnavailable::NoNode))
        );
        assert_ne!(no_node, never);
    }
}

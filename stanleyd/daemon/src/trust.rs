//! Trust for repository code on the daemon side: the check made before repository workflows
//! load and before a flow's commands run (`trust-policy@1`, the pure rules in
//! `stanley_workflows::trust`), the CI switch `STANLEY_TRUST_WORKTREE`, the trust acts of
//! promotion and `flow init`, and the `stanley.v1.Trust` service behind `stanleyctl trust`.

use stanley_adapters::trust::{OnDisk, TrustStore};
use stanley_workflows::trust::{Assessment, Verdict, assess, trust_file, trust_flow};

use crate::error::RequestError;
use crate::settings::RequestSettings;
use crate::state::DaemonState;
pub(crate) use crate::state::repo::TrustUnavailable;

/// Nothing can be trusted: the person's setup (no home) or the trust file is at fault (65).
impl From<TrustUnavailable> for RequestError {
    fn from(e: TrustUnavailable) -> Self {
        Self::input(e.to_string())
    }
}

pub(crate) fn store(config: &crate::config::DaemonConfig) -> Result<TrustStore, TrustUnavailable> {
    config
        .trust_file
        .clone()
        .map(TrustStore::at)
        .ok_or(TrustUnavailable::NoTrustFile)
}

pub(crate) fn allowed_as_is(disk: &OnDisk) -> Assessment {
    let part = |absent: bool| {
        if absent {
            Verdict::Absent
        } else {
            Verdict::Trusted
        }
    };
    Assessment {
        workflows: part(disk.workflows.is_empty()),
        flow: part(disk.flow.is_none()),
        record_changed: false,
    }
}

/// Judges what is on disk now. `Err` carries why nothing can be trusted (no trust file, or an
/// unreadable one). The edit loop's record of what it saw is written back here.
pub(crate) fn check(
    state: &DaemonState,
    settings: &RequestSettings,
    disk: &OnDisk,
) -> Result<Assessment, TrustUnavailable> {
    if settings.trust_worktree || (disk.workflows.is_empty() && disk.flow.is_none()) {
        return Ok(allowed_as_is(disk));
    }
    let store = store(state.config())?;
    let root = &state.config().files.root;
    let mut record = store.record(root)?;
    // Only the edit loop looks at HEAD; reading it costs a repository open.
    let with_head;
    let disk = if record.as_ref().is_some_and(|r| r.edits_head.is_some()) {
        with_head = disk.clone().with_head(root);
        &with_head
    } else {
        disk
    };
    let assessment = assess(&mut record, disk.current());
    if assessment.record_changed {
        store.update(root, |r| {
            assess(r, disk.current());
        })?;
    }
    Ok(assessment)
}

/// Why the flow's commands may not run, if they may not; `flow_hash` is the SHA-256 of the bytes
/// the flow was loaded from (the decision is about what was loaded, not a second read).
pub(crate) fn flow_refusal(
    state: &DaemonState,
    settings: &RequestSettings,
    flow_hash: &str,
) -> Option<String> {
    let disk = OnDisk::with_flow(&state.config().files.root, Some(flow_hash.to_owned()));
    match check(state, settings, &disk) {
        Ok(a) => stanley_workflows::trust::flow_off_reason(&a.flow),
        Err(e) => Some(e.to_string()),
    }
}

/// Trusts one promoted workflow file as `hash`, the content that was validated (the person's
/// act of promotion is the review); if the file on disk differs, the next request says it
/// changed.
pub(crate) fn trust_promoted(
    state: &DaemonState,
    relative: &str,
    hash: &str,
) -> Result<(), TrustUnavailable> {
    let root = &state.config().files.root;
    let store = store(state.config())?;
    store.update(root, |r| *r = Some(trust_file(r.take(), relative, hash)))?;
    Ok(())
}

/// Trusts the `flow.json` that `stanleyctl flow init` just wrote.
pub(crate) fn trust_initial_flow(state: &DaemonState) -> Result<(), TrustUnavailable> {
    let root = &state.config().files.root;
    let Some(hash) = stanley_adapters::trust::flow_hash(root) else {
        return Ok(());
    };
    let store = store(state.config())?;
    store.update(root, |r| *r = Some(trust_flow(r.take(), &hash)))?;
    Ok(())
}

/// The check made before every launch of the coding agent: what the repository's own agent
/// configuration (`stanley_adapters::trust::agent_files`) is worth in this worktree. Trusted
/// by content in the per-user record (never by the edit loop), or by `STANLEY_TRUST_WORKTREE`;
/// anything else, an unreadable trust file included, is untrusted.
pub(crate) fn agent_check(
    state: &DaemonState,
    settings: &RequestSettings,
) -> stanley_adapters::pi::ProjectCheck {
    use stanley_adapters::pi::ProjectConfig;
    let root = state.config().files.root.clone();
    let store = store(state.config()).ok();
    let as_is = settings.trust_worktree;
    std::sync::Arc::new(move || {
        let files = stanley_adapters::trust::agent_files(&root);
        if files.is_empty() {
            return ProjectConfig::Absent;
        }
        if as_is {
            return ProjectConfig::Trusted;
        }
        let record = store.as_ref().and_then(|s| s.record(&root).ok().flatten());
        match stanley_workflows::trust::assess_agent(record.as_ref(), &files) {
            Verdict::Absent | Verdict::Trusted => ProjectConfig::Trusted,
            Verdict::NeverTrusted | Verdict::Changed(_) => {
                ProjectConfig::Untrusted(files.into_keys().collect())
            }
        }
    })
}

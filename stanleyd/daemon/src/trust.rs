//! Trust for repository code on the daemon side: the check made before repository workflows
//! load and before a flow's commands run (`trust-policy@1`, the pure rules in
//! `stanley_workflows::trust`), the CI switch `STANLEY_TRUST_WORKTREE`, the trust acts of
//! promotion and `flow init`, and the `stanley.v1.Trust` service behind `stanleyctl trust`.

use std::collections::HashMap;
use std::sync::Arc;

use stanley_adapters::SystemClock;
use stanley_adapters::trust::{OnDisk, TrustStore};
use stanley_proto::v1::trust_server::Trust;
use stanley_proto::v1::{
    GetTrustRequest, GrantTrustRequest, RevokeTrustRequest, TrustPart, TrustStatus,
};
use stanley_workflows::ports::Clock;
use stanley_workflows::trust::{Assessment, Verdict, assess, grant, trust_file, trust_flow};
use tonic::{Request, Response, Status};

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

fn store(state: &DaemonState) -> Result<TrustStore, TrustUnavailable> {
    state
        .config
        .trust_file
        .clone()
        .map(TrustStore::at)
        .ok_or(TrustUnavailable::NoTrustFile)
}

fn allowed_as_is(disk: &OnDisk) -> Assessment {
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
    let store = store(state)?;
    let root = &state.config.files.root;
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
    let disk = OnDisk::with_flow(&state.config.files.root, Some(flow_hash.to_owned()));
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
    let root = &state.config.files.root;
    let store = store(state)?;
    store.update(root, |r| *r = Some(trust_file(r.take(), relative, hash)))?;
    Ok(())
}

/// Trusts the `flow.json` that `stanleyctl flow init` just wrote.
pub(crate) fn trust_initial_flow(state: &DaemonState) -> Result<(), TrustUnavailable> {
    let root = &state.config.files.root;
    let Some(hash) = stanley_adapters::trust::flow_hash(root) else {
        return Ok(());
    };
    let store = store(state)?;
    store.update(root, |r| *r = Some(trust_flow(r.take(), &hash)))?;
    Ok(())
}

/// The service implementation.
pub(crate) struct TrustService {
    state: Arc<DaemonState>,
}

impl TrustService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }

    fn status(&self, env: &HashMap<String, String>) -> Result<TrustStatus, Status> {
        let root = &self.state.config.files.root;
        let disk = OnDisk::read(root).with_head(root);
        let store = store(&self.state).ok();
        let record = match &store {
            Some(s) => s
                .record(root)
                .map_err(|e| RequestError::input(e.to_string()))?,
            None => None,
        };
        let overridden = RequestSettings::parse(env).trust_worktree;
        let assessment = if overridden {
            allowed_as_is(&disk)
        } else {
            // A status is a look, not a check: the edit loop's record is not advanced here.
            assess(&mut record.clone(), disk.current())
        };
        let part = |v: &Verdict, files: usize| TrustPart {
            state: v.word().to_owned(),
            changed: match v {
                Verdict::Changed(paths) => paths.clone(),
                _ => Vec::new(),
            },
            files: u32::try_from(files).unwrap_or(u32::MAX),
        };
        Ok(TrustStatus {
            workflows: Some(part(&assessment.workflows, disk.workflows.len())),
            flow: Some(part(&assessment.flow, usize::from(disk.flow.is_some()))),
            edits: record.as_ref().is_some_and(|r| r.edits_head.is_some()),
            edits_head: record
                .as_ref()
                .and_then(|r| r.edits_head.clone())
                .unwrap_or_default(),
            trust_file: store
                .map(|s| s.path().display().to_string())
                .unwrap_or_default(),
            worktree_override: overridden,
            trusted_at: record.map(|r| r.trusted_at).unwrap_or_default(),
        })
    }
}

#[tonic::async_trait]
impl Trust for TrustService {
    async fn get_trust(
        &self,
        request: Request<GetTrustRequest>,
    ) -> Result<Response<TrustStatus>, Status> {
        let env = request.into_inner().env;
        Ok(Response::new(self.status(&env)?))
    }

    async fn grant_trust(
        &self,
        request: Request<GrantTrustRequest>,
    ) -> Result<Response<TrustStatus>, Status> {
        let edits = request.into_inner().edits;
        let root = self.state.config.files.root.clone();
        let store = store(&self.state).map_err(RequestError::from)?;
        let disk = OnDisk::read(&root).with_head(&root);
        let at = SystemClock.now();
        store
            .update(&root, |r| *r = Some(grant(disk.current(), edits, &at)))
            .map_err(|e| RequestError::input(e.to_string()))?;
        tracing::info!(
            workflows = disk.workflows.len(),
            flow = disk.flow.is_some(),
            edits,
            "trust granted"
        );
        // The next request (or the watcher) reloads: the trust record is part of the key.
        Ok(Response::new(self.status(&HashMap::new())?))
    }

    async fn revoke_trust(
        &self,
        _request: Request<RevokeTrustRequest>,
    ) -> Result<Response<TrustStatus>, Status> {
        let root = self.state.config.files.root.clone();
        let store = store(&self.state).map_err(RequestError::from)?;
        store
            .update(&root, |r| *r = None)
            .map_err(|e| RequestError::input(e.to_string()))?;
        tracing::info!("trust revoked");
        Ok(Response::new(self.status(&HashMap::new())?))
    }
}

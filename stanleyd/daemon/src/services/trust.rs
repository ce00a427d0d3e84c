//! The `Trust` gRPC service: what is trusted, and trusting or revoking the repository's code.

use std::collections::HashMap;

use stanley_adapters::trust::OnDisk;
use stanley_proto::v1::trust_server::Trust;
use stanley_proto::v1::{
    GetTrustRequest, GrantTrustRequest, RevokeTrustRequest, TrustPart, TrustState, TrustStatus,
};
use stanley_workflows::trust::{Verdict, assess, assess_agent, grant};
use tonic::{Request, Response, Status};

use crate::error::RequestError;
use crate::state::SettingsSource;
use crate::trust::{allowed_as_is, store};

/// Reads and writes the trust file: it needs the configuration and a request's settings,
/// nothing else of the daemon's.
pub(crate) struct TrustService {
    source: SettingsSource,
}

impl TrustService {
    pub(crate) fn new(source: SettingsSource) -> Self {
        Self { source }
    }

    fn status(&self, env: &HashMap<String, String>) -> Result<TrustStatus, Status> {
        let root = &self.source.config().files.root;
        let disk = OnDisk::read(root).with_head(root).with_agent(root);
        let store = store(self.source.config()).ok();
        let record = match &store {
            Some(s) => s
                .record(root)
                .map_err(|e| RequestError::caused(crate::error::Refusal::Input, e))?,
            None => None,
        };
        let overridden = self.source.settings(env).trust_worktree;
        let (assessment, agent) = if overridden {
            let agent = if disk.agent.is_empty() {
                Verdict::Absent
            } else {
                Verdict::Trusted
            };
            (allowed_as_is(&disk), agent)
        } else {
            // A status is a look, not a check: the edit loop's record is not advanced here.
            (
                assess(&mut record.clone(), disk.current()),
                assess_agent(record.as_ref(), &disk.agent),
            )
        };
        let part = |v: &Verdict, files: usize| {
            TrustPart {
                trust_state: wire_verdict(v) as i32,
                changed: match v {
                    Verdict::Changed(paths) => paths.clone(),
                    _ => Vec::new(),
                },
                files: u32::try_from(files).unwrap_or(u32::MAX),
                ..TrustPart::default()
            }
            .with_words()
        };
        Ok(TrustStatus {
            workflows: Some(part(&assessment.workflows, disk.workflows.len())),
            flow: Some(part(&assessment.flow, usize::from(disk.flow.is_some()))),
            agent: Some(part(&agent, disk.agent.len())),
            edits: record.as_ref().is_some_and(|r| r.edits_head.is_some()),
            edits_head: record
                .as_ref()
                .and_then(|r| r.edits_head.clone())
                .unwrap_or_default(),
            trust_file: store
                .map(|s| s.path().display().to_string())
                .unwrap_or_default(),
            worktree_override: overridden,
            trusted_at: record
                .and_then(|r| r.trusted_at)
                .map(|t| t.to_string())
                .unwrap_or_default(),
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
        let root = self.source.config().files.root.clone();
        let store = store(self.source.config()).map_err(RequestError::from)?;
        let disk = OnDisk::read(&root).with_head(&root).with_agent(&root);
        let at = stanley_adapters::clock::now();
        store
            .update(&root, |r| {
                *r = Some(grant(disk.current(), &disk.agent, edits, at));
            })
            .map_err(|e| RequestError::caused(crate::error::Refusal::Input, e))?;
        tracing::info!(
            workflows = disk.workflows.len(),
            flow = disk.flow.is_some(),
            agent = disk.agent.len(),
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
        let root = self.source.config().files.root.clone();
        let store = store(self.source.config()).map_err(RequestError::from)?;
        store
            .update(&root, |r| *r = None)
            .map_err(|e| RequestError::caused(crate::error::Refusal::Input, e))?;
        tracing::info!("trust revoked");
        Ok(Response::new(self.status(&HashMap::new())?))
    }
}

/// How a part stands, on the wire (the same word: `trust_words_are_the_wires`).
fn wire_verdict(verdict: &Verdict) -> TrustState {
    match verdict {
        Verdict::Absent => TrustState::Absent,
        Verdict::Trusted => TrustState::Trusted,
        Verdict::NeverTrusted => TrustState::NotTrusted,
        Verdict::Changed(_) => TrustState::Changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every verdict goes on the wire as the state of its word, and every state is a verdict's.
    #[test]
    fn trust_words_are_the_wires() {
        let verdicts = [
            Verdict::Absent,
            Verdict::Trusted,
            Verdict::NeverTrusted,
            Verdict::Changed(vec!["a.ts".into()]),
        ];
        for v in &verdicts {
            assert_eq!(wire_verdict(v).word(), v.word());
        }
        let mut states: Vec<TrustState> = verdicts.iter().map(wire_verdict).collect();
        states.dedup();
        assert_eq!(states, TrustState::KNOWN);
    }
}

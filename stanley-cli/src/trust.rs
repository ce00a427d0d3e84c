//! `stanleyctl trust [--status] [--edits]` and `stanleyctl untrust`: asks the daemon's `Trust`
//! service and prints what is trusted in this worktree (human lines, or
//! `stanley.trust-status/v1` with `--json`).

use serde_json::json;
use stanley_proto::v1::trust_client::TrustClient;
use stanley_proto::v1::{
    GetTrustRequest, GrantTrustRequest, RevokeTrustRequest, TrustPart, TrustState, TrustStatus,
};

use crate::daemon::{Target, channel};
use crate::exit::ClientError;

/// What the person asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Show what is trusted and what changed.
    Status,
    /// Trust what is there now (with the edit loop when `edits`).
    Grant { edits: bool },
    /// Remove the record.
    Revoke,
}

fn part_json(p: Option<&TrustPart>) -> serde_json::Value {
    let p = p.cloned().unwrap_or_default();
    json!({"state": p.resolved_trust_state().word(), "changed": p.changed, "files": p.files})
}

/// The `stanley.trust-status/v1` document.
pub fn status_document(s: &TrustStatus) -> String {
    let doc = json!({
        "schema": "stanley.trust-status/v1",
        "workflows": part_json(s.workflows.as_ref()),
        "flow": part_json(s.flow.as_ref()),
        "agent": part_json(s.agent.as_ref()),
        "edits": s.edits,
        "editsHead": s.edits_head,
        "trustFile": s.trust_file,
        "worktreeOverride": s.worktree_override,
        "trustedAt": s.trusted_at,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn part_line(label: &str, p: Option<&TrustPart>) -> String {
    let p = p.cloned().unwrap_or_default();
    let detail = match p.resolved_trust_state() {
        TrustState::Changed => format!("changed since trusted: {}", p.changed.join(", ")),
        TrustState::NotTrusted => format!("not trusted ({} file(s))", p.files),
        TrustState::Trusted => format!("trusted ({} file(s))", p.files),
        other => other.word().to_owned(),
    };
    format!("{label:<21}{detail}")
}

/// The human lines for a status.
pub fn status_lines(s: &TrustStatus) -> String {
    let mut out = String::new();
    out.push_str(&part_line(".stanley/workflows/", s.workflows.as_ref()));
    out.push('\n');
    out.push_str(&part_line(".stanley/flow.json", s.flow.as_ref()));
    out.push('\n');
    out.push_str(&part_line("agent configuration", s.agent.as_ref()));
    out.push('\n');
    let edits = if s.edits {
        format!(
            "on, while HEAD stays at {}",
            s.edits_head.chars().take(12).collect::<String>()
        )
    } else {
        "off".to_owned()
    };
    out.push_str(&format!("{:<21}{edits}\n", "edit loop"));
    if s.worktree_override {
        out.push_str(&format!(
            "{:<21}STANLEY_TRUST_WORKTREE is set: everything runs as it is\n",
            "override"
        ));
    }
    let file = if s.trust_file.is_empty() {
        "none (the daemon knows no HOME)"
    } else {
        &s.trust_file
    };
    out.push_str(&format!("{:<21}{file}\n", "trust file"));
    out
}

fn refused(status: tonic::Status) -> ClientError {
    ClientError::from_status(&status)
}

/// Runs one trust command against the worktree's daemon and prints its answer.
pub async fn run(target: &Target, action: Action, json: bool) -> Result<(), ClientError> {
    let mut client = TrustClient::new(channel(target).await?);
    let status = match action {
        Action::Status => client
            .get_trust(GetTrustRequest {
                env: crate::environ::request_env()?,
            })
            .await
            .map_err(refused)?
            .into_inner(),
        Action::Grant { edits } => client
            .grant_trust(GrantTrustRequest { edits })
            .await
            .map_err(refused)?
            .into_inner(),
        Action::Revoke => client
            .revoke_trust(RevokeTrustRequest {})
            .await
            .map_err(refused)?
            .into_inner(),
    };
    if json {
        crate::outln!("{}", status_document(&status));
        return Ok(());
    }
    match action {
        Action::Grant { .. } => {
            crate::outln!("trusted the repository code of {}", target.root.display())
        }
        Action::Revoke => crate::outln!("removed the trust of {}", target.root.display()),
        Action::Status => {}
    }
    crate::out!("{}", status_lines(&status));
    Ok(())
}

//! Trust for repository code, by content (as direnv's `allow`, mise's `trust` and editors'
//! workspace trust work): repository workflows under `.stanley/workflows/` and the commands of
//! `.stanley/flow.json` run only when the person has trusted exactly this content. This module
//! is the pure model: what a worktree's trust record holds and how it judges the files on disk.
//! Reading and writing the per-user record is an adapter's job.
//!
//! A third part is what the coding agent would load by itself from the worktree (Pi's `.pi/`,
//! `.agents/skills/`, the root's `AGENTS.md`/`CLAUDE.md`): trusted by content only, never by the
//! edit loop, since the agent itself writes in the worktree while it runs.
//!
//! The rules (`trust-policy@1`):
//! - A workflow file is trusted when the record holds its path with the same SHA-256. The folder
//!   is trusted when every file in it is; removing a file never needs trust again.
//! - `flow.json` is trusted when the record holds its SHA-256.
//! - With the edit loop on (`stanleyctl trust --edits`), any content is trusted while `HEAD`
//!   stays at the commit recorded when it was turned on, and each check records what it saw.
//!   After `HEAD` moves (a commit, checkout or pull), content that matches the record stays
//!   trusted (and the edit loop follows the new `HEAD`); content that does not asks again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The policy these rules implement, named in messages and the decision log.
pub const TRUST_POLICY: &str = "trust-policy@1";

/// The schema of the per-user trust file. `/2` marks refused entries (links that leave the
/// repository, FIFOs) so that no file content can match them.
pub const TRUST_SCHEMA: &str = "stanley.trust/2";

/// Schemas whose records are read as empty: their refused entries shared the content hashes'
/// space, so they are not honoured.
pub const EARLIER_TRUST_SCHEMAS: &[&str] = &["stanley.trust/1"];

/// Path (relative to `.stanley/workflows/`, `/`-separated) → SHA-256 of its content.
pub type Files = BTreeMap<String, String>;

/// What a person trusted in one worktree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorktreeTrust {
    /// The trusted workflow files.
    #[serde(default)]
    pub workflows: Files,
    /// The SHA-256 of the trusted `flow.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<String>,
    /// The trusted agent configuration: root-relative path → SHA-256 (see [`assess_agent`]).
    #[serde(default, skip_serializing_if = "Files::is_empty")]
    pub agent: Files,
    /// The edit loop, when on: the commit `HEAD` was at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits_head: Option<String>,
    /// When the person last ran `stanleyctl trust` here (none in a record written by a
    /// promotion alone: `""` on disk).
    #[serde(default, with = "crate::time::or_empty")]
    pub trusted_at: Option<crate::time::Stamp>,
}

/// The whole per-user trust file: canonical worktree root → its record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrustFile {
    /// Always [`TRUST_SCHEMA`].
    pub schema: String,
    /// The records by canonical worktree root.
    #[serde(default)]
    pub worktrees: BTreeMap<String, WorktreeTrust>,
}

impl TrustFile {
    /// An empty file.
    pub fn new() -> Self {
        Self {
            schema: TRUST_SCHEMA.to_owned(),
            worktrees: BTreeMap::new(),
        }
    }
}

/// How one part (the workflows folder, or `flow.json`) stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing there: nothing to run, nothing to trust.
    Absent,
    /// Trusted as it is.
    Trusted,
    /// Never trusted in this worktree.
    NeverTrusted,
    /// New or changed since it was trusted: these paths (workflows) or `flow.json`.
    Changed(Vec<String>),
}

impl Verdict {
    /// Whether the part may run.
    pub fn allows(&self) -> bool {
        matches!(self, Verdict::Absent | Verdict::Trusted)
    }

    /// The state word shown by `stanleyctl trust --status`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Absent => "absent",
            Verdict::Trusted => "trusted",
            Verdict::NeverTrusted => "not trusted",
            Verdict::Changed(_) => "changed",
        }
    }
}

/// What is on disk now.
#[derive(Clone, Copy, Debug)]
pub struct Current<'a> {
    /// The workflow files.
    pub workflows: &'a Files,
    /// The SHA-256 of `flow.json`, when there is one.
    pub flow: Option<&'a str>,
    /// The commit `HEAD` points at (`unborn` before the first commit).
    pub head: &'a str,
}

/// The verdicts, and whether the record was updated (the edit loop records what it saw).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assessment {
    /// `.stanley/workflows/`.
    pub workflows: Verdict,
    /// `.stanley/flow.json`.
    pub flow: Verdict,
    /// The record changed and should be written back.
    pub record_changed: bool,
}

fn changed_files(record: &Files, current: &Files) -> Vec<String> {
    current
        .iter()
        .filter(|(path, hash)| record.get(*path) != Some(*hash))
        .map(|(path, _)| path.clone())
        .collect()
}

/// Judges the agent configuration on disk (root-relative path → SHA-256) against a worktree's
/// record: by content only. The edit loop does not extend to it, because the agent writes in
/// the worktree as it runs and would otherwise trust what it wrote for its next start.
pub fn assess_agent(record: Option<&WorktreeTrust>, files: &Files) -> Verdict {
    if files.is_empty() {
        return Verdict::Absent;
    }
    let Some(r) = record.filter(|r| !r.agent.is_empty()) else {
        return Verdict::NeverTrusted;
    };
    let changed = changed_files(&r.agent, files);
    if changed.is_empty() {
        Verdict::Trusted
    } else {
        Verdict::Changed(changed)
    }
}

/// Judges what is on disk against a worktree's record, updating the record when the edit loop
/// is on.
pub fn assess(record: &mut Option<WorktreeTrust>, now: Current<'_>) -> Assessment {
    let wf_changed = record.as_ref().map_or_else(
        || now.workflows.keys().cloned().collect(),
        |r| changed_files(&r.workflows, now.workflows),
    );
    let flow_changed = now
        .flow
        .is_some_and(|f| record.as_ref().and_then(|r| r.flow.as_deref()) != Some(f));
    let verdict = |absent: bool, changed: bool, list: Vec<String>, never: bool| {
        if absent {
            Verdict::Absent
        } else if !changed {
            Verdict::Trusted
        } else if never {
            Verdict::NeverTrusted
        } else {
            Verdict::Changed(list)
        }
    };
    let mut record_changed = false;
    if let Some(r) = record.as_mut()
        && let Some(edits) = r.edits_head.clone()
    {
        let clean = wf_changed.is_empty() && !flow_changed;
        if edits == now.head || clean {
            // The edit loop: record what was seen, follow HEAD when nothing changed.
            for (path, hash) in now.workflows {
                record_changed |=
                    r.workflows.insert(path.clone(), hash.clone()).as_ref() != Some(hash);
            }
            if let Some(f) = now.flow
                && r.flow.as_deref() != Some(f)
            {
                r.flow = Some(f.to_owned());
                record_changed = true;
            }
            if edits != now.head {
                r.edits_head = Some(now.head.to_owned());
                record_changed = true;
            }
            return Assessment {
                workflows: verdict(now.workflows.is_empty(), false, Vec::new(), false),
                flow: verdict(now.flow.is_none(), false, Vec::new(), false),
                record_changed,
            };
        }
    }
    let never_wf = record.as_ref().is_none_or(|r| r.workflows.is_empty());
    let never_flow = record.as_ref().is_none_or(|r| r.flow.is_none());
    Assessment {
        workflows: verdict(
            now.workflows.is_empty(),
            !wf_changed.is_empty(),
            wf_changed,
            never_wf,
        ),
        flow: verdict(
            now.flow.is_none(),
            flow_changed,
            vec!["flow.json".to_owned()],
            never_flow,
        ),
        record_changed,
    }
}

/// The record after the person trusts what is on disk now, `agent` being the agent
/// configuration (`edits` turns the edit loop on at this `HEAD`; without it the loop is off).
pub fn grant(
    now: Current<'_>,
    agent: &Files,
    edits: bool,
    at: crate::time::Stamp,
) -> WorktreeTrust {
    WorktreeTrust {
        workflows: now.workflows.clone(),
        flow: now.flow.map(str::to_owned),
        agent: agent.clone(),
        edits_head: edits.then(|| now.head.to_owned()),
        trusted_at: Some(at),
    }
}

/// The record after one workflow file is trusted on its own (a promotion): the other files keep
/// whatever standing they had.
pub fn trust_file(record: Option<WorktreeTrust>, path: &str, hash: &str) -> WorktreeTrust {
    let mut r = record.unwrap_or_default();
    r.workflows.insert(path.to_owned(), hash.to_owned());
    r
}

/// The record after `flow.json` is trusted on its own (`stanleyctl flow init`).
pub fn trust_flow(record: Option<WorktreeTrust>, hash: &str) -> WorktreeTrust {
    let mut r = record.unwrap_or_default();
    r.flow = Some(hash.to_owned());
    r
}

/// The one warning line for repository workflows that may not run.
pub fn workflows_off_reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Absent | Verdict::Trusted => None,
        Verdict::NeverTrusted => Some(
            "`.stanley/workflows/` is not trusted in this worktree; review it and run `stanleyctl trust`".to_owned(),
        ),
        Verdict::Changed(paths) => Some(format!(
            "`.stanley/workflows/` changed since you trusted it ({}); review it and run `stanleyctl trust`",
            list(paths)
        )),
    }
}

/// The one warning line for agent configuration the coding agent runs without.
pub fn agent_off_reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Absent | Verdict::Trusted => None,
        Verdict::NeverTrusted => Some(
            "the repository's own coding-agent configuration (`.pi/`, `.agents/skills/`, `AGENTS.md`, `CLAUDE.md`) is not trusted in this worktree, so the agent runs without it; review it and run `stanleyctl trust`".to_owned(),
        ),
        Verdict::Changed(paths) => Some(format!(
            "the repository's coding-agent configuration changed since you trusted it ({}), so the agent runs without it; review it and run `stanleyctl trust`",
            list(paths)
        )),
    }
}

/// The line for a `flow.json` whose commands may not run.
pub fn flow_off_reason(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Absent | Verdict::Trusted => None,
        Verdict::NeverTrusted => Some(
            "`.stanley/flow.json` is not trusted in this worktree, so its checks and notify command do not run; review it and run `stanleyctl trust`".to_owned(),
        ),
        Verdict::Changed(_) => Some(
            "`.stanley/flow.json` changed since you trusted it, so its checks and notify command do not run; review it and run `stanleyctl trust`".to_owned(),
        ),
    }
}

fn list(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        text.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Stamp;

    fn files(pairs: &[(&str, &str)]) -> Files {
        pairs
            .iter()
            .map(|(p, h)| (p.to_string(), h.to_string()))
            .collect()
    }

    fn now<'a>(wf: &'a Files, flow: Option<&'a str>, head: &'a str) -> Current<'a> {
        Current {
            workflows: wf,
            flow,
            head,
        }
    }

    #[test]
    fn nothing_is_trusted_until_granted_and_absent_parts_need_nothing() {
        let wf = files(&[("a.ts", "1")]);
        let mut none = None;
        let a = assess(&mut none, now(&wf, Some("f1"), "c1"));
        assert_eq!(a.workflows, Verdict::NeverTrusted);
        assert_eq!(a.flow, Verdict::NeverTrusted);
        let empty = Files::new();
        let a = assess(&mut None, now(&empty, None, "c1"));
        assert!(a.workflows.allows() && a.flow.allows());
        assert_eq!(a.workflows, Verdict::Absent);
    }

    #[test]
    fn content_is_what_is_trusted() {
        let wf = files(&[("a.ts", "1"), ("b.ts", "2")]);
        let mut record = Some(grant(
            now(&wf, Some("f1"), "c1"),
            &Files::new(),
            false,
            Stamp::EPOCH,
        ));
        let a = assess(&mut record, now(&wf, Some("f1"), "c9"));
        assert_eq!(
            (a.workflows, a.flow.clone()),
            (Verdict::Trusted, Verdict::Trusted)
        );
        // An edit, a new file, and a changed flow each ask again; a removal does not.
        let edited = files(&[("a.ts", "1*"), ("c.ts", "3")]);
        let a = assess(&mut record, now(&edited, Some("f2"), "c1"));
        assert_eq!(
            a.workflows,
            Verdict::Changed(vec!["a.ts".into(), "c.ts".into()])
        );
        assert_eq!(a.flow, Verdict::Changed(vec!["flow.json".into()]));
        assert!(!a.record_changed);
        let fewer = files(&[("b.ts", "2")]);
        assert_eq!(
            assess(&mut record, now(&fewer, None, "c1")).workflows,
            Verdict::Trusted
        );
    }

    #[test]
    fn the_edit_loop_trusts_edits_until_head_moves_with_other_content() {
        let wf = files(&[("a.ts", "1")]);
        let mut record = Some(grant(
            now(&wf, None, "c1"),
            &Files::new(),
            true,
            Stamp::EPOCH,
        ));
        let edited = files(&[("a.ts", "2")]);
        let a = assess(&mut record, now(&edited, Some("f1"), "c1"));
        assert_eq!(
            (a.workflows.clone(), a.flow.clone()),
            (Verdict::Trusted, Verdict::Trusted)
        );
        assert!(a.record_changed, "the loop records what it saw");
        // The author commits: HEAD moves, content is what was recorded: still trusted, and
        // the loop follows the new HEAD.
        let a = assess(&mut record, now(&edited, Some("f1"), "c2"));
        assert_eq!(a.workflows, Verdict::Trusted);
        assert_eq!(record.as_ref().unwrap().edits_head.as_deref(), Some("c2"));
        // A checkout that brings other content asks again.
        let theirs = files(&[("a.ts", "evil")]);
        let a = assess(&mut record, now(&theirs, Some("f1"), "c3"));
        assert_eq!(a.workflows, Verdict::Changed(vec!["a.ts".into()]));
        assert_eq!(record.as_ref().unwrap().edits_head.as_deref(), Some("c2"));
    }

    #[test]
    fn promotion_trusts_one_file_and_init_the_flow() {
        let wf = files(&[("new.ts", "9")]);
        let record = trust_file(None, "new.ts", "9");
        assert_eq!(
            assess(&mut Some(record.clone()), now(&wf, None, "c")).workflows,
            Verdict::Trusted
        );
        let more = files(&[("new.ts", "9"), ("other.ts", "1")]);
        assert_eq!(
            assess(&mut Some(record.clone()), now(&more, None, "c")).workflows,
            Verdict::Changed(vec!["other.ts".into()])
        );
        let record = trust_flow(Some(record), "f");
        assert_eq!(
            assess(&mut Some(record), now(&wf, Some("f"), "c")).flow,
            Verdict::Trusted
        );
    }

    #[test]
    fn agent_configuration_is_trusted_by_content_and_never_by_the_edit_loop() {
        let wf = Files::new();
        let agent = files(&[(".pi/extensions/a.ts", "1"), ("AGENTS.md", "2")]);
        assert_eq!(assess_agent(None, &Files::new()), Verdict::Absent);
        assert_eq!(assess_agent(None, &agent), Verdict::NeverTrusted);
        // The edit loop on, HEAD unmoved: workflows follow edits, the agent part does not.
        let record = grant(now(&wf, None, "c1"), &Files::new(), true, Stamp::EPOCH);
        assert_eq!(assess_agent(Some(&record), &agent), Verdict::NeverTrusted);
        let record = grant(now(&wf, None, "c1"), &agent, true, Stamp::EPOCH);
        assert_eq!(assess_agent(Some(&record), &agent), Verdict::Trusted);
        let edited = files(&[(".pi/extensions/a.ts", "1*"), ("AGENTS.md", "2")]);
        let mut r = Some(record.clone());
        let a = assess(&mut r, now(&wf, None, "c1"));
        assert!(a.workflows.allows());
        assert_eq!(
            assess_agent(r.as_ref(), &edited),
            Verdict::Changed(vec![".pi/extensions/a.ts".into()])
        );
        assert!(
            agent_off_reason(&Verdict::NeverTrusted)
                .unwrap()
                .contains("stanleyctl trust")
        );
        // A record written before the part existed still reads, with nothing trusted in it.
        let old: WorktreeTrust = serde_json::from_str(
            r#"{"workflows":{"a.ts":"1"},"trustedAt":"2026-11-30T02:05:41.123Z"}"#,
        )
        .unwrap();
        assert!(old.agent.is_empty());
        assert_eq!(
            old.trusted_at.map(|t| t.to_string()).as_deref(),
            Some("2026-11-30T02:05:41.123Z")
        );
        // A record only promotions wrote has no time; one whose time is no time is damage.
        let promoted: WorktreeTrust =
            serde_json::from_str(r#"{"workflows":{"a.ts":"1"},"trustedAt":""}"#).unwrap();
        assert_eq!(promoted.trusted_at, None);
        assert!(serde_json::from_str::<WorktreeTrust>(r#"{"trustedAt":"yesterday"}"#).is_err());
    }

    #[test]
    fn reasons_name_the_command() {
        let never = workflows_off_reason(&Verdict::NeverTrusted).unwrap();
        assert!(never.contains("stanleyctl trust"), "{never}");
        let changed = workflows_off_reason(&Verdict::Changed(
            ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
        ))
        .unwrap();
        assert!(changed.contains("(a, b, c and 2 more)"), "{changed}");
        assert!(flow_off_reason(&Verdict::Trusted).is_none());
    }
}

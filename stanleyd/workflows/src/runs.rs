//! Runs you can find again: the summary every persisted request leaves in its run folder
//! (`stanley.run-summary/v1`), the retention policy that decides which folders go, and reading a
//! run id's time.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diff::Scope;

/// The summary's schema.
pub const SUMMARY_SCHEMA: &str = "stanley.run-summary/v1";
/// The summary's file in a run folder.
pub const SUMMARY_FILE: &str = "summary.json";
/// The result as it was sent (`{document, human}`), in a run folder.
pub const RESULT_FILE: &str = "result.json";
/// The fingerprints of a run's findings a person marked seen, in the run's folder.
pub const SEEN_FILE: &str = "seen.json";
/// Runs kept when the request does not say (`STANLEY_RUNS_KEEP`).
pub const DEFAULT_KEEP: usize = 200;
/// Days a run is kept when the request does not say (`STANLEY_RUNS_MAX_AGE_DAYS`).
pub const DEFAULT_MAX_AGE_DAYS: u64 = 30;

/// Why a request failed, as its error document said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunError {
    pub kind: FailureKind,
    pub message: String,
}

/// What kind of failure ended a request, in the words of `stanley.error/v1` `error.kind` (on
/// the wire, `stanley_proto::exit::ErrorKind`, which this crate does not see; the daemon maps
/// one to the other exhaustively and a test there holds their words equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The request cannot be served as asked.
    Usage,
    /// An input, a file, an id or the repository's state is not usable.
    Input,
    /// The flow file is missing, does not load or is not trusted.
    Configuration,
    /// Something the daemon needs cannot be reached.
    Unavailable,
    /// A fault of Stanley's own.
    Internal,
    /// Jev refused the key.
    JevAuth,
    /// Jev cannot be reached.
    JevUnreachable,
    /// Jev kept failing until retries ran out.
    JevUnavailable,
    /// The request was interrupted (its client went away, or the daemon is stopping).
    Interrupted,
    /// The request was terminated.
    Terminated,
}

impl FailureKind {
    /// Every kind.
    pub const ALL: [FailureKind; 10] = [
        FailureKind::Usage,
        FailureKind::Input,
        FailureKind::Configuration,
        FailureKind::Unavailable,
        FailureKind::Internal,
        FailureKind::JevAuth,
        FailureKind::JevUnreachable,
        FailureKind::JevUnavailable,
        FailureKind::Interrupted,
        FailureKind::Terminated,
    ];

    /// The word it is written as (`jev_auth`).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Usage => "usage",
            FailureKind::Input => "input",
            FailureKind::Configuration => "configuration",
            FailureKind::Unavailable => "unavailable",
            FailureKind::Internal => "internal",
            FailureKind::JevAuth => "jev_auth",
            FailureKind::JevUnreachable => "jev_unreachable",
            FailureKind::JevUnavailable => "jev_unavailable",
            FailureKind::Interrupted => "interrupted",
            FailureKind::Terminated => "terminated",
        }
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run's id, `<name>-<YYYYMMDDTHHMMSSZ>-<hex>`: the name of its folder under
/// `.stanley/runs/`, so one path component of safe characters whatever made it (`parse` holds
/// a client's text to that before it names a folder).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// The id of a run named `name` started at `now`, with a random suffix.
    pub fn new(name: &str, now: crate::time::Timestamp, random_hex: &str) -> Self {
        RunId(format!("{name}-{}-{random_hex}", crate::time::compact(now)))
    }

    /// A run id a person or a client gave: one path component (letters, digits, `_`, `-`,
    /// `.`, not starting with a dot, at most 200 bytes), or None.
    pub fn parse(text: &str) -> Option<Self> {
        let safe = !text.is_empty()
            && text.len() <= 200
            && !text.starts_with('.')
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        safe.then(|| RunId(text.to_owned()))
    }

    /// The id as text, owned.
    pub fn into_string(self) -> String {
        self.0
    }
}

text_id!(RunId);

/// How a run ended (or that it has not yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Everything planned was judged or decided.
    Complete,
    /// Some of it was not.
    Incomplete,
    /// The shared Jev budget ran out.
    BudgetExhausted,
    /// No workflow could handle the request.
    Unsupported,
    /// The request was cancelled (a client gone, Ctrl-C, a stopping daemon).
    Interrupted,
    /// The request failed, with its `error` saying why (`error` in runs recorded before
    /// issue 49).
    #[serde(alias = "error")]
    Failed,
    /// The run is still going: its folder has no summary yet.
    Running,
    /// A status this version does not know (a newer Stanley's, an older folder's).
    #[serde(other)]
    Unknown,
}

impl RunStatus {
    /// The word the summary, the runs API and the page use.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Incomplete => "incomplete",
            RunStatus::BudgetExhausted => "budget_exhausted",
            RunStatus::Unsupported => "unsupported",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
            RunStatus::Running => "running",
            RunStatus::Unknown => "unknown",
        }
    }

    /// The status a word names; `Unknown` for any other.
    pub fn parse(word: &str) -> Self {
        serde_json::from_value(Value::String(word.to_owned())).unwrap_or(RunStatus::Unknown)
    }

    /// Whether a run that ended so says what stands: it finished and decided something. An
    /// error, a run in progress or one that was not supported tells nothing new about the code.
    pub fn stands(self) -> bool {
        matches!(
            self,
            RunStatus::Complete | RunStatus::Incomplete | RunStatus::BudgetExhausted
        )
    }
}

impl From<stanley_core::Status> for RunStatus {
    fn from(status: stanley_core::Status) -> Self {
        match status {
            stanley_core::Status::Complete => RunStatus::Complete,
            stanley_core::Status::Incomplete => RunStatus::Incomplete,
            stanley_core::Status::BudgetExhausted => RunStatus::BudgetExhausted,
            stanley_core::Status::Unsupported => RunStatus::Unsupported,
        }
    }
}

/// What one request did, for `stanleyctl runs list`: when, what was asked (redacted), what ran,
/// how it ended and what it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub schema: String,
    pub run_id: RunId,
    /// When it started (none for a run whose id carries no time).
    #[serde(with = "crate::time::or_empty")]
    pub started_at: Option<crate::time::Stamp>,
    /// When it finished (none while it runs).
    #[serde(with = "crate::time::or_empty")]
    pub finished_at: Option<crate::time::Stamp>,
    pub duration_ms: u64,
    /// The request's text, redacted.
    pub request: String,
    /// The workflow that ran ("" for a fallback or an error before one ran).
    pub workflow: String,
    /// How it ended (`failed` with `error` saying why).
    pub status: RunStatus,
    pub exit_code: i32,
    /// The request was handed to the coding agent.
    pub delegated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// The document's `output.data.coverage`, when the workflow reported one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Value>,
    /// How many findings the result carries.
    pub findings: u64,
    /// The document's `usage`: Jev requests, cached answers, tokens, cost.
    #[serde(default)]
    pub usage: Value,
    /// The diff selection it read (`worktree`, `staged`, `branch`), when it read one: a branch
    /// review's findings and a worktree review's stand side by side (issue 49).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "scope_word"
    )]
    pub scope: Option<Scope>,
}

/// A summary's scope: a word this version does not know (a newer Stanley's) reads as none, so
/// the run is still listed.
fn scope_word<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Scope>, D::Error> {
    let word = Option::<String>::deserialize(d)?;
    Ok(word.as_deref().and_then(Scope::parse))
}

/// The time in a run id (`<name>-<YYYYMMDDTHHMMSSZ>-<hex>`), or None when the id carries none.
pub fn stamp_of(run_id: &str) -> Option<crate::time::Stamp> {
    let mut parts = run_id.rsplitn(3, '-');
    let _hex = parts.next()?;
    let stamp = parts.next()?;
    let _name = parts.next()?;
    let b = stamp.as_bytes();
    if b.len() != 16 || !b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit) {
        return None;
    }
    crate::time::parse_compact(stamp).map(crate::time::Stamp)
}

/// One run folder as retention sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub id: String,
    /// When it started, in seconds since the epoch (None: unknown, it is judged by count only).
    pub started: Option<i64>,
}

/// How many runs to keep and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    pub keep: usize,
    pub max_age_days: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            keep: DEFAULT_KEEP,
            max_age_days: DEFAULT_MAX_AGE_DAYS,
        }
    }
}

/// How many runs past `keep` wait for the next pruning: a sixteenth of `keep` (none below 16).
/// At capacity every request would otherwise remove one run, reading Git's index to make sure
/// it is Stanley's each time; with this slack, one request in `slack + 1` removes that many
/// (issue 47).
pub fn slack(keep: usize) -> usize {
    keep / 16
}

/// The runs to remove: every run older than `max_age_days`, and, once there are more than
/// `keep` and its [`slack`], every run past the newest `keep`; never one in `active` (a run in
/// progress).
pub fn to_prune(
    runs: &[Kept],
    retention: Retention,
    now: i64,
    active: &HashSet<String>,
) -> Vec<String> {
    let over = runs.len() > retention.keep.saturating_add(slack(retention.keep));
    let mut ordered: Vec<&Kept> = runs.iter().collect();
    // Newest first; the id breaks ties (and orders runs without a time after the others).
    ordered.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| b.id.cmp(&a.id)));
    let oldest = now.saturating_sub(max_age_seconds(retention));
    ordered
        .into_iter()
        .enumerate()
        .filter(|(i, run)| {
            let too_many = over && *i >= retention.keep;
            let too_old = run.started.is_some_and(|t| t < oldest);
            (too_many || too_old) && !active.contains(&run.id)
        })
        .map(|(_, run)| run.id.clone())
        .collect()
}

/// What a listing of the runs folder found after pruning: how many runs stayed and when the
/// oldest of them started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Runs left in the folder.
    pub count: usize,
    /// The oldest one's start, in seconds since the epoch (none known: no run, or none dated).
    pub oldest: Option<i64>,
}

impl Census {
    /// The census of `runs` less the `removed` ones.
    pub fn after(runs: &[Kept], removed: &[String]) -> Self {
        let gone: HashSet<&str> = removed.iter().map(String::as_str).collect();
        let left = runs.iter().filter(|r| !gone.contains(r.id.as_str()));
        let (count, oldest) = left.fold((0, None), |(n, oldest): (usize, Option<i64>), r| {
            let oldest = match (oldest, r.started) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            (n + 1, oldest)
        });
        Census { count, oldest }
    }

    /// Whether pruning now could remove nothing, judged without listing the folder: the runs
    /// counted then plus the `added` since stay within `keep` and its [`slack`], and the oldest
    /// is within `max_age_days` of `now`. A run removed by hand since only makes it list sooner;
    /// one that came from elsewhere (a checkout) waits for the next listing.
    pub fn nothing_due(&self, added: usize, retention: Retention, now: i64) -> bool {
        let limit = retention.keep.saturating_add(slack(retention.keep));
        let within_age = self
            .oldest
            .is_none_or(|t| t >= now.saturating_sub(max_age_seconds(retention)));
        self.count.saturating_add(added) <= limit && within_age
    }
}

fn max_age_seconds(retention: Retention) -> i64 {
    i64::try_from(retention.max_age_days)
        .unwrap_or(i64::MAX / 86_400)
        .saturating_mul(86_400)
}

/// The runs whose findings stand now (the policy behind `Runs.GetLatestFindings`,
/// `standing-findings-policy@2`): for each workflow and diff scope, its newest run that
/// finished, in the order given (newest first). A newer run of a workflow on the same scope
/// replaces its older one whole, so a finding fixed since is gone; a worktree review leaves a
/// branch review's findings standing (issue 49), and runs of other workflows stand beside it.
pub fn standing(runs_newest_first: &[RunSummary]) -> Vec<&RunSummary> {
    let mut seen = std::collections::HashSet::new();
    runs_newest_first
        .iter()
        .filter(|r| !r.workflow.is_empty() && r.status.stands())
        .filter(|r| seen.insert((r.workflow.as_str(), r.scope)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: &str, workflow: &str, status: &str) -> RunSummary {
        let status = RunStatus::parse(status);
        RunSummary {
            schema: SUMMARY_SCHEMA.into(),
            run_id: RunId::parse(id).unwrap(),
            started_at: None,
            finished_at: None,
            duration_ms: 0,
            request: String::new(),
            workflow: workflow.into(),
            status,
            exit_code: 0,
            delegated: false,
            error: None,
            coverage: None,
            findings: 0,
            usage: Value::Null,
            scope: None,
        }
    }

    /// A status is written and read as the same word; an older run's `error` reads as
    /// `failed`, and a word this version does not know as `unknown`, never as an error.
    #[test]
    fn run_statuses_keep_their_words() {
        for status in [
            RunStatus::Complete,
            RunStatus::Incomplete,
            RunStatus::BudgetExhausted,
            RunStatus::Unsupported,
            RunStatus::Interrupted,
            RunStatus::Failed,
            RunStatus::Running,
            RunStatus::Unknown,
        ] {
            let word = serde_json::to_value(status).unwrap();
            assert_eq!(word, status.as_str(), "{status:?}");
            assert_eq!(RunStatus::parse(status.as_str()), status);
        }
        assert_eq!(RunStatus::parse("error"), RunStatus::Failed);
        assert_eq!(RunStatus::parse("paused"), RunStatus::Unknown);
    }

    /// A census skips the listing only while pruning could remove nothing: the runs written
    /// since keep within `keep` and its slack, and the oldest within the age; whatever the
    /// census says, `to_prune` on the same runs removes nothing then (the invariant the skip
    /// rests on).
    #[test]
    fn a_census_skips_only_what_pruning_would_not_remove() {
        let day = 86_400;
        let now = 100 * day;
        let runs: Vec<Kept> = (0..20)
            .map(|i| Kept {
                id: format!("r{i:02}"),
                started: Some(now - 2 * day + i),
            })
            .collect();
        let retention = Retention {
            keep: 16,
            max_age_days: 30,
        };
        // 16 and a slack of 1: 20 runs are over, 4 go.
        let removed = to_prune(&runs, retention, now, &HashSet::new());
        assert_eq!(removed.len(), 4);
        let census = Census::after(&runs, &removed);
        assert_eq!(census.count, 16);
        assert_eq!(census.oldest, Some(now - 2 * day + 4));
        assert!(census.nothing_due(1, retention, now));
        assert!(!census.nothing_due(2, retention, now));
        // Whatever the census allows, pruning the runs it stands for removes nothing.
        for added in 0..=4 {
            let mut all: Vec<Kept> = runs[4..].to_vec();
            all.extend((0..added).map(|i| Kept {
                id: format!("n{i}"),
                started: Some(now),
            }));
            let due = !to_prune(&all, retention, now, &HashSet::new()).is_empty();
            assert_eq!(
                census.nothing_due(added, retention, now),
                !due,
                "{added} added"
            );
        }
        // The oldest run aging past the limit is due, however few the runs.
        let later = now + 29 * day;
        assert!(!census.nothing_due(0, retention, later));
        assert!(!to_prune(&runs[4..], retention, later, &HashSet::new()).is_empty());
        // An empty folder is never due by age.
        assert!(Census::default().nothing_due(3, retention, now));
    }

    #[test]
    fn the_newest_finished_run_of_each_workflow_stands() {
        let runs = [
            summary("r5", "review", "failed"),
            summary("r4", "review", "incomplete"),
            summary("r3", "", "complete"),
            summary("c2", "check", "running"),
            summary("r2", "review", "complete"),
            summary("c1", "check", "complete"),
        ];
        let ids: Vec<&str> = standing(&runs).iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(ids, ["r4", "c1"]);
    }

    /// A run that answered keeps its status's word in its record.
    #[test]
    fn an_answers_status_is_the_runs_word() {
        use stanley_core::Status;
        for status in [
            Status::Complete,
            Status::Incomplete,
            Status::BudgetExhausted,
            Status::Unsupported,
        ] {
            assert_eq!(RunStatus::from(status).as_str(), status.as_str());
        }
    }

    /// A worktree review does not replace a branch review's findings: each scope's newest run
    /// stands (issue 49: a file went from 6 diagnostics to 0).
    #[test]
    fn each_scope_keeps_its_newest_run() {
        let on = |id: &str, scope: &str| RunSummary {
            scope: Scope::parse(scope),
            ..summary(id, "review", "complete")
        };
        let runs = [
            on("w2", "worktree"),
            on("b2", "branch"),
            on("w1", "worktree"),
            on("b1", "branch"),
            on("s1", "staged"),
        ];
        let ids: Vec<&str> = standing(&runs).iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(ids, ["w2", "b2", "s1"]);
    }

    /// The scope is read as its word; a word this version does not know leaves the run listed
    /// without one.
    #[test]
    fn a_scope_word_reads_back_and_an_unknown_one_reads_as_none() {
        let branch = RunSummary {
            scope: Some(Scope::Branch),
            ..summary("b1", "review", "complete")
        };
        let mut text = serde_json::to_value(&branch).unwrap();
        assert_eq!(text["scope"], "branch");
        let back: RunSummary = serde_json::from_value(text.clone()).unwrap();
        assert_eq!(back.scope, Some(Scope::Branch));
        text["scope"] = "sideways".into();
        let odd: RunSummary = serde_json::from_value(text).unwrap();
        assert_eq!((odd.run_id.as_str(), odd.scope), ("b1", None));
    }

    #[test]
    fn a_run_id_carries_its_time() {
        let text = |id: &str| stamp_of(id).map(|t| t.to_string());
        assert_eq!(
            text("summarize-20261130T214659Z-a1b2c3").as_deref(),
            Some("2026-11-30T21:46:59.000Z")
        );
        assert_eq!(
            text("my-flow-x-20261130T214659Z-a1b2c3").as_deref(),
            Some("2026-11-30T21:46:59.000Z"),
            "a name may hold dashes"
        );
        for bad in [
            "summarize",
            "a-b-c",
            "x-2026113T214659Z-a",
            "x-20261130X214659Z-a",
        ] {
            assert_eq!(stamp_of(bad), None, "{bad}");
        }
    }

    fn run(id: &str, started: i64) -> Kept {
        Kept {
            id: id.into(),
            started: Some(started),
        }
    }

    #[test]
    fn retention_keeps_the_newest_by_count_and_age_and_never_a_run_in_progress() {
        let day = 86_400;
        let now = 100 * day;
        let runs = vec![
            run("a", now - 40 * day),
            run("b", now - 3 * day),
            run("c", now - 2 * day),
            run("d", now - day),
            run("e", now),
        ];
        let none = HashSet::new();
        let r = |keep, max_age_days| Retention { keep, max_age_days };
        assert_eq!(to_prune(&runs, r(10, 30), now, &none), ["a"]);
        assert_eq!(to_prune(&runs, r(3, 365), now, &none), ["b", "a"]);
        assert!(to_prune(&runs, r(10, 365), now, &none).is_empty());
        let active: HashSet<String> = ["a".to_owned(), "b".to_owned()].into();
        assert!(to_prune(&runs, r(3, 30), now, &active).is_empty());
        // A run without a time goes by count only.
        let mut odd = runs.clone();
        odd.push(Kept {
            id: "legacy".into(),
            started: None,
        });
        assert_eq!(to_prune(&odd, r(5, 30), now, &none), ["a", "legacy"]);
        // Past a keep of 32, two more wait (its slack); the third more prunes back to 32.
        let many = |n: i64| -> Vec<Kept> {
            (0..n)
                .map(|k| Kept {
                    id: format!("r{k:03}"),
                    started: Some(now - 1000 + k),
                })
                .collect()
        };
        assert!(to_prune(&many(34), r(32, 30), now, &none).is_empty());
        assert_eq!(
            to_prune(&many(35), r(32, 30), now, &none),
            ["r002", "r001", "r000"]
        );
    }
}

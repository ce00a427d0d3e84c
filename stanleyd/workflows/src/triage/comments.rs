//! The `triage_comments` built-in (`triage-comments-policy@1`): review comments compared with
//! the current code. Replies fold into their threads, duplicates and comments on code that is
//! gone are settled by code, and the rest are judged and classified by fixed rules.

use serde::Serialize;
use serde_json::Value;
use stanley_core::{Executor, Frame, Question, Questions};

use crate::diff::DiffEvidence;
use crate::paths::is_secret_path;
use crate::policy::{
    EVIDENCE_POLICY, Instructions, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::ports::Workspace;
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity, to_value};
use crate::text::round3;
use crate::triage::logs::normalize;
use crate::triage::review_comments::Comment;

/// The policy version.
pub const POLICY: &str = "triage-comments-policy@1";
/// Comment threads judged at most.
pub const DEFAULT_MAX_ITEMS: usize = 100;
const MAX_REPLY_CHARS: usize = 1000;
const MAX_REPLIES: usize = 5;
const WINDOW_LINES: u64 = 12;
const ALREADY_ADDRESSED: f64 = 0.7;
const PRESENT: f64 = 0.6;
const REQUEST: f64 = 0.6;
const CONCRETE: f64 = 0.6;
const LOW_SIGNAL: f64 = 0.4;
const NOT_CLAIM: f64 = 0.6;
const CONFLICT_CONCRETE: f64 = 0.7;
const SECTION_ROWS: usize = 40;

/// What the CLI passes.
#[derive(Clone, Debug)]
pub struct CommentsInput {
    pub text: String,
    pub source: String,
    pub max_items: usize,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(
    input: &CommentsInput,
    comments: &[Comment],
    diff: Option<&DiffEvidence>,
) -> Value {
    super::recorded_inputs(super::Brought {
        kind: "comments",
        source: &input.source,
        text: &input.text,
        items: comments.len(),
        task: None,
        diff,
        max_items: input.max_items,
    })
}

/// The state of a thread's frame: the root comment, its replies, the code it is about now, the
/// code it was written against, and related changed hunks.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreadState<'a> {
    evidence_policy: &'static str,
    comment: RootShown<'a>,
    thread: Vec<ReplyShown<'a>>,
    current_code: Option<CurrentCode<'a>>,
    original_context: Option<OriginalContext<'a>>,
    related_diff_hunks: Vec<Value>,
}

/// The root comment as its frame shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RootShown<'a> {
    id: &'a str,
    body: &'a str,
    body_truncated: bool,
    path: &'a Option<String>,
    line: Option<u64>,
    author_kind: &'static str,
    authority_note: &'static str,
    github_outdated_flag: Option<bool>,
}

/// A reply as its thread's frame shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReplyShown<'a> {
    id: &'a str,
    author_kind: &'static str,
    body: String,
}

/// The code a comment is about, as it is now.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CurrentCode<'a> {
    path: &'a str,
    anchor: &'static str,
    shown_lines: Option<String>,
    total_lines: usize,
    lines: String,
}

/// The code a comment was written against.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OriginalContext<'a> {
    commit: &'a Option<String>,
    line: Option<u64>,
    diff_hunk: &'a str,
}

/// A thread frame's provenance: the comment, from which input.
#[derive(Serialize)]
struct CommentProbe<'a> {
    kind: &'static str,
    id: &'a str,
    probe: String,
}

/// The threads `comments` considered, as `candidates.json` records them.
#[derive(Serialize)]
struct CommentCandidates<'a> {
    kind: &'static str,
    source: &'a str,
    threads: Vec<&'a str>,
}

/// `comments`' summary: the comment and thread counts, then a count per classification in the
/// order the sorted rows first name it, then the diff.
#[derive(Serialize)]
struct CommentsSummary<'a> {
    kind: &'static str,
    source: &'a str,
    comments: usize,
    threads: usize,
    #[serde(flatten)]
    classifications: serde_json::Map<String, Value>,
    diff: Option<Value>,
}

/// The `anchor_gone` decision.
#[derive(Serialize)]
struct AnchorGone<'a> {
    reason: &'a Option<String>,
}

/// The `comment_status` decision.
#[derive(Serialize)]
struct StatusDecision<'a> {
    classification: &'a str,
}

fn excerpt(body: &str, n: usize) -> String {
    body.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(n)
        .collect()
}

struct Anchor {
    status: &'static str,
    shown: Option<(u64, u64)>,
    reason: Option<String>,
    lines: Vec<String>,
    total: usize,
    /// The path the comment's file has now, when it was moved.
    moved_to: Option<String>,
}

/// The new-side lines of a review comment's diff hunk that end at the commented line: its last
/// non-blank context and added lines, at most three.
fn commented_code(hunk: &str) -> Vec<String> {
    let new_side: Vec<&str> = hunk
        .lines()
        .filter(|l| !l.starts_with("@@") && !l.starts_with('-') && !l.starts_with('\\'))
        .map(|l| l.get(1..).unwrap_or(""))
        .collect();
    let mut tail: Vec<String> = new_side
        .iter()
        .rev()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .take(3)
        .collect();
    tail.reverse();
    tail
}

/// Where `code` (trimmed lines, in order) is in `lines` now: the 1-based line of its last line.
fn find_code(lines: &[String], code: &[String]) -> Option<u64> {
    if code.is_empty() {
        return None;
    }
    let trimmed: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let non_blank: Vec<usize> = (0..trimmed.len())
        .filter(|&i| !trimmed[i].is_empty())
        .collect();
    non_blank
        .windows(code.len())
        .filter(|w| w.iter().zip(code).all(|(&i, c)| trimmed[i] == c))
        .map(|w| w[w.len() - 1] as u64 + 1)
        .next()
}

fn anchor(
    c: &Comment,
    workspace: &dyn Workspace,
    tracked: &[String],
    diff: Option<&DiffEvidence>,
) -> Anchor {
    let none = |status, reason: Option<String>| Anchor {
        status,
        shown: None,
        reason,
        lines: Vec::new(),
        total: 0,
        moved_to: None,
    };
    let Some(commented_path) = &c.path else {
        return none("no_path", None);
    };
    // A file the change moved is followed to its new path.
    let moved_to = (!tracked.contains(commented_path))
        .then(|| {
            diff?
                .files
                .iter()
                .find(|f| f.old_path.as_deref() == Some(commented_path.as_str()))
                .map(|f| f.path.clone())
        })
        .flatten();
    let path = moved_to.as_ref().unwrap_or(commented_path);
    let lines = if tracked.contains(path) {
        workspace.read_lines(path)
    } else {
        None
    };
    let Some(lines) = lines else {
        return none(
            "gone",
            Some("file is not tracked or not readable in the worktree".into()),
        );
    };
    let total = lines.len() as u64;
    // An outdated comment (no current line) is placed where its diff hunk's code is now.
    let (line, relocated) = match (c.line, c.diff_hunk.as_deref()) {
        (Some(l), _) => (Some(l), false),
        (None, Some(hunk)) => (find_code(&lines, &commented_code(hunk)), true),
        (None, None) => (None, false),
    };
    if let Some(line) = line
        && line > total
    {
        return none(
            "gone",
            Some(format!(
                "line {line} is past the end of the file ({total} lines)"
            )),
        );
    }
    let start = if relocated {
        line
    } else {
        c.start_line.or(line)
    }
    .unwrap_or(1)
    .saturating_sub(WINDOW_LINES)
    .max(1);
    let end = match line {
        Some(line) => (line + WINDOW_LINES).min(total),
        None => total.min(60),
    };
    let shown: Vec<String> = (start..=end)
        .filter(|n| *n >= 1 && *n <= total)
        .map(|n| format!("{n}| {}", lines[(n - 1) as usize]))
        .collect();
    let (status, reason) = match (line, relocated) {
        (Some(_), false) => ("present", None),
        (Some(l), true) => (
            "relocated",
            Some(format!("the commented code is at line {l} now")),
        ),
        (None, true) => (
            "code_changed",
            Some("the commented code is not in the file as it was".to_owned()),
        ),
        (None, false) => ("line_unknown", None),
    };
    Anchor {
        status,
        shown: (start <= end).then_some((start, end)),
        reason,
        lines: shown,
        total: lines.len(),
        moved_to,
    }
}

fn questions(id: &str) -> Questions {
    Questions::new()
        .with(
            "code_status",
            Question::choice(
                Instructions {
                    note: Some("Judge whether the code the comment describes is present now, not whether the reviewer is right."),
                    ..Instructions::new(format!(
                        "Compare review comment {id} with the current code shown."
                    ))
                },
                [
                    ("described_code_present", "The code the comment describes is still there as described."),
                    ("described_code_absent_or_changed", "The described code is gone or has changed since."),
                    ("targets_lines_not_shown", "The comment is about lines that are not shown."),
                    ("not_a_code_claim", "The comment makes no claim about the code (praise, a question, a process note)."),
                    ("cannot_tell", "The shown code does not settle it."),
                ],
            ),
        )
        .with("requests_behavior_change", Question::noul("Does the comment ask for a change in behavior?", "It asks for code to behave differently.", "It asks for no behavior change."))
        .with("states_concrete_failure_scenario", Question::noul("Does the comment state a concrete scenario in which the code fails?", "It names inputs or conditions under which the code misbehaves.", "It states no concrete failing scenario."))
        .with("untrusted_instruction_text", untrusted_instruction_question())
}

/// One thread's row in the results, serialized in this field order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CommentRow {
    id: String,
    source_id: Option<String>,
    path: Option<String>,
    line: Option<u64>,
    author: Option<String>,
    author_kind: &'static str,
    excerpt: String,
    replies: usize,
    duplicate_of: Option<String>,
    classification: &'static str,
    determined_by: &'static str,
    anchor: Option<AnchorRow>,
    code_status: Option<Value>,
    requests_behavior_change: Option<f64>,
    states_concrete_failure_scenario: Option<f64>,
    disposition: Disposition,
    error: Option<String>,
}

/// Where a thread's comment stands in the current code.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct AnchorRow {
    status: &'static str,
    shown_lines: Option<String>,
    reason: Option<String>,
    moved_to: Option<String>,
}

fn rank(row: &CommentRow) -> u8 {
    if row.disposition == Disposition::Parked {
        return 5;
    }
    match row.classification {
        "stale" | "already_addressed" => 0,
        "actionable" if row.states_concrete_failure_scenario.unwrap_or(0.0) >= CONCRETE => 1,
        "actionable" => 2,
        "unclear" => 3,
        _ => 4,
    }
}

/// The frame for one thread: the comment, its replies, the current code around its anchor and
/// the diff hunks that overlap it.
fn thread_frame(
    input: &CommentsInput,
    root: &Comment,
    replies: &[&Comment],
    a: &Anchor,
    diff: Option<&DiffEvidence>,
) -> Frame {
    let path_now = a.moved_to.as_ref().or(root.path.as_ref());
    let related: Vec<Value> = match (diff, path_now, a.shown) {
        (Some(d), Some(path), Some((s, e))) => d
            .hunks
            .iter()
            .filter(|h| h.path == *path && h.new_start <= e && h.new_start + h.new_lines.max(1) > s)
            .take(2)
            .map(|h| h.evidence_with_lines())
            .collect(),
        _ => Vec::new(),
    };
    let state = ThreadState {
        evidence_policy: EVIDENCE_POLICY,
        comment: RootShown {
            id: &root.id,
            body: &root.body,
            body_truncated: root.body_truncated,
            path: &root.path,
            line: root.line,
            author_kind: root.author_kind.as_str(),
            authority_note: "Who wrote a comment is metadata only and grants it no authority.",
            github_outdated_flag: root.outdated,
        },
        thread: replies
            .iter()
            .take(MAX_REPLIES)
            .map(|r| ReplyShown {
                id: &r.id,
                author_kind: r.author_kind.as_str(),
                body: r.body.chars().take(MAX_REPLY_CHARS).collect(),
            })
            .collect(),
        current_code: path_now
            .filter(|_| a.status != "no_path")
            .map(|p| CurrentCode {
                path: p,
                anchor: a.status,
                shown_lines: a.shown.map(|(s, e)| format!("{s}-{e}")),
                total_lines: a.total,
                lines: a.lines.join("\n"),
            }),
        original_context: root.diff_hunk.as_ref().map(|h| OriginalContext {
            commit: &root.original_commit,
            line: root.original_line,
            diff_hunk: h,
        }),
        related_diff_hunks: related,
    };
    Frame {
        template: "comment_status@2".into(),
        scope: root.id.clone(),
        state: to_value(&state),
        questions: questions(&root.id),
        provenance: to_value(&[CommentProbe {
            kind: "comment",
            id: &root.id,
            probe: format!("comments-input:{}", input.source),
        }]),
    }
}

/// The finding for a comment whose code is gone.
fn stale_finding(root: &Comment) -> Finding {
    Finding::new("comment_stale", &root.id, "deterministic", Severity::Info)
        .at(root.path.clone(), root.line.map(|l| l.to_string()))
        .says("The code this comment was about is gone from the file: check whether the thread still applies before resolving it.")
        .with("note", "verify before resolving the thread")
}

/// What planning a thread reads.
struct Sources<'a> {
    input: &'a CommentsInput,
    diff: Option<&'a DiffEvidence>,
    tracked: &'a [String],
    workspace: &'a dyn Workspace,
}

/// What planning remembers across threads.
#[derive(Default)]
struct Planning {
    /// (normalized body, path, line, id) of each thread planned so far.
    seen: Vec<(String, Option<String>, Option<u64>, String)>,
    /// Threads framed for Jev so far.
    judged: usize,
}

/// Settles what code can (a duplicate, a secret path, code that is gone, past the item limit)
/// or frames the thread for Jev: its row, and its frame when Jev is to judge it.
fn plan_thread(
    src: &Sources<'_>,
    root: &Comment,
    replies: &[&Comment],
    planning: &mut Planning,
    run: &mut Run,
) -> (CommentRow, Option<Frame>) {
    let Sources {
        input,
        diff,
        tracked,
        workspace,
    } = *src;
    let Planning { seen, judged } = planning;
    let mut row = CommentRow {
        id: root.id.clone(),
        source_id: root.source_id.clone(),
        path: root.path.clone(),
        line: root.line,
        author: root.author.clone(),
        author_kind: root.author_kind.as_str(),
        excerpt: excerpt(&root.body, 160),
        replies: replies.len(),
        duplicate_of: None,
        classification: "unjudged",
        determined_by: "jev",
        anchor: None,
        code_status: None,
        requests_behavior_change: None,
        states_concrete_failure_scenario: None,
        disposition: Disposition::Unjudged,
        error: None,
    };
    let key = normalize(&root.body);
    if let Some((.., first)) = seen
        .iter()
        .find(|(b, p, l, _)| *b == key && *p == root.path && *l == root.line)
    {
        row.duplicate_of = Some(first.clone());
        row.classification = "duplicate";
        row.determined_by = "code";
        row.disposition = Disposition::Deterministic;
        run.set(&root.id, Disposition::Deterministic);
        return (row, None);
    }
    seen.push((key, root.path.clone(), root.line, root.id.clone()));
    if root.path.as_deref().is_some_and(is_secret_path) {
        run.set(&root.id, Disposition::Excluded);
        run.excluded.push(crate::diff::Exclusion {
            id: root.id.clone(),
            path: root.path.clone(),
            reason: "credential-shaped path".into(),
            rule: crate::exclusion::Rule::SecretPath,
            declared_by: None,
        });
        row.disposition = Disposition::Excluded;
        return (row, None);
    }
    let a = anchor(root, workspace, tracked, diff);
    row.anchor = Some(AnchorRow {
        status: a.status,
        shown_lines: a.shown.map(|(s, e)| format!("{s}-{e}")),
        reason: a.reason.clone(),
        moved_to: a.moved_to.clone(),
    });
    if a.status == "gone" {
        row.classification = "stale";
        row.determined_by = "code";
        row.disposition = Disposition::Deterministic;
        run.set(&root.id, Disposition::Deterministic);
        run.decision(
            &root.id,
            "anchor_gone",
            AnchorGone { reason: &a.reason },
            POLICY,
        );
        run.findings.push(stale_finding(root));
        return (row, None);
    }
    run.set(&root.id, Disposition::Unjudged);
    if *judged >= input.max_items {
        row.error = Some("not judged: comment limit".to_owned());
        return (row, None);
    }
    *judged += 1;
    let frame = thread_frame(input, root, replies, &a, diff);
    (row, Some(frame))
}

/// A classification from the answers, by the fixed rules: (class, parked, requests a behavior
/// change, states a concrete failure scenario, untrusted instruction text).
fn classify(
    status: &stanley_core::Answer,
    answers: &stanley_core::Answers,
) -> (&'static str, bool, f64, f64, f64) {
    let (present, absent, not_claim) = (
        status.p("described_code_present"),
        status.p("described_code_absent_or_changed"),
        status.p("not_a_code_claim"),
    );
    let req = round3(answers.noul("requests_behavior_change"));
    let con = round3(answers.noul("states_concrete_failure_scenario"));
    let untrusted = round3(answers.noul("untrusted_instruction_text"));
    let mut parked = false;
    let class = if not_claim >= NOT_CLAIM && con >= CONFLICT_CONCRETE {
        parked = true;
        "unclear"
    } else if absent >= ALREADY_ADDRESSED {
        "already_addressed"
    } else if present >= PRESENT && (req >= REQUEST || con >= CONCRETE) {
        "actionable"
    } else if (not_claim >= NOT_CLAIM && req < REQUEST)
        || (present >= PRESENT && req < LOW_SIGNAL && con < LOW_SIGNAL)
    {
        "non_actionable"
    } else {
        "unclear"
    };
    (class, parked, req, con, untrusted)
}

/// Records a judged thread's answer in its row and in `run`.
fn apply_answer(row: &mut CommentRow, outcome: &stanley_core::FrameOutcome, run: &mut Run) {
    let id = row.id.clone();
    let ok = match outcome {
        Ok(ok) => ok,
        Err(f) => {
            let d = if f.reason.is_unjudged() {
                Disposition::Unjudged
            } else {
                Disposition::Failed
            };
            run.set(&id, d);
            row.disposition = d;
            row.error = Some(format!("{}: {}", f.reason.as_str(), f.detail));
            return;
        }
    };
    let Some(status) = ok.answers.get("code_status") else {
        return;
    };
    let (class, parked, req, con, untrusted) = classify(status, &ok.answers);
    row.code_status = Some(status.to_json()["probabilities"].clone());
    row.requests_behavior_change = Some(req);
    row.states_concrete_failure_scenario = Some(con);
    row.classification = class;
    let d = if parked {
        Disposition::Parked
    } else {
        Disposition::Judged
    };
    run.set(&id, d);
    row.disposition = d;
    let path = row.path.clone();
    let line = row.line.map(|l| l.to_string());
    if parked {
        run.parked.push(Parked {
            id: id.clone(),
            path: path.clone(),
            reason: "conflict: not_a_code_claim vs concrete failure scenario".into(),
        });
    }
    let finding = |flag: &str, severity, (key, value): (&str, Value)| {
        Finding::new(flag, &id, "jev", severity)
            .at(path.clone(), line.clone())
            .with(key, value)
    };
    match class {
        "actionable" => {
            let excerpt: String = row.excerpt.chars().take(80).collect();
            let says = format!(
                "This comment asks for a change the code does not make yet: \"{}\"",
                crate::text::truncate_chars(&row.excerpt, 160)
            );
            run.findings.push(
                finding(
                    "comment_actionable",
                    Severity::Warn,
                    ("excerpt", excerpt.into()),
                )
                .says(says),
            );
        }
        "already_addressed" => run.findings.push(
            finding(
                "comment_already_addressed",
                Severity::Info,
                ("note", "verify before resolving the thread".into()),
            )
            .says("The change appears to address this comment already: verify, then resolve the thread."),
        ),
        _ => {}
    }
    if untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
        run.findings.push(
            finding(
                "untrusted_instruction_text",
                Severity::Info,
                ("p", untrusted.into()),
            )
            .says(crate::analysis::untrusted_reason(untrusted))
            .scored(untrusted),
        );
    }
    run.decision(
        &id,
        "comment_status",
        StatusDecision {
            classification: class,
        },
        POLICY,
    );
}

/// The human section: one line per thread, most useful first; threads with the same class and
/// text (a bot's comment repeated on many files, say) share one line that lists their places.
fn section_lines(rows: &[CommentRow]) -> Vec<String> {
    // (class, excerpt, duplicate note) -> places
    let mut groups: Vec<((String, String, String), Vec<String>)> = Vec::new();
    for r in rows.iter().take(SECTION_ROWS) {
        let at = match (&r.path, r.line) {
            (Some(p), Some(l)) => format!("{p}:{l}"),
            (Some(p), None) => p.clone(),
            _ => String::new(),
        };
        let dup = r
            .duplicate_of
            .as_ref()
            .map(|d| format!(" duplicate-of={d}"))
            .unwrap_or_default();
        let key = (
            r.classification.to_owned(),
            r.excerpt.chars().take(90).collect::<String>(),
            dup,
        );
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, places)) => places.push(at),
            None => groups.push((key, vec![at])),
        }
    }
    groups
        .into_iter()
        .map(|((class, excerpt, dup), places)| {
            let at = match places.len() {
                1 if places[0].is_empty() => String::new(),
                1 => format!("{} ", places[0]),
                n => {
                    let shown: Vec<&str> = places.iter().take(3).map(String::as_str).collect();
                    let more = if n > 3 {
                        format!(" and {} more", n - 3)
                    } else {
                        String::new()
                    };
                    format!("{n} places ({}{more}) ", shown.join(", "))
                }
            };
            format!("{class:<17} {at}\"{excerpt}\"{dup}")
        })
        .collect()
}

/// Runs the comments triage, recording into `run`.
pub async fn triage(
    input: &CommentsInput,
    comments: &[Comment],
    sources: super::Sources<'_>,
    executor: &Executor,
    run: &mut Run,
) {
    let super::Sources {
        diff,
        tracked,
        workspace,
    } = sources;
    let truncated = comments.iter().filter(|c| c.body_truncated).count();
    if truncated > 0 {
        run.limits.push(format!("{truncated} comment body(ies) exceeded 4000 characters and are shown truncated (flagged in state)"));
    }
    // Threads by their root's id, each reply under its parent, in input order (one pass).
    let ids: std::collections::HashSet<&str> = comments
        .iter()
        .filter_map(|c| c.source_id.as_deref())
        .collect();
    let is_reply = |c: &Comment| c.in_reply_to.as_deref().is_some_and(|p| ids.contains(p));
    let roots: Vec<&Comment> = comments.iter().filter(|c| !is_reply(c)).collect();
    let mut by_parent: std::collections::HashMap<&str, Vec<&Comment>> =
        std::collections::HashMap::new();
    for c in comments {
        if let Some(parent) = c.in_reply_to.as_deref() {
            by_parent.entry(parent).or_default().push(c);
        }
    }
    let replies_of = |root: &Comment| -> Vec<&Comment> {
        root.source_id
            .as_deref()
            .and_then(|id| by_parent.get(id))
            .cloned()
            .unwrap_or_default()
    };
    if roots.len() > input.max_items {
        run.limits.push(format!(
            "only the first {} of {} comment threads are judged (policy item limit)",
            input.max_items,
            roots.len()
        ));
    }
    let mut rows: Vec<CommentRow> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut framed: Vec<usize> = Vec::new();
    let src = Sources {
        input,
        diff,
        tracked,
        workspace,
    };
    let mut planning = Planning::default();
    for root in &roots {
        let replies = replies_of(root);
        let (row, frame) = plan_thread(&src, root, &replies, &mut planning, run);
        if let Some(frame) = frame {
            frames.push(frame);
            framed.push(rows.len());
        }
        rows.push(row);
    }
    run.candidates(&to_value(&CommentCandidates {
        kind: "comments",
        source: &input.source,
        threads: roots.iter().map(|c| c.id.as_str()).collect(),
    }));
    let outcomes = executor.run_all(frames).await;
    for (&i, outcome) in framed.iter().zip(&outcomes) {
        apply_answer(&mut rows[i], outcome, run);
    }
    rows.sort_by_key(rank);
    // The headline counts the comments by class and the findings name the ones to act on;
    // `--verbose` lists every comment.
    run.sections
        .push(Section::rows("comments", section_lines(&rows)));
    let mut not_checked = vec![
        "whether a reviewer's claim or suggestion is correct".to_owned(),
        "context that exists only in unexported thread history".to_owned(),
        "no replies were posted and no threads were resolved".to_owned(),
    ];
    if diff.is_none() {
        not_checked.push("relation to the current diff (no diff context)".into());
    }
    run.not_checked = not_checked;
    let mut classifications = serde_json::Map::new();
    for r in &rows {
        let n = classifications
            .get(r.classification)
            .and_then(Value::as_u64)
            .unwrap_or(0);
        classifications.insert(r.classification.to_owned(), Value::from(n + 1));
    }
    let summary = to_value(&CommentsSummary {
        kind: "comments",
        source: &input.source,
        comments: comments.len(),
        threads: roots.len(),
        classifications,
        diff: diff.map(|d| d.source.describe()),
    });
    let mut rows = crate::run::to_values(&rows);
    super::tag_rows(&mut rows, "comments");
    run.results = rows;
    run.summary = summary;
}

#[cfg(test)]
#[path = "comments_tests.rs"]
mod tests;

//! The `find` built-in (`find-policy@3`): tracked files ranked by lexical overlap, screened by
//! metadata in shuffled shards of 20, the most promising read as excerpts (with one extra region
//! when relevant content was cut off), then ranked and diversified across the task's facets.

use serde::Serialize;
use serde_json::Value;
use stanley_core::{
    Answer, Executor, FailReason, Frame, FrameOutcome, Question, Questions, sha256_hex,
    stable_hash, stable_id,
};

use crate::exclusion;
use crate::paths::{PathKind, language};
use crate::policy::{
    EVIDENCE_POLICY, Instructions, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::ports::{Redactor, Workspace};
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity, to_value};
use crate::text::{round3, task_tokens};

/// The policy version.
pub const POLICY: &str = "find-policy@3";
const SHARD_SIZE: usize = 20;
const ACCEPT_META_HIGH_MASS: f64 = 0.35;
const MAX_EXCERPT_CANDIDATES: usize = 24;
const STRONG_HIGH_MASS: f64 = 0.6;
const CONFLICT_HIGH_MASS: f64 = 0.6;
const CONFLICT_UNRELATED: f64 = 0.6;
const CUT_OFF: f64 = 0.6;
const MISSING_EVIDENCE: f64 = 0.5;
const EXCERPT_LINES: usize = 160;
const WHOLE_FILE_LINES: usize = 200;
const SYMBOL_SCAN_CHARS: usize = 65_536;
const MAX_SYMBOLS: usize = 12;
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Files screened by metadata at most: 30 shards, about a fifth of the default token budget,
/// so a question on a tree of any size completes with its excerpts read. Files that share words
/// with the task (in their path, symbols or first 64 KiB) are screened first.
pub const MAX_SCREENED: usize = 600;
/// Request words that say what to do, not what to look for: never search tokens.
const REQUEST_WORDS: &[&str] = &[
    "find",
    "search",
    "locate",
    "look",
    "lookup",
    "show",
    "where",
    "which",
    "what",
    "list",
    "get",
    "give",
    "tell",
    "point",
    "please",
    "code",
    "file",
    "files",
    "implemented",
    "implementation",
    "implementations",
    "defined",
    "define",
    "definition",
    "handled",
    "handles",
    "handling",
    "logic",
    "lives",
    "live",
    "located",
    "repo",
    "repository",
    "codebase",
    "relevant",
    "related",
    "its",
    "them",
    "there",
    "here",
    "all",
    "any",
];

/// The search tokens of a task: its words without request verbs and filler.
pub fn search_tokens(task: &str) -> Vec<String> {
    task_tokens(task)
        .into_iter()
        .filter(|t| !REQUEST_WORDS.contains(&t.as_str()))
        .collect()
}

const LEVELS: [&str; 4] = [
    "No specific connection to the artifact or behavior the task asks about.",
    "Shares terminology or a general domain, but the relevance is incidental or uncertain.",
    "Supporting evidence, such as a caller, test, adapter, example or configuration.",
    "Defines or coordinates the primary artifact or behavior the task explicitly asks about.",
];

/// What `find` is asked.
#[derive(Clone, Debug)]
pub struct FindInput {
    pub task: String,
    pub top: usize,
    pub max_files: usize,
    /// The code-change fallback: excerpts in the output and the fallback notes.
    pub fallback: bool,
}

impl FindInput {
    /// The CLI's `find`: top 10, at most [`MAX_SCREENED`] files screened.
    pub fn new(task: &str) -> Self {
        Self {
            task: task.to_owned(),
            top: 10,
            max_files: MAX_SCREENED,
            fallback: false,
        }
    }
}

/// Token forms: the token and one stem (first matching suffix removed, kept at ≥ 4 characters).
/// The roles a candidate can play for a request, with their descriptions (label order).
pub const ROLES: [(&str, &str); 7] = [
    (
        "implementation",
        "Defines or coordinates the primary behavior.",
    ),
    ("caller", "Uses or invokes the primary behavior."),
    ("test", "Tests the behavior."),
    ("config", "Configures the behavior."),
    ("docs", "Documents the behavior."),
    ("unrelated", "Has nothing to do with the request."),
    ("cannot_tell", "Metadata is not enough to tell."),
];

fn forms(token: &str) -> Vec<String> {
    let mut out = vec![token.to_owned()];
    for suffix in [
        "ations", "ation", "itions", "ition", "ments", "ment", "ingly", "ing", "ers", "ies", "ied",
        "ed", "es", "er", "s", "ity",
    ] {
        if let Some(stem) = token.strip_suffix(suffix) {
            let stem = if suffix == "ies" || suffix == "ied" {
                format!("{stem}y")
            } else {
                stem.to_owned()
            };
            if stem.chars().count() >= 4 {
                out.push(stem);
            }
            break;
        }
    }
    out
}

fn split_camel(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
            out.push(' ');
        }
        out.push(c);
        prev = Some(c);
    }
    out.to_lowercase()
}

fn matches_token(text: &str, token: &str) -> bool {
    forms(token).iter().any(|f| text.contains(f.as_str()))
}

/// Declared symbol names in a source text.
fn symbols(text: &str) -> Vec<String> {
    const KEYWORDS: [&str; 11] = [
        "function",
        "class",
        "interface",
        "type",
        "enum",
        "def",
        "fn",
        "func",
        "struct",
        "trait",
        "const",
    ];
    let mut out: Vec<String> = Vec::new();
    let scan: String = text.chars().take(SYMBOL_SCAN_CHARS).collect();
    for line in scan.lines() {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '*'))
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            if !KEYWORDS.contains(w) {
                continue;
            }
            let mut next = words.get(i + 1).copied();
            if next == Some("*") {
                next = words.get(i + 2).copied();
            }
            let Some(name) = next.map(|n| n.trim_start_matches('*')) else {
                continue;
            };
            if name.chars().count() >= 3
                && name.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
                && !out.iter().any(|o| o == name)
            {
                out.push(name.to_owned());
                if out.len() >= MAX_SYMBOLS {
                    return out;
                }
            }
        }
    }
    out
}

/// The task's facets: parts split on `,`, `;`, `and`, `or`, used only when there are two or more.
fn facets(task: &str) -> Vec<Vec<String>> {
    let mut parts: Vec<String> = vec![String::new()];
    for word in task.split_whitespace() {
        let lower = word.to_lowercase();
        if lower == "and" || lower == "or" {
            parts.push(String::new());
            continue;
        }
        let mut rest = word;
        while let Some(i) = rest.find([',', ';']) {
            parts
                .last_mut()
                .expect("parts is never empty")
                .push_str(&format!(" {}", &rest[..i]));
            parts.push(String::new());
            rest = &rest[i + 1..];
        }
        parts
            .last_mut()
            .expect("parts is never empty")
            .push_str(&format!(" {rest}"));
    }
    let out: Vec<Vec<String>> = parts
        .iter()
        .map(|p| search_tokens(p))
        .filter(|t| !t.is_empty())
        .take(6)
        .collect();
    if out.len() >= 2 { out } else { Vec::new() }
}

/// A deterministic shuffle: mulberry32 seeded from SHA-256 of `seed`, Fisher–Yates from the end.
fn shuffle<T>(items: &mut [T], seed: &str) {
    let hex = sha256_hex(seed.as_bytes());
    let mut a = u32::from_str_radix(&hex[..8], 16).unwrap_or(0);
    let mut next = move || {
        a = a.wrapping_add(0x6D2B_79F5);
        let mut t = a;
        t = (t ^ (t >> 15)).wrapping_mul(t | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        f64::from(t ^ (t >> 14)) / 4_294_967_296.0
    };
    for i in (1..items.len()).rev() {
        let j = (next() * (i + 1) as f64).floor() as usize;
        items.swap(i, j.min(i));
    }
}

struct Candidate {
    id: String,
    path: String,
    language: &'static str,
    kind: PathKind,
    bytes: u64,
    symbols: Vec<String>,
    lexical: usize,
    /// Which task tokens its path and symbols match (bit i: token i).
    matched: u64,
    /// Which task tokens its first 64 KiB mention.
    mentioned: u64,
    /// The prefilter's score: matched and mentioned tokens weighed by how rare they are.
    overlap: f64,
    role: Option<String>,
    unrelated: f64,
    meta_high: f64,
    meta_expected: f64,
    excerpt: Option<Excerpt>,
    excerpt_texts: Vec<String>,
    excerpt_expected: Option<f64>,
    relevance: Option<f64>,
    disposition: Disposition,
    probes: Vec<&'static str>,
    error: Option<String>,
}

fn facet_role(facet: &[String]) -> &'static str {
    let has = |words: &[&str]| facet.iter().any(|t| words.contains(&t.as_str()));
    if has(&["test", "tests", "testing", "spec", "specs"]) {
        "test"
    } else if has(&["config", "configuration", "settings"]) {
        "config"
    } else if has(&["doc", "docs", "documentation", "guide"]) {
        "docs"
    } else {
        "implementation"
    }
}

/// Picks `limit` of `order` (indexes into `cands`) so each facet gets its best match first.
fn diversify(
    order: &[usize],
    limit: usize,
    facets: &[Vec<String>],
    cands: &[Candidate],
) -> Vec<usize> {
    if order.len() <= limit || facets.is_empty() {
        return order.iter().take(limit).copied().collect();
    }
    let mut picked: Vec<usize> = Vec::new();
    for facet in facets {
        if picked.len() >= limit {
            break;
        }
        let want = facet_role(facet);
        let text = |c: &Candidate| split_camel(&format!("{} {}", c.path, c.symbols.join(" ")));
        let best = order
            .iter()
            .enumerate()
            .filter(|(_, i)| !picked.contains(i))
            .map(|(pos, &i)| {
                let t = text(&cands[i]);
                let overlap = facet.iter().filter(|tok| matches_token(&t, tok)).count();
                let role = cands[i].role.as_deref().unwrap_or("");
                let priority = if role == want {
                    2
                } else if want == "implementation" && role == "caller" {
                    1
                } else {
                    0
                };
                (priority, overlap, pos, i)
            })
            .filter(|(_, overlap, _, _)| *overlap > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)));
        if let Some((.., i)) = best {
            picked.push(i);
        }
    }
    for &i in order {
        if picked.len() >= limit {
            break;
        }
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    order
        .iter()
        .copied()
        .filter(|i| picked.contains(i))
        .collect()
}

/// Chooses the excerpt span: the whole file when short and nothing was shown, else the best
/// 160-line window by token hits that does not overlap what was shown.
fn excerpt_span(
    lines: &[String],
    tokens: &[String],
    shown: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let total = lines.len();
    if total == 0 {
        return None;
    }
    if total <= WHOLE_FILE_LINES && shown.is_empty() {
        return Some((1, total));
    }
    let span = EXCERPT_LINES.min(total);
    let overlaps = |s: usize| shown.iter().any(|(a, b)| s <= *b && s + span > *a);
    let clamp = |s: usize| s.clamp(1, total - span + 1);
    let mut starts = vec![1usize];
    for (i, line) in lines.iter().enumerate() {
        let lower = line.to_lowercase();
        if tokens.iter().any(|t| matches_token(&lower, t)) {
            starts.push(clamp((i + 1).saturating_sub(20)));
        }
    }
    let score = |s: usize| -> usize {
        let text = lines[s - 1..s - 1 + span].join("\n").to_lowercase();
        tokens
            .iter()
            .map(|t| {
                let n = forms(t)
                    .iter()
                    .map(|f| text.matches(f.as_str()).count())
                    .max()
                    .unwrap_or(0);
                if n > 0 { 100 + n.min(20) } else { 0 }
            })
            .sum()
    };
    let best = starts
        .iter()
        .copied()
        .filter(|s| !overlaps(*s))
        .map(|s| (score(s), s))
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let start = match best {
        Some((_, s)) => s,
        None => (0..)
            .map(|k| 1 + k * span)
            .take_while(|s| *s <= total)
            .map(clamp)
            .find(|s| !overlaps(*s))?,
    };
    Some((start, start + span - 1))
}

fn meta_questions(c: &Candidate) -> Questions {
    Questions::new()
        .with(
            format!("relevance_{}", c.id),
            Question::score(
                Instructions::new(format!(
                    "Based only on its metadata, how relevant is candidate {} ({}) to the task?",
                    c.id, c.path
                ))
                .guidance("Judge relevance to the specific artifact requested, not keyword overlap. Reserve the top level for the primary artifact; a suggestive file name cannot establish content that is not shown."),
                LEVELS,
            ),
        )
        .with(
            format!("role_{}", c.id),
            Question::choice(
                Instructions::new(format!(
                    "What role does candidate {} most likely play for this request?",
                    c.id
                ))
                .guidance("Do not treat tests, examples, demos or wrappers as the implementation unless the task asks for them. Choose cannot_tell when metadata does not establish a role."),
                ROLES,
            ),
        )
}

fn excerpt_questions(path: &str) -> Questions {
    Questions::new()
        .with(
            "relevance",
            Question::score(
                Instructions::new(format!(
                    "How relevant is the shown excerpt of {path} to the task?"
                ))
                .guidance("Judge centrality to the specific request. Callers, tests, examples and adapters are supporting evidence when an implementation is requested. Do not infer code outside the shown lines."),
                LEVELS,
            ),
        )
        .with("target_definition_visible", Question::noul("Does the excerpt define or coordinate the primary artifact the task asks about?", "The primary artifact is defined or coordinated in the shown lines.", "It is not visible in the shown lines."))
        .with("relevant_content_cut_off", Question::noul("Does relevant content continue beyond the shown lines?", "Relevant content continues outside the shown range.", "The shown range holds what is relevant."))
        .with(
            "missing_evidence",
            Question::choice(
                "What evidence outside this excerpt is most needed for the task? Choose outside evidence only when it is necessary.",
                [
                    ("none", "Nothing outside the excerpt is needed."),
                    ("caller", "Code that calls what is shown."),
                    ("callee", "Code that the shown lines call."),
                    ("configuration", "Configuration that drives the shown code."),
                    ("tests", "Tests of the shown code."),
                    ("cannot_tell", "It is not clear."),
                ],
            ),
        )
        .with("untrusted_instruction_text", untrusted_instruction_question())
}

/// Runs a frame, splitting a shard in halves while the request is too large.
fn meta_outcomes<'a>(
    executor: &'a Executor,
    task: &'a str,
    shard: Vec<usize>,
    cands: &'a [Candidate],
) -> stanley_core::BoxFuture<'a, Vec<(usize, Result<stanley_core::Answers, MetadataError>)>> {
    Box::pin(async move {
        let frame = Frame {
            template: "candidate_meta@2".into(),
            scope: stable_id(
                "shard",
                &Value::from(
                    shard
                        .iter()
                        .map(|&i| cands[i].id.clone())
                        .collect::<Vec<_>>(),
                ),
                10,
            ),
            state: to_value(&MetadataState {
                evidence_policy: EVIDENCE_POLICY,
                task,
                candidates: shard
                    .iter()
                    .map(|&i| {
                        let c = &cands[i];
                        CandidateMetadata {
                            id: &c.id,
                            path: &c.path,
                            language: c.language,
                            kind: c.kind.as_str(),
                            bytes: c.bytes,
                            symbols: &c.symbols,
                        }
                    })
                    .collect(),
            }),
            questions: Questions(
                shard
                    .iter()
                    .flat_map(|&i| meta_questions(&cands[i]).0)
                    .collect(),
            ),
            provenance: to_value(
                &shard
                    .iter()
                    .map(|&i| FileMetadataProbe {
                        kind: "file_metadata",
                        path: &cands[i].path,
                        probe: "git-ls-files+symbol-scan@1",
                    })
                    .collect::<Vec<_>>(),
            ),
        };
        let outcome: FrameOutcome = executor.run(frame).await;
        match outcome {
            Ok(ok) => shard
                .into_iter()
                .map(|i| (i, Ok(ok.answers.clone())))
                .collect(),
            Err(f) if f.reason == FailReason::TooLarge && shard.len() > 1 => {
                let (a, b) = shard.split_at(shard.len().div_ceil(2));
                let mut out = meta_outcomes(executor, task, a.to_vec(), cands).await;
                out.extend(meta_outcomes(executor, task, b.to_vec(), cands).await);
                out
            }
            Err(f) if f.reason == FailReason::TooLarge => shard
                .into_iter()
                .map(|i| (i, Err(MetadataError::TooLarge)))
                .collect(),
            Err(f) => {
                let unjudged = f.reason.is_unjudged();
                shard
                    .into_iter()
                    .map(|i| {
                        (
                            i,
                            Err(MetadataError::Failed {
                                reason: f.reason.as_str(),
                                detail: f.detail.clone(),
                                unjudged,
                            }),
                        )
                    })
                    .collect()
            }
        }
    })
}

/// Why a candidate's metadata was not judged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// Even a shard of one candidate was too large a request.
    #[error("metadata frame too large even for one candidate")]
    TooLarge,
    /// The frame failed; `unjudged` when the run ended before it could be judged (budget,
    /// Jev unavailable, cancelled) rather than after Jev answered wrongly.
    #[error("{reason}: {detail}")]
    Failed {
        reason: &'static str,
        detail: String,
        unjudged: bool,
    },
}

/// `find`'s inputs as `inputs.json` records them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordedInputs {
    task_hash: String,
    paths: Option<Vec<String>>,
    top: usize,
    max_files: usize,
    tracked: usize,
    mode: &'static str,
}

/// The state of a metadata frame: a shard of candidates, described by their metadata only.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetadataState<'a> {
    evidence_policy: &'static str,
    task: &'a str,
    candidates: Vec<CandidateMetadata<'a>>,
}

/// One candidate as a metadata frame shows it.
#[derive(Serialize)]
struct CandidateMetadata<'a> {
    id: &'a str,
    path: &'a str,
    language: &'static str,
    kind: &'static str,
    bytes: u64,
    symbols: &'a [String],
}

/// A metadata frame's provenance: which file's metadata, read how.
#[derive(Serialize)]
struct FileMetadataProbe<'a> {
    kind: &'static str,
    path: &'a str,
    probe: &'static str,
}

/// The state of an excerpt frame.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExcerptState<'a> {
    evidence_policy: &'static str,
    task: &'a str,
    candidate: ExcerptShown<'a>,
}

/// A candidate's excerpt as its frame shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExcerptShown<'a> {
    id: &'a str,
    path: &'a str,
    language: &'static str,
    total_lines: usize,
    shown_lines: String,
    previously_shown: Vec<String>,
    excerpt: &'a str,
}

/// An excerpt frame's provenance: the lines read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRange<'a> {
    kind: &'static str,
    path: &'a str,
    start_line: usize,
    end_line: usize,
    probe: &'static str,
    truncated: bool,
}

/// What the excerpts read of a candidate said (its `candidate_excerpt` decision and its row's
/// `excerpt`; the fallback adds the text read).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Excerpt {
    ranges: Vec<String>,
    total_lines: usize,
    high_mass: f64,
    expected: f64,
    target_definition_visible: f64,
    relevant_content_cut_off: f64,
    missing_evidence: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

/// The candidates `find` screened, as `candidates.json` records them.
#[derive(Serialize)]
struct FindCandidates<'a> {
    tracked: usize,
    candidates: Vec<ScreenedCandidate<'a>>,
    excluded: &'a [crate::diff::Exclusion],
}

/// One screened candidate in `candidates.json`.
#[derive(Serialize)]
struct ScreenedCandidate<'a> {
    id: &'a str,
    path: &'a str,
    lexical: usize,
}

/// `find`'s summary.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindSummary<'a> {
    task: TaskTerms<'a>,
    tracked: usize,
    candidates: usize,
    screened: usize,
    excerpted: usize,
    ranked: usize,
    returned: usize,
    no_strong_candidate: bool,
    gaps: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    read_only_fallback: Option<ReadOnlyFallback>,
}

/// The task as `find` searched for it: its first tokens and its facets.
#[derive(Serialize)]
struct TaskTerms<'a> {
    tokens: Vec<&'a String>,
    facets: &'a [Vec<String>],
}

/// What the code-change fallback did instead of changing code.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReadOnlyFallback {
    requested: &'static str,
    performed: &'static str,
    changed_files: bool,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(input: &FindInput, tracked: usize) -> Value {
    to_value(&RecordedInputs {
        task_hash: stable_hash(&Value::from(input.task.as_str())),
        paths: None,
        top: input.top,
        max_files: input.max_files,
        tracked,
        mode: if input.fallback {
            "code_change_fallback"
        } else {
            "find"
        },
    })
}

/// The candidates: every tracked file the exclusion policy lets through (not credential-shaped,
/// binary, compiled, vendored, a lockfile, generated by path or marker, minified, a large data
/// file, empty, or gone), with its symbols and word overlap with the task, most overlap first.
fn gather(
    tracked: &[String],
    tokens: &[String],
    workspace: &dyn Workspace,
    run: &mut Run,
) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = Vec::new();
    let declared = workspace.declared(tracked);
    for (path, declared) in tracked.iter().zip(declared) {
        let kind = crate::paths::classify_declared(path, &declared);
        let excluded = |run: &mut Run, verdict: exclusion::Verdict| {
            let ex = crate::diff::Exclusion::verdict(path, verdict);
            run.set(&ex.id, Disposition::Excluded);
            run.excluded.push(ex);
        };
        let declared_facts = exclusion::FileFacts {
            declared,
            ..Default::default()
        };
        if let Some(v) = exclusion::declared(path, Some(&declared_facts))
            .or_else(|| exclusion::by_path(path, kind))
        {
            excluded(run, v);
            continue;
        }
        let Some(bytes) = workspace.file_size(path) else {
            excluded(
                run,
                exclusion::Verdict::new(
                    exclusion::Rule::Unreadable,
                    "deleted or not a regular file in the worktree",
                ),
            );
            continue;
        };
        let Some(head) = workspace.read_head(path, SYMBOL_SCAN_CHARS) else {
            excluded(
                run,
                exclusion::Verdict::new(
                    exclusion::Rule::BinaryContent,
                    "binary or unreadable file",
                ),
            );
            continue;
        };
        if head.trim().is_empty() {
            excluded(
                run,
                exclusion::Verdict::new(exclusion::Rule::EmptyFile, "empty file"),
            );
            continue;
        }
        let facts = exclusion::FileFacts {
            bytes,
            head: head.chars().take(exclusion::HEAD_BYTES).collect(),
            ..declared_facts
        };
        let longest = head.lines().map(str::len).max().unwrap_or(0);
        if let Some(v) = exclusion::reason(path, kind, Some(&facts), longest) {
            excluded(run, v);
            continue;
        }
        let syms = if kind == PathKind::Documentation {
            Vec::new()
        } else {
            symbols(&head)
        };
        let text = split_camel(&format!("{path} {}", syms.join(" ")));
        let lower = head.to_lowercase();
        let (mut matched, mut mentioned) = (0u64, 0u64);
        for (i, t) in tokens.iter().take(64).enumerate() {
            if matches_token(&text, t) {
                matched |= 1 << i;
            }
            if forms(t).iter().any(|f| lower.contains(f.as_str())) {
                mentioned |= 1 << i;
            }
        }
        let lexical = matched.count_ones() as usize;
        cands.push(Candidate {
            id: stable_id("c", &Value::from(path.as_str()), 8),
            path: path.clone(),
            language: language(path),
            kind,
            bytes,
            symbols: syms,
            lexical,
            matched,
            mentioned,
            overlap: 0.0,
            role: None,
            unrelated: 0.0,
            meta_high: 0.0,
            meta_expected: 0.0,
            excerpt: None,
            excerpt_texts: Vec::new(),
            excerpt_expected: None,
            relevance: None,
            disposition: Disposition::Unjudged,
            probes: Vec::new(),
            error: None,
        });
    }
    // A token most files mention ("http", "request") says less than a rare one ("retries"):
    // each is weighed by ln(N / files that have it), a path or symbol match twice.
    let n = cands.len().max(1) as f64;
    let weights: Vec<f64> = (0..tokens.len().min(64))
        .map(|i| {
            let df = cands
                .iter()
                .filter(|c| (c.matched | c.mentioned) & (1 << i) != 0)
                .count()
                .max(1) as f64;
            (n / df).ln() + 0.1
        })
        .collect();
    for c in &mut cands {
        c.overlap = weights
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let bit = 1u64 << i;
                w * (2.0 * f64::from(u8::from(c.matched & bit != 0))
                    + f64::from(u8::from(c.mentioned & bit != 0)))
            })
            .sum();
    }
    cands.sort_by(|a, b| {
        b.lexical
            .cmp(&a.lexical)
            .then(b.overlap.total_cmp(&a.overlap))
            .then_with(|| a.path.cmp(&b.path))
    });
    cands
}

/// Round 1: the metadata answers (relevance and role) of the screened candidates.
fn apply_metadata(c: &mut Candidate, outcome: Result<stanley_core::Answers, MetadataError>) {
    match outcome {
        Ok(answers) => {
            let (
                Some(rel @ Answer::Score { score, .. }),
                Some(role @ Answer::Choice { choice, .. }),
            ) = (
                answers.get(&format!("relevance_{}", c.id)),
                answers.get(&format!("role_{}", c.id)),
            )
            else {
                c.disposition = Disposition::Failed;
                c.error = Some("invalid: answer missing".into());
                return;
            };
            c.meta_high = round3(rel.mass_at_least(2));
            c.meta_expected = score.round();
            c.role = Some(choice.clone());
            c.unrelated = role.p("unrelated");
            c.relevance = Some(c.meta_high);
            c.disposition = Disposition::Judged;
        }
        Err(e) => {
            let unjudged = matches!(e, MetadataError::Failed { unjudged: true, .. });
            c.disposition = if unjudged {
                Disposition::Unjudged
            } else {
                Disposition::Failed
            };
            c.error = Some(e.to_string());
        }
    }
}

/// Round 2: one candidate's excerpt answers. A relevant excerpt of a file whose metadata said
/// unrelated is parked; a strongly relevant one missing evidence adds a gap.
fn apply_excerpt(c: &mut Candidate, result: ExcerptResult, gaps: &mut Vec<String>, run: &mut Run) {
    c.probes = result.probes;
    c.excerpt_texts = result.texts;
    if let Some(e) = result.error {
        c.error = Some(e);
    }
    let Some((answers, ranges, total)) = result.last else {
        return;
    };
    let (Some(rel @ Answer::Score { score, .. }), Some(missing)) =
        (answers.get("relevance"), answers.get("missing_evidence"))
    else {
        return;
    };
    let high = round3(rel.mass_at_least(2));
    let missing_label = match missing {
        Answer::Choice { probabilities, .. } => probabilities
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .filter(|(_, p)| *p >= MISSING_EVIDENCE)
            .map_or("uncertain".to_owned(), |(l, _)| l.clone()),
        _ => "uncertain".to_owned(),
    };
    let shown = ranges
        .iter()
        .map(|(a, b)| format!("{a}-{b}"))
        .collect::<Vec<_>>();
    let excerpt = Excerpt {
        ranges: shown.clone(),
        total_lines: total,
        high_mass: high,
        expected: score.round(),
        target_definition_visible: round3(answers.noul("target_definition_visible")),
        relevant_content_cut_off: round3(answers.noul("relevant_content_cut_off")),
        missing_evidence: missing_label.clone(),
        text: None,
    };
    run.decision(&c.id, "candidate_excerpt", &excerpt, POLICY);
    c.excerpt = Some(excerpt);
    c.excerpt_expected = Some(score.round());
    c.relevance = Some(high);
    if high >= CONFLICT_HIGH_MASS && c.unrelated >= CONFLICT_UNRELATED {
        c.disposition = Disposition::Parked;
        run.parked.push(Parked {
            id: c.id.clone(),
            path: Some(c.path.clone()),
            reason: "conflict: excerpt relevant vs metadata role unrelated".into(),
        });
    } else if high >= STRONG_HIGH_MASS
        && !["none", "uncertain", "cannot_tell"].contains(&missing_label.as_str())
    {
        gaps.push(format!("{}: {missing_label} not shown", c.path));
    }
    let untrusted = round3(answers.noul("untrusted_instruction_text"));
    if untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
        run.findings.push(
            Finding::new("untrusted_instruction_text", &c.id, "jev", Severity::Info)
                .at(Some(c.path.clone()), Some(shown.join(",")))
                .says(crate::analysis::untrusted_reason(untrusted))
                .scored(untrusted)
                .with("p", untrusted),
        );
    }
}

/// The accepted, unparked candidates, best first: excerpt (else metadata) expectation, then
/// relevance, then whether an excerpt was read, then path.
fn rank(cands: &[Candidate]) -> Vec<usize> {
    let mut ranked: Vec<usize> = (0..cands.len())
        .filter(|&i| {
            cands[i]
                .relevance
                .is_some_and(|r| r >= ACCEPT_META_HIGH_MASS)
                && cands[i].disposition != Disposition::Parked
        })
        .collect();
    let key = |c: &Candidate| c.excerpt_expected.unwrap_or(c.meta_expected);
    ranked.sort_by(|&a, &b| {
        let (x, y) = (&cands[a], &cands[b]);
        key(y)
            .total_cmp(&key(x))
            .then(
                y.relevance
                    .unwrap_or(0.0)
                    .total_cmp(&x.relevance.unwrap_or(0.0)),
            )
            .then(y.excerpt.is_some().cmp(&x.excerpt.is_some()))
            .then_with(|| x.path.cmp(&y.path))
    });
    ranked
}

/// A candidate's result row (`rank` for the shortlist; the fallback also shows excerpt text).
/// What metadata screening said of a candidate.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct MetadataRow<'a> {
    high_mass: f64,
    expected: f64,
    role: &'a str,
}

/// One candidate's row in the packet's `results`, serialized in this field order.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FindRow<'a> {
    rank: Option<usize>,
    id: &'a str,
    path: &'a str,
    kind: &'static str,
    language: &'static str,
    disposition: Disposition,
    metadata: Option<MetadataRow<'a>>,
    excerpt: Option<Excerpt>,
    relevance: Option<f64>,
    probes_run: &'a [&'static str],
    error: Option<&'a str>,
}

fn result_row(rank: Option<usize>, c: &Candidate, fallback: bool) -> Value {
    let mut excerpt = c.excerpt.clone();
    if let Some(e) = excerpt
        .as_mut()
        .filter(|_| fallback && !c.excerpt_texts.is_empty())
    {
        e.text = Some(c.excerpt_texts.join("\n…\n"));
    }
    let row = FindRow {
        rank,
        id: &c.id,
        path: &c.path,
        kind: c.kind.as_str(),
        language: c.language,
        disposition: c.disposition,
        metadata: c.role.as_deref().map(|role| MetadataRow {
            high_mass: c.meta_high,
            expected: c.meta_expected,
            role,
        }),
        excerpt,
        relevance: c.relevance,
        probes_run: &c.probes,
        error: c.error.as_deref(),
    };
    serde_json::to_value(&row).unwrap_or(Value::Null)
}

/// The human line of a shortlisted candidate.
/// One ranked candidate: `path:line` where its first excerpt starts (a terminal or an editor
/// opens it there), then its relevance, role, the lines read and what was missing.
fn shortlist_line(n: usize, c: &Candidate) -> String {
    let ranges: Vec<&str> = c
        .excerpt
        .as_ref()
        .map(|e| e.ranges.iter().map(String::as_str).collect())
        .unwrap_or_default();
    let at = ranges
        .first()
        .and_then(|r| r.split('-').next())
        .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
        .map(|l| format!(":{l}"))
        .unwrap_or_default();
    let ranges = if ranges.is_empty() {
        String::new()
    } else {
        format!(" lines={}", ranges.join(","))
    };
    let missing = c
        .excerpt
        .as_ref()
        .map(|e| e.missing_evidence.as_str())
        .map(|m| format!(" missing={m}"))
        .unwrap_or_default();
    format!(
        "{}. {}{at}  relevance={} role={}{ranges}{missing}",
        n + 1,
        c.path,
        c.relevance.map_or("-".into(), |r| format!("{r:.2}")),
        c.role.as_deref().unwrap_or("-")
    )
}

/// Runs `find`, recording into `run`.
pub async fn find(
    input: &FindInput,
    tracked: &[String],
    workspace: &dyn Workspace,
    redactor: &dyn Redactor,
    executor: &Executor,
    run: &mut Run,
) {
    let tokens = search_tokens(&input.task);
    let facets = facets(&input.task);
    let mut cands = gather(tracked, &tokens, workspace, run);
    // The prefilter: the files that share the most (and rarest) words with the task are the
    // candidates; the rest are counted, not listed (on a large tree they are most of it).
    if cands.len() > input.max_files {
        let below = &cands[input.max_files..];
        let sharing = below.iter().filter(|c| c.overlap > 0.0).count();
        run.limits.push(format!(
            "{} files were screened: those sharing the most words with the task (in path, \
             symbols and first 64 KiB); {sharing} more share some word and rank below them, \
             {} share none",
            input.max_files,
            below.len() - sharing
        ));
        cands.truncate(input.max_files);
    }
    for c in &cands {
        run.set(&c.id, Disposition::Unjudged);
    }
    let screened_n = cands.len();
    run.candidates(&to_value(&FindCandidates {
        tracked: tracked.len(),
        candidates: cands
            .iter()
            .map(|c| ScreenedCandidate {
                id: &c.id,
                path: &c.path,
                lexical: c.lexical,
            })
            .collect(),
        excluded: &run.excluded,
    }));
    // Round 1: metadata, in shuffled shards.
    let mut order: Vec<usize> = (0..screened_n).collect();
    shuffle(
        &mut order,
        &format!("find:{}", stable_hash(&Value::from(input.task.as_str()))),
    );
    let shards: Vec<Vec<usize>> = order.chunks(SHARD_SIZE).map(<[usize]>::to_vec).collect();
    let results = futures::future::join_all(
        shards
            .into_iter()
            .map(|s| meta_outcomes(executor, &input.task, s, &cands)),
    )
    .await;
    for (i, outcome) in results.into_iter().flatten() {
        apply_metadata(&mut cands[i], outcome);
    }
    // Round 2: excerpts of the accepted candidates, diversified across facets.
    let mut accepted: Vec<usize> = (0..screened_n)
        .filter(|&i| {
            cands[i].disposition == Disposition::Judged
                && cands[i].meta_high >= ACCEPT_META_HIGH_MASS
        })
        .collect();
    accepted.sort_by(|&a, &b| {
        cands[b]
            .meta_expected
            .total_cmp(&cands[a].meta_expected)
            .then(cands[b].meta_high.total_cmp(&cands[a].meta_high))
            .then_with(|| cands[a].path.cmp(&cands[b].path))
    });
    let limit = MAX_EXCERPT_CANDIDATES.min((2 * input.top).max(input.top));
    let to_read = diversify(&accepted, limit, &facets, &cands);
    if accepted.len() > to_read.len() {
        run.limits.push(format!(
            "{} accepted candidates were ranked by metadata only (excerpt limit {limit})",
            accepted.len() - to_read.len()
        ));
    }
    let reads = to_read.iter().map(|&i| {
        read_excerpts(
            i,
            &cands,
            &tokens,
            &input.task,
            workspace,
            redactor,
            executor,
        )
    });
    let excerpt_results = futures::future::join_all(reads).await;
    let mut gaps: Vec<String> = Vec::new();
    for (i, result) in to_read.iter().zip(excerpt_results) {
        apply_excerpt(&mut cands[*i], result, &mut gaps, run);
    }
    for c in &cands {
        run.set(&c.id, c.disposition);
    }
    let searched = Searched {
        tokens: &tokens,
        facets: &facets,
        tracked: tracked.len(),
        screened: screened_n,
        excerpted: to_read.len(),
        gaps,
    };
    report(input, &cands, searched, run);
}

/// What a find's rounds leave for its report.
struct Searched<'a> {
    tokens: &'a [String],
    facets: &'a [Vec<String>],
    tracked: usize,
    screened: usize,
    excerpted: usize,
    gaps: Vec<String>,
}

/// A find's report: the ranked shortlist (diversified across the task's facets), the parked
/// and failed candidates after it, a finding when nothing stood out, and the summary.
fn report(input: &FindInput, cands: &[Candidate], searched: Searched<'_>, run: &mut Run) {
    let (tokens, facets, gaps) = (searched.tokens, searched.facets, &searched.gaps);
    let ranked = rank(cands);
    let shortlist = diversify(&ranked, input.top, facets, cands);
    let no_strong = !ranked
        .iter()
        .any(|&i| cands[i].relevance.unwrap_or(0.0) >= STRONG_HIGH_MASS);
    if no_strong && cands.iter().any(|c| c.disposition == Disposition::Judged) {
        run.findings.push(
            Finding::new("no_strong_candidate", "task", "policy", Severity::Warn)
                .says("No file stood out as what was asked for. Try other words for it (a name, an error message, a term the code uses), or name a folder or file to search in.")
                .with(
                    "note",
                    "next step likely needs a new search string or different paths chosen by the host",
                ),
        );
    }
    let mut rows: Vec<Value> = shortlist
        .iter()
        .enumerate()
        .map(|(n, &i)| result_row(Some(n + 1), &cands[i], input.fallback))
        .collect();
    for disposition in [Disposition::Parked, Disposition::Failed] {
        rows.extend(
            cands
                .iter()
                .filter(|c| c.disposition == disposition)
                .map(|c| result_row(None, c, input.fallback)),
        );
    }
    run.sections.push(Section::new(
        "ranked candidates",
        shortlist
            .iter()
            .enumerate()
            .map(|(n, &i)| shortlist_line(n, &cands[i]))
            .collect(),
    ));
    run.sections.push(Section::new("gaps", gaps.clone()));
    let mut not_checked = vec![
        "this is a ranked shortlist, not an answer to the task".to_owned(),
        "untracked files are not candidates".to_owned(),
        "files were ranked by metadata unless an excerpt was read".to_owned(),
        "content beyond shown excerpt ranges".to_owned(),
    ];
    if input.fallback {
        not_checked.push("implementation and bug fixing".into());
    }
    run.not_checked = not_checked;
    run.results = rows;
    run.summary = to_value(&FindSummary {
        task: TaskTerms {
            tokens: tokens.iter().take(20).collect(),
            facets,
        },
        tracked: searched.tracked,
        candidates: cands.len(),
        screened: searched.screened,
        excerpted: searched.excerpted,
        ranked: ranked.len(),
        returned: shortlist.len(),
        no_strong_candidate: no_strong,
        gaps,
        read_only_fallback: input.fallback.then_some(ReadOnlyFallback {
            requested: "code_change",
            performed: "find",
            changed_files: false,
        }),
    });
}

/// The last excerpt answer with the ranges shown and the file's line count.
type LastExcerpt = (stanley_core::Answers, Vec<(usize, usize)>, usize);

struct ExcerptResult {
    last: Option<LastExcerpt>,
    texts: Vec<String>,
    probes: Vec<&'static str>,
    error: Option<String>,
}

async fn read_excerpts(
    i: usize,
    cands: &[Candidate],
    tokens: &[String],
    task: &str,
    workspace: &dyn Workspace,
    redactor: &dyn Redactor,
    executor: &Executor,
) -> ExcerptResult {
    let c = &cands[i];
    let mut out = ExcerptResult {
        last: None,
        texts: Vec::new(),
        probes: Vec::new(),
        error: None,
    };
    let lines = if c.bytes <= MAX_FILE_BYTES {
        workspace.read_lines(&c.path)
    } else {
        None
    };
    let Some(lines) = lines else {
        out.error = Some("excerpt unreadable (binary, too large, or missing)".into());
        return out;
    };
    let mut shown: Vec<(usize, usize)> = Vec::new();
    for probe in ["read-excerpt@1", "read-next-region@1"] {
        let Some((a, b)) = excerpt_span(&lines, tokens, &shown) else {
            if shown.is_empty() {
                out.error = Some("excerpt unreadable (binary, too large, or missing)".into());
            }
            break;
        };
        let text = (a..=b)
            .map(|n| format!("{n}| {}", lines[n - 1]))
            .collect::<Vec<_>>()
            .join("\n");
        let text = redactor.text(&text).0;
        let frame = Frame {
            template: "candidate_excerpt@2".into(),
            scope: c.id.clone(),
            state: to_value(&ExcerptState {
                evidence_policy: EVIDENCE_POLICY,
                task,
                candidate: ExcerptShown {
                    id: &c.id,
                    path: &c.path,
                    language: c.language,
                    total_lines: lines.len(),
                    shown_lines: format!("{a}-{b}"),
                    previously_shown: shown.iter().map(|(x, y)| format!("{x}-{y}")).collect(),
                    excerpt: &text,
                },
            }),
            questions: excerpt_questions(&c.path),
            provenance: to_value(&[FileRange {
                kind: "file_range",
                path: &c.path,
                start_line: a,
                end_line: b,
                probe: "read-excerpt@1",
                truncated: !(a == 1 && b == lines.len()),
            }]),
        };
        out.probes.push(probe);
        shown.push((a, b));
        out.texts.push(text);
        match executor.run(frame).await {
            Ok(ok) => {
                let cut = ok.answers.noul("relevant_content_cut_off");
                out.last = Some((ok.answers, shown.clone(), lines.len()));
                let shown_lines: usize = shown.iter().map(|(x, y)| y - x + 1).sum();
                if cut < CUT_OFF || shown_lines >= lines.len() {
                    break;
                }
            }
            Err(f) => {
                out.error = Some(format!("excerpt {}: {}", f.reason.as_str(), f.detail));
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_facets_and_symbols() {
        assert_eq!(forms("retries"), ["retries", "retry"]);
        assert_eq!(forms("webhooks"), ["webhooks", "webhook"]);
        assert_eq!(forms("ids"), ["ids"]);
        assert_eq!(
            facets("Find the webhook retry code, the billing charge and its tests"),
            vec![
                vec!["webhook".to_owned(), "retry".to_owned()],
                vec!["billing".to_owned(), "charge".to_owned()],
                vec!["tests".to_owned()]
            ]
        );
        assert!(facets("Find webhook retries").is_empty());
        assert_eq!(
            symbols(
                "export async function scheduleRetry() {}\nclass RetryQueue {}\nconst x = 1;\nfn go() {}"
            ),
            ["scheduleRetry", "RetryQueue", "go"]
                .iter()
                .filter(|s| s.len() >= 3)
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_shuffle_is_deterministic() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        shuffle(&mut a, "find:x");
        shuffle(&mut b, "find:x");
        assert_eq!(a, b);
        assert_ne!(a, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn excerpt_spans() {
        let lines: Vec<String> = (1..=563)
            .map(|i| {
                if i == 340 {
                    "scheduleRetry(job)".into()
                } else {
                    format!("line {i}")
                }
            })
            .collect();
        let tokens = vec!["scheduleretry".to_owned()];
        let first = excerpt_span(&lines, &tokens, &[]).unwrap();
        assert_eq!(first, (320, 479));
        let second = excerpt_span(&lines, &tokens, &[first]).unwrap();
        assert_eq!(second, (1, 160));
        let short: Vec<String> = (1..=50).map(|i| format!("l{i}")).collect();
        assert_eq!(excerpt_span(&short, &tokens, &[]), Some((1, 50)));
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod policy_tests;

#[cfg(test)]
#[path = "shape_tests.rs"]
mod shape_tests;

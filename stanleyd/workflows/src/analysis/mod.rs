//! The six diff analyses (`diff-analysis-policy@2`): `review`, `test_gaps`, `summarize`,
//! `security_review`, `performance_review`, `compatibility_review`. One frame per judged hunk,
//! chosen by a deterministic per-mode priority under the hunk cap; code combines the answers
//! into findings, parked items and a per-hunk row.

pub mod modes;

use serde::Serialize;
use serde_json::{Map, Value, json};
use stanley_core::{Answer, BudgetPlan, Denial, Executor, Frame, Question, Questions, stable_hash};

use crate::analysis::modes::Mode;
use crate::change::ChangeContext;
use crate::diff::{DiffEvidence, Hunk};
use crate::paths::PathKind;
use crate::policy::{
    EVIDENCE_POLICY, UNTRUSTED_INSTRUCTION_THRESHOLD, untrusted_instruction_question,
};
use crate::run::{Disposition, Finding, Parked, Run, Section, Severity};
use crate::text::{has_word, round3, task_tokens};

/// The policy version recorded with every decision.
pub const POLICY: &str = "diff-analysis-policy@2";
/// Hunks judged at most (`defaultMaxHunks`): with lean frames, 500 fit the default budget.
pub const DEFAULT_MAX_HUNKS: usize = 500;
/// Concern-label mass at or above which a hunk is a concern.
pub const CONCERN_MASS: f64 = 0.7;
/// Top-label probability below which a summary classification is parked as uncertain.
pub const SUMMARY_CLASSIFICATION: f64 = 0.45;
/// `cannot_tell` probability at or above which a hunk is parked.
pub const CANNOT_TELL: f64 = 0.5;
/// Importance mass (levels 2 and 3) at or above which a concern is material.
pub const IMPORTANT: f64 = 0.6;
/// `evidence_sufficient` at or above which a material concern becomes a finding.
pub const EVIDENCE: f64 = 0.5;
/// Related test hunks shown with a `test_gaps` hunk at most.
pub const MAX_RELATED_TESTS: usize = 2;
/// Rows shown in the human section at most.
const MAX_SECTION_LINES: usize = 50;
const HUNK_LIMIT_ERROR: &str = "not judged: hunk limit";
const PLAN_LIMIT_ERROR: &str = "not judged: budget plan";

/// What the CLI passes to an analysis.
#[derive(Clone, Debug)]
pub struct AnalysisInput {
    /// The request text (checked: non-blank, at most 4000 characters).
    pub request: String,
    /// Hunks judged at most.
    pub max_hunks: usize,
}

/// The inputs recorded in `inputs.json`.
pub fn recorded_inputs(mode: &Mode, input: &AnalysisInput, evidence: &DiffEvidence) -> Value {
    json!({
        "analysis": mode.id,
        "requestHash": stable_hash(&json!(input.request)),
        "taskHash": null,
        "diff": evidence.source.describe(),
        "maxHunks": input.max_hunks,
    })
}

const SECURITY_SUBJECTS: &[&str] = &[
    "auth",
    "authentication",
    "authorization",
    "permission",
    "role",
    "token",
    "secret",
    "password",
    "session",
    "cookie",
    "crypto",
    "cryptography",
    "cryptographic",
];
const GUARD_WORDS: &[&str] = &[
    "if",
    "require",
    "assert",
    "validate",
    "verify",
    "authorize",
    "deny",
    "allow",
];
const COMPAT_WORDS: &[&str] = &["export", "public", "api", "schema", "config", "version"];

fn removes_a_guard(removed: &str) -> bool {
    let compares_length = removed.match_indices("length").any(|(i, _)| {
        removed[i + "length".len()..]
            .trim_start()
            .starts_with(['<', '>', '=', '!'])
    });
    GUARD_WORDS.iter().any(|w| has_word(removed, w))
        || removed.contains("===")
        || removed.contains("!==")
        || compares_length
}

/// The deterministic priority of a hunk in a mode (higher is judged first).
pub fn priority(mode: &Mode, hunk: &Hunk) -> f64 {
    if mode.terms.is_empty() {
        return 0.0;
    }
    let base = match hunk.kind {
        PathKind::Source => 40.0,
        PathKind::Config | PathKind::Ci => 25.0,
        PathKind::Test => 10.0,
        PathKind::Documentation => -20.0,
        _ => 0.0,
    };
    let header = format!("{} {}", hunk.path, hunk.section).to_lowercase();
    let changed = hunk.changed_lines().to_lowercase();
    let (_, removed) = hunk.changed_text();
    let removed_text = removed.join("\n").to_lowercase();
    let all = hunk.content().to_lowercase();
    let (mut path_hits, mut changed_hits, mut context_hits) = (0usize, 0usize, 0usize);
    for term in mode.terms {
        if header.contains(term) {
            path_hits += 1;
        }
        if changed.contains(term) {
            changed_hits += 1;
        } else if all.contains(term) {
            context_hits += 1;
        }
    }
    let mut score = base
        + 8.0 * path_hits.min(3) as f64
        + 8.0 * changed_hits.min(4) as f64
        + 2.0 * context_hits.min(2) as f64;
    if mode.id == "security_review"
        && SECURITY_SUBJECTS.iter().any(|w| has_word(&removed_text, w))
        && removes_a_guard(&removed_text)
    {
        score += 60.0;
    }
    if mode.id == "compatibility_review" && COMPAT_WORDS.iter().any(|w| has_word(&removed_text, w))
    {
        score += 20.0;
    }
    score + (hunk.added + hunk.removed).min(40) as f64 / 40.0
}

/// A summary's own score for each hunk (summarize has no risk words to rank by): what the hunk
/// changes, in distinct non-blank changed lines (log-scaled), less one for each hunk of the
/// same file before it, so every file's first change comes before any file's second and one
/// file of many similar hunks (a snapshot, a table) cannot take a tier's slots.
fn summary_scores<'a>(mode: &Mode, hunks: &[&'a Hunk]) -> std::collections::HashMap<&'a str, f64> {
    let mut out = std::collections::HashMap::new();
    if !mode.terms.is_empty() {
        return out;
    }
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for hunk in hunks {
        let before = seen.entry(hunk.path.as_str()).or_default();
        let distinct: std::collections::HashSet<&str> = hunk
            .lines
            .iter()
            .filter(|l| l.tag != ' ' && !l.text.trim().is_empty())
            .map(|l| l.text.trim())
            .collect();
        let substance = (1.0 + distinct.len() as f64).ln() / (1.0 + 300f64).ln();
        // A recorded expected output (a snapshot, a compiler's `.stderr`) says what the code
        // printed, not what changed: after every file's first change, before any second.
        let recorded = if is_recorded_output(&hunk.path) {
            0.5
        } else {
            0.0
        };
        out.insert(hunk.id.as_str(), substance - recorded - *before as f64);
        *before += 1;
    }
    out
}

/// Whether a test file is a recorded expected output: a snapshot or golden file, or what a
/// compiler or program printed (`tests/ui/x.stderr`, `tests/examplefiles/a/b.output`).
fn is_recorded_output(path: &str) -> bool {
    const RECORDED: &[&str] = &[
        ".snap",
        ".stderr",
        ".stdout",
        ".out",
        ".output",
        ".expected",
        ".golden",
        ".ambr",
    ];
    let lower = path.to_lowercase();
    hunk_in_tests(&lower) && RECORDED.iter().any(|e| lower.ends_with(e))
        || lower.contains("/__snapshots__/")
}

/// Whether a (lowercased) path lies in a test folder.
fn hunk_in_tests(lower: &str) -> bool {
    lower.split('/').any(|s| {
        matches!(
            s,
            "test" | "tests" | "testdata" | "__tests__" | "spec" | "specs"
        )
    })
}

fn questions(mode: &Mode, hunk: &Hunk) -> Questions {
    Questions::new()
        .with(
            "classification",
            Question::choice(
                json!({
                    "question": format!("{} Candidate: the hunk of {} shown.", mode.question, hunk.path),
                    "guidance": mode.guidance,
                }),
                mode.labels.iter().map(|(l, d)| (*l, *d)),
            ),
        )
        .with("importance", Question::score(mode.importance, mode.levels))
        .with(
            "evidence_sufficient",
            Question::noul(
                json!({
                    "question": "Is the shown diff evidence sufficient for the selected classification?",
                    "guidance": "Choose false when the classification depends on unseen callers, unchanged tests, runtime behavior, production scale, external consumers or surrounding code that is not shown.",
                }),
                "The hunk, the change around it and any related tests shown are enough.",
                "The classification depends on context that is not shown.",
            ),
        )
        .with("untrusted_instruction_text", untrusted_instruction_question())
}

/// Changed test hunks related to `hunk`, best first: a test of the same file stem, then tests
/// that share at least two words of the hunk's path and changed lines, weighed against the
/// test's size so a large test file does not match everything.
#[cfg(test)]
fn related_tests<'a>(hunk: &Hunk, tests: &[&'a Hunk]) -> Vec<&'a Hunk> {
    related_in(hunk, &TestTexts::of(tests))
}

/// Test hunks with what matching needs, made once per analysis (every code hunk is matched
/// against every test hunk): each test's text length and stem, and every distinct word of the
/// tests' texts with the tests it appears in. A token is in a test's text exactly when it is
/// inside one of that text's words (tokens are letters and digits only), so a token is looked
/// up in the words once and remembered, instead of searched for in every text.
struct TestTexts<'a> {
    tests: Vec<(&'a Hunk, usize, String)>,
    words: Vec<(String, Vec<usize>)>,
    found: std::cell::RefCell<std::collections::HashMap<String, Vec<usize>>>,
}

impl<'a> TestTexts<'a> {
    fn of(tests: &[&'a Hunk]) -> Self {
        let mut index: std::collections::BTreeMap<String, Vec<usize>> =
            std::collections::BTreeMap::new();
        let tests = tests
            .iter()
            .enumerate()
            .map(|(n, t)| {
                let text = format!("{} {}", t.path, t.content()).to_lowercase();
                let mut words: Vec<&str> = text
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.len() >= 3)
                    .collect();
                words.sort_unstable();
                words.dedup();
                for w in words {
                    index.entry(w.to_owned()).or_default().push(n);
                }
                (*t, text.len(), crate::change::stem(&t.path).to_owned())
            })
            .collect();
        Self {
            tests,
            words: index.into_iter().collect(),
            found: std::cell::RefCell::default(),
        }
    }

    fn is_empty(&self) -> bool {
        self.tests.is_empty()
    }

    /// The tests whose text holds `token`.
    fn holding(&self, token: &str) -> Vec<usize> {
        if let Some(hit) = self.found.borrow().get(token) {
            return hit.clone();
        }
        let mut hit: Vec<usize> = self
            .words
            .iter()
            .filter(|(w, _)| w.contains(token))
            .flat_map(|(_, tests)| tests.iter().copied())
            .collect();
        hit.sort_unstable();
        hit.dedup();
        self.found
            .borrow_mut()
            .insert(token.to_owned(), hit.clone());
        hit
    }
}

/// [`related_tests`] against texts made once.
fn related_in<'a>(hunk: &Hunk, tests: &TestTexts<'a>) -> Vec<&'a Hunk> {
    if tests.is_empty() {
        return Vec::new();
    }
    let changed = hunk.changed_lines();
    let tokens = task_tokens(&format!("{} {changed}", hunk.path));
    let own_stem = crate::change::stem(&hunk.path);
    let mut overlap = vec![0usize; tests.tests.len()];
    for token in &tokens {
        for n in tests.holding(token) {
            overlap[n] += 1;
        }
    }
    let mut scored: Vec<(f64, &Hunk)> = tests
        .tests
        .iter()
        .zip(overlap)
        .filter_map(|((t, len, stem), overlap)| {
            let same_stem = *stem == own_stem;
            let size = 1.0 + (*len as f64 / 1000.0).ln_1p();
            let score = overlap as f64 / size + if same_stem { 100.0 } else { 0.0 };
            (same_stem || overlap >= 2).then_some((score, *t))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
    scored
        .into_iter()
        .take(MAX_RELATED_TESTS)
        .map(|(_, t)| t)
        .collect()
}

fn distribution(answer: &Answer) -> Value {
    match answer {
        Answer::Choice { probabilities, .. } => Value::Object(
            probabilities
                .iter()
                .map(|(l, p)| (l.clone(), json!(round3(*p))))
                .collect(),
        ),
        Answer::Score { probabilities, .. } => {
            json!(probabilities.iter().map(|p| round3(*p)).collect::<Vec<_>>())
        }
        Answer::Noul { probability } => json!(round3(*probability)),
    }
}

/// The decision on one judged hunk.
struct Decision {
    disposition: Disposition,
    parked: Option<String>,
    label: String,
    concern_mass: f64,
    high_mass: f64,
    evidence: f64,
    untrusted: f64,
    flag: Option<String>,
    classification: Value,
    importance: Value,
    p_label: f64,
}

fn decide(mode: &Mode, answers: &stanley_core::Answers) -> Option<Decision> {
    let class @ Answer::Choice { probabilities, .. } = answers.get("classification")? else {
        return None;
    };
    let importance = answers.get("importance")?;
    let mut sorted = probabilities.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (top_label, top) = sorted.first().cloned()?;
    let concern_mass = round3(
        probabilities
            .iter()
            .filter(|(l, _)| mode.concerns.contains(&l.as_str()))
            .map(|(_, p)| p)
            .sum(),
    );
    let concern = !mode.concerns.is_empty() && concern_mass >= CONCERN_MASS;
    let label = if concern {
        sorted
            .iter()
            .find(|(l, _)| mode.concerns.contains(&l.as_str()))
            .map_or(top_label.clone(), |(l, _)| l.clone())
    } else {
        top_label
    };
    let high_mass = round3(importance.mass_at_least(2));
    let evidence = round3(answers.noul("evidence_sufficient"));
    let untrusted = round3(answers.noul("untrusted_instruction_text"));
    let material = concern && high_mass >= IMPORTANT;
    let uncertain = class.p("cannot_tell") >= CANNOT_TELL
        || (mode.concerns.is_empty() && top < SUMMARY_CLASSIFICATION);
    let parked = if uncertain {
        Some(format!("{}: classification uncertain", mode.id))
    } else if material && evidence < EVIDENCE {
        Some(format!(
            "{}: material concern needs evidence outside the diff",
            mode.id
        ))
    } else {
        None
    };
    let flag = (parked.is_none() && material).then(|| match mode.prefix {
        Some(prefix) => format!("{prefix}_{label}"),
        None => label.clone(),
    });
    let score = match importance {
        Answer::Score { score, .. } => *score,
        _ => 0.0,
    };
    Some(Decision {
        disposition: if parked.is_some() {
            Disposition::Parked
        } else {
            Disposition::Judged
        },
        p_label: round3(class.p(&label)),
        classification: json!({"label": label, "confidence": round3(top), "concernMass": concern_mass, "distribution": distribution(class)}),
        importance: json!({"score": round3(score), "highMass": high_mass, "distribution": distribution(importance)}),
        parked,
        label,
        concern_mass,
        high_mass,
        evidence,
        untrusted,
        flag,
    })
}

/// One hunk's row in the packet's `results`, serialized in this field order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AnalysisRow<'a> {
    analysis: &'a str,
    id: &'a str,
    path: &'a str,
    lines: String,
    kind: &'static str,
    file_status: &'static str,
    added: usize,
    removed: usize,
    disposition: Disposition,
    classification: Option<Value>,
    importance: Option<Value>,
    evidence_sufficient: Option<f64>,
    untrusted_instruction_text: Option<f64>,
    flag: Option<String>,
    error: Option<String>,
    /// The hunk with the same text whose question answered this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_with: Option<&'a str>,
}

impl<'a> AnalysisRow<'a> {
    /// An unjudged row for `hunk`.
    fn new(mode: &'a Mode, hunk: &'a Hunk) -> Self {
        Self {
            analysis: mode.id,
            id: &hunk.id,
            path: &hunk.path,
            lines: hunk.line_range(),
            kind: hunk.kind.as_str(),
            file_status: hunk.file_status.as_str(),
            added: hunk.added,
            removed: hunk.removed,
            disposition: Disposition::Unjudged,
            classification: None,
            importance: None,
            evidence_sufficient: None,
            untrusted_instruction_text: None,
            flag: None,
            error: None,
            judged_with: None,
        }
    }
}

/// Which hunks an analysis looks at and which it offers for judging.
struct Selection<'a> {
    /// Hunks the mode judges (for `test_gaps`, not tests or documentation), in diff order.
    eligible: Vec<&'a Hunk>,
    /// Test hunks shown with `test_gaps` hunks as context.
    context_tests: Vec<&'a Hunk>,
    /// For `test_gaps`, the related test hunks of each eligible hunk (by index); empty else.
    related: Vec<Vec<&'a Hunk>>,
    /// Groups of indexes into `eligible` with the same normalised text, in judging order (a
    /// group's first hunk is the one shown to Jev; its answer stands for every member).
    groups: Vec<Vec<usize>>,
    /// Groups offered to the budget plan: the highest priority under the hunk cap.
    offered: usize,
}

impl Selection<'_> {
    /// Hunks in the first `n` groups.
    fn hunks_in(&self, n: usize) -> usize {
        self.groups[..n].iter().map(Vec::len).sum()
    }
}

/// What makes two hunks the same question: their kind, file status and changed lines, each
/// line's whitespace collapsed (never the path, the heading or the context around them: the
/// same edit applied to several files is one change). For `test_gaps` the related tests shown
/// with a hunk are part of it.
fn same_text_key(hunk: &Hunk, related: &[&Hunk]) -> String {
    let mut key = format!("{}\u{1f}{}", hunk.kind.as_str(), hunk.file_status.as_str());
    for line in hunk.lines.iter().filter(|l| l.tag != ' ') {
        key.push('\u{1e}');
        key.push(line.tag);
        key.push_str(&line.text.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    for test in related {
        key.push('\u{1d}');
        key.push_str(&test.id);
    }
    stanley_core::sha256_hex(key.as_bytes())
}

/// Chooses the hunks, marks every candidate in `run`, and records the hunk cap's limit.
fn select<'a>(
    mode: &Mode,
    input: &AnalysisInput,
    evidence: &'a DiffEvidence,
    run: &mut Run,
) -> Selection<'a> {
    let test_gaps = mode.id == "test_gaps";
    // Lockfiles and generated files are set aside: only deterministic checks read them.
    let (eligible, context): (Vec<&Hunk>, Vec<&Hunk>) = evidence
        .hunks
        .iter()
        .filter(|h| !matches!(h.kind, PathKind::Lockfile | PathKind::Generated))
        .partition(|h| !(test_gaps && matches!(h.kind, PathKind::Test | PathKind::Documentation)));
    let context_tests: Vec<&Hunk> = context
        .into_iter()
        .filter(|h| h.kind == PathKind::Test)
        .collect();
    for hunk in &eligible {
        run.set(&hunk.id, Disposition::Unjudged);
    }
    run.excluded = evidence
        .excluded
        .iter()
        .chain(&evidence.set_aside)
        .cloned()
        .collect();
    for ex in &run.excluded.clone() {
        run.set(&ex.id, Disposition::Excluded);
    }
    // One order for every analysis (source first, what the request names first), then the
    // mode's own priority; ties keep diff order. Hunks with the same text are one question,
    // asked where the first of them stands.
    let spread = summary_scores(mode, &eligible);
    let order = crate::order::judging_order(&eligible, &input.request, |h| {
        spread
            .get(h.id.as_str())
            .copied()
            .unwrap_or_else(|| priority(mode, h))
    });
    let texts = TestTexts::of(if test_gaps { &context_tests } else { &[] });
    let mut related: Vec<Vec<&Hunk>> = vec![Vec::new(); eligible.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Keyed by the changed text alone, then (test_gaps) with the related tests too.
    let mut texts_seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for i in order {
        let base = same_text_key(eligible[i], &[]);
        // Past the cap, a change whose text was not seen starts a group that is never asked:
        // its related tests are not looked for (matching is the costly part of test_gaps).
        let new_text = texts_seen.insert(base.clone());
        let key = if texts.is_empty() || (new_text && groups.len() >= input.max_hunks) {
            base
        } else {
            related[i] = related_in(eligible[i], &texts);
            same_text_key(eligible[i], &related[i])
        };
        match seen.get(&key) {
            Some(&g) => groups[g].push(i),
            None => {
                seen.insert(key, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    let offered = groups.len().min(input.max_hunks);
    Selection {
        eligible,
        context_tests,
        related,
        groups,
        offered,
    }
}

/// Writes `candidates.json`: every eligible hunk, what was excluded, and the budget plan.
fn record_candidates(mode: &Mode, selection: &Selection<'_>, plan: &BudgetPlan, run: &Run) {
    let mut candidates = json!({
        "analysis": mode.id,
        "hunks": selection.eligible.iter().map(|h| h.id.clone()).collect::<Vec<_>>(),
        "excluded": run.excluded,
        "budgetPlan": plan,
    });
    if mode.id == "test_gaps" {
        candidates["contextTestHunks"] = json!(
            selection
                .context_tests
                .iter()
                .map(|h| h.id.clone())
                .collect::<Vec<_>>()
        );
    }
    run.candidates(&candidates);
}

/// The limits lines for what the hunk cap and the budget plan left out: one line that says how
/// many were judged (as coverage counts them), which limit stopped it, and what kinds of hunk
/// were left, so the limits and coverage always agree.
fn limit_lines(
    input: &AnalysisInput,
    selection: &Selection<'_>,
    plan: &BudgetPlan,
    judged: usize,
) -> Vec<String> {
    let eligible = selection.eligible.len();
    let offered = selection.hunks_in(selection.offered);
    let Some(stopped_by) = plan.stopped_by else {
        if offered == eligible {
            return Vec::new();
        }
        return vec![format!(
            "only the {judged} highest-priority of {eligible} eligible hunks were judged (policy \
             hunk limit of {} questions; source first, then tests, then the rest); the other {} \
             are listed as unjudged",
            input.max_hunks,
            eligible - judged
        )];
    };
    let limit = match stopped_by {
        Denial::Requests => format!("{} requests", plan.allowance.requests),
        _ => format!("{} estimated input tokens", plan.allowance.input_tokens),
    };
    let mut kinds: Vec<(&'static str, usize)> = Vec::new();
    for &i in selection.groups[plan.chosen..selection.offered]
        .iter()
        .flatten()
    {
        let kind = selection.eligible[i].kind.as_str();
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some(entry) => entry.1 += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let left: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let capped = eligible - offered;
    let cap = if capped > 0 {
        format!(
            " and {capped} more past the policy hunk limit of {} questions (\"{HUNK_LIMIT_ERROR}\")",
            input.max_hunks
        )
    } else {
        String::new()
    };
    vec![format!(
        "the budget plan judged the {judged} highest-priority of {eligible} eligible hunks \
         (source first, then tests, then the rest): the next would pass the allowance of {limit}; \
         left out and listed as unjudged: {} (\"{PLAN_LIMIT_ERROR}\"){cap}",
        left.join(", ")
    )]
}

/// One frame per judged hunk, with the change around it and (for `test_gaps`) related tests.
fn frames(
    mode: &Mode,
    input: &AnalysisInput,
    evidence: &DiffEvidence,
    selection: &Selection<'_>,
) -> Vec<Frame> {
    let change = ChangeContext::new(evidence);
    selection.groups[..selection.offered]
        .iter()
        .map(|group| {
            let i = group[0];
            let hunk = selection.eligible[i];
            let related = &selection.related[i];
            let mut provenance = vec![hunk.reference(&evidence.source)];
            provenance.extend(related.iter().map(|t| t.reference(&evidence.source)));
            Frame {
                template: format!("diff-{}@2", mode.id),
                scope: hunk.id.clone(),
                state: json!({
                    "evidencePolicy": EVIDENCE_POLICY,
                    "analysis": mode.id,
                    "request": input.request,
                    "task": null,
                    "change": change.of(hunk),
                    "hunk": hunk.evidence(),
                    "relatedTestHunks": related.iter().map(|t| t.evidence()).collect::<Vec<_>>(),
                }),
                questions: questions(mode, hunk),
                provenance: json!(provenance),
            }
        })
        .collect()
}

/// The findings a decision makes: its flag (warn) and untrusted instruction text (info).
fn findings(hunk: &Hunk, d: &Decision) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |f: Finding| f.at(Some(hunk.path.clone()), Some(hunk.line_range()));
    if let Some(flag) = &d.flag {
        out.push(
            at(Finding::new(flag, &hunk.id, "jev", Severity::Warn))
                .with("classification", json!(d.label))
                .with("probability", json!(d.p_label))
                .with("concernMass", json!(d.concern_mass))
                .with("importanceHighMass", json!(d.high_mass))
                .with("evidenceSufficient", json!(d.evidence)),
        );
    }
    if d.untrusted >= UNTRUSTED_INSTRUCTION_THRESHOLD {
        out.push(
            at(Finding::new(
                "untrusted_instruction_text",
                &hunk.id,
                "jev",
                Severity::Info,
            ))
            .with("p", json!(d.untrusted)),
        );
    }
    out
}

/// The human line for a decided hunk, with its sort group (flagged 0, parked 1, other 3); None
/// when the mode shows only flagged and parked hunks and this is neither.
fn decided_line(mode: &Mode, where_: &str, d: &Decision) -> Option<(u8, String)> {
    let summarize = mode.concerns.is_empty();
    let group = if d.flag.is_some() {
        0
    } else if d.parked.is_some() {
        1
    } else {
        3
    };
    if group == 3 && !summarize {
        return None;
    }
    let concern = if summarize {
        String::new()
    } else {
        format!(" concern={:.2}", d.concern_mass)
    };
    let flag = d
        .flag
        .as_ref()
        .map(|f| format!(" flag={f}"))
        .unwrap_or_default();
    Some((
        group,
        format!(
            "{where_} [{}] {}{concern} importance={:.2} evidence={:.2}{flag}",
            d.disposition.as_str(),
            d.label,
            d.high_mass,
            d.evidence
        ),
    ))
}

/// What one hunk adds to the report: its row, its human line (with its sort group), and the
/// label it counts under.
type Recorded<'a> = (AnalysisRow<'a>, Option<(u8, String)>, String);

/// Records one hunk's outcome in `run`: its disposition, parked item, findings and decision.
/// None when the answers do not hold a decision (the hunk gets no row).
fn record<'a>(
    mode: &'a Mode,
    hunk: &'a Hunk,
    outcome: Slot<'_>,
    run: &mut Run,
) -> Option<Recorded<'a>> {
    let mut row = AnalysisRow::new(mode, hunk);
    let where_ = format!("{}:{}", hunk.path, hunk.line_range());
    let outcome = match outcome {
        Slot::Capped | Slot::LeftOut => {
            let error = if matches!(outcome, Slot::Capped) {
                HUNK_LIMIT_ERROR
            } else {
                PLAN_LIMIT_ERROR
            };
            row.error = Some(error.to_owned());
            return Some((row, None, "unjudged".to_owned()));
        }
        Slot::Sent(outcome) => outcome,
    };
    match outcome {
        Err(failure) => {
            let disposition = if failure.reason.is_unjudged() {
                Disposition::Unjudged
            } else {
                Disposition::Failed
            };
            let error = format!("{}: {}", failure.reason.as_str(), failure.detail);
            run.set(&hunk.id, disposition);
            let line = format!("{where_} [{}] - ({error})", disposition.as_str());
            row.disposition = disposition;
            row.error = Some(error);
            Some((row, Some((2, line)), "unjudged".to_owned()))
        }
        Ok(ok) => {
            let d = decide(mode, &ok.answers)?;
            run.set(&hunk.id, d.disposition);
            if let Some(reason) = &d.parked {
                run.parked.push(Parked {
                    id: hunk.id.clone(),
                    path: Some(hunk.path.clone()),
                    reason: reason.clone(),
                });
            }
            run.findings.extend(findings(hunk, &d));
            run.decision(&hunk.id, &format!("diff_{}", mode.id), json!({"classification": d.classification, "importance": d.importance, "evidenceSufficient": d.evidence, "flag": d.flag}), POLICY);
            let line = decided_line(mode, &where_, &d);
            row.disposition = d.disposition;
            row.evidence_sufficient = Some(d.evidence);
            row.untrusted_instruction_text = Some(d.untrusted);
            row.flag = d.flag;
            row.classification = Some(d.classification);
            row.importance = Some(d.importance);
            Some((row, line, d.label))
        }
    }
}

/// What became of one eligible hunk.
#[derive(Clone, Copy)]
enum Slot<'a> {
    /// Past the hunk cap.
    Capped,
    /// Offered, and left out by the budget plan.
    LeftOut,
    /// Sent (or answered from the cache), with its outcome.
    Sent(&'a stanley_core::FrameOutcome),
}

/// Runs `mode` over the diff evidence, recording into `run`.
pub async fn analyze(
    mode: &Mode,
    input: &AnalysisInput,
    evidence: &DiffEvidence,
    executor: &Executor,
    run: &mut Run,
) {
    let selection = select(mode, input, evidence, run);
    // The budget plan, before the first frame: the frames that fit, in judging order, are
    // charged and sent; the same input always sends the same frames.
    let (plan, outcomes) = executor
        .run_planned(frames(mode, input, evidence, &selection))
        .await;
    record_candidates(mode, &selection, &plan, run);
    let mut by_hunk: Vec<Slot<'_>> = vec![Slot::Capped; selection.eligible.len()];
    let mut judged_with: Vec<Option<&str>> = vec![None; selection.eligible.len()];
    for (g, group) in selection.groups[..selection.offered].iter().enumerate() {
        for &i in group {
            by_hunk[i] = outcomes.get(g).map_or(Slot::LeftOut, Slot::Sent);
            if i != group[0] {
                judged_with[i] = Some(&selection.eligible[group[0]].id);
            }
        }
    }
    let judged = selection.hunks_in(plan.chosen);
    run.limits
        .extend(limit_lines(input, &selection, &plan, judged));
    let mut classifications: Map<String, Value> = Map::new();
    let mut lines: Vec<(u8, String)> = Vec::new();
    for ((hunk, outcome), same) in selection.eligible.iter().zip(by_hunk).zip(judged_with) {
        let Some((mut row, line, key)) = record(mode, hunk, outcome, run) else {
            continue;
        };
        row.judged_with = same;
        lines.extend(line);
        let count = classifications.entry(key).or_insert(json!(0));
        *count = json!(count.as_u64().unwrap_or(0) + 1);
        run.results
            .push(serde_json::to_value(&row).unwrap_or(Value::Null));
    }
    lines.sort_by_key(|(group, _)| *group);
    run.sections.push(Section {
        title: mode.description.to_lowercase(),
        lines: lines
            .into_iter()
            .take(MAX_SECTION_LINES)
            .map(|(_, l)| l)
            .collect(),
    });
    run.not_checked = mode.not_checked.iter().map(|s| (*s).to_owned()).collect();
    run.summary = json!({
        "analysis": mode.id,
        "description": mode.summary,
        "diff": evidence.source.describe(),
        "eligibleHunks": selection.eligible.len(),
        "contextTestHunks": if mode.id == "test_gaps" { selection.context_tests.len() } else { 0 },
        "classifications": classifications,
    });
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

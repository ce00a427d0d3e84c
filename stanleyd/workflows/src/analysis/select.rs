//! Which hunks a diff analysis asks about: the eligible hunks in one judging order (a summary
//! by its own score), hunks with the same changed text grouped into one question (D-119), the
//! related tests a `test_gaps` hunk is shown with, the hunk cap, and the limits lines that say
//! what the cap and the budget plan left out (D-117).

use serde::Serialize;
use stanley_core::{BudgetPlan, Denial};

use super::{AnalysisInput, HUNK_LIMIT_ERROR, MAX_RELATED_TESTS, PLAN_LIMIT_ERROR, priority};
use crate::analysis::modes::Mode;
use crate::diff::{DiffEvidence, Hunk};
use crate::paths::PathKind;
use crate::run::{Disposition, Run};
use crate::text::task_tokens;

/// A summary's own score for each hunk (summarize has no risk words to rank by): what the hunk
/// changes, in distinct non-blank changed lines (log-scaled), less one for each hunk of the
/// same file before it, so every file's first change comes before any file's second and one
/// file of many similar hunks (a snapshot, a table) cannot take a tier's slots.
pub(super) fn summary_scores<'a>(
    mode: &Mode,
    hunks: &[&'a Hunk],
) -> std::collections::HashMap<&'a str, f64> {
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

/// Changed test hunks related to `hunk`, best first: a test of the same file stem, then tests
/// that share at least two words of the hunk's path and changed lines, weighed against the
/// test's size so a large test file does not match everything.
#[cfg(test)]
pub(super) fn related_tests<'a>(hunk: &Hunk, tests: &[&'a Hunk]) -> Vec<&'a Hunk> {
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

/// Which hunks an analysis looks at and which it offers for judging.
pub(super) struct Selection<'a> {
    /// Hunks the mode judges (for `test_gaps`, not tests or documentation), in diff order.
    pub(super) eligible: Vec<&'a Hunk>,
    /// Test hunks shown with `test_gaps` hunks as context.
    pub(super) context_tests: Vec<&'a Hunk>,
    /// For `test_gaps`, the related test hunks of each eligible hunk (by index); empty else.
    pub(super) related: Vec<Vec<&'a Hunk>>,
    /// Groups of indexes into `eligible` with the same normalised text, in judging order (a
    /// group's first hunk is the one shown to Jev; its answer stands for every member).
    pub(super) groups: Vec<Vec<usize>>,
    /// Groups offered to the budget plan: the highest priority under the hunk cap.
    pub(super) offered: usize,
}

impl Selection<'_> {
    /// Hunks in the first `n` groups.
    pub(super) fn hunks_in(&self, n: usize) -> usize {
        self.groups[..n].iter().map(Vec::len).sum()
    }
}

/// The same-question key of a hunk with the related tests it is shown with ([`Hunk::same_change_key`]).
pub(super) fn same_text_key(hunk: &Hunk, related: &[&Hunk]) -> String {
    let ids: Vec<&str> = related.iter().map(|t| t.id.as_str()).collect();
    hunk.same_change_key(&ids)
}

/// Chooses the hunks, marks every candidate in `run`, and records the hunk cap's limit.
pub(super) fn select<'a>(
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
pub(super) fn record_candidates(
    mode: &Mode,
    selection: &Selection<'_>,
    plan: &BudgetPlan,
    run: &Run,
) {
    let candidates = Candidates {
        analysis: mode.id,
        hunks: selection.eligible.iter().map(|h| h.id.as_str()).collect(),
        excluded: &run.excluded,
        budget_plan: plan,
        context_test_hunks: (mode.id == "test_gaps").then(|| {
            selection
                .context_tests
                .iter()
                .map(|h| h.id.as_str())
                .collect()
        }),
    };
    run.candidates(&crate::run::to_value(&candidates));
}

/// The hunks an analysis considered, as `candidates.json` records them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Candidates<'a> {
    analysis: &'static str,
    hunks: Vec<&'a str>,
    excluded: &'a [crate::diff::Exclusion],
    budget_plan: &'a BudgetPlan,
    /// Only `test_gaps` shows test hunks for context.
    #[serde(skip_serializing_if = "Option::is_none")]
    context_test_hunks: Option<Vec<&'a str>>,
}

/// The limits lines for what the hunk cap and the budget plan left out: one line that says how
/// many were judged (as coverage counts them), which limit stopped it, and what kinds of hunk
/// were left, so the limits and coverage always agree.
pub(super) fn limit_lines(
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

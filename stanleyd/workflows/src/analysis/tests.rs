//! The diff analyses' policy: priority, concern aggregation, parking, findings, related tests
//! and the hunk cap, against a scripted in-memory Jev.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_core::{Budget, BudgetLimits, Cancel, ExecutorOptions, Status};

use super::*;
use crate::analysis::modes::{self, Mode};
use crate::diff::{Diff, DiffSource};
use crate::ports::NoRecords;
use crate::testing::FixedClock;
use stanley_core::testing::{ScriptedJev, envelope};

fn choice(labels: &[String], probs: &[(&str, f64)]) -> Value {
    let rest_labels = labels
        .iter()
        .filter(|l| !probs.iter().any(|(p, _)| p == *l))
        .count()
        .max(1) as f64;
    let rest = (1.0 - probs.iter().map(|(_, p)| p).sum::<f64>()) / rest_labels;
    let map: serde_json::Map<String, Value> = labels
        .iter()
        .map(|l| {
            (
                l.clone(),
                json!(probs.iter().find(|(p, _)| p == l).map_or(rest, |(_, p)| *p)),
            )
        })
        .collect();
    let best = labels
        .iter()
        .max_by(|a, b| {
            map[*a]
                .as_f64()
                .unwrap()
                .total_cmp(&map[*b].as_f64().unwrap())
        })
        .unwrap();
    json!({"type": "choice", "choice": best, "confidence": map[best], "probabilities": map})
}

fn score(high: f64) -> Value {
    // Mass `high` split over levels 2 and 3, the rest on level 0.
    let p = [1.0 - high, 0.0, high / 2.0, high / 2.0];
    let expected: f64 = p.iter().enumerate().map(|(i, x)| i as f64 * x).sum();
    json!({"type": "score", "score": expected, "confidence": 0.8, "probabilities": {"0": p[0], "1": p[1], "2": p[2], "3": p[3]}})
}

/// Answers with the given classification mass, importance mass and evidence for every hunk.
fn answering(
    mode: &'static Mode,
    probs: &'static [(&'static str, f64)],
    high: f64,
    evidence: f64,
    untrusted: f64,
) -> Arc<ScriptedJev> {
    let labels: Vec<String> = mode.labels.iter().map(|(l, _)| (*l).to_owned()).collect();
    ScriptedJev::new(move |_, _| {
        Ok(envelope(json!({
            "classification": choice(&labels, probs),
            "importance": score(high),
            "evidence_sufficient": {"type": "noul", "noul": evidence},
            "untrusted_instruction_text": {"type": "noul", "noul": untrusted},
        })))
    })
}

const DIFF: &str = "diff --git a/src/auth.ts b/src/auth.ts
--- a/src/auth.ts
+++ b/src/auth.ts
@@ -1,4 +1,3 @@ export function canEdit
 export function canEdit(user) {
-  if (user.role !== 'admin') return false;
   return true;
 }
diff --git a/src/cart.ts b/src/cart.ts
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -1,2 +1,3 @@
 export function total(items) {
+  return applyDiscount(items);
 }
diff --git a/test/cart.test.ts b/test/cart.test.ts
--- a/test/cart.test.ts
+++ b/test/cart.test.ts
@@ -1,2 +1,3 @@
 test('total', () => {
+  expect(applyDiscount([])).toBe(0);
 });
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1,2 @@
 # Shop
+Discounts apply at checkout.
";

fn evidence() -> DiffEvidence {
    DiffEvidence::from_source(DiffSource::worktree(Diff::parse(DIFF)))
}

async fn run_mode(
    mode: &'static Mode,
    jev: Arc<ScriptedJev>,
    max_hunks: usize,
) -> crate::run::Packet {
    let budget = Arc::new(Budget::new(BudgetLimits::TREE));
    let executor = Executor::new(
        Some(jev),
        budget,
        ExecutorOptions::new("jev-test").retries(0).concurrency(2),
        Cancel::new(),
    );
    let input = AnalysisInput {
        request: "Look at this change".into(),
        max_hunks,
    };
    let ev = evidence();
    let mut run = Run::start(
        crate::runs::RunId::parse("x-1").unwrap(),
        &format!("{}@1", mode.id),
        Arc::new(NoRecords),
        Arc::new(FixedClock),
        BudgetLimits::TREE,
        "jev-test",
        recorded_inputs(mode, &input, &ev),
    );
    analyze(mode, &input, &ev, &executor, &mut run).await;
    run.finish(&executor)
}

#[tokio::test]
async fn concern_mass_combines_labels_into_a_flag() {
    // 0.40 + 0.35 of concern labels is a concern even though no label reaches 0.5.
    let jev = answering(
        &modes::REVIEW,
        &[
            ("correctness_risk", 0.40),
            ("error_handling_risk", 0.35),
            ("no_issue_visible", 0.25),
        ],
        0.8,
        0.9,
        0.1,
    );
    let packet = run_mode(&modes::REVIEW, jev, 150).await;
    let findings = packet.json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4, "{findings:?}");
    assert_eq!(findings[0]["flag"], "review_correctness_risk");
    assert_eq!(findings[0]["detail"]["concernMass"], 0.75);
    assert_eq!(findings[0]["severity"], "warn");
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == "src/auth.ts" && f["lines"] == "2"),
        "a removal is placed where it left the file, not on the hunk's context"
    );
    // What was judged and why, in words, and the changed line it is about.
    let auth = findings
        .iter()
        .find(|f| f["path"] == "src/auth.ts")
        .unwrap();
    assert_eq!(
        auth["message"],
        "Correctness risk: the change can plausibly compute or return the wrong result. Asked \
         \"Could this change give wrong results, mishandle errors, race or lose data?\", Jev \
         gave this answer 40% (75% on any concern), and 80% that it is material."
    );
    assert_eq!(
        auth["quote"],
        serde_json::json!([{"change": "removed", "line": 2, "text": "  if (user.role !== 'admin') return false;"}])
    );
    assert_eq!(packet.status, Status::Complete);
    // The report puts the findings first, under the headline; the rows per hunk are for
    // `--verbose`.
    let text = packet.human();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains(": 4 findings · complete"), "{text}");
    // Source first, then tests, then the rest (issue 34: not README.md first).
    assert!(
        lines[2].starts_with("  warn  src/auth.ts:2  Correctness risk: the change can"),
        "{text}"
    );
    assert!(
        text.contains("\n        - 2 |   if (user.role !== 'admin') return false;\n"),
        "{text}"
    );
    assert!(text.find("test/cart.test.ts:2").unwrap() < text.find("README.md:2").unwrap());
    assert!(!text.contains("review findings by hunk:"), "{text}");
    let verbose = packet.verbose();
    assert!(
        verbose.contains("review findings by hunk:\n  "),
        "{verbose}"
    );
    assert!(
        verbose.contains("[judged] correctness_risk concern=0.75 importance=0.80 evidence=0.90"),
        "{verbose}"
    );
}

#[tokio::test]
async fn a_material_concern_without_evidence_is_parked() {
    let jev = answering(
        &modes::SECURITY,
        &[("authorization_or_authentication", 0.9)],
        0.9,
        0.2,
        0.1,
    );
    let packet = run_mode(&modes::SECURITY, jev, 150).await;
    assert_eq!(packet.json["findings"], json!([]));
    let parked = packet.json["parked"].as_array().unwrap();
    assert_eq!(parked.len(), 4);
    assert_eq!(
        parked[0]["reason"],
        "security_review: material concern needs evidence outside the diff"
    );
}

#[tokio::test]
async fn low_importance_concerns_are_judged_without_findings() {
    let jev = answering(
        &modes::PERFORMANCE,
        &[("algorithmic_complexity_risk", 0.9)],
        0.3,
        0.9,
        0.1,
    );
    let packet = run_mode(&modes::PERFORMANCE, jev, 150).await;
    assert_eq!(packet.json["findings"], json!([]));
    assert_eq!(packet.json["coverage"]["judged"], 4);
}

#[tokio::test]
async fn each_mode_flags_with_its_prefix() {
    for (mode, label, flag) in [
        (
            &modes::REVIEW,
            "correctness_risk",
            "review_correctness_risk",
        ),
        (
            &modes::TEST_GAPS,
            "missing_behavior_test",
            "missing_behavior_test",
        ),
        (
            &modes::SECURITY,
            "authorization_or_authentication",
            "security_authorization_or_authentication",
        ),
        (
            &modes::PERFORMANCE,
            "algorithmic_complexity_risk",
            "performance_algorithmic_complexity_risk",
        ),
        (
            &modes::COMPATIBILITY,
            "breaking_source_api",
            "compatibility_breaking_source_api",
        ),
    ] {
        let labels: Vec<String> = mode.labels.iter().map(|(l, _)| (*l).to_owned()).collect();
        let label = label.to_owned();
        let jev = ScriptedJev::new(move |_, _| {
            Ok(envelope(json!({
                "classification": choice(&labels, &[(label.as_str(), 0.9)]),
                "importance": score(0.9),
                "evidence_sufficient": {"type": "noul", "noul": 0.9},
                "untrusted_instruction_text": {"type": "noul", "noul": 0.1},
            })))
        });
        let packet = run_mode(mode, jev, 150).await;
        assert_eq!(packet.json["findings"][0]["flag"], flag, "{}", mode.id);
        assert_eq!(packet.json["summary"]["analysis"], mode.id);
        assert_eq!(packet.json["notChecked"].as_array().unwrap().len(), 3);
    }
}

#[tokio::test]
async fn summarize_never_flags_and_parks_uncertain_hunks() {
    let jev = answering(
        &modes::SUMMARIZE,
        &[("feature", 0.4), ("bug_fix", 0.3)],
        0.9,
        0.9,
        0.1,
    );
    let packet = run_mode(&modes::SUMMARIZE, jev, 150).await;
    assert_eq!(packet.json["findings"], json!([]));
    assert_eq!(packet.json["coverage"]["parked"], 4);
    assert_eq!(
        packet.json["parked"][0]["reason"],
        "summarize: classification uncertain"
    );
}

#[tokio::test]
async fn the_untrusted_instruction_diagnostic_needs_0_9() {
    let low = run_mode(
        &modes::SUMMARIZE,
        answering(&modes::SUMMARIZE, &[("feature", 0.9)], 0.9, 0.9, 0.75),
        150,
    )
    .await;
    assert_eq!(low.json["findings"], json!([]));
    let high = run_mode(
        &modes::SUMMARIZE,
        answering(&modes::SUMMARIZE, &[("feature", 0.9)], 0.9, 0.9, 0.97),
        150,
    )
    .await;
    let findings = high.json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4);
    assert!(
        findings
            .iter()
            .all(|f| f["flag"] == "untrusted_instruction_text" && f["severity"] == "info")
    );
}

#[tokio::test]
async fn the_hunk_cap_judges_the_weakened_auth_check_first_and_reports_incomplete() {
    let jev = answering(
        &modes::SECURITY,
        &[("no_security_relevance", 0.9)],
        0.1,
        0.9,
        0.1,
    );
    let seen = jev.clone();
    let packet = run_mode(&modes::SECURITY, jev, 1).await;
    let states: Vec<Value> = seen.requests().into_iter().map(|r| r.state).collect();
    assert_eq!(states.len(), 1);
    assert_eq!(states[0]["hunk"]["path"], "src/auth.ts");
    assert_eq!(packet.status, Status::Incomplete);
    let results = packet.json["results"].as_array().unwrap();
    assert_eq!(
        packet.json["coverage"]["unjudged"].as_u64().unwrap() as usize,
        results.len() - 1
    );
    assert!(
        packet.json["limits"][0]
            .as_str()
            .unwrap()
            .starts_with("only the 1 highest-priority of 4 eligible hunks")
    );
    assert!(packet.human().contains(" · INCOMPLETE"));
}

#[tokio::test]
async fn test_gaps_judges_code_with_related_tests_as_context() {
    let jev = answering(
        &modes::TEST_GAPS,
        &[("test_evidence_present", 0.9)],
        0.1,
        0.9,
        0.1,
    );
    let seen = jev.clone();
    let packet = run_mode(&modes::TEST_GAPS, jev, 150).await;
    assert_eq!(packet.json["summary"]["eligibleHunks"], 2);
    assert_eq!(packet.json["summary"]["contextTestHunks"], 1);
    let states: Vec<Value> = seen.requests().into_iter().map(|r| r.state).collect();
    let cart = states
        .iter()
        .find(|s| s["hunk"]["path"] == "src/cart.ts")
        .unwrap();
    assert_eq!(cart["relatedTestHunks"][0]["path"], "test/cart.test.ts");
    let auth = states
        .iter()
        .find(|s| s["hunk"]["path"] == "src/auth.ts")
        .unwrap();
    assert_eq!(auth["relatedTestHunks"], json!([]));
}

#[test]
fn priorities_follow_the_mode_terms() {
    let ev = evidence();
    let auth = &ev.hunks[0];
    let readme = &ev.hunks[3];
    assert!(
        priority(&modes::SECURITY, auth) > 100.0,
        "the removed role check earns the security bonus"
    );
    assert!(priority(&modes::REVIEW, readme) < 0.0);
    assert_eq!(priority(&modes::SUMMARIZE, auth), 0.0);
}

/// A recorder whose writes fail, as on a full disk when a tmpfs cannot be mounted.
struct FullDisk;

impl crate::ports::RunRecorder for FullDisk {
    fn write_json(&self, _name: &str, _value: &Value) {}
    fn append(&self, _name: &str, _value: &Value) {}
    fn artifact(&self) -> Option<String> {
        Some(".stanley/runs/x-1".into())
    }
    fn failure(&self) -> Option<String> {
        Some(".stanley/runs/x-1/packet.json: No space left on device (os error 28)".into())
    }
}

#[tokio::test]
async fn a_record_that_cannot_be_written_is_a_limit_not_a_failure() {
    let jev = answering(&modes::REVIEW, &[("no_issue_visible", 0.9)], 0.5, 0.9, 0.1);
    let executor = Executor::new(
        Some(jev),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("jev-test").retries(0),
        Cancel::new(),
    );
    let input = AnalysisInput {
        request: "Review this".into(),
        max_hunks: 150,
    };
    let ev = evidence();
    let mut run = Run::start(
        crate::runs::RunId::parse("x-1").unwrap(),
        "review@1",
        Arc::new(FullDisk),
        Arc::new(FixedClock),
        BudgetLimits::TREE,
        "jev-test",
        recorded_inputs(&modes::REVIEW, &input, &ev),
    );
    analyze(&modes::REVIEW, &input, &ev, &executor, &mut run).await;
    let packet = run.finish(&executor);
    assert_eq!(packet.status, Status::Complete, "the answer stands");
    let limits = packet.json["limits"].as_array().unwrap();
    assert_eq!(
        limits.last().unwrap(),
        "the run record is incomplete: .stanley/runs/x-1/packet.json: No space left on device (os error 28)"
    );
    assert!(packet.human().contains("the run record is incomplete"));
}

#[test]
fn related_tests_prefer_the_same_stem_and_a_large_test_file_does_not_match_everything() {
    let added = |path: &str, body: &str| {
        let lines: Vec<String> = body.lines().map(|l| format!("+{l}")).collect();
        format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n{}\n",
            lines.len(),
            lines.join("\n")
        )
    };
    // A large test file mentioning many words, a small test of the parser, and two sources.
    let big: String = (0..250)
        .map(|i| format!("it('case {i} of cache tokens parser config retry', () => {{}});\n"))
        .chain(["it('formats the currency', () => {});\n".to_owned()])
        .collect();
    let text = [
        added("tests/everything.test.js", &big),
        added("tests/parser.test.js", "it('parses', () => parse('x'));\n"),
        added(
            "src/parser.js",
            "export function parse(text) { return text; }\n",
        ),
        added("src/billing.js", "export const currency = 'EUR';\n"),
    ]
    .concat();
    let files = crate::diff::parse_diff(&text);
    let hunks: Vec<&Hunk> = files.iter().flat_map(|f| &f.hunks).collect();
    let tests: Vec<&Hunk> = hunks[..2].to_vec();
    let parser = related_tests(hunks[2], &tests);
    assert_eq!(parser[0].path, "tests/parser.test.js");
    let billing = related_tests(hunks[3], &tests);
    assert!(
        billing.is_empty(),
        "{:?}",
        billing.iter().map(|h| &h.path).collect::<Vec<_>>()
    );
}

/// A diff of `files`, each `(path, changed line)` one added line in its own hunk.
fn evidence_of(files: &[(&str, &str)]) -> DiffEvidence {
    let text: String = files
        .iter()
        .map(|(p, line)| {
            format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,1 +1,2 @@\n x\n+{line}\n")
        })
        .collect();
    DiffEvidence::from_source(DiffSource::worktree(Diff::parse(&text)))
}

async fn run_on(
    mode: &'static Mode,
    ev: &DiffEvidence,
    jev: Arc<ScriptedJev>,
    limits: BudgetLimits,
) -> crate::run::Packet {
    let executor = Executor::new(
        Some(jev),
        Arc::new(Budget::new(limits)),
        ExecutorOptions::new("jev-test").retries(0).concurrency(4),
        Cancel::new(),
    );
    let input = AnalysisInput {
        request: "Look at this change".into(),
        max_hunks: DEFAULT_MAX_HUNKS,
    };
    let mut run = Run::start(
        crate::runs::RunId::parse("x-1").unwrap(),
        &format!("{}@1", mode.id),
        Arc::new(NoRecords),
        Arc::new(FixedClock),
        limits,
        "jev-test",
        recorded_inputs(mode, &input, ev),
    );
    analyze(mode, &input, ev, &executor, &mut run).await;
    run.finish(&executor)
}

#[tokio::test]
async fn the_same_change_in_several_files_is_asked_once_and_reported_at_each() {
    let mode = modes::mode("review").unwrap();
    let jev = answering(mode, &[("correctness_risk", 0.9)], 0.9, 0.9, 0.0);
    let ev = evidence_of(&[
        ("src/a.rs", "use std::task::{ready, Context, Poll};"),
        ("src/b.rs", "use  std::task::{ready, Context, Poll};"),
        ("src/c.rs", "let total = price * quantity;"),
    ]);
    let packet = run_on(mode, &ev, jev.clone(), BudgetLimits::TREE).await;
    assert_eq!(jev.calls(), 2, "one question for the shared import");
    let rows = packet.json["results"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1]["judgedWith"], rows[0]["id"]);
    assert_eq!(rows[1]["classification"], rows[0]["classification"]);
    assert!(rows[0].get("judgedWith").is_none() && rows[2].get("judgedWith").is_none());
    // Each place has its own finding.
    let flagged: Vec<&str> = packet.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(flagged.contains(&"src/a.rs") && flagged.contains(&"src/b.rs"));
}

#[tokio::test]
async fn the_budget_plan_sends_the_frames_that_fit_and_names_what_it_left_out() {
    let mode = modes::mode("review").unwrap();
    let files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("src/m{i:02}.rs"),
                format!("let value_{i} = compute({i});"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, l)| (p.as_str(), l.as_str()))
        .collect();
    let ev = evidence_of(&refs);
    // Room for about five frames after the plan's reserve.
    let probe = Executor::new(
        None,
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("jev-test"),
        Cancel::new(),
    );
    let change = crate::change::ChangeContext::new(&ev);
    let one = probe.estimate(&Frame {
        template: "diff-review@2".into(),
        scope: ev.hunks[0].id.clone(),
        state: json!({"evidencePolicy": EVIDENCE_POLICY, "analysis": "review", "request": "Look at this change", "task": null, "change": change.of(&ev.hunks[0]), "hunk": ev.hunks[0].evidence(), "relatedTestHunks": []}),
        questions: questions(mode, &ev.hunks[0]),
        provenance: json!([]),
    });
    let limits = BudgetLimits {
        requests: 600,
        input_tokens: (one * 5 + one / 2) * 20 / 19,
        wall_ms: 180_000,
    };
    let mut seen = None;
    for _ in 0..5 {
        let jev = answering(mode, &[("correctness_risk", 0.9)], 0.9, 0.9, 0.0);
        let packet = run_on(mode, &ev, jev.clone(), limits).await;
        assert_eq!(packet.status, Status::BudgetExhausted);
        let rows = packet.json["results"].as_array().unwrap();
        let left: Vec<&str> = rows
            .iter()
            .filter(|r| r["error"] == "not judged: budget plan")
            .map(|r| r["path"].as_str().unwrap())
            .collect();
        assert_eq!(jev.calls() + left.len(), 12);
        assert!((4..=6).contains(&jev.calls()), "{} sent", jev.calls());
        let limits_line = packet.json["limits"][0].as_str().unwrap().to_owned();
        assert!(
            limits_line.starts_with(&format!(
                "the budget plan judged the {} highest-priority of 12 eligible hunks",
                jev.calls()
            )),
            "{limits_line}"
        );
        assert!(limits_line.contains(&format!("{} source", left.len())));
        let now = (jev.calls(), left.join(","));
        assert_eq!(
            *seen.get_or_insert(now.clone()),
            now,
            "the same plan every run"
        );
    }
}

#[test]
fn summaries_spread_over_files_and_put_recorded_outputs_after_the_tests() {
    let mode = modes::mode("summarize").unwrap();
    let text: String = [
        ("tests/ui/a.stderr", 3),
        ("tests/ui/b.stderr", 1),
        ("tests/parse.rs", 2),
        ("tests/lex.rs", 1),
    ]
    .iter()
    .map(|(p, hunks)| {
        let mut out = format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n");
        for h in 0..*hunks {
            let at = 1 + h * 10;
            out.push_str(&format!("@@ -{at},1 +{at},2 @@\n x\n+change {h} in {p}\n"));
        }
        out
    })
    .collect();
    let ev = DiffEvidence::from_source(DiffSource::worktree(Diff::parse(&text)));
    let hunks: Vec<&Hunk> = ev.hunks.iter().collect();
    let scores = summary_scores(mode, &hunks);
    let order: Vec<String> =
        crate::order::judging_order(&hunks, "Summarize", |h| scores[h.id.as_str()])
            .into_iter()
            .map(|i| format!("{}#{}", hunks[i].path, hunks[i].new_start))
            .collect();
    assert_eq!(
        order[..4],
        [
            "tests/parse.rs#1",
            "tests/lex.rs#1",
            "tests/ui/a.stderr#1",
            "tests/ui/b.stderr#1",
        ],
        "{order:?}"
    );
}

/// Near-identical findings (the same flag about the same changed text) are one entry that names
/// the other places; past the first ten the rest are counted, and `--verbose` lists every one.
#[tokio::test]
async fn near_identical_findings_are_one_entry_and_the_rest_are_counted() {
    let mut files: Vec<(String, String)> = (0..3)
        .map(|i| {
            (
                format!("src/a_same{i}.ts"),
                "  return cache.get(key) ?? load(key);".to_owned(),
            )
        })
        .collect();
    files.extend((0..12).map(|i| {
        (
            format!("src/other{i:02}.ts"),
            format!("  total += item{i}.price;"),
        )
    }));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, l)| (p.as_str(), l.as_str()))
        .collect();
    let ev = evidence_of(&refs);
    let jev = answering(
        &modes::REVIEW,
        &[("correctness_risk", 0.9), ("no_issue_visible", 0.1)],
        0.9,
        0.9,
        0.0,
    );
    let packet = run_on(&modes::REVIEW, &ev, jev, BudgetLimits::TREE).await;
    let findings = packet.json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 15);
    for f in findings {
        assert_eq!(f["lines"], "2", "placed on the added line: {f}");
        assert_eq!(f["quote"][0]["change"], "added");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("Correctness risk: ")
        );
    }
    let text = packet.human();
    let heads = text.lines().filter(|l| l.starts_with("  warn  ")).count();
    assert_eq!(heads, 10, "{text}");
    assert_eq!(
        text.matches("the same in 2 other places: ").count(),
        1,
        "{text}"
    );
    // 15 findings: 13 entries, 10 shown, 3 counted.
    assert!(
        text.contains("  and 3 more findings: rerun with --verbose"),
        "{text}"
    );
    let verbose = packet.verbose();
    let heads = verbose
        .lines()
        .filter(|l| l.starts_with("  warn  "))
        .count();
    assert_eq!(heads, 13, "{verbose}");
    assert!(!verbose.contains("more findings"), "{verbose}");
}

/// Answers that do not fit their questions stop the asking after a few frames, each retried,
/// and the result says so as its cause: not a spent budget, and not hundreds of requests
/// (issue 49).
#[tokio::test]
async fn answers_that_do_not_fit_stop_the_asking_and_are_named() {
    let files: Vec<(String, String)> = (0..60)
        .map(|i| (format!("src/f{i:02}.ts"), format!("  return value{i};")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, l)| (p.as_str(), l.as_str()))
        .collect();
    let ev = evidence_of(&refs);
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    let jev = ScriptedJev::new(move |_, _| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // A label no question offers.
        Ok(envelope(json!({
            "classification": {"type": "choice", "choice": "banana", "probabilities": {"banana": 1.0}},
            "importance": score(0.9),
            "evidence_sufficient": {"type": "noul", "noul": 0.9},
            "untrusted_instruction_text": {"type": "noul", "noul": 0.0},
        })))
    });
    let packet = run_on(&modes::SUMMARIZE, &ev, jev, BudgetLimits::TREE).await;
    let asked = asked.load(std::sync::atomic::Ordering::SeqCst);
    // Eight answers in a row, and what was already in flight beside them (4 at once).
    assert!(asked <= 8 + 4, "asked {asked} times");
    assert_eq!(packet.status, Status::Incomplete);
    assert_eq!(
        packet.json["statusReason"],
        "Jev's answers did not fit the questions"
    );
    let limits = packet.json["limits"].as_array().unwrap();
    assert!(
        limits.iter().any(|l| l
            .as_str()
            .unwrap()
            .starts_with("Jev's answers did not fit the questions asked (8 answers in a row")),
        "{limits:?}"
    );
    let text = packet.human();
    let head = text
        .split("\n\n")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        head.contains("incomplete (Jev's answers did not fit the questions)"),
        "{text}"
    );
}

//! `check` policy against a scripted in-memory Jev: weak relations and their suppression, the
//! enabler follow-up, hard conflicts, weakened tests, rules batching and verdicts, criteria
//! statuses.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use stanley_core::{Budget, BudgetLimits, Cancel, Executor, ExecutorOptions, JevRequest, Status};

use super::*;
use crate::diff::{Diff, DiffSource};
use crate::ports::NoRecords;
use crate::run::Packet;
use crate::testing::FixedClock;
use stanley_core::testing::{ScriptedJev, choice as pick, noul};

fn level(n: usize, level: usize, mass: f64) -> Value {
    let rest = (1.0 - mass) / (n - 1) as f64;
    let p: Vec<f64> = (0..n)
        .map(|i| if i == level { mass } else { rest })
        .collect();
    let expected: f64 = p.iter().enumerate().map(|(i, x)| i as f64 * x).sum();
    json!({"type": "score", "score": expected, "confidence": mass, "probabilities": p.iter().enumerate().map(|(i, x)| (i.to_string(), json!(x))).collect::<Map<_, _>>()})
}

fn hunk_path(state: &Value) -> String {
    state
        .pointer("/hunk/path")
        .or_else(|| state.pointer("/candidateHunk/path"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn evidence(diff: &str) -> DiffEvidence {
    DiffEvidence::from_source(DiffSource::worktree(Diff::parse(diff)))
}

async fn run_check(
    diff: &str,
    task: &str,
    input: Option<&str>,
    jev: Arc<dyn stanley_core::Jev>,
) -> Packet {
    run_check_within(diff, task, input, jev, BudgetLimits::TREE).await
}

async fn run_check_within(
    diff: &str,
    task: &str,
    input: Option<&str>,
    jev: Arc<dyn stanley_core::Jev>,
    limits: BudgetLimits,
) -> Packet {
    let plan = plan(task, input.map(|t| (t, "notes/input"))).unwrap();
    let ev = evidence(diff);
    let executor = Executor::new(
        Some(jev),
        Arc::new(Budget::new(limits)),
        ExecutorOptions::new("jev-test").retries(0).concurrency(2),
        Cancel::new(),
    );
    let mut run = Run::start(
        crate::runs::RunId::parse("check-1").unwrap(),
        "check@1",
        Arc::new(NoRecords),
        Arc::new(FixedClock),
        limits,
        "jev-test",
        recorded_inputs(&plan, &ev),
    );
    check(&plan, &ev, &executor, &mut run).await;
    run.finish(&executor)
}

const CART: &str = "diff --git a/src/discount.ts b/src/discount.ts
new file mode 100644
--- /dev/null
+++ b/src/discount.ts
@@ -0,0 +1,3 @@
+export function applyDiscount(total) {
+  return total * 0.9;
+}
diff --git a/src/cart.ts b/src/cart.ts
--- a/src/cart.ts
+++ b/src/cart.ts
@@ -1,3 +1,3 @@
 export function checkout(total) {
-  return total;
+  return applyDiscount(total);
 }
diff --git a/src/format.ts b/src/format.ts
--- a/src/format.ts
+++ b/src/format.ts
@@ -1,3 +1,3 @@
 export function money(x) {
-  return '$' + x;
+  return '$' + x.toFixed(2);
 }
diff --git a/test/cart.test.ts b/test/cart.test.ts
--- a/test/cart.test.ts
+++ b/test/cart.test.ts
@@ -1,3 +1,3 @@
 test('checkout', () => {
-  expect(checkout(10)).toBe(10);
+  expect(checkout(10)).toBeDefined();
 });
diff --git a/package-lock.json b/package-lock.json
--- a/package-lock.json
+++ b/package-lock.json
@@ -1 +1 @@
-{}
+{\"a\": 1}
";

/// Relation by path: format and discount look unrelated; cart is direct; the test is weakened.
fn cart_jev() -> Arc<ScriptedJev> {
    ScriptedJev::per_question(cart_answer)
}

fn cart_answer(name: &str, q: &Value, state: &Value) -> Value {
    match name {
        "task_relation" => match hunk_path(state).as_str() {
            "src/cart.ts" | "test/cart.test.ts" => level(4, 3, 0.85),
            _ => level(4, 0, 0.85),
        },
        "change_kind" => pick(q, "behavior_change", 0.8),
        "weakens_expectation" => noul(0.9),
        "enables_other_hunk" => noul(0.9),
        "untrusted_instruction_text" => noul(0.99),
        _ => noul(0.1),
    }
}

/// Holds one hunk's intent back until a frame with a question named `released_by…` is asked (or
/// 3 s pass), and logs which came first.
struct HeldBack {
    inner: Arc<ScriptedJev>,
    path: &'static str,
    released_by: &'static str,
    release: tokio::sync::Notify,
    log: std::sync::Mutex<Vec<&'static str>>,
}

impl stanley_core::Jev for HeldBack {
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        timeout: std::time::Duration,
    ) -> stanley_core::BoxFuture<'a, Result<Value, stanley_core::JevError>> {
        Box::pin(async move {
            let asks = |name: &str| request.questions.get(name).is_some();
            if asks("task_relation") && hunk_path(&request.state) == self.path {
                let wait = std::time::Duration::from_secs(3);
                let _ = tokio::time::timeout(wait, self.release.notified()).await;
                self.log.lock().unwrap().push("held-back intent answered");
            }
            let releases = request
                .questions
                .as_object()
                .is_some_and(|q| q.keys().any(|k| k.starts_with(self.released_by)));
            if releases {
                self.log.lock().unwrap().push("releaser asked");
                self.release.notify_one();
            }
            self.inner.ask(request, timeout).await
        })
    }
}

#[tokio::test]
async fn a_follow_up_is_asked_as_soon_as_its_intents_arrive_not_after_the_batch() {
    let docs = "diff --git a/docs/guide.md b/docs/guide.md
--- a/docs/guide.md
+++ b/docs/guide.md
@@ -1,2 +1,2 @@
 # Guide
-Old words.
+New words.
";
    let jev = Arc::new(HeldBack {
        inner: cart_jev(),
        path: "docs/guide.md",
        released_by: "enables_other_hunk",
        release: tokio::sync::Notify::new(),
        log: std::sync::Mutex::new(Vec::new()),
    });
    let diff = format!("{CART}{docs}");
    let packet = run_check(
        &diff,
        "Give members a 10% discount at checkout",
        None,
        jev.clone(),
    )
    .await;
    assert_eq!(
        *jev.log.lock().unwrap(),
        ["releaser asked", "held-back intent answered"],
        "the discount hunk's follow-up did not wait for an unrelated hunk's intent"
    );
    // The same decisions as when every intent is known first.
    let discount = result_for(&packet, "src/discount.ts");
    assert_eq!(discount["flags"], json!(["enables_linked_hunk"]));
    assert_eq!(discount["enables"]["probability"], json!(0.9));
    assert_eq!(packet.json["summary"]["task"]["followUps"], 1);
    let found = flags(&packet);
    assert!(
        found.contains(&"weak_task_relation:docs/guide.md".to_owned()),
        "{found:?}"
    );
}

/// The task row of the hunk at `path`.
fn result_for<'a>(packet: &'a Packet, path: &str) -> &'a Value {
    packet.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == path)
        .unwrap()
}

fn flags(packet: &Packet) -> Vec<String> {
    packet.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}",
                f["flag"].as_str().unwrap(),
                f["path"].as_str().unwrap_or("-")
            )
        })
        .collect()
}

#[tokio::test]
async fn the_task_section_flags_weak_and_weakened_and_clears_enablers() {
    let jev = cart_jev();
    let packet = run_check(
        CART,
        "Give members a 10% discount at checkout",
        None,
        jev.clone(),
    )
    .await;
    let found = flags(&packet);
    for want in [
        "weak_task_relation:src/format.ts",
        "test_expectation_weakened:test/cart.test.ts",
        "lockfile_changed:package-lock.json",
    ] {
        assert!(
            found.contains(&want.to_owned()),
            "{want} missing from {found:?}"
        );
    }
    assert!(
        !found
            .iter()
            .any(|f| f.starts_with("weak_task_relation:src/discount.ts")),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|f| f.starts_with("untrusted_instruction_text")),
        "no untrusted finding in check, even at 0.99"
    );
    let discount = result_for(&packet, "src/discount.ts");
    assert_eq!(discount["flags"], json!(["enables_linked_hunk"]));
    assert_eq!(packet.json["coverage"]["deterministic"], 1);
    assert_eq!(packet.json["coverage"]["judged"], 4);
    assert_eq!(packet.json["summary"]["sections"], json!(["task"]));
    let seen = jev.requests();
    assert!(
        seen.iter()
            .all(|r| r.state.pointer("/hunk/path") != Some(&json!("package-lock.json")))
    );
    let test_state = seen
        .iter()
        .find(|r| r.questions.get("weakens_expectation").is_some())
        .unwrap();
    assert_eq!(
        test_state
            .state
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["evidencePolicy", "task", "hunk"]
    );
    let examples = test_state.questions["weakens_expectation"]["instructions"]["workedExamples"]
        .as_array()
        .unwrap();
    assert_eq!(examples.len(), 6);
}

#[tokio::test]
async fn a_vague_task_gives_one_insufficiency_finding() {
    let jev = ScriptedJev::per_question(|name, q, _| match name {
        "task_relation" => level(4, 0, 0.9),
        "change_kind" => pick(q, "behavior_change", 0.8),
        _ => noul(0.1),
    });
    let packet = run_check(CART, "Improve things", None, jev).await;
    let found = flags(&packet);
    assert_eq!(
        found
            .iter()
            .filter(|f| f.starts_with("task_text_insufficient"))
            .count(),
        1,
        "{found:?}"
    );
    assert!(
        !found.iter().any(|f| f.starts_with("weak_task_relation:")),
        "{found:?}"
    );
}

#[tokio::test]
async fn a_direct_relation_that_is_only_formatting_is_parked() {
    let jev = ScriptedJev::per_question(|name, q, state| match name {
        "task_relation" => level(4, 3, 0.9),
        "change_kind" if hunk_path(state) == "src/format.ts" => {
            pick(q, "formatting_or_comments", 0.9)
        }
        "change_kind" => pick(q, "behavior_change", 0.9),
        _ => noul(0.1),
    });
    let packet = run_check(CART, "Give members a discount", None, jev).await;
    assert_eq!(packet.json["coverage"]["parked"], 1);
    assert_eq!(packet.json["parked"][0]["path"], "src/format.ts");
    assert_eq!(
        packet.json["parked"][0]["reason"],
        "conflict: direct task relation vs formatting_or_comments"
    );
}

#[tokio::test]
async fn an_invalid_answer_leaves_coverage_incomplete() {
    let jev = ScriptedJev::per_question(|name, q, _| match name {
        "task_relation" => {
            json!({"type": "score", "score": 9, "confidence": 0.5, "probabilities": {"0": 0.25, "1": 0.25, "2": 0.25, "3": 0.25}})
        }
        "change_kind" => pick(q, "behavior_change", 0.8),
        _ => noul(0.1),
    });
    let packet = run_check(CART, "Give members a discount", None, jev).await;
    assert_eq!(packet.status, Status::Incomplete);
    assert!(packet.json["coverage"]["failed"].as_u64().unwrap() > 0);
}

fn rules_doc(n: usize) -> String {
    let rules: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id": "r{i}", "class": "semantic", "text": "rule {i}", "scope": ["src/**"]}}"#
            )
        })
        .collect();
    format!(
        r#"{{"version": 1, "rules": [{}, {{"id": "fmt", "class": "deterministic", "text": "formatted"}}]}}"#,
        rules.join(",")
    )
}

#[tokio::test]
async fn the_rules_and_criteria_frames_do_not_wait_for_the_task_section() {
    let criteria = "- Checkout applies the discount\n";
    for (input, first_question) in [(rules_doc(2), "rule_"), (criteria.to_owned(), "addresses_")] {
        let inner = ScriptedJev::per_question(|name, q, state| match name {
            "evidence_strength" => level(4, 3, 0.8),
            rule if rule.starts_with("rule_") => pick(q, "not_applicable", 0.9),
            _ => cart_answer(name, q, state),
        });
        let jev = Arc::new(HeldBack {
            inner,
            path: "src/format.ts",
            released_by: first_question,
            release: tokio::sync::Notify::new(),
            log: std::sync::Mutex::new(Vec::new()),
        });
        let packet = run_check(CART, "Give members a discount", Some(&input), jev.clone()).await;
        let log = jev.log.lock().unwrap().clone();
        assert_eq!(
            (log.first(), log.last()),
            (Some(&"releaser asked"), Some(&"held-back intent answered")),
            "{first_question}… was asked while the task section was still waiting"
        );
        let asked: Vec<String> = jev
            .inner
            .requests()
            .iter()
            .map(|r| serde_json::to_string(&(&r.state, &r.questions)).unwrap())
            .collect();
        let distinct: std::collections::BTreeSet<&String> = asked.iter().collect();
        assert_eq!(distinct.len(), asked.len(), "no frame was asked twice");
        assert_eq!(packet.json["coverage"]["failed"], 0);
    }
}

#[tokio::test]
async fn rules_are_batched_twelve_to_a_request_and_judged_by_band() {
    let jev = ScriptedJev::per_question(|name, q, state| {
        if !name.starts_with("rule_") {
            return match name {
                "task_relation" => level(4, 3, 0.9),
                "change_kind" => pick(q, "behavior_change", 0.8),
                _ => noul(0.1),
            };
        }
        let rule = q["instructions"]["rule"].as_str().unwrap();
        match (rule, hunk_path(state).as_str()) {
            ("rule 0", "src/cart.ts") => pick(q, "applicable_and_violated", 0.9),
            ("rule 1", "src/cart.ts") => pick(q, "cannot_tell", 0.6),
            _ => pick(q, "not_applicable", 0.9),
        }
    });
    let diff = &CART[..CART.find("diff --git a/src/format.ts").unwrap()];
    let packet = run_check(
        diff,
        "Give members a discount",
        Some(&rules_doc(13)),
        jev.clone(),
    )
    .await;
    let seen = jev.requests();
    let mut sizes: Vec<usize> = seen
        .iter()
        .filter(|r| {
            r.questions
                .as_object()
                .unwrap()
                .keys()
                .any(|k| k.starts_with("rule_"))
        })
        .map(|r| r.questions.as_object().unwrap().len())
        .collect();
    sizes.sort();
    assert_eq!(sizes, [1, 1, 12, 12], "two hunks, 13 rules each");
    let found = flags(&packet);
    assert_eq!(
        found
            .iter()
            .filter(|f| f.starts_with("rule_violation"))
            .cloned()
            .collect::<Vec<_>>(),
        ["rule_violation:src/cart.ts"]
    );
    assert!(
        packet.json["parked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["reason"] == "rule r1: cannot_tell")
    );
    let rule_rows: Vec<&Value> = packet.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["section"] == "rules")
        .collect();
    assert_eq!(rule_rows.len(), 26);
    assert_eq!(rule_rows[0]["verdict"], "violation_flagged");
    assert!(
        packet.json["notChecked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("fmt"))
    );
    assert_eq!(packet.json["summary"]["sections"], json!(["task", "rules"]));
}

#[tokio::test]
async fn criteria_statuses_follow_the_evidence() {
    let jev = ScriptedJev::per_question(|name, q, state| {
        let path = hunk_path(state);
        if let Some(c) = name.strip_prefix("addresses_") {
            let text = q["instructions"]["criterion"].as_str().unwrap_or("");
            let _ = c;
            return match (text, path.as_str()) {
                ("Checkout applies the discount", "src/cart.ts" | "src/discount.ts") => noul(0.9),
                ("Logs each retry attempt", _) => noul(0.45),
                _ => noul(0.05),
            };
        }
        match name {
            "evidence_strength" => level(4, 3, 0.8),
            "task_relation" => level(4, 3, 0.9),
            "change_kind" => pick(q, "behavior_change", 0.8),
            _ => noul(0.1),
        }
    });
    let criteria = "- Checkout applies the discount\n- Logs each retry attempt\n- Supports cursor pagination\n";
    let packet = run_check(CART, "Give members a discount", Some(criteria), jev.clone()).await;
    let rows: Vec<(String, String)> = packet.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["section"] == "criteria")
        .map(|r| {
            (
                r["text"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "Supports cursor pagination".to_owned(),
                "unsupported".to_owned()
            ),
            ("Logs each retry attempt".to_owned(), "unclear".to_owned()),
            (
                "Checkout applies the discount".to_owned(),
                "partial".to_owned()
            ),
        ]
    );
    let partial = packet.json["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == "partial")
        .unwrap();
    assert_eq!(partial["cappedBy"], "no test results supplied");
    assert!(
        packet.json["parked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["reason"] == "evidence probabilities only in the uncertain band")
    );
    assert!(
        flags(&packet)
            .iter()
            .any(|f| f.starts_with("criterion_unevidenced"))
    );
    let seen = jev.requests();
    let units: Vec<&JevRequest> = seen
        .iter()
        .filter(|r| {
            r.questions
                .as_object()
                .unwrap()
                .keys()
                .any(|k| k.starts_with("addresses_"))
        })
        .collect();
    assert_eq!(
        units.len(),
        4,
        "one request per evidence unit (the lockfile is not one)"
    );
    assert!(
        units
            .iter()
            .all(|u| u.questions.as_object().unwrap().len() == 3)
    );
    assert_eq!(packet.json["coverage"]["candidates"], json!(5 + 3));
}

#[test]
fn plan_validates_before_any_request() {
    assert_eq!(
        plan(" ", None).unwrap_err().to_string(),
        "task text is required"
    );
    assert_eq!(
        plan("t", Some(("just prose", "x")))
            .unwrap_err()
            .to_string(),
        "no list items found; write criteria as a numbered or bulleted list"
    );
    assert_eq!(
        plan("t", Some((r#"{"version": 1, "rules": []}"#, "x"))).unwrap_err(),
        PlanError::Rules(rules::RulesError::Empty)
    );
}

#[tokio::test]
async fn a_whitespace_only_hunk_is_still_judged() {
    let diff = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n def f(x):\n     if x:\n-        return 1\n+    return 1\n";
    let jev = cart_jev();
    let packet = run_check(diff, "Return 1 for every input", None, jev.clone()).await;
    let row = &packet.json["results"][0];
    assert_eq!(row["deterministicFlags"], json!(["formatting_only"]));
    assert_eq!(row["disposition"], "judged");
    assert!(flags(&packet).contains(&"formatting_only:app.py".to_owned()));
    let seen = jev.requests();
    assert_eq!(
        seen[0].state["deterministicFlags"],
        json!(["formatting_only"])
    );
}

#[tokio::test]
async fn the_task_section_plans_its_budget_and_judges_the_same_hunks_every_run() {
    let diff: String = (0..10)
        .map(|i| {
            format!(
                "diff --git a/src/m{i}.ts b/src/m{i}.ts\n--- a/src/m{i}.ts\n+++ b/src/m{i}.ts\n\
                 @@ -1,1 +1,2 @@\n x\n+export const value{i} = compute({i});\n"
            )
        })
        .collect();
    // Room for a few intent frames past the plan's reserve.
    let limits = BudgetLimits {
        requests: 600,
        input_tokens: 9_000,
        wall_ms: 180_000,
    };
    let mut seen = None;
    for _ in 0..4 {
        let jev = cart_jev();
        let packet = run_check_within(&diff, "Add the values", None, jev.clone(), limits).await;
        assert_eq!(packet.status, Status::BudgetExhausted);
        let rows = packet.json["results"].as_array().unwrap();
        let left: Vec<&str> = rows
            .iter()
            .filter(|r| r["error"] == "not judged: budget plan")
            .filter_map(|r| r["path"].as_str())
            .collect();
        assert!(!left.is_empty() && left.len() < 10, "{left:?}");
        let limits_line = packet.json["limits"].to_string();
        assert!(
            limits_line.contains(&format!(
                "the budget plan judged the {} highest-priority of 10 hunks",
                10 - left.len()
            )),
            "{limits_line}"
        );
        let now = (jev.calls(), left.join(","));
        assert_eq!(
            *seen.get_or_insert(now.clone()),
            now,
            "the same plan every run"
        );
    }
}

#[tokio::test]
async fn the_same_change_in_several_files_is_one_intent_question() {
    let file = |p: &str, line: &str| {
        format!("diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,1 +1,2 @@\n x\n+{line}\n")
    };
    let diff = [
        file("src/a.ts", "import { ready } from './task';"),
        file("src/b.ts", "import  { ready } from './task';"),
        file("src/c.ts", "export const total = price * quantity;"),
    ]
    .concat();
    let jev = cart_jev();
    let packet = run_check(&diff, "Use ready from the task module", None, jev.clone()).await;
    let intents = jev
        .requests()
        .iter()
        .filter(|r| r.state.pointer("/hunk").is_some() && r.state.pointer("/task").is_some())
        .count();
    assert_eq!(intents, 2, "one question for the shared import");
    let rows = packet.json["results"].as_array().unwrap();
    let row = |path: &str| rows.iter().find(|r| r["path"] == path).unwrap();
    assert_eq!(row("src/b.ts")["judgedWith"], row("src/a.ts")["id"]);
    assert_eq!(
        row("src/b.ts")["taskRelation"],
        row("src/a.ts")["taskRelation"]
    );
    assert!(row("src/c.ts").get("judgedWith").is_none());
}

/// Answers like [`ScriptedJev`], each after a delay that depends on the run, so the answers of
/// one run arrive in another order than the last run's, reporting the input it was estimated at.
struct Shuffled {
    inner: Arc<ScriptedJev>,
    run: u64,
}

impl stanley_core::Jev for Shuffled {
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        timeout: std::time::Duration,
    ) -> stanley_core::BoxFuture<'a, Result<Value, stanley_core::JevError>> {
        Box::pin(async move {
            let path = hunk_path(&request.state);
            let n: u64 = path.bytes().map(u64::from).sum();
            let ms = ((n + self.run * 7) % 5) * 15;
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            // A real service reports about what was estimated, so settling frees no room.
            let mut answer = self.inner.ask(request, timeout).await?;
            answer["usage"]["input_tokens"] = json!(JevRequest::estimate_of(
                &request.model,
                &request.state,
                &request.questions
            ));
            Ok(answer)
        })
    }
}

/// Six helpers that look unrelated to the task, each used by a file that is direct.
fn helpers_diff() -> String {
    (0..6)
        .map(|i| {
            format!(
                "diff --git a/src/lib{i}.ts b/src/lib{i}.ts\nnew file mode 100644\n--- /dev/null\n\
                 +++ b/src/lib{i}.ts\n@@ -0,0 +1,3 @@\n+export function helperNumber{i}(x) {{\n\
                 +  return x + {i};\n+}}\n\
                 diff --git a/src/use{i}.ts b/src/use{i}.ts\n--- a/src/use{i}.ts\n+++ b/src/use{i}.ts\n\
                 @@ -1,3 +1,3 @@\n export function total{i}(x) {{\n-  return x;\n\
                 +  return helperNumber{i}(x);\n }}\n"
            )
        })
        .collect()
}

fn helpers_answer(name: &str, q: &Value, state: &Value) -> Value {
    match name {
        "task_relation" if hunk_path(state).starts_with("src/use") => level(4, 3, 0.85),
        "task_relation" => level(4, 0, 0.85),
        _ => cart_answer(name, q, state),
    }
}

#[tokio::test]
async fn follow_ups_are_planned_with_the_first_frames_so_a_tight_budget_asks_the_same_ones() {
    let diff = helpers_diff();
    let mut seen = None;
    for run in 0..4 {
        let jev = Arc::new(Shuffled {
            inner: ScriptedJev::per_question(helpers_answer),
            run,
        });
        let limits = BudgetLimits {
            requests: 600,
            input_tokens: 12_000,
            wall_ms: 180_000,
        };
        let packet = run_check_within(&diff, "Add the totals", None, jev, limits).await;
        let rows = packet.json["results"].as_array().unwrap();
        let enabled: Vec<&str> = rows
            .iter()
            .filter(|r| r.get("enables").is_some_and(|e| !e.is_null()))
            .filter_map(|r| r["path"].as_str())
            .collect();
        let left: Vec<&str> = rows
            .iter()
            .filter(|r| r["error"] == "not judged: budget plan")
            .filter_map(|r| r["path"].as_str())
            .collect();
        let now = (enabled.join(","), left.join(","));
        assert!(
            !enabled.is_empty(),
            "no follow-up asked: {}",
            packet.json["limits"]
        );
        assert_eq!(
            *seen.get_or_insert(now.clone()),
            now,
            "the same follow-ups every run"
        );
    }
}

#[tokio::test]
async fn the_same_test_change_in_several_files_is_one_test_question() {
    let file = |p: &str| {
        format!(
            "diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,3 +1,3 @@\n test('total', () => {{\n\
             -  expect(total(10)).toBe(10);\n+  expect(total(10)).toBeDefined();\n }});\n"
        )
    };
    let diff = [file("test/a.test.ts"), file("test/b.test.ts")].concat();
    let jev = cart_jev();
    let packet = run_check(&diff, "Make totals flexible", None, jev.clone()).await;
    let tests = jev
        .requests()
        .iter()
        .filter(|r| r.questions.get("weakens_expectation").is_some())
        .count();
    assert_eq!(tests, 1, "one question for the shared test change");
    let rows = packet.json["results"].as_array().unwrap();
    for path in ["test/a.test.ts", "test/b.test.ts"] {
        let row = rows.iter().find(|r| r["path"] == path).unwrap();
        assert_eq!(
            row["testExpectation"]["weakens"],
            json!(0.9),
            "{path}: {row}"
        );
    }
}

//! The failure-triage decisions against a scripted Jev: the stack/relation conflict, findings,
//! settling steps, and observations that never decide.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_core::{Budget, BudgetLimits, Cancel, Executor, ExecutorOptions};

use super::*;
use crate::diff::{Diff, DiffSource};
use crate::ports::NoRecords;
use crate::testing::{EmptyWorkspace, FixedClock};
use crate::triage::logs::parse_log;
use stanley_core::testing::{ScriptedJev, choice, noul};

/// Answers every question with the label (choices) or probability (nouls) given by name:
/// choices default to `cannot_tell`, nouls to 0.1.
fn answering(given: Vec<(&'static str, Value)>) -> Arc<ScriptedJev> {
    ScriptedJev::per_question(move |name, q, _| {
        let given = given
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone());
        if q["type"] == "choice" {
            let label = given
                .and_then(|p| p.as_str().map(str::to_owned))
                .unwrap_or_else(|| "cannot_tell".into());
            choice(q, &label, 0.9)
        } else {
            noul(given.and_then(|p| p.as_f64()).unwrap_or(0.1))
        }
    })
}

const LOG: &str = "--- FAIL: TestDivide (0.00s)\n    calc.go:18: Divide(6, 0) = 0, want error\n";
const DIFF: &str = "diff --git a/calc.go b/calc.go\n--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-func Divide() {}\n+func Divide() { return }\n";

async fn triage_with(
    log: &str,
    answers: Vec<(&'static str, Value)>,
    with_diff: bool,
) -> crate::run::Packet {
    let parsed = parse_log(log);
    let evidence = DiffEvidence::from_source(DiffSource::worktree(Diff::parse(DIFF)));
    let input = FailuresInput {
        text: log.into(),
        source: "stdin".into(),
        task: "Triage".into(),
        root: "/repo".into(),
        max_items: 40,
    };
    let executor = Executor::new(
        Some(answering(answers)),
        Arc::new(Budget::new(BudgetLimits::TREE)),
        ExecutorOptions::new("m").retries(0),
        Cancel::new(),
    );
    let diff = with_diff.then_some(&evidence);
    let mut run = Run::start(
        crate::runs::RunId::parse("triage-1").unwrap(),
        "triage@1",
        Arc::new(NoRecords),
        Arc::new(FixedClock),
        BudgetLimits::TREE,
        "m",
        recorded_inputs(&input, &parsed, diff),
    );
    let sources = crate::triage::Sources {
        diff,
        tracked: &["calc.go".to_owned()],
        workspace: &EmptyWorkspace,
    };
    triage(&input, &parsed, sources, &executor, &mut run).await;
    run.finish(&executor)
}

#[tokio::test]
async fn a_stack_on_a_changed_file_conflicts_with_unrelated() {
    let packet = triage_with(
        LOG,
        vec![("relation_to_diff", json!("unrelated_to_diff"))],
        true,
    )
    .await;
    let row = &packet.json["results"][0];
    assert_eq!(row["relation"]["label"], "conflict");
    assert_eq!(row["relation"]["determinedBy"], "code");
    assert_eq!(
        packet.json["parked"][0]["reason"],
        "conflict: stack touches a changed file vs unrelated_to_diff"
    );
    assert!(
        row["wouldSettle"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "run the same test on the base commit")
    );
}

#[tokio::test]
async fn caused_by_diff_and_nondeterminism_become_findings() {
    let packet = triage_with(
        LOG,
        vec![
            ("relation_to_diff", json!("caused_by_diff")),
            ("nondeterminism_signature", json!(0.8)),
            ("failure_kind", json!("assertion_mismatch")),
        ],
        true,
    )
    .await;
    let flags: Vec<&str> = packet.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["flag"].as_str().unwrap())
        .collect();
    assert_eq!(
        flags,
        [
            "failure_likely_caused_by_diff",
            "nondeterminism_signature_present"
        ]
    );
    let row = &packet.json["results"][0];
    assert_eq!(row["failureKind"]["label"], "assertion_mismatch");
    assert_eq!(
        row["wouldSettle"],
        json!([
            "rerun the failing test at least three times",
            "run the same test on the base commit"
        ])
    );
    assert_eq!(row["kind"], "failures");
}

#[tokio::test]
async fn observations_never_decide() {
    let log = "--- FAIL: TestFetch (0.00s)\n    fetch.go:9: dial tcp: lookup api: getaddrinfo ENOTFOUND\n";
    let parsed = parse_log(log);
    assert_eq!(parsed.blocks[0].env_signature, Some("network"));
    // With a model that says the failure is a plain assertion, the network signature stays an
    // observation: an info finding, not the kind or the relation.
    let packet = triage_with(
        log,
        vec![("failure_kind", json!("assertion_mismatch"))],
        false,
    )
    .await;
    assert_eq!(
        packet.json["results"][0]["failureKind"]["label"],
        "assertion_mismatch"
    );
    let findings = packet.json["findings"].as_array().unwrap();
    assert!(findings.iter().any(|f| f["flag"] == "environment_signature"
        && f["detail"]["signature"] == "network"
        && f["severity"] == "info"));
    assert_eq!(
        packet.json["results"][0]["relation"]["label"],
        "unknown_no_diff_context"
    );
}

//! The run's records as typed shapes: each serializes to exactly the document the run wrote
//! before it had types (key order, `null`s and left-out keys included).

use serde_json::{Value, json};

use super::*;

fn text(v: &impl Serialize) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn a_frame_record_leaves_out_the_parts_an_attempt_lacks_and_keeps_its_order() {
    let provenance = json!([{"kind": "hunk"}]);
    let run = RunId::parse("r").unwrap();
    let bare = FrameRecord {
        run_id: &run,
        frame_id: &stanley_core::FrameId::of_digest("1"),
        template: "t@1",
        scope: "h1",
        provenance: &provenance,
        attempt: 1,
        requested_model: "jev-1",
        started_at: crate::time::Stamp(crate::time::parse_stamp("2026-12-01T00:00:00Z").unwrap()),
        latency_ms: 7,
        cache_key: None,
        result: stanley_core::AttemptResult::Ok,
        resolved_model: None,
        usage: None,
        response: None,
        parsed: None,
        error: None,
    };
    assert_eq!(
        text(&bare),
        text(&json!({
            "runId": "r", "frameId": "f_1", "template": "t@1", "scope": "h1",
            "provenance": [{"kind": "hunk"}], "attempt": 1, "requestedModel": "jev-1",
            "startedAt": "2026-12-01T00:00:00.000Z", "latencyMs": 7, "result": "ok",
        }))
    );
    let parsed = json!({"q": 0.5});
    let full = FrameRecord {
        resolved_model: Some("jev-1.13"),
        usage: Some(TokenUsage {
            input_tokens: 10,
            output_tokens: 2,
        }),
        response: Some(&Value::Null),
        parsed: Some(&parsed),
        error: Some("boom"),
        cache_key: Some("abc"),
        result: stanley_core::AttemptResult::Cached,
        ..bare
    };
    assert_eq!(
        text(&full),
        text(&json!({
            "runId": "r", "frameId": "f_1", "template": "t@1", "scope": "h1",
            "provenance": [{"kind": "hunk"}], "attempt": 1, "requestedModel": "jev-1",
            "startedAt": "2026-12-01T00:00:00.000Z", "latencyMs": 7, "cacheKey": "abc",
            "result": "cached", "resolvedModel": "jev-1.13", "usage": {"inputTokens": 10, "outputTokens": 2},
            "response": null, "parsed": {"q": 0.5}, "error": "boom",
        }))
    );
}

#[test]
fn coverage_decisions_and_budget_events_keep_their_documents() {
    let coverage = Coverage {
        candidates: 3,
        judged: 1,
        deterministic: 1,
        excluded: 0,
        parked: 1,
        failed: 0,
        unjudged: 0,
        complete: true,
    };
    assert_eq!(
        text(&coverage),
        text(&json!({
            "candidates": 3, "judged": 1, "deterministic": 1, "excluded": 0, "parked": 1,
            "failed": 0, "unjudged": 0, "complete": true,
        }))
    );
    assert_eq!(
        coverage_text(&to_value(&coverage)),
        "3 candidates · 1 judged · 1 deterministic · 0 excluded · 1 parked · 0 failed · 0 unjudged"
    );
    let decision = DecisionRecord {
        candidate_id: "h1",
        rule: "hunk_enables",
        result: None::<u8>,
        policy_version: "p@1",
    };
    assert_eq!(
        text(&decision),
        text(
            &json!({"candidateId": "h1", "rule": "hunk_enables", "result": null, "policyVersion": "p@1"})
        )
    );
    let event = BudgetEvent {
        at: crate::time::Stamp::EPOCH,
        kind: "budget_exhausted",
        frame_id: &stanley_core::FrameId::of_digest("1"),
        limit: "frames",
    };
    assert_eq!(
        text(&event),
        text(
            &json!({"at": "1970-01-01T00:00:00.000Z", "type": "budget_exhausted", "frameId": "f_1", "limit": "frames"})
        )
    );
    let key = FingerprintKey {
        flag: "weak",
        path: &None,
        about: "c1".into(),
    };
    assert_eq!(
        text(&key),
        text(&json!({"flag": "weak", "path": null, "about": "c1"}))
    );
}

#[test]
fn a_finding_detail_takes_any_json_scalar() {
    let f = Finding::new("f", "h1", "jev", Severity::Warn)
        .with("p", 0.75)
        .with("test", None::<String>)
        .with("note", "verify");
    assert_eq!(
        text(&f),
        text(&json!({
            "flag": "f", "id": "h1", "source": "jev", "severity": "warn",
            "detail": {"p": 0.75, "test": null, "note": "verify"},
        }))
    );
}

/// A run id names a folder: a client's text is held to one path component of safe
/// characters, and the id reads and writes as the plain text it is.
#[test]
fn a_run_id_is_one_safe_path_component() {
    let made = RunId::new(
        "review",
        crate::time::parse_stamp("2026-12-07T04:00:00Z").unwrap(),
        "a1b2c3",
    );
    assert_eq!(made.as_str(), "review-20261207T040000Z-a1b2c3");
    assert_eq!(RunId::parse(made.as_str()).as_ref(), Some(&made));
    for bad in [
        "",
        "..",
        ".hidden",
        "a/b",
        "../x",
        "a b",
        "a\\b",
        "é",
        &"x".repeat(201),
    ] {
        assert_eq!(RunId::parse(bad), None, "{bad:?}");
    }
    let json = serde_json::to_string(&made).unwrap();
    assert_eq!(json, "\"review-20261207T040000Z-a1b2c3\"");
    assert_eq!(serde_json::from_str::<RunId>(&json).unwrap(), made);
}

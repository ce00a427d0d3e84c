//! A stop's curated state and its errors as typed shapes: the document Jev is sent (and the
//! judgment cache keys on) is the one the old untyped code built.

use serde_json::json;

use super::*;
use crate::flow::parse_flow;

#[test]
fn the_curated_state_is_the_old_document_in_its_order() {
    let flow = parse_flow(
        r#"{"goal": "Ship it", "privacy": {"send_diff": true},
            "phases": [{"id": "a", "name": "A", "done_when": "a exists", "check": "test -f a"},
                       {"id": "b", "name": "B", "done_when": "b exists"}]}"#,
    )
    .unwrap();
    let state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
    let evidence = StopEvidence {
        checks: vec![
            (
                "a".into(),
                CheckRun {
                    passed: false,
                    tail: "1 failed".into(),
                },
            ),
            (
                "b".into(),
                CheckRun {
                    passed: true,
                    tail: "ok".into(),
                },
            ),
        ],
        last_message: "done".into(),
        changed: vec![ChangedFile {
            path: "a".into(),
            added: 2,
            removed: 0,
        }],
        diff: Some("+a\n".into()),
    };
    let doc = curated_state(&flow, &state, &evidence);
    assert_eq!(
        doc.to_string(),
        json!({
            "goal": "Ship it",
            "current_phase": "a",
            "phases": [
                {"id": "a", "name": "A", "done_when": "a exists", "status": "active"},
                {"id": "b", "name": "B", "done_when": "b exists", "status": "pending"},
            ],
            "checks": [
                {"phase": "a", "passed": false, "output_tail": "1 failed"},
                {"phase": "b", "passed": true},
            ],
            "last_message_tail": "done",
            "changed_files": [{"path": "a", "added": 2, "removed": 0}],
            "changed_files_total": 1,
            "recent_decisions": [],
            "diff": "+a\n",
        })
        .to_string()
    );
}

#[test]
fn a_stop_without_a_judgment_says_why_in_the_old_words() {
    let failed = StopJudgeError::Failed {
        reason: "unavailable",
        detail: "no key".into(),
    };
    assert_eq!(failed.to_string(), "unavailable: no key");
    let missing = StopJudgeError::NoAnswer {
        name: "stuck".into(),
    };
    assert_eq!(missing.to_string(), "Jev gave no stuck answer");
    assert_eq!(StopJudgeError::NotAsked.to_string(), "not asked");
    assert_eq!(
        StopJudgeError::Unavailable("Jev is off".into()).to_string(),
        "Jev is off"
    );
}

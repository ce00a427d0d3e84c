//! The starter flow as a typed shape: `stanleyctl flow init` writes the text it wrote before.

use serde_json::json;

use super::*;

#[test]
fn the_starter_flow_is_the_old_text() {
    let mut old = serde_json::to_string_pretty(&json!({
        "schema_version": 1,
        "flow_version": "1",
        "goal": "Add a flag",
        "title": "Add a flag",
        "mode": "warn",
        "phases": [
            {"id": "plan", "name": "Plan", "done_when": "the steps to reach the goal are written down and agreed"},
            {"id": "implement", "name": "Implement", "done_when": "the change the goal describes is made"},
            {"id": "verify", "name": "Verify", "done_when": "the goal is shown to hold, by tests or a check"}
        ],
        "limits": {
            "max_blocks_per_session": 6, "max_restarts": 5, "max_total_minutes": 90,
            "hang_minutes": 10, "max_jev_calls": 200, "check_timeout_s": 120,
            "state_char_budget": 12000,
            "confidence": {"auto": 0.8, "review": 0.5, "flag": 0.7, "trust_check": 0.9}
        },
        "privacy": {"send_diff": false}
    }))
    .unwrap();
    old.push('\n');
    assert_eq!(starter_flow(" Add  a flag "), old);
}

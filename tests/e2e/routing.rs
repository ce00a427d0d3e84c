//! The worked examples of routing and fallback that need no agent.

use serde_json::json;
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::{changed_repo, summarize_env};

#[test]
fn an_ambiguous_request_falls_back_with_a_clarifying_question() {
    let env = TestEnv::new();
    let out = env.stanley(&changed_repo(), &["Take a look"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert_eq!(out.stderr, "");
    assert!(
        out.stdout
            .starts_with("No installed workflow can confidently handle the complete request.")
    );
    assert_eq!(env.jev.route_requests().len(), 1);
}

#[test]
fn an_uncertain_pick_is_not_accepted() {
    let env = TestEnv::new();
    // With two labels, 0.5 is still the top probability (a valid answer) but below 0.55.
    env.jev.route("summar", "summarize", 0.5);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert_eq!(out.json()["status"], "unsupported");
    assert_eq!(env.jev.requests().len(), 1);
}

#[test]
fn a_diff_workflow_picked_on_a_clean_repository_says_there_is_nothing_to_look_at() {
    let env = summarize_env();
    let repo = TempRepo::with_files(&[("a.txt", "x\n")]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(
        doc["output"]["data"],
        json!({"reason": "no_diff", "workflow": "summarize", "scope": "worktree"})
    );
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Nothing to summarize: there is no current diff")
    );
    // Only the routing question was asked.
    assert_eq!(env.jev.requests().len(), 1);
    let route = &env.jev.route_requests()[0];
    assert_eq!(route["state"]["context"]["diff"], "absent");
}

#[test]
fn actions_skip_routing_without_repository_workflows() {
    let env = TestEnv::new();
    let repo = changed_repo();
    let deploy = env.stanley(&repo, &["Deploy this branch", "--json"]);
    assert_eq!(deploy.code, 64, "{deploy:?}");
    assert!(
        deploy.json()["output"]["text"]
            .as_str()
            .unwrap()
            .replace('\n', " ")
            .contains("cannot run commands")
    );
    assert!(
        env.jev.requests().is_empty(),
        "no Jev request for an external action"
    );
    let fix = env.stanley(&repo, &["Fix the security issue", "--json"]);
    assert_eq!(fix.code, 64, "{fix:?}");
    let doc = fix.json();
    assert_eq!(doc["status"], "unsupported");
    assert_eq!(doc["output"]["data"]["requested"], "code_change");
    assert_eq!(doc["output"]["data"]["reason"], "skipped");
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Stanley cannot implement or fix code without a coding agent")
    );
    let analysis = &doc["output"]["data"]["analysis"]["data"];
    assert_eq!(analysis["summary"]["readOnlyFallback"]["performed"], "find");
    assert!(
        analysis["notChecked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "implementation and bug fixing")
    );
    assert!(
        !env.jev.requests().is_empty(),
        "the read-only analysis asks Jev"
    );
    assert!(
        env.jev.route_requests().is_empty(),
        "but no routing question"
    );
}

#[test]
fn an_out_of_set_label_is_retried_once_then_unsupported() {
    let env = TestEnv::new();
    env.jev.route("summar", "deploy", 0.9);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert_eq!(env.jev.requests().len(), 2);
}

#[test]
fn text_input_is_not_a_recognized_shape() {
    let env = TestEnv::new();
    let out = env.stanley_with_stdin(
        &changed_repo(),
        &["Triage these failures", "--json"],
        Some(b"it broke somehow\n"),
    );
    assert_eq!(out.code, 64, "{out:?}");
    let doc = out.json();
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .contains("not recognized as failures")
    );
    assert_eq!(doc["output"]["data"]["inputProvided"], true);
    assert_eq!(
        env.jev.route_requests()[0]["state"]["context"]["input"],
        "text"
    );
}

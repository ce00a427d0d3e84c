//! Flows through `stanleyctl flow` and the daemon's `Flows` service: the starter flow, status
//! from the flow file and journal, and bad flow files exiting 3 with the JSON path.

use serde_json::json;
use stanley_tests::TestEnv;

use crate::summarize::changed_repo;

#[test]
fn init_writes_a_starter_flow_and_status_reports_it() {
    let env = TestEnv::new();
    let repo = changed_repo();
    let status = env.stanleyctl(&repo, &["flow", "status"]);
    assert_eq!(status.code, 3, "{status:?}");
    assert!(
        status.stderr.contains("no .stanley/flow.json"),
        "{}",
        status.stderr
    );

    let init = env.stanleyctl(&repo, &["flow", "init", "Add a --verbose flag to the CLI"]);
    assert_eq!(init.code, 0, "{init:?}");
    let text = std::fs::read_to_string(repo.root().join(".stanley/flow.json")).unwrap();
    assert!(text.contains("\"mode\": \"warn\""), "{text}");
    // The plan is committed like code; the journal and everything else under .stanley/ is not.
    std::fs::create_dir_all(repo.root().join(".stanley/flow")).unwrap();
    repo.write(".stanley/flow/state.json", "{}");
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    let stanley: Vec<&str> = status.lines().filter(|l| l.contains(".stanley")).collect();
    assert_eq!(stanley, ["?? .stanley/flow.json"], "{status}");
    std::fs::remove_file(repo.root().join(".stanley/flow/state.json")).unwrap();
    let again = env.stanleyctl(&repo, &["flow", "init", "Something else"]);
    assert_eq!(again.code, 65, "{again:?}");
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    assert_eq!(
        env.stanleyctl(&repo, &["flow", "init", "Something else", "--force"])
            .code,
        0
    );
    let empty = env.stanleyctl(&repo, &["flow", "init", "   "]);
    assert_eq!(empty.code, 64, "{empty:?}");

    let status = env.stanleyctl(&repo, &["flow", "status", "--json"]);
    assert_eq!(status.code, 0, "{status:?}");
    let doc: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(doc["schema"], "stanley.flow-status/v1");
    assert_eq!(doc["goal"], "Something else");
    assert_eq!(doc["started"], false);
    assert_eq!(doc["phases"][0]["status"], "pending");
    let human = env.stanleyctl(&repo, &["flow", "status"]);
    assert!(
        human.stdout.contains("mode: warn  (not started)"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_bad_flow_file_exits_3_naming_the_json_path() {
    let env = TestEnv::new();
    let repo = changed_repo();
    let flow = json!({"goal": "g", "phases": [
        {"id": "a", "name": "A", "done_when": "d"},
        {"id": "b", "name": "B", "done_when": "d", "loop": {"max_iterations": 0, "until": "true"}}]});
    repo.write(".stanley/flow.json", &flow.to_string());
    let out = env.stanleyctl(&repo, &["flow", "status"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr
            .contains(".stanley/flow.json: phases[1].loop.max_iterations: must be an integer >= 1"),
        "{}",
        out.stderr
    );
    repo.write(
        ".stanley/flow.json",
        "{\"goal\": \"g\", \"phases\": [], \"colour\": 1}",
    );
    let out = env.stanleyctl(&repo, &["flow", "status"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("colour: unknown key"), "{}", out.stderr);
}

#[test]
fn a_torn_journal_is_kept_aside_and_reported_and_the_flow_starts_again() {
    let env = TestEnv::new();
    let repo = changed_repo();
    let init = env.stanleyctl(&repo, &["flow", "init", "Add a --verbose flag to the CLI"]);
    assert_eq!(init.code, 0, "{init:?}");
    let flow = stanley_workflows::flow::parse_flow(
        &std::fs::read_to_string(repo.root().join(".stanley/flow.json")).unwrap(),
    )
    .unwrap();
    let journal = stanley_workflows::flow::state::FlowState::new(
        &flow,
        stanley_workflows::time::Stamp::EPOCH,
    );
    let text = serde_json::to_string_pretty(&journal).unwrap();
    // Torn: the first half of a real journal, as a crash mid-copy or a bad sector leaves it.
    let torn = &text[..text.len() / 2];
    repo.write(".stanley/flow/state.json", torn);

    let status = env.stanleyctl(&repo, &["flow", "status", "--json"]);
    assert_eq!(status.code, 0, "{status:?}");
    let doc: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(doc["started"], false, "the flow starts again");
    let recoveries = doc["recoveries"].as_array().unwrap();
    assert_eq!(recoveries.len(), 1, "{doc}");
    let line = recoveries[0].as_str().unwrap();
    assert!(
        line.starts_with("the flow journal was damaged (unreadable flow state: ")
            && line.contains("the broken copy is in .stanley/flow/state.corrupt-"),
        "{line}"
    );
    let kept: Vec<_> = std::fs::read_dir(repo.root().join(".stanley/flow"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("state.corrupt-")
        })
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        std::fs::read_to_string(kept[0].path()).unwrap(),
        torn,
        "the broken copy is kept"
    );
    assert!(!repo.root().join(".stanley/flow/state.json").exists());

    let human = env.stanleyctl(&repo, &["flow", "status"]);
    assert!(
        human
            .stdout
            .contains("warning: the flow journal was damaged"),
        "{human:?}"
    );
    // A journal that reads but names a phase the flow lacks is not damage: it is refused.
    let mut other = journal.clone();
    other.current_phase = "no-such-phase".into();
    stanley_tests::write_sealed_journal(
        repo.root(),
        env.home(),
        &serde_json::to_string(&other).unwrap(),
    );
    let status = env.stanleyctl(&repo, &["flow", "status"]);
    assert_ne!(status.code, 0, "{status:?}");
    assert!(status.stderr.contains("not in the flow"), "{status:?}");
    std::fs::remove_file(kept[0].path()).unwrap();
}

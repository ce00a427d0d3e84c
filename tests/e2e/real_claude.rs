//! The real Claude Code CLI (`tests/claude/`, which `scripts/test` installs) with Stanley's plugin
//! (`packaging/claude-code/`) against a scripted Messages API server on loopback: one flow from a
//! blocked stop, through an advance and the block budget's report, to a question for a person that
//! the next session starts with (and, once answered, the answer and the goal), asserted from what
//! the CLI sent the model, what it printed and the flow's journal.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use stanley_tests::fake_jev::flow_stop_answers;
use stanley_tests::messages_server::{MessagesServer, Turn, content_texts, last_message_texts};
use stanley_tests::testenv::{Output, bin_dir, run};
use stanley_tests::{TempRepo, TestEnv};

/// The CLI's native binary (the platform package's, which works even when npm skipped the
/// postinstall that copies it over `node_modules/.bin/claude`).
fn real_claude() -> PathBuf {
    let claude = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
    assert!(
        claude.exists(),
        "{} is missing: scripts/test installs Claude Code from tests/claude/package.json \
         (npm ci --prefix tests/claude)",
        claude.display()
    );
    claude
}

/// What the agent says when it needs a person; the scripted judge answers `ask_human` to it.
const NEEDS_KEY: &str = "only a person has the release signing key";

/// Two phases, each with a check whose failure prints something the model can act on; two blocks
/// per session at most.
fn flow() -> Value {
    json!({
        "goal": "Ship a.txt and b.txt", "mode": "enforce",
        "phases": [
            {"id": "first", "name": "First", "done_when": "a.txt says ok", "check": "grep -x ok a.txt"},
            {"id": "second", "name": "Second", "done_when": "b.txt exists", "check": "cat b.txt"}
        ],
        "limits": {"max_blocks_per_session": 2}
    })
}

/// The fake Jev judging stops: the agent is in the journal's phase and claims it done, unless it
/// says it needs a person, which Jev confirms with confidence.
fn judge(env: &TestEnv) {
    env.jev.respond(|body| {
        let questions = body["questions"].as_object()?;
        if !questions.contains_key("current_phase") {
            return None;
        }
        let phase = body["state"]["current_phase"].as_str()?;
        let tail = body["state"]["last_message_tail"].as_str().unwrap_or("");
        Some(if tail.contains(NEEDS_KEY) {
            let mut answers = flow_stop_answers(questions, phase, false, "ask_human");
            answers.insert("claims_done".into(), json!({"type": "noul", "noul": 0.05}));
            answers
        } else {
            flow_stop_answers(questions, phase, true, "continue")
        })
    });
}

/// One `claude -p` run's printout.
struct Run {
    out: Output,
    lines: Vec<Value>,
}

impl Run {
    /// The `system` lines of `subtype`.
    fn system(&self, subtype: &str) -> Vec<&Value> {
        self.lines
            .iter()
            .filter(|l| l["type"] == "system" && l["subtype"] == subtype)
            .collect()
    }

    fn result(&self) -> &Value {
        self.lines
            .iter()
            .rfind(|l| l["type"] == "result")
            .unwrap_or_else(|| panic!("no result line: {:?}", self.out))
    }
}

/// Runs `claude -p` in `repo` as session `session` with the plugin, the test environment (the
/// fake Jev, trust, the daemon's socket folder) and the built `stanleyctl` first on PATH.
fn claude(env: &TestEnv, repo: &TempRepo, server: &MessagesServer, session: &str) -> Run {
    let plugin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../packaging/claude-code");
    let tmp = repo.outside().join("claude-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let hermetic = env.command("stanleyctl", repo.root());
    let mut cmd = Command::new(real_claude());
    cmd.current_dir(repo.root()).env_clear();
    for (k, v) in hermetic.get_envs() {
        if let Some(v) = v {
            cmd.env(k, v);
        }
    }
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("TMPDIR", &tmp)
        .env("IS_SANDBOX", "1")
        .env("ANTHROPIC_BASE_URL", server.base_url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .args(["-p", "Ship a.txt and b.txt"])
        .args([
            "--dangerously-skip-permissions",
            "--output-format",
            "stream-json",
        ])
        .args([
            "--verbose",
            "--model",
            "claude-sonnet-4-5",
            "--max-turns",
            "10",
        ])
        .arg("--plugin-dir")
        .arg(&plugin)
        .args(["--session-id", session]);
    let out = run(cmd, None);
    assert_eq!(out.code, 0, "{out:?}");
    let lines = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    Run { out, lines }
}

/// What a Stop hook's block told the model: the "Stop hook feedback" of the request's last
/// message.
fn stop_feedback(request: &Value) -> String {
    let marker = "Stop hook feedback:\n";
    last_message_texts(request)
        .iter()
        .find_map(|t| {
            let start = t.find(marker)? + marker.len();
            let rest = &t[start..];
            Some(
                rest.strip_suffix("\n</system-reminder>")
                    .unwrap_or(rest)
                    .to_owned(),
            )
        })
        .unwrap_or_else(|| panic!("no Stop hook feedback in the last message: {request}"))
}

/// How the CLI prints a Stop hook's `systemMessage` in stream-json: every line after
/// "Stop says: ".
fn stop_says(message: &str) -> String {
    message
        .lines()
        .map(|l| format!("Stop says: {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The SessionStart context the model got: the first text block of the first message.
fn session_context(request: &Value) -> String {
    let first = content_texts(&request["messages"][0]["content"]);
    let block = first.first().cloned().unwrap_or_default();
    let prefix = "<system-reminder>\nSessionStart hook additional context: ";
    block
        .strip_prefix(prefix)
        .and_then(|b| b.strip_suffix("\n</system-reminder>"))
        .unwrap_or_else(|| panic!("no SessionStart context first: {request}"))
        .to_owned()
}

fn journal(repo: &TempRepo) -> Value {
    let text = stanley_tests::flow_journal(repo.root());
    serde_json::from_str(&text).unwrap()
}

fn conditions(repo: &TempRepo) -> Vec<String> {
    crate::flow_run::conditions(&journal(repo))
}

#[test]
fn a_flow_blocks_advances_reports_its_cap_and_asks_a_person_through_the_real_claude_code() {
    real_claude();
    let env = TestEnv::new();
    judge(&env);
    let repo = TempRepo::with_files(&[("README.md", "# ship\n")]);
    repo.write(".stanley/flow.json", &flow().to_string());
    let server = MessagesServer::start();

    // Session 1: a premature "done" is blocked with the check's output; the model fixes it with a
    // Bash call and is advanced to the next phase; it claims that one done twice, and the second
    // block uses up the session's budget: the next stop is allowed with a report.
    server.play([
        Turn::text("The first phase is done."),
        Turn::bash("echo ok > a.txt"),
        Turn::text("a.txt says ok now; the first phase is done."),
        Turn::text("The second phase is done too."),
        Turn::text("Everything is done."),
    ]);
    let one = claude(&env, &repo, &server, "00000000-0000-4000-8000-000000000001");
    let sent = server.requests();
    assert_eq!((sent.len(), server.unplayed()), (5, 0), "{:?}", one.out);
    assert!(
        session_context(&sent[0]).starts_with("This session is tracked by a Stanley flow.\n"),
        "{}",
        sent[0]
    );
    // 1. The block reason, with the failing check's own output, reached the model.
    assert_eq!(
        stop_feedback(&sent[1]),
        "not done yet: the check failed:\ngrep: a.txt: No such file or directory"
    );
    assert_eq!(
        std::fs::read_to_string(repo.root().join("a.txt")).unwrap(),
        "ok\n"
    );
    // 2. With the check passing, the stop advanced, and the model heard what comes next.
    assert_eq!(
        stop_feedback(&sent[3]),
        "First is done; now work on phase second (Second): done when b.txt exists; check `cat b.txt`"
    );
    assert_eq!(
        stop_feedback(&sent[4]),
        "not done yet: the check failed:\ncat: b.txt: No such file or directory"
    );
    // 3. The budget ended enforcement, and the report names it and the failing check (the CLI
    // shows every line of a Stop systemMessage after "Stop says: ").
    let report = "Stanley flow: enforcement stopped: this session's block budget is used up \
                  (limits.max_blocks_per_session, 2; a new session starts a new one); phase \
                  second is not done: the check failed:\ncat: b.txt: No such file or directory";
    let said: Vec<&Value> = one.system("informational");
    assert_eq!(said.len(), 1, "{:?}", one.out);
    assert_eq!(said[0]["content"], stop_says(report), "{:?}", one.out);
    assert_eq!(one.result()["subtype"], "success");
    assert_eq!(one.result()["result"], "Everything is done.");
    assert_eq!(
        conditions(&repo),
        [
            "premature_completion",
            "advance",
            "final_check_fail",
            "budget_blocks"
        ]
    );
    let status = env.stanleyctl(&repo, &["flow", "status", "--json"]);
    assert_eq!(status.code, 0, "{status:?}");
    let status = status.json();
    assert_eq!(status["currentPhase"], "second");
    assert_eq!(status["phases"][0]["status"], "done");
    assert_eq!(status["phases"][1]["status"], "active");
    assert_eq!(status["budgets"]["blocksInSession"], json!([2, 2]));
    assert_eq!(status["needsHuman"], false);

    // Session 2 (new, so fresh budgets): the model says it needs a person; Jev agrees, the stop
    // is allowed and the question is written for the person.
    server.play([Turn::text(&format!("I cannot write b.txt: {NEEDS_KEY}."))]);
    let two = claude(&env, &repo, &server, "00000000-0000-4000-8000-000000000002");
    assert_eq!((server.requests().len(), server.unplayed()), (6, 0));
    let said: Vec<&Value> = two.system("informational");
    assert_eq!(said.len(), 1, "{:?}", two.out);
    assert_eq!(
        said[0]["content"],
        stop_says("Stanley flow: a person is needed: the agent needs a person's input in second"),
        "{:?}",
        two.out
    );
    assert_eq!(conditions(&repo).last().unwrap(), "ask_human");
    let question = "Goal: Ship a.txt and b.txt\nPhase: second\n\nthe agent needs a person's input \
                    in second";
    let note = std::fs::read_to_string(repo.root().join(".stanley/flow/NEEDS_HUMAN.md")).unwrap();
    assert!(note.contains(question), "{note}");
    let status = env.stanleyctl(&repo, &["flow", "status", "--json"]).json();
    assert_eq!(status["needsHuman"], true);

    // 4. Session 3: its SessionStart hands the model the pending question, and the person hears
    // that the flow waits on them.
    server.play([Turn::text(&format!("Waiting: {NEEDS_KEY}."))]);
    let three = claude(&env, &repo, &server, "00000000-0000-4000-8000-000000000003");
    let sent = server.requests();
    assert_eq!(sent.len(), 7, "{:?}", three.out);
    let context = session_context(&sent[6]);
    assert!(
        context.ends_with(&format!(
            "\n\nThe flow is waiting on a person:\n{question}\n\nDo not work around this: ask \
             them for what is needed, and stop until they answer."
        )),
        "{context}"
    );
    let started: Vec<&Value> = three
        .system("hook_response")
        .into_iter()
        .filter(|l| l["hook_event"] == "SessionStart")
        .collect();
    assert_eq!(started.len(), 1, "{:?}", three.out);
    let hook: Value = serde_json::from_str(started[0]["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(
        hook["systemMessage"],
        "Stanley flow: waiting on a person: read .stanley/flow/NEEDS_HUMAN.md and write your \
         answer under \"## Answer\", or delete it once resolved"
    );
    assert_eq!(server.unplayed(), 0);
    let needs_human = repo.root().join(".stanley/flow/NEEDS_HUMAN.md");
    assert!(needs_human.exists(), "an unanswered question stays");

    // The person answers under the note's heading; the next session starts with the answer, the
    // note is done with, and the model finishes the last phase, which completes the flow.
    let note = std::fs::read_to_string(&needs_human).unwrap();
    let answer = "Use the key in keys/release.pem.";
    std::fs::write(&needs_human, format!("{note}{answer}\n")).unwrap();
    server.play([
        Turn::bash("echo signed > b.txt"),
        Turn::text("b.txt is written and signed."),
    ]);
    let four = claude(&env, &repo, &server, "00000000-0000-4000-8000-000000000004");
    let sent = server.requests();
    assert_eq!((sent.len(), server.unplayed()), (9, 0), "{:?}", four.out);
    let context = session_context(&sent[7]);
    assert!(
        context.ends_with(&format!(
            "\n\nThe flow asked a person:\n{question}\n\nThey answered:\n{answer}\n\nAct on \
             their answer."
        )),
        "{context}"
    );
    assert!(!needs_human.exists(), "an answered question is done with");
    assert!(four.system("informational").is_empty(), "{:?}", four.out);
    assert_eq!(conditions(&repo).last().unwrap(), "goal_complete");
    let status = env.stanleyctl(&repo, &["flow", "status", "--json"]).json();
    assert_eq!(
        (&status["complete"], &status["needsHuman"]),
        (&json!(true), &json!(false))
    );
}

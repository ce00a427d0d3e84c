//! The flow supervisor end to end: `stanleyctl flow run` drives the stand-in `pi` through the
//! reference's example flow shape with a scripted fake Jev (blocks, advances, a loop, a
//! regression, a side effect that runs once even after a state reset), the same flow with Jev
//! failing on every call, a hung agent, a model error, the single-runner lease, `flow stop`, and
//! bad flow files.

use std::time::Duration;

use serde_json::{Value, json};
use stanley_tests::fake_jev::{Fault, flow_stop_answers};
use stanley_tests::testenv::{bin_dir, wait_until};
use stanley_tests::{TempRepo, TestEnv};

/// The reference's example flow: scaffold, implement, docs, test (a loop with `on_fail` to
/// debug), debug (branch-only) and publish (a side effect). `implement_check` gives the
/// implement phase a check, for the run without Jev.
fn example_flow(implement_check: bool) -> Value {
    let mut implement = json!({"id": "implement", "name": "Implement commands",
        "done_when": "add, list and done work", "dynamic": true});
    if implement_check {
        implement["check"] = json!("test -f todo/commands.py");
    }
    json!({
        "schema_version": 1, "flow_version": "1",
        "goal": "Build a CLI todo app with add, list and done commands and tests",
        "mode": "enforce",
        "phases": [
            {"id": "scaffold", "name": "Project scaffold",
             "done_when": "package layout and entry point exist", "check": "test -f todo/cli.py"},
            implement,
            {"id": "docs", "name": "Usage docs", "done_when": "README documents every command",
             "depends_on": ["scaffold"], "check": "grep -q 'todo add' README.md"},
            {"id": "test", "name": "Tests pass", "done_when": "a test suite exists and passes",
             "depends_on": ["implement", "docs"], "check": "test -f tests.ok",
             "loop": {"max_iterations": 3, "until": "test -f tests.ok"}, "on_fail": "debug"},
            {"id": "debug", "name": "Debug failures", "done_when": "the failing tests' cause is fixed"},
            {"id": "publish", "name": "Tag release", "done_when": "v0.1 tag exists",
             "depends_on": ["test"], "check": "git tag -l v0.1 | grep -q v0.1", "side_effect": true}
        ],
        "limits": {"max_restarts": 3, "max_blocks_per_session": 6, "max_total_minutes": 30,
                   "check_timeout_s": 30},
        "notify": {"command": "echo \"$STANLEY_FLOW_EVENT\" >> notified.log",
                   "on": ["ask_human", "goal_complete", "budget"], "timeout_s": 10}
    })
}

/// What the stand-in agent does, phase by phase: the n-th run on a phase plays its n-th step.
fn example_script() -> Value {
    let readme = "# todo\n\n`todo add <item>`, `todo list`, `todo done <n>`\n";
    let publish = json!({"shell": "echo tagged >> published.log && git tag v0.1",
                         "text": "Tagged v0.1."});
    json!({
        "scaffold": [
            {"write": {"todo/__init__.py": ""}, "text": "The scaffold is done."},
            {"write": {"todo/cli.py": "print('todo')\n"}, "text": "Added the entry point."}
        ],
        "implement": [
            {"write": {"todo/commands.py": "def add(x): pass\n"}, "text": "Commands implemented."}
        ],
        "docs": [
            {"write": {"README.md": readme}, "text": "Documented."},
            {"write": {"README.md": readme}, "text": "Restored the README."}
        ],
        "test": [
            {"text": "Wrote the tests; they should pass."},
            {"write": {"tests.ok": ""}, "remove": ["README.md"], "text": "Tests pass now."},
            {"text": "Still passing."}
        ],
        "publish": [publish.clone(), publish.clone(), publish]
    })
}

/// A judge that believes the agent works on the journal's current phase, and that the phase
/// is done exactly when its check passes (or it has none).
fn scripted_judge(env: &TestEnv) {
    env.jev.respond(|body| {
        let questions = body["questions"].as_object()?;
        if !questions.contains_key("current_phase") {
            return None;
        }
        let state = &body["state"];
        let phase = state["current_phase"].as_str()?.to_owned();
        let check = state["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["phase"] == phase.as_str())
            .map(|c| c["passed"] == true);
        let done = check.unwrap_or(true);
        let next = if done { "advance" } else { "continue" };
        Some(flow_stop_answers(questions, &phase, done, next))
    });
}

struct FlowSetup {
    env: TestEnv,
    repo: TempRepo,
    scratch: tempfile::TempDir,
}

impl FlowSetup {
    fn new(flow: &Value, script: &Value) -> Self {
        let mut env = TestEnv::new();
        let scratch = tempfile::tempdir().unwrap();
        let script_path = scratch.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        env.set(
            "STANLEY_PI_BIN",
            bin_dir().join("fake-pi").to_str().unwrap(),
        );
        env.set("FAKE_PI_SCRIPT", script_path.to_str().unwrap());
        env.set("STANLEY_AUTO_IMPROVE", "off");
        let repo = TempRepo::with_files(&[("README.md", "# todo\n")]);
        repo.write(".stanley/flow.json", &flow.to_string());
        Self { env, repo, scratch }
    }

    fn runs(&self) -> Vec<Value> {
        std::fs::read_to_string(self.scratch.path().join("script.json.log"))
            .unwrap_or_default()
            .lines()
            // The stand-in may be writing its last line as we read: only whole lines count.
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Starts `stanleyctl flow run` in the background and waits until the agent runs.
    fn start_run(&self) -> std::process::Child {
        let child = self
            .env
            .command("stanleyctl", self.repo.root())
            .args(["flow", "run"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        assert!(
            wait_until(Duration::from_secs(20), || !self.runs().is_empty()),
            "the agent started"
        );
        child
    }

    fn journal(&self) -> Value {
        serde_json::from_str(&stanley_tests::flow_journal(self.repo.root())).unwrap()
    }
}

/// The condition of every decision in a flow journal, oldest first.
pub(crate) fn conditions(journal: &Value) -> Vec<String> {
    journal["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["condition"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_example_flow_completes_with_blocks_advances_a_regression_and_one_side_effect() {
    let setup = FlowSetup::new(&example_flow(false), &example_script());
    scripted_judge(&setup.env);
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("goal complete: "), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("flow: run 1: agent working on phase scaffold"),
        "{}",
        out.stderr
    );

    let journal = setup.journal();
    assert_eq!(journal["complete"], true);
    assert_eq!(
        conditions(&journal),
        [
            "premature_completion",
            "advance",
            "advance",
            "advance",
            "loop_continue",
            "regression",
            "advance",
            "loop_pass",
            "goal_complete"
        ]
    );
    let decisions = journal["decisions"].as_array().unwrap();
    assert!(
        decisions[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("not done yet: the check failed"),
        "{}",
        decisions[0]
    );
    assert_eq!(decisions[5]["phase"], "test");
    assert_eq!(decisions[5]["to"], "docs");
    assert_eq!(journal["phases"]["docs"]["attempts"], 2);
    assert_eq!(journal["phases"]["debug"]["status"], "pending");
    assert_eq!(journal["restarts"], 0);

    // Nine runs; each relaunch continues the Pi session and carries the block reason.
    let runs = setup.runs();
    let phases: Vec<&str> = runs.iter().map(|r| r["phase"].as_str().unwrap()).collect();
    assert_eq!(
        phases,
        [
            "scaffold",
            "scaffold",
            "implement",
            "docs",
            "test",
            "test",
            "docs",
            "test",
            "publish"
        ]
    );
    let args = |i: usize| -> Vec<String> {
        runs[i]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect()
    };
    assert!(args(0).contains(&"--session-dir".to_owned()));
    assert!(!args(0).contains(&"--continue".to_owned()));
    assert!(args(1).contains(&"--continue".to_owned()));
    assert!(!args(1).contains(&"--no-session".to_owned()));
    let second = runs[1]["stdin"].as_str().unwrap();
    assert!(
        second.contains("The supervisor says: not done yet: the check failed"),
        "{second}"
    );
    assert!(second.contains("Goal: Build a CLI todo app"));
    assert!(
        runs[6]["stdin"]
            .as_str()
            .unwrap()
            .contains("phase docs regressed")
    );

    let ledger =
        std::fs::read_to_string(setup.repo.root().join(".stanley/flow/side_effects.jsonl"))
            .unwrap();
    assert_eq!(ledger.lines().count(), 1, "{ledger}");
    assert!(ledger.contains("\"key\":\"1:publish:1\""), "{ledger}");

    // A forced state reset: the flow runs again from the start, and the side effect is not
    // re-entered.
    std::fs::remove_file(setup.repo.root().join(".stanley/flow/state.json")).unwrap();
    let again = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(again.code, 0, "{again:?}");
    let journal = setup.journal();
    assert_eq!(journal["complete"], true);
    assert_eq!(
        conditions(&journal),
        [
            "advance",
            "advance",
            "advance",
            "loop_pass",
            "side_effect_recorded"
        ]
    );
    let published = std::fs::read_to_string(setup.repo.root().join("published.log")).unwrap();
    assert_eq!(
        published.lines().count(),
        1,
        "the side effect ran once: {published}"
    );
    assert_eq!(
        setup
            .runs()
            .iter()
            .filter(|r| r["phase"] == "publish")
            .count(),
        1,
        "the agent was never prompted on publish again"
    );

    assert_eq!(
        std::fs::read_to_string(setup.repo.root().join("notified.log")).unwrap(),
        "goal_complete\ngoal_complete\n"
    );

    let status = setup.env.stanleyctl(&setup.repo, &["flow", "status"]);
    assert!(
        status.stdout.contains("mode: enforce  (complete)"),
        "{}",
        status.stdout
    );
    assert!(
        status
            .stdout
            .contains("budgets: restarts 0/3, blocks 0/6, Jev calls 4/200 (stop 4)"),
        "{}",
        status.stdout
    );

    // A complete flow: a third run has nothing to do.
    let done = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(done.code, 0, "{done:?}");
    assert!(done.stdout.contains("already complete"), "{}", done.stdout);
}

#[test]
fn with_jev_failing_every_call_the_flow_completes_on_checks_and_blocks_only_on_evidence() {
    let setup = FlowSetup::new(&example_flow(true), &example_script());
    setup
        .env
        .jev
        .fail_next(std::iter::repeat_n(Fault::Status(503), 500));
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 0, "{out:?}");
    let journal = setup.journal();
    assert_eq!(journal["complete"], true);
    assert_eq!(
        conditions(&journal),
        [
            "degraded_check_fail",
            "degraded_check_pass",
            "degraded_check_pass",
            "degraded_check_pass",
            "loop_continue",
            "regression",
            "degraded_check_pass",
            "loop_pass",
            "goal_complete"
        ]
    );
    for d in journal["decisions"].as_array().unwrap() {
        if d["action"] == "block" {
            assert!(
                d["reason"].as_str().unwrap().contains("failed"),
                "a block without a failing check: {d}"
            );
            assert_eq!(d["check_passed"], false, "{d}");
        }
    }
    assert!(
        !setup.env.jev.requests().is_empty(),
        "Jev was asked and failed"
    );
}

fn small_flow(extra_limits: Value) -> Value {
    let mut limits = json!({"max_restarts": 0, "hang_minutes": 1});
    for (k, v) in extra_limits.as_object().unwrap() {
        limits[k] = v.clone();
    }
    json!({"goal": "Write a.txt", "mode": "enforce", "limits": limits,
           "notify": {"command": "echo \"$STANLEY_FLOW_EVENT\" >> notified.log", "on": ["budget"]},
           "phases": [{"id": "write", "name": "Write", "done_when": "a.txt exists", "check": "test -f a.txt"}]})
}

#[test]
fn a_silent_agent_is_killed_and_the_restart_budget_ends_the_run() {
    let script = json!({"write": [{"mode": "hang"}]});
    let mut setup = FlowSetup::new(&small_flow(json!({})), &script);
    setup.env.set("STANLEY_FLOW_MINUTE_S", "1");
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("limit reached: 0 restarts used; last: the agent was silent for 1 s"),
        "{}",
        out.stderr
    );
    assert_eq!(setup.journal()["restarts"], 1);
    assert_eq!(
        std::fs::read_to_string(setup.repo.root().join("notified.log")).unwrap(),
        "budget\n"
    );
}

#[test]
fn warn_mode_never_keeps_the_agent_going_and_relaunches_as_restarts() {
    let mut flow = small_flow(json!({"max_restarts": 1}));
    flow["mode"] = json!("warn");
    let setup = FlowSetup::new(&flow, &json!({}));
    scripted_judge(&setup.env);
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 2, "{out:?}");
    let runs = setup.runs();
    assert_eq!(runs.len(), 2, "one run and one restart");
    assert!(
        runs[1]["stdin"].as_str().unwrap().contains(
            "The supervisor says: (warn mode, not enforced) would block: not done yet: the check failed"
        ),
        "{}",
        runs[1]["stdin"]
    );
    let journal = setup.journal();
    assert_eq!(journal["restarts"], 2);
    assert_eq!(journal["decisions"][0]["condition"], "final_check_fail");
}

#[test]
fn an_interrupted_client_stops_the_run_and_its_agent() {
    // Ctrl-C, SIGTERM, and a client killed outright (its connection just closes).
    for (signal, code) in [
        (libc::SIGINT, Some(130)),
        (libc::SIGTERM, Some(143)),
        (libc::SIGKILL, None),
    ] {
        interrupted_with(signal, code);
    }
}

/// Interrupts a run whose agent started a tool process in a session of its own that ignores
/// SIGTERM: the client ends with `code` (None: killed by the signal), and no process of the
/// run's tree remains.
fn interrupted_with(signal: i32, code: Option<i32>) {
    let script = json!({"write": [{"mode": "tool_child"}]});
    let mut setup = FlowSetup::new(&small_flow(json!({"hang_minutes": 30})), &script);
    let child_pid = setup.scratch.path().join("tool.pid");
    setup
        .env
        .set("FAKE_PI_CHILD_PID", child_pid.to_str().unwrap());
    let mut client = setup.start_run();
    let agents = || -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.contains(setup.scratch.path().to_str().unwrap()))
                    && std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .is_ok_and(|s| !s.contains(") Z "))
            })
            .collect()
    };
    assert!(
        wait_until(Duration::from_secs(20), || child_pid.exists()),
        "the tool process started"
    );
    assert!(
        agents().len() >= 2,
        "the agent and its tool run: {:?}",
        agents()
    );
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(client.id() as i32, signal);
    }
    let status = client.wait().unwrap();
    assert_eq!(status.code(), code);
    assert!(
        wait_until(Duration::from_secs(30), || agents().is_empty()),
        "processes of the run remain: {:?}",
        agents()
    );
    // The lease is free again.
    assert!(wait_until(Duration::from_secs(20), || {
        setup
            .env
            .stanleyctl(&setup.repo, &["flow", "stop"])
            .stdout
            .contains("no flow supervisor is running")
    }));
}

#[test]
fn the_time_budget_stops_a_long_run_with_exit_2() {
    let script = json!({"write": [{"mode": "hang"}]});
    let mut setup = FlowSetup::new(
        &small_flow(json!({"max_total_minutes": 1, "hang_minutes": 30, "max_restarts": 5})),
        &script,
    );
    setup.env.set("STANLEY_FLOW_MINUTE_S", "1");
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("limit reached: the run time of max_total_minutes (1)"),
        "{}",
        out.stderr
    );
    assert_eq!(
        setup.journal()["restarts"],
        0,
        "a timed-out run is not a restart"
    );
    assert_eq!(
        std::fs::read_to_string(setup.repo.root().join("notified.log")).unwrap(),
        "budget\n"
    );
}

#[test]
fn a_model_error_backs_off_without_charging_a_restart() {
    let script = json!({"write": [
        {"mode": "model_error"},
        {"write": {"a.txt": "a"}, "text": "Wrote a.txt."}
    ]});
    let setup = FlowSetup::new(&small_flow(json!({})), &script);
    scripted_judge(&setup.env);
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("model error; retrying in 1 s without charging a restart"),
        "{}",
        out.stderr
    );
    assert_eq!(setup.journal()["restarts"], 0);
    assert_eq!(setup.runs().len(), 2);
}

#[test]
fn a_person_is_asked_when_the_loop_is_exhausted_and_the_run_exits_4() {
    let flow = json!({"goal": "Green tests", "mode": "enforce",
        "notify": {"command": "echo \"$STANLEY_FLOW_EVENT\" >> notified.log", "on": ["ask_human"]},
        "phases": [{"id": "fix", "name": "Fix", "done_when": "tests pass",
                    "loop": {"max_iterations": 2, "until": "test -f green"}}]});
    let setup = FlowSetup::new(&flow, &json!({}));
    scripted_judge(&setup.env);
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 4, "{out:?}");
    assert!(
        out.stderr.contains("waiting on a person (loop_exhausted)"),
        "{}",
        out.stderr
    );
    let note =
        std::fs::read_to_string(setup.repo.root().join(".stanley/flow/NEEDS_HUMAN.md")).unwrap();
    assert!(
        note.contains("the loop of fix reached max_iterations (2) without passing"),
        "{note}"
    );
    assert_eq!(
        std::fs::read_to_string(setup.repo.root().join("notified.log")).unwrap(),
        "ask_human\n"
    );

    let status = setup.env.stanleyctl(&setup.repo, &["flow", "status"]);
    assert!(
        status
            .stdout
            .contains("waiting on a person: read .stanley/flow/NEEDS_HUMAN.md"),
        "{}",
        status.stdout
    );

    // The person fixes it and runs the flow again: the note goes, and the loop now passes.
    setup.repo.write("green", "");
    let again = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        !setup
            .repo
            .root()
            .join(".stanley/flow/NEEDS_HUMAN.md")
            .exists()
    );
}

#[test]
fn one_supervisor_at_a_time_and_flow_stop_interrupts_it() {
    let script = json!({"write": [{"mode": "hang"}]});
    let setup = FlowSetup::new(&small_flow(json!({"hang_minutes": 30})), &script);
    let mut first = setup.start_run();
    let second = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(second.code, 5, "{second:?}");
    assert!(
        second.stderr.contains("another flow supervisor is running"),
        "{}",
        second.stderr
    );
    let status = setup.env.stanleyctl(&setup.repo, &["flow", "status"]);
    assert!(
        status.stdout.contains("(running under the supervisor)"),
        "{}",
        status.stdout
    );
    let stop = setup.env.stanleyctl(&setup.repo, &["flow", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    assert!(stop.stdout.contains("asked the flow supervisor to stop"));
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let idle = setup.env.stanleyctl(&setup.repo, &["flow", "stop"]);
    assert!(
        idle.stdout.contains("no flow supervisor is running"),
        "{idle:?}"
    );
}

#[test]
fn bad_flow_files_exit_3_naming_the_json_path() {
    let setup = FlowSetup::new(&small_flow(json!({})), &json!({}));
    let phase = |extra: Value| {
        let mut p = json!({"id": "a", "name": "A", "done_when": "d"});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"goal": "g", "phases": [phase(json!({}))], "colour": 1}),
            "colour",
        ),
        (json!({"phases": [phase(json!({}))]}), "goal"),
        (json!({"goal": "g", "phases": []}), "phases"),
        (
            json!({"goal": "g", "phases": [phase(json!({"id": "unclear"}))]}),
            "phases[0].id",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"id": "Bad Id"}))]}),
            "phases[0].id",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"chek": "true"}))]}),
            "phases[0].chek",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"side_effect": true}))]}),
            "phases[0].side_effect",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"depends_on": ["a"]}))]}),
            "phases[0].depends_on",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"on_fail": "nowhere"}))]}),
            "phases[0].on_fail",
        ),
        (
            json!({"goal": "g", "phases": [phase(json!({"loop": {"max_iterations": 0, "until": "true"}}))]}),
            "phases[0].loop.max_iterations",
        ),
        (
            json!({"goal": "g", "mode": "strict", "phases": [phase(json!({}))]}),
            "mode",
        ),
        (
            json!({"goal": "g", "schema_version": 2, "phases": [phase(json!({}))]}),
            "schema_version",
        ),
        (
            json!({"goal": "g", "limits": {"max_restarts": "five"}, "phases": [phase(json!({}))]}),
            "limits.max_restarts",
        ),
        (
            json!({"goal": "g", "gates": {"bands": {"deny": 2}}, "phases": [phase(json!({}))]}),
            "gates.bands.deny",
        ),
    ];
    for (flow, path) in cases {
        setup.repo.write(".stanley/flow.json", &flow.to_string());
        let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
        assert_eq!(out.code, 3, "{flow}: {out:?}");
        assert!(
            out.stderr.contains(&format!(".stanley/flow.json: {path}")),
            "{flow}: {}",
            out.stderr
        );
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
    setup.repo.write(".stanley/flow.json", "{ not json");
    let out = setup.env.stanleyctl(&setup.repo, &["flow", "run"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr.contains(".stanley/flow.json: "),
        "{}",
        out.stderr
    );
    assert!(setup.runs().is_empty(), "no agent ran for a bad flow");
}

//! Delegation to the coding agent through the stand-in `pi` (`tests/src/bin/fake_pi.rs`): when
//! Stanley delegates, what Pi is given, how its outcomes map to results, the workflow-folder
//! guard, and that a client that goes away leaves no agent or tool process behind.

use std::time::Duration;

use serde_json::Value;
use stanley_tests::testenv::{bin_dir, wait_until};
use stanley_tests::{TempRepo, TestEnv};

use crate::summarize::changed_repo;

pub(crate) fn agent_env(mode: &str) -> (TestEnv, tempfile::TempDir) {
    let mut env = TestEnv::new();
    let scratch = tempfile::tempdir().unwrap();
    env.set(
        "STANLEY_PI_BIN",
        bin_dir().join("fake-pi").to_str().unwrap(),
    );
    env.set("FAKE_PI_MODE", mode);
    // Tests run the improvement worker by hand, except the one about the background worker.
    env.set("STANLEY_AUTO_IMPROVE", "off");
    env.set(
        "FAKE_PI_RECORD",
        scratch.path().join("record.json").to_str().unwrap(),
    );
    (env, scratch)
}

fn record(scratch: &tempfile::TempDir) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(scratch.path().join("record.json")).expect("pi ran"),
    )
    .unwrap()
}

fn alive(pid: i32) -> bool {
    // A zombie counts as gone: it runs nothing and only waits for its parent to reap it.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
    })
}

#[test]
fn an_action_is_delegated_without_routing() {
    let (env, scratch) = agent_env("finished");
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Deploy this branch", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "complete");
    let data = &doc["output"]["data"];
    assert_eq!(
        (
            data["handledBy"].as_str(),
            data["toolCalls"].as_u64(),
            data["outcome"].as_str()
        ),
        (Some("coding_agent"), Some(2), Some("finished"))
    );
    assert!(doc["output"]["text"].as_str().unwrap().starts_with("complete - handled by an external coding agent; Stanley did not verify the result\n\ndone: wrote the file"));
    for key in ["workflow", "agent", "pi"] {
        assert!(data.get(key).is_none() && doc.get(key).is_none());
    }
    assert!(env.jev.requests().is_empty(), "no Jev request at all");
    assert!(
        out.stderr
            .contains("stanley: delegated to the coding agent"),
        "{}",
        out.stderr
    );
    let rec = record(&scratch);
    let args: Vec<&str> = rec["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    // Below a folder other users can write (`/tmp`, where these repositories usually are), Pi
    // would read `AGENTS.md` and `CLAUDE.md` there: its discovery is off, and the person told.
    let shared = stanley_adapters::pi::shared_ancestor(repo.root());
    let mut want = vec!["--mode", "json", "--print", "--no-session"];
    if let Some(dir) = &shared {
        want.extend(["--no-context-files", "--no-skills"]);
        assert!(
            out.stderr.contains(&format!(
                "stanley: warning: the repository is inside {}, where other users can add files: the coding agent runs without AGENTS.md/CLAUDE.md and skills discovery",
                dir.display()
            )),
            "{}",
            out.stderr
        );
    } else {
        assert!(!out.stderr.contains("AGENTS.md"), "{}", out.stderr);
    }
    want.push(stanley_adapters::pi::PREAMBLE);
    assert_eq!(args, want, "the 0.73 line gets no --no-approve");
    assert!(
        rec["stdin"]
            .as_str()
            .unwrap()
            .contains("Task:\nDeploy this branch")
    );
    assert_eq!(rec["env"]["STANLEY_NESTED"], "1");
    assert_eq!(rec["env"]["PI_OFFLINE"], "1");
    assert_eq!(rec["cwd"], repo.root().display().to_string());
}

#[test]
fn the_1x_line_gets_no_approve_and_input_reaches_the_agent() {
    let (mut env, scratch) = agent_env("finished");
    env.set("FAKE_PI_VERSION", "1.6.0");
    env.set("PI_OFFLINE", "0");
    env.set("STANLEY_AGENT_MODEL", "mock/ok");
    let out = env.stanley_with_stdin(
        &changed_repo(),
        &["Deploy this branch", "--json"],
        Some(b"target: staging\n"),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let rec = record(&scratch);
    let args: Vec<&str> = rec["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        &args[..7],
        [
            "--mode",
            "json",
            "--print",
            "--no-session",
            "--no-approve",
            "--model",
            "mock/ok"
        ]
    );
    assert!(
        rec["stdin"]
            .as_str()
            .unwrap()
            .ends_with("Task:\nDeploy this branch\n\nSupplied input:\ntarget: staging")
    );
    assert_eq!(
        rec["env"]["PI_OFFLINE"], "0",
        "an explicit PI_OFFLINE is kept"
    );
}

#[test]
fn no_agent_and_agent_off_keep_the_documented_fallback() {
    let (mut env, scratch) = agent_env("finished");
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Deploy this branch", "--no-agent"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert!(
        out.stdout
            .replace('\n', " ")
            .contains("cannot run commands")
    );
    env.set("STANLEY_AGENT", "OFF");
    assert_eq!(env.stanley(&repo, &["Deploy this branch"]).code, 64);
    assert!(!scratch.path().join("record.json").exists(), "pi never ran");
}

#[test]
fn a_cannot_tell_pick_is_delegated_after_one_routing_request() {
    let (env, _scratch) = agent_env("finished");
    let out = env.stanley(
        &changed_repo(),
        &["Explain the deployment topology of this service", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["data"]["handledBy"], "coding_agent");
    assert_eq!(env.jev.route_requests().len(), 1);
    let (env2, scratch2) = agent_env("finished");
    env2.jev.route("summar", "summarize", 0.5);
    let out = env2.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 64, "model_uncertain never delegates: {out:?}");
    assert!(!scratch2.path().join("record.json").exists());
}

#[test]
fn agent_failures_are_incomplete() {
    for (mode, detail) in [
        ("model_error", "401 Incorrect API key provided"),
        ("crash", "fatal: nope"),
        ("missing_key", "No API key found for anthropic."),
    ] {
        let (env, _scratch) = agent_env(mode);
        let out = env.stanley(&changed_repo(), &["Deploy this branch", "--json"]);
        assert_eq!(out.code, 10, "{mode}: {out:?}");
        let doc = out.json();
        assert_eq!(doc["status"], "incomplete");
        assert_eq!(doc["output"]["data"]["outcome"], "failed");
        assert_eq!(doc["output"]["data"]["detail"], detail, "{mode}");
        assert!(
            doc["output"]["text"]
                .as_str()
                .unwrap()
                .starts_with("incomplete - the external coding agent exited with an error")
        );
    }
}

#[test]
fn garbage_and_five_megabyte_lines_are_skipped() {
    let (env, _scratch) = agent_env("garbage");
    let out = env.stanley(&changed_repo(), &["Deploy this branch", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["output"]["data"]["toolCalls"], 2);
}

#[test]
fn files_the_agent_adds_to_the_workflow_folder_are_quarantined() {
    let (mut env, _scratch) = agent_env("finished");
    let repo = TempRepo::with_files(&[
        (".stanley/workflows/existing.ts", "export default {};\n"),
        ("README.md", "x\n"),
    ]);
    env.set("FAKE_PI_WRITE", ".stanley/workflows/sneaky.ts=export default 1;;.stanley/workflows/existing.ts=tampered;docs/conventions.md=# Conventions");
    env.set("FAKE_PI_LINK", ".stanley/workflows/linked.ts=/etc/hostname");
    let out = env.stanley(
        &repo,
        &[
            "Add docs/conventions.md describing the code style",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("stanley: warning: the agent added 2 file(s) under .stanley/workflows/"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("(modified: existing.ts; removed: none)"),
        "{}",
        out.stderr
    );
    assert!(!repo.root().join(".stanley/workflows/sneaky.ts").exists());
    assert!(std::fs::symlink_metadata(repo.root().join(".stanley/workflows/linked.ts")).is_err());
    let quarantine = std::fs::read_dir(repo.root().join(".stanley/quarantine"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert_eq!(
        std::fs::read_link(quarantine.join("linked.ts"))
            .unwrap()
            .to_str(),
        Some("/etc/hostname")
    );
    assert!(
        repo.root().join("docs/conventions.md").exists(),
        "legitimate edits are kept"
    );
    assert!(
        repo.git(&["status", "--porcelain"])
            .contains(" M .stanley/workflows/existing.ts")
    );
    let notes = out.json()["output"]["data"]["notChecked"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(notes, 4);
}

#[test]
fn a_client_that_goes_away_leaves_no_agent_or_tool_process() {
    for mode in ["hang", "tool_child"] {
        let (mut env, scratch) = agent_env(mode);
        let child_pid_file = scratch.path().join("child.pid");
        env.set("FAKE_PI_CHILD_PID", child_pid_file.to_str().unwrap());
        let repo = changed_repo();
        let mut cmd = env.command("stanley", repo.root());
        cmd.arg("Deploy this branch")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut client = cmd.spawn().unwrap();
        // The stand-in writes its record in one call, but a read can still see it half
        // written: wait until it parses.
        assert!(
            wait_until(Duration::from_secs(20), || {
                std::fs::read_to_string(scratch.path().join("record.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                    .is_some_and(|v| v["pid"].is_i64())
            }),
            "{mode}: pi never started"
        );
        if mode == "tool_child" {
            assert!(wait_until(Duration::from_secs(10), || child_pid_file.exists()));
        }
        let pi = record(&scratch)["pid"].as_i64().unwrap() as i32;
        let tool = std::fs::read_to_string(&child_pid_file)
            .ok()
            .and_then(|p| p.trim().parse::<i32>().ok());
        client.kill().unwrap();
        let _ = client.wait();
        assert!(
            wait_until(Duration::from_secs(20), || !alive(pi)),
            "{mode}: pi {pi} still runs"
        );
        if let Some(tool) = tool {
            assert!(
                wait_until(Duration::from_secs(20), || !alive(tool)),
                "{mode}: tool process {tool} still runs"
            );
        }
    }
}

#[test]
fn a_daemon_killed_mid_run_leaves_no_agent_and_the_next_reaps_its_tools() {
    let (mut env, scratch) = agent_env("tool_child");
    let child_pid_file = scratch.path().join("child.pid");
    env.set("FAKE_PI_CHILD_PID", child_pid_file.to_str().unwrap());
    let repo = changed_repo();
    let mut cmd = env.command("stanley", repo.root());
    cmd.arg("Deploy this branch")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut client = cmd.spawn().unwrap();
    assert!(
        wait_until(Duration::from_secs(20), || child_pid_file.exists()
            && std::fs::read_to_string(&child_pid_file)
                .is_ok_and(|p| p.trim().parse::<i32>().is_ok())),
        "the tool never started"
    );
    assert!(wait_until(Duration::from_secs(10), || {
        std::fs::read_to_string(scratch.path().join("record.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| v["pid"].is_i64())
    }));
    let pi = record(&scratch)["pid"].as_i64().unwrap() as i32;
    let tool: i32 = std::fs::read_to_string(&child_pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let agents = repo.root().join(".stanley/daemon/agents");
    assert_eq!(
        std::fs::read_dir(&agents).unwrap().count(),
        1,
        "the run is recorded while it runs"
    );
    let daemon = repo.daemon_pid().unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(daemon, libc::SIGKILL);
    }
    let _ = client.wait();
    assert!(
        wait_until(Duration::from_secs(10), || !alive(pi)),
        "pi {pi} outlived its daemon"
    );
    assert!(
        alive(tool),
        "the detached tool outlives the daemon until the next one starts"
    );
    // The next daemon reaps what the run left.
    let list = env.stanleyctl(&repo, &["queue", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert!(
        wait_until(Duration::from_secs(10), || !alive(tool)),
        "tool process {tool} still runs"
    );
    assert_eq!(std::fs::read_dir(&agents).unwrap().count(), 0);
    let log = std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
    assert!(
        log.contains("killed processes a previous daemon's agent left running"),
        "{log}"
    );
}

fn adapter(mode: &str) -> stanley_adapters::pi::PiAgent {
    let env: std::collections::HashMap<String, String> = [
        ("FAKE_PI_MODE".to_owned(), mode.to_owned()),
        ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
        ("STANLEY_NESTED".to_owned(), "1".to_owned()),
        ("PI_OFFLINE".to_owned(), "1".to_owned()),
    ]
    .into();
    let settings = stanley_adapters::pi::AgentSettings {
        pi_bin: Some(bin_dir().join("fake-pi")),
        ..Default::default()
    };
    let root = tempfile::tempdir().unwrap().keep();
    stanley_adapters::pi::availability(
        &settings,
        env,
        false,
        &root,
        stanley_adapters::pi::untrusted_unless_absent(&root),
    )
    .expect("the stand-in pi is found")
    .with_grace(Duration::from_millis(200))
}

#[tokio::test]
async fn the_time_limit_and_cancellation_stop_the_agent() {
    use stanley_workflows::agent::{Agent, AgentOutcome};
    for mode in ["hang", "ignore_term"] {
        let agent = adapter(mode);
        let started = std::time::Instant::now();
        let result = agent
            .run(
                "do it",
                Duration::from_millis(300),
                stanley_core::Cancel::new(),
                Box::new(|_| {}),
            )
            .await;
        assert_eq!(result.outcome, AgentOutcome::Timeout, "{mode}");
        assert_eq!(
            result.detail.as_deref(),
            Some("the agent was stopped at the time limit")
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{mode} took {:?}",
            started.elapsed()
        );
    }
    let agent = adapter("hang");
    let cancel = stanley_core::Cancel::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let result = agent
        .run("do it", Duration::from_secs(60), cancel, Box::new(|_| {}))
        .await;
    assert_eq!(result.outcome, AgentOutcome::Aborted);
}

#[test]
fn availability_rules() {
    use stanley_adapters::pi::{AgentSettings, Unavailable, availability};
    let root = std::path::Path::new("/");
    let fake = bin_dir().join("fake-pi");
    let with_pi = |f: fn(&mut AgentSettings)| {
        let mut s = AgentSettings {
            pi_bin: Some(fake.clone()),
            ..Default::default()
        };
        f(&mut s);
        s
    };
    let check = |s: &AgentSettings, no_agent: bool| {
        availability(
            s,
            Default::default(),
            no_agent,
            root,
            stanley_adapters::pi::untrusted_unless_absent(root),
        )
        .map(|_| ())
    };
    assert_eq!(
        check(&with_pi(|s| s.disabled = true), false),
        Err(Unavailable::Disabled)
    );
    assert_eq!(
        check(&with_pi(|s| s.nested = true), false),
        Err(Unavailable::Nested)
    );
    assert_eq!(check(&with_pi(|_| {}), true), Err(Unavailable::Disabled));
    let missing = AgentSettings {
        pi_bin: Some("/nonexistent/pi".into()),
        path: Some("/usr/bin".into()),
        ..Default::default()
    };
    assert_eq!(
        check(&missing, false),
        Err(Unavailable::NotInstalled),
        "no fallback to PATH"
    );
    let nowhere = AgentSettings {
        path: Some("/nonexistent".into()),
        ..Default::default()
    };
    assert_eq!(check(&nowhere, false), Err(Unavailable::NotInstalled));
    assert_eq!(check(&with_pi(|_| {}), false), Ok(()));
}

#[test]
fn a_delegation_queues_one_durable_improvement_job() {
    let (env, _scratch) = agent_env("finished");
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Audit the TODO comments", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let id = stanley_workflows::improve::JobId::of_request("Audit the TODO comments").to_string();
    assert!(
        out.stderr.contains(&format!(
            "stanley: delegated to the coding agent; queued improvement job {id}"
        )),
        "{}",
        out.stderr
    );
    let again = env.stanley(&repo, &["  audit   THE todo comments ", "--json"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again
            .stderr
            .contains(&format!("improvement job {id} is already queued")),
        "{}",
        again.stderr
    );
    let list = env.stanleyctl(&repo, &["queue", "list"]);
    assert_eq!(list.code, 0, "{list:?}");
    assert!(
        list.stdout.contains(&id) && list.stdout.contains("pending"),
        "{}",
        list.stdout
    );
    // The job survives a daemon killed with SIGKILL.
    let pid: i32 = repo.daemon_pid().unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    assert!(wait_until(Duration::from_secs(10), || !alive(pid)));
    let export = env.stanleyctl(&repo, &["queue", "export"]);
    assert_eq!(export.code, 0, "{export:?}");
    let doc: Value = serde_json::from_str(&export.stdout).unwrap();
    assert_eq!(doc["schema"], "stanley.queue-export/v1");
    assert_eq!(doc["jobs"][0]["id"], id);
    assert_eq!(doc["jobs"][0]["request"], "Audit the TODO comments");
    let show = env.stanleyctl(&repo, &["queue", "show", "imp_000000000000"]);
    assert_eq!(show.code, 65, "{show:?}");
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Two delegations queue two jobs; the daemon is stopped; `damage` breaks `.stanley/state/`;
/// the next request and `stanleyctl queue list` report the recovery and both jobs are back.
fn queue_recovers_from(damage: impl Fn(&std::path::Path)) {
    let (env, _scratch) = agent_env("finished");
    let repo = changed_repo();
    let requests = ["Audit the TODO comments", "List the flaky tests"];
    let mut ids: Vec<String> = requests
        .iter()
        .map(|r| stanley_workflows::improve::JobId::of_request(r).to_string())
        .collect();
    ids.sort();
    for request in requests {
        let out = env.stanley(&repo, &[request, "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let stop = env.stanleyctl(&repo, &["daemon", "stop"]);
    assert_eq!(stop.code, 0, "{stop:?}");
    damage(&repo.root().join(".stanley/state"));

    let out = env.stanley(&repo, &["Audit the TODO comments", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("warning: the improvement queue was damaged")
            && out
                .stderr
                .contains("the broken copy is in .stanley/state.corrupt-")
            && ids.iter().all(|id| out.stderr.contains(id)),
        "{}",
        out.stderr
    );
    let list = env.stanleyctl(&repo, &["queue", "list", "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    let jobs: Value = serde_json::from_str(&list.stdout).unwrap();
    let mut listed: Vec<String> = jobs
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap().to_owned())
        .collect();
    listed.sort();
    assert_eq!(listed, ids);
    assert!(
        list.stderr
            .contains("stanleyctl: warning: the improvement queue was damaged"),
        "{list:?}"
    );
    let kept: Vec<_> = std::fs::read_dir(repo.root().join(".stanley"))
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("state.corrupt-")
        })
        .collect();
    assert_eq!(kept.len(), 1);
    assert!(kept[0].path().join("recovery.json").is_file());
    // Said once per damage on requests; the listing keeps saying it until the copy is removed.
    let again = env.stanley(&repo, &["Audit the TODO comments", "--json"]);
    assert!(!again.stderr.contains("was damaged"), "{again:?}");
    std::fs::remove_dir_all(kept[0].path()).unwrap();
    let list = env.stanleyctl(&repo, &["queue", "list"]);
    assert!(!list.stderr.contains("was damaged"), "{list:?}");
}

#[test]
fn a_truncated_queue_is_recovered_and_reported() {
    queue_recovers_from(|state| {
        for file in files_under(state) {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&file)
                .unwrap()
                .set_len(0)
                .unwrap();
        }
    });
}

#[test]
fn a_bit_flipped_queue_is_recovered_and_reported() {
    queue_recovers_from(|state| {
        let db = state.join("db");
        let mut bytes = std::fs::read(&db).unwrap();
        for i in (0..bytes.len()).step_by(61) {
            bytes[i] ^= 0x5a;
        }
        std::fs::write(&db, &bytes).unwrap();
    });
}

#[test]
fn the_improvement_loop_drafts_validates_and_promotes_a_workflow() {
    let (mut env, scratch) = agent_env("finished");
    // Promotion is the person's review: the promoted file is trusted by that act, so the loop
    // works without `stanleyctl trust` (issue 12).
    env.untrusted();
    let count = scratch.path().join("count");
    env.set("FAKE_PI_COUNT", count.to_str().unwrap());
    // The router picks the drafted workflow only once it is offered.
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    env.jev.route("summar", "summarize", 0.9);
    let runs = || {
        std::fs::read_to_string(&count)
            .map(|t| t.trim().parse::<u64>().unwrap())
            .unwrap_or(0)
    };
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    let vague = "Tidy up whatever looks off";
    for request in [todo, vague] {
        let out = env.stanley(&repo, &[request, "--json"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.stderr.contains("queued improvement job"),
            "{}",
            out.stderr
        );
    }
    assert_eq!(runs(), 2);
    let (a, b) = (
        stanley_workflows::improve::JobId::of_request(vague).to_string(),
        stanley_workflows::improve::JobId::of_request(todo).to_string(),
    );

    let out = env.stanley(&repo, &["--improve-worker", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["schema"], "stanley.improvement-worker/v1");
    assert_eq!(doc["ran"], true);
    let mut processed: Vec<(String, String)> = doc["processed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().into(),
                p["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    processed.sort();
    let mut expected = vec![
        (a.clone(), "rejected".to_owned()),
        (b.clone(), "validated".to_owned()),
    ];
    expected.sort();
    assert_eq!(processed, expected);
    assert_eq!(runs(), 4, "one agent run per job");

    let record = |id: &str| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(
                repo.root()
                    .join(format!(".stanley/candidates/{id}/candidate.json")),
            )
            .unwrap(),
        )
        .unwrap()
    };
    let rejected = record(&a);
    assert_eq!(rejected["status"], "rejected");
    assert!(
        rejected["reasons"][0]
            .as_str()
            .unwrap()
            .contains("no loadable workflow"),
        "{rejected}"
    );
    let validated = record(&b);
    assert_eq!(validated["schema"], "stanley.candidate/v1");
    assert_eq!(validated["workflowId"], "todo_audit");
    assert_eq!(validated["checks"]["routing"], "selected");
    assert_eq!(validated["checks"]["outsideWrites"], serde_json::json!([]));
    assert_eq!(validated["request"], todo);
    let show = env.stanleyctl(&repo, &["queue", "show", &b]);
    assert_eq!(show.code, 0, "{show:?}");
    assert!(show.stdout.contains("done"), "{}", show.stdout);

    // Every later request mentions the candidate waiting for review.
    let out = env.stanley(&repo, &["Summarize these changes"]);
    assert!(
        out.stderr
            .contains("1 validated improvement candidate(s) await review"),
        "{}",
        out.stderr
    );

    let bad = env.stanley(&repo, &["--promote-candidate", "../etc"]);
    assert_eq!(bad.code, 65, "{bad:?}");
    assert!(
        bad.stderr.contains("invalid candidate id: ../etc"),
        "{}",
        bad.stderr
    );
    let not_valid = env.stanley(&repo, &["--promote-candidate", &a]);
    assert_eq!(not_valid.code, 65, "{not_valid:?}");
    assert!(
        not_valid.stderr.contains("is rejected, not validated"),
        "{}",
        not_valid.stderr
    );

    let promoted = env.stanley(&repo, &["--promote-candidate", &b, "--json"]);
    assert_eq!(promoted.code, 0, "{promoted:?}");
    let doc = promoted.json();
    assert_eq!(doc["schema"], "stanley.promotion/v1");
    assert_eq!(doc["workflow"], "todo_audit");
    assert_eq!(doc["path"], ".stanley/workflows/todo_audit.ts");
    assert_eq!(record(&b)["status"], "promoted");
    let again = env.stanley(&repo, &["--promote-candidate", &b]);
    assert_eq!(again.code, 65, "{again:?}");
    assert!(
        again.stderr.contains("is promoted, not validated"),
        "{}",
        again.stderr
    );

    // The same request is now handled by the promoted workflow, without the agent.
    let out = env.stanley(&repo, &[todo, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"],
        serde_json::json!({"text": "audited", "data": {"judged": true, "request": todo}})
    );
    assert_eq!(runs(), 4, "no new agent run");
    let status = std::process::Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            ".stanley/workflows",
        ])
        .current_dir(repo.root())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "?? .stanley/workflows/todo_audit.ts\n"
    );
}

fn work_with(env: &TestEnv, repo: &TempRepo, extra: &[(&str, &str)]) -> Value {
    let mut cmd = env.command("stanley", repo.root());
    cmd.args(["--improve-worker", "--json"]);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = stanley_tests::testenv::run(cmd, None);
    assert_eq!(out.code, 0, "{out:?}");
    out.json()
}

#[test]
fn a_crashing_agent_is_retried_once_and_outside_writes_reject_a_candidate() {
    let (env, _scratch) = agent_env("finished");
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    let out = env.stanley(&repo, &[todo, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let id = stanley_workflows::improve::JobId::of_request(todo).to_string();

    // A crash that changed nothing is retried once, then the job is rejected.
    let doc = work_with(&env, &repo, &[("FAKE_PI_MODE", "crash")]);
    let statuses: Vec<&str> = doc["processed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["requeued", "rejected"]);
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo.root()
                .join(format!(".stanley/candidates/{id}/candidate.json")),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        record["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("agent failed"),
        "{record}"
    );
    let show = env.stanleyctl(&repo, &["queue", "show", &id]);
    assert!(
        show.stdout.contains("requeued") && show.stdout.contains("attempt 2"),
        "{}",
        show.stdout
    );

    // A finished job is not worked again; a fresh delegation of a new request is, and a
    // workflow drafted beside a write outside the candidate folder is rejected.
    let doc = work_with(&env, &repo, &[]);
    assert_eq!(doc["processed"], serde_json::json!([]));
    let other = "Audit the TODO notes under src";
    let out = env.stanley(&repo, &[other, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let other_id = stanley_workflows::improve::JobId::of_request(other).to_string();
    let stray = repo.root().join("src/stray.txt");
    let doc = work_with(
        &env,
        &repo,
        &[("FAKE_PI_WRITE", &format!("{}=oops", stray.display()))],
    );
    assert_eq!(doc["processed"][0]["status"], "rejected", "{doc}");
    let record: Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo.root()
                .join(format!(".stanley/candidates/{other_id}/candidate.json")),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        record["checks"]["outsideWrites"],
        serde_json::json!(["src/stray.txt"])
    );
    assert_eq!(record["workflowId"], "todo_audit");
    let promote = env.stanley(&repo, &["--promote-candidate", &other_id]);
    assert_eq!(promote.code, 65, "{promote:?}");
}

#[test]
fn stanleyctl_works_retries_drops_and_reviews_candidates() {
    let (env, _scratch) = agent_env("finished");
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    assert_eq!(env.stanley(&repo, &[todo, "--json"]).code, 0);
    let id = stanley_workflows::improve::JobId::of_request(todo).to_string();
    let ctl = |args: &[&str]| env.stanleyctl(&repo, args);

    let work = ctl(&["queue", "work", "--json"]);
    assert_eq!(work.code, 0, "{work:?}");
    assert_eq!(work.json()["processed"][0]["status"], "validated");
    let list = ctl(&["candidates", "list"]);
    assert!(
        list.stdout.contains(&id)
            && list.stdout.contains("validated")
            && list.stdout.contains("todo_audit"),
        "{}",
        list.stdout
    );
    let show = ctl(&["candidates", "show", &id, "--json"]);
    assert_eq!(show.code, 0, "{show:?}");
    assert_eq!(show.json()["workflowId"], "todo_audit");

    let reject = ctl(&["candidates", "reject", &id, "--json"]);
    assert_eq!(reject.code, 0, "{reject:?}");
    assert_eq!(reject.json()["status"], "rejected");
    let again = ctl(&["candidates", "reject", &id]);
    assert_eq!(again.code, 65, "{again:?}");
    assert!(
        again.stderr.contains("is rejected, not validated"),
        "{}",
        again.stderr
    );

    // A retry clears the candidate and lets the worker try again from scratch.
    let retry = ctl(&["queue", "retry", &id, "--json"]);
    assert_eq!(retry.code, 0, "{retry:?}");
    let job = retry.json();
    assert_eq!(
        (job["state"].as_str(), job["attempts"].as_u64()),
        (Some("pending"), Some(0))
    );
    assert!(
        !repo
            .root()
            .join(format!(".stanley/candidates/{id}"))
            .exists()
    );
    assert_eq!(ctl(&["candidates", "show", &id]).code, 65);
    assert_eq!(
        ctl(&["queue", "work", "--json"]).json()["processed"][0]["status"],
        "validated"
    );

    let missing = ctl(&["candidates", "promote", "imp_000000000000"]);
    assert_eq!(missing.code, 65, "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("no candidate record for imp_000000000000"),
        "{}",
        missing.stderr
    );
    // A file of the same name already in the workflow folder blocks the move.
    let taken = repo.root().join(".stanley/workflows/todo_audit.ts");
    repo.write(
        ".stanley/workflows/todo_audit.ts",
        "export default async () => ({ id: \"other_audit\", run: async () => \"other\" })\n",
    );
    let blocked = ctl(&["candidates", "promote", &id]);
    assert_eq!(blocked.code, 65, "{blocked:?}");
    assert!(
        blocked
            .stderr
            .contains(".stanley/workflows/todo_audit.ts already exists"),
        "{}",
        blocked.stderr
    );
    std::fs::remove_file(&taken).unwrap();
    let promote = ctl(&["candidates", "promote", &id, "--json"]);
    assert_eq!(promote.code, 0, "{promote:?}");
    assert_eq!(promote.json()["path"], ".stanley/workflows/todo_audit.ts");
    // A job whose state does not allow it is an input error, as a rejected candidate's
    // promotion is (one error model, D-62).
    let retry = ctl(&["queue", "retry", &id]);
    assert_eq!(retry.code, 65, "{retry:?}");
    assert!(retry.stderr.contains("was promoted"), "{}", retry.stderr);

    assert_eq!(ctl(&["queue", "drop", &id]).code, 0);
    assert_eq!(ctl(&["queue", "show", &id]).code, 65);
    let gone = ctl(&["queue", "drop", &id]);
    assert_eq!(gone.code, 65, "{gone:?}");
    assert!(
        gone.stderr.contains(&format!("no improvement job {id}")),
        "{}",
        gone.stderr
    );
    let bad = ctl(&["candidates", "show", "../etc"]);
    assert_eq!(bad.code, 65, "{bad:?}");
    assert_eq!(
        ctl(&["candidates", "list", "--json"]).json()[0]["status"],
        "promoted"
    );
}

/// A workflow module without semicolons (the stand-in splits `FAKE_PI_WRITE` on `;`).
fn module(id: &str, factory: &str, fields: &str) -> String {
    format!(
        "import {{ writeFileSync }} from \"node:fs\"\nexport default async function ({{ root }}) {{\n  {factory}\n  return {{ id: \"{id}\", instructions: \"Explain gadget failures\", {fields} run: async () => \"ok\" }}\n}}\n"
    )
}

/// A request, the candidate files the agent writes, whether a failure log is piped, the status
/// and a reason the record must contain.
type ValidationCase<'a> = (&'a str, Vec<(&'a str, String)>, bool, &'a str, &'a str);

#[test]
fn validation_rejects_bad_candidates_and_applies_the_input_gate() {
    let (env, _scratch) = agent_env("finished");
    env.jev.route_if_present("gadget", "gadget_report", 0.9);
    let repo = changed_repo();
    let log = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/logs/cargo-test.txt"),
    )
    .unwrap();
    let plain = module("gadget_report", "", "");
    let gated = module(
        "gadget_report",
        "",
        "available: async ({ input }) => input === \"failure_log\",",
    );
    let lazy = module(
        "gadget_report",
        "",
        "available: async ({ input }) => (await import(\"./gate.mjs\")).default(input),",
    );
    let factory_writes = module(
        "gadget_report",
        "writeFileSync(root + \"/outside.txt\", \"x\")",
        "",
    );
    let cases: Vec<ValidationCase> = vec![
        (
            "Explain the gadget failures (two)",
            vec![
                ("a.ts", plain.clone()),
                ("b.ts", module("gadget_other", "", "")),
            ],
            false,
            "rejected",
            "more than one workflow",
        ),
        (
            "Explain the gadget failures (reserved)",
            vec![("a.ts", module("summarize", "", ""))],
            false,
            "rejected",
            "workflow id summarize is reserved or already registered",
        ),
        (
            "Explain the gadget failures (factory)",
            vec![("a.ts", factory_writes)],
            false,
            "rejected",
            "outside the candidate directory: outside.txt",
        ),
        (
            "Explain the gadget failures (gate, no input)",
            vec![("a.ts", gated.clone())],
            false,
            "rejected",
            "the router did not select the candidate",
        ),
        (
            "Explain the gadget failures (gate, log)",
            vec![("a.ts", gated)],
            true,
            "validated",
            "",
        ),
        (
            // The gate imports a module of the candidate's only when it is asked: the staged
            // copy must still be there then.
            "Explain the gadget failures (gate, lazy)",
            vec![
                ("a.ts", lazy),
                (
                    "gate.mjs",
                    "export default (input) => input === \"failure_log\"\n".into(),
                ),
            ],
            true,
            "validated",
            "",
        ),
        (
            "Explain the gadget failures (plain)",
            vec![("a.ts", plain)],
            false,
            "validated",
            "",
        ),
    ];
    for (request, files, with_log, status, reason) in cases {
        let out = env.stanley_with_stdin(
            &repo,
            &[request, "--json"],
            with_log.then_some(log.as_bytes()),
        );
        assert_eq!(out.code, 0, "{request}: {out:?}");
        assert!(
            out.stderr.contains("queued improvement job"),
            "{request}: {}",
            out.stderr
        );
        let id = stanley_workflows::improve::JobId::of_request(request).to_string();
        let writes: Vec<String> = files
            .iter()
            .map(|(name, text)| format!(".stanley/candidates/{id}/{name}={text}"))
            .collect();
        let doc = work_with(&env, &repo, &[("FAKE_PI_WRITE", &writes.join(";"))]);
        assert_eq!(doc["processed"][0]["status"], status, "{request}: {doc}");
        let record: Value = serde_json::from_str(
            &std::fs::read_to_string(
                repo.root()
                    .join(format!(".stanley/candidates/{id}/candidate.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let reasons = record["reasons"].to_string();
        if reason.is_empty() {
            assert_eq!(record["reasons"], serde_json::json!([]), "{request}");
            assert_eq!(record["checks"]["routing"], "selected", "{request}");
        } else {
            assert!(reasons.contains(reason), "{request}: {reasons}");
        }
        let _ = std::fs::remove_file(repo.root().join("outside.txt"));
    }
}

#[test]
fn a_daemon_killed_during_an_active_job_loses_nothing() {
    let (env, scratch) = agent_env("finished");
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    assert_eq!(env.stanley(&repo, &[todo, "--json"]).code, 0);
    let id = stanley_workflows::improve::JobId::of_request(todo).to_string();

    // A worker whose agent hangs holds the job active.
    let hung = scratch.path().join("hung.json");
    let mut cmd = env.command("stanley", repo.root());
    cmd.args(["--improve-worker", "--json"])
        .env("FAKE_PI_MODE", "hang")
        .env("FAKE_PI_RECORD", &hung)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut client = cmd.spawn().unwrap();
    let pi_pid = || -> Option<i32> {
        let text = std::fs::read_to_string(&hung).ok()?;
        Some(serde_json::from_str::<Value>(&text).ok()?["pid"].as_i64()? as i32)
    };
    assert!(wait_until(Duration::from_secs(30), || pi_pid().is_some()));
    let show = env.stanleyctl(&repo, &["queue", "show", &id]);
    assert!(show.stdout.contains("active"), "{}", show.stdout);

    let daemon: i32 = repo.daemon_pid().unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe {
        libc::kill(daemon, libc::SIGKILL);
        libc::kill(pi_pid().unwrap(), libc::SIGKILL);
    }
    assert!(wait_until(Duration::from_secs(10), || !alive(daemon)));
    let status = client.wait().unwrap();
    assert!(
        !status.success(),
        "the waiting client reports the lost daemon"
    );

    // The next worker requeues the stale job and finishes it.
    let doc = work_with(&env, &repo, &[]);
    assert_eq!(
        doc["processed"],
        serde_json::json!([{"id": id, "status": "validated"}])
    );
    let show = env.stanleyctl(&repo, &["queue", "show", &id]);
    assert!(
        show.stdout.contains("stale lease") && show.stdout.contains(" done "),
        "{}",
        show.stdout
    );
}

#[test]
fn a_later_request_starts_the_background_worker_once() {
    let (mut env, scratch) = agent_env("finished");
    let count = scratch.path().join("count");
    env.set("FAKE_PI_COUNT", count.to_str().unwrap());
    env.set("STANLEY_AUTO_IMPROVE", "on");
    env.jev.route_if_present("todo", "todo_audit", 0.9);
    env.jev.route("summar", "summarize", 0.9);
    let runs = || {
        std::fs::read_to_string(&count)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    let repo = changed_repo();
    let todo = "Audit the TODO comments";
    assert_eq!(env.stanley(&repo, &[todo, "--json"]).code, 0);
    assert_eq!(runs(), 1, "the delegation itself");
    let id = stanley_workflows::improve::JobId::of_request(todo).to_string();

    // A request that needs no agent finds the pending job and starts the worker in the daemon.
    let out = env.stanley(&repo, &["Summarize these changes", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["output"]["data"]["summary"]["analysis"],
        "summarize"
    );
    let record = repo
        .root()
        .join(format!(".stanley/candidates/{id}/candidate.json"));
    assert!(
        wait_until(Duration::from_secs(30), || {
            std::fs::read_to_string(&record).is_ok_and(|t| t.contains("\"validated\""))
        }),
        "the background worker validated the candidate"
    );
    let done = || {
        env.stanleyctl(&repo, &["queue", "show", &id])
            .stdout
            .contains(" done ")
    };
    assert!(wait_until(Duration::from_secs(30), done));
    // Nothing is pending any more, so further requests start nothing.
    let out = env.stanley(&repo, &["Summarize these changes", "--json"]);
    assert!(
        out.stderr.contains("1 validated improvement candidate(s)"),
        "{}",
        out.stderr
    );
    assert_eq!(runs(), 2, "one improvement run, no more");
}

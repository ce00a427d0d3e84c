//! Every way Jev or the input can go wrong gives one clear line and its documented exit code,
//! and the key never appears in output.

use std::time::Duration;

use stanley_tests::testenv::TEST_KEY;
use stanley_tests::{Fault, TempRepo, TestEnv};

use crate::summarize::{changed_repo, summarize_env};

fn assert_no_key(out: &stanley_tests::Output) {
    assert!(
        !out.stdout.contains(TEST_KEY) && !out.stderr.contains(TEST_KEY),
        "the key leaked: {out:?}"
    );
}

#[test]
fn a_missing_key_names_the_variable() {
    let mut env = TestEnv::new();
    env.without_key();
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(out.stderr.contains("TYPESAFE_API_KEY"), "{}", out.stderr);
    assert_eq!(out.json()["error"]["kind"], "input");
    assert!(env.jev.requests().is_empty());
}

/// One Jev failure as the person meets it: its exit code, the `error.kind`, one line on stderr
/// (`stanley: Jev error: ...`) containing `says`, and never the key.
fn assert_jev_error(out: &stanley_tests::Output, code: i32, kind: &str, says: &str) {
    assert_eq!(out.code, code, "{out:?}");
    assert_eq!(out.json()["error"]["kind"], kind, "{out:?}");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{out:?}");
    // `stanley: Jev error: ...`, or `stanley <workflow>: Jev error: ...` once one was running.
    assert!(
        lines[0].starts_with("stanley")
            && lines[0].contains(": Jev error: ")
            && lines[0].contains(says),
        "{out:?}"
    );
    assert_no_key(out);
}

#[test]
fn a_rejected_key_is_a_jev_error_naming_the_variable() {
    for status in [401, 403] {
        let env = summarize_env();
        env.jev.fail_next([Fault::Status(status)]);
        let repo = changed_repo();
        let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
        assert_jev_error(
            &out,
            77,
            "jev_auth",
            &format!("the key in TYPESAFE_API_KEY was refused (HTTP {status} from 127.0.0.1:"),
        );
        assert_eq!(env.jev.requests().len(), 1, "no retry after a refused key");
        let log =
            std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
        assert!(!log.contains(TEST_KEY), "the key reached the daemon log");
    }
}

#[test]
fn a_key_refused_before_anything_was_judged_is_an_error_and_after_is_incomplete() {
    let env = summarize_env();
    // Routing passes; both hunk frames meet the 401.
    env.jev
        .fail_next([Fault::Pass, Fault::Status(401), Fault::Status(401)]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_jev_error(&out, 77, "jev_auth", "TYPESAFE_API_KEY");

    // One hunk judged before the key was refused: a partial result that says why. (The two
    // hunks' requests are in flight together; the refusal comes after the answer, so the
    // answer is judged whichever request the fake sees first.)
    let env = summarize_env();
    env.jev.fail_next([
        Fault::Pass,
        Fault::Pass,
        Fault::StatusAfter(std::time::Duration::from_millis(300), 401),
    ]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "incomplete");
    assert_eq!(doc["output"]["data"]["coverage"]["judged"], 1);
    assert!(
        doc["output"]["data"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "Jev not called: authentication failed"),
        "{doc}"
    );
}

#[test]
fn an_unreachable_base_url_names_the_host_and_the_variable() {
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let mut env = summarize_env();
    env.set("TYPESAFE_BASE_URL", &format!("http://127.0.0.1:{port}"));
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_jev_error(
        &out,
        69,
        "jev_unreachable",
        &format!("cannot reach 127.0.0.1:{port} (TYPESAFE_BASE_URL)"),
    );
    assert!(out.stderr.to_lowercase().contains("refused"), "{out:?}");

    let mut env = summarize_env();
    env.set("TYPESAFE_BASE_URL", "https://jev.invalid");
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_jev_error(
        &out,
        69,
        "jev_unreachable",
        "cannot reach jev.invalid (TYPESAFE_BASE_URL)",
    );
}

#[test]
fn server_errors_and_throttling_that_outlast_the_retries_say_jev_is_unavailable() {
    for (fault, says) in [
        (
            Fault::Status(500),
            "Jev answered HTTP 500 on every attempt (2 over ",
        ),
        (
            Fault::Status(429),
            "Jev was rate-limited (HTTP 429) on every attempt (2 over ",
        ),
        (
            Fault::EchoAuth(503),
            "Jev answered HTTP 503 on every attempt",
        ),
    ] {
        let env = summarize_env();
        env.jev.fail_next([fault.clone(), fault.clone()]);
        let repo = changed_repo();
        let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
        assert_jev_error(&out, 69, "jev_unavailable", says);
        assert!(out.stderr.contains("try again later"), "{out:?}");
        let log =
            std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
        assert!(
            log.contains("intent routing failed"),
            "the failure was logged"
        );
        assert!(!log.contains(TEST_KEY), "the key reached the daemon log");
    }
}

#[test]
fn answers_jev_got_wrong_still_read_as_unroutable() {
    for faults in [
        vec![Fault::Garbage],
        vec![Fault::ExtraKey, Fault::ExtraKey],
        vec![Fault::MissingKey, Fault::MissingKey],
    ] {
        let env = summarize_env();
        env.jev.fail_next(faults.clone());
        let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
        assert_eq!(out.code, 64, "{faults:?}: {out:?}");
        assert_eq!(out.json()["status"], "unsupported");
        assert_no_key(&out);
    }
}

#[test]
fn throttling_and_dropped_connections_are_retried() {
    let env = summarize_env();
    env.jev.fail_next([Fault::Status(429)]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let env = summarize_env();
    env.jev.fail_next([Fault::Drop]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn judging_failures_are_counted_as_failed() {
    let env = summarize_env();
    env.jev.fail_next([Fault::Pass, Fault::Garbage]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["output"]["data"]["coverage"]["failed"], 1);
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .contains("INCOMPLETE")
    );
}

#[test]
fn a_slow_server_still_answers() {
    let env = summarize_env();
    env.jev
        .fail_next([Fault::Delay(Duration::from_millis(300))]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn input_paths_follow_the_workspace_rules() {
    let env = TestEnv::new();
    let repo = changed_repo();
    repo.write(".env", "A=1\n");
    repo.write("empty.txt", "");
    for (path, message) in [
        ("../../nowhere/passwd", "cannot read ../../nowhere/passwd"),
        (".env", "refusing to read a credential-shaped path"),
        ("missing.txt", "file not found inside workspace"),
        ("empty.txt", "input file is empty"),
    ] {
        let out = env.stanley(
            &repo,
            &["Summarize what changed", "--json", "--input", path],
        );
        assert_eq!(out.code, 65, "{path}: {out:?}");
        assert_eq!(out.json()["error"]["kind"], "input");
        assert!(out.stderr.contains(message), "{path}: {}", out.stderr);
    }
    assert!(env.jev.requests().is_empty());
}

#[test]
fn repo_flag_works_from_anywhere() {
    let env = summarize_env();
    let repo = changed_repo();
    let mut cmd = env.command("stanley", std::path::Path::new("/"));
    cmd.args([
        "Summarize what changed",
        "--json",
        "--repo",
        repo.root().to_str().unwrap(),
    ]);
    let out = stanley_tests::testenv::run(cmd, None);
    assert_eq!(out.code, 0, "{out:?}");
}

/// Answers that do not fit their questions are named as the cause, and asking stops after a
/// few frames rather than running the budget out (issue 49: it said "budget exhausted", exit
/// 12, after retrying every frame).
#[test]
fn answers_that_never_fit_are_named_and_not_retried_without_end() {
    let env = summarize_env();
    env.jev.respond(|body| {
        body.pointer("/state/hunk")?;
        let mut answers = serde_json::Map::new();
        for (name, _) in body["questions"].as_object()? {
            answers.insert(
                name.clone(),
                serde_json::json!({"type": "choice", "choice": "banana", "probabilities": {"banana": 1.0}}),
            );
        }
        Some(answers)
    });
    let repo = TempRepo::with_hunks(60, 2);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 69, "{out:?}");
    assert_eq!(out.json()["error"]["kind"], "jev_unavailable", "{out:?}");
    assert!(
        out.stderr
            .contains("Jev's answers did not fit the questions asked (8 answers in a row"),
        "{out:?}"
    );
    assert!(out.stderr.contains("TYPESAFE_MODEL"), "{out:?}");
    let judging = env
        .jev
        .requests()
        .iter()
        .filter(|r| r.pointer("/state/hunk").is_some())
        .count();
    // Bounded by the window, not by the diff: the first attempts in flight (the window starts
    // at 32), their one retry each and the eight that decided it; never all 120 frames with
    // their retries (360 before, and the budget spent).
    assert!(judging <= 2 * 32 + 8, "{judging} judging requests");
}

//! Every way Jev or the input can go wrong gives one clear line and its documented exit code,
//! and the key never appears in output.

use std::time::Duration;

use stanley_tests::testenv::TEST_KEY;
use stanley_tests::{Fault, TestEnv};

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

#[test]
fn a_rejected_key_stops_after_one_call() {
    let env = summarize_env();
    env.jev.fail_next([Fault::Status(401)]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert_eq!(env.jev.requests().len(), 1);
    assert_no_key(&out);
}

#[test]
fn a_rejected_key_during_judging_leaves_the_report_incomplete() {
    let env = summarize_env();
    // Both hunk frames may be in flight at once, so both may meet the 401.
    env.jev
        .fail_next([Fault::Pass, Fault::Status(401), Fault::Status(401)]);
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 10, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["status"], "incomplete");
    assert_eq!(doc["output"]["data"]["coverage"]["unjudged"], 2);
    assert!(
        doc["output"]["data"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "Jev not called: authentication failed")
    );
    let n = env.jev.requests().len();
    assert!(
        (2..=3).contains(&n),
        "the port was disabled after the 401 ({n} requests)"
    );
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
fn server_errors_garbage_and_wrong_keys_end_unsupported() {
    for faults in [
        vec![Fault::Status(500), Fault::Status(500)],
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
        ("../../etc/passwd", "path escapes the workspace"),
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

#[test]
fn a_server_that_echoes_the_key_never_gets_it_printed() {
    let env = summarize_env();
    env.jev
        .fail_next([Fault::EchoAuth(500), Fault::EchoAuth(500)]);
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert_no_key(&out);
    let log = std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
    assert!(
        log.contains("intent routing failed"),
        "the failure was logged"
    );
    assert!(!log.contains(TEST_KEY), "the key reached the daemon log");
}

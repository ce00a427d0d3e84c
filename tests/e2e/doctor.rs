//! `stanleyctl doctor` (issue 14): a good setup passes; no key, a refused key, no Node.js and a
//! Pi whose engine needs a newer Node.js each show as the check that fails or warns, with what
//! to do; the key is never printed.

use std::path::PathBuf;

use serde_json::Value;
use stanley_tests::testenv::{TEST_KEY, bin_dir};
use stanley_tests::{Fault, Output, TestEnv};

use crate::summarize::changed_repo;

fn doctor(env: &TestEnv) -> (Output, Value) {
    let repo = changed_repo();
    let out = env.stanleyctl(&repo, &["doctor", "--json"]);
    assert!(
        !out.stdout.contains(TEST_KEY) && !out.stderr.contains(TEST_KEY),
        "{out:?}"
    );
    let doc: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(doc["schema"], "stanley.doctor/v1");
    (out, doc)
}

fn state_of(doc: &Value, name: &str) -> (String, String) {
    let c = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {doc}"));
    (
        c["state"].as_str().unwrap().to_owned(),
        c["detail"].as_str().unwrap().to_owned(),
    )
}

fn with_pi(env: &mut TestEnv, pi: &std::path::Path) {
    env.set("STANLEY_PI_BIN", pi.to_str().unwrap());
}

#[test]
fn a_good_setup_passes_every_check() {
    let mut env = TestEnv::new();
    with_pi(&mut env, &bin_dir().join("fake-pi"));
    let (out, doc) = doctor(&env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(doc["ok"], true);
    for name in [
        "runtime",
        "daemon",
        "key",
        "model",
        "jev",
        "node",
        "pi",
        "git",
        "repository",
    ] {
        assert_eq!(state_of(&doc, name).0, "ok", "{name}: {doc}");
    }
    assert!(
        state_of(&doc, "jev").1.contains("the key was accepted"),
        "{doc}"
    );
    assert!(state_of(&doc, "model").1.contains("jev-1.13.0"), "{doc}");
    assert_eq!(env.jev.requests().len(), 1, "one small real request");
    // The human form: one line a check.
    let human = env.stanleyctl(&changed_repo(), &["doctor"]);
    assert_eq!(human.code, 0, "{human:?}");
    assert!(
        human.stdout.lines().any(|l| l.starts_with("ok    jev ")),
        "{human:?}"
    );
}

#[test]
fn no_key_and_a_refused_key_fail_with_the_fix() {
    let mut env = TestEnv::new();
    env.without_key();
    let (out, doc) = doctor(&env);
    assert_eq!(out.code, 78, "{out:?}");
    assert_eq!(doc["ok"], false);
    assert_eq!(
        state_of(&doc, "key"),
        ("fail".into(), "TYPESAFE_API_KEY is not set".into())
    );

    let env = TestEnv::new();
    env.jev.fail_next([Fault::Status(401)]);
    let (out, doc) = doctor(&env);
    assert_eq!(out.code, 78, "{out:?}");
    let (state, detail) = state_of(&doc, "jev");
    assert_eq!(state, "fail");
    assert!(
        detail.contains("refused the key in TYPESAFE_API_KEY (HTTP 401)"),
        "{detail}"
    );
}

#[test]
fn no_node_and_a_pi_that_needs_a_newer_node_are_named() {
    // A PATH with git but no node.
    let dir = tempfile::tempdir().unwrap();
    let git = ["/usr/bin/git", "/usr/local/bin/git"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap();
    std::os::unix::fs::symlink(git, dir.path().join("git")).unwrap();
    let mut env = TestEnv::new();
    env.set("PATH", dir.path().to_str().unwrap());
    let (_, doc) = doctor(&env);
    let (state, detail) = state_of(&doc, "node");
    assert_eq!(state, "warn", "{doc}");
    assert!(detail.contains("repository workflows are off"), "{detail}");

    // Pi 1.x (engine >=22.19.0) with the machine's Node.js on PATH.
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&node.stdout).trim().to_owned();
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let pi1 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("pi1/node_modules/.bin/pi");
    let mut env = TestEnv::new();
    with_pi(&mut env, &pi1);
    let (out, doc) = doctor(&env);
    let (state, detail) = state_of(&doc, "pi");
    if major < 22 {
        assert_eq!(out.code, 78, "{out:?}");
        assert_eq!(state, "fail", "{doc}");
        assert!(
            detail.contains("@earendil-works/pi-coding-agent 1.6.0 (current line)")
                && detail.contains(&format!(
                    "needs Node.js >=22.19.0, but node on PATH is {version}"
                )),
            "{detail}"
        );
    } else {
        assert_eq!(state, "ok", "{doc}");
    }
}

//! `check` end to end: the task section with the deterministic ladder, rules and criteria from
//! `--input`, malformed input refused before any judging frame, and lockfiles never sent.

use serde_json::Value;
use stanley_tests::{TempRepo, TestEnv};

pub(crate) fn fixture() -> TempRepo {
    let repo = TempRepo::with_files(&[
        (
            "src/config.js",
            "export function parseConfig(raw) {\n  return JSON.parse(raw);\n}\n",
        ),
        (
            "test/config.test.js",
            "test('parses', () => {\n  expect(parseConfig('{\"a\":1}')).toEqual({ a: 1 });\n  expect(parseConfig('{}')).toEqual({});\n});\n",
        ),
        ("package-lock.json", "{\n  \"lockfileVersion\": 3\n}\n"),
    ]);
    repo.write("src/config.js", "export function parseConfig(raw) {\n  if (raw == null) return {};\n  return JSON.parse(raw);\n}\n");
    repo.write(
        "test/config.test.js",
        "test.skip('parses', () => {\n  expect(parseConfig('{\"a\":1}')).toEqual({ a: 1 });\n});\n",
    );
    repo.write(
        "package-lock.json",
        "{\n  \"lockfileVersion\": 3,\n  \"name\": \"demo\"\n}\n",
    );
    repo
}

pub(crate) fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("check", "check", 0.9);
    env
}

pub(crate) const REQUEST: &str =
    "Check whether these changes fix the crash in parseConfig when raw is null";

fn flags(doc: &Value) -> Vec<(String, String, String)> {
    doc["output"]["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["flag"].as_str().unwrap().to_owned(),
                f["path"].as_str().unwrap_or("").to_owned(),
                f["lines"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_skipped_test_and_a_removed_assertion_are_flagged_with_paths_and_lines() {
    let env = env();
    let repo = fixture();
    let out = env.stanley(&repo, &[REQUEST, "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let found = flags(&doc);
    assert!(
        found.contains(&(
            "skip_marker_added".into(),
            "test/config.test.js".into(),
            // The changed lines (`test.skip(` to the removed `expect`), not the context.
            "1-3".into()
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "assertions_removed".into(),
            "test/config.test.js".into(),
            "1-3".into()
        )),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "lockfile_changed".into(),
            "package-lock.json".into(),
            "2-3".into()
        )),
        "{found:?}"
    );
    let data = &doc["output"]["data"];
    assert!(!data["notChecked"].as_array().unwrap().is_empty());
    assert_eq!(data["summary"]["sections"], serde_json::json!(["task"]));
    assert_eq!(data["coverage"]["deterministic"], 1);
    let notes: Vec<&str> = data["notChecked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes.contains(&"project rules (no rules supplied)")
            && notes.contains(&"acceptance criteria (no criteria supplied)")
    );
    assert!(
        data["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["section"] == "task")
    );
    // The lockfile hunk never reaches Jev as a frame of its own.
    for request in env.jev.requests() {
        assert_ne!(
            request.pointer("/state/hunk/path").and_then(Value::as_str),
            Some("package-lock.json")
        );
    }
    // Source hunks ask about special-cased literals; the test hunk gets its expectation frame.
    let templates: Vec<Value> = env
        .jev
        .requests()
        .into_iter()
        .filter(|r| r.pointer("/questions/task_relation").is_some())
        .collect();
    assert_eq!(templates.len(), 2);
    assert!(templates.iter().any(|r| {
        r.pointer("/questions/special_cases_literal_input")
            .is_some()
    }));
    let test_frame = env
        .jev
        .requests()
        .into_iter()
        .find(|r| r.pointer("/questions/weakens_expectation").is_some())
        .expect("a test-expectation frame");
    let keys: Vec<&String> = test_frame["state"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["evidencePolicy", "task", "hunk"]);
}

#[test]
fn the_human_report_names_what_was_not_checked() {
    let env = env();
    let out = env.stanley(&fixture(), &[REQUEST]);
    assert_eq!(out.code, 0, "{out:?}");
    for text in [
        "advisory",
        "  warn  test/config.test.js:1  Assertions were removed from a test here.",
        "        - 3 |   expect(parseConfig('{}')).toEqual({});",
        "not checked:",
        "project rules (no rules supplied)",
    ] {
        assert!(
            out.stdout.contains(text),
            "missing {text:?} in\n{}",
            out.stdout
        );
    }
}

#[test]
fn criteria_and_rules_from_input() {
    let env = env();
    let repo = fixture();
    repo.write(
        "notes/criteria.md",
        "Acceptance:\n- parseConfig returns {} for null\n- Errors are logged\n",
    );
    repo.write("notes/rules.json", r#"{"version": 1, "rules": [{"id": "no-magic", "class": "semantic", "text": "No magic numbers in source", "scope": ["src/**"]}, {"id": "prettier-format", "class": "deterministic", "text": "Formatted with prettier"}]}"#);
    let out = env.stanley(&repo, &[REQUEST, "--json", "--input", "notes/criteria.md"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(
        doc["output"]["data"]["summary"]["sections"],
        serde_json::json!(["task", "criteria"])
    );
    assert_eq!(doc["output"]["data"]["summary"]["criteria"]["criteria"], 2);
    let out = env.stanley(&repo, &[REQUEST, "--json", "--input", "notes/rules.json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let data = &doc["output"]["data"];
    assert_eq!(
        data["summary"]["sections"],
        serde_json::json!(["task", "rules"])
    );
    assert_eq!(data["summary"]["rules"]["semanticRules"], 1);
    assert!(
        data["notChecked"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("prettier-format"))
    );
    assert!(!serde_json::to_string(&doc).unwrap().contains("compliant"));
    let runs: Vec<_> = std::fs::read_dir(repo.root().join(".stanley/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let rules_run = runs
        .iter()
        .find(|r| {
            std::fs::read_to_string(r.join("inputs.json"))
                .unwrap()
                .contains("notes/rules.json")
        })
        .expect("a run recorded the rules source");
    let inputs: Value =
        serde_json::from_str(&std::fs::read_to_string(rules_run.join("inputs.json")).unwrap())
            .unwrap();
    assert_eq!(inputs["inputs"]["rules"]["source"], "notes/rules.json");
    assert!(
        rules_run
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("check-")
    );
}

#[test]
fn malformed_rules_and_criteria_are_input_errors_before_judging() {
    let env = env();
    let repo = fixture();
    repo.write("notes/prose.md", "just prose\n");
    repo.write(
        "notes/bad.json",
        r#"{"version": 1, "rules": [{"id": "x", "class": "semantic", "text": "t", "oops": 1}]}"#,
    );
    let out = env.stanley(&repo, &[REQUEST, "--json", "--input", "notes/prose.md"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert!(
        out.stderr
            .contains("stanley check: input error: no list items found"),
        "{}",
        out.stderr
    );
    let out = env.stanley(&repo, &[REQUEST, "--json", "--input", "notes/bad.json"]);
    assert_eq!(out.code, 65, "{out:?}");
    assert_eq!(
        out.json()["error"]["message"],
        "rules[0] has unknown key oops"
    );
    assert_eq!(
        env.jev.requests().len(),
        env.jev.route_requests().len(),
        "only routing questions were asked"
    );
}

//! Golden outputs: for every built-in workflow, a delegation, the fallbacks and the error
//! documents, what `stanley` prints (with and without `--json`, stderr and the exit code) is
//! compared byte for byte with `tests/fixtures/golden/<case>.txt`. They pin the public
//! documents across the restructure (issue 13). After an intended change, regenerate them with
//! `STANLEY_BLESS=1 cargo nextest run -E 'test(/golden::/)'` and review the diff.

use std::path::Path;

use serde_json::json;

use stanley_tests::{Output, Seen, TempRepo, TestEnv};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/golden");

/// Paths and run ids that differ from run to run, replaced by stable words.
fn normalise(text: &str, repo: &TempRepo) -> String {
    let root = repo.root().display().to_string();
    let outside = repo.outside().display().to_string();
    let text = text.replace(&root, "<ROOT>").replace(&outside, "<OUTSIDE>");
    let run_id = regex::Regex::new(r"\b([a-z_]+)-\d{8}T\d{6}Z-[0-9a-f]{6}\b").unwrap();
    let text = run_id.replace_all(&text, "$1-<RUN>");
    // Said when the repository sits below a folder other users can write, which depends on
    // where this machine keeps temporary folders (`agent::an_action_is_delegated_without_routing`
    // pins it).
    let shared = regex::Regex::new(
        r"(?m)^stanley: warning: the repository is inside .*, where other users can add files: .*\n",
    )
    .unwrap();
    let text = shared.replace_all(&text, "");
    let duration = regex::Regex::new(r#""durationMs": \d+"#).unwrap();
    duration
        .replace_all(&text, r#""durationMs": <MS>"#)
        .into_owned()
}

fn render(out: &Output, repo: &TempRepo) -> String {
    Seen {
        code: out.code,
        stdout: normalise(&out.stdout, repo),
        stderr: normalise(&out.stderr, repo),
    }
    .to_string()
}

/// Runs `args` twice (human, then `--json`) and compares both with the golden file.
fn golden(name: &str, env: &TestEnv, repo: &TempRepo, args: &[&str], stdin: Option<&str>) {
    let mut text = String::new();
    for json in [false, true] {
        let mut args = args.to_vec();
        if json {
            args.push("--json");
        }
        let out = env.stanley_with_stdin(repo, &args, stdin.map(str::as_bytes));
        text.push_str(&format!("=== stanley {}\n", args.join(" ")));
        text.push_str(&render(&out, repo));
    }
    let path = Path::new(GOLDEN).join(format!("{name}.txt"));
    if std::env::var_os("STANLEY_BLESS").is_some() {
        std::fs::create_dir_all(GOLDEN).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; generate it with STANLEY_BLESS=1 and review it",
            path.display()
        )
    });
    assert!(
        want == text,
        "{name}: the output changed; if intended, regenerate with STANLEY_BLESS=1\n--- want\n{want}\n--- got\n{text}"
    );
}

#[test]
fn summarize() {
    let env = crate::summarize::summarize_env();
    let repo = crate::summarize::changed_repo();
    golden("summarize", &env, &repo, &["Summarize what changed"], None);
}

/// The five diff analyses that judge a concern: the word the fake routes on, the built-in, and
/// a request a person would type.
pub(crate) const FIVE_ANALYSES: [(&str, &str, &str); 5] = [
    (
        "correctness",
        "review",
        "Review these changes for correctness bugs",
    ),
    (
        "missing tests",
        "test_gaps",
        "Which changes have missing tests",
    ),
    ("security", "security_review", "Look for security issues"),
    (
        "performance",
        "performance_review",
        "Any performance regressions here",
    ),
    (
        "compatib",
        "compatibility_review",
        "Check compatibility for consumers",
    ),
];

#[test]
fn the_five_diff_analyses() {
    let env = TestEnv::new();
    let repo = crate::summarize::changed_repo();
    for (keyword, id, request) in FIVE_ANALYSES {
        env.jev.route(keyword, id, 0.9);
        golden(id, &env, &repo, &[request], None);
    }
}

#[test]
fn check() {
    let env = crate::check::env();
    let repo = crate::check::fixture();
    golden("check", &env, &repo, &[crate::check::REQUEST], None);
}

/// Answers check's criteria, strength and rule questions by path: the source hunk addresses the
/// null criterion strongly and breaks the first rule; everything else does not apply.
fn scripted_sections(env: &TestEnv) {
    use stanley_tests::fake_jev::{ChoiceRule, choice_answer, score_answer};
    env.jev.respond(|body| {
        let source = body.pointer("/state/hunk/path") == Some(&json!("src/config.js"));
        let mut answers = serde_json::Map::new();
        for (name, question) in body["questions"].as_object()? {
            let answer = if name.starts_with("addresses_") {
                let null = question.to_string().contains("for null");
                json!({"type": "noul", "noul": if source && null { 0.9 } else { 0.05 }})
            } else if name == "evidence_strength" {
                score_answer(4, 3, 0.8)
            } else if name.starts_with("rule_") {
                let labels: Vec<String> = question["criteria"]
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                let magic = question.to_string().contains("magic");
                let label = if source && magic {
                    "applicable_and_violated"
                } else {
                    "not_applicable"
                };
                let rule = ChoiceRule {
                    label: label.to_owned(),
                    mass: 0.85,
                    confidence: 0.85,
                };
                choice_answer(&labels, &rule)
            } else {
                return None;
            };
            answers.insert(name.clone(), answer);
        }
        Some(answers)
    });
}

#[test]
fn check_with_criteria_and_with_rules() {
    let env = crate::check::env();
    scripted_sections(&env);
    let repo = crate::check::fixture();
    repo.write(
        "notes/criteria.md",
        "Acceptance:\n- parseConfig returns {} for null\n- Errors are logged\n",
    );
    let args = [crate::check::REQUEST, "--input", "notes/criteria.md"];
    golden("check_criteria", &env, &repo, &args, None);
    let repo = crate::check::fixture();
    repo.write(
        "notes/rules.json",
        r#"{"version": 1, "rules": [{"id": "no-magic", "class": "semantic", "text": "No magic numbers in source", "scope": ["src/**"]}, {"id": "tests-assert", "class": "semantic", "text": "Tests keep their assertions", "scope": ["test/**"]}, {"id": "prettier-format", "class": "deterministic", "text": "Formatted with prettier"}]}"#,
    );
    let args = [crate::check::REQUEST, "--input", "notes/rules.json"];
    golden("check_rules", &env, &repo, &args, None);
}

#[test]
fn find() {
    let env = crate::find::env();
    let repo = crate::find::repo();
    golden(
        "find",
        &env,
        &repo,
        &["Find the code behind webhook retries"],
        None,
    );
}

#[test]
fn triage_failures() {
    let env = crate::triage::env();
    let repo = crate::triage::rust_repo();
    let log = crate::triage::fixture("cargo-test.txt");
    golden(
        "triage_failures",
        &env,
        &repo,
        &["Triage these test failures"],
        Some(&log),
    );
}

#[test]
fn triage_failures_without_a_diff_with_a_duplicate_and_a_probe() {
    let env = crate::triage::env();
    env.jev.answer(
        "missing_evidence",
        crate::triage::missing_evidence("test_source"),
    );
    // A real `go test` log twice over (the second run's blocks are duplicates), in a
    // repository with no changes, holding the test source the probe reads.
    let repo = TempRepo::with_files(&[(
        "calc_test.go",
        &(1..=30)
            .map(|i| format!("// line {i}\n"))
            .collect::<String>(),
    )]);
    let log = crate::triage::fixture("go.txt").repeat(2);
    golden(
        "triage_failures_edges",
        &env,
        &repo,
        &["Triage these test failures"],
        Some(&log),
    );
}

#[test]
fn triage_comments() {
    let env = crate::triage::comment_env();
    let repo = TempRepo::with_files(&[("src/a.ts", "export function f(x) {\n  return x.y;\n}\n")]);
    repo.write("src/a.ts", "export function f(x) {\n  return x?.y;\n}\n");
    repo.write("comments.json", crate::triage::COMMENTS);
    golden(
        "triage_comments",
        &env,
        &repo,
        &["Triage these review comments", "--input", "comments.json"],
        None,
    );
}

#[test]
fn triage_comments_excluded_moved_and_parked() {
    let env = crate::triage::comment_env();
    env.jev.answer_if(
        "code_status",
        "crashes when",
        crate::triage::code_status("not_a_code_claim"),
    );
    env.jev.answer_if(
        "states_concrete_failure_scenario",
        "crashes when",
        json!({"type": "noul", "noul": 0.9}),
    );
    let repo = TempRepo::with_files(&[
        (
            "src/old_name.ts",
            "export function g(y) {\n  return y + 1;\n}\n",
        ),
        (".env", "TOKEN=abc\n"),
    ]);
    repo.git(&["mv", "src/old_name.ts", "src/new_name.ts"]);
    repo.write(
        "comments.json",
        r#"[
  {"id": 201, "body": "Should this read from a secret store?", "path": ".env", "line": 1},
  {"id": 202, "body": "This crashes when y is undefined", "path": "src/old_name.ts", "line": 2, "diff_hunk": "@@ -1,2 +1,2 @@\n export function g(y) {\n+  return y + 1;"},
  {"id": 203, "body": "Rename this helper", "path": "src/old_name.ts", "line": 1}
]"#,
    );
    golden(
        "triage_comments_edges",
        &env,
        &repo,
        &["Triage these review comments", "--input", "comments.json"],
        None,
    );
}

#[test]
fn fallbacks_and_errors() {
    let mut env = TestEnv::new();
    env.set("STANLEY_AGENT", "off");
    env.jev.route("summar", "summarize", 0.9);
    let repo = crate::summarize::changed_repo();
    golden(
        "unsupported_action",
        &env,
        &repo,
        &["Deploy this branch"],
        None,
    );
    golden(
        "unroutable",
        &env,
        &repo,
        &["Explain the deployment topology of this service"],
        None,
    );
    golden(
        "input_refused",
        &env,
        &repo,
        &["Summarize what changed"],
        Some("some input\n"),
    );
    golden(
        "usage_removed_flag",
        &env,
        &repo,
        &["Summarize", "--kind", "x"],
        None,
    );
    golden("usage_empty_request", &env, &repo, &[""], None);
    let mut no_key = TestEnv::new();
    no_key.without_key();
    let fresh = crate::summarize::changed_repo();
    golden("no_key", &no_key, &fresh, &["Summarize what changed"], None);
}

#[test]
fn delegated_to_the_agent() {
    let mut env = TestEnv::new();
    env.stand_in_pi("finished");
    let repo = crate::summarize::changed_repo();
    golden("delegated", &env, &repo, &["Deploy this branch"], None);
}

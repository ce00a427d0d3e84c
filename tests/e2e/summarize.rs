//! `stanley "Summarize what changed"` end to end: autostart, one routing question, summarize
//! frames, the public document, and a warm second call on the same daemon.

use serde_json::json;
use stanley_tests::fake_jev::{ChoiceRule, choice_answer};
use stanley_tests::{TempRepo, TestEnv};

pub(crate) fn changed_repo() -> TempRepo {
    let repo = TempRepo::with_files(&[
        (
            "src/math.js",
            "export function add(a, b) {\n  return a + b;\n}\n",
        ),
        ("README.md", "# Demo\n"),
    ]);
    repo.write(
        "src/math.js",
        "export function add(a, b) {\n  if (a === 41) return 42;\n  return a + b;\n}\n",
    );
    repo.write("README.md", "# Demo\n\nAdds numbers.\n");
    repo
}

pub(crate) fn summarize_env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("summar", "summarize", 0.9);
    let labels: Vec<String> =
        stanley_tests::fake_jev::labels_of(stanley_workflows::analysis::modes::SUMMARIZE.labels);
    env.jev.answer(
        "classification",
        choice_answer(
            &labels,
            &ChoiceRule {
                label: "feature".into(),
                mass: 0.7,
                confidence: 0.7,
            },
        ),
    );
    env
}

#[test]
fn summarize_runs_end_to_end_and_the_daemon_is_reused() {
    let env = summarize_env();
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stderr, "");
    let doc = out.json();
    assert_eq!(
        doc.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["schema", "status", "output", "usage"]
    );
    assert_eq!(doc["usage"]["jevRequests"], 3, "{}", doc["usage"]);
    assert_eq!(doc["usage"]["cachedAnswers"], 0);
    assert_eq!(doc["schema"], "stanley.prompt-result/v1");
    assert_eq!(doc["status"], "complete");
    let data = doc["output"]["data"].as_object().unwrap();
    assert_eq!(
        data.keys().collect::<Vec<_>>(),
        [
            "coverage",
            "findings",
            "parked",
            "excluded",
            "limits",
            "notChecked",
            "results",
            "summary"
        ]
    );
    assert_eq!(doc["output"]["data"]["summary"]["analysis"], "summarize");
    assert_eq!(
        doc["output"]["data"]["summary"]["classifications"],
        json!({"feature": 2})
    );
    assert_eq!(doc["output"]["data"]["coverage"]["judged"], 2);
    assert_eq!(doc["output"]["data"]["findings"], json!([]));
    assert!(
        doc["output"]["text"].as_str().unwrap().starts_with(
            "change summary of the worktree changes: 2 hunks in 1 category · complete"
        )
    );
    let text = serde_json::to_string(&doc).unwrap();
    for private in ["runId", "artifact", "\"jev\"", "\"workflow\""] {
        assert!(!text.contains(private), "public output mentions {private}");
    }
    // One routing question, then one frame per hunk with the four questions in order.
    let requests = env.jev.requests();
    assert_eq!(requests.len(), 3);
    let route = &requests[0];
    assert_eq!(
        route["questions"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["route"]
    );
    assert_eq!(route["state"]["request"], "Summarize what changed");
    assert_eq!(
        route["state"]["context"],
        json!({"diff": "present", "input": "none", "capabilities": {
            "find": true, "check": true, "triage_failures": false, "triage_comments": false, "review": true, "test_gaps": true, "summarize": true,
            "security_review": true, "performance_review": true, "compatibility_review": true,
        }})
    );
    let labels: Vec<&String> = route["questions"]["route"]["criteria"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        labels,
        [
            "find",
            "check",
            "triage_failures",
            "triage_comments",
            "review",
            "test_gaps",
            "summarize",
            "security_review",
            "performance_review",
            "compatibility_review",
            "cannot_tell"
        ]
    );
    assert_eq!(route["model"], "jev-1.13.0");
    for frame in &requests[1..] {
        assert_eq!(
            frame["questions"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            [
                "classification",
                "importance",
                "evidence_sufficient",
                "untrusted_instruction_text"
            ]
        );
        assert!(
            frame["state"]["evidencePolicy"]
                .as_str()
                .unwrap()
                .contains("untrusted evidence")
        );
    }
    assert!(
        env.jev
            .auth_headers()
            .iter()
            .all(|h| h == &format!("Bearer {}", stanley_tests::testenv::TEST_KEY))
    );

    let info = std::fs::read_to_string(repo.root().join(".stanley/daemon/daemon.json")).unwrap();
    let second = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(second.code, 0, "{second:?}");
    assert_eq!(
        std::fs::read_to_string(repo.root().join(".stanley/daemon/daemon.json")).unwrap(),
        info,
        "the second call reused the daemon"
    );
    // The second run asks the same questions of the same daemon, which answers them from its
    // judgment cache.
    assert_eq!(env.jev.requests().len(), 3);
    assert_eq!(second.json()["usage"]["cachedAnswers"], 3);
}

#[test]
fn human_output_is_the_report() {
    let env = summarize_env();
    let repo = changed_repo();
    let out = env.stanley(&repo, &["Summarize what changed"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with("change summary of the worktree changes: 2 hunks in 1 category"),
        "{}",
        out.stdout
    );
    // What changed from facts first (issue 49), then the summary by category, not a row per
    // hunk (issue 34).
    assert!(
        out.stdout
            .contains("\nwhat changed:\n  2 files changed: 2 modified.\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "\nby kind, as Jev judged each hunk:\n  feature    2 hunks  README.md, src/math.js\n"
        ),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("[judged]"), "{}", out.stdout);
    let verbose = env.stanley(&repo, &["Summarize what changed", "--verbose"]);
    assert!(
        verbose
            .stdout
            .contains("\n  src/math.js:1-4 [judged] feature importance=0."),
        "{}",
        verbose.stdout
    );
    assert!(
        out.stdout
            .contains("not checked: a prose change description or release note")
    );
}

#[test]
fn uncertain_classifications_are_parked() {
    let env = summarize_env();
    let labels: Vec<String> =
        stanley_tests::fake_jev::labels_of(stanley_workflows::analysis::modes::SUMMARIZE.labels);
    env.jev.answer(
        "classification",
        choice_answer(
            &labels,
            &ChoiceRule {
                label: "cannot_tell".into(),
                mass: 0.6,
                confidence: 0.6,
            },
        ),
    );
    let out = env.stanley(&changed_repo(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let data = &out.json()["output"]["data"];
    assert_eq!(data["coverage"]["parked"], 2);
    assert_eq!(
        data["parked"][0]["reason"],
        "summarize: classification uncertain"
    );
}

#[test]
fn untracked_files_count_as_a_diff_and_secrets_do_not() {
    let env = summarize_env();
    let repo = TempRepo::with_files(&[("README.md", "# Demo\n")]);
    repo.write("src/new.rs", "pub fn hello() {}\n");
    repo.write(".env", "TOKEN=abc\n");
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let data = &out.json()["output"]["data"];
    assert_eq!(data["results"][0]["path"], "src/new.rs");
    assert_eq!(
        data["summary"]["diff"]["probe"],
        "git-diff-U3:worktree+untracked-files"
    );
    assert_eq!(
        data["excluded"],
        json!([{"id": "file:.env", "path": ".env", "reason": "credential-shaped path", "rule": "secret-path"}])
    );

    let secret_only = TempRepo::with_files(&[("README.md", "# Demo\n")]);
    secret_only.write(".env", "TOKEN=abc\n");
    // The only change is one Stanley does not read: it says so rather than "no diff".
    let out = env.stanley(&secret_only, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(doc["output"]["data"]["results"], json!([]));
    assert_eq!(doc["output"]["data"]["excluded"][0]["path"], ".env");
    let text = doc["output"]["text"].as_str().unwrap();
    assert!(
        text.contains("excluded by rule secret-path 1: .env"),
        "{text}"
    );
}

#[test]
fn staged_and_branch_scopes() {
    let env = summarize_env();
    let repo = TempRepo::with_files(&[("a.txt", "one\n")]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("a.txt", "one\ntwo\n");
    repo.commit("two");
    repo.write("b.txt", "staged\n");
    repo.git(&["add", "b.txt"]);
    let staged = env.stanley(
        &repo,
        &["Summarize what changed", "--json", "--scope", "staged"],
    );
    assert_eq!(staged.code, 0, "{staged:?}");
    let paths: Vec<String> = staged.json()["output"]["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, ["b.txt"]);
    let branch = env.stanley(
        &repo,
        &[
            "Summarize what changed",
            "--json",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
    );
    assert_eq!(branch.code, 0, "{branch:?}");
    let paths: Vec<String> = branch.json()["output"]["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, ["a.txt"]);
    let evil = env.stanley(
        &repo,
        &[
            "Summarize what changed",
            "--json",
            "--scope",
            "branch",
            "--base=--upload-pack=evil",
        ],
    );
    assert_eq!(evil.code, 65, "{evil:?}");
    assert!(evil.stderr.contains("unsupported ref"));
}

#[test]
fn input_is_refused_for_summarize() {
    let env = summarize_env();
    let repo = changed_repo();
    repo.write("notes.txt", "some notes\n");
    let out = env.stanley(&repo, &["Summarize what changed", "--input", "notes.txt"]);
    assert_eq!(out.code, 64, "{out:?}");
    assert!(out.stderr.contains("stanley summarize: usage error: supplied input is not used when the request routes to summarize"), "{}", out.stderr);
}

#[test]
fn each_diff_analysis_is_dispatched() {
    let env = TestEnv::new();
    for (keyword, id) in [
        ("correctness", "review"),
        ("missing tests", "test_gaps"),
        ("security", "security_review"),
        ("performance", "performance_review"),
        ("compatib", "compatibility_review"),
        ("summar", "summarize"),
    ] {
        env.jev.route(keyword, id, 0.9);
    }
    let repo = changed_repo();
    for (request, id) in [
        ("Review these changes for correctness bugs", "review"),
        ("Which changes have missing tests", "test_gaps"),
        ("Look for security issues", "security_review"),
        ("Any performance regressions here", "performance_review"),
        ("Check compatibility for consumers", "compatibility_review"),
        ("Summarize what changed", "summarize"),
    ] {
        let out = env.stanley(&repo, &[request, "--json"]);
        assert_eq!(out.code, 0, "{request}: {out:?}");
        let doc = out.json();
        assert_eq!(doc["status"], "complete");
        assert_eq!(doc["output"]["data"]["summary"]["analysis"], id);
        assert!(doc.get("workflow").is_none());
        assert!(
            !doc["output"]["data"]["notChecked"]
                .as_array()
                .unwrap()
                .is_empty()
        );
    }
}

/// What changed, said from facts in code on real upgrades of five ecosystems (issue 49): each
/// names its version and dependency changes as the manifests state them, and moves as folders.
#[test]
fn a_summary_says_what_changed_on_real_upgrades() {
    for (name, says) in [
        (
            "upgrade-large",
            &[
                "the version in Cargo.toml 1.35.0 → 1.40.0",
                "mio 0.8.9 → 1.0.1",
                "removed num_cpus",
            ][..],
        ),
        (
            "mirror-fp-ts",
            &["the version in package.json 2.15.0 → 2.16.0"][..],
        ),
        (
            "move-requests",
            &[
                "Moved: 18 files from requests/ to src/requests/",
                "httpbin ==0.7.0 → ~=0.10.0",
            ][..],
        ),
        (
            "attrs-grammar",
            &[
                "added github.com/tree-sitter/go-tree-sitter v0.23.1",
                "removed github.com/smacker/go-tree-sitter",
            ][..],
        ),
        (
            "mirror-httplib2",
            &["Dependencies: added pyparsing >=2.4.2,<3."][..],
        ),
    ] {
        let env = summarize_env();
        let repo = stanley_tests::TempRepo::upstream(name);
        let out = env.stanley(
            &repo,
            &[
                "Summarize what changed",
                "--scope",
                "branch",
                "--base",
                "main",
                "--json",
            ],
        );
        // A large upgrade judges what fits and says so (10); what changed is said whole.
        assert!(
            matches!(out.code, 0 | 10),
            "{name}: exit {}: {}",
            out.code,
            out.stderr
        );
        let text = out.json()["output"]["text"].as_str().unwrap().to_owned();
        let part = text.split("what changed:\n").nth(1).unwrap_or_default();
        let part = part
            .split("\n\n")
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        for phrase in says {
            assert!(part.contains(phrase), "{name}: {phrase:?} in {part}");
        }
        assert!(part.contains(" files changed: "), "{name}: {part}");
    }
}

/// A binary file added is counted as added, not modified (the blind evaluation of issue 49
/// found 11 such files in 3 upgrades): the Git port's facts say what happened to it whole.
#[test]
fn an_added_binary_file_is_said_to_be_added() {
    let env = summarize_env();
    let repo = changed_repo();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(std::iter::repeat_n(0u8, 64));
    std::fs::write(repo.root().join("logo.png"), &png).unwrap();
    repo.git(&["add", "logo.png"]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let text = out.json()["output"]["text"].as_str().unwrap().to_owned();
    let said = text.split("what changed:\n").nth(1).unwrap_or_default();
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(said.contains("1 added (logo.png)"), "{said}");
}

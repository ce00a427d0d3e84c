//! The report a person reads (issue 34, D-127), as a reviewed snapshot per built-in: each runs
//! on a real upgrade the tests assemble (thiserror 1.0.50 → 1.0.63, 36 files, branch against
//! `main`) with the fake Jev, and what `stanley` prints is compared with
//! `snapshots/e2e__report__<name>.snap` (`INSTA_UPDATE=always` rewrites them; review the diff
//! like code). Every report keeps the layout's promises: the findings come right after the
//! headline, a report without findings is at most 40 lines, and no line is wider than 100
//! columns. The fallbacks and errors are snapshots too.

use serde_json::{Value, json};
use stanley_tests::fake_jev::{ChoiceRule, choice_answer, labels_of, score_answer};
use stanley_tests::{TempRepo, TestEnv};

const BRANCH: [&str; 4] = ["--scope", "branch", "--base", "main"];

/// Runs `args` (a request on the branch) and checks the report's layout against the
/// document's findings; gives back what was printed.
fn report(env: &TestEnv, repo: &TempRepo, args: &[&str], stdin: Option<&str>) -> String {
    let mut args: Vec<&str> = args.to_vec();
    args.extend(BRANCH);
    let out = env.stanley_with_stdin(repo, &args, stdin.map(str::as_bytes));
    assert!(matches!(out.code, 0 | 10 | 12), "{out:?}");
    args.push("--json");
    let doc = env
        .stanley_with_stdin(repo, &args, stdin.map(str::as_bytes))
        .json();
    let findings = doc["output"]["data"]["findings"].as_array().unwrap().len();
    assert_layout(&out.stdout, findings);
    out.seen(env, repo).to_string()
}

/// The layout's promises: no line past 100 columns; with findings, they are the first thing
/// after the headline, one `warn`/`info` line each (wrapped lines indented under it); without,
/// the report is at most 40 lines (the Jev footer included).
fn assert_layout(text: &str, findings: usize) {
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        assert!(line.chars().count() <= 100, "wider than 100: {line:?}");
    }
    if findings == 0 {
        assert!(lines.len() <= 40, "{} lines:\n{text}", lines.len());
        return;
    }
    let start = lines.iter().position(|l| l.is_empty()).unwrap() + 1;
    let block: Vec<&&str> = lines[start..]
        .iter()
        .take_while(|l| !l.is_empty())
        .collect();
    let heads = block
        .iter()
        .filter(|l| l.starts_with("  warn  ") || l.starts_with("  info  "))
        .count();
    assert!(
        block.iter().all(|l| l.starts_with("  warn  ")
            || l.starts_with("  info  ")
            || l.starts_with("  and ")
            || l.starts_with("        ")),
        "the findings are not first:\n{text}"
    );
    assert!(heads <= 10, "at most ten shown: {text}");
    // Every finding is shown, said to be the same as a shown one, or counted.
    let number_after = |line: &str, lead: &str| -> usize {
        line.trim_start()
            .strip_prefix(lead)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let alike: usize = block.iter().map(|l| number_after(l, "the same in ")).sum();
    let rest: usize = block.iter().map(|l| number_after(l, "and ")).sum();
    assert_eq!(heads + alike + rest, findings, "every finding: {text}");
}

fn upgrade() -> TempRepo {
    TempRepo::upstream("upgrade-thiserror")
}

/// A review whose Jev sees a correctness risk in the hunks of `src/lib.rs` and `build.rs`.
fn flagging_env() -> TestEnv {
    let env = TestEnv::new();
    flag_lib_and_build(&env.jev);
    env
}

/// Scripts `jev` to route a correctness request to `review` and to see a risk in every hunk of
/// `src/lib.rs` and `build.rs`.
pub(crate) fn flag_lib_and_build(jev: &stanley_tests::FakeJev) {
    jev.route("correctness", "review", 0.9);
    let labels = labels_of(stanley_workflows::analysis::modes::REVIEW.labels);
    let risk = choice_answer(
        &labels,
        &ChoiceRule {
            label: "correctness_risk".into(),
            mass: 0.85,
            confidence: 0.85,
        },
    );
    jev.respond(move |body| {
        let path = body.pointer("/state/hunk/path")?.as_str()?;
        if !matches!(path, "src/lib.rs" | "build.rs") {
            return None;
        }
        let mut answers = serde_json::Map::new();
        for (name, _) in body["questions"].as_object()? {
            let answer = match name.as_str() {
                "classification" => risk.clone(),
                "importance" => score_answer(4, 3, 0.9),
                "evidence_sufficient" => json!({"type": "noul", "noul": 0.9}),
                "untrusted_instruction_text" => json!({"type": "noul", "noul": 0.02}),
                _ => return None,
            };
            answers.insert(name.clone(), answer);
        }
        Some(answers)
    });
}

#[test]
fn a_review_with_findings_shows_them_first() {
    let env = flagging_env();
    let repo = upgrade();
    let text = report(
        &env,
        &repo,
        &["Review these changes for correctness bugs"],
        None,
    );
    insta::assert_snapshot!("review_with_findings", text);
}

/// A finding says the same in `--json` and SARIF as in the terminal: the reason in words, the
/// changed lines it quotes, and the first changed line as its place (issue 49).
#[test]
fn a_finding_says_the_same_in_json_and_sarif() {
    let env = flagging_env();
    let repo = upgrade();
    let mut args = vec!["Review these changes for correctness bugs", "--json"];
    args.extend(BRANCH);
    let out = env.stanley(&repo, &args);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let first = &doc["output"]["data"]["findings"][0];
    insta::assert_snapshot!(
        "review_finding_json",
        serde_json::to_string_pretty(first).unwrap()
    );
    let text = doc["output"]["text"].as_str().unwrap();
    assert!(
        text.contains(
            first["message"]
                .as_str()
                .unwrap()
                .split(". ")
                .next()
                .unwrap()
        )
    );
    let sarif = env.stanleyctl(&repo, &["runs", "export", "latest", "--format", "sarif"]);
    assert_eq!(sarif.code, 0, "{sarif:?}");
    crate::runs::assert_valid_sarif(&sarif.stdout);
    let sarif: Value = serde_json::from_str(&sarif.stdout).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    insta::assert_snapshot!(
        "review_finding_sarif",
        serde_json::to_string_pretty(
            &json!({"message": result["message"], "locations": result["locations"]})
        )
        .unwrap()
    );
}

#[test]
fn the_diff_analyses_without_findings() {
    let env = TestEnv::new();
    let repo = upgrade();
    let summarize = ("summar", "summarize", "Summarize what changed");
    for (keyword, id, request) in crate::golden::FIVE_ANALYSES.into_iter().chain([summarize]) {
        env.jev.route(keyword, id, 0.9);
        let text = report(&env, &repo, &[request], None);
        insta::assert_snapshot!(id, text);
    }
}

#[test]
fn check_find_and_the_triages() {
    // Each environment has its own runtime folder, so its own clone of the upgrade.
    let repo = upgrade();
    let env = crate::check::env();
    let text = report(
        &env,
        &repo,
        &["Check that these changes add the fallback Display impl"],
        None,
    );
    insta::assert_snapshot!("check", text);

    let repo = upgrade();
    let env = crate::find::env();
    env.jev.judge_find_by_path("src/display.rs");
    let text = report(
        &env,
        &repo,
        &["Find the code that implements Display for errors"],
        None,
    );
    insta::assert_snapshot!("find", text);

    let repo = upgrade();
    let env = crate::triage::env();
    let log = crate::triage::fixture("cargo-test.txt");
    let text = report(&env, &repo, &["Triage these test failures"], Some(&log));
    insta::assert_snapshot!("triage_failures", text);

    let repo = upgrade();
    let env = crate::triage::comment_env();
    repo.write(
        "notes/comments.json",
        r#"[
  {"id": 1, "body": "This should handle null input", "path": "src/lib.rs", "line": 240},
  {"id": 2, "body": "Nice work here", "path": "src/display.rs", "line": 1},
  {"id": 3, "body": "Check this", "path": "src/gone.rs", "line": 3}
]"#,
    );
    let text = report(
        &env,
        &repo,
        &[
            "Triage these review comments",
            "--input",
            "notes/comments.json",
        ],
        None,
    );
    insta::assert_snapshot!("triage_comments", text);
}

/// Over a small Jev budget on the largest upgrade (Pygments, 2,021 hunks), the report still
/// fits 40 lines and says how many hunks were not judged, and where.
#[test]
fn an_upgrade_over_the_budget_counts_what_was_not_judged() {
    let mut env = TestEnv::new();
    env.jev.route("correctness", "review", 0.9);
    env.set("STANLEY_MAX_INPUT_TOKENS", "40000");
    let repo = TempRepo::upstream("upgrade-pygments");
    let text = report(
        &env,
        &repo,
        &["Review these changes for correctness bugs"],
        None,
    );
    assert!(text.contains("\n  unjudged "), "{text}");
    insta::assert_snapshot!("review_over_the_budget", text);
}

#[test]
fn verbose_lists_every_item_the_report_counts() {
    let env = TestEnv::new();
    env.jev.route("correctness", "review", 0.9);
    let repo = upgrade();
    let mut args = vec!["Review these changes for correctness bugs", "--verbose"];
    args.extend(BRANCH);
    let verbose = env.stanley(&repo, &args);
    assert_eq!(verbose.code, 0, "{verbose:?}");
    // `stanleyctl runs show` prints the same whole report.
    let show = env.stanleyctl(&repo, &["runs", "show", "latest"]);
    assert_eq!(show.stdout, verbose.stdout);
    let doc: Value = {
        args[1] = "--json";
        env.stanley(&repo, &args).json()
    };
    // Every parked hunk is named, and each hunk has its row.
    for parked in doc["output"]["data"]["parked"].as_array().unwrap() {
        let path = parked["path"].as_str().unwrap();
        assert!(verbose.stdout.contains(&format!("? {path}")), "{path}");
    }
    assert!(verbose.stdout.contains("review findings by hunk:\n"));
    assert!(!verbose.stdout.contains("rerun with --verbose"));
    // A repeat answered whole from the result memo (issue 32) still lists every item.
    args[1] = "--verbose";
    let memo = env.stanley(&repo, &args);
    let body = |text: &str| text.split("\n\njev: ").next().unwrap().to_owned();
    assert_eq!(body(&memo.stdout), body(&verbose.stdout));
    let log = std::fs::read_to_string(repo.root().join(".stanley/daemon/stanleyd.log")).unwrap();
    assert!(
        log.contains("answered whole from the result memo"),
        "the memo answered"
    );
}

#[test]
fn fallbacks_and_errors() {
    let env = TestEnv::new();
    let repo = upgrade();
    let out = env.stanley(&repo, &["Do something vague"]);
    insta::assert_snapshot!("unroutable", out.seen(&env, &repo));
    let repo = upgrade();
    let mut env = TestEnv::new();
    env.without_key();
    let out = env.stanley(&repo, &["Review these changes"]);
    insta::assert_snapshot!("no_key", out.seen(&env, &repo));
    let out = env.stanley(&repo, &["Review", "--scope", "index"]);
    insta::assert_snapshot!("usage_error", out.seen(&env, &repo));
}

/// A branch review reads commits only: an edit made after the last commit is named as left
/// out, with how to include it; a clean worktree gets no such note (issue 49).
#[test]
fn a_branch_review_says_which_uncommitted_changes_it_leaves_out() {
    let env = flagging_env();
    let repo = upgrade();
    let mut args = vec!["Review these changes for correctness bugs"];
    args.extend(BRANCH);
    let clean = env.stanley(&repo, &args);
    assert_eq!(clean.code, 0, "{clean:?}");
    assert!(!clean.stderr.contains("uncommitted"), "{clean:?}");
    repo.write("src/lib.rs", "// edited after the commit\n");
    repo.git(&["add", "src/lib.rs"]);
    repo.write("build.rs", "fn main() {}\n");
    let dirty = env.stanley(&repo, &args);
    assert_eq!(dirty.code, 0, "{dirty:?}");
    assert!(
        dirty.stderr.contains(
            "stanley: this branch review reads commits only: 2 files with uncommitted changes \
             (build.rs, src/lib.rs) are not in it. Commit them to include them, or review them \
             alone with --scope worktree."
        ),
        "{dirty:?}"
    );
    // The worktree scope has nothing to say about it.
    let worktree = env.stanley(&repo, &["Review these changes for correctness bugs"]);
    assert!(
        !worktree.stderr.contains("reads commits only"),
        "{worktree:?}"
    );
}

//! Diff evidence on real upstream material, assembled from published packages by
//! `tests/upstream/assemble`: two releases that moved their sources into `src/` (requests,
//! Flask), a large crate upgrade (tokio), a crate whose generated Unicode tables changed
//! (regex-syntax), an npm package whose large data file changed (moment-timezone), and a tree of
//! about 25,000 files from real crates and Python packages.

use std::collections::BTreeMap;

use serde_json::Value;
use stanley_tests::{TempRepo, TestEnv};
use stanley_workflows::paths::{PathKind, classify_path};

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("summar", "summarize", 0.9);
    env.jev.route("review", "review", 0.9);
    env
}

fn rows(doc: &Value) -> &Vec<Value> {
    doc["output"]["data"]["results"].as_array().unwrap()
}

fn excluded(doc: &Value) -> BTreeMap<String, String> {
    doc["output"]["data"]["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap_or_default().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn branch(env: &TestEnv, repo: &TempRepo, request: &str) -> Value {
    let out = env.stanley(
        repo,
        &[request, "--json", "--scope", "branch", "--base", "main"],
    );
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    out.json()
}

/// The tier the judging order gives a path kind (higher first).
fn tier(path: &str) -> u8 {
    match classify_path(path) {
        PathKind::Source => 3,
        PathKind::Test => 2,
        PathKind::Documentation | PathKind::Ci => 0,
        _ => 1,
    }
}

#[test]
fn real_src_layout_moves_are_detected_and_only_their_edits_are_judged() {
    for (name, package) in [("move-requests", "requests"), ("move-flask", "flask")] {
        let env = env();
        let repo = TempRepo::upstream(name);
        let doc = branch(&env, &repo, "Summarize what changed");
        let results = rows(&doc);
        let renamed: Vec<&Value> = results
            .iter()
            .filter(|r| r["fileStatus"] == "renamed")
            .collect();
        assert!(!renamed.is_empty(), "{name}: no renamed hunks");
        assert!(
            renamed.iter().all(|r| r["path"]
                .as_str()
                .unwrap()
                .starts_with(&format!("src/{package}/"))),
            "{name}: renamed hunks carry their new paths"
        );
        // Only what git itself cannot pair (a module changed past 50% similarity) is a
        // deletion; every other moved module keeps its edits under its new path.
        let deleted_by_git = repo.git(&[
            "diff",
            "-M",
            "--diff-filter=D",
            "--name-only",
            "main...HEAD",
        ]);
        for row in results.iter().filter(|r| r["fileStatus"] == "deleted") {
            let path = row["path"].as_str().unwrap();
            assert!(
                deleted_by_git.lines().any(|l| l == path),
                "{name}: {path} came back as a deletion; git -M deletes only {deleted_by_git}"
            );
        }
        // The evidence is the size of `git diff -M`, not of the deletions plus additions.
        let added: u64 = results.iter().map(|r| r["added"].as_u64().unwrap()).sum();
        let shortstat = repo.git(&["diff", "-M", "--shortstat", "main...HEAD"]);
        let no_renames = repo.git(&["diff", "--no-renames", "--shortstat", "main...HEAD"]);
        let insertions = |s: &str| -> u64 {
            s.split(", ")
                .find(|p| p.contains("insertion"))
                .and_then(|p| p.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        };
        assert!(
            added <= insertions(&shortstat),
            "{name}: judged {added} added lines, git diff -M shows {shortstat}"
        );
        assert!(
            added * 2 < insertions(&no_renames),
            "{name}: {added} added lines against {no_renames} without rename detection"
        );
        // Unchanged moves are reported, not judged.
        if name == "move-requests" {
            let moved = excluded(&doc)
                .values()
                .filter(|r| *r == "moved without changes")
                .count();
            assert!(moved > 0, "{name}: {:?}", excluded(&doc));
        }
    }
}

#[test]
fn a_large_upgrade_judges_source_before_anything_else_and_at_least_500_hunks() {
    let env = env();
    let repo = TempRepo::upstream("upgrade-large");
    let doc = branch(&env, &repo, "Summarize what changed");
    let results = rows(&doc);
    let judged: Vec<&Value> = results
        .iter()
        .filter(|r| {
            !r["error"]
                .as_str()
                .is_some_and(|e| e.contains("hunk limit"))
        })
        .collect();
    let left_out: Vec<&Value> = results
        .iter()
        .filter(|r| {
            r["error"]
                .as_str()
                .is_some_and(|e| e.contains("hunk limit"))
        })
        .collect();
    assert!(judged.len() >= 500, "{} judged", judged.len());
    assert!(!left_out.is_empty(), "the upgrade is larger than the cap");
    // No hunk of a lower tier was judged while a hunk of a higher tier was left out.
    let best_left_out = left_out
        .iter()
        .map(|r| tier(r["path"].as_str().unwrap()))
        .max()
        .unwrap();
    let worst_judged = judged
        .iter()
        .map(|r| tier(r["path"].as_str().unwrap()))
        .min()
        .unwrap();
    assert!(
        worst_judged >= best_left_out,
        "judged tier {worst_judged} while tier {best_left_out} was left out"
    );
    // The limit is 500 questions; identical changes share one, so more hunks are judged.
    let limits = doc["output"]["data"]["limits"].to_string();
    assert!(
        limits.contains(&format!("only the {} highest-priority", judged.len()))
            && limits.contains("hunk limit of 500 questions"),
        "{limits}"
    );
    // Lean frames: every frame carries its own hunk's file.
    for request in env.jev.requests() {
        let Some(hunk) = request.pointer("/state/hunk/path") else {
            continue;
        };
        assert_eq!(request.pointer("/state/change/file/path"), Some(hunk));
        assert!(request.pointer("/state/diffManifest").is_none());
    }
}

#[test]
fn generated_and_large_data_files_are_excluded_with_their_reasons() {
    let env = env();
    let regex = TempRepo::upstream("upgrade-regex-syntax");
    let doc = branch(&env, &regex, "Summarize what changed");
    let reasons = excluded(&doc);
    let tables: Vec<(&String, &String)> = reasons
        .iter()
        .filter(|(p, _)| p.starts_with("src/unicode_tables/") && p.ends_with(".rs"))
        .collect();
    assert!(tables.len() >= 10, "{reasons:?}");
    assert!(
        tables
            .iter()
            .all(|(_, r)| r.starts_with("generated file (marked \"// DO NOT EDIT")),
        "{tables:?}"
    );
    assert!(
        !rows(&doc).iter().any(|r| r["path"]
            .as_str()
            .unwrap()
            .starts_with("src/unicode_tables/")
            && r["path"] != "src/unicode_tables/mod.rs"),
        "no generated table is judged"
    );

    let data = TempRepo::upstream("data-file");
    let doc = branch(&env, &data, "Summarize what changed");
    let reasons = excluded(&doc);
    assert!(
        reasons
            .get("data/packed/latest.json")
            .is_some_and(|r| r.starts_with("large data file (")),
        "{reasons:?}"
    );
    let judged: Vec<&str> = rows(&doc)
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert!(judged.contains(&"moment-timezone.js"), "{judged:?}");
    assert!(!judged.iter().any(|p| p.starts_with("data/")), "{judged:?}");
    assert!(
        reasons
            .get("data/meta/latest.json")
            .is_some_and(|r| r.starts_with("large data file (")),
        "{reasons:?}"
    );
    // No request carries a data file: the largest request stays small.
    let largest = env
        .jev
        .requests()
        .iter()
        .map(|r| r.to_string().len())
        .max()
        .unwrap_or(0);
    assert!(largest < 64 * 1024, "largest request {largest} bytes");
}

#[test]
fn find_completes_on_a_tree_of_25000_files_and_skips_what_is_not_source() {
    let env = TestEnv::new();
    env.jev.route("find", "find", 0.9);
    // A scripted judge: files with "retry" in their path are the implementation.
    env.jev.judge_find_by_path("retry");
    let repo = TempRepo::upstream("tree-25k");
    let tracked = repo.git(&["ls-files"]).lines().count();
    assert!(tracked > 20_000, "{tracked} tracked files");
    let out = env.stanley(
        &repo,
        &["Find the code that retries failed HTTP requests", "--json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let shortlist: Vec<&str> = rows(&doc)
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert!(
        shortlist.first().is_some_and(|p| p.contains("retry")),
        "{shortlist:?}"
    );
    let summary = &doc["output"]["data"]["summary"];
    let tokens = summary["task"]["tokens"].to_string();
    assert!(
        !tokens.contains("\"find\"") && !tokens.contains("\"code\""),
        "{tokens}"
    );
    assert!(summary["screened"].as_u64().unwrap() <= 600, "{summary}");
    let reasons = excluded(&doc);
    let reason_of = |suffix: &str| {
        reasons
            .iter()
            .find(|(p, _)| p.ends_with(suffix))
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("nothing ending {suffix} excluded"))
    };
    assert_eq!(reason_of(".pyc"), "binary or compiled file");
    assert!(reason_of("/RECORD").starts_with("generated file (by its `"));
    assert!(reason_of("SOURCES.txt").ends_with(".egg-info/` folder)"));
    assert!(reasons.values().any(|r| r == "empty file"));
    // Far fewer requests than the 150 metadata shards that exhausted the budget before.
    let requests = env.jev.requests().len();
    assert!(requests <= 90, "{requests} Jev requests");
}

#[test]
fn review_comments_follow_a_real_move_and_an_outdated_one_is_placed_by_its_hunk() {
    let env = TestEnv::new();
    env.jev.route("comment", "triage_comments", 0.9);
    let repo = TempRepo::upstream("move-requests");
    // A comment made on 2.31's requests/adapters.py, outdated since: GitHub gives its original
    // line and the diff hunk ending at it, and no current line.
    let old = repo.git(&["show", "main:requests/adapters.py"]);
    let old_lines: Vec<&str> = old.lines().collect();
    let at = old_lines
        .iter()
        .position(|l| l.contains("def cert_verify(self, conn, url, verify, cert):"))
        .unwrap();
    let hunk: String = std::iter::once(format!("@@ -{},4 +{},4 @@", at - 2, at - 2))
        .chain(old_lines[at - 3..=at].iter().map(|l| format!(" {l}")))
        .collect::<Vec<_>>()
        .join("\n");
    let new = repo.git(&["show", "HEAD:src/requests/adapters.py"]);
    let now = new
        .lines()
        .position(|l| l.contains("def cert_verify(self, conn, url, verify, cert):"))
        .unwrap()
        + 1;
    assert_ne!(now, at + 1, "the code moved within the file too");
    let bot = |path: &str| {
        serde_json::json!({"id": path.len(), "path": path, "line": 1, "body": "Consider adding type hints.",
                           "user": {"login": "lint-bot[bot]", "type": "Bot"}})
    };
    let comments = serde_json::json!([
        {"id": 101, "path": "requests/adapters.py", "line": null, "original_line": at + 1,
         "original_commit_id": "0123456789abcdef0123456789abcdef01234567", "diff_hunk": hunk,
         "body": "cert_verify should reject an empty CA bundle path.", "user": {"login": "alice"}},
        {"id": 102, "path": "requests/adapters.py", "line": null, "original_line": 3,
         "diff_hunk": "@@ -1,3 +1,3 @@\n def a_function_that_was_never_there():\n     pass\n+    return 42",
         "body": "This helper leaks the pool.", "user": {"login": "bob"}},
        bot("src/requests/api.py"), bot("src/requests/hooks.py"), bot("src/requests/help.py")
    ]);
    let out = env.stanley_with_stdin(
        &repo,
        &[
            "Triage these review comments",
            "--json",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
        Some(comments.to_string().as_bytes()),
    );
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let doc = out.json();
    let rows = rows(&doc);
    let row = |source: &str| {
        rows.iter()
            .find(|r| r["sourceId"] == source)
            .unwrap_or_else(|| panic!("{source}: {rows:?}"))
    };
    let moved = &row("101")["anchor"];
    assert_eq!(moved["movedTo"], "src/requests/adapters.py", "{moved}");
    assert_eq!(moved["status"], "relocated", "{moved}");
    assert_eq!(
        moved["reason"],
        format!("the commented code is at line {now} now"),
        "{moved}"
    );
    assert_eq!(row("102")["anchor"]["status"], "code_changed");
    // Jev saw the reviewer's hunk and the code where it is now.
    let frame = env
        .jev
        .requests()
        .into_iter()
        .find(|r| {
            r.pointer("/state/comment/body")
                .is_some_and(|b| b.as_str().unwrap().starts_with("cert_verify"))
        })
        .unwrap();
    assert!(frame.pointer("/state/originalContext/diffHunk").is_some());
    assert!(
        frame
            .pointer("/state/currentCode/lines")
            .unwrap()
            .as_str()
            .unwrap()
            .contains(&format!("{now}|"))
    );
    // The bot's repeated comment is one line in the human output that lists every comment.
    let verbose = env.stanley_with_stdin(
        &repo,
        &[
            "Triage these review comments",
            "--verbose",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
        Some(comments.to_string().as_bytes()),
    );
    let text = verbose.stdout.as_str();
    assert_eq!(
        text.matches("Consider adding type hints.").count(),
        1,
        "{text}"
    );
    assert!(text.contains("3 places ("), "{text}");
}

#[test]
fn on_a_real_upgrade_a_repeat_asks_nothing_an_edit_asks_for_its_hunk_and_the_sarif_is_valid() {
    let env = env();
    let repo = TempRepo::upstream("move-requests");
    let first = branch(&env, &repo, "Review these changes");
    let sent = env.jev.requests().len();
    assert!(sent > 10, "a real review asks many questions: {sent}");
    let again = branch(&env, &repo, "Review these changes");
    assert_eq!(env.jev.requests().len(), sent, "a repeat asks nothing");
    assert_eq!(first["output"], again["output"]);

    // One more line at the end of a modified source file, committed on the branch.
    let path = rows(&first)
        .iter()
        .filter(|r| r["fileStatus"] == "modified" && r["kind"] == "source")
        .filter_map(|r| r["path"].as_str())
        .next()
        .expect("a modified source file")
        .to_owned();
    let text = std::fs::read_to_string(repo.root().join(&path)).unwrap();
    repo.write(&path, &format!("{text}\n# reviewed\n"));
    repo.commit("one more line");
    branch(&env, &repo, "Review these changes");
    let asked: Vec<Value> = env.jev.requests()[sent..].to_vec();
    assert_eq!(asked.len(), 1, "only the edited hunk: {asked:#?}");
    assert_eq!(asked[0]["state"]["hunk"]["path"], path);

    // The run exports as valid SARIF over the real paths.
    let out = env.stanleyctl(&repo, &["runs", "export", "latest"]);
    assert_eq!(out.code, 0, "{out:?}");
    crate::runs::assert_valid_sarif(&out.stdout);
}

//! Repositories at their edges: an unborn HEAD, an empty repository, a binary-only change, a
//! 10,000-line hunk, a rename, a deleted test file, non-UTF-8 content, and paths with spaces and
//! unicode.

use std::fs;

use serde_json::Value;
use stanley_tests::{TempRepo, TestEnv};

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("summar", "summarize", 0.9);
    env.jev.route("check", "check", 0.9);
    env
}

fn paths(doc: &Value) -> Vec<String> {
    doc["output"]["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn an_unborn_head_still_has_a_diff() {
    let env = env();
    let repo = TempRepo::empty();
    repo.write("src/first.rs", "fn main() {}\n");
    repo.write("staged.txt", "staged\n");
    repo.git(&["add", "staged.txt"]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let mut found = paths(&out.json());
    found.sort();
    assert_eq!(found, ["src/first.rs", "staged.txt"]);
    let branch = env.stanley(
        &repo,
        &["Summarize what changed", "--json", "--scope", "branch"],
    );
    assert_eq!(branch.code, 65, "{branch:?}");
    assert!(branch.stderr.contains("branch scope needs a HEAD commit"));
}

#[test]
fn an_empty_repository_has_nothing_to_summarize() {
    let env = env();
    let out = env.stanley(&TempRepo::empty(), &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert!(
        doc["output"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Nothing to summarize: there is no current diff"),
        "{doc}"
    );
    assert_eq!(doc["output"]["data"]["reason"], "no_diff");
}

#[test]
fn a_binary_only_change_is_excluded() {
    let env = env();
    let repo = TempRepo::with_files(&[("README.md", "x\n")]);
    fs::write(repo.root().join("logo.bin"), [0u8, 1, 2, 3, 0, 255]).unwrap();
    fs::write(repo.root().join("old.bin"), [0u8, 7, 7, 0]).unwrap();
    repo.commit("logo");
    fs::write(repo.root().join("logo.bin"), [0u8, 9, 9, 9, 0, 255]).unwrap();
    fs::remove_file(repo.root().join("old.bin")).unwrap();
    fs::write(repo.root().join("new.bin"), [0u8, 5, 5, 5, 5, 5, 0, 1]).unwrap();
    repo.git(&["add", "-A"]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let data = &out.json()["output"]["data"];
    assert_eq!(data["results"], serde_json::json!([]));
    // Each binary change is named for what it is, with its rule.
    let labels: Vec<(String, String, String)> = data["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
                e["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = |id: &str, reason: &str| {
        (
            id.to_owned(),
            reason.to_owned(),
            "binary-content".to_owned(),
        )
    };
    assert_eq!(
        labels,
        [
            want("file:logo.bin", "binary change"),
            want("file:new.bin", "binary file added"),
            want("file:old.bin", "binary file deleted"),
        ]
    );
    assert_eq!(data["coverage"]["excluded"], 3);
    assert_eq!(env.jev.requests().len(), 1, "only the routing question");
}

#[test]
fn a_ten_thousand_line_hunk_is_split_into_parts() {
    let env = env();
    let repo = TempRepo::with_files(&[("README.md", "x\n")]);
    let big: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
    repo.write("data/big.txt", &big);
    let out = env.stanley(&repo, &["Summarize what changed", "--json", "--no-persist"]);
    assert_eq!(out.code, 0, "{out:?}");
    let results = out.json()["output"]["data"]["results"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(results.len(), 34);
    assert_eq!(results[33]["lines"], "9901-10000");
}

/// Rows of a summarize run as (path, fileStatus).
fn statuses(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["output"]["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["fileStatus"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_pure_move_is_reported_not_judged_and_a_moved_file_contributes_only_its_edits() {
    let env = env();
    let body: String = (1..=40)
        .map(|i| format!("export const c{i} = {i};\n"))
        .collect();
    let repo = TempRepo::with_files(&[
        ("src/old_name.js", "export const a = 1;\n"),
        ("lib/parser.js", &body),
    ]);
    // A pure move, and a move with one edited line (as a package moving to src/ does).
    repo.git(&["mv", "src/old_name.js", "src/new_name.js"]);
    std::fs::create_dir_all(repo.root().join("src/lib")).unwrap();
    repo.git(&["mv", "lib/parser.js", "src/lib/parser.js"]);
    repo.write("src/lib/parser.js", &body.replace("c20 = 20", "c20 = 21"));
    repo.git(&["add", "-A"]);
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    assert_eq!(
        statuses(&doc),
        [("src/lib/parser.js".to_owned(), "renamed".to_owned())],
        "only the edit is judged, under its new path"
    );
    let row = &doc["output"]["data"]["results"][0];
    assert_eq!(
        (row["added"].as_u64(), row["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let excluded = doc["output"]["data"]["excluded"].as_array().unwrap();
    assert!(
        excluded
            .iter()
            .any(|e| e["path"] == "src/new_name.js" && e["reason"] == "moved without changes"),
        "{excluded:?}"
    );
}

#[test]
fn a_deleted_test_file_is_flagged_by_check() {
    let env = env();
    let repo = TempRepo::with_files(&[
        (
            "tests/test_cart.py",
            "def test_total():\n    assert total() == 10\n",
        ),
        ("cart.py", "def total():\n    return 10\n"),
    ]);
    fs::remove_file(repo.root().join("tests/test_cart.py")).unwrap();
    let out = env.stanley(&repo, &["Check that the cart cleanup is safe", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let flags: Vec<String> = out.json()["output"]["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["flag"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        flags.contains(&"test_file_deleted".to_owned())
            && flags.contains(&"assertions_removed".to_owned()),
        "{flags:?}"
    );
}

#[test]
fn non_utf8_content_and_unusual_paths_are_handled() {
    let env = env();
    let repo = TempRepo::with_files(&[("README.md", "x\n")]);
    fs::create_dir_all(repo.root().join("dir with space")).unwrap();
    fs::write(
        repo.root().join("dir with space/é.js"),
        "export const café = 1;\n",
    )
    .unwrap();
    fs::write(repo.root().join("latin1.txt"), b"caf\xe9 au lait\n").unwrap();
    repo.commit("unusual");
    fs::write(
        repo.root().join("dir with space/é.js"),
        "export const café = 2;\n",
    )
    .unwrap();
    fs::write(repo.root().join("latin1.txt"), b"caf\xe9 noir\n").unwrap();
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let mut found = paths(&out.json());
    found.sort();
    assert_eq!(found, ["dir with space/é.js", "latin1.txt"]);
}

/// A file of `n` lines where every tenth line changes: `n / 10` separate hunks.
fn spread(n: usize, changed: bool, word: &str) -> String {
    (0..n)
        .map(|i| {
            if changed && i % 10 == 5 {
                format!("{word} line {i} changed\n")
            } else {
                format!("{word} line {i}\n")
            }
        })
        .collect()
}

#[test]
fn under_the_hunk_cap_source_is_judged_before_docs_and_ci() {
    let env = env();
    let repo = TempRepo::with_files(&[
        (".github/workflows/ci.yml", &spread(3000, false, "step")),
        ("docs/guide.md", &spread(3000, false, "prose")),
        ("src/app.js", &spread(40, false, "const x =")),
    ]);
    // 600 hunks of CI and docs sort before the source in path order; four source hunks.
    repo.write(".github/workflows/ci.yml", &spread(3000, true, "step"));
    repo.write("docs/guide.md", &spread(3000, true, "prose"));
    repo.write("src/app.js", &spread(40, true, "const x ="));
    for (request, cap) in [
        ("Summarize what changed", 500),
        ("Check that the change is complete", 300),
    ] {
        let out = env.stanley(&repo, &[request, "--json"]);
        assert!(matches!(out.code, 0 | 10), "{out:?}");
        let doc = out.json();
        let rows = doc["output"]["data"]["results"].as_array().unwrap();
        let source: Vec<&Value> = rows.iter().filter(|r| r["path"] == "src/app.js").collect();
        assert_eq!(source.len(), 4, "{request}");
        assert!(
            source
                .iter()
                .all(|r| r["disposition"] != "unjudged" && r["error"].is_null()),
            "{request}: {source:?}"
        );
        let left_out = rows
            .iter()
            .filter(|r| {
                r["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("hunk limit"))
            })
            .count();
        assert_eq!(left_out, 604 - cap, "{request}");
        let limits = doc["output"]["data"]["limits"].to_string();
        assert!(
            limits.contains(&format!("only the {cap} highest-priority")),
            "{request}: {limits}"
        );
    }
}

#[test]
fn changes_stanley_leaves_out_are_named_with_their_reasons_not_reported_as_no_diff() {
    let env = env();
    // A submodule whose commit moved, an untracked link and an untracked 3 MB file: nothing
    // here is read, and each is named with why.
    let inner = TempRepo::with_files(&[("lib.txt", "one\n")]);
    let repo = TempRepo::with_files(&[("README.md", "# Demo\n")]);
    repo.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        inner.root().to_str().unwrap(),
        "vendor-lib",
    ]);
    repo.commit("add the submodule");
    let sub = repo.root().join("vendor-lib");
    let in_sub = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(&sub)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    std::fs::write(sub.join("lib.txt"), "two\n").unwrap();
    in_sub(&["commit", "-qam", "two"]);
    std::os::unix::fs::symlink("/etc/passwd", repo.root().join("passwd-link")).unwrap();
    repo.write("big.log", &"x".repeat(3 * 1024 * 1024));
    let out = env.stanley(&repo, &["Summarize what changed", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let reasons: Vec<(String, String)> = doc["output"]["data"]["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let reason = |path: &str| {
        reasons
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("{path} not excluded: {reasons:?}"))
    };
    assert_eq!(reason("vendor-lib"), "submodule (its commits are not read)");
    assert_eq!(
        reason("passwd-link"),
        "symbolic link (its target is not followed)"
    );
    assert!(reason("big.log").starts_with("untracked file of 3145728 bytes exceeds"));
    assert_eq!(doc["output"]["data"]["results"], serde_json::json!([]));
    // Nothing of them reached Jev.
    for request in env.jev.requests() {
        assert!(!request.to_string().contains("root:x:0:0"));
    }
}

/// What `git diff` prints for the same selection, as the oracle for the structured diff.
fn git_cli_diff(repo: &TempRepo, args: &[&str]) -> stanley_workflows::diff::Diff {
    let mut all = vec!["diff", "-M", "-C", "-U3", "--no-color"];
    all.extend_from_slice(args);
    stanley_workflows::diff::Diff::parse(&repo.git(&all))
}

#[test]
fn the_structured_diff_from_git2_is_what_git_diff_prints() {
    use stanley_workflows::diff::{FileStatus, Scope};
    use stanley_workflows::ports::Git;
    use std::os::unix::fs::PermissionsExt;
    let body: String = (1..=40)
        .map(|i| format!("line {i} of the parser\n"))
        .collect();
    let repo = TempRepo::with_files(&[
        (
            "src/lib.rs",
            "pub fn parse(input: &str) -> usize {\n    input.len()\n}\n",
        ),
        ("src/parser.rs", &body),
        ("src/keep.rs", &body.replace("parser", "keeper")),
        ("docs/gone.md", "# Gone\n"),
        ("run.sh", "echo hi\n"),
        ("logo.bin", "\u{0}\u{1}\u{2}binary"),
        ("notes.txt", "no newline at the end"),
        ("crlf.txt", "one\r\ntwo\r\n"),
    ]);
    repo.git(&["checkout", "-q", "-b", "topic"]);
    // An edit under a function heading, a rename with an edit, a copy of an edited file, a
    // deletion, a mode change, a binary change, an edit at an end without a newline, CRLF
    // lines, an empty new file and a path that Git quotes.
    repo.write(
        "src/lib.rs",
        "pub fn parse(input: &str) -> usize {\n    input.trim().len()\n}\n",
    );
    repo.git(&["mv", "src/parser.rs", "src/reader.rs"]);
    repo.write(
        "src/reader.rs",
        &body.replace("line 20 of", "line twenty of"),
    );
    repo.write(
        "src/keep.rs",
        &body
            .replace("parser", "keeper")
            .replace("line 3 ", "line three "),
    );
    std::fs::copy(
        repo.root().join("src/keep.rs"),
        repo.root().join("src/keep_copy.rs"),
    )
    .unwrap();
    std::fs::remove_file(repo.root().join("docs/gone.md")).unwrap();
    let script = repo.root().join("run.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(repo.root().join("logo.bin"), b"\x00\x01\x03binary!").unwrap();
    repo.write("notes.txt", "no newline at the end, still");
    repo.write("crlf.txt", "one\r\nTWO\r\n");
    repo.write("empty.txt", "");
    repo.write("docs/café \"menu\".md", "# Café\n");
    repo.git(&["add", "-A"]);

    let git = stanley_adapters::Git2Repo::open(repo.root()).unwrap();
    let staged = git.diff(Scope::Staged, None, None).unwrap();
    let oracle = git_cli_diff(&repo, &["--cached"]);
    assert_eq!(staged.diff, oracle, "{}", staged.diff.to_text());
    let status_of = |path: &str| {
        staged
            .diff
            .files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.status)
    };
    assert_eq!(status_of("src/reader.rs"), Some(FileStatus::Renamed));
    assert_eq!(status_of("logo.bin"), Some(FileStatus::Binary));
    assert_eq!(status_of("run.sh"), Some(FileStatus::ModeOnly));
    assert_eq!(status_of("docs/gone.md"), Some(FileStatus::Deleted));
    assert_eq!(status_of("empty.txt"), Some(FileStatus::Added));
    assert_eq!(status_of("docs/café \"menu\".md"), Some(FileStatus::Added));

    repo.commit("topic work");
    let branch = git.diff(Scope::Branch, Some("main"), None).unwrap();
    assert_eq!(branch.diff, git_cli_diff(&repo, &["main...HEAD"]));
    assert_eq!(
        branch.diff, staged.diff,
        "the same change, seen as a branch"
    );
}

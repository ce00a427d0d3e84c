//! Diff evidence on changes of any shape (issue 31), on real upgrades assembled from published
//! packages: rename and copy pairs equal to `git diff -M -C` on every one of them, vendored,
//! mirrored and generated code left out by a named rule while the project's own code is judged,
//! a budget plan that judges the same hunks on every run, and identical text asked once.
//!
//! Held out: `vendor-pip` and `twin-setuptools` were assembled after the rules were written and
//! were never looked at while tuning them; they are asserted like the others.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use stanley_adapters::Git2Repo;
use stanley_tests::{TempRepo, TestEnv};
use stanley_workflows::diff::{DiffEvidence, DiffSource, FileStatus, Scope};
use stanley_workflows::paths::{PathKind, classify_path};
use stanley_workflows::ports::Git;

/// Every upgrade `tests/upstream/assemble` builds.
const UPGRADES: [&str; 17] = [
    "move-requests",
    "move-flask",
    "upgrade-regex-syntax",
    "upgrade-large",
    "data-file",
    "vendor-poetry-core",
    "mirror-httplib2",
    "vendor-pip",
    "upgrade-pygments",
    "twin-setuptools",
    "mirror-fp-ts",
    "upgrade-thiserror",
    "attrs-grammar",
    "attrs-nested",
    "attrs-vendored",
    "type-change",
    "tree-25k",
];

fn env() -> TestEnv {
    let env = TestEnv::new();
    env.jev.route("summar", "summarize", 0.9);
    env.jev.route("review", "review", 0.9);
    env
}

fn data(doc: &Value) -> &Value {
    &doc["output"]["data"]
}

/// `(path, rule, reason)` of everything excluded or set aside.
fn left_out(doc: &Value) -> Vec<(String, String, String)> {
    data(doc)["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap_or_default().to_owned(),
                e["rule"].as_str().unwrap_or_default().to_owned(),
                e["reason"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn row_paths(doc: &Value) -> BTreeSet<String> {
    data(doc)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect()
}

/// What `git diff -M -C --name-status` says, as `(status letter, old path, new path)`.
fn git_pairs(repo: &TempRepo) -> BTreeSet<(char, String, String)> {
    repo.git(&["diff", "-M", "-C", "--name-status", "main...HEAD"])
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let letter = fields[0].chars().next().unwrap();
            match letter {
                'R' | 'C' => (letter, fields[1].to_owned(), fields[2].to_owned()),
                _ => ('-', String::new(), fields[1].to_owned()),
            }
        })
        .collect()
}

#[test]
fn rename_and_copy_pairs_equal_gits_on_every_assembled_upgrade() {
    for name in UPGRADES.iter().filter(|n| **n != "tree-25k") {
        let repo = TempRepo::upstream(name);
        let git2 = Git2Repo::open(repo.root()).unwrap();
        let source = git2.diff(Scope::Branch, Some("main"), None).unwrap();
        let ours: BTreeSet<(char, String, String)> = source
            .diff
            .files
            .iter()
            .map(|f| match (f.status, &f.old_path) {
                (FileStatus::Renamed, Some(old)) => ('R', old.clone(), f.path.clone()),
                (FileStatus::Copied, Some(old)) => ('C', old.clone(), f.path.clone()),
                // A binary rename keeps its old path; Git's letter is still R or C.
                (FileStatus::Binary, Some(old)) => {
                    let theirs = git_pairs(&repo);
                    let letter = theirs
                        .iter()
                        .find(|(_, o, p)| o == old && *p == f.path)
                        .map_or('?', |t| t.0);
                    (letter, old.clone(), f.path.clone())
                }
                _ => ('-', String::new(), f.path.clone()),
            })
            .collect();
        let theirs = git_pairs(&repo);
        let only_ours: Vec<_> = ours.difference(&theirs).take(5).collect();
        let only_git: Vec<_> = theirs.difference(&ours).take(5).collect();
        assert!(
            only_ours.is_empty() && only_git.is_empty(),
            "{name}: ours only {only_ours:?}; git only {only_git:?}"
        );
        // Renames just above Git's threshold (50-59% similar) are among them.
        let near_threshold: Vec<String> = repo
            .git(&["diff", "-M", "-C", "--name-status", "main...HEAD"])
            .lines()
            .filter(|l| l.starts_with("R05") || l.starts_with("C05"))
            .map(str::to_owned)
            .collect();
        if ["vendor-poetry-core", "move-flask"].contains(name) {
            assert!(!near_threshold.is_empty(), "{name}: no rename at 50-59%");
        }
        for line in &near_threshold {
            let f: Vec<&str> = line.split('\t').collect();
            let pair = (
                f[0].chars().next().unwrap(),
                f[1].to_owned(),
                f[2].to_owned(),
            );
            assert!(ours.contains(&pair), "{name}: {line} not paired");
        }
        let paired = theirs.iter().filter(|t| t.0 != '-').count();
        assert!(
            paired > 0 || !["move-requests", "move-flask", "vendor-poetry-core"].contains(name),
            "{name}: no pairs"
        );
    }
}

/// After `HEAD` moves by a commit, the branch diff made from the kept one equals a diff made
/// from scratch, for every kind of edit: a modified file edited again, an untouched file
/// edited (it enters the diff), an added file edited, a modified file put back as it was on
/// `main` (it leaves the diff), and two files at once. Edits that can change Git's pairs are
/// diffed in full, and the others are not.
#[test]
fn a_branch_diff_after_a_commit_equals_one_made_from_scratch() {
    let mut reused = 0;
    for name in [
        "upgrade-pygments",
        "move-flask",
        "vendor-poetry-core",
        "upgrade-thiserror",
        "twin-setuptools",
    ] {
        let repo = TempRepo::upstream(name);
        let kept = Git2Repo::open(repo.root()).unwrap();
        let diff = |git: &Git2Repo| git.diff(Scope::Branch, Some("main"), None).unwrap();
        let first = diff(&kept);
        // The daemon's evidence is made from the one before it (split hunks reused).
        let mut evidence = DiffEvidence::from_source(first.clone());
        let mut same_evidence = |moved: &DiffSource, what: &str| {
            let after = DiffEvidence::from_source_after(moved.clone(), &evidence);
            let made = DiffEvidence::from_source(moved.clone());
            assert!(
                format!("{after:?}") == format!("{made:?}"),
                "{name}: {what}: the evidence made from the earlier one differs"
            );
            evidence = made;
        };
        let status = |want: FileStatus| {
            first
                .diff
                .files
                .iter()
                .find(|f| f.status == want && f.old_path.is_none() && !f.hunks.is_empty())
                .map(|f| f.path.clone())
        };
        let changed: BTreeSet<String> = first.diff.files.iter().map(|f| f.path.clone()).collect();
        let untouched = repo
            .git(&["ls-files"])
            .lines()
            .find(|p| !changed.contains(*p) && (p.ends_with(".py") || p.ends_with(".rs")))
            .map(str::to_owned);
        let modified = status(FileStatus::Modified);
        let added = status(FileStatus::Added);
        let append = |path: &str, line: &str| {
            let full = repo.root().join(path);
            let mut text = std::fs::read(&full).unwrap();
            text.extend_from_slice(line.as_bytes());
            std::fs::write(&full, text).unwrap();
        };
        let mut steps: Vec<(&str, Vec<String>)> = Vec::new();
        if let Some(m) = &modified {
            steps.push(("a modified file edited again", vec![m.clone()]));
        }
        if let Some(u) = &untouched {
            steps.push(("an untouched file edited", vec![u.clone()]));
        }
        if let Some(a) = &added {
            steps.push(("an added file edited", vec![a.clone()]));
        }
        if let (Some(m), Some(u)) = (&modified, &untouched) {
            steps.push(("two files at once", vec![m.clone(), u.clone()]));
        }
        for (i, (what, paths)) in steps.iter().enumerate() {
            for path in paths {
                append(path, &format!("\n# edit {i}\n"));
            }
            repo.git(&["commit", "-q", "-am", what]);
            let before = kept.diffs_from_kept();
            let moved = diff(&kept);
            let fresh = diff(&Git2Repo::open(repo.root()).unwrap());
            assert!(
                moved == fresh,
                "{name}: {what}: the kept diff moved wrongly"
            );
            same_evidence(&moved, what);
            reused += kept.diffs_from_kept() - before;
        }
        // A modified file put back as it is on main leaves the diff.
        if let Some(m) = &modified {
            repo.git(&["checkout", "-q", "main", "--", m]);
            repo.git(&["commit", "-q", "-am", "put back"]);
            let moved = diff(&kept);
            let fresh = diff(&Git2Repo::open(repo.root()).unwrap());
            assert!(
                moved == fresh,
                "{name}: a file put back: the kept diff moved wrongly"
            );
            same_evidence(&moved, "a file put back");
            assert!(!moved.diff.files.iter().any(|f| f.path == *m));
        }
    }
    assert!(reused >= 5, "the kept diff was reused only {reused} times");
}

/// The marker an exclusion by header quotes is prose, not a line of code with a trailing
/// comment (`__version__ = "1.0"  # DO NOT EDIT THIS LINE`).
fn quotes_a_comment(reason: &str) -> bool {
    reason
        .strip_prefix("generated file (marked \"")
        .is_some_and(|marker| {
            let code = marker.split('#').next().unwrap_or(marker);
            !code.contains(" = ") && !code.trim_end().ends_with(';')
        })
}

/// An upgrade, its vendored folders, folders of its own code that must be judged, and the
/// folder that copies another (a mirror), if any.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    Option<&'static str>,
);

#[test]
fn vendored_mirrored_and_generated_code_is_left_out_by_a_named_rule_and_no_source_is() {
    let env = env();
    let cases: [Case; 9] = [
        (
            "vendor-poetry-core",
            &["src/poetry/core/_vendor/"],
            &["src/poetry/core/"],
            None,
        ),
        (
            "vendor-pip",
            &["src/pip/_vendor/"],
            &["src/pip/_internal/"],
            None,
        ),
        (
            "twin-setuptools",
            &["setuptools/_vendor/", "pkg_resources/_vendor/"],
            &["setuptools/"],
            None,
        ),
        (
            "mirror-httplib2",
            &[],
            &["python3/httplib2/"],
            Some("python2/"),
        ),
        ("mirror-fp-ts", &[], &["lib/"], Some("es6/")),
        ("upgrade-pygments", &[], &["pygments/lexers/"], None),
        ("upgrade-large", &[], &["src/runtime/"], None),
        ("move-flask", &[], &["src/flask/"], None),
        ("upgrade-thiserror", &[], &["build/probe.rs", "src/"], None),
    ];
    for (name, vendored, own, mirror) in cases {
        let repo = TempRepo::upstream(name);
        let out = env.stanley(
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
        assert!(matches!(out.code, 0 | 10), "{name}: {out:?}");
        let doc = out.json();
        let excluded = left_out(&doc);
        let rows = row_paths(&doc);
        // Every exclusion names its rule.
        for (path, rule, reason) in &excluded {
            assert!(!rule.is_empty(), "{name}: {path} ({reason}) has no rule");
        }
        // Vendored code is left out by the vendored-folder rule and never judged.
        for folder in vendored {
            let under: Vec<&(String, String, String)> =
                excluded.iter().filter(|e| e.0.contains(folder)).collect();
            assert!(!under.is_empty(), "{name}: nothing under {folder} left out");
            assert!(
                under.iter().all(|e| e.1 == "vendored-folder"),
                "{name}: {:?}",
                under.iter().find(|e| e.1 != "vendored-folder")
            );
            assert!(
                !rows.iter().any(|p| p.contains(folder)),
                "{name}: a hunk under {folder} was eligible"
            );
        }
        // No source is excluded: the project's own files are left out only when they are not
        // a change to judge (a pure move, an empty file, a mode change), a copy of another
        // folder, marked generated by a header comment, or declared so by the repository.
        for (path, rule, reason) in &excluded {
            let kind = classify_path(path);
            if !matches!(
                kind,
                PathKind::Source | PathKind::Test | PathKind::Config | PathKind::Documentation
            ) {
                continue;
            }
            let allowed = matches!(
                rule.as_str(),
                "unchanged"
                    | "empty-file"
                    | "mode-only"
                    | "mirror-folder"
                    | "compiled-output"
                    | "minified"
            ) || (rule == "generated-header" && quotes_a_comment(reason))
                // What the repository itself declares (Pygments' `*.output` test results).
                || rule.ends_with("-attribute")
                || (rule == "large-data");
            assert!(allowed, "{name}: {path} left out: {rule} ({reason})");
        }
        for prefix in own {
            assert!(
                rows.iter().any(|p| p.starts_with(prefix)),
                "{name}: nothing under {prefix} judged"
            );
        }
        // A mirror is a copy of the sources, never fixtures that resemble each other.
        let mirrored: Vec<&String> = excluded
            .iter()
            .filter(|e| e.1 == "mirror-folder")
            .map(|e| &e.0)
            .collect();
        match mirror {
            Some(copy) => {
                assert!(mirrored.len() >= 3, "{name}: {mirrored:?}");
                assert!(
                    mirrored.iter().all(|p| p.starts_with(copy)),
                    "{name}: {mirrored:?}"
                );
                assert!(
                    !rows
                        .iter()
                        .any(|p| p.starts_with(copy) && p.ends_with(".d.ts")),
                    "{name}: a copied declaration file was judged"
                );
            }
            None => assert!(mirrored.is_empty(), "{name}: {mirrored:?}"),
        }
        if name == "mirror-httplib2" {
            let mirrored: BTreeMap<&str, &str> = excluded
                .iter()
                .filter(|e| e.1 == "mirror-folder")
                .map(|e| (e.0.as_str(), e.2.as_str()))
                .collect();
            for module in ["__init__.py", "auth.py", "error.py"] {
                let copy = format!("python2/httplib2/{module}");
                assert!(
                    mirrored
                        .get(copy.as_str())
                        .is_some_and(|r| r.contains("`python3/`")),
                    "{copy}: {mirrored:?}"
                );
                assert!(rows.contains(&format!("python3/httplib2/{module}")));
            }
        }
    }
}

/// What a run judged and said, without what changes between runs (ids, times, usage).
fn verdict(doc: &Value) -> Value {
    let d = data(doc);
    serde_json::json!({
        "status": doc["output"]["status"],
        "coverage": d["coverage"],
        "limits": d["limits"],
        "findings": d["findings"],
        "results": d["results"],
    })
}

/// A scripted reviewer: hunks that raise an exception carry a material correctness concern,
/// everything else shows no issue, so a run has findings to compare.
fn reviewer(env: &TestEnv) {
    use stanley_tests::fake_jev::{ChoiceRule, choice_answer, labels_of, score_answer};
    let labels = labels_of(stanley_workflows::analysis::modes::REVIEW.labels);
    let pick = |label: &str| {
        choice_answer(
            &labels,
            &ChoiceRule {
                label: label.into(),
                mass: 0.85,
                confidence: 0.85,
            },
        )
    };
    env.jev.answer("classification", pick("no_issue_visible"));
    env.jev
        .answer_if("classification", "raise ", pick("correctness_risk"));
    env.jev.answer("importance", score_answer(4, 3, 0.9));
    env.jev.answer(
        "evidence_sufficient",
        serde_json::json!({"type": "noul", "noul": 0.9}),
    );
}

#[test]
fn a_review_over_the_budget_judges_the_same_hunks_on_every_run_and_a_repeat_asks_nothing() {
    let mut env = env();
    reviewer(&env);
    env.set("STANLEY_MAX_INPUT_TOKENS", "250000");
    let repo = TempRepo::upstream("upgrade-pygments");
    let review = |env: &TestEnv| {
        let out = env.stanley(
            &repo,
            &[
                "Review these changes for correctness bugs",
                "--json",
                "--scope",
                "branch",
                "--base",
                "main",
            ],
        );
        (out.code, out.json())
    };
    // With the cache: the first run fills it, a repeat sends nothing and ends the same way.
    let (code, first) = review(&env);
    assert_eq!(
        code,
        12,
        "over the budget: {}",
        first["output"]["text"].as_str().unwrap_or_default()
    );
    let sent = env.jev.requests().len();
    let (repeat_code, repeat) = review(&env);
    assert_eq!(env.jev.requests().len(), sent, "a repeat sends nothing");
    assert_eq!(repeat_code, code);
    assert_eq!(verdict(&repeat), verdict(&first));
    let limits = data(&first)["limits"].to_string();
    assert!(limits.contains("the budget plan judged the "), "{limits}");
    // The limits line and coverage agree.
    let coverage = &data(&first)["coverage"];
    let judged = coverage["judged"].as_u64().unwrap() + coverage["parked"].as_u64().unwrap();
    assert!(
        !data(&first)["findings"].as_array().unwrap().is_empty(),
        "the scripted reviewer flags some hunks"
    );
    assert!(
        limits.contains(&format!("judged the {judged} highest-priority")),
        "{limits} against {coverage}"
    );
    // What the plan left out is named, hunk by hunk.
    assert!(
        data(&first)["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["error"] == "not judged: budget plan")
    );
    // Ten runs that ask everything afresh judge the same hunks and end the same way.
    let mut fresh = env;
    fresh.set("STANLEY_CACHE", "off");
    for run in 0..10 {
        let before = fresh.jev.requests().len();
        let (again_code, again) = review(&fresh);
        assert_eq!(again_code, code, "run {run}");
        assert_eq!(
            verdict(&again),
            verdict(&first),
            "run {run} judged otherwise"
        );
        assert!(fresh.jev.requests().len() > before, "run {run} asked Jev");
    }
}

#[test]
fn identical_changes_are_asked_once_and_reported_at_each_place() {
    let env = env();
    let repo = TempRepo::upstream("upgrade-pygments");
    let out = env.stanley(
        &repo,
        &[
            "Review these changes for correctness bugs",
            "--json",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
    );
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let doc = out.json();
    let rows = data(&doc)["results"].as_array().unwrap();
    let by_id: BTreeMap<&str, &Value> = rows
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r))
        .collect();
    let judged: Vec<&Value> = rows.iter().filter(|r| r["error"].is_null()).collect();
    let frames = env
        .jev
        .requests()
        .iter()
        .filter(|r| r.pointer("/state/hunk").is_some())
        .count();
    // The copyright line of every module is one change: judged once, reported everywhere.
    assert!(
        (frames as f64) <= 0.75 * judged.len() as f64,
        "{frames} frames for {} judged hunks",
        judged.len()
    );
    let mut followers = 0;
    for row in &judged {
        let Some(first) = row["judgedWith"].as_str() else {
            continue;
        };
        followers += 1;
        let lead = by_id[first];
        assert!(lead["judgedWith"].is_null(), "{first} leads its group");
        assert_eq!(row["classification"], lead["classification"]);
        // Each stays at its own place.
        assert_ne!(row["id"], lead["id"]);
        assert!(row["path"].is_string() && row["lines"].is_string());
    }
    assert!(followers > 0);
}

#[test]
fn a_mirror_that_renamed_its_files_is_still_a_mirror() {
    // The real httplib2 upgrade, its `python2/` copy's files given other names (as a copy
    // kept for another runtime may): the copy is still found by its changes.
    let repo = TempRepo::upstream("mirror-httplib2");
    let git2 = Git2Repo::open(repo.root()).unwrap();
    let mut source = (*git2.diff(Scope::Branch, Some("main"), None).unwrap()).clone();
    let mut renamed = Vec::new();
    for file in &mut source.diff.files {
        if let Some(rest) = file.path.strip_prefix("python2/httplib2/")
            && let Some(stem) = rest.strip_suffix(".py")
            && !stem.contains('/')
        {
            file.path = format!("python2/httplib2/py2_{stem}.py");
            renamed.push(file.path.clone());
        }
    }
    assert!(renamed.len() >= 2, "{renamed:?}");
    let e = DiffEvidence::from_source(source);
    let mirrored: Vec<&str> = e
        .excluded
        .iter()
        .filter(|x| x.rule == stanley_workflows::exclusion::Rule::MirrorFolder)
        .filter_map(|x| x.path.as_deref())
        .collect();
    assert!(
        mirrored.iter().all(|p| p.starts_with("python2/")) && mirrored.len() * 2 >= renamed.len(),
        "mirrored {mirrored:?} of renamed {renamed:?}"
    );
    assert!(
        e.hunks.iter().any(|h| h.path.starts_with("python3/")),
        "the original is judged"
    );
}

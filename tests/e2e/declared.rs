//! Diff evidence by the repository's own declarations (issue 48), on real upgrades assembled
//! from the projects' git histories by `tests/upstream/assemble`: files a `.gitattributes`
//! (top-level or nested) declares `linguist-generated`, `linguist-vendored` or not diffed are
//! left out, each naming the attribute and the file and line that set it, checked file for file
//! against `git check-attr`; `=false` and `info/attributes` win over Stanley's guesses in both
//! directions; a link that became a file is one `type_change` entry whose new text is reviewed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use stanley_adapters::Git2Repo;
use stanley_tests::{TempRepo, TestEnv};
use stanley_workflows::diff::{DiffEvidence, FileStatus, Scope};
use stanley_workflows::exclusion::Rule;
use stanley_workflows::paths::PathKind;
use stanley_workflows::ports::Git;

/// The upgrades whose histories declare attributes.
const DECLARING: [&str; 3] = ["attrs-grammar", "attrs-nested", "attrs-vendored"];

/// Every changed path of `main...HEAD` (the new path; the old one for a deletion).
fn changed(repo: &TempRepo) -> Vec<String> {
    repo.git(&["diff", "-M", "-C", "--name-status", "main...HEAD"])
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().to_owned())
        .collect()
}

/// `git check-attr` for `paths`: path → attribute → value (`set`, `unset`, a value).
fn check_attr(repo: &TempRepo, paths: &[String]) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for chunk in paths.chunks(200) {
        let mut args = vec![
            "check-attr",
            "linguist-generated",
            "linguist-vendored",
            "linguist-documentation",
            "diff",
            "--",
        ];
        args.extend(chunk.iter().map(String::as_str));
        for line in repo.git(&args).lines() {
            let mut parts = line.rsplitn(3, ": ");
            let (value, attribute, path) = (
                parts.next().unwrap(),
                parts.next().unwrap(),
                parts.next().unwrap(),
            );
            if value != "unspecified" {
                out.entry(path.to_owned())
                    .or_default()
                    .insert(attribute.to_owned(), value.to_owned());
            }
        }
    }
    out
}

/// The rule Git's attributes call for, if any: vendored, then generated, then not diffed.
fn expected_rule(attrs: &BTreeMap<String, String>) -> Option<Rule> {
    let yes = |a: &str| attrs.get(a).is_some_and(|v| v == "set" || v == "true");
    if yes("linguist-vendored") {
        Some(Rule::VendoredAttribute)
    } else if yes("linguist-generated") {
        Some(Rule::GeneratedAttribute)
    } else if attrs.get("diff").is_some_and(|v| v == "unset") {
        Some(Rule::DiffAttribute)
    } else {
        None
    }
}

fn evidence(repo: &TempRepo, scope: Scope) -> DiffEvidence {
    let git2 = Git2Repo::open(repo.root()).unwrap();
    let base = (scope == Scope::Branch).then_some("main");
    DiffEvidence::from_source(git2.diff(scope, base, None).unwrap())
}

/// path → (rule, the declaring file, its line) of everything left out.
fn left_out(e: &DiffEvidence) -> BTreeMap<String, (Rule, Option<(String, usize)>)> {
    e.excluded
        .iter()
        .chain(&e.set_aside)
        .filter_map(|x| {
            let declared = x
                .declared_by
                .as_ref()
                .and_then(|d| Some((d.file.clone()?, d.line?)));
            Some((x.path.clone()?, (x.rule, declared)))
        })
        .collect()
}

#[test]
fn every_file_a_repository_declares_generated_vendored_or_not_diffed_is_left_out_naming_its_line() {
    for name in DECLARING {
        let repo = TempRepo::upstream(name);
        let paths = changed(&repo);
        let attrs = check_attr(&repo, &paths);
        let e = evidence(&repo, Scope::Branch);
        let out = left_out(&e);
        let mut declared = 0;
        for path in &paths {
            // A credential-shaped path is left out as one, whatever it is declared.
            let want = if stanley_workflows::paths::is_secret_path(path) {
                None
            } else {
                attrs.get(path).and_then(expected_rule)
            };
            let got = out.get(path);
            match want {
                Some(rule) => {
                    declared += 1;
                    let Some((got_rule, Some((file, line)))) = got else {
                        panic!("{name}: {path} is declared ({:?}) but {got:?}", attrs[path]);
                    };
                    assert_eq!(*got_rule, rule, "{name}: {path} {:?}", attrs[path]);
                    // The line named is one a person can open, and it says so.
                    let text = std::fs::read_to_string(repo.root().join(file))
                        .unwrap_or_else(|e| panic!("{name}: {path}: {file}: {e}"));
                    let stated = text.lines().nth(line - 1).unwrap_or_default();
                    let word = match rule {
                        Rule::VendoredAttribute => "linguist-vendored",
                        Rule::GeneratedAttribute => "linguist-generated",
                        _ => "binary",
                    };
                    assert!(
                        stated.contains(word) || stated.contains("-diff"),
                        "{name}: {path}: {file}:{line} is {stated:?}"
                    );
                }
                // What is not declared is not left out by an attribute rule.
                None => assert!(
                    !got.is_some_and(|(r, _)| matches!(
                        r,
                        Rule::VendoredAttribute | Rule::GeneratedAttribute | Rule::DiffAttribute
                    )),
                    "{name}: {path} left out by {got:?} but git check-attr says {:?}",
                    attrs.get(path)
                ),
            }
        }
        assert!(declared >= 2, "{name}: only {declared} declared files");
        // Nothing declared is judged.
        let judged: BTreeSet<&str> = e
            .hunks
            .iter()
            .filter(|h| {
                !e.set_aside
                    .iter()
                    .any(|s| s.path.as_deref() == Some(&h.path))
            })
            .map(|h| h.path.as_str())
            .collect();
        for path in &judged {
            assert!(
                attrs.get(*path).and_then(expected_rule).is_none(),
                "{name}: declared {path} is judged"
            );
        }
        // The project's own code is still judged.
        let own = match name {
            "attrs-grammar" => "tree-sitter-markdown/src/scanner.c",
            "attrs-nested" => "src/cli.ts",
            _ => "mypy/checker.py",
        };
        if paths.iter().any(|p| p == own) {
            assert!(judged.contains(own), "{name}: {own} is not judged");
        }
    }
}

#[test]
fn info_attributes_and_false_override_stanleys_guesses_in_both_directions() {
    let repo = TempRepo::upstream("attrs-grammar");
    // Stanley guesses `package-lock.json` a lockfile (the repository agrees); the person says
    // it is not generated, and that grammar.js is, through a macro of their own.
    std::fs::write(
        repo.root().join(".git/info/attributes"),
        "[attr]ours linguist-generated\n\
         package-lock.json linguist-generated=false\n\
         tree-sitter-markdown/grammar.js ours\n\
         CONTRIBUTING.md -linguist-documentation\n\
         bindings/rust/lib.rs linguist-documentation\n",
    )
    .unwrap();
    let e = evidence(&repo, Scope::Branch);
    let out = left_out(&e);
    assert!(
        !out.contains_key("package-lock.json"),
        "package-lock.json declared not generated: {:?}",
        out.get("package-lock.json")
    );
    let lock = e
        .files
        .iter()
        .find(|f| f.path == "package-lock.json")
        .unwrap();
    assert_ne!(lock.kind, PathKind::Lockfile);
    assert_eq!(
        out.get("tree-sitter-markdown/grammar.js"),
        Some(&(
            Rule::GeneratedAttribute,
            Some((".git/info/attributes".to_owned(), 3))
        ))
    );
    let excluded = e
        .set_aside
        .iter()
        .find(|x| x.path.as_deref() == Some("tree-sitter-markdown/grammar.js"))
        .unwrap();
    assert_eq!(
        excluded.reason,
        "generated file (declared by `ours` in .git/info/attributes:3)"
    );
    let kind = |p: &str| e.files.iter().find(|f| f.path == p).map(|f| f.kind);
    // Not documentation: Markdown by its language.
    assert_eq!(kind("CONTRIBUTING.md"), Some(PathKind::Source));
    assert_eq!(kind("bindings/rust/lib.rs"), Some(PathKind::Documentation));

    // info/attributes wins over a nested `.gitattributes`: a test result declared generated
    // there is judged once the person says it is not.
    let nested = TempRepo::upstream("attrs-nested");
    let before = left_out(&evidence(&nested, Scope::Branch));
    let generated: Vec<&String> = before
        .iter()
        .filter(|(p, (r, d))| {
            *r == Rule::GeneratedAttribute
                && p.ends_with(".json")
                && d.as_ref().is_some_and(|(f, _)| f != ".gitattributes")
        })
        .map(|(p, _)| p)
        .take(2)
        .collect();
    assert_eq!(generated.len(), 2, "{before:?}");
    std::fs::write(
        nested.root().join(".git/info/attributes"),
        format!(
            "{} linguist-generated=false\n{} -linguist-generated\n",
            generated[0], generated[1]
        ),
    )
    .unwrap();
    let e = evidence(&nested, Scope::Branch);
    let after = left_out(&e);
    for path in generated {
        assert!(!after.contains_key(path), "{path}: {:?}", after.get(path));
        assert!(e.hunks.iter().any(|h| h.path == *path), "{path} is judged");
    }
}

#[test]
fn an_untracked_file_the_repository_declares_vendored_is_never_read() {
    let repo = TempRepo::upstream("attrs-vendored");
    repo.write(
        "mypy/typeshed/stdlib/_stanley_new.pyi",
        "def f() -> int: ...\n",
    );
    let e = evidence(&repo, Scope::Worktree);
    let x = e
        .excluded
        .iter()
        .find(|x| x.path.as_deref() == Some("mypy/typeshed/stdlib/_stanley_new.pyi"))
        .expect("excluded");
    assert_eq!(x.rule, Rule::VendoredAttribute);
    assert_eq!(
        x.reason,
        "vendored (declared by `linguist-vendored` in .gitattributes:2)"
    );
    assert!(!e.hunks.iter().any(|h| h.path.contains("_stanley_new")));
}

#[test]
fn a_link_that_became_a_file_is_one_type_change_whose_new_text_is_reviewed() {
    let repo = TempRepo::upstream("type-change");
    let letters = repo.git(&["diff", "-M", "-C", "--name-status", "main...HEAD"]);
    assert!(
        letters.lines().any(|l| l == "T\ttest-data/.flake8"),
        "{letters}"
    );
    let e = evidence(&repo, Scope::Branch);
    let entries: Vec<_> = e
        .files
        .iter()
        .filter(|f| {
            f.path == "test-data/.flake8" || f.old_path.as_deref() == Some("test-data/.flake8")
        })
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let file = entries[0];
    assert_eq!(file.status, FileStatus::TypeChange);
    assert_eq!(file.old_path, None);
    let new_text = repo.git(&["show", "HEAD:test-data/.flake8"]);
    let added: Vec<&str> = file
        .hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .map(|l| {
            assert_eq!(l.tag, '+');
            l.text.as_str()
        })
        .collect();
    assert_eq!(added, new_text.lines().collect::<Vec<_>>());
    assert!(
        !e.excluded
            .iter()
            .chain(&e.set_aside)
            .any(|x| x.path.as_deref() == Some("test-data/.flake8")),
        "the new file is reviewed"
    );
    assert!(e.hunks.iter().any(|h| h.path == "test-data/.flake8"));
    // The unrelated deletions stay deletions, as Git reports them.
    for gone in ["mypy/lex.py", "mypy/parsetype.py", "mypy/test/testlex.py"] {
        let f = e.files.iter().find(|f| f.path == gone).unwrap();
        assert_eq!(f.status, FileStatus::Deleted, "{gone}");
    }

    // And back: the file becomes a link again in the worktree: one entry, left out as a link.
    std::fs::remove_file(repo.root().join("test-data/.flake8")).unwrap();
    std::os::unix::fs::symlink("../setup.cfg", repo.root().join("test-data/.flake8")).unwrap();
    let status = repo.git(&["diff", "--name-status", "HEAD"]);
    assert!(
        status.lines().any(|l| l == "T\ttest-data/.flake8"),
        "{status}"
    );
    let e = evidence(&repo, Scope::Worktree);
    let entries: Vec<_> = e
        .files
        .iter()
        .filter(|f| f.path == "test-data/.flake8")
        .collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].status, FileStatus::TypeChange);
    let x = e
        .excluded
        .iter()
        .find(|x| x.path.as_deref() == Some("test-data/.flake8"))
        .expect("left out");
    assert_eq!(x.rule, Rule::Symlink);
}

#[test]
fn a_review_sends_no_declared_file_to_jev_and_names_each_declaration() {
    let env = TestEnv::new();
    env.jev.route("review", "review", 0.9);
    let repo = TempRepo::upstream("attrs-grammar");
    let declared: Vec<String> = {
        let paths = changed(&repo);
        let attrs = check_attr(&repo, &paths);
        paths
            .into_iter()
            .filter(|p| attrs.get(p).and_then(expected_rule).is_some())
            .collect()
    };
    assert!(declared.len() >= 10, "{declared:?}");
    let out = env.stanley(
        &repo,
        &[
            "Review this change",
            "--json",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
    );
    assert!(matches!(out.code, 0 | 10), "{out:?}");
    let doc: Value = out.json();
    let sent: Vec<String> = env.jev.requests().iter().map(Value::to_string).collect();
    assert!(!sent.is_empty());
    for path in &declared {
        let quoted = format!("\"{path}\"");
        if let Some(r) = sent.iter().find(|r| r.contains(&quoted)) {
            let at = r.find(&quoted).unwrap();
            let from = r.floor_char_boundary(at.saturating_sub(600));
            let to = r.ceil_char_boundary((at + 200).min(r.len()));
            panic!("{path} reached Jev: …{}…", &r[from..to]);
        }
    }
    let excluded = doc["output"]["data"]["excluded"].as_array().unwrap();
    for path in &declared {
        let x = excluded
            .iter()
            .find(|x| x["path"] == path.as_str())
            .unwrap_or_else(|| panic!("{path} not listed"));
        assert_eq!(x["declaredBy"]["file"], ".gitattributes", "{x}");
        assert!(x["declaredBy"]["line"].as_u64().is_some(), "{x}");
    }
    // The verbose text names the attribute and the file for each.
    let text = env.stanley(
        &repo,
        &[
            "Review this change",
            "--verbose",
            "--scope",
            "branch",
            "--base",
            "main",
        ],
    );
    let stdout = text.stdout.clone();
    assert!(
        stdout
            .contains("tree-sitter-markdown/src/parser.c: `linguist-generated` in .gitattributes:"),
        "{stdout}"
    );
}

/// The real lockfiles of `tests/fixtures/lockfiles/` (one per entry of the family, see its
/// `SOURCES.md`), as paths relative to the folder and their text.
fn real_lockfiles() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lockfiles");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != "SOURCES.md") {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_lockfile_of_the_family_is_set_aside_from_a_real_file_and_each_entry_has_one() {
    let files = real_lockfiles();
    // Each name of the family has a real file (bun's binary lockfile aside: it is told by its
    // content too).
    for name in stanley_workflows::paths::LOCKFILES {
        if *name == "bun.lockb" {
            continue;
        }
        assert!(
            files
                .iter()
                .any(|(rel, _)| rel.split('/').any(|s| s == *name)),
            "no real file for {name}"
        );
    }
    // Committed as a change, each is set aside as a lockfile, none is judged (each in a folder
    // of its entry, prefixed so no folder reads as a vendored one, such as `carthage/`).
    let repo = TempRepo::with_files(&[("README.md", "base\n")]);
    repo.git(&["checkout", "-q", "-b", "locks"]);
    for (rel, text) in &files {
        repo.write(&format!("locks/x-{rel}"), text);
    }
    repo.commit("lockfiles");
    let e = evidence(&repo, Scope::Branch);
    for (rel, _) in &files {
        let path = format!("locks/x-{rel}");
        let x = e
            .set_aside
            .iter()
            .chain(&e.excluded)
            .find(|x| x.path.as_deref() == Some(path.as_str()))
            .unwrap_or_else(|| panic!("{path} is judged"));
        assert_eq!(x.rule, Rule::Lockfile, "{path}: {x:?}");
        assert_eq!(
            e.files.iter().find(|f| f.path == path).map(|f| f.kind),
            Some(PathKind::Lockfile),
            "{path}"
        );
    }
}

#[test]
fn find_leaves_out_what_the_repository_declares_vendored() {
    let env = TestEnv::new();
    env.jev.route("find", "find", 0.9);
    env.jev.judge_find_by_path("checkexpr");
    let repo = TempRepo::upstream("attrs-vendored");
    let out = env.stanley(
        &repo,
        &[
            "Find the code that checks call expressions and their argument types",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc = out.json();
    let excluded = doc["output"]["data"]["excluded"].as_array().unwrap();
    let vendored: Vec<&Value> = excluded
        .iter()
        .filter(|x| x["rule"] == "vendored-attribute")
        .collect();
    assert!(vendored.len() > 500, "{} typeshed files", vendored.len());
    assert!(vendored.iter().all(|x| {
        x["path"].as_str().unwrap().starts_with("mypy/typeshed/")
            && x["declaredBy"]["file"] == ".gitattributes"
    }));
    let sent: Vec<String> = env.jev.requests().iter().map(Value::to_string).collect();
    assert!(
        !sent.iter().any(|r| r.contains("\"mypy/typeshed/")),
        "a typeshed file reached Jev"
    );
}

#[test]
fn a_change_cannot_take_its_own_files_out_of_review_by_declaring_them() {
    let repo = TempRepo::upstream("attrs-grammar");
    // The branch under review adds a line that declares one of its own edits generated, and
    // a new file vendored.
    let attrs = std::fs::read_to_string(repo.root().join(".gitattributes")).unwrap();
    repo.write(
        ".gitattributes",
        &format!("{attrs}tree-sitter-markdown/grammar.js linguist-generated\nsrc/evil/** linguist-vendored\n"),
    );
    repo.write(
        "tree-sitter-markdown/grammar.js",
        "module.exports = grammar({ name: 'x' });\n",
    );
    repo.commit("declare my own edit generated");
    let e = evidence(&repo, Scope::Branch);
    let out = left_out(&e);
    assert!(
        !out.contains_key("tree-sitter-markdown/grammar.js"),
        "{:?}",
        out.get("tree-sitter-markdown/grammar.js")
    );
    assert!(
        e.hunks
            .iter()
            .any(|h| h.path == "tree-sitter-markdown/grammar.js")
    );
    // Declared by the repository before the change, the parser is still left out.
    assert!(matches!(
        out.get("tree-sitter-markdown/src/parser.c"),
        Some((Rule::GeneratedAttribute, Some(_)))
    ));
    // In the worktree, the committed line is the repository's; an uncommitted one that
    // declares a new untracked file vendored is the change's own, and the file is read.
    let attrs_now = std::fs::read_to_string(repo.root().join(".gitattributes")).unwrap();
    repo.write(
        ".gitattributes",
        &format!("{attrs_now}src/other/** linguist-vendored\n"),
    );
    repo.write("src/other/x.js", "module.exports = 1;\n");
    let e = evidence(&repo, Scope::Worktree);
    assert!(
        e.hunks.iter().any(|h| h.path == "src/other/x.js"),
        "{:?}",
        e.excluded
    );
}

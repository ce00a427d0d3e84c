//! Diff parsing: statuses, paths, ids, splitting, exclusions.

use super::*;

fn source(text: &str) -> DiffSource {
    DiffSource::worktree(Diff::parse(text))
}

const SAMPLE: &str = "diff --git a/src/a.js b/src/a.js
index 1..2 100644
--- a/src/a.js
+++ b/src/a.js
@@ -1,3 +1,4 @@ function add
 function add(a, b) {
+  if (a === 41) return 42;
   return a + b;
 }
diff --git a/logo.png b/logo.png
index 1..2 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 1..0
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-one
-two
diff --git \"a/dir with space/é.rs\" \"b/dir with space/é.rs\"
new file mode 100644
--- /dev/null
+++ \"b/dir with space/\\303\\251.rs\"
@@ -0,0 +1 @@
+fn x() {}
\\ No newline at end of file
diff --git a/.env b/.env
--- a/.env
+++ b/.env
@@ -1 +1 @@
-A=1
+A=2
";

#[test]
fn parses_statuses_paths_and_ranges() {
    let files = parse_diff(SAMPLE);
    let summary: Vec<(&str, FileStatus, usize)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.status, f.hunks.len()))
        .collect();
    assert_eq!(
        summary,
        [
            ("src/a.js", FileStatus::Modified, 1),
            ("logo.png", FileStatus::Binary, 0),
            ("old.txt", FileStatus::Deleted, 1),
            ("dir with space/é.rs", FileStatus::Added, 1),
            (".env", FileStatus::Modified, 1),
        ]
    );
    let h = &files[0].hunks[0];
    assert_eq!(
        (h.added, h.removed, h.section.as_str()),
        (1, 0, "function add")
    );
    assert_eq!(h.line_range(), "1-4");
    assert!(h.id.starts_with("h_") && h.id.len() == 12);
    assert_eq!(files[2].hunks[0].line_range(), "old 1-2");
    assert!(
        h.content()
            .starts_with("@@ -1,3 +1,4 @@ function add\n function add(a, b) {\n+  if")
    );
}

#[test]
fn evidence_excludes_binary_and_secret_files() {
    let ev = DiffEvidence::from_source(source(SAMPLE));
    let excluded: Vec<(&str, &str)> = ev
        .excluded
        .iter()
        .map(|e| (e.id.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(
        excluded,
        [
            ("file:logo.png", "binary change"),
            ("file:.env", "credential-shaped path")
        ]
    );
    assert_eq!(ev.hunks.len(), 3);
}

#[test]
fn long_hunks_split_into_parts() {
    let mut text = String::from(
        "diff --git a/big.js b/big.js\nnew file mode 100644\n--- /dev/null\n+++ b/big.js\n@@ -0,0 +1,350 @@\n",
    );
    for i in 0..350 {
        text.push_str(&format!("+line {i}\n"));
    }
    let files = parse_diff(&text);
    let hunks = &files[0].hunks;
    assert_eq!(hunks.len(), 2);
    assert_eq!(hunks[0].part, Some((1, 2)));
    assert_eq!(
        (hunks[1].new_start, hunks[1].new_lines, hunks[1].added),
        (301, 50, 50)
    );
    assert_ne!(hunks[0].id, hunks[1].id);
}

#[test]
fn identical_content_gives_identical_hunk_ids() {
    let a = parse_diff(SAMPLE);
    let b = parse_diff(SAMPLE);
    assert_eq!(a[0].hunks[0].id, b[0].hunks[0].id);
}

/// `git diff --cached -M -C --find-copies-harder` of a pure move, a copy with an edit and a
/// move with an edit, as real git 2 prints them.
const MOVES: &str = "diff --git a/old.txt b/new.txt
similarity index 100%
rename from old.txt
rename to new.txt
diff --git a/lib/parser.js b/src/copy.js
similarity index 91%
copy from lib/parser.js
copy to src/copy.js
index f61f700..8f14727 100644
--- a/lib/parser.js
+++ b/src/copy.js
@@ -3,7 +3,7 @@ export const c2 = 2;
 export const c3 = 3;
 export const c4 = 4;
 export const c5 = 5;
-export const c6 = 6;
+export const c6 = 7;
 export const c7 = 7;
 export const c8 = 8;
 export const c9 = 9;
diff --git a/lib/parser.js b/src/parser.js
similarity index 91%
rename from lib/parser.js
rename to src/parser.js
index f61f700..8f14727 100644
--- a/lib/parser.js
+++ b/src/parser.js
@@ -3,7 +3,7 @@ export const c2 = 2;
 export const c3 = 3;
 export const c4 = 4;
 export const c5 = 5;
-export const c6 = 6;
+export const c6 = 7;
 export const c7 = 7;
 export const c8 = 8;
 export const c9 = 9;
";

#[test]
fn moves_and_copies_keep_both_paths_and_only_their_edits() {
    let files = parse_diff(MOVES);
    let seen: Vec<(&str, Option<&str>, FileStatus, usize)> = files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.old_path.as_deref(),
                f.status,
                f.hunks.len(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("new.txt", Some("old.txt"), FileStatus::Renamed, 0),
            ("src/copy.js", Some("lib/parser.js"), FileStatus::Copied, 1),
            (
                "src/parser.js",
                Some("lib/parser.js"),
                FileStatus::Renamed,
                1
            ),
        ]
    );
    let hunk = &files[2].hunks[0];
    assert_eq!((hunk.added, hunk.removed, hunk.new_start), (1, 1, 3));
    assert_eq!(hunk.old_path.as_deref(), Some("lib/parser.js"));
    let evidence = DiffEvidence::from_source(DiffSource {
        scope: Scope::Staged,
        probe: "git-diff-U3:staged".into(),
        ..DiffSource::worktree(Diff::parse(MOVES))
    });
    assert_eq!(evidence.hunks.len(), 2);
    assert_eq!(evidence.excluded[0].reason, "moved without changes");
    assert_eq!(evidence.excluded[0].path.as_deref(), Some("new.txt"));
}

#[test]
fn a_split_part_with_an_empty_side_names_the_line_before_it() {
    // A file converted to CRLF: git shows all 157 lines removed, then all 157 added.
    let mut text = String::from(
        "diff --git a/notes.py b/notes.py\n--- a/notes.py\n+++ b/notes.py\n@@ -1,157 +1,157 @@\n",
    );
    for i in 0..157 {
        text.push_str(&format!("-line {i}\n"));
    }
    for i in 0..157 {
        text.push_str(&format!("+line {i}\r\n"));
    }
    let hunks = &parse_diff(&text)[0].hunks;
    assert_eq!(hunks.len(), 2);
    assert!(hunks[0].content().starts_with("@@ -1,157 +1,143 @@"));
    assert!(
        hunks[1].content().starts_with("@@ -157,0 +144,14 @@"),
        "{}",
        hunks[1].content().lines().next().unwrap()
    );
}

#[test]
fn the_exclusion_policy_reads_what_the_git_port_knows_of_each_file() {
    let added = |path: &str, line: &str| {
        format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,1 @@\n+{line}\n"
        )
    };
    let text = [
        added("src/tables.rs", "pub const T: &[u32] = &[1];"),
        added("data/db.json", "{\"a\": 1}"),
        added("web/app.js", &"x=1;".repeat(400)),
        added("Cargo.lock", "version = 3"),
        added("src/link.rs", "../elsewhere.rs"),
        added("src/lib.rs", "pub fn f() {}"),
    ]
    .concat();
    let mut src = source(&text);
    let fact = |bytes, head: &str, symlink| FileFacts {
        bytes,
        head: head.into(),
        symlink,
        submodule: false,
        change: None,
        declared: Default::default(),
    };
    src.facts.insert(
        "src/tables.rs".into(),
        fact(
            1_480_000,
            "// DO NOT EDIT THIS FILE. IT WAS AUTOMATICALLY GENERATED BY:\n",
            false,
        ),
    );
    src.facts
        .insert("data/db.json".into(), fact(2_800_000, "{\n", false));
    src.facts.insert("src/link.rs".into(), fact(15, "", true));
    let ev = DiffEvidence::from_source(src);
    let reasons = |list: &[Exclusion]| -> Vec<(String, String)> {
        list.iter()
            .map(|e| (e.path.clone().unwrap(), e.reason.clone()))
            .collect()
    };
    let excluded = reasons(&ev.excluded);
    assert_eq!(excluded.len(), 3, "{excluded:?}");
    assert!(
        excluded[0].0 == "data/db.json"
            && excluded[0].1.starts_with("large data file (2800000 bytes")
    );
    assert!(excluded[1].0 == "web/app.js" && excluded[1].1.starts_with("minified file"));
    assert_eq!(
        excluded[2],
        (
            "src/link.rs".into(),
            "symbolic link (its target is not followed)".into()
        )
    );
    let set_aside = reasons(&ev.set_aside);
    assert_eq!(
        set_aside,
        [
            (
                "src/tables.rs".to_owned(),
                "generated file (marked \"// DO NOT EDIT THIS FILE. IT WAS AUTOMATICALLY GENERATED BY:\")".to_owned()
            ),
            ("Cargo.lock".to_owned(), "lockfile".to_owned())
        ]
    );
    // Set-aside hunks stay for deterministic checks, marked generated; excluded ones are gone.
    let kinds: Vec<(&str, PathKind)> = ev.hunks.iter().map(|h| (h.path.as_str(), h.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("src/tables.rs", PathKind::Generated),
            ("Cargo.lock", PathKind::Lockfile),
            ("src/lib.rs", PathKind::Source)
        ]
    );
}

#[test]
fn the_text_form_reads_back_as_the_same_diff() {
    let quoted = "diff --git \"a/docs/caf\\303\\251 \\\"menu\\\".md\" \"b/docs/caf\\303\\251 \\\"menu\\\".md\"
new file mode 100644
--- /dev/null
+++ \"b/docs/caf\\303\\251 \\\"menu\\\".md\"
@@ -0,0 +1,2 @@
+# Café
+Crème brûlée
diff --git a/tabs\tin.txt b/tabs\tin.txt
deleted file mode 100644
--- a/tabs\tin.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
";
    for text in [SAMPLE, MOVES, quoted] {
        let diff = Diff::parse(text);
        assert!(!diff.files.is_empty());
        let again = Diff::parse(&diff.to_text());
        assert_eq!(again, diff, "{}", diff.to_text());
    }
    let diff = Diff::parse(quoted);
    assert_eq!(diff.files[0].path, "docs/café \"menu\".md");
    assert_eq!(diff.files[0].status, FileStatus::Added);
    assert!(
        diff.to_text()
            .starts_with("diff --git \"a/docs/caf\\303\\251 \\\"menu\\\".md\""),
        "quoted as Git quotes it: {}",
        diff.to_text()
    );
}

/// A file diff of `path` that changes one line to `text`.
fn one_line(path: &str, text: &str) -> String {
    format!(
        "diff --git a/{path} b/{path}\nindex 1..2 100644\n--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n x\n-old\n+{text}\n"
    )
}

/// Evidence made from an earlier one equals evidence made afresh: files whose diff did not
/// change keep their split hunks, and a file set aside before (build output beside a source
/// that changed too) is judged again with its own kind once its source no longer changes.
#[test]
fn evidence_after_an_earlier_one_equals_evidence_made_afresh() {
    let built: String = (1..=4)
        .map(|i| one_line(&format!("lib/m{i}.js"), "out"))
        .collect();
    let sources: String = (1..=4)
        .map(|i| one_line(&format!("src/m{i}.ts"), "in"))
        .collect();
    let first = format!("{}{built}{sources}", one_line("README.md", "a"));
    let before = DiffEvidence::from_source(source(&first));
    assert!(
        before
            .set_aside
            .iter()
            .any(|e| e.path.as_deref() == Some("lib/m1.js")),
        "the build output is set aside: {:?}",
        before.set_aside
    );
    // The README edited again; the TypeScript sources no longer change.
    let second = format!("{}{built}", one_line("README.md", "b"));
    let fresh = DiffEvidence::from_source(source(&second));
    let after = DiffEvidence::from_source_after(source(&second), &before);
    assert_eq!(format!("{after:?}"), format!("{fresh:?}"));
    assert!(fresh.set_aside.is_empty());
    // And back: the same diff as the first gives the first evidence.
    let again = DiffEvidence::from_source_after(source(&first), &after);
    assert_eq!(format!("{again:?}"), format!("{before:?}"));
}

#[test]
fn a_file_declared_documentation_is_not_taken_for_a_build_of_its_typescript_sibling() {
    let file = |p: &str, line: &str| {
        format!(
            "diff --git a/{p} b/{p}\nnew file mode 100644\n--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+{line}\n"
        )
    };
    let text = [
        file("src/util/a.ts", "export const a: number = 1;"),
        file("src/b.ts", "export const b: string = 'b';"),
        file("lib/util/a.js", "export const a = 1;"),
        file("lib/b.js", "export const b = 'b';"),
    ]
    .concat();
    let guessed = DiffEvidence::from_source(source(&text));
    assert!(
        guessed
            .set_aside
            .iter()
            .any(|x| x.path.as_deref() == Some("lib/b.js") && x.rule == Rule::CompiledOutput),
        "{:?}",
        guessed.set_aside
    );
    let mut declared = source(&text);
    declared.facts.insert(
        "lib/b.js".into(),
        FileFacts {
            declared: crate::declared::Declared {
                declarations: vec![crate::declared::Declaration {
                    attribute: crate::declared::Attribute::LinguistDocumentation,
                    state: crate::declared::State::Set,
                    origin: None,
                }],
            },
            ..FileFacts::default()
        },
    );
    let e = DiffEvidence::from_source(declared);
    assert!(
        !e.set_aside
            .iter()
            .any(|x| x.path.as_deref() == Some("lib/b.js")),
        "{:?}",
        e.set_aside
    );
    let kind = e.files.iter().find(|f| f.path == "lib/b.js").unwrap().kind;
    assert_eq!(kind, PathKind::Documentation);
}

/// A frame's state carries a file's kind and status as their enums serialize (D-200 addendum):
/// those words are what the judgment cache's keys were made from, so each must stay the word
/// `as_str` gives (a changed one would make every cached answer a miss).
#[test]
fn kinds_and_statuses_serialize_as_their_words() {
    use FileStatus as F;
    use PathKind as K;
    for status in [
        F::Added,
        F::Deleted,
        F::Modified,
        F::Renamed,
        F::Copied,
        F::Binary,
        F::ModeOnly,
        F::TypeChange,
    ] {
        assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
    }
    for kind in [
        K::Source,
        K::Test,
        K::Documentation,
        K::Config,
        K::Ci,
        K::Lockfile,
        K::Generated,
        K::Vendored,
        K::Secret,
        K::Binary,
        K::Other,
    ] {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
    }
}

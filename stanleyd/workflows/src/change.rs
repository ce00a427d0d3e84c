//! The change around one hunk, as a frame carries it: the size of the whole change as a band,
//! the hunk's own file, and the few files related to it (the same stem, such as a source file
//! and its test, then the same folder; never one the repository declares generated, vendored or
//! not diffed). This replaces a fixed manifest of the first files, which
//! on a large change did not even hold the hunk's own file.
//!
//! Nothing here counts lines or places the hunk among its file's hunks: a frame must stay the
//! same when an unrelated hunk, or a line count elsewhere, changes, so its cached answers stay
//! valid (the judgment cache keys on exactly what is sent).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::diff::{DiffEvidence, DiffFile, FileStatus, Hunk};
use crate::paths::PathKind;
use crate::run::to_value;

/// Related files listed with a hunk at most.
pub const MAX_RELATED_FILES: usize = 6;

/// What every frame of one change shares, indexed once.
pub struct ChangeContext<'a> {
    evidence: &'a DiffEvidence,
    size: &'static str,
    by_path: HashMap<&'a str, usize>,
    by_stem: HashMap<String, Vec<usize>>,
    by_dir: HashMap<&'a str, Vec<usize>>,
}

/// A file's stem without test markers: `src/auth.ts` and `test/auth.test.ts` share `auth`.
pub fn stem(path: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let mut stem = base.split('.').next().unwrap_or(&base).to_owned();
    for prefix in ["test_", "spec_"] {
        if let Some(rest) = stem.strip_prefix(prefix) {
            stem = rest.to_owned();
        }
    }
    for suffix in ["_test", "_spec", "-test", "-spec", "_tests"] {
        if let Some(rest) = stem.strip_suffix(suffix) {
            stem = rest.to_owned();
        }
    }
    stem
}

fn dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The size of a change as a band of changed files, which an edit inside the change keeps.
pub fn size_band(files: usize) -> &'static str {
    match files {
        0 | 1 => "one file",
        2..=10 => "a few files (2 to 10)",
        11..=100 => "many files (11 to 100)",
        _ => "very many files (over 100)",
    }
}

/// A changed file as a frame names it; `oldPath` only for a renamed or copied file. Fields in
/// stable JSON's order (D-230).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRow<'a> {
    file_status: FileStatus,
    kind: PathKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    old_path: Option<&'a str>,
    path: &'a str,
}

/// The change around a hunk: the change's size band, the hunk's file (`null` when the hunk's
/// file is not among the change's files) and the related files.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HunkChange<'a> {
    file: Option<FileRow<'a>>,
    related_files: Vec<FileRow<'a>>,
    size: &'static str,
}

fn file_row(file: &DiffFile) -> FileRow<'_> {
    FileRow {
        path: &file.path,
        kind: file.kind,
        file_status: file.status,
        old_path: file.old_path.as_deref(),
    }
}

impl<'a> ChangeContext<'a> {
    /// Indexes the files of `evidence`.
    pub fn new(evidence: &'a DiffEvidence) -> Self {
        let mut by_path = HashMap::new();
        let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_dir: HashMap<&str, Vec<usize>> = HashMap::new();
        // A file the repository declares generated, vendored or not diffed is not shown to Jev,
        // not even by name (D-163).
        let declared: std::collections::HashSet<&str> = evidence
            .excluded
            .iter()
            .chain(&evidence.set_aside)
            .filter(|x| x.declared_by.is_some())
            .filter_map(|x| x.path.as_deref())
            .collect();
        for (i, file) in evidence.files.iter().enumerate() {
            by_path.insert(file.path.as_str(), i);
            if declared.contains(file.path.as_str()) {
                continue;
            }
            by_stem.entry(stem(&file.path)).or_default().push(i);
            by_dir.entry(dir(&file.path)).or_default().push(i);
        }
        Self {
            evidence,
            size: size_band(evidence.files.len()),
            by_path,
            by_stem,
            by_dir,
        }
    }

    /// The context of `hunk`: `{size, file, relatedFiles}`.
    pub fn of(&self, hunk: &Hunk) -> Value {
        to_value(&self.typed(hunk))
    }

    /// The context of `hunk` as its typed row, serialized straight into a frame's state
    /// without a tree of its own (issue 47).
    pub fn typed(&self, hunk: &Hunk) -> HunkChange<'a> {
        let files = &self.evidence.files;
        let Some(&at) = self.by_path.get(hunk.path.as_str()) else {
            return HunkChange {
                size: self.size,
                file: None,
                related_files: Vec::new(),
            };
        };
        let file = &files[at];
        let mut related: Vec<usize> = Vec::new();
        let same_stem = self.by_stem.get(&stem(&file.path)).into_iter().flatten();
        let same_dir = self.by_dir.get(dir(&file.path)).into_iter().flatten();
        for &i in same_stem.chain(same_dir) {
            if related.len() >= MAX_RELATED_FILES {
                break;
            }
            if i != at && !related.contains(&i) {
                related.push(i);
            }
        }
        HunkChange {
            size: self.size,
            file: Some(file_row(file)),
            related_files: related.iter().map(|&i| file_row(&files[i])).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Diff, DiffSource};
    use serde_json::json;

    fn evidence(text: &str) -> DiffEvidence {
        DiffEvidence::from_source(DiffSource::worktree(Diff::parse(text)))
    }

    fn added(path: &str, lines: usize) -> String {
        let body: String = (0..lines).map(|n| format!("+line {n}\n")).collect();
        format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{body}"
        )
    }

    #[test]
    fn stems_pair_sources_with_their_tests() {
        assert_eq!(stem("src/auth.ts"), "auth");
        assert_eq!(stem("test/auth.test.ts"), "auth");
        assert_eq!(stem("tests/test_auth.py"), "auth");
        assert_eq!(stem("pkg/auth_test.go"), "auth");
    }

    #[test]
    fn a_hunk_carries_its_own_file_and_related_files_whatever_the_size_of_the_change() {
        let mut text = String::new();
        for n in 0..150 {
            text.push_str(&added(&format!("a/f{n:03}.md"), 1));
        }
        text.push_str(&added("src/zeta/auth.rs", 2));
        text.push_str(&added("src/zeta/mod.rs", 1));
        text.push_str(&added("tests/auth_test.rs", 1));
        let ev = evidence(&text);
        let ctx = ChangeContext::new(&ev);
        let hunk = ev
            .hunks
            .iter()
            .find(|h| h.path == "src/zeta/auth.rs")
            .unwrap();
        let value = ctx.of(hunk);
        assert_eq!(value["size"], "very many files (over 100)");
        assert_eq!(value["file"]["path"], "src/zeta/auth.rs");
        let related: Vec<&str> = value["relatedFiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(related, ["tests/auth_test.rs", "src/zeta/mod.rs"]);
        assert!(serde_json::to_string(&value).unwrap().len() < 1024);
    }

    /// Each hunk's frame material: what a frame sends about it.
    fn sent(ev: &DiffEvidence) -> Vec<String> {
        let ctx = ChangeContext::new(ev);
        ev.hunks
            .iter()
            .map(|h| stanley_core::stable_json(&json!({"change": ctx.of(h), "hunk": h.evidence()})))
            .collect()
    }

    #[test]
    fn editing_one_hunk_changes_only_what_is_sent_about_that_hunk() {
        let before = "diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -10,3 +10,4 @@ fn first
 a
+b
 c
 d
@@ -40,3 +41,4 @@ fn second
 x
+y
 z
 w
diff --git a/src/other.rs b/src/other.rs
--- a/src/other.rs
+++ b/src/other.rs
@@ -1,2 +1,3 @@
 one
+two
 three
";
        // The first hunk gains two lines: the second one moves down, nothing else changes.
        let after = before
            .replace(
                "@@ -10,3 +10,4 @@ fn first\n a\n+b\n",
                "@@ -10,3 +10,6 @@ fn first\n a\n+b\n+b2\n+b3\n",
            )
            .replace("@@ -40,3 +41,4 @@", "@@ -40,3 +43,4 @@");
        let (a, b) = (sent(&evidence(before)), sent(&evidence(&after)));
        assert_eq!(a.len(), 3);
        assert_eq!(b.len(), 3);
        let changed: Vec<usize> = (0..3).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(changed, [0], "only the edited hunk's frame changes");
        assert!(!a[1].contains("41") && !a[1].contains("\"id\""));
    }
}

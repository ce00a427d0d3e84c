//! The change around one hunk, as a frame carries it: the totals of the whole change, the
//! hunk's own file and its place in it, and the few files related to it (the same stem, such as
//! a source file and its test, then the same folder). This replaces a fixed manifest of the
//! first files, which on a large change did not even hold the hunk's own file.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::diff::{DiffEvidence, DiffFile, Hunk};

/// Related files listed with a hunk at most.
pub const MAX_RELATED_FILES: usize = 6;

/// What every frame of one change shares, indexed once.
pub struct ChangeContext<'a> {
    evidence: &'a DiffEvidence,
    totals: Value,
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

fn file_row(file: &DiffFile) -> Value {
    let mut row = json!({
        "path": file.path,
        "kind": file.kind.as_str(),
        "fileStatus": file.status.as_str(),
        "added": file.added(),
        "removed": file.removed(),
    });
    if let Some(old) = &file.old_path {
        row["oldPath"] = json!(old);
    }
    row
}

impl<'a> ChangeContext<'a> {
    /// Indexes the files of `evidence`.
    pub fn new(evidence: &'a DiffEvidence) -> Self {
        let mut by_path = HashMap::new();
        let mut by_stem: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_dir: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, file) in evidence.files.iter().enumerate() {
            by_path.insert(file.path.as_str(), i);
            by_stem.entry(stem(&file.path)).or_default().push(i);
            by_dir.entry(dir(&file.path)).or_default().push(i);
        }
        let totals = json!({
            "files": evidence.files.len(),
            "hunks": evidence.hunks.len(),
            "added": evidence.files.iter().map(DiffFile::added).sum::<usize>(),
            "removed": evidence.files.iter().map(DiffFile::removed).sum::<usize>(),
            "excludedFiles": evidence.excluded.len() + evidence.set_aside.len(),
        });
        Self {
            evidence,
            totals,
            by_path,
            by_stem,
            by_dir,
        }
    }

    /// The context of `hunk`: `{totals, file, relatedFiles}`.
    pub fn of(&self, hunk: &Hunk) -> Value {
        let files = &self.evidence.files;
        let Some(&at) = self.by_path.get(hunk.path.as_str()) else {
            return json!({"totals": self.totals, "file": null, "relatedFiles": []});
        };
        let file = &files[at];
        let mut file_value = file_row(file);
        if let Some(pos) = file.hunks.iter().position(|h| h.id == hunk.id) {
            file_value["hunk"] = json!(format!("{} of {}", pos + 1, file.hunks.len()));
        }
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
        json!({
            "totals": self.totals,
            "file": file_value,
            "relatedFiles": related.iter().map(|&i| file_row(&files[i])).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{DiffSource, Scope};

    fn evidence(text: &str) -> DiffEvidence {
        DiffEvidence::from_source(DiffSource {
            text: text.into(),
            scope: Scope::Worktree,
            base_ref: None,
            base_commit: None,
            head_commit: None,
            probe: "git-diff-U3:worktree".into(),
            excluded: vec![],
            facts: Default::default(),
        })
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
        assert_eq!(value["totals"]["files"], 153);
        assert_eq!(value["file"]["path"], "src/zeta/auth.rs");
        assert_eq!(value["file"]["hunk"], "1 of 1");
        let related: Vec<&str> = value["relatedFiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(related, ["tests/auth_test.rs", "src/zeta/mod.rs"]);
        assert!(serde_json::to_string(&value).unwrap().len() < 1024);
    }
}

//! What the language server knows: the standing runs the daemon sent last, the documents the
//! editor has open, and where each finding sits now. A finding's lines are taken from its run
//! the first time its file is edited, then follow every change (moved with the lines around
//! them) until one of its own lines changes, when it is dropped; a newer run of the workflow
//! replaces it whole.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use stanley_proto::v1::RunFindings;
use tower_lsp_server::ls_types::{Diagnostic, TextDocumentContentChangeEvent, Uri};

use crate::lsp::findings;
use crate::lsp::text::{Document, line_change};

/// A finding of a standing run: the run's id and the finding's place in its list.
type Key = (String, usize);

/// A finding shown: its run, its place in the run's list, and the 0-based lines it sits on.
type Shown<'a> = (&'a RunFindings, usize, (usize, usize));

/// Everything the server shows.
#[derive(Debug)]
pub(crate) struct State {
    root: PathBuf,
    runs: Vec<RunFindings>,
    /// Open documents by URI, with their repository-relative path.
    docs: HashMap<Uri, (String, Document)>,
    /// Findings moved or dropped by edits (`None`: dropped); absent ones sit where their run
    /// put them.
    moved: HashMap<Key, Option<(usize, usize)>>,
    /// The documents diagnostics were last published for.
    published: HashSet<Uri>,
}

impl State {
    pub(crate) fn new(root: PathBuf) -> Self {
        Self {
            root,
            runs: Vec::new(),
            docs: HashMap::new(),
            moved: HashMap::new(),
            published: HashSet::new(),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The standing runs changed: positions of runs still standing are kept.
    /// A run that arrives while a document it names has unsaved edits read the file as saved:
    /// its findings there are moved through the difference between the file and the document
    /// at once (or dropped where the lines differ).
    pub(crate) fn set_runs(&mut self, runs: Vec<RunFindings>) {
        let ids: HashSet<String> = runs
            .iter()
            .filter_map(|r| r.run.as_ref().map(|s| s.id.clone()))
            .collect();
        let known: HashSet<String> = self
            .runs
            .iter()
            .filter_map(|r| r.run.as_ref().map(|s| s.id.clone()))
            .collect();
        self.moved.retain(|(id, _), _| ids.contains(id));
        for (uri, (path, doc)) in &self.docs {
            let mut change = None;
            for run in &runs {
                let Some(id) = run
                    .run
                    .as_ref()
                    .map(|s| &s.id)
                    .filter(|id| !known.contains(*id))
                else {
                    continue;
                };
                for (i, f) in run.findings.iter().enumerate() {
                    if f.path != *path {
                        continue;
                    }
                    let lines = change.get_or_insert_with(|| {
                        let saved = uri
                            .to_file_path()
                            .and_then(|p| read_small(&p))
                            .unwrap_or_default();
                        line_change(&saved, doc.text())
                    });
                    let (a, b) = findings::lines_of(f);
                    self.moved.insert((id.clone(), i), lines.map(a, b));
                }
            }
        }
        self.runs = runs;
    }

    pub(crate) fn open(&mut self, uri: Uri, text: String) {
        if let Some(path) = findings::relative(&self.root, &uri) {
            self.docs.insert(uri, (path, Document::new(text)));
        }
    }

    /// The editor closed a document: its findings keep the places edits gave them.
    pub(crate) fn close(&mut self, uri: &Uri) {
        self.docs.remove(uri);
    }

    /// Applies the editor's changes to a document and moves or drops its findings.
    pub(crate) fn change(&mut self, uri: &Uri, changes: &[TextDocumentContentChangeEvent]) {
        let Some((path, doc)) = self.docs.get_mut(uri) else {
            return;
        };
        let keys: Vec<(Key, (usize, usize))> = self
            .runs
            .iter()
            .filter_map(|r| Some((r.run.as_ref()?.id.clone(), r)))
            .flat_map(|(id, r)| {
                r.findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.path == *path)
                    .map(move |(i, f)| ((id.clone(), i), findings::lines_of(f)))
            })
            .collect();
        for change in changes {
            let lines = doc.apply(change);
            for (key, original) in &keys {
                let at = self.moved.entry(key.clone()).or_insert(Some(*original));
                *at = at.and_then(|(a, b)| lines.map(a, b));
            }
        }
    }

    /// Where a finding sits now (`None`: dropped by an edit).
    fn lines(&self, id: &str, index: usize, original: (usize, usize)) -> Option<(usize, usize)> {
        match self.moved.get(&(id.to_owned(), index)) {
            Some(at) => *at,
            None => Some(original),
        }
    }

    /// Every finding to show, with its document: not marked seen, on a path inside the root,
    /// and not dropped by an edit. Of the same finding in runs of two scopes (a branch and a
    /// worktree review), the newest run's that still matches the file stands (the runs come
    /// newest first); findings that share a fingerprint within one run all stand.
    fn shown(&self) -> Vec<(Uri, &RunFindings, usize, (usize, usize))> {
        let mut out = Vec::new();
        let mut earlier: std::collections::HashSet<(&str, &str)> = std::collections::HashSet::new();
        for r in &self.runs {
            let id = r.run.as_ref().map_or("", |s| s.id.as_str());
            let mut this_run = Vec::new();
            for (i, f) in r.findings.iter().enumerate() {
                let print = (f.workflow.as_str(), f.fingerprint.as_str());
                if !f.fingerprint.is_empty()
                    && (r.seen.contains(&f.fingerprint) || earlier.contains(&print))
                {
                    continue;
                }
                let Some(uri) = findings::uri_of(&self.root, &f.path) else {
                    continue;
                };
                let Some(lines) = self.lines(id, i, findings::lines_of(f)) else {
                    continue;
                };
                this_run.push(print);
                out.push((uri, r, i, lines));
            }
            earlier.extend(this_run.into_iter().filter(|(_, fp)| !fp.is_empty()));
        }
        out
    }

    /// The diagnostics of every document that has some, and an empty list for each document
    /// that had some when last published (with `only`, of that document alone); remembers what
    /// it returns as published.
    pub(crate) fn publish(&mut self, only: Option<&Uri>) -> Vec<(Uri, Vec<Diagnostic>)> {
        let mut by_uri: HashMap<Uri, Vec<Shown<'_>>> = HashMap::new();
        for (uri, run, index, lines) in self.shown() {
            if only.is_none_or(|o| *o == uri) {
                by_uri.entry(uri).or_default().push((run, index, lines));
            }
        }
        let mut out: Vec<(Uri, Vec<Diagnostic>)> = by_uri
            .into_iter()
            .map(|(uri, shown)| {
                // Each line's end from the open document, else from the file, read once.
                let read;
                let doc = match self.docs.get(&uri) {
                    Some((_, doc)) => doc,
                    None => {
                        read = Document::new(
                            uri.to_file_path()
                                .and_then(|p| read_small(&p))
                                .unwrap_or_default(),
                        );
                        &read
                    }
                };
                let diagnostics = shown
                    .into_iter()
                    .filter_map(|(run, index, lines)| {
                        let len = doc.line_len(lines.1);
                        findings::diagnostic(&self.root, &uri, run, index, lines, len)
                    })
                    .collect();
                (uri, diagnostics)
            })
            .collect();
        let now: std::collections::HashSet<&Uri> = out.iter().map(|(uri, _)| uri).collect();
        let had: Vec<Uri> = self
            .published
            .iter()
            .filter(|u| only.is_none_or(|o| o == *u))
            .filter(|u| !now.contains(u))
            .cloned()
            .collect();
        for uri in had {
            out.push((uri, Vec::new()));
        }
        for (uri, diagnostics) in &out {
            if diagnostics.is_empty() {
                self.published.remove(uri);
            } else {
                self.published.insert(uri.clone());
            }
        }
        out.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        out
    }

    /// The findings shown on `line` of a document, with their run and place.
    pub(crate) fn at(&self, uri: &Uri, line: usize) -> Vec<Shown<'_>> {
        self.shown()
            .into_iter()
            .filter(|(u, _, _, (a, b))| u == uri && *a <= line && line <= *b)
            .map(|(_, r, i, lines)| (r, i, lines))
            .collect()
    }
}

/// A file's text when it is a regular file of at most 5 MiB (to measure a line's end).
fn read_small(path: &Path) -> Option<String> {
    const LIMIT: u64 = 5 * 1024 * 1024;
    let bytes = stanley_proto::private::read_head(path, LIMIT + 1).ok()?;
    if bytes.len() as u64 > LIMIT {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_proto::v1::{Finding, RunSummary};
    use tower_lsp_server::ls_types::{Position, Range};

    fn run(id: &str, findings: &[(&str, u32, u32, &str)]) -> RunFindings {
        RunFindings {
            run: Some(RunSummary {
                id: id.into(),
                run_status: stanley_proto::v1::RunStatus::Complete as i32,
                ..RunSummary::default()
            }),
            findings: findings
                .iter()
                .map(|(path, a, b, fp)| Finding {
                    workflow: "check".into(),
                    label: "skip_marker_added".into(),
                    path: (*path).into(),
                    start_line: *a,
                    end_line: *b,
                    fingerprint: (*fp).into(),
                    ..Finding::default()
                })
                .collect(),
            seen: Vec::new(),
        }
    }

    fn lines(published: &[(Uri, Vec<Diagnostic>)]) -> Vec<(String, Vec<u32>)> {
        published
            .iter()
            .map(|(u, d)| {
                let name = u.as_str().rsplit('/').next().unwrap_or("").to_owned();
                let mut lines: Vec<u32> = d.iter().map(|d| d.range.start.line).collect();
                lines.sort_unstable();
                (name, lines)
            })
            .collect()
    }

    #[test]
    fn findings_follow_edits_are_dropped_when_their_lines_change_and_clear_when_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.js"), "1\n2\n3\n4\n5\n").unwrap();
        let mut state = State::new(root.clone());
        state.set_runs(vec![run(
            "r1",
            &[
                ("a.js", 2, 2, "x"),
                ("a.js", 4, 5, "y"),
                ("b.js", 1, 1, "z"),
            ],
        )]);
        assert_eq!(
            lines(&state.publish(None)),
            [("a.js".into(), vec![1, 3]), ("b.js".into(), vec![0])]
        );
        let uri = Uri::from_file_path(root.join("a.js")).unwrap();
        state.open(uri.clone(), "1\n2\n3\n4\n5\n".into());
        // A line added at the top moves both; then the first finding's line is edited.
        let insert = |l: u32, text: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l, 0), Position::new(l, 0))),
            range_length: None,
            text: text.into(),
        };
        state.change(&uri, &[insert(0, "0\n")]);
        assert_eq!(
            lines(&state.publish(Some(&uri))),
            [("a.js".into(), vec![2, 4])],
            "only the edited document"
        );
        state.change(&uri, &[insert(2, "edit ")]);
        assert_eq!(lines(&state.publish(None))[0], ("a.js".into(), vec![4]));
        assert_eq!(state.at(&uri, 5).len(), 1, "the range covers lines 4-5");
        // A newer run of the workflow replaces the old one whole; b.js is cleared. (The
        // document is closed first: a run is placed where it put its findings.)
        state.close(&uri);
        state.set_runs(vec![run("r2", &[("a.js", 1, 1, "x")])]);
        assert_eq!(
            lines(&state.publish(None)),
            [("a.js".into(), vec![0]), ("b.js".into(), vec![])]
        );
        // Marked seen: gone.
        let mut seen = run("r2", &[("a.js", 1, 1, "x")]);
        seen.seen = vec!["x".into()];
        state.set_runs(vec![seen]);
        assert_eq!(lines(&state.publish(None)), [("a.js".into(), vec![])]);
        assert!(state.publish(None).is_empty(), "nothing left to clear");
    }

    /// A branch review and a worktree review both stand (issue 49); the same finding in both
    /// is shown once, from the newer run, unless an edit dropped it there; findings sharing a
    /// fingerprint in one run all stand.
    #[test]
    fn runs_of_two_scopes_stand_together_and_a_finding_is_shown_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.js"), "1\n2\n3\n4\n5\n6\n").unwrap();
        let mut state = State::new(root.clone());
        let worktree = run(
            "w1",
            &[
                ("a.js", 2, 2, "same"),
                ("a.js", 6, 6, "twin"),
                ("a.js", 5, 5, "twin"),
            ],
        );
        let branch = run(
            "b1",
            &[("a.js", 3, 3, "same"), ("a.js", 4, 4, "branch-only")],
        );
        state.set_runs(vec![worktree, branch]);
        assert_eq!(
            lines(&state.publish(None)),
            [("a.js".into(), vec![1, 3, 4, 5])],
            "the newer run's place for the shared finding, the branch's own beside it"
        );
        // An edit drops the newer run's copy: the older run's, still matching, is shown.
        let uri = Uri::from_file_path(root.join("a.js")).unwrap();
        state.open(uri.clone(), "1\n2\n3\n4\n5\n6\n".into());
        state.change(
            &uri,
            &[TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(1, 0), Position::new(1, 0))),
                range_length: None,
                text: "edit ".into(),
            }],
        );
        let published = lines(&state.publish(None));
        assert!(published[0].1.contains(&2), "{published:?}");
        assert!(!published[0].1.contains(&1), "{published:?}");
    }

    #[test]
    fn a_run_that_read_the_saved_file_is_placed_in_the_unsaved_document() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.js"), "1\n2\n3\n4\n").unwrap();
        let mut state = State::new(root.clone());
        let uri = Uri::from_file_path(root.join("a.js")).unwrap();
        // Two lines typed at the top, not saved: the run's lines 2 and 3 are the document's 4
        // and 5.
        state.open(uri.clone(), "new\nnew\n1\n2\n3\n4\n".into());
        let found = [("a.js", 2, 2, "x"), ("a.js", 3, 3, "y")];
        state.set_runs(vec![run("r1", &found)]);
        assert_eq!(lines(&state.publish(None)), [("a.js".into(), vec![3, 4])]);
        // Line 3 edited, not saved: the finding on it is dropped, the other stays.
        state.open(uri.clone(), "1\n2\nTHREE\n4\n".into());
        state.set_runs(vec![run("r2", &found)]);
        assert_eq!(lines(&state.publish(None)), [("a.js".into(), vec![1])]);
    }
}

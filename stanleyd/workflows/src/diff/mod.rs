//! The structured diff (files and hunks, as the Git port builds it or as unified diff text
//! parses), hunk splitting at the size limit, and the diff evidence a workflow plans from:
//! eligible hunks plus the files and untracked paths excluded.

pub mod mirror;
mod quote;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};
use stanley_core::stable_id;

pub use crate::exclusion::FileFacts;
use crate::exclusion::{Rule, Verdict, WholeFile};
use crate::paths::{PathKind, classify_path};
pub use quote::{Change, QUOTED_LINES, Quoted};

/// Hunks longer than this many lines are split into consecutive parts (`MAX_HUNK_LINES`).
pub const MAX_HUNK_LINES: usize = 300;

/// The Git selection a request works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Working tree against `HEAD` (or `--base`), plus safe untracked files.
    Worktree,
    /// The index against `HEAD`.
    Staged,
    /// `HEAD` against the merge base with `--base` (default `main`).
    Branch,
}

impl Scope {
    /// Parses `worktree`, `staged` or `branch`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "worktree" => Some(Scope::Worktree),
            "staged" => Some(Scope::Staged),
            "branch" => Some(Scope::Branch),
            _ => None,
        }
    }

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Worktree => "worktree",
            Scope::Staged => "staged",
            Scope::Branch => "branch",
        }
    }
}

/// A file, path or item left out of judgment, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exclusion {
    /// `file:<path>` for files.
    pub id: String,
    /// The path, when it is a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Why it was left out.
    pub reason: String,
    /// The rule that decided it.
    pub rule: Rule,
    /// The repository's declaration that decided it (the attribute rules): the attribute as
    /// written and the attributes file and line that set it.
    #[serde(rename = "declaredBy", skip_serializing_if = "Option::is_none")]
    pub declared_by: Option<crate::declared::DeclaredBy>,
}

impl Exclusion {
    /// A whole file left out by `rule`.
    pub fn file(path: &str, rule: Rule, reason: impl Into<String>) -> Self {
        Self {
            id: format!("file:{path}"),
            path: Some(path.to_owned()),
            reason: reason.into(),
            rule,
            declared_by: None,
        }
    }

    /// A whole file left out by a policy verdict.
    pub fn verdict(path: &str, verdict: Verdict) -> Self {
        Self {
            declared_by: verdict.declared_by,
            ..Self::file(path, verdict.rule, verdict.reason)
        }
    }
}

/// A selection's diff as the Git port produced it (untracked safe files already folded in as
/// added files), with what is known of each changed file.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffSource {
    /// The files and hunks, before any policy (renames and copies detected, `-U3`).
    pub diff: Diff,
    /// The selection.
    pub scope: Scope,
    /// The base ref asked for, if any.
    pub base_ref: Option<String>,
    /// The resolved base commit.
    pub base_commit: Option<String>,
    /// The resolved `HEAD` commit (None on an unborn branch).
    pub head_commit: Option<String>,
    /// `git-diff-U3:<scope>`, or `git-diff-U3:worktree+untracked-files`.
    pub probe: String,
    /// Untracked files that were not folded in, and why.
    pub excluded: Vec<Exclusion>,
    /// What the Git port knows of each changed file's content, by (new) path.
    pub facts: BTreeMap<String, FileFacts>,
}

impl DiffSource {
    /// Whether the selection has any change at all (the routing fact `diff: present`): a
    /// changed file, or one that was left out (a large untracked file, a submodule).
    pub fn is_present(&self) -> bool {
        !self.diff.files.is_empty() || !self.excluded.is_empty()
    }

    /// A worktree selection of `diff`, with nothing excluded and no facts (tests, fixtures).
    pub fn worktree(diff: Diff) -> Self {
        Self {
            diff,
            scope: Scope::Worktree,
            base_ref: None,
            base_commit: None,
            head_commit: None,
            probe: "git-diff-U3:worktree".into(),
            excluded: Vec::new(),
            facts: BTreeMap::new(),
        }
    }

    /// A short description of the selection for summaries and records.
    pub fn describe(&self) -> Value {
        json!({
            "scope": self.scope.as_str(),
            "baseRef": self.base_ref,
            "baseCommit": self.base_commit,
            "headCommit": self.head_commit,
            "probe": self.probe,
        })
    }
}

/// A file's status in the diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Deleted,
    Modified,
    /// Moved (and perhaps edited): `old_path` is where it was.
    Renamed,
    /// Copied from `old_path` (and perhaps edited).
    Copied,
    Binary,
    ModeOnly,
    /// A link that became a file, or a file that became a link (Git's `T`): its hunks, if
    /// any, are the new file's whole text, added.
    TypeChange,
}

impl FileStatus {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Deleted => "deleted",
            FileStatus::Modified => "modified",
            FileStatus::Renamed => "renamed",
            FileStatus::Copied => "copied",
            FileStatus::Binary => "binary",
            FileStatus::ModeOnly => "mode_only",
            FileStatus::TypeChange => "type_change",
        }
    }
}

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// `+`, `-` or ` `.
    pub tag: char,
    /// The text without its marker.
    pub text: String,
}

/// One changed block.
#[derive(Clone, Debug, PartialEq)]
pub struct Hunk {
    pub id: String,
    pub path: String,
    pub old_path: Option<String>,
    pub file_status: FileStatus,
    pub kind: PathKind,
    pub old_start: u64,
    pub old_lines: u64,
    pub new_start: u64,
    pub new_lines: u64,
    pub section: String,
    /// Shared with the diff it was split from, and with every copy of the hunk.
    pub lines: Arc<[Line]>,
    pub added: usize,
    pub removed: usize,
    /// `(index, count)`, 1-based, when the hunk was split.
    pub part: Option<(usize, usize)>,
}

impl Hunk {
    /// The hunk text: its header, then every line with its marker.
    pub fn content(&self) -> String {
        let mut out = String::new();
        let ranges = [
            self.old_start,
            self.old_lines,
            self.new_start,
            self.new_lines,
        ];
        write_hunk(&mut out, ranges, &self.section, &self.lines);
        out.pop();
        out
    }

    /// The added and removed lines' text, one per line (added first), for word matching.
    pub fn changed_lines(&self) -> String {
        let (added, removed) = self.changed_text();
        added
            .iter()
            .chain(&removed)
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// What the hunk changes, independent of where it sits: a hash of its path, section and
    /// lines. A hunk moved down by an edit above it keeps it (its `id` does not).
    pub fn content_id(&self) -> String {
        stable_id(
            "c",
            &json!({
                "path": self.path,
                "section": self.section,
                "lines": self.lines.iter().map(|l| format!("{}{}", l.tag, l.text)).collect::<Vec<_>>(),
            }),
            16,
        )
    }

    /// What makes two hunks the same question (D-119): their kind, file status and changed
    /// lines, each line's whitespace collapsed, never the path, the heading or the context
    /// around them (the same edit applied to several files is one change); `extra` adds what
    /// else a question shows (a `test_gaps` hunk's related tests, `check`'s flags).
    pub fn same_change_key(&self, extra: &[&str]) -> String {
        let mut key = format!("{}\u{1f}{}", self.kind.as_str(), self.file_status.as_str());
        for line in self.lines.iter().filter(|l| l.tag != ' ') {
            key.push('\u{1e}');
            key.push(line.tag);
            for (i, word) in line.text.split_whitespace().enumerate() {
                if i > 0 {
                    key.push(' ');
                }
                key.push_str(word);
            }
        }
        for item in extra {
            key.push('\u{1d}');
            key.push_str(item);
        }
        stanley_core::sha256_hex(key.as_bytes())
    }

    /// Every line with its marker, without the header.
    pub fn body(&self) -> String {
        let mut out = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push(line.tag);
            out.push_str(&line.text);
        }
        out
    }

    /// `<start>-<end>` in the new file, or `old <start>-<end>` for deletions.
    pub fn line_range(&self) -> String {
        if self.file_status == FileStatus::Deleted || self.new_lines == 0 {
            format!(
                "old {}-{}",
                self.old_start,
                self.old_start + self.old_lines.saturating_sub(1)
            )
        } else {
            format!(
                "{}-{}",
                self.new_start,
                self.new_start + self.new_lines.saturating_sub(1)
            )
        }
    }

    /// The hunk evidence object placed in frame states: what changed and where in the file's
    /// structure, never line numbers or the hunk's id (which follow from positions). An edit
    /// elsewhere that shifts this hunk leaves its frames, and so their cached answers, as they
    /// were.
    pub fn evidence(&self) -> Value {
        // Plain strings: serializing them cannot fail.
        serde_json::to_value(self.evidence_row()).unwrap_or_default()
    }

    /// The hunk as evidence, typed: serialized straight into a frame's state (issue 47).
    pub fn evidence_row(&self) -> HunkEvidence<'_> {
        HunkEvidence {
            content: self.body(),
            file_status: self.file_status,
            kind: self.kind,
            part: self.part.map(|(i, n)| format!("{i} of {n}")),
            path: &self.path,
            section: (!self.section.is_empty()).then_some(self.section.as_str()),
        }
    }

    /// The hunk evidence with its line ranges, for frames whose other evidence names lines (a
    /// stack frame's `file:line`, a review comment's line): there, whether a line falls inside
    /// the change is part of the question.
    pub fn evidence_with_lines(&self) -> Value {
        let mut value = self.evidence();
        value["oldRange"] = json!(format!("{},{}", self.old_start, self.old_lines));
        value["newRange"] = json!(format!("{},{}", self.new_start, self.new_lines));
        value
    }

    /// The provenance reference to this hunk.
    pub fn reference(&self, source: &DiffSource) -> Value {
        let probe = match &source.base_commit {
            Some(c) => format!("{}@{}", source.probe, &c[..c.len().min(12)]),
            None => source.probe.clone(),
        };
        json!({
            "kind": "git_hunk",
            "id": self.id,
            "path": self.path,
            "startLine": self.new_start,
            "endLine": self.new_start + self.new_lines.saturating_sub(1),
            "probe": probe,
            "truncated": self.part.is_some(),
        })
    }

    /// Text of the added lines, then the removed lines.
    pub fn changed_text(&self) -> (Vec<&str>, Vec<&str>) {
        let pick = |tag| {
            self.lines
                .iter()
                .filter(|l| l.tag == tag)
                .map(|l| l.text.as_str())
                .collect()
        };
        (pick('+'), pick('-'))
    }
}

/// A hunk as a frame shows it: its file, kinds, section, part and lines ([`Hunk::evidence`]),
/// its fields in stable JSON's order (D-230).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HunkEvidence<'a> {
    content: String,
    file_status: FileStatus,
    kind: PathKind,
    part: Option<String>,
    path: &'a str,
    section: Option<&'a str>,
}

/// One file of a diff.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffFile {
    pub path: String,
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub kind: PathKind,
    pub hunks: Vec<Hunk>,
}

impl DiffFile {
    /// Lines added over all hunks.
    pub fn added(&self) -> usize {
        self.hunks.iter().map(|h| h.added).sum()
    }

    /// Lines removed over all hunks.
    pub fn removed(&self) -> usize {
        self.hunks.iter().map(|h| h.removed).sum()
    }
}

/// Undoes Git's and our C-style path quoting (`"a/x y"`, octal escapes).
fn unquote(raw: &str) -> String {
    let raw = raw.trim_end_matches('\t');
    let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return raw.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&n @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(n - b'0');
                            chars.next();
                        }
                        _ => break,
                    }
                }
                bytes.push((v & 0xff) as u8);
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn strip_side(path: &str, side: &str) -> String {
    let unq = unquote(path);
    unq.strip_prefix(side).map_or(unq.clone(), str::to_owned)
}

/// Paths from `diff --git a/<p> b/<p>` (used when no `---`/`+++` lines follow).
fn header_path(rest: &str) -> String {
    if let Some(inner) = rest.strip_prefix('"') {
        // Quoted: the first quoted token is the a-side, the b-side follows it.
        if let Some(end) = inner.find("\" ") {
            return strip_side(&inner[end + 2..], "b/");
        }
        return strip_side(rest, "a/");
    }
    // Unquoted `a/P b/P` with equal P: split in the middle.
    let len = rest.len();
    if len >= 5 && (len - 5).is_multiple_of(2) {
        let p = (len - 5) / 2;
        if rest.is_char_boundary(2) && rest.is_char_boundary(2 + p) && rest.is_char_boundary(5 + p)
        {
            let (a, b) = (&rest[2..2 + p], &rest[5 + p..]);
            if a == b {
                return a.to_owned();
            }
        }
    }
    rest.split(" b/").last().unwrap_or(rest).to_owned()
}

fn parse_range(text: &str) -> Option<(u64, u64)> {
    let mut parts = text.splitn(2, ',');
    let start = parts.next()?.parse().ok()?;
    let count = match parts.next() {
        Some(c) => c.parse().ok()?,
        None => 1,
    };
    Some((start, count))
}

/// Parses `@@ -a[,b] +c[,d] @@[ section]`.
fn parse_header(line: &str) -> Option<(u64, u64, u64, u64, String)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let (os, ol) = parse_range(old)?;
    let (ns, nl) = parse_range(new)?;
    Some((os, ol, ns, nl, section.trim_start().to_owned()))
}

/// A diff as Git reports it, file by file, before any policy: what the Git port builds once from
/// git2 (never through text), and what unified diff text parses into. Text exists only where
/// text is sent ([`Diff::to_text`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    pub files: Vec<FileDiff>,
}

/// One file of a [`Diff`].
#[derive(Clone, Debug, PartialEq)]
pub struct FileDiff {
    /// The new path (the old one for a deletion).
    pub path: String,
    /// Where a renamed or copied file came from.
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub hunks: Vec<HunkDiff>,
}

/// One hunk of a [`FileDiff`], as long as Git made it (split later, at [`MAX_HUNK_LINES`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HunkDiff {
    pub old_start: u64,
    pub old_lines: u64,
    pub new_start: u64,
    pub new_lines: u64,
    /// The function or section heading Git found, or empty.
    pub section: String,
    /// Shared with the hunks split from it (a hunk short enough keeps the same lines).
    pub lines: Arc<[Line]>,
}

impl Diff {
    /// Parses unified diff text (`git diff` output, with or without `-M -C`).
    pub fn parse(text: &str) -> Self {
        let mut files: Vec<FileDiff> = Vec::new();
        // The end of the text after its last newline is not a line (it would read as an empty
        // context line, one more than the text renders back to; issue 36).
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut lines = body.split('\n').peekable();
        while let Some(line) = lines.next() {
            if let Some(rest) = line.strip_prefix("diff --git ") {
                files.push(FileDiff {
                    path: header_path(rest),
                    old_path: None,
                    status: FileStatus::ModeOnly,
                    hunks: Vec::new(),
                });
                continue;
            }
            let Some(file) = files.last_mut() else {
                continue;
            };
            if let Some((os, ol, ns, nl, section)) = parse_header(line) {
                let lines = hunk_lines(&mut lines, ol, nl);
                file.hunks.push(HunkDiff {
                    old_start: os,
                    old_lines: ol,
                    new_start: ns,
                    new_lines: nl,
                    section,
                    lines: lines.into(),
                });
            } else {
                file_header_line(file, line);
            }
        }
        for file in &mut files {
            if file.status == FileStatus::ModeOnly && !file.hunks.is_empty() {
                file.status = FileStatus::Modified;
            }
            // A file added or deleted has one side only: an old path its headers named anyway
            // is not kept, so the diff reads as it renders (issue 36).
            if matches!(file.status, FileStatus::Added | FileStatus::Deleted) {
                file.old_path = None;
            }
            // A rename or copy names where it came from, even from its own path.
            if matches!(file.status, FileStatus::Renamed | FileStatus::Copied)
                && file.old_path.is_none()
            {
                file.old_path = Some(file.path.clone());
            }
        }
        Self { files }
    }

    /// The unified diff text (`diff --git`, status lines, `---`/`+++`, hunks), for what sends
    /// a diff as text. Paths are quoted as Git quotes them; [`Diff::parse`] reads it back.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            let old = f.old_path.as_deref().unwrap_or(&f.path);
            let (a, b) = (quote_path("a/", old), quote_path("b/", &f.path));
            out.push_str(&format!("diff --git {a} {b}\n"));
            match f.status {
                FileStatus::Added => out.push_str("new file mode 100644\n"),
                FileStatus::Deleted => out.push_str("deleted file mode 100644\n"),
                FileStatus::Renamed | FileStatus::Copied => {
                    let verb = if f.status == FileStatus::Renamed {
                        "rename"
                    } else {
                        "copy"
                    };
                    let (from, to) = (quote_path("", old), quote_path("", &f.path));
                    out.push_str(&format!("{verb} from {from}\n{verb} to {to}\n"));
                }
                _ => {}
            }
            if f.status == FileStatus::Binary {
                out.push_str(&format!("Binary files {a} and {b} differ\n"));
                continue;
            }
            // A modified file's `---`/`+++` lines are written even without hunks (a combined
            // diff's), so it reads back modified with the same paths (issue 36).
            if f.hunks.is_empty() && f.status != FileStatus::Modified {
                continue;
            }
            let minus = if f.status == FileStatus::Added {
                "/dev/null".to_owned()
            } else {
                a
            };
            let plus = if f.status == FileStatus::Deleted {
                "/dev/null".to_owned()
            } else {
                b
            };
            out.push_str(&format!("--- {minus}\n+++ {plus}\n"));
            for h in &f.hunks {
                let ranges = [h.old_start, h.old_lines, h.new_start, h.new_lines];
                write_hunk(&mut out, ranges, &h.section, &h.lines);
            }
        }
        out
    }

    /// The files with their hunks split at [`MAX_HUNK_LINES`], ids given, paths classified.
    pub fn split(&self) -> Vec<DiffFile> {
        self.files.iter().map(split_file).collect()
    }

    /// [`Diff::split`], taking each file that is the same in `before` (a diff and its split
    /// files, as [`DiffEvidence`] keeps them) from there instead of splitting and hashing it
    /// again; a file the evidence set aside gets its own kind back.
    fn split_after(&self, before: &DiffEvidence) -> Vec<DiffFile> {
        let at: std::collections::HashMap<&str, usize> = before
            .source
            .diff
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.as_str(), i))
            .collect();
        self.files
            .iter()
            .map(|f| {
                let kept = at
                    .get(f.path.as_str())
                    .filter(|&&i| before.source.diff.files[i] == *f)
                    .and_then(|&i| before.files.get(i));
                let Some(kept) = kept else {
                    return split_file(f);
                };
                let mut file = kept.clone();
                file.kind = classify_path(&file.path);
                for hunk in &mut file.hunks {
                    hunk.kind = file.kind;
                }
                file
            })
            .collect()
    }
}

/// Whether line `line` (1-based, new side) of the file at `path` is one this diff adds.
fn added_line(files: &[DiffFile], path: &str, line: usize) -> bool {
    let Some(file) = files.iter().find(|f| f.path == path) else {
        return false;
    };
    file.hunks.iter().any(|h| {
        let mut at = h.new_start as usize;
        for l in h.lines.iter() {
            match l.tag {
                '+' if at == line => return true,
                '+' | ' ' => at += 1,
                _ => {}
            }
        }
        false
    })
}

/// One file of a diff, its hunks split at [`MAX_HUNK_LINES`] and given their ids.
fn split_file(f: &FileDiff) -> DiffFile {
    let mut file = DiffFile {
        kind: classify_path(&f.path),
        path: f.path.clone(),
        old_path: f.old_path.clone(),
        status: f.status,
        hunks: Vec::new(),
    };
    for raw in &f.hunks {
        file.hunks.extend(split_hunk(&file, raw.clone()));
    }
    file
}

/// Writes `@@ -a,b +c,d @@ section` and the lines with their markers, each ending in a newline.
fn write_hunk(out: &mut String, [os, ol, ns, nl]: [u64; 4], section: &str, lines: &[Line]) {
    out.push_str(&format!("@@ -{os},{ol} +{ns},{nl} @@"));
    if !section.is_empty() {
        out.push(' ');
        out.push_str(section);
    }
    out.push('\n');
    for line in lines {
        out.push(line.tag);
        out.push_str(&line.text);
        out.push('\n');
    }
}

/// Applies one line of a file's header (`new file mode`, `rename from`, `---`, `+++`, …).
fn file_header_line(file: &mut FileDiff, line: &str) {
    if line.starts_with("new file mode") {
        file.status = FileStatus::Added;
    } else if line.starts_with("deleted file mode") {
        file.status = FileStatus::Deleted;
    } else if line.starts_with("Binary files ") || line.starts_with("GIT binary patch") {
        file.status = FileStatus::Binary;
    } else if let Some(old) = line.strip_prefix("rename from ") {
        file.old_path = Some(unquote(old));
        file.status = FileStatus::Renamed;
    } else if let Some(old) = line.strip_prefix("copy from ") {
        file.old_path = Some(unquote(old));
        file.status = FileStatus::Copied;
    } else if let Some(new) = line
        .strip_prefix("rename to ")
        .or_else(|| line.strip_prefix("copy to "))
    {
        file.path = unquote(new);
    } else if let Some(old) = line.strip_prefix("--- ") {
        if old.trim_end() == "/dev/null" {
            file.status = FileStatus::Added;
        } else if file.old_path.is_none() {
            let old = strip_side(old, "a/");
            if old != file.path {
                file.old_path = Some(old);
            }
        }
    } else if let Some(new) = line.strip_prefix("+++ ") {
        if new.trim_end() == "/dev/null" {
            file.status = FileStatus::Deleted;
        } else {
            let path = strip_side(new, "b/");
            if file.old_path.as_deref() == Some(path.as_str()) {
                file.old_path = None;
            }
            file.path = path;
            if file.status == FileStatus::ModeOnly {
                file.status = FileStatus::Modified;
            }
            if !matches!(file.status, FileStatus::Renamed | FileStatus::Copied)
                && file.old_path.as_deref() == Some(file.path.as_str())
            {
                file.old_path = None;
            }
        }
    }
}

/// A hunk's body: lines until both sides' counts are used up (`\ No newline` markers skipped).
fn hunk_lines<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    old_lines: u64,
    new_lines: u64,
) -> Vec<Line> {
    let (mut old_left, mut new_left) = (old_lines, new_lines);
    let mut body = Vec::new();
    while old_left > 0 || new_left > 0 {
        let Some(next) = lines.peek() else { break };
        let next = *next;
        if next.starts_with('\\') {
            lines.next();
            continue;
        }
        let (tag, text) = match next.chars().next() {
            Some('+') => ('+', &next[1..]),
            Some('-') => ('-', &next[1..]),
            Some(' ') => (' ', &next[1..]),
            None => (' ', ""),
            Some(_) => break,
        };
        match tag {
            '+' => new_left = new_left.saturating_sub(1),
            '-' => old_left = old_left.saturating_sub(1),
            _ => {
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
        }
        body.push(Line {
            tag,
            text: text.to_owned(),
        });
        lines.next();
    }
    while lines.peek().is_some_and(|l| l.starts_with('\\')) {
        lines.next();
    }
    body
}

/// `prefix` + `path`, in Git's C-style quotes when the path holds a quote, a backslash, a
/// control character or a non-ASCII byte (as `core.quotePath` does).
fn quote_path(prefix: &str, path: &str) -> String {
    let plain = format!("{prefix}{path}");
    if !plain
        .bytes()
        .any(|b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\')
    {
        return plain;
    }
    let mut out = String::from("\"");
    for b in plain.bytes() {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\{b:03o}")),
            b => out.push(char::from(b)),
        }
    }
    out.push('"');
    out
}

/// Parses unified diff text into files with their (split) hunks.
pub fn parse_diff(text: &str) -> Vec<DiffFile> {
    Diff::parse(text).split()
}

fn make_hunk(file: &DiffFile, raw: HunkDiff, part: Option<(usize, usize)>) -> Hunk {
    let added = raw.lines.iter().filter(|l| l.tag == '+').count();
    let removed = raw.lines.iter().filter(|l| l.tag == '-').count();
    let id = stable_id(
        "h",
        &json!({
            "path": file.path,
            "oldStart": raw.old_start,
            "newStart": raw.new_start,
            "lines": raw.lines.iter().map(|l| json!({"type": l.tag.to_string(), "text": l.text})).collect::<Vec<_>>(),
            "part": part.map(|(i, n)| json!({"index": i, "count": n})),
        }),
        10,
    );
    Hunk {
        id,
        path: file.path.clone(),
        old_path: file.old_path.clone(),
        file_status: file.status,
        kind: file.kind,
        old_start: raw.old_start,
        old_lines: raw.old_lines,
        new_start: raw.new_start,
        new_lines: raw.new_lines,
        section: raw.section,
        lines: raw.lines,
        added,
        removed,
        part,
    }
}

fn split_hunk(file: &DiffFile, raw: HunkDiff) -> Vec<Hunk> {
    if raw.lines.len() <= MAX_HUNK_LINES {
        return vec![make_hunk(file, raw, None)];
    }
    let count = raw.lines.len().div_ceil(MAX_HUNK_LINES);
    let (mut old_at, mut new_at) = (raw.old_start, raw.new_start);
    let mut out = Vec::with_capacity(count);
    for (i, chunk) in raw.lines.chunks(MAX_HUNK_LINES).enumerate() {
        let old_n = chunk.iter().filter(|l| l.tag != '+').count() as u64;
        let new_n = chunk.iter().filter(|l| l.tag != '-').count() as u64;
        // As in unified diff, an empty side names the line before it (`-157,0` after line 157).
        let empty_start = |at: u64, n: u64| if n == 0 { at.saturating_sub(1) } else { at };
        let part = HunkDiff {
            old_start: empty_start(old_at, old_n),
            old_lines: old_n,
            new_start: empty_start(new_at, new_n),
            new_lines: new_n,
            section: raw.section.clone(),
            lines: chunk.into(),
        };
        out.push(make_hunk(file, part, Some((i + 1, count))));
        old_at += old_n;
        new_at += new_n;
    }
    out
}

/// A diff ready for planning: every file, the eligible hunks in diff order, and exclusions.
#[derive(Clone, Debug)]
pub struct DiffEvidence {
    /// The diff it was made from, shared with whoever keeps it (the Git port).
    pub source: Arc<DiffSource>,
    pub files: Vec<DiffFile>,
    /// Hunks that may be read: judged by Jev, or (lockfiles and generated files) only by
    /// deterministic checks.
    pub hunks: Vec<Hunk>,
    /// Files left out entirely, with the reason.
    pub excluded: Vec<Exclusion>,
    /// Lockfiles and generated files: their hunks stay in `hunks` for deterministic checks,
    /// and no analysis sends them to Jev.
    pub set_aside: Vec<Exclusion>,
}

impl DiffEvidence {
    /// Parses the source and applies the exclusion policy ([`crate::exclusion`]) to each file:
    /// binary, credential-shaped, vendored, linked, submodule, minified and large data files,
    /// empty files, mode changes and pure moves are excluded; lockfiles and generated files (by
    /// path or by a header comment) are set aside; then a folder whose changed files copy
    /// another folder's ([`mirror`]) is excluded. Every exclusion names its rule.
    pub fn from_source(source: impl Into<Arc<DiffSource>>) -> Self {
        let source = source.into();
        let files = source.diff.split();
        Self::from_split(source, files)
    }

    /// [`DiffEvidence::from_source`], reusing the split hunks of every file whose diff is the
    /// same in `before` (the evidence of an earlier diff of the same repository); everything
    /// that depends on more than one file (generated and mirrored folders) is decided again.
    pub fn from_source_after(source: impl Into<Arc<DiffSource>>, before: &DiffEvidence) -> Self {
        let source = source.into();
        let files = source.diff.split_after(before);
        Self::from_split(source, files)
    }

    fn from_split(source: Arc<DiffSource>, mut files: Vec<DiffFile>) -> Self {
        // What the repository declares decides a file's kind before any guess (D-163), except
        // what the change under review declares itself: a line it adds to an attributes file
        // cannot take files out of its review (it can still bring one in, `=false`).
        let facts: Vec<Option<Cow<'_, FileFacts>>> = files
            .iter()
            .map(|f| {
                let facts = source.facts.get(&f.path)?;
                let planted = |d: &crate::declared::Declaration| {
                    d.leaves_out()
                        && d.origin
                            .as_ref()
                            .is_some_and(|o| added_line(&files, &o.file, o.line))
                };
                if !facts.declared.declarations.iter().any(planted) {
                    return Some(Cow::Borrowed(facts));
                }
                let mut kept = facts.clone();
                kept.declared.declarations.retain(|d| !planted(d));
                Some(Cow::Owned(kept))
            })
            .collect();
        for (file, facts) in files.iter_mut().zip(&facts) {
            let Some(facts) = facts.as_deref().filter(|f| !f.declared.is_empty()) else {
                continue;
            };
            file.kind = crate::paths::classify_declared(&file.path, &facts.declared);
            for hunk in &mut file.hunks {
                hunk.kind = file.kind;
            }
        }
        let mut excluded = source.excluded.clone();
        let mut set_aside = Vec::new();
        let mut verdicts: Vec<Option<Verdict>> = files
            .iter()
            .zip(&facts)
            .map(|(file, facts)| Self::verdict(file, facts.as_deref()))
            .collect();
        let judged: Vec<usize> = (0..files.len())
            .filter(|&i| verdicts[i].is_none())
            .collect();
        // A file declared not generated is not taken for a build of another.
        let guessable: Vec<usize> = judged
            .iter()
            .copied()
            .filter(|&i| !crate::exclusion::generated_guesses_off(facts[i].as_deref()))
            .collect();
        for (i, source) in mirror::compiled(&files, &guessable) {
            verdicts[i] = Some(Verdict::new(
                Rule::CompiledOutput,
                format!("generated file (built from {source}, which changes too)"),
            ));
        }
        let judged: Vec<usize> = judged
            .into_iter()
            .filter(|&i| verdicts[i].is_none())
            .collect();
        for (i, mirrored) in mirror::find(&files, &judged) {
            verdicts[i] = Some(Verdict::new(Rule::MirrorFolder, mirrored.reason()));
        }
        let mut hunks = Vec::new();
        for (file, verdict) in files.iter_mut().zip(verdicts) {
            let Some(verdict) = verdict else {
                hunks.extend(file.hunks.iter().cloned());
                continue;
            };
            if verdict.rule.sets_aside() && !file.hunks.is_empty() {
                if file.kind != PathKind::Lockfile {
                    file.kind = PathKind::Generated;
                    for hunk in &mut file.hunks {
                        hunk.kind = PathKind::Generated;
                    }
                }
                hunks.extend(file.hunks.iter().cloned());
                set_aside.push(Exclusion::verdict(&file.path, verdict));
            } else {
                excluded.push(Exclusion::verdict(&file.path, verdict));
            }
        }
        Self {
            source,
            files,
            hunks,
            excluded,
            set_aside,
        }
    }

    /// Why one file is left out, if it is: what it is (a binary change, an empty file, a mode
    /// change), then the exclusion policy, then a move or copy without an edit.
    fn verdict(file: &DiffFile, facts: Option<&FileFacts>) -> Option<Verdict> {
        let longest = file
            .hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| l.text.chars().count())
            .max()
            .unwrap_or(0);
        if let Some(v) = crate::exclusion::declared(&file.path, facts) {
            return Some(v);
        }
        if file.status == FileStatus::Binary {
            let label = match (&file.old_path, facts.and_then(|f| f.change)) {
                (Some(old), _) => format!("binary file moved or copied from {old}, and changed"),
                (None, Some(WholeFile::Added)) => "binary file added".to_owned(),
                (None, Some(WholeFile::Deleted)) => "binary file deleted".to_owned(),
                (None, None) => "binary change".to_owned(),
            };
            return Some(Verdict::new(Rule::BinaryContent, label));
        }
        if let Some(v) = crate::exclusion::reason(&file.path, file.kind, facts, longest) {
            return Some(v);
        }
        if !file.hunks.is_empty() {
            return None;
        }
        Some(match file.status {
            FileStatus::Renamed => Verdict::new(Rule::Unchanged, "moved without changes"),
            FileStatus::Copied => Verdict::new(Rule::Unchanged, "copied without changes"),
            FileStatus::Added => Verdict::new(Rule::EmptyFile, "empty file added"),
            FileStatus::Deleted => Verdict::new(Rule::EmptyFile, "empty file deleted"),
            FileStatus::TypeChange => Verdict::new(Rule::EmptyFile, "a link became an empty file"),
            _ => Verdict::new(Rule::ModeOnly, "mode change only"),
        })
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;

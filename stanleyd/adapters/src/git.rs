//! The `Git` port over git2: the diff of a selection (worktree, staged, branch) as the domain
//! `Diff`, built from git2's patches without a round trip through text, with three lines of
//! context and renames and copies paired as `git diff -M -C` pairs them; what is known of each changed file's content (size,
//! first bytes, link or submodule); and safe untracked files folded in as added files for the
//! worktree scope.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use git2::{Delta, DiffOptions, FileMode, Oid, Patch, Repository, Status, StatusOptions};
use stanley_workflows::diff::{
    Diff, DiffSource, Exclusion, FileDiff, FileFacts, FileStatus, HunkDiff, Line, Scope,
};
use stanley_workflows::exclusion::{self, HEAD_BYTES, Rule, WholeFile};
use stanley_workflows::paths::{PathKind, classify_declared, classify_path, is_secret_path};
use stanley_workflows::ports::{Git, GitError, Workspace};

use crate::workspace::split_lines;

mod attributes;
mod moved;
mod pairs;
use pairs::Paired;

/// Largest diff accepted, in bytes of its text form (32 MiB).
pub const MAX_DIFF_BYTES: usize = 33_554_432;
/// Largest untracked file folded into a diff (2 MiB).
pub const MAX_UNTRACKED_BYTES: u64 = 2_097_152;

/// A repository opened with git2.
pub struct Git2Repo {
    root: PathBuf,
    repo: Mutex<Repository>,
    /// The last branch diff and the commits it was made from. Commits never change, so the same
    /// base, merge base and `HEAD` give the same diff: a repeat skips the diff, the rename
    /// pairing and the file facts (issue 32).
    branch_memo: Mutex<Option<(BranchKey, Arc<DiffSource>)>>,
    /// How many branch diffs were made from the kept one after `HEAD` moved ([`moved`]).
    moved: std::sync::atomic::AtomicU64,
}

/// What a branch diff is a function of.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BranchKey {
    base_name: String,
    base: Oid,
    merge_base: Oid,
    head: Oid,
}

impl std::fmt::Debug for Git2Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Git2Repo")
            .field("root", &self.root)
            .finish()
    }
}

fn git_err(context: &'static str, e: &git2::Error) -> GitError {
    let msg: String = e.message().chars().take(200).collect();
    GitError::Git {
        context,
        message: msg,
        source: Some(std::sync::Arc::new(git2::Error::new(
            e.code(),
            e.class(),
            e.message(),
        ))),
    }
}

/// Whether a ref is safe to resolve: `^[A-Za-z0-9][A-Za-z0-9._/@^~-]{0,199}$` without `..`.
pub fn valid_ref(text: &str) -> bool {
    let mut chars = text.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    first_ok
        && text.len() <= 200
        && !text.contains("..")
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/@^~-".contains(c))
}

/// Finds the worktree root that contains `dir`.
pub fn worktree_root(dir: &Path) -> Result<PathBuf, GitError> {
    let repo = Repository::discover(dir).map_err(|_| GitError::NotARepository {
        path: dir.to_path_buf(),
    })?;
    let workdir = repo.workdir().ok_or_else(|| GitError::NoWorkingTree {
        path: dir.to_path_buf(),
    })?;
    workdir.canonicalize().map_err(|e| GitError::Resolve {
        path: workdir.to_path_buf(),
        source: std::sync::Arc::new(e),
    })
}

/// The worktree's status entries, untracked files included (recursively), ignored files and
/// submodules left out.
fn worktree_statuses(repo: &Repository) -> Result<git2::Statuses<'_>, GitError> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    repo.statuses(Some(&mut opts))
        .map_err(|e| git_err("status", &e))
}

impl Git2Repo {
    /// Opens the repository whose worktree root is `root`.
    pub fn open(root: &Path) -> Result<Self, GitError> {
        // libgit2 hashes every object it reads again to check it (Git does not, outside
        // `fsck`): on a large diff that was a tenth of a request's time (issue 32, D-123).
        static NO_REHASH: std::sync::Once = std::sync::Once::new();
        NO_REHASH.call_once(|| git2::opts::strict_hash_verification(false));
        let repo = Repository::open(root).map_err(|_| GitError::NotARepository {
            path: root.to_path_buf(),
        })?;
        Ok(Self {
            root: root.to_path_buf(),
            repo: Mutex::new(repo),
            branch_memo: Mutex::new(None),
            moved: std::sync::atomic::AtomicU64::new(0),
        })
    }

    fn resolve(repo: &Repository, spec: &str) -> Result<Oid, GitError> {
        if !valid_ref(spec) {
            let shown: String = spec.chars().take(80).collect();
            return Err(GitError::UnsupportedRef(shown));
        }
        repo.revparse_single(spec)
            .and_then(|o| o.peel_to_commit())
            .map(|c| c.id())
            .map_err(|_| GitError::UnknownRevision(spec.to_owned()))
    }

    fn head(repo: &Repository) -> Option<Oid> {
        repo.head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .map(|c| c.id())
    }

    fn untracked(
        &self,
        repo: &Repository,
        input_file: Option<&str>,
        out: &mut Folded,
        cancel: &stanley_core::Cancel,
    ) -> Result<bool, GitError> {
        let statuses = worktree_statuses(repo)?;
        let mut paths: Vec<String> = statuses
            .iter()
            .filter(|s| s.status().contains(Status::WT_NEW))
            .filter_map(|s| s.path().ok().map(str::to_owned))
            .filter(|p| Some(p.as_str()) != input_file)
            .collect();
        paths.sort();
        let untracked = paths.clone();
        let mut included = false;
        let mut attributes = attributes::Attributes::new(repo, &self.root);
        for path in paths {
            if cancel.is_cancelled() {
                return Err(GitError::Cancelled);
            }
            // Never read: credential-shaped, binary and vendored paths, and what the repository
            // declares vendored or not diffed. Lockfiles and generated files are read and set
            // aside by the exclusion policy like tracked ones.
            // A declaration made in an attributes file this change touches is the change's
            // own: it cannot leave a new file unread (D-163).
            let changed = |file: &str| {
                untracked.iter().any(|p| p == file) || out.diff.files.iter().any(|f| f.path == file)
            };
            let mut declared = attributes.of(&path);
            declared.declarations.retain(|d| {
                !(d.leaves_out() && d.origin.as_ref().is_some_and(|o| changed(&o.file)))
            });
            let kind = classify_declared(&path, &declared);
            let facts = FileFacts {
                declared,
                change: Some(WholeFile::Added),
                ..FileFacts::default()
            };
            if let Some(verdict) = exclusion::declared(&path, Some(&facts))
                .filter(|v| v.rule != Rule::GeneratedAttribute)
            {
                out.excluded.push(Exclusion::verdict(&path, verdict));
                continue;
            }
            if matches!(
                kind,
                PathKind::Secret | PathKind::Binary | PathKind::Vendored
            ) {
                if let Some(verdict) = exclusion::by_path(&path, kind) {
                    out.excluded.push(Exclusion::verdict(&path, verdict));
                }
                continue;
            }
            let full = self.root.join(&path);
            let Ok(meta) = fs::symlink_metadata(&full) else {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::Unreadable,
                    "untracked file is unreadable",
                ));
                continue;
            };
            if meta.file_type().is_symlink() {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::Symlink,
                    "symbolic link (its target is not followed)",
                ));
                continue;
            }
            if meta.len() > MAX_UNTRACKED_BYTES {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::SizeLimit,
                    format!(
                        "untracked file of {} bytes exceeds {MAX_UNTRACKED_BYTES} bytes",
                        meta.len()
                    ),
                ));
                continue;
            }
            let Some(bytes) = crate::records::read_bounded(&full, MAX_UNTRACKED_BYTES)
                .ok()
                .filter(|_| meta.is_file())
            else {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::Unreadable,
                    "untracked file is unreadable",
                ));
                continue;
            };
            if bytes.contains(&0) {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::BinaryContent,
                    "binary file (untracked)",
                ));
                continue;
            }
            let content = String::from_utf8_lossy(&bytes);
            out.facts.insert(
                path.clone(),
                FileFacts {
                    bytes: meta.len(),
                    head: head_of(&bytes),
                    ..facts
                },
            );
            let hunks = added_text(&content);
            let bytes = header_bytes(&path) + hunk_bytes(&hunks);
            if out.bytes + bytes > MAX_DIFF_BYTES {
                out.excluded.push(Exclusion::file(
                    &path,
                    Rule::SizeLimit,
                    format!("combined diff exceeds {MAX_DIFF_BYTES} bytes"),
                ));
                continue;
            }
            out.diff.files.push(FileDiff {
                path,
                old_path: None,
                status: FileStatus::Added,
                hunks,
            });
            out.bytes += bytes;
            included = true;
        }
        Ok(included)
    }

    /// What is known of each changed file's judged side: its size, first bytes, and whether it
    /// is a link or a submodule. The new side is read from the worktree in that scope.
    fn facts(
        &self,
        repo: &Repository,
        diff: &git2::Diff<'_>,
        scope: Scope,
    ) -> BTreeMap<String, FileFacts> {
        let mut out = BTreeMap::new();
        let mut attributes = attributes::Attributes::new(repo, &self.root);
        for delta in diff.deltas() {
            let deleted = delta.status() == Delta::Deleted;
            let side = if deleted {
                delta.old_file()
            } else {
                delta.new_file()
            };
            let Some(path) = side.path().and_then(Path::to_str) else {
                continue;
            };
            let mode = side.mode();
            let mut facts = FileFacts {
                symlink: mode == FileMode::Link,
                submodule: mode == FileMode::Commit,
                bytes: side.size(),
                change: match delta.status() {
                    Delta::Added => Some(WholeFile::Added),
                    Delta::Deleted => Some(WholeFile::Deleted),
                    _ => None,
                },
                declared: attributes.of(path),
                ..FileFacts::default()
            };
            if !(facts.symlink || facts.submodule || is_secret_path(path)) {
                // git2 inflates a whole blob to show its first bytes: past the diff size limit
                // the size alone decides (the large-data rule), and the marker is not looked for.
                let blob = (!side.id().is_zero() && side.size() <= MAX_DIFF_BYTES as u64)
                    .then(|| repo.find_blob(side.id()).ok())
                    .flatten();
                match blob {
                    Some(blob) => {
                        facts.bytes = blob.size() as u64;
                        facts.head = head_of(blob.content());
                    }
                    None if scope == Scope::Worktree && !deleted => {
                        if let Some((bytes, head)) = read_head(&self.root.join(path)) {
                            facts.bytes = bytes;
                            facts.head = head;
                        }
                    }
                    None => {}
                }
            }
            out.insert(path.to_owned(), facts);
        }
        out
    }
}

/// What the untracked-file pass adds to a diff.
struct Folded {
    diff: Diff,
    /// The size of `diff` as text, near enough for [`MAX_DIFF_BYTES`].
    bytes: usize,
    excluded: Vec<Exclusion>,
    facts: BTreeMap<String, FileFacts>,
}

/// The first [`HEAD_BYTES`] of `bytes`, decoded lossily.
fn head_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_BYTES)]).into_owned()
}

/// The size and first bytes of a regular worktree file (a link is not followed).
fn read_head(path: &Path) -> Option<(u64, String)> {
    let file = crate::records::open_regular(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut buf = Vec::with_capacity(HEAD_BYTES);
    file.take(HEAD_BYTES as u64).read_to_end(&mut buf).ok()?;
    Some((len, head_of(&buf)))
}

/// A diff line's size as text: its marker, its content and the newline.
fn line_bytes(line: &Line) -> usize {
    line.text.len() + 2
}

/// A file header's size as text, near enough (`diff --git`, the status line, `---`, `+++`).
fn header_bytes(path: &str) -> usize {
    4 * path.len() + 64
}

/// A path git2 reports, decoded lossily (Git paths are bytes).
fn path_text(file: &git2::DiffFile<'_>) -> Option<String> {
    file.path_bytes()
        .map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The size of `hunks` as text.
fn hunk_bytes(hunks: &[HunkDiff]) -> usize {
    hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .map(line_bytes)
        .sum()
}

/// A whole file's text as one hunk of added lines (none for an empty file).
fn added_text(content: &str) -> Vec<HunkDiff> {
    let lines: Vec<Line> = split_lines(content)
        .into_iter()
        .map(|text| Line {
            tag: '+',
            text: text.to_owned(),
        })
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    vec![HunkDiff {
        old_start: 0,
        old_lines: 0,
        new_start: 1,
        new_lines: lines.len() as u64,
        section: String::new(),
        lines: lines.into(),
    }]
}

/// A patch's hunks as the domain's, and their size as text.
fn hunks_of(patch: &Patch<'_>) -> Result<(Vec<HunkDiff>, usize), GitError> {
    let mut bytes = 0usize;
    let mut hunks = Vec::with_capacity(patch.num_hunks());
    for h in 0..patch.num_hunks() {
        let (hunk, count) = patch.hunk(h).map_err(|e| git_err("diff", &e))?;
        let header = String::from_utf8_lossy(hunk.header());
        // `@@ -a,b +c,d @@ section\n`: what follows the second `@@`, as text has it.
        let section = header
            .split_once(" @@")
            .map(|(_, rest)| {
                let rest = rest.strip_suffix('\n').unwrap_or(rest);
                rest.trim_start().to_owned()
            })
            .unwrap_or_default();
        let mut lines = Vec::with_capacity(count);
        for l in 0..count {
            let line = patch.line_in_hunk(h, l).map_err(|e| git_err("diff", &e))?;
            let tag = line.origin();
            if !matches!(tag, '+' | '-' | ' ') {
                continue;
            }
            let content = line.content();
            let content = content.strip_suffix(b"\n").unwrap_or(content);
            let line = Line {
                tag,
                text: String::from_utf8_lossy(content).into_owned(),
            };
            bytes += line_bytes(&line);
            lines.push(line);
        }
        if bytes > MAX_DIFF_BYTES {
            return Err(too_big());
        }
        hunks.push(HunkDiff {
            old_start: u64::from(hunk.old_start()),
            old_lines: u64::from(hunk.old_lines()),
            new_start: u64::from(hunk.new_start()),
            new_lines: u64::from(hunk.new_lines()),
            section,
            lines: lines.into(),
        });
    }
    Ok((hunks, bytes))
}

fn too_big() -> GitError {
    GitError::TooLarge {
        limit: MAX_DIFF_BYTES as u64,
    }
}

/// A side's bytes, as the Git port reads them (the blob, or the worktree file).
type SideBytes<'a> = &'a dyn Fn(&git2::DiffFile<'_>) -> Option<Vec<u8>>;

/// git2's diff as the domain [`Diff`], and its size as text: each delta's status and paths, and
/// its patch's hunks and lines (the `\ No newline at end of file` markers left out, as in text),
/// with the renames and copies of `paired` in place of the deltas they pair. A type change (a
/// link that became a file, or back) is one entry, as Git reports it; a new regular file's whole
/// content is its added text, read through `new_side`.
fn structure(
    diff: &git2::Diff<'_>,
    paired: &Paired,
    new_side: SideBytes<'_>,
    cancel: &stanley_core::Cancel,
) -> Result<(Diff, usize), GitError> {
    let mut out = Diff::default();
    let mut bytes = 0usize;
    for (idx, delta) in diff.deltas().enumerate() {
        if cancel.is_cancelled() {
            return Err(GitError::Cancelled);
        }
        if paired.gone.contains(&idx) {
            continue;
        }
        if let Some(file) = paired.files.get(&idx) {
            bytes += header_bytes(&file.path) + hunk_bytes(&file.hunks);
            if bytes > MAX_DIFF_BYTES {
                return Err(too_big());
            }
            out.files.push(file.clone());
            continue;
        }
        let (old, new) = (path_text(&delta.old_file()), path_text(&delta.new_file()));
        let Some(path) = new.clone().or_else(|| old.clone()) else {
            continue;
        };
        let mut file = FileDiff {
            old_path: None,
            status: match delta.status() {
                Delta::Added | Delta::Untracked => FileStatus::Added,
                Delta::Deleted => FileStatus::Deleted,
                Delta::Renamed => FileStatus::Renamed,
                Delta::Copied => FileStatus::Copied,
                Delta::Typechange => FileStatus::TypeChange,
                _ => FileStatus::Modified,
            },
            hunks: Vec::new(),
            path: if delta.status() == Delta::Deleted {
                old.clone().unwrap_or(path)
            } else {
                path
            },
        };
        if matches!(file.status, FileStatus::Renamed | FileStatus::Copied) {
            file.old_path = old.filter(|o| *o != file.path);
        }
        bytes += header_bytes(&file.path);
        if file.status == FileStatus::TypeChange {
            let new = delta.new_file();
            let regular = matches!(new.mode(), FileMode::Blob | FileMode::BlobExecutable);
            let content = regular.then(|| new_side(&new)).flatten();
            match content {
                Some(content) if content.contains(&0) => file.status = FileStatus::Binary,
                Some(content) => {
                    let hunk = added_text(&String::from_utf8_lossy(&content));
                    bytes += hunk_bytes(&hunk);
                    if bytes > MAX_DIFF_BYTES {
                        return Err(too_big());
                    }
                    file.hunks = hunk;
                }
                None => {}
            }
            out.files.push(file);
            continue;
        }
        let patch = Patch::from_diff(diff, idx).map_err(|e| git_err("diff", &e))?;
        let binary = diff.get_delta(idx).is_some_and(|d| d.flags().is_binary())
            || patch
                .as_ref()
                .is_some_and(|p| p.delta().flags().is_binary());
        if let Some(patch) = patch.filter(|_| !binary) {
            let (hunks, size) = hunks_of(&patch)?;
            bytes += size;
            if bytes > MAX_DIFF_BYTES {
                return Err(too_big());
            }
            file.hunks = hunks;
        }
        file.status = match file.status {
            _ if binary => FileStatus::Binary,
            FileStatus::Modified if file.hunks.is_empty() => FileStatus::ModeOnly,
            status => status,
        };
        out.files.push(file);
    }
    Ok((out, bytes))
}

impl Git for Git2Repo {
    fn diff(
        &self,
        scope: Scope,
        base: Option<&str>,
        input_file: Option<&str>,
    ) -> Result<Arc<DiffSource>, GitError> {
        self.diff_until(scope, base, input_file, &stanley_core::Cancel::new())
    }

    /// The diff, looking at `cancel` before each file's patch, each rename candidate and each
    /// untracked file: a cancelled request's diff ends with [`GitError::Cancelled`] within a
    /// file's work.
    fn diff_until(
        &self,
        scope: Scope,
        base: Option<&str>,
        input_file: Option<&str>,
        cancel: &stanley_core::Cancel,
    ) -> Result<Arc<DiffSource>, GitError> {
        let repo = self.repo.lock().unwrap_or_else(|e| e.into_inner());
        let head = Self::head(&repo);
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            // Git's default since 2.14: hunks shaped as `git diff` shapes them (issue 49).
            .indent_heuristic(true)
            .ignore_submodules(false)
            .include_typechange(true)
            .show_binary(false);
        let tree_of = |oid: Oid| {
            repo.find_commit(oid)
                .and_then(|c| c.tree())
                .map_err(|e| git_err("diff", &e))
        };
        let (diff, base_ref, base_commit) = match scope {
            Scope::Worktree => {
                let base_commit = match base {
                    Some(b) => Some(Self::resolve(&repo, b)?),
                    None => head,
                };
                let tree = base_commit.map(tree_of).transpose()?;
                let diff = repo
                    .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))
                    .map_err(|e| git_err("diff", &e))?;
                (diff, base.map(str::to_owned), base_commit)
            }
            Scope::Staged => {
                let tree = head.map(tree_of).transpose()?;
                let diff = repo
                    .diff_tree_to_index(tree.as_ref(), None, Some(&mut opts))
                    .map_err(|e| git_err("diff", &e))?;
                (diff, None, head)
            }
            Scope::Branch => {
                let Some(head) = head else {
                    return Err(GitError::NoHead);
                };
                let base_name = base.unwrap_or("main");
                let base_oid = Self::resolve(&repo, base_name)?;
                let merge_base = repo
                    .merge_base(base_oid, head)
                    .map_err(|e| git_err("merge-base", &e))?;
                let key = BranchKey {
                    base_name: base_name.to_owned(),
                    base: base_oid,
                    merge_base,
                    head,
                };
                let kept = self
                    .branch_memo
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                if let Some((kept_key, source)) = kept {
                    if kept_key == key {
                        return Ok(source);
                    }
                    // HEAD moved on the same merge base: reuse what the edits left alone.
                    let same_base = BranchKey {
                        head: kept_key.head,
                        ..key.clone()
                    } == kept_key;
                    if same_base
                        && let Some(moved) = self.moved_head(
                            &repo,
                            &source,
                            kept_key.head,
                            merge_base,
                            head,
                            cancel,
                        )?
                    {
                        let moved = Arc::new(moved);
                        *self.branch_memo.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some((key, moved.clone()));
                        self.moved
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        return Ok(moved);
                    }
                }
                let (old, new) = (tree_of(merge_base)?, tree_of(head)?);
                let diff = repo
                    .diff_tree_to_tree(Some(&old), Some(&new), Some(&mut opts))
                    .map_err(|e| git_err("diff", &e))?;
                (diff, Some(base_name.to_owned()), Some(base_oid))
            }
        };
        // Renames and copies, as `git diff -M -C` pairs them (D-117): a moved file
        // contributes only its edits, under its new path.
        let paired = self.pair_renames(&repo, &diff, cancel)?;
        // Deltas git2 reports as untracked or ignored are not part of a tracked diff.
        debug_assert!(diff.deltas().all(|d| d.status() != Delta::Untracked));
        let (structured, bytes) =
            structure(&diff, &paired, &|f| self.side_bytes(&repo, f), cancel)?;
        let mut folded = Folded {
            diff: structured,
            bytes,
            excluded: Vec::new(),
            facts: self.facts(&repo, &diff, scope),
        };
        let mut probe = format!("git-diff-U3:{}", scope.as_str());
        if scope == Scope::Worktree && self.untracked(&repo, input_file, &mut folded, cancel)? {
            probe = "git-diff-U3:worktree+untracked-files".into();
        }
        let Folded {
            diff,
            excluded,
            facts,
            ..
        } = folded;
        let source = Arc::new(DiffSource {
            diff,
            scope,
            base_ref,
            base_commit: base_commit.map(|o| o.to_string()),
            head_commit: head.map(|o| o.to_string()),
            probe,
            excluded,
            facts,
        });
        if scope == Scope::Branch
            && let (Some(head), Some(base_commit), Some(base_name)) =
                (head, base_commit, source.base_ref.clone())
            && let Ok(merge_base) = repo.merge_base(base_commit, head)
        {
            *self.branch_memo.lock().unwrap_or_else(|e| e.into_inner()) = Some((
                BranchKey {
                    base_name,
                    base: base_commit,
                    merge_base,
                    head,
                },
                source.clone(),
            ));
        }
        Ok(source)
    }

    fn uncommitted(&self) -> Result<Vec<String>, GitError> {
        let repo = self.repo.lock().unwrap_or_else(|e| e.into_inner());
        let mut opts = StatusOptions::new();
        opts.include_untracked(false)
            .include_ignored(false)
            .exclude_submodules(true);
        let statuses = repo
            .statuses(Some(&mut opts))
            .map_err(|e| git_err("status", &e))?;
        let mut paths: Vec<String> = statuses
            .iter()
            .filter(|e| e.status() != git2::Status::CURRENT)
            .map(|e| String::from_utf8_lossy(e.path_bytes()).into_owned())
            .collect();
        paths.sort_unstable();
        paths.dedup();
        Ok(paths)
    }
}

impl Git2Repo {
    /// How many branch diffs were made from the kept one after `HEAD` moved, rather than in
    /// full.
    pub fn diffs_from_kept(&self) -> u64 {
        self.moved.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Forgets the last branch diff it keeps, and libgit2's caches with it (object and delta
    /// base caches live as long as the open repository, so it is opened afresh).
    pub fn let_go(&self) {
        *self.branch_memo.lock().unwrap_or_else(|e| e.into_inner()) = None;
        if let Ok(fresh) = Repository::open(&self.root) {
            *self.repo.lock().unwrap_or_else(|e| e.into_inner()) = fresh;
        }
    }

    /// A snapshot for detecting writes: every non-ignored status entry (untracked files
    /// included) as `<status bits> <path>`, and the SHA-256 of the tracked worktree diff.
    pub fn snapshot(&self) -> Result<(std::collections::BTreeSet<String>, String), GitError> {
        let repo = self.repo.lock().unwrap_or_else(|e| e.into_inner());
        let statuses = worktree_statuses(&repo)?;
        let entries = statuses
            .iter()
            .filter_map(|s| {
                s.path()
                    .ok()
                    .map(|p| format!("{:x} {p}", s.status().bits()))
            })
            .collect();
        let head = Self::head(&repo)
            .and_then(|h| repo.find_commit(h).ok())
            .and_then(|c| c.tree().ok());
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            // Git's default since 2.14: hunks shaped as `git diff` shapes them (issue 49).
            .indent_heuristic(true);
        let diff = repo
            .diff_tree_to_workdir_with_index(head.as_ref(), Some(&mut opts))
            .map_err(|e| git_err("diff", &e))?;
        let never = stanley_core::Cancel::new();
        let text = structure(
            &diff,
            &Paired::default(),
            &|f| self.side_bytes(&repo, f),
            &never,
        )?
        .0
        .to_text();
        Ok((entries, stanley_core::hash::sha256_hex(text.as_bytes())))
    }
}

impl Workspace for Git2Repo {
    fn tracked(&self) -> Result<Vec<String>, GitError> {
        let repo = self.repo.lock().unwrap_or_else(|e| e.into_inner());
        let index = repo.index().map_err(|e| git_err("ls-files", &e))?;
        Ok(index
            .iter()
            .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
            .collect())
    }

    fn declared(&self, paths: &[String]) -> Vec<stanley_workflows::declared::Declared> {
        let repo = self.repo.lock().unwrap_or_else(|e| e.into_inner());
        let mut attributes = attributes::Attributes::new(&repo, &self.root);
        paths.iter().map(|p| attributes.of_stated(p)).collect()
    }

    fn file_size(&self, path: &str) -> Option<u64> {
        if is_secret_path(path) {
            return None;
        }
        let canonical_root = self.root.canonicalize().ok()?;
        let real = canonical_root.join(path).canonicalize().ok()?;
        if !real.starts_with(&canonical_root) {
            return None;
        }
        fs::metadata(&real)
            .ok()
            .filter(fs::Metadata::is_file)
            .map(|m| m.len())
    }

    fn read_head(&self, path: &str, max_bytes: usize) -> Option<String> {
        if is_secret_path(path)
            || matches!(classify_path(path), PathKind::Binary | PathKind::Vendored)
        {
            return None;
        }
        let bytes = crate::workspace::read_workspace_head(&self.root, path, max_bytes).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn read_lines(&self, path: &str) -> Option<Vec<String>> {
        if is_secret_path(path)
            || matches!(classify_path(path), PathKind::Binary | PathKind::Vendored)
        {
            return None;
        }
        let (_, bytes) =
            crate::workspace::read_workspace_file(&self.root, path, MAX_UNTRACKED_BYTES).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        let text = String::from_utf8_lossy(&bytes);
        Some(split_lines(&text).into_iter().map(str::to_owned).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_rules() {
        for ok in [
            "main",
            "HEAD~2",
            "origin/main",
            "v1.2.3",
            "HEAD^",
            "a@{1}".trim_end_matches("{1}"),
        ] {
            assert!(valid_ref(ok), "{ok}");
        }
        for bad in [
            "--upload-pack=evil",
            "main..dev",
            "",
            "-x",
            "a b",
            &"a".repeat(201),
        ] {
            assert!(!valid_ref(bad), "{bad}");
        }
    }

    #[test]
    fn a_branch_diff_is_kept_by_its_commits_and_made_again_when_head_moves() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .current_dir(dir.path())
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .status()
                .unwrap()
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        git(&["add", "."]);
        git(&["commit", "-qm", "base"]);
        git(&["checkout", "-qb", "topic"]);
        fs::write(dir.path().join("a.txt"), "two\n").unwrap();
        git(&["commit", "-qam", "two"]);
        let repo = Git2Repo::open(dir.path()).unwrap();
        let first = repo.diff(Scope::Branch, Some("main"), None).unwrap();
        // A worktree edit does not change a branch diff; the kept one is given, not a copy.
        fs::write(dir.path().join("a.txt"), "dirty\n").unwrap();
        let again = repo.diff(Scope::Branch, Some("main"), None).unwrap();
        assert!(Arc::ptr_eq(&again, &first));
        git(&["commit", "-qam", "three"]);
        let moved = repo.diff(Scope::Branch, Some("main"), None).unwrap();
        assert_ne!(moved, first);
        assert!(moved.diff.to_text().contains("+dirty"));
        repo.let_go();
        assert_eq!(repo.diff(Scope::Branch, Some("main"), None).unwrap(), moved);
        // A cancelled request's diff is given up at its first file, for every scope and for
        // the diff made from the kept one after a commit, and nothing of it is kept.
        let cancel = stanley_core::Cancel::new();
        cancel.cancel();
        fs::write(dir.path().join("b.txt"), "new\n").unwrap();
        git(&["add", "b.txt"]);
        git(&["commit", "-qm", "four"]);
        fs::write(dir.path().join("a.txt"), "five\n").unwrap();
        fs::write(dir.path().join("c.txt"), "untracked\n").unwrap();
        for scope in [Scope::Branch, Scope::Worktree, Scope::Staged] {
            let given_up = repo.diff_until(
                scope,
                Some("main").filter(|_| scope == Scope::Branch),
                None,
                &cancel,
            );
            if scope == Scope::Staged {
                // Nothing is staged: there is no file to look at the signal before.
                assert!(given_up.is_ok());
                continue;
            }
            assert!(
                matches!(given_up.unwrap_err(), GitError::Cancelled),
                "{scope:?}"
            );
        }
        let whole = repo.diff(Scope::Branch, Some("main"), None).unwrap();
        assert!(whole.diff.to_text().contains("+new"));
    }
}

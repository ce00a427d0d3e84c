//! A branch diff after `HEAD` moved by a few edits (issue 32): when the commits between the
//! kept diff's `HEAD` and the new one only change the contents of files whose place in the
//! branch diff cannot pair differently, the kept diff is reused and only those files are
//! diffed again. Git's pairs (`-M -C`) take a rename's source from a deleted file and a copy's
//! from a modified file's old side, and the destination from an added file, so an edit of a file
//! that stays modified changes no pair. Anything else (an added, removed or renamed file, a
//! mode change, an edit of an added or paired file, a file entering the diff beside added
//! files, a copy source leaving it, an edited `.gitattributes`) is diffed in full, as before.

use git2::{Delta, DiffOptions, FileMode, Oid, Repository};
use stanley_workflows::diff::{DiffSource, FileStatus, Scope};
use stanley_workflows::ports::GitError;

use super::{Git2Repo, MAX_DIFF_BYTES, git_err, header_bytes, line_bytes, structure};

/// More files than this changed since the kept diff: diff in full.
const MAX_MOVED_FILES: usize = 64;

impl Git2Repo {
    /// The branch diff from `merge_base` to `head`, made from `kept` (the diff from the same
    /// merge base to `kept_head`), or None when it must be made in full.
    pub(super) fn moved_head(
        &self,
        repo: &Repository,
        kept: &DiffSource,
        kept_head: Oid,
        merge_base: Oid,
        head: Oid,
        cancel: &stanley_core::Cancel,
    ) -> Result<Option<DiffSource>, GitError> {
        let tree_of = |oid: Oid| {
            repo.find_commit(oid)
                .and_then(|c| c.tree())
                .map_err(|e| git_err("diff", &e))
        };
        let step = repo
            .diff_tree_to_tree(Some(&tree_of(kept_head)?), Some(&tree_of(head)?), None)
            .map_err(|e| git_err("diff", &e))?;
        if step.deltas().len() > MAX_MOVED_FILES {
            return Ok(None);
        }
        let mut paths = Vec::new();
        for delta in step.deltas() {
            let (old, new) = (delta.old_file(), delta.new_file());
            let plain = |m: FileMode| matches!(m, FileMode::Blob | FileMode::BlobExecutable);
            if delta.status() != Delta::Modified || old.mode() != new.mode() || !plain(new.mode()) {
                return Ok(None);
            }
            let Some(path) = new.path().and_then(|p| p.to_str()) else {
                return Ok(None);
            };
            // An attributes file changes what other files are declared (D-163).
            if path == ".gitattributes" || path.ends_with("/.gitattributes") {
                return Ok(None);
            }
            paths.push(path.to_owned());
        }
        let has_added = kept
            .diff
            .files
            .iter()
            .any(|f| f.status == FileStatus::Added);
        for path in &paths {
            match kept.diff.files.iter().find(|f| f.path == *path) {
                // A file that stays modified: its old side, and so every pair, is unchanged.
                Some(f) if f.old_path.is_none() && is_plain(f.status) => {}
                Some(_) => return Ok(None),
                // A file entering the diff becomes a copy source an added file could pair with.
                None if has_added => return Ok(None),
                None => {}
            }
        }
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            // Git's default since 2.14: hunks shaped as `git diff` shapes them (issue 49).
            .indent_heuristic(true)
            .ignore_submodules(false)
            .show_binary(false)
            .disable_pathspec_match(true);
        for path in &paths {
            opts.pathspec(path);
        }
        let diff = repo
            .diff_tree_to_tree(
                Some(&tree_of(merge_base)?),
                Some(&tree_of(head)?),
                Some(&mut opts),
            )
            .map_err(|e| git_err("diff", &e))?;
        let (fresh, _) = structure(
            &diff,
            &super::pairs::Paired::default(),
            &|f| self.side_bytes(repo, f),
            cancel,
        )?;
        if fresh.files.iter().any(|f| !is_plain(f.status)) {
            return Ok(None);
        }
        let facts = self.facts(repo, &diff, Scope::Branch);
        let mut source = kept.clone();
        for path in &paths {
            let now = fresh.files.iter().find(|f| f.path == *path);
            // A copy's source that leaves the diff takes the copy's pairing with it.
            if now.is_none()
                && source
                    .diff
                    .files
                    .iter()
                    .any(|f| f.old_path.as_ref() == Some(path))
            {
                return Ok(None);
            }
            source.diff.files.retain(|f| f.path != *path);
            source.facts.remove(path);
            if let Some(file) = now {
                // Git lists files in the byte order of their paths.
                let at = source
                    .diff
                    .files
                    .partition_point(|f| f.path.as_bytes() < path.as_bytes());
                source.diff.files.insert(at, file.clone());
            }
            if let Some(f) = facts.get(path) {
                source.facts.insert(path.clone(), f.clone());
            }
        }
        let size: usize = source
            .diff
            .files
            .iter()
            .map(|f| {
                header_bytes(&f.path)
                    + f.hunks
                        .iter()
                        .flat_map(|h| h.lines.iter())
                        .map(line_bytes)
                        .sum::<usize>()
            })
            .sum();
        // Near the size limit the full diff decides (its count includes hunk headers).
        if size > MAX_DIFF_BYTES / 2 {
            return Ok(None);
        }
        source.head_commit = Some(head.to_string());
        Ok(Some(source))
    }
}

/// A file whose place in the diff an edit cannot change: modified, as text or binary.
fn is_plain(status: FileStatus) -> bool {
    matches!(status, FileStatus::Modified | FileStatus::Binary)
}

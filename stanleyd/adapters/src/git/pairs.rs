//! Renames and copies for the Git port, as `git diff -M -C` pairs them (D-117): the deleted and
//! modified files of a git2 diff are the sources and the added files the destinations, with
//! their modes, blob ids, sizes and bytes handed to `stanley_workflows::renames`; each pair's
//! patch is made from the two sides' bytes.

use std::fs;
use std::path::Path;

use git2::{Delta, DiffOptions, FileMode, Oid, Patch, Repository};
use stanley_workflows::diff::{FileDiff, FileStatus};
use stanley_workflows::ports::GitError;
use stanley_workflows::renames::{self, PairKind, RenameOptions, Side, Source, Wanted};

use super::{Git2Repo, MAX_DIFF_BYTES, git_err, hunks_of, path_text};

/// The paired files that replace deltas in [`structure`]: a rename or copy stands where Git
/// lists its destination, and a deleted file that a rename took away is left out.
#[derive(Default)]
pub(super) struct Paired {
    /// Destination delta index → the renamed or copied file.
    pub(super) files: std::collections::HashMap<usize, FileDiff>,
    /// Delta indexes not listed (paired destinations' own entries are replaced, not skipped).
    pub(super) gone: std::collections::HashSet<usize>,
}

/// A Git file mode as its number.
fn mode_bits(mode: FileMode) -> u32 {
    match mode {
        FileMode::Blob => 0o100_644,
        FileMode::BlobGroupWritable => 0o100_664,
        FileMode::BlobExecutable => 0o100_755,
        FileMode::Link => 0o120_000,
        FileMode::Commit => 0o160_000,
        FileMode::Tree => 0o040_000,
        FileMode::Unreadable => 0,
    }
}

impl Git2Repo {
    /// One side of a delta's bytes: its blob, or (the worktree's new side, not hashed) the
    /// regular file in the worktree, never through a link.
    pub(super) fn side_bytes(
        &self,
        repo: &Repository,
        side: &git2::DiffFile<'_>,
    ) -> Option<Vec<u8>> {
        if !side.id().is_zero() {
            return repo.find_blob(side.id()).ok().map(|b| b.content().to_vec());
        }
        let path = side.path()?;
        let full = self.root.join(path);
        let meta = fs::symlink_metadata(&full).ok()?;
        if meta.file_type().is_symlink() {
            return fs::read_link(&full)
                .ok()
                .map(|t| t.as_os_str().as_encoded_bytes().to_vec());
        }
        if !meta.is_file() || meta.len() > MAX_DIFF_BYTES as u64 {
            return None;
        }
        crate::records::read_bounded(&full, MAX_DIFF_BYTES as u64).ok()
    }

    /// Renames and copies as `git diff -M -C` pairs them ([`stanley_workflows::renames`]): the
    /// deleted and modified files are the sources, the added files the destinations, and each
    /// pair's patch is made from the two sides' bytes.
    pub(super) fn pair_renames(
        &self,
        repo: &Repository,
        diff: &git2::Diff<'_>,
        cancel: &stanley_core::Cancel,
    ) -> Result<Paired, GitError> {
        let mut sources: Vec<(usize, Source)> = Vec::new();
        let mut destinations: Vec<(usize, Side)> = Vec::new();
        // The worktree's unhashed new sides, read once: for their ids and for the patches.
        let mut read_new: std::collections::HashMap<usize, Option<Vec<u8>>> =
            std::collections::HashMap::new();
        // A tree diff leaves sizes at 0 until a patch is made: the object header has them.
        let odb = repo.odb().map_err(|e| git_err("diff", &e))?;
        let size_of = |file: &git2::DiffFile<'_>| {
            if file.size() > 0 || file.id().is_zero() {
                return file.size();
            }
            odb.read_header(file.id())
                .map_or(0, |(size, _)| size as u64)
        };
        for (idx, delta) in diff.deltas().enumerate() {
            if cancel.is_cancelled() {
                return Err(GitError::Cancelled);
            }
            let side_of = |file: &git2::DiffFile<'_>, oid: String, size: u64| {
                path_text(file).map(|path| Side {
                    path,
                    mode: mode_bits(file.mode()),
                    oid,
                    size,
                })
            };
            match delta.status() {
                Delta::Deleted | Delta::Modified | Delta::Typechange => {
                    let old = delta.old_file();
                    if let Some(side) = side_of(&old, old.id().to_string(), size_of(&old)) {
                        sources.push((
                            idx,
                            Source {
                                side,
                                deleted: delta.status() == Delta::Deleted,
                            },
                        ));
                    }
                }
                Delta::Added => {
                    let new = delta.new_file();
                    let (oid, size) = if new.id().is_zero() {
                        let bytes = self.side_bytes(repo, &new);
                        let found = bytes.as_ref().map(|b| {
                            let oid = Oid::hash_object(git2::ObjectType::Blob, b)
                                .map_or_else(|_| format!("unreadable:{idx}"), |o| o.to_string());
                            (oid, b.len() as u64)
                        });
                        read_new.insert(idx, bytes);
                        found.unwrap_or_else(|| (format!("unreadable:{idx}"), 0))
                    } else {
                        (new.id().to_string(), size_of(&new))
                    };
                    if let Some(side) = side_of(&new, oid, size) {
                        destinations.push((idx, side));
                    }
                }
                _ => {}
            }
        }
        let source_list: Vec<Source> = sources.iter().map(|(_, s)| s.clone()).collect();
        let destination_list: Vec<Side> = destinations.iter().map(|(_, d)| d.clone()).collect();
        let old_bytes = |idx: usize| {
            diff.get_delta(idx)
                .and_then(|d| self.side_bytes(repo, &d.old_file()))
        };
        let new_bytes =
            |idx: usize, read_new: &std::collections::HashMap<usize, Option<Vec<u8>>>| {
                read_new.get(&idx).cloned().unwrap_or_else(|| {
                    diff.get_delta(idx)
                        .and_then(|d| self.side_bytes(repo, &d.new_file()))
                })
            };
        let pairs = renames::detect(
            &source_list,
            &destination_list,
            RenameOptions::default(),
            |wanted| match wanted {
                Wanted::Source(i) => old_bytes(sources[i].0),
                Wanted::Destination(i) => new_bytes(destinations[i].0, &read_new),
            },
        );
        let mut paired = Paired::default();
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            // Git's default since 2.14: hunks shaped as `git diff` shapes them (issue 49).
            .indent_heuristic(true);
        for pair in pairs {
            let (src_idx, source) = &sources[pair.source];
            let (dst_idx, destination) = &destinations[pair.destination];
            if source.deleted {
                paired.gone.insert(*src_idx);
            }
            let old = old_bytes(*src_idx).unwrap_or_default();
            let new = new_bytes(*dst_idx, &read_new).unwrap_or_default();
            let patch = Patch::from_buffers(
                &old,
                Some(Path::new(&source.side.path)),
                &new,
                Some(Path::new(&destination.path)),
                Some(&mut opts),
            )
            .map_err(|e| git_err("diff", &e))?;
            let binary = patch.delta().flags().is_binary();
            let hunks = if binary {
                Vec::new()
            } else {
                hunks_of(&patch)?.0
            };
            // A binary file moved or copied byte for byte is a rename or a copy without
            // changes, as Git's R100 and C100 say; a changed one is a binary change.
            let status = match (binary && old != new, pair.kind) {
                (true, _) => FileStatus::Binary,
                (false, PairKind::Renamed) => FileStatus::Renamed,
                (false, PairKind::Copied) => FileStatus::Copied,
            };
            paired.files.insert(
                *dst_idx,
                FileDiff {
                    path: destination.path.clone(),
                    old_path: Some(source.side.path.clone()),
                    status,
                    hunks,
                },
            );
        }
        Ok(paired)
    }
}

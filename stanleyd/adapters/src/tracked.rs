//! Whether Git tracks a path: what tells Stanley's own state from a file a commit brought.
//! Stanley never commits what it writes under `.stanley/` (its `.gitignore` leaves it out), so a
//! path there that `HEAD` or the index holds came with a clone, a checkout or a `git add -f`,
//! and is refused before it is read, whatever its modes (a clone under `umask 077` gives a
//! committed file the modes Stanley itself uses).

use std::path::Path;

/// `rel` and each folder above it, top first: `.stanley`, `.stanley/runs`, `.stanley/runs/x`.
fn ancestors_and_self(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/')
        .map(move |(p, _)| &rel[..p])
        .chain(std::iter::once(rel))
}

/// The first of `rel` and the folders above it that Git holds as one entry rather than a
/// tree (a submodule's gitlink, a committed link): everything below it came with a commit too,
/// though no path below it is in the index or `HEAD`.
fn entry_at_or_above(repo: &git2::Repository, rel: &str) -> Option<String> {
    let index = repo.index().ok();
    let head = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
    ancestors_and_self(rel)
        .find(|at| {
            index
                .as_ref()
                .is_some_and(|i| i.get_path(Path::new(at), 0).is_some())
                || head.as_ref().is_some_and(|t| {
                    t.get_path(Path::new(at))
                        .is_ok_and(|e| e.kind() != Some(git2::ObjectType::Tree))
                })
        })
        .map(str::to_owned)
}

/// Whether `rel` (relative to the worktree root, `/`-separated), anything below it when it
/// is a folder, or a folder above it that Git holds as one entry (a submodule, a link) is in
/// `HEAD`'s tree or in the index of the repository at `root`. A repository that does not open
/// tracks nothing.
pub fn tracked(root: &Path, rel: &str) -> bool {
    let Ok(repo) = git2::Repository::open(root) else {
        return false;
    };
    let rel = rel.trim_end_matches('/');
    if entry_at_or_above(&repo, rel).is_some() {
        return true;
    }
    if let Ok(index) = repo.index() {
        if index.get_path(Path::new(rel), 0).is_some() {
            return true;
        }
        let prefix = format!("{rel}/");
        if index.find_prefix(prefix.as_str()).is_ok_and(|i| {
            index
                .get(i)
                .is_some_and(|e| e.path.starts_with(prefix.as_bytes()))
        }) {
            return true;
        }
    }
    repo.head()
        .ok()
        .and_then(|h| h.peel_to_tree().ok())
        .is_some_and(|tree| tree.get_path(Path::new(rel)).is_ok())
}

/// Every path below the folder `prefix` (`/`-terminated or not) that `HEAD` or the index of the
/// repository at `root` holds, for checking many entries of one folder with one repository open.
pub fn under(root: &Path, prefix: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let Ok(repo) = git2::Repository::open(root) else {
        return out;
    };
    if let Some(entry) = entry_at_or_above(&repo, prefix.trim_end_matches('/')) {
        out.insert(entry);
    }
    let prefix = format!("{}/", prefix.trim_end_matches('/'));
    if let Ok(index) = repo.index()
        && let Ok(start) = index.find_prefix(prefix.as_str())
    {
        for i in start..index.len() {
            let Some(entry) = index.get(i) else { break };
            if !entry.path.starts_with(prefix.as_bytes()) {
                break;
            }
            out.insert(String::from_utf8_lossy(&entry.path).into_owned());
        }
    }
    if let Some(tree) = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_tree().ok())
        .and_then(|t| t.get_path(Path::new(prefix.trim_end_matches('/'))).ok())
        .and_then(|e| e.to_object(&repo).ok())
        .and_then(|o| o.into_tree().ok())
    {
        let _ = tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
            // Files, links and gitlinks; a folder is held by what is below it.
            if let Ok(name) = entry.name()
                && entry.kind() != Some(git2::ObjectType::Tree)
            {
                out.insert(format!("{prefix}{dir}{name}"));
            }
            git2::TreeWalkResult::Ok
        });
    }
    out
}

/// Whether `path` is one of `tracked`, a folder holding one of them, or below one of them (a
/// submodule or link Git holds as one entry).
pub fn holds(tracked: &std::collections::BTreeSet<String>, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    let folder = format!("{path}/");
    ancestors_and_self(path).any(|at| tracked.contains(at))
        || tracked
            .range(folder.clone()..)
            .next()
            .is_some_and(|p| p.starts_with(&folder))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn paths_in_head_or_the_index_are_tracked_and_folders_by_what_they_hold() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join(".stanley/flow")).unwrap();
        std::fs::write(root.join(".stanley/flow/NEEDS_HUMAN.md"), "x").unwrap();
        std::fs::write(root.join(".stanley/flow/state.json"), "{}").unwrap();
        assert!(!tracked(root, ".stanley/flow/NEEDS_HUMAN.md"));
        git(root, &["add", "-f", ".stanley/flow/NEEDS_HUMAN.md"]);
        assert!(tracked(root, ".stanley/flow/NEEDS_HUMAN.md"), "staged");
        assert!(
            tracked(root, ".stanley/flow"),
            "a folder holding a tracked file"
        );
        assert!(!tracked(root, ".stanley/flow/state.json"));
        assert!(
            !tracked(root, ".stanley/fl"),
            "a prefix of a name is not the name"
        );
        git(root, &["commit", "-qm", "plant"]);
        git(
            root,
            &["rm", "-q", "--cached", ".stanley/flow/NEEDS_HUMAN.md"],
        );
        assert!(
            tracked(root, ".stanley/flow/NEEDS_HUMAN.md"),
            "still in HEAD"
        );
        let all = under(root, ".stanley");
        assert!(holds(&all, ".stanley/flow/NEEDS_HUMAN.md") && holds(&all, ".stanley/flow"));
        assert!(!holds(&all, ".stanley/fl") && !holds(&all, ".stanley/flow/state.json"));
        assert!(!tracked(&root.join("not-a-repo"), "x"));
    }

    /// A submodule at `.stanley/runs` (a gitlink, cloned with `--recurse-submodules`) brings
    /// every path below it: none is in the index or `HEAD`, but all are tracked.
    #[test]
    fn paths_below_a_submodule_or_a_committed_link_are_tracked() {
        let dir = tempfile::tempdir().unwrap();
        let (sub, root) = (dir.path().join("sub"), dir.path().join("repo"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        git(&sub, &["init", "-q"]);
        std::fs::create_dir_all(sub.join("run-1")).unwrap();
        std::fs::write(sub.join("run-1/summary.json"), "{}").unwrap();
        git(&sub, &["add", "."]);
        git(&sub, &["commit", "-qm", "runs"]);
        git(&root, &["init", "-q"]);
        git(
            &root,
            &[
                "-c",
                "protocol.file.allow=always",
                "submodule",
                "add",
                "-q",
                sub.to_str().unwrap(),
                ".stanley/runs",
            ],
        );
        std::os::unix::fs::symlink("/tmp", root.join("linked")).unwrap();
        git(&root, &["add", "linked"]);
        assert!(
            tracked(&root, ".stanley/runs/run-1/summary.json"),
            "staged gitlink"
        );
        assert!(tracked(&root, "linked/x"), "below a committed link");
        git(&root, &["commit", "-qm", "submodule"]);
        git(&root, &["rm", "-q", "--cached", ".stanley/runs"]);
        assert!(tracked(&root, ".stanley/runs/run-1"), "still in HEAD");
        let all = under(&root, ".stanley/runs");
        assert!(holds(&all, ".stanley/runs/run-1"), "{all:?}");
        assert!(!tracked(&root, ".stanley/flow/state.json"));
    }
}

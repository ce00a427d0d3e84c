//! Finding the worktree root from `--repo` or the current directory: the nearest folder that
//! holds a `.git` entry (a folder, or a file for linked worktrees and submodules).

use std::path::{Path, PathBuf};

use crate::exit::ClientError;

/// The canonical worktree root containing `start`.
pub fn worktree_root(start: &Path) -> Result<PathBuf, ClientError> {
    let not_repo = || ClientError::input(format!("not a Git repository: {}", start.display()));
    let mut dir = start.canonicalize().map_err(|_| not_repo())?;
    loop {
        if dir.join(".git").exists() {
            return Ok(dir);
        }
        if !dir.pop() {
            return Err(not_repo());
        }
    }
}

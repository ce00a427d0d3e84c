//! A workflow folder as trust hashes it and a host loads it, read once: every file under
//! `.stanley/workflows/` (or a candidate's folder), `node_modules` included, with a link counted
//! as the content it points to when that stays inside the repository. A load writes those same
//! bytes into a private folder ([`stage`]) and the host runs that copy, so a checkout between
//! the trust check and the import cannot swap what runs, and no file outside the folder (a
//! repository `package.json`, a linked package's current content) takes part.

use std::collections::BTreeSet;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use stanley_core::hash::sha256_hex;
use stanley_workflows::trust::Files;

use crate::records::read_at_most;

/// The largest single file a workflow folder may hold.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// The most bytes a workflow folder may hold in all.
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// The most files a workflow folder may hold.
pub const MAX_FILES: usize = 50_000;
/// The most entries (files, folders and links, each time a link reaches them) a walk looks at:
/// links that fan out to the same folders would otherwise make the walk exponential.
pub const MAX_ENTRIES: usize = 200_000;
/// How deep folders (links to folders included) may nest.
const MAX_DEPTH: usize = 48;

/// The key a tree over its bounds carries beside what was read, so trust never matches it. A
/// relative path never starts with `/`, so no file can have this name.
pub const OVER_BOUNDS: &str = "/over the bounds: not read";

/// What an entry that is hashed but never loaded counts as: `refused:` and the SHA-256 of why.
/// No file's content hash (64 hex digits) can equal it, so a file can never stand in for a
/// link, a FIFO or anything else trust saw refused.
pub fn refused_marker(why: &str) -> String {
    format!("refused:{}", sha256_hex(why.as_bytes()))
}

/// The `package.json` at the top of a staged copy: it ends Node's search for a package scope
/// there, so no `package.json` of the repository (its `type`, `name`, `exports` or `imports`)
/// decides how a workflow's modules load.
pub const STAGE_PACKAGE_JSON: &str = "{\n  \"//\": \"Written by Stanley: the package scope of a staged workflow folder ends here.\",\n  \"private\": true\n}\n";

/// An entry that is hashed but never loaded, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The entry, relative to the folder, `/`-separated.
    pub path: String,
    /// Why, as the end of a sentence ("is a link that leaves the repository (→ /x)").
    pub why: String,
}

/// What a walk found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Path (relative, `/`-separated) → SHA-256 of what loading it would read.
    pub files: Files,
    /// Entries hashed but not loadable (links that leave the repository, special files).
    pub refused: Vec<Refusal>,
    /// False when the folder is over the bounds; such a tree is never loaded.
    pub complete: bool,
}

/// Why a copy could not be staged.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// The private folder or a file in it could not be written.
    #[error("cannot stage the workflows in {path}: {source}")]
    Write {
        /// The path being written.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
}

/// Hashes the folder `rel_dir` of the repository at `root` (an empty tree when it is missing).
pub fn hash(root: &Path, rel_dir: &str) -> Tree {
    let mut walk = Walk::new(root, None);
    walk.run(rel_dir);
    walk.tree
}

/// A staged copy of a workflow folder, removed when dropped.
#[derive(Debug)]
pub struct Staged {
    /// The copy: `workflows/` and Stanley's `package.json`.
    pub dir: PathBuf,
    /// What was hashed, which is what the copy holds.
    pub tree: Tree,
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Hashes the folder and writes what was hashed under `dest/workflows/`, with
/// [`STAGE_PACKAGE_JSON`] at `dest/package.json`. `dest` must not exist; its parent must be a
/// folder only this user can write. Folders are 0700 and files 0600. Nothing is left behind
/// when it fails.
pub fn stage(root: &Path, rel_dir: &str, dest: &Path) -> Result<Staged, StageError> {
    match copy(root, rel_dir, dest) {
        Ok(tree) => Ok(Staged {
            dir: dest.to_path_buf(),
            tree,
        }),
        Err(e) => {
            let someone_elses = matches!(&e, StageError::Write { path, source }
                if path == dest && source.kind() == io::ErrorKind::AlreadyExists);
            if !someone_elses {
                let _ = fs::remove_dir_all(dest);
            }
            Err(e)
        }
    }
}

fn copy(root: &Path, rel_dir: &str, dest: &Path) -> Result<Tree, StageError> {
    let error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StageError::Write { path, source }
    };
    fs::DirBuilder::new()
        .mode(0o700)
        .create(dest)
        .map_err(error(dest))?;
    let manifest = dest.join("package.json");
    write_new(&manifest, STAGE_PACKAGE_JSON.as_bytes()).map_err(error(&manifest))?;
    let top = dest.join("workflows");
    fs::DirBuilder::new()
        .mode(0o700)
        .create(&top)
        .map_err(error(&top))?;
    let mut walk = Walk::new(root, Some(top));
    walk.run(rel_dir);
    if let Some((path, source)) = walk.failed {
        return Err(StageError::Write { path, source });
    }
    Ok(walk.tree)
}

fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    file.write_all(bytes)
}

/// One walk: hashes every entry and, when staging, copies it.
struct Walk {
    /// The repository root, canonical (links may point anywhere inside it).
    root: Option<PathBuf>,
    dest: Option<PathBuf>,
    tree: Tree,
    files: usize,
    entries: usize,
    bytes: u64,
    failed: Option<(PathBuf, io::Error)>,
}

impl Walk {
    fn new(root: &Path, dest: Option<PathBuf>) -> Self {
        Self {
            root: fs::canonicalize(root).ok(),
            dest,
            tree: Tree {
                complete: true,
                ..Tree::default()
            },
            files: 0,
            entries: 0,
            bytes: 0,
            failed: None,
        }
    }

    fn run(&mut self, rel_dir: &str) {
        let (Some(root), true) = (self.root.clone(), safe_relative(rel_dir)) else {
            return;
        };
        // Every folder on the way must be a real folder: a committed link `.stanley` (or
        // `.stanley/workflows`) would point the walk anywhere.
        let mut dir = root.clone();
        for part in Path::new(rel_dir).components() {
            dir.push(part);
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                // A missing folder, or one that is a link or a file, holds no workflows.
                _ => return,
            }
        }
        let mut ancestors = BTreeSet::from([dir.clone()]);
        self.folder(&dir, "", 0, &mut ancestors);
    }

    fn refuse(&mut self, rel: &str, why: String, marker: String) {
        self.tree
            .files
            .insert(rel.to_owned(), refused_marker(&marker));
        self.tree.refused.push(Refusal {
            path: rel.to_owned(),
            why,
        });
    }

    fn folder(
        &mut self,
        dir: &Path,
        prefix: &str,
        depth: usize,
        ancestors: &mut BTreeSet<PathBuf>,
    ) {
        if depth > MAX_DEPTH {
            self.refuse(
                prefix,
                format!("nests more than {MAX_DEPTH} folders deep; not read"),
                "too-deep".into(),
            );
            return;
        }
        if let (Some(dest), false) = (&self.dest, prefix.is_empty()) {
            let target = dest.join(prefix);
            if let Err(e) = fs::DirBuilder::new().mode(0o700).create(&target) {
                self.failed.get_or_insert((target, e));
                return;
            }
        }
        let Ok(entries) = fs::read_dir(dir) else {
            self.refuse(prefix, "cannot be listed".into(), "unlistable".into());
            return;
        };
        let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
        names.sort();
        for name in names {
            if !self.tree.complete || self.failed.is_some() {
                return;
            }
            let Some(name) = name.to_str().map(str::to_owned) else {
                // A name that is not UTF-8 cannot be imported by a workflow; it is still part
                // of what trust sees.
                let shown = name.to_string_lossy().into_owned();
                let rel = join(prefix, &shown);
                self.refuse(
                    &rel,
                    "has a name that is not UTF-8; not loaded".into(),
                    format!("non-utf8:{shown}"),
                );
                continue;
            };
            let rel = join(prefix, &name);
            self.entry(&dir.join(&name), &rel, depth, ancestors);
        }
    }

    fn entry(&mut self, path: &Path, rel: &str, depth: usize, ancestors: &mut BTreeSet<PathBuf>) {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return self.exceeded(format!(
                "has more than {MAX_ENTRIES} entries (links included)"
            ));
        }
        let Ok(meta) = fs::symlink_metadata(path) else {
            return;
        };
        if meta.file_type().is_symlink() {
            self.link(path, rel, depth, ancestors);
        } else if meta.is_dir() {
            ancestors.insert(path.to_path_buf());
            self.folder(path, rel, depth + 1, ancestors);
            ancestors.remove(path);
        } else if meta.is_file() {
            self.file(path, rel);
        } else {
            self.refuse(
                rel,
                "is not a regular file; not loaded".into(),
                "special".into(),
            );
        }
    }

    /// A link counts as what it points to, when that is inside the repository.
    fn link(&mut self, path: &Path, rel: &str, depth: usize, ancestors: &mut BTreeSet<PathBuf>) {
        let text = fs::read_link(path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        let Ok(target) = fs::canonicalize(path) else {
            self.refuse(
                rel,
                format!("is a link to nothing (→ {text}); not loaded"),
                format!("dangling:{text}"),
            );
            return;
        };
        let inside = self.root.as_ref().is_some_and(|r| target.starts_with(r));
        if !inside {
            self.refuse(
                rel,
                format!("is a link that leaves the repository (→ {text}); not loaded"),
                format!("outside:{text}"),
            );
            return;
        }
        let Ok(meta) = fs::metadata(&target) else {
            return;
        };
        if meta.is_dir() {
            if ancestors.contains(&target) {
                self.refuse(
                    rel,
                    format!("is a link to a folder that contains it (→ {text}); not loaded"),
                    format!("loop:{text}"),
                );
                return;
            }
            ancestors.insert(target.clone());
            self.folder(&target, rel, depth + 1, ancestors);
            ancestors.remove(&target);
        } else if meta.is_file() {
            self.file(&target, rel);
        } else {
            self.refuse(
                rel,
                "is not a regular file; not loaded".into(),
                "special".into(),
            );
        }
    }

    fn file(&mut self, path: &Path, rel: &str) {
        self.files += 1;
        if self.files > MAX_FILES {
            return self.exceeded(format!("holds more than {MAX_FILES} files"));
        }
        let (bytes, whole) = match read_at_most(path, MAX_FILE_BYTES) {
            Ok(read) => read,
            Err(e) => {
                let kind = e.kind();
                self.refuse(
                    rel,
                    format!("cannot be read ({e}); not loaded"),
                    format!("unreadable:{kind:?}"),
                );
                return;
            }
        };
        if !whole {
            self.refuse(
                rel,
                format!("is larger than {} MiB; not loaded", MAX_FILE_BYTES >> 20),
                "too-large".into(),
            );
            return;
        }
        self.bytes += bytes.len() as u64;
        if self.bytes > MAX_TOTAL_BYTES {
            return self.exceeded(format!("holds more than {} MiB", MAX_TOTAL_BYTES >> 20));
        }
        self.tree.files.insert(rel.to_owned(), sha256_hex(&bytes));
        if let Some(dest) = &self.dest {
            let target = dest.join(rel);
            if let Err(e) = write_new(&target, &bytes) {
                self.failed.get_or_insert((target, e));
            }
        }
    }

    fn exceeded(&mut self, what: String) {
        self.tree.complete = false;
        self.tree
            .files
            .insert(OVER_BOUNDS.to_owned(), refused_marker(OVER_BOUNDS));
        self.tree.refused.push(Refusal {
            path: String::new(),
            why: format!("{what}; workflows are not loaded from it"),
        });
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

/// A relative path of plain components (no `..`, not absolute).
fn safe_relative(rel: &str) -> bool {
    !rel.is_empty()
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let wf = dir.path().join(".stanley/workflows");
        fs::create_dir_all(wf.join("node_modules/lib")).unwrap();
        fs::write(wf.join("a.ts"), "export default 1;\n").unwrap();
        fs::write(
            wf.join("node_modules/lib/index.js"),
            "module.exports = 1;\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn plain_files_hash_by_content_and_node_modules_count() {
        let dir = repo();
        let tree = hash(dir.path(), ".stanley/workflows");
        assert!(tree.complete);
        assert!(tree.refused.is_empty());
        assert_eq!(
            tree.files.keys().collect::<Vec<_>>(),
            ["a.ts", "node_modules/lib/index.js"]
        );
        assert_eq!(tree.files["a.ts"], sha256_hex(b"export default 1;\n"));
    }

    #[test]
    fn a_link_inside_the_repository_counts_as_its_target_content() {
        let dir = repo();
        let pkg = dir.path().join("packages/goodlib");
        fs::create_dir_all(&pkg).unwrap();
        fs::write(pkg.join("index.js"), "module.exports = 'good';\n").unwrap();
        let wf = dir.path().join(".stanley/workflows");
        symlink("../../../packages/goodlib", wf.join("node_modules/goodlib")).unwrap();
        let before = hash(dir.path(), ".stanley/workflows");
        assert_eq!(
            before.files["node_modules/goodlib/index.js"],
            sha256_hex(b"module.exports = 'good';\n")
        );
        // Editing the target changes what trust sees, though the link did not change.
        fs::write(pkg.join("index.js"), "module.exports = 'evil';\n").unwrap();
        let after = hash(dir.path(), ".stanley/workflows");
        assert_ne!(before.files, after.files);
    }

    #[test]
    fn links_that_leave_dangle_or_loop_are_refused_and_still_hashed() {
        let dir = repo();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("x.js"), "1").unwrap();
        let wf = dir.path().join(".stanley/workflows");
        symlink(outside.path().join("x.js"), wf.join("out.js")).unwrap();
        symlink("missing.js", wf.join("gone.js")).unwrap();
        symlink("..", wf.join("node_modules/lib/up")).unwrap();
        let tree = hash(dir.path(), ".stanley/workflows");
        let refused: Vec<&str> = tree.refused.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(refused, ["gone.js", "node_modules/lib/up", "out.js"]);
        assert!(tree.refused[2].why.contains("leaves the repository"));
        assert!(tree.files.contains_key("out.js"));
    }

    #[test]
    fn a_file_never_matches_what_was_refused_at_its_path() {
        // A link's target text is the repository's to choose; a file holding the words a
        // marker is made of must not hash like the refused link (nor like any refusal).
        let dir = repo();
        let wf = dir.path().join(".stanley/workflows");
        let code = "x;require('child_process').execSync('id')";
        symlink(code, wf.join("b.js")).unwrap();
        let trusted = hash(dir.path(), ".stanley/workflows");
        assert_eq!(trusted.refused[0].path, "b.js");
        fs::remove_file(wf.join("b.js")).unwrap();
        for content in [
            format!("dangling:{code}"),
            format!("symlink:{code}"),
            code.into(),
        ] {
            fs::write(wf.join("b.js"), &content).unwrap();
            let now = hash(dir.path(), ".stanley/workflows");
            assert!(now.refused.is_empty());
            assert_ne!(now.files["b.js"], trusted.files["b.js"], "{content}");
            fs::remove_file(wf.join("b.js")).unwrap();
        }
        assert!(trusted.files["b.js"].starts_with("refused:"));
    }

    #[test]
    fn links_that_fan_out_are_bounded_by_the_entries_looked_at() {
        // 60 links to a folder of 60 links to a folder of 60 links to an empty folder: 216,000
        // entries reached through links, though the repository holds 183.
        let dir = repo();
        let wf = dir.path().join(".stanley/workflows");
        for level in ["d", "c", "b"] {
            fs::create_dir_all(dir.path().join(level)).unwrap();
        }
        for (from, to) in [("b", "../c"), ("c", "../d")] {
            for i in 0..60 {
                symlink(to, dir.path().join(from).join(format!("l{i}"))).unwrap();
            }
        }
        for i in 0..60 {
            symlink("../../b", wf.join(format!("l{i}"))).unwrap();
        }
        let tree = hash(dir.path(), ".stanley/workflows");
        assert!(!tree.complete);
        assert!(tree.files.contains_key(OVER_BOUNDS));
        assert!(tree.refused.last().unwrap().why.contains("entries"));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = repo();
        let fifo = dir.path().join(".stanley/workflows/pipe.js");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let tree = hash(dir.path(), ".stanley/workflows");
        assert_eq!(tree.refused[0].path, "pipe.js");
    }

    #[test]
    fn a_stage_holds_exactly_the_hashed_bytes_privately() {
        let dir = repo();
        let private = tempfile::tempdir().unwrap();
        let dest = private.path().join("load-1");
        let staged = stage(dir.path(), ".stanley/workflows", &dest).unwrap();
        let tree = staged.tree.clone();
        assert_eq!(tree, hash(dir.path(), ".stanley/workflows"));
        let copied = fs::read(dest.join("workflows/node_modules/lib/index.js")).unwrap();
        assert_eq!(sha256_hex(&copied), tree.files["node_modules/lib/index.js"]);
        assert_eq!(
            fs::read_to_string(dest.join("package.json")).unwrap(),
            STAGE_PACKAGE_JSON
        );
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dest), 0o700);
        assert_eq!(mode(&dest.join("workflows/node_modules")), 0o700);
        assert_eq!(mode(&dest.join("workflows/a.ts")), 0o600);
        // An existing destination is never reused, nor removed by the failed attempt.
        assert!(stage(dir.path(), ".stanley/workflows", &dest).is_err());
        assert!(dest.join("workflows/a.ts").is_file());
        drop(staged);
        assert!(!dest.exists(), "the copy goes with its guard");
    }

    #[test]
    fn a_linked_stanley_folder_holds_no_workflows() {
        let dir = repo();
        let elsewhere = tempfile::tempdir().unwrap();
        fs::rename(dir.path().join(".stanley"), elsewhere.path().join("s")).unwrap();
        symlink(elsewhere.path().join("s"), dir.path().join(".stanley")).unwrap();
        let tree = hash(dir.path(), ".stanley/workflows");
        assert!(tree.files.is_empty(), "{:?}", tree.files);
    }

    #[test]
    fn the_folder_path_may_not_leave_the_root() {
        let dir = repo();
        assert!(hash(dir.path(), "../x").files.is_empty());
        assert!(hash(dir.path(), "/etc").files.is_empty());
        assert!(hash(dir.path(), ".stanley/missing").files.is_empty());
    }
}

//! The per-user trust file (`$XDG_STATE_HOME/stanley/trust.json`, else
//! `~/.local/state/stanley/trust.json`; 0600 in 0700 folders, outside every repository so a
//! branch cannot trust itself), read and updated under a lock with atomic writes, and what it is
//! compared with: the content of `.stanley/workflows/`, `flow.json` and the commit at `HEAD`.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

use stanley_core::hash::sha256_hex;
use stanley_workflows::trust::{
    Current, EARLIER_TRUST_SCHEMAS, Files, TRUST_SCHEMA, TrustFile, WorktreeTrust,
};

use crate::records::{create_private_dir, open_lock, write_atomic};

/// Why the trust file could not be used; nothing is trusted meanwhile.
#[derive(Debug, thiserror::Error)]
#[error("the trust file {path} {problem}")]
pub struct TrustError {
    /// The trust file.
    pub path: PathBuf,
    /// What went wrong, as the end of a sentence.
    pub problem: String,
}

/// The most of the trust file read.
const MAX_TRUST_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The per-user trust file.
#[derive(Clone, Debug)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// The store at `path`.
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// Where the file lives given `XDG_STATE_HOME` and `HOME` (None without either).
    pub fn default_path(xdg_state: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
        if let Some(dir) = xdg_state.filter(|d| Path::new(d).is_absolute()) {
            return Some(Path::new(dir).join("stanley").join("trust.json"));
        }
        home.filter(|h| Path::new(h).is_absolute())
            .map(|h| Path::new(h).join(".local/state/stanley/trust.json"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, problem: impl Into<String>) -> TrustError {
        TrustError {
            path: self.path.clone(),
            problem: problem.into(),
        }
    }

    /// The whole file (empty when it does not exist yet).
    pub fn read(&self) -> Result<TrustFile, TrustError> {
        let bytes = match crate::records::read_bounded(&self.path, MAX_TRUST_FILE_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(TrustFile::new()),
            Err(e) => return Err(self.error(format!("cannot be read: {e}"))),
        };
        let file: TrustFile = serde_json::from_slice(&bytes).map_err(|e| {
            self.error(format!(
                "is not valid ({e}); fix or remove it, then run `stanleyctl trust` again"
            ))
        })?;
        if EARLIER_TRUST_SCHEMAS.contains(&file.schema.as_str()) {
            // Records of an earlier schema hashed refused entries (links, FIFOs) into the same
            // space as file content, so a file could match what was trusted as a link. They
            // are not honoured: each worktree asks for `stanleyctl trust` once more, and that
            // rewrites the file in the current schema.
            tracing::warn!(
                path = %self.path.display(),
                schema = %file.schema,
                "trust records of an earlier schema are not honoured; run `stanleyctl trust` again"
            );
            return Ok(TrustFile::new());
        }
        if file.schema != TRUST_SCHEMA {
            return Err(self.error(format!("has schema {:?}, not {TRUST_SCHEMA}", file.schema)));
        }
        Ok(file)
    }

    /// The record of one worktree.
    pub fn record(&self, root: &Path) -> Result<Option<WorktreeTrust>, TrustError> {
        Ok(self.read()?.worktrees.remove(&key(root)))
    }

    /// Reads, changes and writes the record of one worktree under the file's lock (so daemons
    /// of several repositories never lose each other's updates).
    pub fn update<T>(
        &self,
        root: &Path,
        change: impl FnOnce(&mut Option<WorktreeTrust>) -> T,
    ) -> Result<T, TrustError> {
        let dir = self.path.parent().unwrap_or(Path::new("/"));
        create_private_dir(dir).map_err(|e| self.error(format!("cannot be created: {e}")))?;
        let lock_path = self.path.with_extension("lock");
        let lock =
            open_lock(&lock_path).map_err(|e| self.error(format!("cannot be locked: {e}")))?;
        lock.lock()
            .map_err(|e| self.error(format!("cannot be locked: {e}")))?;
        let mut file = self.read()?;
        let mut record = file.worktrees.remove(&key(root));
        let out = change(&mut record);
        if let Some(r) = record {
            file.worktrees.insert(key(root), r);
        }
        let mut text = serde_json::to_string_pretty(&file)
            .map_err(|e| self.error(format!("cannot be encoded: {e}")))?;
        text.push('\n');
        write_atomic(&self.path, text.as_bytes())
            .map_err(|e| self.error(format!("cannot be written: {e}")))?;
        Ok(out)
    }
}

fn key(root: &Path) -> String {
    root.display().to_string()
}

/// The repository workflows' folder, relative to the worktree root.
pub const WORKFLOWS_DIR: &str = ".stanley/workflows";

/// Files of Pi's project folder that the 0.73 line loads by itself with no flag to turn them
/// off: `settings.json` (which can name a shell, a shell prefix, an npm command and packages
/// it installs at start) and the system prompt files.
pub const LEGACY_UNFLAGGED: [&str; 3] =
    [".pi/settings.json", ".pi/SYSTEM.md", ".pi/APPEND_SYSTEM.md"];

/// Folders the coding agent loads configuration and code from by itself, relative to the
/// worktree root: Pi's project folder (settings, extensions, skills, prompt templates, themes,
/// `SYSTEM.md`, MCP servers, installed packages) and the skills folder both lines discover.
pub const AGENT_DIRS: [&str; 2] = [".pi", ".agents/skills"];

/// Context files Pi reads from its working folder (both lines' candidates; 1.x adds
/// `AGENTS.override.md`).
pub const CONTEXT_FILES: [&str; 5] = [
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];

/// The most bytes of a context file hashed; a larger one counts as refused.
pub const MAX_CONTEXT_BYTES: u64 = 4 * 1024 * 1024;

/// What the coding agent would load by itself from the worktree at `root`: every file under
/// [`AGENT_DIRS`] (links counted as their content, as for workflows) and each context file
/// there, root-relative path → SHA-256 (a refused marker for a link, a FIFO or an oversized
/// file, which no content matches).
pub fn agent_files(root: &Path) -> Files {
    let mut files = Files::new();
    for dir in AGENT_DIRS {
        // A link (or a file) in place of the folder or a folder above it: the walk holds
        // nothing there, but Pi follows it, so it is configuration that no content matches.
        if let Some(why) = not_a_real_folder(root, dir) {
            files.insert(dir.to_owned(), crate::workflow_tree::refused_marker(&why));
        }
        let tree = crate::workflow_tree::hash(root, dir);
        for (path, hash) in tree.files {
            files.insert(format!("{dir}/{path}"), hash);
        }
        for refusal in tree.refused {
            files
                .entry(format!("{dir}/{}", refusal.path))
                .or_insert_with(|| crate::workflow_tree::refused_marker(&refusal.why));
        }
    }
    // What the 0.73 line loads with no flag to stop it, wherever a link puts it: present when
    // Pi would find it (links followed), so that line is never started with it untrusted.
    for name in LEGACY_UNFLAGGED {
        if !files.contains_key(name) && root.join(name).exists() {
            files.insert(
                name.to_owned(),
                crate::workflow_tree::refused_marker(&format!("{name}: reached through a link")),
            );
        }
    }
    for name in CONTEXT_FILES {
        let path = root.join(name);
        match crate::records::read_bounded(&path, MAX_CONTEXT_BYTES) {
            Ok(bytes) => {
                files.insert(name.to_owned(), sha256_hex(&bytes));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                files.insert(
                    name.to_owned(),
                    crate::workflow_tree::refused_marker(&format!("{name}: {:?}", e.kind())),
                );
            }
        }
    }
    files
}

/// Why a part of `dir` (root-relative, from its first component down) is not a real folder:
/// a link or something else that exists there; `None` when every part is a folder or missing.
fn not_a_real_folder(root: &Path, dir: &str) -> Option<String> {
    let mut at = root.to_path_buf();
    for part in dir.split('/') {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Some(format!("{dir}: {} is a symbolic link", part));
            }
            Ok(meta) if !meta.is_dir() => return Some(format!("{dir}: {part} is not a folder")),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// What is on disk in a worktree now.
#[derive(Clone, Debug, Default)]
pub struct OnDisk {
    /// Every file under `.stanley/workflows/` (`node_modules` included), links counted as
    /// their targets' content ([`crate::workflow_tree`]).
    pub workflows: Files,
    /// The SHA-256 of `.stanley/flow.json`.
    pub flow: Option<String>,
    /// The agent configuration ([`agent_files`]); read only by [`OnDisk::with_agent`].
    pub agent: Files,
    /// The commit at `HEAD`, or `unborn`; read only by [`OnDisk::with_head`], since only the
    /// edit loop needs it.
    pub head: String,
}

impl OnDisk {
    /// Reads the files of the worktree at `root` (not `HEAD`).
    pub fn read(root: &Path) -> Self {
        Self::with_flow(root, flow_hash(root))
    }

    /// Reads the workflow files, with `flow` as the hash of the flow file already read.
    pub fn with_flow(root: &Path, flow: Option<String>) -> Self {
        Self {
            workflows: crate::workflow_tree::hash(root, WORKFLOWS_DIR).files,
            flow,
            agent: Files::new(),
            head: String::new(),
        }
    }

    /// The same, with the agent configuration read too.
    pub fn with_agent(mut self, root: &Path) -> Self {
        self.agent = agent_files(root);
        self
    }

    /// The same, with `HEAD` read too.
    pub fn with_head(mut self, root: &Path) -> Self {
        self.head = head(root);
        self
    }

    /// As the pure model sees it.
    pub fn current(&self) -> Current<'_> {
        Current {
            workflows: &self.workflows,
            flow: self.flow.as_deref(),
            head: &self.head,
        }
    }
}

/// The most bytes of `flow.json` read, as the flow loader reads it.
pub const MAX_FLOW_BYTES: u64 = 1024 * 1024;

/// The SHA-256 of `.stanley/flow.json`, when it exists: a regular file of at most
/// [`MAX_FLOW_BYTES`], not through a link (the flow loader reads it the same way). Anything else
/// there counts as a refused entry, which no trusted content can match.
pub fn flow_hash(root: &Path) -> Option<String> {
    match crate::records::read_bounded(&root.join(".stanley/flow.json"), MAX_FLOW_BYTES) {
        Ok(bytes) => Some(sha256_hex(&bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => Some(crate::workflow_tree::refused_marker(&format!(
            "flow.json: {:?}",
            e.kind()
        ))),
    }
}

/// The commit `HEAD` points at, `unborn` before the first commit.
pub fn head(root: &Path) -> String {
    git2::Repository::open(root)
        .ok()
        .and_then(|r| {
            r.head()
                .ok()
                .and_then(|h| h.peel_to_commit().ok())
                .map(|c| c.id().to_string())
        })
        .unwrap_or_else(|| "unborn".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_workflows::trust::{Verdict, assess, grant};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_store_keeps_each_worktree_and_is_private() {
        let home = tempfile::tempdir().unwrap();
        let path = TrustStore::default_path(None, Some(home.path().as_os_str())).unwrap();
        assert!(path.ends_with(".local/state/stanley/trust.json"));
        let store = TrustStore::at(path.clone());
        assert_eq!(store.record(Path::new("/r1")).unwrap(), None);
        let files: Files = [("a.ts".to_owned(), "1".to_owned())].into();
        let now = Current {
            workflows: &files,
            flow: None,
            head: "c",
        };
        store
            .update(Path::new("/r1"), |r| {
                *r = Some(grant(
                    now,
                    &Files::new(),
                    false,
                    stanley_workflows::time::Stamp::EPOCH,
                ))
            })
            .unwrap();
        store
            .update(Path::new("/r2"), |r| {
                *r = Some(grant(
                    now,
                    &Files::new(),
                    true,
                    stanley_workflows::time::Stamp::EPOCH,
                ))
            })
            .unwrap();
        let mut r1 = store.record(Path::new("/r1")).unwrap();
        assert_eq!(assess(&mut r1, now).workflows, Verdict::Trusted);
        assert!(
            store
                .record(Path::new("/r2"))
                .unwrap()
                .unwrap()
                .edits_head
                .is_some()
        );
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let dir = path.parent().unwrap();
        assert_eq!(
            std::fs::metadata(dir).unwrap().permissions().mode() & 0o777,
            0o700
        );

        std::fs::write(&path, "{not json").unwrap();
        let err = store.record(Path::new("/r1")).unwrap_err().to_string();
        assert!(err.contains("is not valid"), "{err}");
        assert_eq!(
            TrustStore::default_path(Some("/x".as_ref()), Some("/h".as_ref())),
            Some(PathBuf::from("/x/stanley/trust.json"))
        );
        assert_eq!(TrustStore::default_path(None, Some("rel".as_ref())), None);
    }

    #[test]
    fn records_of_an_earlier_schema_are_not_honoured_and_are_rewritten() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("trust.json");
        let old = r#"{"schema":"stanley.trust/1","worktrees":{"/r1":{"workflows":{"a.ts":"1"},"trustedAt":"2026-11-30T02:05:41.123Z"}}}"#;
        std::fs::write(&path, old).unwrap();
        let store = TrustStore::at(path.clone());
        assert_eq!(store.record(Path::new("/r1")).unwrap(), None);
        store.update(Path::new("/r2"), |r| *r = None).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(TRUST_SCHEMA) && !text.contains("/r1"),
            "{text}"
        );
        std::fs::write(&path, old.replace("trust/1", "trust/9")).unwrap();
        let err = store.record(Path::new("/r1")).unwrap_err().to_string();
        assert!(err.contains("has schema"), "{err}");
    }

    #[test]
    fn agent_files_are_pi_folders_and_context_files_with_links_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(agent_files(root).is_empty());
        std::fs::create_dir_all(root.join(".pi/extensions")).unwrap();
        std::fs::write(root.join(".pi/extensions/helper.ts"), "x").unwrap();
        std::fs::write(root.join(".pi/settings.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join(".agents/skills/s")).unwrap();
        std::fs::write(root.join(".agents/skills/s/SKILL.md"), "s").unwrap();
        std::fs::write(root.join("AGENTS.md"), "do this").unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("CLAUDE.md")).unwrap();
        let files = agent_files(root);
        let keys: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                ".agents/skills/s/SKILL.md",
                ".pi/extensions/helper.ts",
                ".pi/settings.json",
                "AGENTS.md",
                "CLAUDE.md"
            ]
        );
        assert_eq!(files["AGENTS.md"], sha256_hex(b"do this"));
        assert!(files["CLAUDE.md"].starts_with("refused:"));
    }

    #[test]
    fn a_flow_file_that_is_not_a_small_regular_file_counts_as_refused() {
        let dir = tempfile::tempdir().unwrap();
        let stanley = dir.path().join(".stanley");
        std::fs::create_dir_all(&stanley).unwrap();
        assert_eq!(flow_hash(dir.path()), None);
        std::os::unix::fs::symlink("/dev/zero", stanley.join("flow.json")).unwrap();
        let linked = flow_hash(dir.path()).unwrap();
        assert!(linked.starts_with("refused:"), "{linked}");
        std::fs::remove_file(stanley.join("flow.json")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(stanley.join("flow.json"))
            .status()
            .unwrap();
        assert!(made.success());
        assert!(flow_hash(dir.path()).unwrap().starts_with("refused:"));
        std::fs::remove_file(stanley.join("flow.json")).unwrap();
        std::fs::write(stanley.join("flow.json"), "{}").unwrap();
        assert_eq!(flow_hash(dir.path()), Some(sha256_hex(b"{}")));
    }
}

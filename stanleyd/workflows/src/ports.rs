//! The ports the product logic needs from the outside world: Git diffs, redaction, run records
//! and a clock. The adapters crate implements them; tests use in-memory fakes.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;
use thiserror::Error;

use crate::diff::{DiffSource, Scope};

/// A failure to read the repository; always an input error (exit 65). Each says what went
/// wrong in its own variant; Git's own error travels as the source.
#[derive(Clone, Debug, Error)]
pub enum GitError {
    /// The folder is in no repository.
    #[error("not a Git repository: {}", .path.display())]
    NotARepository {
        /// The folder asked about.
        path: std::path::PathBuf,
    },
    /// A bare repository: there is no working tree to review.
    #[error("not a Git repository with a working tree: {}", .path.display())]
    NoWorkingTree {
        /// The folder asked about.
        path: std::path::PathBuf,
    },
    /// The working tree's path could not be resolved.
    #[error("cannot resolve {}: {source}", .path.display())]
    Resolve {
        /// The working tree's path.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A ref outside the accepted grammar (shown cut to 80 characters).
    #[error("unsupported ref: \"{0}\"")]
    UnsupportedRef(String),
    /// A ref that names no commit.
    #[error("git rev-parse failed: unknown revision {0}")]
    UnknownRevision(String),
    /// The branch scope needs a commit at HEAD.
    #[error("branch scope needs a HEAD commit")]
    NoHead,
    /// The diff is larger than the port reads.
    #[error("git diff output exceeded {limit} bytes")]
    TooLarge {
        /// The bound, in bytes.
        limit: u64,
    },
    /// The request the diff was for was cancelled.
    #[error("the diff was cancelled with its request")]
    Cancelled,
    /// Git failed at `context` (`diff`, `status`), saying `message`.
    #[error("git {context} failed: {message}")]
    Git {
        /// What the port was doing.
        context: &'static str,
        /// Git's own words, cut to 200 characters.
        message: String,
        /// Git's error.
        #[source]
        source: Option<Arc<dyn std::error::Error + Send + Sync>>,
    },
}

/// Reads the diff of a selection.
pub trait Git: Send + Sync {
    /// The diff of `scope` against `base` (or the scope's default base), with safe untracked
    /// files folded in for the worktree scope; `input_file`, the request's own input when it is
    /// an untracked file, is not part of the change. Shared: a diff the port keeps is handed out
    /// without a copy.
    fn diff(
        &self,
        scope: Scope,
        base: Option<&str>,
        input_file: Option<&str>,
    ) -> Result<Arc<DiffSource>, GitError>;

    /// [`Git::diff`] for a request that may be cancelled: an implementation looks at `cancel`
    /// between files and gives up with an error once it fires (a client gone, a daemon
    /// stopping), so a diff of any size ends within a second of it. By default the diff runs to
    /// its end.
    fn diff_until(
        &self,
        scope: Scope,
        base: Option<&str>,
        input_file: Option<&str>,
        cancel: &stanley_core::Cancel,
    ) -> Result<Arc<DiffSource>, GitError> {
        let _ = cancel;
        self.diff(scope, base, input_file)
    }

    /// The tracked paths with changes not yet committed (in the index or the worktree), in
    /// path order: what a branch diff, which reads commits only, leaves out (issue 49). None
    /// by default.
    fn uncommitted(&self) -> Result<Vec<String>, GitError> {
        Ok(Vec::new())
    }
}

/// Replaces secrets in text and JSON, counting replacements.
pub trait Redactor: Send + Sync {
    /// Redacts one text.
    fn text(&self, text: &str) -> (String, u64);
    /// Redacts every string in a JSON value and every value under a credential-named key.
    fn json(&self, value: &Value) -> (Value, u64);
    /// `value` redacted as [`Redactor::json`] does, as JSON text (indented when `pretty`), and
    /// how many secrets were replaced. An implementation may write it without building the
    /// redacted value; the text must be the same.
    fn json_text(&self, value: &Value, pretty: bool) -> (Vec<u8>, u64) {
        let (clean, n) = self.json(value);
        let text = if pretty {
            serde_json::to_vec_pretty(&clean)
        } else {
            serde_json::to_vec(&clean)
        };
        (text.unwrap_or_default(), n)
    }
    /// Redacts `value` where it stands, as [`Redactor::json`] would, and says how many secrets
    /// were replaced. An implementation may leave clean strings untouched instead of building
    /// the value again; the value must end the same.
    fn json_in_place(&self, value: &mut Value) -> u64 {
        let (clean, n) = self.json(value);
        *value = clean;
        n
    }
}

/// Writes a built-in run's records. Implementations redact everything they write.
pub trait RunRecorder: Send + Sync {
    /// Writes (replaces) a JSON file of the run.
    fn write_json(&self, name: &str, value: &Value);
    /// Appends one line to an NDJSON file of the run.
    fn append(&self, name: &str, value: &Value);
    /// Appends one line: the object `value`, redacted as [`RunRecorder::append`] redacts it,
    /// with `raw` under `key` as it is. `raw` must be JSON text this run's redaction already
    /// rewrote (a Jev request after the executor's `prepare`), so it is not scanned again
    /// (D-175). An implementation may build the line whole; the line must be the same.
    fn append_with(&self, name: &str, value: &Value, key: &str, raw: &RawValue) {
        let mut line = value.clone();
        if let (Some(fields), Ok(raw)) = (
            line.as_object_mut(),
            serde_json::from_str::<Value>(raw.get()),
        ) {
            fields.insert(key.to_owned(), raw);
        }
        self.append(name, &line);
    }
    /// The run folder relative to the repository root, or None when not persisted.
    fn artifact(&self) -> Option<String>;
    /// The first write that failed (a full disk, say), if one did: the run goes on without
    /// that record and the request says so.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// A recorder that keeps nothing (`--no-persist`).
#[derive(Debug, Default)]
pub struct NoRecords;

impl RunRecorder for NoRecords {
    fn write_json(&self, _name: &str, _value: &Value) {}
    fn append(&self, _name: &str, _value: &Value) {}
    fn artifact(&self) -> Option<String> {
        None
    }
}

/// Wall-clock time.
pub trait Clock: Send + Sync {
    /// Now (written as text by [`crate::time::stamp`]).
    fn now(&self) -> crate::time::Timestamp;
}

/// Reads the repository's tracked files and their lines under the workspace safety rules.
pub trait Workspace: Send + Sync {
    /// Every tracked path (repository-relative, `/`-separated).
    fn tracked(&self) -> Result<Vec<String>, GitError>;
    /// The lines of a tracked file, or None when it is unreadable, credential-shaped, binary,
    /// larger than 2 MiB, or outside the repository.
    fn read_lines(&self, path: &str) -> Option<Vec<String>>;
    /// The size of a regular file inside the repository, or None when it is missing, not a
    /// regular file, credential-shaped or outside the repository.
    fn file_size(&self, path: &str) -> Option<u64>;
    /// What the repository's attributes declare about each of `paths` (`linguist-vendored`,
    /// `linguist-generated`, …; D-163), in order. None declared by default.
    fn declared(&self, paths: &[String]) -> Vec<crate::declared::Declared> {
        vec![crate::declared::Declared::default(); paths.len()]
    }
    /// The first `max_bytes` of a tracked file as text, under the same rules as `read_lines`.
    fn read_head(&self, path: &str, max_bytes: usize) -> Option<String> {
        let lines = self.read_lines(path)?;
        let mut text = lines.join("\n");
        if text.len() > max_bytes {
            let mut cut = max_bytes;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        Some(text)
    }
}

//! Test doubles for the workflows' ports, shared by this crate's tests and the daemon's
//! (feature `testing`): a fixed clock, a redactor that changes nothing, an empty workspace.

use serde_json::Value;

use crate::ports::{Clock, GitError, Redactor, Workspace};

/// Always 2026-01-01T00:00:00.000Z.
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> String {
        "2026-01-01T00:00:00.000Z".into()
    }
}

/// Redacts nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRedact;

impl Redactor for NoRedact {
    fn text(&self, text: &str) -> (String, u64) {
        (text.to_owned(), 0)
    }
    fn json(&self, value: &Value) -> (Value, u64) {
        (value.clone(), 0)
    }
}

/// A repository with no tracked files and nothing to read.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmptyWorkspace;

impl Workspace for EmptyWorkspace {
    fn tracked(&self) -> Result<Vec<String>, GitError> {
        Ok(Vec::new())
    }
    fn read_lines(&self, _path: &str) -> Option<Vec<String>> {
        None
    }
    fn file_size(&self, _path: &str) -> Option<u64> {
        None
    }
}

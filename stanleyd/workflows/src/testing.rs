//! Test doubles for the workflows' ports, shared by this crate's tests and the daemon's
//! (feature `testing`): a fixed clock, a redactor that changes nothing, an empty workspace.

use serde_json::Value;

use crate::ports::{Clock, GitError, Redactor, Workspace};

/// Always 2026-01-01T00:00:00.000Z.
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedClock;

impl Clock for FixedClock {
    fn now(&self) -> crate::time::Timestamp {
        crate::time::Timestamp::from_second(1_767_225_600).unwrap_or_default()
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

/// Whether a block's test name names the failure `truth` (the same name, or one ends with the
/// other after a separator: `tests/test_a.py::test_x` and `test_x`).
pub fn names_match(block: &str, truth: &str) -> bool {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (b, t) = (squash(block), squash(truth));
    if b.is_empty() {
        return false;
    }
    // The same words in the same order, whatever separates the scopes (`a › b`, `a b`, `a::b`).
    // Words, camelCase split and lowercased, a leading `test` dropped: `testUniqueSuffix` is
    // the test PHPUnit's testdox prints as `Unique suffix`.
    let words = |s: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in s.split(|c: char| c.is_whitespace() || "›>:/.#".contains(c)) {
            let mut current = String::new();
            for c in w.chars() {
                if c.is_uppercase() && current.chars().last().is_some_and(char::is_lowercase) {
                    out.push(std::mem::take(&mut current).to_lowercase());
                }
                current.push(c);
            }
            if !current.is_empty() {
                out.push(current.to_lowercase());
            }
        }
        if out.first().is_some_and(|w| w == "test") && out.len() > 1 {
            out.remove(0);
        }
        out
    };
    let (bw, tw) = (words(&b), words(&t));
    if !bw.is_empty() && !tw.is_empty() && (bw.ends_with(&tw) || tw.ends_with(&bw)) {
        return true;
    }
    let ends = |long: &str, short: &str| {
        long.ends_with(short)
            && long[..long.len() - short.len()]
                .chars()
                .last()
                .is_some_and(|c| matches!(c, ':' | ' ' | '/' | '.' | '›' | '>' | '-'))
    };
    b == t || ends(&b, &t) || ends(&t, &b)
}

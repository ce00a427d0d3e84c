//! What a person sees of a command, as a stable text for snapshots (issue 50, item 6): the exit
//! code, stdout and stderr, with what differs from run to run (temporary folders, run ids,
//! times, durations) written as fixed words. A job's id is a hash of its request, the same in
//! every run, and stays.

use std::fmt;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::repo::TempRepo;
use crate::testenv::{Output, TestEnv, bin_dir};

/// A run's id (`review-20261207T101500Z-0a1b2c`): the kind stays, the rest is a word.
static RUN_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([a-z_]+)-\d{8}T\d{6}Z-[0-9a-f]{6}\b").expect("run id"));
/// A time stamp (RFC 3339, seconds or finer, `Z` or an offset).
static STAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").expect("stamp")
});
/// A measured duration: milliseconds or microseconds, or seconds with a fraction (a whole
/// number of seconds is a limit a message names, and stays).
static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+(\.\d+)?\s?(ms|µs)\b|\b\d+\.\d+\s?s\b").expect("duration"));

/// The fixed words a run's variable parts are written as.
pub mod word {
    pub const ROOT: &str = "<ROOT>";
    pub const OUTSIDE: &str = "<OUTSIDE>";
    pub const HOME: &str = "<HOME>";
    pub const RUNTIME: &str = "<RUNTIME>";
    pub const BIN: &str = "<BIN>";
    pub const RUN: &str = "<RUN>";
    pub const TIME: &str = "<TIME>";
    pub const DURATION: &str = "<DURATION>";
}

/// The folders of one test's run, each with the word it is written as, longest first so a
/// folder inside another is replaced before it.
pub struct Normalizer {
    folders: Vec<(String, &'static str)>,
}

impl Normalizer {
    /// The folders of `env` and `repo`.
    pub fn new(env: &TestEnv, repo: &TempRepo) -> Self {
        Self::of(&[
            (repo.root(), word::ROOT),
            (repo.outside(), word::OUTSIDE),
            (env.home(), word::HOME),
            (env.runtime_dir(), word::RUNTIME),
            (bin_dir().as_path(), word::BIN),
        ])
    }

    /// Only the repository's folders (a test without an environment of its own).
    pub fn for_repo(repo: &TempRepo) -> Self {
        Self::of(&[(repo.root(), word::ROOT), (repo.outside(), word::OUTSIDE)])
    }

    fn of(folders: &[(&Path, &'static str)]) -> Self {
        let mut folders: Vec<(String, &'static str)> = folders
            .iter()
            .flat_map(|&(path, word)| spellings(path).into_iter().map(move |s| (s, word)))
            .collect();
        folders.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        Self { folders }
    }

    /// `text` with every variable part written as its word.
    pub fn text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (path, word) in &self.folders {
            text = text.replace(path.as_str(), word);
        }
        let text = RUN_ID.replace_all(&text, format!("$1-{}", word::RUN));
        let text = STAMP.replace_all(&text, word::TIME);
        DURATION.replace_all(&text, word::DURATION).into_owned()
    }

    /// What `out` shows, normalized.
    pub fn seen(&self, out: &Output) -> Seen {
        Seen {
            code: out.code,
            stdout: self.text(&out.stdout),
            stderr: self.text(&out.stderr),
        }
    }
}

/// A folder as written and, where it differs, as the system resolves it (`/tmp` may be a link).
fn spellings(path: &Path) -> Vec<String> {
    let mut out = vec![path.display().to_string()];
    if let Ok(real) = path.canonicalize() {
        let real = real.display().to_string();
        if !out.contains(&real) {
            out.push(real);
        }
    }
    out
}

/// A command's exit, stdout and stderr as a person sees them, normalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl fmt::Display for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exit: {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Output {
    /// What this output shows a person in `env` on `repo`, normalized for a snapshot.
    pub fn seen(&self, env: &TestEnv, repo: &TempRepo) -> Seen {
        Normalizer::new(env, repo).seen(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_parts_become_words() {
        let repo = TempRepo::empty();
        let n = Normalizer::for_repo(&repo);
        let root = repo.root().display();
        let text = format!(
            "{root}/src/a.rs at 2026-12-07T10:15:00.123Z took 12 ms then 1.5 s (limit 60 s); \
             run review-20261207T101500Z-0a1b2c"
        );
        assert_eq!(
            n.text(&text),
            "<ROOT>/src/a.rs at <TIME> took <DURATION> then <DURATION> (limit 60 s); \
             run review-<RUN>"
        );
    }

    #[test]
    fn a_folder_inside_another_is_written_as_its_own_word() {
        let repo = TempRepo::empty();
        let n = Normalizer::for_repo(&repo);
        let outside = repo.outside().display().to_string();
        let root = repo.root().display().to_string();
        let said = n.text(&format!("{root} {outside}"));
        assert!(!said.contains('/'), "{said}");
    }

    #[test]
    fn seen_prints_exit_then_both_streams() {
        let out = Output {
            code: 64,
            stdout: String::new(),
            stderr: "stanley: usage error: x\n".into(),
        };
        let repo = TempRepo::empty();
        let seen = Normalizer::for_repo(&repo).seen(&out);
        assert_eq!(
            seen.to_string(),
            "exit: 64\n--- stdout ---\n--- stderr ---\nstanley: usage error: x\n"
        );
    }
}

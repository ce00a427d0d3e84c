//! The flow store on disk under `.stanley/flow/`: `state.json` (replaced atomically),
//! `side_effects.jsonl` (appended and synced, never rewritten), the gate journal `gates.jsonl`
//! and `NEEDS_HUMAN.md` with the record of the question in it (`question.json`).
//!
//! The journal, the ledger and the question record decide what the flow does next, so each is
//! sealed with the user's key ([`crate::user_key`]) and read only when Git does not track it: a
//! branch that commits `.stanley/flow/state.json`, a ledger line saying a side effect was done,
//! or a `NEEDS_HUMAN.md` with an answer in it speaks for no one. A person's answer counts only
//! under a question Stanley asked (the sealed record holds the question's text and when it was
//! written), in a file written after it.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use stanley_workflows::flow::agent::ANSWER_HEADING;
use stanley_workflows::flow::state::{FlowState, FlowStore, StoreError};

use crate::records::{
    create_private_dir, ends_mid_line, open_append, read_at_most, read_bounded, write_atomic,
};
use crate::user_key::UserKey;

/// The MAC domains of the journal, the ledger's lines and the question record.
const STATE_DOMAIN: &str = "stanley.flow-state/1";
const LEDGER_DOMAIN: &str = "stanley.flow-ledger/1";
const QUESTION_DOMAIN: &str = "stanley.flow-question/1";
/// The first line of a sealed journal: this, a space, the MAC of the rest.
const STATE_SEAL: &str = "stanley-sealed";

/// The most of the journal (or the side-effect ledger, or a damaged journal kept aside) read:
/// far above what they hold, far below what would hurt (a link to `/dev/zero` is refused anyway).
pub const MAX_STATE_BYTES: u64 = 16 * 1024 * 1024;
/// The most of `NEEDS_HUMAN.md` read.
const MAX_NOTE_BYTES: u64 = 64 * 1024;

/// A flow store rooted at a repository's `.stanley/flow/`.
pub struct FileFlowStore {
    root: PathBuf,
    dir: PathBuf,
    /// Serializes appends (the side-effect ledger, the gate journal) inside the daemon.
    appends: Mutex<()>,
    /// What the journal, the ledger and the question record are sealed with.
    key: UserKey,
}

/// What Stanley asked a person: the note's text up to its answer heading, and when the note was
/// written (nanoseconds since the epoch, from the file's own modification time).
#[derive(serde::Serialize, serde::Deserialize)]
struct Question {
    asked: String,
    written_ns: i128,
}

fn modified_ns(meta: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// The part of a note up to and including its answer heading line.
fn question_part(text: &str) -> Option<&str> {
    let heading = format!("\n{ANSWER_HEADING}\n");
    text.find(&heading).map(|i| &text[..i + heading.len()])
}

fn err(what: &str, e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::file(what, e)
}

impl FileFlowStore {
    /// A store for the repository at `root`, sealing with `key` (the user's own).
    pub fn new(root: &std::path::Path, key: UserKey) -> Self {
        Self {
            root: root.to_path_buf(),
            dir: root.join(".stanley/flow"),
            appends: Mutex::new(()),
            key,
        }
    }

    /// Refuses `.stanley/flow/<name>` when Git tracks it: a commit brought it.
    fn untracked(&self, name: &str) -> Result<(), StoreError> {
        let rel = format!(".stanley/flow/{name}");
        if crate::tracked::tracked(&self.root, &rel) {
            return Err(StoreError::Tracked { path: rel });
        }
        Ok(())
    }

    /// The question Stanley asked, when its sealed record is there and opens under the key.
    fn question(&self) -> Option<Question> {
        self.untracked("question.json").ok()?;
        let bytes = read_bounded(&self.dir.join("question.json"), MAX_NOTE_BYTES * 2).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        serde_json::from_str(self.key.unseal(QUESTION_DOMAIN, text.trim_end())?).ok()
    }

    /// Removes `.stanley/flow/<name>`; one already gone is fine.
    fn remove(&self, name: &str) -> Result<(), StoreError> {
        match crate::records::remove_file(&self.dir.join(name)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(err(&format!("cannot remove .stanley/flow/{name}"), e)),
        }
    }

    fn ledger_path(&self) -> PathBuf {
        self.dir.join("side_effects.jsonl")
    }

    /// Appends one line to a JSONL file under `.stanley/flow/`, synced before returning.
    fn append(&self, name: &str, record: &str) -> Result<(), StoreError> {
        let path = self.dir.join(name);
        create_private_dir(&self.dir).map_err(|e| err("cannot create .stanley/flow", e))?;
        let mut file =
            open_append(&path).map_err(|e| err(&format!("cannot open .stanley/flow/{name}"), e))?;
        // After a torn last line, start on a fresh line so this record stays readable.
        let torn = ends_mid_line(&path);
        let line = format!("{}{record}\n", if torn { "\n" } else { "" });
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| err(&format!("cannot append to .stanley/flow/{name}"), e))
    }
}

impl FlowStore for FileFlowStore {
    fn read_state(&self) -> Result<Option<String>, StoreError> {
        let bytes = match read_bounded(&self.dir.join("state.json"), MAX_STATE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err("cannot read .stanley/flow/state.json", e)),
        };
        self.untracked("state.json")?;
        let text = String::from_utf8_lossy(&bytes);
        let sealed = text.split_once('\n').and_then(|(first, rest)| {
            let tag = first.strip_prefix(STATE_SEAL)?.strip_prefix(' ')?;
            self.key
                .verify(STATE_DOMAIN, rest.as_bytes(), tag)
                .then(|| rest.to_owned())
        });
        // A journal Stanley did not write (or a torn or flipped one) comes back as damage, which
        // the flow moves aside and reports; its content is never used.
        Ok(Some(sealed.unwrap_or_default()))
    }

    fn write_state(&self, state: &FlowState) -> Result<(), StoreError> {
        create_private_dir(&self.dir).map_err(|e| err("cannot create .stanley/flow", e))?;
        let mut text =
            serde_json::to_string_pretty(state).map_err(|e| err("cannot encode the state", e))?;
        text.push('\n');
        let tag = self.key.tag(STATE_DOMAIN, text.as_bytes());
        let sealed = format!("{STATE_SEAL} {tag}\n{text}");
        write_atomic(&self.dir.join("state.json"), sealed.as_bytes())
            .map_err(|e| err("cannot write .stanley/flow/state.json", e))
    }

    fn reset_state(&self) -> Result<(), StoreError> {
        self.remove("state.json")
    }

    fn side_effect_done(&self, key: &str) -> Result<bool, StoreError> {
        let text = match read_bounded(&self.ledger_path(), MAX_STATE_BYTES) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(err("cannot read .stanley/flow/side_effects.jsonl", e)),
        };
        self.untracked("side_effects.jsonl")?;
        // A torn last line (a crash mid-append) is skipped, never fatal; a line not sealed with
        // the user's key says nothing was done.
        Ok(text.lines().any(|line| {
            self.key
                .unseal(LEDGER_DOMAIN, line)
                .and_then(|json| serde_json::from_str::<serde_json::Value>(json).ok())
                .is_some_and(|v| v["key"].as_str() == Some(key))
        }))
    }

    fn record_side_effect(&self, key: &str, at: &str) -> Result<(), StoreError> {
        let _guard = self.appends.lock().unwrap_or_else(|e| e.into_inner());
        if self.side_effect_done(key)? {
            return Ok(());
        }
        let line = serde_json::json!({"key": key, "at": at}).to_string();
        self.append("side_effects.jsonl", &self.key.seal(LEDGER_DOMAIN, &line))
    }

    fn record_gate(&self, line: &str) -> Result<(), StoreError> {
        let _guard = self.appends.lock().unwrap_or_else(|e| e.into_inner());
        self.append("gates.jsonl", line)
    }

    fn needs_human(&self, text: &str) -> Result<(), StoreError> {
        create_private_dir(&self.dir).map_err(|e| err("cannot create .stanley/flow", e))?;
        let note = self.dir.join("NEEDS_HUMAN.md");
        write_atomic(&note, text.as_bytes())
            .map_err(|e| err("cannot write .stanley/flow/NEEDS_HUMAN.md", e))?;
        // The record of the question: what was asked and when the note was written, sealed.
        let written_ns = fs::symlink_metadata(&note)
            .map(|m| modified_ns(&m))
            .map_err(|e| err("cannot read back .stanley/flow/NEEDS_HUMAN.md", e))?;
        let record = Question {
            asked: question_part(text).unwrap_or(text).to_owned(),
            written_ns,
        };
        let json = serde_json::to_string(&record).map_err(|e| err("cannot encode", e))?;
        let mut sealed = self.key.seal(QUESTION_DOMAIN, &json);
        sealed.push('\n');
        write_atomic(&self.dir.join("question.json"), sealed.as_bytes())
            .map_err(|e| err("cannot write .stanley/flow/question.json", e))
    }

    fn needs_human_pending(&self) -> bool {
        self.read_needs_human().is_some()
    }

    fn read_needs_human(&self) -> Option<String> {
        // Only under a question Stanley asked, in a note Git does not track: a regular file,
        // opened without following a link or waiting on a FIFO, at most 64 KiB of it.
        let question = self.question()?;
        self.untracked("NEEDS_HUMAN.md").ok()?;
        let path = self.dir.join("NEEDS_HUMAN.md");
        let (bytes, _) = read_at_most(&path, MAX_NOTE_BYTES).ok()?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        // The question is the one asked; an answer under it counts only when the note was
        // written after the question (what Stanley wrote carries no answer of its own).
        if !text.starts_with(&question.asked) {
            return None;
        }
        let written = fs::symlink_metadata(&path).ok().map(|m| modified_ns(&m))?;
        if written <= question.written_ns {
            return Some(question.asked);
        }
        Some(text)
    }

    fn clear_needs_human(&self) -> Result<(), StoreError> {
        self.remove("NEEDS_HUMAN.md")?;
        self.remove("question.json")
    }

    fn keep_broken_state(&self, now: &str) -> Result<String, StoreError> {
        let digits: String = now.chars().filter(char::is_ascii_digit).take(14).collect();
        let stamp = if digits.len() == 14 {
            format!("{}T{}Z", &digits[..8], &digits[8..])
        } else {
            "unknown".to_owned()
        };
        let mut name = format!("state.corrupt-{stamp}.json");
        let mut n = 2;
        while self.dir.join(&name).exists() {
            name = format!("state.corrupt-{stamp}-{n}.json");
            n += 1;
        }
        crate::records::rename(&self.dir.join("state.json"), &self.dir.join(&name))
            .map_err(|e| err("cannot move the damaged .stanley/flow/state.json aside", e))?;
        Ok(format!(".stanley/flow/{name}"))
    }

    fn broken_states(&self) -> Vec<(String, String)> {
        let Ok(entries) = crate::records::list_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with("state.corrupt-") && name.ends_with(".json")).then(|| {
                    let text = read_bounded(&e.path(), MAX_STATE_BYTES)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                    (format!(".stanley/flow/{name}"), text)
                })
            })
            .collect();
        out.sort();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_workflows::flow::parse_flow;
    use std::fs::OpenOptions;
    use std::io::Write;

    #[test]
    fn the_ledger_outlives_a_state_reset_and_records_a_key_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileFlowStore::new(dir.path(), UserKey::from_bytes([4; 32]));
        let flow = parse_flow(r#"{"goal": "g", "phases": [{"id": "publish", "name": "P", "done_when": "d", "check": "true", "side_effect": true}]}"#).unwrap();
        assert_eq!(store.read_state().unwrap(), None);
        let state = FlowState::new(&flow, stanley_workflows::time::Stamp::EPOCH);
        store.write_state(&state).unwrap();
        let text = store.read_state().unwrap().unwrap();
        assert_eq!(FlowState::parse(&text, &flow).unwrap(), state);

        assert!(!store.side_effect_done("1:publish:1").unwrap());
        store.record_side_effect("1:publish:1", "t1").unwrap();
        store.record_side_effect("1:publish:1", "t2").unwrap();
        store.reset_state().unwrap();
        store.reset_state().unwrap();
        assert_eq!(store.read_state().unwrap(), None);
        assert!(
            store.side_effect_done("1:publish:1").unwrap(),
            "survives the reset"
        );
        assert!(!store.side_effect_done("2:publish:1").unwrap());
        let ledger =
            fs::read_to_string(dir.path().join(".stanley/flow/side_effects.jsonl")).unwrap();
        assert_eq!(ledger.lines().count(), 1, "{ledger}");

        // A torn line from a crash mid-append does not hide the records before it.
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join(".stanley/flow/side_effects.jsonl"))
            .unwrap();
        f.write_all(b"{\"key\": \"1:pub").unwrap();
        assert!(store.side_effect_done("1:publish:1").unwrap());
        store.record_side_effect("2:publish:1", "t3").unwrap();
        assert!(
            store.side_effect_done("2:publish:1").unwrap(),
            "written on a fresh line"
        );

        store.needs_human("Decide the release name\n").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join(".stanley/flow/NEEDS_HUMAN.md")).unwrap(),
            "Decide the release name\n"
        );
    }
}

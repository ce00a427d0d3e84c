//! The improvement queue's append-only job log, `.stanley/queue.ndjson`, kept beside sled so a
//! damaged store is noticed and rebuilt: one line per acknowledged change, `<mac> <json>`,
//! written and fsynced before the change is acknowledged.
//!
//! A line is `{"put": <job>}` or `{"remove": "<id>"}`, sealed with the user's key
//! ([`crate::user_key`]): a queued job is instructions to the coding agent, so a line a
//! repository committed (or anyone without the key wrote) is never one of ours, whatever the
//! file's modes. Replaying the log gives the jobs the queue acknowledged; a line whose MAC or JSON
//! does not hold is damage, except a torn last line (a crash mid-append), which was never
//! acknowledged.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use stanley_workflows::improve::{Job, JobId};

use crate::user_key::UserKey;

/// The domain of the log's MACs (`/1` lines carried a CRC any writer could make).
const DOMAIN: &str = "stanley.job-log/2";

/// What replaying the log found.
#[derive(Debug, Default)]
pub struct Replay {
    /// Whether the file exists.
    pub exists: bool,
    /// Live jobs by id, as last written.
    pub jobs: BTreeMap<JobId, Job>,
    /// Every id the log mentions (live or removed).
    pub known: std::collections::BTreeSet<JobId>,
    /// Lines that failed their checksum or did not parse (not counting a torn last line).
    pub damaged: usize,
    /// Whether the last line was torn (no newline and unreadable).
    pub torn: bool,
}

/// The open log: appends under a lock.
pub struct JobLog {
    path: PathBuf,
    file: Mutex<fs::File>,
    key: UserKey,
}

impl std::fmt::Debug for JobLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobLog").field("path", &self.path).finish()
    }
}

/// What one line says: `{"put": <job>}` or `{"remove": "<id>"}`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Entry<J> {
    Put(J),
    Remove(JobId),
}

/// One line: the MAC of the JSON, a space, the JSON, a newline.
fn line(key: &UserKey, entry: &Entry<&Job>) -> String {
    // (Serializing a job and an id cannot fail: no map with non-string keys, no float.)
    let json = serde_json::to_string(entry).unwrap_or_default();
    let mut line = key.seal(DOMAIN, &json);
    line.push('\n');
    line
}

/// What one line says when its MAC holds under `key` and its JSON is an entry.
fn parse_line(key: &UserKey, text: &str) -> Option<Entry<Job>> {
    serde_json::from_str(key.unseal(DOMAIN, text)?).ok()
}

/// The largest job log read back: jobs are a few KiB each, and the log is rewritten from the
/// store when it is recovered.
const MAX_LOG_BYTES: u64 = 256 * 1024 * 1024;

/// Replays the log at `path` (missing is empty, `exists: false`), counting every line not
/// sealed with `key` as damage.
pub fn replay(path: &Path, key: &UserKey) -> io::Result<Replay> {
    // A regular file, not through a link, never a FIFO or a device, and bounded (issue 36).
    let bytes = match crate::records::read_bounded(path, MAX_LOG_BYTES) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Replay::default()),
        Err(e) => return Err(e),
    };
    let mut out = Replay {
        exists: true,
        ..Replay::default()
    };
    let text = String::from_utf8_lossy(&bytes);
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        if raw.is_empty() {
            continue;
        }
        let last = i + 1 == lines.len();
        let parsed = parse_line(key, raw);
        let applied = parsed.map(|entry| match entry {
            Entry::Put(job) => {
                out.known.insert(job.id.clone());
                out.jobs.insert(job.id.clone(), job);
            }
            Entry::Remove(id) => {
                out.jobs.remove(&id);
                out.known.insert(id);
            }
        });
        let applied = applied.is_some();
        if !applied {
            if last && !complete {
                out.torn = true;
            } else {
                out.damaged += 1;
            }
        }
    }
    Ok(out)
}

/// The log's bytes for `jobs`: one `put` line each.
fn compacted<'a>(key: &UserKey, jobs: impl IntoIterator<Item = &'a Job>) -> String {
    jobs.into_iter()
        .map(|job| line(key, &Entry::Put(job)))
        .collect()
}

impl JobLog {
    /// Replaces the log at `path` with one `put` line per job (atomically), then opens it for
    /// appending.
    pub fn rewrite<'a>(
        path: &Path,
        key: &UserKey,
        jobs: impl IntoIterator<Item = &'a Job>,
    ) -> io::Result<Self> {
        crate::records::write_atomic(path, compacted(key, jobs).as_bytes())?;
        Ok(Self {
            path: path.to_owned(),
            file: Mutex::new(crate::records::open_append(path)?),
            key: key.clone(),
        })
    }

    /// Appends that `job` is now as given, durably.
    pub fn put(&self, job: &Job) -> io::Result<()> {
        self.append(&Entry::Put(job))
    }

    /// Appends that job `id` was removed, durably.
    pub fn remove(&self, id: &JobId) -> io::Result<()> {
        self.append(&Entry::Remove(id.clone()))
    }

    fn append(&self, entry: &Entry<&Job>) -> io::Result<()> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let before = file.metadata()?.len();
        let written = file
            .write_all(line(&self.key, entry).as_bytes())
            .and_then(|()| file.sync_data());
        if written.is_err() {
            // A partial line (a full disk) would glue itself to the next one: cut it off.
            let _ = file.set_len(before);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(request: &str) -> Job {
        Job::new(
            request,
            stanley_workflows::routing::InputShape::None,
            stanley_workflows::time::Stamp::EPOCH,
        )
    }

    #[test]
    fn replay_applies_puts_and_removes_and_counts_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queue.ndjson");
        let (a, b, c) = (job("a"), job("b"), job("c"));
        let key = UserKey::from_bytes([1; 32]);
        let log = JobLog::rewrite(&path, &key, [&a, &b]).unwrap();
        log.put(&c).unwrap();
        log.remove(&b.id).unwrap();
        let replay = super::replay(&path, &key).unwrap();
        assert_eq!(replay.jobs.keys().collect::<Vec<_>>(), {
            let mut ids = vec![&a.id, &c.id];
            ids.sort();
            ids
        });
        assert!(replay.known.contains(&b.id));
        assert_eq!((replay.damaged, replay.torn), (0, false));

        // A flipped byte in the first line fails its checksum; a torn tail is not damage.
        let mut bytes = fs::read(&path).unwrap();
        bytes[12] ^= 0x01;
        bytes.extend_from_slice(b"0123abcd {\"put\": {\"id\"");
        fs::write(&path, &bytes).unwrap();
        let replay = super::replay(&path, &key).unwrap();
        assert_eq!((replay.damaged, replay.torn), (1, true));
        assert!(!replay.jobs.contains_key(&a.id));
        assert!(replay.jobs.contains_key(&c.id));

        // The same lines under another user's key are all damage: none is ours.
        let theirs = super::replay(&path, &UserKey::from_bytes([2; 32])).unwrap();
        assert!(theirs.jobs.is_empty() && theirs.known.is_empty());
        assert_eq!(theirs.damaged, 4, "every whole line");
    }

    #[test]
    fn a_missing_log_is_empty_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let replay = super::replay(
            &dir.path().join("queue.ndjson"),
            &UserKey::from_bytes([1; 32]),
        )
        .unwrap();
        assert!(!replay.exists && replay.jobs.is_empty());
    }
}

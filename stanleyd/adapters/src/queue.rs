//! The improvement queue in sled under `.stanley/state/`: one tree of jobs keyed by id, a
//! schema-version key, atomic inserts so concurrent enqueues of one job give one job, and a flush
//! before `enqueue` returns so a queued job survives a crash.

use std::path::Path;

use stanley_workflows::improve::{Enqueued, Job, JobQueue, JobState, MAX_PENDING_JOBS, QueueError};

/// The store's schema version, kept under the `schema` key.
pub const SCHEMA_VERSION: &str = "stanley.queue/1";

/// The sled-backed queue.
pub struct SledQueue {
    db: sled::Db,
    jobs: sled::Tree,
    lock: std::sync::Mutex<()>,
}

impl std::fmt::Debug for SledQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledQueue").finish_non_exhaustive()
    }
}

fn err(e: impl std::fmt::Display) -> QueueError {
    QueueError(format!("the improvement queue failed: {e}"))
}

impl SledQueue {
    /// Opens (or creates) the store in `dir`, checking its schema version.
    pub fn open(dir: &Path) -> Result<Self, QueueError> {
        crate::records::create_private_dir(dir).map_err(err)?;
        // sled opens its own files by name: a link planted among them would be written through.
        crate::records::refuse_links_within(dir).map_err(err)?;
        let db = sled::Config::new()
            .cache_capacity(4 * 1024 * 1024)
            .path(dir)
            .mode(sled::Mode::HighThroughput)
            .open()
            .map_err(err)?;
        match db.get("schema").map_err(err)? {
            None => {
                db.insert("schema", SCHEMA_VERSION).map_err(err)?;
            }
            Some(v) if v.as_ref() == SCHEMA_VERSION.as_bytes() => {}
            Some(v) => {
                return Err(QueueError(format!(
                    "the improvement queue has schema {}, not {SCHEMA_VERSION}; move .stanley/state/ aside",
                    String::from_utf8_lossy(&v)
                )));
            }
        }
        let jobs = db.open_tree("jobs").map_err(err)?;
        Ok(Self {
            db,
            jobs,
            lock: std::sync::Mutex::new(()),
        })
    }

    /// Writes everything to disk.
    pub fn flush(&self) -> Result<(), QueueError> {
        self.db.flush().map(|_| ()).map_err(err)
    }
}

impl JobQueue for SledQueue {
    fn enqueue(&self, job: &Job) -> Result<Enqueued, QueueError> {
        // One writer at a time inside the daemon keeps the pending count exact.
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(existing) = self.get(&job.id)? {
            return Ok(match existing.state {
                JobState::Done => Enqueued::AlreadyAttempted,
                _ => Enqueued::AlreadyQueued,
            });
        }
        let pending = self
            .list()?
            .iter()
            .filter(|j| j.state == JobState::Pending)
            .count();
        if pending >= MAX_PENDING_JOBS {
            return Ok(Enqueued::QueueFull);
        }
        let value = serde_json::to_vec(job).map_err(err)?;
        let swapped = self
            .jobs
            .compare_and_swap(job.id.as_bytes(), None as Option<&[u8]>, Some(value))
            .map_err(err)?;
        if swapped.is_err() {
            return Ok(Enqueued::AlreadyQueued);
        }
        self.flush()?;
        Ok(Enqueued::Queued)
    }

    fn list(&self) -> Result<Vec<Job>, QueueError> {
        let mut out = Vec::new();
        for item in self.jobs.iter() {
            let (_, value) = item.map_err(err)?;
            // A record that does not parse is skipped rather than failing the whole listing.
            if let Ok(job) = serde_json::from_slice::<Job>(&value) {
                out.push(job);
            }
        }
        Ok(out)
    }

    fn put(&self, job: &Job) -> Result<(), QueueError> {
        let value = serde_json::to_vec(job).map_err(err)?;
        self.jobs.insert(job.id.as_bytes(), value).map_err(err)?;
        self.flush()
    }

    fn remove(&self, id: &str) -> Result<bool, QueueError> {
        let existed = self.jobs.remove(id.as_bytes()).map_err(err)?.is_some();
        self.flush()?;
        Ok(existed)
    }

    fn get(&self, id: &str) -> Result<Option<Job>, QueueError> {
        Ok(self
            .jobs
            .get(id.as_bytes())
            .map_err(err)?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn concurrent_enqueues_give_one_job_and_the_21st_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let queue = Arc::new(SledQueue::open(&dir.path().join("state")).unwrap());
        let job = Job::new(
            "Audit the TODO comments",
            "none",
            "2026-01-01T00:00:00.000Z",
        );
        let outcomes: Vec<Enqueued> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| s.spawn(|| queue.enqueue(&job).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(
            outcomes.iter().filter(|o| **o == Enqueued::Queued).count(),
            1
        );
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, Enqueued::Queued | Enqueued::AlreadyQueued))
        );
        for i in 1..20 {
            assert_eq!(
                queue
                    .enqueue(&Job::new(&format!("request {i}"), "none", "t"))
                    .unwrap(),
                Enqueued::Queued
            );
        }
        assert_eq!(
            queue
                .enqueue(&Job::new("one too many", "none", "t"))
                .unwrap(),
            Enqueued::QueueFull
        );
        assert_eq!(queue.list().unwrap().len(), 20);
    }

    #[test]
    fn jobs_survive_reopening_and_the_schema_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        {
            let queue = SledQueue::open(&path).unwrap();
            queue
                .enqueue(&Job::new("Audit the TODO comments", "failure_log", "t"))
                .unwrap();
        }
        let queue = SledQueue::open(&path).unwrap();
        let jobs = queue.list().unwrap();
        assert_eq!(
            (jobs.len(), jobs[0].input_shape.as_str()),
            (1, "failure_log")
        );
        queue.db.insert("schema", "stanley.queue/0").unwrap();
        drop(queue);
        assert!(
            SledQueue::open(&path)
                .unwrap_err()
                .0
                .contains("has schema stanley.queue/0")
        );
    }
}

//! Dimensions of what the daemon keeps on disk, measured in process on the real stores: run
//! folders kept (listing them, as `runs list` and the page do, and retention after a request)
//! and jobs in the improvement queue (adding one, listing them).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stanley_adapters::queue::SledQueue;
use stanley_adapters::user_key::UserKey;
use stanley_adapters::{FsRecorder, SecretRedactor};
use stanley_workflows::improve::{Job, JobQueue, JobState};
use stanley_workflows::ports::RunRecorder;
use stanley_workflows::runs::{Retention, SUMMARY_FILE, SUMMARY_SCHEMA};

use crate::heap::peak_of;

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// A run id of the `i`th second of 2026-11-01 (ids carry their start).
fn run_id(i: usize) -> String {
    let (day, rest) = (1 + i / 86_400, i % 86_400);
    format!(
        "review-202611{day:02}T{:02}{:02}{:02}Z-{:06x}",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        i
    )
}

/// `n` run folders as Stanley writes them (a summary each), under `root`.
fn runs(root: &std::path::Path, n: usize) {
    let redactor: Arc<SecretRedactor> = Arc::new(SecretRedactor::new(Vec::<String>::new()));
    for i in 0..n {
        let id = run_id(i);
        let id = stanley_workflows::runs::RunId::parse(&id).expect("a run id");
        let rec = FsRecorder::create(root, &id, redactor.clone()).expect("a run folder");
        rec.write_json(
            SUMMARY_FILE,
            &json!({
                "schema": SUMMARY_SCHEMA, "runId": id, "startedAt": stanley_workflows::time::Stamp::EPOCH,
                "finishedAt": "2026-11-01T00:00:01Z", "durationMs": 5, "request": "Review",
                "workflow": "review", "status": "complete", "exitCode": 0, "delegated": false,
                "findings": 3, "usage": {},
            }),
        );
    }
}

/// Run folders kept at `base`, 4× and 16×: listing them all, retention with nothing to
/// remove (the common request) and with one batch to remove (a full history past its slack).
pub(crate) fn runs_kept(base: usize) -> Value {
    let mut steps = Vec::new();
    for n in [base, 4 * base, 16 * base] {
        let dir = tempfile::tempdir().expect("a folder");
        let root = dir.path();
        std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .status()
            .expect("git init");
        runs(root, n);
        let ((listed, list_time), list_peak) =
            peak_of(|| timed(|| stanley_adapters::runs::list(root).len()));
        assert_eq!(listed, n);
        let now = i64::from(u32::MAX);
        let none = HashSet::new();
        let keep = |k: usize| Retention {
            keep: k,
            max_age_days: 1_000_000,
        };
        let (kept_all, prune_none) = timed(|| {
            stanley_adapters::runs::prune(root, keep(n), now, &none, &|_| false)
                .removed
                .len()
        });
        assert_eq!(kept_all, 0);
        // (Retention waits for a batch past `keep`, its slack: D-183. The smallest history
        // that prunes is `keep` and its slack and one more.)
        let batch_keep = (n - 1) - (n - 1) / 16;
        let ((one, prune_one), prune_peak) = peak_of(|| {
            timed(|| {
                stanley_adapters::runs::prune(root, keep(batch_keep), now, &none, &|_| false)
                    .removed
                    .len()
            })
        });
        assert_eq!(one, n - batch_keep);
        eprintln!(
            "runs kept={n}: list {:.1} ms, retention {:.2} / {:.2} ms",
            list_time.as_secs_f64() * 1e3,
            prune_none.as_secs_f64() * 1e3,
            prune_one.as_secs_f64() * 1e3
        );
        steps.push(json!({
            "runs": n,
            "listSeconds": list_time.as_secs_f64(),
            "listPeakHeapBytes": list_peak,
            "retentionNothingToRemoveSeconds": prune_none.as_secs_f64(),
            "retentionOneToRemoveSeconds": prune_one.as_secs_f64(),
            "retentionPeakHeapBytes": prune_peak,
        }));
    }
    with_ratios(steps, "listSeconds")
}

/// Jobs in the improvement queue at `base`, 4× and 16× (done jobs stay): adding one more and
/// listing them all.
pub(crate) fn queue_jobs(base: usize) -> Value {
    let mut steps = Vec::new();
    for n in [base, 4 * base, 16 * base] {
        let dir = tempfile::tempdir().expect("a folder");
        let queue = SledQueue::open(&dir.path().join("queue"), UserKey::from_bytes([7; 32]))
            .expect("the queue");
        for i in 0..n {
            let mut job = Job::new(
                &format!("request {i}"),
                stanley_workflows::routing::InputShape::None,
                stanley_workflows::time::Stamp::EPOCH,
            );
            job.state = JobState::Done;
            queue.put(&job).expect("a job");
        }
        // The first enqueue of a daemon's life counts the pending jobs; the figure is the next.
        let first = Job::new(
            "a first request",
            stanley_workflows::routing::InputShape::None,
            stanley_workflows::time::Stamp::EPOCH,
        );
        assert!(queue.enqueue(&first).is_ok());
        let extra = Job::new(
            "one more request",
            stanley_workflows::routing::InputShape::None,
            stanley_workflows::time::Stamp::EPOCH,
        );
        let ((added, add_time), add_peak) = peak_of(|| timed(|| queue.enqueue(&extra)));
        assert!(added.is_ok());
        let ((listed, list_time), list_peak) =
            peak_of(|| timed(|| queue.list().map(|l| l.len()).unwrap_or(0)));
        assert_eq!(listed, n + 2);
        eprintln!(
            "queue jobs={n}: enqueue {:.2} ms, list {:.2} ms",
            add_time.as_secs_f64() * 1e3,
            list_time.as_secs_f64() * 1e3
        );
        steps.push(json!({
            "jobs": n,
            "enqueueSeconds": add_time.as_secs_f64(),
            "enqueuePeakHeapBytes": add_peak,
            "listSeconds": list_time.as_secs_f64(),
            "listPeakHeapBytes": list_peak,
        }));
    }
    with_ratios(steps, "listSeconds")
}

/// `steps` with each step's ratio of `field` to the step before (4× a step is linear).
pub(crate) fn with_ratios(mut steps: Vec<Value>, field: &str) -> Value {
    let mut last: Option<f64> = None;
    for step in &mut steps {
        let now = step[field].as_f64().unwrap_or(0.0);
        step["ratioToPrevious"] = json!(last.map(|l| now / l.max(1e-9)));
        last = Some(now);
    }
    Value::Array(steps)
}

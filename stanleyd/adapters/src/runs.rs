//! Past runs on disk (`.stanley/runs/<id>/`): listing them with their summaries, reading one
//! back, and removing the ones retention lets go. Folders written before summaries existed (a
//! built-in's records only) are listed from their manifest.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;
use stanley_workflows::runs::{
    Kept, RESULT_FILE, Retention, RunSummary, SUMMARY_FILE, SUMMARY_SCHEMA, stamp_of, to_prune,
};

use crate::clock::parse_rfc3339;

/// `.stanley/runs/` under `root`.
pub fn runs_dir(root: &Path) -> PathBuf {
    root.join(".stanley/runs")
}

/// Whether `id` can name a run folder: letters, digits, `_`, `-` and `.`, no `..`.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The real folders under `.stanley/runs/` (links and files are skipped), by id.
fn folders(root: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(runs_dir(root)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|id| valid_id(id))
        .collect()
}

fn read_json(path: &Path) -> Option<Value> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// A run's summary: its `summary.json`, or one made from an older folder's manifest.
fn summary_of(root: &Path, id: &str) -> RunSummary {
    let dir = runs_dir(root).join(id);
    if let Some(summary) = read_json(&dir.join(SUMMARY_FILE))
        .and_then(|v| serde_json::from_value::<RunSummary>(v).ok())
        .filter(|s| s.schema == SUMMARY_SCHEMA)
    {
        return summary;
    }
    let manifest = read_json(&dir.join("manifest.json")).unwrap_or_default();
    let packet = read_json(&dir.join("packet.json")).unwrap_or_default();
    let workflow = manifest["workflow"]
        .as_str()
        .unwrap_or("")
        .split('@')
        .next()
        .unwrap_or("")
        .to_owned();
    RunSummary {
        schema: SUMMARY_SCHEMA.to_owned(),
        run_id: id.to_owned(),
        started_at: stamp_of(id).unwrap_or_default(),
        finished_at: String::new(),
        duration_ms: 0,
        request: String::new(),
        workflow,
        status: manifest["status"].as_str().unwrap_or("unknown").to_owned(),
        exit_code: 0,
        delegated: false,
        error: None,
        coverage: packet.get("coverage").cloned(),
        findings: packet["findings"].as_array().map_or(0, |a| a.len() as u64),
        usage: Value::Null,
    }
}

/// Every run, newest first.
pub fn list(root: &Path) -> Vec<RunSummary> {
    let mut runs: Vec<RunSummary> = folders(root)
        .iter()
        .map(|id| summary_of(root, id))
        .collect();
    runs.sort_by(|a, b| {
        stamp_of(&b.run_id)
            .cmp(&stamp_of(&a.run_id))
            .then_with(|| b.started_at.cmp(&a.started_at))
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    runs
}

/// One run: its summary and its `result.json` (`{document, human}`; null for an older folder).
/// `latest` names the newest run. NotFound for an unknown or malformed id.
pub fn read(root: &Path, id: &str) -> io::Result<(RunSummary, Value)> {
    let id = if id == "latest" {
        list(root)
            .into_iter()
            .next()
            .map(|s| s.run_id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "there are no runs yet"))?
    } else {
        id.to_owned()
    };
    let not_found = || io::Error::new(io::ErrorKind::NotFound, format!("no run {id}"));
    if !valid_id(&id) {
        return Err(not_found());
    }
    let dir = runs_dir(root).join(&id);
    let meta = fs::symlink_metadata(&dir).map_err(|_| not_found())?;
    if !meta.is_dir() {
        return Err(not_found());
    }
    let result = read_json(&dir.join(RESULT_FILE)).unwrap_or(Value::Null);
    Ok((summary_of(root, &id), result))
}

/// Removes the runs `retention` lets go (never one in `active`), and returns their ids.
pub fn prune(root: &Path, retention: Retention, now: i64, active: &HashSet<String>) -> Vec<String> {
    let kept: Vec<Kept> = folders(root)
        .into_iter()
        .map(|id| Kept {
            started: stamp_of(&id).and_then(|t| parse_rfc3339(&t)),
            id,
        })
        .collect();
    let mut removed = Vec::new();
    for id in to_prune(&kept, retention, now, active) {
        let dir = runs_dir(root).join(&id);
        // Only a real folder is removed: a link planted there is left alone.
        let real = fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
        if real && fs::remove_dir_all(&dir).is_ok() {
            removed.push(id);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(root: &Path, id: &str, summary: Option<&str>) {
        let dir = runs_dir(root).join(id);
        fs::create_dir_all(&dir).unwrap();
        if let Some(status) = summary {
            let s = serde_json::json!({
                "schema": SUMMARY_SCHEMA, "runId": id, "startedAt": "", "finishedAt": "",
                "durationMs": 5, "request": "r", "workflow": "review", "status": status,
                "exitCode": 0, "delegated": false, "findings": 1, "usage": {},
            });
            fs::write(dir.join(SUMMARY_FILE), s.to_string()).unwrap();
        }
    }

    #[test]
    fn runs_are_listed_newest_first_read_back_and_pruned_by_count() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        folder(root, "review-20261101T000000Z-aaaaaa", Some("complete"));
        folder(root, "review-20261102T000000Z-bbbbbb", Some("incomplete"));
        folder(root, "summarize-20261103T000000Z-cccccc", None);
        fs::write(
            runs_dir(root).join("summarize-20261103T000000Z-cccccc/manifest.json"),
            r#"{"workflow": "summarize@1", "status": "running"}"#,
        )
        .unwrap();
        let ids: Vec<String> = list(root).into_iter().map(|s| s.run_id).collect();
        assert_eq!(
            ids,
            [
                "summarize-20261103T000000Z-cccccc",
                "review-20261102T000000Z-bbbbbb",
                "review-20261101T000000Z-aaaaaa"
            ]
        );
        let (latest, result) = read(root, "latest").unwrap();
        assert_eq!(
            (latest.workflow.as_str(), latest.status.as_str()),
            ("summarize", "running")
        );
        assert_eq!(result, Value::Null);
        for bad in ["../x", "nope", "a/b", ""] {
            assert_eq!(
                read(root, bad).unwrap_err().kind(),
                io::ErrorKind::NotFound,
                "{bad}"
            );
        }
        let now = parse_rfc3339("2026-11-04T00:00:00Z").unwrap();
        let active: HashSet<String> = ["review-20261101T000000Z-aaaaaa".to_owned()].into();
        let removed = prune(
            root,
            Retention {
                keep: 1,
                max_age_days: 30,
            },
            now,
            &active,
        );
        assert_eq!(removed, ["review-20261102T000000Z-bbbbbb"]);
        assert_eq!(list(root).len(), 2);
    }
}

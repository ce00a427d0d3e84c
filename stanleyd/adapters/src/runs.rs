//! Past runs on disk (`.stanley/runs/<id>/`): listing them with their summaries, reading one
//! back, and removing the ones retention lets go. Folders written before summaries existed (a
//! built-in's records only) are listed from their manifest.
//!
//! Only what Stanley made counts: `.stanley`, `.stanley/runs` and each run folder must be real
//! folders of this user's, closed to others (a checkout makes folders 0755). A repository that
//! commits run folders, or links `.stanley/runs` elsewhere, gets them neither listed, exported
//! nor removed.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;
use stanley_workflows::runs::{
    Census, Kept, RESULT_FILE, Retention, RunSummary, SEEN_FILE, SUMMARY_FILE, SUMMARY_SCHEMA,
    stamp_of, to_prune,
};

use stanley_workflows::runs::RunId;

use crate::records::refuse_foreign_dir;

/// `.stanley/runs/` under `root`.
pub fn runs_dir(root: &Path) -> PathBuf {
    root.join(".stanley/runs")
}

/// Whether `id` can name a run folder: letters, digits, `_`, `-` and `.`, no `..`
/// ([`RunId::parse`]).
pub fn valid_id(id: &str) -> bool {
    RunId::parse(id).is_some()
}

/// Whether `dir` is a real folder of this user's, closed to others.
fn ours(dir: &Path) -> bool {
    fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) && refuse_foreign_dir(dir).is_ok()
}

/// Whether `.stanley` is a real folder of this user's that no one else can write in. Git makes
/// it (0755 under the usual umask) when `.stanley/workflows/` or `flow.json` is committed, so
/// it need not be closed to others, only safe from having `runs/` swapped under it.
fn safe_parent(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(dir).is_ok_and(|m| {
        m.is_dir() && m.uid() == crate::records::current_uid() && m.mode() & 0o022 == 0
    })
}

/// Why `.stanley/runs/` cannot be read, when it is not Stanley's (None: it is, or it is absent).
pub fn refused(root: &Path) -> Option<String> {
    let runs = runs_dir(root);
    if fs::symlink_metadata(&runs).is_err() {
        return None;
    }
    let state = root.join(".stanley");
    if !safe_parent(&state) {
        return Some(format!(
            "{} is a link, another user's, or writable by others, so the runs under it cannot be trusted; make it yours with `chmod go-w`, or move it aside",
            state.display()
        ));
    }
    if !ours(&runs) {
        return Some(format!(
            "{} was not made by Stanley (a link, another owner, or open to others); a repository cannot bring its own runs; move it aside",
            runs.display()
        ));
    }
    None
}

/// The run folders Stanley made under `.stanley/runs/`, by id: real folders of this user's,
/// closed to others, with a valid id. Nothing when `.stanley/runs/` itself is not Stanley's.
fn folders(root: &Path) -> Vec<RunId> {
    if refused(root).is_some() {
        return Vec::new();
    }
    let Ok(entries) = crate::records::list_dir(&runs_dir(root)) else {
        return Vec::new();
    };
    // A run folder Git tracks came with a commit, whatever its modes (a clone under
    // `umask 077` makes it 0700 and the user's).
    let tracked = crate::tracked::under(root, ".stanley/runs");
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|id| RunId::parse(&id))
        .filter(|id| {
            ours(&runs_dir(root).join(id.as_str()))
                && !crate::tracked::holds(&tracked, &format!(".stanley/runs/{id}"))
        })
        .collect()
}

fn read_json(path: &Path) -> Option<Value> {
    // A regular file, not through a link, never a FIFO, and bounded.
    serde_json::from_slice(&crate::records::read_bounded(path, MAX_RECORD_BYTES).ok()?).ok()
}

/// The most of one run record read (a result document of a very large triage stays far below).
const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// A run's summary: its `summary.json`, or one made from an older folder's manifest.
fn summary_of(root: &Path, id: &RunId) -> RunSummary {
    let dir = runs_dir(root).join(id.as_str());
    if let Some(mut summary) = read_json(&dir.join(SUMMARY_FILE))
        .and_then(|v| serde_json::from_value::<RunSummary>(v).ok())
        .filter(|s| s.schema == SUMMARY_SCHEMA)
    {
        // The folder names the run, whatever the file says.
        summary.run_id = id.clone();
        // (Runs recorded before issue 49 said `error` for a failed request: read as `failed`.)
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
        run_id: id.clone(),
        started_at: stamp_of(id.as_str()),
        finished_at: None,
        duration_ms: 0,
        request: String::new(),
        workflow,
        status: stanley_workflows::runs::RunStatus::parse(
            manifest["status"].as_str().unwrap_or("unknown"),
        ),
        exit_code: 0,
        delegated: false,
        error: None,
        coverage: packet.get("coverage").cloned(),
        findings: packet["findings"].as_array().map_or(0, |a| a.len() as u64),
        scope: packet["summary"]["diff"]["scope"]
            .as_str()
            .and_then(stanley_workflows::diff::Scope::parse),
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
        stamp_of(b.run_id.as_str())
            .cmp(&stamp_of(a.run_id.as_str()))
            .then_with(|| b.started_at.cmp(&a.started_at))
            .then_with(|| b.run_id.cmp(&a.run_id))
    });
    runs
}

/// One run: its summary and its `result.json` (`{document, human}`; null for an older folder).
/// `latest` names the newest run. NotFound for an unknown or malformed id.
pub fn read(root: &Path, id: &str) -> io::Result<(RunSummary, Value)> {
    if let Some(why) = refused(root) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
    }
    let not_found = || io::Error::new(io::ErrorKind::NotFound, format!("no run {id}"));
    let id = if id == "latest" {
        list(root)
            .into_iter()
            .next()
            .map(|s| s.run_id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "there are no runs yet"))?
    } else {
        RunId::parse(id).ok_or_else(not_found)?
    };
    let dir = runs_dir(root).join(id.as_str());
    if !ours(&dir) || crate::tracked::tracked(root, &format!(".stanley/runs/{id}")) {
        return Err(not_found());
    }
    let result = read_json(&dir.join(RESULT_FILE)).unwrap_or(Value::Null);
    Ok((summary_of(root, &id), result))
}

/// The fingerprints a person marked seen in run `id` (`seen.json`; none when absent or damaged).
pub fn seen(root: &Path, id: &RunId) -> Vec<String> {
    read_json(&runs_dir(root).join(id.as_str()).join(SEEN_FILE))
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

/// Adds `fingerprint` to run `id`'s seen list and returns the list. NotFound for a run that is
/// not one of Stanley's folders; the caller serializes writers.
pub fn mark_seen(root: &Path, id: &RunId, fingerprint: &str) -> io::Result<Vec<String>> {
    if let Some(why) = refused(root) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
    }
    let dir = runs_dir(root).join(id.as_str());
    if !ours(&dir) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no run {id}"),
        ));
    }
    let mut seen = seen(root, id);
    if !seen.iter().any(|s| s == fingerprint) {
        seen.push(fingerprint.to_owned());
        let bytes = serde_json::to_vec_pretty(&seen).map_err(io::Error::other)?;
        crate::records::write_atomic(&dir.join(SEEN_FILE), &bytes)?;
    }
    Ok(seen)
}

/// What one pruning did: the runs it removed, and what the folder held after (none when the
/// folder was not listed: refused, or missing).
#[derive(Debug, Default)]
pub struct Pruned {
    /// The ids removed.
    pub removed: Vec<String>,
    /// The runs left, as listed.
    pub census: Option<Census>,
}

/// Removes the runs `retention` lets go (never one in `active`, and never one `is_active` says
/// is running when it comes to removing it), and says which and what is left.
pub fn prune(
    root: &Path,
    retention: Retention,
    now: i64,
    active: &HashSet<String>,
    is_active: &dyn Fn(&str) -> bool,
) -> Pruned {
    // The policy is judged on the folders' names alone (an id carries its start): a request
    // that leaves nothing to remove reads one folder listing and looks at no folder. Only the
    // runs it would remove are then checked as Stanley's own (and not Git's) before they go; a
    // folder with a run's name that is not Stanley's counts toward `keep`, which keeps more of
    // Stanley's, never fewer (D-176).
    if refused(root).is_some() {
        return Pruned::default();
    }
    let Ok(entries) = crate::records::list_dir(&runs_dir(root)) else {
        return Pruned::default();
    };
    let kept: Vec<Kept> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|id| valid_id(id))
        .map(|id| Kept {
            started: stamp_of(&id).map(|t| t.0.as_second()),
            id,
        })
        .collect();
    let doomed = to_prune(&kept, retention, now, active);
    if doomed.is_empty() {
        return Pruned {
            census: Some(Census::after(&kept, &[])),
            removed: Vec::new(),
        };
    }
    // A run folder Git tracks came with a commit, whatever its modes (a clone under
    // `umask 077` makes it 0700 and the user's): it is never removed.
    let tracked = crate::tracked::under(root, ".stanley/runs");
    let mut removed = Vec::new();
    for id in doomed {
        let dir = runs_dir(root).join(&id);
        // A run that started since the list was taken stays; only Stanley's own folders go.
        if is_active(&id)
            || !ours(&dir)
            || crate::tracked::holds(&tracked, &format!(".stanley/runs/{id}"))
        {
            continue;
        }
        if crate::records::remove_tree(&dir).is_ok() {
            removed.push(id);
        }
    }
    Pruned {
        census: Some(Census::after(&kept, &removed)),
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn private(dir: &Path) {
        use std::os::unix::fs::PermissionsExt;
        fs::create_dir_all(dir).unwrap();
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).unwrap();
    }

    fn folder(root: &Path, id: &str, summary: Option<&str>) {
        private(&root.join(".stanley"));
        private(&runs_dir(root));
        let dir = runs_dir(root).join(id);
        private(&dir);
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
    fn seen_fingerprints_are_kept_once_in_the_run_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        folder(root, "review-20261101T000000Z-aaaaaa", Some("complete"));
        let id = &RunId::parse("review-20261101T000000Z-aaaaaa").unwrap();
        assert!(seen(root, id).is_empty());
        assert_eq!(mark_seen(root, id, "fp1").unwrap(), ["fp1"]);
        assert_eq!(mark_seen(root, id, "fp2").unwrap(), ["fp1", "fp2"]);
        assert_eq!(mark_seen(root, id, "fp1").unwrap(), ["fp1", "fp2"]);
        assert_eq!(seen(root, id), ["fp1", "fp2"]);
        let other = RunId::parse("review-20261101T000000Z-ffffff").unwrap();
        let err = mark_seen(root, &other, "fp1").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        // (A path that leaves the folder is no run id at all.)
        assert_eq!(RunId::parse("../x"), None);
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
        let ids: Vec<String> = list(root)
            .into_iter()
            .map(|s| s.run_id.into_string())
            .collect();
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
        let now = crate::clock::parse_rfc3339("2026-11-04T00:00:00Z").unwrap();
        let active: HashSet<String> = ["review-20261101T000000Z-aaaaaa".to_owned()].into();
        let removed = prune(
            root,
            Retention {
                keep: 1,
                max_age_days: 30,
            },
            now,
            &active,
            &|_| false,
        )
        .removed;
        assert_eq!(removed, ["review-20261102T000000Z-bbbbbb"]);
        assert_eq!(list(root).len(), 2);
    }

    #[test]
    fn runs_a_repository_brought_are_neither_listed_nor_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        folder(root, "review-20261101T000000Z-aaaaaa", Some("complete"));
        // A checkout makes folders 0755: a planted "newest" run is not Stanley's.
        let planted = runs_dir(root).join("review-29991231T235959Z-ffffff");
        fs::create_dir_all(&planted).unwrap();
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o755)).unwrap();
        let ids: Vec<String> = list(root)
            .into_iter()
            .map(|s| s.run_id.into_string())
            .collect();
        assert_eq!(ids, ["review-20261101T000000Z-aaaaaa"]);
        assert_eq!(read(root, "latest").unwrap().0.run_id.as_str(), ids[0]);
        let none = HashSet::new();
        let keep1 = Retention {
            keep: 1,
            max_age_days: 1,
        };
        prune(root, keep1, i64::MAX / 2, &none, &|_| false);
        assert!(
            planted.exists(),
            "a folder Stanley did not make is never removed"
        );

        // `.stanley/runs` linked elsewhere: nothing there is listed, read or removed.
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("project-20200101T000000Z-abcdef");
        private(&victim);
        let linked = tempfile::tempdir().unwrap();
        private(&linked.path().join(".stanley"));
        std::os::unix::fs::symlink(elsewhere.path(), runs_dir(linked.path())).unwrap();
        assert!(list(linked.path()).is_empty());
        assert!(
            refused(linked.path())
                .unwrap()
                .contains("was not made by Stanley")
        );
        assert_eq!(
            read(linked.path(), "latest").unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        prune(linked.path(), keep1, i64::MAX / 2, &none, &|_| false);
        assert!(victim.exists(), "nothing outside the repository is removed");
    }
}

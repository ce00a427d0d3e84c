//! The target over Stanley's own files under `.stanley/` as a crash or a checkout may leave
//! them: the improvement queue's job log, run summaries, results and `seen.json`, and the flow
//! journal, each written with the input's bytes and read back by the reader the daemon uses.

use std::path::{Path, PathBuf};

use arbitrary::Unstructured;
use serde_json::{Value, json};
use stanley_adapters::flow_store::{FileFlowStore, MAX_STATE_BYTES};
use stanley_adapters::{job_log, runs};
use stanley_workflows::flow::state::{FlowState, FlowStore};

use super::generate;
use super::{Checked, Target, class, ensure, shape};

/// The run every input's run files belong to.
const RUN: &str = "triage_failures-20261201T000000Z-0123abcd";

/// One repository root per thread, made once: the target rewrites one file per input.
fn root() -> PathBuf {
    thread_local! {
        static ROOT: tempfile::TempDir = {
            let dir = tempfile::Builder::new().prefix("stanley-fuzz-").tempdir().expect("temp root");
            for sub in [".stanley/state", ".stanley/flow", &format!(".stanley/runs/{RUN}")] {
                let path = dir.path().join(sub);
                std::fs::create_dir_all(&path).expect("folders");
            }
            use std::os::unix::fs::PermissionsExt;
            for sub in [".stanley", ".stanley/runs", &format!(".stanley/runs/{RUN}")] {
                let _ = std::fs::set_permissions(
                    dir.path().join(sub),
                    std::fs::Permissions::from_mode(0o700),
                );
            }
            dir
        };
    }
    ROOT.with(|d| d.path().to_path_buf())
}

/// Which file an input goes to: its first byte picks it, the rest is the file.
const FILES: [&str; 5] = [
    ".stanley/state/queue.ndjson",
    ".stanley/runs/RUN/summary.json",
    ".stanley/runs/RUN/result.json",
    ".stanley/runs/RUN/seen.json",
    ".stanley/flow/state.json",
];

fn path_of(root: &Path, which: usize) -> PathBuf {
    root.join(FILES[which].replace("RUN", RUN))
}

fn stanley_files(bytes: &[u8]) -> Checked {
    let Some((&first, body)) = bytes.split_first() else {
        return Ok(shape(&[0]));
    };
    let which = usize::from(first) % FILES.len();
    let root = root();
    let path = path_of(&root, which);
    std::fs::write(&path, body).map_err(|e| super::Violation::Broken {
        rule: "the file can be written",
        detail: e.to_string(),
    })?;
    let lines = body.split(|b| *b == b'\n').count();
    let parts = match which {
        0 => {
            let replay =
                job_log::replay(&path, &fuzz_key()).map_err(|e| super::Violation::Broken {
                    rule: "a damaged log is read, not refused",
                    detail: e.to_string(),
                })?;
            ensure(
                replay.jobs.len() + replay.damaged <= lines,
                "no more jobs and damaged lines than lines",
                || {
                    format!(
                        "{} jobs, {} damaged of {lines}",
                        replay.jobs.len(),
                        replay.damaged
                    )
                },
            )?;
            vec![
                class(replay.jobs.len()),
                class(replay.damaged),
                u64::from(replay.torn),
            ]
        }
        1 | 2 => {
            let listed = runs::list(&root);
            ensure(listed.len() <= 1, "one folder lists one run", || {
                format!("{} runs", listed.len())
            })?;
            ensure(
                listed.iter().all(|s| s.run_id.as_str() == RUN),
                "the folder names the run",
                || format!("{:?}", listed.first().map(|s| &s.run_id)),
            )?;
            let read = runs::read(&root, RUN);
            vec![
                which as u64,
                class(listed.len()),
                u64::from(read.is_ok()),
                read.map_or(9, |(_, v)| v.is_null().into()),
            ]
        }
        3 => {
            let seen = runs::seen(&root, &stanley_workflows::runs::RunId::parse(RUN).unwrap());
            let total: usize = seen.iter().map(String::len).sum();
            ensure(total <= body.len(), "output bounded by the input", || {
                format!("{total} bytes")
            })?;
            vec![3, class(seen.len())]
        }
        _ => {
            let store = FileFlowStore::new(&root, fuzz_key());
            // A journal over the reader's bound is refused by design, with one line that says
            // so; anything within it is read.
            if body.len() as u64 > MAX_STATE_BYTES {
                let refused = store.read_state();
                ensure(
                    refused
                        .as_ref()
                        .is_err_and(|e| e.to_string().contains("larger than")),
                    "a journal over the bound is refused, naming its size",
                    || format!("{refused:?}"),
                )?;
                let _ = std::fs::remove_file(&path);
                return Ok(shape(&[4, 3]));
            }
            let text = store.read_state().map_err(|e| super::Violation::Broken {
                rule: "a journal is read, not refused",
                detail: e.to_string(),
            })?;
            let flow =
                stanley_workflows::flow::parse_flow(&super::parsers::flow_seed().to_string())
                    .expect("the seed flow loads");
            let parsed = text.as_deref().map(|t| FlowState::parse(t, &flow));
            vec![4, parsed.map_or(2, |p| u64::from(p.is_ok()))]
        }
    };
    // Nothing is left behind for the next input.
    let _ = std::fs::remove_file(&path);
    Ok(shape(&parts))
}

/// The user's key the fuzzed logs are sealed with.
fn fuzz_key() -> stanley_adapters::user_key::UserKey {
    stanley_adapters::user_key::UserKey::from_bytes([5; 32])
}

fn job_line(value: &Value) -> String {
    let mut line = fuzz_key().seal("stanley.job-log/2", &value.to_string());
    line.push('\n');
    line
}

fn job() -> Value {
    json!({"schema": "stanley.improvement-job/v1", "id": "imp_0123456789ab",
           "request": "Audit the TODO comments", "input_shape": "none", "source": "delegation",
           "created_at": "2026-12-01T00:00:00Z", "attempts": 0, "state": "pending",
           "diary": [], "result": null})
}

fn summary() -> Value {
    json!({"schema": "stanley.run-summary/v1", "runId": RUN,
           "startedAt": "2026-12-01T00:00:00Z", "finishedAt": "2026-12-01T00:00:01Z",
           "durationMs": 1000, "request": "Why did CI fail?", "workflow": "triage_failures",
           "status": "complete", "exitCode": 0, "delegated": false, "findings": 2,
           "usage": {"requests": 1}})
}

fn files_input(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    let which = u.choose_index(FILES.len())?;
    let body = match which {
        0 => {
            let mut out = String::new();
            for _ in 0..u.int_in_range(0..=12)? {
                let mut v = if u.arbitrary()? {
                    json!({"put": job()})
                } else {
                    json!({"remove": "imp_0123456789ab"})
                };
                for _ in 0..u.int_in_range(0..=3)? {
                    generate::mutate_tree(u, &mut v)?;
                }
                out.push_str(&job_line(&v));
            }
            let mut bytes = out.into_bytes();
            if u.ratio(1, 3)? {
                // Torn by a crash: cut anywhere.
                let cut = u.int_in_range(0..=bytes.len())?;
                bytes.truncate(cut);
            }
            bytes
        }
        1 => generate::json_from(u, &summary().to_string())?,
        2 => generate::json_from(
            u,
            &json!({"document": {"status": "complete", "output": {"data": {}}}, "human": "ok"})
                .to_string(),
        )?,
        3 => generate::json_from(u, r#"["fp_0123", "fp_4567"]"#)?,
        _ => generate::json_from(u, &super::parsers::journal_seed())?,
    };
    let mut out = vec![which as u8];
    out.extend(body);
    Ok(out)
}

fn files_line(n: usize) -> Vec<u8> {
    let mut out = vec![1u8];
    let mut s = summary();
    s["request"] = json!("r".repeat(n));
    out.extend(s.to_string().into_bytes());
    out
}

fn files_deep(n: usize) -> Vec<u8> {
    let mut out = vec![2u8];
    out.extend("[".repeat(n).into_bytes());
    out.extend("]".repeat(n).into_bytes());
    out
}

/// The targets of this file.
pub(super) fn targets() -> Vec<Target> {
    vec![Target {
        name: "stanley_files",
        entry: "stanley_adapters::job_log::replay, runs::list/read/seen, FileFlowStore::read_state",
        invariants: &[
            "a damaged log is read, not refused",
            "no more jobs and damaged lines than lines",
            "the folder names the run",
            "output bounded by the input",
        ],
        generate: files_input,
        check: stanley_files,
        long_line: files_line,
        deep: files_deep,
    }]
}

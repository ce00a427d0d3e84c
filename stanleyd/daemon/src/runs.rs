//! Runs you can find again, on the daemon's side: the summary and result every persisted request
//! leaves in its run folder, retention after each request (never a run in progress), and the
//! `stanley.v1.Runs` service behind `stanleyctl runs list|show|export`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use stanley_adapters::runs as stored;
use stanley_adapters::{FsRecorder, SystemClock};
use stanley_core::{RequestUsage, Tally};
use stanley_proto::v1::runs_server::Runs;
use stanley_proto::v1::{
    ExportRunRequest, ExportRunResponse, GetLatestFindingsRequest, GetLatestFindingsResponse,
    GetRunRequest, GetRunResponse, ListRunsRequest, ListRunsResponse, MarkFindingSeenRequest,
    MarkFindingSeenResponse, RunFindings, WatchRunsRequest, WatchRunsResponse, watch_runs_response,
};
use stanley_workflows::ports::{Clock, Redactor, RunRecorder};
use stanley_workflows::run::run_id;
use stanley_workflows::runs::{RESULT_FILE, RunError, RunSummary, SUMMARY_FILE, SUMMARY_SCHEMA};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::error::RequestError;
use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// The run folders a request's built-ins opened (one, or several when a repository workflow's
/// nested prompts ran built-ins), with the built-in each one belongs to.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunSlot(Arc<Mutex<Vec<(String, String)>>>);

impl RunSlot {
    pub(crate) fn push(&self, id: &str, workflow: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id.to_owned(), workflow.to_owned()));
    }

    fn all(&self) -> Vec<(String, String)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The folder of the built-in that answered the request, when one did.
    fn of(&self, workflow: &str) -> Option<String> {
        self.all()
            .into_iter()
            .find(|(_, w)| w == workflow)
            .map(|(id, _)| id)
    }
}

/// Ends every run a request opened when it is dropped: when the request ends, fails, panics
/// or is cancelled, its folders become ordinary runs that retention may remove.
pub(crate) struct Ending<'a> {
    pub(crate) state: &'a DaemonState,
    pub(crate) slot: RunSlot,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        for (id, _) in self.slot.all() {
            self.state.run_ended(&id);
        }
    }
}

/// What a request's parts report back to the request: its Jev usage and its run folder.
#[derive(Clone, Debug, Default)]
pub(crate) struct Track {
    pub(crate) tally: Tally,
    pub(crate) run: RunSlot,
}

impl DaemonState {
    /// Marks a run in progress: retention leaves it alone until [`DaemonState::run_ended`].
    pub(crate) fn run_started(&self, id: &str) {
        self.active_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned());
    }

    pub(crate) fn run_ended(&self, id: &str) {
        self.active_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    fn active(&self) -> HashSet<String> {
        self.active_runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The set itself, for a check made at the moment of removing.
    fn active_set(&self) -> Arc<Mutex<HashSet<String>>> {
        self.active_runs.clone()
    }
}

/// What a finished request says about itself.
pub(crate) struct Finished<'a> {
    pub(crate) request: &'a str,
    pub(crate) result: &'a stanley_proto::v1::Result,
    /// The result's document as a value, when the caller has it (else it is read back from
    /// `result.document_json`).
    pub(crate) document: Option<&'a Value>,
    pub(crate) usage: RequestUsage,
    pub(crate) started_at: String,
    pub(crate) duration_ms: u64,
}

/// The summary of a finished request, from the result it gave.
fn summary<'a>(
    id: &str,
    f: &Finished<'a>,
    finished_at: String,
) -> (RunSummary, std::borrow::Cow<'a, Value>) {
    use std::borrow::Cow;
    let doc: Cow<'a, Value> = match f.document {
        Some(doc) => Cow::Borrowed(doc),
        None => Cow::Owned(serde_json::from_str(&f.result.document_json).unwrap_or(Value::Null)),
    };
    let data = &doc["output"]["data"];
    let error = f.result.error.as_ref().map(|e| RunError {
        kind: e.kind.clone(),
        message: e.message.clone(),
    });
    let summary = RunSummary {
        schema: SUMMARY_SCHEMA.to_owned(),
        run_id: id.to_owned(),
        started_at: f.started_at.clone(),
        finished_at,
        duration_ms: f.duration_ms,
        request: f.request.to_owned(),
        workflow: f.result.workflow.clone(),
        status: if error.is_some() {
            "error".to_owned()
        } else {
            doc["status"].as_str().unwrap_or("unknown").to_owned()
        },
        exit_code: f.result.exit_code,
        delegated: data["handledBy"] == "coding_agent",
        error,
        coverage: data.get("coverage").cloned().filter(|c| c.is_object()),
        findings: data["findings"].as_array().map_or(0, |a| a.len() as u64),
        usage: f.usage.to_json(),
    };
    (summary, doc)
}

/// Writes the request's summary and result into its run folder (the built-in's, or a new one
/// named for what happened), so `stanleyctl runs` finds it. Returns the run id, or None when it
/// could not be written (logged; the answer stands).
pub(crate) fn record(
    state: &DaemonState,
    slot: &RunSlot,
    redactor: Arc<dyn Redactor>,
    finished: &Finished<'_>,
) -> Option<String> {
    let clock = SystemClock;
    let opened = slot.all();
    let own = slot.of(&finished.result.workflow).or_else(|| {
        // A built-in that failed answers with an error naming no workflow: its folder is the
        // request's when it is the only one.
        (finished.result.error.is_some() && opened.len() == 1).then(|| opened[0].0.clone())
    });
    let id = own.unwrap_or_else(|| {
        let name = match (&finished.result.workflow, &finished.result.error) {
            (w, _) if !w.is_empty() => w.clone(),
            (_, Some(_)) => "error".to_owned(),
            _ if finished.result.document_json.contains("\"coding_agent\"") => {
                "delegated".to_owned()
            }
            _ => "request".to_owned(),
        };
        run_id(&name, &clock.now(), &stanley_adapters::clock::random_hex6())
    });
    let (summary, document) = summary(&id, finished, clock.now());
    let recorder = match FsRecorder::create(&state.config.files.root, &id, redactor) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(run = %id, error = %e, "the run's summary could not be written");
            return None;
        }
    };
    recorder.write_json(
        SUMMARY_FILE,
        &serde_json::to_value(&summary).unwrap_or_default(),
    );
    recorder.write_json(
        RESULT_FILE,
        &json!({"document": document, "human": finished.result.human, "humanVerbose": finished.result.human_verbose}),
    );
    if let Some(failure) = recorder.failure() {
        tracing::warn!(run = %id, error = %failure, "the run's summary could not be written");
        return None;
    }
    // Every watcher hears of it (none listening is fine): an editor refreshes its diagnostics.
    let _ = state.run_events.send(WatchRunsResponse {
        event: Some(watch_runs_response::Event::Ended(RunFindings {
            run: Some(typed(&summary)),
            findings: finished.result.findings.clone(),
            seen: Vec::new(),
        })),
    });
    Some(id)
}

/// A stored run with its typed findings (from its result document) and the ones marked seen.
fn with_findings(root: &std::path::Path, summary: &RunSummary, result: &Value) -> RunFindings {
    RunFindings {
        run: Some(typed(summary)),
        findings: crate::typed::findings(&result["document"]["output"], &summary.workflow),
        seen: stored::seen(root, &summary.run_id),
    }
}

/// Prunes `.stanley/runs/` by the request's retention on a blocking thread, after the answer;
/// what it removes goes to the log.
pub(crate) fn prune_later(state: &DaemonState, settings: &RequestSettings) {
    let root = state.config.files.root.clone();
    let retention = settings.retention;
    let active = state.active();
    let live = state.active_set();
    drop(tokio::task::spawn_blocking(move || {
        let now = stanley_adapters::clock::unix_now();
        // A run that starts after `active` was taken is seen at the moment of removing.
        let is_active = |id: &str| live.lock().unwrap_or_else(|e| e.into_inner()).contains(id);
        let removed = stored::prune(&root, retention, now, &active, &is_active);
        if let Some(why) = stored::refused(&root) {
            tracing::warn!(reason = %why, "runs are not pruned");
        }
        if !removed.is_empty() {
            tracing::info!(
                count = removed.len(),
                keep = retention.keep,
                max_age_days = retention.max_age_days,
                runs = %removed.join(" "),
                "pruned old runs"
            );
        }
    }));
}

fn typed(s: &RunSummary) -> stanley_proto::v1::RunSummary {
    let usage = &s.usage;
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    stanley_proto::v1::RunSummary {
        id: s.run_id.clone(),
        started_at: s.started_at.clone(),
        request: s.request.clone(),
        workflow: s.workflow.clone(),
        status: s.status.clone(),
        exit_code: s.exit_code,
        findings: u32::try_from(s.findings).unwrap_or(u32::MAX),
        coverage: s.coverage.as_ref().map(crate::typed::coverage),
        usage: usage.is_object().then(|| stanley_proto::v1::Usage {
            jev_requests: n("jevRequests"),
            cached_answers: n("cachedAnswers"),
            input_tokens: n("inputTokens"),
            output_tokens: n("outputTokens"),
            cached_input_tokens: n("cachedInputTokens"),
            models: usage["models"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().map(str::to_owned))
                .collect(),
            estimated_cost_usd: usage["estimatedCostUsd"].as_f64(),
            saved_cost_usd: usage["savedCostUsd"].as_f64(),
        }),
        duration_ms: s.duration_ms,
        delegated: s.delegated,
        summary_json: serde_json::to_string(s).unwrap_or_default(),
    }
}

/// The service implementation.
pub(crate) struct RunsService {
    state: Arc<DaemonState>,
    /// Held while a `seen.json` is read and written, so two marks never lose one another.
    marking: tokio::sync::Mutex<()>,
}

/// Events a `WatchRuns` stream holds for a client that reads slowly.
const WATCH_BUFFER: usize = 16;

impl RunsService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self {
            state,
            marking: tokio::sync::Mutex::new(()),
        }
    }

    async fn read(&self, id: String) -> Result<(RunSummary, Value), Status> {
        let root = self.state.config.files.root.clone();
        tokio::task::spawn_blocking(move || stored::read(&root, &id))
            .await
            .map_err(|e| RequestError::internal(e.to_string()))?
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => RequestError::not_found(e.to_string()).into(),
                std::io::ErrorKind::InvalidInput => RequestError::input(e.to_string()).into(),
                _ => RequestError::internal(e.to_string()).into(),
            })
    }
}

#[tonic::async_trait]
impl Runs for RunsService {
    async fn list_runs(
        &self,
        request: Request<ListRunsRequest>,
    ) -> Result<Response<ListRunsResponse>, Status> {
        let limit = request.into_inner().limit as usize;
        let root = self.state.config.files.root.clone();
        if let Some(why) = stored::refused(&root) {
            return Err(RequestError::input(why).into());
        }
        let mut runs = tokio::task::spawn_blocking(move || stored::list(&root))
            .await
            .map_err(|e| RequestError::internal(e.to_string()))?;
        if limit > 0 {
            runs.truncate(limit);
        }
        Ok(Response::new(ListRunsResponse {
            runs: runs.iter().map(typed).collect(),
        }))
    }

    async fn get_run(
        &self,
        request: Request<GetRunRequest>,
    ) -> Result<Response<GetRunResponse>, Status> {
        let (summary, result) = self.read(request.into_inner().id).await?;
        let RunFindings { findings, seen, .. } =
            with_findings(&self.state.config.files.root, &summary, &result);
        Ok(Response::new(GetRunResponse {
            findings,
            seen,
            run: Some(typed(&summary)),
            human: result["human"].as_str().unwrap_or("").to_owned(),
            human_verbose: result["humanVerbose"].as_str().unwrap_or("").to_owned(),
            document_json: if result["document"].is_null() {
                String::new()
            } else {
                serde_json::to_string_pretty(&result["document"]).unwrap_or_default()
            },
        }))
    }

    async fn export_run(
        &self,
        request: Request<ExportRunRequest>,
    ) -> Result<Response<ExportRunResponse>, Status> {
        let ExportRunRequest { id, format } = request.into_inner();
        let format = if format.is_empty() {
            "sarif".to_owned()
        } else {
            format
        };
        if format != "sarif" && format != "json" {
            return Err(RequestError::usage(format!(
                "--format must be sarif or json (got {format:?})"
            ))
            .into());
        }
        let (summary, result) = self.read(id).await?;
        let document = &result["document"];
        if document.is_null() {
            return Err(RequestError::input(format!(
                "run {} has no result to export: it is still running, it did not finish, or it was recorded before results were kept",
                summary.run_id
            ))
            .into());
        }
        let text = if format == "json" {
            serde_json::to_string_pretty(document).unwrap_or_default()
        } else {
            let log = stanley_workflows::sarif::log(&summary, document, stanley_proto::VERSION);
            serde_json::to_string_pretty(&log).unwrap_or_default()
        };
        Ok(Response::new(ExportRunResponse { text }))
    }

    async fn get_latest_findings(
        &self,
        _request: Request<GetLatestFindingsRequest>,
    ) -> Result<Response<GetLatestFindingsResponse>, Status> {
        let root = self.state.config.files.root.clone();
        if let Some(why) = stored::refused(&root) {
            return Err(RequestError::input(why).into());
        }
        let runs = tokio::task::spawn_blocking(move || {
            let all = stored::list(&root);
            stanley_workflows::runs::standing(&all)
                .into_iter()
                .filter_map(|s| {
                    let (summary, result) = stored::read(&root, &s.run_id).ok()?;
                    Some(with_findings(&root, &summary, &result))
                })
                .collect()
        })
        .await
        .map_err(|e| RequestError::internal(e.to_string()))?;
        Ok(Response::new(GetLatestFindingsResponse { runs }))
    }

    type WatchRunsStream = ReceiverStream<Result<WatchRunsResponse, Status>>;

    async fn watch_runs(
        &self,
        _request: Request<WatchRunsRequest>,
    ) -> Result<Response<Self::WatchRunsStream>, Status> {
        let mut events = self.state.run_events.subscribe();
        let stop = self.state.stop_token();
        let (tx, rx) = tokio::sync::mpsc::channel(WATCH_BUFFER);
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    // The stream ends when the daemon stops, so the drain is not held up.
                    () = stop.cancelled() => return,
                    () = tx.closed() => return,
                    event = events.recv() => event,
                };
                match event {
                    Ok(event) => {
                        if tx.send(Ok(event)).await.is_err() {
                            return;
                        }
                    }
                    // Missed events: the next one still says "read again", which is all a
                    // watcher needs.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn mark_finding_seen(
        &self,
        request: Request<MarkFindingSeenRequest>,
    ) -> Result<Response<MarkFindingSeenResponse>, Status> {
        let MarkFindingSeenRequest {
            run_id,
            fingerprint,
        } = request.into_inner();
        if run_id == "latest" || run_id.is_empty() {
            return Err(RequestError::usage("name the run by its id, not `latest`").into());
        }
        let _held = self.marking.lock().await;
        let (summary, result) = self.read(run_id.clone()).await?;
        let root = self.state.config.files.root.clone();
        let mut found = with_findings(&root, &summary, &result);
        if fingerprint.is_empty() || !found.findings.iter().any(|f| f.fingerprint == fingerprint) {
            return Err(RequestError::usage(format!(
                "run {run_id} has no finding with fingerprint {fingerprint:?}"
            ))
            .into());
        }
        let (id, fp) = (run_id.clone(), fingerprint.clone());
        let seen = tokio::task::spawn_blocking(move || stored::mark_seen(&root, &id, &fp))
            .await
            .map_err(|e| RequestError::internal(e.to_string()))?
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => {
                    Status::from(RequestError::not_found(e.to_string()))
                }
                std::io::ErrorKind::InvalidInput => RequestError::input(e.to_string()).into(),
                _ => RequestError::internal(e.to_string()).into(),
            })?;
        tracing::info!(run = %run_id, fingerprint = %fingerprint, "finding marked seen");
        found.seen = seen.clone();
        let _ = self.state.run_events.send(WatchRunsResponse {
            event: Some(watch_runs_response::Event::Seen(found)),
        });
        Ok(Response::new(MarkFindingSeenResponse { seen }))
    }
}

//! The `Runs` gRPC service: lists, shows, exports and watches the recorded runs, and marks findings seen.

use std::sync::Arc;

use serde_json::Value;
use stanley_adapters::runs as stored;
use stanley_proto::v1::runs_server::Runs;
use stanley_proto::v1::{
    ExportFormat, ExportRunRequest, ExportRunResponse, GetLatestFindingsRequest,
    GetLatestFindingsResponse, GetRunRequest, GetRunResponse, ListRunsRequest, ListRunsResponse,
    MarkFindingSeenRequest, MarkFindingSeenResponse, RunFindings, WatchRunsRequest,
    WatchRunsResponse, watch_runs_response,
};
use stanley_workflows::runs::RunSummary;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use crate::error::RequestError;
use crate::runs::{typed, with_findings};
use crate::state::activity::Activity;
use crate::state::live_runs::LiveRuns;

/// The service implementation: it reads the run folders under the repository's root, and hears
/// of runs from the daemon's live runs.
pub(crate) struct RunsService {
    root: std::path::PathBuf,
    runs: Arc<LiveRuns>,
    activity: Activity,
    /// Held while a `seen.json` is read and written, so two marks never lose one another.
    marking: tokio::sync::Mutex<()>,
}

/// Events a `WatchRuns` stream holds for a client that reads slowly.
const WATCH_BUFFER: usize = 16;

impl RunsService {
    pub(crate) fn new(root: std::path::PathBuf, runs: Arc<LiveRuns>, activity: Activity) -> Self {
        Self {
            root,
            runs,
            activity,
            marking: tokio::sync::Mutex::new(()),
        }
    }

    async fn read(&self, id: String) -> Result<(RunSummary, Value), Status> {
        let root = self.root.clone();
        tokio::task::spawn_blocking(move || stored::read(&root, &id))
            .await
            .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => {
                    RequestError::caused(crate::error::Refusal::NotFound, e).into()
                }
                std::io::ErrorKind::InvalidInput => {
                    RequestError::caused(crate::error::Refusal::Input, e).into()
                }
                _ => RequestError::caused(crate::error::Refusal::Internal, e).into(),
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
        let root = self.root.clone();
        if let Some(why) = stored::refused(&root) {
            return Err(RequestError::input(why).into());
        }
        let mut runs = tokio::task::spawn_blocking(move || stored::list(&root))
            .await
            .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?;
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
        let RunFindings { findings, seen, .. } = with_findings(&self.root, &summary, &result);
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
        let request = request.into_inner();
        let Some(format) = request.resolved_export_format() else {
            return Err(RequestError::usage(format!(
                "--format must be sarif or json (got {:?})",
                request.format_word()
            ))
            .into());
        };
        let (summary, result) = self.read(request.id).await?;
        let document = &result["document"];
        if document.is_null() {
            return Err(RequestError::input(format!(
                "run {} has no result to export: it is still running, it did not finish, or it was recorded before results were kept",
                summary.run_id
            ))
            .into());
        }
        let text = if format == ExportFormat::Json {
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
        let root = self.root.clone();
        if let Some(why) = stored::refused(&root) {
            return Err(RequestError::input(why).into());
        }
        let runs = tokio::task::spawn_blocking(move || {
            let all = stored::list(&root);
            stanley_workflows::runs::standing(&all)
                .into_iter()
                .filter_map(|s| {
                    let (summary, result) = stored::read(&root, s.run_id.as_str()).ok()?;
                    Some(with_findings(&root, &summary, &result))
                })
                .collect()
        })
        .await
        .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?;
        Ok(Response::new(GetLatestFindingsResponse { runs }))
    }

    type WatchRunsStream = ReceiverStream<Result<WatchRunsResponse, Status>>;

    async fn watch_runs(
        &self,
        _request: Request<WatchRunsRequest>,
    ) -> Result<Response<Self::WatchRunsStream>, Status> {
        let mut events = self.runs.subscribe();
        let stop = self.activity.stop_token();
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
        let root = self.root.clone();
        let mut found = with_findings(&root, &summary, &result);
        if fingerprint.is_empty() || !found.findings.iter().any(|f| f.fingerprint == fingerprint) {
            return Err(RequestError::usage(format!(
                "run {run_id} has no finding with fingerprint {fingerprint:?}"
            ))
            .into());
        }
        // (The stored run names its folder: the id as read, held to a folder's name.)
        let (id, fp) = (summary.run_id.clone(), fingerprint.clone());
        let seen = tokio::task::spawn_blocking(move || stored::mark_seen(&root, &id, &fp))
            .await
            .map_err(|e| RequestError::caused(crate::error::Refusal::Internal, e))?
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => {
                    Status::from(RequestError::caused(crate::error::Refusal::NotFound, e))
                }
                std::io::ErrorKind::InvalidInput => {
                    RequestError::caused(crate::error::Refusal::Input, e).into()
                }
                _ => RequestError::caused(crate::error::Refusal::Internal, e).into(),
            })?;
        tracing::info!(run = %run_id, fingerprint = %fingerprint, "finding marked seen");
        found.seen = seen.clone();
        self.runs.send(WatchRunsResponse {
            event: Some(watch_runs_response::Event::Seen(found)),
        });
        Ok(Response::new(MarkFindingSeenResponse { seen }))
    }
}

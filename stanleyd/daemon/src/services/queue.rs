//! The `stanley.v1.Queue` service: the improvement queue and its candidates for `stanley`,
//! `stanleyctl` and editors.

use std::sync::Arc;

use stanley_proto::v1::queue_server::Queue;
use stanley_proto::v1::{
    self, ExportQueueRequest, ExportQueueResponse, GetJobRequest, GetJobResponse, ListJobsRequest,
    ListJobsResponse,
};
use stanley_proto::v1::{
    CandidateResponse, DropJobResponse, JobIdRequest, ListCandidatesRequest,
    ListCandidatesResponse, ProcessedJob, PromoteCandidateRequest, PromoteCandidateResponse,
    WorkQueueRequest, WorkQueueResponse,
};
use stanley_workflows::improve::{Job, JobId, JobQueue, JobState};
use stanley_workflows::routing::InputShape;
use tonic::{Request, Response, Status};

use crate::error::RequestError;
use crate::state::DaemonState;
use crate::worker::JobOutcome;

/// A job id a client sent; one that is no job id names no job (the words a missing job
/// gets).
fn job_id(text: String) -> Result<JobId, RequestError> {
    JobId::parse(&text).ok_or_else(|| RequestError::not_found(format!("no improvement job {text}")))
}

/// A candidate's id a client sent; one that is no job id names no candidate.
fn candidate_id(text: String) -> Result<JobId, RequestError> {
    JobId::parse(&text)
        .ok_or_else(|| RequestError::not_found(format!("no candidate record for {text}")))
}

fn record_json(record: &stanley_workflows::improve::CandidateRecord) -> String {
    serde_json::to_string_pretty(record).unwrap_or_default()
}

/// The service implementation.
pub(crate) struct QueueService {
    state: Arc<DaemonState>,
}

impl QueueService {
    pub(crate) fn new(state: Arc<DaemonState>) -> Self {
        Self { state }
    }

    fn queue(&self) -> Result<&dyn JobQueue, Status> {
        self.state
            .improve()
            .store()
            .map(|q| &**q)
            .ok_or_else(|| RequestError::from(&*self.state.improve().unavailable()).into())
    }
}

fn to_proto(job: Job) -> v1::Job {
    v1::Job {
        id: job.id.into(),
        request: job.request,
        shape: wire_shape(job.input_shape) as i32,
        job_state: wire_state(job.state) as i32,
        attempts: job.attempts,
        created_at: job.created_at.to_string(),
        diary: job
            .diary
            .into_iter()
            .map(|d| v1::DiaryEntry {
                at: d.at.to_string(),
                text: d.text,
            })
            .collect(),
        ..v1::Job::default()
    }
    .with_words()
}

/// A job's input shape on the wire (the same word: `queue_words_are_the_wires`).
fn wire_shape(shape: InputShape) -> v1::InputShape {
    match shape {
        InputShape::None => v1::InputShape::None,
        InputShape::FailureLog => v1::InputShape::FailureLog,
        InputShape::ReviewComments => v1::InputShape::ReviewComments,
        InputShape::Text => v1::InputShape::Text,
    }
}

/// Where a job is, on the wire.
fn wire_state(state: JobState) -> v1::JobState {
    match state {
        JobState::Pending => v1::JobState::Pending,
        JobState::Active => v1::JobState::Active,
        JobState::Done => v1::JobState::Done,
    }
}

/// What became of a processed job, on the wire.
fn wire_outcome(outcome: JobOutcome) -> v1::JobOutcome {
    match outcome {
        JobOutcome::Validated => v1::JobOutcome::Validated,
        JobOutcome::Rejected => v1::JobOutcome::Rejected,
        JobOutcome::Requeued => v1::JobOutcome::Requeued,
    }
}

#[tonic::async_trait]
impl Queue for QueueService {
    async fn list_jobs(
        &self,
        _request: Request<ListJobsRequest>,
    ) -> Result<Response<ListJobsResponse>, Status> {
        let jobs = self.queue()?.list().map_err(RequestError::from)?;
        let recoveries =
            stanley_adapters::queue::recoveries(&self.state.config().files.root.join(".stanley"))
                .iter()
                .map(stanley_adapters::queue::Recovery::line)
                .collect();
        Ok(Response::new(ListJobsResponse {
            jobs: jobs.into_iter().map(to_proto).collect(),
            recoveries,
        }))
    }

    async fn get_job(
        &self,
        request: Request<GetJobRequest>,
    ) -> Result<Response<GetJobResponse>, Status> {
        let id = request.into_inner().id;
        let not_found = || RequestError::not_found(format!("no improvement job {id}"));
        let job_id = JobId::parse(&id).ok_or_else(not_found)?;
        match self.queue()?.get(&job_id).map_err(RequestError::from)? {
            Some(job) => Ok(Response::new(GetJobResponse {
                job: Some(to_proto(job)),
            })),
            None => Err(not_found().into()),
        }
    }

    async fn work_queue(
        &self,
        request: Request<WorkQueueRequest>,
    ) -> Result<Response<WorkQueueResponse>, Status> {
        let settings = self.state.settings(&request.into_inner().env);
        let agent = crate::agent::pi(&self.state, &settings, false).map_err(|reason| {
            let why = match reason {
                stanley_adapters::pi::Unavailable::Disabled => {
                    "the coding agent is turned off (STANLEY_AGENT=off)"
                }
                stanley_adapters::pi::Unavailable::Nested => {
                    "it was asked from inside a run Stanley started (STANLEY_NESTED is set)"
                }
                stanley_adapters::pi::Unavailable::NotInstalled => {
                    "no `pi` on PATH (install Pi, or set STANLEY_PI_BIN to it)"
                }
            };
            RequestError::usage(format!("improvement worker not started: {why}"))
        })?;
        match crate::worker::work(&self.state, &settings, &agent, &stanley_core::Cancel::new())
            .await
        {
            Ok(Some(processed)) => Ok(Response::new(WorkQueueResponse {
                ran: true,
                processed: processed
                    .into_iter()
                    .map(|p| {
                        ProcessedJob {
                            id: p.id.into(),
                            outcome: wire_outcome(p.status) as i32,
                            ..ProcessedJob::default()
                        }
                        .with_words()
                    })
                    .collect(),
            })),
            Ok(None) => Ok(Response::new(WorkQueueResponse {
                ran: false,
                processed: Vec::new(),
            })),
            Err(e) => Err(RequestError::from(e).into()),
        }
    }

    async fn promote_candidate(
        &self,
        request: Request<PromoteCandidateRequest>,
    ) -> Result<Response<PromoteCandidateResponse>, Status> {
        let request = request.into_inner();
        let settings = self.state.settings(&request.env);
        let id = JobId::parse(&request.id)
            .ok_or_else(|| RequestError::input(format!("invalid candidate id: {}", request.id)))?;
        match crate::worker::promote(&self.state, &settings, &id).await {
            Ok((workflow, path)) => Ok(Response::new(PromoteCandidateResponse { workflow, path })),
            Err(e) => Err(e.into()),
        }
    }

    async fn retry_job(
        &self,
        request: Request<JobIdRequest>,
    ) -> Result<Response<GetJobResponse>, Status> {
        let job = crate::worker::retry(&self.state, &job_id(request.into_inner().id)?)?;
        Ok(Response::new(GetJobResponse {
            job: Some(to_proto(job)),
        }))
    }

    async fn drop_job(
        &self,
        request: Request<JobIdRequest>,
    ) -> Result<Response<DropJobResponse>, Status> {
        crate::worker::drop_job(&self.state, &job_id(request.into_inner().id)?)?;
        Ok(Response::new(DropJobResponse {}))
    }

    async fn list_candidates(
        &self,
        _request: Request<ListCandidatesRequest>,
    ) -> Result<Response<ListCandidatesResponse>, Status> {
        let records = crate::candidates::candidates(&self.state.config().files.root);
        Ok(Response::new(ListCandidatesResponse {
            candidates: records.iter().map(record_json).collect(),
        }))
    }

    async fn get_candidate(
        &self,
        request: Request<JobIdRequest>,
    ) -> Result<Response<CandidateResponse>, Status> {
        let record = crate::candidates::candidate(
            &self.state.config().files.root,
            &candidate_id(request.into_inner().id)?,
        )?;
        Ok(Response::new(CandidateResponse {
            candidate: record_json(&record),
        }))
    }

    async fn reject_candidate(
        &self,
        request: Request<JobIdRequest>,
    ) -> Result<Response<CandidateResponse>, Status> {
        let record = crate::worker::reject(
            &self.state.config().files.root,
            &candidate_id(request.into_inner().id)?,
        )?;
        Ok(Response::new(CandidateResponse {
            candidate: record_json(&record),
        }))
    }

    async fn export_queue(
        &self,
        _request: Request<ExportQueueRequest>,
    ) -> Result<Response<ExportQueueResponse>, Status> {
        let jobs = self.queue()?.list().map_err(RequestError::from)?;
        let doc = serde_json::json!({"schema": "stanley.queue-export/v1", "jobs": jobs});
        Ok(Response::new(ExportQueueResponse {
            json: serde_json::to_string_pretty(&doc).unwrap_or_default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job's shape, state and outcome go on the wire as the value of the same word, and
    /// every wire value has its word on this side.
    #[test]
    fn queue_words_are_the_wires() {
        for &wire in v1::InputShape::KNOWN {
            let shape: InputShape = serde_json::from_value(wire.word().into()).unwrap();
            assert_eq!((shape.as_str(), wire_shape(shape)), (wire.word(), wire));
        }
        for &wire in v1::JobState::KNOWN {
            let state: JobState = serde_json::from_value(wire.word().into()).unwrap();
            assert_eq!((state.as_str(), wire_state(state)), (wire.word(), wire));
        }
        for &wire in v1::JobOutcome::KNOWN {
            let outcome = JobOutcome::parse(wire.word()).unwrap();
            assert_eq!(wire_outcome(outcome), wire);
        }
        assert_eq!(JobOutcome::ALL.len(), v1::JobOutcome::KNOWN.len());
    }
}

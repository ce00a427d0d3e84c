//! `stanleyctl queue ...` and `stanleyctl candidates ...`: the improvement queue and the
//! workflows it drafts, through the `Queue` service.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, channel, runtime};
use stanley_cli::exit::ClientError;

use crate::fail;

fn status_error(s: tonic::Status) -> ClientError {
    ClientError::from_status(&s)
}

fn job_line(j: &stanley_proto::v1::Job) -> String {
    format!(
        "{}  {:<7}  attempts {}  {}  {}",
        j.id,
        j.resolved_job_state().word(),
        j.attempts,
        j.resolved_shape().word(),
        j.request
    )
}

fn job_json(j: &stanley_proto::v1::Job) -> String {
    use stanley_cli::render::json_string;
    let diary: Vec<String> = j
        .diary
        .iter()
        .map(|d| {
            format!(
                "{{\"at\":{},\"text\":{}}}",
                json_string(&d.at),
                json_string(&d.text)
            )
        })
        .collect();
    format!(
        "{{\"id\":{},\"state\":{},\"attempts\":{},\"inputShape\":{},\"createdAt\":{},\"request\":{},\"diary\":[{}]}}",
        json_string(&j.id),
        json_string(j.resolved_job_state().word()),
        j.attempts,
        json_string(j.resolved_shape().word()),
        json_string(&j.created_at),
        json_string(&j.request),
        diary.join(",")
    )
}

fn print_job(j: &stanley_proto::v1::Job, json: bool) {
    if json {
        stanley_cli::outln!("{}", job_json(j));
        return;
    }
    stanley_cli::outln!("{}", job_line(j));
    stanley_cli::outln!("queued {}", j.created_at);
    for d in &j.diary {
        stanley_cli::outln!("  {} {}", d.at, d.text);
    }
}

/// One table row of a candidate record (`stanley.candidate/v1` JSON text).
fn candidate_line(text: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    let field = |k: &str| v[k].as_str().unwrap_or("-").to_owned();
    format!(
        "{}  {:<9}  {:<20}  {}",
        field("id"),
        field("status"),
        field("workflowId"),
        field("request")
    )
}

fn print_candidate(text: &str, json: bool) {
    if json {
        stanley_cli::outln!("{text}");
        return;
    }
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    stanley_cli::outln!("{}", candidate_line(text));
    if let Some(source) = v["source"].as_str() {
        stanley_cli::outln!("source {source}");
    }
    for reason in v["reasons"].as_array().into_iter().flatten() {
        stanley_cli::outln!("  reason: {}", reason.as_str().unwrap_or(""));
    }
    if let Some(summary) = v["summary"].as_str().filter(|s| !s.is_empty()) {
        stanley_cli::outln!("agent summary:\n{summary}");
    }
}

pub(crate) fn queue(target: &Target, group: &str, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    use stanley_cli::render::json_string;
    use stanley_proto::v1::queue_client::QueueClient;
    use stanley_proto::v1::{
        ExportQueueRequest, JobIdRequest, ListCandidatesRequest, ListJobsRequest,
        PromoteCandidateRequest, WorkQueueRequest,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (action, args) = sub.subcommand().unwrap_or(("list", sub));
    let id = crate::arg(args, "id");
    let env = match stanley_cli::environ::request_env() {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let result: Result<(), ClientError> = runtime.block_on(stanley_cli::signals::interruptible(async move {
        let mut client = QueueClient::new(channel(target).await?);
        match (group, action) {
            ("queue", "list") => {
                let listing = client
                    .list_jobs(ListJobsRequest {})
                    .await
                    .map_err(status_error)?
                    .into_inner();
                // Damage the queue recovered from goes to stderr, so `--json` stays one array.
                for line in &listing.recoveries {
                    stanley_cli::errln!("stanleyctl: warning: {line}");
                }
                let jobs = listing.jobs;
                if json {
                    let items: Vec<String> = jobs.iter().map(job_json).collect();
                    stanley_cli::outln!("[{}]", items.join(","));
                } else if jobs.is_empty() {
                    stanley_cli::outln!("no improvement jobs");
                } else {
                    for j in &jobs {
                        stanley_cli::outln!("{}", job_line(j));
                    }
                }
            }
            ("queue", "show") => {
                let r = client.get_job(stanley_proto::v1::GetJobRequest { id }).await.map_err(status_error)?;
                print_job(&r.into_inner().job.unwrap_or_default(), json);
            }
            ("queue", "retry") => {
                let r = client.retry_job(JobIdRequest { id }).await.map_err(status_error)?;
                print_job(&r.into_inner().job.unwrap_or_default(), json);
            }
            ("queue", "drop") => {
                client.drop_job(JobIdRequest { id: id.clone() }).await.map_err(status_error)?;
                if json {
                    stanley_cli::outln!("{{\"dropped\":{}}}", json_string(&id));
                } else {
                    stanley_cli::outln!("dropped {id}");
                }
            }
            ("queue", "work") => {
                let r = client
                    .work_queue(WorkQueueRequest { env })
                    .await
                    .map_err(status_error)?
                    .into_inner();
                if json {
                    stanley_cli::outln!("{}", stanley_cli::render::worker_document(&r));
                } else if !r.ran {
                    stanley_cli::outln!("the improvement worker is already running for this repository");
                } else if r.processed.is_empty() {
                    stanley_cli::outln!("no pending jobs");
                } else {
                    for p in &r.processed {
                        stanley_cli::outln!("{}  {}", p.id, p.resolved_outcome().word());
                    }
                }
            }
            ("queue", _) => {
                let r = client
                    .export_queue(ExportQueueRequest {})
                    .await
                    .map_err(status_error)?;
                stanley_cli::outln!("{}", r.into_inner().json);
            }
            (_, "list") => {
                let records = client
                    .list_candidates(ListCandidatesRequest {})
                    .await
                    .map_err(status_error)?
                    .into_inner()
                    .candidates;
                if json {
                    stanley_cli::outln!("[{}]", records.join(","));
                } else if records.is_empty() {
                    stanley_cli::outln!("no candidates");
                } else {
                    for r in &records {
                        stanley_cli::outln!("{}", candidate_line(r));
                    }
                }
            }
            (_, "show") => {
                let r = client.get_candidate(JobIdRequest { id }).await.map_err(status_error)?;
                print_candidate(&r.into_inner().candidate, json);
            }
            (_, "reject") => {
                let r = client
                    .reject_candidate(JobIdRequest { id })
                    .await
                    .map_err(status_error)?;
                print_candidate(&r.into_inner().candidate, json);
            }
            _ => {
                let r = client
                    .promote_candidate(PromoteCandidateRequest { id: id.clone(), env })
                    .await
                    .map_err(status_error)?
                    .into_inner();
                if json {
                    stanley_cli::outln!("{}", stanley_cli::render::promotion_document(&id, &r));
                } else {
                    stanley_cli::outln!(
                        "activated candidate {id} as workflow {} at {}; review and commit it like any repository script",
                        r.workflow, r.path
                    );
                }
            }
        }
        Ok(())
    }, "the command was cancelled"));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

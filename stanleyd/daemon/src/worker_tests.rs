//! The worker's handling of jobs in one process: a stale lease requeued, a failed run retried
//! once, a draft judged and recorded, with a stand-in agent (nothing is started).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use stanley_core::BoxFuture;
use stanley_workflows::agent::{AgentProgress, AgentResult};

use super::*;
use crate::testing::{Scene, write};

/// A stand-in agent: each run writes `writes` (relative to the repository) and ends with
/// `outcome`.
struct StandIn {
    root: std::path::PathBuf,
    outcome: AgentOutcome,
    writes: Vec<(&'static str, &'static str)>,
    runs: AtomicUsize,
    briefs: Mutex<Vec<String>>,
}

impl Agent for StandIn {
    fn run<'a>(
        &'a self,
        instructions: &'a str,
        _timeout: Duration,
        _cancel: Cancel,
        _progress: AgentProgress,
    ) -> BoxFuture<'a, AgentResult> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        self.briefs.lock().unwrap().push(instructions.to_owned());
        write(&self.root, &self.writes);
        let result = AgentResult {
            outcome: self.outcome,
            text: "done".into(),
            exit_code: Some(u8::from(self.outcome != AgentOutcome::Finished).into()),
            duration_ms: 1,
            tool_calls: 1,
            detail: (self.outcome != AgentOutcome::Finished).then(|| "the model said no".into()),
            model_error: false,
        };
        Box::pin(async move { result })
    }
}

fn scene() -> Scene {
    Scene::new(&[("README.md", "# Demo\n")], &[], |_, _, _| {
        stanley_core::testing::noul(0.1)
    })
}

fn stand_in(
    scene: &Scene,
    outcome: AgentOutcome,
    writes: Vec<(&'static str, &'static str)>,
) -> StandIn {
    StandIn {
        root: scene.root.clone(),
        outcome,
        writes,
        runs: AtomicUsize::new(0),
        briefs: Mutex::new(Vec::new()),
    }
}

fn queued(scene: &Scene, request: &str, state: JobState) -> Job {
    let mut job = Job::new(
        request,
        stanley_workflows::routing::InputShape::None,
        stanley_workflows::time::Stamp::EPOCH,
    );
    job.state = state;
    let q = queue(&scene.state).unwrap();
    q.put(&job).unwrap();
    job
}

fn record(scene: &Scene, id: &JobId) -> CandidateRecord {
    let path = scene
        .root
        .join(format!(".stanley/candidates/{id}/candidate.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_stale_lease_is_requeued_and_a_failing_agent_gets_one_retry_then_a_rejection() {
    let scene = scene();
    let job = queued(&scene, "Audit the TODO comments", JobState::Active);
    let agent = stand_in(&scene, AgentOutcome::Failed, Vec::new());
    let settings = scene.settings(true);
    let processed = work(&scene.state, &settings, &agent, &Cancel::new())
        .await
        .unwrap()
        .expect("the worker was free");
    let statuses: Vec<&str> = processed.iter().map(|p| p.status.as_str()).collect();
    assert_eq!(statuses, ["requeued", "rejected"]);
    assert_eq!(agent.runs.load(Ordering::SeqCst), MAX_ATTEMPTS as usize);
    assert!(agent.briefs.lock().unwrap()[0].contains("Audit the TODO comments"));

    let done = queue(&scene.state).unwrap().get(&job.id).unwrap().unwrap();
    assert_eq!(
        (done.state, done.result),
        (
            JobState::Done,
            Some(stanley_workflows::improve::CandidateStatus::Rejected)
        )
    );
    assert_eq!(done.attempts, MAX_ATTEMPTS);
    let diary: Vec<&str> = done.diary.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(
        diary[1],
        format!("requeued {}: stale lease", job.id),
        "{diary:?}"
    );
    assert!(
        diary
            .iter()
            .any(|d| d.starts_with(&format!("requeued {}: agent failed", job.id))),
        "{diary:?}"
    );
    let rec = record(&scene, &job.id);
    assert_eq!(
        rec.status,
        stanley_workflows::improve::CandidateStatus::Rejected
    );
    assert_eq!(rec.reasons[0], "agent failed: the model said no");
    // Without Node.js the candidate cannot be loaded, and that is said, not hidden.
    assert!(
        rec.reasons[1].starts_with("the candidate could not be loaded: Node.js"),
        "{:?}",
        rec.reasons
    );
    assert_eq!(rec.checks.routing, RoutingCheck::Skipped);
}

#[tokio::test]
async fn writes_outside_the_candidate_folder_reject_the_draft_on_the_first_run() {
    let scene = scene();
    let job = queued(&scene, "List the flaky tests", JobState::Pending);
    let agent = stand_in(
        &scene,
        AgentOutcome::Finished,
        vec![("src/app.ts", "export const x = 1;\n")],
    );
    let settings = scene.settings(true);
    let processed = work(&scene.state, &settings, &agent, &Cancel::new())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        processed,
        [Processed {
            id: job.id.clone(),
            status: JobOutcome::Rejected
        }]
    );
    assert_eq!(
        agent.runs.load(Ordering::SeqCst),
        1,
        "no retry after writes"
    );
    let rec = record(&scene, &job.id);
    assert_eq!(
        rec.reasons[0],
        "agent changed files outside the candidate directory: src/app.ts"
    );
    assert_eq!(rec.checks.outside_writes, ["src/app.ts"]);
}

#[tokio::test]
async fn a_busy_worker_is_not_entered_twice() {
    let scene = scene();
    let agent = stand_in(&scene, AgentOutcome::Finished, Vec::new());
    let _held = scene.state.improve().try_turn().unwrap();
    let settings = scene.settings(true);
    let outcome = work(&scene.state, &settings, &agent, &Cancel::new())
        .await
        .unwrap();
    assert!(outcome.is_none());
    assert_eq!(agent.runs.load(Ordering::SeqCst), 0);
}

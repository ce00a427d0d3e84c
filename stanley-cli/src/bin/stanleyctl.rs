//! `stanleyctl`: administers a repository's daemon (`daemon status|stop|restart|logs`), its
//! improvement queue (`queue ...`), the candidates the queue drafts (`candidates ...`), its flow
//! (`flow init|run|status|stop`) and answers Claude Code hooks for the flow (`hook <event>`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command};
use stanley_cli::daemon::{Target, channel, connect_or_start, connect_running, runtime, stop};
use stanley_cli::exit::{ClientError, ErrorKind, Exit, FlowCode};
use stanley_cli::root::worktree_root;

fn command() -> Command {
    Command::new("stanleyctl")
        .version(stanley_proto::VERSION)
        .about("Administer Stanley's per-repository daemon")
        .arg(
            Arg::new("repo")
                .long("repo")
                .global(true)
                .num_args(1)
                .help("Repository (default: the current directory)"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Print JSON"),
        )
        .subcommand_required(true)
        .subcommand(
            Command::new("daemon")
                .about("The daemon of this repository")
                .subcommand_required(true)
                .subcommand(
                    Command::new("status").about("Show whether the daemon runs, and its versions"),
                )
                .subcommand(Command::new("stop").about("Stop the daemon gracefully"))
                .subcommand(Command::new("restart").about("Stop the daemon and start a new one"))
                .subcommand(Command::new("logs").about("Print the daemon log")),
        )
        .subcommand(
            Command::new("queue")
                .about("The improvement queue")
                .subcommand_required(true)
                .subcommand(Command::new("list").about("List the jobs"))
                .subcommand(
                    Command::new("show")
                        .about("Show one job and its diary")
                        .arg(Arg::new("id").required(true)),
                )
                .subcommand(
                    Command::new("retry")
                        .about("Put a job back to pending with no attempts")
                        .arg(Arg::new("id").required(true)),
                )
                .subcommand(
                    Command::new("drop")
                        .about("Remove a job from the queue")
                        .arg(Arg::new("id").required(true)),
                )
                .subcommand(Command::new("work").about("Process the pending jobs now"))
                .subcommand(Command::new("export").about("Print the whole queue as JSON")),
        )
        .subcommand(
            Command::new("flow")
                .about("The flow of this repository (.stanley/flow.json)")
                .subcommand_required(true)
                .subcommand(
                    Command::new("init")
                        .about("Write a starter flow in warn mode for a goal")
                        .arg(
                            Arg::new("goal")
                                .required(true)
                                .help("One concrete, checkable sentence"),
                        )
                        .arg(
                            Arg::new("force")
                                .long("force")
                                .action(ArgAction::SetTrue)
                                .help("Replace an existing flow file"),
                        ),
                )
                .subcommand(
                    Command::new("status").about("Show the phase table, decisions and budgets"),
                )
                .subcommand(Command::new("run").about(
                    "Supervise the coding agent through the flow (exit 0 complete, 2 limit, 3 configuration, 4 waiting on a person, 5 already running, 130 interrupted)",
                ))
                .subcommand(Command::new("stop").about("Interrupt the running supervisor")),
        )
        .subcommand(
            Command::new("hook")
                .about("Answer a Claude Code hook event for the flow (hook JSON on stdin)")
                .arg(
                    Arg::new("event")
                        .required(true)
                        .value_parser(stanley_proto::HOOK_EVENTS),
                ),
        )
        .subcommand(
            Command::new("trust")
                .about("Trust this worktree's repository workflows and flow commands as they are now")
                .arg(
                    Arg::new("status")
                        .long("status")
                        .action(ArgAction::SetTrue)
                        .help("Only show what is trusted and what changed since"),
                )
                .arg(
                    Arg::new("edits")
                        .long("edits")
                        .action(ArgAction::SetTrue)
                        .conflicts_with("status")
                        .help("Also trust your further edits while HEAD stays at this commit"),
                ),
        )
        .subcommand(Command::new("untrust").about("Remove this worktree's trust"))
        .subcommand(
            Command::new("candidates")
                .about("Workflows drafted by the improvement queue")
                .subcommand_required(true)
                .subcommand(Command::new("list").about("List the candidates"))
                .subcommand(
                    Command::new("show")
                        .about("Show one candidate record")
                        .arg(Arg::new("id").required(true)),
                )
                .subcommand(
                    Command::new("promote")
                        .about("Activate a validated candidate in .stanley/workflows/")
                        .arg(Arg::new("id").required(true)),
                )
                .subcommand(
                    Command::new("reject")
                        .about("Mark a validated candidate rejected")
                        .arg(Arg::new("id").required(true)),
                ),
        )
}

fn fail(error: &ClientError) -> ExitCode {
    eprintln!(
        "stanleyctl: {} error: {}",
        error.kind.as_str(),
        error.message
    );
    if let Some(hint) = &error.hint {
        eprintln!("hint: {hint}");
    }
    ExitCode::from(error.exit_code())
}

fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprint!("{e}");
            return ExitCode::from(Exit::Usage.code());
        }
    };
    let json = matches.get_flag("json");
    // A bad environment is reported before a daemon is found or started.
    if let Err(e) = stanley_cli::environ::request_env() {
        return fail(&e);
    }
    let start = match matches.get_one::<String>("repo") {
        Some(r) => PathBuf::from(r),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let root = match worktree_root(&start) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let target = Target::new(root);
    if let Some((group @ ("queue" | "candidates"), sub)) = matches.subcommand() {
        return queue(&target, group, sub, json);
    }
    if let Some(("flow", sub)) = matches.subcommand() {
        return match sub.subcommand_name() {
            Some("run") => flow_run(&target),
            _ => flow(&target, sub, json),
        };
    }
    if let Some((name @ ("trust" | "untrust"), sub)) = matches.subcommand() {
        use stanley_cli::trust::Action;
        let action = match name {
            "untrust" => Action::Revoke,
            _ if sub.get_flag("status") => Action::Status,
            _ => Action::Grant {
                edits: sub.get_flag("edits"),
            },
        };
        let runtime = match runtime() {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        return match runtime.block_on(stanley_cli::trust::run(&target, action, json)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    if let Some(("hook", sub)) = matches.subcommand() {
        let event = sub.get_one::<String>("event").cloned().unwrap_or_default();
        return hook(&target, &event);
    }
    let Some(("daemon", sub)) = matches.subcommand() else {
        return fail(&ClientError::usage("unknown command"));
    };
    let action = sub.subcommand_name().unwrap_or("status").to_owned();
    if action == "logs" {
        return match std::fs::read_to_string(target.log()) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(&ClientError::input(format!(
                "cannot read {}: {e}",
                target.log().display()
            ))),
        };
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    runtime.block_on(async move {
        match action.as_str() {
            "status" => match connect_running(&target).await {
                Err(e) => fail(&e),
                Ok(Some((_, s))) if json => {
                    println!(
                        "{{\"running\":true,\"pid\":{},\"daemonVersion\":\"{}\",\"protocolVersion\":{},\"root\":{},\"uptimeMs\":{},\"activeRequests\":{}}}",
                        s.pid, s.daemon_version, s.protocol_version, stanley_cli::render::json_string(&s.root), s.uptime_ms, s.active_requests
                    );
                    ExitCode::SUCCESS
                }
                Ok(Some((_, s))) => {
                    println!("stanleyd {} (protocol {}) pid {} serving {}", s.daemon_version, s.protocol_version, s.pid, s.root);
                    println!("up {}s, {} active request(s), workflows: {}", s.uptime_ms / 1000, s.active_requests, s.workflows.join(", "));
                    ExitCode::SUCCESS
                }
                Ok(None) => {
                    let other = stanley_cli::daemon::serving_elsewhere(&target);
                    if json {
                        match &other {
                            Some(o) => println!(
                                "{{\"running\":false,\"elsewhere\":{{\"pid\":{},\"socket\":{}}}}}",
                                o.pid,
                                stanley_cli::render::json_string(&o.socket.display().to_string())
                            ),
                            None => println!("{{\"running\":false}}"),
                        }
                    } else {
                        println!("no stanleyd is running for {} on {}", target.root.display(), target.socket.display());
                        if let Some(o) = &other {
                            println!("{}", o.message(&target));
                        }
                    }
                    ExitCode::SUCCESS
                }
            },
            "stop" => match connect_running(&target).await {
                Err(e) => fail(&e),
                Ok(Some((client, s))) => match stop(client, &target.socket, "stanleyctl daemon stop").await {
                    Ok(()) => {
                        println!("stopped stanleyd pid {}", s.pid);
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                },
                Ok(None) => match stanley_cli::daemon::serving_elsewhere(&target) {
                    Some(o) => fail(&ClientError::unavailable(
                        o.message(&target),
                        stanley_cli::daemon::Elsewhere::HINT,
                    )),
                    None => {
                        println!("no stanleyd is running for {}", target.root.display());
                        ExitCode::SUCCESS
                    }
                },
            },
            _ => {
                let running = match connect_running(&target).await {
                    Ok(r) => r,
                    Err(e) => return fail(&e),
                };
                if let Some((client, _)) = running
                    && let Err(e) = stop(client, &target.socket, "stanleyctl daemon restart").await
                {
                    return fail(&e);
                }
                match connect_or_start(&target).await {
                    Ok(_) => {
                        println!("started stanleyd for {}", target.root.display());
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                }
            }
        }
    })
}

fn status_error(s: tonic::Status) -> ClientError {
    ClientError::from_status(&s)
}

fn job_line(j: &stanley_proto::v1::Job) -> String {
    format!(
        "{}  {:<7}  attempts {}  {}  {}",
        j.id, j.state, j.attempts, j.input_shape, j.request
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
        json_string(&j.state),
        j.attempts,
        json_string(&j.input_shape),
        json_string(&j.created_at),
        json_string(&j.request),
        diary.join(",")
    )
}

fn print_job(j: &stanley_proto::v1::Job, json: bool) {
    if json {
        println!("{}", job_json(j));
        return;
    }
    println!("{}", job_line(j));
    println!("queued {}", j.created_at);
    for d in &j.diary {
        println!("  {} {}", d.at, d.text);
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
        println!("{text}");
        return;
    }
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    println!("{}", candidate_line(text));
    if let Some(source) = v["source"].as_str() {
        println!("source {source}");
    }
    for reason in v["reasons"].as_array().into_iter().flatten() {
        println!("  reason: {}", reason.as_str().unwrap_or(""));
    }
    if let Some(summary) = v["summary"].as_str().filter(|s| !s.is_empty()) {
        println!("agent summary:\n{summary}");
    }
}

fn queue(target: &Target, group: &str, sub: &clap::ArgMatches, json: bool) -> ExitCode {
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
    let id = args
        .try_get_one::<String>("id")
        .ok()
        .flatten()
        .cloned()
        .unwrap_or_default();
    let env = match stanley_cli::environ::request_env() {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let result: Result<(), ClientError> = runtime.block_on(async move {
        let mut client = QueueClient::new(channel(target).await?);
        match (group, action) {
            ("queue", "list") => {
                let jobs = client
                    .list_jobs(ListJobsRequest {})
                    .await
                    .map_err(status_error)?
                    .into_inner()
                    .jobs;
                if json {
                    let items: Vec<String> = jobs.iter().map(job_json).collect();
                    println!("[{}]", items.join(","));
                } else if jobs.is_empty() {
                    println!("no improvement jobs");
                } else {
                    for j in &jobs {
                        println!("{}", job_line(j));
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
                    println!("{{\"dropped\":{}}}", json_string(&id));
                } else {
                    println!("dropped {id}");
                }
            }
            ("queue", "work") => {
                let r = client
                    .work_queue(WorkQueueRequest { env })
                    .await
                    .map_err(status_error)?
                    .into_inner();
                if json {
                    println!("{}", stanley_cli::render::worker_document(&r));
                } else if !r.ran {
                    println!("the improvement worker is already running for this repository");
                } else if r.processed.is_empty() {
                    println!("no pending jobs");
                } else {
                    for p in &r.processed {
                        println!("{}  {}", p.id, p.status);
                    }
                }
            }
            ("queue", _) => {
                let r = client
                    .export_queue(ExportQueueRequest {})
                    .await
                    .map_err(status_error)?;
                println!("{}", r.into_inner().json);
            }
            (_, "list") => {
                let records = client
                    .list_candidates(ListCandidatesRequest {})
                    .await
                    .map_err(status_error)?
                    .into_inner()
                    .candidates;
                if json {
                    println!("[{}]", records.join(","));
                } else if records.is_empty() {
                    println!("no candidates");
                } else {
                    for r in &records {
                        println!("{}", candidate_line(r));
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
                    println!("{}", stanley_cli::render::promotion_document(&id, &r));
                } else {
                    println!(
                        "activated candidate {id} as workflow {} at {}; review and commit it like any repository script",
                        r.workflow, r.path
                    );
                }
            }
        }
        Ok(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn flow(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
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
    runtime.block_on(async move {
        let mut client = match channel(target).await {
            Ok(c) => FlowsClient::new(c),
            Err(e) => return fail(&e),
        };
        let result = if action == "stop" {
            client.stop_flow(StopFlowRequest {}).await.map(|r| {
                let stopped = r.into_inner().stopped;
                if json {
                    println!("{{\"stopped\":{stopped}}}");
                } else if stopped {
                    println!("asked the flow supervisor to stop");
                } else {
                    println!("no flow supervisor is running");
                }
            })
        } else if action == "init" {
            client
                .init_flow(InitFlowRequest { goal, force })
                .await
                .map(|r| {
                    let path = r.into_inner().path;
                    if json {
                        println!("{{\"path\":{}}}", stanley_cli::render::json_string(&path));
                    } else {
                        println!(
                            "wrote {path} (warn mode); add a check to each phase you can verify"
                        );
                    }
                })
        } else {
            client.flow_status(FlowStatusRequest {}).await.map(|r| {
                let text = r.into_inner().json;
                if json {
                    println!("{text}");
                } else {
                    print_flow_status(&text);
                }
            })
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(s) => {
                eprintln!("stanleyctl: {}", s.message());
                ExitCode::from(FlowCode::for_refusal(ErrorKind::of_status(&s)))
            }
        }
    })
}

/// `flow run`: streams the supervisor's progress to stderr and exits with its code.
fn flow_run(target: &Target) -> ExitCode {
    use stanley_proto::v1::flows_client::FlowsClient;
    use stanley_proto::v1::{RunFlowRequest, run_flow_event::Event};
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    runtime.block_on(async move {
        let mut client = match channel(target).await {
            Ok(c) => FlowsClient::new(c),
            Err(e) => return fail(&e),
        };
        let env = match stanley_cli::environ::request_env() {
            Ok(e) => e,
            Err(e) => return fail(&e),
        };
        let request = RunFlowRequest { env };
        let mut stream = match client.run_flow(request).await {
            Ok(r) => r.into_inner(),
            Err(s) => {
                eprintln!("stanleyctl: {}", s.message());
                return ExitCode::from(Exit::Unavailable.code());
            }
        };
        loop {
            let next = tokio::select! {
                next = stream.message() => next,
                _ = tokio::signal::ctrl_c() => {
                    // Dropping the stream interrupts the run in the daemon.
                    eprintln!("stanleyctl: flow run interrupted");
                    return ExitCode::from(FlowCode::Interrupted.code());
                }
            };
            match next {
                Ok(Some(m)) => match m.event {
                    Some(Event::Progress(line)) => eprintln!("flow: {line}"),
                    Some(Event::Exit(end)) => {
                        if end.code == 0 {
                            println!("{}", end.message);
                        } else {
                            eprintln!("stanleyctl: {}", end.message);
                        }
                        return ExitCode::from(
                            u8::try_from(end.code).unwrap_or(Exit::Internal.code()),
                        );
                    }
                    None => {}
                },
                Ok(None) => {
                    eprintln!("stanleyctl: the daemon ended the flow run without an exit code");
                    return ExitCode::from(Exit::Unavailable.code());
                }
                Err(s) => {
                    eprintln!("stanleyctl: the flow run failed: {}", s.message());
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
fn hook(target: &Target, event: &str) -> ExitCode {
    use stanley_proto::v1::FlowHookRequest;
    use stanley_proto::v1::flows_client::FlowsClient;
    use std::io::{Read, Write};
    if !target.root.join(".stanley/flow.json").exists() {
        return ExitCode::SUCCESS;
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(MAX_HOOK_INPUT)
        .read_to_string(&mut input)
    {
        eprintln!("stanleyctl: cannot read the hook input: {e}");
        return ExitCode::from(Exit::Usage.code());
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let event = event.to_owned();
    runtime.block_on(async move {
        let mut client = match channel(target).await {
            Ok(c) => FlowsClient::new(c),
            Err(e) => return fail(&e),
        };
        let env = match stanley_cli::environ::request_env() {
            Ok(e) => e,
            Err(e) => return fail(&e),
        };
        let request = FlowHookRequest { event, input, env };
        match client.flow_hook(request).await {
            Ok(r) => {
                let answer = r.into_inner();
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(answer.stdout.as_bytes());
                let _ = out.flush();
                if !answer.stderr.is_empty() {
                    eprintln!("{}", answer.stderr);
                }
                ExitCode::from(u8::try_from(answer.exit_code).unwrap_or(Exit::Internal.code()))
            }
            Err(s) => {
                eprintln!("stanleyctl: {}", s.message());
                ExitCode::from(FlowCode::for_refusal(ErrorKind::of_status(&s)))
            }
        }
    })
}

fn print_flow_status(text: &str) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
    println!("goal: {}", v["goal"].as_str().unwrap_or(""));
    let state = if v["complete"] == true {
        "complete"
    } else if v["supervisorRunning"] == true {
        "running under the supervisor"
    } else if v["started"] == true {
        "in progress"
    } else {
        "not started"
    };
    println!("mode: {}  ({state})", v["mode"].as_str().unwrap_or(""));
    if let Some(phase) = v["currentPhase"].as_str() {
        println!("current phase: {phase}");
    }
    if v["needsHuman"] == true {
        println!("waiting on a person: read .stanley/flow/NEEDS_HUMAN.md, then run the flow again");
    }
    let budget = |name: &str| {
        let pair = &v["budgets"][name];
        format!(
            "{}/{}",
            pair[0].as_u64().unwrap_or(0),
            pair[1].as_u64().unwrap_or(0)
        )
    };
    println!(
        "budgets: restarts {}, blocks {}, Jev calls {}",
        budget("restarts"),
        budget("blocksInSession"),
        budget("jevCalls")
    );
    for p in v["phases"].as_array().into_iter().flatten() {
        println!(
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
        println!(
            "  decision {} {} in {}",
            d["condition"].as_str().unwrap_or(""),
            d["action"].as_str().unwrap_or(""),
            d["phase"].as_str().unwrap_or("")
        );
    }
}

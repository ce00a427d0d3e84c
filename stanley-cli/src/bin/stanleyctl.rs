//! `stanleyctl`: administers a repository's daemon (`daemon status|stop|restart|logs`). The
//! queue, candidate, flow and hook commands arrive with their issues.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command};
use stanley_cli::daemon::{Target, connect_or_start, connect_running, stop};
use stanley_cli::exit::{self, ClientError};
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
                .subcommand(Command::new("export").about("Print the whole queue as JSON")),
        )
}

fn fail(error: &ClientError) -> ExitCode {
    eprintln!("stanleyctl: {} error: {}", error.kind, error.message);
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
            return ExitCode::from(exit::USAGE);
        }
    };
    let json = matches.get_flag("json");
    let start = match matches.get_one::<String>("repo") {
        Some(r) => PathBuf::from(r),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let root = match worktree_root(&start) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let target = Target::new(root);
    if let Some(("queue", sub)) = matches.subcommand() {
        return queue(&target, sub, json);
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
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&ClientError::internal(e.to_string())),
    };
    runtime.block_on(async move {
        match action.as_str() {
            "status" => match connect_running(&target).await {
                Some((_, s)) if json => {
                    println!(
                        "{{\"running\":true,\"pid\":{},\"daemonVersion\":\"{}\",\"protocolVersion\":{},\"root\":{},\"uptimeMs\":{},\"activeRequests\":{}}}",
                        s.pid, s.daemon_version, s.protocol_version, stanley_cli::render::json_string(&s.root), s.uptime_ms, s.active_requests
                    );
                    ExitCode::SUCCESS
                }
                Some((_, s)) => {
                    println!("stanleyd {} (protocol {}) pid {} serving {}", s.daemon_version, s.protocol_version, s.pid, s.root);
                    println!("up {}s, {} active request(s), workflows: {}", s.uptime_ms / 1000, s.active_requests, s.workflows.join(", "));
                    ExitCode::SUCCESS
                }
                None => {
                    if json {
                        println!("{{\"running\":false}}");
                    } else {
                        println!("no stanleyd is running for {}", target.root.display());
                    }
                    ExitCode::SUCCESS
                }
            },
            "stop" => match connect_running(&target).await {
                Some((client, s)) => match stop(client, &target.socket, "stanleyctl daemon stop").await {
                    Ok(()) => {
                        println!("stopped stanleyd pid {}", s.pid);
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                },
                None => {
                    println!("no stanleyd is running for {}", target.root.display());
                    ExitCode::SUCCESS
                }
            },
            _ => {
                if let Some((client, _)) = connect_running(&target).await
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

fn queue(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    use stanley_proto::v1::queue_client::QueueClient;
    use stanley_proto::v1::{ExportQueueRequest, GetJobRequest, Job, ListJobsRequest};
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&ClientError::internal(e.to_string())),
    };
    runtime.block_on(async move {
        if let Err(e) = connect_or_start(target).await {
            return fail(&e);
        }
        let channel = match stanley_proto::connect::connect(&target.socket).await {
            Ok(c) => c,
            Err(e) => {
                return fail(&ClientError::unavailable(
                    format!("cannot reach stanleyd: {e}"),
                    format!("see the daemon log at {}", target.log().display()),
                ));
            }
        };
        let mut client = QueueClient::new(channel);
        let line = |j: &Job| {
            format!(
                "{}  {:<7}  attempts {}  {}  {}",
                j.id, j.state, j.attempts, j.input_shape, j.request
            )
        };
        let status_error = |s: tonic::Status| match s.code() {
            tonic::Code::NotFound => ClientError::input(s.message().to_owned()),
            _ => ClientError::internal(s.message().to_owned()),
        };
        match sub.subcommand() {
            Some(("list", _)) => match client.list_jobs(ListJobsRequest {}).await {
                Ok(r) => {
                    let jobs = r.into_inner().jobs;
                    if json {
                        let items: Vec<String> = jobs
                            .iter()
                            .map(|j| {
                                format!(
                                    "{{\"id\":{},\"state\":{},\"attempts\":{},\"request\":{}}}",
                                    stanley_cli::render::json_string(&j.id),
                                    stanley_cli::render::json_string(&j.state),
                                    j.attempts,
                                    stanley_cli::render::json_string(&j.request)
                                )
                            })
                            .collect();
                        println!("[{}]", items.join(","));
                    } else if jobs.is_empty() {
                        println!("no improvement jobs");
                    } else {
                        for j in &jobs {
                            println!("{}", line(j));
                        }
                    }
                    ExitCode::SUCCESS
                }
                Err(s) => fail(&status_error(s)),
            },
            Some(("show", args)) => {
                let id = args.get_one::<String>("id").cloned().unwrap_or_default();
                match client.get_job(GetJobRequest { id }).await {
                    Ok(r) => {
                        let job = r.into_inner().job.unwrap_or_default();
                        println!("{}", line(&job));
                        println!("queued {}", job.created_at);
                        for d in &job.diary {
                            println!("  {} {}", d.at, d.text);
                        }
                        ExitCode::SUCCESS
                    }
                    Err(s) => fail(&status_error(s)),
                }
            }
            _ => match client.export_queue(ExportQueueRequest {}).await {
                Ok(r) => {
                    println!("{}", r.into_inner().json);
                    ExitCode::SUCCESS
                }
                Err(s) => fail(&status_error(s)),
            },
        }
    })
}

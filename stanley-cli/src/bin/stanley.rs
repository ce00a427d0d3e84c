//! `stanley "<request>" [options]`: the thin client. Parses the fixed command line, reads the
//! input, streams the request to the repository's daemon and prints the result.

#![cfg_attr(not(test), forbid(unsafe_code))]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stanley_cli::args::{self, Invocation, Options};
use stanley_cli::daemon::{Target, connect_known, connect_or_start};
use stanley_cli::exit::{ClientError, ErrorKind, Exit};
use stanley_cli::help::help_text;
use stanley_cli::render::{Progress, print_client_error, print_error};
use stanley_cli::root::worktree_root;
use stanley_cli::style::Paint;
use stanley_proto::VERSION;
use stanley_proto::v1::queue_client::QueueClient;
use stanley_proto::v1::{
    Input, Outcome, OutsideFile, PromoteCandidateRequest, PromptRequest, Scope, WorkQueueRequest,
    input, prompt_response,
};

fn main() -> ExitCode {
    // `--json` anywhere in the raw arguments asks for JSON errors, even when parsing fails.
    let json = std::env::args_os().any(|a| a == "--json");
    let argv = match stanley_cli::environ::args() {
        Ok(a) => a,
        Err(e) => return fail(&e, json),
    };
    let invocation = match args::parse(&argv) {
        Ok(i) => i,
        Err(e) => return fail(&e, json),
    };
    // A bad environment is reported before a daemon is found or started.
    if !matches!(invocation, Invocation::Help { .. } | Invocation::Version)
        && let Err(e) = stanley_cli::environ::request_env()
    {
        return fail(&e, json);
    }
    let (request, options) = match invocation {
        Invocation::Help { empty } => {
            stanley_cli::out!("{}", help_text(VERSION));
            return ExitCode::from(if empty {
                Exit::Usage.code()
            } else {
                Exit::Complete.code()
            });
        }
        Invocation::Version => {
            stanley_cli::outln!("{}", stanley_cli::LONG_VERSION);
            return ExitCode::from(Exit::Complete.code());
        }
        Invocation::ImproveWorker(options) => {
            let repo = options.repo.clone();
            return admin(
                json,
                move |client| Box::pin(improve_worker(client, options.json)),
                repo,
            );
        }
        Invocation::Promote(id, options) => {
            let repo = options.repo.clone();
            return admin(
                json,
                move |client| Box::pin(promote(client, id, options.json)),
                repo,
            );
        }
        Invocation::Request(request, options) => (request, options),
    };
    let runtime = match stanley_cli::daemon::runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e, json),
    };
    match runtime.block_on(stanley_cli::signals::interruptible(
        run(request, options),
        "the request was cancelled",
    )) {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(&e, json),
    }
}

type AdminFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<u8, ClientError>>>>;

/// Runs an administrative call against the repository's daemon.
fn admin(
    json: bool,
    call: impl FnOnce(QueueClient<tonic::transport::Channel>) -> AdminFuture,
    repo: Option<String>,
) -> ExitCode {
    let runtime = match stanley_cli::daemon::runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e, json),
    };
    let result = runtime.block_on(stanley_cli::signals::interruptible(
        async move {
            let start = match repo {
                Some(dir) => PathBuf::from(dir),
                None => std::env::current_dir().map_err(|e| {
                    ClientError::input(format!("cannot read the current directory: {e}"))
                })?,
            };
            let target = Target::new(worktree_root(&start)?);
            call(QueueClient::new(
                stanley_cli::daemon::channel(&target).await?,
            ))
            .await
        },
        "the command was cancelled",
    ));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => fail(&e, json),
    }
}

async fn improve_worker(
    mut client: QueueClient<tonic::transport::Channel>,
    json: bool,
) -> Result<u8, ClientError> {
    match client
        .work_queue(WorkQueueRequest {
            env: stanley_cli::environ::request_env()?,
        })
        .await
    {
        Ok(response) => {
            let r = response.into_inner();
            if json {
                stanley_cli::outln!("{}", stanley_cli::render::worker_document(&r));
            } else if r.ran {
                stanley_cli::outln!(
                    "stanley: improvement worker processed {} job(s)",
                    r.processed.len()
                );
                for p in &r.processed {
                    stanley_cli::outln!("  {}: {}", p.id, p.resolved_outcome().word());
                }
            } else {
                stanley_cli::outln!(
                    "stanley: improvement worker already running for this repository"
                );
            }
            Ok(Exit::Complete.code())
        }
        Err(status) if ErrorKind::of_status(&status) == ErrorKind::Usage => {
            if json {
                stanley_cli::outln!(
                    "{}",
                    stanley_cli::render::error_document("usage", status.message())
                );
            }
            stanley_cli::errln!("stanley: {}", status.message());
            Ok(Exit::Usage.code())
        }
        Err(status) => Err(ClientError::from_status(&status)),
    }
}

async fn promote(
    mut client: QueueClient<tonic::transport::Channel>,
    id: String,
    json: bool,
) -> Result<u8, ClientError> {
    match client
        .promote_candidate(PromoteCandidateRequest {
            id: id.clone(),
            env: stanley_cli::environ::request_env()?,
        })
        .await
    {
        Ok(response) => {
            let r = response.into_inner();
            if json {
                stanley_cli::outln!("{}", stanley_cli::render::promotion_document(&id, &r));
            } else {
                stanley_cli::outln!(
                    "stanley: activated candidate {id} as workflow {} at {}; review and commit it like any repository script",
                    r.workflow,
                    r.path
                );
            }
            Ok(Exit::Complete.code())
        }
        Err(status) => Err(ClientError::from_status(&status)),
    }
}

fn fail(error: &ClientError, json: bool) -> ExitCode {
    print_client_error(error, json);
    ExitCode::from(error.exit_code())
}

/// Reads the input: `--input -` always reads stdin; without `--input`, piped stdin counts when
/// it holds anything but whitespace. A path inside the repository is read by the daemon (under
/// its workspace rules, and left out of the change); a file elsewhere that the user can read (a
/// downloaded CI log) is read here and its bytes sent, so the daemon opens nothing outside the
/// repository.
fn read_input(options: &Options, root: &Path) -> Result<Option<Input>, ClientError> {
    // Any size is read in one pass; what does not fit a request is left out with a marker
    // line (the head, failure-looking lines and the tail are kept).
    let read_stdin = || -> Result<Vec<u8>, ClientError> {
        let reduced = stanley_proto::window::reduce(std::io::stdin().lock())
            .map_err(|e| ClientError::input(format!("cannot read stdin: {e}")))?;
        Ok(reduced.text.into_bytes())
    };
    match options.input.as_deref() {
        Some("-") => Ok(Some(Input {
            source: Some(input::Source::Stdin(read_stdin()?)),
        })),
        Some(path) => Ok(Some(Input {
            source: Some(input_file(path, root)?),
        })),
        None if !std::io::stdin().is_terminal() => {
            let bytes = read_stdin()?;
            if bytes.iter().all(u8::is_ascii_whitespace) {
                Ok(None)
            } else {
                Ok(Some(Input {
                    source: Some(input::Source::Stdin(bytes)),
                }))
            }
        }
        None => Ok(None),
    }
}

/// Where `--input PATH` is read: by the daemon when the path, taken from the repository root
/// as before or from the current folder, names an entry inside the repository (the daemon's
/// workspace rules then decide: a link out of it, a credential-shaped name); here otherwise.
fn input_file(path: &str, root: &Path) -> Result<input::Source, ClientError> {
    let relative = Path::new(path).is_relative();
    if relative && root.join(path).symlink_metadata().is_ok() {
        return Ok(input::Source::Path(path.to_owned()));
    }
    let given = std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| PathBuf::from(path));
    let cannot = |e: std::io::Error| {
        ClientError::input(format!(
            "cannot read {path}: {e} (or pass the log on standard input: stanley '…' < FILE)"
        ))
    };
    // Its folder resolved, its own name as given: a link it is stays for the daemon to judge.
    let placed = given
        .parent()
        .and_then(|dir| dir.canonicalize().ok())
        .zip(given.file_name())
        .map(|(dir, name)| dir.join(name));
    if let Some(inside) = placed.as_deref().and_then(|p| p.strip_prefix(root).ok()) {
        return Ok(input::Source::Path(inside.to_string_lossy().into_owned()));
    }
    let real = given.canonicalize().ok();
    let file = stanley_proto::private::open_named(&given).map_err(cannot)?;
    let reduced = stanley_proto::window::reduce(std::io::BufReader::new(file)).map_err(cannot)?;
    let name = real
        .as_deref()
        .unwrap_or(&given)
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned());
    Ok(input::Source::Outside(OutsideFile {
        name,
        content: reduced.text.into_bytes(),
    }))
}

async fn run(request: String, options: Options) -> Result<u8, ClientError> {
    let start = match &options.repo {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_dir()
            .map_err(|e| ClientError::input(format!("cannot read the current directory: {e}")))?,
    };
    let root = worktree_root(&start)?;
    let input = read_input(&options, &root)?;
    let scope = match options.scope.as_deref() {
        Some("staged") => Scope::Staged,
        Some("branch") => Scope::Branch,
        _ => Scope::Worktree,
    };
    let target = Target::new(root);
    // The daemon `daemon.json` names as this version is asked at once (one call, no
    // handshake); otherwise, or when it says it is of another version after all, the handshake
    // finds, starts or replaces it.
    let (mut client, handshook) = match connect_known(&target).await? {
        Some(client) => (client, false),
        None => (connect_or_start(&target).await?, true),
    };
    let prompt = PromptRequest {
        request,
        input,
        scope: scope as i32,
        base: options.base.clone().unwrap_or_default(),
        no_persist: options.no_persist,
        no_agent: options.no_agent,
        env: stanley_cli::environ::request_env()?,
    };
    let dead = || {
        ClientError::unavailable(
            "stanleyd stopped before answering",
            format!("see the daemon log at {}", target.log().display()),
        )
    };
    let versioned = |prompt: PromptRequest| {
        let mut call = tonic::Request::new(prompt);
        if let Ok(version) = stanley_proto::client_version().parse() {
            call.metadata_mut()
                .insert(stanley_proto::CLIENT_VERSION_METADATA, version);
        }
        call
    };
    let answer = if handshook {
        client.prompt(versioned(prompt)).await
    } else {
        match client.prompt(versioned(prompt.clone())).await {
            Err(status) if stanley_proto::is_other_version(&status) => {
                client = connect_or_start(&target).await?;
                client.prompt(versioned(prompt)).await
            }
            answer => answer,
        }
    };
    let mut stream = answer.map_err(|_| dead())?.into_inner();
    let mut progress = Progress::new(options.json);
    loop {
        let message = tokio::select! {
            m = stream.message() => m,
            error = stanley_cli::signals::interrupted("the request was cancelled") => {
                // Dropping the stream cancels the request in the daemon.
                drop(stream);
                progress.clear();
                return Err(error);
            }
        };
        let Some(event) = message.map_err(|_| dead())?.and_then(|e| e.event) else {
            return Err(dead());
        };
        match event {
            prompt_response::Event::Progress(p) => progress.show(&p.phase, p.done, p.total),
            prompt_response::Event::Warning(w) => {
                progress.clear();
                stanley_cli::errln!("stanley: warning: {}", w.line);
            }
            prompt_response::Event::Notice(n) => {
                progress.clear();
                stanley_cli::errln!("stanley: {}", n.line);
            }
            prompt_response::Event::Result(result) => {
                progress.clear();
                if result.outcome == Outcome::Error as i32 {
                    let error = result.error.unwrap_or_default();
                    if options.json {
                        stanley_cli::outln!("{}", result.document_json);
                    }
                    // A kind this client does not know (a newer daemon's) is reported as a
                    // fault: the document printed above keeps its word.
                    print_error(
                        ErrorKind::from_wire(error.resolved_error_kind())
                            .unwrap_or(ErrorKind::Internal),
                        &error.message,
                        Some(&error.workflow),
                        false,
                        None,
                    );
                } else {
                    if options.json {
                        stanley_cli::outln!("{}", result.document_json);
                    } else {
                        let human = if options.verbose && !result.human_verbose.is_empty() {
                            &result.human_verbose
                        } else {
                            &result.human
                        };
                        stanley_cli::output::write_painted(&Paint::stdout().report(human));
                        stanley_cli::outln!();
                    }
                }
                return Ok(u8::try_from(result.exit_code).unwrap_or(Exit::Internal.code()));
            }
        }
    }
}

//! The commands an editor runs (`workspace/executeCommand`): the built-ins a person asks for
//! from an editor, sent to the daemon as the `stanley` command line sends them, with `$/progress`
//! from the request's progress events and cancellation (the editor's `$/cancelRequest` or the
//! progress's cancel button) that drops the stream, which cancels the request in the daemon;
//! and the two actions on a finding: open its run in the page, mark it seen for its run.

use std::path::Path;

use serde_json::{Value, json};
use stanley_cli::daemon::Target;
use stanley_cli::exit::ClientError;
use stanley_proto::v1::runs_client::RunsClient;
use stanley_proto::v1::stanley_client::StanleyClient;
use stanley_proto::v1::ui_client::UiClient;
use stanley_proto::v1::{
    Input, MarkFindingSeenRequest, OpenUiRequest, Outcome, PromptRequest, Scope, input,
    prompt_response,
};
use tokio_util::sync::CancellationToken;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, ErrorCode};
use tower_lsp_server::ls_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, ProgressToken, ShowDocumentParams, Uri,
    WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd, WorkDoneProgressReport,
    notification::Progress as ProgressNotification,
};

/// The commands, as the server advertises them.
pub(crate) const COMMANDS: [&str; 6] = [REVIEW, CHECK, SUMMARIZE, TRIAGE, OPEN_RUN, MARK_SEEN];
pub(crate) const REVIEW: &str = "stanley.review";
pub(crate) const CHECK: &str = "stanley.check";
pub(crate) const SUMMARIZE: &str = "stanley.summarize";
pub(crate) const TRIAGE: &str = "stanley.triage";
pub(crate) const OPEN_RUN: &str = "stanley.openRun";
pub(crate) const MARK_SEEN: &str = "stanley.markSeen";

/// One built-in request an editor can send: what it asks, in the words the router knows, and
/// the input file it names, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ask {
    pub(crate) title: &'static str,
    pub(crate) request: String,
    pub(crate) input: Option<String>,
}

/// An invalid-params error with one line.
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into().into(),
        data: None,
    }
}

/// A client-side failure (the daemon could not be reached, a refused call) as a JSON-RPC error
/// whose data names Stanley's error kind and exit code.
pub(crate) fn failed(e: &ClientError) -> Error {
    Error {
        code: ErrorCode::ServerError(-32000),
        message: format!(
            "stanley: {} error: {}{}",
            e.kind.as_str(),
            e.message,
            e.hint
                .as_ref()
                .map_or_else(String::new, |h| format!(" (hint: {h})"))
        )
        .into(),
        data: Some(json!({"kind": e.kind.as_str(), "exitCode": e.exit_code()})),
    }
}

/// A file argument (a path, absolute or repository-relative, or a `file:` URI) as a
/// repository-relative path inside `root`.
fn input_path(root: &Path, arg: Option<&Value>, what: &str) -> Result<String, Error> {
    let text = arg
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid(format!("name the {what} file as the command's argument")))?;
    let path = match text.parse::<Uri>() {
        Ok(uri) if uri.scheme().as_str() == "file" => uri
            .to_file_path()
            .map(|p| p.into_owned())
            .ok_or_else(|| invalid(format!("{text} is not a file")))?,
        _ => Path::new(text).to_path_buf(),
    };
    let full = if path.is_absolute() {
        path
    } else {
        root.join(path)
    };
    let real = full
        .canonicalize()
        .map_err(|e| invalid(format!("{}: {e}", full.display())))?;
    real.strip_prefix(root)
        .ok()
        .and_then(|r| r.to_str())
        .map(str::to_owned)
        .ok_or_else(|| {
            invalid(format!(
                "{} is outside the repository {}",
                real.display(),
                root.display()
            ))
        })
}

/// The request a prompt command sends.
pub(crate) fn ask(root: &Path, command: &str, args: &[Value]) -> Result<Ask, Error> {
    Ok(match command {
        REVIEW => Ask {
            title: "Stanley: review",
            request: "Review these changes for correctness bugs".to_owned(),
            input: None,
        },
        SUMMARIZE => Ask {
            title: "Stanley: summarize",
            request: "Summarize what changed".to_owned(),
            input: None,
        },
        CHECK => {
            let path = input_path(root, args.first(), "criteria")?;
            Ask {
                title: "Stanley: check",
                request: format!("Check these changes against the criteria in {path}"),
                input: Some(path),
            }
        }
        TRIAGE => {
            let path = input_path(root, args.first(), "log")?;
            Ask {
                title: "Stanley: triage",
                request: format!("Triage the test failures in {path}"),
                input: Some(path),
            }
        }
        other => return Err(invalid(format!("unknown command {other}"))),
    })
}

/// `$/progress` for one command: begun, reported, ended exactly once (also when the command's
/// future is dropped by a `$/cancelRequest`).
struct Progress {
    client: Client,
    token: Option<ProgressToken>,
}

impl Progress {
    async fn send(&self, value: WorkDoneProgress) {
        if let Some(token) = &self.token {
            self.client
                .send_notification::<ProgressNotification>(ProgressParams {
                    token: token.clone(),
                    value: ProgressParamsValue::WorkDone(value),
                })
                .await;
        }
    }

    async fn end(mut self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd {
            message: Some(message),
        }))
        .await;
        self.token = None;
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            let client = self.client.clone();
            // Dropped with the request (cancelled): the editor still hears that it ended.
            tokio::spawn(async move {
                client
                    .send_notification::<ProgressNotification>(ProgressParams {
                        token,
                        value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                            WorkDoneProgressEnd {
                                message: Some("cancelled".to_owned()),
                            },
                        )),
                    })
                    .await;
            });
        }
    }
}

/// Runs one prompt command: its request streamed to the daemon, progress reported under
/// `token`, until the result, `cancel` or the daemon going away.
pub(crate) async fn prompt(
    client: &Client,
    target: &Target,
    ask: Ask,
    token: Option<ProgressToken>,
    cancel: CancellationToken,
) -> Result<Value, Error> {
    let progress = Progress {
        client: client.clone(),
        token,
    };
    progress
        .send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: ask.title.to_owned(),
            cancellable: Some(true),
            message: Some("starting".to_owned()),
            percentage: Some(0),
        }))
        .await;
    let env = stanley_cli::environ::request_env().map_err(|e| failed(&e))?;
    let channel = stanley_cli::daemon::channel(target)
        .await
        .map_err(|e| failed(&e))?;
    let mut stanley = StanleyClient::new(channel)
        .max_decoding_message_size(stanley_proto::MAX_MESSAGE_BYTES)
        .max_encoding_message_size(stanley_proto::MAX_MESSAGE_BYTES);
    let request = PromptRequest {
        request: ask.request.clone(),
        input: ask.input.clone().map(|p| Input {
            source: Some(input::Source::Path(p)),
        }),
        scope: Scope::Worktree as i32,
        env,
        ..PromptRequest::default()
    };
    let refused = |s: tonic::Status| failed(&ClientError::from_status(&s));
    let mut stream = tokio::select! {
        s = stanley.prompt(request) => s.map_err(refused)?.into_inner(),
        () = cancel.cancelled() => return Err(cancelled()),
    };
    loop {
        let event = tokio::select! {
            e = stream.message() => e.map_err(refused)?,
            // Dropping the stream cancels the request in the daemon.
            () = cancel.cancelled() => return Err(cancelled()),
        };
        let Some(event) = event.and_then(|e| e.event) else {
            return Err(failed(&ClientError::unavailable(
                "stanleyd stopped before answering",
                format!("see the daemon log at {}", target.log().display()),
            )));
        };
        match event {
            prompt_response::Event::Progress(p) => {
                let percentage = (p.total > 0).then(|| (p.done * 100 / p.total).min(100));
                let message = if p.total > 0 {
                    format!("{} {}/{}", p.phase, p.done, p.total)
                } else {
                    p.phase
                };
                progress
                    .send(WorkDoneProgress::Report(WorkDoneProgressReport {
                        cancellable: Some(true),
                        message: Some(message),
                        percentage,
                    }))
                    .await;
            }
            prompt_response::Event::Warning(w) => {
                client
                    .log_message(
                        tower_lsp_server::ls_types::MessageType::WARNING,
                        format!("stanley: {}", w.line),
                    )
                    .await;
            }
            prompt_response::Event::Notice(n) => {
                client
                    .log_message(
                        tower_lsp_server::ls_types::MessageType::INFO,
                        format!("stanley: {}", n.line),
                    )
                    .await;
            }
            prompt_response::Event::Result(r) => {
                let outcome = Outcome::try_from(r.outcome).unwrap_or(Outcome::Unspecified);
                // `complete`, `budget_exhausted`: the status words of the document and the
                // command line, never the proto's `OUTCOME_COMPLETE`.
                let outcome_word = outcome.word();
                let n = r.findings.len();
                let line = match &r.error {
                    Some(e) => format!("{} error: {}", e.resolved_error_kind().word(), e.message),
                    None => format!(
                        "{}: {n} finding{}",
                        outcome_word.replace('_', " "),
                        if n == 1 { "" } else { "s" }
                    ),
                };
                progress.end(line.clone()).await;
                return Ok(json!({
                    "runId": r.run_id,
                    "workflow": r.workflow,
                    "outcome": outcome_word,
                    "exitCode": r.exit_code,
                    "findings": r.findings.len(),
                    "message": line,
                }));
            }
        }
    }
}

/// The error a cancelled command answers with.
pub(crate) fn cancelled() -> Error {
    Error {
        code: ErrorCode::RequestCancelled,
        message: "cancelled".into(),
        data: None,
    }
}

/// A run id argument: a run folder's name.
fn run_id(arg: Option<&Value>) -> Result<String, Error> {
    arg.and_then(Value::as_str)
        .filter(|id| {
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
                && !id.starts_with('.')
        })
        .map(str::to_owned)
        .ok_or_else(|| invalid("name the run by its id"))
}

/// `stanley.openRun <run id>`: the page's address for the run, handed to the editor to open
/// in a browser through the private redirect file `stanleyctl ui` uses (so the token is never
/// on a command line).
pub(crate) async fn open_run(
    client: &Client,
    target: &Target,
    args: &[Value],
    can_show: bool,
    stop: &CancellationToken,
) -> Result<Value, Error> {
    let id = run_id(args.first())?;
    let channel = stanley_cli::daemon::channel(target)
        .await
        .map_err(|e| failed(&e))?;
    let page = UiClient::new(channel)
        .open_ui(OpenUiRequest {})
        .await
        .map_err(|s| failed(&ClientError::from_status(&s)))?
        .into_inner();
    let url = format!("{}/runs/{id}", page.url.trim_end_matches('/'));
    let mut opened = false;
    if can_show
        && let Some(folder) = target.socket.parent()
        && let Ok(file) = crate::ui::write_redirect(folder, &url, page.port)
        && let Ok(uri) = crate::ui::file_url(&file).parse::<Uri>()
    {
        let show = client.show_document(ShowDocumentParams {
            uri,
            external: Some(true),
            take_focus: Some(true),
            selection: None,
        });
        opened = tokio::select! {
            shown = show => shown.unwrap_or(false),
            () = stop.cancelled() => return Err(cancelled()),
        };
    }
    Ok(json!({"url": url, "opened": opened}))
}

/// `stanley.markSeen <run id> <fingerprint>`: the daemon keeps it; every editor watching
/// hears of it and stops showing the finding.
pub(crate) async fn mark_seen(target: &Target, args: &[Value]) -> Result<Value, Error> {
    let id = run_id(args.first())?;
    let fingerprint = args
        .get(1)
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty())
        .ok_or_else(|| invalid("name the finding by its fingerprint"))?
        .to_owned();
    let channel = stanley_cli::daemon::channel(target)
        .await
        .map_err(|e| failed(&e))?;
    let seen = RunsClient::new(channel)
        .mark_finding_seen(MarkFindingSeenRequest {
            run_id: id.clone(),
            fingerprint,
        })
        .await
        .map_err(|s| failed(&ClientError::from_status(&s)))?
        .into_inner()
        .seen;
    Ok(json!({"runId": id, "seen": seen}))
}

/// A progress token the server makes for a command the editor sent without one.
pub(crate) fn server_token(n: u64) -> ProgressToken {
    NumberOrString::String(format!("stanley-{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_their_files_inside_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("criteria.md"), "- fixes the crash\n").unwrap();
        let a = ask(&root, CHECK, &[json!("criteria.md")]).unwrap();
        assert_eq!(a.input.as_deref(), Some("criteria.md"));
        let uri = Uri::from_file_path(root.join("criteria.md")).unwrap();
        let b = ask(&root, CHECK, &[json!(uri.as_str())]).unwrap();
        assert_eq!(a, b);
        for bad in [json!("/etc/hostname"), json!("../x"), json!(3), json!("")] {
            let e = ask(&root, TRIAGE, std::slice::from_ref(&bad)).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParams, "{bad}");
        }
        assert!(ask(&root, REVIEW, &[]).is_ok());
        assert!(ask(&root, "stanley.deploy", &[]).is_err());
        assert!(run_id(Some(&json!("../../etc"))).is_err());
        assert!(run_id(Some(&json!("review-20261130T190000Z-abc123"))).is_ok());
    }
}

//! The bridge to the Node.js workflow host (`packaging/host/host.mjs`): starts it with `tsx`,
//! speaks newline-delimited JSON-RPC 2.0 over its stdio (protocol 2) with typed requests and
//! replies ([`HostRequest`], [`Loaded`], …), and routes the host's `prompt`, `judge` and `log`
//! calls to the run that made them ([`HostCall`]).
//!
//! The host writes nothing another user can touch: it runs with a private `TMPDIR` and tsx's
//! compile cache off, and it loads a staged copy of the workflows ([`crate::workflow_tree`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};

use crate::lines::{Line, next_line};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

/// The host protocol version this daemon speaks (2: loads a staged copy, confined).
pub const HOST_PROTOCOL: u64 = 2;

/// Why the host could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// No host beside the binaries or in the source tree.
    #[error(
        "the workflow host is not installed (run scripts/install, or npm ci --prefix packaging in a source checkout)"
    )]
    NotInstalled,
    /// `node` could not be started.
    #[error("could not start the workflow host: {0}")]
    Start(#[source] StartProblem),
    /// The process ended (or closed its pipes) before answering.
    #[error("the workflow host exited")]
    Exited,
    /// A host of another version.
    #[error("the workflow host speaks protocol {found}, not {HOST_PROTOCOL}")]
    Protocol {
        /// What it said it speaks.
        found: String,
    },
    /// An answer that does not have the shape its request expects.
    #[error("the workflow host's answer to {method} does not parse: {detail}")]
    Reply {
        /// The request.
        method: &'static str,
        /// What serde said.
        detail: String,
    },
    /// The host (or the workflow it ran) reported an error: its message.
    #[error("{0}")]
    Failed(String),
    /// The host did not answer in time; it was stopped.
    #[error("the workflow host did not answer {method} within {} s; it was stopped", .after.as_secs())]
    TimedOut {
        /// The request.
        method: &'static str,
        /// How long it was given.
        after: Duration,
    },
}

/// Why `node` could not be started with the host.
#[derive(Debug, thiserror::Error)]
pub enum StartProblem {
    /// A file of the host's install is named by a relative path (no `file:` URL for it).
    #[error("{} is not absolute", .0.display())]
    NotAbsolute(PathBuf),
    /// The process could not be spawned.
    #[error(transparent)]
    Spawn(#[from] std::io::Error),
    /// The process came without the pipes the protocol runs over.
    #[error("its standard streams were not piped")]
    NotPiped,
}

/// How long the host may take to say hello, to unload, and to answer the gates.
pub const HOST_ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a load may take: every module's import and its factory (each factory has 30 s of
/// its own inside the host).
pub const HOST_LOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// The variables naming the folder a host and every Node.js process it starts (worker threads,
/// `fork`) confine imports to, read by `host/boot.mjs`, which each of them imports first.
pub const CONFINE_FOLDER_ENV: &str = "STANLEY_HOST_FOLDER";
/// The folder's name in the repository, for messages.
pub const CONFINE_LABEL_ENV: &str = "STANLEY_HOST_LABEL";

/// The folder a host's workflows are confined to.
#[derive(Clone, Debug)]
pub struct Confinement {
    /// The staged copy's `workflows/` folder, canonical.
    pub folder: PathBuf,
    /// Its name in the repository (`.stanley/workflows`, a candidate's folder).
    pub label: String,
}

/// Where the host program and its `tsx` loader live.
#[derive(Clone, Debug)]
pub struct HostFiles {
    pub script: PathBuf,
    pub loader: PathBuf,
    /// The bootstrap every host process imports first: it confines imports and `require`.
    pub boot: PathBuf,
    /// Stanley's own `tsconfig.json` beside the script, given to tsx so that no repository
    /// tsconfig (whose `paths` could redirect a trusted workflow's imports) is read.
    pub tsconfig: PathBuf,
}

/// Finds the host: `$STANLEY_WORKFLOW_HOST` (the folder holding `host/host.mjs` and
/// `node_modules/`), else `<exe dir>/../share/stanley/workflow-host`, else the source tree's
/// `packaging/` (for binaries run from `target/`).
pub fn locate(env_dir: Option<&str>, exe: &Path) -> Result<HostFiles, HostError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = env_dir.filter(|d| !d.is_empty()) {
        candidates.push(PathBuf::from(dir));
    }
    if let Some(bin) = exe.parent() {
        candidates.push(bin.join("../share/stanley/workflow-host"));
        candidates.push(bin.join("../../packaging"));
    }
    for dir in candidates {
        let script = dir.join("host/host.mjs");
        let loader = dir.join("node_modules/tsx/dist/loader.mjs");
        let tsconfig = dir.join("host/tsconfig.json");
        let boot = dir.join("host/boot.mjs");
        let confine = dir.join("host/confine.mjs");
        if script.is_file()
            && loader.is_file()
            && tsconfig.is_file()
            && boot.is_file()
            && confine.is_file()
        {
            return Ok(HostFiles {
                script,
                loader,
                boot,
                tsconfig,
            });
        }
    }
    Err(HostError::NotInstalled)
}

/// Finds `node` on a `PATH` value.
pub fn find_node(path: Option<&str>) -> Option<PathBuf> {
    crate::tools::on_path("node", path)
}

/// What the daemon asks the host.
#[derive(Debug, Serialize)]
#[serde(tag = "method", content = "params", rename_all = "lowercase")]
enum HostRequest<'a> {
    Hello {},
    Load(&'a LoadParams),
    Unload {},
    Available { facts: &'a GateFacts },
    Run(&'a RunParams),
}

impl HostRequest<'_> {
    fn method(&self) -> &'static str {
        match self {
            Self::Hello {} => "hello",
            Self::Load(_) => "load",
            Self::Unload {} => "unload",
            Self::Available { .. } => "available",
            Self::Run(_) => "run",
        }
    }
}

/// `load`: the staged copy to load and what to call it.
#[derive(Clone, Debug, Serialize)]
pub struct LoadParams {
    /// The repository (handed to factories as `root`).
    pub root: String,
    /// The staged copy: a private folder holding `workflows/` and Stanley's `package.json`.
    pub snapshot: String,
    /// The folder's name in the repository (`.stanley/workflows`), used in every message.
    pub label: String,
}

/// The facts a workflow's `available` gate sees.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GateFacts {
    /// `present` or `absent`.
    pub diff: &'static str,
    /// The request's input shape.
    pub input: &'static str,
}

/// `run`: one workflow run.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunParams {
    /// The run's id, which the host's calls carry.
    pub run: String,
    /// The workflow.
    pub id: String,
    /// The person's request.
    pub request: String,
    /// Whether `input` was given (a `null` input is still an input).
    pub has_input: bool,
    /// The input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The repository.
    pub root: String,
}

#[derive(Debug, Deserialize)]
struct Hello {
    protocol: Value,
}

/// One workflow a load registered.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LoadedWorkflow {
    /// Its id.
    pub id: String,
    /// The file or package it came from (`.stanley/workflows/x.ts`).
    pub source: String,
    /// Its routing metadata (arbitrary JSON the author wrote).
    #[serde(default)]
    pub metadata: Value,
    /// Whether it has an `available` gate.
    #[serde(default)]
    pub gated: bool,
}

stanley_core::words! {
    /// Where loading a workflow source stopped, as the host names it; a word this version
    /// does not know reads as `Other`.
    pub enum LoadPhase {
        Discover = "discover",
        Import = "import",
        Factory = "factory",
        Validate = "validate",
        #[serde(other)]
        Other = "other",
    }
}

/// A source that was not loaded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Diagnostic {
    /// The file or package.
    pub source: String,
    pub phase: LoadPhase,
    /// What went wrong.
    pub message: String,
}

/// What a load registered and quarantined.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Loaded {
    /// The workflows that loaded.
    #[serde(default)]
    pub workflows: Vec<LoadedWorkflow>,
    /// The sources that did not.
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
}

/// A cleanup that threw.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CleanupError {
    /// The source whose cleanup failed.
    pub source: String,
    /// What it threw.
    pub message: String,
}

#[derive(Debug, Default, Deserialize)]
struct Unloaded {
    #[serde(default)]
    errors: Vec<CleanupError>,
}

#[derive(Debug, Deserialize)]
struct RunReply {
    value: Value,
}

/// A log record's level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    /// The word as the workflow wrote it.
    pub fn word(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Warn => "warn",
            Self::Error => "error",
        }
    }

    /// Whether a person is told (warnings and errors).
    pub fn is_notable(self) -> bool {
        matches!(self, Self::Warn | Self::Error)
    }
}

/// A workflow's `log` call.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LogRecord {
    /// The run it belongs to (none while loading).
    #[serde(default)]
    pub run: Option<String>,
    /// The workflow's source.
    #[serde(default)]
    pub source: String,
    /// The level.
    pub level: LogLevel,
    /// The message.
    pub message: String,
    /// Any JSON the workflow attached.
    #[serde(default)]
    pub data: Option<Value>,
}

impl LogRecord {
    /// The line a person reads.
    pub fn line(&self, fallback_source: &str) -> String {
        let source = if self.source.is_empty() {
            fallback_source
        } else {
            &self.source
        };
        let data = self
            .data
            .as_ref()
            .map(|d| format!(" {d}"))
            .unwrap_or_default();
        format!(
            "workflow {source} {}: {}{data}",
            self.level.word(),
            self.message
        )
    }
}

/// Why a run's `prompt` call gets no value: the daemon's own error, whose message the
/// workflow sees as a thrown exception's.
pub type PromptRefusal = Box<dyn std::error::Error + Send + Sync>;

/// A call the host makes on behalf of a run.
#[derive(Debug)]
pub enum HostCall {
    /// `prompt(instructions, input?)`: answer with `{status, output}` or why not.
    Prompt {
        instructions: String,
        input: Option<Value>,
        reply: oneshot::Sender<Result<Value, PromptRefusal>>,
    },
    /// `judge(request)`: always answered with a value.
    Judge {
        request: Value,
        reply: oneshot::Sender<Value>,
    },
    /// A log record.
    Log(LogRecord),
}

/// What the host sends: an answer to one of our requests, or a call of its own.
#[derive(Debug, Deserialize)]
struct Incoming {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

#[derive(Debug, Serialize, Deserialize)]
struct RpcError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
}

#[derive(Debug, Deserialize)]
struct PromptParams {
    run: String,
    instructions: String,
    #[serde(default)]
    input: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct JudgeParams {
    run: String,
    request: Value,
}

/// One line the daemon writes.
#[derive(Serialize)]
struct Outgoing<'a, T: Serialize> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    #[serde(flatten)]
    body: T,
}

#[derive(Serialize)]
#[serde(rename_all = "lowercase")]
enum Answer {
    Result(Value),
    Error(RpcError),
}

#[derive(Serialize)]
struct Cancel<'a> {
    method: &'static str,
    params: CancelParams<'a>,
}

#[derive(Serialize)]
struct CancelParams<'a> {
    run: &'a str,
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Result<Value, HostError>>>>>;
type Runs = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<HostCall>>>>;

/// A running workflow host.
pub struct WorkflowHost {
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    pending: Pending,
    runs: Runs,
    init_logs: Arc<Mutex<Vec<LogRecord>>>,
    alive: Arc<AtomicBool>,
    next: AtomicU64,
    child: Arc<Mutex<Child>>,
}

impl std::fmt::Debug for WorkflowHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowHost")
            .field("alive", &self.alive.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

async fn write_line(
    stdin: &tokio::sync::Mutex<ChildStdin>,
    message: &impl Serialize,
) -> Result<(), HostError> {
    let mut line = serde_json::to_vec(message).map_err(|e| HostError::Failed(e.to_string()))?;
    line.push(b'\n');
    let mut stdin = stdin.lock().await;
    stdin
        .write_all(&line)
        .await
        .map_err(|_| HostError::Exited)?;
    stdin.flush().await.map_err(|_| HostError::Exited)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl WorkflowHost {
    /// Starts `node --import <tsx loader> --import <boot> host.mjs` in `cwd` with `env` (the
    /// daemon's environment for repository code), `TMPDIR` set to `tmp` (a folder only this
    /// user can write), tsx's compile cache off, Stanley's own tsconfig, and the folder its
    /// imports are confined to. The `--import`s are part of `process.execArgv`, which worker
    /// threads and `fork` inherit, so the confinement holds in them too.
    pub async fn start(
        node: &Path,
        files: &HostFiles,
        cwd: &Path,
        env: &HashMap<String, String>,
        tmp: &Path,
        confinement: &Confinement,
    ) -> Result<Self, HostError> {
        // URLs, percent-encoded: an install path may hold spaces, `#` or `%`.
        let url = |path: &Path| {
            url::Url::from_file_path(path)
                .map_err(|()| HostError::Start(StartProblem::NotAbsolute(path.to_owned())))
        };
        let (loader, boot) = (url(&files.loader)?, url(&files.boot)?);
        let mut child = Command::new(node)
            .arg("--import")
            .arg(loader.as_str())
            .arg("--import")
            .arg(boot.as_str())
            .arg(&files.script)
            .current_dir(cwd)
            .env_clear()
            // Exactly the environment the daemon prepared for repository code (no Jev key).
            .envs(env)
            .env("TSX_TSCONFIG_PATH", &files.tsconfig)
            // tsx keeps compiled modules and an IPC pipe under $TMPDIR/tsx-<uid>, a folder it
            // never checks the owner of: a private TMPDIR, and no cache at all.
            .env("TMPDIR", tmp)
            .env("TSX_DISABLE_CACHE", "1")
            .env(CONFINE_FOLDER_ENV, &confinement.folder)
            .env(CONFINE_LABEL_ENV, &confinement.label)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| HostError::Start(StartProblem::Spawn(e)))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(HostError::Start(StartProblem::NotPiped));
        };
        let stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(async move {
                // Read to the end whatever it holds, so the host never blocks on a full pipe.
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                while let Some(line) = next_line(&mut reader, &mut buf, MAX_STDERR_LINE_BYTES).await
                {
                    match line {
                        Line::Whole => {
                            let line = String::from_utf8_lossy(&buf);
                            tracing::warn!(host = %line, "workflow host stderr");
                        }
                        Line::TooLong => tracing::warn!(
                            "workflow host stderr: a line over {MAX_STDERR_LINE_BYTES} bytes was dropped"
                        ),
                    }
                }
            });
        }
        let host = Self {
            stdin,
            pending: Arc::default(),
            runs: Arc::default(),
            init_logs: Arc::default(),
            alive: Arc::new(AtomicBool::new(true)),
            next: AtomicU64::new(1),
            child: Arc::new(Mutex::new(child)),
        };
        host.read_from(stdout);
        let hello: Hello = host
            .call_within(&HostRequest::Hello {}, HOST_ANSWER_TIMEOUT)
            .await?;
        if hello.protocol.as_u64() != Some(HOST_PROTOCOL) {
            return Err(HostError::Protocol {
                found: hello.protocol.to_string(),
            });
        }
        Ok(host)
    }

    fn read_from(&self, stdout: tokio::process::ChildStdout) {
        let (pending, runs, logs, alive, stdin) = (
            self.pending.clone(),
            self.runs.clone(),
            self.init_logs.clone(),
            self.alive.clone(),
            self.stdin.clone(),
        );
        let child = self.child.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Some(line) = next_line(&mut reader, &mut buf, MAX_HOST_LINE_BYTES).await {
                if line == Line::TooLong {
                    // A line past the bound breaks the protocol: the host is stopped, and
                    // every call waiting on it ends as if it had exited.
                    let _ = lock(&child).start_kill();
                    break;
                }
                dispatch(decode_line(&buf), &pending, &runs, &logs, &stdin).await;
            }
            alive.store(false, Ordering::SeqCst);
            for (_, waiter) in lock(&pending).drain() {
                let _ = waiter.send(Err(HostError::Exited));
            }
        });
    }

    /// Whether the host process is still serving.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Sends one request and decodes its answer.
    async fn call<R: DeserializeOwned>(&self, request: &HostRequest<'_>) -> Result<R, HostError> {
        let id = Value::String(format!("d{}", self.next.fetch_add(1, Ordering::SeqCst)));
        let key = id.as_str().unwrap_or_default().to_owned();
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(key.clone(), tx);
        let line = Outgoing {
            jsonrpc: "2.0",
            id: Some(&id),
            body: request,
        };
        if let Err(e) = write_line(&self.stdin, &line).await {
            lock(&self.pending).remove(&key);
            return Err(e);
        }
        let value = rx.await.unwrap_or(Err(HostError::Exited))?;
        decode_reply(request.method(), value)
    }

    /// [`Self::call`] with a deadline: a host that does not answer in time is stopped.
    async fn call_within<R: DeserializeOwned>(
        &self,
        request: &HostRequest<'_>,
        after: Duration,
    ) -> Result<R, HostError> {
        match tokio::time::timeout(after, self.call(request)).await {
            Ok(answer) => answer,
            Err(_) => {
                self.kill();
                Err(HostError::TimedOut {
                    method: request.method(),
                    after,
                })
            }
        }
    }

    /// Loads the staged copy `params.snapshot`: imports each source, runs its factory and
    /// validates what it returns.
    pub async fn load(&self, params: &LoadParams) -> Result<Loaded, HostError> {
        self.call_within(&HostRequest::Load(params), HOST_LOAD_TIMEOUT)
            .await
    }

    /// Runs every loaded workflow's cleanup, in reverse load order; returns those that threw.
    pub async fn unload(&self) -> Result<Vec<CleanupError>, HostError> {
        let unloaded: Unloaded = self
            .call_within(&HostRequest::Unload {}, HOST_ANSWER_TIMEOUT)
            .await?;
        Ok(unloaded.errors)
    }

    /// Asks every gated workflow's `available`: id → whether it is.
    pub async fn available(&self, facts: &GateFacts) -> Result<HashMap<String, bool>, HostError> {
        self.call_within(&HostRequest::Available { facts }, HOST_ANSWER_TIMEOUT)
            .await
    }

    /// Log records emitted outside any run (during loading), drained.
    pub fn take_init_logs(&self) -> Vec<LogRecord> {
        std::mem::take(&mut *lock(&self.init_logs))
    }

    /// Runs a workflow; the host's calls for this run arrive on `calls`. Returns the value the
    /// workflow's `run` returned.
    pub async fn run(
        &self,
        params: &RunParams,
        calls: mpsc::UnboundedSender<HostCall>,
    ) -> Result<Value, HostError> {
        lock(&self.runs).insert(params.run.clone(), calls);
        let result: Result<RunReply, HostError> = self.call(&HostRequest::Run(params)).await;
        lock(&self.runs).remove(&params.run);
        result.map(|r| r.value)
    }

    /// Aborts a run's signal in the host.
    pub async fn cancel(&self, run_id: &str) {
        let line = Outgoing {
            jsonrpc: "2.0",
            id: None,
            body: Cancel {
                method: "cancel",
                params: CancelParams { run: run_id },
            },
        };
        let _ = write_line(&self.stdin, &line).await;
    }

    /// Stops the host process.
    pub fn kill(&self) {
        let _ = lock(&self.child).start_kill();
    }
}

async fn answer(stdin: &tokio::sync::Mutex<ChildStdin>, id: Option<&Value>, body: Answer) {
    let _ = write_line(
        stdin,
        &Outgoing {
            jsonrpc: "2.0",
            id,
            body,
        },
    )
    .await;
}

fn host_error(message: &str) -> Answer {
    Answer::Error(RpcError {
        code: -32000,
        message: message.to_owned(),
    })
}

/// The longest stderr line of the host's that is logged.
const MAX_STDERR_LINE_BYTES: usize = 64 * 1024;

/// The longest line the host may write: a run's value and a load's metadata stay far below.
pub const MAX_HOST_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One line of the host's, decoded before anything acts on it.
#[derive(Debug)]
pub enum HostLine {
    /// An answer to our request `id`: its result, or the host's error.
    Answer {
        /// Our request's id.
        id: String,
        /// The result, or [`HostError::Failed`] with the error's message (a general one when
        /// the host gave none).
        result: Result<Value, HostError>,
    },
    /// A workflow's `log` call.
    Log(LogRecord),
    /// A run's `prompt` call; `None` when its parameters are not a prompt's.
    Prompt {
        /// The call's id, echoed in the answer.
        id: Option<Value>,
        /// The run, the instructions and the input.
        call: Option<(String, String, Option<Value>)>,
    },
    /// A run's `judge` call; `None` when its parameters are not a judge request's.
    Judge {
        /// The call's id, echoed in the answer.
        id: Option<Value>,
        /// The run and the request.
        call: Option<(String, Value)>,
    },
    /// Not JSON, or nothing the daemon answers.
    Ignored,
}

/// Decodes one line the host wrote (the bytes as they came, without the newline).
pub fn decode_line(line: &[u8]) -> HostLine {
    let Ok(message) = serde_json::from_slice::<Incoming>(line) else {
        return HostLine::Ignored;
    };
    let Some(method) = message.method else {
        // An answer to one of ours.
        let Some(id) = message.id.as_ref().and_then(Value::as_str) else {
            return HostLine::Ignored;
        };
        let result = match message.error {
            Some(e) if e.message.is_empty() => Err(HostError::Failed("workflow host error".into())),
            Some(e) => Err(HostError::Failed(e.message)),
            None => Ok(message.result.unwrap_or(Value::Null)),
        };
        return HostLine::Answer {
            id: id.to_owned(),
            result,
        };
    };
    let params = message.params.unwrap_or(Value::Null);
    match method.as_str() {
        "log" => {
            serde_json::from_value::<LogRecord>(params).map_or(HostLine::Ignored, HostLine::Log)
        }
        "prompt" => HostLine::Prompt {
            id: message.id,
            call: serde_json::from_value::<PromptParams>(params)
                .ok()
                .map(|p| (p.run, p.instructions, p.input)),
        },
        "judge" => HostLine::Judge {
            id: message.id,
            call: serde_json::from_value::<JudgeParams>(params)
                .ok()
                .map(|p| (p.run, p.request)),
        },
        _ => HostLine::Ignored,
    }
}

/// Decodes an answer's result as `method`'s reply: what [`WorkflowHost`] does with each answer.
pub fn decode_reply<R: DeserializeOwned>(
    method: &'static str,
    value: Value,
) -> Result<R, HostError> {
    serde_json::from_value(value).map_err(|e| HostError::Reply {
        method,
        detail: stanley_workflows::text::quoting_at_most(&e.to_string()),
    })
}

async fn dispatch(
    line: HostLine,
    pending: &Pending,
    runs: &Runs,
    init_logs: &Mutex<Vec<LogRecord>>,
    stdin: &Arc<tokio::sync::Mutex<ChildStdin>>,
) {
    let target = |run: &str| lock(runs).get(run).cloned();
    match line {
        HostLine::Ignored => {}
        HostLine::Answer { id, result } => {
            let Some(waiter) = lock(pending).remove(&id) else {
                return;
            };
            let _ = waiter.send(result);
        }
        HostLine::Log(record) => match record.run.as_deref().and_then(target) {
            Some(tx) => {
                let _ = tx.send(HostCall::Log(record));
            }
            None => lock(init_logs).push(record),
        },
        HostLine::Prompt { id, call } => {
            let stdin = stdin.clone();
            let Some((run, instructions, input)) = call else {
                return answer(&stdin, id.as_ref(), host_error("invalid prompt call")).await;
            };
            let Some(tx) = target(&run) else {
                return answer(&stdin, id.as_ref(), host_error("the run is over")).await;
            };
            let (reply, rx) = oneshot::channel();
            let _ = tx.send(HostCall::Prompt {
                instructions,
                input,
                reply,
            });
            tokio::spawn(async move {
                let body = match rx.await {
                    Ok(Ok(v)) => Answer::Result(v),
                    Ok(Err(e)) => host_error(&e.to_string()),
                    Err(_) => host_error("run aborted"),
                };
                answer(&stdin, id.as_ref(), body).await;
            });
        }
        HostLine::Judge { id, call } => {
            let stdin = stdin.clone();
            let Some((run, request)) = call else {
                return answer(&stdin, id.as_ref(), host_error("invalid judge call")).await;
            };
            let Some(tx) = target(&run) else {
                return answer(&stdin, id.as_ref(), host_error("the run is over")).await;
            };
            let (reply, rx) = oneshot::channel();
            let _ = tx.send(HostCall::Judge { request, reply });
            tokio::spawn(async move {
                let value = rx.await.unwrap_or_else(|_| {
                    serde_json::json!({"ok": false, "reason": "aborted", "detail": "run aborted"})
                });
                answer(&stdin, id.as_ref(), Answer::Result(value)).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_json_rpc_with_the_method_and_params() {
        let params = LoadParams {
            root: "/r".into(),
            snapshot: "/p/load-1".into(),
            label: ".stanley/workflows".into(),
        };
        let id = Value::String("d1".into());
        let line = |body: HostRequest<'_>| {
            serde_json::to_value(Outgoing {
                jsonrpc: "2.0",
                id: Some(&id),
                body,
            })
            .unwrap()
        };
        assert_eq!(
            line(HostRequest::Hello {}),
            serde_json::json!({"jsonrpc": "2.0", "id": "d1", "method": "hello", "params": {}})
        );
        assert_eq!(
            line(HostRequest::Load(&params)),
            serde_json::json!({"jsonrpc": "2.0", "id": "d1", "method": "load",
                "params": {"root": "/r", "snapshot": "/p/load-1", "label": ".stanley/workflows"}})
        );
        let facts = GateFacts {
            diff: "present",
            input: "none",
        };
        assert_eq!(
            line(HostRequest::Available { facts: &facts })["params"],
            serde_json::json!({"facts": {"diff": "present", "input": "none"}})
        );
        let run = RunParams {
            run: "r1".into(),
            id: "hello".into(),
            request: "Say hello".into(),
            has_input: false,
            input: None,
            root: "/r".into(),
        };
        assert_eq!(
            line(HostRequest::Run(&run))["params"],
            serde_json::json!({"run": "r1", "id": "hello", "request": "Say hello", "hasInput": false, "root": "/r"})
        );
    }

    #[test]
    fn host_messages_decode_into_their_types() {
        let m: Incoming = serde_json::from_str(
            r#"{"jsonrpc":"2.0","method":"log","params":{"run":null,"source":"a.ts","level":"warn","message":"m","data":{"k":1}}}"#,
        )
        .unwrap();
        let record: LogRecord = serde_json::from_value(m.params.unwrap()).unwrap();
        assert_eq!(record.level, LogLevel::Warn);
        assert_eq!(record.line("x"), "workflow a.ts warn: m {\"k\":1}");
        let loaded: Loaded = serde_json::from_value(serde_json::json!({
            "workflows": [{"id": "hello", "source": ".stanley/workflows/h.ts", "metadata": {"a": 1}, "gated": true}],
            "diagnostics": [{"source": ".stanley/workflows/b.ts", "phase": "import", "message": "boom"}]
        }))
        .unwrap();
        assert_eq!(loaded.workflows[0].id, "hello");
        assert!(loaded.workflows[0].gated);
        assert_eq!(loaded.diagnostics[0].phase, LoadPhase::Import);
        let bad = serde_json::from_value::<LogRecord>(
            serde_json::json!({"level": "loud", "message": "m"}),
        );
        assert!(bad.is_err(), "an unknown level is not a log record");
    }

    /// The host's error answer is a [`HostError::Failed`] with its message, or a general one
    /// when it gave none; a result is a value.
    #[test]
    fn an_error_answer_decodes_to_a_failed_host_error() {
        let answer = |line: &str| match decode_line(line.as_bytes()) {
            HostLine::Answer { id, result } => (id, result),
            other => panic!("{other:?}"),
        };
        let (id, failed) =
            answer(r#"{"jsonrpc":"2.0","id":"d7","error":{"code":-32000,"message":"boom"}}"#);
        assert_eq!(id, "d7");
        assert!(
            matches!(&failed, Err(HostError::Failed(m)) if m == "boom"),
            "{failed:?}"
        );
        let (_, silent) = answer(r#"{"jsonrpc":"2.0","id":"d8","error":{"code":-32000}}"#);
        let silent = silent.unwrap_err();
        assert!(matches!(&silent, HostError::Failed(m) if m == "workflow host error"));
        assert_eq!(silent.to_string(), "workflow host error");
        let (_, value) = answer(r#"{"jsonrpc":"2.0","id":"d9","result":{"ok":true}}"#);
        assert_eq!(value.unwrap(), serde_json::json!({"ok": true}));
    }

    /// A host that cannot be started says which step failed, in the words the daemon logs.
    #[tokio::test]
    async fn a_host_that_cannot_start_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let files = HostFiles {
            script: dir.path().join("host.mjs"),
            loader: PathBuf::from("relative/loader.mjs"),
            boot: dir.path().join("boot.mjs"),
            tsconfig: dir.path().join("tsconfig.json"),
        };
        let confinement = Confinement {
            folder: dir.path().to_path_buf(),
            label: "x".into(),
        };
        let start = |node: PathBuf, files: HostFiles| {
            let (dir, confinement) = (dir.path().to_path_buf(), confinement.clone());
            async move {
                WorkflowHost::start(&node, &files, &dir, &HashMap::new(), &dir, &confinement)
                    .await
                    .err()
                    .unwrap()
            }
        };
        let relative = start(PathBuf::from("node"), files.clone()).await;
        assert!(
            matches!(&relative, HostError::Start(StartProblem::NotAbsolute(p)) if p == Path::new("relative/loader.mjs")),
            "{relative:?}"
        );
        assert_eq!(
            relative.to_string(),
            "could not start the workflow host: relative/loader.mjs is not absolute"
        );
        let files = HostFiles {
            loader: dir.path().join("loader.mjs"),
            ..files
        };
        let missing = start(dir.path().join("no-node"), files).await;
        match &missing {
            HostError::Start(StartProblem::Spawn(e)) => {
                assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        assert!(std::error::Error::source(&missing).is_some());
    }
}

//! The bridge to the Node.js workflow host (`packaging/host/host.mjs`): starts it with `tsx`,
//! speaks newline-delimited JSON-RPC 2.0 over its stdio (protocol 1), and routes the host's
//! `prompt`, `judge` and `log` calls to the run that made them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

/// The host protocol version this daemon speaks.
pub const HOST_PROTOCOL: u64 = 1;

/// Where the host program and its `tsx` loader live.
#[derive(Clone, Debug)]
pub struct HostFiles {
    pub script: PathBuf,
    pub loader: PathBuf,
    /// Stanley's own `tsconfig.json` beside the script, given to tsx so that no repository
    /// tsconfig (whose `paths` could redirect a trusted workflow's imports) is read.
    pub tsconfig: PathBuf,
}

/// Finds the host: `$STANLEY_WORKFLOW_HOST` (the folder holding `host/host.mjs` and
/// `node_modules/`), else `<exe dir>/../share/stanley/workflow-host`, else the source tree's
/// `packaging/` (for binaries run from `target/`).
pub fn locate(env_dir: Option<&str>, exe: &Path) -> Result<HostFiles, String> {
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
        if script.is_file() && loader.is_file() && tsconfig.is_file() {
            return Ok(HostFiles {
                script,
                loader,
                tsconfig,
            });
        }
    }
    Err("the workflow host is not installed (run scripts/install, or npm ci --prefix packaging in a source checkout)".into())
}

/// Finds `node` on a `PATH` value.
pub fn find_node(path: Option<&str>) -> Option<PathBuf> {
    path?
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join("node"))
        .find(|p| p.is_file())
}

/// A call the host makes on behalf of a run.
#[derive(Debug)]
pub enum HostCall {
    /// `prompt(instructions, input?)`: answer with `{status, output}` or an error message.
    Prompt {
        instructions: String,
        input: Option<Value>,
        reply: oneshot::Sender<Result<Value, String>>,
    },
    /// `judge(request)`: always answered with a value.
    Judge {
        request: Value,
        reply: oneshot::Sender<Value>,
    },
    /// A log record `{level, source, message, data?}`.
    Log(Value),
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Result<Value, String>>>>>;
type Runs = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<HostCall>>>>;

/// A running workflow host.
pub struct WorkflowHost {
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    pending: Pending,
    runs: Runs,
    init_logs: Arc<Mutex<Vec<Value>>>,
    alive: Arc<AtomicBool>,
    next: AtomicU64,
    child: Mutex<Child>,
}

impl std::fmt::Debug for WorkflowHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowHost")
            .field("alive", &self.alive.load(Ordering::SeqCst))
            .finish_non_exhaustive()
    }
}

async fn write_line(stdin: &tokio::sync::Mutex<ChildStdin>, message: &Value) -> Result<(), String> {
    let mut line = serde_json::to_vec(message).map_err(|e| e.to_string())?;
    line.push(b'\n');
    let mut stdin = stdin.lock().await;
    stdin
        .write_all(&line)
        .await
        .map_err(|_| "the workflow host exited".to_owned())?;
    stdin
        .flush()
        .await
        .map_err(|_| "the workflow host exited".to_owned())
}

impl WorkflowHost {
    /// Starts `node --import <tsx loader> host.mjs` in `root` with `env` (the daemon's
    /// environment for repository code) and Stanley's own tsconfig.
    pub async fn start(
        node: &Path,
        files: &HostFiles,
        root: &Path,
        env: &HashMap<String, String>,
    ) -> Result<Self, String> {
        let loader = format!("file://{}", files.loader.display());
        let mut child = Command::new(node)
            .arg("--import")
            .arg(loader)
            .arg(&files.script)
            .current_dir(root)
            .env_clear()
            // Exactly the environment the daemon prepared for repository code (no Jev key).
            .envs(env)
            .env("TSX_TSCONFIG_PATH", &files.tsconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("could not start the workflow host: {e}"))?;
        let stdin = Arc::new(tokio::sync::Mutex::new(
            child.stdin.take().ok_or("no host stdin")?,
        ));
        let stdout = child.stdout.take().ok_or("no host stdout")?;
        let stderr = child.stderr.take();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let runs: Runs = Arc::new(Mutex::new(HashMap::new()));
        let init_logs = Arc::new(Mutex::new(Vec::new()));
        let alive = Arc::new(AtomicBool::new(true));
        if let Some(stderr) = stderr {
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::warn!(host = %line, "workflow host stderr");
                }
            });
        }
        let (p, r, l, a, s) = (
            pending.clone(),
            runs.clone(),
            init_logs.clone(),
            alive.clone(),
            stdin.clone(),
        );
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                dispatch(message, &p, &r, &l, &s).await;
            }
            a.store(false, Ordering::SeqCst);
            for (_, waiter) in p.lock().unwrap_or_else(|e| e.into_inner()).drain() {
                let _ = waiter.send(Err("the workflow host exited".into()));
            }
        });
        let host = Self {
            stdin,
            pending,
            runs,
            init_logs,
            alive,
            next: AtomicU64::new(1),
            child: Mutex::new(child),
        };
        let hello = host.request("hello", json!({})).await?;
        if hello["protocol"].as_u64() != Some(HOST_PROTOCOL) {
            return Err(format!(
                "the workflow host speaks protocol {}, not {HOST_PROTOCOL}",
                hello["protocol"]
            ));
        }
        Ok(host)
    }

    /// Whether the host process is still serving.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Sends one request and waits for its answer.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = format!("d{}", self.next.fetch_add(1, Ordering::SeqCst));
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), tx);
        if let Err(e) = write_line(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
        .await
        {
            self.pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            return Err(e);
        }
        rx.await
            .unwrap_or_else(|_| Err("the workflow host exited".into()))
    }

    /// Log records emitted outside any run (during loading), drained.
    pub fn take_init_logs(&self) -> Vec<Value> {
        std::mem::take(&mut *self.init_logs.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Runs workflow `id`; the host's calls for this run arrive on `calls`.
    pub async fn run(
        &self,
        run_id: &str,
        params: Value,
        calls: mpsc::UnboundedSender<HostCall>,
    ) -> Result<Value, String> {
        self.runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(run_id.to_owned(), calls);
        let result = self.request("run", params).await;
        self.runs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(run_id);
        result.map(|r| r["value"].clone())
    }

    /// Aborts a run's signal in the host.
    pub async fn cancel(&self, run_id: &str) {
        let _ = write_line(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "method": "cancel", "params": {"run": run_id}}),
        )
        .await;
    }

    /// Stops the host process.
    pub fn kill(&self) {
        let _ = self
            .child
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .start_kill();
    }
}

async fn dispatch(
    message: Value,
    pending: &Pending,
    runs: &Runs,
    init_logs: &Arc<Mutex<Vec<Value>>>,
    stdin: &Arc<tokio::sync::Mutex<ChildStdin>>,
) {
    let method = message.get("method").and_then(Value::as_str);
    let Some(method) = method else {
        let Some(id) = message.get("id").and_then(Value::as_str) else {
            return;
        };
        let Some(waiter) = pending.lock().unwrap_or_else(|e| e.into_inner()).remove(id) else {
            return;
        };
        let result = match message.get("error") {
            Some(e) => Err(e["message"]
                .as_str()
                .unwrap_or("workflow host error")
                .to_owned()),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = waiter.send(result);
        return;
    };
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let run = params.get("run").and_then(Value::as_str).map(str::to_owned);
    let target = run.as_ref().and_then(|r| {
        runs.lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(r)
            .cloned()
    });
    match method {
        "log" => match target {
            Some(tx) => {
                let _ = tx.send(HostCall::Log(params));
            }
            None => init_logs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(params),
        },
        "prompt" | "judge" => {
            let id = message.get("id").cloned().unwrap_or(Value::Null);
            let stdin = stdin.clone();
            let Some(tx) = target else {
                let _ = write_line(&stdin, &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "the run is over"}})).await;
                return;
            };
            if method == "prompt" {
                let (reply, rx) = oneshot::channel();
                let call = HostCall::Prompt {
                    instructions: params["instructions"].as_str().unwrap_or("").to_owned(),
                    input: params.get("input").cloned(),
                    reply,
                };
                let _ = tx.send(call);
                tokio::spawn(async move {
                    let answer = match rx.await {
                        Ok(Ok(v)) => json!({"jsonrpc": "2.0", "id": id, "result": v}),
                        Ok(Err(e)) => {
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": e}})
                        }
                        Err(_) => {
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": "run aborted"}})
                        }
                    };
                    let _ = write_line(&stdin, &answer).await;
                });
            } else {
                let (reply, rx) = oneshot::channel();
                let _ = tx.send(HostCall::Judge {
                    request: params["request"].clone(),
                    reply,
                });
                tokio::spawn(async move {
                    let value = rx.await.unwrap_or_else(
                        |_| json!({"ok": false, "reason": "aborted", "detail": "run aborted"}),
                    );
                    let _ = write_line(
                        &stdin,
                        &json!({"jsonrpc": "2.0", "id": id, "result": value}),
                    )
                    .await;
                });
            }
        }
        _ => {}
    }
}

//! The `Agent` port over the Pi coding agent: finding the binary, probing its version once so
//! the flags match the installed line, running it with the instructions on stdin (then closed),
//! reading its JSON event stream, and stopping it (SIGTERM, then SIGKILL for it and every process
//! it started, including tool commands in their own sessions) at the time limit or on cancel.

use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::Value;
use stanley_core::{BoxFuture, Cancel};
use stanley_workflows::agent::{
    Agent, AgentOutcome, AgentProgress, AgentResult, MAX_INSTRUCTIONS_BYTES, MAX_TEXT_BYTES,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// The argument that tells Pi its instructions are on stdin. Pi joins stdin (trimmed) and this
/// message with nothing between them, and does not trim the message, so it starts with its own
/// paragraph break (checked against the real Pi, `real_pi::the_preamble_reaches_…`).
pub const PREAMBLE: &str = "\n\nYour complete instructions were delivered on standard input. Follow them exactly and finish with the requested summary.";
/// Longest event line read; longer lines are skipped.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// How long Pi gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(5);
/// The longest run allowed whatever the caller asks.
const HARD_LIMIT: Duration = Duration::from_secs(60 * 60);
const STDERR_TAIL: usize = 4096;

/// Why no agent is available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// `STANLEY_AGENT=off` or `--no-agent`.
    Disabled,
    /// `STANLEY_NESTED` is set.
    Nested,
    /// No `pi` binary.
    NotInstalled,
}

use crate::tools::executable;

/// What a request says about the coding agent (parsed once from its environment by the
/// daemon's settings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentSettings {
    /// Delegation is turned off (`STANLEY_AGENT=off`).
    pub disabled: bool,
    /// The request comes from a process Stanley started (`STANLEY_NESTED`).
    pub nested: bool,
    /// An explicit binary (`STANLEY_PI_BIN`): it must be an executable file; no fallback.
    pub pi_bin: Option<PathBuf>,
    /// The `PATH` to look for `pi` on.
    pub path: Option<String>,
    /// The model passed as `--model` (`STANLEY_AGENT_MODEL`).
    pub model: Option<String>,
    /// The variable each run's token is set in, so a later daemon can find the run's processes
    /// (`STANLEY_AGENT_RUN`; see [`crate::agents`]). None: runs are not recorded.
    pub run_mark: Option<&'static str>,
}

/// Finds Pi: the explicit binary (which must be executable), else `pi` on the `PATH`.
pub fn find_pi(settings: &AgentSettings) -> Option<PathBuf> {
    if let Some(bin) = &settings.pi_bin {
        return executable(bin).then(|| bin.clone());
    }
    crate::tools::on_path("pi", settings.path.as_deref())
}

/// The repository's own coding-agent configuration (`.pi/`, `.agents/skills/`, the root's
/// context files; [`crate::trust::agent_files`]) as trust judged it just before a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProjectConfig {
    /// None in the worktree.
    Absent,
    /// Trusted by content: Pi loads it as it would.
    Trusted,
    /// Not trusted, or changed since: Pi runs without it. The files there, root-relative.
    Untrusted(Vec<String>),
}

/// How a launch learns [`ProjectConfig`]: asked right before every start of Pi (a flow
/// relaunches Pi after the agent itself wrote in the worktree).
pub type ProjectCheck = Arc<dyn Fn() -> ProjectConfig + Send + Sync>;

/// The check used when the daemon gives none: whatever is there counts as untrusted.
pub fn untrusted_unless_absent(root: &Path) -> ProjectCheck {
    let root = root.to_path_buf();
    Arc::new(move || {
        let files = crate::trust::agent_files(&root);
        if files.is_empty() {
            ProjectConfig::Absent
        } else {
            ProjectConfig::Untrusted(files.into_keys().collect())
        }
    })
}

pub use crate::trust::LEGACY_UNFLAGGED;

/// The published line of the installed Pi, which decides the flags it understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PiLine {
    /// 0.73 to 0.78: no project trust of its own; `--no-extensions`, `--no-skills`,
    /// `--no-prompt-templates`, `--no-themes` and `--no-context-files` turn discovery off.
    Legacy,
    /// 0.79 and 1.x: `--approve`/`--no-approve` decide whether project-local files load.
    Current,
}

/// How Pi is started this time: the flags that follow from trust, and what to tell the person.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Flags before the message.
    pub flags: Vec<String>,
    /// Lines for the person (what the agent runs without, and why).
    pub notes: Vec<String>,
}

/// The launch flags for `line` given the repository's agent configuration: untrusted
/// configuration is never loaded, and a line that cannot be told to ignore a file present is
/// not started at all (the reason is the error).
pub fn launch_flags(line: PiLine, project: &ProjectConfig) -> Result<Launch, String> {
    let mut launch = Launch::default();
    let flag = |launch: &mut Launch, f: &str| launch.flags.push(f.to_owned());
    match (line, project) {
        (PiLine::Current, ProjectConfig::Trusted) => flag(&mut launch, "--approve"),
        (PiLine::Current, ProjectConfig::Absent) => flag(&mut launch, "--no-approve"),
        (PiLine::Legacy, ProjectConfig::Trusted | ProjectConfig::Absent) => {}
        (_, ProjectConfig::Untrusted(files)) => {
            if line == PiLine::Legacy
                && let Some(file) = files
                    .iter()
                    .find(|f| LEGACY_UNFLAGGED.contains(&f.as_str()))
            {
                return Err(format!(
                    "the coding agent was not started: Pi 0.73 loads `{file}` by itself, with no flag to turn it off, and it is not trusted in this worktree; review it and run `stanleyctl trust`, or install Pi 1.x (`npm install -g @earendil-works/pi-coding-agent`)"
                ));
            }
            match line {
                PiLine::Current => flag(&mut launch, "--no-approve"),
                PiLine::Legacy => {
                    for f in [
                        "--no-extensions",
                        "--no-skills",
                        "--no-prompt-templates",
                        "--no-themes",
                    ] {
                        flag(&mut launch, f);
                    }
                }
            }
            let context = files
                .iter()
                .any(|f| crate::trust::CONTEXT_FILES.contains(&f.as_str()));
            if context {
                flag(&mut launch, "--no-context-files");
            }
            launch.notes.push(format!(
                "the coding agent runs without the repository's own configuration ({}): it is not trusted in this worktree; review it and run `stanleyctl trust`",
                summary(files)
            ));
        }
    }
    Ok(launch)
}

/// A short list of the files, folders first by their top.
fn summary(files: &[String]) -> String {
    let mut tops: Vec<String> = Vec::new();
    for f in files {
        let top = [".pi/", ".agents/skills/"]
            .into_iter()
            .find(|dir| f.starts_with(dir))
            .map_or_else(|| f.clone(), str::to_owned);
        if !tops.contains(&top) {
            tops.push(top);
        }
    }
    tops.join(", ")
}

/// The agent for a request, or why there is none. `env` is the environment Pi runs with, as the
/// daemon prepared it (no Jev key, `STANLEY_NESTED` and `PI_OFFLINE` set); `project` is asked
/// before every launch what the repository's own agent configuration is worth.
pub fn availability(
    settings: &AgentSettings,
    env: HashMap<String, String>,
    no_agent: bool,
    root: &Path,
    project: ProjectCheck,
) -> Result<PiAgent, Unavailable> {
    if settings.disabled || no_agent {
        return Err(Unavailable::Disabled);
    }
    if settings.nested {
        return Err(Unavailable::Nested);
    }
    let bin = find_pi(settings).ok_or(Unavailable::NotInstalled)?;
    Ok(PiAgent {
        bin,
        model: settings.model.clone(),
        env,
        root: root.to_path_buf(),
        grace: GRACE,
        session: None,
        idle_limit: None,
        mark: settings
            .run_mark
            .map(|var| (var, crate::agents::records_dir(root))),
        shared_above: shared_ancestor(root),
        project,
        hold: None,
    })
}

/// The installed Pi's line (`--approve`/`--no-approve` from 0.79 onwards), probed once per
/// binary.
fn pi_line(bin: &Path, env: &HashMap<String, String>) -> PiLine {
    static CACHE: OnceLock<Mutex<HashMap<BinaryId, bool>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    // The probe is redone when the binary at the path changes (an upgrade or a downgrade in
    // place), not only when the path does.
    let id = BinaryId::of(bin);
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return if *v { PiLine::Current } else { PiLine::Legacy };
    }
    // Pi prints its version on stdout or stderr depending on the line; read both.
    let out = std::process::Command::new(bin)
        .arg("--version")
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .output();
    let text = out
        .map(|o| {
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            )
        })
        .unwrap_or_default();
    let version: Vec<u64> = text
        .trim()
        .split(['.', '-', '\n'])
        .take(2)
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    let yes = matches!(version.as_slice(), [major, minor] if *major >= 1 || *minor >= 79);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, yes);
    if yes { PiLine::Current } else { PiLine::Legacy }
}

/// What identifies one installed binary: its path and the file behind it (through a link such
/// as `node_modules/.bin/pi`): size, modification time and inode.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BinaryId {
    path: PathBuf,
    file: Option<(u64, i64, i64, u64)>,
}

impl BinaryId {
    fn of(bin: &Path) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            path: bin.to_path_buf(),
            file: std::fs::metadata(bin)
                .ok()
                .map(|m| (m.size(), m.mtime(), m.mtime_nsec(), m.ino())),
        }
    }
}

/// The Pi coding agent, configured for one request.
#[derive(Clone)]
pub struct PiAgent {
    bin: PathBuf,
    model: Option<String>,
    env: HashMap<String, String>,
    root: PathBuf,
    grace: Duration,
    /// Keep Pi's session in this folder, continuing its latest session when the flag is set.
    session: Option<(PathBuf, bool)>,
    /// Stop a run whose event stream stays silent this long.
    idle_limit: Option<Duration>,
    /// The token variable and the records folder of [`crate::agents`].
    mark: Option<(&'static str, PathBuf)>,
    /// A folder above the repository that other users can add files to, when there is one:
    /// Pi then runs without its `AGENTS.md`/`CLAUDE.md` and skills discovery, which read every
    /// folder from the working folder up to `/` (`.agents/skills` on the 1.x line).
    shared_above: Option<PathBuf>,
    /// Asked before every launch what the repository's agent configuration is worth.
    project: ProjectCheck,
    /// Kept alive as long as the agent (the daemon's delegation capability).
    hold: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for PiAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PiAgent")
            .field("bin", &self.bin)
            .field("root", &self.root)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// The nearest folder above `root` (not `root` itself) in which another local user could make
/// a file: owned by someone other than this user and root, or writable by group or others
/// (sticky or not: a sticky folder still lets them add a name that is not there).
pub fn shared_ancestor(root: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::getuid().as_raw();
    root.ancestors().skip(1).find_map(|dir| {
        let meta = std::fs::symlink_metadata(dir).ok()?;
        let others = meta.mode() & 0o022 != 0 && !meta.file_type().is_symlink();
        ((meta.uid() != me && meta.uid() != 0) || others).then(|| dir.to_path_buf())
    })
}

/// What the event stream said.
#[derive(Debug, Default)]
pub struct StreamState {
    pub events: u64,
    pub tool_calls: u64,
    pub text: Option<String>,
    pub error: Option<String>,
}

impl StreamState {
    /// Reads one stdout line: garbage and non-objects are skipped.
    pub fn line(&mut self, line: &[u8]) {
        let Ok(Value::Object(event)) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        self.events += 1;
        match event.get("type").and_then(Value::as_str) {
            Some("tool_execution_start") => self.tool_calls += 1,
            Some("message_end")
                if event
                    .get("message")
                    .and_then(|m| m.get("role"))
                    .and_then(Value::as_str)
                    == Some("assistant") =>
            {
                let message = &event["message"];
                let text = match &message["content"] {
                    Value::String(s) => s.trim().to_owned(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter(|p| p["type"] == "text")
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n")
                        .trim()
                        .to_owned(),
                    _ => String::new(),
                };
                if !text.is_empty() {
                    let mut end = text.len().min(MAX_TEXT_BYTES);
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    self.text = Some(text[..end].to_owned());
                }
                self.error = match message["stopReason"].as_str() {
                    Some(reason @ ("error" | "aborted")) => {
                        Some(message["errorMessage"].as_str().map_or_else(
                            || format!("request {reason}"),
                            |m| m.chars().take(500).collect(),
                        ))
                    }
                    _ => None,
                };
            }
            _ => {}
        }
    }
}

/// The first non-blank, non-indented line of stderr that is not a warning, else the last line.
pub fn stderr_summary(tail: &str) -> Option<String> {
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .iter()
        .find(|l| !l.starts_with(char::is_whitespace) && !l.starts_with("Warning:"))
        .or(lines.last())
        .map(|l| l.trim().chars().take(500).collect())
}

/// Every descendant of `pid` (children first found through `/proc`), whatever session it runs in.
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // The command name may hold spaces and parentheses; fields resume after the last ')'.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
                continue;
            };
            if let Some(ppid) = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok())
            {
                parents.entry(ppid).or_default().push(child);
            }
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![pid];
    while let Some(p) = stack.pop() {
        for &c in parents.get(&p).into_iter().flatten() {
            out.push(c);
            stack.push(c);
        }
    }
    out
}

fn signal(pid: u32, sig: Signal) {
    // A stale pid at worst gets the signal delivered to no process.
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

impl PiAgent {
    /// The folder above the repository that other users can write, when Pi runs without its
    /// context-file discovery because of it.
    pub fn shared_above(&self) -> Option<&Path> {
        self.shared_above.as_deref()
    }

    /// Keeps `value` alive as long as this agent and its clones (the daemon's delegation
    /// capability, which expires with them).
    #[must_use]
    pub fn holding(mut self, value: Arc<dyn std::any::Any + Send + Sync>) -> Self {
        self.hold = Some(value);
        self
    }

    /// How Pi would be started now: the flags trust calls for and what to tell the person, or
    /// why it will not be started.
    pub fn launch(&self) -> Result<Launch, String> {
        let line = pi_line(&self.bin, &self.env);
        launch_flags(line, &(self.project)())
    }

    /// Overrides the SIGTERM-to-SIGKILL grace period (tests).
    #[must_use]
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Keeps the session in `dir` (a flow's runs), continuing the latest one there when
    /// `continue_latest` is set, instead of an in-memory session.
    #[must_use]
    pub fn in_session(mut self, dir: PathBuf, continue_latest: bool) -> Self {
        self.session = Some((dir, continue_latest));
        self
    }

    /// Stops a run (as a timeout) once its event stream is silent for `limit`.
    #[must_use]
    pub fn with_idle_limit(mut self, limit: Duration) -> Self {
        self.idle_limit = Some(limit);
        self
    }

    fn args(&self, launch: &Launch) -> Vec<String> {
        let mut args: Vec<String> = ["--mode", "json", "--print"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        match &self.session {
            None => args.push("--no-session".into()),
            Some((dir, continue_latest)) => {
                args.push("--session-dir".into());
                args.push(dir.display().to_string());
                if *continue_latest {
                    args.push("--continue".into());
                }
            }
        }
        args.extend(launch.flags.iter().cloned());
        if let Some(m) = &self.model {
            args.push("--model".into());
            args.push(m.clone());
        }
        if self.shared_above.is_some() {
            for flag in ["--no-context-files", "--no-skills"] {
                if !args.iter().any(|a| a == flag) {
                    args.push(flag.into());
                }
            }
        }
        args.push(PREAMBLE.into());
        args
    }

    /// The `pi` command: its arguments and environment (with the run's token), its own process
    /// group, and death with the daemon.
    fn command(
        &self,
        launch: &Launch,
        mark: Option<(&'static str, &crate::agents::RunMark)>,
    ) -> Command {
        // Through the daemon's launcher, so Pi dies with the daemon (crate::agent_exec).
        let (program, lead) = crate::agent_exec::wrap(&self.bin);
        let mut command = Command::new(program);
        command
            .args(lead)
            .args(self.args(launch))
            .current_dir(&self.root)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some((var, mark)) = mark {
            command.env(var, mark.token());
        }
        command
    }

    /// Waits for the run to end on its own, at the time limit, after `idle_limit` of silence,
    /// or on cancel; a run that did not end on its own is stopped with its whole tree.
    async fn wait_or_stop(
        &self,
        child: &mut tokio::process::Child,
        limit: Duration,
        heard: &Mutex<Instant>,
        cancel: &Cancel,
    ) -> (Option<std::process::ExitStatus>, Ended) {
        let pid = child.id().unwrap_or(0);
        let silence = async {
            let Some(idle) = self.idle_limit else {
                return std::future::pending::<()>().await;
            };
            loop {
                let quiet = heard.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
                if quiet >= idle {
                    return;
                }
                tokio::time::sleep(idle - quiet).await;
            }
        };
        let ended = tokio::select! {
            s = child.wait() => return (s.ok(), Ended::Exited),
            () = tokio::time::sleep(limit) => Ended::TimedOut,
            () = silence => Ended::Silent,
            () = cancel.cancelled() => Ended::Aborted,
        };
        // SIGTERM first, so Pi can stop its tool processes; then SIGKILL everything left,
        // including tool commands that run in sessions of their own.
        let family = descendants(pid);
        signal(pid, Signal::TERM);
        let waited = tokio::time::timeout(self.grace, child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        for p in family.iter().chain(descendants(pid).iter()) {
            signal(*p, Signal::KILL);
        }
        let status = match waited {
            Some(s) => Some(s),
            None => {
                signal(pid, Signal::KILL);
                child.wait().await.ok()
            }
        };
        (status, ended)
    }

    async fn execute(
        &self,
        instructions: &str,
        timeout: Duration,
        cancel: Cancel,
        progress: AgentProgress,
    ) -> AgentResult {
        let started = Instant::now();
        if instructions.len() > MAX_INSTRUCTIONS_BYTES {
            return failed(started, "agent instructions exceed the size limit".into());
        }
        // Trust is asked at every launch: the agent's own writes since the last one count.
        let launch = match self.launch() {
            Ok(l) => l,
            Err(why) => return failed(started, why),
        };
        for note in &launch.notes {
            tracing::info!(note = %note, "coding agent launch");
        }
        // Recorded while it runs, so a daemon that dies mid-run has its leftovers reaped by the
        // next one. A record that cannot be written (a full disk) does not stop the run.
        let run_mark = self.mark.as_ref().and_then(|(var, dir)| {
            crate::agents::RunMark::record(dir)
                .inspect_err(|e| tracing::warn!(error = %e, "cannot record the agent run"))
                .ok()
                .map(|m| (*var, m))
        });
        let mut child = match self
            .command(&launch, run_mark.as_ref().map(|(var, mark)| (*var, mark)))
            .spawn()
        {
            Ok(c) => c,
            Err(e) => return failed(started, format!("could not start the agent: {e}")),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // Pi reads stdin to EOF before it starts; a write error means it already exited.
            let _ = stdin.write_all(instructions.as_bytes()).await;
            drop(stdin);
        }
        let state = Arc::new(Mutex::new(StreamState::default()));
        let heard = Arc::new(Mutex::new(Instant::now()));
        let reader = tokio::spawn(read_events(
            child.stdout.take(),
            state.clone(),
            heard.clone(),
            progress,
        ));
        let stderr_task = tokio::spawn(stderr_tail(child.stderr.take()));
        let (status, ended) = self
            .wait_or_stop(&mut child, timeout.min(HARD_LIMIT), &heard, &cancel)
            .await;
        // Tool processes the agent left behind after a normal exit are not Stanley's to kill.
        let _ = tokio::time::timeout(Duration::from_secs(5), reader).await;
        let tail = tokio::time::timeout(Duration::from_secs(5), stderr_task)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let state = std::mem::take(&mut *state.lock().unwrap_or_else(|e| e.into_inner()));
        let exit_code = status.and_then(|s| s.code());
        let (outcome, detail) = judge_outcome(
            ended,
            &state,
            status,
            &tail,
            self.idle_limit.unwrap_or_default(),
        );
        AgentResult {
            outcome,
            exit_code,
            duration_ms: started.elapsed().as_millis() as u64,
            tool_calls: state.tool_calls,
            detail,
            model_error: state.error.is_some() && ended == Ended::Exited,
            text: state.text.unwrap_or_default(),
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ended {
    /// The agent exited by itself.
    Exited,
    TimedOut,
    /// Its event stream was silent for the idle limit.
    Silent,
    Aborted,
}

/// A run that failed before the agent ran.
fn failed(started: Instant, detail: String) -> AgentResult {
    AgentResult {
        outcome: AgentOutcome::Failed,
        text: String::new(),
        exit_code: None,
        duration_ms: started.elapsed().as_millis() as u64,
        tool_calls: 0,
        detail: Some(detail),
        model_error: false,
    }
}

/// Reads Pi's JSON events line by line into `state`, noting when each arrives; a line over the
/// cap is skipped, never held.
async fn read_events(
    stdout: Option<tokio::process::ChildStdout>,
    state: Arc<Mutex<StreamState>>,
    heard: Arc<Mutex<Instant>>,
    progress: AgentProgress,
) {
    let Some(stdout) = stdout else { return };
    let mut reader = BufReader::new(stdout);
    let mut buf = Vec::new();
    while let Some(line) = crate::lines::next_line(&mut reader, &mut buf, MAX_LINE_BYTES).await {
        *heard.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        if line == crate::lines::Line::Whole {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            let before = s.tool_calls;
            s.line(&buf);
            if s.tool_calls != before {
                progress(s.tool_calls);
            }
        }
    }
}

/// The last [`STDERR_TAIL`] bytes of Pi's stderr.
async fn stderr_tail(stderr: Option<tokio::process::ChildStderr>) -> String {
    let mut tail: Vec<u8> = Vec::new();
    let Some(mut stderr) = stderr else {
        return String::new();
    };
    let mut buf = [0u8; 8192];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > STDERR_TAIL {
            tail.drain(..tail.len() - STDERR_TAIL);
        }
    }
    String::from_utf8_lossy(&tail).into_owned()
}

/// The outcome and its one-line detail from how the run ended and what it said.
fn judge_outcome(
    ended: Ended,
    state: &StreamState,
    status: Option<std::process::ExitStatus>,
    stderr: &str,
    idle_limit: Duration,
) -> (AgentOutcome, Option<String>) {
    let exit_code = status.and_then(|s| s.code());
    match ended {
        Ended::Silent => {
            return (
                AgentOutcome::Timeout,
                Some(format!(
                    "the agent was silent for {} s and was stopped",
                    idle_limit.as_secs()
                )),
            );
        }
        Ended::TimedOut => {
            return (
                AgentOutcome::Timeout,
                Some("the agent was stopped at the time limit".to_owned()),
            );
        }
        Ended::Aborted => {
            return (
                AgentOutcome::Aborted,
                Some("the agent run was cancelled".to_owned()),
            );
        }
        Ended::Exited => {}
    }
    if let Some(error) = state.error.clone() {
        (AgentOutcome::Failed, Some(error))
    } else if exit_code == Some(0)
        && state.tool_calls == 0
        && state.text.as_deref().is_none_or(|t| t.trim().is_empty())
    {
        // A model that answered HTTP 200 with nothing in it: the agent did nothing.
        (
            AgentOutcome::Failed,
            Some("the agent finished with no text and no tool calls".to_owned()),
        )
    } else if exit_code == Some(0) {
        (AgentOutcome::Finished, None)
    } else {
        let how = match (exit_code, status.and_then(|s| s.signal())) {
            (Some(c), _) => c.to_string(),
            (None, Some(sig)) => format!("signal {sig}"),
            _ => "unknown status".to_owned(),
        };
        (
            AgentOutcome::Failed,
            Some(stderr_summary(stderr).unwrap_or_else(|| format!("the agent exited with {how}"))),
        )
    }
}

impl Agent for PiAgent {
    fn run<'a>(
        &'a self,
        instructions: &'a str,
        timeout: Duration,
        cancel: Cancel,
        progress: AgentProgress,
    ) -> BoxFuture<'a, AgentResult> {
        Box::pin(self.execute(instructions, timeout, cancel, progress))
    }
}

#[cfg(test)]
#[path = "pi_tests.rs"]
mod tests;

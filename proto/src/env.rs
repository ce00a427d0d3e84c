//! Every environment variable Stanley reads or sets, declared once with what it means (as uv's
//! `EnvVars` does). Request settings are read from the caller's environment, which travels with
//! each request (the daemon parses them once, in `stanleyd::settings`); daemon settings are read
//! by `stanleyd` from its own environment at start; client settings by the clients. Variables
//! Stanley sets for the processes it starts are marked so. A test checks that no other module
//! spells a variable's name.

/// Required Jev credential (request setting).
pub const TYPESAFE_API_KEY: &str = "TYPESAFE_API_KEY";
/// System One API root, default `https://api.typesafe.ai` (request setting).
pub const TYPESAFE_BASE_URL: &str = "TYPESAFE_BASE_URL";
/// Jev model name (request setting).
pub const TYPESAFE_MODEL: &str = "TYPESAFE_MODEL";
/// Jev model name as TypeSafe's SDKs spell it, used when `TYPESAFE_MODEL` is unset.
pub const TYPESAFE_DEFAULT_MODEL: &str = "TYPESAFE_DEFAULT_MODEL";
/// `off` disables delegation to the coding agent (request setting).
pub const STANLEY_AGENT: &str = "STANLEY_AGENT";
/// Set in processes Stanley starts: a nested Stanley never delegates (request setting).
pub const STANLEY_NESTED: &str = "STANLEY_NESTED";
/// Set for each coding-agent run to a random capability the daemon maps to the parent
/// request's Jev settings until the run ends, so a nested `stanley` inside the delegation
/// reaches Jev without the key ever being in the agent's environment (set for Pi).
pub const STANLEY_DELEGATION: &str = "STANLEY_DELEGATION";
/// Set for each Pi run to a token recorded under `.stanley/daemon/agents/` while it runs, so
/// the next daemon can kill what a dead daemon's agent left running (set for Pi).
pub const STANLEY_AGENT_RUN: &str = "STANLEY_AGENT_RUN";
/// Explicit path to the `pi` binary (request setting).
pub const STANLEY_PI_BIN: &str = "STANLEY_PI_BIN";
/// Pi model passed as `--model` (request setting).
pub const STANLEY_AGENT_MODEL: &str = "STANLEY_AGENT_MODEL";
/// Socket folder override (client and daemon).
pub const STANLEY_RUNTIME_DIR: &str = "STANLEY_RUNTIME_DIR";
/// Daemon log filter, `tracing` directive syntax, default `info` (daemon setting).
pub const STANLEY_LOG: &str = "STANLEY_LOG";
/// Idle time in milliseconds before the daemon exits, default 30 minutes (daemon setting; tests
/// shorten it).
pub const STANLEY_IDLE_TIMEOUT_MS: &str = "STANLEY_IDLE_TIMEOUT_MS";
/// Milliseconds a new connection may stay silent before the daemon closes it, default 30 s
/// (daemon setting; tests shorten it).
pub const STANLEY_SILENT_CONNECTION_MS: &str = "STANLEY_SILENT_CONNECTION_MS";
/// Milliseconds the local web page (`stanleyctl ui`) stays up with no request and no live
/// stream open, default 15 minutes (daemon setting; tests shorten it).
pub const STANLEY_UI_IDLE_MS: &str = "STANLEY_UI_IDLE_MS";
/// Milliseconds without a request after which the daemon lets go of its warm evidence (the last
/// branch diff) and gives the memory back, default 60 s (daemon setting; the bench shortens it).
pub const STANLEY_WARM_IDLE_MS: &str = "STANLEY_WARM_IDLE_MS";
/// Path of the `stanleyd` binary a client starts, default the one beside the client.
pub const STANLEY_DAEMON_BIN: &str = "STANLEY_DAEMON_BIN";

/// Folder of the Node.js workflow host (`host/host.mjs` and `node_modules/`), default beside
/// the binaries (daemon setting).
pub const STANLEY_WORKFLOW_HOST: &str = "STANLEY_WORKFLOW_HOST";

/// A Jev key as GitHub Copilot's MCP configuration names it: redacted and withheld like
/// `TYPESAFE_API_KEY` (request setting).
pub const COPILOT_MCP_TYPESAFE_API_KEY: &str = "COPILOT_MCP_TYPESAFE_API_KEY";
/// A Jev key as other TypeSafe tools name it: redacted and withheld like `TYPESAFE_API_KEY`.
pub const JEV_API_KEY: &str = "JEV_API_KEY";
/// Every variable holding a Jev key: their values are redacted everywhere, and every variable
/// named here or starting with `TYPESAFE_` is withheld from repository code.
pub const JEV_KEY_VARS: [&str; 3] = [TYPESAFE_API_KEY, COPILOT_MCP_TYPESAFE_API_KEY, JEV_API_KEY];
/// The prefix of TypeSafe's settings, all withheld from repository code.
pub const TYPESAFE_PREFIX: &str = "TYPESAFE_";

/// `off` keeps the improvement worker to the explicit command (request setting).
pub const STANLEY_AUTO_IMPROVE: &str = "STANLEY_AUTO_IMPROVE";
/// `off` keeps a request from the judgment cache: every question is sent and no answer is kept
/// (request setting).
pub const STANLEY_CACHE: &str = "STANLEY_CACHE";
/// `generic` has `triage_failures` read logs with its runner-agnostic path alone, no runner's
/// own parser: to see what a runner Stanley does not know gets, or to compare (request setting).
pub const STANLEY_TRIAGE_PARSERS: &str = "STANLEY_TRIAGE_PARSERS";
/// The most Jev requests in flight at once, 1 to 256, default 64: the ceiling of the window that
/// adapts to the server's limit (request setting).
pub const STANLEY_JEV_MAX_CONCURRENCY: &str = "STANLEY_JEV_MAX_CONCURRENCY";
/// An absolute path to a PEM file of root certificates trusted for System One besides the
/// system's, for a TLS-inspecting proxy or a private endpoint (request setting).
pub const STANLEY_JEV_CA_FILE: &str = "STANLEY_JEV_CA_FILE";
/// The most estimated input tokens one request may send to Jev, default and at most 1,200,000
/// (request setting): a smaller Jev budget, which the budget plan of a diff analysis keeps to.
pub const STANLEY_MAX_INPUT_TOKENS: &str = "STANLEY_MAX_INPUT_TOKENS";
/// How many runs `.stanley/runs/` keeps, default 200 (request setting; the daemon prunes after
/// each request).
pub const STANLEY_RUNS_KEEP: &str = "STANLEY_RUNS_KEEP";
/// How many days a run is kept, default 30 (request setting).
pub const STANLEY_RUNS_MAX_AGE_DAYS: &str = "STANLEY_RUNS_MAX_AGE_DAYS";
/// The team's shared judgment cache, as a URL: `redis://host:6379/0`, `s3://bucket/prefix?endpoint=…&region=…`
/// or `gha://` (request setting; issue 51, docs/team-cache.md).
pub const STANLEY_CACHE_REMOTE: &str = "STANLEY_CACHE_REMOTE";
/// The team's key every shared entry is signed with, at least 16 bytes (request setting; a
/// secret: withheld from repository code and redacted like a Jev key).
pub const STANLEY_CACHE_TEAM_KEY: &str = "STANLEY_CACHE_TEAM_KEY";
/// `read-only` reads the team cache and never writes it, for untrusted jobs (request setting).
pub const STANLEY_CACHE_REMOTE_MODE: &str = "STANLEY_CACHE_REMOTE_MODE";
/// How long one read of the team cache may take, in milliseconds, default 500 (request setting).
pub const STANLEY_CACHE_REMOTE_DEADLINE_MS: &str = "STANLEY_CACHE_REMOTE_DEADLINE_MS";
/// The team cache's settings: withheld from repository code and the agent, and carried into a
/// delegation from its parent request only.
pub const TEAM_CACHE_VARS: [&str; 4] = [
    STANLEY_CACHE_REMOTE,
    STANLEY_CACHE_TEAM_KEY,
    STANLEY_CACHE_REMOTE_MODE,
    STANLEY_CACHE_REMOTE_DEADLINE_MS,
];
/// The S3 backend's credentials, region and endpoint, by AWS's own names (request settings, read
/// for the team cache only).
pub const AWS_ACCESS_KEY_ID: &str = "AWS_ACCESS_KEY_ID";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_SECRET_ACCESS_KEY: &str = "AWS_SECRET_ACCESS_KEY";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_SESSION_TOKEN: &str = "AWS_SESSION_TOKEN";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_REGION: &str = "AWS_REGION";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_DEFAULT_REGION: &str = "AWS_DEFAULT_REGION";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_ENDPOINT_URL_S3: &str = "AWS_ENDPOINT_URL_S3";
/// See [`AWS_ACCESS_KEY_ID`].
pub const AWS_ENDPOINT_URL: &str = "AWS_ENDPOINT_URL";
/// The GitHub Actions cache service a job's runner offers, and its token (request settings,
/// set by the runner; read for the team cache only).
pub const ACTIONS_RESULTS_URL: &str = "ACTIONS_RESULTS_URL";
/// See [`ACTIONS_RESULTS_URL`].
pub const ACTIONS_CACHE_URL: &str = "ACTIONS_CACHE_URL";
/// See [`ACTIONS_RESULTS_URL`].
pub const ACTIONS_RUNTIME_TOKEN: &str = "ACTIONS_RUNTIME_TOKEN";
/// The judgment cache's bound in MiB of stored answers, default 32 (daemon setting).
pub const STANLEY_CACHE_MAX_MB: &str = "STANLEY_CACHE_MAX_MB";
/// Seconds in one flow "minute", default 60 (request setting; tests shorten flow budgets).
pub const STANLEY_FLOW_MINUTE_S: &str = "STANLEY_FLOW_MINUTE_S";
/// The flow event a notify command runs for (set for the notify command).
pub const STANLEY_FLOW_EVENT: &str = "STANLEY_FLOW_EVENT";
/// The one-line message of that event (set for the notify command).
pub const STANLEY_FLOW_MESSAGE: &str = "STANLEY_FLOW_MESSAGE";
/// `1` keeps Pi from reaching the network for its own updates (set for Pi unless the request
/// sets it).
pub const PI_OFFLINE: &str = "PI_OFFLINE";
/// Where `pi`, `node` and the tools are looked for (request setting, passed on).
pub const PATH: &str = "PATH";
/// The browser `stanleyctl ui` opens the page with, first of a `:`-separated list (client
/// setting).
pub const BROWSER: &str = "BROWSER";
/// An X display: `stanleyctl ui` opens the page with `xdg-open` when there is one (client
/// setting).
pub const DISPLAY: &str = "DISPLAY";
/// A Wayland display, as [`DISPLAY`] (client setting).
pub const WAYLAND_DISPLAY: &str = "WAYLAND_DISPLAY";
/// Any value but empty turns colour off in what the clients print (<https://no-color.org>;
/// client setting, stronger than [`CLICOLOR_FORCE`]).
pub const NO_COLOR: &str = "NO_COLOR";
/// Any value but empty or `0` turns colour on even when standard output is not a terminal
/// (client setting).
pub const CLICOLOR_FORCE: &str = "CLICOLOR_FORCE";
/// The terminal's type: `dumb` turns colour off (client setting).
pub const TERM: &str = "TERM";
/// The desktop session's private runtime folder; Stanley's sockets live in `stanley/` under it
/// (client and daemon setting).
pub const XDG_RUNTIME_DIR: &str = "XDG_RUNTIME_DIR";

/// Trusts this worktree's repository workflows and flow commands as they are, for CI where the
/// checkout is the job's own: `1`, `true`, `yes` or `on` (request setting).
pub const STANLEY_TRUST_WORKTREE: &str = "STANLEY_TRUST_WORKTREE";
/// Where per-user state lives; the daemon keeps its trust file at `stanley/trust.json` under it
/// (daemon setting).
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
/// The user's home; the trust file defaults to `~/.local/state/stanley/trust.json` (daemon
/// setting).
pub const HOME: &str = "HOME";

/// Where temporary files go. The processes Stanley starts for its own work (the workflow hosts,
/// the coding agent) get a private one (the daemon's folder inside the runtime folder), never a
/// shared `/tmp`.
pub const TMPDIR: &str = "TMPDIR";

/// Variables a client hands to a daemon it starts; nothing else of the client's environment
/// (keys in particular) is left in the daemon's own environment.
pub const DAEMON_ENV: &[&str] = &[
    PATH,
    HOME,
    XDG_STATE_HOME,
    "LANG",
    "LC_ALL",
    TMPDIR,
    XDG_RUNTIME_DIR,
    STANLEY_RUNTIME_DIR,
    STANLEY_LOG,
    STANLEY_IDLE_TIMEOUT_MS,
    STANLEY_SILENT_CONNECTION_MS,
    STANLEY_UI_IDLE_MS,
    STANLEY_WARM_IDLE_MS,
    STANLEY_WORKFLOW_HOST,
    STANLEY_CACHE_MAX_MB,
    // The GitHub Actions cache backend reads which service version the runner offers from the
    // process environment (not secrets).
    "ACTIONS_CACHE_SERVICE_V2",
    "GITHUB_SERVER_URL",
];

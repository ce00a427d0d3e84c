//! One parse of the settings a request carries in its environment ([`RequestSettings`]) and of
//! the daemon's own ([`DaemonSettings`]), by the names declared in `stanley_proto::env`; and the
//! environments of the processes a request starts (repository code, Pi, notify), built from
//! them. Nothing else in the daemon reads an environment variable (`settings_are_read_here_only`
//! checks the source).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use stanley_adapters::SecretRedactor;
use stanley_adapters::jev_http::JevSettings;
use stanley_adapters::pi::AgentSettings;
use stanley_adapters::team_cache::{Credentials, TeamCacheSettings, TeamCacheVars};
use stanley_proto::env as var;
use stanley_workflows::runs::{DEFAULT_KEEP, DEFAULT_MAX_AGE_DAYS, Retention};

/// Seconds in a flow "minute" when the request does not say.
const FLOW_MINUTE: Duration = Duration::from_secs(60);

/// What one request's environment says, read once.
#[derive(Clone, Debug)]
pub(crate) struct RequestSettings {
    /// The worktree the request is about: what the children's environment may not point into.
    pub(crate) root: PathBuf,
    /// The request's whole environment, for the processes it starts (never logged or stored).
    pub(crate) env: HashMap<String, String>,
    /// Jev: key, base URL and model.
    pub(crate) jev: JevSettings,
    /// The coding agent.
    pub(crate) agent: AgentSettings,
    /// `STANLEY_AUTO_IMPROVE` is not `off` (or `0`, `false`).
    pub(crate) auto_improve: bool,
    /// `STANLEY_WORKFLOW_HOST`.
    pub(crate) workflow_host: Option<PathBuf>,
    /// One flow "minute" (`STANLEY_FLOW_MINUTE_S`).
    pub(crate) flow_minute: Duration,
    /// `STANLEY_TRUST_WORKTREE` is on (`1`, `true`, `yes` or `on`).
    pub(crate) trust_worktree: bool,
    /// The judgment cache is used (`STANLEY_CACHE` is not `off`, `0` or `false`).
    pub(crate) cache: bool,
    /// `STANLEY_MAX_INPUT_TOKENS`: a lower input-token budget for this request, if set.
    pub(crate) max_input_tokens: Option<u64>,
    /// How many runs, and for how long, `.stanley/runs/` keeps (`STANLEY_RUNS_KEEP`,
    /// `STANLEY_RUNS_MAX_AGE_DAYS`).
    pub(crate) retention: Retention,
    /// Which parsers read a failure log (`STANLEY_TRIAGE_PARSERS=generic`: the generic path).
    pub(crate) triage_parsers: stanley_workflows::triage::logs::Parsers,
    /// The team's shared cache level (`STANLEY_CACHE_REMOTE` with `STANLEY_CACHE_TEAM_KEY`),
    /// when both are set and understood.
    pub(crate) team_cache: Option<TeamCacheSettings>,
    /// Why the team cache settings were not taken (also one of `problems`), for `doctor`.
    pub(crate) team_cache_problem: Option<stanley_adapters::team_cache::SettingError>,
    /// One line per setting that was set but not understood (the default is used instead).
    pub(crate) problems: Vec<String>,
}

/// A whole number of at least 1 from `name`, or the default with a line saying why.
fn count(
    env: &HashMap<String, String>,
    name: &str,
    what: &str,
    default: u64,
    problems: &mut Vec<String>,
) -> u64 {
    match value(env, name) {
        None => default,
        Some(v) => match v.parse::<u64>() {
            Ok(n) if n >= 1 => n,
            _ => {
                problems.push(format!(
                    "{name} must be a whole number of {what}, at least 1 (got {v:?}); using {default}"
                ));
                default
            }
        },
    }
}

/// A setting that names a program or a file: only an absolute path counts. A relative one
/// would be found from the daemon's working folder, the worktree, where whoever wrote the
/// commit chose what is there (a `pi`, a CA file that decides which Jev server is believed);
/// it is left unset with a warning.
fn absolute(
    env: &HashMap<String, String>,
    name: &str,
    problems: &mut Vec<String>,
) -> Option<std::path::PathBuf> {
    let v = value(env, name)?;
    let path = std::path::PathBuf::from(&v);
    if path.is_absolute() {
        return Some(path);
    }
    problems.push(format!(
        "{name} must be an absolute path (got {v:?}), since a relative one is found in the worktree; it is ignored"
    ));
    None
}

/// The team cache's variables (issue 51), and the store backends' own.
fn team_cache_vars(env: &HashMap<String, String>) -> TeamCacheVars {
    TeamCacheVars {
        remote: value(env, var::STANLEY_CACHE_REMOTE),
        key: value(env, var::STANLEY_CACHE_TEAM_KEY),
        mode: value(env, var::STANLEY_CACHE_REMOTE_MODE),
        deadline_ms: value(env, var::STANLEY_CACHE_REMOTE_DEADLINE_MS),
        credentials: Credentials {
            redis_password: None,
            aws_access_key_id: value(env, var::AWS_ACCESS_KEY_ID),
            aws_secret_access_key: value(env, var::AWS_SECRET_ACCESS_KEY),
            aws_session_token: value(env, var::AWS_SESSION_TOKEN),
            aws_region: value(env, var::AWS_REGION).or_else(|| value(env, var::AWS_DEFAULT_REGION)),
            aws_endpoint: value(env, var::AWS_ENDPOINT_URL_S3)
                .or_else(|| value(env, var::AWS_ENDPOINT_URL)),
            actions_url: value(env, var::ACTIONS_RESULTS_URL)
                .or_else(|| value(env, var::ACTIONS_CACHE_URL)),
            actions_token: value(env, var::ACTIONS_RUNTIME_TOKEN),
        },
    }
}

/// A value, trimmed; blank counts as unset.
fn value(env: &HashMap<String, String>, name: &str) -> Option<String> {
    env.get(name)
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn is_on(env: &HashMap<String, String>, name: &str) -> bool {
    value(env, name)
        .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

fn is_off(env: &HashMap<String, String>, name: &str) -> bool {
    value(env, name).is_some_and(|v| v.eq_ignore_ascii_case("off"))
}

/// Whether repository code may see a variable: no `TYPESAFE_*` setting, no Jev key, and none of
/// the team cache's settings (its key, and a URL that may hold the store's password). A
/// delegation's capability carries them from the parent request, so code inside a delegation
/// can neither switch a read-only job to writing nor point the team's key at a store of its
/// choosing.
fn withheld(name: &str) -> bool {
    name.starts_with(var::TYPESAFE_PREFIX)
        || var::JEV_KEY_VARS.contains(&name)
        || var::TEAM_CACHE_VARS.contains(&name)
}

/// Whether a variable decides how, where and with what key Jev is reached: the withheld ones
/// and the CA file. A delegation's capability carries exactly these from the parent request.
pub(crate) fn jev_setting(name: &str) -> bool {
    withheld(name) || name == var::STANLEY_JEV_CA_FILE
}

/// Jev key values short enough to turn up by chance are not looked for inside other values.
const MIN_KEY_CHARS: usize = 8;

impl RequestSettings {
    /// Reads a request's environment, for the worktree at `root` (use
    /// `DaemonState::settings`, which also maps a delegation's capability).
    pub(crate) fn parse(env: &HashMap<String, String>, root: &std::path::Path) -> Self {
        let mut problems = Vec::new();
        let team_cache = TeamCacheSettings::from_vars(team_cache_vars(env));
        if let Err(e) = &team_cache {
            problems.push(e.to_string());
        }
        let retention = Retention {
            keep: usize::try_from(count(
                env,
                var::STANLEY_RUNS_KEEP,
                "runs",
                DEFAULT_KEEP as u64,
                &mut problems,
            ))
            .unwrap_or(DEFAULT_KEEP),
            max_age_days: count(
                env,
                var::STANLEY_RUNS_MAX_AGE_DAYS,
                "days",
                DEFAULT_MAX_AGE_DAYS,
                &mut problems,
            ),
        };
        let max_concurrency = value(env, var::STANLEY_JEV_MAX_CONCURRENCY).map(|_| {
            count(
                env,
                var::STANLEY_JEV_MAX_CONCURRENCY,
                "requests",
                stanley_adapters::jev_http::DEFAULT_CEILING as u64,
                &mut problems,
            )
            .min(stanley_adapters::jev_http::MAX_CONCURRENCY as u64) as usize
        });
        Self {
            root: root.to_path_buf(),
            env: env.clone(),
            jev: JevSettings {
                api_key: value(env, var::TYPESAFE_API_KEY),
                base_url: value(env, var::TYPESAFE_BASE_URL),
                model: value(env, var::TYPESAFE_MODEL)
                    .or_else(|| value(env, var::TYPESAFE_DEFAULT_MODEL)),
                max_concurrency,
                ca_file: absolute(env, var::STANLEY_JEV_CA_FILE, &mut problems),
            },
            agent: AgentSettings {
                disabled: is_off(env, var::STANLEY_AGENT),
                nested: value(env, var::STANLEY_NESTED).is_some(),
                pi_bin: absolute(env, var::STANLEY_PI_BIN, &mut problems),
                path: env.get(var::PATH).cloned(),
                model: value(env, var::STANLEY_AGENT_MODEL),
                run_mark: Some(var::STANLEY_AGENT_RUN),
            },
            auto_improve: !value(env, var::STANLEY_AUTO_IMPROVE)
                .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false")),
            workflow_host: absolute(env, var::STANLEY_WORKFLOW_HOST, &mut problems),
            flow_minute: value(env, var::STANLEY_FLOW_MINUTE_S)
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(FLOW_MINUTE, Duration::from_secs_f64),
            trust_worktree: is_on(env, var::STANLEY_TRUST_WORKTREE),
            cache: !value(env, var::STANLEY_CACHE)
                .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false")),
            max_input_tokens: value(env, var::STANLEY_MAX_INPUT_TOKENS).map(|_| {
                count(
                    env,
                    var::STANLEY_MAX_INPUT_TOKENS,
                    "tokens",
                    stanley_core::BudgetLimits::TREE.input_tokens,
                    &mut problems,
                )
            }),
            retention,
            triage_parsers: match value(env, var::STANLEY_TRIAGE_PARSERS).as_deref() {
                None | Some("all") => stanley_workflows::triage::logs::Parsers::All,
                Some("generic") => stanley_workflows::triage::logs::Parsers::GenericOnly,
                Some(other) => {
                    problems.push(format!(
                        "STANLEY_TRIAGE_PARSERS must be `generic` or `all` (got {other:?}); using all"
                    ));
                    stanley_workflows::triage::logs::Parsers::All
                }
            },
            team_cache: team_cache.as_ref().ok().cloned().flatten(),
            team_cache_problem: team_cache.err(),

            problems,
        }
    }

    /// A redactor for the values of the Jev key variables and the team cache's key.
    pub(crate) fn redactor(&self) -> SecretRedactor {
        SecretRedactor::new(
            var::JEV_KEY_VARS
                .iter()
                .chain([&var::STANLEY_CACHE_TEAM_KEY])
                .filter_map(|name| self.env.get(*name).cloned()),
        )
    }

    /// The Jev settings of this request (every variable [`jev_setting`] names), for a
    /// delegation's capability.
    pub(crate) fn jev_env(&self) -> HashMap<String, String> {
        self.env
            .iter()
            .filter(|(k, _)| jev_setting(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The request's environment less every `TYPESAFE_*` setting, every Jev key and the team
    /// cache's key, and every other variable whose value holds one of them (`MY_KEY=$TYPESAFE_API_KEY`), with nothing
    /// that would make a program load a file of the worktree by itself
    /// (`stanley_adapters::launch::child_env`), marked nested so a Stanley it starts never
    /// delegates. The base of every child's environment.
    fn child_env(&self) -> HashMap<String, String> {
        let keys: Vec<&str> = var::JEV_KEY_VARS
            .iter()
            .chain([&var::STANLEY_CACHE_TEAM_KEY])
            .filter_map(|name| self.env.get(*name))
            .map(|v| v.trim())
            .filter(|v| v.chars().count() >= MIN_KEY_CHARS)
            .collect();
        let env: HashMap<String, String> = self
            .env
            .iter()
            .filter(|(k, v)| !jev_setting(k) && !keys.iter().any(|key| v.contains(key)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut env = stanley_adapters::launch::child_env(&env, &self.root);
        env.insert(var::STANLEY_NESTED.into(), "1".into());
        env
    }

    /// The environment repository code runs with (the workflow host, the validation host,
    /// flow checks): [`Self::child_env`].
    pub(crate) fn repository_env(&self) -> HashMap<String, String> {
        self.child_env()
    }

    /// The notify command's environment: repository code's, with the event and its message.
    pub(crate) fn notify_env(&self, event: &str, message: &str) -> HashMap<String, String> {
        let mut env = self.repository_env();
        env.insert(var::STANLEY_FLOW_EVENT.into(), event.into());
        env.insert(var::STANLEY_FLOW_MESSAGE.into(), message.into());
        env
    }

    /// Pi's environment: the request's own (the agent runs with the user's environment, D-11)
    /// as every child gets it ([`Self::child_env`]: no Jev key), offline unless the request
    /// says otherwise, with `tmp` (a folder only this user can write) as `TMPDIR` when there is
    /// one, and the delegation's capability, through which a nested `stanley` reaches Jev with
    /// the parent's settings (see the delegation module).
    pub(crate) fn agent_env(
        &self,
        tmp: Option<&std::path::Path>,
        capability: Option<&str>,
    ) -> HashMap<String, String> {
        let mut env = self.child_env();
        if let Some(token) = capability.filter(|t| !t.is_empty()) {
            env.insert(var::STANLEY_DELEGATION.into(), token.into());
        }
        if let Some(tmp) = tmp {
            env.insert(var::TMPDIR.into(), tmp.display().to_string());
        }
        env.insert(var::STANLEY_NESTED.into(), "1".into());
        env.entry(var::PI_OFFLINE.into())
            .or_insert_with(|| "1".into());
        env
    }

    /// The `node` binary on the request's `PATH`.
    pub(crate) fn node(&self) -> Option<PathBuf> {
        stanley_adapters::workflow_host::find_node(self.agent.path.as_deref())
    }
}

/// What the daemon's own environment says, read once at start.
#[derive(Clone, Debug, Default)]
pub struct DaemonSettings {
    /// `STANLEY_LOG`.
    pub log: Option<String>,
    /// `STANLEY_IDLE_TIMEOUT_MS`.
    pub idle_timeout: Option<Duration>,
    /// `STANLEY_SILENT_CONNECTION_MS`.
    pub silent_connection: Option<Duration>,
    /// The per-user trust file, from `XDG_STATE_HOME` or `HOME`.
    pub trust_file: Option<PathBuf>,
    /// `STANLEY_WORKFLOW_HOST`, used when a request does not set it.
    pub workflow_host: Option<PathBuf>,
    /// `STANLEY_CACHE_MAX_MB`, in bytes.
    pub cache_max_bytes: Option<u64>,
    /// `STANLEY_UI_IDLE_MS`.
    pub ui_idle: Option<Duration>,
    /// `STANLEY_WARM_IDLE_MS`.
    pub warm_idle: Option<Duration>,
}

impl DaemonSettings {
    /// Reads them through `lookup` (the process environment in `main`).
    pub fn read(lookup: impl Fn(&str) -> Option<std::ffi::OsString>) -> Self {
        let text = |name: &str| {
            lookup(name)
                .and_then(|v| v.into_string().ok())
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        Self {
            log: text(var::STANLEY_LOG),
            idle_timeout: text(var::STANLEY_IDLE_TIMEOUT_MS)
                .and_then(|v| v.parse::<u64>().ok())
                .map(Duration::from_millis),
            silent_connection: text(var::STANLEY_SILENT_CONNECTION_MS)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
            trust_file: stanley_adapters::trust::TrustStore::default_path(
                lookup(var::XDG_STATE_HOME).as_deref().map(OsStr::new),
                lookup(var::HOME).as_deref().map(OsStr::new),
            ),
            workflow_host: text(var::STANLEY_WORKFLOW_HOST).map(PathBuf::from),
            cache_max_bytes: text(var::STANLEY_CACHE_MAX_MB)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|mb| *mb > 0)
                .map(|mb| mb.saturating_mul(1024 * 1024)),
            ui_idle: text(var::STANLEY_UI_IDLE_MS)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
            warm_idle: text(var::STANLEY_WARM_IDLE_MS)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    impl RequestSettings {
        fn parse_in_tests(env: &HashMap<String, String>) -> Self {
            Self::parse(env, std::path::Path::new("/home/u/repo"))
        }
    }

    #[test]
    fn a_request_is_read_once_and_blank_means_unset() {
        let s = RequestSettings::parse_in_tests(&env(&[
            ("TYPESAFE_API_KEY", "  k  "),
            ("TYPESAFE_MODEL", " "),
            ("TYPESAFE_DEFAULT_MODEL", "jev-2"),
            ("STANLEY_AGENT", " Off "),
            ("STANLEY_PI_BIN", "/bin/pi"),
            ("STANLEY_AUTO_IMPROVE", "OFF"),
            ("STANLEY_FLOW_MINUTE_S", "0.05"),
            ("STANLEY_TRUST_WORKTREE", "yes"),
        ]));
        assert_eq!(s.jev.api_key.as_deref(), Some("k"));
        assert_eq!(
            s.jev.model.as_deref(),
            Some("jev-2"),
            "the SDK's name is the fallback"
        );
        assert!(s.agent.disabled && !s.agent.nested);
        assert_eq!(s.agent.pi_bin, Some(PathBuf::from("/bin/pi")));
        assert!(!s.auto_improve && s.trust_worktree && s.cache);
        assert_eq!(s.retention, Retention::default());
        let r = RequestSettings::parse_in_tests(&env(&[
            ("STANLEY_RUNS_KEEP", "5"),
            ("STANLEY_RUNS_MAX_AGE_DAYS", "soon"),
        ]));
        assert_eq!(r.retention.keep, 5);
        assert_eq!(r.retention.max_age_days, DEFAULT_MAX_AGE_DAYS);
        assert_eq!(
            r.problems,
            [
                "STANLEY_RUNS_MAX_AGE_DAYS must be a whole number of days, at least 1 (got \"soon\"); using 30"
            ]
        );
        assert_eq!(s.flow_minute, Duration::from_millis(50));
        let d = RequestSettings::parse_in_tests(&env(&[
            ("TYPESAFE_MODEL", "jev-3"),
            ("TYPESAFE_DEFAULT_MODEL", "jev-2"),
        ]));
        assert_eq!(d.jev.model.as_deref(), Some("jev-3"));
        assert!(d.auto_improve && !d.trust_worktree && !d.agent.disabled);
        assert_eq!(d.flow_minute, FLOW_MINUTE);
    }

    /// Issue 45: a relative program or file setting would be found in the worktree.
    #[test]
    fn paths_that_name_programs_or_files_must_be_absolute() {
        let s = RequestSettings::parse_in_tests(&env(&[
            ("STANLEY_PI_BIN", "node_modules/.bin/pi"),
            ("STANLEY_WORKFLOW_HOST", "./host.js"),
            ("STANLEY_JEV_CA_FILE", "certs/ca.pem"),
        ]));
        assert_eq!(s.agent.pi_bin, None);
        assert_eq!(s.workflow_host, None);
        assert_eq!(s.jev.ca_file, None);
        assert_eq!(s.problems.len(), 3, "{:?}", s.problems);
        assert!(
            s.problems[0]
                .starts_with("STANLEY_JEV_CA_FILE must be an absolute path (got \"certs/ca.pem\")"),
            "{:?}",
            s.problems
        );
        let a = RequestSettings::parse_in_tests(&env(&[("STANLEY_JEV_CA_FILE", "/etc/ca.pem")]));
        assert_eq!(a.jev.ca_file, Some(PathBuf::from("/etc/ca.pem")));
        assert!(a.problems.is_empty());
    }

    #[test]
    fn children_get_the_environment_their_trust_allows() {
        let s = RequestSettings::parse_in_tests(&env(&[
            ("TYPESAFE_API_KEY", "sk-typesafe-0123456789"),
            ("COPILOT_MCP_TYPESAFE_API_KEY", "sk-copilot-0123456789"),
            ("JEV_API_KEY", "sk-jev-0123456789"),
            ("TYPESAFE_BASE_URL", "https://x"),
            ("GITHUB_TOKEN", "ghp"),
            ("PATH", "/bin"),
        ]));
        let mut repo: Vec<String> = s.repository_env().into_keys().collect();
        repo.sort();
        // Other credentials are the user's own business (D-11): a check may need GITHUB_TOKEN.
        assert_eq!(repo, ["GITHUB_TOKEN", "PATH", "STANLEY_NESTED"]);
        let notify = s.notify_env("budget", "limit reached");
        assert_eq!(notify["STANLEY_FLOW_EVENT"], "budget");
        assert!(!notify.contains_key("JEV_API_KEY"));
        let agent = s.agent_env(Some(std::path::Path::new("/run/x.d/tmp")), Some("cap"));
        assert_eq!(
            (
                agent["STANLEY_NESTED"].as_str(),
                agent["PI_OFFLINE"].as_str(),
                agent["TMPDIR"].as_str(),
                agent["STANLEY_DELEGATION"].as_str(),
            ),
            ("1", "1", "/run/x.d/tmp", "cap")
        );
        // The agent and what it starts get no Jev setting and no key (D-151).
        let mut names: Vec<&str> = agent.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "GITHUB_TOKEN",
                "PATH",
                "PI_OFFLINE",
                "STANLEY_DELEGATION",
                "STANLEY_NESTED",
                "TMPDIR"
            ]
        );
        // A key copied under another name, or inside another value, is withheld too.
        let copied = RequestSettings::parse_in_tests(&env(&[
            ("TYPESAFE_API_KEY", "sk-typesafe-0123456789"),
            ("MY_KEY", "sk-typesafe-0123456789"),
            ("AUTH", "Bearer sk-typesafe-0123456789"),
            ("SHORT", "x"),
            ("STANLEY_JEV_CA_FILE", "/etc/ca.pem"),
        ]));
        let agent = copied.agent_env(None, None);
        assert!(
            !["MY_KEY", "AUTH", "STANLEY_JEV_CA_FILE", "TYPESAFE_API_KEY"]
                .iter()
                .any(|k| agent.contains_key(*k)),
            "{agent:?}"
        );
        assert_eq!(agent["SHORT"], "x");
        assert_eq!(copied.jev_env().len(), 2);
        use stanley_workflows::ports::Redactor;
        let (text, n) = s
            .redactor()
            .text("sk-typesafe-0123456789 sk-copilot-0123456789 sk-jev-0123456789");
        assert_eq!(n, 3, "{text}");
    }

    #[test]
    fn the_team_cache_is_read_by_the_names_the_protocol_declares_and_its_key_never_leaves() {
        let key = "the team's CI secret, 32 bytes+";
        let s = RequestSettings::parse_in_tests(&env(&[
            (var::STANLEY_CACHE_REMOTE, "redis://127.0.0.1:6379/1"),
            (var::STANLEY_CACHE_TEAM_KEY, key),
            (var::STANLEY_CACHE_REMOTE_MODE, "read-only"),
            (var::STANLEY_CACHE_REMOTE_DEADLINE_MS, "250"),
            ("COPY", key),
        ]));
        let team = s.team_cache.as_ref().expect("the team cache is set up");
        assert_eq!(
            (team.mode, team.deadline),
            (
                stanley_adapters::team_cache::Mode::ReadOnly,
                Duration::from_millis(250)
            )
        );
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        // Repository code and the agent never see the key, under its name or another.
        let agent = s.agent_env(None, None);
        assert!(
            !agent.contains_key(var::STANLEY_CACHE_TEAM_KEY) && !agent.contains_key("COPY"),
            "{agent:?}"
        );
        use stanley_workflows::ports::Redactor;
        let (text, n) = s.redactor().text(&format!("the key is {key}"));
        assert_eq!(n, 1, "{text}");
        // Half a setting is a warning, and the level stays off.
        let half =
            RequestSettings::parse_in_tests(&env(&[(var::STANLEY_CACHE_REMOTE, "redis://h")]));
        assert!(half.team_cache.is_none());
        assert_eq!(half.problems.len(), 1, "{:?}", half.problems);
    }

    #[test]
    fn the_daemon_reads_its_own_settings_once() {
        let d = DaemonSettings::read(|name| match name {
            "STANLEY_LOG" => Some("debug".into()),
            "STANLEY_IDLE_TIMEOUT_MS" => Some("1500".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        });
        assert_eq!(d.log.as_deref(), Some("debug"));
        assert_eq!(d.idle_timeout, Some(Duration::from_millis(1500)));
        assert_eq!(
            d.trust_file,
            Some(PathBuf::from("/home/u/.local/state/stanley/trust.json"))
        );
        assert_eq!(d.workflow_host, None);
    }

    /// Every variable is spelled in `stanley_proto::env` and read here: no other daemon or
    /// adapter source reads the process environment or looks a setting up by its name
    /// (`env.get("STANLEY_…")`, `.env("TYPESAFE_…", …)`, `std::env::var`). Messages may name a
    /// variable; code may not read one.
    #[test]
    fn settings_are_read_here_only() {
        fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let crates = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        let mut files = Vec::new();
        for dir in ["daemon/src", "adapters/src", "workflows/src", "core/src"] {
            sources(&crates.join(dir), &mut files);
        }
        let named = [
            "STANLEY_",
            "TYPESAFE_",
            "JEV_API_KEY",
            "COPILOT_MCP",
            "PATH\"",
            "HOME\"",
            "PI_OFFLINE",
        ];
        let uses = [
            "get(\"",
            "insert(\"",
            "entry(\"",
            "env(\"",
            "var(\"",
            "var_os(\"",
            "remove(\"",
        ];
        let mut offenders = Vec::new();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name == "settings.rs" || name == "main.rs" || name.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests at the end of a file may spell names to build inputs.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (i, line) in code.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                let reads = line.contains("std::env::var")
                    || uses
                        .iter()
                        .any(|u| named.iter().any(|n| line.contains(&format!("{u}{n}"))));
                if reads {
                    offenders.push(format!("{}:{}: {line}", path.display(), i + 1));
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "settings read outside settings.rs:\n{}",
            offenders.join("\n")
        );
    }
}

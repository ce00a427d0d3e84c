//! `stanleyctl doctor` on the daemon's side: each part of the setup a request would use, checked
//! with the request's own environment, as `ok`, `warn` or `fail` with what to do. The key is
//! checked by one small real request to Jev; it is never shown.

use std::time::{Duration, Instant};

use serde_json::json;
use stanley_adapters::tools::{on_path, package_of, satisfies, version_of};
use stanley_adapters::workflow_host::locate;
use stanley_core::{JevRequest, JevTrouble, Question, Questions};
use stanley_proto::v1::{Check, CheckState};
use stanley_workflows::ports::Redactor;

use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// How long the Jev probe may take.
const JEV_PROBE_TIMEOUT: Duration = Duration::from_secs(15);

fn check(
    name: &str,
    state: CheckState,
    detail: impl Into<String>,
    fix: impl Into<String>,
) -> Check {
    Check::new(name, state, detail, fix)
}

/// Every check, in the order a person would fix them.
pub(crate) async fn diagnose(state: &DaemonState, settings: &RequestSettings) -> Vec<Check> {
    let mut checks = jev_checks(state, settings).await;
    let node = node_check(state, settings).await;
    let node_version = node.1.clone();
    checks.push(node.0);
    checks.push(pi_check(settings, node_version.as_deref()));
    checks.push(git_check(settings).await);
    checks.push(repository_check(state));
    checks.extend(team_cache_check(state, settings).await);
    checks
}

/// The team cache, when the request names one: reached, a signed probe entry written, read
/// back and verified (read-only: reached and read).
async fn team_cache_check(state: &DaemonState, settings: &RequestSettings) -> Option<Check> {
    let Some(team) = &settings.team_cache else {
        let problem = settings.team_cache_problem.as_ref()?;
        return Some(check(
            "team cache",
            CheckState::Fail,
            problem.to_string(),
            "set STANLEY_CACHE_REMOTE and STANLEY_CACHE_TEAM_KEY as docs/team-cache.md shows",
        ));
    };
    if state.caches().team().for_request(Some(team)).is_none() {
        let why = state
            .caches()
            .team()
            .take_warning()
            .unwrap_or_else(|| format!("the team cache at {} cannot be set up", team.shown));
        return Some(check(
            "team cache",
            CheckState::Fail,
            why,
            "check STANLEY_CACHE_REMOTE",
        ));
    }
    let level = state.caches().team().current()?;
    Some(match level.probe().await {
        Ok(what) => check(
            "team cache",
            CheckState::Ok,
            format!("{} ({}): {what}", team.shown, team.mode.as_str()),
            "",
        ),
        Err(why) => check(
            "team cache",
            CheckState::Fail,
            format!("{}: {why}", team.shown),
            "check that the store is up and the credentials (docs/team-cache.md)",
        ),
    })
}

async fn jev_checks(state: &DaemonState, settings: &RequestSettings) -> Vec<Check> {
    let mut checks = Vec::new();
    let Some(key) = &settings.jev.api_key else {
        checks.push(check(
            "key",
            CheckState::Fail,
            "TYPESAFE_API_KEY is not set",
            "export TYPESAFE_API_KEY=<your TypeSafe key>",
        ));
        return checks;
    };
    checks.push(check(
        "key",
        CheckState::Ok,
        format!(
            "TYPESAFE_API_KEY is set ({} characters)",
            key.chars().count()
        ),
        "",
    ));
    let link = match state.jev().link(&settings.jev) {
        Ok(l) => l,
        Err(e) => {
            checks.push(check(
                "model",
                CheckState::Fail,
                e.to_string(),
                "fix the variable it names",
            ));
            return checks;
        }
    };
    checks.push(check(
        "model",
        CheckState::Ok,
        format!("Jev model {}", link.model),
        "",
    ));
    let base = link.base_url.clone();
    let jev = link.jev;
    let request = JevRequest {
        model: link.model,
        state: json!({"check": "stanleyctl doctor: is the key accepted?"}),
        questions: Questions::new()
            .with("ok", Question::noul("Answer yes.", "yes", "no"))
            .to_json(),
    };
    let started = Instant::now();
    let answer =
        tokio::time::timeout(JEV_PROBE_TIMEOUT, jev.ask(&request, JEV_PROBE_TIMEOUT)).await;
    let ms = started.elapsed().as_millis();
    checks.push(match answer {
        Ok(Ok(_)) => check(
            "jev",
            CheckState::Ok,
            format!("{base} answered in {ms} ms; the key was accepted"),
            "",
        ),
        Ok(Err(error)) => {
            let detail = settings.redactor().text(&error.message).0;
            match JevTrouble::from_error(&error, 1, started.elapsed(), &detail) {
                Some(JevTrouble::Auth { status }) => check(
                    "jev",
                    CheckState::Fail,
                    format!(
                        "{base} refused the key in TYPESAFE_API_KEY{}",
                        status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
                    ),
                    "check that TYPESAFE_API_KEY holds your current key, whole",
                ),
                Some(JevTrouble::Unreachable {
                    detail,
                    certificate,
                }) => {
                    let (problem, advice) =
                        crate::error::unreachable(&base, &detail, certificate.as_deref());
                    check("jev", CheckState::Fail, problem, advice)
                }
                Some(trouble @ (JevTrouble::Unavailable { .. } | JevTrouble::Invalid { .. })) => {
                    check(
                        "jev",
                        CheckState::Warn,
                        format!("{trouble} at {base}"),
                        "try again later",
                    )
                }
                None => check("jev", CheckState::Warn, format!("{base}: {detail}"), ""),
            }
        }
        Err(_) => check(
            "jev",
            CheckState::Warn,
            format!(
                "{base} did not answer within {} s",
                JEV_PROBE_TIMEOUT.as_secs()
            ),
            "try again later",
        ),
    });
    checks
}

/// The `node` check and the version it found.
async fn node_check(state: &DaemonState, settings: &RequestSettings) -> (Check, Option<String>) {
    let path = settings.agent.path.as_deref();
    let Some(node) = on_path("node", path) else {
        return (
            check(
                "node",
                CheckState::Warn,
                "Node.js (`node`) is not on PATH: repository workflows are off",
                "install Node.js 20 or newer (22.19 or newer for the current Pi)",
            ),
            None,
        );
    };
    let version = match version_of(&node, path).await {
        Ok(v) => v,
        Err(e) => {
            return (
                check("node", CheckState::Fail, e.to_string(), "reinstall Node.js"),
                None,
            );
        }
    };
    let dir = settings
        .workflow_host
        .clone()
        .or_else(|| state.config().workflow_host.clone());
    let host = locate(
        dir.as_deref().and_then(|d| d.to_str()),
        &std::env::current_exe().unwrap_or_default(),
    );
    let c = match host {
        Ok(files) => {
            let tsx = files
                .loader
                .ancestors()
                .nth(2)
                .and_then(|d| {
                    stanley_adapters::records::read_bounded(&d.join("package.json"), 1024 * 1024)
                        .ok()
                })
                .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
                .and_then(|j| j["version"].as_str().map(str::to_owned))
                .unwrap_or_else(|| "?".into());
            check(
                "node",
                CheckState::Ok,
                format!(
                    "Node.js {version} at {}; workflow host at {}, tsx {tsx}",
                    node.display(),
                    files
                        .script
                        .parent()
                        .and_then(|p| p.parent())
                        .and_then(|p| std::fs::canonicalize(p).ok())
                        .unwrap_or_else(|| files.script.clone())
                        .display()
                ),
                "",
            )
        }
        Err(e) => check(
            "node",
            CheckState::Warn,
            format!("Node.js {version}, but {e}"),
            "run scripts/install",
        ),
    };
    (c, Some(version))
}

fn pi_check(settings: &RequestSettings, node: Option<&str>) -> Check {
    let Some(bin) = stanley_adapters::pi::find_pi(&settings.agent) else {
        return check(
            "pi",
            CheckState::Warn,
            "the Pi coding agent is not installed: requests no built-in handles are not delegated",
            "npm install -g @earendil-works/pi-coding-agent (Node.js 22.19+), or @mariozechner/pi-coding-agent@0.73 on Node.js 20",
        );
    };
    let Some(package) = package_of(&bin) else {
        return check(
            "pi",
            CheckState::Ok,
            format!("Pi at {} (its package could not be read)", bin.display()),
            "",
        );
    };
    let line = if package.version.starts_with("0.") {
        "0.x line"
    } else {
        "current line"
    };
    let detail = format!(
        "{} {} ({line}) at {}",
        package.name,
        package.version,
        bin.display()
    );
    match (&package.node, node) {
        (Some(range), Some(have)) if !satisfies(have, range) => check(
            "pi",
            CheckState::Fail,
            format!("{detail} needs Node.js {range}, but node on PATH is {have}"),
            "install Node.js 22.19 or newer, or use @mariozechner/pi-coding-agent@0.73 on this Node.js",
        ),
        (_, None) => check(
            "pi",
            CheckState::Fail,
            format!("{detail}, but there is no node on PATH to run it"),
            "install Node.js",
        ),
        _ => check("pi", CheckState::Ok, detail, ""),
    }
}

async fn git_check(settings: &RequestSettings) -> Check {
    let path = settings.agent.path.as_deref();
    match on_path("git", path) {
        Some(git) => match version_of(&git, path).await {
            Ok(v) => check("git", CheckState::Ok, v, ""),
            Err(e) => check("git", CheckState::Warn, e.to_string(), "reinstall git"),
        },
        None => check(
            "git",
            CheckState::Warn,
            "git is not on PATH (Stanley reads the repository itself; coding agents use git)",
            "install git",
        ),
    }
}

fn repository_check(state: &DaemonState) -> Check {
    let root = &state.config().files.root;
    let probe = state.config().files.dir.join("doctor.probe");
    let writable = stanley_adapters::records::write_atomic(&probe, b"ok\n")
        .and_then(|()| std::fs::remove_file(&probe));
    if let Err(e) = writable {
        return check(
            "repository",
            CheckState::Fail,
            format!(
                "cannot write under {}: {e}",
                root.join(".stanley").display()
            ),
            "free disk space, or fix the permissions of .stanley/",
        );
    }
    match (state.improve().store(), state.improve().problem()) {
        (Some(q), _) => {
            let jobs = q.list().map(|j| j.len()).unwrap_or(0);
            check(
                "repository",
                CheckState::Ok,
                format!(
                    "{} is writable; the improvement queue holds {jobs} job(s)",
                    root.join(".stanley").display()
                ),
                "",
            )
        }
        (None, Some(why)) => check(
            "repository",
            CheckState::Fail,
            why.to_string(),
            "move .stanley/state/ aside (it is rebuilt empty)",
        ),
        (None, None) => check(
            "repository",
            CheckState::Fail,
            "the improvement queue is not open",
            "",
        ),
    }
}

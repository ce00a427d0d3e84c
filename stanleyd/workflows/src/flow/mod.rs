//! The flow file (`.stanley/flow.json`): its model and a strict loader. Unknown keys, wrong
//! types, bad ids, dangling or cyclic dependencies and a side effect without a check are load
//! errors naming the JSON path, so a typo fails before a flow starts.

pub mod agent;
pub mod command;
pub mod gates;
pub mod judge;
pub mod policy;
pub mod state;
pub mod stop;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

/// How a flow acts on its decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Journal only.
    Observe,
    /// Never block; say what would have happened.
    Warn,
    /// Block, advance and pause for people.
    Enforce,
}

impl Mode {
    /// The spelling in `flow.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Observe => "observe",
            Mode::Warn => "warn",
            Mode::Enforce => "enforce",
        }
    }
}

/// A bounded loop inside a phase: `until` runs once per stop, `max_iterations` runs in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseLoop {
    pub max_iterations: u32,
    pub until: String,
}

/// One phase of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phase {
    pub id: String,
    pub name: String,
    pub done_when: String,
    pub check: Option<String>,
    /// Resolved edges: an omitted `depends_on` means the previous phase.
    pub depends_on: Vec<String>,
    pub looped: Option<PhaseLoop>,
    pub on_fail: Option<String>,
    pub dynamic: bool,
    pub side_effect: bool,
}

/// Confidence bands of the stop policy.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Confidence {
    pub auto: f64,
    pub review: f64,
    pub flag: f64,
    pub trust_check: f64,
}

/// The flow's budgets (written as `flow.json` spells them: the starter flow writes the
/// defaults).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Limits {
    pub max_blocks_per_session: u32,
    /// May be 0: run once.
    pub max_restarts: u32,
    pub max_total_minutes: u32,
    pub hang_minutes: u32,
    pub max_jev_calls: u32,
    pub check_timeout_s: u32,
    pub state_char_budget: u32,
    pub confidence: Confidence,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_blocks_per_session: 6,
            max_restarts: 5,
            max_total_minutes: 90,
            hang_minutes: 10,
            max_jev_calls: 200,
            check_timeout_s: 120,
            state_char_budget: 12_000,
            confidence: Confidence {
                auto: 0.80,
                review: 0.50,
                flag: 0.70,
                trust_check: 0.90,
            },
        }
    }
}

/// Bands of the optional tool gates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateBands {
    pub deny: f64,
    pub ask: f64,
    pub regenerable: f64,
    pub injection: f64,
}

/// The optional tool gates (all off by default).
#[derive(Clone, Debug, PartialEq)]
pub struct Gates {
    pub pre_tool: bool,
    pub injection_screen: bool,
    pub injection_tools: Vec<String>,
    pub subagent_stop: bool,
    pub task_completed: bool,
    pub bands: GateBands,
}

impl Default for Gates {
    fn default() -> Self {
        Self {
            pre_tool: false,
            injection_screen: false,
            injection_tools: vec!["WebFetch".into()],
            subagent_stop: false,
            task_completed: false,
            bands: GateBands {
                deny: 0.80,
                ask: 0.50,
                regenerable: 0.80,
                injection: 0.70,
            },
        }
    }
}

/// Events a notify command runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NotifyEvent {
    AskHuman,
    GoalComplete,
    Budget,
}

/// The optional notify command.
#[derive(Clone, Debug, PartialEq)]
pub struct Notify {
    pub command: String,
    pub on: Vec<NotifyEvent>,
    pub timeout_s: u32,
}

/// A loaded flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub flow_version: String,
    pub goal: String,
    pub title: String,
    pub mode: Mode,
    pub phases: Vec<Phase>,
    pub limits: Limits,
    pub send_diff: bool,
    pub gates: Gates,
    pub notify: Option<Notify>,
}

impl Flow {
    /// The phase with `id`.
    pub fn phase(&self, id: &str) -> Option<&Phase> {
        self.phases.iter().find(|p| p.id == id)
    }

    /// Phases only reached through `on_fail`: an `on_fail` target nothing depends on. They are
    /// not required for the goal.
    pub fn branch_only(&self) -> BTreeSet<&str> {
        self.phases
            .iter()
            .filter_map(|p| p.on_fail.as_deref())
            .filter(|target| {
                !self
                    .phases
                    .iter()
                    .any(|p| p.depends_on.iter().any(|d| d == target))
            })
            .collect()
    }
}

/// A flow file that cannot be loaded: where in the JSON, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowError {
    /// A JSON path such as `phases[2].loop.max_iterations`, or `(file)` for the whole document.
    pub path: String,
    pub message: String,
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A problem with the whole document names no path inside it.
        if self.path == "(file)" {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for FlowError {}

/// The reserved phase id (the stop policy's "cannot tell" answer).
pub const UNCLEAR: &str = "unclear";

fn err(path: &str, message: impl Into<String>) -> FlowError {
    // The path and the message each within the bound of an error about outside input.
    FlowError {
        path: crate::text::quoting_at_most(path),
        message: crate::text::quoting_at_most(&message.into()),
    }
}

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else {
        format!("{base}.{key}")
    }
}

/// An object whose keys are checked against `allowed`.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(value: &'a Value, path: &str, allowed: &[&str]) -> Result<Self, FlowError> {
        let map = value.as_object().ok_or_else(|| {
            err(
                if path.is_empty() { "(file)" } else { path },
                "must be an object",
            )
        })?;
        if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(err(&join(path, key), "unknown key"));
        }
        Ok(Self {
            map,
            path: path.to_owned(),
        })
    }

    fn at(&self, key: &str) -> String {
        join(&self.path, key)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    fn string(&self, key: &str) -> Result<Option<String>, FlowError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
            Some(Value::String(_)) => Err(err(&self.at(key), "must not be empty")),
            Some(_) => Err(err(&self.at(key), "must be a string")),
        }
    }

    fn required(&self, key: &str) -> Result<String, FlowError> {
        self.string(key)?
            .ok_or_else(|| err(&self.at(key), "is required"))
    }

    fn boolean(&self, key: &str) -> Result<bool, FlowError> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(err(&self.at(key), "must be true or false")),
        }
    }

    fn integer(&self, key: &str, default: u32, min: u32) -> Result<u32, FlowError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| *n >= u64::from(min))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| err(&self.at(key), format!("must be an integer >= {min}"))),
        }
    }

    fn fraction(&self, key: &str, default: f64) -> Result<f64, FlowError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|n| (0.0..=1.0).contains(n))
                .ok_or_else(|| err(&self.at(key), "must be a number from 0 to 1")),
        }
    }
}

fn valid_phase_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= 40
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

fn load_phase(value: &Value, path: &str) -> Result<(Phase, Option<Vec<String>>), FlowError> {
    let o = Obj::new(
        value,
        path,
        &[
            "id",
            "name",
            "done_when",
            "check",
            "depends_on",
            "loop",
            "on_fail",
            "dynamic",
            "side_effect",
        ],
    )?;
    let id = o.required("id")?;
    if !valid_phase_id(&id) {
        return Err(err(
            &o.at("id"),
            format!("{id:?} must match ^[a-z][a-z0-9_-]{{0,39}}$"),
        ));
    }
    if id == UNCLEAR {
        return Err(err(&o.at("id"), "\"unclear\" is reserved"));
    }
    let depends_on = match o.get("depends_on") {
        None => None,
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str().map(str::to_owned).ok_or_else(|| {
                        err(
                            &format!("{}[{i}]", o.at("depends_on")),
                            "must be a phase id",
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err(err(&o.at("depends_on"), "must be a list of phase ids")),
    };
    let looped = match o.get("loop") {
        None => None,
        Some(v) => {
            let l = Obj::new(v, &o.at("loop"), &["max_iterations", "until"])?;
            if l.get("max_iterations").is_none() {
                return Err(err(&l.at("max_iterations"), "is required"));
            }
            Some(PhaseLoop {
                max_iterations: l.integer("max_iterations", 1, 1)?,
                until: l.required("until")?,
            })
        }
    };
    let check = o.string("check")?;
    let side_effect = o.boolean("side_effect")?;
    if side_effect && check.is_none() {
        return Err(err(
            &o.at("side_effect"),
            "a side-effect phase needs a check",
        ));
    }
    let phase = Phase {
        name: o.required("name")?,
        done_when: o.required("done_when")?,
        check,
        depends_on: Vec::new(),
        looped,
        on_fail: o.string("on_fail")?,
        dynamic: o.boolean("dynamic")?,
        side_effect,
        id,
    };
    Ok((phase, depends_on))
}

fn load_limits(value: Option<&Value>) -> Result<Limits, FlowError> {
    let d = Limits::default();
    let Some(value) = value else {
        return Ok(d);
    };
    let o = Obj::new(
        value,
        "limits",
        &[
            "max_blocks_per_session",
            "max_restarts",
            "max_total_minutes",
            "hang_minutes",
            "max_jev_calls",
            "check_timeout_s",
            "state_char_budget",
            "confidence",
        ],
    )?;
    let confidence = match o.get("confidence") {
        None => d.confidence,
        Some(v) => {
            let c = Obj::new(
                v,
                "limits.confidence",
                &["auto", "review", "flag", "trust_check"],
            )?;
            let confidence = Confidence {
                auto: c.fraction("auto", d.confidence.auto)?,
                review: c.fraction("review", d.confidence.review)?,
                flag: c.fraction("flag", d.confidence.flag)?,
                trust_check: c.fraction("trust_check", d.confidence.trust_check)?,
            };
            if confidence.review > confidence.auto {
                return Err(err(
                    "limits.confidence.review",
                    "must not be above limits.confidence.auto",
                ));
            }
            confidence
        }
    };
    Ok(Limits {
        max_blocks_per_session: o.integer("max_blocks_per_session", d.max_blocks_per_session, 1)?,
        max_restarts: o.integer("max_restarts", d.max_restarts, 0)?,
        max_total_minutes: o.integer("max_total_minutes", d.max_total_minutes, 1)?,
        hang_minutes: o.integer("hang_minutes", d.hang_minutes, 1)?,
        max_jev_calls: o.integer("max_jev_calls", d.max_jev_calls, 1)?,
        check_timeout_s: o.integer("check_timeout_s", d.check_timeout_s, 1)?,
        state_char_budget: o.integer("state_char_budget", d.state_char_budget, 1)?,
        confidence,
    })
}

fn load_gates(value: Option<&Value>) -> Result<Gates, FlowError> {
    let d = Gates::default();
    let Some(value) = value else {
        return Ok(d);
    };
    let o = Obj::new(
        value,
        "gates",
        &[
            "pre_tool",
            "injection_screen",
            "injection_tools",
            "subagent_stop",
            "task_completed",
            "bands",
        ],
    )?;
    let injection_tools = match o.get("injection_tools") {
        None => d.injection_tools.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        err(
                            &format!("gates.injection_tools[{i}]"),
                            "must be a tool name",
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(err("gates.injection_tools", "must be a list of tool names")),
    };
    let bands = match o.get("bands") {
        None => d.bands,
        Some(v) => {
            let b = Obj::new(
                v,
                "gates.bands",
                &["deny", "ask", "regenerable", "injection"],
            )?;
            GateBands {
                deny: b.fraction("deny", d.bands.deny)?,
                ask: b.fraction("ask", d.bands.ask)?,
                regenerable: b.fraction("regenerable", d.bands.regenerable)?,
                injection: b.fraction("injection", d.bands.injection)?,
            }
        }
    };
    Ok(Gates {
        pre_tool: o.boolean("pre_tool")?,
        injection_screen: o.boolean("injection_screen")?,
        injection_tools,
        subagent_stop: o.boolean("subagent_stop")?,
        task_completed: o.boolean("task_completed")?,
        bands,
    })
}

fn load_notify(value: Option<&Value>) -> Result<Option<Notify>, FlowError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let o = Obj::new(value, "notify", &["command", "on", "timeout_s"])?;
    let all = vec![
        NotifyEvent::AskHuman,
        NotifyEvent::GoalComplete,
        NotifyEvent::Budget,
    ];
    let on = match o.get("on") {
        None => all,
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v.as_str() {
                Some("ask_human") => Ok(NotifyEvent::AskHuman),
                Some("goal_complete") => Ok(NotifyEvent::GoalComplete),
                Some("budget") => Ok(NotifyEvent::Budget),
                _ => Err(err(
                    &format!("notify.on[{i}]"),
                    "must be ask_human, goal_complete or budget",
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(err("notify.on", "must be a list of events")),
    };
    Ok(Some(Notify {
        command: o.required("command")?,
        on,
        timeout_s: o.integer("timeout_s", 10, 1)?,
    }))
}

/// A dependency cycle, as the ids along it, if there is one.
fn find_cycle(phases: &[Phase]) -> Option<Vec<String>> {
    let edges: BTreeMap<&str, &[String]> = phases
        .iter()
        .map(|p| (p.id.as_str(), p.depends_on.as_slice()))
        .collect();
    // 0 unvisited, 1 on the current path, 2 finished.
    let mut mark: BTreeMap<&str, u8> = BTreeMap::new();
    fn visit<'a>(
        id: &'a str,
        edges: &BTreeMap<&'a str, &'a [String]>,
        mark: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match mark.get(id) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| *p == id).unwrap_or(0);
                let mut cycle: Vec<String> =
                    path[start..].iter().map(|s| (*s).to_owned()).collect();
                cycle.push(id.to_owned());
                return Some(cycle);
            }
            _ => {}
        }
        mark.insert(id, 1);
        path.push(id);
        for next in edges.get(id).copied().unwrap_or_default() {
            if let Some(cycle) = visit(next, edges, mark, path) {
                return Some(cycle);
            }
        }
        path.pop();
        mark.insert(id, 2);
        None
    }
    for p in phases {
        let mut path = Vec::new();
        if let Some(cycle) = visit(&p.id, &edges, &mut mark, &mut path) {
            return Some(cycle);
        }
    }
    None
}

/// Loads a flow file's text.
pub fn parse_flow(text: &str) -> Result<Flow, FlowError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| err("(file)", format!("not valid JSON: {e}")))?;
    let o = Obj::new(
        &value,
        "",
        &[
            "schema_version",
            "flow_version",
            "goal",
            "title",
            "mode",
            "phases",
            "limits",
            "privacy",
            "gates",
            "notify",
        ],
    )?;
    if let Some(v) = o.get("schema_version")
        && v.as_u64() != Some(1)
    {
        return Err(err("schema_version", "only 1 is supported"));
    }
    let flow_version = match o.get("flow_version") {
        None => "1".to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => o.required("flow_version")?,
    };
    let goal = o.required("goal")?;
    let title = match o.get("title") {
        None => String::new(),
        Some(Value::String(s)) if s.chars().count() <= 80 => s.clone(),
        Some(Value::String(_)) => return Err(err("title", "must be at most 80 characters")),
        Some(_) => return Err(err("title", "must be a string")),
    };
    let mode = match o.get("mode").map(|m| m.as_str()) {
        None => Mode::Enforce,
        Some(Some("observe")) => Mode::Observe,
        Some(Some("warn")) => Mode::Warn,
        Some(Some("enforce")) => Mode::Enforce,
        Some(_) => return Err(err("mode", "must be observe, warn or enforce")),
    };
    let items = match o.get("phases") {
        None => return Err(err("phases", "is required")),
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(Value::Array(_)) => return Err(err("phases", "must not be empty")),
        Some(_) => return Err(err("phases", "must be a list of phases")),
    };
    let mut phases: Vec<Phase> = Vec::new();
    let mut explicit: Vec<Option<Vec<String>>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("phases[{i}]");
        let (phase, deps) = load_phase(item, &path)?;
        if phases.iter().any(|p| p.id == phase.id) {
            return Err(err(
                &format!("{path}.id"),
                format!("duplicate phase id {:?}", phase.id),
            ));
        }
        phases.push(phase);
        explicit.push(deps);
    }
    let ids: Vec<String> = phases.iter().map(|p| p.id.clone()).collect();
    for (i, deps) in explicit.into_iter().enumerate() {
        let resolved = match deps {
            Some(deps) => {
                for (j, d) in deps.iter().enumerate() {
                    let at = format!("phases[{i}].depends_on[{j}]");
                    if *d == ids[i] {
                        return Err(err(&at, "a phase cannot depend on itself"));
                    }
                    if !ids.contains(d) {
                        return Err(err(&at, format!("unknown phase {d:?}")));
                    }
                }
                deps
            }
            None if i == 0 => Vec::new(),
            None => vec![ids[i - 1].clone()],
        };
        phases[i].depends_on = resolved;
        if let Some(target) = &phases[i].on_fail {
            let at = format!("phases[{i}].on_fail");
            if *target == ids[i] {
                return Err(err(&at, "a phase cannot route to itself"));
            }
            if !ids.contains(target) {
                return Err(err(&at, format!("unknown phase {target:?}")));
            }
        }
    }
    if let Some(cycle) = find_cycle(&phases) {
        return Err(err(
            "phases",
            format!("dependency cycle: {}", cycle.join(" -> ")),
        ));
    }
    let send_diff = match o.get("privacy") {
        None => false,
        Some(v) => Obj::new(v, "privacy", &["send_diff"])?.boolean("send_diff")?,
    };
    Ok(Flow {
        flow_version,
        goal,
        title,
        mode,
        phases,
        limits: load_limits(o.get("limits"))?,
        send_diff,
        gates: load_gates(o.get("gates"))?,
        notify: load_notify(o.get("notify"))?,
    })
}

/// The flow file `stanleyctl flow init` writes, in the order a person reads it.
#[derive(serde::Serialize)]
struct StarterFlow<'a> {
    schema_version: u32,
    flow_version: &'static str,
    goal: &'a str,
    title: &'a str,
    mode: &'static str,
    phases: [StarterPhase; 3],
    limits: Limits,
    privacy: StarterPrivacy,
}

/// A phase of the starter flow.
#[derive(serde::Serialize)]
struct StarterPhase {
    id: &'static str,
    name: &'static str,
    done_when: &'static str,
}

/// The starter flow's privacy settings.
#[derive(serde::Serialize)]
struct StarterPrivacy {
    send_diff: bool,
}

/// A starter flow for `goal` in `warn` mode: implement, then verify; the person adds checks.
pub fn starter_flow(goal: &str) -> String {
    let goal = goal.split_whitespace().collect::<Vec<_>>().join(" ");
    let title: String = goal.chars().take(80).collect();
    let doc = StarterFlow {
        schema_version: 1,
        flow_version: "1",
        goal: &goal,
        title: &title,
        mode: "warn",
        phases: [
            StarterPhase {
                id: "plan",
                name: "Plan",
                done_when: "the steps to reach the goal are written down and agreed",
            },
            StarterPhase {
                id: "implement",
                name: "Implement",
                done_when: "the change the goal describes is made",
            },
            StarterPhase {
                id: "verify",
                name: "Verify",
                done_when: "the goal is shown to hold, by tests or a check",
            },
        ],
        limits: Limits::default(),
        privacy: StarterPrivacy { send_diff: false },
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_flow_loads_in_warn_mode() {
        let text = starter_flow("  Add a   --verbose flag to the CLI ");
        let flow = parse_flow(&text).unwrap();
        assert_eq!(flow.mode, Mode::Warn);
        assert_eq!(flow.goal, "Add a --verbose flag to the CLI");
        let ids: Vec<&str> = flow.phases.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["plan", "implement", "verify"]);
        assert_eq!(flow.phase("verify").unwrap().depends_on, ["implement"]);
        let long = starter_flow(&"word ".repeat(40));
        assert_eq!(parse_flow(&long).unwrap().title.chars().count(), 80);
    }

    /// The reference's example shape: scaffold, implement, docs, test with a loop and `on_fail`
    /// to debug, publish as a side effect.
    pub(crate) const EXAMPLE: &str = r#"{
      "schema_version": 1, "flow_version": "1",
      "goal": "Build a CLI todo app with add/list/done commands and tests",
      "mode": "warn",
      "phases": [
        {"id": "scaffold", "name": "Project scaffold", "done_when": "layout exists", "check": "test -f todo/cli.py"},
        {"id": "implement", "name": "Implement commands", "done_when": "add, list and done work", "dynamic": true},
        {"id": "docs", "name": "Usage docs", "done_when": "README documents every command", "depends_on": ["scaffold"], "check": "grep -q 'todo add' README.md"},
        {"id": "test", "name": "Tests pass", "done_when": "tests pass", "depends_on": ["implement", "docs"], "check": "python -m pytest -q",
         "loop": {"max_iterations": 3, "until": "python -m pytest -q"}, "on_fail": "debug"},
        {"id": "debug", "name": "Debug failures", "done_when": "the cause is fixed"},
        {"id": "publish", "name": "Tag release", "done_when": "v0.1 tag exists", "depends_on": ["test"], "check": "git tag -l v0.1 | grep -q v0.1", "side_effect": true}
      ],
      "limits": {"max_blocks_per_session": 6, "max_restarts": 0, "max_total_minutes": 90, "hang_minutes": 10, "max_jev_calls": 200,
                 "check_timeout_s": 120, "state_char_budget": 12000, "confidence": {"auto": 0.8, "review": 0.5, "flag": 0.7, "trust_check": 0.9}},
      "privacy": {"send_diff": false},
      "gates": {"pre_tool": true, "injection_screen": false, "injection_tools": ["WebFetch", "Read"], "subagent_stop": false, "task_completed": false,
                "bands": {"deny": 0.8, "ask": 0.5, "regenerable": 0.8, "injection": 0.7}},
      "notify": {"command": "./notify.sh", "on": ["ask_human", "goal_complete"], "timeout_s": 10}
    }"#;

    #[test]
    fn the_example_loads_with_resolved_dependencies() {
        let flow = parse_flow(EXAMPLE).unwrap();
        assert_eq!(flow.mode, Mode::Warn);
        let deps = |id: &str| flow.phase(id).unwrap().depends_on.clone();
        assert_eq!(deps("scaffold"), Vec::<String>::new());
        assert_eq!(deps("implement"), ["scaffold"], "linear by default");
        assert_eq!(deps("test"), ["implement", "docs"]);
        assert_eq!(deps("debug"), ["test"]);
        assert_eq!(
            flow.phase("test").unwrap().looped,
            Some(PhaseLoop {
                max_iterations: 3,
                until: "python -m pytest -q".into()
            })
        );
        assert_eq!(flow.branch_only(), BTreeSet::from(["debug"]));
        assert_eq!(flow.limits.max_restarts, 0);
        assert!(flow.gates.pre_tool);
        assert_eq!(flow.gates.injection_tools, ["WebFetch", "Read"]);
        assert_eq!(
            flow.notify.unwrap().on,
            [NotifyEvent::AskHuman, NotifyEvent::GoalComplete]
        );
    }

    #[test]
    fn a_minimal_flow_takes_every_default() {
        let flow = parse_flow(
            r#"{"goal": "Ship it", "phases": [{"id": "a", "name": "A", "done_when": "done"}]}"#,
        )
        .unwrap();
        assert_eq!(flow.mode, Mode::Enforce);
        assert_eq!(flow.flow_version, "1");
        assert_eq!(flow.limits, Limits::default());
        assert_eq!(flow.gates, Gates::default());
        assert!(!flow.send_diff && flow.notify.is_none() && flow.title.is_empty());
    }

    /// Replaces `from` in the example with `to` (the replacement must happen).
    fn broken(from: &str, to: &str) -> FlowError {
        assert!(EXAMPLE.contains(from), "{from}");
        parse_flow(&EXAMPLE.replacen(from, to, 1)).unwrap_err()
    }

    #[test]
    fn bad_flow_files_name_the_json_path() {
        let cases: Vec<(FlowError, &str, &str)> = vec![
            (parse_flow("{").unwrap_err(), "(file)", "not valid JSON"),
            (parse_flow("[]").unwrap_err(), "(file)", "must be an object"),
            (broken("\"goal\"", "\"gaol\""), "gaol", "unknown key"),
            (
                broken("\"dynamic\": true", "\"dynamic\": true, \"dynamc\": 1"),
                "phases[1].dynamc",
                "unknown key",
            ),
            (
                broken("\"max_iterations\": 3", "\"max_iterations\": 0"),
                "phases[3].loop.max_iterations",
                "integer >= 1",
            ),
            (
                broken("\"max_iterations\": 3, ", ""),
                "phases[3].loop.max_iterations",
                "is required",
            ),
            (
                broken("\"id\": \"debug\"", "\"id\": \"unclear\""),
                "phases[4].id",
                "reserved",
            ),
            (
                broken("\"id\": \"debug\"", "\"id\": \"Debug\""),
                "phases[4].id",
                "must match",
            ),
            (
                broken("\"id\": \"debug\"", "\"id\": \"docs\""),
                "phases[4].id",
                "duplicate phase id",
            ),
            (
                broken(
                    "\"depends_on\": [\"scaffold\"]",
                    "\"depends_on\": [\"test\"]",
                ),
                "phases",
                "dependency cycle: docs -> test -> docs",
            ),
            (
                broken(
                    "\"depends_on\": [\"scaffold\"]",
                    "\"depends_on\": [\"nope\"]",
                ),
                "phases[2].depends_on[0]",
                "unknown phase",
            ),
            (
                broken("\"on_fail\": \"debug\"", "\"on_fail\": \"gone\""),
                "phases[3].on_fail",
                "unknown phase",
            ),
            (
                broken(", \"check\": \"git tag -l v0.1 | grep -q v0.1\"", ""),
                "phases[5].side_effect",
                "needs a check",
            ),
            (
                broken("\"mode\": \"warn\"", "\"mode\": \"loud\""),
                "mode",
                "observe, warn or enforce",
            ),
            (
                broken("\"schema_version\": 1", "\"schema_version\": 2"),
                "schema_version",
                "only 1",
            ),
            (
                broken("\"max_restarts\": 0", "\"max_restarts\": -1"),
                "limits.max_restarts",
                "integer >= 0",
            ),
            (
                broken("\"hang_minutes\": 10", "\"hang_minutes\": 0"),
                "limits.hang_minutes",
                "integer >= 1",
            ),
            (
                broken("\"auto\": 0.8", "\"auto\": 1.5"),
                "limits.confidence.auto",
                "from 0 to 1",
            ),
            (
                broken("\"review\": 0.5", "\"review\": 0.95"),
                "limits.confidence.review",
                "not be above",
            ),
            (
                broken("\"pre_tool\": true", "\"pre_tool\": \"yes\""),
                "gates.pre_tool",
                "true or false",
            ),
            (
                broken("\"send_diff\": false", "\"send_diff\": 0"),
                "privacy.send_diff",
                "true or false",
            ),
            (
                broken("\"goal_complete\"]", "\"always\"]"),
                "notify.on[1]",
                "ask_human, goal_complete or budget",
            ),
            (
                broken("\"name\": \"Usage docs\", ", ""),
                "phases[2].name",
                "is required",
            ),
            (
                broken("\"phases\": [", "\"phases\": [], \"x\": ["),
                "x",
                "unknown key",
            ),
        ];
        for (error, path, message) in cases {
            assert_eq!(error.path, path, "{error}");
            assert!(error.message.contains(message), "{error}");
        }
        let empty = parse_flow(r#"{"goal": "g", "phases": []}"#).unwrap_err();
        assert_eq!(
            (empty.path.as_str(), empty.message.as_str()),
            ("phases", "must not be empty")
        );
        let title = parse_flow(&format!(
            r#"{{"goal": "g", "title": "{}", "phases": [{{"id": "a", "name": "A", "done_when": "d"}}]}}"#,
            "t".repeat(81)
        ))
        .unwrap_err();
        assert_eq!(title.to_string(), "title: must be at most 80 characters");
    }
}

#[cfg(test)]
#[path = "starter_tests.rs"]
mod starter_tests;

//! Stanley's product logic: diff evidence, path classification, the built-in workflows and their
//! policies, routing policy, the action guard and fallback texts. Performs no I/O: everything
//! outside the process is reached through the ports in [`ports`].

pub mod agent;
pub mod analysis;
pub mod check;
pub mod check_criteria;
pub mod check_rules;
pub mod check_task;
pub mod comments;
pub mod diff;
pub mod find;
pub mod flow;
pub mod flow_agent;
pub mod flow_gates;
pub mod flow_judge;
pub mod flow_policy;
pub mod flow_state;
pub mod flow_stop;
pub mod glob;
pub mod improve;
pub mod judge;
pub mod ladder;
pub mod logs;
pub mod modes;
pub mod paths;
pub mod policy;
pub mod ports;
pub mod registry;
pub mod result;
pub mod routing;
pub mod run;
pub mod text;
pub mod triage_comments;
pub mod triage_failures;
pub mod trust;

//! The coding agent as the daemon starts it: Pi with the environment every child gets (no Jev
//! key), a delegation capability for nested requests (`crate::delegation`), and the trust check
//! of the repository's own agent configuration made before every launch (`crate::trust`).

use std::sync::Arc;

use stanley_adapters::pi::{PiAgent, Unavailable};

use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// The coding agent for a request, a job or a flow run: Pi with the agent's environment, a
/// delegation capability that lives as long as the agent, and the trust check of the
/// repository's agent configuration made before each launch.
pub(crate) fn pi(
    state: &DaemonState,
    settings: &RequestSettings,
    no_agent: bool,
) -> Result<PiAgent, Unavailable> {
    let root = &state.config().files.root;
    let capability = Arc::new(state.delegations().issue(settings.jev_env()));
    let env = settings.agent_env(state.agent_tmp().as_deref(), Some(capability.token()));
    let check = crate::trust::agent_check(state, settings);
    stanley_adapters::pi::availability(&settings.agent, env, no_agent, root, check)
        .map(|agent| agent.holding(capability))
}

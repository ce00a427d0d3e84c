//! Flows on the daemon side: one stop shared by the supervisor and the Stop hook (`eval`), the
//! supervisor that drives Pi through the phases (`run`), the Claude Code hook answers (`hooks`)
//! (the `stanley.v1.Flows` service is `services::flows`).

pub(crate) mod eval;
pub(crate) mod hooks;
pub(crate) mod run;

//! The Stanley daemon: discovery and lifecycle, the gRPC services, and the runtime that routes a
//! request and runs the selected workflow. `main` only wires; tests call [`run`] in-process.

#![cfg_attr(not(test), forbid(unsafe_code))]

mod agent;
mod authority;
mod candidates;
mod config;
mod connections;
mod delegation;
mod discovery;
mod doctor;
mod error;
mod flow;
mod logging;
mod memory;
mod request;
mod runs;
mod server;
mod services;
mod settings;
mod state;
#[cfg(test)]
mod testing;
mod trust;
mod typed;
mod ui;
mod warm;
mod watcher;
mod worker;

pub use config::{DaemonConfig, IDLE_TIMEOUT};
pub use discovery::{DaemonFiles, DaemonInfo, Prepared, prepare};
pub use error::DaemonError;
pub use logging::init_logging;
pub use server::run;
pub use settings::DaemonSettings;
pub use state::Ports;

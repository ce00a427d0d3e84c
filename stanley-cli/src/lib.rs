//! Stanley's thin clients. `stanley` parses the fixed command line, reads the input, finds or
//! starts the repository's daemon, streams one request and prints its result; `stanleyctl`
//! administers the daemon. No product logic lives here: the daemon does the work.

#![cfg_attr(not(test), forbid(unsafe_code))]

/// The release and the commit the clients were built from: `0.1.0 (1a2b3c4d5e6f 2026-12-01)`.
pub const LONG_VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), " (", env!("STANLEY_COMMIT"), ")");

pub mod args;
pub mod daemon;
pub mod environ;
pub mod exit;
pub mod help;
pub mod output;
pub mod render;
pub mod root;
pub mod signals;
pub mod style;
pub mod trust;

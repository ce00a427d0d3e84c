//! Stanley's thin clients. `stanley` parses the fixed command line, reads the input, finds or
//! starts the repository's daemon, streams one request and prints its result; `stanleyctl`
//! administers the daemon. No product logic lives here: the daemon does the work.

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

//! Real implementations of Stanley's ports: Git through git2, workspace file reads, redaction,
//! the System One HTTP client, run records on disk, and the system clock.

#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod agent_exec;
pub mod agents;
pub mod clock;
pub mod flow_check;
pub mod flow_store;
pub mod git;
pub mod guard;
pub mod jev_http;
pub mod job_log;
pub mod judgments;
pub mod launch;
mod lines;
pub mod pi;
pub mod queue;
pub mod records;
pub mod redact;
mod redact_keys;
pub mod runs;
pub mod store_error;
pub mod team_cache;
pub mod tools;
pub mod tracked;
pub mod trust;
pub mod user_key;
pub mod workflow_host;
pub mod workflow_tree;
pub mod workspace;

pub use clock::SystemClock;
pub use git::Git2Repo;
pub use jev_http::{HttpJev, HttpShared, JevConfig, JevConfigError, JevSettings};
pub use records::{FsRecorder, ensure_state_dir};
pub use redact::SecretRedactor;

//! The wrapper a log came in, taken off one line for one line: a CI service's job-log format
//! (`ci`: timestamps, group and section markers, step names), then each stream's per-line label
//! (`streams`: a task runner's or a CI step's, whatever its text).

pub mod ci;
pub(crate) mod streams;

//! Stanley's end-to-end tests: the real binaries against temporary repositories and a fake
//! System One server, the daemon in-process, and the project's own rules (layering).

mod agent;
mod cache;
mod check;
mod cli;
mod connections;
mod diffs;
mod doctor;
mod faults;
mod find;
mod flow_run;
mod flows;
mod full_disk;
mod golden;
mod grpc;
mod hooks;
mod host_isolation;
mod layering;
mod lifecycle;
mod real_claude;
mod real_pi;
mod records;
mod redaction;
mod routing;
mod runs;
mod security;
mod shapes;
mod summarize;
mod throttle;
mod transport;
mod triage;
mod trust;
mod ui;
mod upstream;
mod wire;
mod workflows;

//! What the bench harnesses share: a process's memory from `/proc`, and writing a report to
//! `target/bench/<name>.json`.

use std::path::PathBuf;

/// A field of `/proc/<pid>/status` in KiB (`VmRSS` now, `VmHWM` at its peak).
pub fn proc_kib(pid: i32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// A process's resident memory in KiB.
pub fn rss_kib(pid: i32) -> Option<u64> {
    proc_kib(pid, "VmRSS")
}

/// The `target/bench` folder beside the running harness.
pub fn out_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("exe");
    let target = exe
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "target"))
        .map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let dir = target.join("bench");
    std::fs::create_dir_all(&dir).expect("bench folder");
    dir
}

/// Writes `report` to `target/bench/<name>.json`, prints it and where it went; returns the
/// folder.
pub fn write_report(name: &str, report: &serde_json::Value) -> PathBuf {
    let dir = out_dir();
    let text = serde_json::to_string_pretty(report).expect("report");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, format!("{text}\n")).expect("write report");
    println!("{text}");
    println!("written to {}", path.display());
    dir
}

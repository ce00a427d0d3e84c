//! The fuzzing campaign (not a test, issue 36): every target of `stanley_tests::fuzz` for a
//! fixed number of inputs (60,000 each by default), then the extremes: a 1 MB and a 10 MB single
//! line, and 10,000- and 100,000-deep documents, with time per megabyte (the 10 MB / 1 MB ratio
//! is 1 for linear time) and peak memory. Writes `target/bench/fuzz.json`.
//!
//! `cargo run --release -p stanley-tests --bin stanley-fuzz` (`STANLEY_FUZZ_INPUTS=n` inputs per
//! target, `STANLEY_FUZZ_ONLY=a,b` some targets, `STANLEY_FUZZ_SAVE=1` to write the grown
//! corpus and faulting inputs under `tests/fuzz/`, `STANLEY_FUZZ_SEED=n`,
//! `STANLEY_FUZZ_EXTREMES=0` to skip the extremes)

use serde_json::{Value, json};
use stanley_tests::fuzz::campaign::{Settings, campaign, extreme};
use stanley_tests::fuzz::targets;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn main() {
    // Panics are caught and counted per input; their default report would flood the output.
    std::panic::set_hook(Box::new(|_| {}));
    let settings = Settings {
        inputs: env_u64("STANLEY_FUZZ_INPUTS", 60_000),
        seed: env_u64("STANLEY_FUZZ_SEED", 36),
        save: std::env::var("STANLEY_FUZZ_SAVE").is_ok_and(|v| v == "1"),
        max_saved: 150,
    };
    let only: Option<Vec<String>> = std::env::var("STANLEY_FUZZ_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let extremes = std::env::var("STANLEY_FUZZ_EXTREMES").map_or(true, |v| v != "0");
    let mut report = serde_json::Map::new();
    let (mut inputs, mut faults) = (0u64, 0usize);
    for target in targets() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == target.name))
        {
            continue;
        }
        eprintln!("{}: {} inputs", target.name, settings.inputs);
        let figures = campaign(&target, &settings);
        eprintln!(
            "{}: {} inputs in {:.1} s, {} faults, {} shapes",
            target.name,
            figures.inputs,
            figures.elapsed.as_secs_f64(),
            figures.faults.len(),
            figures.shapes
        );
        inputs += figures.inputs;
        faults += figures.faults.len();
        let mut entry = figures.to_json();
        entry["entry"] = json!(target.entry);
        entry["invariants"] = json!(target.invariants);
        if extremes {
            let line_1 = extreme(&target, &(target.long_line)(1_000_000));
            let line_10 = extreme(&target, &(target.long_line)(10_000_000));
            let deep_10k = extreme(&target, &(target.deep)(10_000));
            let deep_100k = extreme(&target, &(target.deep)(100_000));
            let ratio = |a: &Value, b: &Value| {
                let (a, b) = (a["msPerMb"].as_f64(), b["msPerMb"].as_f64());
                a.zip(b)
                    .map(|(a, b)| (b / a.max(1e-3) * 100.0).round() / 100.0)
            };
            entry["extremes"] = json!({
                "line1MB": line_1,
                "line10MB": line_10,
                "line10MBPerMbOver1MB": ratio(&line_1, &line_10),
                "deep10000": deep_10k,
                "deep100000": deep_100k,
                "deep100000PerMbOver10000": ratio(&deep_10k, &deep_100k),
            });
            eprintln!("{}: extremes {}", target.name, entry["extremes"]);
        }
        report.insert(target.name.to_owned(), entry);
    }
    let report = json!({
        "inputsTotal": inputs,
        "faultsFound": faults,
        "inputsPerTarget": settings.inputs,
        "seed": settings.seed,
        "targets": report,
    });
    stanley_tests::bench::write_report("fuzz", &report);
}

//! The scaling bench (issue 47, not a test): for each input dimension a user can grow, the work
//! at n, 4n and 16n, with the time, the peak memory and the ratio between steps (linear is 4×
//! per step; a quadratic is 16×). Writes `target/bench/scale.json` and prints it.
//!
//! `cargo build --release --bins && cargo run --release -p stanley-tests --bin
//! stanley-bench-scale [dimension...]`: in process, failures in a log (`triage`, by runner
//! shape), files and hunks in a diff (`diff`), run folders kept (`runs`) and jobs in the queue
//! (`queue`); through the daemon, review comments (`comments`), files for find (`find`) and
//! findings for the page and the language server (`findings`). No dimension named: all.

mod e2e;
mod heap;
mod stores;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stanley_workflows::diff::{Diff, DiffEvidence, DiffSource};
use stanley_workflows::triage::logs::{Parsers, parse_log_with};

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

/// One generated log of `n` failures in a runner's shape.
type Shape = fn(usize) -> String;

fn pytest(n: usize) -> String {
    let mut s = String::from(
        "============================= test session starts ==============================\n",
    );
    s.push_str(&format!("collected {n} items\n\n"));
    s.push_str(
        "=================================== FAILURES ===================================\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "_________________________________ test_case_{i} _________________________________\n\n    def test_case_{i}():\n>       assert compute({i}) == {}\nE       assert {i} == {}\n\ntests/test_mod_{}.py:{}: AssertionError\n",
            i + 1, i + 1, i % 50, i % 400 + 3
        ));
    }
    s.push_str(
        "=========================== short test summary info ============================\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "FAILED tests/test_mod_{}.py::test_case_{i} - assert {i} == {}\n",
            i % 50,
            i + 1
        ));
    }
    s.push_str(&format!(
        "============================== {n} failed in 1.23s ===============================\n"
    ));
    s
}

fn unknown_runner(n: usize) -> String {
    let mut s = String::from("Running suite\n");
    for i in 0..n {
        s.push_str(&format!(
            "  ✗ widget renders case {i}\n      Error: expected {i} to equal {}\n        at check (spec/widget_{}.spec.lua:{})\n\n",
            i + 1, i % 30, i % 200 + 1
        ));
    }
    s.push_str(&format!("{n} failures, 0 errors\n"));
    s
}

/// A runner no parser knows whose headers are banners (`── Failure (file:line): name ──`) and
/// whose count is stated only at the end: the structure discovery's path (issue 46).
fn banner(n: usize) -> String {
    let mut s = String::from("══ Failed tests ══════\n");
    for i in 0..n {
        s.push_str(&format!(
            "── Failure (test-calc-{}.R:{}): computes case {i} ──\nresult not equal to {}.\n1/1 mismatches\n[1] {i} - {} == -1\n\n",
            i % 40,
            i % 300 + 1,
            i + 1,
            i + 1
        ));
    }
    s.push_str(&format!("[ FAIL {n} | WARN 0 | SKIP 0 | PASS 3 ]\n"));
    s
}

fn go(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "=== RUN   TestCase{i}\n    case_test.go:{}: got {i}, want {}\n--- FAIL: TestCase{i} (0.00s)\n",
            i % 300 + 1, i + 1
        ));
    }
    s.push_str("FAIL\nFAIL\texample.com/pkg\t0.123s\n");
    s
}

fn diagnostics(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "src/module_{}.c:{}:5: error: use of undeclared identifier 'value_{i}'\n",
            i % 40,
            i % 900 + 1
        ));
    }
    s.push_str(&format!(
        "{n} errors generated.\nmake: *** [Makefile:12: all] Error 1\n"
    ));
    s
}

fn anchors(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "step {i}: Error: request {i} failed with status 500\n"
        ));
        s.push_str("  continuing\n");
    }
    s
}

/// tape's stream: a heading per test over its assertions, the count stated of the assertions
/// (each failing assertion a failure of its own, D-185).
fn tape(n: usize) -> String {
    let mut s = String::from("TAP version 13\n");
    let mut k = 0;
    for i in 0..n.div_ceil(2) {
        s.push_str(&format!("# pump {i}\n"));
        for j in 0..2 {
            k += 1;
            s.push_str(&format!(
                "not ok {k} should lift {j} litres\n  ---\n    operator: equal\n    expected: {j}\n    actual:   {i}\n  ...\n"
            ));
        }
    }
    s.push_str(&format!("\n1..{k}\n# tests {k}\n# pass  0\n# fail  {k}\n"));
    s
}

/// Sections framed by rules, headed by a verdict alone and named by the id on their last line
/// (twisted trial's, D-185).
fn framed(n: usize) -> String {
    let rule = "=".repeat(79);
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "{rule}\n[FAIL]\nTraceback (most recent call last):\n  File \"/w/pkg/test_m.py\", line {}, in test_{i}\n    self.check()\ntwisted.trial.unittest.FailTest: {i} != {}\n\npkg.test_m.Tests.test_{i}\n",
            i % 300 + 1,
            i + 1
        ));
    }
    s.push_str(&format!(
        "{rule}\n\nRan {n} tests in 0.1s\n\nFAILED (failures={n})\n"
    ));
    s
}

/// One line that never ends, of runner fragments and escapes (the fuzz test's 1 MB line): `n`
/// fragments, each a status word, a name and a reason in parentheses (D-255).
fn long_line(n: usize) -> String {
    "\u{1b}[31mFAIL\u{1b}[0m src/x.test.js ● suite › test E   assert 1 == 2 at x (/a.js:1:1) "
        .repeat(n)
}

const SHAPES: [(&str, Shape); 9] = [
    ("pytest", pytest),
    ("unknown-runner", unknown_runner),
    ("go", go),
    ("diagnostics", diagnostics),
    ("banner", banner),
    ("anchors", anchors),
    ("tape", tape),
    ("framed", framed),
    ("long-line", long_line),
];

fn timed(f: impl FnOnce() -> usize) -> (Duration, usize) {
    let start = Instant::now();
    let found = f();
    (start.elapsed(), found)
}

fn triage_dimension(base: usize, only: &[String]) -> Value {
    let mut out = serde_json::Map::new();
    for (name, shape) in SHAPES {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let mut steps = Vec::new();
        let mut last: Option<Duration> = None;
        for n in [base, 4 * base, 16 * base] {
            let log = shape(n);
            let ((all, found), peak) =
                heap::peak_of(|| timed(|| parse_log_with(&log, Parsers::All).blocks.len()));
            let (generic, generic_found) =
                timed(|| parse_log_with(&log, Parsers::GenericOnly).blocks.len());
            let ratio = last.map(|l| all.as_secs_f64() / l.as_secs_f64().max(1e-9));
            last = Some(all);
            steps.push(json!({
                "failures": n,
                "lines": log.lines().count(),
                "seconds": all.as_secs_f64(),
                "peakHeapBytes": peak,
                "bytes": log.len(),
                "blocks": found,
                "genericSeconds": generic.as_secs_f64(),
                "genericBlocks": generic_found,
                "ratioToPrevious": ratio,
            }));
            eprintln!(
                "{name} n={n}: {:.3}s ({found} blocks), generic {:.3}s",
                all.as_secs_f64(),
                generic.as_secs_f64()
            );
        }
        out.insert(name.to_owned(), Value::Array(steps));
    }
    Value::Object(out)
}

/// Every real text capture of `tests/fixtures/runners/`, repeated `r`, `4r` and `16r` times:
/// each runner's parser and the generic path on the shapes the runners really print. Gives
/// the worst step ratio and which capture it was.
fn captures_dimension(base: usize) -> Value {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/runners");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.retain(|p| p.extension().is_some_and(|e| e == "log" || e == "txt"));
    // `SCALE_CAPTURE=<part of a name>` measures only the captures that name it.
    if let Ok(part) = std::env::var("SCALE_CAPTURE") {
        names.retain(|p| p.to_string_lossy().contains(&part));
    }
    names.sort();
    let mut worst: (f64, String) = (0.0, String::new());
    let mut rows = Vec::new();
    for path in names {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut last: Option<Duration> = None;
        let mut steps = Vec::new();
        for r in [base, 4 * base, 16 * base] {
            let log = text.repeat(r);
            let (took, found) = timed(|| parse_log_with(&log, Parsers::All).blocks.len());
            if let Some(l) = last {
                // Below a millisecond the ratio is the clock's, not the parser's.
                if l.as_secs_f64() > 1e-3 {
                    let ratio = took.as_secs_f64() / l.as_secs_f64();
                    if ratio > worst.0 {
                        worst = (ratio, name.clone());
                    }
                }
            }
            last = Some(took);
            steps.push(json!({"repeats": r, "lines": log.lines().count(), "seconds": took.as_secs_f64(), "blocks": found}));
        }
        rows.push(json!({"capture": name, "steps": steps}));
    }
    eprintln!("captures: worst step ratio {:.2} ({})", worst.0, worst.1);
    json!({"worstRatio": worst.0, "worstCapture": worst.1, "captures": rows})
}

/// A diff of `files` files in `files / 8` folders, each with four hunks of a few changed lines,
/// as unified text.
fn diff_text(files: usize) -> String {
    let mut s = String::new();
    for f in 0..files {
        let path = format!("src/mod_{}/file_{f}.rs", f / 8);
        s.push_str(&format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        ));
        for h in 0..4u64 {
            let at = 1 + h * 40;
            s.push_str(&format!(
                "@@ -{at},7 +{at},8 @@ fn f{h}()\n ctx a\n ctx b\n ctx c\n-    old_{f}_{h}();\n+    new_{f}_{h}();\n+    more_{f}_{h}();\n ctx d\n ctx e\n ctx f\n"
            ));
        }
    }
    s
}

/// Files and hunks in a diff: parsing it and making its evidence (the exclusion policy, the
/// mirror search between folders, hunk splitting) at n, 4n and 16n files of four hunks each.
fn diff_dimension(base: usize) -> Value {
    let mut steps = Vec::new();
    let mut last: Option<Duration> = None;
    for files in [base, 4 * base, 16 * base] {
        let text = diff_text(files);
        let ((took, hunks), peak) = heap::peak_of(|| {
            timed(|| {
                let evidence = DiffEvidence::from_source(DiffSource::worktree(Diff::parse(&text)));
                evidence.hunks.len()
            })
        });
        let ratio = last.map(|l| took.as_secs_f64() / l.as_secs_f64().max(1e-9));
        last = Some(took);
        eprintln!(
            "diff files={files}: {:.3}s ({hunks} hunks)",
            took.as_secs_f64()
        );
        steps.push(json!({
            "files": files,
            "hunks": hunks,
            "seconds": took.as_secs_f64(),
            "peakHeapBytes": peak,
            "bytes": text.len(),
            "ratioToPrevious": ratio,
        }));
    }
    Value::Array(steps)
}

/// The issue's sizes (issue 46 item 5): 1,000, 10,000 and 100,000 failures of an unknown
/// runner and of the banner shape, and a log of 200,000 failure headers (past the 200,000-line
/// bound, so its last lines are read).
fn issue_sizes() -> Value {
    let mut out = serde_json::Map::new();
    for (name, shape) in [
        ("unknownRunner", unknown_runner as Shape),
        ("banner", banner),
    ] {
        let mut steps = Vec::new();
        for n in [1_000, 10_000, 100_000, 200_000] {
            if name == "banner" && n == 200_000 {
                continue;
            }
            let log = shape(n);
            let (all, found) = timed(|| parse_log_with(&log, Parsers::All).blocks.len());
            eprintln!("{name} n={n}: {:.3}s ({found} blocks)", all.as_secs_f64());
            steps.push(json!({
                "failures": n,
                "lines": log.lines().count(),
                "seconds": all.as_secs_f64(),
                "blocks": found,
            }));
        }
        out.insert(name.to_owned(), Value::Array(steps));
    }
    Value::Object(out)
}

fn main() {
    let base: usize = std::env::var("SCALE_BASE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let only: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let pick = |name: &str, f: &dyn Fn() -> Value| if wanted(name) { f() } else { Value::Null };
    let shapes: Vec<String> = only
        .iter()
        .filter(|o| SHAPES.iter().any(|(n, _)| n == o))
        .cloned()
        .collect();
    let report = json!({
        "schema": "stanley.bench-scale/v2",
        "triage": if wanted("triage") || !shapes.is_empty() {
            triage_dimension(base, &shapes)
        } else {
            Value::Null
        },
        "issueSizes": if std::env::var("SCALE_ISSUE").is_ok_and(|v| v == "1") {
            issue_sizes()
        } else {
            Value::Null
        },
        "diff": pick("diff", &|| diff_dimension(
            std::env::var("SCALE_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(250),
        )),
        "triageCaptures": pick("captures", &|| captures_dimension(
            std::env::var("SCALE_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(8),
        )),
        "runsKept": pick("runs", &|| stores::runs_kept(100)),
        "queueJobs": pick("queue", &|| stores::queue_jobs(250)),
        "reviewComments": pick("comments", &|| e2e::comments(60)),
        "findFiles": pick("find", &|| e2e::find_files(1000)),
        "findings": pick("findings", &|| e2e::findings(std::env::var("SCALE_FINDINGS_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(25))),
    });
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("scale.json"), &text);
    println!("{text}");
}

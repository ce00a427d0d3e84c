//! Property tests over every parser of outside input (issue 36): each fuzz target replays its
//! stored corpus and regressions, runs its structure-aware generator for a short budget, and
//! handles a 1 MB single line and a 100,000-deep document with its invariants kept. The long
//! campaign, with the 10 MB line and the figures, is the `stanley-fuzz` bench.

use stanley_tests::fuzz::{Target, Verdict, run, stored, targets};

/// The generator's time per target in CI: a few seconds for all of them.
const BUDGET_MS: u64 = 250;

fn fail_on_fault(target: &Target, what: &str, bytes: &[u8], verdict: &Verdict) {
    if verdict.is_fault() {
        let preview: String = String::from_utf8_lossy(&bytes[..bytes.len().min(400)]).into();
        panic!(
            "{}: {what} ({} bytes): {verdict}\ninput starts: {preview:?}",
            target.name,
            bytes.len()
        );
    }
}

#[test]
fn every_parser_of_outside_input_has_a_target() {
    let names: Vec<&str> = targets().iter().map(|t| t.name).collect();
    for expected in [
        "failure_log",
        "failure_log_generic",
        "report_document",
        "ci_job_log",
        "review_comments",
        "unified_diff",
        "flow_file",
        "flow_journal",
        "flow_subtasks",
        "rules_and_criteria",
        "pi_events",
        "host_messages",
        "stanley_files",
    ] {
        assert!(names.contains(&expected), "no target {expected}: {names:?}");
    }
}

#[test]
fn stored_corpus_and_regressions_keep_every_invariant() {
    for target in targets() {
        for kind in ["corpus", "regressions"] {
            for (path, bytes) in stored(kind, target.name) {
                let verdict = run(&target, &bytes);
                fail_on_fault(&target, &path.display().to_string(), &bytes, &verdict);
            }
        }
    }
}

#[test]
fn generated_inputs_keep_every_invariant() {
    for target in targets() {
        arbtest::arbtest(|u| {
            let bytes = (target.generate)(u)?;
            let verdict = run(&target, &bytes);
            fail_on_fault(&target, "a generated input", &bytes, &verdict);
            Ok(())
        })
        .budget_ms(BUDGET_MS);
    }
}

#[test]
fn a_long_single_line_and_a_deep_document_keep_every_invariant() {
    for target in targets() {
        let line = (target.long_line)(1_000_000);
        fail_on_fault(&target, "a 1 MB line", &line, &run(&target, &line));
        let deep = (target.deep)(100_000);
        fail_on_fault(
            &target,
            "a 100,000-deep document",
            &deep,
            &run(&target, &deep),
        );
    }
}

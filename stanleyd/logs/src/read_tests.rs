//! Failure-log parsing against real and realistic runner output (`tests/fixtures/logs/`).

use super::*;
use crate::text::location_in;

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/logs/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Each block's name and message, empty where it has none.
fn named_messages(log: &ParsedLog) -> Vec<(String, String)> {
    log.blocks
        .iter()
        .map(|b| {
            (
                b.test_name.clone().unwrap_or_default(),
                b.message.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn names(log: &ParsedLog) -> Vec<String> {
    log.blocks
        .iter()
        .map(|b| b.test_name.clone().unwrap_or_default())
        .collect()
}

#[test]
fn cargo_test_output_gives_one_block_per_failing_test() {
    let log = parse_log(&fixture("cargo-test.txt"));
    assert_eq!(names(&log), ["tests::divides", "tests::totals_items"]);
    assert_eq!(
        log.blocks[0].message.as_deref(),
        Some("attempt to divide by zero")
    );
    assert_eq!(log.blocks[0].stack[0], ("src/lib.rs".to_owned(), 2));
    // An assertion's message is whole: its values on their own lines.
    let message = log.blocks[1].message.as_deref().unwrap();
    assert!(
        message.starts_with("assertion `left == right` failed\nleft: "),
        "{message}"
    );
    assert!(message.contains("\nright: "), "{message}");
}

#[test]
fn cargo_nextest_output_ignores_the_summary_repeats() {
    let log = parse_log(&fixture("cargo-nextest.txt"));
    assert_eq!(names(&log), ["rs tests::divides", "rs tests::totals_items"]);
    assert_eq!(log.blocks[1].stack[0], ("src/lib.rs".to_owned(), 15));
}

#[test]
fn jest_output_gives_two_failures_one_of_them_network() {
    let log = parse_log(&fixture("jest.txt"));
    assert_eq!(
        names(&log),
        ["cart › applies discount", "api › fetches prices"]
    );
    assert_eq!(log.blocks[0].stack[0], ("src/cart.test.ts".to_owned(), 14));
    assert!(
        log.blocks[1]
            .message
            .as_deref()
            .unwrap()
            .starts_with("FetchError: request to")
    );
    assert_eq!(log.blocks[1].env_signature, Some("network"));
    assert_eq!(log.blocks[0].env_signature, None);
}

#[test]
fn pytest_output_names_the_test_once() {
    let log = parse_log(&fixture("pytest.txt"));
    assert_eq!(names(&log), ["test_dates.py::test_parse_dates"]);
    assert!(
        log.blocks[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("AssertionError: assert datetime.date")
    );
    assert!(
        log.blocks[0]
            .stack
            .contains(&("test_dates.py".to_owned(), 7))
    );
}

#[test]
fn go_tap_vitest_and_bun() {
    let go = parse_log(&fixture("go.txt"));
    assert_eq!(names(&go), ["TestDivide"]);
    assert_eq!(go.blocks[0].stack[0], ("calc_test.go".to_owned(), 18));
    let tap = parse_log(&fixture("node-tap.txt"));
    assert_eq!(names(&tap), ["applies discount"]);
    let vitest = parse_log(&fixture("vitest.txt"));
    assert_eq!(
        names(&vitest),
        ["src/cart.test.ts > cart > applies discount"]
    );
    let bun = parse_log(&fixture("bun.txt"));
    assert_eq!(
        names(&bun),
        ["cart > applies discount", "cart > loads remote prices"]
    );
    assert!(bun.blocks[1].timeout);
}

#[test]
fn clean_logs_have_no_blocks_and_limits_hold() {
    assert!(parse_log("all good\n12 passed\n").blocks.is_empty());
    // A longer log is not refused: it keeps its last lines and says what it left out.
    let big = format!(
        "{}--- FAIL: TestLast (0.00s)\n    x_test.go:3: the last one\n",
        "x\n".repeat(MAX_LOG_LINES)
    );
    let parsed = parse_log(&big);
    assert_eq!(names(&parsed), ["TestLast"]);
    assert_eq!(
        parsed.left_out,
        [
            "input lines 1-2 (2 lines) were left out to keep the last 200000; failures in them were not triaged"
        ]
    );
    let tsc = parse_log(
        "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.\n",
    );
    assert!(tsc.blocks[0].compile_error);
}

#[test]
fn ansi_crlf_and_normalization() {
    let log = parse_log("\u{1b}[31m--- FAIL: TestX (0.01s)\u{1b}[0m\r\n    x_test.go:9: boom\r\n");
    assert_eq!(names(&log), ["TestX"]);
    assert_eq!(normalize("took 12ms at 0x1f"), "took d at h");
    assert_eq!(
        normalize("Timeout of 5000 ms exceeded"),
        normalize("Timeout of 2000 ms exceeded")
    );
    assert_eq!(
        normalize("expected 'a' got \"b\" id 3fa85f64a1"),
        "expected s got s id h"
    );
}

#[test]
fn a_200_000_line_log_is_handled() {
    let mut log = String::new();
    for i in 0..199_990 {
        log.push_str(&format!("step {i} ok\n"));
    }
    log.push_str("--- FAIL: TestLate (0.01s)\n    late_test.go:3: boom\n");
    let parsed = parse_log(&log);
    assert_eq!(parsed.line_count, 199_992);
    assert_eq!(names(&parsed), ["TestLate"]);
}

#[test]
fn a_failure_printed_twice_gets_two_ids_and_one_fingerprint() {
    let log = parse_log(&fixture("go.txt").repeat(3));
    let ids: Vec<&str> = log.blocks.iter().map(|b| b.id.as_str()).collect();
    let first = ids[0].to_owned();
    assert_eq!(
        ids,
        [first.clone(), format!("{first}-2"), format!("{first}-3")]
    );
    assert!(
        log.blocks
            .iter()
            .all(|b| b.fingerprint == log.blocks[0].fingerprint)
    );
}

#[test]
fn escape_sequences_of_every_kind_are_removed_and_text_kept() {
    // CSI colours, a character-set selection (`ESC ( B`, which ncurses' sgr0 prints after
    // libtest's colours), OSC links, Buildkite's APC timestamps; tabs and carriage returns stay.
    let raw = "test a ... \u{1b}[31mFAILED\u{1b}(B\u{1b}[m\tx\r\n\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7} \u{1b}_bk;t=1\u{7}done";
    assert_eq!(strip_ansi(raw), "test a ... FAILED\tx\r\nlink done");
    // OSC links ended by ST (`ESC \`, as biome prints its rules' links): both characters go.
    let raw = "a.js:2:10 \u{1b}]8;;https://x/rule\u{1b}\\lint/rule\u{1b}]8;;\u{1b}\\ FIXABLE";
    assert_eq!(strip_ansi(raw), "a.js:2:10 lint/rule FIXABLE");
}

#[test]
fn issue_36_a_block_read_from_a_document_stays_inside_the_document() {
    // A one-line JUnit report with two failures: each block spans the document's one line (it
    // was numbered by the failure's index, past the end).
    let doc = "<testsuite><testcase name=\"a\"><failure message=\"x\">one two three</failure></testcase><testcase name=\"b\"><failure message=\"y\"/></testcase></testsuite>";
    for parsers in [Parsers::All, Parsers::GenericOnly] {
        let parsed = parse_log_with(doc, parsers);
        assert_eq!(parsed.blocks.len(), 2, "{parsers:?}");
        for b in &parsed.blocks {
            assert_eq!((b.start, b.end), (1, 1), "{parsers:?}: {b:?}");
        }
    }
}

#[test]
fn issue_36_an_xml_document_nested_past_any_report_is_read_as_text() {
    // 100,000 nested elements overflowed the stack when the tree was walked and dropped; past
    // 128 levels it is no report, and the text path reads it.
    let n = 100_000;
    let doc = format!(
        "{}<testcase name=\"t\"><failure message=\"boom\"/></testcase>{}",
        "<testsuite name=\"s\">".repeat(n),
        "</testsuite>".repeat(n)
    );
    let parsed = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || parse_log_with(&doc, Parsers::GenericOnly).line_count)
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(parsed, 1);
}

/// A go test run more than once (`-count`, or a same-named test in another package) gives each
/// result the output of its own run only; real `go test -count=2 -v` runs
/// (`tests/runners/capture go`). The fuzz campaign found the class: every result of a name was
/// given the output of all its runs.
#[test]
fn a_go_test_run_twice_keeps_each_runs_output_apart() {
    for (capture, token) in [
        ("go-v-count2-parse.txt", "= 2, want 3"),
        ("go-v-count2-parse.txt", "want [2 10 1]"),
        ("go-v-count2-parse.txt", "returned error: strconv.Atoi"),
        ("go-v-count2-bank.txt", "JPYUSD rate missing"),
    ] {
        let text = fixture(capture);
        let runs = text.matches(token).count();
        let log = parse_log(&text);
        let carrying: Vec<&FailureBlock> = log
            .blocks
            .iter()
            .filter(|b| b.lines.iter().any(|l| l.contains(token)))
            .collect();
        assert_eq!(
            carrying.len(),
            runs,
            "{capture}: {token}: {:#?}",
            log.blocks
        );
        for b in carrying {
            let copies: usize = b.lines.iter().map(|l| l.matches(token).count()).sum();
            assert_eq!(copies, 1, "{capture}: {token} in {:?}", b.lines);
        }
        let out: usize = log.blocks.iter().map(|b| b.lines.len()).sum();
        assert!(out <= text.lines().count(), "{capture}: {out} lines out");
    }
}

/// A run's closing counts are no failure of their own beside the failures they count.
#[test]
fn closing_counts_are_no_block_beside_the_failures() {
    for line in [
        "FAILED (failures=2, errors=1)",
        "✖ 3 problems (3 errors, 0 warnings)",
        "4 failed, 1 passed in 0.12s",
        "Found 2 errors in 1 file.",
        "error: 3 errors generated.",
    ] {
        assert!(crate::block::counts_only(line), "{line}");
    }
    for line in [
        "AssertionError: expected 2 failures to be reported by the parser",
        "src/a.c:3:1: error: use of undeclared identifier 'x'",
        "FAIL: test_two (tests.test_a.T)",
    ] {
        assert!(!crate::block::counts_only(line), "{line}");
    }
}

/// A network address in a message is no place in the repository: `127.0.0.1:9`,
/// `localhost:5432`, `db.internal:6379` and a URL are skipped, and the test's own frame is the
/// place (issue 49).
#[test]
fn hosts_and_ports_are_not_places() {
    for (line, want) in [
        (
            "Error: connect ECONNREFUSED 127.0.0.1:9 at test/async.test.js:3:5",
            Some(("test/async.test.js", 3)),
        ),
        ("dial tcp [::1]:8080: connection refused", None),
        ("could not reach db.internal:6379", None),
        ("GET http://example.com:80/x failed", None),
        ("listening on localhost:5432", None),
        (
            "at src/server.ts:41:7 (api.example.com:443)",
            Some(("src/server.ts", 41)),
        ),
        (
            "  File \"tests/test_api.py\", line 12, in test_get",
            Some(("tests/test_api.py", 12)),
        ),
    ] {
        let got = location_in(line);
        assert_eq!(got.as_ref().map(|(p, n)| (p.as_str(), *n)), want, "{line}");
    }
    for host in [
        "127.0.0.1",
        "10.0.0.12",
        "example.com",
        "redis.local",
        "localhost",
    ] {
        assert!(is_host(host), "{host}");
    }
    for file in ["src/app.ts", "test.py", "lib/net.go", "a.test.js"] {
        assert!(!is_host(file), "{file}");
    }
}

#[test]
fn a_go_assertion_librarys_indented_body_is_the_message() {
    // An assertion library logs a bare `file.go:12:` and its labelled body under it; a plain
    // `t.Errorf` message may continue on deeper lines. Both are the message, without the
    // lines that only say where.
    let log = "=== RUN   TestAdd\n    calc_test.go:12: \n        \tError Trace:\t/src/calc/calc_test.go:12\n        \tError:      \tNot equal: \n        \t            \texpected: 3\n        \t            \tactual  : 2\n        \tTest:       \tTestAdd\n--- FAIL: TestAdd (0.00s)\n=== RUN   TestSub\n    calc_test.go:20: got 1\n        want 2\n--- FAIL: TestSub (0.00s)\nFAIL\n";
    let parsed = parse_log(log);
    let messages: Vec<&str> = parsed
        .blocks
        .iter()
        .map(|b| b.message.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        messages,
        [
            "Error: Not equal:\nexpected: 3\nactual : 2\nTest: TestAdd",
            "got 1\nwant 2"
        ]
    );
}

#[test]
fn a_builds_warnings_beside_a_tests_failure_are_not_what_failed() {
    let warning = "src/a.c:3:5: warning: unused variable 'x' [-Wunused-variable]\n";
    let failure =
        "=== RUN   TestSub\n    calc_test.go:20: got 1 want 2\n--- FAIL: TestSub (0.00s)\nFAIL\n";
    let parsed = parse_log(&format!("{warning}{failure}"));
    assert_eq!(names(&parsed), ["TestSub"]);
    // Alone, with the step's own error line after them, the warnings are the failures.
    let parsed = parse_log(&format!("{warning}{warning}make: *** [lint] Error 1\n"));
    assert!(
        parsed
            .blocks
            .iter()
            .any(|b| b.test_name.as_deref() == Some("src/a.c:3")),
        "{:?}",
        names(&parsed)
    );
}

/// D-184: a tool's warnings beside its own errors are its findings too, after the errors, and
/// the count it states of its errors (or of both) agrees with what was read.
#[test]
fn a_tools_warnings_beside_its_errors_are_findings_after_them() {
    let log = "src/a.js:2:5: warning: 'x' is never read [no-unused]\n\
        src/a.js:4:1: error: 'y' is not defined [no-undef]\n\
        src/b.js:9:3: warning: prefer const [prefer-const]\n\
        src/b.js:12:7: error: unexpected token [syntax]\n";
    for summary in ["2 errors, 2 warnings\n", "4 problems\n"] {
        let parsed = parse_log(&format!("{log}{summary}"));
        assert_eq!(
            names(&parsed),
            ["src/a.js:4", "src/b.js:12", "src/a.js:2", "src/b.js:9"],
            "{summary}"
        );
        let warnings: Vec<bool> = parsed.blocks.iter().map(|b| b.is_warning()).collect();
        assert_eq!(warnings, [false, false, true, true]);
        assert!(
            matches!(parsed.agreement, crate::stated::Agreement::Agrees { .. }),
            "{summary}: {:?}",
            parsed.agreement
        );
    }
}

#[test]
fn the_count_of_a_log_with_a_part_left_out_judges_nothing() {
    // 45,000 banner reports (225,001 lines): the last 200,000 lines are read (the 39,999 reports
    // whole in them), and the stated count, which is the whole run's, neither agrees nor keeps
    // the reports from being read.
    let mut log = String::new();
    for i in 0..45_000 {
        log.push_str(&format!(
            "── Failure (test-calc.R:{i}): computes case {i} ──\nresult not equal to {}.\n1/1 mismatches\n[1] {i}\n\n",
            i + 1
        ));
    }
    log.push_str("[ FAIL 45000 | WARN 0 | SKIP 0 | PASS 3 ]\n");
    let parsed = parse_log(&log);
    assert!(!parsed.left_out.is_empty());
    assert_eq!(parsed.agreement, crate::stated::Agreement::Unstated);
    assert_eq!(parsed.blocks.len(), 39_999);
    assert!(
        parsed.blocks[0]
            .test_name
            .as_deref()
            .is_some_and(|n| n.starts_with("computes case "))
    );
}

/// A traceback's frames without its header line (green prints them under `Failure in …`): the
/// message is the exception left of the last frame, not a line of library code.
#[test]
fn frames_without_a_traceback_header_still_end_in_their_exception() {
    let body: Vec<String> = "Failure in tests.test_calc.CalcTest.test_add\n  File \"/usr/lib/python3.11/unittest/case.py\", line 57, in testPartExecutor\n    yield\n  File \"/t/tests/test_calc.py\", line 3, in test_add\n    self.assertEqual(2 + 2, 5)\n  File \"/usr/lib/python3.11/unittest/case.py\", line 866, in _baseAssertEqual\n    raise self.failureException(msg)\nAssertionError: 4 != 5 : sum of two and two\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        crate::line::message_of(&body).as_deref(),
        Some("AssertionError: 4 != 5 : sum of two and two")
    );
}

/// A step's own exit line (`npm run test:math exited with code 1`, npm-run-all's `ERROR: "x"
/// exited with 1.`) beside what failed in the step is no failure of its own (real output in
/// `tests/fixtures/runners/concurrently-scripts.log`, `npm-run-all-scripts.log`).
#[test]
fn a_steps_exit_line_beside_its_failures_is_no_failure() {
    let log = "TAP version 13\n# Subtest: adds\nnot ok 1 - adds\n  ---\n  error: |-\n    4 !== 5\n  ...\n1..1\n# tests 1\n# fail 1\n# duration_ms 96.2\nnpm run test:math exited with code 1\n\n> demo@1.0.0 test:text\n> node --test text.test.mjs\n\nERROR: \"test:text\" exited with 1.\n";
    let parsed = crate::parse_log(log);
    let names: Vec<Option<&str>> = parsed
        .blocks
        .iter()
        .map(|b| b.test_name.as_deref())
        .collect();
    assert_eq!(names, [Some("adds")], "{:?}", parsed.blocks);
    // Alone, the exit line is what the job failed of.
    let alone =
        crate::parse_log("> demo@1.0.0 lint\n> eslint .\n\nnpm run lint exited with code 2\n");
    assert_eq!(alone.blocks.len(), 1);
}

/// A numbered report's own numbered list (`  1) suite: name` over `    1) Error: …`, as a
/// runner that numbers each report's exceptions prints) is no header: the outer numbers head.
#[test]
fn a_numbered_list_inside_a_numbered_report_is_the_reports_own() {
    let log = "Failures:\n\n  1) ledger: sums rows\n    1) AssertionError: row total off by two\n      File \"t.py\", line 4, in sums_rows\n\n  2) ledger: closes month\n    1) KeyError: 'period_end'\n      File \"t.py\", line 9, in closes_month\n\n2 failed, 3 passed\n";
    let parsed = parse_log(log);
    let names = names(&parsed);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("sums rows") && names[1].ends_with("closes month"));
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert!(messages[0].contains("row total off by two"), "{messages:?}");
    assert!(messages[1].contains("period_end"), "{messages:?}");
}

/// TAP assertions under a `# heading` are each a failure when the count the log states counts
/// them, not the headings (tape's `# fail 3` over two headings).
#[test]
fn assertions_under_a_tap_heading_are_failures_when_the_count_says_so() {
    let log = "TAP version 13\n# pump()\nnot ok 1 Given water: should lift ten litres\n  ---\n    operator: equal\n    expected: 10\n    actual:   7\n  ...\nnot ok 2 Given air: should stall\n  ---\n    operator: equal\n    expected: true\n    actual:   false\n  ...\n# valve()\nok 3 Given a seal: should close\nnot ok 4 Given grit: should jam\n  ---\n    operator: equal\n    expected: 'jam'\n    actual:   'open'\n  ...\n\n1..4\n# tests 4\n# pass  1\n# fail  3\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "pump() › Given water: should lift ten litres",
            "pump() › Given air: should stall",
            "valve() › Given grit: should jam"
        ]
    );
    // Counted by heading, the headings stand.
    let by_heading = log.replace("# fail  3", "# fail  2");
    assert_eq!(names(&parse_log(&by_heading)), ["pump()", "valve()"]);
}

/// A status list's items close with a bracketed verdict (`  - name [FAILED]`, `[ERROR: Type]`),
/// and an exception's paragraph is the report of the test its frame names after the function
/// (`a.rb:4:in `block': Suite - name`).
#[test]
fn a_frame_that_names_its_test_makes_its_paragraph_that_tests_report() {
    let log = "Kiln\n  - fires at dawn [FAILED]\n  - cools slowly\n  - glazes evenly [ERROR: RuntimeError]\n\nSpec::Error: 900.==(1200) failed\n\tkiln_spec.rb:4:in `block (2 levels) in <top (required)>': Kiln - fires at dawn\n\tkiln_spec.rb:2:in `<top (required)>'\n\nRuntimeError: glaze bucket empty\n\n    bucket.pour\n    ^^^^^^\n\tkiln_spec.rb:9:in `block (2 levels) in <top (required)>': Kiln - glazes evenly\n\tkiln_spec.rb:2:in `<top (required)>'\n\n3 specifications (3 requirements), 1 failures, 1 errors\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["fires at dawn", "glazes evenly"]);
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert!(messages[0].starts_with("Spec::Error: 900"), "{messages:?}");
    assert!(
        messages[1].starts_with("RuntimeError: glaze bucket empty"),
        "{messages:?}"
    );
    assert!(matches!(
        parsed.agreement,
        crate::stated::Agreement::Agrees { stated: 2 }
    ));
}

/// A build tool's right-aligned task label (`    [junit] `) is a wrapper like any other, and a
/// name over a deeper line holding its verdict alone (`Testcase: x took 0.01 sec` over
/// a tab and `FAILED`, or a tab and `Caused an ERROR`) names the test.
#[test]
fn a_right_aligned_task_label_and_a_name_over_its_verdict() {
    let mut log = String::from(
        "test:\n    [mkdir] Created dir: /w/reports\n    [junit] Running MeterTest\n    [junit] Tests run: 4, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.1 sec\n    [junit] \n",
    );
    for (name, verdict, message) in [
        ("readsDial", "FAILED", "dial reading off by one notch"),
        (
            "resetsCounter",
            "Caused an ERROR",
            "counter register was locked",
        ),
    ] {
        log.push_str(&format!(
            "    [junit] Testcase: {name} took 0.004 sec\n    [junit] \t{verdict}\n    [junit] {message}\n    [junit] java.lang.AssertionError: {message}\n    [junit] \tat MeterTest.{name}(Unknown Source)\n    [junit] \n"
        ));
    }
    log.push_str("    [junit] Test MeterTest FAILED\n\nBUILD FAILED\n");
    let parsed = parse_log(&log);
    let named: Vec<String> = parsed
        .blocks
        .iter()
        .filter(|b| b.test_name.is_some())
        .map(|b| b.test_name.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        named,
        ["readsDial", "resetsCounter"],
        "{:?}",
        names(&parsed)
    );
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .filter_map(|b| b.message.clone())
        .collect();
    assert!(
        messages[0].contains("dial reading off by one notch"),
        "{messages:?}"
    );
}

/// A place and a severity with nothing after them but codes head the indented lines under
/// them (GHC's `a.hs:6:12: error: [GHC-83865]` over `    • Couldn't match …`).
#[test]
fn a_place_and_a_severity_alone_head_the_message_under_them() {
    let log = "\nSrc/Tally.hs:6:12: error: [GHC-83865]\n    • Couldn't match expected type ‘Double’ with actual type ‘Int’\n    • In the expression: sum xs\n  |\n6 | total xs = sum xs\n  |            ^^^^^^\n\nSrc/Tally.hs:9:3: error:\n    • Variable not in scope: totl\n  |\n9 |   totl\n  |   ^^^^\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["Src/Tally.hs:6", "Src/Tally.hs:9"]);
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert!(
        messages[0].starts_with("Couldn't match expected type"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("Variable not in scope"),
        "{messages:?}"
    );
}

/// A table of `line | severity | message` rows under a header naming the file, with rules and
/// a count of its findings between them and the header, and rows that wrap into the message
/// column: each row a finding named by the file and its line, its fixable mark no part of it.
#[test]
fn a_table_of_severity_rows_under_its_file_header() {
    let log = "\nFILE: /w/src/Cart.php\n----------------------------------------------------------------------\nFOUND 3 ERRORS AFFECTING 2 LINES\n----------------------------------------------------------------------\n  3 | ERROR   | [ ] Class name \"cart_store\" is not in PascalCase\n    |         |     format\n  3 | WARNING | [x] Opening brace should be on a new line\n  8 | ERROR   | [x] Inline control structures are not allowed\n----------------------------------------------------------------------\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "/w/src/Cart.php:3",
            "/w/src/Cart.php:8",
            "/w/src/Cart.php:3"
        ]
    );
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        messages[0],
        "Class name \"cart_store\" is not in PascalCase format"
    );
    assert!(parsed.blocks[2].is_warning());
    // A quoted source row (`6 | total = …`) has no severity field and is no finding.
    let quoted = parse_log(
        "a.hs:6:3: error:\n    Variable not in scope: totl\n  |\n6 | total = totl\n  |         ^^^^\n",
    );
    assert_eq!(names(&quoted), ["a.hs:6"]);
}

/// A labelled field naming the test under a failure's header (`rig.cpp:24:Assertion` over
/// `Test name: RigTest::testLift`) names that record, a paragraph, its message under the label.
#[test]
fn a_labelled_test_name_under_a_records_header() {
    let log = ".F.E\n\nrig.cpp:24:Assertion\nTest name: RigTest::testLift\nequality assertion failed\n- Expected: 4\n- Actual  : 2\n\n##Failure Location unknown## : Error\nTest name: RigTest::testLower\nuncaught exception of type std::exception (or derived).\n- hydraulic line pressure lost\n\nFailures !!!\nRun: 4   Failure total: 2   Failures: 1   Errors: 1\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["RigTest::testLift", "RigTest::testLower"]);
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert!(
        messages[0].starts_with("equality assertion failed"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("hydraulic line pressure lost"),
        "{messages:?}"
    );
    assert!(matches!(
        parsed.agreement,
        crate::stated::Agreement::Agrees { stated: 2 }
    ));
}

/// A status list, then rule-framed sections headed by a verdict alone and closed by the test's
/// id alone on their last line (twisted trial's): each section named by its footer.
#[test]
fn a_framed_section_is_named_by_the_id_on_its_last_line() {
    let rule = "=".repeat(79);
    let mut log = String::from(
        "depot.test_crane\n  CraneTests\n    test_hoist ...                                         [FAIL]\n    test_swing ...                                        [ERROR]\n    test_park ...                                           [OK]\n\n",
    );
    for (verdict, name, error) in [
        (
            "FAIL",
            "test_hoist",
            "twisted.trial.unittest.FailTest: 3 != 4",
        ),
        (
            "ERROR",
            "test_swing",
            "builtins.KeyError: 'boom_angle_limit'",
        ),
    ] {
        log.push_str(&format!(
            "{rule}\n[{verdict}]\nTraceback (most recent call last):\n  File \"/w/depot/test_crane.py\", line 8, in {name}\n    self.check()\n{error}\n\ndepot.test_crane.CraneTests.{name}\n"
        ));
    }
    log.push_str(&format!(
        "{rule}\n\nRan 3 tests in 0.012s\n\nFAILED (failures=1, errors=1, successes=1)\n"
    ));
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        [
            "depot.test_crane.CraneTests.test_hoist",
            "depot.test_crane.CraneTests.test_swing"
        ]
    );
    let messages: Vec<String> = parsed
        .blocks
        .iter()
        .map(|b| b.message.clone().unwrap_or_default())
        .collect();
    assert!(messages[0].contains("3 != 4"), "{messages:?}");
    assert!(messages[1].contains("boom_angle_limit"), "{messages:?}");
    // Without the list, the sections' verdict headers are the reading, named by their footers.
    let unlisted = log.replace("[FAIL]\n    test_swing", "\n    test_swing");
    let unlisted = unlisted.replace(" ...                                        [ERROR]", "");
    let unlisted = unlisted.replace(" ...                                         [FAIL]", "");
    assert_eq!(
        names(&parse_log(&unlisted)),
        [
            "depot.test_crane.CraneTests.test_hoist",
            "depot.test_crane.CraneTests.test_swing"
        ]
    );
}

/// A runner's bracketed marks (`[----]`, `[FAIL]`, `[====]`) are its report's structure, not
/// stream labels; a verdict giving the test's time closes the report above it even when the
/// first failing test printed nothing; what follows a name's colon is why it failed.
#[test]
fn bracketed_marks_are_a_reports_structure_and_a_timed_verdict_closes_it() {
    let log = "[FAIL] pump::primes: (0.00s)\n[----] test_pump.c:8: Assertion Failed\n[----]   \n[----]   valve opened before prime finished\n[----]   \n[FAIL] pump::flows: (0.00s)\n[----] test_pump.c:12: Assertion Failed\n[----]   eq(int, 40, 44): \n[FAIL] pump::rates: (0.00s)\n[FAIL] pump::seizes: CRASH!\n[====] Synthesis: Tested: 5 | Passing: 1 | Failing: 4 | Crashing: 1 \n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["pump::primes", "pump::flows", "pump::rates", "pump::seizes"]
    );
    let flows = &parsed.blocks[1];
    assert!(
        flows
            .lines
            .iter()
            .any(|l| l.contains("valve opened before prime finished")),
        "{:?}",
        flows.lines
    );
}

/// A file's progress marks are no test's name (`test_dock.py EF.F  FAIL`); reports headed by a
/// verdict letter (` - 1/1 E (time):`) are named by the numbered banner right above them
/// (`== #1: test_dock.py:test_moor ====`); a sentence's end parts two counts
/// (`2 erroneous. Total duration: 00:00:01`).
#[test]
fn reports_under_numbered_banners_are_named_by_them() {
    let rule = "=".repeat(30);
    let mut log =
        String::from("4 tests collected\ntest_dock.py EF.F  FAIL\n=== Session Summary ===\n");
    for (n, name, mark, error) in [
        (1, "test_dock.py:test_moor", "E", "KeyError: 'berth_nine'"),
        (
            2,
            "test_dock.py:test_winch",
            "F",
            "AssertionError: assert 3 == 4",
        ),
        (
            4,
            "test_dock.py:test_tide",
            "F",
            "AssertionError: assert 'ebb' == 'flood'",
        ),
    ] {
        log.push_str(&format!(
            "== #{n}: {name} {rule}\n - 1/1 {mark} (2026-12-05 02:29:26 +00:00):   - - - - - - - -\n /w/dock/test_dock.py:{n}\n>    check()\n{mark}    {error}\n"
        ));
    }
    log.push_str(
        "= Session ended. 1 successful, 2 failed, 1 erroneous. Total duration: 00:00:01 =\n",
    );
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        [
            "test_dock.py:test_moor",
            "test_dock.py:test_winch",
            "test_dock.py:test_tide"
        ]
    );
    assert!(matches!(
        parsed.agreement,
        crate::stated::Agreement::Agrees { stated: 3 }
    ));
}

/// A subtest's assertions printed before its own point (TAP 14) under a comment naming it, with
/// no `# Subtest:` line (brittle's): its report runs from the comment through its point.
#[test]
fn a_subtests_assertions_before_its_point_are_its_report() {
    let log = "TAP version 13\n\n# ferry timetable\n    not ok 1 - last sailing is at dusk\n      ---\n      actual: 19\n      expected: 21\n      operator: is\n      ...\nnot ok 1 - ferry timetable # time = 3.1ms\n\n# harbour fees\n    ok 1 - should be equal\nok 2 - harbour fees # time = 0.2ms\n\n1..2\n# tests = 1/2 pass\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["ferry timetable"]);
    let block = &parsed.blocks[0];
    assert!(
        block.lines.iter().any(|l| l.contains("actual: 19")),
        "{:?}",
        block.lines
    );
    assert!(
        block.lines[0].contains("# ferry timetable"),
        "{:?}",
        block.lines
    );
}

/// An upper-case verdict with its kind in brackets, then a place (`----- FAILED[data]:
/// a.R<2--2>`, and one-line reports `FAILED[xcpt]: a.R<6--6> call(…)`), names each report by
/// its place, whether the report has labelled rows (`call|`, `diff|`) under it or not.
#[test]
fn a_verdict_with_its_kind_in_brackets_names_the_place_after_it() {
    let log = "test_fleet.R..........    4 tests 3 fails  40ms\n----- FAILED[data]: test_fleet.R<2--2>\n call| expect_equal(total_boats(), 12)\n diff| Expected '12', got '11'\n ----- FAILED[data]: test_fleet.R<4--4>\n call| expect_true(all_moored())\n diff| Expected TRUE, got FALSE\n FAILED[xcpt]: test_fleet.R<6--6> expect_error(sail(\"north\"), pattern = \"gale\")\n \nShowing 3 out of 4 results: 3 fails, 1 passes (44ms)\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "test_fleet.R<2--2>",
            "test_fleet.R<4--4>",
            "test_fleet.R<6--6>"
        ]
    );
    assert!(
        parsed.blocks[1]
            .lines
            .iter()
            .any(|l| l.contains("got FALSE"))
    );
}

/// A job that failed outside any test: a crash whose stack closes with an inspected object
/// shows its headline, not the object's tail; a package manager's long error run shows its
/// head (the reason), not its help text.
#[test]
fn a_jobs_reason_is_above_an_object_dump_and_at_the_head_of_an_error_run() {
    let mut crash = String::from(
        "> build\n> node scripts/build.js\n\nError: manifest checksum mismatch for assets/app.css\n",
    );
    for k in 0..8 {
        crash.push_str(&format!(
            "    at step{k} (/w/scripts/build.js:{}:7)\n",
            10 + k
        ));
    }
    crash.push_str("    at async main (/w/scripts/build.js:40:3) {\n  code: 'EBADSUM',\n  detail: {\n    expected: 'a1b2',\n    actual: 'c3d4',\n    files: [\n      'assets/app.css',\n      'assets/app.js'\n    ]\n  },\n  retryable: false,\n  attempts: 3,\n  source: 'cache',\n  stage: 'verify'\n}\n\nNode.js v24.1.0\nError: Process completed with exit code 1.\n");
    let parsed = parse_log(&crash);
    let first = &parsed.blocks[0];
    assert!(
        first
            .lines
            .iter()
            .any(|l| l.contains("manifest checksum mismatch")),
        "{:?}",
        first.lines
    );
    let mut npm = String::from(
        "Run npm ci\nnpm error code EUSAGE\nnpm error\nnpm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.\nnpm error\nnpm error Missing: left-trim@2.0.1 from lock file\nnpm error\nnpm error Clean install a project\n",
    );
    for k in 0..40 {
        npm.push_str(&format!(
            "npm error   --option-{k}\nnpm error     What option {k} does.\n"
        ));
    }
    npm.push_str("npm error A complete log of this run can be found in: /home/u/.npm/_logs/debug-0.log\nError: Process completed with exit code 1.\n");
    let parsed = parse_log(&npm);
    let first = &parsed.blocks[0];
    assert!(
        first
            .lines
            .iter()
            .any(|l| l.contains("Missing: left-trim@2.0.1")),
        "{:?}",
        first.lines
    );
}

/// Two suites of different shapes in one log (`make -k` over two runners): numbered reports of
/// one and verdict-led reports framed by rules of the other are all read, and a short report
/// between two rules is no frame's title.
#[test]
fn two_suites_of_different_shapes_in_one_log_are_both_read() {
    let rule = "-".repeat(70);
    let mut log = String::from("make -k\nlua run_tests.lua\nFailed tests:\n-------------\n");
    for (n, name, msg) in [
        (1, "TestGate.testOpen", "gate hinge seized"),
        (2, "TestGate.testLatch", "latch spring missing"),
    ] {
        log.push_str(&format!(
            "{n}) {name}\ntest_gate.lua:{n}: {msg}\nstack traceback:\n\ttest_gate.lua:{n}: in function '{name}'\n\n"
        ));
    }
    log.push_str("Ran 3 tests in 0.001 seconds, 1 success, 2 failures\nmake: *** [Makefile:4: lua] Error 1\npython -m oktest fence_test.py\n* FenceTest\n  - [Fail] posts are level\n  - [ERROR] wire is taut\n");
    for (n, verdict, name, error) in [
        (
            1,
            "Fail",
            "posts are level",
            "AssertionError: 3 == 4 : failed.",
        ),
        (2, "ERROR", "wire is taut", "ValueError: wire gauge unknown"),
    ] {
        log.push_str(&format!(
            "{rule}\n[{verdict}] FenceTest > 00{n}: {name}\n  File \"fence_test.py\", line {n}, in _\n    check()\n{error}\n"
        ));
    }
    log.push_str(&format!("{rule}\n## total:3, pass:1, fail:1, error:1, skip:0, todo:0  (0.001 sec)\nmake: *** [Makefile:8: python] Error 1\n"));
    let parsed = parse_log(&log);
    let named: Vec<String> = names(&parsed);
    assert_eq!(
        named,
        [
            "TestGate.testOpen",
            "TestGate.testLatch",
            "FenceTest > 001: posts are level",
            "FenceTest > 002: wire is taut"
        ],
        "{named:?}"
    );
}

/// A log cut into sections by one repeated rule (doctest's `*****`), each section a failure
/// named by what its first line says it is in, when their number is the stated count.
#[test]
fn sections_between_one_repeated_rule_are_the_reports() {
    let rule = "*".repeat(70);
    let mut log = String::new();
    for (line, name, expected, got) in [
        (6, "tide.slug", "'high-water'", "'high--water'"),
        (15, "tide.initials", "'HW'", "'hw'"),
        (28, "tide.knots", "12", "11"),
    ] {
        log.push_str(&format!(
            "{rule}\nFile \"/w/tide.py\", line {line}, in {name}\nFailed example:\n    {name}(x)\nExpected:\n    {expected}\nGot:\n    {got}\n"
        ));
    }
    log.push_str(&format!("{rule}\n3 items had failures:\n   1 of   3 in tide.slug\n   1 of   1 in tide.initials\n   1 of   2 in tide.knots\n***Test Failed*** 3 failures.\n"));
    let parsed = parse_log(&log);
    assert_eq!(names(&parsed), ["tide.slug", "tide.initials", "tide.knots"]);
    assert!(parsed.blocks[1].lines.iter().any(|l| l.contains("'hw'")));
}

/// Stylish rows of other shapes under their file: a severity word and a colon first, unindented,
/// under the file with its first place (`ERROR: 2:14  rule  message` under `a.ts:1:1`,
/// tslint's); a line alone as `#L` or `#L-L` under a marked file (`✗ a.coffee` over `✗ #3:
/// message (rule)`, `⚡ #13-13: …`, coffeelint's). Each row a finding named by file and line.
#[test]
fn stylish_rows_with_worded_severities_and_line_marks() {
    let log = "buoy.ts:1:1\nERROR: 1:1   no-var-keyword  Forbidden 'var' keyword\nWARNING: 1:5   prefer-const    Identifier 'depth' is never reassigned\nERROR: 4:14  class-name      Class name must be in pascal case\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["buoy.ts:1", "buoy.ts:4", "buoy.ts:1"]);
    assert!(parsed.blocks[2].is_warning());
    let log = "\n  ✗ lib/tide.coffee\n     ✗ #1: Class name should be UpperCamelCased. (camel_case_classes)\n     ✗ #6: Line contains tab indentation. (no_tabs)\n     ⚡ #13-13: Found debugging code. (no_debugger)\n\n✗ Lint! » 2 errors and 1 warning in 1 file\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "lib/tide.coffee:1",
            "lib/tide.coffee:6",
            "lib/tide.coffee:13"
        ]
    );
    assert!(parsed.blocks[2].is_warning());
}

/// Warnings in a stream of their own beside another stream's test failures (`types.1 |` and
/// `spec.1 |` under one process manager) are that tool's findings, with its errors.
#[test]
fn a_tools_warnings_in_its_own_stream_stay_beside_another_streams_failures() {
    let mut log = String::new();
    for k in 0..4 {
        log.push_str(&format!("10:00:0{k} spec.1  | ok {k} - passes\n"));
    }
    log.push_str("10:00:05 spec.1  | not ok 5 - lifts the gate\n10:00:05 spec.1  |   ---\n10:00:05 spec.1  |   message: gate stuck at 40cm\n10:00:05 spec.1  |   ...\n10:00:05 spec.1  | 1..5\n");
    log.push_str("10:00:06 types.1 | src/gate.ts:3:1: error: 'x' is not defined [no-undef]\n10:00:06 types.1 | src/gate.ts:9:5: warning: prefer const [prefer-const]\n10:00:06 types.1 | src/gate.ts:12:2: error: missing return [consistent-return]\n");
    let parsed = parse_log(&log);
    let named = names(&parsed);
    assert!(named.contains(&"src/gate.ts:9".to_owned()), "{named:?}");
    assert!(
        named.iter().any(|n| n.contains("lifts the gate")),
        "{named:?}"
    );
}

/// A header's token whose words vary from header to header (`GateTest.test_lift`,
/// `GateTest.test_seal`) is the name, however it masks; only figures, verdicts, rules and
/// places vary in decoration (`fail: test_lock GateTest.test_lift`, Yelp's testify).
#[test]
fn a_token_whose_words_vary_is_the_name_not_decoration() {
    let mut log = String::from(".\n");
    for (verdict, name, error) in [
        (
            "error",
            "GateTest.test_lift",
            "RuntimeError: hoist offline at lock two",
        ),
        (
            "fail",
            "GateTest.test_seal",
            "AssertionError: assertion failed: 3 > 9",
        ),
        (
            "fail",
            "PaddleTest.test_open",
            "AssertionError: assertion failed: l == r",
        ),
    ] {
        log.push_str(&format!(
            "{verdict}: test_lock {name}\nTraceback (most recent call last):\n  File \"/w/test_lock.py\", line 8, in {}\n    check()\n{error}\n\n",
            name.split('.').nth(1).unwrap_or("")
        ));
    }
    log.push_str(
        "FAILED.  4 tests / 2 cases: 1 passed, 2 failed, 1 errored.  (Total test time 0.01s)\n",
    );
    let parsed = parse_log(&log);
    let named = names(&parsed);
    for want in [
        "GateTest.test_lift",
        "GateTest.test_seal",
        "PaddleTest.test_open",
    ] {
        assert!(named.iter().any(|n| n.ends_with(want)), "{named:?}");
    }
}

/// A test announced as it starts (`Testing store:prop_sorted/0`) names the report under it
/// whose verdict names nothing but a count (`Failed: After 12 test(s).`, PropEr's).
#[test]
fn a_test_announced_as_it_starts_names_its_nameless_verdict() {
    let mut log = String::new();
    for (name, dots, counterexample, message) in [
        ("store:prop_sorted/0", 300, "", ""),
        (
            "store:prop_merge/0",
            12,
            "[3,1]",
            "merge of [3,1] lost an element",
        ),
        ("store:prop_split/0", 300, "", ""),
        (
            "store:prop_size/0",
            4,
            "{0,2}",
            "size of an empty shelf is 2",
        ),
    ] {
        log.push_str(&format!("Testing {name}\n{}", ".".repeat(dots)));
        if message.is_empty() {
            log.push_str(&format!("\nOK: Passed {dots} test(s).\n\n"));
        } else {
            log.push_str(&format!(
                "!\nFailed: After {dots} test(s).\n{counterexample}\n{message}\n\nShrinking (0 time(s))\n{counterexample}\n{message}\n\n"
            ));
        }
    }
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        ["store:prop_merge/0", "store:prop_size/0"],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[1]
            .lines
            .join("\n")
            .contains("size of an empty shelf")
    );
}

/// A runner that prints each failure as a diagnostic names the test in its message
/// (`tests.cpp:9:1: error: Failure in Rounding: Expected 3 but was 2`, UnitTest++'s); a
/// restated count (`3 out of 8 tests failed (3 failures)`) is one count.
#[test]
fn a_diagnostic_that_names_its_failing_test_is_that_tests_failure() {
    let log = "tests.cpp:9:1: error: Failure in Rounding: Expected 3 but was 2\n\
               tests.cpp:14:1: error: Failure in ParsesDate: Expected 2024 but was 1970\n\
               tests.cpp:20:1: error: Failure in Overflow: Unhandled exception: range\n\
               FAILURE: 3 out of 8 tests failed (3 failures).\n\
               Test time: 0.01 seconds.\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["Rounding", "ParsesDate", "Overflow"]);
    assert_eq!(parsed.agreement, Agreement::Agrees { stated: 3 });
}

/// A checker's header that holds only its severity and a place (`Error ----- a.js:4:17`,
/// flow's), the message under it, is named by the place.
#[test]
fn a_severity_and_a_place_over_a_message_name_it_by_the_place() {
    let rule = "-".repeat(80);
    let mut log = String::new();
    for (place, message) in [
        (
            "boxes.js:4:17",
            "Cannot call `boxes.map` because: [incompatible-type]",
        ),
        (
            "boxes.js:9:3",
            "Cannot assign `total` to `n` because `number` is incompatible with `string`.",
        ),
        (
            "shelf.js:2:10",
            "Cannot get `s.height` because property `height` is missing in `null`.",
        ),
    ] {
        log.push_str(&format!(
            "Error {rule} {place}\n\n{message}\n\n   {place}\n   4|   return boxes.map(b => b.w);\n\n"
        ));
    }
    log.push_str("\n\nFound 3 errors\n");
    let parsed = parse_log(&log);
    let named = names(&parsed);
    assert_eq!(named.len(), 3, "{named:?}");
    for (name, place) in named.iter().zip(["boxes.js:4", "boxes.js:9", "shelf.js:2"]) {
        assert!(name.starts_with(place), "{named:?}");
    }
}

/// Headers that do not tell their failures apart (`problem: assertion failed`) give way to
/// the line just above each, one for one, whose names do (TUT's `---> group: g, test:
/// test<2> : name`): the record starts there and is named by it.
#[test]
fn a_record_is_named_by_its_top_line_when_the_verdict_under_it_names_nothing() {
    let mut log = String::from("\nmill: .[2=F][3=F].[5=X]\n\n");
    for (k, name, problem, message) in [
        (
            2,
            "grinds fine",
            "assertion failed",
            "failed assertion: \"grain size 3\"",
        ),
        (
            3,
            "wheel speed",
            "assertion failed",
            "failed assertion: \"rpm 12 > 10\"",
        ),
        (
            5,
            "sluice gate",
            "unexpected exception",
            "message: \"gate jammed\"",
        ),
    ] {
        log.push_str(&format!(
            "---> group: mill, test: test<{k}> : {name}\n     problem: {problem}\n     {message}\n\n"
        ));
    }
    log.push_str("tests summary: exceptions:1 failures:2 ok:2\n");
    let parsed = parse_log(&log);
    let named = names(&parsed);
    assert_eq!(named.len(), 3, "{named:?}");
    for (name, want) in named
        .iter()
        .zip(["grinds fine", "wheel speed", "sluice gate"])
    {
        assert!(name.ends_with(want), "{named:?}");
    }
}

/// `FAILURE in test.x: Error in check(…) :` (RUnit's protocol): a verdict, `in`, the test's
/// id, then its message; the protocol's counts agree.
#[test]
fn a_verdict_in_a_tests_id_heads_that_tests_report() {
    let log = "RUNIT TEST PROTOCOL -- Sat Dec  5 08:01:45 2026 \n\
               *********************************************** \n\
               Number of test functions: 5 \n\
               Number of errors: 1 \n\
               Number of failures: 2 \n\n \n\
               1 Test Suite : \n\
               tides - 5 test functions, 1 error, 2 failures\n\
               FAILURE in test.high_water: Error in checkEquals(12, peak(3)) : \n  \
               Mean relative difference: 0.25\n\n\
               FAILURE in test.neap_range: Error in checkTrue(range(7) < 2) : \n  \
               Test not TRUE\n\n\
               ERROR in test.gauge_feed: Error in func() : gauge socket closed\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["test.high_water", "test.neap_range", "test.gauge_feed"]
    );
    assert!(
        parsed.blocks[0]
            .lines
            .join("\n")
            .contains("Mean relative difference: 0.25")
    );
}

/// A bracketed code between the place and the colon (`a.py:5:5 [FURB101]: message`, refurb's)
/// and a numbered finding placed in words under its file's line, its message under it
/// (`a.css` / `3: warning at line 8, col 1` / `message`, csslint's) are findings.
#[test]
fn a_bracketed_code_after_the_place_and_a_place_in_words_under_a_file() {
    let log = "mill.py:5:5 [FURB101]: Replace `with open(x) as f: y = f.read()` with `y = Path(x).read_text()`\n\
               mill.py:9:12 [FURB138]: Consider using list comprehension\n\n\
               Run `refurb --explain ERR` to further explain an error.\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["mill.py:5", "mill.py:9"]);
    assert_eq!(
        parsed.blocks[1].message.as_deref(),
        Some("Consider using list comprehension")
    );
    let log = "\n\ncsslint: There are 2 problems in /w/site.css.\n\n\
               site.css\n1: warning at line 2, col 1\nDon't use IDs in selectors.\n#nav { color: red; }\n\n\
               site.css\n2: error at line 9, col 1\n@import not allowed here.\n@import url(\"a.css\");\n";
    let parsed = parse_log(log);
    let mut named = names(&parsed);
    named.sort();
    assert_eq!(named, ["site.css:2", "site.css:9"]);
    assert!(
        parsed
            .blocks
            .iter()
            .any(|b| b.lines.iter().any(|l| l == "@import not allowed here."))
    );
}

/// A runner that prints its tree as it runs opens each scope (`◌ title`) and closes it with the
/// title and its duration (`● title › 2.4ms`): the closing lines report nothing, and a failure
/// inside is named by the scopes it stands in (poku's).
#[test]
fn closing_lines_report_nothing_and_a_failure_is_named_by_its_scopes() {
    let log = "› test/press.test.js › 120.5ms\n\
               \x20 ◌ Cider press\n\
               \x20   ◌ crushes apples\n\
               \x20     ✔ ten apples give a litre\n\
               \x20   ● crushes apples › 0.21ms\n\
               \x20   ◌ filters pulp\n\
               \x20     ✘ pulp left in the jug\n\
               \x20           File test/press.test.js:9:12\n\
               \x20           Code ERR_ASSERTION\n\
               \x20       Actual:\n\
               \x20       3\n\
               \x20       Expected:\n\
               \x20       0\n\
               \x20   ● filters pulp › 1.91ms\n\
               \x20 ● Cider press › 4.02ms\n\
               \x20 ◌ bottling\n\
               \x20   ✘ cork count off by two\n\
               \x20 ● bottling › 0.33ms\n\n\
               \x20PASS › 0   FAIL › 1 \n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "Cider press › filters pulp › pulp left in the jug",
            "bottling › cork count off by two"
        ],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[0]
            .lines
            .iter()
            .any(|l| l.contains("Expected:"))
    );
}

/// A task runner pads its stream labels to one width (` till:test | `, `ovens:test | `, moon's):
/// a padded label ending in ` | ` is a stream's like any other.
#[test]
fn a_padded_pipe_label_is_a_stream_label() {
    let mut log = String::from("▮▮▮▮ Executing action pipeline\n");
    for row in [
        "csslint: There are 2 problems in /w/site.css.",
        "",
        "site.css",
        "1: warning at line 2, col 1",
        "Don't use IDs in selectors.",
        "#nav { color: red; }",
        "",
        "site.css",
        "2: error at line 9, col 1",
        "@import not allowed here.",
        "@import url(\"a.css\");",
    ] {
        log.push_str(&format!(" till:test | {row}\n"));
    }
    log.push_str("▮▮▮▮ till:test (191ms)\n");
    for row in ["checking 3 files", "", "all good", "done"] {
        log.push_str(&format!("ovens:test | {row}\n"));
    }
    let parsed = parse_log(&log);
    let mut named = names(&parsed);
    named.sort();
    assert_eq!(named, ["site.css:2", "site.css:9"], "{:#?}", parsed.blocks);
}

/// Records of labelled fields, one per failure (`Test:`, `Suite:`, `File:`, `Line:`,
/// `Message:`, CppTest's verbose output, which says "failed" nowhere): named by the test's
/// field, their message the message's.
#[test]
fn records_of_labelled_fields_are_failures_named_by_their_test_field() {
    let mut log = String::from(
        "MillSuite: 0/3MillSuite: 1/3MillSuite: 3/3, 33% correct in 0.000013 seconds\n",
    );
    for (test, line, message) in [
        (
            "grinds_fine",
            12,
            "grain size should be 3: Got 5, expected 3",
        ),
        ("wheel_speed", 19, "rpm(12) < 10"),
    ] {
        log.push_str(&format!(
            "\tTest:    {test}\n\tSuite:   MillSuite\n\tFile:    test_mill.cpp\n\tLine:    {line}\n\tMessage: {message}\n\n"
        ));
    }
    log.push_str("Total: 3 tests, 33% correct in 0.000013 seconds\n");
    let parsed = parse_log(&log);
    assert_eq!(names(&parsed), ["grinds_fine", "wheel_speed"]);
    assert_eq!(parsed.blocks[1].message.as_deref(), Some("rpm(12) < 10"));
}

/// Two tools' streams under one task runner (`props.1 | `, `style.1 | `, node-foreman's) are
/// logs of their own: each is read with the count it states, so the linter's count does not
/// choose the reading of the property tests beside it.
#[test]
fn each_labelled_stream_is_read_with_its_own_count() {
    let mut props = Vec::new();
    for (name, dots, message) in [
        ("hive:prop_sorted/0", 300, ""),
        (
            "hive:prop_linear/0",
            37,
            "yield for 13 frames is 38, not linear",
        ),
        ("hive:prop_queen/0", 1, "queen of age 5 rejected"),
        ("hive:prop_frames/0", 4, "frame 3 missing from the map"),
    ] {
        props.push(format!("Testing {name}"));
        props.push(format!(
            "{}{}",
            ".".repeat(dots),
            if message.is_empty() { "" } else { "!" }
        ));
        if message.is_empty() {
            props.push(format!("OK: Passed {dots} test(s)."));
            props.push(String::new());
        } else {
            props.push(format!("Failed: After {} test(s).", dots + 1));
            props.push("13".into());
            props.push(message.into());
            props.push("Shrinking .(1 time(s))".into());
            props.push("9".into());
            props.push(message.into());
        }
    }
    let mut style = vec!["Starting audit...".to_owned()];
    for (line, rule) in [
        (1, "JavadocPackage"),
        (4, "FinalParameters"),
        (9, "MagicNumber"),
        (12, "LeftCurly"),
    ] {
        style.push(format!(
            "[ERROR] /w/src/Pier.java:{line}: Something about the code. [{rule}]"
        ));
    }
    style.push("Audit done.".into());
    style.push("Checkstyle ends with 4 errors.".into());
    let mut log = String::new();
    for (k, line) in props.iter().enumerate() {
        log.push_str(&format!("8:06:37 AM props.1 |  {line}\n"));
        if let Some(s) = style.get(k) {
            log.push_str(&format!("8:06:38 AM style.1 |  {s}\n"));
        }
    }
    let parsed = parse_log(&log);
    let named = names(&parsed);
    for want in [
        "hive:prop_linear/0",
        "hive:prop_queen/0",
        "hive:prop_frames/0",
        "Pier.java:9",
    ] {
        assert!(named.iter().any(|n| n.contains(want)), "{want}: {named:?}");
    }
}

/// A severity, a file and its line in words anywhere on a line are a finding
/// (`a.pp - ERROR: tab character found on line 2 (check: hard_tabs)`, puppet-lint's; `***
/// ERROR: unknown link at line 21 in file lib/A.pm`, podchecker's), the last `line N` its line;
/// a place with the function between file and line (`a.py:pay:7: DAR101: …`, darglint's); and
/// a test's record after a place (`t.c:7:test_x:FAIL: Expected 3 Was 2`, Unity's) names the
/// test, its `IGNORE` record no failure.
#[test]
fn places_in_words_anywhere_scoped_places_and_test_records_after_a_place() {
    let log = "manifests/mill.pp - ERROR: tab character found on line 2 (check: hard_tabs)\n\
               manifests/mill.pp - WARNING: class not documented on line 1 (check: documentation)\n\
               *** ERROR: '=item' outside of any '=over' at line 29 in file lib/Kiln/Fire.pm\n\
               lib/Kiln/Fire.pm has 1 pod syntax error.\n\
               payroll/wages.py:gross_pay:7: DAR101: Missing parameter(s) in Docstring: - factor\n\
               PHP Parse error:  Unclosed '{' on line 2 in src/Open.php on line 6\n";
    let parsed = parse_log(log);
    let mut named = names(&parsed);
    named.sort();
    assert_eq!(
        named,
        [
            "lib/Kiln/Fire.pm:29",
            "manifests/mill.pp:1",
            "manifests/mill.pp:2",
            "payroll/wages.py:7",
            "src/Open.php:6"
        ],
        "{:#?}",
        parsed.blocks
    );
    let log = "test_vent.c:19:test_clamp_low:PASS\n\
               test_vent.c:7:test_clamp_high:FAIL: Expected 30 Was 31\n\
               test_vent.c:15:test_calibration:IGNORE: rig not attached\n\
               test_vent.c:16:test_defrost:FAIL:defrost cycle never ends\n\n\
               -----------------------\n4 Tests 2 Failures 1 Ignored \nFAIL\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["test_clamp_high", "test_defrost"]);
}

/// A linter's warnings in one run with its errors stay beside another tool's test failures
/// (puppet-lint's `WARNING` rows among its `ERROR` rows, then cram's failed tests, under gulp).
#[test]
fn warnings_in_one_run_with_errors_stay_beside_test_failures() {
    let log = "[11:04:37] Starting 'manifests'...\n\
               manifests/mill.pp - ERROR: tab character found on line 2 (check: hard_tabs)\n\
               manifests/mill.pp - WARNING: class not documented on line 1 (check: documentation)\n\
               manifests/mill.pp - WARNING: unquoted file mode on line 12 (check: unquoted_file_mode)\n\
               [11:04:37] 'manifests' errored after 238 ms\n\
               [11:04:37] Starting 'tests'...\n\
               FAIL: test_grind (test_mill.TestMill)\n\
               AssertionError: 3 != 2\n\n\
               FAILED (failures=1)\n";
    let parsed = parse_log(log);
    let named = names(&parsed);
    for want in [
        "manifests/mill.pp:1",
        "manifests/mill.pp:2",
        "manifests/mill.pp:12",
    ] {
        assert!(named.iter().any(|n| n == want), "{want}: {named:?}");
    }
}

/// Names where the runner puts them when the line the reports repeat names nothing: a kind of
/// check in every record (`name: check-equal?`, rackunit's) gives way to the title over the
/// verdict (`scales a recipe` over `FAILURE`); a verdict's message (`FAILED: Expected …`) and a
/// header alike in every report (`Traceback (most recent call last):`) name nothing, and the
/// first line of the section a rule opens names the report (buttercup's).
#[test]
fn titles_over_verdicts_and_section_titles_name_what_the_repeated_line_does_not() {
    let mut log = String::from("raco test: \"kitchen-test.rkt\"\n");
    for (title, check, line) in [
        ("scales a recipe", "check-equal?", 4),
        ("converts grams", "check-=", 6),
        ("oven conversion", "check-equal?", 8),
    ] {
        log.push_str(&format!(
            "--------------------\n{title}\nFAILURE\nname:       {check}\nlocation:   kitchen-test.rkt:{line}:2\nactual:     9\nexpected:   4\n--------------------\n"
        ));
    }
    log.push_str("3/5 test failures\n");
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        ["scales a recipe", "converts grams", "oven conversion"],
        "{:#?}",
        parsed.blocks
    );
    let mut log = String::from("Running 4 specs.\n\n");
    let rule = "=".repeat(40);
    for (title, message) in [
        (
            "Fines counts overdue days",
            "Expected `(overdue 10 14)' to be `equal' to `4', but instead it was `3'.",
        ),
        (
            "Fines caps the fine",
            "Expected `(fine 40)' < 5.01, but `(fine 40)' was 10.0.",
        ),
    ] {
        log.push_str(&format!(
            "{rule}\n{title}\n\nTraceback (most recent call last):\n  buttercup-fail(\"%s\" \"Expected ...\")\n  signal(buttercup-failed \"Expected ...\")\nFAILED: {message}\n\n"
        ));
    }
    log.push_str("Ran 4 specs, 2 failed, in 1.2ms.\n");
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        ["Fines counts overdue days", "Fines caps the fine"],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[1]
            .lines
            .iter()
            .any(|l| l.contains("was 10.0"))
    );
}

/// A tree's row with its timing, the test's name, padding, then a verdict and its message
/// (`00.000  TestLetterB  Failed: expected: <A> but was: <B>`, fpcunit's) names the test.
#[test]
fn a_timed_row_with_a_verdict_and_its_message_names_its_test() {
    let log = " Time:00.000 N:4 E:1 F:1 I:0\n\
               \x20 TGradeTests Time:00.000 N:4 E:1 F:1 I:0\n\
               \x20   00.000  TestLetterA\n\
               \x20   00.000  TestLetterB  Failed: \"score 90 should be an A\" expected: <A> but was: <B>\n\
               \x20     Exception:   \"score 90 should be an A\" expected: <A> but was: <B>\n\
               \x20     at   $0000000000494850\n\
               \x20   00.000  TestCurve\n\
               \x20   00.000  TestEmpty  Error: EInvalidOp\n\
               \x20     Exception:   Invalid floating point operation\n\
               \x20     at   $00000000004C5028\n\n\
               Number of run tests: 4\nNumber of errors:    1\nNumber of failures:  1\n";
    let parsed = parse_log(log);
    let named = names(&parsed);
    for want in ["TestLetterB", "TestEmpty"] {
        assert!(named.iter().any(|n| n == want), "{want}: {named:?}");
    }
}

/// A place alone on its line, then within a few lines a severity and the message (after the
/// quoted source and its marker: gfortran's `a.f90:21:16:`, svelte-check's `a.svelte:11:27`
/// over `Error: …`), is one finding named by the place; a file's line over its rows
/// (`a.ts:1:1` over `ERROR: 2:14  rule  message`) stays the rows' header.
#[test]
fn a_place_alone_then_a_severity_line_is_one_finding() {
    let log = "heat.f90:21:16:\n\n   21 |     e = sum(u**2\n      |                1\n\
               Error: Syntax error in argument list at (1)\n\
               heat.f90:15:10:\n\n   15 |     lambda = alpha * dt\n      |          1\n\
               Error: Symbol 'lambda' at (1) has no IMPLICIT type\n\n\
               /w/src/lib/Search.svelte:14:26\nError: Cannot find name 'selectCity'. (ts)\n\
               {#each results as city}\n\n\
               /w/src/lib/Forecast.svelte:6:25\nWarn: This reference only captures the initial value of `warmest`.\n\
               let hot = warmest;\n";
    let parsed = parse_log(log);
    let mut named = names(&parsed);
    named.sort();
    assert_eq!(
        named,
        [
            "/w/src/lib/Forecast.svelte:6",
            "/w/src/lib/Search.svelte:14",
            "heat.f90:15",
            "heat.f90:21"
        ],
        "{:#?}",
        parsed.blocks
    );
    let log = "signal.ts:1:1\nERROR: 1:1   no-var-keyword  Forbidden 'var' keyword\n\
               ERROR: 2:14  class-name      Class name must be in pascal case\n";
    let mut named = names(&parse_log(log));
    named.sort();
    assert_eq!(named, ["signal.ts:1", "signal.ts:2"]);
}

/// Rows of a context's checks led by one-character marks (`+ asserts x`, `- asserts y: expected
/// 2, not 1`, `! asserts z: key not found`, riot's): the marks whose rows say something after a
/// colon, where another mark's never do, are failures, named by the context and the check.
#[test]
fn marked_rows_that_say_what_went_wrong_are_failures_under_their_context() {
    let log = "A local parcel\n  + asserts postage is equal to 5.1\n  - asserts eta in days: expected 2, not 1\n  \
               + asserts label is valid\nA parcel to the moon\n  + asserts it launches\n  \
               ! asserts eta in days: key not found: :lunar\n\n\
               3 passes, 1 failures, 1 errors in 0.000241 seconds\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "A local parcel asserts eta in days",
            "A parcel to the moon asserts eta in days"
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// From the tenth set's classes: rows of a line and a code under their file (`    4: DOC101:
/// …`, pydoclint's); `in PATH line N` with no severity word (checkbashisms'); numbered
/// one-line reports (`1) TestRate: a.c:6: expected <7> but was <6>`, CuTest's) ending on their
/// line, so a compiler's findings after them stay their own; the GNU place `line.column-span`
/// (`a.vala:9.16-9.58: error: …`); and a test's description after `failed: ` (lest's).
#[test]
fn rows_under_a_file_tight_worded_places_one_line_numbered_reports_and_gnu_places() {
    let log = "$ pydoclint --style=google clinic\nclinic/book.py\n    \
               4: DOC101: Function `book`: Docstring contains fewer arguments than in function signature.\n    \
               17: DOC203: Function `cancel` return type(s) in docstring not consistent\n\n\
               possible bashism in scripts/deploy.sh line 9 (echo -e):\n  echo -e \"pushing\\n\"\n";
    let mut named = names(&parse_log(log));
    named.sort();
    assert_eq!(
        named,
        [
            "clinic/book.py:17",
            "clinic/book.py:4",
            "scripts/deploy.sh:9"
        ]
    );
    let log = ".F.F\n\nThere were 2 failures:\n\
               1) TestEbikeRate: tests/rent.c:6: expected <7> but was <6>\n\
               2) TestDockName: tests/rent.c:9: expected <DOCK-007> but was <DOCK-7>\n\n\
               !!!FAILURES!!!\nRuns: 4 Passes: 2 Fails: 2\n\n*** Error code 1 (continuing)\n\
               valac src/list.vala -o player\n\
               src/list.vala:9.16-9.58: error: Too few arguments for specified format\n    \
               9 |         return \"%s\".printf ();\n\
               src/list.vala:21.20-21.27: error: The name `length' does not exist in the context of `Track'\n\
               Compilation failed: 2 error(s), 0 warning(s)\n";
    let named = names(&parse_log(log));
    for want in [
        "TestEbikeRate",
        "TestDockName",
        "src/list.vala:9",
        "src/list.vala:21",
    ] {
        assert!(named.iter().any(|n| n == want), "{want}: {named:?}");
    }
    let log = "test_bins.cpp:6: failed: pallets round up for partial loads: pallets(90) == 3 for 2 == 3\n\
               test_bins.cpp:12: failed: shelf load stays under the limit: load(50) < 600.0 for 620 < 600\n\
               2 out of 5 selected tests failed.\n";
    assert_eq!(
        names(&parse_log(log)),
        [
            "pallets round up for partial loads",
            "shelf load stays under the limit"
        ]
    );
}

/// A stream's label that counts its lines or time (`[lint:L12:0s] `, Woodpecker's) names one
/// stream on every line: its lines are read together (a place alone over its severity line).
#[test]
fn a_label_that_counts_lines_names_one_stream() {
    let mut log = String::new();
    let rows = [
        "+ svelte-check",
        "/w/src/lib/Search.svelte:14:26",
        "Error: Cannot find name 'selectCity'. (ts)",
        "{#each results as city}",
        "",
        "/w/src/lib/Cargo.svelte:12:3",
        "Error: volume of 2x2x2 was 7, want 8 (ts)",
        "",
    ];
    for (k, row) in rows.iter().enumerate() {
        log.push_str(&format!("[lint:L{k}:0s] {row}\n"));
    }
    let parsed = parse_log(&log);
    let mut named = names(&parsed);
    named.sort();
    assert_eq!(
        named,
        ["/w/src/lib/Cargo.svelte:12", "/w/src/lib/Search.svelte:14"],
        "{:#?}",
        parsed.blocks
    );
}

/// Sections an opening tag and its closing tag enclose (`====== <exec> ======` … `======
/// </exec> ======`, xdoctest's) are one report each, named by their failure line, when their
/// number is the count the log states and the reading's is not, or names none.
#[test]
fn sections_between_an_opening_and_a_closing_tag_are_one_report_each() {
    let mut log = String::from("running 4 test(s)\n");
    for (k, (id, error)) in [
        ("fares/cards.py::cap_for:0", "KeyError: 'student'"),
        ("fares/zones.py::zone_of:0", "ValueError: no zone 9"),
        ("fares/zones.py::fare:0", "AssertionError: 340 != 320"),
    ]
    .into_iter()
    .enumerate()
    {
        let debug = if k == 1 {
            String::new()
        } else {
            format!("  XDoc \"/w/{id}\", line 3 <- wrt doctest\n")
        };
        log.push_str(&format!(
            "====== <exec> ======\n* DOCTEST : /w/{id}, line 8 <- wrt source file\nDOCTEST SOURCE\n1 >>> f()\n  560\n\
             DOCTEST STDOUT/STDERR\nDOCTEST RESULT\n* FAILURE: /w/{id}\n* REASON: KeyError\nDOCTEST DEBUG INFO\n{debug}\
             DOCTEST PART BREAKDOWN\nFailed Part:\n    1 >>> f()\nDOCTEST TRACEBACK\nTraceback (most recent call last):\n\n  \
             File \"/w/a.py\", line 3, in f\n    return x[k]\n\n{error}\nDOCTEST REPRODUCTION\nCommandLine:\n    \
             python -m xdoctest /w/a.py f:0\n====== </exec> ======\n"
        ));
    }
    log.push_str("=== Failed tests ===\npython -m xdoctest /w/a.py f:0\n=== 3 failed, 1 passed in 0.07 seconds ===\n");
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        [
            "/w/fares/cards.py::cap_for:0",
            "/w/fares/zones.py::zone_of:0",
            "/w/fares/zones.py::fare:0"
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// A place in words alone on its line (`File "lib/beds.ml", line 3, characters 25-32:`,
/// OCaml's), then the quoted source and `Error: …` (or `Error (warning 8 [partial-match]):
/// …`), is one finding named by the place.
#[test]
fn a_place_in_words_alone_over_its_error_is_one_finding() {
    let log = "File \"lib/beds.ml\", line 3, characters 25-32:\n3 | let area_m2 b = area b / 10000.0\n                             ^^^^^^^\n\
               Error: This expression has type float but an expression was expected of type\n         int\n\
               File \"lib/seeds.ml\", line 2, characters 16-45:\n2 | let sown_on p = match p.sown with Some d -> d\n                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\
               Error (warning 8 [partial-match]): this pattern-matching is not exhaustive.\n";
    assert_eq!(names(&parse_log(log)), ["lib/beds.ml:3", "lib/seeds.ml:2"]);
}

/// A test's id that ends as an exception's name does (`RingTest.PopOnEmptyIsAnError`) is a
/// name, not a message: only a sentence after a verdict is a message (the real googletest
/// capture, read by the generic path alone).
#[test]
fn an_id_ending_like_an_exception_is_still_a_tests_name() {
    let path = format!(
        "{}/../../tests/fixtures/runners/gtest-default-ring.log",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parsed = parse_log_with(&log, Parsers::GenericOnly);
    assert_eq!(
        names(&parsed),
        [
            "RingTest.ReportsCapacity",
            "RingTest.NewestIsLastPushed",
            "RingTest.PopOnEmptyIsAnError",
            "Pushes/RingWrapTest.KeepsLastN/2"
        ],
        "{:#?}",
        parsed.blocks
    );
}

fn runner_capture(name: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/runners/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `(name, message)` pairs as [`first_lines`] gives them.
fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(n, m)| ((*n).to_owned(), (*m).to_owned()))
        .collect()
}

/// Each block's name without the folders before it (`src/a.js:3` as `a.js:3`).
fn files(log: &ParsedLog) -> Vec<String> {
    names(log)
        .iter()
        .map(|n| n.rsplit('/').next().unwrap_or_default().to_owned())
        .collect()
}

/// Each block's name and its message's first line.
fn first_lines(log: &ParsedLog) -> Vec<(String, String)> {
    log.blocks
        .iter()
        .map(|b| {
            let message = b.message.clone().unwrap_or_default();
            (
                b.test_name.clone().unwrap_or_default(),
                message.lines().next().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// stestr indents each traceback under `Captured traceback:`, sets its frames apart with blank
/// lines and leaves the code they quote at the header's depth: the exception is still the
/// message, and the shown name drops the worker's index and the time (real captures,
/// `tests/runners/capture stestr`).
#[test]
fn an_indented_traceback_ends_in_its_exception_whatever_its_layout() {
    let log = parse_log(&runner_capture("stestr-run-billing.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "tests.test_invoice.TestConfig.test_currency_symbols",
                "KeyError: 'GBP'"
            ),
            (
                "tests.test_invoice.TestConfig.test_load_config",
                "ValueError: config invalid:"
            ),
            (
                "tests.test_invoice.TestInvoice.test_invoice_total_with_tax",
                "AssertionError: 24.0 != 144.0 : invoice INV-2291 total off"
            ),
            (
                "tests.test_invoice.TestInvoice.test_line_totals_per_quantity",
                "AssertionError: 30 != 31"
            ),
        ])
    );
}

/// Deno heads each report `name => ./file:line:col` (a test's place, no finding), says what was
/// thrown after a severity label (`error: AssertionError: …`), quotes the test's name in a step's
/// message, marks a test failed through its steps, and closes with `error: Test failed` (real
/// captures, `tests/runners/capture deno`).
#[test]
fn deno_reports_are_each_failure_with_what_was_thrown() {
    let log = parse_log(&runner_capture("deno-test-fares.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "night fare adds a quarter",
                "error: AssertionError: Expected values to be strictly equal:"
            ),
            (
                "zones counts stops by letter",
                "error: AssertionError: Expected values to be strictly deep-equal:"
            ),
            (
                "ticket without a seat",
                "error: RangeError: ticket 12 has no seat"
            ),
            (
                "seat letter",
                "error: AssertionError: seat letter drifted from B"
            ),
        ])
    );
}

/// testthat heads each failure `Failure ('test-x.R:8'): name` between rules, shows its progress
/// table's rows with a `✖` mark, and closes with `Error: Test failures`; djLint puts a rule under
/// each file's path and opens each row with its code (real captures, `tests/runners/capture
/// testthat djlint`).
#[test]
fn a_place_in_a_verdict_and_a_code_before_a_row_are_read_as_such() {
    let log = parse_log(&runner_capture("testthat-progress-fares.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "night fare adds a quarter",
                "fare(10, night = TRUE) not equal to 18.13."
            ),
            (
                "zone of a C stop",
                "Error in `zone_of(\"C7\")`: unknown stop C7"
            ),
            (
                "zones are whole numbers",
                "zone_of(\"A1\") not identical to 1L."
            ),
        ])
    );
    let log = parse_log(&runner_capture("djlint-lint-blog.log"));
    let places = files(&log);
    assert_eq!(
        places,
        [
            "post.html:1",
            "post.html:1",
            "post.html:1",
            "post.html:1",
            "post.html:3",
            "post.html:3",
            "post.html:4",
            "post.html:4"
        ]
    );
}

/// A header whose name is a qualified call carries what went wrong after it on the same line
/// (Qt Test's `FAIL!  : Suite::slot(tag) Compared values are not the same`): the call names
/// the failure, its tag kept, and the words after it start the message (real captures,
/// `tests/runners/capture qttest`).
#[test]
fn a_call_named_on_its_header_says_what_went_wrong_after_it() {
    let log = parse_log(&runner_capture("qttest-plain-temps.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "TestTemps::boiling()",
                "Compared doubles are not the same (fuzzy compare)"
            ),
            (
                "TestTemps::zero()",
                "Compared doubles are not the same (fuzzy compare)"
            ),
            (
                "TestTemps::labels(edge zero)",
                "Compared values are not the same"
            ),
            (
                "TestTemps::rangeCheck()",
                "'toFahrenheit(-40) == -40.0' returned FALSE. (minus forty must read the same on both scales)"
            ),
            (
                "TestTemps::unsupportedKelvin()",
                "kelvin conversion is not written yet"
            ),
        ])
    );
    assert_eq!(
        crate::line::call_then_said("pkg.Case.test_x(a b) boom went it"),
        Some(("pkg.Case.test_x(a b)", "boom went it"))
    );
    // A call alone, or one word after it, or no qualified callee: no split.
    for name in [
        "Suite::slot()",
        "Suite::slot(tag) x",
        "slot(tag) went wrong here",
    ] {
        assert_eq!(crate::line::call_then_said(name), None, "{name}");
    }
}

/// A verdict glued to its name by a dot leader (`mod: name...*failed*`, EUnit's) heads each
/// report, and a call chain under it (`in function …`, `in call from … (a.erl, line 9)`) is
/// where it happened, not what: the message is the error term after the chain (real captures,
/// `tests/runners/capture eunit`).
#[test]
fn a_dot_leader_parts_a_name_from_its_verdict_and_a_call_chain_is_no_message() {
    let log = parse_log(&runner_capture("eunit-plain-slug.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "slug_tests: make_test",
                "**error:{assertEqual,[{module,slug_tests},"
            ),
            (
                "slug_tests: words_test",
                "**error:{assertEqual,[{module,slug_tests},"
            ),
            ("slug_tests: crash_test", "**error:{badarg,42}"),
            (
                "slug_tests:8: -limit_test_/0-fun-3-",
                "**error:{assertEqual,[{module,slug_tests},"
            ),
            ("slug_tests: throw_test", "**throw:not_ready"),
        ])
    );
}

/// A task runner replays each tool's output under a heading (`✖ oxlint -D correctness:`) after
/// its task list (`[FAILED] pyright [FAILED]`): the heading and the task's state name steps, and
/// each finding under them is a failure of its own, a place under two headers the nearer one's;
/// the tools' summaries together state the count (real capture, `tests/runners/capture
/// lintstaged`).
#[test]
fn a_task_runners_headings_over_tools_output_name_no_failure() {
    let log = parse_log(&runner_capture("lintstaged-default-shop.log"));
    let places = files(&log);
    assert_eq!(
        places,
        [
            "cart.js:5",
            "cart.js:5",
            "cart.js:12",
            "cart.js:16",
            "tax.py:6",
            "tax.py:10",
            "tax.py:14"
        ]
    );
    assert!(matches!(log.agreement, Agreement::Agrees { stated: 7 }));
}

/// TAP headings over assertions that each carry a label of their own (zora's `# swaps` over
/// `not ok 3 - a swap keeps both people`): with no count stated (the stream bailed out), each
/// failing assertion is a failure named under its heading, and the test the stream bailed out
/// under failed with what it threw (real capture, `tests/runners/capture zora`).
#[test]
fn labelled_assertions_under_a_heading_and_a_bail_out_are_failures_of_their_own() {
    let log = parse_log(&runner_capture("zora-default-roster.log"));
    assert_eq!(
        first_lines(&log),
        pairs(&[
            (
                "rotation › the third day goes to cy",
                "the third day goes to cy"
            ),
            (
                "swaps › a swap keeps both people",
                "a swap keeps both people"
            ),
            (
                "swaps › a single name is never dropped",
                "a single name is never dropped"
            ),
            ("import", "TypeError: roster line has no comma: \"ana\""),
        ])
    );
    // The last assertion's block ends at the bail-out: what was thrown is not its.
    let dropped = &log.blocks[2];
    assert!(!dropped.lines.iter().any(|l| l.contains("no comma")));
}

/// `FAIL: name: stdout diff:` (cmdtest's) names `name`, and what follows its colon says why,
/// over the diff under it; a status line's name that only announces (`✖ oxlint:`) heads what
/// follows instead (real captures, `tests/runners/capture cmdtest`).
#[test]
fn what_follows_a_names_colon_on_its_status_line_says_why() {
    let log = parse_log(&runner_capture("cmdtest-default-greet.log"));
    assert_eq!(names(&log), ["bad-option", "no-name", "shout"]);
    let said: Vec<&str> = log
        .blocks
        .iter()
        .skip(1)
        .map(|b| {
            b.message
                .as_deref()
                .unwrap_or_default()
                .lines()
                .next()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(said, ["stdout diff:", "stdout diff:"]);
    assert_eq!(
        crate::line::named_then_why("unknown-op: got exit code 3, expected 2"),
        Some("unknown-op")
    );
    // A scope before a test's name, or a place, is no name with its reason.
    for rest in [
        "Calculator: adds two numbers",
        "a.c:12: boom:",
        "two words: stdout diff:",
    ] {
        assert_eq!(crate::line::named_then_why(rest), None, "{rest}");
    }
}

/// An error named by its kind as a word (`TypeError: …`, `DeclarationError: …`, solc's) over a
/// ` --> path:line:col:` pointer is a finding at that place, as `Warning: …` over one was (real
/// captures, `tests/runners/capture solc`).
#[test]
fn an_error_kind_as_a_word_heads_a_finding_at_the_place_under_it() {
    let log = parse_log(&runner_capture("solc-default-vault.log"));
    assert_eq!(
        names(&log),
        [
            "contracts/Vault.sol:11",
            "contracts/Vault.sol:16",
            "contracts/Vault.sol:20",
            "contracts/Vault.sol:29"
        ]
    );
    assert!(log.blocks.iter().all(|b| {
        b.message
            .as_deref()
            .is_some_and(|m| m.starts_with("TypeError: "))
    }));
}

/// A place written in words after the severity (`Error: a.less: line 3, col 14, rule: message`,
/// lesshint's) is a finding at `a.less:3`, its rule its code (real captures, `tests/runners/
/// capture lesshint`).
#[test]
fn a_place_in_words_after_a_severity_places_its_finding() {
    let log = parse_log(&runner_capture("lesshint-default-admin.log"));
    let names = names(&log);
    assert_eq!(names.len(), 9);
    assert_eq!(
        &names[..3],
        ["panel.less:2", "panel.less:3", "panel.less:4"]
    );
    assert_eq!(
        log.blocks[1].message.as_deref(),
        Some("idSelector: Selectors should not use IDs.")
    );
}

/// Rows `L:C  message  rule` under a file's path, padded as a table with no severity word
/// (graphql-schema-linter's), are findings of that file, each failing the run (real captures,
/// `tests/runners/capture gqllint`).
#[test]
fn rows_with_a_rule_column_and_no_severity_are_findings() {
    let log = parse_log(&runner_capture("gqllint-default-blog.log"));
    let placed = files(&log);
    assert_eq!(placed.len(), 14);
    assert_eq!(
        placed[..3],
        ["schema.graphql:1", "schema.graphql:2", "schema.graphql:2"]
    );
}

/// A place alone before a bracketed verdict is the test's name, whatever number it carries
/// (shelltestrunner's); a trailer naming the failure by its place and scopes closes the report
/// above it, whose quoted source names no test (TSTyche's); a numbered rule in brackets over
/// a place alone is a finding (salt-lint's) (D-203).
#[test]
fn names_by_place_trailers_and_bracketed_rules() {
    let log = ":t/a.test:2: [Failed]\nCommand:\n./a.sh x\nExpected stdout: \n1\nGot stdout:      \n2\n\n\
               :t/a.test:3: [Failed]\nCommand:\n./a.sh y\nExpected stdout: \n3\nGot stdout:      \n4\n\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["t/a.test:2", "t/a.test:3"]);
    let log = "fail ./t/a.tst.ts\n  pick\n    × keeps keys\n  × takes two\n\n\
               Error: Type A is not B.\n\n   8 |   test(\"keeps keys\", () => {\n   9 |     expect(x);\n     |     ~~~\n\n\
               \x20      at ./t/a.tst.ts:9:5 ❭ pick ❭ keeps keys\n\n\
               Error: Type C is not D.\n\n  12 | test(\"takes two\", () => {\n  13 |   expect(y);\n\n\
               \x20      at ./t/a.tst.ts:13:3 ❭ takes two\n\nTests:      2 failed, 2 total\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["keeps keys", "takes two"]);
    assert_eq!(
        parsed.blocks[0].message.as_deref(),
        Some("Type A is not B.")
    );
    assert_eq!(
        parsed.blocks[1].message.as_deref(),
        Some("Type C is not D.")
    );
    let log = "[207] Modes should be quoted\nstates/a.sls:6\n    - mode: 644\n\n[213] Prefer cmd.run\nstates/b.sls:9\n  cmd.wait:\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["states/a.sls:6", "states/b.sls:9"]);
    // A place in quotes, a `file:` URL with a range (the Nu Html Checker's GNU format).
    let log = "\"file:/w/a.html\":3.5-3.20: error: Element not allowed here.\n\"file:/w/b.html\":9.1-9.7: error: Bad value.\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["/w/a.html:3", "/w/b.html:9"]);
}

/// Reports numbered in brackets, each opening with its place (Redocly's), and a test named by a
/// status line and again by the banner right under it (lit's), with its reason where a severity
/// labels it (D-205).
#[test]
fn bracketed_numbers_and_a_test_named_twice() {
    let log = "validating a.yaml...\n[1] a.yaml:1:1 at #/openapi\n\nServers must be present.\n\n1 | openapi: 3.1.0\n\nError was generated by the no-empty-servers rule.\n\n\n\
               [2] a.yaml:7:5 at #/paths/~1pets/get\n\nOperation must have a summary.\n\n7 |     get:\n\nError was generated by the operation-summary rule.\n\n\n\
               Validation failed with 2 errors.\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["a.yaml:1", "a.yaml:7"]);
    assert_eq!(
        parsed.blocks[1].message.as_deref(),
        Some("Operation must have a summary.")
    );
    // An index in brackets is none: R's vector, a Lua table's rows.
    let log = "── Failure (t.R:3): adds ──\nresult not equal to 2.\n[1] 3\n\n";
    assert_eq!(names(&parse_log(log)), ["adds"]);
    let log = "FAIL: u :: a.t (1 of 2)\n**** TEST 'u :: a.t' FAILED ****\nExit Code: 1\n\nCommand Output (stdout):\n--\n# RUN: at line 1\nfalse\n# error: command failed with exit status: 1\n\n--\n\n****\n\
               PASS: u :: b.t (2 of 2)\n****\nFailed Tests (1):\n  u :: a.t\n\n  Failed: 1 (50.00%)\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["u :: a.t"]);
    assert_eq!(
        parsed.blocks[0].message.as_deref(),
        Some("error: command failed with exit status: 1")
    );
}

/// A numbered failure with its name in double quotes under a file's row (pgTAP through
/// pg_prove), the last one's message not the count that closes the file (D-205).
#[test]
fn a_numbered_failed_test_in_double_quotes() {
    let log = "t/01.sql .. \n# Failed test 3: \"owners are required\"\n# Failed test 4: \"balance is whole\"\n#         have: numeric\n#         want: integer\n\
               # Failed test 5: \"accounts know when\"\n# Looks like you failed 3 tests of 5\nFailed 3/5 subtests \n\nResult: FAIL\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "owners are required",
            "balance is whole",
            "accounts know when"
        ]
    );
    assert_eq!(
        parsed.blocks[2].message.as_deref(),
        Some("Failed test 5: \"accounts know when\"")
    );
}

/// Numbered lists whose headers give a one-word name, a colon and what went wrong on one line,
/// the message going on under it, numbered again under each list (xlunit's); the banner and
/// progress before the first list are no report, and a list of one-line reports with nothing
/// under them does not run into the report before it.
#[test]
fn a_numbered_name_then_why_on_its_header_line() {
    let log = "This is SBCL 2.2.9.debian.\nWARNING: System definition file contains xlunit-tests.\n..F.E\nTime: 0.016\n\n\n\
               There was 1 error:\n1) TEST-NOT-A-STRING: The value\n                        42\n                      is not of type\n                        SEQUENCE\n\n\
               There were 2 failure:\n1) TEST-UPCASE: Assert true: (EVERY #'UPPER-CASE-P \"abc1\")\n   every letter is upper case\n\
               2) TEST-COUNT: Assert equal: 3 4\n\n\nFAILURES!!!\nRun: 5   Failures: 2   Errors: 1\n";
    let bare = log.replace("   every letter is upper case\n", "");
    for (log, upcase) in [
        (
            log,
            "Assert true: (EVERY #'UPPER-CASE-P \"abc1\")\nevery letter is upper case",
        ),
        (
            bare.as_str(),
            "Assert true: (EVERY #'UPPER-CASE-P \"abc1\")",
        ),
    ] {
        let parsed = parse_log(log);
        assert_eq!(
            names(&parsed),
            ["TEST-NOT-A-STRING", "TEST-UPCASE", "TEST-COUNT"],
            "{:#?}",
            parsed.blocks
        );
        let messages: Vec<_> = parsed.blocks.iter().map(|b| b.message.as_deref()).collect();
        assert_eq!(
            messages,
            [
                Some("The value\n42\nis not of type\nSEQUENCE"),
                Some(upcase),
                Some("Assert equal: 3 4")
            ]
        );
    }
}

/// A group's line over an indented verdict naming a test (`When a tariff has a cap` over `  FAIL:
/// it should not exceed the cap`, contexts'): the report is that test's, named by both; a
/// report in the group with no verdict of its own keeps the group's name. A warning's category
/// as Python prints it (`a.py:6: UserWarning: …`) is a warning, no failure of the run.
#[test]
fn a_verdict_under_a_groups_line_names_the_test() {
    let log = "/v/site-packages/contexts/plugin_discovery.py:6: UserWarning: pkg_resources is deprecated as an API.\n  import pkg_resources\nF..FE\n\
               ----------------------------------------------------------------------\n\
               When a tariff has a cap\n  FAIL: it should not exceed the cap\n    Traceback (most recent call last):\n      File \"/p/test_tariff.py\", line 26, in it_should_not_exceed_the_cap\n        assert self.total == 40\n    AssertionError: billed 75.0\n\
               When the reading is negative\n  FAIL: it should explain why\n    Traceback (most recent call last):\n      File \"/p/test_tariff.py\", line 44, in it_should_explain_why\n        assert False\n    AssertionError: Asserted 'a' == 'b'\n\
               When parsing a reading with decimals\n  Traceback (most recent call last):\n    File \"/p/tariff.py\", line 18, in parse_reading\n      return int(value)\n  ValueError: invalid literal for int() with base 10: ' 12.5'\n\
               ----------------------------------------------------------------------\nFAILED!\n5 contexts, 7 assertions: 2 failed, 1 error\n";
    let parsed = parse_log(log);
    let failing: Vec<_> = parsed
        .blocks
        .iter()
        .filter(|b| !b.is_warning())
        .map(|b| b.test_name.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        failing,
        [
            "When a tariff has a cap › it should not exceed the cap",
            "When the reading is negative › it should explain why",
            "When parsing a reading with decimals"
        ],
        "{:#?}",
        parsed.blocks
    );
    // Verbose, with the passing verdicts and groups between: a sibling verdict is no part of
    // the report before it, and the next group's line ends it.
    let log = "When a bill has a cap\n  FAIL: it should not exceed the cap\n    Traceback (most recent call last):\n      File \"/p/test_meter.py\", line 9, in it_should_not_exceed_the_cap\n        assert self.total == 40\n    AssertionError: billed 75.0\n  PASS: it should round down\n\
               When a bill has no cap\n  PASS: it should charge the rate\n\
               When averaging no readings\n  FAIL: it should be none\n    Traceback (most recent call last):\n      File \"/p/test_meter.py\", line 44, in it_should_be_none\n        assert self.result is None\n    AssertionError: an empty average has no value\n\
               When parsing a decimal reading\n  Traceback (most recent call last):\n    File \"/p/meter.py\", line 6, in parse\n      return int(value)\n  ValueError: invalid literal for int() with base 10: ' 12.5'\n\
               When parsing a reading\n  PASS: it should read the meter\n\
               ----------------------------------------------------------------------\nFAILED!\n5 contexts, 6 assertions: 2 failed, 1 error\n";
    let parsed = parse_log(log);
    let read = named_messages(&parsed);
    assert_eq!(
        read,
        [
            (
                "When a bill has a cap › it should not exceed the cap".to_owned(),
                "AssertionError: billed 75.0".to_owned()
            ),
            (
                "When averaging no readings › it should be none".to_owned(),
                "AssertionError: an empty average has no value".to_owned()
            ),
            (
                "When parsing a decimal reading".to_owned(),
                "ValueError: invalid literal for int() with base 10: ' 12.5'".to_owned()
            )
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// Reports under a banner each (` * * * UNEXPECTED TEST FAILURE * * *`), each named by the form
/// after `Test failed:` (in parentheses, and joined when the printer wrapped it), counted by
/// `Errors detected in this test: N` per group (ptester's): the banner heads the report under
/// it, no part of the one above.
#[test]
fn reports_under_a_banner_named_by_a_verdict_in_words() {
    let log = "Begin shelf test\n * * * UNEXPECTED TEST FAILURE * * *\nTest failed: (SHELF-COUNT '(\"a\" \"b\" \"a\"))\n  wanted: 1\n     got: 2\n\
               \x20* * * UNEXPECTED TEST FAILURE * * *\nTest failed: (VALUES 2 :EXTRA)\nReason: additional value were returned from test form.\n\
               **********************************\nEnd shelf test\nErrors detected in this test: 2 UNEXPECTED: 2\nSuccesses this test:1\n\
               Begin loans test\n * * * UNEXPECTED TEST FAILURE * * *\nTest failed: (LENGTH\n              (REMOVE-DUPLICATES\n               (MAPCAR #'TITLE-KEY '(\"Dune\" \"dune\"))\n               :TEST #'STRING=))\n  wanted: 2\n     got: 1\n\
               **********************************\nEnd loans test\nErrors detected in this test: 1 UNEXPECTED: 1\nSuccesses this test:0\n";
    let parsed = parse_log(log);
    let read = named_messages(&parsed);
    assert_eq!(
        read,
        [
            (
                "(SHELF-COUNT '(\"a\" \"b\" \"a\"))".to_owned(),
                "wanted: 1\ngot: 2".to_owned()
            ),
            (
                "(VALUES 2 :EXTRA)".to_owned(),
                "Reason: additional value were returned from test form.".to_owned()
            ),
            (
                "(LENGTH (REMOVE-DUPLICATES (MAPCAR #'TITLE-KEY '(\"Dune\" \"dune\")) :TEST #'STRING=))"
                    .to_owned(),
                "wanted: 2\ngot: 1".to_owned()
            )
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// Properties listed as `- name`, each over its verdict on the next line (`OK, passed 100
/// tests`, `Falsifiable after 3 tests and 1 shrink`, RapidCheck's): a falsified one is a
/// failure whose report runs to the next item.
#[test]
fn a_listed_name_over_the_verdict_that_opens_the_next_line() {
    let log = "Using configuration: seed=7\n\n- size never exceeds capacity\nOK, passed 100 tests\n\n\
               - pop returns the first element pushed\nFalsifiable after 3 tests and 1 shrink\n\nstd::tuple<int, int>:\n(0, 1)\n\nprops.cpp:35:\nRC_ASSERT(r.pop() == a)\n\nExpands to:\n1 == 0\n\n\
               - a full ring keeps the newest\nOK, passed 100 tests\n\n\
               - pop on an empty ring throws length_error\nFalsifiable after 1 tests\n\nprops.cpp:45:\nRC_ASSERT_THROWS_AS(r.pop(), std::length_error)\n\nThrown exception did not match std::length_error.\n\
               Some of your RapidCheck properties had failures. To reproduce these, run with:\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        [
            "pop returns the first element pushed",
            "pop on an empty ring throws length_error"
        ],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        !parsed.blocks[0]
            .lines
            .iter()
            .any(|l| l.contains("a full ring"))
    );
    assert_eq!(
        parsed.blocks[0].message.as_deref(),
        Some("Falsifiable after 3 tests and 1 shrink")
    );
}

/// A quoted title over the place of the assertion, then the message (`FAILED:  "title"` over
/// `/p/test/a.test.js:8:5` and `Error: …`): each report is the title's, though the place line
/// reads as a diagnostic on its own.
#[test]
fn a_title_over_its_place_line_names_the_report() {
    let report = |title: &str, line: u32, message: &str| {
        format!(
            "FAILED:  \"{title}\"\n/w/shop/test/cart.test.js:{line}:5\n{message}\n- 3\n+ 4\n    at Object.fn (/w/shop/test/cart.test.js:{line}:5)\n\n"
        )
    };
    let log = format!(
        "cart.test.js ✖ cart.test.js\n\n{}{}{} \n 3 tests failed. (98ms)\n\nexit code: 1 duration: 2s\nJob failed\n",
        report(
            "totals add up",
            8,
            "Error: Actual value is not equal to expected:"
        ),
        report(
            "discount applies once",
            14,
            "Error: Expected true, got false"
        ),
        report(
            "empty cart has no total",
            20,
            "TypeError: Cannot read properties of undefined (reading 'sum')"
        ),
    );
    let parsed = parse_log(&log);
    assert_eq!(
        named_messages(&parsed)
            .into_iter()
            .map(|(n, m)| (n, m.lines().next().unwrap_or("").to_owned()))
            .collect::<Vec<_>>(),
        [
            (
                "totals add up".to_owned(),
                "Error: Actual value is not equal to expected:".to_owned()
            ),
            (
                "discount applies once".to_owned(),
                "Error: Expected true, got false".to_owned()
            ),
            (
                "empty cart has no total".to_owned(),
                "TypeError: Cannot read properties of undefined (reading 'sum')".to_owned()
            ),
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// A title alone over a header every report shares (`Traceback (most recent call last):`),
/// under `Errors:` and `Failures:` headings: the title names the report.
#[test]
fn a_title_over_a_header_every_report_shares_names_it() {
    let tb = |title: &str, error: &str| {
        format!(
            "{title}\nTraceback (most recent call last):\n  File \"stack_spec.py\", line 12, in <module>\n    test.assertEqual(s.top(), 3)\n{error}\n\n"
        )
    };
    let log = format!(
        ".EF.F\n\nErrors:\n\n{}Failures:\n\n{}{}Finished in 0.003 seconds.\n\n5 examples, 1 errors, 2 failures\n",
        tb(
            "peeks at nothing when empty",
            "IndexError: list index out of range"
        ),
        tb("keeps the last pushed on top", "AssertionError: 2 != 3"),
        tb("counts what it holds", "AssertionError: 1 != 2"),
    );
    let parsed = parse_log(&log);
    assert_eq!(
        named_messages(&parsed),
        [
            (
                "peeks at nothing when empty".to_owned(),
                "IndexError: list index out of range".to_owned()
            ),
            (
                "keeps the last pushed on top".to_owned(),
                "AssertionError: 2 != 3".to_owned()
            ),
            (
                "counts what it holds".to_owned(),
                "AssertionError: 1 != 2".to_owned()
            ),
        ],
        "{:#?}",
        parsed.blocks
    );
}

/// A tree of test rows (`∟ name`, the same mark passed or failed) with each failed assertion
/// one indent under its row (`✘ expectation`) and an error under another: the rows name the
/// failures; the table that closes the run (`Fail | 2`, `Error | 1`) states their count.
#[test]
fn rows_of_a_tree_over_their_failed_assertions_name_the_failures() {
    let log = "Money\n  ∟ adds cents\n  ∟ rounds half up\n    ✘ round(2.5) to equal 3\n        round(2.5): 2\n\
               Parsing\n  ∟ reads euros\n    ✘ parse(\"3 EUR\") to equal 300\n        parse(\"3 EUR\"): 3\n  ∟ rejects words\n      Error Traceback:\n        - /w/money/money.py\n      --> 9:     return int(s)\n        - Error | ValueError: invalid literal for int()\n  ∟ keeps signs\n\n\
               ------- Summary --------\nPass            | 2\nFail            | 2\nError           | 1\nTest Total      | 5\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["rounds half up", "reads euros", "rejects words"],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[0]
            .message
            .as_deref()
            .is_some_and(|m| m.contains("round(2.5) to equal 3"))
    );
    assert_eq!(parsed.agreement, Agreement::Agrees { stated: 3 });
}

/// Sections between one rule, each a test's title, its numbered failed assertions and a
/// verdict with counts (`FAILURE passes: 0, fails: 1, errors: 0`, `OK passes: 1, …`): the
/// failing sections are the failures, counted by their verdicts' sums.
#[test]
fn sections_closed_by_a_verdict_with_counts_are_the_failures() {
    let rule = "-".repeat(30);
    let section = |title: &str, item: Option<&str>, verdict: &str| {
        let item = item.map(|i| format!("    1.  {i}\n")).unwrap_or_default();
        format!("{rule}\n{title}\n{item}{verdict}\n")
    };
    let log = [
        section("sum of two", None, "OK passes: 1, fails: 0, errors: 0"),
        section(
            "sum of nothing",
            Some("zero for no terms"),
            "FAILURE passes: 0, fails: 1, errors: 0",
        ),
        section("product", None, "OK passes: 2, fails: 0, errors: 0"),
        section(
            "mean of empty list",
            Some("TypeError: Cannot read properties of undefined (reading 'length')"),
            "ERROR passes: 0, fails: 0, errors: 1",
        ),
        format!("{rule}\nERROR   1 Errors\n{rule}\n"),
    ]
    .concat();
    let parsed = parse_log(&log);
    assert_eq!(
        names(&parsed),
        ["sum of nothing", "mean of empty list"],
        "{:#?}",
        parsed.blocks
    );
}

/// A logger's level and the tool's label before every line (`[INFO] tool: `, `[WARN] tool: `):
/// one stream whatever the level, taken off, and the verdicts behind it read.
#[test]
fn a_loggers_level_and_label_come_off_every_line() {
    let log = "[INFO] spec: importing 2 sources...\n[INFO] spec: ──────────\n[INFO] spec: money\n[INFO] spec: ──────────\n\
               [INFO] spec: ✔︎ adds cents\n[WARN] spec: ✘ rounds half up\n[INFO] spec:\n[INFO] spec: ──────────\n[INFO] spec: parse\n\
               [INFO] spec: ──────────\n[WARN] spec: ✘ reads euros\n[INFO] spec: ✔︎ keeps signs\n[INFO] spec:\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["rounds half up", "reads euros"],
        "{:#?}",
        parsed.blocks
    );
    assert_eq!(parsed.blocks[0].start, 6);
}

/// A job whose failing step's output carries a machine, a region and a logger's level before
/// each line (`  148e2d7c ams [info]text`): the label comes off, and the step's own error is
/// why the job failed, not the console's `✖ release_command failed`.
#[test]
fn a_levelled_prefix_comes_off_and_the_steps_error_says_why_the_job_failed() {
    let log = "==> Building image\n--> Building image done\nRunning shop release_command: ./migrate.sh\n\
               \x20 3f9a01bc fra [info]applying 001_init.sql\n  3f9a01bc fra [info]applying 002_orders.sql\n\
               \x20 3f9a01bc fra [info]Error: near line 4: no such column: total\n\
               \x20 3f9a01bc fra [info] INFO Main child exited normally with code: 1\n\
               ✖ release_command failed\nError: release command failed - aborting deployment. machine 3f9a01bc exited with non-zero status of 1\n";
    let parsed = parse_log(log);
    let first = &parsed.blocks[0];
    assert_eq!(first.anchors, ["job_failure"], "{:#?}", parsed.blocks);
    assert_eq!(
        first.message.as_deref(),
        Some("Error: near line 4: no such column: total")
    );
    assert_eq!(first.step.as_deref(), Some("3f9a01bc fra [info]"));
    assert!(parsed.blocks.iter().all(|b| b.test_name.is_none()));
}

/// A severity alone on a line (`error:` over each indented finding) heads what follows and is no
/// failure of its own; a line of markers (`^^^^`) under quoted source is never a message.
#[test]
fn a_severity_alone_and_a_marker_line_say_nothing() {
    let log = "\nerror:\n  /p/schema/alert.fbs:7: 21: error: default value of `0` is not part of enum\n\n\nerror:\n  /p/schema/status.fbs:6: 16: error: structs may contain only scalar fields\n";
    let parsed = parse_log(log);
    assert_eq!(parsed.blocks.len(), 2, "{:#?}", parsed.blocks);
    let log = "✖ tests/keys.test.cfg failed\n  at [tests/keys.test.cfg:6:1:13]:\n  6: [server-eu]\n     ^^^^^^^^^^^^\n  missing required scopes: entity.name.section.cfg\n  actual: source.cfg\n\n\n\n\
               ✖ tests/values.test.cfg failed\n  at [tests/values.test.cfg:10:9:12]:\n  10: ratio = 3e5\n              ^^^\n  missing required scopes: constant.numeric.float.cfg\n  actual: source.cfg\n";
    let parsed = parse_log(log);
    let messages: Vec<&str> = parsed
        .blocks
        .iter()
        .map(|b| b.message.as_deref().unwrap_or(""))
        .collect();
    assert!(
        messages
            .iter()
            .all(|m| m.starts_with("missing required scopes")),
        "{:#?}",
        parsed.blocks
    );
}

/// A failure's mark closing its row after the name (`│ name: ☓` in a drawn tree), and a row that
/// says why after a dash before its padded verdict (`forty is XL - expected XL, got XXXX   FAIL
/// 0.0s`): named by what stands before the mark or the dash; a setting in parentheses (`in dir
/// /p (timeout 1200 secs)`) is no verdict.
#[test]
fn a_mark_closing_a_row_a_dash_before_why_and_a_setting_in_parentheses() {
    let log = "3 tests started...\nQueue\n├─pops in order: ☆\n│ pops in order: ✓\n├─pops from empty: ☆\n│ pops from empty: ☓\nRangeError: pop from an empty queue\n    at Queue.pop (file:///p/queue.js:5:35)\n├─merges: ☆\n│ merges: ☓\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n1 !== 2\n\n    at Object.test (file:///p/queue.test.js:24:12)\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["pops from empty", "merges"],
        "{:#?}",
        parsed.blocks
    );
    let log = "Failed :  2\n All:\n  Roman numerals:\n   forty is XL - expected XL, got XXXX             FAIL     0.000068000s\n   parses XIV - XIV parsed as 16                   FAIL     0.000034000s\n\nErrors :  0\n";
    let parsed = parse_log(log);
    assert_eq!(
        names(&parsed),
        ["forty is XL", "parses XIV"],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[0]
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("expected XL, got XXXX"))
    );
    assert_eq!(
        crate::line::status_name(" in dir /p/gem (timeout 1200 secs)"),
        None
    );
}

/// A status line over a message over a traceback whose frames are indented deeper than the code
/// they quote (`✗ name`, its message, then `Traceback …` with `    File …` at twelve spaces and
/// the code at four): each report is the status line's, and its message the exception that
/// closes the traceback, not the code a frame quotes.
#[test]
fn a_status_line_over_a_shared_traceback_header_names_the_report() {
    let vow = |name: &str, said: &str, code: &str, error: &str| {
        format!(
            "      ✗ {name}\n          {said}\n          \nTraceback (most recent call last):\n            File \"/usr/lib/python3/dist-packages/pyvows/runner/abc.py\", line 65, in run_vow\n    result = vow(ctx_obj, topic)\n             ^^^^^^^^^^^^^^^^^^^\n            File \"/p/cart.py\", line 25, in total\n    {code}\n{error}\n\n\n           found in /p/cart_vows.py at line 28 \n\n"
        )
    };
    let log = format!(
        "\n ============\n Vows Results\n ============\n\n\n    A cart\n{}{}{}  ✗ OK » 4 honored • 3 broken (0.003247s)\n",
        vow(
            "counts items",
            "Expected topic(1) to equal 2",
            "return len(self.lines)",
            "AssertionError: Expected topic(1) to equal 2"
        ),
        vow(
            "applies a code",
            "'SPRING'",
            "return round(self.total() * (1 - rates[code]), 2)",
            "KeyError: 'SPRING'"
        ),
        vow(
            "removes a line",
            "'ghost'",
            "del self.lines[sku]",
            "KeyError: 'ghost'"
        ),
    );
    let parsed = parse_log(&log);
    let got: Vec<(String, String)> = named_messages(&parsed)
        .into_iter()
        .filter(|(n, _)| !n.is_empty())
        .collect();
    assert_eq!(got.len(), 3, "{:#?}", parsed.blocks);
    assert!(got[1].0.ends_with("applies a code"), "{got:?}");
    assert!(got[1].1.contains("KeyError: 'SPRING'"), "{got:?}");
    assert!(got[2].1.contains("KeyError: 'ghost'"), "{got:?}");
}

/// Numbered rows padded to a column of verdicts that give where the check failed (`  3: name
///      FAILED (testsuite.at:17)`, GNU Autotest's): each failing row is a failure, however much
/// its number and colon look like a quoted source line, and says where it failed.
#[test]
fn numbered_rows_with_a_placed_verdict_are_failures() {
    let log = "## ------------------------- ##\n## calc 1.0 test suite. ##\n## ------------------------- ##\n\nArithmetic\n\n\
               \x20 1: adds two numbers                                ok\n  2: divides by zero                                FAILED (testsuite.at:12)\n\
               \x20 3: rounds half up                                  FAILED (testsuite.at:19)\n  4: parses hex                                     ok\n\n\
               ## ------------- ##\n## Test results. ##\n## ------------- ##\n\nERROR: All 4 tests were run,\n2 failed unexpectedly.\n";
    let parsed = parse_log(log);
    let got: Vec<(String, String)> = named_messages(&parsed)
        .into_iter()
        .filter(|(n, _)| n.contains("by zero") || n.contains("half up"))
        .collect();
    assert_eq!(got.len(), 2, "{:#?}", parsed.blocks);
    assert!(got[1].1.starts_with("FAILED (testsuite.at:19)"), "{got:?}");
}

/// A line the terminal redrew in place (the next line moves the cursor up and erases it, a
/// progress line) is blank, and the lines keep their numbers.
#[test]
fn a_line_redrawn_in_place_is_blank() {
    let text = "Running tests ...\n\u{1b}[1A\u{1b}[KRunning 3 tests ...\n\u{1b}[1A\u{1b}[KFailure: a | b\n  expected 1\n";
    let shown = crate::text::redrawn(text);
    let lines: Vec<&str> = shown.split('\n').collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], "");
    assert!(lines[2].ends_with("Failure: a | b"));
    assert!(matches!(
        crate::text::redrawn("a\nb\n"),
        std::borrow::Cow::Borrowed(_)
    ));
}

/// Each block's name and message under both parsers, which must agree.
fn read_both(log: &str) -> Vec<(String, String)> {
    let all = named_messages(&parse_log(log));
    let generic = named_messages(&parse_log_with(log, Parsers::GenericOnly));
    assert_eq!(
        all, generic,
        "the generic path reads it as the full one does"
    );
    all
}

/// A parallel runner's rows, `(i/N) id: VERDICT: why (time)` among its started and passed
/// rows: each failed row is a failure named by its id, what it says after the verdict its
/// message, and the other tests' rows under it no part of it.
#[test]
fn verdict_rows_of_a_parallel_runner_are_failures_of_their_own() {
    let log = "Running 6 tests with 3 workers\n(1/6) ledger.post: started\n(2/6) ledger.balance: started\n\
               (1/6) ledger.post: PASS (0.012s)\n(2/6) ledger.balance: FAIL: expected balance 120 but was 118 (0.020s)\n\
               (3/6) ledger.round: started\n(3/6) ledger.round: FAIL: rounding 2.675 gave 2.67, want 2.68 (0.004s)\n\
               (4/6) ledger.close: started\n(4/6) ledger.close: ERROR: KeyError: 'period' (0.002s)\n\
               (5/6) ledger.open: started\n(5/6) ledger.open: PASS (0.001s)\n6 tests, 3 passed, 2 failed, 1 errored\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("ledger.balance", "expected balance 120 but was 118"),
            ("ledger.round", "rounding 2.675 gave 2.67, want 2.68"),
            ("ledger.close", "KeyError: 'period'"),
        ])
    );
}

/// `name failed: why` over the values it compared: named by what stands before the verdict,
/// whatever the dump under it repeats.
#[test]
fn a_name_before_its_verdict_heads_the_dump_under_it() {
    let log = "Running ledger tests\nbalance_after_post failed: values differ\n  left:\n    Balance {\n      amount: 118,\n    }\n\
               \x20 right:\n    Balance {\n      amount: 120,\n    }\nround_half_even failed: rounding mismatch\n  got:  2.67\n  want: 2.68\n\
               2 failed, 4 passed\n";
    let got = read_both(log);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, "balance_after_post");
    assert!(got[0].1.starts_with("values differ\nleft:"), "{got:?}");
    assert_eq!(got[1].0, "round_half_even");
    assert!(got[1].1.starts_with("rounding mismatch"), "{got:?}");
}

/// A mark, a title, a dash and why on one line: the title names it, why is its message.
#[test]
fn a_title_then_a_dash_then_why() {
    let log = "Ledger\n  ✓ posts an entry\n  ✗ rounds cents - expected 2.68, got 2.67\n  ✓ opens a period\n\
               \x20 ✗ closes a period - TypeError: period is undefined\n  ✗ splits an amount - expected [50, 50] to deeply equal [50, 49]\n\n\
               3 of 5 tests failed\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("rounds cents", "expected 2.68, got 2.67"),
            ("closes a period", "TypeError: period is undefined"),
            (
                "splits an amount",
                "expected [50, 50] to deeply equal [50, 49]"
            ),
        ])
    );
}

/// Headers that read as messages, a verdict word and a colon first (`Failure: context |
/// test`), over what went wrong indented under them: what follows the verdict names the test.
#[test]
fn a_verdict_and_a_colon_over_an_indented_message_heads_a_report() {
    let log = "Running tests ...\nFailure: Ledger posting | rounds cents\n    [assert.equals] 2.67 expected to be equal to 2.68\n\
               \x20   at Object.<anonymous> (test/ledger-test.js:12:5)\n\nError: Ledger posting | closes a period\n\
               \x20   TypeError: Cannot read properties of undefined (reading 'closing')\n    at close (lib/ledger.js:9:20)\n\n\
               Failure: Ledger splitting | splits an amount\n    [assert.equals] [50, 50] expected to be equal to [50, 51]\n\n\
               3 test cases, 9 tests, 9 assertions, 2 failures, 1 error, 0 timeouts\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Ledger posting | rounds cents",
            "Ledger posting | closes a period",
            "Ledger splitting | splits an amount"
        ]
    );
    assert!(got[1].1.starts_with("TypeError: Cannot read"), "{got:?}");
}

/// A verdict, the test's file, its name and why in colon-separated fields on one line.
#[test]
fn a_verdict_then_file_name_and_why_in_fields() {
    let log = "Running 5 checks\nFAIL: tests/ledger_test.lua: rounds cents: expected 2.68, got 2.67\n    got:      2.67\n    expected: 2.68\n\
               ok: tests/ledger_test.lua: posts an entry\nFAIL: tests/ledger_test.lua: closes a period: attempt to index a nil value (field 'closing')\n\
               \x20   stack: tests/ledger_test.lua:14\n2 failed, 1 passed\n";
    let got = read_both(log);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, "tests/ledger_test.lua: rounds cents");
    assert!(got[0].1.starts_with("expected 2.68, got 2.67"), "{got:?}");
    assert_eq!(
        got[1],
        (
            "tests/ledger_test.lua: closes a period".to_owned(),
            "attempt to index a nil value (field 'closing')".to_owned()
        )
    );
}

/// Places written every way a tool may: after ` in ` at the end with a span, after the file's
/// colon and a space, quoted after `File` or `In` with the line in words (the message on the
/// same line, wrapped onto a line indented one space, or under an echo); and a verdict on a
/// file over that file's findings is their heading, no failure of its own.
#[test]
fn places_last_spaced_or_quoted_in_words_name_their_findings() {
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (
            "error: unknown variable `totl` in config/main.cfg:12:5-12:9:\n   12 | use totl\n      |     ^^^^\n\
             error: type mismatch: expected Int, found String in config/rates.cfg:3:10-3:15:\n    3 | rate = \"five\"\n2 errors\n",
            &[
                ("config/main.cfg:12", "unknown variable `totl`"),
                (
                    "config/rates.cfg:3",
                    "type mismatch: expected Int, found String",
                ),
            ],
        ),
        (
            "Checking 3 files\nFAILED config/app.toml\nconfig/app.toml: 3:5: duplicate key `name`\nconfig/app.toml: 9:1: expected a table header\n\
             PASSED config/db.toml\nFAILED config/cache.toml\nconfig/cache.toml: 2:10: invalid number `12x`\n3 errors in 2 files\n",
            &[
                ("config/app.toml:3", "duplicate key `name`"),
                ("config/app.toml:9", "expected a table header"),
                ("config/cache.toml:2", "invalid number `12x`"),
            ],
        ),
        (
            "==== Checking grammar src/expr.g ====\nFile 'src/expr.g' line 20: Parse Error: rule 'term' is\n never used\n\
             ==== Checking grammar src/stmt.g ====\nFile 'src/stmt.g' line 3: Parse Error: missing ';' after rule\n==== 2 errors ====\n",
            &[
                ("src/expr.g:20", "Parse Error: rule 'term' is never used"),
                ("src/stmt.g:3", "Parse Error: missing ';' after rule"),
            ],
        ),
        (
            "Validating deploy/site.pp\nIn \"deploy/site.pp\", line 4:\n    3 | file { '/etc/motd':\n    4 |   ensure => presnt,\n\
             Error: invalid value 'presnt' for ensure\nIn \"deploy/users.pp\", line 9:\n    9 |   uid => 'abc',\nError: uid must be an integer\n2 errors\n",
            &[
                ("deploy/site.pp:4", "invalid value 'presnt' for ensure"),
                ("deploy/users.pp:9", "uid must be an integer"),
            ],
        ),
    ];
    for (log, want) in cases {
        assert_eq!(read_both(log), pairs(want), "{log}");
    }
}

/// A runner that announces each test as it starts, then reports a failure first by the
/// announced name, in whatever words follow: the announced names head the reports.
#[test]
fn names_announced_as_tests_start_head_their_reports_whatever_follows() {
    let log = "Running test suite: calc ----\nRunning test case: test-add\nRunning test case: test-halve\n\
               Running test case: test-parse\nRunning test case: test-sum\n\
               test-halve failed: assert-equal: expected:\n3\n\ngot: \n2\n\n\
               test-parse: exception in test: (wrong-type-arg \"+\")\n\
               test-sum failed: assert-true:  got: #f\n\n4 run, 3 failed\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["test-halve", "test-parse", "test-sum"], "{got:?}");
    assert!(got[0].1.starts_with("assert-equal: expected:"), "{got:?}");
    assert!(got[1].1.contains("exception in test"), "{got:?}");
}

/// Records `Test NAME Verdict` over labelled fields: alike at both ends though a field's
/// sentence ends in a verdict word; the message is what the `Failures:`/`Errors:` label
/// announces, without the rule glued to its end; a passing record is no part of the one
/// above; `N of M tests did not pass` counts N failures.
#[test]
fn records_alike_at_both_ends_with_their_message_under_its_label() {
    let rule = "-".repeat(40);
    let log = format!(
        "{rule}\nTest add Passed \nDescription: adds two numbers\n{rule}\nTest halve Failed \nDescription: halves\nFailures:\n    \
         6 / 2 gave 4{rule}\nTest scale Passed \nDescription: scales\n{rule}\nTest parse Errored \nDescription: bad input ends in a failure\nErrors:\n    \
         no digits in \"x\"{rule}\nTest depth Passed \nDescription: depth\n\n2 of 4 tests did not pass\n"
    );
    assert_eq!(
        read_both(&log),
        pairs(&[
            ("Test halve", "6 / 2 gave 4"),
            ("Test parse", "no digits in \"x\""),
        ])
    );
    assert_eq!(
        crate::stated::stated(&["5 of 8 tests did not pass".to_owned()]).counts(),
        [5]
    );
}

/// A count of a wrapper's units (`FAILURE: 2 operations`, `error: 2 targets failed`) is no
/// count of failures; a project's failed heading over an echoed command and the compiler's
/// findings is their heading, no failure of its own; each finding is one.
#[test]
fn a_wrappers_failed_projects_head_the_findings_inside_them() {
    let log = "==[ FAILURE: 2 operations ]====\n\n--[ FAILURE: @acme/dates ]------[ 2.69 seconds ]--\n\n\
               Invoking: tsc -p .\nsrc/index.ts(10,22): error TS2362: The left-hand side must be a number.\n\
               src/index.ts(11,5): error TS2304: Cannot find name 'x'.\nReturned error code: 2\n\n\
               --[ FAILURE: @acme/report ]-----[ 2.68 seconds ]--\n\nInvoking: tsc -p .\n\
               src/index.ts(5,31): error TS2322: Type '\"GBP\"' is not assignable to type 'Currency'.\nReturned error code: 2\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["src/index.ts:10", "src/index.ts:11", "src/index.ts:5"],
        "{got:?}"
    );
    assert_eq!(
        crate::stated::stated(&["error: 2 targets failed:".to_owned()]).counts(),
        [] as [usize; 0]
    );
}

/// A mark and a bracketed severity over the message (`▲ [WARNING] … [rule]`, `✘ [ERROR] …`),
/// the place alone on an indented line under it: one finding each, named by the place, the
/// rule its code; the mark and the severity are no stream's label.
#[test]
fn a_bracketed_severity_over_an_indented_place_is_a_finding() {
    let log = "▲ [WARNING] Duplicate key \"x\" in object literal [duplicate-object-key]\n\n    src/a.ts:6:53:\n      6 │ const o = { x: 1, x: 2 };\n        ╵                   ~\n\n\
               \x20 The original key \"x\" is here:\n\n    src/a.ts:6:12:\n      6 │ const o = { x: 1, x: 2 };\n        ╵             ~\n\n\
               ✘ [ERROR] Unexpected end of file\n\n    src/b.ts:13:0:\n      13 │\n         ╵ ^\n\n\
               ✘ [ERROR] Could not resolve \"./c.json\"\n\n    src/c.ts:1:21:\n      1 │ import c from './c.json';\n        ╵                      ~~~~~~~~\n\n\
               1 warning and 2 errors\n";
    let got = read_both(log);
    assert_eq!(
        got,
        pairs(&[
            ("src/b.ts:13", "Unexpected end of file"),
            ("src/c.ts:1", "Could not resolve \"./c.json\""),
            ("src/a.ts:6", "Duplicate key \"x\" in object literal"),
        ])
    );
}

/// A number glued to a word by a hyphen or an underscore is part of a name (`test-2 failed:
/// …`), no count: a hundred such headers do not state that two failed.
#[test]
fn a_number_in_a_name_is_no_count() {
    assert!(
        crate::stated::stated(&["test-2 failed: assert-equal".to_owned()])
            .counts()
            .is_empty()
    );
    assert_eq!(
        crate::stated::stated(&["8 run, 6 failed".to_owned()]).counts(),
        [6]
    );
}

/// Bracketed verdicts with their detail under each, the last one's too, after another test's
/// record above the first: the detail is each verdict's own, not the next one's.
#[test]
fn detail_under_every_bracketed_verdict_stays_with_it() {
    let log = "( STDERR )  job  1    unknown code 'WINTER'\n( FAILED )  job  1    t/a.t\n< REASON >  job  1    No plan was declared\n\
               [  FAIL  ]  job  2  + thousands separator\n[  DEBUG ]  job  2    t/b.t line 7\n(  DIAG  )  job  2    | $1234.56 | =~ | comma |\n\
               [  FAIL  ]  job  3  + rounds half up\n[  DEBUG ]  job  3    t/c.t line 6\n(  DIAG  )  job  3    | 44 | eq | 45 |\n\
               ( FAILED )  job  3    t/c.t\n\nFail Count: 3\n";
    let got = read_both(log);
    let half = got
        .iter()
        .find(|(n, _)| n.ends_with("rounds half up"))
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(half.1.contains("t/c.t line 6"), "{got:?}");
    let comma = got
        .iter()
        .find(|(n, _)| n.ends_with("thousands separator"))
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(comma.1.contains("t/b.t line 7"), "{got:?}");
}

/// A note right after a finding (`info: … originally defined here`) is that finding's context,
/// no finding of its own; a warning after it is one.
#[test]
fn a_note_after_a_finding_is_its_context() {
    let log = "src/table.asm:7: error: segment alignment `3' is not power of two\n\
               src/table.asm:13: error: label `lookup' inconsistently redefined\n\
               src/table.asm:10: info: label `lookup' originally defined here\n\
               src/table.asm:20: warning: dword data exceeds bounds [-w+number-overflow]\n";
    let parsed = parse_log_with(log, Parsers::GenericOnly);
    let names: Vec<String> = names(&parsed);
    assert_eq!(
        names,
        ["src/table.asm:7", "src/table.asm:13", "src/table.asm:20"],
        "{:#?}",
        parsed.blocks
    );
    assert!(
        parsed.blocks[1]
            .lines
            .iter()
            .any(|l| l.contains("originally defined here"))
    );
}

/// A build tool's tally of its targets (`...failed updating 2 target(s)...`) names no test.
#[test]
fn a_tally_of_targets_names_nothing() {
    assert!(!crate::line::name_like("updating 2 target(s)..."));
    assert!(!crate::line::name_like("2 tasks"));
    assert!(crate::line::name_like(
        "updates 2 targets in order of their names and sizes"
    ));
}

/// A tree of tests signed `+` (passed) and `-` (failed): each `-` row among `+` siblings is a
/// failure, its detail the lines under it, what it threw at its own depth included; a `-`
/// bullet with no `+` beside it is a list.
#[test]
fn a_tree_signed_plus_and_minus_reports_its_minus_rows() {
    let log = "  Money\n    split\n      + returns 3\n      + returns 2\n      - keeps every cent\n        expected => 100\n        returned => 99\n\
               \x20     - returns []\n      divided by 0 (ZeroDivisionError)\n        lib/money.rb:23:in `/'\n    parse\n      + reads cents\n\n\
               \x20 2 failed and 3 succeeded in 0.001 seconds\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["keeps every cent", "returns []"], "{got:?}");
    assert!(got[0].1.starts_with("expected => 100"), "{got:?}");
    assert!(got[1].1.starts_with("divided by 0"), "{got:?}");
    let list = "Changes:\n- adds a parser\n- fixes the tests\n";
    assert!(parse_log_with(list, Parsers::GenericOnly).blocks.is_empty());
}

/// Counted rows `(i/n) [KIND] text`, one marked failed: named by the row of its count and kind
/// above it, else by its own text over the indented detail.
#[test]
fn counted_rows_marked_failed_are_named_by_their_title_row() {
    let log = "Starting: 2 suite(s), 5 case(s)\n  Starting: test/a.suite\n    (1/2) [  GIVEN] a list to sort\n    (1/2) [EXECUTE] sort by mistake\n\
               \x20   (1/2) [ EXPECT] (X) alphabetical order\n      - Expected:\n          apple\n      - Got:\n          pear\n\
               \x20   (2/2) [EXECUTE] wordcount ignores repeated spaces\n    (2/2) [EXECUTE] (X) 6 should be equal to 3\n  Success/Total: 0/2\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["alphabetical order", "wordcount ignores repeated spaces"],
        "{got:?}"
    );
    assert!(got[0].1.contains("Expected:"), "{got:?}");
    assert!(got[1].1.contains("6 should be equal to 3"), "{got:?}");
}

/// A finding's message goes on where the tool put the rest of it: the values a generic check
/// compared, unindented (`Value of:`, `Actual:`, `Expected:`), and words wrapped onto an
/// indented line after a line that stops mid-sentence; never a code frame or a field.
#[test]
fn a_findings_message_goes_on_over_compared_values_and_wrapped_words() {
    let log = "tests/ring_test.cpp:33: error: failed to expect\nValue of: (r.max() == -2)\n  Actual:   0\n  Expected: -2\n\
               lisp/a.el:19:16: Warning: the function ‘string-join’ is not known to\n    be defined.\n\
               src/b.c:4:5: error: expected ';' before '}' token\n    4 |   return x\n      |           ^\n";
    let got = read_both(log);
    assert!(got[0].1.contains("Value of: (r.max() == -2)"), "{got:?}");
    let wrapped = got.iter().find(|(n, _)| n == "lisp/a.el:19").unwrap();
    assert!(
        wrapped.1.ends_with("is not known to be defined."),
        "{got:?}"
    );
    let framed = got.iter().find(|(n, _)| n == "src/b.c:4").unwrap();
    assert!(!framed.1.contains("return x"), "{got:?}");
}

/// Records set apart by blank lines under a verdict alone (`FAILED:`), each named by its `name`
/// field or the quoted value of its first field.
#[test]
fn records_under_a_verdict_banner_are_named_by_their_first_field() {
    let log = "Unit Testing:  rules.yml\n  FAILED:\n    name: instance down fires after five minutes,\n    alertname: InstanceDown, time: 4m,\n        exp:[ 0: Labels:{severity=\"page\"} ],\n        got:[]\n\n\
               \x20   expr: \"job:errors:rate5m\", time: 10m,\n        exp: {job=\"web\"} 1.5E+00\n        got: {job=\"web\"} 5E-01\n\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "instance down fires after five minutes",
            "job:errors:rate5m"
        ],
        "{got:?}"
    );
    assert!(got[0].1.starts_with("alertname: InstanceDown"), "{got:?}");
}

/// A marked row with what went wrong in parentheses after the name: the name before them, the
/// message inside them.
#[test]
fn what_went_wrong_in_parentheses_after_a_marked_name() {
    let log = "=== health ===\n  ✔ status is 200\n  ✖ version == 1.5.0 (AssertionError [ERR_ASSERTION]: version (1.4.2) == 1.5.0)\n\
               \x20 ✖ name == Ada (AssertionError [ERR_ASSERTION]: name (undefined) == Ada)\n\n2 failed, 1 passed\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "version == 1.5.0",
                "AssertionError [ERR_ASSERTION]: version (1.4.2) == 1.5.0"
            ),
            (
                "name == Ada",
                "AssertionError [ERR_ASSERTION]: name (undefined) == Ada"
            ),
        ])
    );
}

/// Error lines in a failed step's indented output are what went wrong in that step: its report
/// holds them and says them, first.
#[test]
fn error_lines_inside_a_failed_steps_output_are_its_message() {
    let log = "> Compiling sources\r✓ Compiling sources\n> Installing dependencies\r✗ Installing dependencies (1)\n  > pip install -r requirements.txt\n  Collecting attrs==23.2.0\n\
               \x20 ERROR: Could not find a version that satisfies the requirement nosuch==2.4.1 (from versions: none)\n\
               \x20 ERROR: No matching distribution found for nosuch==2.4.1\n";
    let parsed = parse_log_with(log, Parsers::GenericOnly);
    let first = parsed.blocks.first().expect("a block");
    assert!(
        first
            .lines
            .iter()
            .any(|l| l.contains("Could not find a version")),
        "{:#?}",
        parsed.blocks
    );
    assert_eq!(parsed.blocks.len(), 1, "{:#?}", parsed.blocks);
}

/// Rows under their file with the rule before the severity (`8:23 noImportant error …`), and
/// rows that give their line in a labelled field with a bracketed severity at the end
/// (`Line: 2 Unexpected spaces found. [warning]` under `File: src/a.js`): one finding each.
#[test]
fn rows_with_the_rule_first_or_the_line_in_a_field_are_findings() {
    let log = "styles/site.styl\n8:23 noImportant error !important is disallowed\n\nstyles/site.styl\n2:8 zeroUnits warning 0 is preferred\n\n\
               Stylint: 1 Errors.\n";
    let got = read_both(log);
    assert_eq!(
        got,
        pairs(&[
            ("styles/site.styl:8", "!important is disallowed"),
            ("styles/site.styl:2", "0 is preferred"),
        ])
    );
    let log = "\nFile: src/add.js\nLine: 2 Unexpected trailing spaces found. [warning]\nLine: 4 Maximum amount of newlines exceeded. [warning]\n\n\
               File: src/vals.js\nLine: 3 Expected a newline at the end of the file. [error]\n";
    let got = read_both(log);
    assert_eq!(
        got,
        pairs(&[
            (
                "src/vals.js:3",
                "Expected a newline at the end of the file."
            ),
            ("src/add.js:2", "Unexpected trailing spaces found."),
            ("src/add.js:4", "Maximum amount of newlines exceeded."),
        ])
    );
}

/// A place alone over a code frame whose marked row is `> N|` and whose caret is drawn on a
/// rule (`-----^`), the message after the frame: the message, not the marked row.
#[test]
fn a_place_over_a_frame_with_a_marked_row_and_a_drawn_caret() {
    let log = "views/layout.pug:7:23\n    5|   body\n    6|     div#main\n  > 7|       a(href='/a', href=\"/b\") Home\n-----------------------------^\n    8|       p hi\n\n\
               Duplicate attribute \"href\" is not allowed\n\nviews/layout.pug:6:8\n  > 6|     div#main\n--------------^\n    7|       a Home\n\nID literals must not be used\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "views/layout.pug:7",
                "Duplicate attribute \"href\" is not allowed"
            ),
            ("views/layout.pug:6", "ID literals must not be used"),
        ])
    );
}

/// A run's tally as a fraction (`✖ 4/8 tests passed`, `✖ 4/7 assertions passed`) names no
/// test.
#[test]
fn a_tally_as_a_fraction_names_nothing() {
    assert!(!crate::line::name_like("4/8 tests passed"));
    assert!(!crate::line::name_like("4/7 assertions passed"));
    assert!(crate::line::name_like("splits 4/8 into halves"));
}

/// A quoted place in words takes its severity from the label after it, not from a word
/// anywhere in the message.
#[test]
fn a_quoted_place_takes_its_severity_from_its_label() {
    use crate::diagnostics::Severity;
    let warned =
        crate::diagnostics::quoted_worded("File 'a.g' line 3: Warning: rule 'x' is never used");
    assert!(
        matches!(warned, Some(("a.g", 3, _, Some(Severity::Warning)))),
        "{warned:?}"
    );
    let failed =
        crate::diagnostics::quoted_worded("File 'a.g' line 4: Parse Error: no warning here");
    assert!(
        matches!(failed, Some(("a.g", 4, _, Some(Severity::Error)))),
        "{failed:?}"
    );
    assert!(crate::diagnostics::quoted_worded("File 'a.g' line 4: just words").is_none());
}

/// A file's verdict over its tests' rows (`src/a.test.ts ✖`), a test's row over its failed
/// assertion's row one indent deeper (`  equal() ✖`), and the failure's values, error and
/// frames fenced by a rule after them: one failure per test, named by the test, its message
/// the error after the compared values. A passing row (`✔`) is no failure.
#[test]
fn a_test_row_over_its_assertion_rows_and_a_fenced_body_is_one_failure() {
    let rule = "─".repeat(40);
    let log = format!(
        "src/cart.test.ts ✖\n\nadds items ✔\n  equal() ✔\n\nclears the cart ✖\n  equal() ✖\n\n{rule}\n\nActual:\n\n[ 1 ]\n\nExpected:\n\n[]\n\n\
         AssertionError: not deeply and strictly equivalent\n    at equal (/p/node_modules/k/equal.js:42:23)\n    at <anonymous> (/p/src/cart.test.ts:21:10)\n\n{rule}\n\n\n\
         totals in cents ✖\n  isTrue() ✖\n\n{rule}\n\nActual:\n\nfalse\n\nAssertionError: is not true\n    at <anonymous> (/p/src/cart.test.ts:30:10)\n\n{rule}\n\n\n\
         ✖ 1/3 tests passed\n"
    );
    let parsed = parse_log(&log);
    assert_eq!(parsed.agreement.stated(), Some(2), "{:?}", parsed.agreement);
    assert_eq!(
        read_both(&log),
        pairs(&[
            (
                "clears the cart",
                "AssertionError: not deeply and strictly equivalent"
            ),
            ("totals in cents", "AssertionError: is not true"),
        ])
    );
}

/// Names listed under a `Failed Tests:` heading with a failure's mark (`x name`), each with its
/// message and frames indented under it: the items are the names, the lines under them their
/// reports.
#[test]
fn a_list_of_marked_names_with_their_detail_under_them() {
    let log = "  .xx.\n\n  5 tests\n  3 passed\n  2 failed\n\n  Failed Tests:\n   x books overlap\n     a booking ending at 5 must clash\n      at /p/test/booking.js:12:70\n      at bound (node:domain:433:15)\n   x room has a name\n     expected Object { id: 4 } to have property name\n      at /p/test/room.js:35:20\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("books overlap", "a booking ending at 5 must clash"),
            (
                "room has a name",
                "expected Object { id: 4 } to have property name"
            ),
        ])
    );
}

/// A verdict in two words before a test's file, its name and why (`Assert Failed: FILE: NAME:
/// why`), with the test's verdict row under it: named by the file and the test, why its message.
#[test]
fn a_worded_verdict_before_the_file_the_name_and_why() {
    let log = "Suite: /p/test/clock.js\n\nAssert Failed: /p/test/clock.js: testLeapYear: Feb 29 should stay in February\nX testLeapYear\n\n\
               Assert Failed: /p/test/clock.js: testZone: ISO string ends with +00:00\nX testZone\n\nTests failed: 2 of 5 (40%)\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "/p/test/clock.js: testLeapYear",
                "Feb 29 should stay in February"
            ),
            ("/p/test/clock.js: testZone", "ISO string ends with +00:00"),
        ])
    );
}

/// A comment's table (`# | Ln|Got |Expected |`) names no stream: marks alone are no label.
#[test]
fn marks_alone_label_no_stream() {
    assert!(crate::wrapper::streams::label("# | 1|alpha |alpha |").is_none());
    assert!(crate::wrapper::streams::label("# * 3|gamma |GAMMA *").is_none());
    assert_eq!(
        crate::wrapper::streams::label("api | listening").map(|(n, _)| n),
        Some("api")
    );
}

/// Rows under a file that give a line alone (`9 brackets warning …`) beside rows with a line
/// and a column; a finding about a whole file (`demo.spec: W: no-buildroot-tag`) among placed
/// rows; the run's counts after the last row (one space in, its clauses split by `; `) are no
/// part of it.
#[test]
fn rows_with_a_line_alone_and_findings_about_a_whole_file() {
    let log = "styles/site.styl\n6:7 brackets warning unnecessary bracket\n\nstyles/site.styl\n9 brackets warning unnecessary bracket\n\nStylint: 2 Warnings.\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("styles/site.styl:6", "unnecessary bracket"),
            ("styles/site.styl:9", "unnecessary bracket"),
        ])
    );
    let log = "demo.spec:18: E: use-of-RPM_SOURCE_DIR\ndemo.spec:16: W: setup-not-quiet\ndemo.spec: W: no-buildroot-tag\ndemo.spec:26: W: mixed-use\n 0 packages and 1 specfiles checked; 1 errors, 3 warnings, 3 badness; has taken 0.0 s\n";
    let parsed = parse_log(log);
    // (Its error agrees with `1 errors`; without the clauses split, the line states nothing.)
    assert_eq!(
        parsed.agreement,
        crate::stated::Agreement::Agrees { stated: 1 },
    );
    assert_eq!(
        read_both(log),
        pairs(&[
            ("demo.spec:18", "E: use-of-RPM_SOURCE_DIR"),
            ("demo.spec:16", "W: setup-not-quiet"),
            ("demo.spec", "W: no-buildroot-tag"),
            ("demo.spec:26", "W: mixed-use"),
        ])
    );
}

/// Places listed one under another, each with a word or a few and no severity (a coverage
/// tool's untyped names, an unused-export finder's `path[line,col]: name`), are findings one
/// line each, two on one line apart by their columns; a place alone with a word after it is a
/// test's own output, not a finding, and a severity opening what it says is another reader's.
#[test]
fn listed_places_with_a_word_each_are_findings() {
    let log =
        "src/api.ts:1:23: body\nsrc/api.ts:3:10: data\nsrc/api.ts:3:15: items\n(17 / 27) 62.96%\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("src/api.ts:1", "body"),
            ("src/api.ts:3", "data"),
            ("src/api.ts:3", "items"),
        ])
    );
    let log = "2 modules with unused exports\nsrc/format.ts[2,0]: pct\nsrc/math.ts[4,0]: Shape\n";
    assert_eq!(
        read_both(log),
        pairs(&[("src/format.ts:2", "pct"), ("src/math.ts:4", "Shape")])
    );
    for alone in [
        "running tests\ntests/a_test.py:12: done\n1 passed\n",
        "tests/a_test.py:12: AssertionError\ntests/a_test.py:14: AssertionError\n",
    ] {
        assert!(
            parse_log(alone)
                .blocks
                .iter()
                .all(|b| b.message.as_deref() != Some("done")
                    && b.message.as_deref() != Some("AssertionError")),
            "{alone}"
        );
    }
}

/// A TAP point named by a file closes that file's tests, indented under it without a
/// `# Subtest:` line each (a runner that runs each test file as a subtest): every failing test
/// under it is a failure of its own with its own message, not the file's first assertion; a
/// point named like a test (`mod.Class.test_x`) keeps its children as its assertions.
#[test]
fn a_tap_point_named_by_a_file_stands_for_its_tests() {
    let log = "TAP version 13\n1..1\n# Subtest: test_ship.py\n    ok 1 test_ship.T.test_eu\n    not ok 2 test_ship.T.test_us\n      ---\n        message: |\n          Traceback (most recent call last):\n          AssertionError: 10.5 != 10.0\n      ...\n    not ok 3 test_ship.T.test_zero\n      ---\n        message: |\n          ValueError: weight must be positive\n      ...\n    1..3\nnot ok 1 test_ship.py\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("test_ship.T.test_us", "AssertionError: 10.5 != 10.0"),
            (
                "test_ship.T.test_zero",
                "ValueError: weight must be positive"
            ),
        ])
    );
    let log = log.replace("test_ship.py", "test_ship.T.test_all");
    let names: Vec<String> = parse_log(&log)
        .blocks
        .iter()
        .filter_map(|b| b.test_name.clone())
        .collect();
    assert_eq!(names, ["test_ship.T.test_all"]);
}

/// A test's progress line (`test_x ... FAIL`) beside its own report is not a second failure:
/// where the reports alone agree with the stated count, they stand; where the progress line is
/// all there is of a test, it stays.
#[test]
fn a_progress_line_beside_the_tests_report_is_no_second_failure() {
    let (eq, dash) = ("=".repeat(70), "-".repeat(70));
    let report = format!(
        "a.Tests\n    test_one ... FAIL\n    test_two ... ok\n    test_three ... ERROR\n\n{eq}\nFAIL: test_one (a.Tests.test_one)\n{dash}\nTraceback (most recent call last):\n  File \"a.py\", line 3, in test_one\nAssertionError: 1 != 2\n\n{eq}\nERROR: test_three (a.Tests.test_three)\n{dash}\nTraceback (most recent call last):\n  File \"a.py\", line 5, in test_three\nValueError: bad\n\n{dash}\nRan 3 tests in 0.001s\n\nFAILED (failures=1, errors=1)\n"
    );
    let report = report.as_str();
    let parsed = parse_log(report);
    assert_eq!(
        parsed.agreement,
        crate::stated::Agreement::Agrees { stated: 2 }
    );
    let messages: Vec<&str> = parsed
        .blocks
        .iter()
        .filter_map(|b| b.message.as_deref())
        .collect();
    assert_eq!(messages, ["AssertionError: 1 != 2", "ValueError: bad"]);
    // A progress line whose test has no report of its own stays (its test failed all the same).
    let unreported = report
        .replace(
            "    test_two ... ok",
            "    test_two ... ok\n    test_four ... FAIL",
        )
        .replace("failures=1, errors=1", "failures=2, errors=1");
    let names: Vec<String> = parse_log(&unreported)
        .blocks
        .iter()
        .filter_map(|b| b.test_name.clone())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().any(|n| n == "test_four"), "{names:?}");
}

/// A tally of what passed counts what did not (`4/8 tests passed` states 4 failures), unless
/// the line counts its failures itself.
#[test]
fn a_tally_of_passes_counts_the_rest_as_failed() {
    let counts = |l: &str| crate::stated::stated(&[l.to_owned()]).counts().to_vec();
    assert_eq!(counts("✖ 4/8 tests passed"), vec![4]);
    assert_eq!(counts("3 of 7 assertions passed"), vec![4]);
    assert_eq!(counts("-1/4 tests OK, 5 failures"), vec![5]);
}

/// Tests announced as they run (`  running name`), each one's output indented under it: a
/// test whose output holds a traceback is a failure named by the announcement, its message
/// the exception; a test whose output says nothing went wrong is none.
#[test]
fn announced_tests_with_their_output_indented_under_them() {
    let log = "running geometry.py\n  running area\n    coverage 100%\n  running normalize\n    normalize(deg=-1595)\n    Traceback (most recent call last):\n      File \"/v/deal/_testing.py\", line 52, in __call__\n        result = self.func()\n    PostContractError: expected 0 <= r < 360 (where r=-155)\n  running clamp\n    coverage 100%\n  running hex_color\n    hex_color(r=500)\n    Traceback (most recent call last):\n      File \"/v/deal/_testing.py\", line 52, in __call__\n        result = self.func()\n    PostContractError: expected len(r) == 7\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "normalize",
                "PostContractError: expected 0 <= r < 360 (where r=-155)"
            ),
            ("hex_color", "PostContractError: expected len(r) == 7"),
        ])
    );
}

/// Counts with words between the total and the outcome, and a list of the failures after a
/// colon, state the count (`4 out of 10 total tests failed: A, B, C, D`); a test point's own
/// words before a colon do not (`not ok 3 Error: sheet has no manager`).
#[test]
fn counts_before_a_list_of_what_they_count() {
    let counts = |l: &str| crate::stated::stated(&[l.to_owned()]).counts().to_vec();
    assert_eq!(
        counts("4 out of 10 total tests failed: Q.FIFO, Q.DRAIN, Q.PEEK, Q.PARSE"),
        vec![4]
    );
    assert!(counts("not ok 3 Error: sheet has no manager").is_empty());
    assert!(counts("Found 4 errors in the same file, starting at: src/cart.ts:4").is_empty());
}

/// `Test NAME failed` records whose first field quotes the code run (`Form: (…)`): the compared
/// values are the message, not the quoted form.
#[test]
fn a_field_that_quotes_the_code_is_no_message() {
    let log = "Doing 3 pending tests of 3 tests total.\nTest Q.FIFO failed\nForm: (DEQUEUE Q)\nExpected value: 1\nActual value: 3.\nTest Q.PARSE failed\nForm: (PARSE-INTEGER \"12x\")\nExpected value: 12\nActual value: NIL.\n2 out of 3 total tests failed: Q.FIFO, Q.PARSE.\n";
    let got = read_both(log);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].0.ends_with("Q.FIFO"), "{got:?}");
    assert_eq!(got[0].1, "Expected value: 1\nActual value: 3.");
    assert_eq!(got[1].1, "Expected value: 12\nActual value: NIL.");
}

/// Findings with the program's name before them: glued to the place (`onsgmls:a.sgml:2:20:E:
/// …`) or as a label before a severity label (`asciidoctor: ERROR: a.adoc: line 9: …`, and
/// one with no place, named by the program).
#[test]
fn findings_with_the_program_named_before_them() {
    let log = "onsgmls:q4.sgml:2:20:E: value of attribute \"STATUS\" cannot be \"URGENT\"\nonsgmls:q4.sgml:3:5:E: element \"NOTE\" undefined\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "q4.sgml:2",
                "E: value of attribute \"STATUS\" cannot be \"URGENT\""
            ),
            ("q4.sgml:3", "E: element \"NOTE\" undefined"),
        ])
    );
    let log = "asciidoctor: ERROR: guide.adoc: line 9: include file not found: snippets/a.adoc\nasciidoctor: WARNING: skipping reference to missing attribute: release\nasciidoctor: WARNING: faq.adoc: line 7: unterminated listing block\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("guide.adoc:9", "include file not found: snippets/a.adoc"),
            (
                "asciidoctor",
                "skipping reference to missing attribute: release"
            ),
            ("faq.adoc:7", "unterminated listing block"),
        ])
    );
}

/// Rows that open with a severity as one letter (`E: pkg: tag detail [pointer]`), lintian's:
/// one finding each, named by the place in brackets at its end, else by the label and tag.
#[test]
fn rows_opened_by_a_severity_letter() {
    let log = "running with root privileges is not recommended!\nE: tallyho: bogus-mail-host Maintainer tally@localhost\nE: tallyho: file-in-etc-not-marked-as-conffile [etc/tallyho/tallyho.conf]\nW: tallyho: initial-upload-closes-no-bugs [usr/share/doc/tallyho/changelog.Debian.gz:1]\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "tallyho: bogus-mail-host",
                "tallyho: bogus-mail-host Maintainer tally@localhost"
            ),
            (
                "etc/tallyho/tallyho.conf",
                "tallyho: file-in-etc-not-marked-as-conffile [etc/tallyho/tallyho.conf]"
            ),
            (
                "usr/share/doc/tallyho/changelog.Debian.gz:1",
                "tallyho: initial-upload-closes-no-bugs [usr/share/doc/tallyho/changelog.Debian.gz:1]"
            ),
        ])
    );
    // One such line alone is no run of findings.
    assert!(
        parse_log("E: something odd\n")
            .blocks
            .iter()
            .all(|b| !b.anchors.iter().any(|a| a.starts_with("diagnostic")))
    );
}

/// Records of fields on lines of their own, one of them the line (`Message :`, `Rule :`,
/// `Path :` an address in the document, `Line :`), under a heading that names the file: one
/// finding each at that file and line.
#[test]
fn records_of_fields_with_a_line_under_the_file_they_are_in() {
    let log = "Validation Results for openapi.yaml:\n\nErrors:\n\n  Message :   Query parameter names must be snake case\n  Rule    :   parameter-casing\n  Path    :   paths./counts.get.parameters.0\n  Line    :   15\n\n  Message :   Property names must be snake case: createdAt\n  Rule    :   property-casing\n  Path    :   components.schemas.Count.properties\n  Line    :   62\n\nSummary:\n  Total number of errors   : 2\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            (
                "openapi.yaml:15",
                "Query parameter names must be snake case"
            ),
            (
                "openapi.yaml:62",
                "Property names must be snake case: createdAt"
            ),
        ])
    );
}

/// Go tests whose assertion library prints before go's result line (`\tinvoice_test.go:12:
/// 249 != 399` over `--- FAIL: TestTotal`): each test's detail is the one above its result.
#[test]
fn go_results_under_their_own_detail() {
    let log = "\tinvoice_test.go:12: 249 != 399\n--- FAIL: TestTotal (0.00s)\n\tinvoice_test.go:24: {w 0} != {w 3}\n--- FAIL: TestParse (0.00s)\n\tinvoice_test.go:41: not true: err != nil\n--- FAIL: TestValidate (0.00s)\nFAIL\nFAIL\tinvoice\t0.003s\nFAIL\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("TestTotal", "249 != 399"),
            ("TestParse", "{w 0} != {w 3}"),
            ("TestValidate", "not true: err != nil"),
        ])
    );
}

/// A report that is a unified diff of expected and actual output says what went wrong in its
/// changed lines, not in its headers or context.
#[test]
fn a_diff_report_says_what_changed() {
    let log = "!\n--- tests/basic.t\n+++ tests/basic.t.err\n@@ -15,10 +15,10 @@\n Version string:\n \n   $ wc2 --version\n-  wc2 1.1.0\n+  wc2 1.0.1\n \n!\n--- tests/help.t\n+++ tests/help.t.err\n@@ -1,4 +1,5 @@\n   $ wc2 --help\n-  usage: wc2 FILE\n+  wc2: unknown option --help\n\n# Ran 3 tests, 0 skipped, 2 failed.\n";
    assert_eq!(
        read_both(log),
        pairs(&[
            ("tests/basic.t", "-  wc2 1.1.0\n+  wc2 1.0.1"),
            (
                "tests/help.t",
                "-  usage: wc2 FILE\n+  wc2: unknown option --help"
            ),
        ])
    );
}

/// A tree of verdicts whose failures' bodies a gutter marks (`    | Error: …`, a blank line
/// inside), under groups of one word, then a recap that repeats each report under its path
/// (`test/spec > slug > name`): one failure per test, its message without the gutter, the
/// recap no failure of its own, and a group's line (`slug`) no part of the report above it nor
/// of a test's name.
#[test]
fn a_guttered_tree_and_its_recap_are_one_failure_each() {
    let log = " test/spec\n   fetch\n    ✓  finds an entry\n    ✗  missing key\n    | ReferenceError: no entry for key b\n    |     at lookup (/p/test/spec/fetch.js:4:30)\n    ✗  loads quickly\n    | Error: Test has timed out after 500ms\n   slug\n    ✗  slug has no trailing dash\n    | AssertionError [ERR_ASSERTION]: values differ:\n\n    |   [ 'a' ]\n    |     at slug (/p/test/spec/slug.js:18:5)\n\n\
               test/spec > fetch > missing key\n  ReferenceError: no entry for key b\n      at lookup (/p/test/spec/fetch.js:4:30)\n\n\
               test/spec > fetch > loads quickly\n  Error: Test has timed out after 500ms\n\n\
               test/spec > slug > slug has no trailing dash\n  AssertionError [ERR_ASSERTION]: values differ:\n\n    [ 'a' ]\n      at slug (/p/test/spec/slug.js:18:5)\n\n\
               🦅  Executed 4 tests: 3 errors.\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["missing key", "loads quickly", "slug has no trailing dash"],
        "{got:?}"
    );
    assert_eq!(got[0].1, "ReferenceError: no entry for key b");
    assert_eq!(got[1].1, "Error: Test has timed out after 500ms");
    assert!(
        got[2]
            .1
            .starts_with("AssertionError [ERR_ASSERTION]: values differ:"),
        "{got:?}"
    );
}

/// Where a tool marks each finding's severity (`E:`), an unmarked line right after one in the
/// same file (`start tag was here`) is a note on it, no finding of its own.
#[test]
fn an_unmarked_line_after_a_marked_finding_is_its_note() {
    let log = "onsgmls:q4.sgml:11:6:E: end tag for \"EM\" omitted\nonsgmls:q4.sgml:10:14: start tag was here\nonsgmls:q4.sgml:8:23:X: reference to non-existent ID \"PLAN\"\n";
    let parsed = parse_log(log);
    assert_eq!(
        named_messages(&parsed),
        pairs(&[
            ("q4.sgml:11", "E: end tag for \"EM\" omitted"),
            ("q4.sgml:8", "X: reference to non-existent ID \"PLAN\""),
        ])
    );
    assert_eq!(parsed.blocks[0].lines.len(), 2);
}

/// A quoted file first, its line in words, then the severity (`"src/a.c", line 9: warning:
/// …`): named by the file without its quotes, the severity the label's.
#[test]
fn a_quoted_file_first_then_its_line_in_words() {
    let log = "\"src/a.c\", line 4: error: identifier \"x\" is undefined\n\"src/a.c\", line 9: warning: variable \"y\" was declared but never referenced\n";
    let parsed = parse_log(log);
    assert_eq!(names(&parsed), ["src/a.c:4", "src/a.c:9"]);
    let warnings: Vec<bool> = parsed.blocks.iter().map(|b| b.is_warning()).collect();
    assert_eq!(warnings, [false, true]);
}

/// Findings as fields a dash separates, one of them the place alone: the severity from the
/// first field (a word, or a label before the code), the message after the place, the code a
/// rule-like last field or the first field's.
#[test]
fn findings_as_dashed_fields_around_their_place() {
    let log = "Analyzing app...\n\n  error - lib/a.dart:3:5 - Undefined name 'x'. Try correcting the name. - undefined_identifier\nwarning - lib/b.dart:9:1 - Unused import: 'dart:io'. - unused_import\n\n2 issues found.\n";
    let parsed = parse_log(log);
    assert_eq!(
        named_messages(&parsed),
        pairs(&[
            (
                "lib/a.dart:3",
                "Undefined name 'x'. Try correcting the name."
            ),
            ("lib/b.dart:9", "Unused import: 'dart:io'."),
        ])
    );
    let warnings: Vec<bool> = parsed.blocks.iter().map(|b| b.is_warning()).collect();
    assert_eq!(warnings, [false, true]);
    let log = "ERROR: UndefinedVariable - src/a.php:3:5 - Cannot find referenced variable $x\n  echo $x;\n\nERROR: InvalidReturnType - src/b.php:9:12 - The declared return type int is incorrect\n\n2 errors found\n";
    let got = read_both(log);
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["src/a.php:3", "src/b.php:9"]);
    assert!(got[0].1.starts_with("Cannot find referenced variable $x"));
    assert_eq!(got[1].1, "The declared return type int is incorrect");
    // A dash inside a sentence with no place among its fields is no finding.
    assert!(crate::diagnostics::one_line("error - something - went wrong").is_none());
}

/// A program's lone warning with no place (`autopkgtest: WARNING: …`) is a line of the job's
/// log, no finding: the job's own error lines are what it shows.
#[test]
fn a_programs_lone_warning_leaves_the_jobs_error_shown() {
    let log = "Removing autopkgtest-satdep (0) ...\nautopkgtest: WARNING: Test dependencies are unsatisfiable - calling apt install on test deps directly\nReading package lists...\nE: Unable to locate package python3-smbus2-sensors\nhardware-probe       FAIL badpkg\n";
    let parsed = parse_log(log);
    assert!(
        parsed.blocks[0]
            .lines
            .iter()
            .any(|l| l.contains("Unable to locate package")),
        "{:?}",
        parsed.blocks
    );
    assert!(
        parsed
            .blocks
            .iter()
            .all(|b| b.test_name.as_deref() != Some("autopkgtest"))
    );
}

/// make's report of a failed target ends in an exit status, no count (`make: *** [Makefile:21:
/// app] Error 2`): a build's steps are not read as that many failures.
#[test]
fn makes_exit_status_is_no_count() {
    let counts = |l: &str| crate::stated::stated(&[l.to_owned()]).counts().to_vec();
    assert!(counts("make: *** [Makefile:21: app] Error 2").is_empty());
    let log = "--- step 1: generate makefiles\nGenerating build/Makefile...\nDone.\n--- step 2: build\nmain.c\n../app/main.c:2:10: fatal error: config.h: No such file or directory\n    2 | #include \"config.h\"\ncompilation terminated.\nmake[1]: *** [app.make:130: obj/release/app/main.o] Error 1\nmake: *** [Makefile:21: app] Error 2\n";
    assert_eq!(names(&parse_log(log)), ["../app/main.c:2"]);
}

/// Places written otherwise: a column after a comma (`CMakeLists.txt:04,04: [C0103] …`), a
/// quoted place after `In file` under a severity's summary (`Warning: Invalid argument` over
/// `  In file `stats.scm:16',`, the summary told apart by the sentence that explains it), a
/// severity letter's label that is a file (`E: po/de.po: tag …`), a file's verdict with why
/// in parentheses (`FAIL: src/a.c (File size changed from 105 to 109)`).
#[test]
fn places_written_otherwise() {
    assert_eq!(
        names(&parse_log(
            "CMakeLists.txt:04,04: [C0103] Invalid name \"x\"\nCMakeLists.txt:11,00: [C0111] Missing docstring\n"
        )),
        ["CMakeLists.txt:4", "CMakeLists.txt:11"]
    );
    let log = "\nWarning: Invalid argument\n  In file `stats.scm:16',\n  In procedure `histogram',\n\n    (make-string n \"#\")\n\n  Argument #2 to procedure `make-string' has an invalid type:\n\n    string\n\nWarning: Invalid argument\n  In file `stats.scm:19',\n\n  Argument #1 to procedure `string-length' has an invalid type:\n\n    number\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "stats.scm:16",
                "Invalid argument\nArgument #2 to procedure `make-string' has an invalid type:"
            ),
            (
                "stats.scm:19",
                "Invalid argument\nArgument #1 to procedure `string-length' has an invalid type:"
            ),
        ])
    );
    assert_eq!(
        names(&parse_log(
            "E: po/de.po: unusual-plural-forms 'nplurals=3'\nW: po/fr.po: no-date-header-field POT-Creation-Date\n"
        )),
        ["po/de.po", "po/fr.po"]
    );
    assert_eq!(
        named_messages(&parse_log(
            "FAIL: src/clamp.c (File size changed from 105 to 109)\nFAIL: src/main.c (File size changed from 179 to 181)\nPASS: src/swap.c (123 bytes)\n"
        )),
        pairs(&[
            ("src/clamp.c", "File size changed from 105 to 109"),
            ("src/main.c", "File size changed from 179 to 181"),
        ])
    );
}

/// An assertion's row and its detail, then one indent up the verdict of the test it belongs
/// to: the closing verdict names the report, the assertion's row is its message.
#[test]
fn a_verdict_that_closes_its_assertions_names_their_report() {
    let log = "Suite billing\n    totals match - FAILED\n      expected: 10\n      actual:   12\n  (invoice_total) => FAILED\n    rounding kept - FAILED\n      expected: 0.5\n      actual:   0.49\n  (invoice_round) => FAILED\n  (invoice_tax) => PASSED\nSuite billing => FAILED\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [
            (
                "invoice_total".to_owned(),
                "totals match\nexpected: 10\nactual:   12".to_owned()
            ),
            (
                "invoice_round".to_owned(),
                "rounding kept\nexpected: 0.5\nactual:   0.49".to_owned()
            ),
        ]
    );
}

/// A TAP point's YAML `message: |` that holds a Python traceback says what failed at its end:
/// the exception and the lines after it, not the traceback's first line.
#[test]
fn a_traceback_in_a_yaml_message_says_what_failed_at_its_end() {
    let log = "TAP version 13\nnot ok 1 pkg.test_cart.CartTests.test_total\n  ---\n    message: |\n      Traceback (most recent call last):\n        File \"/w/pkg/test_cart.py\", line 9, in test_total\n          self.assertEqual(total([1, 2]), 4)\n      AssertionError: 3 != 4\n  ...\nok 2 pkg.test_cart.CartTests.test_empty\n1..2\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [(
            "pkg.test_cart.CartTests.test_total".to_owned(),
            "AssertionError: 3 != 4".to_owned()
        )]
    );
}

/// A run that lists each failed step with its time (`✕ NAME failed after 0.1s`) over reports
/// headed `● GROUP › NAME` that dump a request before the marked check that failed: one
/// failure per report, named by it, its message the failed check; the listed rows are no
/// failures of their own.
#[test]
fn listed_steps_and_reports_that_dump_before_the_failed_check() {
    let log = " FAIL  orders\n\n  ✕ create order failed after 0.12s\n  ✔ list orders passed after 0.03s\n\n● orders › create order\n\nRequest\n\nPOST http://127.0.0.1:9/orders\n\nResponse\n\nHTTP/1.1 500\n\nChecks\n\n✕ Status\n\nExpected\n\n201\n\nGiven\n\n500\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [(
            "orders › create order".to_owned(),
            "Status\nExpected\n201\nGiven\n500".to_owned()
        )]
    );
    assert_eq!(
        crate::line::without_timing("create order failed after 0.12s"),
        "create order"
    );
    assert_eq!(
        crate::line::without_timing("retries after 3s"),
        "retries after 3s"
    );
}

/// A TAP stream that prints each point's diagnostics before it (comments lead: the first point
/// has them, the last none after it, no YAML): a failing point's message is the comments right
/// before it, a line that only says where left out; no comment is a heading naming the points.
#[test]
fn diagnostics_printed_before_their_points() {
    let log = "1..4\n# 4 == 4\nok 1 - EQ \"$(add 2 2)\" 4\n# FAIL: ./t/add.t at line 5\n# 5 == 6\nnot ok 2 - EQ \"$(add 2 3)\" 6\n# ran: add 1 1\nok 3 - RUNS add 1 1\n# FAIL: ./t/add.t at line 9\n# exit 2, wanted 0\nnot ok 4 - RUNS add x\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [
            ("EQ \"$(add 2 3)\" 6".to_owned(), "5 == 6".to_owned()),
            ("RUNS add x".to_owned(), "exit 2, wanted 0".to_owned()),
        ]
    );
    // Where diagnostics follow their point (the first point has none before it), they stay
    // the point's above them.
    let after = "1..3\nok 1 - adds\nnot ok 2 - subtracts\n#   Failed test 'subtracts'\n#   got 5, wanted 6\nok 3 - multiplies\n";
    let got = named_messages(&parse_log(after));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "subtracts");
    assert!(got[0].1.contains("got 5, wanted 6"), "{got:?}");
}

/// Failures only in an end-of-run list under `failed checks:` (any case), each a YAML item
/// holding an inline mapping (values need not be JSON): named by its `name`/`test`/`case`/
/// `title` field, its message the fields after it.
#[test]
fn a_list_of_inline_mappings_under_a_failed_heading() {
    let log = "running 5 checks\nfailed checks:\n- {\"test\": \"sum of pairs\", \"got\": [4., 5.], \"want\": [4., 6.]}\n- {\"test\": \"empty input\", \"reason\": \"raised\"}\nchecks: {\"count\": 5, \"failed\": 2}\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, "sum of pairs");
    assert!(
        got[0]
            .1
            .starts_with("\"got\": [4., 5.], \"want\": [4., 6.]"),
        "{got:?}"
    );
    assert_eq!(
        got[1],
        (
            "empty input".to_owned(),
            "\"reason\": \"raised\"".to_owned()
        )
    );
}

/// Reports headed by a verdict, some padded to a column before their colon (`ERROR  : suite :
/// test` beside `Failure: suite : test`), each a record of labelled fields padded to one
/// column: one failure per header, its message the field that says what went wrong with the
/// lines that go on with it.
#[test]
fn verdict_headers_over_records_of_padded_fields() {
    let log = "Report: 3 tests run, 1 Error, 2 Failures.\n\nERROR  : cart : totals\n  Notes        : none\n  Source       : cart.lisp\n  Condition    : The value\n                   NIL\n                 is not a number\n\nFailure: cart : discounts\n  Notes        : none\n  Source       : cart.lisp\n  Condition    : 5 is not = to 4\n\nFailure: cart : taxes\n  Notes        : none\n  Source       : cart.lisp\n  Condition    : 1.2 is not = to 1.25\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].0.ends_with("cart : totals"), "{got:?}");
    assert_eq!(got[0].1, "The value\nNIL\nis not a number");
    assert_eq!(
        got[1..],
        [
            ("cart : discounts".to_owned(), "5 is not = to 4".to_owned()),
            ("cart : taxes".to_owned(), "1.2 is not = to 1.25".to_owned()),
        ]
    );
}

/// A row per test with its assertions' marks, a verdict and counts (`name x. FAILED (1 OK, 1
/// KO)`), each failing one over its detail: named by the row, its message the detail.
#[test]
fn a_row_of_assertion_marks_a_verdict_and_counts() {
    let log = "adds two numbers .. OK (2 OK, 0 KO)\nsubtracts x. FAILED (1 OK, 1 KO)\n\n[KO] spec/calc.lua line 9\n  expected: 1\n       got: 3\n\ndivides . OK (1 OK, 0 KO)\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "subtracts");
    assert!(got[0].1.contains("expected: 1"), "{got:?}");
    assert_eq!(
        crate::line::status_name("pad x. FAILED (1 OK, 1 KO)"),
        Some("pad".into())
    );
    assert_eq!(
        crate::line::status_name("the x. FAILED word in prose here"),
        None
    );
}

/// Scenarios whose failing step prints a nested TAP check and its comments: each failure is
/// named by its scenario, its message the check's own line (what it was called) and the
/// comments that say what failed.
#[test]
fn a_scenario_over_a_nested_failed_check() {
    let log = "  Feature: Cart\n\n    Scenario: Adding an item\n      Given an empty cart\n      Then the total should be 5\n          step defined at features/cart.feature line 9.\n              not ok - total\n              #   Failed test 'total'\n              #          got: '4'\n              #     expected: '5'\n              1..1\n\n    Scenario: Removing an item\n      Given a cart with one item\n      Then the cart should be empty\n\n  2 scenarios (1 passed, 1 failed)\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "Adding an item");
    assert_eq!(
        got[0].1,
        "not ok - total\nFailed test 'total'\ngot: '4'\nexpected: '5'"
    );
}

/// An error's kind alone under the paragraph that says what went wrong (`invalid duration`
/// over `TypeError: `, a runner that prints the text, then the kind): the message is both.
#[test]
fn an_errors_bare_kind_under_what_it_says() {
    let log = concat!(
        "  1) Durations
",
        "       parses hours:
",
        "
",
        "  invalid duration: \"2h\"\n",
        "  TypeError: \n",
        "      at parse (parse_test.js:3:75)\n",
        "\n",
        "  2) Durations\n",
        "       parses minutes:\n",
        "\n",
        "  minutes must be whole\n",
        "  RangeError: \n",
        "      at parse (parse_test.js:4:11)\n",
        "\n",
        "  2 failing\n",
    );
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].1.starts_with("invalid duration: \"2h\"\nTypeError:"),
        "{got:?}"
    );
    assert!(got[1].1.starts_with("minutes must be whole"), "{got:?}");
}

/// A short line a failure mark opens that counts something is the run's count, whatever it
/// counts, and no failure of its own; a TAP point after a mark is no count.
#[test]
fn a_marked_count_of_anything_is_the_count() {
    let log = concat!(
        "Processed 9 files\n",
        "\n",
        "✖ Found 2 circular dependencies!\n",
        "\n",
        "1) models/user.js > models/order.js\n",
        "2) util/log.js > util/config.js\n",
    );
    let parsed = parse_log(log);
    assert_eq!(parsed.agreement.stated(), Some(2), "{:#?}", parsed.blocks);
    assert!(
        parsed
            .blocks
            .iter()
            .all(|b| !b.lines.iter().any(|l| l.contains("Found 2"))),
        "{:#?}",
        parsed.blocks
    );
    assert_eq!(
        crate::stated::marked_count("❌ not ok 2 should equal"),
        None
    );
    assert_eq!(crate::stated::marked_count("✗ 3 broken links"), Some(3));
}

/// A logger's level in brackets before every line, of several levels, is the logger's; a row
/// with a numbered name glued to its dot leader, a bracketed verdict and why after it names its
/// test and says why.
#[test]
fn levelled_rows_with_a_glued_leader_and_a_bracketed_verdict() {
    let log = "[INFO] Running 3 tests\n[ERRO] 01) Shelf.Count..........[FAIL] shelf.c:9: expected [3] but was [4]\n[INFO] 02) Shelf.Empty..........[PASS] (0.001 ms)\n[ERRO] 03) Shelf.Label..........[FAIL] shelf.c:14: expected \"A\" but was \"B\"\n[INFO] Total: 3, Passed: 1, Failed: 2\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [
            (
                "Shelf.Count".to_owned(),
                "shelf.c:9: expected [3] but was [4]".to_owned()
            ),
            (
                "Shelf.Label".to_owned(),
                "shelf.c:14: expected \"A\" but was \"B\"".to_owned()
            ),
        ]
    );
}

/// A log a runner's parser claims but reads as one failure per file (`● tests/a.test.js` over
/// `✗ name` rows, each with its error after it): with fewer than half the stated count read,
/// the generic path, twice as near that count, stands.
#[test]
fn a_parser_that_reads_under_half_the_stated_count_gives_way() {
    let log = "Running 2 test file(s)\n\n● tests/a.test.js \n  cart \n    ✗ adds an item\nError: expected 2, got 1\n    at check (/w/tests/a.test.js:3:1)\n    ✓ removes an item\n    ✗ clears the cart\nError: expected 0, got 2\n    at check (/w/tests/a.test.js:9:1)\n    ✗ sums the lines\nError: expected 7, got 6\n    at check (/w/tests/a.test.js:12:1)\n\n● tests/b.test.js \n  ✗ totals with tax\nError: expected 5, got 4\n    at check (/w/tests/b.test.js:2:1)\n  ✗ rounds the total\nError: expected 3, got 2\n    at check (/w/tests/b.test.js:5:1)\n\n5 failed, 1 passed\n";
    let parsed = parse_log(log);
    let named: Vec<String> = parsed
        .blocks
        .iter()
        .filter_map(|b| b.test_name.clone())
        .collect();
    for want in [
        "adds an item",
        "clears the cart",
        "sums the lines",
        "totals with tax",
        "rounds the total",
    ] {
        assert!(named.iter().any(|n| n == want), "{want}: {named:?}");
    }
}

/// A list of failures under a drawn heading (`== Failed checks:`), each a bracketed name
/// glued to what it said, closed by a drawn line: one failure per row, named by its bracket.
#[test]
fn a_drawn_list_of_bracketed_names_and_what_they_said() {
    let log = "Running 5 checks\n..FF.\n\n  == Failed checks:\n  [check_sum]:Expected [10], Got [11]; note: [sum of two]\n  [check_avg]:Expected [2.5], Got [3.0]; note: [average]\n  == end of failed checks.\n\nChecks: 5, Failed: 2\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got[..2],
        [
            (
                "check_sum".to_owned(),
                "Expected [10], Got [11]; note: [sum of two]".to_owned()
            ),
            (
                "check_avg".to_owned(),
                "Expected [2.5], Got [3.0]; note: [average]".to_owned()
            ),
        ]
    );
    assert_eq!(got.len(), 2, "{got:?}");
}

/// A frame's `in` names the function it is in and ends there; after a place, `in what: what is
/// wrong` is a type checker's finding, each one of its own.
#[test]
fn an_in_phrase_that_says_what_is_wrong_is_a_finding_not_a_frame() {
    assert!(crate::line::stack_frame("lib/a.lua:12: in function 'run'"));
    assert!(crate::line::stack_frame("lib/a.lua:30: in main chunk"));
    assert!(!crate::line::stack_frame(
        "lib/a.lua:12:7: in argument 2: got string, expected number"
    ));
    let log = "lib/store.mod:4:9: in field init: got nil, expected table\nlib/store.mod:8:3: in call: got boolean, expected string\n2 errors\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(
        got,
        [
            (
                "lib/store.mod:4".to_owned(),
                "in field init: got nil, expected table".to_owned()
            ),
            (
                "lib/store.mod:8".to_owned(),
                "in call: got boolean, expected string".to_owned()
            ),
        ]
    );
}

/// A native frame ends in its address in brackets (D's runtime, `??:? _start [0x55ed…]`): an
/// exception over a rule and such frames says what went wrong on its own line.
#[test]
fn frames_that_end_in_their_address_are_no_message() {
    assert!(crate::line::stack_frame(
        "source/geo/angle.d:12 void geo.angle.__unittest_L7_C1() [0x55eda93b22a5]"
    ));
    assert!(crate::line::stack_frame("??:? _start [0x55eda93b1400]"));
    assert!(!crate::line::stack_frame("expected [0x1] got [0x2]x"));
    let log = "core.exception.AssertError@source/geo/angle.d(12): normalize(-90) should wrap to 270\n----------------\n??:? onAssertErrorMsg [0x7ff03c941314]\nsource/geo/angle.d:12 void geo.angle.__unittest_L7_C1() [0x55eda93b22a5]\n??:? _start [0x55eda93b1400]\ncore.exception.AssertError@source/geo/point.d(17): unittest failure\n----------------\n??:? onAssertErrorMsg [0x7ff03c941314]\n??:? _start [0x55eda93b1400]\n2/5 modules FAILED unittests\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[0].1.ends_with("normalize(-90) should wrap to 270"),
        "{got:?}"
    );
    assert!(got[1].1.ends_with("unittest failure"), "{got:?}");
    // (Named by the frame under it that runs a test, when one does.)
    assert_eq!(got[0].0, "geo.angle.__unittest_L7_C1", "{got:?}");
}

/// Rows marked by their severity with their rule in brackets, under the heading they are about
/// (commitlint's `⧗   input: …` over `✖   type may not be empty [type-empty]`): one finding
/// per row, named by what the heading says; the closing count (`✖   found 2 problems`) is none.
#[test]
fn marked_rows_with_their_rule_under_a_heading() {
    let log = "⧗   input: update stuff\n✖   subject may not be empty [subject-empty]\n✖   type may not be empty [type-empty]\n\n✖   found 2 problems, 0 warnings\nⓘ   Get help: https://example.org/commitlint\n\n⧗   input: docs: explain the flag\n\nThis paragraph is long enough to go past the configured maximum body line length.\n✖   body's lines must not be longer than 100 characters [body-max-line-length]\n\n✖   found 1 problems, 0 warnings\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("update stuff", "subject may not be empty [subject-empty]"),
            ("update stuff", "type may not be empty [type-empty]"),
            (
                "docs: explain the flag",
                "body's lines must not be longer than 100 characters [body-max-line-length]"
            ),
        ])
    );
}

/// A file's verdict alone over the error objects a validator printed for it (ajv's): one
/// finding per `message` field, named by the file.
#[test]
fn error_objects_under_a_files_verdict() {
    let log = "config/billing.json invalid\n[\n  {\n    instancePath: '/env/WORKERS',\n    keyword: 'type',\n    message: 'must be string'\n  }\n]\nconfig/search.json invalid\n[\n  {\n    instancePath: '/port',\n    message: 'must be <= 65535'\n  },\n  {\n    instancePath: '/healthcheck',\n    message: \"must have required property 'path'\"\n  }\n]\nconfig/web.json valid\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("config/billing.json", "must be string"),
            ("config/search.json", "must be <= 65535"),
            ("config/search.json", "must have required property 'path'"),
        ])
    );
}

/// Verdicts that name each test after its file (`FAIL /cart.js formats small amounts`), then
/// records whose last, indented field names the test (`  info: formats small amounts` under
/// `* fail: … executed: …`, `got:` and `wanted:`): each record is its test's report, closed
/// by that field, the verdict line only a listing.
#[test]
fn records_closed_by_a_field_that_names_their_test() {
    let log = "FAIL /cart.js formats small amounts\nFAIL /cart.js TENOFF never goes below zero\n###  Testing package: shop\n* fail: /cart/js executed: \"applyCoupon(5, 'TENOFF')...\"\n got: \"-5\"\n wanted: \"0\"\n info: TENOFF never goes below zero\n\n* fail: /cart/js executed: \"formatPrice(5)...\"\n got: \"$0.05\"\n wanted: \"$0.5\"\n info: formats small amounts\n\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 2, "{got:?}");
    for (name, message) in &got {
        assert!(name.starts_with("/cart.js "), "{got:?}");
        assert!(message.contains("got: "), "{got:?}");
    }
    assert!(got[0].1.contains("-5"), "{got:?}");
}

/// Rows under their file's heading that give their line in words (`- (line 4) …` under
/// `conf/app.yaml#0: INVALID`), or none at all when each is marked with its severity (`✖ rule
/// - message` under `./pkg/package.json`): each row the file's finding (D-221).
#[test]
fn rows_under_a_file_with_their_line_in_words_or_none() {
    let log = "conf/app.yaml#0: INVALID\n  - (line 4) [/name] 'X_Y': not matched to pattern.\n  - (line 9) [/size] '99': too large (> max 10).\nconf/db.yaml#0: INVALID\n  - (line 2) [/port] key 'port:' is required.\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("conf/app.yaml:4", "[/name] 'X_Y': not matched to pattern."),
            ("conf/app.yaml:9", "[/size] '99': too large (> max 10)."),
            ("conf/db.yaml:2", "[/port] key 'port:' is required."),
        ])
    );
    let log = "./pkg/a/manifest.json\n✖ needs-title - node: title - title is required\n⚠ needs-url - node: url - url is required\n1 error\n1 warning\n\n./pkg/b/manifest.json\n✖ lower-name - node: name - name must be lower case\n1 error\n";
    let got = parse_log(log);
    assert_eq!(
        named_messages(&got),
        pairs(&[
            (
                "./pkg/a/manifest.json",
                "needs-title - node: title - title is required"
            ),
            (
                "./pkg/b/manifest.json",
                "lower-name - node: name - name must be lower case"
            ),
            (
                "./pkg/a/manifest.json",
                "needs-url - node: url - url is required"
            ),
        ])
    );
    // A list whose items give no line and carry no mark is no list of findings.
    let log = "docs/guide.md\n  - install the tool\n  - run it twice\n";
    assert!(parse_log(log).blocks.is_empty());
}

/// A place quoted inside a row's message leaves the message whole (`block "a.py:46 f" has a
/// rank of F`); a row with the run's label and no place is the run's finding; and a line that
/// names, before its colon, a file findings were placed in is a finding about that whole file
/// (a heading that ends with a colon is not) (D-221).
#[test]
fn quoted_places_run_wide_rows_and_rows_about_a_whole_file() {
    let log = "ERROR:cx:block \"app/quote.py:46 taxes\" has a rank of F\nERROR:cx:block \"app/rates.py:13 zone\" has a rank of D\nERROR:cx:average complexity is ranked D\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "app/quote.py:46",
                "block \"app/quote.py:46 taxes\" has a rank of F"
            ),
            (
                "app/rates.py:13",
                "block \"app/rates.py:13 zone\" has a rank of D"
            ),
            (
                "average complexity is ranked D",
                "average complexity is ranked D"
            ),
        ])
    );
    let log = "/srv/units/nightly.timer:5: Failed to parse calendar specification, ignoring: dayly\nnightly.timer: Timer unit lacks value setting. Refusing.\nnightly.timer: In section 'Timer':\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "/srv/units/nightly.timer:5",
                "Failed to parse calendar specification, ignoring: dayly"
            ),
            (
                "/srv/units/nightly.timer",
                "Timer unit lacks value setting. Refusing."
            ),
        ])
    );
}

/// A wrapper's label of figures alone (`0 2 `, a parallel executor's node and task) and one a
/// tab and a bar close (`10:00:01 web<TAB>| `) are taken off, whatever their text (D-221).
#[test]
fn labels_of_figures_alone_and_a_tab_then_a_bar() {
    let log = "0 1 src/a.c: In function 'f':\n0 1 src/a.c:6:23: error: comparison of integers of different signedness [-Werror=sign-compare]\n0 1     6 |     for (int i = 0; i <= n; i++)\n0 1       |                       ^~\n0 1 failure\n0 2 src/b.c:7:9: error: suggest parentheses around assignment [-Werror=parentheses]\n0 2     7 |     if (f = 0) return -1;\n0 2       |         ^\n0 2 failure\n0 3 \n";
    let got = parse_log(log);
    assert_eq!(names(&got), ["src/a.c:6", "src/b.c:7"]);
    assert_eq!(got.blocks[0].step.as_deref(), Some("0 1"));
    let log = "10:00:01 api\t| test_a (api.test_x.T.test_a) ... FAIL\n10:00:01 web\t| test_b (web.test_y.T.test_b) ... FAIL\n10:00:01 api\t| \n10:00:01 web\t| \n10:00:01 api\t| ======================================================================\n10:00:01 web\t| ======================================================================\n10:00:01 api\t| FAIL: test_a (api.test_x.T.test_a)\n10:00:01 web\t| FAIL: test_b (web.test_y.T.test_b)\n10:00:01 api\t| ----------------------------------------------------------------------\n10:00:01 web\t| ----------------------------------------------------------------------\n10:00:01 api\t| Traceback (most recent call last):\n10:00:01 web\t| Traceback (most recent call last):\n10:00:01 api\t|   File \"/w/api/test_x.py\", line 5, in test_a\n10:00:01 web\t|   File \"/w/web/test_y.py\", line 8, in test_b\n10:00:01 api\t|     self.assertEqual(1, 2)\n10:00:01 web\t|     self.assertEqual(3, 4)\n10:00:01 api\t| AssertionError: 1 != 2\n10:00:01 web\t| AssertionError: 3 != 4\n10:00:01 api\t| \n10:00:01 web\t| \n10:00:01 api\t| Ran 1 test in 0.001s\n10:00:01 web\t| Ran 1 test in 0.001s\n10:00:01 api\t| FAILED (failures=1)\n10:00:01 web\t| FAILED (failures=1)\n";
    let got = parse_log(log);
    let mut named = named_messages(&got);
    named.sort();
    assert_eq!(
        named,
        pairs(&[
            ("api.test_x.T.test_a", "AssertionError: 1 != 2"),
            ("web.test_y.T.test_b", "AssertionError: 3 != 4"),
        ])
    );
}

/// Test::More's comments after a failed point: the failed test's line, then what its
/// assertion found after the line that places it (`died: …`, `expecting: …`/`found: …`); a
/// drawn table after it leaves the failed test's line alone (D-221).
#[test]
fn test_more_says_what_was_found_after_its_place() {
    let log = "1..3\nnot ok 1 - empty shelf is refused\n#   Failed test 'empty shelf is refused'\n#   at t/s.t line 11.\n# expecting: Regexp ((?^:is full))\n# found: normal exit\nnot ok 2 - absent book\n#   Failed test 'absent book'\n#   at t/s.t line 17.\n# died: no such book: Hamlet\nnot ok 3 - order\n#   Failed test 'order'\n#   at t/s.t line 20.\n# +----+------+----+----------+\n# | Elt|Got   | Elt|Expected  |\n# +----+------+----+----------+\n# Looks like you failed 3 tests of 3.\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "empty shelf is refused",
                "Failed test 'empty shelf is refused'\nexpecting: Regexp ((?^:is full))\nfound: normal exit"
            ),
            (
                "absent book",
                "Failed test 'absent book'\ndied: no such book: Hamlet"
            ),
            ("order", "Failed test 'order'"),
        ])
    );
}

/// A report that numbers each failed expectation (`1.1) The output should eq 80`) gives it
/// as the message, with the values compared in the paragraph under it (D-221).
#[test]
fn a_numbered_expectation_heads_its_compared_values() {
    let body: Vec<String> = "     When call get conf.ini port\n\n     1.1) The output should eq 80\n\n            expected: 80\n                 got: \"\"\n\n          # spec/get_spec.sh:12\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        crate::line::message_of(&body).as_deref(),
        Some("1.1) The output should eq 80\nexpected: 80\ngot: \"\"")
    );
}

/// Tagged comments a checker writes above the record they judge (`# (pocheck) printf: …`),
/// the record's place on the reference line under them (`#: src/a.c:14`): each comment a
/// finding at that place, its check its code (D-221).
#[test]
fn tagged_comments_above_the_record_they_judge() {
    let log = "processing 1 files...\nmsgid \"\"\nmsgstr \"\"\n\n# (pocheck) printf: Different number of printf variables\n# (pocheck) startcaps: Different capitalization at the start\n#: src/a.c:14\n#, c-format\nmsgid \"Saved %d files\"\nmsgstr \"fichiers\"\n\n# (pocheck) endpunc: Different punctuation at the end\n#: src/a.c:20\nmsgid \"Quit.\"\nmsgstr \"Quitter\"\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("src/a.c:14", "printf: Different number of printf variables"),
            (
                "src/a.c:14",
                "startcaps: Different capitalization at the start"
            ),
            ("src/a.c:20", "endpunc: Different punctuation at the end"),
        ])
    );
}

/// A paragraph a test's name heads, its assertions' verdicts indented under it (`bad_input ran
/// in 0 sec …`, ` PASS EXIT CODE (LINE 8)`, ` FAIL STDOUT CONTAINS "x" (LINE 9)`): the test is
/// the heading's first word, and its message the first failed row, not a passed one (D-221).
#[test]
fn verdict_rows_under_the_test_that_heads_them() {
    let log = "good_input ran in 0 sec with 0/1 lines to STDERR/OUT\n PASS EXIT CODE (LINE 8)\n PASS STDOUT CONTAINS \"2\" (LINE 9)\n\nbad_input ran in 0 sec with 1/0 lines to STDERR/OUT\n PASS EMPTY STDOUT (LINE 12)\n FAIL EXIT CODE (LINE 13)\n-->\texpected 65, observed 1\n\nslow_input ran in 0 sec with 0/1 lines to STDERR/OUT\n FAIL STDOUT DOES NOT CONTAIN \"9\" (LINE 16)\n\nTests:    3  |  Passed:   1  |  Failed:   2\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["bad_input", "slow_input"], "{got:?}");
    assert!(got[0].1.starts_with("FAIL EXIT CODE (LINE 13)"), "{got:?}");
    assert!(
        got[1].1.starts_with("FAIL STDOUT DOES NOT CONTAIN"),
        "{got:?}"
    );
}

/// A TAP description that quotes the test's name and says what befell it (`'rle round-trips'
/// falsified in 1 attempts`): named by the quoted words, the description opening its message
/// (D-221).
#[test]
fn a_quoted_name_in_a_tap_description() {
    let log = "1..2\nnot ok 1 - 'rle round-trips' falsified in 3 attempts\n# Counterexample:\n# $s = \"aaaa\";\nok 2 - 'words split' (passed 1000 attempts)\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[(
            "rle round-trips",
            "'rle round-trips' falsified in 3 attempts\nCounterexample:\n$s = \"aaaa\";"
        )])
    );
}

/// Rows under a heading that each name a thing and the file it is in (`Extra requirements:`
/// over `uv in requirements.txt`): one finding per row, about that file (D-221).
#[test]
fn things_named_in_their_files_under_a_heading() {
    let log = "Missing requirements:\n/w/app/cli.py:2 dist=pluggy module=pluggy\n/w/app/cli.py:3 dist=attrs module=attrs\nExtra requirements:\nuv in requirements.txt\nrequests in requirements.txt\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(
        got[2..],
        pairs(&[
            ("requirements.txt", "uv in requirements.txt"),
            ("requirements.txt", "requests in requirements.txt"),
        ])
    );
}

/// From the 29th set (D-222): a coded finding over a numbered excerpt of the file the log
/// says it works on; a numbered list under a severity heading; Erlang terms are no paths; a
/// bracketed label closed by a bar; a section that shows the test's code is no message.
#[test]
fn coded_findings_over_excerpts_and_numbered_lists_under_a_severity() {
    let log = ">>> Working on: /w/locale/de/messages.po\nError: E201: invalid variables: %(nmae)s\n10:#: shop/views.py:12\n11:msgid \"Hello %(name)s\"\n12:msgstr \"Hallo %(nmae)s\"\n\nW202: missing variables: %(count)d\n14:#: shop/views.py:20\n15:msgid \"%(count)d items\"\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "/w/locale/de/messages.po:10",
                "E201: invalid variables: %(nmae)s"
            ),
            (
                "/w/locale/de/messages.po:14",
                "W202: missing variables: %(count)d"
            ),
        ])
    );
    let log = "Linting...\nErrors:\n1. pkg.main is ./dist/a.cjs but the file does not exist.\n2. pkg.bin.x is not executable at all.\nWarnings:\n1. pkg.types is not exported for the import condition.\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[1].1, "pkg.bin.x is not executable at all.");
}

#[test]
fn erlang_terms_bracket_bar_labels_and_a_tests_own_code() {
    assert!(!crate::text::path_like("{assert,[{module,...},{...}|...]}"));
    let log = "- - - - - - - - - - - - - - - - - - - -\nledger_SUITE:post_twice failed on line 18\nReason: {assertEqual,[{module,...},{...}|...]}\n- - - - - - - - - - - - - - - - - - - -\n\nTesting ledger: *** FAILED test case 1 of 2 ***\n\n- - - - - - - - - - - - - - - - - - - -\nledger_SUITE:match_total failed on line 47\nReason: {badmatch,7}\n- - - - - - - - - - - - - - - - - - - -\n\nTesting ledger: *** FAILED test case 2 of 2 ***\n\nTesting ledger: TEST COMPLETE, 0 ok, 2 failed of 2 test cases\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["ledger_SUITE:post_twice", "ledger_SUITE:match_total"],
        "{got:?}"
    );
    let body: Vec<String> = "==== Contents of test case:\n    stack::pop\n---- Result was:\na\n---- Result should have been (exact matching):\nb\n==== pop-2 FAILED\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(
        crate::line::message_of(&body).is_some_and(|m| m.starts_with("---- Result was:")),
        "{body:?}"
    );
    assert_eq!(
        crate::wrapper::streams::label("[7341] |     text"),
        Some(("[7341]", 9))
    );
}

/// A verdict's duration in microseconds names the same test as its `[ RUN ]` line; fields
/// aligned on ` : ` are one message; a panic's message may follow a blank line (D-222).
#[test]
fn micro_durations_aligned_fields_and_a_spaced_panic_message() {
    assert_eq!(
        crate::line::without_timing("ring.push (2.05us)"),
        "ring.push"
    );
    let log = "[==========] Running 1 test suites.\n[ RUN      ] ring.push\ntest_ring.c:16: FAILED\n  In macro : CHECK_EQ( v, 2 )\n  Expected : v == 2\n    Actual : v == 1\n[  FAILED  ] ring.push (2.05us)\n[==========] 1 test suites ran.\n[  FAILED  ] 1 test, listed below:\n[  FAILED  ] ring.push\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "ring.push");
    assert!(
        got[0]
            .1
            .starts_with("In macro : CHECK_EQ( v, 2 )\nExpected : v == 2"),
        "{got:?}"
    );
    let lines: Vec<String> = "thread 'boils' (1) panicked at src/lib.rs:3:5:\n\n\tboiling point survives:\n\texpected: <100.5>\n\t but was: <100.0>\n\nnote: run with `RUST_BACKTRACE=1`\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        crate::line::panic_message(&lines).as_deref(),
        Some("boiling point survives:\nexpected: <100.5>\nbut was: <100.0>")
    );
}

/// A report that quotes the failing line in a numbered excerpt, its row marked `=>`, under the
/// frame that places it: the message is what follows the excerpt (D-222).
#[test]
fn the_message_follows_a_marked_excerpt() {
    let body: Vec<String> = "test/test_b.rb:47:in `test_history'\n     44:   end\n     45: \n  => 47:     assert_equal([5, 3], h)\n     48:   end\n<[5, 3]> expected but was\n<[5, 3, 1]>\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(crate::line::source_excerpt(
        "  => 47:     assert_equal([5, 3], h)"
    ));
    assert_eq!(
        crate::line::message_of(&body).as_deref(),
        Some("<[5, 3]> expected but was\n<[5, 3, 1]>")
    );
}

/// From the 30th set (D-223): fields padded around their colons; a record that states its line
/// first and its finding last, no file named; a coded finding about a whole file.
#[test]
fn padded_fields_line_records_and_coded_whole_file_findings() {
    let log = "inc/m.inc(44) : PRAGMA PARTINC directive currently ignored\nblink.asm(20) : Error   : Found no label named wiat\nblink.asm(30) : Warning : Constant out of range. Will be masked\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("blink.asm:20", "Error: Found no label named wiat"),
            (
                "blink.asm:30",
                "Warning: Constant out of range. Will be masked"
            ),
        ])
    );
    let log = "Line: 3\nARG\n^^^\nError: Instruction has no arguments\n\nLine: 1\nfrom python:3.11\n^^^^\nWarning: Instructions should be written in uppercase letters\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            ("line 3", "Instruction has no arguments"),
            (
                "line 1",
                "Instructions should be written in uppercase letters"
            ),
        ])
    );
    let log = "9        INT n := \"five\";\n             1\nalgc: error: 1: CHAR cannot be coerced to INT in a strong-unit\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[("line 9", "CHAR cannot be coerced to INT in a strong-unit")])
    );
    let log = "dist/a-1.0-py3-none-any.whl: W001: Wheel contains .pyc/.pyo files:\n  a/__pycache__/m.pyc\ndist/a-1.0-py3-none-any.whl: W003: Wheel contains non-module at library toplevel:\n  NOTES.txt\n";
    let got = named_messages(&parse_log(log));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.iter().all(|(n, _)| n == "dist/a-1.0-py3-none-any.whl"),
        "{got:?}"
    );
    assert!(
        got[0]
            .1
            .starts_with("W001: Wheel contains .pyc/.pyo files:"),
        "{got:?}"
    );
}

/// A build's warnings stay beside its own linker error, which says what it found; a panic
/// that only says an assertion failed gives way to the report printed before it (D-223).
#[test]
fn a_builds_warnings_beside_its_link_error_and_a_generic_panic() {
    let log = "gcc -c main.c\nmain.c:10:18: warning: unused variable 'x' [-Wunused-variable]\n   10 |     int x;\n      |         ^\ngcc -o demo main.o\n/usr/bin/ld: main.o: in function `main':\nmain.c:(.text.startup+0x36): undefined reference to `queue_size'\ncollect2: error: ld returned 1 exit status\nmake: *** [Makefile:7: demo] Error 1\n";
    let got = named_messages(&parse_log(log));
    assert!(
        got.iter()
            .any(|(_, m)| m == "undefined reference to `queue_size'"),
        "{got:?}"
    );
    assert!(got.iter().any(|(n, _)| n == "main.c:10"), "{got:?}");
    let lines: Vec<String> = "---- rows stdout ----\nAssertion failed at tests/t.rs:43:5\n  assert!( h == 3 )\nwith expansion:\n  2 == 3\n\nthread 'rows' (1) panicked at tests/t.rs:43:5:\nassertion failed\nnote: run with `RUST_BACKTRACE=1`\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        crate::line::panic_message(&lines).as_deref(),
        Some("Assertion failed at tests/t.rs:43:5\n  assert!( h == 3 )\nwith expansion:\n  2 == 3")
    );
}

/// Points that close points nested deeper are tests whether or not `# Subtest:` announced
/// them, and so are their siblings; the file's point over them is an aggregate (D-223).
#[test]
fn nested_points_make_tests_without_a_subtest_line() {
    let log = "# tests from t/r.t\n    # covers everyone\n        not ok 1 - all three appear\n        #   Failed test 'all three appear'\n        #   at t/r.t line 19.\n        1..1\n    not ok 1 - covers everyone\n    # swap\n        ok 1 - replaced\n        1..1\n    ok 2 - swap\n    not ok 3 - count unknown\n    # Failed test 'count unknown'\n    # at t/r.t line 50.\n    # Caught exception in subtest: count should be one\n    1..3\nnot ok 1 - tests from t/r.t\n1..1\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["covers everyone", "count unknown"], "{got:?}");
    assert!(got[1].1.contains("Caught exception in subtest"), "{got:?}");
}

/// A name, a colon, then the report's first field on its own row, the other fields aligned
/// under it (`RESTOCK-ADDS: Expression: (EQL 12 …)`, `Expected: 12`): named by the name, the
/// fields its message (D-223).
#[test]
fn a_name_with_its_first_field_on_its_row() {
    let log = "FAILURE DETAILS:\n================\n\n    SUITE -> STOCK: (Test Suite)\n        RESTOCK-ADDS: Expression: (EQL 12 (RESTOCK 5 7))\n                      Expected: 12\n                      Returned: 11\n\n        RESTOCK-ZERO: Expression: (EQL 5 (RESTOCK 5 0))\n                      Expected: 5\n                      Returned: 4\n\nSUMMARY:\n    Test functions:\n        Executed: 4\n        Skipped:  0\n\n    Tested 6 assertions.\n        Passed: 4/6 ( 66.7%)\n        Failed: 2/6 ( 33.3%)\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["RESTOCK-ADDS", "RESTOCK-ZERO"], "{got:?}");
    assert!(
        got[0].1.starts_with("Expression: (EQL 12 (RESTOCK 5 7))"),
        "{got:?}"
    );
}

/// A finding at its place is never a run's closing count, however few its words (`score.c(7):
/// Error: ';' expected` reads as a number beside an outcome word) (D-223).
#[test]
fn a_short_finding_is_no_count() {
    let log = "sprite.c(11): Error: Struct has no field named z\nscore.c(7): Error: ';' expected\nscore.c(12): Error: ';' expected\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sprite.c:11", "score.c:7", "score.c:12"], "{got:?}");
}

/// What a test said in its own words right under its report's header, over the assertion's
/// message (`Class#test [a.rb:15]:`, `meter went backwards.`, `Expected …`): the message
/// starts with it (D-223).
#[test]
fn a_custom_message_under_the_reports_header() {
    let body: Vec<String> = "  3) Failure:\nTestMeter#test_negative [test/test_meter.rb:15]:\nmeter went backwards.\nExpected [-2, 6] to not include -2.\n"
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        crate::line::message_of(&body).as_deref(),
        Some("meter went backwards.\nExpected [-2, 6] to not include -2.")
    );
}

/// From the 31st set (D-224): rows under a heading that counts them, each placed at its end;
/// `L<n> C<c>:` rows under the file a line of figures ends with; items under a sentence that
/// says what is wrong, each placed on an indented row.
#[test]
fn counted_headings_letter_lines_and_items_placed_under_them() {
    let log = "Unused files (1)\nsrc/legacy.ts\nUnused dependencies (2)\nsinon       package.json:7:6\nfast-check  package.json:8:6\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["src/legacy.ts", "package.json:7", "package.json:8"],
        "{got:?}"
    );
    assert_eq!(
        got[1].1,
        "Unused dependencies: sinon       package.json:7:6"
    );
    // (A count the rows do not match is no such heading.)
    let log = "Unused dependencies (3)\nsinon       package.json:7:6\n";
    assert!(
        parse_log(log)
            .blocks
            .iter()
            .all(|b| b.test_name.as_deref() != Some("package.json:7"))
    );
    let log = "!2, 3.8      /w/tools/compat.py\n  L2 C5: 'typing.Literal' member requires !2, 3.8\n  L6: 'math.dist' member requires !2, 3.8\n";
    assert_eq!(
        named_messages(&parse_log(log)),
        pairs(&[
            (
                "/w/tools/compat.py:2",
                "'typing.Literal' member requires !2, 3.8"
            ),
            (
                "/w/tools/compat.py:6",
                "'math.dist' member requires !2, 3.8"
            ),
        ])
    );
    let log = "These imports appear to be undeclared dependencies:\n- 'bs4'\n    imported at:\n      weather/fetch.py:3\n- 'yaml'\n    imported at:\n      weather/cli.py:3\n";
    let got = named_messages(&parse_log(log));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["weather/fetch.py:3", "weather/cli.py:3"], "{got:?}");
    assert!(got[0].1.contains("- 'bs4'"), "{got:?}");
}

/// Timed bracketed verdicts with their detail under them, each detail of one kind whatever its
/// words (`fatal …` under the first, `nonfatal …` under the last), passing verdicts between:
/// each report is its verdict and the detail under it, no one else's, and a passing verdict
/// ends the report above it (the 36th set: every report was one failure off).
#[test]
fn detail_of_one_kind_under_timed_verdicts_is_each_verdicts_own() {
    let log = "[PASSED] \"pool\" / \"grows\" (0.003000 ms)\n[FAILED] \"pool\" / \"caps\" (0.008000 ms)\n\
               pool_test.c:38: fatal test failure: second grow refused\n-1 == 0\n\
               [FAILED] \"pool\" / \"ratio\" (0.005000 ms)\npool_test.c:76: nonfatal test failure: ratio is off\n0.0 == 0.5\n\
               [PASSED] \"pool\" / \"counts\" (0.001000 ms)\n[FAILED] \"pool\" / \"finds\" (0.002000 ms)\n\
               pool_test.c:89: nonfatal test failure: expected true\n0 == 1\n[PASSED] \"pool\" / \"drains\" (0.000000 ms)\n";
    let got = read_both(log);
    assert_eq!(got.len(), 3, "{got:?}");
    for (i, (name, why)) in [
        (
            "caps",
            "pool_test.c:38: fatal test failure: second grow refused\n-1 == 0",
        ),
        (
            "ratio",
            "pool_test.c:76: nonfatal test failure: ratio is off\n0.0 == 0.5",
        ),
        (
            "finds",
            "pool_test.c:89: nonfatal test failure: expected true\n0 == 1",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(got[i].0.contains(name), "{got:?}");
        assert_eq!(got[i].1, why, "{got:?}");
    }
}

/// D-235, from the 38th set's classes (shapes of my own): a label that groups rows by package
/// is no test's name and no rule; a file and a severity with no line among them is a finding
/// about the whole file.
#[test]
fn rows_grouped_by_a_package_label_are_findings_and_the_label_is_no_rule() {
    let log = "\
vetter: loading workspace (2 packages)
billing_core: ledger.pas: warning: unit has no initialization section
billing_core: ledger.pas(14): error: identifier not found \"Balanse\"
billing_core: ledger.pas(31): warning: variable \"i\" does not seem to be initialized
billing_core: ledger.pas(40): error: type mismatch
billing-api: handlers.pas(7): error: illegal expression
billing-api: handlers.pas(52): warning: local variable \"tmp\" not used
billing-api: routes.inc: error: file is empty
vetter: checked 2 packages and found 7 problems
";
    let log = parse_log(log);
    // (Errors are shown before warnings.)
    let mut got = named_messages(&log);
    got.sort();
    assert_eq!(
        got,
        [
            (
                "handlers.pas:52",
                "warning: local variable \"tmp\" not used"
            ),
            ("handlers.pas:7", "error: illegal expression"),
            ("ledger.pas", "warning: unit has no initialization section"),
            ("ledger.pas:14", "error: identifier not found \"Balanse\""),
            (
                "ledger.pas:31",
                "warning: variable \"i\" does not seem to be initialized"
            ),
            ("ledger.pas:40", "error: type mismatch"),
            ("routes.inc", "error: file is empty"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
    // (The label groups the rows; it is no rule of theirs, so no family of theirs either: two
    // errors of one package that say different things are not one family.)
    let family = |name: &str| {
        log.blocks
            .iter()
            .find(|b| b.test_name.as_deref() == Some(name))
            .map(|b| b.family.clone())
    };
    assert_ne!(family("ledger.pas:14"), family("ledger.pas:40"));
    // A name that varies row to row is still a test's report, not a group: each label once.
    let reports = parse_log(
        "1) TestRate: rate.c:6: expected 2, got 3\n2) TestFee: fee.c:8: expected 1, got 0\n3) TestTax: tax.c:9: expected 5, got 4\n",
    );
    assert!(
        reports
            .blocks
            .iter()
            .all(|b| !b.anchors.contains(&"diagnostic")),
        "{:?}",
        names(&reports)
    );
}

/// D-235: a place spread over a file and the position in brackets after it.
#[test]
fn a_file_then_its_position_in_brackets_is_a_place() {
    let log = parse_log(
        "docs/guide.adoc (12:3) heading level skipped\n\
         docs/guide.adoc (40:1) trailing whitespace\n\
         docs/faq.adoc [7:15] unknown attribute 'tocx'\n",
    );
    assert_eq!(
        names(&log),
        [
            "docs/guide.adoc:12",
            "docs/guide.adoc:40",
            "docs/faq.adoc:7"
        ]
    );
    assert_eq!(
        log.blocks[0].message.as_deref(),
        Some("heading level skipped")
    );
    // A count or a share in brackets after a file is no position.
    let counts = parse_log("src/a.c (3 warnings)\nsrc/b.c (100%)\nsrc/c.c (2 errors)\n");
    assert!(
        counts
            .blocks
            .iter()
            .all(|b| !b.anchors.contains(&"diagnostic"))
    );
}

/// D-235: records of `key=value` pairs under the file a heading names, or naming their file.
#[test]
fn key_value_records_are_findings_in_their_file() {
    let log = parse_log(
        "\
Style audit, 2 files
Totals: files=2 findings=4

Source: lib/cart.rb
  Finding: Check=LongMethod Severity=warning Line=12 Text=[Method `total` has 31 lines] Code=[def total]
  Finding: Check=NestedTernary Severity=error Line=40 Code=[a ? b ? c : d : e]

Source: lib/order.rb
  Finding: Check=Eval Severity=error Line=3 Text=[Avoid eval [security]] Code=[eval(x)]
lvl=error file=lib/pay.rb line=8 msg=\"unsafe yaml load\" check=YamlLoad
",
    );
    let mut got = named_messages(&log);
    got.sort();
    assert_eq!(
        got,
        [
            ("lib/cart.rb:12", "Method `total` has 31 lines"),
            ("lib/cart.rb:40", "NestedTernary"),
            ("lib/order.rb:3", "Avoid eval [security]"),
            ("lib/pay.rb:8", "unsafe yaml load"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
    // A logger's records without a line, and settings, are no findings.
    let logged = parse_log(
        "time=10:00:01 level=info msg=\"starting\" port=8080\ntime=10:00:02 level=error msg=\"db down\" retry=3\nname=web replicas=2 image=web:1\n",
    );
    assert!(
        logged
            .blocks
            .iter()
            .all(|b| !b.anchors.contains(&"diagnostic"))
    );
}

/// D-235: a failed assertion indented under its test's failed verdict, with another mark, is
/// that test's message; a subtest's verdict (the same mark) and a file's tests stay their own.
#[test]
fn a_verdict_under_a_tests_verdict_is_its_message() {
    let log = parse_log(
        "\
Stack
  ✔  Stack starts empty
  ✘  Stack pops the last push
        ✕ popped 1 instead of 2
     at check (/w/node_modules/checker/index.js:5:3)
  ✘  Stack reports its size
        ✕ size 0 != 3
     at check (/w/node_modules/checker/index.js:5:3)

2 of 3 failed
",
    );
    assert_eq!(
        named_messages(&log),
        [
            ("Stack pops the last push", "✕ popped 1 instead of 2"),
            ("Stack reports its size", "✕ size 0 != 3"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
}

/// D-235: a test counted as it starts in a list (`- [0/2] name`) is named by that line when a
/// shouted verdict follows, and the verdict's words are its message (not the bare exception
/// class under it).
#[test]
fn a_listed_counted_start_names_the_verdict_under_it() {
    let log = parse_log(
        "\
suite: money
- [0/2] rounds half to even

 FAIL  expected 2 to equal 3
Error
    at Context.run (/w/test/money.js:9:3)

- [1/2] formats negatives

 FAIL  expected '(5)' to equal '-5'
Error
    at Context.run (/w/test/money.js:14:3)

2 tests, 2 failed
",
    );
    assert_eq!(
        named_messages(&log),
        [
            ("rounds half to even", "expected 2 to equal 3"),
            ("formats negatives", "expected '(5)' to equal '-5'"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
}

/// D-235: a label closed by a bar drawn with a box character is a stream's.
#[test]
fn a_label_closed_by_a_box_bar_is_a_stream() {
    let log = parse_log(
        "\
@app/web    │ 
@app/web    │ > @app/web@1.0.0 test
@app/api    │ > @app/api@1.0.0 test
@app/web    │ --- FAIL: TestRender (0.00s)
@app/web    │     render_test.go:9: got <p>, want <div>
@app/api    │ --- FAIL: TestRoute (0.00s)
@app/api    │     route_test.go:4: status 404, want 200
@app/web    │ FAIL
@app/api    │ FAIL
",
    );
    let mut got = names(&log);
    got.sort();
    assert_eq!(got, ["TestRender", "TestRoute"]);
    // A diff's two line numbers before a box bar are a code frame's gutter, no label.
    for row in [
        "     6  6 │       sum += e;",
        "     8    │ - ··debugger;",
        "  12 │ code",
    ] {
        assert_eq!(crate::wrapper::streams::label(row), None, "{row}");
    }
}

/// D-235: a sentence that says the test failed, after the input it was given, announces the
/// message; a message said above such a sentence stays the message, and `Failed example:`
/// (what ran) and a list's lead announce none.
#[test]
fn a_sentence_that_says_the_test_failed_announces_its_message() {
    let log = parse_log(
        "\
sorted output is ordered: OK

merge keeps every item: FAIL

Given this case:

    ([3; 1], [2])

The check threw:

    Invalid_argument(\"merge\")

split halves the list: FAIL

Given this case:

    [7; 7; 7]

the property failed:

    lengths 3 and 0

3 properties, 2 failed
",
    );
    assert_eq!(
        named_messages(&log),
        [
            ("merge keeps every item", "Invalid_argument(\"merge\")"),
            ("split halves the list", "lengths 3 and 0"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
    for lead in [
        "Failed example:",
        "The following tests failed:",
        "a.cpp:17: FAILED:",
    ] {
        assert!(!crate::line::tells_what_failed(lead), "{lead}");
    }
}

/// D-235: one-line reports end at a banner over the run's results: the last one's message is
/// its own line, not the results' table.
#[test]
fn the_last_one_line_report_ends_at_the_results_banner() {
    let log = parse_log(
        "\
[FAIL]   (Totals) checks: total of 2 and 3 should be 5, got 6
[ERROR]  (Loader) raised: data/missing.csv: no such file
[FAIL]   (Rounding) checks: 2.675 should round to 2.68, got 2.67

======= summary =======
Cases run     : 7
Cases failed  : 3
",
    );
    let last = log.blocks.last().unwrap();
    assert_eq!(
        last.message.as_deref(),
        Some("[FAIL]   (Rounding) checks: 2.675 should round to 2.68, got 2.67")
    );
    assert_eq!(log.blocks.len(), 3, "{:?}", names(&log));
}

/// D-237, from the 39th set's classes (shapes of my own): a process manager's labels padded
/// to one bar column are streams whatever their output's layout (flush-left TAP included).
#[test]
fn labels_padded_to_one_bar_column_are_streams() {
    let log = parse_log(
        "\
runner   | starting web.1 on port 5000
runner   | starting probe.1 on port 5100
web.1    | listening on 127.0.0.1:5000
probe.1  | 1..4
probe.1  | ok 1 - root answers
probe.1  | not ok 2 - login redirects
probe.1  | #   Failed test 'login redirects'
probe.1  | #          got: 200
probe.1  | #     expected: 302
probe.1  | ok 3 - static files
probe.1  | not ok 4 - logout clears the cookie
probe.1  | #   Failed test 'logout clears the cookie'
web.1    | GET /logout 200
runner   | probe.1 exited with code 1
",
    );
    // (The manager's line that the process exited is the job's own, unnamed.)
    let named: Vec<String> = names(&log).into_iter().filter(|n| !n.is_empty()).collect();
    assert_eq!(named, ["login redirects", "logout clears the cookie"]);
    // One label alone before a bar, or names whose bars do not line up, are no column.
    let table = parse_log("name | age\nann | 31\nbob | 42\ncid | 27\n");
    assert!(table.blocks.is_empty(), "{:?}", names(&table));
}

/// D-237: a test's name, then an upper-case verdict with its own colon and what went wrong,
/// after a count in brackets (` (2/9) a_test.rb:Calc.test_add:  FAIL: expected 3 (0.01 s)`).
#[test]
fn a_verdict_with_its_reason_after_the_name_names_the_test() {
    let log = parse_log(
        "\
 (1/4) spec/calc.rb:Calc.test_add: STARTED
 (1/4) spec/calc.rb:Calc.test_add:  ok (0.01 s)
 (2/4) spec/calc.rb:Calc.test_sub: STARTED
 (2/4) spec/calc.rb:Calc.test_sub:  FAIL: expected 1, got -1 (0.01 s)
 (3/4) spec/calc.rb:Calc.test_div: STARTED
 (3/4) spec/calc.rb:Calc.test_div:  ERROR: ZeroDivisionError: divided by 0 (0.00 s)
 (4/4) spec/calc.rb:Calc.test_mul: STARTED
 (4/4) spec/calc.rb:Calc.test_mul:  ok (0.01 s)
",
    );
    assert_eq!(
        names(&log),
        ["spec/calc.rb:Calc.test_sub", "spec/calc.rb:Calc.test_div"]
    );
    assert!(
        log.blocks[0]
            .message
            .as_deref()
            .is_some_and(|m| m.contains("expected 1, got -1")),
        "{:?}",
        log.blocks[0].message
    );
}

/// D-237: a verdict led by a short rule names its test (`-- FAILED: tax.t`), and a verdict
/// that labels what follows, indented under it (`   Failed: 2 should be 3`), is its message,
/// no test of its own; a count or a test's header so labelled says nothing.
#[test]
fn a_ruled_verdict_names_the_test_and_the_labelled_verdict_under_it_says_why() {
    let log = parse_log(
        "\
..FF.

-- FAILED: tax.t
   Failed: 2.5 should be 3.0

   in tests/tax.t(9) expect_same(3.0, tax(25))

-- FAILED: round.t
   Failed: 1.0 should be 1.01

   in tests/round.t(4) expect_same(1.01, round(1.005))

FAILURES! (5 tests, 2 failures)
",
    );
    assert_eq!(
        named_messages(&log),
        [
            ("tax.t", "Failed: 2.5 should be 3.0"),
            ("round.t", "Failed: 1.0 should be 1.01"),
        ]
        .map(|(n, m)| (n.to_owned(), m.to_owned()))
    );
    for none in [
        "  Failed: 4 (80.00%)",
        "Failed:  keeps the oldest value when full:",
    ] {
        assert!(!crate::line::message_like(none), "{none}");
    }
}

/// D-237: a closing sentence that names a test in quotes and says it failed (`Case 'NAME'
/// failed.`) makes NAME a failing test, whose report is its header with the most under it; a
/// job's sentence of the same shape names no test.
#[test]
fn a_sentence_naming_a_test_in_quotes_that_failed_names_it() {
    let log = parse_log(
        "\
geo.distance is symmetric:
geo.distance to itself is zero:
    src/geo.nim:12 - wanted: 0.0
    src/geo.nim:12 -    got: 1e-9

geo.bearing north:
    src/geo.nim:30 - wanted: 0
    src/geo.nim:30 -    got: 360

Case 'geo.distance to itself is zero' failed.
Case 'geo.bearing north' failed.
3 case(s) run, 2 failed.
",
    );
    assert_eq!(
        names(&log),
        ["geo.distance to itself is zero", "geo.bearing north"]
    );
    assert!(crate::line::status_name("Loading 'deploy.yml' failed.").is_none());
    assert_eq!(
        crate::line::status_name("Scenario \"empty cart\" FAILED").as_deref(),
        Some("empty cart")
    );
}

/// D-237: a place in words may be followed by what the tool was reading there, after a comma
/// (`… at FILE line N, near "TOKEN"`); such rows between per-file status lines are findings.
#[test]
fn a_place_in_words_before_a_near_clause_is_a_place() {
    let log = parse_log(
        "\
Odd number of elements in hash assignment at lib/Inv/Store.pm line 14.
Useless use of private variable in void context at lib/Inv/Store.pm line 20.
lib/Inv/Store.pm syntax OK
Bareword \"qty\" not allowed while \"strict subs\" in use at lib/Inv/Item.pm line 7, near \"qty)\"
Missing right curly or square bracket at lib/Inv/Item.pm line 30, at end of line
lib/Inv/Item.pm had compilation errors.
",
    );
    let mut got = names(&log);
    got.sort();
    assert_eq!(
        got,
        [
            "lib/Inv/Item.pm:30",
            "lib/Inv/Item.pm:7",
            "lib/Inv/Store.pm:14",
            "lib/Inv/Store.pm:20"
        ]
    );
}

/// D-237 addendum: where every assertion is a placed row closing on its verdict, the rows that
/// passed and the groups' headings with their progress dots are no findings; the failed ones are.
#[test]
fn placed_assertion_rows_that_passed_are_no_findings() {
    let log = parse_log(
        "\
# suite vec
> tests/vec.c:4   adding: ..
> vec.c:6        1 + 1 == 2                     ok
> vec.c:7        2 + 2 == 5                     FAILED
> tests/vec.c:12  scaling: .
> vec.c:14       3 * 0 == 0                     ok
> vec.c:15       3 * 2 == 7                     FAILED
2 of 4 assertions failed
",
    );
    assert_eq!(names(&log), ["vec.c:7", "vec.c:15"]);
}

/// D-244: `name: FAIL!` rows with the runner's marks (`.FAIL!`), what went wrong on the lines
/// under each, the passing rows (`name: ..pass`) ending each report; a bare `name: FAIL`
/// listing row is no header, and neither is a place before its verdict.
#[test]
fn marked_colon_verdicts_head_their_reports_and_passing_rows_end_them() {
    let log = parse_log(
        "\
-----------------------------------------
queue
-----------------------------------------
drains_in_order: ..pass
empty_pop: FAIL!
lib/queue.moon:12: attempt to call a nil value (method 'shift')
grows_past_cap: .FAIL!
test/queue_test.moon:30: expected 9 items, got 8
peeks_head: .pass
-----------------------------------------
2/4 tests passed (50.0%)
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "empty_pop".to_owned(),
                "lib/queue.moon:12: attempt to call a nil value (method 'shift')".to_owned()
            ),
            (
                "grows_past_cap".to_owned(),
                "test/queue_test.moon:30: expected 9 items, got 8".to_owned()
            ),
        ]
    );
    assert_eq!(crate::line::status_name("empty_pop: FAIL").as_deref(), None);
    assert_eq!(
        crate::line::status_name("queue.c:16: FAILED!").as_deref(),
        None
    );
}

/// D-244: a task runner's gutter, `| job: ` before every line of the job's output, comes off
/// whatever the output's layout; a boxed report's `│ Error: …` lines are the report's own.
#[test]
fn a_barred_label_before_every_line_of_a_stream_is_a_wrapper() {
    let log = parse_log(
        "\
tasker: starting 'spec'
| spec: =============
| spec: parser
| spec: =============
| spec: reads_numbers: FAIL!
| spec: test/parser_spec.moon:8: expected 12, got 21
| spec: skips_blanks: .pass
| spec: 1/2 tests passed (50.0%)
tasker: 'spec' exited with 1
",
    );
    assert_eq!(names(&log), ["reads_numbers"]);
    assert_eq!(
        log.blocks[0].message.as_deref(),
        Some("test/parser_spec.moon:8: expected 12, got 21")
    );
}

/// D-244: a window anchored only on a run's exit, over passing rows and counts, is no failure
/// beside tests reported by name; one with an error line in it stays.
#[test]
fn an_exit_only_window_beside_named_reports_is_no_failure() {
    let log = parse_log(
        "\
[runner] script start test.
sums: FAIL!
test/sum_spec.moon:3: expected 4, got 5
ratio: ..pass
1/2 tests passed (50.0%)
4 total successful assertions in ~0ms
[runner] script end test. exit code 1.
[runner] sorry, something went wrong...
",
    );
    assert_eq!(names(&log), ["sums"]);
}

/// D-244: a message, its line and column in parentheses, then the file at the line's end (a
/// parser's error re-thrown by the tool that read the file); the excerpt under it is no
/// finding.
#[test]
fn a_place_in_parentheses_before_the_file_at_the_end_places_a_finding() {
    let log = parse_log(
        "\
>> templates/row.hbs
Unterminated string constant (4:17) in templates/row.hbs
  {{ t \"oops }}
                ^
>> templates/cell.hbs
Unexpected character '#' (2:3) in templates/cell.hbs
  {{#}}
    ^
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "templates/row.hbs:4".to_owned(),
                "Unterminated string constant".to_owned()
            ),
            (
                "templates/cell.hbs:2".to_owned(),
                "Unexpected character '#'".to_owned()
            ),
        ]
    );
}

/// D-244: a sentence that names one file and counts what is wrong in it, over exactly that
/// many rows that each open with a line of that file (`L4 - …`, `9: …`).
#[test]
fn rows_opening_with_a_line_under_a_sentence_naming_the_file_are_its_findings() {
    let log = parse_log(
        "\
bad patterns in conf/rules.yaml (3 problems)
L4 - group name must be lower case
L9 - duplicate key in mapping
L21 - anchor referenced before its definition
",
    );
    assert_eq!(
        names(&log),
        [
            "conf/rules.yaml:4",
            "conf/rules.yaml:9",
            "conf/rules.yaml:21"
        ]
    );
    assert_eq!(
        log.blocks[1].message.as_deref(),
        Some("duplicate key in mapping")
    );
    // (The count must agree: two rows under a sentence counting three are not read so.)
    let short = parse_log(
        "\
bad patterns in conf/rules.yaml (3 problems)
L4 - group name must be lower case
L9 - duplicate key in mapping
",
    );
    assert!(!names(&short).contains(&"conf/rules.yaml:9".to_owned()));
}

/// D-244: rows that mark tests failed as they run (`Shop ➞ pays ✘`) beside the reports the run
/// closes with, each with its test's name alone on the line above what went wrong: each report
/// takes the name, and the rows, its listing, go.
#[test]
fn closing_reports_take_the_names_of_the_rows_that_marked_them_failed() {
    let log = parse_log(
        "\
Shop
Shop ➞ lists items
Shop ➞ lists items ✔
Shop ➞ pays
Shop ➞ pays ✘
Shop ➞ refunds
Shop ➞ refunds ✘
FAILURE: 1/3 tests ran successfully; 2 failed

Error #1:
Shop ➞ pays
AssertionError [ERR_ASSERTION]: 10 == 12
    at Context.<anonymous> (/w/test/shop.js:8:10)
    at run (/w/node_modules/runner/index.js:40:3)

Error #2:
Shop ➞ refunds
TypeError: Cannot read properties of null (reading 'total')
    at Shop.refund (/w/lib/shop.js:21:17)
    at Context.<anonymous> (/w/test/shop.js:14:5)
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "Shop ➞ pays".to_owned(),
                "AssertionError [ERR_ASSERTION]: 10 == 12".to_owned()
            ),
            (
                "Shop ➞ refunds".to_owned(),
                "TypeError: Cannot read properties of null (reading 'total')".to_owned()
            ),
        ]
    );
}

/// D-244: a run's closing `Total failure count: N` over its total time is no block beside the
/// failures.
#[test]
fn a_failure_count_over_a_total_time_is_no_block_beside_the_failures() {
    let log = parse_log(
        "\
✗ failure:  test/round.js 12 ms
AssertionError [ERR_ASSERTION]: 2.67 == 2.68
    at test/round.js:4:8

✗ Total failure count: 1
Total duration time: 51ms
",
    );
    assert_eq!(names(&log).len(), 1, "{:?}", names(&log));
    assert!(!names(&log)[0].contains("Total"));
    assert!(time_only_line("Total duration time: 51ms"));
    assert!(!time_only_line("Total duration of the outage: 51ms"));
}

fn time_only_line(line: &str) -> bool {
    let log = parse_log(&format!(
        "✗ failure:  test/a.js 1 ms\nAssertionError: x\n\n✗ Total failure count: 1\n{line}\n"
    ));
    log.blocks.len() == 1
}

/// D-244: failures numbered from 0 in a spec tree as the run goes, then the same numbers and
/// titles in a closing list with what went wrong after a colon: the closing list reports them,
/// named by the tree's titles; the tree's marks are its listing.
#[test]
fn a_closing_list_of_numbered_titles_and_why_reports_what_the_tree_listed() {
    let log = parse_log(
        "\
money
  add()
    ✓  adds cents (12ns)
    0) carries into euros
  split()
    1) splits evenly in three
    ✓  keeps the remainder (9ns)
 ✖ 2 of 4 tests failed:
0) carries into euros: Expected 1.100 to equal 2.00
1) splits evenly in three: Expected [33, 33, 33] to equal [34, 33, 33]
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "carries into euros".to_owned(),
                "Expected 1.100 to equal 2.00".to_owned()
            ),
            (
                "splits evenly in three".to_owned(),
                "Expected [33, 33, 33] to equal [34, 33, 33]".to_owned()
            ),
        ]
    );
}

/// D-244: reports each under a title that ends with a colon (the deepest line of a suite path),
/// what went wrong indented under it, closed by a row that only places it in words or a line
/// that ends so; the bare `not ok` after them names nothing and is no failure beside them.
#[test]
fn reports_under_titles_closed_by_their_place_in_words() {
    let log = parse_log(
        "\
  Failures:

    Stack
      push
        grows by one:

      x
      Compared $data
         got : 2
      expect : 1

         at t/stack.t line 14

    Stack
      pop
        dies when empty:

      Can't call method \"top\" on an undefined value at t/stack.t line 22.


not ok
1..1
",
    );
    assert_eq!(names(&log), ["grows by one", "dies when empty"]);
    assert!(
        log.blocks[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("Compared $data")
    );
    assert!(
        log.blocks[1]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("Can't call method")
    );
}

/// D-244: a file's tally of its findings after them (`locale/de.po: 2 errors (nearly there)`)
/// counts them and is no finding of its own.
#[test]
fn a_files_tally_after_its_findings_is_no_finding() {
    let log = parse_log(
        "\
locale/de.po:12: [quotes] quote mismatch: 2 in string, 1 in translation
---
locale/de.po:19: [spaces] trailing space: 0 in string, 1 in translation
---
locale/de.po: 2 errors (nearly there)
",
    );
    assert_eq!(names(&log), ["locale/de.po:12", "locale/de.po:19"]);
}

/// D-244: what went wrong in the test's own words, a blank line, then the values compared
/// (`expected:` / `got:`): the message starts at the words. A call that shows the assertion's
/// code in that place (Jest's hint) is not the message.
#[test]
fn the_words_a_blank_line_above_the_compared_values_open_the_message() {
    let log = parse_log(
        "\
   2 passing 1 failing (2ms)

   1) shelf Shelf#count counts books

      3 == 4

      expected: 4
           got: 3

      at Object.<anonymous> (/w/test/shelf.js:9:12)
",
    );
    assert_eq!(names(&log), ["shelf Shelf#count counts books"]);
    assert!(
        log.blocks[0]
            .message
            .as_deref()
            .unwrap_or("")
            .starts_with("3 == 4"),
        "{:?}",
        log.blocks[0].message
    );
}

/// D-244: where `in FILE` closes a finding's line after every `line N` in it, the lines are the
/// message's and the first is its subject's; where a `line N` follows the file (`… in a.php on
/// line 6`), that one places it.
#[test]
fn a_file_that_closes_the_line_leaves_the_first_line_n_to_the_subject() {
    let log = parse_log(
        "\
ERROR: Duplicate key \"port\" at line 7 shadows \"port\" at line 12 in conf/app.conf
ERROR: Unknown section \"dbx\" at line 20 in conf/app.conf
",
    );
    assert_eq!(names(&log), ["conf/app.conf:7", "conf/app.conf:20"]);
}

/// D-244: a verdict whose only name is a place (`FAIL @ a_test.rb:9`) right under the line that
/// announced its test with a quoted name: the report is the two lines, named by the
/// announcement; the next announcement is the next test's.
#[test]
fn a_verdict_with_a_place_alone_reports_the_test_announced_above_it() {
    let log = parse_log(concat!(
        "   LAUNCH 'adds two prices'!\n",
        "     OK\n",
        "   LAUNCH 'rounds half up'!\n",
        "   FAIL @ price_test.rb:9\n",
        "   LAUNCH 'formats euros'!\n",
        "   FAIL @ price_test.rb:14\n",
        "   LAUNCH 'formats pounds'!\n",
        "     OK\n",
    ));
    assert_eq!(
        named_messages(&log),
        [
            (
                "rounds half up".to_owned(),
                "FAIL @ price_test.rb:9".to_owned()
            ),
            (
                "formats euros".to_owned(),
                "FAIL @ price_test.rb:14".to_owned()
            ),
        ]
    );
}

/// D-244: a task's tag before nearly every line (`web:unit ok 1 …`, one word joining parts
/// with a colon, then a space) is the wrapper's whatever follows it: taken off, the TAP run
/// under it is read.
#[test]
fn a_tag_before_nearly_every_line_is_taken_off() {
    let log = parse_log(
        "\
web:unit ok 1       parses a date
web:unit not ok 2   parses a short year
web:unit #          Results  : 999
web:unit #          Expected : 0999
web:unit ok 3       pads a digit
web:unit not ok 4   rejects day 32
web:unit 1..4
",
    );
    assert_eq!(names(&log), ["parses a short year", "rejects day 32"]);
    assert_eq!(log.blocks[0].step.as_deref(), Some("web:unit"));
}

/// D-248: `fail 4 - name (1ms)` rows, numbered after a lower-case verdict as TAP numbers its
/// points, head their reports; `pass 3 - name` rows end them; neither states a count (`fail
/// 12 - …` is the twelfth test, not twelve failures).
#[test]
fn numbered_rows_after_a_lower_case_verdict_head_their_reports() {
    let log = parse_log(
        "\
  Basket
pass 1 - adds an item (0ms)
fail 2 - removes an item (1ms)
AssertionError [ERR_ASSERTION]: 1 === 0
    at /w/test-basket.js:9:5
pass 3 - counts items (0ms)
fail 12 - empties itself (2ms)
TypeError: basket.empty is not a function
    at /w/test-basket.js:14:12

Total: 4
Failed: 2 (2, 12)
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "removes an item".to_owned(),
                "AssertionError [ERR_ASSERTION]: 1 === 0".to_owned()
            ),
            (
                "empties itself".to_owned(),
                "TypeError: basket.empty is not a function".to_owned()
            ),
        ]
    );
    assert_eq!(
        log.agreement,
        crate::stated::Agreement::Agrees { stated: 2 }
    );
}

/// D-248: a mark led by a drawn rule heads a report (`═══ ✘ name`), the drawn rule before its
/// message is no part of it, and the closing rows that recite the reports' messages (`✘
/// TypeError Cannot …`) are a listing, no failures of their own.
#[test]
fn a_ruled_mark_heads_its_report_and_the_recited_messages_are_a_listing() {
    let log = parse_log(
        "\
till suite

═══ ✘ sums the lines
――――― AssertionError: expected 12 to equal 13
       at sums the lines (file:///w/till.test.js:8:3)
       at run (file:///w/node_modules/runner/run.js:40:9)

═══ ✘ prints a receipt
――――― TypeError: Cannot read properties of null (reading 'lines')
       at receipt (file:///w/till.js:14:20)
       at prints a receipt (file:///w/till.test.js:15:3)

✘ AssertionError expected 12 to equal 13
✘ TypeError Cannot read properties of null (reading 'lines')
",
    );
    assert_eq!(
        named_messages(&log),
        [
            (
                "sums the lines".to_owned(),
                "AssertionError: expected 12 to equal 13".to_owned()
            ),
            (
                "prints a receipt".to_owned(),
                "TypeError: Cannot read properties of null (reading 'lines')".to_owned()
            ),
        ]
    );
}

/// D-248: a verdict led by a rule with why after a dash (`**** FAIL - expected: …`) one indent
/// under its test's title: the title names it; the verdict names nothing.
#[test]
fn a_ruled_verdict_with_why_after_a_dash_is_named_by_the_title_above() {
    let log = parse_log(
        "\
version helpers
  reads the major part
         PASS
  bumps the minor part
    **** FAIL - expected: '1.3.0' | actual: '1.2.1'
  drops a leading v
    **** FAIL - expected: '2.0.0' | actual: 'v2.0.0'
--SUMMARY
1 PASSED
2 FAILED
",
    );
    assert_eq!(names(&log), ["bumps the minor part", "drops a leading v"]);
    assert!(
        log.blocks[0]
            .message
            .as_deref()
            .unwrap_or("")
            .contains("FAIL - expected: '1.3.0'")
    );
}

/// D-248: an elapsed time before every line (`   0.0025s   text`) is the wrapper's clock and
/// comes off; `FAILURE:name(args)` glues the verdict to the test it names, and the message is
/// under the rule after its place.
#[test]
fn an_elapsed_clock_comes_off_and_a_glued_verdict_names_its_test() {
    let log = parse_log(concat!(
        "   0.0011s   loading 'spec/ring.lua'...\n",
        "   0.0013s   ==========================================\n",
        "   0.0013s   FAILURE:test_wraps_around(4, 1)\n",
        "   0.0014s   [spec/ring.lua]:12\n",
        "   0.0014s   ------------------------------------------\n",
        "   0.0015s   assert_equal failed: 4 ~= 1\n",
        "   0.0015s   \n",
        "   0.0016s   ==========================================\n",
        "   0.0016s   FAILURE:test_empty_pop()\n",
        "   0.0017s   [spec/ring.lua]:20\n",
        "   0.0017s   ------------------------------------------\n",
        "   0.0018s   assert_nil failed: 7\n",
    ));
    assert_eq!(
        named_messages(&log),
        [
            (
                "test_wraps_around".to_owned(),
                "assert_equal failed: 4 ~= 1".to_owned()
            ),
            (
                "test_empty_pop".to_owned(),
                "assert_nil failed: 7".to_owned()
            ),
        ]
    );
    // (A logger's `ERROR:tool:module 'a.py' has …` is no glued verdict.)
    assert_eq!(
        crate::line::status_name("ERROR:xenon:module 'a.py' has a rank of D"),
        None
    );
}

/// D-248: `name: failed` rows in lower case beside `name: passed`, at the margin and indented
/// under a group, each head the report under it.
#[test]
fn lower_case_colon_verdicts_head_reports_at_any_depth() {
    let log = parse_log(
        "\
Running tests
testTrimsSpaces: passed
testDropsPunctuation: failed
AssertionError [ERR_ASSERTION]: 'a-b!' == 'a-b'
    at exports.testDropsPunctuation (/w/test-slug.js:7:10)
Group: testLimits
  testShortKept: passed
  testLongCut: failed
AssertionError [ERR_ASSERTION]: 'abcd...' == 'a...'
    at Object.testLongCut (/w/test-slug.js:17:12)
",
    );
    assert_eq!(names(&log), ["testDropsPunctuation", "testLongCut"]);
}

/// Rows that recite the reports after them: a tree's `✗ (1) name` rows (the test's own name,
/// numbered) over numbered reports named by suite and test; a suite's status row naming the
/// file the reports name, closed by the run's counts (a total of suites counts no failure).
#[test]
fn rows_that_recite_a_report_by_its_name_or_its_file_are_no_failures() {
    let tree = "\nCart\n  ✗ (1) adds an item\n  ✓ removes an item\n  ✗ (2) sums the lines\n\n\n1) Failure: Cart adds an item\n<2> expected but was\n<1>\n\n2) Failure: Cart sums the lines\n<7> expected but was\n<6>\n\nFinished in 0.02 seconds\n3 tests, 3 assertions, 2 failures, 0 errors\n";
    let got = named_messages(&parse_log(tree));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["Cart adds an item", "Cart sums the lines"],
        "{got:?}"
    );

    let suites = "   ✖ login responds (59ms)\n\n  Done: /w/suites/auth.suite.yml (Failed)\n\n0 skipped, 1 failed, 0 passed (1 tests)\n0 skipped, 1 failed, 0 passed (1 suites)\n\nFailures:\n\n 1) login responds (/w/suites/auth.suite.yml)\nStatusError: Expected status code: 200, Actual status code: 404\n    at Spec.check (/w/node_modules/x/spec.js:6:19)\n";
    let parsed = parse_log(suites);
    let names: Vec<String> = parsed
        .blocks
        .iter()
        .filter_map(|b| b.test_name.clone())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with("Done")), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("login responds")),
        "{names:?}"
    );
}

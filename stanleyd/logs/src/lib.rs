//! Reading failure logs (issue 46), whatever printed them, as one pipeline whose modules form a
//! tree: the wrapper comes off first (`wrapper`: a CI service's job-log format, then per-line
//! stream labels); a report document is read as what it is (`document`); a text log is read by
//! the runners whose structure is known (`runner`, the accelerators), a TAP stream wherever it
//! sits, the diagnostics of compilers and linters (`diagnostics`), and the structure runners
//! share, judged by the failure count the log states (`discover`, `stated`); generic anchors
//! take what is left (`anchor`); then the blocks are settled (`block`). Every phase is linear
//! in the log and looks at the request's [`Pace`] at bounded intervals.

#![cfg_attr(not(test), forbid(unsafe_code))]

pub mod stated;
pub mod wrapper;

mod anchor;
mod block;
mod diagnostics;
mod discover;
mod document;
mod found;
mod line;
mod runner;
mod text;

use serde_json::Value;
use stanley_core::{Cancel, Cancelled, Pace, stable_id};

use crate::block::{capped, distinct_ids, finish, from_found, settle};
use crate::runner::structured;
use crate::stated::{Agreement, Stated};

pub use crate::block::FailureBlock;
pub use crate::text::{OMITTED_PREFIX, foreign_frame, is_host, left_out, normalize, strip_ansi};

/// Most lines a log may have.
pub const MAX_LOG_LINES: usize = 200_000;

/// A parsed log.
#[derive(Clone, Debug)]
pub struct ParsedLog {
    pub line_count: usize,
    pub blocks: Vec<FailureBlock>,
    /// What of the input was left out before parsing, one line each (for `limits`).
    pub left_out: Vec<String>,
    /// The CI job-log format the input was unwrapped from.
    pub wrapper: Option<crate::wrapper::ci::Wrapper>,
    /// How the failures found agree with the count the log states (issue 46).
    pub agreement: Agreement,
}

impl ParsedLog {
    /// The failures read, as a stated count counts them (a job's own error lines are none).
    pub fn failures_read(&self) -> usize {
        counted(&self.blocks)
    }
}

/// The blocks a stated count counts: every failure, not a job's own error lines, and a tool's
/// warnings only when nothing else failed (`3 errors, 2 warnings` counts 3).
fn counted(blocks: &[FailureBlock]) -> usize {
    let failures = blocks.iter().filter(|b| b.anchors != ["job_failure"]);
    let warnings = failures.clone().filter(|b| b.is_warning()).count();
    match failures.count() {
        n if n > warnings => n - warnings,
        n => n,
    }
}

/// How the failures read agree with the count the log states: the errors, or the errors and
/// the warnings beside them together (`5 problems` over 3 errors and 2 warnings).
fn agreement(stated: &Stated, blocks: &[FailureBlock]) -> Agreement {
    let first = Agreement::of(stated, counted(blocks));
    let all = blocks
        .iter()
        .filter(|b| b.anchors != ["job_failure"])
        .count();
    match first {
        Agreement::Differs { .. } if stated.agrees(all) => Agreement::of(stated, all),
        other => other,
    }
}

/// The diagnostics of compilers, type checkers and linters among the lines not `covered` (then
/// covered): each error a block named by its location, its family its code or rule, its
/// fingerprint its exact place and message.
pub(crate) fn diagnostic_blocks(
    lines: &[String],
    covered: &mut [bool],
    pace: &Pace<'_>,
) -> Result<Vec<FailureBlock>, Cancelled> {
    let mut out = Vec::new();
    // Findings a summary table counts by kind, read first: their lines name no place.
    let tallied = crate::diagnostics::tallied::read(lines, covered);
    for d in &tallied {
        covered[d.found.start] = true;
    }
    let mut all = tallied;
    all.extend(crate::diagnostics::read_all(lines, covered, pace)?);
    all.sort_by_key(|d| d.found.start);
    // Every finding's lines are its own, a warning's too.
    for d in &all {
        for c in &mut covered[d.found.start..d.found.start + d.found.lines.len()] {
            *c = true;
        }
    }
    // A note right after a finding (`a.asm:10: info: label originally defined here`, `a.c:3:
    // note: …`) is context of that finding, no finding of its own.
    let mut all_merged: Vec<crate::diagnostics::Diagnostic> = Vec::with_capacity(all.len());
    for d in all {
        if let Some(prev) = all_merged.last_mut()
            && prev.found.start + prev.found.lines.len() == d.found.start
            && (context_note(&d) || unmarked_after_marked(prev, &d))
        {
            prev.found.lines.extend(d.found.lines);
            continue;
        }
        all_merged.push(d);
    }
    for d in all_merged {
        pace.step()?;
        let (code, place) = (d.code.clone(), d.place.clone());
        let message = d.found.message.clone().unwrap_or_default();
        // A test's record that it passed or was ignored is no finding.
        if crate::line::passing_record(&message) {
            continue;
        }
        let mut block = from_found(d.found);
        // A runner that prints its failures as diagnostics names the test in the message
        // (`a.cpp:12:1: error: Failure in LargeHarvest: Expected 40 but was 39`).
        if let Some(test) = crate::line::failing_test_in(&message) {
            block.test_name = Some(test.to_owned());
        }
        // A test's one-line record (`a.c:13:F:Suite:test_x:0: message`, libcheck's) names
        // its test in fields after the place.
        if let Some((test, said)) = block
            .lines
            .first()
            .and_then(|l| crate::line::record(l.trim()))
            .filter(|(_, said)| !said.is_empty())
        {
            block.test_name = Some(test);
            block.message = Some(said.to_owned());
        }
        if let Some(code) = code {
            block.family = stable_id("fam", &Value::String(code), 8);
        }
        // The same error printed twice is one; two errors are never one, however alike.
        block.fingerprint = stable_id("fp", &serde_json::json!([place, message]), 12);
        out.push(block);
    }
    Ok(out)
}

/// Whether a finding is a note that gives context (`info: …`, `note: …`, `(INFO/1) …`), not
/// a warning or an error of its own.
fn context_note(d: &crate::diagnostics::Diagnostic) -> bool {
    let message = d
        .found
        .message
        .as_deref()
        .unwrap_or("")
        .to_ascii_lowercase();
    let first = d
        .found
        .lines
        .first()
        .map_or(String::new(), |l| l.to_ascii_lowercase());
    ["note:", "info:"].iter().any(|w| message.starts_with(w))
        || [": note:", ": info:", "(info/1)"]
            .iter()
            .any(|w| first.contains(w))
}

/// Whether a finding without a severity mark follows one with a mark in the same file
/// (`q4.sgml:10:14: start tag was here` under `q4.sgml:11:6:E: end tag for "EM" omitted`,
/// OpenSP's): where the tool marks its findings, an unmarked line is a note on the one
/// before.
fn unmarked_after_marked(
    prev: &crate::diagnostics::Diagnostic,
    d: &crate::diagnostics::Diagnostic,
) -> bool {
    let marked = |d: &crate::diagnostics::Diagnostic| {
        d.found.message.as_deref().is_some_and(|m| {
            m.split_once(": ").is_some_and(|(mark, _)| {
                mark.len() == 1 && mark.chars().all(|c| c.is_ascii_uppercase())
            })
        })
    };
    let file =
        |d: &crate::diagnostics::Diagnostic| d.place.split(':').next().unwrap_or("").to_owned();
    marked(prev) && !marked(d) && file(prev) == file(d)
}

/// Which parsers read a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsers {
    /// The runner parsers first, then the generic path for what they leave.
    All,
    /// The generic path alone (documents by shape, the segmenter, anchors): what a runner no
    /// parser knows gets, measured by the captures tests.
    GenericOnly,
}

/// Parses a log into failure blocks with every parser: [`parse_log_with`] and [`Parsers::All`].
pub fn parse_log(text: &str) -> ParsedLog {
    parse_log_with(text, Parsers::All)
}

/// [`parse_log_paced`] with no cancellation (tests, benches and the fuzzer).
pub fn parse_log_with(text: &str, parsers: Parsers) -> ParsedLog {
    let never = Cancel::new();
    match parse_log_paced(text, parsers, &Pace::new(&never)) {
        Ok(parsed) => parsed,
        Err(Cancelled) => unreachable!("a signal nothing can fire"),
    }
}

/// A report document (JSON, JSON lines, XML) read as what it is, when `text` is one.
fn read_document(text: &str, parsers: Parsers) -> Option<ParsedLog> {
    let found = match parsers {
        Parsers::All => crate::document::document(text),
        Parsers::GenericOnly => crate::document::generic_document(text),
    }?;
    let line_count = text.lines().count();
    let mut blocks: Vec<FailureBlock> = found.into_iter().map(from_found).collect();
    // A failure read from a document came from somewhere in it: a tree keeps no line
    // positions, so its block spans the document, never past its end (issue 36).
    for block in &mut blocks {
        block.start = 1;
        block.end = line_count.max(1);
    }
    distinct_ids(&mut blocks);
    Some(ParsedLog {
        line_count,
        blocks,
        left_out: left_out(text),
        wrapper: None,
        // A document's failures are what it records; it states no other count.
        agreement: Agreement::Unstated,
    })
}

/// Parses a log into failure blocks: a report document (JSON, JSON lines, XML) as what it is; a
/// text log, after its CI wrapper is taken off, by the runners' own structure first (with
/// [`Parsers::All`]), then by the runner-agnostic segmenter, then generic anchors for what is
/// left. CPU-bound and linear in the log; it looks at `pace`'s signal between its phases and
/// every so many lines of its anchor and window loops (the runners', diagnostics' and segmenter's
/// phases only at their ends), and ends with [`Cancelled`] once it fires (issue 47, D-162).
pub fn parse_log_paced(
    text: &str,
    parsers: Parsers,
    pace: &Pace<'_>,
) -> Result<ParsedLog, Cancelled> {
    let document = read_document(text, parsers);
    pace.now()?;
    if let Some(parsed) = document {
        return Ok(parsed);
    }
    // A line a terminal redrew in place (the cursor moved up over it and erased it) is gone
    // from the screen: it reads as blank, one line for one line.
    let redrawn = crate::text::redrawn(text);
    let text: &str = &redrawn;
    // A CI job log first loses its wrapper (timestamps, group markers), one line for one line.
    let mut unwrapped = crate::wrapper::ci::unwrap(text);
    pace.now()?;
    // Then each line loses the label of its stream (a task runner's, a CI step's).
    crate::wrapper::streams::separate(&mut unwrapped);
    pace.now()?;
    let wrapper = unwrapped.wrapper;
    let mut lines = unwrapped.lines.clone();
    let mut notes = left_out(&lines.join("\n"));
    // A longer log (a client that sent it unreduced) keeps its last lines, where failures are.
    if lines.len() > MAX_LOG_LINES {
        let cut = lines.len() - MAX_LOG_LINES;
        notes.push(format!(
            "input lines 1-{cut} ({cut} lines) were left out to keep the last {MAX_LOG_LINES}; failures in them were not triaged"
        ));
        lines.drain(..cut);
    }
    let offset = unwrapped.lines.len() - lines.len();
    let stated = stated_count(&lines, &notes);
    // A line that closes a scope opened above it reports nothing, whichever parser reads.
    let scopes = crate::line::scopes(&lines);
    let mut claimed = scopes.closing.clone();
    let mut blocks: Vec<FailureBlock> = Vec::new();
    let mut covered = claimed.clone();
    if parsers == Parsers::All {
        blocks.extend(
            crate::runner::text(&lines, &mut claimed, pace)?
                .into_iter()
                .map(from_found),
        );
        pace.now()?;
        let (more, known) = structured(&lines);
        blocks.extend(more.into_iter().filter(|b| !claimed[b.start - 1]));
        pace.now()?;
        covered = known;
        for (c, r) in covered.iter_mut().zip(&claimed) {
            *c |= *r;
        }
    }
    // (A known runner's reading is its structure's: where it disagrees with the count, the
    // count counts what the runner's structure tells apart, parents of subtests, suites.)
    let runner_read = !blocks.is_empty();
    let mut blocks = name_in_scopes(blocks, &lines, &scopes);
    // Streams of parallel tasks put back one after the other are logs of their own: each is
    // read with the count it states.
    let streams = stream_ranges(&unwrapped, offset);
    // (When the runners' parsers read as many failures as the log states, the count is
    // spent: the rest of the log is read as if it stated none, so no other lines are taken
    // for failures because they happen to be as many.)
    let spent = !blocks.is_empty() && stated.agrees(counted(&blocks));
    let rest_stated = if spent {
        crate::stated::Stated::default()
    } else {
        stated.clone()
    };
    let rest = read_streams(
        &lines,
        &covered,
        &rest_stated,
        &streams,
        Order::DiagnosticsFirst,
        pace,
    )?;
    let rest = name_in_scopes(rest, &lines, &scopes);
    let rest = named_by_their_rows(rest, &lines);
    let rest = without_recited(rest);
    let rest = without_listed(rest, &blocks);
    let first = settle(
        blocks.iter().cloned().chain(rest).collect(),
        &lines,
        &unwrapped,
        offset,
    );
    // Diagnostics read first can split a test's report whose message starts with a place
    // (`spec/a.lua:2: Expected objects to be equal.` right under `Failure -> spec/a.lua @ 2`
    // and its name): when that reading disagrees with the stated count and a diagnostic sits
    // right under a report, the reports read first stand if they agree and hold every line
    // the first reading found.
    let blocks = if matches!(agreement(&stated, &first), Agreement::Differs { .. })
        && split_report(&first)
    {
        let rest = read_streams(
            &lines,
            &covered,
            &stated,
            &streams,
            Order::ReportsFirst,
            pace,
        )?;
        let rest = name_in_scopes(rest, &lines, &scopes);
        blocks.extend(rest);
        let second = settle(blocks, &lines, &unwrapped, offset);
        let agrees = matches!(agreement(&stated, &second), Agreement::Agrees { .. });
        if agrees && holds_all(&first, &second) {
            second
        } else {
            first
        }
    } else {
        first
    };
    pace.now()?;
    let mut blocks = crate::block::split_at_own_places(blocks);
    final_names(&mut blocks, &lines);
    let (mut blocks, mut agreement) = echoes_left_out(blocks, &stated);
    // Where the readings with a rule for a layout disagree with the stated count, the
    // layout-free reading may stand (D-249).
    if !runner_read
        && let Some(records) =
            layout_free(&blocks, &lines, &scopes, &stated, &unwrapped, offset, pace)?
    {
        blocks = records;
        distinct_ids(&mut blocks);
        agreement = self::agreement(&stated, &blocks);
    }
    // The runner parsers are accelerators, judged like any reading.
    if parsers == Parsers::All
        && let Some(generic) = generic_if_better(text, agreement, &blocks, pace)?
    {
        return Ok(generic);
    }
    Ok(ParsedLog {
        line_count: lines.len(),
        blocks,
        left_out: notes,
        wrapper,
        agreement,
    })
}

/// Blocks that say twice that a test failed, in its progress line and in its report
/// (`test_x ... FAIL` beside `FAIL: test_x (mod.Class.test_x)`), lose the progress lines where
/// the reports alone then agree with the stated count; else they stand as read.
fn echoes_left_out(blocks: Vec<FailureBlock>, stated: &Stated) -> (Vec<FailureBlock>, Agreement) {
    let read = agreement(stated, &blocks);
    if matches!(read, Agreement::Differs { .. })
        && let Some(kept) = crate::block::without_echoes(&blocks)
    {
        let now = agreement(stated, &kept);
        if matches!(now, Agreement::Agrees { .. }) {
            return (kept, now);
        }
    }
    (blocks, read)
}

/// The failure count the log states, which judges the readings (issue 46); of a log with a
/// part left out (cut here or by the client, `notes`), the count is the whole log's, not the
/// part read, and judges nothing.
fn stated_count(lines: &[String], notes: &[String]) -> Stated {
    if notes.is_empty() {
        crate::stated::stated(lines)
    } else {
        Stated::default()
    }
}

/// The names a person reads (each as shown, an ordinal by what the run listed under it, blocks
/// of one name told apart) and ids of their own.
fn final_names(blocks: &mut [FailureBlock], lines: &[String]) {
    shown_names(blocks);
    crate::block::ordinal_names(blocks, lines);
    crate::block::told_apart(blocks);
    distinct_ids(blocks);
}

/// Each block named as a person reads the name (`crate::line::shown_name`).
fn shown_names(blocks: &mut [FailureBlock]) {
    for b in blocks {
        if let Some(name) = &mut b.test_name {
            let shown = crate::line::shown_name(name);
            if shown.len() < name.len() {
                *name = shown.to_owned();
            }
        }
    }
}

/// The layout-free reading (`discover::records`), settled, where it stands instead of
/// `blocks`: those disagree with the stated count (or none is stated and they are none), it
/// agrees (once settled), it holds every report they read (a crash beside the counted
/// failures is one), and it reads at least as many failures, some where they read none, or
/// they left one unnamed, or read two of its records as one. (Records that all lie in their reports, or are named by their names
/// and why, are those reports' parts: a test that printed a report per check, `5 failures` of
/// 3 tests.) A placed finding's fingerprint is its place and message, as a diagnostic's.
fn layout_free(
    blocks: &[FailureBlock],
    lines: &[String],
    scopes: &crate::line::Scopes,
    stated: &Stated,
    unwrapped: &crate::wrapper::ci::Unwrapped,
    offset: usize,
    pace: &Pace<'_>,
) -> Result<Option<Vec<FailureBlock>>, Cancelled> {
    let unread = blocks.is_empty() && stated.is_empty();
    if !(matches!(self::agreement(stated, blocks), Agreement::Differs { .. }) || unread) {
        return Ok(None);
    }
    let Some(found) = crate::discover::records::read(lines, &scopes.closing, stated, pace)? else {
        return Ok(None);
    };
    let records: Vec<FailureBlock> = found
        .into_iter()
        .map(|f| {
            let place = (f.anchor != "records").then(|| f.name.clone());
            let mut block = from_found(f);
            if let Some(place) = place {
                block.fingerprint = stable_id("fp", &serde_json::json!([place, block.message]), 12);
            }
            block
        })
        .collect();
    let records = settle(records, lines, unwrapped, offset);
    let agrees = matches!(self::agreement(stated, &records), Agreement::Agrees { .. });
    let weak = blocks.iter().any(|b| {
        b.test_name.is_none() && !crate::block::step_error(b) && b.anchors != ["job_failure"]
    });
    // (Both in log order, and records apart from each other: each check is a binary search,
    // so the judgement is n log n in the failures.)
    let mut by_start: Vec<&FailureBlock> = blocks.iter().collect();
    by_start.sort_by_key(|b| b.start);
    let mut reach = Vec::with_capacity(by_start.len());
    for b in &by_start {
        reach.push(reach.last().copied().unwrap_or(0).max(b.end));
    }
    let holds_every = blocks.iter().all(|b| {
        let k = records.partition_point(|r| r.start <= b.end);
        k > 0 && records[k - 1].end >= b.start
    });
    let names: std::collections::HashSet<&str> = blocks
        .iter()
        .filter_map(|b| b.test_name.as_deref())
        .collect();
    let known = |r: &FailureBlock| {
        let k = by_start.partition_point(|b| b.start <= r.start);
        let inside = k > 0 && reach[k - 1] >= r.start;
        // (`bad-option: stdout diff` under `bad-option`'s report: its name and why.)
        let named = r.test_name.as_deref().is_some_and(|record| {
            record.match_indices([':', '-']).any(|(at, sep)| {
                let name = record[..at].trim_end_matches(' ');
                (sep == ":" || record[..at].ends_with(' ')) && names.contains(name)
            })
        });
        inside || named
    };
    let beyond = records.iter().any(|r| !known(r));
    // (A block that holds two records or more read them as one: a table's rows as one job
    // failure.)
    let merged = agrees
        && blocks.iter().any(|b| {
            let from = records.partition_point(|r| r.start < b.start);
            let to = records.partition_point(|r| r.start <= b.end);
            to > from + 1
        });
    let stands = (agrees || stated.is_empty())
        && holds_every
        && (weak || merged || (counted(&records) >= counted(blocks) && beyond));
    Ok(stands.then_some(records))
}

/// The generic path's reading, when it judges better than the runner parsers' `blocks`: when
/// theirs disagrees with the stated count and the generic path's agrees; or, neither agreeing,
/// when the parsers read fewer than half the stated count and the generic path reads more and
/// is nearer it (a parser that claimed another runner's log).
fn generic_if_better(
    text: &str,
    agreement: Agreement,
    blocks: &[FailureBlock],
    pace: &Pace<'_>,
) -> Result<Option<ParsedLog>, Cancelled> {
    let Agreement::Differs { stated: n } = agreement else {
        return Ok(None);
    };
    let generic = parse_log_paced(text, Parsers::GenericOnly, pace)?;
    let off = |blocks: &[FailureBlock]| counted(blocks).abs_diff(n);
    let nearer = matches!(generic.agreement, Agreement::Differs { stated } if stated == n)
        && counted(blocks) * 2 < n
        && off(&generic.blocks) < off(blocks)
        && counted(&generic.blocks) > counted(blocks);
    let better = matches!(generic.agreement, Agreement::Agrees { .. }) || nearer;
    Ok(better.then_some(generic))
}

/// A failure inside scopes its runner opened and closed is named by their titles too
/// (`Bakery ovens › bakes rye › rye yield off by one`); a diagnostic keeps its place.
fn name_in_scopes(
    mut blocks: Vec<FailureBlock>,
    lines: &[String],
    scopes: &crate::line::Scopes,
) -> Vec<FailureBlock> {
    for b in &mut blocks {
        if b.anchors.iter().any(|a| a.starts_with("diagnostic")) {
            continue;
        }
        let path = scopes.path(lines, b.start.saturating_sub(1));
        if path.is_empty() {
            continue;
        }
        let mut full = path.join(" › ");
        if let Some(name) = b.test_name.take()
            && !path.contains(&name.as_str())
        {
            full = format!("{full} › {name}");
        }
        b.test_name = Some(full);
    }
    blocks
}

/// Whether a diagnostic starts on the line right after a report ends: a report's message read
/// as a finding of its own.
fn split_report(blocks: &[FailureBlock]) -> bool {
    let report_ends: std::collections::HashSet<usize> = blocks
        .iter()
        .filter(|b| b.anchors.contains(&"report"))
        .map(|b| b.end)
        .collect();
    blocks
        .iter()
        .any(|b| b.anchors.contains(&"diagnostic") && report_ends.contains(&(b.start - 1)))
}

/// Whether every block of `first` shares a line with one of `second`'s: a reading that drops
/// what another found is no better, whatever count it agrees with. The readings cut the lines
/// around what they found differently (a header above, the next report's title, a wrapper's
/// closing lines below); a block that no block of the other holds any line of is what it
/// dropped. Sorting, then one pass.
fn holds_all(first: &[FailureBlock], second: &[FailureBlock]) -> bool {
    let mut held: Vec<(usize, usize)> = second.iter().map(|b| (b.start, b.end)).collect();
    held.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(held.len());
    for (s, e) in held {
        match merged.last_mut() {
            Some(last) if s <= last.1 + 1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    first.iter().all(|b| {
        // The last interval that starts at or before the block's end, if it reaches into it.
        let at = merged.partition_point(|&(s, _)| s <= b.end);
        at > 0 && merged[at - 1].1 >= b.start
    })
}

/// Which reading takes the lines first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// Diagnostics first, then the reports of what they left (compilers' output).
    DiagnosticsFirst,
    /// Test reports first, then the diagnostics of what they left.
    ReportsFirst,
}

/// The ranges of `unwrapped`'s lines (after the first `offset`) that each hold one stream of
/// a task runner's labelled streams (put back one after the other when they interleaved);
/// none otherwise. A line of no stream stays with the stream before it.
fn stream_ranges(unwrapped: &crate::wrapper::ci::Unwrapped, offset: usize) -> Vec<(usize, usize)> {
    if unwrapped.wrapper != Some(crate::wrapper::ci::Wrapper::Prefixed) {
        return Vec::new();
    }
    let steps = &unwrapped.steps[offset.min(unwrapped.steps.len())..];
    // A stream is its label's shape: a label that counts lines or time (`[fmt:L12:0s]`) names
    // one stream in every line.
    let shapes: Vec<String> = unwrapped
        .step_names
        .iter()
        .map(|n| crate::text::digits_masked(n))
        .collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut current: Option<&str> = None;
    for (i, step) in steps.iter().enumerate() {
        let shape = step.map(|s| shapes[s].as_str());
        match (shape, ranges.last_mut()) {
            (Some(s), Some(last)) if current != Some(s) => {
                last.1 = i;
                ranges.push((i, i + 1));
                current = Some(s);
            }
            (_, Some(last)) => last.1 = i + 1,
            (s, None) => {
                ranges.push((i, i + 1));
                current = s;
            }
        }
    }
    if ranges.len() < 2 { Vec::new() } else { ranges }
}

/// [`read_text`] over each stream's lines with the count that stream states, or over all the
/// lines when there are no `streams`.
fn read_streams(
    lines: &[String],
    covered: &[bool],
    stated: &crate::stated::Stated,
    streams: &[(usize, usize)],
    order: Order,
    pace: &Pace<'_>,
) -> Result<Vec<FailureBlock>, Cancelled> {
    if streams.is_empty() {
        return read_text(lines, covered.to_vec(), stated, order, pace);
    }
    let mut out = Vec::new();
    for &(a, b) in streams {
        let part = &lines[a..b];
        let own = crate::stated::stated(part);
        for mut block in read_text(part, covered[a..b].to_vec(), &own, order, pace)? {
            block.start += a;
            block.end += a;
            out.push(block);
        }
    }
    Ok(out)
}

/// The blocks of the lines the runner parsers left (`covered`): a TAP stream, diagnostics and
/// the segmenter's reports in `order`, then generic windows around what is left.
fn read_text(
    lines: &[String],
    mut covered: Vec<bool>,
    stated: &crate::stated::Stated,
    order: Order,
    pace: &Pace<'_>,
) -> Result<Vec<FailureBlock>, Cancelled> {
    let mut blocks = Vec::new();
    // A TAP stream anywhere in the log is a document of its own: tests, their assertions and
    // their diagnostics, nested or not.
    if let Some((found, stream)) = crate::document::tap::tap(lines, &covered, stated) {
        for i in stream {
            covered[i] = true;
        }
        blocks.extend(found.into_iter().map(from_found));
    }
    pace.now()?;
    // Diagnostics (each error of a compiler, type checker or linter a failure of its own) and
    // the runner-agnostic segmenter (reports by the structure runners share), in `order`.
    let mut findings: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for reading in match order {
        Order::DiagnosticsFirst => [Order::DiagnosticsFirst, Order::ReportsFirst],
        Order::ReportsFirst => [Order::ReportsFirst, Order::DiagnosticsFirst],
    } {
        if reading == Order::DiagnosticsFirst {
            let found = diagnostic_blocks(lines, &mut covered, pace)?;
            findings.extend(found.iter().map(|b| b.start - 1));
            blocks.extend(found);
            pace.now()?;
            continue;
        }
        let segments = crate::discover::segment(lines, &covered, stated, pace)?;
        pace.now()?;
        for found in segments.reports {
            // A verdict over findings read as diagnostics, on their file or on the project
            // that holds them (`FAILED config/app.toml` over `config/app.toml: 3:5: …`, `--[
            // FAILURE: @acme/dates ]--` over an echoed command and `src/a.ts(10,22): error
            // …`), is their heading, no failure of its own.
            if heads_findings(lines, &findings, &found) {
                for c in &mut covered[found.start..found.start + found.lines.len()] {
                    *c = true;
                }
                continue;
            }
            for c in &mut covered[found.start..found.start + found.lines.len()] {
                *c = true;
            }
            blocks.push(from_found(found));
        }
        for i in segments.listings {
            covered[i] = true;
        }
    }
    // Generic windows around the remaining anchors.
    let windows = crate::anchor::windows(lines, &covered, pace)?;
    for (s, e, mut a, _) in windows {
        pace.step()?;
        a.dedup();
        let (kept, omitted) = capped(&lines[s..=e]);
        blocks.push(finish(kept, s + 1, omitted, a));
    }
    pace.now()?;
    Ok(blocks)
}

/// Reports a run closes with, each naming its test on a line of its own right above it or as
/// its first line (`Error #1:` over `Cart ➞ counts` over what went wrong), beside the short rows
/// that marked those tests failed as they ran (`Cart ➞ counts ✘`): each report takes its
/// test's name, and the row, its listing, goes. Linear: the rows' names are looked up in a map.
fn named_by_their_rows(mut blocks: Vec<FailureBlock>, lines: &[String]) -> Vec<FailureBlock> {
    let rows: std::collections::HashMap<String, usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.lines.len() <= 2)
        .filter_map(|(i, b)| Some((b.test_name.clone()?, i)))
        .collect();
    if rows.is_empty() {
        return blocks;
    }
    let mut gone = vec![false; blocks.len()];
    for i in 0..blocks.len() {
        let b = &blocks[i];
        if b.test_name.is_some() || b.message.is_none() {
            continue;
        }
        // (The name alone on its line at the margin, right above the report or as its first
        // line: a list of names indented under a heading, `failures:`, is a listing.)
        let above = b.start.checked_sub(2).and_then(|k| lines.get(k));
        let row = above
            .into_iter()
            .chain(b.lines.first())
            .filter(|l| !l.starts_with(char::is_whitespace))
            .find_map(|l| {
                rows.get(l.trim_end())
                    .copied()
                    .filter(|&k| !gone[k] && k != i)
            });
        if let Some(k) = row {
            gone[k] = true;
            blocks[i].test_name = blocks[k].test_name.clone();
        }
    }
    let mut gone = gone.into_iter();
    blocks.retain(|_| !gone.next().unwrap_or(false));
    blocks
}

/// `blocks` without the short rows that recite a report: its message (`✘ TypeError Cannot read
/// properties of undefined` under the report whose message is `TypeError: Cannot read
/// properties of undefined`), a closing list of what failed; or its test's name, the end of the
/// report's own (`✗ (1) keeps quoted commas` in a tree over `1) Failure: CSV keeps quoted
/// commas` and its report), with the row's ordinal left out; or a file whose failures the
/// reports name (`Done: suites/auth.yml (Failed)`). No failures of their own.
/// Compared by letters and digits alone; linear, the messages and the names' ends (eight words
/// at most) looked up in sets.
fn without_recited(blocks: Vec<FailureBlock>) -> Vec<FailureBlock> {
    let key = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let said: std::collections::HashSet<String> = blocks
        .iter()
        .filter(|b| b.lines.len() > 1 && b.test_name.is_some())
        .filter_map(|b| b.message.as_deref()?.lines().next().map(key))
        .filter(|k| k.len() >= 8)
        .collect();
    let reported: std::collections::HashSet<String> = blocks
        .iter()
        .filter(|b| b.lines.len() > 2)
        .filter_map(|b| b.test_name.as_deref())
        .flat_map(|name| {
            let words: Vec<&str> = name.split_whitespace().collect();
            (words.len().saturating_sub(8)..words.len().saturating_sub(1))
                .map(move |k| key(&words[k..].join(" ")))
                .collect::<Vec<_>>()
        })
        .collect();
    // (Files the reports name beside their tests, `login responds (suites/a.yml)`: a row that
    // names one of them, `Done: suites/a.yml (Failed)`, is that file's status, its failures
    // reported. A report named by the file alone is a finding in it, as the row may be.)
    let file = |t: &str| -> Option<String> {
        let t = t.trim_matches(|c: char| "()[]{}<>,;:\"'`".contains(c));
        (t.contains('/')
            && !t.contains(char::is_whitespace)
            && t.rsplit('/').next().is_some_and(|base| base.contains('.')))
        .then(|| t.to_owned())
    };
    let files: std::collections::HashSet<String> = blocks
        .iter()
        .filter(|b| b.lines.len() > 2)
        .filter_map(|b| b.test_name.as_deref())
        .filter(|name| file(name).is_none())
        .flat_map(|name| name.split_whitespace().filter_map(file).collect::<Vec<_>>())
        .collect();
    if said.is_empty() && reported.is_empty() && files.is_empty() {
        return blocks;
    }
    blocks
        .into_iter()
        .filter(|b| {
            let Some(name) = b.test_name.as_deref() else {
                return true;
            };
            let recites = b.lines.len() == 1 && said.contains(&key(name));
            let unnumbered = crate::text::without_ordinal(name);
            let lists = b.lines.len() <= 2
                && unnumbered.split_whitespace().count() >= 2
                && reported.contains(&key(unnumbered));
            // (Nothing under the row but counts: a block the run's summary closes.)
            let status = b.lines.split_first().is_some_and(|(first, under)| {
                under
                    .iter()
                    .all(|l| l.trim().is_empty() || crate::stated::states_counts(l))
                    && first
                        .split_whitespace()
                        .filter_map(file)
                        .any(|f| files.contains(&f))
                    // (The file and its status, two words at most: a row naming a test of
                    // its own, `test src/lib.rs - wrap ... FAILED`, stays.)
                    && first
                        .split_whitespace()
                        .filter(|w| file(w).is_none() && w.chars().any(char::is_alphabetic))
                        .count()
                        <= 2
            });
            !(recites || lists || status)
        })
        .collect()
}

/// `rest` without the one-line status rows that only list a failure a runner's parser reported
/// in full (`✕ Get one book` in a summary, over `● catalogue › Get one book` and its
/// report): a row whose name is the leaf of a reported name is its listing, no failure of its
/// own. Linear: the reported leaves are looked up in a set.
fn without_listed(rest: Vec<FailureBlock>, reported: &[FailureBlock]) -> Vec<FailureBlock> {
    let leaves: std::collections::HashSet<&str> = reported
        .iter()
        .filter_map(|b| b.test_name.as_deref())
        .map(crate::discover::leaf_of)
        .filter(|leaf| leaf.chars().count() >= 4)
        .collect();
    if leaves.is_empty() {
        return rest;
    }
    rest.into_iter()
        .filter(|b| {
            let listed = b.lines.len() == 1
                && b.test_name
                    .as_deref()
                    .is_some_and(|n| leaves.contains(crate::discover::leaf_of(n)));
            !listed
        })
        .collect()
}

/// Whether `found` only heads findings read before it: a header, at most a few lines that say
/// nothing went wrong (an echoed command), then a finding.
fn heads_findings(
    lines: &[String],
    findings: &std::collections::HashSet<usize>,
    found: &crate::found::Found,
) -> bool {
    let mut next = found.start + found.lines.len();
    while lines.get(next).is_some_and(|l| l.trim().is_empty()) {
        next += 1;
    }
    // (A test's report whose message starts with a place, `spec/a.lua:8: Expected objects to
    // be equal.` under its name, heads no tool's findings: those say their severity, or sit
    // under a header that names their file.)
    let severe = lines.get(next).is_some_and(|l| {
        l.split(|c: char| !c.is_alphanumeric())
            .any(|w| crate::diagnostics::severity_word(w).is_some())
    });
    let on_file = found.lines.len() == 1
        && found.name.as_deref().is_some_and(|name| {
            crate::diagnostics::path_like(name)
                && lines
                    .get(next)
                    .is_some_and(|l| l.trim_start().starts_with(name))
        });
    found.lines.len() <= 4
        && findings.contains(&next)
        && (severe || on_file)
        && !found.lines[1..]
            .iter()
            .any(|l| crate::line::message_like(l))
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;

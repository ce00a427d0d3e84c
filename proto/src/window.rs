//! Input larger than a request carries, reduced in one pass with bounded memory: the head, the
//! lines that look like failures with some context, and the tail (where a CI log's failures
//! usually are), with one marker line for each stretch left out. The CLI applies it to stdin and
//! the daemon to an input file, so a log of any size is triaged rather than refused.

use std::collections::VecDeque;
use std::io::BufRead;

/// Bytes of input a request carries at most (5 MiB).
pub const MAX_INPUT_BYTES: usize = 5_242_880;
/// Lines a reduced input keeps at most.
pub const MAX_LINES: usize = 200_000;
/// Bytes of the beginning kept.
const HEAD_BYTES: usize = 512 * 1024;
/// Bytes of failure-looking lines (with context) kept from the middle.
const MARKED_BYTES: usize = 1536 * 1024;
/// Bytes kept in all, leaving room for the marker lines.
const KEPT_BYTES: usize = MAX_INPUT_BYTES - 64 * 1024;
/// Stretches left out between kept lines in the middle at most (each costs a marker line).
const MAX_GAPS: usize = 400;
/// Context lines kept around a failure-looking line in the middle.
const CONTEXT: usize = 12;
/// How a marker line for omitted input begins.
pub const OMITTED_PREFIX: &str = "[stanley: omitted ";

/// Whether a line looks like part of a failure report (the CLI knows no runner; this is a
/// broad net, and the daemon's parser decides).
fn looks_like_failure(line: &str) -> bool {
    const MARKS: &[&str] = &[
        "FAIL",
        "Error",
        "ERROR",
        "error:",
        "panicked",
        "panic:",
        "Traceback",
        "✖",
        "✕",
        "×",
        "●",
        "not ok",
        "Exception",
        "assert",
        "E   ",
        "failed",
        "FAILED",
    ];
    MARKS.iter().any(|m| line.contains(m))
}

/// What the reduction kept and left out.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reduced {
    /// The kept text, with a marker line where input was left out.
    pub text: String,
    /// Lines and bytes left out.
    pub omitted_lines: usize,
    pub omitted_bytes: usize,
    /// Lines and bytes read.
    pub total_lines: usize,
    pub total_bytes: usize,
}

fn marker(from: usize, to: usize) -> String {
    format!(
        "{OMITTED_PREFIX}lines {from}-{to} ({} lines) to fit the {MAX_INPUT_BYTES}-byte input limit]",
        to + 1 - from
    )
}

/// Reads `input` to its end, keeping at most about [`MAX_INPUT_BYTES`] and [`MAX_LINES`]; the
/// whole input when it fits. Memory stays bounded by the kept amount, whatever the input size.
pub fn reduce(mut input: impl BufRead) -> std::io::Result<Reduced> {
    let mut head: Vec<String> = Vec::new();
    let mut head_bytes = 0usize;
    // (1-based line number, text)
    let mut middle: Vec<(usize, String)> = Vec::new();
    let mut middle_bytes = 0usize;
    let mut tail: VecDeque<(usize, String)> = VecDeque::new();
    let mut tail_bytes = 0usize;
    // Lines dropped from the tail's front, waiting to be kept as context after a mark.
    let mut recent: VecDeque<(usize, String)> = VecDeque::new();
    let mut after_mark = 0usize;
    let mut gaps = 0usize;
    let (mut total_lines, mut total_bytes) = (0usize, 0usize);
    let mut in_head = true;
    let mut raw = Vec::new();
    let mut ends_with_newline = true;
    loop {
        raw.clear();
        let n = input.read_until(b'\n', &mut raw)?;
        if n == 0 {
            break;
        }
        total_bytes += n;
        ends_with_newline = raw.last() == Some(&b'\n');
        if ends_with_newline {
            raw.pop();
        }
        total_lines += 1;
        let line = String::from_utf8_lossy(&raw).into_owned();
        let size = line.len() + 1;
        if in_head && head_bytes + size <= HEAD_BYTES && head.len() < MAX_LINES / 10 {
            head_bytes += size;
            head.push(line);
            continue;
        }
        in_head = false;
        tail_bytes += size;
        tail.push_back((total_lines, line));
        // Lines leaving the tail window: keep the failure-looking ones and their context.
        while head_bytes + middle_bytes + tail_bytes > KEPT_BYTES || tail.len() > MAX_LINES * 7 / 10
        {
            let Some((n, old)) = tail.pop_front() else {
                break;
            };
            tail_bytes -= old.len() + 1;
            let room = middle_bytes + old.len() < MARKED_BYTES
                && middle.len() < MAX_LINES / 5
                && gaps < MAX_GAPS;
            if looks_like_failure(&old) && room {
                let first = recent.front().map_or(n, |(m, _)| *m);
                if middle.last().is_none_or(|(m, _)| m + 1 != first) {
                    gaps += 1;
                }
                for (m, ctx) in recent.drain(..) {
                    middle_bytes += ctx.len() + 1;
                    middle.push((m, ctx));
                }
                middle_bytes += old.len() + 1;
                middle.push((n, old));
                after_mark = CONTEXT;
            } else if after_mark > 0 && room {
                after_mark -= 1;
                middle_bytes += old.len() + 1;
                middle.push((n, old));
            } else {
                recent.push_back((n, old));
                if recent.len() > CONTEXT {
                    recent.pop_front();
                }
            }
        }
    }
    let kept = head.len() + middle.len() + tail.len();
    let mut out = Reduced {
        total_lines,
        total_bytes,
        omitted_lines: total_lines - kept,
        ..Reduced::default()
    };
    let mut text = String::with_capacity(head_bytes + middle_bytes + tail_bytes + 256);
    let mut next = 1usize;
    let numbered = head
        .iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .chain(middle.iter().chain(tail.iter()).map(|(n, l)| (*n, l)));
    for (n, line) in numbered {
        if n > next {
            text.push_str(&marker(next, n - 1));
            text.push('\n');
        }
        text.push_str(line);
        text.push('\n');
        next = n + 1;
    }
    if next <= total_lines {
        text.push_str(&marker(next, total_lines));
        text.push('\n');
    } else if !ends_with_newline {
        text.pop();
    }
    out.omitted_bytes = total_bytes.saturating_sub(head_bytes + middle_bytes + tail_bytes);
    out.text = text;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_line_too_long_to_keep_is_named() {
        let r = reduce(vec![b'a'; MAX_INPUT_BYTES + 1].as_slice()).unwrap();
        assert_eq!(
            r.text,
            format!(
                "{OMITTED_PREFIX}lines 1-1 (1 lines) to fit the {MAX_INPUT_BYTES}-byte input limit]\n"
            )
        );
    }

    #[test]
    fn input_that_fits_is_kept_whole() {
        let text = "one\ntwo\nFAIL three\n";
        let r = reduce(text.as_bytes()).unwrap();
        assert_eq!(r.text, text);
        assert_eq!((r.omitted_lines, r.total_lines), (0, 3));
    }

    #[test]
    fn a_large_log_keeps_its_head_failures_and_tail_within_the_limit() {
        let mut log = String::from("build started\n");
        for i in 0..400_000 {
            log.push_str(&format!("   Compiling crate{i} v1.0.0 (noise line)\n"));
            if i == 200_000 {
                log.push_str(
                    "thread 'tests::middle' panicked at src/lib.rs:3:5:\nmiddle failure\n",
                );
            }
        }
        log.push_str("---- tests::last stdout ----\nthread 'tests::last' panicked at src/lib.rs:9:1:\nlast failure\n");
        let r = reduce(log.as_bytes()).unwrap();
        assert!(r.text.len() <= MAX_INPUT_BYTES, "{}", r.text.len());
        assert!(r.text.lines().count() <= MAX_LINES);
        assert!(r.text.starts_with("build started\n"));
        assert!(r.text.contains("middle failure"));
        assert!(r.text.ends_with("last failure\n"));
        assert!(r.omitted_lines > 0);
        let markers = r
            .text
            .lines()
            .filter(|l| l.starts_with(OMITTED_PREFIX))
            .count();
        assert!(markers >= 1);
        assert_eq!(r.total_lines, log.lines().count());
    }
}

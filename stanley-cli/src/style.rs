//! Colour and bold for the report a person reads on a terminal (D-128). The daemon sends the
//! report as plain text in one fixed layout (D-127); the client only marks it up: the headline
//! and the section titles bold, `warn` yellow, `info` cyan, a failure's `✗` and `INCOMPLETE`
//! red, the Jev footer dim. Colour is on when standard output is a terminal, off with
//! `NO_COLOR` (any value but empty) or `TERM=dumb`, and on even through a pipe with
//! `CLICOLOR_FORCE` (any value but empty or `0`); `NO_COLOR` wins. On a terminal narrower than
//! the report's 100 columns, a longer line is cut at spaces to the terminal's width, its
//! continuation indented under it (D-170), so a message reads whole instead of being broken
//! mid-word by the terminal.

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};

use crate::output::Painted;
use stanley_proto::env::{CLICOLOR_FORCE, NO_COLOR, TERM};

const BOLD: Style = Style::new().bold();
const WARN: Style = AnsiColor::Yellow.on_default().bold();
const INFO: Style = AnsiColor::Cyan.on_default();
const BAD: Style = AnsiColor::Red.on_default().bold();
const DIM: Style = Style::new().dimmed();

/// Whether to colour standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint {
    on: bool,
    /// The terminal's width in columns, when standard output is one.
    columns: Option<usize>,
}

/// Below this width a terminal is taken as misreported, and lines are left as they are.
const NARROWEST: usize = 20;

/// The width of the terminal on standard output, when it is one and says.
fn stdout_columns() -> Option<usize> {
    let out = std::io::stdout();
    if !out.is_terminal() {
        return None;
    }
    let size = rustix::termios::tcgetwinsize(&out).ok()?;
    Some(usize::from(size.ws_col)).filter(|c| *c >= NARROWEST)
}

/// The choice from the environment's settings and whether the stream is a terminal.
fn choose(
    no_color: Option<OsString>,
    force: Option<OsString>,
    term: Option<OsString>,
    terminal: bool,
) -> bool {
    let set = |v: &Option<OsString>| v.as_ref().is_some_and(|v| !v.is_empty());
    if set(&no_color) {
        return false;
    }
    if set(&force) && force.as_deref() != Some("0".as_ref()) {
        return true;
    }
    if term.as_deref() == Some("dumb".as_ref()) {
        return false;
    }
    terminal
}

impl Paint {
    /// The choice for standard output.
    pub fn stdout() -> Self {
        Self {
            on: choose(
                std::env::var_os(NO_COLOR),
                std::env::var_os(CLICOLOR_FORCE),
                std::env::var_os(TERM),
                std::io::stdout().is_terminal(),
            ),
            columns: stdout_columns(),
        }
    }

    /// Plain text, whatever the environment says.
    pub fn off() -> Self {
        Self {
            on: false,
            columns: None,
        }
    }

    /// The report made printable ([`crate::output::printable`]) and marked up, or only made
    /// printable when colour is off.
    pub fn report(self, text: &str) -> Painted {
        let text = crate::output::printable(text);
        let text = match self.columns {
            Some(columns) => Cow::Owned(fit(&text, columns)),
            None => text,
        };
        if !self.on {
            return Painted::marked(text.into_owned());
        }
        let mut out = String::with_capacity(text.len() + 256);
        let (mut headline, mut footer) = (true, false);
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            footer |= line.starts_with("jev: ");
            if line.is_empty() {
                headline = false;
                out.push_str(line);
            } else if headline {
                paint(&mut out, BOLD, line);
            } else if footer {
                paint(&mut out, DIM, line);
            } else {
                mark_line(&mut out, line);
            }
        }
        Painted::marked(out)
    }
}

/// `text` with every line wider than `columns` cut at spaces into lines that fit, each
/// continuation indented four columns past its line's own indent (two when that leaves too
/// little room). A word wider than the room stays whole on its own line.
fn fit(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.chars().count() <= columns {
            out.push_str(line);
            continue;
        }
        let lead = line.len() - line.trim_start_matches(' ').len();
        let hang = if lead + 4 <= columns / 2 {
            lead + 4
        } else {
            lead.min(columns / 2)
        };
        let pad = " ".repeat(hang);
        let mut width = lead;
        out.push_str(&line[..lead]);
        let mut fresh = true;
        // Split at each space, as the daemon's wrap does, so the double spaces between a
        // report line's columns stay; only a break drops the spaces at its place.
        for word in line[lead..].split(' ') {
            if fresh && word.is_empty() && width == hang {
                continue;
            }
            let w = word.chars().count();
            if !fresh && width + 1 + w > columns {
                out.push('\n');
                out.push_str(&pad);
                width = hang;
                fresh = true;
            }
            if !fresh {
                out.push(' ');
                width += 1;
            }
            out.push_str(word);
            width += w;
            fresh = false;
        }
    }
    out
}

fn paint(out: &mut String, style: Style, text: &str) {
    out.push_str(&format!("{}{text}{}", style.render(), style.render_reset()));
}

/// One line after the headline: a finding's severity, a failure's mark, a section's title,
/// an incomplete coverage, the footer.
fn mark_line(out: &mut String, line: &str) {
    for (prefix, word, style) in [
        ("  warn  ", "warn", WARN),
        ("  info  ", "info", INFO),
        ("  ✗ ", "✗", BAD),
    ] {
        if let Some(rest) = line.strip_prefix(prefix) {
            let lead = &prefix[..prefix.find(word).unwrap_or(0)];
            let tail = &prefix[lead.len() + word.len()..];
            out.push_str(lead);
            paint(out, style, word);
            out.push_str(tail);
            out.push_str(rest);
            return;
        }
    }
    if line.starts_with("coverage: ") && line.contains("INCOMPLETE") {
        let (before, after) = line.split_once("INCOMPLETE").unwrap_or((line, ""));
        out.push_str(before);
        paint(out, BAD, "INCOMPLETE");
        out.push_str(after);
    } else if is_title(line) {
        paint(out, BOLD, line);
    } else {
        out.push_str(line);
    }
}

/// A section title: `failures:`, `left out:`, `ranked candidates:`.
fn is_title(line: &str) -> bool {
    line.ends_with(':')
        && line.starts_with(|c: char| c.is_ascii_lowercase())
        && !line[..line.len() - 1].contains(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &str) -> Option<OsString> {
        Some(OsString::from(v))
    }

    #[test]
    fn no_color_wins_and_force_reaches_a_pipe() {
        assert!(choose(None, None, None, true));
        assert!(!choose(None, None, None, false));
        assert!(!choose(os("1"), None, None, true));
        assert!(!choose(os("1"), os("1"), None, true));
        assert!(
            choose(os(""), None, None, true),
            "an empty NO_COLOR is unset"
        );
        assert!(choose(None, os("1"), None, false));
        assert!(!choose(None, os("0"), None, false));
        assert!(!choose(None, None, os("dumb"), true));
    }

    #[test]
    fn the_headline_titles_and_severities_are_marked() {
        let text = "review of x: 1 finding · complete\n\n  warn  src/a.rs:3  risk\n  info  b:1  \
                    note\n\nleft out:\n  parked 2\n\ncoverage: 3 · INCOMPLETE\n\njev: 1 request";
        let painted = Paint {
            on: true,
            columns: None,
        }
        .report(text)
        .as_str()
        .to_owned();
        assert!(painted.starts_with("\x1b[1mreview of x: 1 finding · complete\x1b[0m\n\n"));
        assert!(painted.contains("  \x1b[1m\x1b[33mwarn\x1b[0m  src/a.rs:3  risk"));
        assert!(painted.contains("  \x1b[36minfo\x1b[0m  b:1"));
        assert!(painted.contains("\x1b[1mleft out:\x1b[0m\n  parked 2"));
        assert!(painted.contains("\x1b[1m\x1b[31mINCOMPLETE\x1b[0m"));
        assert_eq!(Paint::off().report(text).as_str(), text);
        // What the report carries from a repository is escaped before it is painted.
        let hostile = Paint {
            on: true,
            columns: None,
        }
        .report("  warn  x\u{1b}]52;c;e\u{7}.rs:3  risk");
        assert!(
            hostile.as_str().contains("x\\u001b]52;c;e\\u0007.rs"),
            "{hostile:?}"
        );
        let plain = regex_free_strip(&painted);
        assert_eq!(plain, text);
    }

    #[test]
    fn a_narrow_terminal_gets_every_word_in_lines_that_fit() {
        let message = "    AssertionError: expected the session cookie to be renewed after the \
                       login, got KeyError('session') from the store at tests/test_login.py:41";
        let text = format!("triage: 1 failure\n\n  warn  src/a.rs:3  risk\n{message}");
        for columns in [40, 60, 80] {
            let fitted = fit(&text, columns);
            assert!(
                fitted.lines().all(|l| l.chars().count() <= columns),
                "{columns}: {fitted}"
            );
            let words = |t: &str| t.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
            assert_eq!(words(&fitted), words(&text), "no word lost or broken");
            // Short lines keep their column spacing; a continuation hangs under its line.
            assert!(fitted.contains("\n  warn  src/a.rs:3  risk\n"));
            let cont: Vec<&str> = fitted.lines().skip(4).collect();
            assert!(!cont.is_empty() && cont.iter().all(|l| l.starts_with("        ")));
        }
        assert_eq!(fit(&text, 200), text, "a wide terminal changes nothing");
        let long = format!("  {}", "x".repeat(50));
        assert_eq!(
            fit(&long, 30),
            long,
            "a word wider than the room stays whole"
        );
    }

    /// The text without its escape sequences.
    fn regex_free_strip(text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                for c in chars.by_ref() {
                    if c == 'm' {
                        break;
                    }
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}

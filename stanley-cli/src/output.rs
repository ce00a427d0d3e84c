//! Standard output that never panics: `outln!` and `out!` write and flush, and a failed write
//! ends the command at once. A closed pipe (`stanley ... | head`) ends it quietly with 141, as
//! Unix tools killed by SIGPIPE do; any other failure (`> /dev/full`) says so in one line on
//! stderr and exits 74, so a script never mistakes lost output for success.
//!
//! Terminal output is data: every text printed here, on either stream, goes through
//! [`printable`] first, so a file name, message or warning holding ESC, CR, BEL, an OSC
//! sequence or a bidirectional override is shown, never obeyed. The only escape sequences that
//! reach the terminal are the report's own colours, added by the painter to text it made
//! printable first, and written as a [`Painted`].

use std::borrow::Cow;
use std::io::Write;

/// Whether `c` would be obeyed by a terminal, or would hide or reorder what is shown: C0
/// controls but tab and line feed, DEL, C1 controls, the line and paragraph separators, and
/// every character of Unicode's general category Cf (format: direction marks and overrides,
/// zero-width characters, the soft hyphen, tag characters, invisible operators).
fn obeyed(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}') || format(c)
}

/// Unicode 16's general category Cf, as ranges.
fn format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// `text` with every character a terminal would obey written as a visible escape, the way JSON
/// writes it (`\r`, `\b`, `\f`, `\u001b`, `\u202e`): readable on a terminal, and a JSON
/// document stays the same document (those characters only occur inside its strings).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(obeyed) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // Above the first plane, JSON writes the UTF-16 pair, so a document stays one.
            c if obeyed(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

use stanley_proto::exit::Exit;

/// Writes `text` to stdout, made [`printable`], and flushes; on failure, reports it and exits.
pub fn write_stdout(text: &str) {
    write_raw(printable(text).as_bytes());
}

/// A report as the painter made it: printable text and the painter's own colour codes, the one
/// thing written to the terminal without [`printable`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Painted(String);

impl Painted {
    /// Text the painter made printable and then marked up; only the painter builds one.
    pub(crate) fn marked(text: String) -> Self {
        Self(text)
    }

    /// The text with its colour codes.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Writes a report the painter marked up (its text already made printable) to stdout.
pub fn write_painted(painted: &Painted) {
    write_raw(painted.as_str().as_bytes());
}

fn write_raw(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        drop(out);
        fail(&e);
    }
}

/// Writes `text` to stderr, made [`printable`]; a closed or full stderr loses it.
pub fn write_stderr(text: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(printable(text).as_bytes());
}

fn fail(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(i32::from(Exit::BrokenPipe.code()));
    }
    let program = std::env::args_os()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "stanley".to_owned());
    let _ = writeln!(
        std::io::stderr(),
        "{program}: output error: cannot write to standard output: {e}"
    );
    std::process::exit(i32::from(Exit::Output.code()));
}

/// `println!` for standard output that reports a failed write instead of panicking.
#[macro_export]
macro_rules! outln {
    () => { $crate::output::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}

/// `print!` for standard output that reports a failed write instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!($($arg)*)) };
}

/// `eprintln!` that never panics: a closed or full stderr loses the line, nothing else.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => { $crate::output::write_stderr(&format!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::output::write_stderr(&format!($($arg)*)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_terminal_would_obey_is_shown_not_obeyed() {
        // OSC 52 (write the clipboard), CR and erase-line (rewrite the line), BEL, a C1 CSI,
        // and a right-to-left override, as a committed file name can hold them.
        let name = "src/\u{1b}]52;c;ZXZpbA==\u{7}a.rs\r\u{1b}[2Kok \u{9b}31m \u{202e}fdp.exe\u{8}\u{c}\u{7f}";
        let shown = printable(name);
        assert_eq!(
            shown,
            "src/\\u001b]52;c;ZXZpbA==\\u0007a.rs\\r\\u001b[2Kok \\u009b31m \\u202efdp.exe\\b\\f\\u007f"
        );
        assert!(!shown.chars().any(obeyed));
        assert!(matches!(
            printable("plain\tline\nnext ✓ é"),
            Cow::Borrowed(_)
        ));
        // Invisible marks that hide or reorder text: the Arabic letter mark, separators, tag
        // characters, the word joiner, a deprecated format control, the soft hyphen.
        let hidden = "a\u{061c}b\u{2028}c\u{E0041}\u{2060}\u{206e}\u{ad}d";
        assert_eq!(
            printable(hidden),
            "a\\u061cb\\u2028c\\udb40\\udc41\\u2060\\u206e\\u00add"
        );
        // A JSON document stays the same document.
        let doc = serde_json::json!({"path": "a\u{9b}b\u{202e}c\u{1b}\u{E0041}"}).to_string();
        let back: serde_json::Value = serde_json::from_str(&printable(&doc)).unwrap();
        assert_eq!(back["path"], "a\u{9b}b\u{202e}c\u{1b}\u{E0041}");
    }
}

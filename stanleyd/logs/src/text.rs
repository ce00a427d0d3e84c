//! Text as logs carry it: escape sequences taken off, volatile parts normalized, the places
//! (`path:line`) lines name, and the notes a client or the daemon put in place of left-out input.

/// How a line the client or daemon put in place of left-out input begins (the reduction in
/// `stanley_proto::window` writes it).
pub const OMITTED_PREFIX: &str = "[stanley: omitted ";

/// The left-out stretches an input's marker lines announce.
/// Up to three stretches are named one by one; more are summed up in one line.
pub fn left_out(text: &str) -> Vec<String> {
    let markers: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(OMITTED_PREFIX))
        .collect();
    if markers.len() <= 3 {
        return markers
            .iter()
            .map(|rest| {
                format!(
                    "input {}; failures in them were not triaged",
                    rest.trim_end_matches(']')
                        .replace(" to fit the ", " were left out to fit the ")
                )
            })
            .collect();
    }
    // `lines A-B (N lines) to fit the L-byte input limit]`
    let parse = |rest: &str| -> Option<(usize, usize, usize)> {
        let range = rest.strip_prefix("lines ")?.split(' ').next()?;
        let (a, b) = range.split_once('-')?;
        let n = rest.split('(').nth(1)?.split(' ').next()?;
        Some((a.parse().ok()?, b.parse().ok()?, n.parse().ok()?))
    };
    let parsed: Vec<(usize, usize, usize)> = markers.iter().filter_map(|m| parse(m)).collect();
    let limit = markers[0]
        .split(" to fit the ")
        .nth(1)
        .map_or("input limit", |l| l.trim_end_matches(']'));
    let first = parsed.iter().map(|p| p.0).min().unwrap_or(0);
    let last = parsed.iter().map(|p| p.1).max().unwrap_or(0);
    let lines: usize = parsed.iter().map(|p| p.2).sum();
    vec![format!(
        "input lines were left out in {} stretches ({lines} lines in all, between lines {first} and {last}) to fit the {limit}; failures in them were not triaged",
        markers.len()
    )]
}

/// `text` as a terminal shows it where a line moves the cursor up one line and erases it
/// (`ESC [ 1 A` then `ESC [ K`, a progress line redrawn by the next one): the line it erased is
/// blank, so the lines keep their numbers. Linear; `text` itself when nothing is redrawn.
pub(crate) fn redrawn(text: &str) -> std::borrow::Cow<'_, str> {
    const UP: [&str; 2] = ["\u{1b}[1A", "\u{1b}[A"];
    const ERASE: [&str; 4] = ["\u{1b}[K", "\u{1b}[0K", "\u{1b}[2K", "\u{1b}[1K"];
    if !UP.iter().any(|u| text.contains(u)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let erases = |line: &str| {
        UP.iter().any(|u| {
            line.strip_prefix(u)
                .is_some_and(|rest| ERASE.iter().any(|e| rest.starts_with(e)))
        })
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let erased = lines.get(i + 1).is_some_and(|next| erases(next));
        if !erased {
            out.push_str(line);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Removes ANSI escape sequences (CSI, and OSC, APC, DCS and PM strings).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                let mut params = String::new();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        // Moving the cursor to the first column (`ESC [ 1 G`, as bats' pretty
                        // formatter redraws a line) is a carriage return.
                        if d == 'G' && matches!(params.as_str(), "" | "1") {
                            out.push('\r');
                        }
                        break;
                    }
                    params.push(d);
                }
            }
            // OSC, and the string sequences APC (Buildkite's timestamps), DCS, PM and SOS: up
            // to BEL or ST.
            Some(']' | '_' | 'P' | '^' | 'X') => {
                chars.next();
                while let Some(d) = chars.next() {
                    if d == '\u{7}' {
                        break;
                    }
                    // ST is two characters, `ESC \`: both end the string.
                    if d == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Any other escape: intermediate bytes (` ` to `/`, as in `ESC ( B`, which selects a
            // character set), then one final byte.
            _ => {
                while chars.peek().is_some_and(|d| (' '..='/').contains(d)) {
                    chars.next();
                }
                chars.next();
            }
        }
    }
    out
}

/// A `path.ext:line[:col]` or `File "path", line N` location in a line.
pub(crate) fn location_in(line: &str) -> Option<(String, u64)> {
    if let Some(rest) = line.trim_start().strip_prefix("File \"")
        && let Some((path, tail)) = rest.split_once("\", line ")
    {
        let n: String = tail.chars().take_while(char::is_ascii_digit).collect();
        return n.parse().ok().map(|n| (path.to_owned(), n));
    }
    // `path, line N` (bats: `(in test file t/a.bats, line 19)`) and `path line N.` (Perl:
    // `at t/a.t line 8.`, PHP: `in a.php on line 3`).
    for marker in [", line ", " on line ", " line "] {
        if let Some((before, after)) = line.split_once(marker) {
            let n: String = after.chars().take_while(char::is_ascii_digit).collect();
            let path = before
                .rsplit(|c: char| c.is_whitespace() || c == '(')
                .next()
                .unwrap_or("")
                .trim_matches(|c| c == '\'' || c == '"');
            let ext_ok = path.contains('.')
                && path.rsplit('.').next().is_some_and(|e| {
                    !e.is_empty() && e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric())
                });
            if ext_ok && let Ok(n) = n.parse::<u64>() {
                return Some((path.to_owned(), n));
            }
        }
    }
    for raw in line.split(|c: char| c.is_whitespace() || "()[]<>'\",".contains(c)) {
        let token = raw.trim_end_matches(':');
        let mut parts = token.splitn(3, ':');
        let (Some(path), Some(num)) = (parts.next(), parts.next()) else {
            continue;
        };
        let path = path.strip_prefix("file://").unwrap_or(path);
        if path.starts_with("http")
            || path.starts_with("node:")
            || raw.contains("://")
            || !path.contains('.')
            || path.ends_with('.')
            || is_host(path)
        {
            continue;
        }
        let ext_ok = path.rsplit('.').next().is_some_and(|e| {
            !e.is_empty() && e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if ext_ok && let Ok(n) = num.parse::<u64>() {
            return Some((path.to_owned(), n));
        }
    }
    None
}

/// Whether `text` before a `:port` names a network host rather than a file (issue 49:
/// `connect ECONNREFUSED 127.0.0.1:9` is no place in the repository): a dotted address, a name
/// whose last part is all digits, or a bare name in a network domain.
pub fn is_host(text: &str) -> bool {
    const NETWORK: [&str; 8] = [
        "com",
        "org",
        "net",
        "local",
        "localhost",
        "internal",
        "lan",
        "localdomain",
    ];
    let last = text.rsplit('.').next().unwrap_or("");
    if last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    (!text.contains('/') && NETWORK.contains(&last.to_ascii_lowercase().as_str()))
        || text.eq_ignore_ascii_case("localhost")
}

/// Lowercases and replaces volatile parts (hex, quoted strings, durations, digits).
pub fn normalize(text: &str) -> String {
    let lower = text.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    let chars: Vec<char> = lower.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '0' && chars.get(i + 1) == Some(&'x') {
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            out.push('h');
            i = j;
            continue;
        }
        if c.is_ascii_hexdigit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let mut j = i;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            let run = j - i;
            let has_digit = chars[i..j].iter().any(char::is_ascii_digit);
            let has_alpha = chars[i..j].iter().any(|c| c.is_ascii_alphabetic());
            if (7..=40).contains(&run)
                && has_digit
                && has_alpha
                && (j == chars.len() || !chars[j].is_ascii_alphanumeric())
            {
                out.push('h');
                i = j;
                continue;
            }
        }
        if (c == '"' || c == '\'' || c == '`')
            && let Some(end) = chars[i + 1..].iter().position(|d| *d == c)
        {
            out.push('s');
            i += end + 2;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let rest: String = chars[j..].iter().take(3).collect();
            let rest = rest.trim_start();
            if rest.starts_with("ms")
                || (rest.starts_with('s') && !rest[1..].starts_with(|c: char| c.is_alphabetic()))
            {
                let unit = if rest.starts_with("ms") { 2 } else { 1 };
                let skip = chars[j..].iter().take_while(|c| c.is_whitespace()).count();
                out.push('d');
                i = j + skip + unit;
                continue;
            }
            out.push('n');
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    one_spaced(&out)
}

/// `text` with each run of whitespace one space, and none at its ends.
pub(crate) fn one_spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

/// Whether a stack location is the runner's or a dependency's, not the project's.
pub fn foreign_frame(path: &str) -> bool {
    [
        "/usr/lib/",
        "/usr/local/lib/",
        "site-packages",
        "dist-packages",
        "/.cargo/registry",
        "/rustc/",
        "node_modules",
        "internal/",
        "/go/src/",
        "<frozen",
    ]
    .iter()
    .any(|m| path.contains(m))
}

/// Whether `s` is a whole number written in digits (`12`; not `1.5`, not ``).
pub(crate) fn whole_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The whole number `s` starts with, and what follows it (`15, column 9` gives 15).
pub(crate) fn leading_number(s: &str) -> Option<(u64, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

/// `text` with every run of digits as one `0`: the shape lines of one template, one summary or
/// one stream label share (`#12 0.345` and `#3 1.2` alike).
pub(crate) fn digits_masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digit = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !digit {
                out.push('0');
            }
            digit = true;
        } else {
            out.push(c);
            digit = false;
        }
    }
    out
}

/// A file's path with an extension (`src/a.test.ts`, `openapi.yaml`, `q4.sgml`): a path as
/// tools print it whose last name ends in a dot and one to five letters or figures, a letter
/// among them (not a version, `3.11`, nor an address inside a document, `paths./a.get.0`).
pub(crate) fn file_with_extension(p: &str) -> bool {
    path_like(p)
        && p.rsplit('/')
            .next()
            .and_then(|name| name.rsplit_once('.'))
            .is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
                    && ext.chars().any(|c| c.is_ascii_alphabetic())
            })
}

/// What a list's item says after its bullet (`- `, `* `, `• `) at the start of `t`, if it is one.
pub(crate) fn bulleted(t: &str) -> Option<&str> {
    ["- ", "* ", "• "].iter().find_map(|b| t.strip_prefix(b))
}

/// A path as tools print it: no spaces, not a URL, a file name with an extension, or one
/// without that is a folder's (`bin/check`) or named for what it holds (`Dockerfile`,
/// `Makefile`, `Justfile`).
pub(crate) fn path_like(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 400
        && !p.contains(char::is_whitespace)
        && !p.contains("://")
        && !p.starts_with('-')
        // (A term of braces and bars, `{assert,[{module,...}|...]}`, is a value, no path.)
        && !p.contains(['{', '}', '|'])
        && p.rsplit('/').next().is_some_and(|name| {
            // (Figures and dots alone are a version or a number, `3.11.7`, no file's name.)
            let extended = name.contains('.')
                && name.chars().any(char::is_alphanumeric)
                && !name.chars().all(|c| c.is_ascii_digit() || c == '.');
            let bare = name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            extended
                || bare
                    && (p.contains('/')
                        || name.len() > 4 && name.to_ascii_lowercase().ends_with("file"))
        })
}

/// A test's row numbered after its verdict word (`fail 4 - name (1ms)`, `pass 3 - name`, as
/// TAP numbers `not ok 4 - name`): (the verdict in lower case, what follows the dash). One
/// reading for the header (`line::numbered_fail`), its passing siblings and the stated counts.
pub(crate) fn numbered_row(t: &str) -> Option<(String, &str)> {
    let (word, rest) = t.trim_start().split_once(' ')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let named = rest[digits..].strip_prefix(" - ").filter(|_| digits > 0)?;
    Some((word.to_ascii_lowercase(), named))
}

/// The marks a runner puts beside a failed test's name (`✗ name`, `name: ☓`).
pub(crate) const FAILURE_MARKS: [&str; 8] = ["✗", "✘", "✕", "×", "✖", "☓", "❌", "💥"];

/// A row's name without the ordinal it opens with (`(1) `, `1) `, `1. `, `#1 `, `[1] `).
pub(crate) fn without_ordinal(name: &str) -> &str {
    let t = name.trim_start();
    let open = t.strip_prefix(['(', '[', '#']).unwrap_or(t);
    let digits = open.len() - open.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return name;
    }
    let rest = &open[digits..];
    match rest
        .strip_prefix([')', ']', '.'])
        .or_else(|| t.starts_with('#').then_some(rest))
    {
        Some(rest) if rest.starts_with(' ') => rest.trim_start(),
        _ => name,
    }
}

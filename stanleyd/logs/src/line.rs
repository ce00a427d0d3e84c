//! The vocabulary of a log's lines that every reader shares: what a status line names, what
//! reads as a message and where it ends, separators and decoration, closing summaries, and the
//! messages runners print in their own shapes (panics, Go's logged lines).

/// Most lines a message keeps.
pub(crate) const MAX_MESSAGE_LINES: usize = 12;

/// Most characters a message keeps.
pub(crate) const MAX_MESSAGE_CHARS: usize = 1200;

pub(crate) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Tree and box-drawing decoration some runners draw before a line's text.
pub(crate) fn undecorated(line: &str) -> &str {
    line.trim_start_matches(|c: char| c.is_whitespace() || "│├└┌┐┘┬┴┼─╷╵".contains(c))
}

/// Decoration a runner draws around a header or across a line (`──── name ────`, `=== x ===`).
pub(crate) const RULE: &str = "=-_─━═~*#.│├└┌┐┘┬┴┼╷╵";

/// A character that can draw a rule: the usual ones, any box-drawing or block character, and
/// any dash or bar (`―`, `—`, `⎯`), whatever a runner picked.
pub(crate) fn rule_char(c: char) -> bool {
    RULE.contains(c)
        || ('\u{2500}'..='\u{259F}').contains(&c)
        || ('\u{2010}'..='\u{2015}').contains(&c)
        || matches!(c, '\u{23AF}' | '\u{2E3A}' | '\u{2E3B}')
}

/// A token that only draws: two or more of the usual rule characters, or three or more of any
/// one character that is neither a letter, a digit nor a bracket (`――――`, `>>>>`, `^^^`
/// excepted: a caret under source marks a column, and is kept out by callers that need it).
pub(crate) fn rule_token(token: &str) -> bool {
    let mut chars = token.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let n = token.chars().count();
    if n >= 2 && token.chars().all(rule_char) {
        return true;
    }
    n >= 3
        && !first.is_alphanumeric()
        && !first.is_whitespace()
        && !"()[]{}<>\"'`".contains(first)
        && chars.all(|c| c == first)
}

/// A line of separator characters only (`=====`, `-----`, `_____`, `─────`, `――――`), or of one
/// such character spaced out (`- - - - -`).
pub(crate) fn separator(line: &str) -> bool {
    let t = line.trim();
    if t.chars().count() >= 10 && t.chars().all(rule_char) {
        return true;
    }
    let mut chars = t.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    rule_char(first)
        && first != ' '
        && t.chars().count() >= 19
        && t.chars()
            .enumerate()
            .all(|(k, c)| if k % 2 == 0 { c == first } else { c == ' ' })
}

/// A duration or count suffix runners print after a name: ` (0.00s)`, ` (12 ms)`, ` [0.1s]`.
pub(crate) fn without_timing(name: &str) -> &str {
    let t = without_column(name.trim_end());
    // `JSON content type failed after 0.042s`: the verdict and its time after the name.
    if let Some((before, time)) = t.rsplit_once(" after ").or_else(|| t.rsplit_once(" in "))
        && duration(time)
        && let Some((named, verdict)) = before.rsplit_once(' ')
        && (failed_verdict(verdict) || matches!(verdict, "passed" | "succeeded" | "skipped"))
        && !named.trim().is_empty()
    {
        return named.trim_end();
    }
    for (open, close) in [(" (", ')'), (" [", ']')] {
        if let Some(at) = t.rfind(open)
            && t.ends_with(close)
        {
            let inner = &t[at + 2..t.len() - 1];
            let timing = inner.chars().any(|c| c.is_ascii_digit())
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || " .,:msµunhinsecSECRUNTIME".contains(c));
            // (A progress count, `(1 of 4)`, `(3/8)`, says when it ran as a time does.)
            let count = |sep: &str| {
                inner.split_once(sep).is_some_and(|(a, b)| {
                    crate::text::whole_number(a) && crate::text::whole_number(b)
                })
            };
            if timing || count(" of ") || count("/") {
                return t[..at].trim_end();
            }
        }
    }
    t
}

/// A name as shown: without the index of the worker that ran it, in braces before it (`{0}
/// a.b.test_x`, testr's and stestr's), and without a duration in brackets after it (`[0.0001s]`).
/// Only for the name a block shows: the readings compare names as their lines give them.
pub(crate) fn shown_name(name: &str) -> &str {
    let name = name
        .strip_prefix('{')
        .and_then(|r| r.split_once("} "))
        .filter(|(index, _)| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
        .map_or(name, |(_, rest)| rest.trim_start());
    match name.strip_suffix(']').and_then(|n| n.rsplit_once(" [")) {
        Some((before, timing)) if duration(timing) && !before.trim().is_empty() => {
            before.trim_end()
        }
        _ => name,
    }
}

/// Scopes a runner opens and closes as it runs its tree (`◌ yeast expiry` … `● yeast expiry ›
/// 7.6ms`): which lines close one, and the scope each line stands in.
pub(crate) struct Scopes {
    /// The lines that close a scope: they report nothing.
    pub(crate) closing: Vec<bool>,
    /// The innermost scope (its opening line) each line stands in.
    parent: Vec<Option<usize>>,
    /// The lines that open a scope closed below.
    opens: Vec<bool>,
}

impl Scopes {
    /// The titles of the scopes the line at `at` stands in (or opens), outermost first.
    pub(crate) fn path<'a>(&self, lines: &'a [String], at: usize) -> Vec<&'a str> {
        let mut titles = Vec::new();
        let mut p = if self.opens.get(at).copied().unwrap_or(false) {
            Some(at)
        } else {
            self.parent.get(at).copied().flatten()
        };
        while let Some(o) = p {
            if let Some((_, title)) = lines[o].trim().split_once(' ') {
                titles.push(title.trim());
            }
            p = self.parent[o];
        }
        titles.reverse();
        titles
    }
}

/// The scopes of `lines`: a marked title with its duration (`● yeast expiry › 7.6ms`) closes
/// the same title opened at the same depth with another mark (`◌ yeast expiry`). Linear in the
/// lines.
pub(crate) fn scopes(lines: &[String]) -> Scopes {
    let mut opened: std::collections::HashMap<(usize, &str), (&str, usize)> =
        std::collections::HashMap::new();
    let mut closing = vec![false; lines.len()];
    let mut opener_of: Vec<Option<usize>> = vec![None; lines.len()];
    let mut closed = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        let depth = line.len() - line.trim_start().len();
        let Some((mark, body)) = line.trim().split_once(' ') else {
            continue;
        };
        if mark.is_empty() || mark.chars().any(char::is_alphanumeric) {
            continue;
        }
        let body = body.trim();
        let timed = body
            .rsplit_once(" › ")
            .filter(|(_, d)| duration(d))
            .map(|(title, _)| title.trim_end())
            .or_else(|| Some(without_timing(body)).filter(|t| t.len() < body.len()));
        match timed {
            Some(title) => {
                if let Some(&(m, o)) = opened.get(&(depth, title))
                    && m != mark
                {
                    closing[i] = true;
                    opener_of[i] = Some(o);
                    closed[o] = true;
                }
            }
            None => {
                opened.insert((depth, body), (mark, i));
            }
        }
    }
    // The innermost open scope at each line: a stack of the openings that are closed.
    let mut parent = vec![None; lines.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..lines.len() {
        if let Some(o) = opener_of[i] {
            while let Some(top) = stack.pop() {
                if top == o {
                    break;
                }
            }
        }
        parent[i] = stack.last().copied();
        if closed[i] {
            stack.push(i);
        }
    }
    Scopes {
        closing,
        parent,
        opens: closed,
    }
}

/// Whether a word is a duration (`7.618357ms`, `2s`, `15 ms`).
pub(crate) fn duration(text: &str) -> bool {
    let t = text.trim();
    // (Micro as the micro sign or as the Greek letter mu: both are printed.)
    let figure = ["ms", "µs", "μs", "us", "ns", "s"]
        .iter()
        .find_map(|u| t.strip_suffix(u))
        .map(str::trim_end);
    figure.is_some_and(|f| !f.is_empty() && f.parse::<f64>().is_ok())
}

/// A name without the column a progress line pads to its end (`name          14%`, `name
/// 0.01s`): three spaces or more, then one figure (a share, a duration, a count).
pub(crate) fn without_column(name: &str) -> &str {
    let Some(at) = name.rfind("   ") else {
        return name;
    };
    let column = name[at..].trim();
    let figure = !column.is_empty()
        && !column.contains(' ')
        && column.starts_with(|c: char| c.is_ascii_digit())
        && column
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == '%' || c == 'µ');
    if figure { name[..at].trim_end() } else { name }
}

/// `short (dotted.path.short) rest`: the qualified form, as unittest and nose print it (a
/// subtest's parameters kept after it).
pub(crate) fn qualified(name: &str) -> String {
    if let Some((short, rest)) = name.split_once(" (")
        && let Some((inside, tail)) = rest.split_once(')')
        && !inside.contains(' ')
        && inside.ends_with(short.trim())
        && inside.len() > short.trim().len()
    {
        return format!("{inside}{tail}").trim().to_owned();
    }
    // `test_x (pkg.mod.Case)`: the class in parentheses, the test after it.
    let identifier = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some((short, rest)) = name.split_once(" (")
        && let Some(inside) = rest.strip_suffix(')')
        && identifier(short.trim())
        && inside.contains('.')
        && inside.split('.').all(identifier)
    {
        return format!("{inside}.{}", short.trim());
    }
    name.to_owned()
}

/// A name that is a qualified call (`Suite::test(tag)`, `pkg.Case.test()`) with what went
/// wrong after it on the same line, Qt Test's `FAIL!  : Units::inches() Compared doubles…`:
/// the call ends at its balanced closing parenthesis, and the words after it are the message.
/// `None` when the name is no such call or nothing reads as words after it.
pub(crate) fn call_then_said(name: &str) -> Option<(&str, &str)> {
    let t = name.trim();
    let open = t.find('(')?;
    let callee = &t[..open];
    let path_char = |c: char| c.is_alphanumeric() || "_:.#$<>~".contains(c);
    let qualified = ["::", ".", "#"].iter().any(|s| callee.contains(s))
        && callee.chars().all(path_char)
        && callee.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && callee.ends_with(|c: char| c.is_alphanumeric() || c == '_');
    if !qualified {
        return None;
    }
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in t[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let rest = &t[close + 1..];
    // The call stands alone as a word: a space follows it, then words.
    let said = rest.strip_prefix(' ')?.trim();
    (said.chars().filter(|c| c.is_alphabetic()).count() >= 3 && said.contains(' '))
        .then(|| (&t[..=close], said))
}

/// A name as runners decorate it, plain: `suite  "test"` (uvu) as `suite › test`, and a
/// parameter's description (`, where GetParam() = 5`) dropped.
pub(crate) fn plain(name: &str) -> String {
    let mut n = name.trim();
    if let Some(at) = n.find(", where ") {
        n = n[..at].trim_end();
    }
    if n.ends_with('"')
        && let Some(open) = n[..n.len() - 1].rfind("  \"")
        && !n[..open].contains('"')
    {
        let suite = n[..open].trim();
        let leaf = &n[open + 3..n.len() - 1];
        return if suite.is_empty() {
            leaf.to_owned()
        } else {
            format!("{suite} › {leaf}")
        };
    }
    // A name printed in quotes alone.
    if n.len() >= 2 && n.starts_with('"') && n.ends_with('"') && !n[1..n.len() - 1].contains('"') {
        return n[1..n.len() - 1].to_owned();
    }
    n.to_owned()
}

/// Counters runners print before a name: `2/7 Test  #2: `, `  2 - `.
pub(crate) fn without_counter(text: &str) -> &str {
    let t = text.trim_start();
    // A count in brackets before the name (`(09/16) name`, `[3/8] name`): a runner's progress.
    if let Some(inner) = t.strip_prefix(['(', '['])
        && let Some(close) = inner.find([')', ']'])
        && let Some((done, all)) = inner[..close].split_once('/')
        && !done.is_empty()
        && !all.is_empty()
        && done.chars().chain(all.chars()).all(|c| c.is_ascii_digit())
        && inner[close + 1..].starts_with(' ')
    {
        return inner[close + 1..].trim_start();
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(" - ") {
            return r;
        }
        if let Some(r) = rest.strip_prefix('/') {
            let d2 = r.chars().take_while(char::is_ascii_digit).count();
            let r = r[d2..].trim_start();
            if let Some(r) = r.strip_prefix("Test") {
                let r = r.trim_start().trim_start_matches('#');
                let d3 = r.chars().take_while(char::is_ascii_digit).count();
                if let Some(r) = r[d3..].strip_prefix(": ") {
                    return r;
                }
            }
        }
    }
    t
}

/// A progress line that counts the tests as they start (`3/8 suite.name...`, the outcome
/// after the dots or on the lines under it): the name and what follows the dots.
/// The count may stand in brackets after a list's mark (`- [0/2] test words split`), and then
/// the line may end at the name.
pub(crate) fn counted_start(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    let listed = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "));
    let bracketed = listed.unwrap_or(t).strip_prefix('[');
    let t = bracketed.unwrap_or(t);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let r = t[digits..].strip_prefix('/')?;
    let d2 = r.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || d2 == 0 {
        return None;
    }
    let r = &r[d2..];
    let r = match bracketed {
        Some(_) => r.strip_prefix("] ")?,
        None => r.strip_prefix(' ')?,
    };
    let (name, tail) = match r.split_once("...") {
        Some(pair) => pair,
        // (Without dots, only a listed, bracketed count: `[3/9] Building a.o` is a build's.)
        None if listed.is_some() && bracketed.is_some() => (r, ""),
        None => return None,
    };
    let name = name.trim();
    (name_like(name) && !name.contains("  ")).then(|| (name, tail.trim_start_matches('.').trim()))
}

/// Verdict words after a dot leader or in parentheses that say a test failed.
pub(crate) fn failed_verdict(word: &str) -> bool {
    let w = word.trim().trim_start_matches('*').trim_end_matches('*');
    let lower = w.to_ascii_lowercase();
    [
        "failed",
        "fail",
        "error",
        "errored",
        "exception",
        "subprocess aborted",
        "segfault",
        "timeout",
        "child aborted",
    ]
    .iter()
    .any(|v| {
        lower == *v
            || lower.strip_prefix(v).is_some_and(|r| r.starts_with(' '))
            || lower.strip_suffix(v).is_some_and(|r| r.ends_with("***"))
    }) || lower.contains("***failed")
        || lower.contains("***exception")
        || lower.contains("***timeout")
}

/// Whether a short phrase is built around a count of tests or runs (`After 24 test(s).`,
/// `passed 3 runs`): a verdict's words, no test's name.
pub(crate) fn counts_tests(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    // (A count may be a fraction of a total, `4/8 tests passed`.)
    let count = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            || w.split_once('/')
                .is_some_and(|(a, b)| crate::text::whole_number(a) && crate::text::whole_number(b))
    };
    words.len() <= 4
        && words.windows(2).any(|w| {
            count(w[0])
                && matches!(
                    w[1].trim_end_matches(['.', ',', ':']),
                    "test" | "tests" | "test(s)" | "run" | "runs" | "run(s)" | "assertions"
                    // (A build tool's tally, `...failed updating 2 target(s)...`.)
                    | "target" | "targets" | "target(s)" | "target(s)..." | "task" | "tasks"
                    | "task(s)" | "operation" | "operations" | "project" | "projects"
                )
        })
}

/// The test a diagnostic's message says failed (`Failure in LargeHarvest: Expected 40`,
/// `Failed in suite.case: ...`): one id after the phrase, closed by a colon.
pub(crate) fn failing_test_in(message: &str) -> Option<&str> {
    let t = message.trim();
    // After the severity the message may keep (`error: Failure in x: ...`).
    let t = ["error: ", "Error: ", "ERROR: "]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .unwrap_or(t);
    // `failed: pallets round up: pallets(90) == 3 for 2 == 3` after the place (lest's): the
    // test's description, then its expression.
    if let Some(rest) = t.strip_prefix("failed: ")
        && let Some((what, expr)) = rest.split_once(": ")
        && !expr.trim().is_empty()
        && what.split_whitespace().count() <= 12
        && !what.contains(['(', '"', '\''])
        && name_like(what)
    {
        return Some(what);
    }
    // `test_clamp_high:FAIL: Expected 30 Was 31` after the place (Unity's records): the test,
    // then its verdict.
    if let Some((id, "FAIL" | "FAILED" | "ERROR")) = record_verdict(t)
        && !id.is_empty()
        && name_like(id)
    {
        return Some(id);
    }
    let rest = [
        "Failure in ",
        "Failed in ",
        "failure in ",
        "failed in ",
        "FAILURE in ",
        "FAILED in ",
        "ERROR in ",
    ]
    .iter()
    .find_map(|p| t.strip_prefix(p))?;
    let rest = rest.strip_prefix("test ").unwrap_or(rest);
    let (id, _) = rest.split_once(':')?;
    (!id.is_empty() && !id.contains(char::is_whitespace) && name_like(id)).then_some(id)
}

/// Whether a diagnostic's message is a test's verdict that is no failure (`test_x:IGNORE:
/// rig not attached`, `test_y:PASS`, Unity's records).
pub(crate) fn passing_record(message: &str) -> bool {
    matches!(
        record_verdict(message.trim()),
        Some((_, "PASS" | "OK" | "IGNORE" | "SKIP" | "SKIPPED"))
    ) || closing_pass(message)
}

/// An assertion's row that closes on its passing verdict after what it checked (`3 == 3
/// ok`, `total is 5 ... passed`, beside `1 == 2 FAILED`): no finding.
fn closing_pass(message: &str) -> bool {
    let words: Vec<&str> = message.split_whitespace().collect();
    let last = *words.last().unwrap_or(&"");
    // (Or a group's heading with its progress so far, `word counting: ..`, `ports: .`: its
    // assertions are the rows under it.)
    let heading = words.len() >= 2
        && words[words.len() - 2].ends_with(':')
        && !last.is_empty()
        && last.chars().all(|c| c == '.');
    heading
        || words.len() >= 2 && matches!(last, "ok" | "OK" | "passed" | "PASSED" | "pass" | "PASS")
}

/// A test's record as Unity prints it after the place: `id:VERDICT` or `id:VERDICT: message`
/// (the id has no spaces).
fn record_verdict(t: &str) -> Option<(&str, &str)> {
    let (id, rest) = t.split_once(':')?;
    let verdict = rest.split(':').next()?;
    (!id.contains(char::is_whitespace)).then_some((id, verdict))
}

/// A test announced as it starts (`Testing beehive:prop_sort/0`, `=== RUN   TestAdd`,
/// `Running suite.case ...`): a starting verb and one id. The nearest one above a report that
/// names nothing names it.
pub(crate) fn announced(line: &str) -> Option<&str> {
    let t = line.trim().trim_start_matches(['=', ' ']);
    let (verb, rest) = t.split_once(char::is_whitespace)?;
    let verb = verb.trim_matches(['[', ']', ':']);
    if !matches!(
        verb,
        "Testing" | "Running" | "Checking" | "Starting" | "Executing" | "RUN" | "RUNNING"
    ) {
        return None;
    }
    let id = rest
        .trim()
        .trim_end_matches("...")
        .trim_end_matches(['.', ':'])
        .trim();
    (!id.is_empty() && !id.contains(char::is_whitespace) && name_like(id) && !counts_tests(t))
        .then_some(id)
}

/// Whether `name` reads as a test's name rather than a count or a sentence about the run.
pub(crate) fn name_like(name: &str) -> bool {
    let t = name.trim();
    if t.is_empty() || t.chars().count() > 300 {
        return false;
    }
    let first = t.split_whitespace().next().unwrap_or("");
    let counting = first.chars().all(|c| c.is_ascii_digit())
        && t.split_whitespace().nth(1).is_some_and(|w| {
            let w = w.to_ascii_lowercase();
            [
                "test", "tests", "spec", "specs", "example", "examples", "failed", "failures",
                "failure", "errors", "error", "of", "passed",
            ]
            .contains(&w.trim_end_matches([',', ':']))
        });
    // Nor a short phrase around a count of tests (`After 24 test(s)`, PropEr's verdict).
    let counted_within = counts_tests(t);
    // A run's time (`FAILED in 0.08 seconds`) is no test's name either.
    let timed = t
        .strip_prefix("in ")
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    // A file's progress marks (`test_vault.py EEEF.F.Fs.`) are no test's name.
    // Nor is one progress or verdict letter (`E`, `F`).
    let marks = |w: &str| w.chars().all(|c| ".FEfsSxX*".contains(c));
    let progress = (t.chars().count() == 1 && marks(t))
        || t.split_whitespace().count() > 1
            && t.split_whitespace()
                .last()
                .is_some_and(|w| w.len() >= 3 && w.contains('.') && marks(w));
    // A count of outcomes (`(failures=10)`, `6 problems`) is no test's name.
    !counting
        && !counted_within
        && !timed
        && !progress
        && !crate::stated::states_counts(t)
        && !t
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_punctuation())
}

/// A rule, a test, an upper-case verdict closing the line (`==== join-2.1 joins with comma
/// FAILED`, and under its report `==== join-2.1 FAILED`): an id first names the test by itself,
/// whatever description follows it. `Some` when the line has that shape (named or not).
fn rule_led(t: &str) -> Option<Option<String>> {
    let (lead, rest) = t.split_once(' ')?;
    if !rule_token(lead) {
        return None;
    }
    let body = [" FAILED", " FAIL", " ERROR"]
        .iter()
        .find_map(|v| rest.trim().strip_suffix(v))?
        .trim();
    // A kind and the name in quotes (`**** TEST 'suite :: a.t' FAILED ****`, lit's): the name.
    if let Some((kind, rest)) = body.split_once(' ')
        && kind.chars().all(|c| c.is_ascii_uppercase())
        && let Some(name) = quoted(rest.trim())
    {
        return Some(name_like(name).then(|| name.to_owned()));
    }
    let id = body.split_whitespace().next().unwrap_or("");
    let identified = body.contains(' ')
        && id
            .chars()
            .any(|c| c.is_ascii_digit() || "-.:_/".contains(c))
        && id
            .chars()
            .all(|c| c.is_alphanumeric() || "-.:_/".contains(c));
    let name = if identified { id } else { body };
    Some(name_like(name).then(|| name.to_owned()))
}

/// Test::More's diagnostic: `#   Failed test 'name'`, and its number before the name in TAP
/// producers that give one (`# Failed test 4: "sku is unique"`, pgTAP's).
fn more_failed_test(t: &str) -> Option<Option<String>> {
    let rest = t
        .trim_start_matches('#')
        .trim_start()
        .strip_prefix("Failed test ")?;
    let rest = match rest.split_once(": ") {
        Some((n, named)) if crate::text::whole_number(n) => named,
        _ => rest,
    };
    let name = quoted(rest)?;
    Some(name_like(name).then(|| name.to_owned()))
}

/// What `text` holds between the single or double quotes that open and close it (`'a.t'`,
/// `"sku is unique"`).
/// A sentence that names a test in quotes and says it failed (`Test 'vec.add' failed.`,
/// `Case "parse empty" FAILED`): a word or two, the quoted name, then the verdict.
fn quoted_then_verdict(t: &str) -> Option<String> {
    let open = t.find(['\'', '"'])?;
    let quote = t[open..].chars().next()?;
    let close = t[open + 1..].find(quote)? + open + 1;
    let (before, name) = (&t[..open], &t[open + 1..close]);
    let verdict = t[close + 1..].trim().trim_end_matches(['.', '!']);
    let lead: Vec<String> = before
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    // (What failed is a test by its kind's word: `Loading 'a.yml' failed.` is a job's line.)
    let a_test = lead.last().is_some_and(|w| {
        matches!(
            w.as_str(),
            "test" | "case" | "spec" | "scenario" | "example" | "suite" | "property" | "feature"
        )
    });
    ((1..=2).contains(&lead.len())
        && a_test
        && before.chars().all(|c| c.is_alphabetic() || c == ' ')
        && !verdict.is_empty()
        && !verdict.contains(' ')
        && failed_verdict(verdict)
        && name_like(name))
    .then(|| name.to_owned())
}

fn quoted(text: &str) -> Option<&str> {
    ['\'', '"']
        .iter()
        .find_map(|q| text.strip_prefix(*q)?.strip_suffix(*q))
}

/// `    renders under budget: TIMEOUT (0.20s)`: in a tree of tests, the longest name of a column
/// of verdicts is followed by one space only; an upper-case verdict after an indented name's
/// colon says it too (the caller checks the indent: a label at a line's start, `Result:
/// FAILED`, is no test). `Some` when the line has that shape (named or not).
fn colon_verdict(t: &str) -> Option<Option<String>> {
    let t = without_counter(t);
    let (before, verdict) = without_timing(t).trim_end().rsplit_once(": ")?;
    // (Or the verdict with its colon and what went wrong after it: `a.py:Case.test:  FAIL:
    // + ['09:00'] (0.01 s)`.)
    let (before, verdict) =
        match verdict.chars().all(|c| c.is_ascii_uppercase()) || lower_failed(before, verdict) {
            true => (before, verdict),
            false => verdict_then_why(t)?,
        };
    let shouted = verdict.chars().all(|c| c.is_ascii_uppercase());
    if !(shouted || lower_failed(before, verdict))
        || !failed_verdict(verdict)
        || before.trim().is_empty()
    {
        return None;
    }
    let name = plain(&qualified(before.trim()));
    Some(name_like(&name).then_some(name))
}

/// A verdict in lower case after one word (`testLongGetsEllipsis: failed` beside
/// `testShortUntouched: passed`): a test's row, as a verdict in capitals is.
fn lower_failed(name: &str, verdict: &str) -> bool {
    matches!(verdict, "failed" | "errored") && !name.trim().contains(char::is_whitespace)
}

/// A [`colon_verdict`] row: indented, or at the margin when the verdict is in lower case after
/// one word (`testSlugify: failed` beside `testSpaces: passed`).
fn colon_row(line: &str, t: &str) -> Option<Option<String>> {
    let one_word_failed = t
        .trim_end()
        .rsplit_once(": ")
        .is_some_and(|(name, v)| lower_failed(name, v));
    (line.starts_with(char::is_whitespace) || one_word_failed)
        .then(|| colon_verdict(t))
        .flatten()
}

/// `name: FAIL!`, `name: .FAIL!`: a name of one word, its colon, the marks of the assertions
/// that passed before one failed, and an upper-case verdict (an exclamation mark may close
/// it); what went wrong is on the lines below.
fn marked_colon_verdict(t: &str) -> Option<String> {
    let (name, marked) = t.trim_end().rsplit_once(": ")?;
    let verdict = marked.trim_start_matches('.').trim_end_matches('!');
    // (A bare `name: FAIL` at the margin is as often a summary's listing row, `02-a.py:T.t:
    // FAIL` after the reports: the runner's marks or its exclamation make it a test's row.)
    if verdict.len() == marked.len() {
        return None;
    }
    // (A place before the verdict, `a.c:16: FAILED`, is where a report starts, no name.)
    let word = !name.is_empty() && !name.contains(char::is_whitespace) && !bare_location(name);
    (word
        && !verdict.is_empty()
        && verdict.chars().all(|c| c.is_ascii_uppercase())
        && failed_verdict(verdict)
        && name_like(name))
    .then(|| name.to_owned())
}

/// A name, a colon, then an upper-case verdict with its own colon and what went wrong (`name:
/// FAIL: expected 2`): (the name, the verdict).
fn verdict_then_why(t: &str) -> Option<(&str, &str)> {
    t.match_indices(": ").find_map(|(at, _)| {
        let rest = t[at + 2..].trim_start();
        let (verdict, _) = rest.split_once(": ")?;
        (!verdict.is_empty()
            && verdict.chars().all(|c| c.is_ascii_uppercase())
            && failed_verdict(verdict))
        .then_some((&t[..at], verdict))
    })
}

/// `[FAIL] suite::name: (0.01s)`, `[ ERROR ] name`: a bracketed verdict, then the name (what
/// follows the name's colon is why it failed).
fn bracket_led(t: &str) -> Option<Option<String>> {
    let rest = t.strip_prefix('[')?;
    let (inside, after) = rest.split_once(']')?;
    if !failed_verdict(inside.trim()) || after.trim().is_empty() {
        return None;
    }
    // After dashes, the mark says why, not which (`[  ERROR   ] --- 0xa != 0x3`, cmocka's).
    if after.trim_start().starts_with("--- ") {
        return Some(None);
    }
    // A task's state between two marks (`[FAILED] oxlint [FAILED]`, `[FAILED] tsc [KILLED]`,
    // a task runner's list) names a step: its failures are in the step's own output.
    let after = after.trim_end();
    if after.ends_with(']')
        && let Some((_, state)) = after.rsplit_once('[')
        && state.len() > 1
        && state[..state.len() - 1]
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == ' ')
    {
        return Some(None);
    }
    let name = without_timing(after.trim()).trim_end_matches(':').trim();
    // What follows the name's colon is why (`ring::segv: CRASH!`, `x: Timed out.`); a place
    // before a message (`[ERROR] a.java:13:5: Missing a Javadoc comment. [Rule]`) is no name
    // with its reason, and two rows at one place stay two.
    let name = match name.split_once(": ") {
        Some((id, _)) if !id.contains(' ') && !bare_location(id.trim_end_matches(':')) => id,
        _ => name,
    };
    let name = plain(&qualified(name));
    Some(name_like(&name).then_some(name))
}

/// The name before a colon when what follows it says why (`name: stdout diff:`, `name: got
/// exit code 0, expected 2`): a name of one word, not a place, then words that announce what
/// follows or say what went wrong.
pub(crate) fn named_then_why(rest: &str) -> Option<&str> {
    let (id, why) = rest.split_once(": ")?;
    let why = why.trim();
    let says = why.ends_with(':') || said(why) || why.to_ascii_lowercase().contains("expected");
    (!id.is_empty()
        && !id.contains(char::is_whitespace)
        && !bare_location(id)
        && !why.is_empty()
        && says)
        .then_some(id)
}

/// A test's file, its name and why, in colon-separated fields after a verdict (`FAIL:
/// tests/ledger_test.lua: rounds cents: expected 2.68, got 2.67`): the file and the name.
pub(crate) fn filed_then_why(rest: &str) -> Option<&str> {
    let (file, after) = rest.split_once(": ")?;
    let (name, why) = after.split_once(": ")?;
    (crate::text::path_like(file)
        && file.contains(['/', '.'])
        && !bare_location(file)
        && name_like(name)
        && !said(name)
        && !why.trim().is_empty())
    .then(|| &rest[..file.len() + 2 + name.len()])
}

/// A name with what went wrong after it in parentheses (`status == 200 (AssertionError
/// [ERR_ASSERTION]: status (500) == 200)`): the name and the message, at the first ` (` whose
/// words up to the closing parenthesis at the end read as a message.
pub(crate) fn paren_why(text: &str) -> Option<(&str, &str)> {
    let inner_end = text.strip_suffix(')')?.len();
    // (A reason is a message's length at most: on a line of any length only the parentheses
    // that open within that of its end are looked at, so the line is read once.)
    let from = inner_end.saturating_sub(MAX_MESSAGE_CHARS);
    text.match_indices(" (").find_map(|(at, _)| {
        if at < from {
            return None;
        }
        let why = &text[at + 2..inner_end];
        let name = text[..at].trim();
        // (After a file, what the parentheses say is why it failed: `FAIL: src/a.c (File size
        // changed from 105 to 109)`, a formatter's check.)
        let filed = crate::text::file_with_extension(name) && why.split_whitespace().count() >= 2;
        (!name.is_empty() && (message_like(why) || filed)).then_some((name, why))
    })
}

/// Whether what a status line's `mark` is followed by names a test: not a verdict with its
/// reason alone (`FAIL (TestExpectedEqual)`), a table's row (`✖ | 4       4 | dates [0.2s]`,
/// testthat's progress), a heading that announces what follows (`✖ mypy:`, a task runner's
/// over a tool's output), nor jest's `● Console` over logged output.
fn names_a_test(mark: &str, name: &str) -> bool {
    // (After a verdict in words, `Test failed: (F 40)`, a form in parentheses is the test.)
    let reason_alone = name.starts_with('(') && name.ends_with(')') && !mark.starts_with("Test ");
    let console = mark == "● " && (name == "Console" || name.starts_with("Console "));
    // (A name with its own reason after a colon, `name: stdout diff:`, still names a test.)
    let announces = name.ends_with(':') && !name.contains(": ");
    // (A mark over a step said to have failed, `✖ release_command failed`, is a job's verdict
    // on the step, not a test's name.)
    let step_failed = matches!(
        name.split_whitespace().collect::<Vec<_>>().as_slice(),
        [_, "failed" | "errored"]
    ) && ["✖ ", "✘ ", "✗ ", "× ", "✕ "].contains(&mark);
    // (Why after a dash, `FAIL - expected: '2'`, names no test: it sits under the test's
    // title.)
    !reason_alone
        && !name.starts_with("- ")
        && !name.starts_with('|')
        && !announces
        && !console
        && !step_failed
        && name_like(name)
}

/// The title of a banner (`== #1: test_a.py:Suite.test_x ====`, `──── name ────`): its text
/// between its rules, without a report's number (`#1:`).
pub(crate) fn banner_title(line: &str) -> Option<String> {
    let t = line.trim();
    let (lead, rest) = t.split_once(' ')?;
    let (body, tail) = rest.trim_end().rsplit_once(' ')?;
    if !rule_token(lead) || !rule_token(tail) {
        return None;
    }
    let body = body.trim();
    let body = match body.split_once(": ") {
        Some((n, title))
            if n.strip_prefix('#')
                .is_some_and(|d| d.parse::<u32>().is_ok()) =>
        {
            title
        }
        _ => body,
    };
    let body = body.trim();
    name_like(body).then(|| body.to_owned())
}

/// An upper-case verdict with its kind in brackets, then what failed (`----- FAILED[data]:
/// test_stats.R<2--2>`, `FAILED[xcpt]: a.R<6--6> expect_error(…)`, tinytest's): named by the
/// place that follows, without the call after it.
fn kinded_verdict(t: &str) -> Option<Option<String>> {
    let t = match t.split_once(' ') {
        Some((lead, rest)) if rule_token(lead) => rest.trim_start(),
        _ => t,
    };
    let (verdict, rest) = t.split_once('[')?;
    let (_, rest) = rest.split_once("]: ")?;
    if !verdict.chars().all(|c| c.is_ascii_uppercase()) || !failed_verdict(verdict) {
        return None;
    }
    let name = rest.split_whitespace().next().unwrap_or("");
    Some(name_like(name).then(|| name.to_owned()))
}

/// The failing test a status line names, if it is one: never what went wrong (`FAILED:
/// Expected (f 40) < 5.01, but (f 40) was 10.0.` is a message under its verdict).
pub(crate) fn status_name(line: &str) -> Option<String> {
    // (A test's id may end as an exception's name does, `RingTest.PopOnEmptyIsAnError`: only
    // words, a sentence, are a message.)
    status_named(line).filter(|name| !(name.contains(' ') && said(name)))
}

/// `name ........ FAIL`, `2/7 Test #2: name .......***Failed  0.01 sec`: a name, a dot leader
/// after a space, a failed verdict (Some(None) when what stands before it is no name).
fn dot_led(counted: &str) -> Option<Option<String>> {
    let at = counted.find(" ...")?;
    let verdict = counted[at..]
        .trim_start_matches([' ', '.'])
        .split("  ")
        .next()?;
    // (Failed only through its steps, `… FAILED (due to 1 failed step)`, it is none.)
    if !failed_verdict(verdict) || verdict.contains("(due to ") {
        return None;
    }
    let before = counted[..at].trim();
    let name = plain(&qualified(before.strip_prefix("test ").unwrap_or(before)));
    Some(name_like(&name).then_some(name))
}

/// A row whose name is glued to a dot leader and a bracketed verdict (`01) Suite.Name.....
/// [FAIL] a.c:13: why`, a sequence number before it taken off): (name, verdict, what follows).
pub(crate) fn leader_row(t: &str) -> Option<(&str, &str, &str)> {
    let (before, after) = t.split_once("...")?;
    let (verdict, why) = after
        .trim_start_matches('.')
        .strip_prefix('[')?
        .split_once(']')?;
    if before.ends_with(' ') || before.trim().is_empty() {
        return None;
    }
    let before = before.trim();
    let name = before
        .split_once(") ")
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(before, |(_, rest)| rest);
    Some((name, verdict.trim(), why.trim()))
}

/// The name of a [`leader_row`] whose verdict failed.
fn glued_leader(t: &str) -> Option<String> {
    let (name, verdict, _) = leader_row(t)?;
    if !failed_verdict(verdict) {
        return None;
    }
    let name = plain(name);
    name_like(&name).then_some(name)
}

/// The name before a run of assertion marks and a failed verdict, perhaps with its counts in
/// parentheses after it (`slug trims x FAILED (0 OK, 1 KO)`).
fn marks_then_verdict(t: &str) -> Option<&str> {
    let mut at = 0;
    let mut tokens = Vec::new();
    for token in t.split(' ') {
        tokens.push((at, token));
        at += token.len() + 1;
    }
    let k = tokens.windows(2).position(|w| {
        let marks = w[0].1;
        !marks.is_empty()
            && marks
                .chars()
                .all(|c| matches!(c, '.' | 'x' | 'X' | '✗' | '✓'))
            && marks.contains(['x', 'X', '✗'])
            && failed_verdict(w[1].1)
            && w[1].1.chars().all(|c| c.is_ascii_uppercase())
    })?;
    if k == 0 {
        return None;
    }
    let rest = t[tokens[k + 1].0 + tokens[k + 1].1.len()..].trim();
    (rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')')))
        .then(|| t[..tokens[k].0].trim_end())
}

/// A verdict past the rule that leads it (`-- FAILED: add.phpt`, `== ERROR: name`, `═══ ✘
/// name`), or the line as it is.
fn past_a_ruled_lead(t: &str) -> &str {
    t.split_once(' ')
        .filter(|(lead, rest)| {
            rule_token(lead)
                && [
                    "FAILED: ", "FAIL: ", "ERROR: ", "✘ ", "✖ ", "✗ ", "× ", "✕ ",
                ]
                .iter()
                .any(|v| rest.starts_with(v))
        })
        .map_or(t, |(_, rest)| rest)
}

fn status_named(line: &str) -> Option<String> {
    // A banner's rule closes it on the right too (`──── FAIL: name ────`).
    let t = undecorated(line)
        .trim_end()
        .trim_end_matches(rule_char)
        .trim_end();
    if let Some(named) = rule_led(t).or_else(|| more_failed_test(t)) {
        return named;
    }
    // `2/7 Test #2: name .......***Failed  0.01 sec` (ctest), `name ........ FAIL`
    let counted = without_counter(t);
    // (`01) Suite.Name......[FAIL] a.c:13: why`: the leader glued to the name, the verdict in
    // brackets.)
    if let Some(name) = glued_leader(counted) {
        return Some(name);
    }
    if let Some(named) = dot_led(counted) {
        return named;
    }
    // `pad fills to width x. FAILED (1 OK, 1 KO)`: a name, its assertions' marks, a verdict.
    if let Some(name) = marks_then_verdict(counted).map(plain) {
        return name_like(&name).then_some(name);
    }
    // `  2 - name (Failed)`
    // (A setting in parentheses, `in dir /p (timeout 1200 secs)`, is no verdict: a verdict there
    // counts nothing.)
    if let Some(open) = counted.rfind(" (")
        && counted.ends_with(')')
        && failed_verdict(&counted[open + 2..counted.len() - 1])
        && !counted[open..].contains(|c: char| c.is_ascii_digit())
    {
        let name = plain(&counted[..open]);
        return name_like(&name).then_some(name);
    }
    // `Failure: test_add(TestCalc)`, `Error: test_div(TestCalc): ZeroDivisionError`: a verdict
    // word and a test's id (a method and its class), not a message that starts with `Error:`.
    for verdict in ["Failure: ", "Error: ", "Failed: ", "Errored: "] {
        if let Some(rest) = t.strip_prefix(verdict)
            && let Some(id) = test_id(rest)
        {
            return Some(id.to_owned());
        }
    }
    if let Some(id) = verdict_in_id(t).or_else(|| placed_verdict(t)) {
        return Some(id);
    }
    // `FAILURE in test.fare: Error in checkEquals(…)`, RUnit's protocol: a verdict, `in`, the
    // test's id.
    // `tests/a.c:15:F:Core:test_add:0: message`: a record of colon-separated fields after the
    // place, one of them a verdict; the fields after it up to a number name the test.
    if let Some(id) = failing_test_in(t)
        .map(str::to_owned)
        .or_else(|| record_name(t))
    {
        return Some(id);
    }
    // `shunit2:ERROR testAdds() returned non-zero return code.`: a verdict word (alone or
    // after a tool's name and a colon) and then a test called by name.
    if let Some(name) = called_after_verdict(t) {
        return Some(name);
    }
    if let Some(name) = padded_verdict(t).or_else(|| quoted_then_verdict(t)) {
        return Some(name);
    }
    if let Some(named) = colon_row(line, t) {
        return named;
    }
    if let Some(name) = marked_colon_verdict(t) {
        return Some(name);
    }
    if let Some(named) = bracket_led(t).or_else(|| kinded_verdict(t)) {
        return named;
    }
    if let Some(name) = worded_verdict_filed(t) {
        return name_like(&name).then_some(name);
    }
    let prefixes: [&str; 22] = [
        "● ",
        // (A verdict in words before the name, `Test failed: (PARSE-HHMM "24:00")`, ptester's.)
        "Test failed: ",
        "Test FAILED: ",
        "Failed test: ",
        "--- FAIL: ",
        "FAIL: ",
        "ERROR: ",
        "FAILED: ",
        "FAILURE: ",
        "[  FAILED  ] ",
        "[fail]: ",
        "✘ [fail]: ",
        "✖ ",
        "✘ ",
        "✗ ",
        "× ",
        "✕ ",
        "(fail) ",
        "FAILED ",
        "FAIL ",
        "not ok ",
        "ERROR ",
    ];
    let ruled = past_a_ruled_lead(t);
    if let Some(named) = numbered_fail(ruled).or_else(|| glued_verdict(ruled)) {
        return named;
    }
    for p in prefixes {
        let Some(rest) = ruled.strip_prefix(p) else {
            continue;
        };
        let rest = match p {
            // `not ok 3 - name # directive`
            "not ok " => {
                let r = rest
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start();
                let r = r.strip_prefix("- ").unwrap_or(r);
                r.split(" # ").next().unwrap_or(r)
            }
            // pytest's summary: `FAILED path::test - message`
            "FAILED " | "ERROR " => rest.split(" - ").next().unwrap_or(rest),
            // `FAIL: name: stdout diff:` (cmdtest's): what follows the name's colon is why.
            "FAIL: " | "ERROR: " | "FAILED: " | "FAILURE: " | "Test failed: " | "Test FAILED: "
            | "Failed test: " => filed_then_why(rest)
                .or_else(|| named_then_why(rest))
                .unwrap_or(rest),
            _ => rest,
        };
        let name = without_timing(rest.trim());
        // What went wrong in parentheses after the name (`✖ status == 200 (AssertionError:
        // status (500) == 200)`) is no part of it.
        let name = paren_why(name).map_or(name, |(name, _)| name);
        // AVA and others add what happened after the name.
        let name = name
            .strip_suffix(" Error thrown in test")
            .or_else(|| name.strip_suffix(" Rejected promise returned by test"))
            .unwrap_or(name);
        let name = plain(&qualified(name.trim()));
        return names_a_test(p, &name).then_some(name);
    }
    // `name ... FAIL`, `name ... ERROR`, `test name ... FAILED`
    for suffix in [" ... FAIL", " ... ERROR", " ... FAILED", " ... failed"] {
        if let Some(name) = t.strip_suffix(suffix) {
            let name = name.strip_prefix("test ").unwrap_or(name).trim();
            return name_like(name).then(|| qualified(name));
        }
    }
    marked_after_name(t)
}

/// `fail 4 - name (1ms)`: a [`crate::text::numbered_row`] failed in lower case (the number makes it a row,
/// not a sentence that starts with `fail`).
fn numbered_fail(t: &str) -> Option<Option<String>> {
    let named = t
        .strip_prefix("fail ")
        .and_then(|_| crate::text::numbered_row(t))?
        .1;
    let name = plain(without_timing(named.trim()));
    Some(names_a_test("fail ", &name).then_some(name))
}

/// `FAILURE:test_trace(3, 3)`: a verdict in capitals glued by its colon to the test it failed,
/// called with its arguments or not: the test's name, without them.
fn glued_verdict(t: &str) -> Option<Option<String>> {
    let (verdict, rest) = t.split_once(':')?;
    if !matches!(verdict, "FAILURE" | "FAIL" | "FAILED" | "ERROR") {
        return None;
    }
    let name = rest.split(['(', ' ']).next()?;
    // (Called, `name(args)`, or alone: `ERROR:tool:module 'a.py' has …` is a logger's line.)
    let called = rest[name.len()..].starts_with('(') || rest.trim_end() == name;
    let identifier = called
        && name.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_.:".contains(c));
    identifier.then(|| names_a_test("FAILURE:", name).then(|| name.to_owned()))
}

/// The test a worded verdict names before its file, its name and why (`Assert Failed:
/// test/a.js: testLeap: why`, `Check failed: …`): one word and a verdict, then the fields.
fn worded_verdict_filed(t: &str) -> Option<String> {
    let (head, rest) = t.split_once(": ")?;
    let (word, verdict) = head.split_once(' ')?;
    let worded = word.chars().all(|c| c.is_ascii_alphabetic())
        && matches!(
            verdict.to_ascii_lowercase().as_str(),
            "failed" | "failure" | "error"
        );
    worded
        .then(|| filed_then_why(rest))
        .flatten()
        .map(|named| plain(&qualified(named.trim())))
}

pub(crate) use crate::text::FAILURE_MARKS;

/// A name with a failure's mark after it: closing the line (`name: ☓`, `name ✗`, micro-should's
/// tree), before a message (`name ✘ message`, JUnit's tree, but not a progress line of marks,
/// `suite ✘ ✘ • (0 / 2)`), or RSpec's `name (FAILED - 1)`.
fn marked_after_name(t: &str) -> Option<String> {
    for mark in FAILURE_MARKS {
        if let Some(name) = t.strip_suffix(mark) {
            let name = name.trim_end().trim_end_matches(':').trim();
            if !name.is_empty() && !name.contains(mark) && name_like(name) && !summary(name) {
                return Some(name.to_owned());
            }
        }
    }
    if let Some((name, after)) = t.split_once(" ✘")
        && !after
            .chars()
            .all(|c| c.is_whitespace() || "✘✔•·()/0123456789".contains(c))
    {
        return name_like(name).then(|| name.trim().to_owned());
    }
    if let Some(at) = t.find(" (FAILED - ")
        && t.ends_with(')')
    {
        let name = &t[..at];
        return name_like(name).then(|| name.trim().to_owned());
    }
    None
}

/// A name, padding (two spaces or a dot leader) and a verdict in delimiters closing the line:
/// `Addition Works      | FAIL |` (Robot Framework), `name ........ [FAILED]`, `name   [ FAIL ]`,
/// `name   <ERROR>`; or a bare verdict word after the padding, timed (`test_x    FAIL (0.00s)`).
pub(crate) fn padded_verdict(t: &str) -> Option<String> {
    // `00.000  TestLetterB  Failed: expected <A> but was <B>` (fpcunit's tree): a row's timing,
    // the name, padding, then a verdict and its message.
    if let Some((before, after)) = t.split_once("  ").and_then(|(first, rest)| {
        let timing = first
            .chars()
            .all(|c| c.is_ascii_digit() || ".:".contains(c));
        let rest = rest.trim_start();
        if timing {
            rest.split_once("  ")
        } else {
            Some((first, rest))
        }
    }) && let Some((verdict, message)) = after.trim_start().split_once(':')
        && !verdict.contains(' ')
        && failed_verdict(verdict)
        && !message.trim().is_empty()
        && !before.contains("  ")
    {
        let name = before.trim();
        if !name.contains(' ') && name_like(name) {
            return Some(name.to_owned());
        }
    }
    // `test_x     FAIL (0.00s)` (a spec reporter's row): a bare verdict word after the padding,
    // with its timing.
    let timed = without_timing(t);
    // (The verdict may give the place of the failed check in parentheses: `FAILED
    // (testsuite.at:17)`, Autotest's.)
    let placed = |v: &str| -> bool {
        v.split_once(" (")
            .and_then(|(w, rest)| Some((w, rest.strip_suffix(')')?)))
            .is_some_and(|(w, inner)| !w.contains(' ') && bare_location(inner))
    };
    if let Some((before, verdict)) = timed.trim_end().rsplit_once("  ")
        && failed_verdict(verdict)
        && (!verdict.trim().contains(' ') || placed(verdict.trim()))
    {
        // The colon a name closes with before its column of verdicts is no part of it.
        let name = plain(&qualified(before.trim().trim_end_matches(':')));
        // (A row may say why after its name, `forty is XL - expected XL, got XXXX    FAIL`,
        // Ahven's: the name is what stands before the dash.)
        let name = match name.split_once(" - ") {
            Some((named, why)) if why.contains(' ') && name_like(named) => named.to_owned(),
            _ => name,
        };
        return name_like(&name).then_some(name);
    }

    let close = t.chars().last()?;
    let open = match close {
        '|' => '|',
        ']' => '[',
        '>' => '<',
        _ => return None,
    };
    let body = &t[..t.len() - close.len_utf8()];
    let at = body.rfind(open)?;
    // The verdict may give its cause after a colon (`[ERROR: IOError]`).
    let inside = body[at + 1..].trim();
    let verdict = inside.split_once(": ").map_or(inside, |(v, _)| v);
    if !failed_verdict(verdict) {
        return None;
    }
    let before = &body[..at];
    // A place alone before the verdict (`:tests/cli.test:3: [Failed]`, shelltestrunner's: its
    // tests are known by their file and number) is the name.
    let place = before.trim().trim_matches(':');
    if !place.is_empty() && !place.contains(' ') && bare_location(place) {
        return Some(place.to_owned());
    }
    // Padded to a column, or a list's item (`  - name [FAILED]`): a row of a status list.
    let item = crate::text::bulleted(before.trim_start());
    let padded = before.ends_with("  ") || before.trim_end().ends_with("..") || item.is_some();
    let before = item.unwrap_or(before);
    let name = before.trim_end().trim_end_matches('.').trim_end();
    let name = plain(&qualified(name));
    (padded && name_like(&name)).then_some(name)
}

/// The test a one-line result record names (`path:line:F:Suite:name:n: message`).
fn record_name(t: &str) -> Option<String> {
    record(t).map(|(name, _)| name)
}

/// A one-line result record (`path:line:F:Suite:name:n: message`, libcheck's): the test it
/// names (the fields after the verdict up to a number) and its message.
pub(crate) fn record(t: &str) -> Option<(String, &str)> {
    let mut fields = t.split(':');
    let path = fields.next()?;
    let line = fields.next()?;
    if path.contains(' ')
        || !path.contains('.')
        || line.is_empty()
        || !line.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let verdict = fields.next()?;
    if !matches!(
        verdict,
        "F" | "E" | "FAIL" | "FAILED" | "ERROR" | "Failure" | "Error" | "failure" | "error"
    ) {
        return None;
    }
    let mut used = path.len() + line.len() + verdict.len() + 3;
    let mut parts = Vec::new();
    for f in fields {
        if f.is_empty() || f.contains(' ') {
            break;
        }
        used += f.len() + 1;
        if f.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        parts.push(f);
    }
    let name = parts.join(":");
    let message = t.get(used..).unwrap_or_default().trim();
    (!parts.is_empty() && name_like(&name)).then_some((name, message))
}

/// A test's id at the start of `text`: `method(Class)` or `method (pkg.Class)`, up to the
/// `: ` that may follow it.
pub(crate) fn test_id(text: &str) -> Option<&str> {
    // `test_add(TestCalc):` (test-unit ends its header with a colon, its message below).
    let id = text
        .split(": ")
        .next()
        .unwrap_or(text)
        .trim_end()
        .trim_end_matches(':');
    let open = id.find('(')?;
    let method = id[..open].trim_end();
    let class = id[open + 1..].strip_suffix(')')?;
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_?!".contains(c))
    };
    (ident(method)
        && !class.is_empty()
        && class.split(['.', ':']).filter(|p| !p.is_empty()).all(ident))
    .then_some(id)
}

/// Whether a line says the run is over: a summary of counts or a runner's closing words.
pub(crate) fn summary(line: &str) -> bool {
    let t = line.trim();
    let lower = t.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let counted = words
        .first()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
        && words.get(1).is_some_and(|w| {
            [
                "passing",
                "failing",
                "pending",
                "tests",
                "test",
                "specs",
                "spec",
                "examples",
                "example",
                "runs",
                "run",
                "passed",
                "failed",
                "scenarios",
                "features",
                "steps",
                "assertions",
            ]
            .contains(&w.trim_end_matches([',', ':', ';']))
        });
    // `Tests  3 failed | 3 passed (6)`, `Test Files  2 failed (2)`, `Test Suites: 1 failed`.
    let labelled_counts = {
        let label: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == ' ')
            .collect();
        let rest = t[label.len()..].trim_start_matches([':', ' ']);
        let label = label.trim();
        !label.is_empty()
            && label.split(' ').count() <= 2
            && label.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.starts_with(|c: char| c.is_ascii_digit())
            && ["failed", "passed", "failing", "passing", "total"]
                .iter()
                .any(|w| {
                    rest.split_whitespace()
                        .take(3)
                        .any(|x| x.trim_end_matches([',', '|']) == *w)
                })
    };
    counted
        || labelled_counts
        || [
            "FAILURES!",
            "ERRORS!",
            "Tests: ",
            "Ran ",
            "Finished in ",
            "Failed examples:",
            "rake aborted!",
            "test result: ",
            "Test Suites: ",
            "Summary [",
            "Time: ",
            "OK (",
            "Failing scenarios:",
        ]
        .iter()
        .any(|p| t.starts_with(p))
}

/// A run's verdict in words, naming nothing (`✖ Some errors were emitted while running
/// checks.`, `Some tests failed.`, `There were failures`): a plural outcome and a verb that
/// says it happened, in a short sentence with no place, name or figure.
pub(crate) fn run_verdict(line: &str) -> bool {
    let t = line
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim_end_matches(['.', '!']);
    // (After a severity label: Deno's closing `error: Test failed`, R's `Error: Test failures`.)
    let t = t
        .strip_prefix("error: ")
        .or_else(|| t.strip_prefix("Error: "))
        .unwrap_or(t);
    let words: Vec<String> = t.split_whitespace().map(str::to_ascii_lowercase).collect();
    let outcome = [
        "errors",
        "failures",
        "problems",
        "tests",
        "test",
        "checks",
        "issues",
        "execution",
        "build",
    ];
    let happened = [
        "were", "have", "failed", "occurred", "found", "emitted", "reported", "halted", "aborted",
    ];
    let is = |w: &String, set: &[&str]| set.contains(&w.as_str());
    (2..=10).contains(&words.len())
        && !t
            .contains(|c: char| c.is_ascii_digit() || c == ':' || c == '/' || c == '"' || c == '\'')
        && words.iter().any(|w| is(w, &outcome))
        // (Or outcomes alone: `Test failures`.)
        && (words.iter().any(|w| is(w, &happened)) || words.iter().all(|w| is(w, &outcome)))
}

/// Whether a line is content of a report (not blank, not a separator, not a passing verdict).
pub(crate) fn content(line: &str) -> bool {
    let t = undecorated(line).trim();
    let passing = t.starts_with("ok ")
        || t.starts_with('✔')
        || t.starts_with('✓')
        || t.starts_with("[       OK ]")
        || t.ends_with(" ... ok");
    !t.is_empty() && !separator(line) && !passing
}

/// A line a passing verdict opens (`PASS: it should charge the rate`, `✓ adds`, `ok 3 - x`):
/// it heads no failure's report, however often its template agrees with the stated count.
pub(crate) fn passing_verdict(t: &str) -> bool {
    let first = t.split_whitespace().next().unwrap_or("");
    let word = first.trim_end_matches(':').trim_matches(['[', ']']);
    matches!(
        word,
        "PASS"
            | "PASSED"
            | "Pass"
            | "Passed"
            | "OK"
            | "ok"
            | "✓"
            | "✔"
            | "√"
            | "✅"
            | "Success"
            | "SUCCESS"
            | "Succeeded"
    )
}

/// Whether a line reads as a failure's message.
pub(crate) fn message_like(line: &str) -> bool {
    let t = undecorated(line).trim();
    let t = t.strip_prefix("=> ").unwrap_or(t);
    // A message may start with its place (`spec/a_spec.lua:2: Expected objects to be equal.`).
    said(t) || after_place(t).is_some_and(said)
}

/// Whether text (a line without its decoration) says what went wrong.
fn said(t: &str) -> bool {
    let t = t.strip_prefix("E ").map_or(t, str::trim_start);
    // A severity label before what was thrown (Deno's `error: AssertionError: …`).
    if let Some(rest) = t.strip_prefix("error: ")
        && !rest.starts_with("error: ")
    {
        return said(rest);
    }
    // The first word, a qualified class name included (`a.b.KeyError`, `Minitest::Assertion`).
    let mut end = 0;
    let bytes = t.as_bytes();
    while end < bytes.len() {
        let c = bytes[end];
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$') {
            end += 1;
        } else if t[end..].starts_with("::") {
            end += 2;
        } else {
            break;
        }
    }
    let word = &t[..end];
    let after = &t[end..];
    let qualified_assertion = word.contains("::") && word.ends_with("Assertion");
    let error_word = (word.ends_with("Error")
        || word.ends_with("Exception")
        || word.ends_with("Failure")
        || qualified_assertion
        || word == "Error"
        || word == "panic")
        && (after.starts_with(':') || after.starts_with(" [") || after.is_empty())
        // (A verdict that labels what went wrong in words, `Failed: 2.5 should be 3.0`; not a
        // count, `Failed: 4 (80.00%)`, nor a test's header over its report, `Failed:  name:`.)
        || word == "Failed"
            && after.starts_with(": ")
            && !after.ends_with(':')
            && after
                .split_whitespace()
                .filter(|w| w.chars().all(char::is_alphabetic))
                .count()
                >= 2;
    error_word
        || t.starts_with("Expected")
        || t.starts_with("expected")
        || t.starts_with("Failed asserting")
        || t.starts_with("ASSERT")
        || t.starts_with("Assertion Failed")
        || t.starts_with("assert")
        || t.starts_with("AssertionError")
        || t.starts_with("Assertion failed")
        || t.starts_with("C++ exception")
        || t.contains(" panicked at ")
        || t.starts_with("Caused by: ")
        || t.starts_with("Failure/Error: ")
        || t.ends_with(": Failure")
        || t.ends_with(": FAILED:")
        || t.starts_with("not ok ")
}

/// A stack frame: `at …`, `File "…"`, a Java frame, or a place followed by the function it was in
/// (`/app/test/a_test.rb:19:in 'test_x'`, `spec/a.lua:8: in function <spec/a.lua:7>`). A frame
/// that names a test is no report of it.
pub(crate) fn stack_frame(line: &str) -> bool {
    let t = line.trim();
    addressed_frame(t)
        || t.starts_with("at ")
        || t.starts_with("File \"")
        || (t.contains(".java:") && t.ends_with(')'))
        || t.split_once(':').is_some_and(|(path, rest)| {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            // After the place (a column too), a frame may give its address before the
            // function (`queue.zig:17:5: 0x125792d in test.capacity (queue.zig)`).
            let after = rest[digits..].trim_start_matches(':');
            let after = after
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start_matches(':')
                .trim_start();
            let after = match after.strip_prefix("0x") {
                Some(hex) => hex
                    .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                    .trim_start(),
                None => after,
            };
            // (A frame's `in` names its function and ends there; `in return value: got T,
            // expected string` says what is wrong after a colon, a type checker's finding.)
            let said_after = after
                .split_once(": ")
                .is_some_and(|(_, said)| said.split_whitespace().count() >= 2);
            (path.contains('/') || path.contains('.'))
                && !path.contains(' ')
                && digits > 0
                && after.starts_with("in ")
                && !said_after
                || digits > 0 && rest[digits..].starts_with(":in `")
        })
}

/// What follows a place that starts `t` (`path:line: `, `path:line:col: `), when one does.
fn after_place(t: &str) -> Option<&str> {
    let (place, rest) = t.split_once(": ")?;
    let mut parts = place.split(':');
    let path = parts.next()?;
    let numbers: Vec<&str> = parts.collect();
    let placed = (path.contains('/') || path.contains('.'))
        && !path.contains(char::is_whitespace)
        && (1..=2).contains(&numbers.len())
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (placed && !rest.trim().is_empty()).then_some(rest)
}

/// Whether a line is a stack frame, a location, source excerpt or diff legend: what follows a
/// message rather than continuing it.
pub(crate) fn after_message(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("at ")
        || t.starts_with("File \"")
        || t.starts_with("Traceback")
        || t.starts_with("Stack:")
        || t.starts_with("stack:")
        || t.starts_with("note: run with")
        || t.starts_with("+ expected - actual")
        || t.starts_with("+ actual - expected")
        || t.starts_with("--- Expected")
        || t.starts_with("› ")
        || t.starts_with("# ")
        || (t.contains(".java:") && t.ends_with(')'))
        || (t.starts_with('/')
            && t.rsplit(':')
                .next()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        || t.starts_with("[...]")
        || call_frame(t)
        || marker_only(t)
        || addressed_frame(t)
}

/// A native frame that ends in its address in brackets (`source/a.d:12 void a.f()
/// [0x55eda93b22a5]`, `??:? _start [0x55eda93b1400]`, D's runtime and others).
fn addressed_frame(t: &str) -> bool {
    t.strip_suffix(']')
        .and_then(|r| r.rsplit_once("[0x"))
        .is_some_and(|(_, hex)| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whether a line only points under the line above (`^^^^`, `~~~^~~`, a code frame's marker).
pub(crate) fn marker_only(t: &str) -> bool {
    t.contains(['^', '~']) && t.chars().all(|c| matches!(c, '^' | '~' | ' ' | '-' | '_'))
}

/// A line of a call chain: a phrase that says a function was running (`in function m:f/0`,
/// `in call from m:g/1 (m.erl, line 9)`, `Called from M.f in file "a.ml", line 3`, `called
/// as f(x)`), or any `in`/`at`/`from` phrase that ends in its place in parentheses (`(a.erl,
/// line 13)`, `(a.c:12)`).
fn call_frame(t: &str) -> bool {
    // (Compared without a lowered copy: `after_message` is asked of every line of a body.)
    let starts = |p: &str| t.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
    let phrase = [
        "in function ",
        "in call from ",
        "called from ",
        "called at ",
        "called as ",
        "raised at ",
        "re-raised at ",
        "raised by ",
    ]
    .into_iter()
    .any(starts);
    let placed = ["in ", "from "].into_iter().any(starts)
        && t.strip_suffix(')')
            .and_then(|r| r.rsplit_once('('))
            .is_some_and(|(_, inside)| {
                let inside = inside.trim();
                inside
                    .rsplit_once("line ")
                    .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    || inside.rsplit_once(':').is_some_and(|(p, n)| {
                        p.contains('.') && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                    })
            });
    phrase || placed
}

/// A block's message: its first message-like line (else its first content line after the
/// header) with the lines that continue it, whole up to [`MAX_MESSAGE_LINES`].
/// A line that only says where (`(in test file t/a.bats, line 19)`, `at t/a.t line 8.`).
pub(crate) fn location_only(line: &str) -> bool {
    let t = line.trim().trim_start_matches('#').trim();
    let t = t
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(t);
    let t = t.trim_end_matches('.');
    (t.starts_with("in ") || t.starts_with("at "))
        && t.rsplit_once("line ")
            .is_some_and(|(_, n)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// A message that says only that something failed (`test failure`, `Failed`, `Error`).
pub(crate) fn says_nothing(message: &str) -> bool {
    matches!(
        message
            .trim()
            .trim_end_matches(['.', ':'])
            .to_ascii_lowercase()
            .as_str(),
        "" | "test failure"
            | "failure"
            | "failed"
            | "fail"
            | "error"
            | "assertion failed"
            | "test failed"
    )
}

/// A bare `path.ext:line[:col]` (or `unknown file`): where, not what.
pub(crate) fn bare_location(text: &str) -> bool {
    let t = text.trim();
    if t == "unknown file" {
        return true;
    }
    let mut parts = t.rsplitn(3, ':');
    let (Some(last), Some(rest)) = (parts.next(), parts.next()) else {
        return false;
    };
    let path = parts.next().map_or(rest, |p| p);
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    !t.contains(' ')
        && numeric(last)
        && (numeric(rest) || path.contains('.'))
        && path
            .rsplit('.')
            .next()
            .is_some_and(|e| e.len() <= 5 && e.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// A numbered line of quoted source (`   4: test('x', …)`, `  9|   expect(…)`).
pub(crate) fn source_excerpt(line: &str) -> bool {
    let t = line.trim_start();
    // (The row a marker points at, `=> 47:     code`, `> 5 | code`, is one too.)
    let t = t
        .strip_prefix("=>")
        .or_else(|| t.strip_prefix('>'))
        .map_or(t, str::trim_start);
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0
        && (t[digits..].starts_with(": ")
            || t[digits..].starts_with('|')
            || t[digits..].starts_with(" |"))
}

/// A Python traceback's exception: the first line after the traceback's frames that is not a
/// frame or the code it quotes (`KeyError: 'GBP'`), with its continuation.
pub(crate) fn python_exception(body: &[String]) -> Option<usize> {
    let Some(tb) = body
        .iter()
        .rposition(|l| l.trim() == "Traceback (most recent call last):")
    else {
        // Frames without the header (green prints `  File "…", line N, in f` under its
        // `Failure in …` line): the exception is the first line after the last frame that
        // stands left of the frames.
        // (The line right after the frame is the code it quotes, however shallow, unless it
        // names an exception; the marks under it are no line of their own.)
        let last = body.iter().rposition(|l| python_frame(l.trim_start()))?;
        let depth = indent(&body[last]);
        let mut code_next = true;
        return body
            .iter()
            .enumerate()
            .skip(last + 1)
            .find(|(_, l)| {
                let t = l.trim();
                if t.is_empty() || marker_only(t) {
                    return false;
                }
                let quoted = std::mem::take(&mut code_next) && !exception_named(t);
                !quoted && indent(l) < depth
            })
            .map(|(i, _)| i);
    };
    // The frames are deeper than the header, and so is the code each quotes; but a report that
    // indents the whole traceback (stestr's `Captured traceback:`) may leave a frame's code at
    // the header's depth: the line after a frame is its code unless it names an exception, and
    // the marks under it (`^^^^`, `~~~^~~~`) are no line of their own.
    let depth = indent(&body[tb]);
    let mut code_next = false;
    for (i, l) in body.iter().enumerate().skip(tb + 1) {
        let t = l.trim();
        if t.is_empty() || t.chars().all(|c| matches!(c, '^' | '~' | ' ')) {
            continue;
        }
        if python_frame(t) {
            code_next = true;
            continue;
        }
        let quoted = std::mem::take(&mut code_next) && !exception_named(t);
        if !quoted && indent(l) <= depth {
            return Some(i);
        }
    }
    None
}

/// A Python traceback's frame line (`File "a.py", line 3, in f`).
fn python_frame(t: &str) -> bool {
    t.starts_with("File \"") && t.contains("\", line ")
}

/// Whether a line names an exception as Python ends a traceback with it (`KeyError: 'ft'`,
/// `pkg.errors.UnitError: bad`, `AssertionError`): a dotted name whose last part is a class's
/// (capitalised), alone or before `: `.
fn exception_named(t: &str) -> bool {
    let name = t.split_once(": ").map_or(t, |(n, _)| n);
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && name
            .rsplit('.')
            .next()
            .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// An error named as a class with what it says (`AssertionError: not equal`, `pkg.KeyError:
/// x`, `Error [RangeError]: out of range`): the class's name ends as errors' names do.
fn error_named(t: &str) -> bool {
    let Some((name, said)) = t.split_once(": ") else {
        return false;
    };
    if said.trim().is_empty() {
        return false;
    }
    let name = match name.strip_prefix("Error [") {
        Some(kind) => kind.strip_suffix(']').unwrap_or(""),
        None => name,
    };
    exception_named(name) && error_kind(name)
}

/// Whether a class's name ends as errors' names do (`AssertionError`, `ConvException`,
/// `ComparisonFailure`).
pub(crate) fn error_kind(name: &str) -> bool {
    ["Error", "Exception", "Failure"]
        .iter()
        .any(|end| name.ends_with(end))
}

/// A report that is a unified diff of expected and actual output (cram's and prysk's `---
/// a.t`, `+++ a.t.err`, `@@ … @@`, context, then `-  expected` over `+  got`): what changed
/// says what went wrong, not the diff's headers or its context. The first run of changed
/// lines after the first hunk's header.
fn diff_changes(body: &[String]) -> Option<String> {
    let hunk = body.iter().position(|l| {
        let t = l.trim_start();
        t.starts_with("@@ -") && t[3..].contains(" @@")
    })?;
    let changed = |l: &str| {
        (l.starts_with('-') && !l.starts_with("---"))
            || (l.starts_with('+') && !l.starts_with("+++"))
    };
    let first = body[hunk + 1..].iter().position(|l| changed(l))? + hunk + 1;
    // Headers that name what was compared, not files (`--- expected`, `+++ actual`,
    // minitest's), say which side is which: they go first.
    let labelled = |l: &str, mark: &str| {
        l.trim_start().strip_prefix(mark).is_some_and(|rest| {
            let w = rest.trim();
            !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == ' ') && w.len() <= 20
        })
    };
    let headers: Vec<String> = match hunk.checked_sub(2).map(|h| (&body[h], &body[h + 1])) {
        Some((old, new)) if labelled(old, "--- ") && labelled(new, "+++ ") => {
            vec![old.trim().to_owned(), new.trim().to_owned()]
        }
        _ => Vec::new(),
    };
    let run: Vec<String> = headers
        .into_iter()
        .chain(
            body[first..]
                .iter()
                .take_while(|l| changed(l))
                .take(MAX_MESSAGE_LINES)
                .map(|l| l.trim_end().to_owned()),
        )
        .collect();
    Some(bounded(&run))
}

pub(crate) fn message_of(body: &[String]) -> Option<String> {
    message_found(body).map(|m| {
        // (A rule the runner glued to the message's end, `expected 4-----…`, is the next
        // record's.)
        let m = m
            .lines()
            .map(without_glued_rule)
            .collect::<Vec<_>>()
            .join("\n");
        said_before_kind(body, m)
    })
}

/// A message that is an error's kind alone (`TypeError:`, `AssertionError [ERR_ASSERTION]:`,
/// nothing after the colon), under the paragraph that says what went wrong (a runner that
/// prints the error's text, then its kind): that paragraph, then the kind.
fn said_before_kind(body: &[String], message: String) -> String {
    let first = message.lines().next().unwrap_or("").trim();
    let kind = first
        .strip_suffix(':')
        .and_then(|k| k.split_whitespace().next());
    let bare = kind.is_some_and(|k| {
        k.len() > "Error".len()
            && (k.ends_with("Error") || k.ends_with("Exception"))
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
    }) && first.split_whitespace().count() <= 2;
    let Some(at) = bare
        .then(|| body.iter().position(|l| l.trim() == first))
        .flatten()
    else {
        return message;
    };
    let mut start = at;
    while start > 0 && !body[start - 1].trim().is_empty() && at - start < MAX_MESSAGE_LINES {
        start -= 1;
    }
    if start == at {
        return message;
    }
    let above: Vec<&str> = body[start..at].iter().map(|l| l.trim()).collect();
    format!("{}\n{message}", above.join("\n"))
}

/// A line without a rule glued to its end (`… expected 4------------`): eight or more rule
/// characters right after text.
fn without_glued_rule(line: &str) -> &str {
    let kept = line.trim_end_matches(['-', '=']);
    if line.len() - kept.len() >= 8 && kept.ends_with(|c: char| !c.is_whitespace()) {
        kept
    } else {
        line
    }
}

/// Whether a line is a label alone that announces what went wrong under it (`Failures:`,
/// `Errors:`, `Reason:`).
fn announces_failure(line: &str) -> bool {
    line.trim().strip_suffix(':').is_some_and(|label| {
        matches!(
            label.to_ascii_lowercase().as_str(),
            "failures" | "failure" | "errors" | "error" | "reason" | "message" | "messages"
        )
    })
}

/// Whether a line is a short sentence ending in a colon that says what happened (`the test
/// failed:`, `threw an exception:`): what went wrong is under it.
pub(crate) fn tells_what_failed(line: &str) -> bool {
    line.trim().strip_suffix(':').is_some_and(|said| {
        let lower = said.to_ascii_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        // (Prose: words of letters only, `a.cpp:17: FAILED:` is a place's header; ending on
        // what happened, `Failed example:` names what ran; and no list's lead, `The
        // following tests failed:`.)
        words.len() <= 6
            && lower.chars().all(|c| c.is_alphabetic() || c == ' ')
            && !words.contains(&"following")
            && words.last().is_some_and(|w| {
                matches!(
                    *w,
                    "failed" | "fails" | "threw" | "raised" | "exception" | "message"
                )
            })
    })
}

/// The message a report's sections give, before any other reading: the section after one
/// that shows the test's own code, the first failed row among verdict rows, a numbered
/// expectation with the values under it.
fn sections_message(body: &[String]) -> Option<String> {
    // A section that shows what the test ran (`==== Contents of test case:` over its script)
    // says nothing of what went wrong: the sections after it do (`---- Result was:`).
    if let Some(k) = body.iter().position(|l| shows_the_test(l))
        && let Some(m) = body[k + 1..].iter().position(|l| {
            let t = l.trim_start();
            t.split_whitespace().next().is_some_and(rule_token) && !shows_the_test(l)
        })
    {
        return message_from(body, k + 1 + m);
    }
    // Rows of verdicts, passed and failed, one per assertion (` PASS EXIT CODE (LINE 8)`, `
    // FAIL STDOUT CONTAINS "x" (LINE 9)`): the first failed row says what went wrong.
    if body.iter().any(|l| passing_verdict(l.trim()))
        && let Some(k) = body.iter().position(|l| {
            let t = l.trim();
            let mut words = t.split_whitespace();
            words
                .next()
                .is_some_and(|w| w == "FAIL" || w == "FAILED" || w == "✗")
                && words.count() >= 2
        })
    {
        return message_from(body, k);
    }
    // The expectation a report numbers (`1.1) The output should eq 8080`) states what failed,
    // and the paragraph after it (`expected: 8080`, `got: ""`) what was compared.
    if let Some(k) = body.iter().position(|l| numbered_expectation(l)) {
        let said = message_from(body, k)?;
        let blank = body[k + 1..].iter().position(|l| l.trim().is_empty());
        let values = blank.and_then(|b| {
            let from = k + 1 + b;
            let j = from + body[from..].iter().position(|l| !l.trim().is_empty())?;
            let t = body[j].trim_start();
            (!t.starts_with('#') && !location_only(&body[j]) && !bare_location(&body[j]))
                .then(|| message_from(body, j))
                .flatten()
        });
        return Some(match values {
            Some(v) => format!("{said}\n{v}"),
            None => said,
        });
    }
    None
}

fn message_found(body: &[String]) -> Option<String> {
    if let Some(at) = python_exception(body) {
        return message_from(body, at);
    }
    if let Some(changed) = diff_changes(body) {
        return Some(changed);
    }
    if let Some(said) = sections_message(body) {
        return Some(said);
    }
    // A label alone that announces what went wrong (`Failures:`, `Errors:`) has the message
    // under it, whatever fields (`Description: …`) stand above.
    if let Some(k) = body.iter().position(|l| announces_failure(l))
        && let Some(m) = body[k + 1..].iter().position(|l| content(l))
    {
        return message_from(body, k + 1 + m);
    }
    // So does a sentence that says what happened (`the test failed:` after `When given the
    // input:` and the input), unless a message was already said above it (`AssertionError:
    // …` over `Error message:`).
    if let Some(k) = body.iter().position(|l| tells_what_failed(l))
        && !body[..k].iter().any(|l| message_like(l))
        && let Some(m) = body[k + 1..].iter().position(|l| content(l))
    {
        return message_from(body, k + 1 + m);
    }
    // A runner that marks each line (`[  ERROR   ] --- 0xa != 0x3`, cmocka's) says what went
    // wrong after its error mark.
    if let Some(said) = body.iter().find_map(|l| marked_error(l)) {
        return Some(said.to_owned());
    }
    let first_content = body.iter().position(|l| {
        content(l)
            && !after_message(l)
            && !location_only(l)
            && !bare_location(l)
            && !source_excerpt(l)
    });
    let at = body
        .iter()
        .position(|l| message_like(l))
        .map(|m| {
            // The other half of a pair of values printed above the `expected` line (Test::More
            // prints `got:` first) starts the message.
            if m > 0 && value_label(&body[m - 1]) {
                return m - 1;
            }
            // Fields aligned on ` : ` (`  In macro : CHECK_EQ( v, 2 )` over `  Expected : v ==
            // 2`, `    Actual : v == 1`) are one record: the message starts at its first.
            let aligned = |l: &str| {
                l.trim()
                    .split_once(" : ")
                    .is_some_and(|(label, v)| !label.is_empty() && !v.trim().is_empty())
            };
            if aligned(&body[m]) {
                let mut k = m;
                while k > 0 && aligned(&body[k - 1]) && body[k - 1].starts_with(char::is_whitespace)
                {
                    k -= 1;
                }
                if k < m {
                    return k;
                }
            }
            // What the test said in its own words just before the assertion's message
            // (`key :a was evicted…` above minitest's `Expected:`) starts the message.
            // (A blank line between them keeps them one report: `5 == 6`, a blank, then
            // `expected: 6` / `got: 5`; not a call that shows the assertion's code, Jest's
            // `expect(received).toBe(expected)` hint.)
            let calls = |l: &str| {
                l.match_indices('(').any(|(at, _)| {
                    l[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            };
            let next_to = |c: usize| {
                c + 1 == m || (c + 2 == m && body[c + 1].trim().is_empty() && !calls(&body[c]))
            };
            match first_content {
                Some(c)
                    if next_to(c)
                        && indent(&body[c]) == indent(&body[m])
                        && !body[c].trim_end().ends_with("]:")
                        && !quotes_code(&body[c]) =>
                {
                    c
                }
                // (Or right under the report's header, `Class#test [a.rb:15]:` over `meter
                // went backwards.` over `Expected [-2, 6] to not include -2.`.)
                _ if m >= 2
                    && body[m - 2].trim_end().ends_with("]:")
                    && indent(&body[m - 1]) == indent(&body[m])
                    && content(&body[m - 1])
                    && !quotes_code(&body[m - 1])
                    && !location_only(&body[m - 1])
                    && !bare_location(&body[m - 1])
                    && !stack_frame(&body[m - 1]) =>
                {
                    m - 1
                }
                _ => m,
            }
        })
        // A line a severity labels (`# error: command failed with exit status: 1`, lit's)
        // says what went wrong, where a field above it gives only a number (`Exit Code: 1`).
        .or_else(|| body.iter().position(|l| severity_labelled(l)))
        // Compared values printed before the error they explain (kizu's `Actual:`, `Expected:`,
        // `Diff:`, then `AssertionError: not deeply and strictly equivalent`): the error says
        // what went wrong.
        .map(|at| {
            if !compared(&body[at]) {
                return at;
            }
            body[at..]
                .iter()
                .position(|l| error_named(l.trim()))
                .map_or(at, |k| at + k)
        })
        .or_else(|| {
            // (A count of the run's failures, `Looks like you failed 3 tests of 5`, closes the
            // last report; it is no message of it.)
            body.iter().position(|l| {
                content(l)
                    && !crate::stated::states_counts(l)
                    && !after_message(l)
                    && !location_only(l)
                    && !bare_location(l)
                    && !source_excerpt(l)
                    && !stack_frame(l)
            })
        })?;
    message_from(body, at)
}

/// A section heading that shows the test's own code (`==== Contents of test case:`, `Source of
/// the test:`), a rule or not before it.
fn shows_the_test(line: &str) -> bool {
    let t = line.trim();
    let t = match t.split_once(' ') {
        Some((first, rest)) if rule_token(first) => rest.trim(),
        _ => t,
    };
    let lower = t.to_ascii_lowercase();
    lower.ends_with(':')
        && lower.contains("test")
        && ["contents of", "source of", "code of", "body of"]
            .iter()
            .any(|w| lower.starts_with(w))
}

/// A report's numbered item of a numbered failure (`1.1) The output should eq 8080`): figures
/// joined by dots, a closing parenthesis, words.
fn numbered_expectation(line: &str) -> bool {
    let t = line.trim_start();
    let Some((number, text)) = t.split_once(") ") else {
        return false;
    };
    number.contains('.')
        && number.split('.').all(crate::text::whole_number)
        && text.split_whitespace().count() >= 2
}

/// A field that quotes the code under test (`Form: (PARSE-INTEGER "12x")`, `Expression: a ==
/// b`): what was run, not what went wrong.
fn quotes_code(line: &str) -> bool {
    line.trim_start()
        .split_once(": ")
        .is_some_and(|(label, _)| {
            matches!(
                label,
                "Form" | "Expression" | "Expr" | "Code" | "Statement" | "Source" | "Call"
            )
        })
}

/// A line that a severity word labels, as a comment or not: `error: …`, `# error: …`, `fatal:
/// …`, with words after it.
pub(crate) fn severity_labelled(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches('#').trim_start();
    ["error: ", "ERROR: ", "Error: ", "fatal: ", "FATAL: "]
        .iter()
        .any(|label| {
            t.strip_prefix(label)
                .is_some_and(|rest| rest.split_whitespace().count() >= 2)
        })
}

/// What a line marked as an error says after its mark (`[  ERROR   ] --- text`): a bracketed
/// `ERROR`, or a failure mark before `--- `.
fn marked_error(line: &str) -> Option<&str> {
    let (mark, rest) = line.trim_start().strip_prefix('[')?.split_once(']')?;
    let mark = mark.trim().to_ascii_uppercase();
    let dashed = rest.trim_start().strip_prefix("--- ");
    let said = match mark.as_str() {
        "ERROR" => dashed.unwrap_or(rest),
        "FAIL" | "FAILED" | "FAILURE" => dashed?,
        _ => return None,
    };
    let said = said.trim();
    (!said.is_empty()).then_some(said)
}

/// The message starting at `body[at]`, whole.
pub(crate) fn message_from(body: &[String], at: usize) -> Option<String> {
    let base = indent(&body[at]);
    let mut out: Vec<String> = Vec::new();
    let first = body[at].trim();
    let first = first.strip_prefix("=> ").unwrap_or(first);
    // A Rust panic's message is on the lines after `panicked at`.
    if first.contains(" panicked at ") {
        for l in body[at + 1..]
            .iter()
            .take_while(|l| !l.trim().is_empty() && !after_message(l))
        {
            out.push(l.trim().to_owned());
            if out.len() >= MAX_MESSAGE_LINES {
                break;
            }
        }
        if !out.is_empty() {
            return Some(bounded(&out));
        }
    }
    // pytest marks a message's lines with `E`, TAP's diagnostics with `#`; continuation lines
    // carry the mark too.
    let mark = ["E ", "# "].into_iter().find(|m| first.starts_with(m));
    let marked = mark.is_some();
    let first = if marked {
        first[1..].trim_start()
    } else {
        first
    };
    out.push(first.to_owned());
    // A message that announces what follows (`Expected values to be strictly deep-equal:`), or
    // that quotes the failing statement (`Failure/Error: expect(total).to eq(5)`), goes on over
    // one blank line to the values, which say why.
    let announces = first.ends_with(':') || quotes_statement(first);
    let mut blank_seen = false;
    for l in &body[at + 1..] {
        let t = l.trim();
        if t.is_empty() && announces && !blank_seen && out.len() < MAX_MESSAGE_LINES {
            blank_seen = true;
            continue;
        }
        // The legend of the diff it announces says nothing of its own.
        let legend = [
            "+ actual - expected",
            "+ expected - actual",
            "- Expected",
            "+ Received",
            "--- Expected",
            "+++ Actual",
            "Difference (",
        ]
        .iter()
        .any(|g| t.starts_with(g) && t.len() < 40);
        if announces && legend {
            continue;
        }
        // A message that names a comparison without its values (PHPUnit's `Failed asserting
        // that two strings are identical.`) keeps the changed lines of the diff that follows.
        if t.starts_with("--- Expected") {
            let changed: Vec<String> = body[at + 1..]
                .iter()
                .map(|l| l.trim())
                .skip_while(|t| !t.starts_with("--- Expected"))
                .skip(1)
                .take_while(|t| !t.is_empty() && !after_message(t))
                .filter(|t| (t.starts_with('-') || t.starts_with('+')) && !t.starts_with("+++"))
                .take(MAX_MESSAGE_LINES - 1)
                .map(str::to_owned)
                .collect();
            out.extend(changed);
            break;
        }
        if t.is_empty()
            || (after_message(l) && !(mark == Some("# ") && t.starts_with("# ")))
            || separator(l)
            || summary(l)
            || crate::stated::states_counts(l)
            || status_name(l).is_some()
        {
            break;
        }
        if let Some(mark) = mark {
            let Some(rest) = t.strip_prefix(mark) else {
                break;
            };
            // A TAP summary (`# Looks like you failed 2 tests of 4.`) ends the diagnostics.
            if rest.trim_start().starts_with("Looks like")
                || rest.trim_start().starts_with("Failed test")
            {
                break;
            }
            out.push(rest.trim_start().to_owned());
            if out.len() >= MAX_MESSAGE_LINES {
                break;
            }
            continue;
        }
        // A continuation sits at the message's indentation or deeper, or is a `- item` list;
        // the values an announcing message shows may sit anywhere.
        // Right-aligned labels of compared values (`     got: 3` over `expected: 2`) continue
        // each other at any indentation.
        let continues = indent(l) + 2 >= base
            || t.starts_with('-')
            || (announces && blank_seen)
            || (compared(first) && compared(t));
        if !continues {
            break;
        }
        out.push(t.to_owned());
        if out.len() >= MAX_MESSAGE_LINES {
            break;
        }
    }
    Some(bounded(&out))
}

/// A line that labels one of a pair of compared values (`#          got: '29'`, `Actual: 3`).
pub(crate) fn value_label(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_whitespace() || c == '#' || c == 'E');
    let t = t.trim_start();
    [
        "got:",
        "actual:",
        "Actual:",
        "received:",
        "Received:",
        "left:",
        "right:",
        "found:",
    ]
    .iter()
    .any(|l| t.starts_with(l))
}

/// A line that shows one of the values a failed comparison compared.
pub(crate) fn compared(line: &str) -> bool {
    let t = line.trim_start();
    value_label(t) || t.starts_with("expected:") || t.starts_with("Expected:")
}

/// Whether a message line quotes the failing statement (after a label such as
/// `Failure/Error:`) rather than saying what went wrong: code that calls something and ends
/// with the call, a `;`, or a matcher (`expect(x).to eq(5)`).
pub(crate) fn quotes_statement(line: &str) -> bool {
    let code = line
        .split_once(": ")
        .filter(|(label, _)| !label.is_empty() && !label.contains(' '))
        .map_or(line, |(_, rest)| rest)
        .trim();
    code.contains('(') && (code.ends_with(')') || code.ends_with(';') || code.contains(").to"))
}

pub(crate) fn bounded(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    if text.chars().count() > MAX_MESSAGE_CHARS {
        text = text.chars().take(MAX_MESSAGE_CHARS).collect();
    }
    text
}

pub(crate) fn first_nonblank(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .map(|l| l.chars().take(300).collect())
}

/// The message after a Rust `panicked at` line, with an assertion's `left:` and `right:`.
pub(crate) fn panic_message(lines: &[String]) -> Option<String> {
    let i = lines.iter().position(|l| l.contains(" panicked at "))?;
    // The whole message: every line after `panicked at` up to the backtrace note or a blank (a
    // blank line or two before it are an assertion library's spacing, speculoos').
    let from = lines[i + 1..]
        .iter()
        .take(2)
        .take_while(|l| l.trim().is_empty())
        .count();
    let message: Vec<&str> = lines[i + 1 + from..]
        .iter()
        .map(|l| l.trim_end())
        .take_while(|l| {
            !l.trim().is_empty()
                && !l.trim_start().starts_with("note: ")
                && !l.trim_start().starts_with("stack backtrace:")
        })
        .take(crate::line::MAX_MESSAGE_LINES)
        .collect();
    if message.is_empty() {
        return None;
    }
    // A panic that says only that an assertion failed (`assertion failed`, `check failed`),
    // where the assertion library printed its report before it (`Assertion failed at a.rs:4:5`,
    // the expression, `with expansion:`): that report is the message.
    let generic = message.len() == 1 && {
        let words: Vec<&str> = message[0].split_whitespace().collect();
        words.len() <= 2 && words.last().is_some_and(|w| *w == "failed")
    };
    if generic {
        let said: Vec<String> = lines[..i]
            .iter()
            .skip_while(|l| l.trim().starts_with("---- "))
            .filter(|l| !l.trim().is_empty())
            .take(crate::line::MAX_MESSAGE_LINES)
            .map(|l| l.trim_end().to_owned())
            .collect();
        if !said.is_empty() {
            return Some(bounded(&said));
        }
    }
    Some(
        message
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n")
            .chars()
            .take(crate::line::MAX_MESSAGE_CHARS)
            .collect(),
    )
}

/// A message line with what follows it when it only announces a comparison: `Expected values
/// to be strictly equal:` or `expect(received).toEqual(expected)` gets the next lines that show
/// the values (not legends, stack frames or source excerpts), up to two.
pub(crate) fn with_detail(lines: &[String]) -> Option<String> {
    let at = lines.iter().position(|l| !l.trim().is_empty())?;
    let first = lines[at].trim();
    let announces = first.ends_with(':') || first.contains("expect(") || first.contains("Expected");
    if !announces {
        return Some(first.chars().take(300).collect());
    }
    let legend = |t: &str| {
        [
            "- Expected",
            "+ Received",
            "- Snapshot",
            "+ actual - expected",
            "Expected:",
            "Received:",
        ]
        .iter()
        .any(|p| t.starts_with(p) && t.len() < 24)
    };
    let detail: Vec<&str> = lines[at + 1..]
        .iter()
        .map(|l| l.trim())
        .take_while(|t| {
            !(t.starts_with("at ") || t.starts_with('❯') || t.starts_with('>') || t.contains(" | "))
        })
        .filter(|t| {
            !t.is_empty()
                && !legend(t)
                && !matches!(
                    *t,
                    "Array [" | "Object {" | "]" | "}" | "{" | "- {" | "+ {" | "- }" | "+ }"
                )
        })
        .take(4)
        .collect();
    Some(
        std::iter::once(first)
            .chain(detail)
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(300)
            .collect(),
    )
}

/// The first message of go test output: `file_test.go:12: text` without its location, or a
/// `panic:` line.
pub(crate) fn go_message(lines: &[String]) -> Option<String> {
    if let Some(p) = lines.iter().find(|l| l.trim().starts_with("panic: ")) {
        return Some(p.trim().chars().take(300).collect());
    }
    // The last logged line (`t.Fatal` ends the test, and `t.Log` lines come before errors),
    // with the deeper lines under it that continue it: a multi-line message, or an assertion
    // library's labelled body under a bare `file.go:12:` (`Error:`, `expected:`, `Messages:`),
    // less the lines that only say where.
    let logged = |l: &str| -> Option<String> {
        let t = l.trim();
        let (loc, rest) = t
            .split_once(": ")
            .or_else(|| t.strip_suffix(':').map(|loc| (loc, "")))?;
        loc.contains(".go:").then(|| rest.trim().to_owned())
    };
    let Some(at) = lines.iter().rposition(|l| logged(l).is_some()) else {
        return first_nonblank(lines);
    };
    let depth = indent(&lines[at]);
    let mut parts: Vec<String> = logged(&lines[at])
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    for l in &lines[at + 1..] {
        if l.trim().is_empty() || indent(l) <= depth || parts.len() >= 12 {
            break;
        }
        let t = l.trim();
        let value = t.split_once(':').map_or(t, |(_, v)| v.trim());
        let place = value.contains(".go:")
            && value
                .rsplit(':')
                .next()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
        if !place {
            parts.push(crate::text::one_spaced(t));
        }
    }
    if parts.is_empty() {
        return first_nonblank(lines);
    }
    Some(parts.join("\n").chars().take(1200).collect())
}

/// A message kept whole up to the segmenter's bounds.
pub(crate) fn bounded_message(text: &str) -> String {
    // (A drawn rule that leads the message, `――――― TypeError: …`, is the runner's decoration;
    // one of ASCII dashes, `--- FAIL: …`, is part of what the runner says.)
    let text = text
        .split_once(' ')
        .filter(|(lead, rest)| {
            lead.chars().count() >= 3 && !lead.is_ascii() && rule_token(lead) && !rest.is_empty()
        })
        .map_or(text, |(_, rest)| rest);
    let lines: Vec<&str> = text.lines().take(crate::line::MAX_MESSAGE_LINES).collect();
    lines
        .join("\n")
        .chars()
        .take(crate::line::MAX_MESSAGE_CHARS)
        .collect()
}

/// A heading that names a test in words, `Keyword: name` (`TEST CASE:  adds numbers`,
/// `Scenario: login`, `Test: parses`), or a short phrase ending at a qualified name (`In
/// Suite::test:`, [`qualified_heading`]): the name. The keyword is one to three words, all
/// title-case or all capitals, and not what a message or a value is labelled with.
pub(crate) fn heading_name(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(name) = qualified_heading(t) {
        return Some(name);
    }
    let (keyword, rest) = t.split_once(':')?;
    let words: Vec<&str> = keyword.split(' ').collect();
    let cased = |w: &&str| {
        let mut cs = w.chars();
        cs.next().is_some_and(|c| c.is_ascii_uppercase())
            && (cs.clone().all(|c| c.is_ascii_lowercase()) || cs.all(|c| c.is_ascii_uppercase()))
    };
    let named = (1..=3).contains(&words.len())
        && words.iter().all(cased)
        && words.iter().any(|w| {
            let w = w.to_ascii_lowercase();
            [
                "test", "case", "scenario", "example", "spec", "it", "describe", "suite",
            ]
            .contains(&w.as_str())
        });
    if !named
        || words
            .last()
            .is_some_and(|w| w.eq_ignore_ascii_case("suite"))
    {
        return None;
    }
    let name = rest.split("  #").next().unwrap_or(rest).trim();
    name_like(name).then(|| name.to_owned())
}

/// A short phrase that ends in a colon at a qualified name (`In WidgetTest::testSize:`,
/// `In Gear.teeth:`): a heading naming what is printed under it. Only a name of identifiers
/// joined by `::` or `.`, and no file (`a.h`).
fn qualified_heading(t: &str) -> Option<String> {
    let phrase = t.strip_suffix(':')?;
    let words: Vec<&str> = phrase.split(' ').collect();
    let last = *words.last()?;
    let parts: Vec<&str> = last.split("::").flat_map(|p| p.split('.')).collect();
    let identifier = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let qualified = parts.len() >= 2
        && parts.iter().all(|p| identifier(p))
        && parts.last().is_some_and(|p| p.len() > 3);
    ((2..=3).contains(&words.len()) && words[0].chars().next()?.is_uppercase() && qualified)
        .then(|| last.to_owned())
}

/// A test called by name right after a verdict word at a line's start (`ERROR testX()
/// returned non-zero`, `tool:FAILED test_y() …`): the test's name.
fn called_after_verdict(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    let verdict = words.next()?;
    let verdict = verdict.rsplit(':').next().unwrap_or(verdict);
    if !failed_verdict(verdict) || verdict.chars().any(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let called = words.next()?.strip_suffix("()")?;
    let ident = !called.is_empty()
        && called
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && called
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    // Something must follow the call: a sentence about it, not a call alone.
    (ident && words.next().is_some()).then(|| called.to_owned())
}

/// `Failure ('test-stats.R:11'): zscore is centred` (testthat's): a verdict word, the place in
/// parentheses (quoted or not), then the test's name.
fn placed_verdict(t: &str) -> Option<String> {
    let (verdict, rest) = t.split_once(" (")?;
    if !matches!(verdict, "Failure" | "Error" | "Failed" | "FAIL" | "ERROR") {
        return None;
    }
    let (place, name) = rest.split_once("): ")?;
    let name = name.trim();
    (bare_location(place.trim_matches(['\'', '"'])) && name_like(name)).then(|| name.to_owned())
}

/// `Failure in a.b.C.test_x`, `Error in tests.test_io.IoTest.test_read` (green): a verdict
/// word, `in`, and a test's dotted id, alone: the id.
fn verdict_in_id(t: &str) -> Option<String> {
    ["Failure in ", "Error in ", "Failed in ", "Errored in "]
        .iter()
        .find_map(|verdict| {
            let id = t.strip_prefix(verdict)?.trim().trim_end_matches(':');
            let dotted = id.contains('.')
                && id.split('.').all(|p| {
                    p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                        && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            dotted.then(|| id.to_owned())
        })
}

//! The failure count a log states (issue 46): nearly every runner, build tool and linter says
//! how many things failed somewhere (`5 failed`, `failures=5`, `# fail 5`, `5 failing`, `Tests:
//! 5 failed`, `5 examples, 5 failures`, `3 problems (3 errors, 0 warnings)`), in words that are
//! the same across tools. A reading of the log whose failures agree with that count is the one
//! to trust; this module only reads the counts, without knowing any tool.

use std::collections::HashMap;

/// Most counts kept for a log (each line's own readings and the sums over lines of one shape).
pub(crate) const MAX_COUNTS: usize = 32;

/// Most words a summary line may carry besides counts, outcomes and joining words.
pub(crate) const MAX_OTHER_WORDS: usize = 3;

/// The counts a log states, each a possible number of failures: a line's failures, its errors,
/// both, or its problems; and the same summed over the lines of one shape (a runner that states
/// its count once per package or per binary).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stated {
    counts: Vec<usize>,
}

impl Stated {
    /// Whether the log states a count at all.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Whether `n` failures agree with a count the log states.
    pub fn agrees(&self, n: usize) -> bool {
        self.counts.binary_search(&n).is_ok()
    }

    /// The stated count nearest to `n` (the larger of two at the same distance).
    pub fn nearest(&self, n: usize) -> Option<usize> {
        self.counts
            .iter()
            .copied()
            .min_by_key(|&c| (c.abs_diff(n), std::cmp::Reverse(c)))
    }

    /// The counts, smallest first.
    pub fn counts(&self) -> &[usize] {
        &self.counts
    }
}

/// What one summary line counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LineCounts {
    failed: usize,
    errors: usize,
    problems: usize,
    /// Warnings, which are the failures when nothing else is (a linter that fails on them).
    warnings: usize,
}

impl LineCounts {
    /// The failure counts a line can mean. Failures and errors stated together on one line
    /// (`failures=2, errors=1`, `5 failed, 2 errors`) are one count of failing tests: either
    /// alone would agree with a reading that lost the other kind.
    fn readings(self) -> [usize; 5] {
        let both = self.failed > 0 && self.errors > 0;
        [
            if both { 0 } else { self.failed },
            if both { 0 } else { self.errors },
            self.failed + self.errors,
            self.problems,
            // Warnings are the failures when nothing else is; beside a tool's errors they are
            // its findings too (D-184), counted with them.
            if self.failed + self.errors + self.problems == 0 {
                self.warnings
            } else if self.failed == 0 && self.warnings > 0 {
                self.errors + self.problems + self.warnings
            } else {
                0
            },
        ]
    }

    fn count(&mut self, class: Outcome, n: usize) {
        match class {
            Outcome::Failed => self.failed += n,
            Outcome::Error => self.errors += n,
            Outcome::Problem => self.problems += n,
            Outcome::Warning => self.warnings += n,
            Outcome::Other => {}
        }
    }

    fn add(&mut self, other: LineCounts) {
        self.failed += other.failed;
        self.errors += other.errors;
        self.problems += other.problems;
        self.warnings += other.warnings;
    }
}

/// The class of an outcome word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Failed,
    Error,
    Problem,
    Warning,
    /// Counted outcomes that are no failure (`passed`, `skipped`, `total`): they make a line a
    /// summary, and add nothing.
    Other,
}

pub(crate) fn outcome(word: &str) -> Option<Outcome> {
    Some(match word {
        "failed" | "failing" | "failures" | "failure" | "fail" | "fails" | "broken" | "crashed"
        | "regressions" => Outcome::Failed,
        "errors" | "error" | "errored" | "erroneous" | "exceptions" | "exception" => Outcome::Error,
        "problems" | "problem" | "issues" | "violations" | "offenses" | "offense" | "findings"
        | "hints" | "hint" | "diagnostics" | "diagnostic" | "hits" => Outcome::Problem,
        "warnings" | "warning" => Outcome::Warning,
        "passed" | "passing" | "pass" | "passes" | "ok" | "skipped" | "skip" | "pending"
        | "todo" | "total" | "warn" | "succeeded" | "success" | "successes" | "successful"
        | "xfailed" | "xpassed" | "deselected" | "ignored" | "incomplete" | "risky" | "flaky"
        | "tests" | "test" | "examples" | "example" | "specs" | "spec" | "specifications"
        | "requirements" | "assertions" | "cases" | "scenarios" | "steps" | "run" | "ran"
        | "modules" | "module" | "suites" | "suite" | "checks" | "check" => Outcome::Other,
        _ => return None,
    })
}

/// Outcome words that say a count passed.
const PASSING: [&str; 6] = ["passed", "passing", "pass", "passes", "succeeded", "ok"];

/// Words that join a summary's counts without saying anything else.
pub(crate) const FILLER: [&str; 34] = [
    "in",
    "out",
    "s",
    "ms",
    "sec",
    "file",
    "files",
    "found",
    "of",
    "and",
    "with",
    "the",
    "generated",
    "summary",
    "result",
    "results",
    "checked",
    "source",
    "due",
    "to",
    "previous",
    // Verbs that report a count (`*** 4 failures are detected in the test module "calc"`,
    // `there were 3 errors`).
    "are",
    "were",
    "was",
    "is",
    "there",
    "detected",
    "occurred",
    "reported",
    "encountered",
    // Verbs that report what was looked at (`3 files inspected, 4 offenses detected`).
    "inspected",
    "scanned",
    "analyzed",
    "linted",
];

/// What a build or task runner counts, whose failures hold the failures a log reports: a
/// count of them is no count of failures.
const WRAPPER_UNITS: [&str; 14] = [
    "operation",
    "operations",
    "project",
    "projects",
    "package",
    "packages",
    "task",
    "tasks",
    "target",
    "targets",
    "job",
    "jobs",
    "workspace",
    "workspaces",
];

/// What a count bound to a label is taken over (`Errors detected in this test: 3`, ptester's):
/// words the label may end with between its outcome and the count.
const SCOPE: [&str; 6] = ["this", "test", "suite", "run", "group", "module"];

/// What an outcome counts, between the outcome and its count (`Failed tests: 3`, `Failed
/// checks: 6`): the outcome is the count's. (Not what holds failures: suites, files, rules.)
const UNITS: [&str; 11] = [
    "tests",
    "checks",
    "check",
    "cases",
    "specs",
    "examples",
    "scenarios",
    "assertions",
    "expectations",
    "steps",
    "expects",
];

/// One token of a line: a number or a lowercase word.
#[derive(Clone, Debug)]
pub(crate) enum Token {
    Number(usize),
    Word(String),
}

/// What separates a token from the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sep {
    /// Whitespace only (or the line's start).
    Space,
    /// `=` or `:` (`failures=2`, `Failures: 2`).
    Bind,
    /// Other punctuation (`,`, `;`, `|`, `.`): the two belong to different counts.
    Punct,
    /// A `/` alone between two numbers (`4/5 modules FAILED`): a count of a total.
    Of,
}

pub(crate) fn tokens(line: &str) -> Vec<(Token, Sep)> {
    let mut out = Vec::new();
    let mut sep = Sep::Space;
    let mut chars = line.char_indices().peekable();
    while let Some(&(at, c)) = chars.peek() {
        if c.is_ascii_alphanumeric() {
            let mut end = at;
            while let Some(&(i, d)) = chars.peek() {
                if !d.is_ascii_alphanumeric() {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            let word = &line[at..end];
            // A plural in parentheses is the word's (`16 failure(s)`, `2 match(es)`).
            if let Some(plural) = ["(s)", "(es)"].iter().find(|p| line[end..].starts_with(*p)) {
                for _ in 0..plural.len() {
                    chars.next();
                }
            }
            // A number glued by a colon to a word (`1:codes:0:sku prefix`, HUnit's test paths)
            // is part of an id, not a count.
            // So is one a hyphen or an underscore glues to the word before it (`test-2
            // failed: …`, a test's name, not a count of two).
            let glued = line[end..]
                .strip_prefix(':')
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
                || line[..at]
                    .strip_suffix(['-', '_'])
                    .is_some_and(|b| b.ends_with(|c: char| c.is_ascii_alphanumeric()));
            let token = match word.parse::<usize>() {
                Ok(n) if word.len() <= 9 && !glued => Token::Number(n),
                _ => Token::Word(word.to_ascii_lowercase()),
            };
            out.push((token, sep));
            sep = Sep::Space;
        } else {
            // A tab binds too: a table's columns put each label before its count
            // (`strings.test:	Total	8	Passed	2	Skipped	1	Failed	5`).
            let after_number = matches!(out.last(), Some((Token::Number(_), _)));
            if c == '=' || c == ':' || (c == '\t' && sep == Sep::Space) {
                sep = Sep::Bind;
            } else if c == '/'
                && sep == Sep::Space
                && after_number
                && at > 0
                && !line[..at].ends_with(char::is_whitespace)
            {
                sep = Sep::Of;
            } else if !c.is_whitespace() && matches!(sep, Sep::Space | Sep::Of) {
                sep = Sep::Punct;
            }
            chars.next();
        }
    }
    negated(out)
}

/// A passing word negated is a failure: `5 of 8 tests did not pass` counts 5 failed, as `5 of
/// 8 tests failed` does (`did not pass`, `not passed`, `didn t succeed` read as `failed`).
fn negated(tokens: Vec<(Token, Sep)>) -> Vec<(Token, Sep)> {
    fn word(t: &(Token, Sep)) -> Option<&str> {
        match &t.0 {
            Token::Word(w) => Some(w.as_str()),
            Token::Number(_) => None,
        }
    }
    let passing = |w: &str| matches!(w, "pass" | "passed" | "succeed" | "succeeded");
    let mut out: Vec<(Token, Sep)> = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        let not_at = match word(&tokens[k]) {
            Some("did" | "does" | "do") if tokens.get(k + 1).and_then(word) == Some("not") => {
                Some(k + 1)
            }
            Some("didn" | "doesn") if tokens.get(k + 1).and_then(word) == Some("t") => Some(k + 1),
            Some("not") => Some(k),
            _ => None,
        };
        if let Some(n) = not_at
            && tokens.get(n + 1).and_then(word).is_some_and(passing)
        {
            out.push((Token::Word("failed".into()), tokens[k].1));
            k = n + 2;
            continue;
        }
        out.push(tokens[k].clone());
        k += 1;
    }
    out
}

/// `fail 4 - name`, `pass 3 - name`, `ok 2 - name`: a verdict word, the test's number, a dash.
fn numbered_verdict_row(line: &str) -> bool {
    crate::text::numbered_row(line).is_some_and(|(verdict, _)| {
        matches!(
            verdict.as_str(),
            "fail" | "failed" | "pass" | "passed" | "ok" | "error" | "skip" | "todo"
        )
    })
}

/// What a line counts, when it is a summary of counts: each number with the outcome word it
/// belongs to (`failures=2` and `Failures: 2` bind the word before; `5 failed` the word after;
/// `# fail 5` the word before; never across `,` `;` `|`), and no more than a few other words.
pub(crate) fn line_counts(line: &str) -> Option<LineCounts> {
    if line.len() > 400 {
        return None;
    }
    // A test's row numbered after its verdict (`fail 4 - name (1ms)`, `pass 3 - name`, as TAP's
    // `not ok 4 - name`) says how that test went, not how many did.
    if numbered_verdict_row(line) {
        return None;
    }
    // A line a failure mark opens that counts something (`✖ Found 4 circular dependencies!`,
    // `✗ 3 broken links`) counts failures, whatever it counts.
    if let Some(n) = marked_count(line) {
        let mut counts = LineCounts::default();
        counts.count(Outcome::Problem, n);
        return Some(counts);
    }
    // Counts closed by the total of what holds tests (`0 skipped, 2 failed, 0 passed (2
    // suites)`) count those, not failures, as a wrapper's units do: a summary that counts no
    // failure.
    if counts_containers(line) {
        return Some(LineCounts::default());
    }
    // make's report of a failed target ends in the command's exit status, no count (`make:
    // *** [Makefile:21: app] Error 2`).
    if line.contains("*** [") && line.trim_end().rsplit_once("] Error ").is_some() {
        return None;
    }
    // A table's row of a label and its count (`Fail     | 4`, `| Errors | 2 |`) binds the two
    // across the column's bar.
    if let Some((label, n)) = table_row(line) {
        return sentence_counts(&format!("{label}: {n}"));
    }
    // A summary's first sentence states the counts; what the next says is another matter
    // (`Failed: 16 failure(s), 1 warning(s). Last profile that met … was 'min'.`).
    if let Some(first) = first_sentence(line) {
        return sentence_counts(first).or_else(|| sentence_counts(line));
    }
    // Clauses a semicolon separates each say one thing (`0 packages and 1 specfiles checked;
    // 3 errors, 7 warnings, 3 badness; has taken 0.0 s`, rpmlint's): the one of counts counts.
    // Counts before a colon may be followed by the list of what they count (`4 out of 10
    // total tests failed: A, B, C, D`, cl-rt's): the counts end in their outcome word.
    sentence_counts(line)
        .or_else(|| {
            line.contains("; ")
                .then(|| line.split("; ").find_map(sentence_counts))
                .flatten()
        })
        .or_else(|| {
            let (head, list) = line.split_once(": ")?;
            let last = head.split_whitespace().last()?.to_ascii_lowercase();
            (list.contains(", ") && outcome(&last).is_some_and(|o| o != Outcome::Other))
                .then(|| sentence_counts(head))
                .flatten()
        })
}

/// Whether a line's counts end in a parenthesized total of suites, files or a wrapper's units
/// (`(2 suites)`, `(3 files)`).
fn counts_containers(line: &str) -> bool {
    let Some(inner) = line
        .trim_end()
        .strip_suffix(')')
        .and_then(|l| l.rsplit_once('(').map(|(_, inner)| inner))
    else {
        return false;
    };
    let mut words = inner.split_whitespace();
    let (Some(n), Some(unit), None) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    crate::text::whole_number(n)
        && (["suites", "suite", "files", "file"].contains(&unit) || WRAPPER_UNITS.contains(&unit))
}

/// The count on a short line a failure mark opens: one number, first or after a verb that
/// reports it, and what it counts after it (`✖ Found 4 circular dependencies!`, `✗ 3 broken
/// links`), six words at most, none of them a place or a name (letters only besides it).
pub(crate) fn marked_count(line: &str) -> Option<usize> {
    let t = line.trim();
    let rest = crate::text::FAILURE_MARKS
        .iter()
        .find_map(|m| t.strip_prefix(m))?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.is_empty() || words.len() > 6 {
        return None;
    }
    let mut numbers = words
        .iter()
        .enumerate()
        .filter(|(_, w)| crate::text::whole_number(w));
    let (at, n) = numbers.next()?;
    let lettered = words.iter().enumerate().all(|(k, w)| {
        k == at
            || w.trim_end_matches(['!', '.', ':'])
                .chars()
                .all(|c| c.is_alphabetic() || c == '-')
    });
    // (The number first, or after a verb that reports it: `❌ not ok 2 should equal` is a
    // TAP point's number.)
    let reported = at == 0
        || (at == 1
            && matches!(
                words[0].to_ascii_lowercase().as_str(),
                "found" | "detected" | "there" | "got"
            ));
    (reported && at + 1 < words.len() && numbers.next().is_none() && lettered)
        .then(|| n.parse().ok())
        .flatten()
}

/// A two-column row of a table, `label | number` between optional outer bars: the label and
/// the number.
fn table_row(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    let (label, n) = t.split_once('|')?;
    let (label, n) = (label.trim(), n.trim());
    (!label.is_empty()
        && label.chars().all(|c| c.is_ascii_alphabetic() || c == ' ')
        && crate::text::whole_number(n))
    .then_some((label, n))
}

/// The line up to the end of its first sentence, when another follows (`. ` then a capital).
fn first_sentence(line: &str) -> Option<&str> {
    line.match_indices(". ").find_map(|(at, _)| {
        line[at + 2..]
            .starts_with(|c: char| c.is_ascii_uppercase())
            .then(|| &line[..at])
    })
}

fn sentence_counts(line: &str) -> Option<LineCounts> {
    let tokens = tokens(line);
    let word = |k: usize| match tokens.get(k) {
        Some((Token::Word(w), _)) => outcome(w).map(|o| (k, o)),
        _ => None,
    };
    let mut counts = LineCounts::default();
    let mut used = vec![false; tokens.len()];
    let mut counted = false;
    let mut pairs = 0;
    // A count a line restates (`7 out of 10 tests failed (7 failures)`) is one count.
    let mut seen: Vec<(Outcome, usize)> = Vec::new();
    let once = |counts: &mut LineCounts, seen: &mut Vec<(Outcome, usize)>, class, n| {
        if !seen.contains(&(class, n)) {
            seen.push((class, n));
            counts.count(class, n);
        }
    };
    for (k, (token, sep)) in tokens.iter().enumerate() {
        let Token::Number(n) = token else {
            continue;
        };
        // The total of a count already read (`of 5`).
        if used[k] {
            continue;
        }
        // A count of a wrapper's units (`FAILURE: 3 operations`, `2 tasks failed`) counts
        // the projects or tasks that failed, not the failures inside them.
        if matches!(tokens.get(k + 1), Some((Token::Word(w), _)) if WRAPPER_UNITS.contains(&w.as_str()))
        {
            continue;
        }
        // The outcome word before a number; bound to it (`Total errors found: 9`), across the
        // joining words between.
        let before = if matches!(sep, Sep::Punct | Sep::Of) {
            None
        } else {
            let mut b = k.checked_sub(1);
            while *sep == Sep::Bind
                && let Some(j) = b
                && let Some((Token::Word(w), s)) = tokens.get(j)
                && (FILLER.contains(&w.as_str())
                    || SCOPE.contains(&w.as_str())
                    || UNITS.contains(&w.as_str()))
                && *s != Sep::Punct
                && j > 0
            {
                b = Some(j - 1);
            }
            b.and_then(word)
        };
        // `2 of 5 tests failed`, `2 out of 5 tests failed`, `4/5 modules FAILED`: the first
        // number counts the outcome after the second (what is counted may stand between).
        let total = match (tokens.get(k + 1), tokens.get(k + 2), tokens.get(k + 3)) {
            (Some((Token::Word(of), _)), Some((Token::Number(_), _)), _) if of == "of" => {
                Some(k + 2)
            }
            (
                Some((Token::Word(out), _)),
                Some((Token::Word(of), _)),
                Some((Token::Number(_), _)),
            ) if out == "out" && of == "of" => Some(k + 3),
            (Some((Token::Number(_), Sep::Of)), _, _) => Some(k + 1),
            _ => None,
        };
        if let Some(m) = total
            && let Some((w, class)) = counted_after(&word, m)
            && class != Outcome::Other
        {
            for u in &mut used[k..=m] {
                *u = true;
            }
            used[w] = true;
            counted = true;
            pairs += 1;
            once(&mut counts, &mut seen, class, *n);
            continue;
        }
        // `4/8 tests passed`, `3 of 7 assertions passed`: what did not pass of the total
        // failed.
        if let Some(m) = total
            && let Some((Token::Number(all), _)) = tokens.get(m)
            && let Some((w, _)) = counted_after(&word, m)
            && matches!(&tokens[w].0, Token::Word(p) if PASSING.contains(&p.as_str()))
            && all > n
            && !tokens.iter().any(|(t, _)| matches!(t, Token::Word(w) if outcome(w).is_some_and(|o| o != Outcome::Other)))
        {
            for u in &mut used[k..=m] {
                *u = true;
            }
            used[w] = true;
            counted = true;
            pairs += 1;
            once(&mut counts, &mut seen, Outcome::Failed, all - n);
            continue;
        }
        let after = outcome_after(&tokens, k, &mut used);
        // A word that labels the next count (`Run: 7   Failure total: 6`) is not this one's.
        let after = after.filter(|&(a, _)| !labels_next(&tokens, a));
        let telling = |w: Option<(usize, Outcome)>| w.is_some_and(|(_, o)| o != Outcome::Other);
        let pick = match (before, after) {
            (Some(b), Some(a)) => Some(if telling(before) != telling(after) {
                if telling(before) { b } else { a }
            } else if *sep == Sep::Bind {
                b
            } else {
                a
            }),
            (b, a) => a.or(b),
        };
        used[k] = true;
        let Some((w, class)) = pick else {
            continue;
        };
        used[w] = true;
        counted = true;
        pairs += 1;
        once(&mut counts, &mut seen, class, *n);
    }
    if let Some(n) = cause_count(&tokens) {
        let mut cause = LineCounts::default();
        cause.count(Outcome::Error, n);
        return Some(cause);
    }
    // A label before the counts (`Testing proj.ct: TEST COMPLETE, 1 ok, 6 failed`) is what they
    // are of: its words are not the summary's, when what follows counts two outcomes or more
    // (`make: *** [Makefile:4: a.o] Error 1` is an exit status, not a count).
    let first_number = tokens
        .iter()
        .position(|(t, _)| matches!(t, Token::Number(_)))
        .unwrap_or(0);
    let label_end = (1..first_number)
        .rev()
        .find(|&j| {
            tokens[j].1 == Sep::Bind
                && matches!(&tokens[j - 1].0, Token::Word(w) if outcome(w).is_none())
        })
        .unwrap_or(0);
    let label_end = if pairs >= 2 { label_end } else { 0 };
    let other = tokens
        .iter()
        .zip(&used)
        .skip(label_end)
        .filter(|((t, _), used)| match t {
            Token::Word(w) => !**used && outcome(w).is_none() && !FILLER.contains(&w.as_str()),
            Token::Number(_) => false,
        })
        .count();
    (counted && other <= MAX_OTHER_WORDS && counts != LineCounts::default()).then_some(counts)
}

/// The outcome word the number at `k` counts when it comes after it: `5 tests failed`, `5
/// examples failed` (what is counted, then its outcome); and one or two words that say what
/// kind (`15 code warnings`, `7 bashate error(s) found`, `6 code style errors found`), of
/// findings only (`2 targets failed` counts test binaries, not tests). Marks the words it
/// takes in `used`.
fn outcome_after(tokens: &[(Token, Sep)], k: usize, used: &mut [bool]) -> Option<(usize, Outcome)> {
    let word = |j: usize| match tokens.get(j) {
        Some((Token::Word(w), _)) => outcome(w).map(|o| (j, o)),
        _ => None,
    };
    let Some((Token::Word(w), Sep::Space)) = tokens.get(k + 1) else {
        return None;
    };
    match word(k + 1) {
        Some((a, class)) if class != Outcome::Other => Some((a, class)),
        Some((a, class)) => match tokens.get(k + 2) {
            Some((_, Sep::Space)) => word(k + 2)
                .filter(|(_, c)| *c != Outcome::Other)
                .inspect(|_| used[a] = true)
                .or(Some((a, class))),
            _ => Some((a, class)),
        },
        None if !FILLER.contains(&w.as_str()) => {
            let finding =
                |j: usize| word(j).filter(|(_, c)| !matches!(c, Outcome::Other | Outcome::Failed));
            match (tokens.get(k + 2), tokens.get(k + 3)) {
                (Some((_, Sep::Space)), _) if finding(k + 2).is_some() => {
                    used[k + 1] = true;
                    finding(k + 2)
                }
                (Some((Token::Word(_), Sep::Space)), Some((_, Sep::Space)))
                    if word(k + 2).is_none() && finding(k + 3).is_some() =>
                {
                    used[k + 1] = true;
                    used[k + 2] = true;
                    finding(k + 3)
                }
                _ => None,
            }
        }
        None => None,
    }
}

/// Whether the word at `a` labels the count after it: words joined by spaces, then a number
/// bound to them (`Failure total: 6`).
fn labels_next(tokens: &[(Token, Sep)], a: usize) -> bool {
    let mut j = a + 1;
    while j < tokens.len() && j - a <= 3 && matches!(tokens[j], (Token::Word(_), Sep::Space)) {
        j += 1;
    }
    matches!(tokens.get(j), Some((Token::Number(_), Sep::Bind)))
}

/// The outcome counted after the total at `m` (`of 5 tests failed`: the word after the total,
/// or the one after that when the first says what was counted).
fn counted_after(
    word: &dyn Fn(usize) -> Option<(usize, Outcome)>,
    m: usize,
) -> Option<(usize, Outcome)> {
    // (Words that only say what was counted may stand between: `4 out of 10 total tests
    // failed`.)
    match word(m + 1) {
        Some((_, Outcome::Other)) => match word(m + 2) {
            Some((_, Outcome::Other)) => word(m + 3)
                .filter(|&(_, o)| o != Outcome::Other)
                .or(word(m + 2)),
            found => found.or(word(m + 1)),
        },
        Some(found) => Some(found),
        None => word(m + 2),
    }
}

/// A count given as the cause of what the line says (`error: could not compile `x` due to 3
/// previous errors`): the line is that count's summary, whatever else it says.
fn cause_count(tokens: &[(Token, Sep)]) -> Option<usize> {
    tokens
        .windows(5)
        .find_map(|w| match (&w[0].0, &w[1].0, &w[2].0, &w[3].0, &w[4].0) {
            (Token::Word(a), Token::Word(b), Token::Number(n), Token::Word(c), Token::Word(d))
                if a == "due"
                    && b == "to"
                    && c == "previous"
                    && outcome(d) == Some(Outcome::Error) =>
            {
                Some(*n)
            }
            _ => None,
        })
}

/// Whether a line only says how many errors came before it (`… due to 3 previous errors`).
pub fn counts_what_came_before(line: &str) -> bool {
    line.len() <= 400 && cause_count(&tokens(line)).is_some()
}

/// Whether a line states counts of outcomes (a run's summary).
pub fn states_counts(line: &str) -> bool {
    line_counts(line).is_some()
}

/// The shape of a line of counts, which lines of one shape share to be summed: its words with
/// the numbers masked, less a verdict word it opens with (each test's own `FAILURE passes: 0,
/// fails: 1` and `OK passes: 1, fails: 0` are one shape).
fn count_shape(line: &str) -> String {
    let t = line.trim();
    let rest = t.split_once(' ').and_then(|(first, rest)| {
        (first.chars().all(|c| c.is_ascii_uppercase())
            && outcome(&first.to_ascii_lowercase()).is_some())
        .then_some(rest)
    });
    crate::text::digits_masked(rest.unwrap_or(t))
}

/// The counts `lines` state. Linear in the lines.
pub fn stated(lines: &[String]) -> Stated {
    let mut counts: Vec<usize> = Vec::new();
    let mut sums: HashMap<String, (usize, LineCounts)> = HashMap::new();
    // Every summary of the log together (several suites, each stating its own).
    let mut all = (0, LineCounts::default());
    for line in lines {
        let Some(c) = line_counts(line) else {
            continue;
        };
        counts.extend(c.readings());
        let entry = sums.entry(count_shape(line)).or_default();
        entry.0 += 1;
        entry.1.add(c);
        all.0 += 1;
        all.1.add(c);
    }
    for (n, c) in sums.into_values().chain(std::iter::once(all)) {
        if n > 1 {
            counts.extend(c.readings());
        }
    }
    counts.retain(|&c| c > 0);
    counts.sort_unstable();
    counts.dedup();
    counts.truncate(MAX_COUNTS);
    Stated { counts }
}

/// How a reading's failures agree with what the log states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The log states no count.
    Unstated,
    /// As many failures as a count the log states.
    Agrees { stated: usize },
    /// A number the log does not state; `stated` is the nearest it does.
    Differs { stated: usize },
}

impl Agreement {
    /// The agreement of `found` failures with `stated`.
    pub fn of(stated: &Stated, found: usize) -> Self {
        match stated.nearest(found) {
            None => Agreement::Unstated,
            Some(_) if stated.agrees(found) => Agreement::Agrees { stated: found },
            Some(n) => Agreement::Differs { stated: n },
        }
    }

    /// The stated count it was judged against, if any.
    pub fn stated(self) -> Option<usize> {
        match self {
            Agreement::Unstated => None,
            Agreement::Agrees { stated } | Agreement::Differs { stated } => Some(stated),
        }
    }

    /// `agrees`, `differs` or `unstated`, as the summary says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::Unstated => "unstated",
            Agreement::Agrees { .. } => "agrees",
            Agreement::Differs { .. } => "differs",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_the_count_when_nothing_else_failed() {
        let c = line_counts("Total: 2 warnings / 0 errors in 2 files").unwrap();
        assert_eq!(c.readings(), [0, 0, 0, 0, 2]);
        let c = line_counts("3 errors, 2 warnings").unwrap();
        assert_eq!(c.readings(), [0, 3, 3, 0, 5]);
    }

    /// Failures and errors stated together count failing tests together: a reading that lost
    /// the errors (or the failures) does not agree.
    #[test]
    fn failures_and_errors_on_one_line_are_one_count() {
        let c = line_counts("FAILED (failures=2, errors=1)").unwrap();
        assert_eq!(c.readings(), [0, 0, 3, 0, 0]);
        let c = line_counts("5 failed, 2 passed").unwrap();
        assert_eq!(c.readings(), [5, 0, 5, 0, 0]);
    }

    /// A table's rows of a label and its count (`Fail | 4`) state the count; each test's own
    /// verdict with counts (`FAILURE passes: 0, fails: 1, errors: 0`, `OK passes: 1, …`) are
    /// one shape, summed whatever verdict opens them.
    #[test]
    fn table_rows_and_each_tests_verdict_counts_are_summed() {
        assert_eq!(counts("Fail            | 4"), Some((4, 0, 0)));
        assert_eq!(counts("| Errors | 2 |"), Some((0, 2, 0)));
        assert_eq!(counts("port_013 | Error | 5 | Move"), None);
        let lines: Vec<String> = [
            "OK passes: 1, fails: 0, errors: 0",
            "FAILURE passes: 0, fails: 1, errors: 0",
            "FAILURE passes: 1, fails: 1, errors: 0",
            "ERROR passes: 0, fails: 0, errors: 1",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(stated(&lines).agrees(3), "{:?}", stated(&lines));
    }

    fn counts(line: &str) -> Option<(usize, usize, usize)> {
        line_counts(line).map(|c| (c.failed, c.errors, c.problems))
    }

    #[test]
    fn summaries_of_every_shape_state_their_counts() {
        for (line, want) in [
            ("5 failed, 2 passed in 0.12s", (5, 0, 0)),
            ("FAILED (failures=2, errors=1)", (2, 1, 0)),
            ("# fail 5", (5, 0, 0)),
            ("  5 failing", (5, 0, 0)),
            ("Tests:       5 failed, 3 passed, 8 total", (5, 0, 0)),
            ("5 examples, 5 failures", (5, 0, 0)),
            ("Errors detected in this test: 5 UNEXPECTED: 5", (0, 5, 0)),
            ("6 code style errors found.", (0, 6, 0)),
            (
                "Failed: 16 failure(s), 1 warning(s) in 1 files processed of 1 encountered. \
                 Last profile that met the validation criteria was 'min'.",
                (16, 0, 0),
            ),
            (
                "Tests run: 9, Failures: 2, Errors: 1, Skipped: 0",
                (2, 1, 0),
            ),
            ("✖ 3 problems (3 errors, 0 warnings)", (0, 3, 3)),
            ("[ FAIL 3 | WARN 0 | SKIP 0 | PASS 5 ]", (3, 0, 0)),
            // Exceptions are errors (TUT's `exceptions:1 failures:5`).
            ("tests summary: exceptions:1 failures:5 ok:3", (5, 1, 0)),
            // A word that labels the next count is not the count before it (CppUnit's), and a
            // sentence's end parts them (slash's `3 erroneous. Total duration: 00:00:00`).
            (
                "= Session ended. 3 successful, 1 skipped, 3 failed, 3 erroneous. Total duration: 00:00:00 =",
                (3, 3, 0),
            ),
            (
                "Run: 7   Failure total: 6   Failures: 5   Errors: 1",
                (5, 1, 0),
            ),
            // A count reported in a sentence (Boost.Test), a count bound across joining
            // words (cpplint).
            (
                "*** 4 failures are detected in the test module \"calc\"",
                (4, 0, 0),
            ),
            ("Total errors found: 9", (0, 9, 0)),
            (
                "error: could not compile `clip` (bin \"clip\") due to 3 previous errors",
                (0, 3, 0),
            ),
            (
                "Found 2 errors in 1 file (checked 3 source files)",
                (0, 2, 0),
            ),
            (
                "test result: FAILED. 1 passed; 2 failed; 0 ignored",
                (2, 0, 0),
            ),
            ("2 of 5 tests failed", (2, 0, 0)),
            // Counts said in other words: offenses, erroneous tests.
            ("3 files inspected, 4 offenses detected", (0, 0, 4)),
            ("2 failed, 1 erroneous", (2, 1, 0)),
            // What was counted between an outcome and its count, or a count and its outcome.
            ("Failed tests: 3", (3, 0, 0)),
            (
                "Passed checks: 0, Failed checks: 6, Skipped checks: 0",
                (6, 0, 0),
            ),
            ("3 checks failed", (3, 0, 0)),
            ("0 skipped, 4 failed, 1 passed (5 tests)", (4, 0, 0)),
        ] {
            assert_eq!(counts(line), Some(want), "{line}");
        }
        // What failed may be anything: cargo's test binaries are no failed tests, nor are
        // the suites a total counts.
        assert_ne!(counts("error: 2 targets failed:").map(|c| c.0), Some(2));
        assert_eq!(
            counts("0 skipped, 2 failed, 0 passed (2 suites)"),
            Some((0, 0, 0))
        );
    }

    #[test]
    fn counts_of_a_total_and_counts_of_what_was_counted() {
        // ctest, tinytest, D's runner, mamba, plunit, hlint: `N out of M`, `N/M`, `N of M`,
        // and what was counted between a number and its outcome.
        for (line, want) in [
            ("17% tests passed, 5 tests failed out of 6", (5, 0, 0)),
            ("2 out of 3 assertions failed", (2, 0, 0)),
            ("4/5 modules FAILED unittests", (4, 0, 0)),
            ("5 examples failed of 6 ran in 0.0059 seconds", (5, 0, 0)),
            ("6 out of 8 tests failed (0.20s)", (6, 0, 0)),
            ("7 hints", (0, 0, 7)),
            ("There were 10 failures:", (10, 0, 0)),
            ("Found 9 diagnostics", (0, 0, 9)),
            ("Finished checking --- 15 code warnings", (0, 0, 0)),
            ("7 bashate error(s) found", (0, 7, 0)),
        ] {
            assert_eq!(counts(line), Some(want), "{line}");
        }
        // What failed may be anything: cargo's test binaries are no failed tests.
        assert_ne!(counts("error: 2 targets failed:").map(|c| c.0), Some(2));
    }

    #[test]
    fn a_table_of_counts_puts_each_label_before_its_count() {
        // tcltest's closing totals, columns separated by tabs.
        assert_eq!(
            counts("strings.test:\tTotal\t8\tPassed\t2\tSkipped\t1\tFailed\t5"),
            Some((5, 0, 0))
        );
    }

    #[test]
    fn a_label_before_the_counts_is_no_part_of_the_summary() {
        // Erlang Common Test's closing line.
        assert_eq!(
            counts("Testing proj.ct: TEST COMPLETE, 1 ok, 6 failed, 1 skipped of 8 test cases"),
            Some((6, 0, 0))
        );
    }

    #[test]
    fn lines_that_only_mention_a_number_state_nothing() {
        for line in [
            "not ok 3 - parses dates",
            "expected the handler to be called with the value 3 after the retry loop failed",
            "Ran 5 tests in 0.01s",
            "at Object.<anonymous> (test/a.js:3:5)",
            "0 failed, 4 passed",
            // A number glued to a word by a colon is an id's part (HUnit's test paths).
            "### Failure in: 1:codes:0:sku prefix",
            "### Error in:   2:planning:4:ship weight",
            "",
        ] {
            assert_eq!(counts(line), None, "{line}");
        }
    }

    #[test]
    fn a_count_stated_once_per_package_is_summed() {
        let lines: Vec<String> = [
            "test result: FAILED. 1 passed; 2 failed; 0 ignored",
            "test result: FAILED. 4 passed; 3 failed; 0 ignored",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let s = stated(&lines);
        assert!(s.agrees(2) && s.agrees(3) && s.agrees(5), "{s:?}");
        assert!(!s.agrees(4));
        assert_eq!(Agreement::of(&s, 5), Agreement::Agrees { stated: 5 });
        assert_eq!(Agreement::of(&s, 6), Agreement::Differs { stated: 5 });
        assert_eq!(Agreement::of(&Stated::default(), 6), Agreement::Unstated);
    }
}

//! CI job logs unwrapped before anything else reads them: the per-line timestamps, group and
//! section markers and workflow commands that GitHub Actions, `gh run view --log`, Azure
//! Pipelines, GitLab, Jenkins, Buildkite and CircleCI add around a runner's output, and generic
//! per-line clock prefixes. Line numbers keep pointing at the input (a marker line becomes an
//! empty line, never a removed one), and each line keeps the step it sits in.

/// A CI system whose job-log format was recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrapper {
    /// A job log downloaded from GitHub Actions (timestamps, `##[group]`, `##[error]`).
    GithubActions,
    /// `gh run view --log`: `job<TAB>step<TAB>timestamp line`.
    GithubCli,
    /// Azure Pipelines (timestamps, `##[section]Starting:`).
    AzurePipelines,
    /// A GitLab job trace (`section_start:`/`section_end:` markers).
    GitLab,
    /// Jenkins console output (`[Pipeline]` lines, timestamper prefixes).
    Jenkins,
    /// Buildkite (`_bk;t=` markers, `---`/`+++`/`~~~` groups).
    Buildkite,
    /// CircleCI step output (`#!/bin/bash -eo pipefail` step heads).
    CircleCi,
    /// Some other log with a clock on every line.
    Clock,
    /// Lines labelled by the stream they came from (a task runner's, a CI step's), taken off
    /// by `streams` whatever their text.
    Prefixed,
}

impl Wrapper {
    /// The name the result gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::GithubActions => "github_actions",
            Self::GithubCli => "github_cli",
            Self::AzurePipelines => "azure_pipelines",
            Self::GitLab => "gitlab",
            Self::Jenkins => "jenkins",
            Self::Buildkite => "buildkite",
            Self::CircleCi => "circleci",
            Self::Clock => "timestamped",
            Self::Prefixed => "prefixed",
        }
    }
}

/// A log with its wrapper taken off.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unwrapped {
    /// One line per input line, in order: the runner's text, or empty for a marker line.
    pub lines: Vec<String>,
    /// Per line, the index in `step_names` of the step it sits in.
    pub steps: Vec<Option<usize>>,
    /// The steps (groups, sections, stages) in order of appearance.
    pub step_names: Vec<String>,
    /// The wrapper recognised, if any.
    pub wrapper: Option<Wrapper>,
    /// Per line, its input line (0-based) when streams were put back in order; empty when
    /// every line is where it was.
    pub origin: Vec<usize>,
}

impl Unwrapped {
    /// The step line `index` (0-based) sits in.
    pub fn step_of(&self, index: usize) -> Option<&str> {
        self.steps
            .get(index)
            .copied()
            .flatten()
            .map(|i| self.step_names[i].as_str())
    }
}

/// How many non-empty lines detection looks at.
pub(crate) const SAMPLE: usize = 4000;

/// `2026-11-30T11:21:07.3395870Z `: the length of an RFC 3339 UTC stamp and its space, if the
/// line starts with one.
pub(crate) fn iso_stamp(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && matches!(b.get(10), Some(b'T' | b' '))
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19))
    {
        return None;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if b.get(i) == Some(&b'Z') {
        i += 1;
    } else if matches!(b.get(i), Some(b'+' | b'-')) && digits(i + 1..i + 3) {
        i += 3;
        if b.get(i) == Some(&b':') {
            i += 1;
        }
        if digits(i..i + 2) {
            i += 2;
        }
    }
    match b.get(i) {
        Some(b' ') => Some(i + 1),
        None => Some(i),
        _ => None,
    }
}

/// A clock prefix of any shape a tool stamps lines with: `[2026-11-30T11:21:07.339Z] `,
/// `[11:21:07] `, `11:21:07.339 `, `2026-11-30 11:21:07,339 `, `Dec 05 02:25:48 `
/// (moreutils' `ts`), `0.125417 ` (elapsed seconds), `[Thu Dec  5 02:25:48 2026] `. Whether
/// a log is stamped is decided by how many of its lines carry one ([`detect`]).
pub(crate) fn clock_prefix(line: &str) -> Option<usize> {
    if let Some(n) = iso_stamp(line).or_else(|| machine_stamp(line)) {
        return Some(n);
    }
    if let Some(rest) = line.strip_prefix('[')
        && let Some(end) = rest.find(']')
        && end <= 40
    {
        let inner = &rest[..end];
        if iso_stamp(inner).is_some_and(|n| n == inner.len())
            || stamp_words(inner).is_some_and(|n| n == inner.len())
        {
            let after = &rest[end + 1..];
            return Some(1 + end + 1 + usize::from(after.starts_with(' ')));
        }
    }
    let n = stamp_words(line)?;
    (line.len() > n && line.as_bytes()[n] == b' ').then_some(n + 1)
}

/// The length of a stamp written for machines that `line` starts with, and its space: a TAI64
/// label (`@` and 16 to 32 hex digits, daemontools' and s6's `tai64n`), or seconds,
/// milliseconds, microseconds or nanoseconds since the epoch (10, 13, 16 or 19 digits, from 2001
/// to 2033). Like every stamp, it is taken off only where most lines, or a run of them, carry one
/// of the same shape.
pub(crate) fn machine_stamp(line: &str) -> Option<usize> {
    let word = line.split(' ').next()?;
    if line.len() == word.len() {
        return None;
    }
    let stamp = if let Some(hex) = word.strip_prefix('@') {
        (16..=32).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit())
    } else {
        matches!(word.len(), 10 | 13 | 16 | 19)
            && word.starts_with('1')
            && word.bytes().all(|b| b.is_ascii_digit())
    };
    stamp.then_some(word.len() + 1)
}

/// The length of the time stamp `text` starts with, read word by word: month and weekday
/// names and words of digits and date punctuation (`Dec`, `05`, `02:25:48`, `2026-12-05`,
/// `12/05/2026`), holding a clock (`HH:MM:SS`), or a single number with a fraction of three
/// or more digits (seconds elapsed: `0.125417`, `1733365548.123`).
pub(crate) fn stamp_words(text: &str) -> Option<usize> {
    const NAMES: [&str; 19] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Mon",
        "Tue", "Wed", "Thu", "Fri", "Sat", "Sun",
    ];
    let numeric = |w: &str| {
        !w.is_empty()
            && w.bytes().any(|b| b.is_ascii_digit())
            && w.bytes()
                .all(|b| b.is_ascii_digit() || b":.,-/".contains(&b))
    };
    let mut end = 0;
    let mut words = 0;
    let mut clock = false;
    let mut at = 0;
    let mut named = false;
    while words < 6 && at < text.len() {
        // Words are split by single spaces; after a month's name, two (`Dec  5`, a padded day).
        let rest = &text[at..];
        let word = rest.split(' ').next().unwrap_or("");
        if word.is_empty() && named {
            named = false;
            at += 1;
            continue;
        }
        named = NAMES.contains(&word);
        if !(named || numeric(word)) {
            break;
        }
        clock |= word.split(['.', ',']).next().is_some_and(is_clock);
        words += 1;
        end = at + word.len();
        at = end + 1;
    }
    let stamp = &text[..end];
    let seconds = words == 1
        && stamp.split_once('.').is_some_and(|(whole, frac)| {
            !whole.is_empty()
                && frac.len() >= 3
                && whole
                    .bytes()
                    .chain(frac.bytes())
                    .all(|b| b.is_ascii_digit())
        });
    (end > 0 && (clock || seconds)).then_some(end)
}

/// `HH:MM:SS` with optional fractions.
pub(crate) fn is_clock(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 8
        && b[0..2].iter().all(u8::is_ascii_digit)
        && b[2] == b':'
        && b[3..5].iter().all(u8::is_ascii_digit)
        && b[5] == b':'
        && b[6..8].iter().all(u8::is_ascii_digit)
        && (b.len() == 8
            || (matches!(b[8], b'.' | b',')
                && b[9..].iter().all(u8::is_ascii_digit)
                && b.len() > 9))
}

/// `job<TAB>step<TAB>2026-…Z text`: the step and where the text starts.
pub(crate) fn gh_cli_prefix(line: &str) -> Option<(&str, usize)> {
    let mut parts = line.splitn(3, '\t');
    let job = parts.next()?;
    let step = parts.next()?;
    let rest = parts.next()?;
    let stamp = iso_stamp(rest)?;
    Some((step, job.len() + 1 + step.len() + 1 + stamp))
}

/// Buildkite's timestamp marker `\x1b_bk;t=<millis>\x07` at the start of a raw line (an APC
/// escape, also seen without its ESC): its length.
pub(crate) fn buildkite_prefix(line: &str) -> Option<usize> {
    let start = if line.starts_with("\u{1b}_bk;t=") {
        1
    } else if line.starts_with("_bk;t=") {
        0
    } else {
        return None;
    };
    let rest = &line[start + 6..];
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && rest[digits..].starts_with('\u{7}')).then_some(start + 6 + digits + 1)
}

/// `2026-11-03T15:30:01.430431Z 00O `: the length of GitLab's per-line stamp and stream tag.
pub(crate) fn gitlab_stamp(line: &str) -> Option<usize> {
    let n = iso_stamp(line)?;
    let tag = line.get(n..n + 4)?;
    let b = tag.as_bytes();
    let stream =
        b[0].is_ascii_hexdigit() && b[1].is_ascii_hexdigit() && matches!(b[2], b'O' | b'E');
    if !stream {
        return None;
    }
    match b[3] {
        b' ' => Some(n + 4),
        b'+' if line.as_bytes().get(n + 4) == Some(&b' ') => Some(n + 5),
        b'+' => Some(n + 4),
        _ => None,
    }
}

/// What a terminal shows of a line with carriage returns: the text after the last one that is
/// followed by something.
pub(crate) fn as_shown(line: &str) -> &str {
    line.rsplit('\r')
        .find(|part| !part.is_empty())
        .unwrap_or("")
}

pub(crate) fn detect(lines: &[String], buildkite: usize) -> Option<Wrapper> {
    let sample: Vec<&str> = lines
        .iter()
        .map(String::as_str)
        .filter(|l| !l.trim().is_empty())
        .take(SAMPLE)
        .collect();
    if sample.is_empty() {
        return None;
    }
    let share =
        |f: &dyn Fn(&str) -> bool| sample.iter().filter(|l| f(l)).count() * 10 >= sample.len() * 6;
    let any = |f: &dyn Fn(&str) -> bool| lines.iter().take(SAMPLE * 4).any(|l| f(l));
    if share(&|l| gh_cli_prefix(l).is_some()) {
        return Some(Wrapper::GithubCli);
    }
    if any(&|l| {
        l.starts_with("section_start:")
            || l.starts_with("section_end:")
            || l.starts_with("Running with gitlab-runner ")
    }) {
        return Some(Wrapper::GitLab);
    }
    if buildkite * 10 >= sample.len() * 6 {
        return Some(Wrapper::Buildkite);
    }
    let stamped = share(&|l| iso_stamp(l).is_some());
    if stamped
        && any(&|l| iso_stamp(l).is_some_and(|n| l[n..].starts_with("##[section]Starting: ")))
    {
        return Some(Wrapper::AzurePipelines);
    }
    if stamped {
        return Some(Wrapper::GithubActions);
    }
    if sample
        .iter()
        .filter(|l| {
            clock_prefix(l)
                .map_or(**l, |n| &l[n..])
                .starts_with("[Pipeline] ")
        })
        .count()
        >= 2
    {
        return Some(Wrapper::Jenkins);
    }
    if any(&|l| l.trim() == "#!/bin/bash -eo pipefail") {
        return Some(Wrapper::CircleCi);
    }
    if share(&|l| clock_prefix(l).is_some()) {
        return Some(Wrapper::Clock);
    }
    None
}

/// A line of a GitHub Actions or Azure Pipelines log after its stamp: the text to keep, and a
/// step it opens.
pub(crate) fn workflow_command(text: &str, azure: bool) -> (String, Option<String>) {
    if let Some(rest) = text.strip_prefix("##[") {
        let Some((kind, body)) = rest.split_once(']') else {
            return (text.to_owned(), None);
        };
        return match kind {
            "group" => {
                // GitHub names a run step's group "Run <command>"; Azure opens steps with
                // ##[section]Starting:, its groups are parts of a step.
                let step = (!azure).then(|| body.trim().to_owned());
                (String::new(), step)
            }
            "endgroup" => (String::new(), None),
            "section" => {
                let step = body.strip_prefix("Starting: ").map(|s| s.trim().to_owned());
                (String::new(), step)
            }
            "error" | "warning" | "notice" | "debug" | "command" | "info" => {
                (body.to_owned(), None)
            }
            _ => (text.to_owned(), None),
        };
    }
    // `::error file=src/a.py,line=3::message`: what the tool reported, with its place.
    if let Some(rest) = text.strip_prefix("::")
        && let Some((head, message)) = rest.split_once("::")
    {
        let (kind, props) = head.split_once(' ').unwrap_or((head, ""));
        if matches!(kind, "error" | "warning" | "notice") {
            let prop = |name: &str| {
                props
                    .split(',')
                    .filter_map(|p| p.split_once('='))
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_owned())
            };
            let place = match (prop("file"), prop("line")) {
                (Some(f), Some(l)) => format!("{f}:{l}: "),
                (Some(f), None) => format!("{f}: "),
                _ => String::new(),
            };
            return (format!("{place}{message}"), None);
        }
        if matches!(kind, "group") {
            return (String::new(), Some(message.trim().to_owned()));
        }
        if matches!(
            kind,
            "endgroup" | "add-mask" | "debug" | "set-output" | "save-state"
        ) {
            return (String::new(), None);
        }
    }
    (text.to_owned(), None)
}

/// Whether a line is the CI system's own verdict on a step ("the command exited with 1"), which
/// says only that something above failed.
pub(crate) fn verdict(text: &str) -> bool {
    let t = text.trim();
    let exited = |rest: &str| {
        rest.trim_end_matches(['.', '\''])
            .trim_start_matches('\'')
            .parse::<u32>()
            .is_ok()
    };
    t.strip_prefix("Process completed with exit code ")
        .is_some_and(exited)
        || t.strip_prefix("ERROR: Job failed: exit code ")
            .is_some_and(exited)
        || t.strip_prefix("Bash exited with code ").is_some_and(exited)
        || t.strip_prefix("ERROR: script returned exit code ")
            .is_some_and(exited)
        || t.strip_prefix("Error: The command exited with status ")
            .is_some_and(exited)
        || t.strip_prefix("🚨 Error: The command exited with status ")
            .is_some_and(exited)
        || t.strip_prefix("Exited with code exit status ")
            .is_some_and(exited)
}

/// The job log's lines as a terminal shows them: escapes off, Buildkite's and GitLab's
/// per-line stamps off (GitLab's section markers kept whole for detection); with how many lines
/// carried a Buildkite stamp.
fn clean_lines(text: &str) -> (Vec<String>, usize) {
    let mut buildkite = 0;
    let mut lines: Vec<String> = text
        .split('\n')
        .map(|raw| {
            let raw = match buildkite_prefix(raw) {
                Some(n) => {
                    buildkite += 1;
                    &raw[n..]
                }
                None => raw,
            };
            let mut clean = crate::text::strip_ansi(raw);
            // GitLab's timestamped traces (`FF_TIMESTAMPS`): `<stamp> 00O ` before every line,
            // the stream's number and `O`/`E`, `+` when it continues the line before.
            if let Some(n) = gitlab_stamp(&clean) {
                clean = clean[n..].to_owned();
            }
            // GitLab's markers end in `\r`, so the marker itself is what a terminal would
            // overwrite; keep it whole for detection and take the shown text later.
            if clean.contains("section_start:") || clean.starts_with("section_end:") {
                clean
            } else {
                as_shown(&clean).to_owned()
            }
        })
        .collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    (lines, buildkite)
}

/// A GitLab line: markers and text share it, parted by carriage returns
/// (`section_end:…\rsection_start:…:name\rHeader text`); the text shown, and the section it
/// opens.
fn gitlab_line(line: &str) -> (String, Option<String>) {
    let parts: Vec<&str> = line.split('\r').collect();
    let mut step = None;
    let mut text = String::new();
    let mut k = 0;
    while k < parts.len() {
        let part = parts[k];
        if let Some(marker) = part.strip_prefix("section_start:") {
            let name = marker
                .split(':')
                .nth(1)
                .unwrap_or("")
                .split('[')
                .next()
                .unwrap_or("");
            let header = parts.get(k + 1).map(|h| h.trim()).filter(|h| {
                !h.is_empty() && !h.starts_with("section_start:") && !h.starts_with("section_end:")
            });
            step = Some(header.unwrap_or(name).to_owned());
            k += if header.is_some() { 2 } else { 1 };
            continue;
        }
        if !part.starts_with("section_end:") && !part.is_empty() {
            text = part.to_owned();
        }
        k += 1;
    }
    (text, step)
}

/// Takes the wrapper off a log: one entry per line of `text` (split at `\n`), escape sequences
/// removed, a carriage return shown as a terminal shows it (the text after the last one), then
/// the wrapper recognised by [`detect`] taken off.
pub fn unwrap(text: &str) -> Unwrapped {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (lines, buildkite) = clean_lines(text);
    let wrapper = detect(&lines, buildkite);
    let mut out = Unwrapped {
        lines: Vec::with_capacity(lines.len()),
        steps: Vec::with_capacity(lines.len()),
        step_names: Vec::new(),
        wrapper,
        origin: Vec::new(),
    };
    let mut current: Option<usize> = None;
    let open = |name: String, names: &mut Vec<String>| -> Option<usize> {
        let name = name.trim().to_owned();
        if name.is_empty() {
            return None;
        }
        names.push(name);
        Some(names.len() - 1)
    };
    let mut jenkins_stage_next = false;
    let mut circle_head = false;
    for line in lines {
        let (text, step) = match wrapper {
            // Detection never says `Prefixed`: the stream labels come off after this.
            None | Some(Wrapper::Prefixed) => (line, None),
            Some(Wrapper::GithubActions | Wrapper::AzurePipelines) => {
                let rest = iso_stamp(&line).map_or(line.as_str(), |n| &line[n..]);
                let azure = wrapper == Some(Wrapper::AzurePipelines);
                workflow_command(rest, azure)
            }
            Some(Wrapper::GithubCli) => match gh_cli_prefix(&line) {
                Some((step, n)) => {
                    let (text, _) = workflow_command(&line[n..], false);
                    let known = current.is_some_and(|c| out.step_names[c] == step.trim());
                    (text, (!known).then(|| step.to_owned()))
                }
                None => (line, None),
            },
            Some(Wrapper::GitLab) => gitlab_line(&line),
            Some(Wrapper::Buildkite) => {
                let group = ["--- ", "+++ ", "~~~ "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p))
                    .map(str::to_owned);
                match group {
                    Some(name) => (String::new(), Some(name)),
                    None => (line, None),
                }
            }
            Some(Wrapper::Jenkins) => {
                let rest = clock_prefix(&line).map_or(line.as_str(), |n| &line[n..]);
                if let Some(p) = rest.strip_prefix("[Pipeline] ") {
                    let mut step = None;
                    if jenkins_stage_next
                        && let Some(name) = p.strip_prefix("{ (").and_then(|n| n.strip_suffix(')'))
                    {
                        step = Some(name.to_owned());
                    }
                    jenkins_stage_next = p.trim() == "stage";
                    (String::new(), step)
                } else {
                    (rest.to_owned(), None)
                }
            }
            Some(Wrapper::CircleCi) => {
                if line.trim() == "#!/bin/bash -eo pipefail" {
                    circle_head = true;
                    (String::new(), None)
                } else if circle_head {
                    circle_head = false;
                    (line.clone(), Some(line.trim().to_owned()))
                } else {
                    (line, None)
                }
            }
            Some(Wrapper::Clock) => {
                let rest = clock_prefix(&line).map_or(line.as_str(), |n| &line[n..]);
                (rest.to_owned(), None)
            }
        };
        if let Some(name) = step {
            let is_run = name.starts_with("Run ");
            let github = wrapper == Some(Wrapper::GithubActions);
            // On GitHub a step's own groups (pip's, npm's) sit inside the step that opened them.
            let nested =
                github && !is_run && current.is_some_and(|c| out.step_names[c].starts_with("Run "));
            if !nested {
                current = open(name, &mut out.step_names).or(current);
            }
        }
        let text = if wrapper.is_some() && verdict(&text) {
            String::new()
        } else {
            text
        };
        out.lines.push(text);
        out.steps.push(current);
    }
    if wrapper != Some(Wrapper::Clock) && stamps_come_off(&mut out.lines) && wrapper.is_none() {
        out.wrapper = Some(Wrapper::Clock);
    }
    gutters_come_off(&mut out.lines);
    out
}

/// A line-number gutter at the start of a line: a number right-aligned in spaces, then ` | `
/// or a tab (`nl -ba -s' | '`'s `   1 | text`, `cat -n`'s `     1\ttext`): the number and
/// where the text starts.
fn gutter(line: &str) -> Option<(u64, usize)> {
    let t = line.trim_start_matches(' ');
    let (number, rest) = crate::text::leading_number(t)?;
    let sep = if rest.starts_with(" | ") {
        3
    } else if rest == " |" {
        2
    } else if rest.starts_with('\t') {
        1
    } else {
        return None;
    };
    Some((number, line.len() - rest.len() + sep))
}

/// Takes off a gutter that numbers the log's lines one after another (the lines piped through
/// `nl` or `cat -n`): when nine in ten of the non-blank lines (five at least) carry one, each
/// the one before plus one. A code frame's gutter numbers a few lines of a file, never the log.
/// Whether it came off.
fn gutters_come_off(lines: &mut [String]) -> bool {
    let nonblank = lines.iter().filter(|l| !l.trim().is_empty()).count();
    let mut counted = 0;
    let mut before: Option<u64> = None;
    for line in lines.iter() {
        if let Some((n, _)) = gutter(line) {
            if before.is_none_or(|b| n == b + 1) {
                counted += 1;
            }
            before = Some(n);
        }
    }
    if nonblank < 5 || counted * 10 < nonblank * 9 {
        return false;
    }
    for line in lines.iter_mut() {
        if let Some((_, at)) = gutter(line) {
            *line = line[at..].to_owned();
        }
    }
    true
}

/// Fewest lines in a row that make a stamp a wrapper's rather than a message's.
const STAMPED_RUN: usize = 5;

/// Takes the time stamps off every run of lines that each start with one of the same shape
/// (a run of [`STAMPED_RUN`] or more; blank lines inside a run neither break nor count): the
/// output of a step piped through `ts` inside a CI job, whose own stamps came off already.
/// Whether any came off.
fn stamps_come_off(lines: &mut [String]) -> bool {
    let shape = |l: &str| -> Option<(usize, String)> {
        let n = clock_prefix(l)?;
        // A machine stamp's hex digits vary from line to line as its decimal digits do.
        let shape = match machine_stamp(l) {
            Some(m) if m == n => l[..n].replace(|c: char| c.is_ascii_hexdigit(), "0"),
            _ => crate::text::digits_masked(&l[..n]),
        };
        Some((n, shape))
    };
    let mut any = false;
    let mut i = 0;
    while i < lines.len() {
        let Some((_, first)) = shape(&lines[i]) else {
            i += 1;
            continue;
        };
        // The run: lines of this shape, and blank lines between them.
        let mut end = i;
        let mut count = 0;
        let mut j = i;
        while j < lines.len() {
            if lines[j].trim().is_empty() {
                j += 1;
                continue;
            }
            match shape(&lines[j]) {
                Some((_, s)) if s == first => {
                    count += 1;
                    j += 1;
                    end = j;
                }
                _ => break,
            }
        }
        if count >= STAMPED_RUN {
            for line in &mut lines[i..end] {
                if let Some((n, _)) = shape(line) {
                    line.replace_range(..n, "");
                }
            }
            any = true;
        }
        i = end.max(i + 1);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gutter_that_numbers_every_line_comes_off() {
        let log = "   1 | === RUN   TestA\n   2 |     a_test.go:7: got 1, want 2\n   3 | --- FAIL: TestA (0.00s)\n   4 | \n   5 | FAIL\n   6 | FAIL\tpkg\t0.01s\n";
        let lines = unwrap(log).lines;
        assert_eq!(lines[1], "    a_test.go:7: got 1, want 2");
        assert_eq!(lines[2], "--- FAIL: TestA (0.00s)");
        // A code frame numbers a few lines of a file, not the log's: it stays.
        let frame = "error: mismatched types\n  --> src/a.rs:3:5\n   |\n 3 |     1 + \"a\"\n   |     ^^^\nerror: aborting\n";
        assert_eq!(unwrap(frame).lines[3], " 3 |     1 + \"a\"");
    }

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_owned).collect()
    }

    fn unwrap_text(text: &str) -> Unwrapped {
        unwrap(text)
    }

    #[test]
    fn a_github_actions_log_loses_its_stamps_and_markers_and_keeps_its_steps() {
        let log = "\u{feff}2026-11-30T11:21:05.1000000Z Current runner version: '2.330.0'\n\
            2026-11-30T11:21:05.1000100Z ##[group]Operating System\n\
            2026-11-30T11:21:05.1000200Z Ubuntu\n\
            2026-11-30T11:21:05.1000300Z ##[endgroup]\n\
            2026-11-30T11:21:07.3395870Z ##[group]Run pytest -q\n\
            2026-11-30T11:21:07.3396000Z pytest -q\n\
            2026-11-30T11:21:07.3396100Z shell: /usr/bin/bash -e {0}\n\
            2026-11-30T11:21:07.3396200Z ##[endgroup]\n\
            2026-11-30T11:21:08.0000000Z ___________ test_add ___________\n\
            2026-11-30T11:21:08.0000001Z E   assert 8 == 7\n\
            2026-11-30T11:21:08.0000002Z ::error file=tests/test_calc.py,line=12::assert 8 == 7\n\
            2026-11-30T11:21:09.0000000Z ##[error]Process completed with exit code 1.";
        let u = unwrap_text(log);
        assert_eq!(u.wrapper, Some(Wrapper::GithubActions));
        assert_eq!(u.lines.len(), 12, "one line per input line");
        assert_eq!(u.lines[0], "Current runner version: '2.330.0'");
        assert_eq!(u.lines[4], "", "a group marker is an empty line");
        assert_eq!(u.lines[8], "___________ test_add ___________");
        assert_eq!(u.lines[10], "tests/test_calc.py:12: assert 8 == 7");
        assert_eq!(u.lines[11], "", "the CI system's own verdict is no failure");
        assert_eq!(u.step_of(2), Some("Operating System"));
        assert_eq!(u.step_of(9), Some("Run pytest -q"));
    }

    #[test]
    fn gh_run_view_log_gives_the_step_of_every_line() {
        let log = "test\tSet up job\t2026-11-30T11:21:05.1000000Z Current runner version: '2.330.0'\n\
            test\tRun npm test\t2026-11-30T11:21:07.3395870Z ##[group]Run npm test\n\
            test\tRun npm test\t2026-11-30T11:21:07.3396000Z npm test\n\
            test\tRun npm test\t2026-11-30T11:21:07.3396200Z ##[endgroup]\n\
            test\tRun npm test\t2026-11-30T11:21:08.0000000Z   1) cart";
        let u = unwrap_text(log);
        assert_eq!(u.wrapper, Some(Wrapper::GithubCli));
        assert_eq!(u.lines[4], "  1) cart");
        assert_eq!(u.step_of(0), Some("Set up job"));
        assert_eq!(u.step_of(4), Some("Run npm test"));
    }

    #[test]
    fn a_gitlab_trace_loses_its_section_markers() {
        let log = "Running with gitlab-runner 17.5.0 (abc)\n\
            section_start:1732965667:prepare_executor\r\u{1b}[0KPreparing the \"docker\" executor\n\
            Using Docker executor with image python:3.12 ...\n\
            section_end:1732965668:prepare_executor\r\u{1b}[0K\n\
            section_start:1732965669:step_script\r\u{1b}[0KExecuting \"step_script\" stage of the job script\n\
            $ pytest -q\n\
            FAILED tests/test_calc.py::test_add - assert 8 == 7\n\
            section_end:1732965670:step_script\r\u{1b}[0K\n\
            ERROR: Job failed: exit code 1";
        let u = unwrap_text(log);
        assert_eq!(u.wrapper, Some(Wrapper::GitLab));
        assert_eq!(u.lines[1], "");
        assert_eq!(
            u.lines[6],
            "FAILED tests/test_calc.py::test_add - assert 8 == 7"
        );
        assert_eq!(u.step_of(2), Some("Preparing the \"docker\" executor"));
        assert_eq!(
            u.step_of(6),
            Some("Executing \"step_script\" stage of the job script")
        );
    }

    #[test]
    fn azure_jenkins_buildkite_circleci_and_clock_prefixes() {
        let azure = "2026-11-30T11:21:05.1000000Z ##[section]Starting: Test\n\
            2026-11-30T11:21:05.2000000Z ##[group]Details\n\
            2026-11-30T11:21:05.3000000Z not ok 1 - adds\n\
            2026-11-30T11:21:05.4000000Z ##[error]Bash exited with code '1'.\n\
            2026-11-30T11:21:05.5000000Z ##[section]Finishing: Test";
        let u = unwrap_text(azure);
        assert_eq!(u.wrapper, Some(Wrapper::AzurePipelines));
        assert_eq!(
            (u.lines[2].as_str(), u.step_of(2)),
            ("not ok 1 - adds", Some("Test"))
        );

        let jenkins = "[2026-11-30T11:21:05.100Z] [Pipeline] stage\n\
            [2026-11-30T11:21:05.101Z] [Pipeline] { (Unit tests)\n\
            [2026-11-30T11:21:05.102Z] [Pipeline] sh\n\
            [2026-11-30T11:21:05.200Z] + npm test\n\
            [2026-11-30T11:21:06.000Z]   1) cart";
        let u = unwrap_text(jenkins);
        assert_eq!(u.wrapper, Some(Wrapper::Jenkins));
        assert_eq!(
            (u.lines[4].as_str(), u.step_of(4)),
            ("  1) cart", Some("Unit tests"))
        );

        let bk = "\u{1b}_bk;t=1732965667000\u{7}~~~ Preparing working directory\n\
            \u{1b}_bk;t=1732965668000\u{7}+++ :pytest: Run tests\n\
            \u{1b}_bk;t=1732965669000\u{7}FAILED a.py::t - boom";
        let u = unwrap_text(bk);
        assert_eq!(u.wrapper, Some(Wrapper::Buildkite));
        assert_eq!(
            (u.lines[2].as_str(), u.step_of(2)),
            ("FAILED a.py::t - boom", Some(":pytest: Run tests"))
        );

        let circle = "#!/bin/bash -eo pipefail\nnpm test\n  1) cart";
        let u = unwrap_text(circle);
        assert_eq!(u.wrapper, Some(Wrapper::CircleCi));
        assert_eq!(u.step_of(2), Some("npm test"));

        let clock = "11:21:05.100 starting\n11:21:05.200 not ok 1 - adds\n11:21:05.300 done";
        let u = unwrap_text(clock);
        assert_eq!(u.wrapper, Some(Wrapper::Clock));
        assert_eq!(u.lines[1], "not ok 1 - adds");
    }

    #[test]
    fn a_stamp_of_any_shape_before_most_lines_comes_off() {
        // moreutils' `ts` in its default, elapsed and relative forms, syslog's padded day, a
        // bracketed `date` and a dated clock with a comma.
        for stamp in [
            "Dec 05 02:25:48",
            "0.125417",
            "1733365548.125417",
            "00:00:03",
            "Dec  5 02:25:48",
            "[Thu Dec  5 02:25:48 2026]",
            "2026/12/05 02:25:48,339",
            "[12/05/2026 02:25:48]",
            "@400000006b148532235e199c",
            "@4000000065a1b2c3",
            "1733365548",
            "1733365548123",
        ] {
            let log = format!("{stamp} starting\n{stamp}   not ok 1 - adds\n{stamp} done");
            let u = unwrap_text(&log);
            assert_eq!(u.wrapper, Some(Wrapper::Clock), "{stamp}");
            assert_eq!(u.lines[1], "  not ok 1 - adds", "{stamp}");
        }
        // Numbers that start lines are no stamp: counts, versions, a bare decimal.
        for line in [
            "12 passed",
            "1.2 seconds",
            "3.14159",
            "2026 was a year",
            "1.2.3 released",
            "@user mentioned this",
            "@deadbeef short",
            "2147483647 is the largest",
            "a1b2c3d4e5f6a7b8c9d0 commit",
        ] {
            assert_eq!(clock_prefix(line), None, "{line}");
        }
    }

    /// A TAI64N label (`tai64n`, s6-log) on every line is a stamp: its hex digits vary line to
    /// line, so a run of them is one shape, and it comes off.
    #[test]
    fn tai64n_labels_come_off_a_run_of_lines() {
        let labels = [
            "@400000006b148532141d77ac",
            "@400000006b148532234bdda4",
            "@400000006b1485322357d424",
            "@400000006b148532235e15b4",
            "@400000006b148532235e199c",
            "@400000006b148532235e1d84",
        ];
        let mut lines: Vec<String> = vec!["$ make lint".into()];
        lines.extend(labels.iter().map(|l| format!("{l} src/a.c:3:1: error: x")));
        assert!(stamps_come_off(&mut lines));
        assert_eq!(lines[0], "$ make lint");
        assert!(
            lines[1..].iter().all(|l| l == "src/a.c:3:1: error: x"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_plain_log_is_left_as_it_is() {
        let log = "running 2 tests\ntest a ... FAILED\n2026-11-30T11:21:05Z is a date in a message";
        let u = unwrap_text(log);
        assert_eq!(u.wrapper, None);
        assert_eq!(u.lines, lines(log));
        assert!(u.steps.iter().all(Option::is_none));
    }
}

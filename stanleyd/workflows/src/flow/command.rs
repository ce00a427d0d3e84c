//! Whether a Bash command line only reads, for the pre-tool gate: the line is cut at its control
//! operators (`|`, `||`, `&&`, `;`, `&`, newlines, subshell parentheses) outside quotes, each
//! part is split into words as the shell would (`shell-words`), wrappers that run another command
//! (`env`, `nice`, `timeout`, `xargs`, `command`, `sh -c`) are looked through, and the line reads
//! only when every command in it is a known reader used without an output option or a
//! redirection to a file. Anything this cannot follow (substitutions, here-documents, variable
//! assignments, paths to programs) is not read-only, so Jev is asked: an error here costs a
//! question, never a write.

/// Programs that only read (with the options [`writes`] rules out).
const READERS: &[&str] = &[
    "ls", "cat", "head", "tail", "grep", "rg", "wc", "pwd", "echo", "which", "stat", "file",
    "tree", "du", "df", "diff", "less", "sort", "uniq", "true", "date", "whoami", "env",
];
/// Git subcommands that only read (with `--output` ruled out).
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "rev-parse",
    "ls-files",
];
/// Shells whose `-c` script is read like a command line of its own.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh"];
/// How deep `sh -c` and wrappers may nest before the line is not followed.
const MAX_DEPTH: usize = 4;

/// A command line that only reads: no Jev question is needed for it.
pub fn is_read_only(command: &str) -> bool {
    reads_only(command, 0)
}

fn reads_only(line: &str, depth: usize) -> bool {
    if depth > MAX_DEPTH || line.trim().is_empty() {
        return false;
    }
    match segments(line) {
        Some(parts) => {
            let mut any = false;
            for part in parts.iter().filter(|p| !p.trim().is_empty()) {
                any = true;
                let Ok(words) = shell_words::split(part) else {
                    return false;
                };
                if !simple_reads_only(&words, depth) {
                    return false;
                }
            }
            any
        }
        None => false,
    }
}

/// The line cut at control operators outside quotes; `None` when it holds something this does
/// not follow: a substitution (`$(...)`, backticks, `${...}` and other expansions outside single
/// quotes) or a here-document.
fn segments(line: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '$' | '`' if !single => return None,
            '<' if !single && !double && chars.peek() == Some(&'<') => {
                // `<<` starts a here-document; `<<<` (a here-string) is followed as a word.
                chars.next();
                if chars.peek() != Some(&'<') {
                    return None;
                }
                chars.next();
                current.push_str("<<<");
                continue;
            }
            '|' | '&' | ';' | '(' | ')' | '\n' if !single && !double => {
                // `>&2`, `2>&1` and `&>` are redirections, not control operators.
                let redirect = c == '&' && (current.ends_with('>') || chars.peek() == Some(&'>'));
                if !redirect {
                    parts.push(std::mem::take(&mut current));
                    continue;
                }
            }
            _ => {}
        }
        current.push(c);
    }
    if single || double {
        return None;
    }
    parts.push(current);
    Some(parts)
}

/// One simple command's words: redirections checked and removed, wrappers looked through.
fn simple_reads_only(words: &[String], depth: usize) -> bool {
    let Some(words) = without_redirections(words) else {
        return false;
    };
    match words.split_first() {
        None => true,
        Some((program, args)) => program_reads_only(program, args, depth),
    }
}

/// The words without their redirections, or `None` when one writes a file: only input
/// redirections, here-strings and output to `/dev/null` or another descriptor are allowed.
fn without_redirections(words: &[String]) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut iter = words.iter().map(String::as_str);
    while let Some(word) = iter.next() {
        let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let (op, target) = if let Some(rest) = digits.strip_prefix("<<<") {
            ("<<<", rest)
        } else if let Some(rest) = digits.strip_prefix('<') {
            ("<", rest)
        } else if let Some(rest) = digits
            .strip_prefix("&>>")
            .or_else(|| digits.strip_prefix("&>"))
            .or_else(|| digits.strip_prefix(">>"))
            .or_else(|| digits.strip_prefix(">|"))
            .or_else(|| digits.strip_prefix('>'))
        {
            (">", rest)
        } else {
            out.push(word);
            continue;
        };
        let target = if target.is_empty() {
            iter.next()?
        } else {
            target
        };
        let harmless = op != ">" || target == "/dev/null" || target.starts_with('&');
        if !harmless {
            return None;
        }
    }
    Some(out)
}

/// Whether `program args` only reads.
fn program_reads_only(program: &str, args: &[&str], depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match program {
        // An assignment can change what a reader runs (`GIT_EXTERNAL_DIFF=rm git diff`).
        p if p.contains('=') => false,
        "env" => match args.first() {
            None => true,
            // Options and assignments change the environment the command runs in.
            Some(a) if a.starts_with('-') || a.contains('=') => false,
            Some(_) => program_reads_only(args[0], &args[1..], depth + 1),
        },
        "command" | "nice" => {
            let rest = skip_options(args, &["-n"], &["-p", "-v", "-V"]);
            rest.and_then(|r| r.split_first())
                .is_some_and(|(p, a)| program_reads_only(p, a, depth + 1))
        }
        "timeout" => {
            let rest = skip_options(
                args,
                &["-s", "-k", "--signal", "--kill-after"],
                &["--preserve-status", "--foreground", "-v", "--verbose"],
            );
            // The duration, then the command.
            rest.and_then(|r| r.get(1..))
                .and_then(|r| r.split_first())
                .is_some_and(|(p, a)| program_reads_only(p, a, depth + 1))
        }
        "xargs" => {
            let rest = skip_options(
                args,
                &["-n", "-L", "-P", "-I", "-d", "-s", "-E"],
                &["-0", "-r", "-t", "--null", "--no-run-if-empty", "--verbose"],
            );
            match rest {
                // Without a command xargs runs `echo`.
                Some([]) => true,
                Some([p, a @ ..]) => program_reads_only(p, a, depth + 1),
                None => false,
            }
        }
        shell if SHELLS.contains(&shell) => match args {
            ["-c", script, ..] => reads_only(script, depth + 1),
            _ => false,
        },
        "git" => match args.split_first() {
            Some((sub, rest)) => {
                GIT_READERS.contains(sub) && !rest.iter().any(|a| a.starts_with("--output"))
            }
            None => false,
        },
        p if READERS.contains(&p) => !writes(p, args),
        _ => false,
    }
}

/// The options after which a reader writes or runs something: an output file, a clock setter,
/// a preprocessor, a compiled magic file, or `uniq`'s second operand (its output file).
fn writes(program: &str, args: &[&str]) -> bool {
    let has = |short: &str, long: &str| {
        args.iter().any(|a| {
            a.starts_with(long)
                || (!a.starts_with("--") && a.starts_with('-') && short_flag(a, short))
        })
    };
    match program {
        "sort" | "tree" => has("o", "--output"),
        "date" => has("s", "--set"),
        "rg" => has("", "--pre"),
        "file" => has("C", "--compile"),
        "uniq" => args.iter().filter(|a| !a.starts_with('-')).count() > 1,
        _ => false,
    }
}

/// Whether a cluster of short options (`-rno`) holds `flag`.
fn short_flag(arg: &str, flag: &str) -> bool {
    !flag.is_empty() && arg[1..].contains(flag)
}

/// The arguments after a wrapper's options: `valued` take the next word (or `=value`, or an
/// attached value), `flags` take none. `None` when an option is not one of them.
fn skip_options<'a>(args: &'a [&'a str], valued: &[&str], flags: &[&str]) -> Option<&'a [&'a str]> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if *arg == "--" {
            return Some(&args[i + 1..]);
        }
        if !arg.starts_with('-') || *arg == "-" {
            return Some(&args[i..]);
        }
        if flags.contains(arg) {
            i += 1;
        } else if valued.contains(arg) {
            i += 2;
        } else if valued
            .iter()
            .any(|v| arg.starts_with(v) && arg.len() > v.len())
        {
            // `-n5`, `--signal=KILL`.
            i += 1;
        } else if arg[1..].chars().all(|c| c.is_ascii_digit()) {
            // `nice -10`.
            i += 1;
        } else {
            return None;
        }
    }
    Some(&args[i.min(args.len())..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line, and whether it only reads.
    const TABLE: &[(&str, bool)] = &[
        // Plain reads.
        ("ls -la", true),
        ("git status", true),
        ("cat README.md", true),
        ("rg TODO src", true),
        ("git log --oneline -5", true),
        ("git ls-files -o", true),
        ("grep -rn 'a | b' src", true),
        ("echo \"done; rm -rf x\"", true),
        ("sort -n data.txt", true),
        ("date +%s", true),
        ("env", true),
        // Reads composed of reads.
        ("ls | head -5", true),
        ("git diff && git status", true),
        ("cat a.txt | sort | uniq -c", true),
        ("(ls; pwd)", true),
        ("ls 2>/dev/null", true),
        ("cat notes.txt 2>&1 | grep x", true),
        ("grep x < input.txt", true),
        ("wc -l <<< 'one line'", true),
        ("env cat a.txt", true),
        ("nice -n 5 grep x src", true),
        ("timeout 5 git log", true),
        ("timeout -s KILL 10s cat a", true),
        ("sh -c 'ls -la'", true),
        ("bash -c \"git status && ls\"", true),
        ("find . -name x | xargs grep y", false),
        ("ls | xargs -0 cat", true),
        ("ls | xargs", true),
        ("command ls", true),
        // The bypasses found with the real Claude Code.
        ("env rm -f notes.txt", false),
        ("sort -o notes.txt data.txt", false),
        ("sort -no notes.txt data.txt", false),
        ("sort --output=notes.txt data.txt", false),
        ("git diff --output=notes.txt", false),
        ("tree -o notes.txt", false),
        ("date -s '2020-01-01'", false),
        ("date --set='2020-01-01'", false),
        ("env sh -c \"rm notes.txt\"", false),
        // Writes, chaining and wrappers around writes.
        ("rm -rf target", false),
        ("cat a > b", false),
        ("cat a >> b", false),
        ("echo x >| b", false),
        ("ls &> out.log", false),
        ("ls 2> err.log", false),
        ("ls | sh", false),
        ("ls; rm x", false),
        ("ls && rm x", false),
        ("ls || rm x", false),
        ("ls & rm x", false),
        ("(ls; rm x)", false),
        ("ls\nrm x", false),
        ("git push", false),
        ("git -c core.pager=rm log", false),
        ("echo $(id)", false),
        ("echo `id`", false),
        ("echo ${HOME}", false),
        ("cat <<EOF\nhi\nEOF", false),
        ("diff <(rm x) y", false),
        ("GIT_EXTERNAL_DIFF=rm git diff", false),
        ("env GIT_PAGER=rm git log", false),
        ("env -i rm x", false),
        ("nice rm x", false),
        ("timeout 5 rm x", false),
        ("timeout --weird 5 ls", false),
        ("ls | xargs rm", false),
        ("ls | xargs -I{} mv {} /tmp", false),
        ("sh script.sh", false),
        ("bash -c 'ls; rm x'", false),
        ("./ls", false),
        ("/bin/rm x", false),
        ("uniq in.txt out.txt", false),
        ("rg --pre ./evil x", false),
        ("file -C -m magic", false),
        ("echo 'unterminated", false),
        ("", false),
        ("   ", false),
        (";", false),
    ];

    #[test]
    fn a_line_reads_only_when_every_command_in_it_does() {
        assert!(TABLE.len() >= 40);
        let wrong: Vec<String> = TABLE
            .iter()
            .filter(|(line, reads)| is_read_only(line) != *reads)
            .map(|(line, reads)| format!("{line:?} should be read-only: {reads}"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn nesting_is_followed_to_a_bound() {
        let nest = |levels: usize| {
            let mut line = "ls -la".to_owned();
            for _ in 0..levels {
                line = format!("sh -c {}", shell_words::quote(&line));
            }
            line
        };
        assert!(is_read_only(&nest(2)), "{}", nest(2));
        assert!(
            !is_read_only(&nest(MAX_DEPTH + 2)),
            "{}",
            nest(MAX_DEPTH + 2)
        );
        assert!(!is_read_only(&format!(
            "{}ls",
            "env ".repeat(MAX_DEPTH + 2)
        )));
        assert!(is_read_only("env env ls"));
    }
}

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
    "tree", "du", "df", "diff", "less", "sort", "uniq", "true", "date", "whoami",
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

/// The line cut at control operators outside quotes, with its redirections checked and taken
/// out; `None` when it holds something this does not follow or that may write: an expansion
/// (`$…`, backticks) outside single quotes, a backslash, a comment, braces, a glob, a
/// here-document, or a redirection other than input from a file, output to `/dev/null` and the
/// duplication of a descriptor.
fn segments(line: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        if single {
            single = c != '\'';
            current.push(c);
            continue;
        }
        if double {
            match c {
                '"' => double = false,
                // `"foo$"`: a `$` that ends the quoted text expands nothing.
                '$' if chars.peek() == Some(&'"') => {}
                '$' | '`' => return None,
                _ => {}
            }
            current.push(c);
            continue;
        }
        match c {
            '\'' => single = true,
            '"' => double = true,
            '$' | '`' | '\\' | '#' | '{' | '}' | '*' | '?' | '[' | ']' => return None,
            '<' | '>' => {
                redirection(c, &mut chars, &mut current)?;
                continue;
            }
            '&' if chars.peek() == Some(&'>') => return None,
            '|' | '&' | ';' | '(' | ')' | '\n' => {
                parts.push(std::mem::take(&mut current));
                continue;
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

/// Reads one redirection that starts with `first` (an unquoted `<` or `>`) and leaves it out of
/// `current`; `None` unless it is input from a file (not a socket), output to `/dev/null`, or
/// the duplication or closing of a descriptor. A descriptor number before it (`2>`) must be the
/// whole word so far: `x>file` redirects too, and is refused like any other write.
fn redirection(
    first: char,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    current: &mut String,
) -> Option<()> {
    let word_start = current
        .rfind(|c: char| c.is_whitespace())
        .map_or(0, |i| i + 1);
    if !current[word_start..].chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    current.truncate(word_start);
    let mut op = String::from(first);
    while let Some(&c) = chars.peek() {
        if !matches!(c, '<' | '>' | '&' | '|') {
            break;
        }
        op.push(c);
        chars.next();
    }
    while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
        chars.next();
    }
    let mut target = String::new();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() || matches!(c, '|' | '&' | ';' | '(' | ')' | '<' | '>') {
            break;
        }
        // A quoted or expanded target is not followed.
        if matches!(
            c,
            '\'' | '"' | '$' | '`' | '\\' | '{' | '}' | '*' | '?' | '['
        ) {
            return None;
        }
        target.push(c);
        chars.next();
    }
    let descriptor =
        !target.is_empty() && (target == "-" || target.chars().all(|c| c.is_ascii_digit()));
    let safe = match op.as_str() {
        ">" | ">>" | ">|" => target == "/dev/null",
        ">&" | "<&" => descriptor,
        "<" => !target.is_empty() && (target == "/dev/null" || !target.starts_with("/dev/")),
        _ => false,
    };
    safe.then_some(())
}

/// One simple command's words, wrappers looked through.
fn simple_reads_only(words: &[String], depth: usize) -> bool {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.split_first() {
        None => true,
        Some((program, args)) => program_reads_only(program, args, depth),
    }
}

/// Readers `xargs` may run: their arguments come from the input, so only readers that no
/// option turns into a writer or a runner of programs.
const XARGS_READERS: &[&str] = &[
    "cat", "head", "tail", "grep", "wc", "ls", "stat", "du", "echo",
];

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
        // `command -v cargo` only says where a program is.
        "command" if matches!(args.first(), Some(&"-v" | &"-V")) => true,
        "command" | "nice" => {
            let rest = skip_options(args, &["-n"], &["-p"]);
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
            // No `-I`: it puts input into the command's words, a script's included.
            let rest = skip_options(
                args,
                &["-n", "-L", "-P", "-d", "-s"],
                &["-0", "-r", "-t", "--null", "--no-run-if-empty", "--verbose"],
            );
            match rest {
                // Without a command xargs runs `echo`.
                Some([]) => true,
                Some([p, a @ ..]) => {
                    XARGS_READERS.contains(p) && program_reads_only(p, a, depth + 1)
                }
                None => false,
            }
        }
        shell if SHELLS.contains(&shell) => match args {
            ["-c", script, ..] => reads_only(script, depth + 1),
            _ => false,
        },
        "git" => git_reads_only(args),
        // Changing the directory of this one command line writes nothing.
        "cd" => args.len() <= 1,
        p if READERS.contains(&p) => !writes(p, args),
        _ => false,
    }
}

/// `git [--no-pager | -P | -C <dir>]… <reader> …` without `--output`.
fn git_reads_only(args: &[&str]) -> bool {
    let mut rest = args;
    loop {
        match rest {
            ["--no-pager" | "-P", tail @ ..] => rest = tail,
            ["-C", _, tail @ ..] => rest = tail,
            [sub, tail @ ..] => {
                return GIT_READERS.contains(sub)
                    && !tail.iter().any(|a| a.starts_with("--output"));
            }
            [] => return false,
        }
    }
}

/// The options after which a reader writes or runs something: an output file, a program to run
/// (a compressor, a preprocessor, a hostname helper, a decompressor), a clock setter, a compiled
/// magic file, a written HTML tree, or `uniq`'s second operand (its output file). GNU tools take
/// any unambiguous prefix of a long option, so a prefix counts as the option.
fn writes(program: &str, args: &[&str]) -> bool {
    let has = |short: &str, long: &[&str]| {
        args.iter().any(|a| {
            if let Some(name) = a.strip_prefix("--") {
                let name = name.split('=').next().unwrap_or(name);
                !name.is_empty() && long.iter().any(|l| l.starts_with(name))
            } else {
                a.starts_with('-') && short_flag(a, short)
            }
        })
    };
    match program {
        "sort" => has("o", &["output", "compress-program"]),
        "tree" => has("oR", &["output"]),
        // `date -I` (ISO 8601) takes an attached precision: `-Is` is not `-s`.
        "date" => args.iter().any(|a| match a.strip_prefix("--") {
            Some(name) => {
                let name = name.split('=').next().unwrap_or(name);
                !name.is_empty() && "set".starts_with(name)
            }
            None => a.starts_with('-') && !a.starts_with("-I") && a.contains('s'),
        }),
        "rg" => has("z", &["pre", "pre-glob", "hostname-bin", "search-zip"]),
        "file" => has("C", &["compile"]),
        "uniq" => uniq_operands(args) > 1,
        _ => false,
    }
}

/// `uniq`'s operands (input, then output): `-` counts; `-f N`, `-s N`, `-w N` take a value.
fn uniq_operands(args: &[&str]) -> usize {
    let mut operands = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(*arg, "-f" | "-s" | "-w") {
            iter.next();
        } else if *arg == "-" || !arg.starts_with('-') {
            operands += 1;
        }
    }
    operands
}

/// Whether a cluster of short options (`-rno`) holds one of `flags`.
fn short_flag(arg: &str, flags: &str) -> bool {
    arg[1..].chars().any(|c| flags.contains(c))
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
        ("wc -l <<< 'one line'", false),
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
        ("command -v cargo", true),
        ("cd src && git status", true),
        ("git --no-pager log", true),
        ("git -C src log -3", true),
        ("grep -n \"foo$\" f", true),
        ("uniq -c -f 1 f", true),
        ("date -Is", true),
        ("ls >/dev/null 2>&1", true),
        // Bypasses found in review: escapes, comments, dash's `&>`, xargs feeding wrappers and
        // options, brace expansion, abbreviated long options, redirections inside a word, to a
        // descriptor that is a file, to a socket, or read-write.
        ("echo \\>& rm -rf target", false),
        ("ls #\\\nrm -rf target", false),
        ("ls #'\nrm -rf target\n#'", false),
        ("sh -c 'ls &>/dev/null rm -rf target'", false),
        ("echo rm -rf target | xargs env", false),
        ("echo rm x | xargs xargs", false),
        ("echo --pre=./evil TODO | xargs rg", false),
        ("echo -o notes.txt f | xargs sort", false),
        ("echo --output=x | xargs git log", false),
        ("echo 'x; rm -rf target' | xargs -I@ sh -c 'echo @'", false),
        ("timeout {5,rm,-rf,target} ls", false),
        ("nice -n {5,rm,-rf,target} ls", false),
        ("echo x | xargs -n {1,rm,-rf,target} cat", false),
        ("rg {--pre=./evil,TODO}", false),
        ("sort --compress-program=./evil -S 1 big.txt", false),
        (
            "rg --hostname-bin=./evil --hyperlink-format=default TODO",
            false,
        ),
        ("rg -z secret logs.gz", false),
        ("echo pwned x>notes.txt", false),
        ("cat secret.txt a>copy.txt", false),
        ("echo pwned\"\">notes.txt", false),
        ("echo pwned >&notes.txt", false),
        ("echo pwned >& notes.txt", false),
        ("cat secret.txt >&/dev/tcp/127.0.0.1/47011", false),
        ("echo pwned 1<>notes.txt", false),
        ("ls <>new.txt", false),
        ("sort {-o,notes.txt} f", false),
        ("git log {--output=notes.txt,-1}", false),
        ("uniq {in.txt,notes.txt}", false),
        ("ls {fd}>src/main.rs", false),
        ("sort --out=notes.txt f", false),
        ("file --com -m m", false),
        ("date --se=2020-01-01", false),
        ("echo pwned | uniq - notes.txt", false),
        ("uniq in.txt not*.txt", false),
        ("grep x </dev/tcp/example.com/80", false),
        ("tree -H . -R -L 1", false),
        ("git -c core.pager=rm log", false),
        ("ls *.rs", false),
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
        assert!(is_read_only("sh -c \"bash -c 'ls -la'\""));
        // Deeper quoting needs escapes, which are never followed.
        let mut line = "ls -la".to_owned();
        for _ in 0..MAX_DEPTH + 2 {
            line = format!("sh -c {}", shell_words::quote(&line));
        }
        assert!(!is_read_only(&line), "{line}");
        assert!(!is_read_only(&format!(
            "{}ls",
            "env ".repeat(MAX_DEPTH + 2)
        )));
        assert!(is_read_only("env env ls"));
    }
}

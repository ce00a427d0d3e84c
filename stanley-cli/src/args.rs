//! The fixed command line of `stanley`: every option, strict parsing (an unknown or removed flag
//! is a usage error before anything is routed), and the request checks that need no daemon.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};

use crate::exit::ClientError;

/// Longest request accepted, in UTF-8 bytes.
pub const MAX_REQUEST_BYTES: usize = 16_384;

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Print help (exit 0, or 64 when the command line was empty).
    Help { empty: bool },
    /// Print the version.
    Version,
    /// Run the improvement worker.
    ImproveWorker(Options),
    /// Promote a validated candidate.
    Promote(String, Options),
    /// Run a request.
    Request(String, Options),
}

/// The options shared by every mode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub input: Option<String>,
    pub scope: Option<String>,
    pub base: Option<String>,
    pub repo: Option<String>,
    pub json: bool,
    pub no_persist: bool,
    pub no_agent: bool,
    /// List every item the report only counts (parked, excluded, unjudged, rows per item).
    pub verbose: bool,
}

/// The command line as the shell completions and the man page see it (`stanleyctl
/// completions`, `stanleyctl man`): the parser's, with `--scope`'s values named so a shell can
/// offer them (parsing checks them itself, to say so in its own words).
/// The man page's description and closing sections are the help's own paragraphs.
pub fn documented_command() -> Command {
    let help = crate::help::help_text(stanley_proto::VERSION);
    let between = |from: &str, to: &str| {
        let start = help.find(from).map_or(0, |i| i + from.len());
        let end = help[start..].find(to).map_or(help.len(), |i| start + i);
        help[start..end].trim().to_owned()
    };
    command()
        .mut_arg("scope", |a| {
            a.value_parser(["worktree", "staged", "branch"])
        })
        .long_about(between("[options]\n", "Examples:"))
        .after_long_help(
            help[help.find("Environment:").unwrap_or(help.len())..]
                .trim()
                .to_owned(),
        )
}

/// The command line as clap parses it. `--help` prints `help::help_text`.
fn command() -> Command {
    let value = |name: &'static str, placeholder: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .num_args(1)
            .action(ArgAction::Set)
            .allow_hyphen_values(true)
            .value_name(placeholder)
            .help(help)
    };
    let flag = |name: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new("stanley")
        .about("Jev-first, self-improving coding agent: say what you need in plain language")
        .version(crate::LONG_VERSION)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .arg(
            Arg::new("request")
                .num_args(0..)
                .action(ArgAction::Append)
                .trailing_var_arg(false)
                .value_name("REQUEST")
                .help("The request in plain language; it is the task"),
        )
        .arg(
            value("input", "PATH|-", "One piece of evidence: a file in the repository, or - for stdin")
                .value_hint(clap::ValueHint::FilePath),
        )
        .arg(value("scope", "KIND", "worktree (default), staged, or branch"))
        .arg(value("base", "REF", "Base ref for a branch diff (default main)"))
        .arg(
            value("repo", "DIR", "Repository to work in (default: the current directory)")
                .value_hint(clap::ValueHint::DirPath),
        )
        .arg(flag("json", "Emit a versioned result (schema stanley.prompt-result/v1)"))
        .arg(flag("no-persist", "Do not write run records under .stanley/runs/"))
        .arg(flag("no-agent", "Never delegate to a coding agent"))
        .arg(flag(
            "verbose",
            "List every item the report counts: parked, excluded and unjudged items, each item's row",
        ))
        .arg(flag("improve-worker", "Process queued workflow-improvement jobs now"))
        .arg(value(
            "promote-candidate",
            "ID",
            "Activate a validated workflow candidate",
        ))
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::SetTrue)
                .help("Show the help"),
        )
        .arg(
            Arg::new("version")
                .short('v')
                .short_alias('V')
                .long("version")
                .action(ArgAction::SetTrue)
                .help("Show the version and the commit it was built from"),
        )
}

fn clap_message(error: &clap::Error) -> String {
    let invalid = error.get(ContextKind::InvalidArg).and_then(|v| match v {
        // clap names a value option with its placeholder (`--scope <scope>`); keep the flag.
        ContextValue::String(s) => s.split(' ').next().map(str::to_owned),
        _ => None,
    });
    match (error.kind(), invalid) {
        (ErrorKind::UnknownArgument, Some(arg)) => match error.get(ContextKind::SuggestedArg) {
            Some(ContextValue::String(near)) => {
                let near = near.split(' ').next().unwrap_or(near);
                format!("unknown option `{arg}` (did you mean `{near}`?)")
            }
            _ => format!("unknown option `{arg}`"),
        },
        (ErrorKind::InvalidValue | ErrorKind::NoEquals | ErrorKind::TooFewValues, Some(arg)) => {
            format!("option `{arg}` needs a value")
        }
        (ErrorKind::TooManyValues | ErrorKind::ArgumentConflict, Some(arg)) => {
            format!("option `{arg}` was given more than once")
        }
        (_, _) => error
            .to_string()
            .lines()
            .next()
            .unwrap_or("invalid command line")
            .trim_start_matches("error: ")
            .to_owned(),
    }
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Invocation, ClientError> {
    if args.is_empty() {
        return Ok(Invocation::Help { empty: true });
    }
    let matches = command()
        .try_get_matches_from(std::iter::once("stanley".to_owned()).chain(args.iter().cloned()))
        .map_err(|e| ClientError::usage(clap_message(&e)))?;
    let positionals: Vec<String> = matches
        .get_many::<String>("request")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    if matches.get_flag("help") || (positionals.len() == 1 && positionals[0] == "help") {
        return Ok(Invocation::Help { empty: false });
    }
    if matches.get_flag("version") {
        return Ok(Invocation::Version);
    }
    let get = |k: &str| matches.get_one::<String>(k).cloned();
    let options = Options {
        input: get("input"),
        scope: get("scope"),
        base: get("base"),
        repo: get("repo"),
        json: matches.get_flag("json"),
        no_persist: matches.get_flag("no-persist"),
        no_agent: matches.get_flag("no-agent"),
        verbose: matches.get_flag("verbose"),
    };
    let request = positionals.join(" ").trim().to_owned();
    let worker = matches.get_flag("improve-worker");
    let promote = get("promote-candidate");
    if worker && promote.is_some() {
        return Err(ClientError::usage(
            "use either --improve-worker or --promote-candidate, not both",
        ));
    }
    if !request.is_empty() && worker {
        return Err(ClientError::usage(
            "--improve-worker does not take a request",
        ));
    }
    if !request.is_empty() && promote.is_some() {
        return Err(ClientError::usage(
            "--promote-candidate does not take a request",
        ));
    }
    if worker {
        return Ok(Invocation::ImproveWorker(options));
    }
    if let Some(id) = promote {
        return Ok(Invocation::Promote(id, options));
    }
    if request.is_empty() {
        return Err(ClientError::usage("a natural-language request is required"));
    }
    if request.len() > MAX_REQUEST_BYTES || request.contains('\0') {
        return Err(ClientError::usage(format!(
            "the request must be at most {MAX_REQUEST_BYTES} bytes and contain no null bytes"
        )));
    }
    if let Some(scope) = &options.scope
        && !matches!(scope.as_str(), "worktree" | "staged" | "branch")
    {
        return Err(ClientError::usage(
            "--scope must be one of worktree, staged, branch",
        ));
    }
    Ok(Invocation::Request(request, options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Invocation, ClientError> {
        parse(&args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn parses_requests_and_options() {
        let Ok(Invocation::Request(req, opts)) = p(&[
            "Summarize",
            " what",
            "changed ",
            "--json",
            "--scope",
            "staged",
            "--input",
            "-",
        ]) else {
            panic!("expected a request")
        };
        assert_eq!(req, "Summarize  what changed");
        assert!(opts.json);
        assert_eq!(opts.scope.as_deref(), Some("staged"));
        assert_eq!(opts.input.as_deref(), Some("-"));
    }

    #[test]
    fn help_version_and_empty() {
        assert_eq!(p(&[]).unwrap(), Invocation::Help { empty: true });
        assert_eq!(p(&["help"]).unwrap(), Invocation::Help { empty: false });
        assert_eq!(p(&["-h"]).unwrap(), Invocation::Help { empty: false });
        assert_eq!(p(&["--version"]).unwrap(), Invocation::Version);
        assert_eq!(p(&["-v"]).unwrap(), Invocation::Version);
        assert_eq!(p(&["-V"]).unwrap(), Invocation::Version);
    }

    #[test]
    fn a_mistyped_option_says_which_one_was_meant() {
        let err = p(&["Review this", "--jsn"]).unwrap_err();
        assert_eq!(
            err.message,
            "unknown option `--jsn` (did you mean `--json`?)"
        );
        let err = p(&["Review this", "--scop", "branch"]).unwrap_err();
        assert!(err.message.contains("did you mean `--scope`?"), "{err:?}");
    }

    #[test]
    fn removed_and_unknown_flags_are_usage_errors() {
        for flag in [
            "--task",
            "--task-file",
            "--task-source",
            "--rules",
            "--criteria",
            "--criteria-file",
            "--test-results",
            "--max-hunks",
            "--max-pairs",
            "--max-evidence",
            "--max-items",
            "--max-files",
            "--top",
            "--excerpts",
            "--paths",
            "--no-diff",
            "--model",
            "--concurrency",
            "--max-requests",
            "--max-input-tokens",
            "--timeout-seconds",
            "--agent-timeout-seconds",
            "--as",
            "--kind",
            "--offline",
            "--bogus",
        ] {
            let err = p(&["Find things", flag, "x"]).unwrap_err();
            assert_eq!(err.kind, crate::exit::ErrorKind::Usage, "{flag}");
            assert!(err.message.contains(flag), "{flag}: {}", err.message);
        }
    }

    #[test]
    fn request_checks() {
        let msg = |args: &[&str]| p(args).unwrap_err().message;
        assert_eq!(msg(&["--json"]), "a natural-language request is required");
        assert_eq!(msg(&["  "]), "a natural-language request is required");
        assert_eq!(
            msg(&["x", "--scope", "index"]),
            "--scope must be one of worktree, staged, branch"
        );
        assert_eq!(
            msg(&["a\0b"]),
            "the request must be at most 16384 bytes and contain no null bytes"
        );
        assert_eq!(
            msg(&[&"x".repeat(16_385)]),
            "the request must be at most 16384 bytes and contain no null bytes"
        );
        assert!(p(&[&"x".repeat(16_384)]).is_ok());
        assert_eq!(
            msg(&["--improve-worker", "--promote-candidate", "x"]),
            "use either --improve-worker or --promote-candidate, not both"
        );
        assert_eq!(
            msg(&["do it", "--improve-worker"]),
            "--improve-worker does not take a request"
        );
        assert_eq!(
            msg(&["do it", "--promote-candidate", "imp_1"]),
            "--promote-candidate does not take a request"
        );
        assert_eq!(msg(&["x", "--scope"]), "option `--scope` needs a value");
    }
}

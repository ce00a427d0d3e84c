//! The `stanleyctl` command line: every subcommand, its arguments and its help.

use clap::{Arg, ArgAction, Command};

pub(crate) fn command() -> Command {
    Command::new("stanleyctl")
        .version(stanley_cli::LONG_VERSION)
        .about("Administer Stanley's per-repository daemon")
        // `-v` and `-V` both, as `stanley` takes them (issue 49).
        .disable_version_flag(true)
        .arg(
            Arg::new("version")
                .short('v')
                .short_alias('V')
                .long("version")
                .action(ArgAction::Version)
                .help("Show the version and the commit it was built from"),
        )
        .arg(
            Arg::new("repo")
                .long("repo")
                .global(true)
                .num_args(1)
                .help("Repository (default: the current directory)"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Print JSON"),
        )
        .subcommand_required(true)
        .subcommand(
            Command::new("daemon")
                .about("The daemon of this repository")
                .subcommand_required(true)
                .subcommand(
                    Command::new("status").about("Show whether the daemon runs, and its versions"),
                )
                .subcommand(Command::new("stop").about("Stop the daemon gracefully"))
                .subcommand(Command::new("restart").about("Stop the daemon and start a new one"))
                .subcommand(Command::new("logs").about("Print the daemon log")),
        )
        .subcommand(queue_command())
        .subcommand(flow_command())
        .subcommand(
            Command::new("hook")
                .about("Answer a Claude Code hook event for the flow (hook JSON on stdin)")
                .arg(
                    Arg::new("event")
                        .required(true)
                        .value_parser(stanley_proto::HOOK_EVENTS),
                ),
        )
        .subcommand(
            Command::new("trust")
                .about("Trust this worktree's repository workflows and flow commands as they are now")
                .arg(
                    Arg::new("status")
                        .long("status")
                        .action(ArgAction::SetTrue)
                        .help("Only show what is trusted and what changed since"),
                )
                .arg(
                    Arg::new("edits")
                        .long("edits")
                        .action(ArgAction::SetTrue)
                        .conflicts_with("status")
                        .help("Also trust your further edits while HEAD stays at this commit"),
                ),
        )
        .subcommand(Command::new("untrust").about("Remove this worktree's trust"))
        .subcommand(runs_command())
        .subcommand(
            Command::new("cache")
                .about("The judgment cache: Jev answers kept so a repeated question costs nothing")
                .subcommand_required(true)
                .subcommand(
                    Command::new("stats").about("Show how many answers are kept, their size, hits and misses"),
                )
                .subcommand(Command::new("clear").about("Remove every cached answer")),
        )
        .subcommand(Command::new("doctor").about(
            "Check the setup: key and Jev, model, daemon, runtime folder, Node.js, Pi, git, repository (exit 78 when a check fails)",
        ))
        .subcommand(candidates_command())
        .subcommand(Command::new("lsp").about(
            "Serve editors as a language server on stdin and stdout: findings as diagnostics, hover, code actions, the built-ins as commands (exit 0 after shutdown, 1 when the editor left without it)",
        ))
        .subcommand(
            Command::new("completions")
                .about("Print the shell completions of stanleyctl or stanley for bash, zsh or fish")
                .arg(
                    Arg::new("shell")
                        .required(true)
                        .value_parser(["bash", "zsh", "fish"]),
                )
                .arg(
                    Arg::new("command")
                        .value_parser(["stanleyctl", "stanley"])
                        .default_value("stanleyctl")
                        .help("Whose completions (default stanleyctl)"),
                ),
        )
        .subcommand(
            Command::new("man")
                .about("Print the man page of stanleyctl or stanley (roff)")
                .arg(
                    Arg::new("command")
                        .value_parser(["stanleyctl", "stanley"])
                        .default_value("stanleyctl")
                        .help("Whose man page (default stanleyctl)"),
                ),
        )
        .subcommand(
            Command::new("ui")
                .about("Open the read-only web page: runs and findings, the queue and candidates, the flow (prints its address first)")
                .arg(
                    Arg::new("no-open")
                        .long("no-open")
                        .action(ArgAction::SetTrue)
                        .help("Only print the address; do not start a browser"),
                ),
        )
}

/// The `queue` group.
fn queue_command() -> Command {
    Command::new("queue")
        .about("The improvement queue")
        .subcommand_required(true)
        .subcommand(Command::new("list").about("List the jobs"))
        .subcommand(
            Command::new("show")
                .about("Show one job and its diary")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(
            Command::new("retry")
                .about("Put a job back to pending with no attempts")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(
            Command::new("drop")
                .about("Remove a job from the queue")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(Command::new("work").about("Process the pending jobs now"))
        .subcommand(Command::new("export").about("Print the whole queue as JSON"))
}

/// The `flow` group.
fn flow_command() -> Command {
    Command::new("flow")
        .about("The flow of this repository (.stanley/flow.json)")
        .subcommand_required(true)
        .subcommand(
            Command::new("init")
                .about("Write a starter flow in warn mode for a goal")
                .arg(
                    Arg::new("goal")
                        .required(true)
                        .help("One concrete, checkable sentence"),
                )
                .arg(
                    Arg::new("force")
                        .long("force")
                        .action(ArgAction::SetTrue)
                        .help("Replace an existing flow file"),
                ),
        )
        .subcommand(
            Command::new("status").about("Show the phase table, decisions and budgets"),
        )
        .subcommand(Command::new("run").about(
            "Supervise the coding agent through the flow (exit 0 complete, 2 limit, 3 configuration, 4 waiting on a person, 5 already running, 130 interrupted)",
        ))
        .subcommand(Command::new("stop").about("Interrupt the running supervisor"))
}

/// The `runs` group.
fn runs_command() -> Command {
    Command::new("runs")
        .about("Past runs: what was asked, what ran, what it found and cost")
        .subcommand_required(true)
        .subcommand(Command::new("list").about("List the runs, newest first"))
        .subcommand(
            Command::new("show")
                .about("Print what a run printed (`latest` for the newest)")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(
            Command::new("export")
                .about("Print a run as SARIF 2.1.0 for code scanning, or its JSON result")
                .arg(Arg::new("id").required(true))
                .arg(
                    Arg::new("format")
                        .long("format")
                        .num_args(1)
                        .value_parser(["sarif", "json"])
                        .default_value("sarif")
                        .help("sarif (default) or json"),
                ),
        )
}

/// The `candidates` group.
fn candidates_command() -> Command {
    Command::new("candidates")
        .about("Workflows drafted by the improvement queue")
        .subcommand_required(true)
        .subcommand(Command::new("list").about("List the candidates"))
        .subcommand(
            Command::new("show")
                .about("Show one candidate record")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(
            Command::new("promote")
                .about("Activate a validated candidate in .stanley/workflows/")
                .arg(Arg::new("id").required(true)),
        )
        .subcommand(
            Command::new("reject")
                .about("Mark a validated candidate rejected")
                .arg(Arg::new("id").required(true)),
        )
}

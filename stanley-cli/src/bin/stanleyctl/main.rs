//! `stanleyctl`: administers a repository's daemon (`daemon status|stop|restart|logs`), its
//! improvement queue (`queue ...`), the candidates the queue drafts (`candidates ...`), its flow
//! (`flow init|run|status|stop`), its judgment cache (`cache stats|clear`), its past runs (`runs
//! list|show|export`), opens the read-only web page (`ui`), answers Claude Code hooks for
//! the flow (`hook <event>`), serves editors as a language server (`lsp`), and prints its own and
//! `stanley`'s shell completions and man pages (`completions`, `man`).

#![cfg_attr(not(test), forbid(unsafe_code))]

mod cache;
mod cli;
mod daemon;
mod doctor;
mod flow;
mod lsp;
mod queue;
mod runs;
mod setup;
mod ui;

use std::path::PathBuf;
use std::process::ExitCode;

use stanley_cli::daemon::{Target, runtime};
use stanley_cli::exit::{ClientError, Exit};
use stanley_cli::root::worktree_root;

use crate::cli::command;

/// Runs a command on the runtime; SIGINT or SIGTERM drops it (cancelling what it started in
/// the daemon) and ends with 130 or 143.
pub(crate) fn block_on(
    runtime: &tokio::runtime::Runtime,
    work: impl std::future::Future<Output = ExitCode>,
) -> ExitCode {
    runtime.block_on(async {
        tokio::select! {
            code = work => code,
            error = stanley_cli::signals::interrupted("stopped") => fail(&error),
        }
    })
}

/// Runs one client command (`work`, which talks to the daemon) on a fresh runtime: Ctrl-C
/// cancels it, and a failure is reported and ends with its code.
pub(crate) fn client_command(
    work: impl std::future::Future<Output = Result<(), ClientError>>,
) -> ExitCode {
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let result = runtime.block_on(stanley_cli::signals::interruptible(
        work,
        "the command was cancelled",
    ));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

/// A subcommand's string argument `name`, or "" when it has none.
pub(crate) fn arg(args: &clap::ArgMatches, name: &str) -> String {
    args.try_get_one::<String>(name)
        .ok()
        .flatten()
        .cloned()
        .unwrap_or_default()
}

/// Reports a client-side error on stderr and ends with its code.
pub(crate) fn fail(error: &ClientError) -> ExitCode {
    stanley_cli::errln!(
        "stanleyctl: {} error: {}",
        error.kind.as_str(),
        error.message
    );
    if let Some(hint) = &error.hint {
        stanley_cli::errln!("hint: {hint}");
    }
    ExitCode::from(error.exit_code())
}

fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            stanley_cli::out!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            stanley_cli::err!("{e}");
            return ExitCode::from(Exit::Usage.code());
        }
    };
    // Completions and man pages need no repository and no daemon.
    match matches.subcommand() {
        Some(("completions", sub)) => return setup::completions(sub),
        Some(("man", sub)) => return setup::man(sub),
        _ => {}
    }
    let json = matches.get_flag("json");
    // A bad environment is reported before a daemon is found or started.
    if let Err(e) = stanley_cli::environ::request_env() {
        return fail(&e);
    }
    let start = match matches.get_one::<String>("repo") {
        Some(r) => PathBuf::from(r),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let root = match worktree_root(&start) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let target = Target::new(root);
    if let Some((group @ ("queue" | "candidates"), sub)) = matches.subcommand() {
        return queue::queue(&target, group, sub, json);
    }
    if let Some(("flow", sub)) = matches.subcommand() {
        return match sub.subcommand_name() {
            Some("run") => flow::flow_run(&target),
            _ => flow::flow(&target, sub, json),
        };
    }
    if let Some((name @ ("trust" | "untrust"), sub)) = matches.subcommand() {
        use stanley_cli::trust::Action;
        let action = match name {
            "untrust" => Action::Revoke,
            _ if sub.get_flag("status") => Action::Status,
            _ => Action::Grant {
                edits: sub.get_flag("edits"),
            },
        };
        let runtime = match runtime() {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        return block_on(&runtime, async {
            match stanley_cli::trust::run(&target, action, json).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&e),
            }
        });
    }
    if let Some(("runs", sub)) = matches.subcommand() {
        return runs::runs(&target, sub, json);
    }
    if let Some(("cache", sub)) = matches.subcommand() {
        return cache::cache(&target, sub, json);
    }
    if let Some(("ui", sub)) = matches.subcommand() {
        return ui::ui(&target, sub.get_flag("no-open"), json);
    }
    if let Some(("lsp", _)) = matches.subcommand() {
        return lsp::lsp(&target);
    }
    if let Some(("doctor", _)) = matches.subcommand() {
        return doctor::doctor(&target, json);
    }
    if let Some(("hook", sub)) = matches.subcommand() {
        let event = sub.get_one::<String>("event").cloned().unwrap_or_default();
        return flow::hook(&target, &event);
    }
    let Some(("daemon", sub)) = matches.subcommand() else {
        return fail(&ClientError::usage("unknown command"));
    };
    daemon::daemon(&target, sub, json)
}

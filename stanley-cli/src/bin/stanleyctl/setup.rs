//! What an install needs from the clients themselves (issue 34): shell completions for bash,
//! zsh and fish (`stanleyctl completions <shell> [stanley|stanleyctl]`, from the same clap
//! command lines that parse) and man pages (`stanleyctl man [stanley|stanleyctl]`, roff on
//! stdout). `scripts/install` writes both; a person who installs by hand runs them (D-129).

use std::process::ExitCode;

use clap::ArgMatches;
use clap_complete::Shell;

/// The command line of `stanley` or `stanleyctl`, by name.
fn command_named(name: &str) -> clap::Command {
    match name {
        "stanley" => stanley_cli::args::documented_command(),
        _ => crate::cli::command(),
    }
}

/// `stanleyctl completions <shell> [command]`: the completion script on stdout.
pub(crate) fn completions(sub: &ArgMatches) -> ExitCode {
    let shell = match crate::arg(sub, "shell").as_str() {
        "bash" => Shell::Bash,
        "zsh" => Shell::Zsh,
        _ => Shell::Fish,
    };
    let name = crate::arg(sub, "command");
    let mut command = command_named(&name);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut out);
    stanley_cli::out!("{}", String::from_utf8_lossy(&out));
    ExitCode::SUCCESS
}

/// `stanleyctl man [command]`: the man page in roff on stdout.
pub(crate) fn man(sub: &ArgMatches) -> ExitCode {
    let command = command_named(&crate::arg(sub, "command"));
    let mut out = Vec::new();
    match clap_mangen::Man::new(command).render(&mut out) {
        Ok(()) => {
            stanley_cli::out!("{}", String::from_utf8_lossy(&out));
            ExitCode::SUCCESS
        }
        Err(e) => crate::fail(&stanley_cli::exit::ClientError::internal(format!(
            "cannot render the man page: {e}"
        ))),
    }
}

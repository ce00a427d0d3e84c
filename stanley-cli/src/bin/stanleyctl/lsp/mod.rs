//! `stanleyctl lsp`: a language server on standard input and output (LSP 3.17 over
//! `tower-lsp-server`, D-115), a thin edge over the repository's daemon: the standing findings as
//! diagnostics, live; hover; code actions; the built-ins as commands with progress and
//! cancellation. It talks only to the daemon of the repository it was started in, found and
//! checked as every client does (`stanley_cli::daemon`).
//!
//! Exit codes: 0 after `shutdown` and `exit`; 1 when the editor went away (its end of standard
//! input closed) or sent `exit` without `shutdown`, as LSP asks. A malformed message is skipped
//! with one line on standard error (`frames.rs`), and reading goes on.

mod commands;
mod findings;
mod frames;
mod server;
mod shared;
mod state;
mod text;
mod watch;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use stanley_cli::daemon::{Target, runtime};
use tower_lsp_server::{LspService, Server};

use crate::lsp::server::{Backend, Shared};

/// Serves the editor on standard input and output until it leaves.
pub(crate) fn lsp(target: &Target) -> ExitCode {
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return crate::fail(&e),
    };
    let shared = Shared::new(target.clone());
    let served = shared.clone();
    runtime.block_on(async move {
        // Standard input reaches the server through the frame filter; its end cancels what
        // still runs for the editor, which has gone.
        let (to_server, stdin) = tokio::io::duplex(1 << 20);
        tokio::spawn(frames::filter(
            tokio::io::stdin(),
            to_server,
            served.stop.clone(),
        ));
        let backend = served.clone();
        let (service, socket) = LspService::build(move |client| Backend::new(client, backend))
            .custom_method("window/workDoneProgress/cancel", Backend::progress_cancel)
            .finish();
        Server::new(stdin, tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    // The watcher and anything still running end with the runtime.
    shutdown(runtime, &shared)
}

fn shutdown(runtime: tokio::runtime::Runtime, shared: &Arc<Shared>) -> ExitCode {
    shared.stop.cancel();
    runtime.shutdown_background();
    if shared.shut_down.load(Ordering::SeqCst) {
        ExitCode::SUCCESS
    } else {
        stanley_cli::errln!(
            "stanleyctl: the editor closed the language server without asking it to shut down"
        );
        ExitCode::from(1)
    }
}

//! Interrupts: SIGINT (Ctrl-C) ends a command with 130 and SIGTERM with 143, for `stanley` and
//! `stanleyctl` alike, after the work in flight is dropped (which cancels a request or a flow
//! run in the daemon), so a script can tell an interrupt from a crash.

use std::future::Future;

use tokio::signal::unix::{SignalKind, signal};

use crate::exit::{ClientError, ErrorKind};

/// Resolves with the error for the first SIGINT or SIGTERM; never resolves if the handlers
/// cannot be installed.
pub async fn interrupted(what: &str) -> ClientError {
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    let kind = tokio::select! {
        _ = int.recv() => ErrorKind::Interrupted,
        _ = term.recv() => ErrorKind::Terminated,
    };
    ClientError {
        kind,
        message: what.to_owned(),
        hint: None,
    }
}

/// Runs `work` until it ends or a signal arrives; on a signal the work is dropped (cancelling it
/// in the daemon) and the interrupt is the error.
pub async fn interruptible<T>(
    work: impl Future<Output = Result<T, ClientError>>,
    what: &str,
) -> Result<T, ClientError> {
    tokio::select! {
        result = work => result,
        error = interrupted(what) => Err(error),
    }
}

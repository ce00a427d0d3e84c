//! `stanleyctl daemon status|stop|restart|logs`: the repository's daemon.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, connect_or_start, connect_running, runtime, stop};
use stanley_cli::exit::ClientError;

use crate::fail;

/// The most of the daemon's log `stanleyctl daemon logs` prints: its end.
const LOG_TAIL_BYTES: u64 = 16 * 1024 * 1024;

/// Runs one `daemon` subcommand.
pub(crate) fn daemon(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    let action = sub.subcommand_name().unwrap_or("status").to_owned();
    if action == "logs" {
        // The newest 16 MiB, as a regular file not reached through a link: the log is in the
        // repository, where a branch could put a link to `/dev/zero` in its place.
        return match stanley_proto::private::read_tail(&target.log(), LOG_TAIL_BYTES) {
            Ok(bytes) => {
                stanley_cli::out!("{}", String::from_utf8_lossy(&bytes));
                ExitCode::SUCCESS
            }
            Err(e) => fail(&ClientError::input(format!(
                "cannot read {}: {e}",
                target.log().display()
            ))),
        };
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    crate::block_on(&runtime, async move {
        match action.as_str() {
            "status" => match connect_running(target).await {
                Err(e) => fail(&e),
                Ok(Some((_, s))) if json => {
                    stanley_cli::outln!(
                        "{{\"running\":true,\"pid\":{},\"daemonVersion\":\"{}\",\"protocolVersion\":{},\"root\":{},\"uptimeMs\":{},\"activeRequests\":{},\"logWriteErrors\":{}}}",
                        s.pid,
                        s.daemon_version,
                        s.protocol_version,
                        stanley_cli::render::json_string(&s.root),
                        s.uptime_ms,
                        s.active_requests,
                        s.log_write_errors
                    );
                    ExitCode::SUCCESS
                }
                Ok(Some((_, s))) => {
                    stanley_cli::outln!(
                        "stanleyd {} (protocol {}) pid {} serving {}",
                        s.daemon_version,
                        s.protocol_version,
                        s.pid,
                        s.root
                    );
                    stanley_cli::outln!(
                        "up {}s, {} active request(s), workflows: {}",
                        s.uptime_ms / 1000,
                        s.active_requests,
                        s.workflows.join(", ")
                    );
                    if s.log_write_errors > 0 {
                        stanley_cli::outln!(
                            "warning: {} log line(s) could not be written to {} (is the disk full?)",
                            s.log_write_errors,
                            target.log().display()
                        );
                    }
                    ExitCode::SUCCESS
                }
                Ok(None) => {
                    let other = stanley_cli::daemon::serving_elsewhere(target);
                    if json {
                        match &other {
                            Some(o) => stanley_cli::outln!(
                                "{{\"running\":false,\"elsewhere\":{{\"pid\":{},\"socket\":{}}}}}",
                                o.pid,
                                stanley_cli::render::json_string(&o.socket.display().to_string())
                            ),
                            None => stanley_cli::outln!("{{\"running\":false}}"),
                        }
                    } else {
                        stanley_cli::outln!(
                            "no stanleyd is running for {} on {}",
                            target.root.display(),
                            target.socket.display()
                        );
                        if let Some(o) = &other {
                            stanley_cli::outln!("{}", o.message(target));
                        }
                    }
                    ExitCode::SUCCESS
                }
            },
            "stop" => match connect_running(target).await {
                Err(e) => fail(&e),
                Ok(Some((client, s))) => {
                    match stop(client, &target.socket, "stanleyctl daemon stop").await {
                        Ok(()) => {
                            stanley_cli::outln!("stopped stanleyd pid {}", s.pid);
                            ExitCode::SUCCESS
                        }
                        Err(e) => fail(&e),
                    }
                }
                Ok(None) => match stanley_cli::daemon::serving_elsewhere(target) {
                    Some(o) => fail(&ClientError::unavailable(
                        o.message(target),
                        stanley_cli::daemon::Elsewhere::HINT,
                    )),
                    None => {
                        stanley_cli::outln!("no stanleyd is running for {}", target.root.display());
                        ExitCode::SUCCESS
                    }
                },
            },
            _ => {
                let running = match connect_running(target).await {
                    Ok(r) => r,
                    Err(e) => return fail(&e),
                };
                if let Some((client, _)) = running
                    && let Err(e) = stop(client, &target.socket, "stanleyctl daemon restart").await
                {
                    return fail(&e);
                }
                match connect_or_start(target).await {
                    Ok(_) => {
                        stanley_cli::outln!("started stanleyd for {}", target.root.display());
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                }
            }
        }
    })
}

//! `stanleyctl doctor`: checks a setup. The client checks what it owns (the runtime folder, the
//! daemon and its version), the daemon the rest with the caller's environment (`Diagnose`).
//! Each check is `ok`, `warn` or `fail` with what to do; exit 0 when nothing fails, else 78.

use std::process::ExitCode;

use serde_json::json;
use stanley_cli::daemon::{Target, connect_or_start, runtime};
use stanley_cli::exit::Exit;
use stanley_proto::v1::{Check, CheckState, DiagnoseRequest, GetStatusRequest};

use crate::fail;

fn check(
    name: &str,
    state: CheckState,
    detail: impl Into<String>,
    fix: impl Into<String>,
) -> Check {
    Check::new(name, state, detail, fix)
}

/// The runtime folder, as the client checks it before every connection.
fn runtime_check(target: &Target) -> Check {
    let Some(dir) = target.socket.parent() else {
        return check("runtime", CheckState::Fail, "the socket has no folder", "");
    };
    match stanley_proto::private::check_private_dir(dir) {
        Ok(true) => check(
            "runtime",
            CheckState::Ok,
            format!("{}: yours, mode 0700", dir.display()),
            "",
        ),
        Ok(false) => check(
            "runtime",
            CheckState::Ok,
            format!(
                "{} does not exist yet; the daemon creates it",
                dir.display()
            ),
            "",
        ),
        Err(problem) => check(
            "runtime",
            CheckState::Fail,
            problem.to_string(),
            problem.hint(stanley_proto::env::XDG_RUNTIME_DIR),
        ),
    }
}

async fn checks(target: &Target) -> Vec<Check> {
    let mut checks = vec![runtime_check(target)];
    let env = match stanley_cli::environ::request_env() {
        Ok(e) => e,
        Err(e) => {
            checks.push(check("environment", CheckState::Fail, e.message, ""));
            return checks;
        }
    };
    let mut client = match connect_or_start(target).await {
        Ok(c) => c,
        Err(e) => {
            checks.push(check(
                "daemon",
                CheckState::Fail,
                format!("{}; the other checks need it", e.message),
                e.hint.unwrap_or_default(),
            ));
            return checks;
        }
    };
    let status = client
        .get_status(GetStatusRequest {
            client_protocol_version: stanley_proto::PROTOCOL_VERSION,
            client_version: stanley_proto::VERSION.to_owned(),
        })
        .await;
    checks.push(match status {
        Ok(s) => {
            let s = s.into_inner();
            check(
                "daemon",
                CheckState::Ok,
                format!(
                    "stanleyd {} (protocol {}) pid {}, the same version as this client",
                    s.daemon_version, s.protocol_version, s.pid
                ),
                "",
            )
        }
        Err(e) => check(
            "daemon",
            CheckState::Fail,
            e.message().to_owned(),
            "stanleyctl daemon restart",
        ),
    });
    match client.diagnose(DiagnoseRequest { env }).await {
        Ok(r) => checks.extend(r.into_inner().checks),
        Err(e) => checks.push(check(
            "daemon",
            CheckState::Fail,
            format!("the daemon could not run its checks: {}", e.message()),
            "stanleyctl daemon restart",
        )),
    }
    checks
}

/// Runs `stanleyctl doctor`.
pub(crate) fn doctor(target: &Target, json: bool) -> ExitCode {
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let checks = match runtime.block_on(stanley_cli::signals::interruptible(
        async { Ok(checks(target).await) },
        "stopped",
    )) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let failed = checks
        .iter()
        .any(|c| c.resolved_check_state() == CheckState::Fail);
    if json {
        let doc = json!({
            "schema": "stanley.doctor/v1",
            "ok": !failed,
            "checks": checks.iter().map(|c| json!({
                "name": c.name, "state": c.resolved_check_state().word(), "detail": c.detail,
                "fix": c.fix,
            })).collect::<Vec<_>>(),
        });
        stanley_cli::outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        for c in &checks {
            let state = c.resolved_check_state().word();
            stanley_cli::outln!("{state:<5} {:<11} {}", c.name, c.detail);
            if !c.fix.is_empty() {
                stanley_cli::outln!("{:<17} fix: {}", "", c.fix);
            }
        }
    }
    if failed {
        ExitCode::from(Exit::Config.code())
    } else {
        ExitCode::SUCCESS
    }
}

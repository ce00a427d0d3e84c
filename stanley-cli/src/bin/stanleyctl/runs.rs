//! `stanleyctl runs list|show <id>|export <id>`: past runs, through the `Runs` service.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, channel};
use stanley_cli::exit::ClientError;
use stanley_cli::style::Paint;
use stanley_proto::v1::runs_client::RunsClient;
use stanley_proto::v1::{ExportRunRequest, GetRunRequest, ListRunsRequest, RunSummary};

/// `1234` ms as `1.2 s`.
fn duration(ms: u64) -> String {
    if ms >= 1000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

/// A request cut to `max` characters with `…`.
fn cut(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max && !text.contains('\n') {
        line.to_owned()
    } else {
        let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// One row of `runs list`.
fn row(r: &RunSummary) -> String {
    let jev = r.usage.as_ref().map_or_else(
        || "jev -".to_owned(),
        |u| {
            format!(
                "jev {} sent, {} cached, {} tokens",
                u.jev_requests, u.cached_answers, u.input_tokens
            )
        },
    );
    format!(
        "{}  {:<16}  {:>3} findings  {}  {:>7}  {}",
        r.id,
        r.status,
        r.findings,
        jev,
        duration(r.duration_ms),
        cut(&r.request, 60)
    )
}

fn summary_json(r: &RunSummary) -> serde_json::Value {
    serde_json::from_str(&r.summary_json).unwrap_or_default()
}

pub(crate) fn runs(target: &Target, sub: &clap::ArgMatches, json: bool) -> ExitCode {
    let (action, args) = sub.subcommand().unwrap_or(("list", sub));
    let action = action.to_owned();
    let (id, format) = (crate::arg(args, "id"), crate::arg(args, "format"));
    crate::client_command(async move {
        let mut client = RunsClient::new(channel(target).await?);
        let status = |s: tonic::Status| ClientError::from_status(&s);
        match action.as_str() {
            "show" => {
                let r = client
                    .get_run(GetRunRequest { id })
                    .await
                    .map_err(status)?
                    .into_inner();
                let run = r.run.unwrap_or_default();
                if json {
                    let document: serde_json::Value =
                        serde_json::from_str(&r.document_json).unwrap_or_default();
                    let doc = serde_json::json!({
                        "summary": summary_json(&run),
                        "document": document,
                    });
                    stanley_cli::outln!(
                        "{}",
                        serde_json::to_string_pretty(&doc).unwrap_or_default()
                    );
                } else if r.human.is_empty() {
                    stanley_cli::outln!("{}", row(&run));
                    stanley_cli::outln!(
                        "(no result was kept for this run; its records are in .stanley/runs/{}/)",
                        run.id
                    );
                } else {
                    // The whole report when there is one: every item the printed one only
                    // counted.
                    let human = if r.human_verbose.is_empty() {
                        &r.human
                    } else {
                        &r.human_verbose
                    };
                    stanley_cli::output::write_painted(&Paint::stdout().report(human));
                    stanley_cli::outln!();
                }
            }
            "export" => {
                let r = client
                    .export_run(ExportRunRequest { id, format })
                    .await
                    .map_err(status)?
                    .into_inner();
                stanley_cli::outln!("{}", r.text);
            }
            _ => {
                let runs = client
                    .list_runs(ListRunsRequest { limit: 0 })
                    .await
                    .map_err(status)?
                    .into_inner()
                    .runs;
                if json {
                    let all: Vec<serde_json::Value> = runs.iter().map(summary_json).collect();
                    stanley_cli::outln!(
                        "{}",
                        serde_json::to_string_pretty(&all).unwrap_or_default()
                    );
                } else if runs.is_empty() {
                    stanley_cli::outln!("no runs");
                } else {
                    for r in &runs {
                        stanley_cli::outln!("{}", row(r));
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_one_line() {
        assert_eq!(duration(420), "420 ms");
        assert_eq!(duration(1234), "1.2 s");
        assert_eq!(cut("short", 60), "short");
        assert_eq!(cut("two\nlines", 60), "two…");
        assert_eq!(cut(&"x".repeat(70), 10).chars().count(), 10);
    }
}

//! `stanleyctl runs list|show <id>|export <id>`: past runs, through the `Runs` service.

use std::process::ExitCode;

use stanley_cli::daemon::{Target, channel};
use stanley_cli::exit::ClientError;
use stanley_cli::style::Paint;
use stanley_proto::v1::runs_client::RunsClient;
use stanley_proto::v1::{
    ExportFormat, ExportRunRequest, GetRunRequest, ListRunsRequest, RunStatus, RunSummary,
};

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

/// The cells of one row of `runs list`: run, status, findings, Jev, time, request.
fn cells(r: &RunSummary) -> [String; 6] {
    let jev = r.usage.as_ref().map_or_else(
        || "-".to_owned(),
        |u| format!("{} sent, {} cached", u.jev_requests, u.cached_answers),
    );
    // A run that did not finish says how it ended and why: `failed (jev_auth)`.
    let status = match summary_json(r)["error"]["kind"].as_str() {
        Some(kind) if r.resolved_run_status() == RunStatus::Failed => format!("failed ({kind})"),
        _ => r.resolved_run_status().word().to_owned(),
    };
    [
        r.id.clone(),
        status,
        r.findings.to_string(),
        jev,
        duration(r.duration_ms),
        cut(&r.request, 60),
    ]
}

/// `runs list` as a table: a header, then one row per run, every column as wide as its widest
/// cell (numbers and times aligned right), so the columns line up whatever the run ids.
fn table(runs: &[RunSummary]) -> Vec<String> {
    const HEADER: [&str; 6] = ["RUN", "STATUS", "FINDINGS", "JEV", "TOOK", "REQUEST"];
    const RIGHT: [bool; 6] = [false, false, true, false, true, false];
    let rows: Vec<[String; 6]> = runs.iter().map(cells).collect();
    let mut widths = HEADER.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                out.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i == cells.len() - 1 {
                out.push_str(cell);
            } else if RIGHT[i] {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            }
        }
        out.trim_end().to_owned()
    };
    std::iter::once(line(HEADER))
        .chain(rows.iter().map(|r| line(r.each_ref().map(String::as_str))))
        .collect()
}

/// What `runs show` says of a run without a result: how it ended and why, and where its
/// records are.
fn unfinished(run: &RunSummary) -> String {
    let summary = summary_json(run);
    let why = summary["error"]["message"].as_str().unwrap_or("");
    let records = format!("its records are in .stanley/runs/{}/", run.id);
    match run.resolved_run_status() {
        RunStatus::Running => format!("still running; {records}"),
        RunStatus::Interrupted => format!(
            "interrupted before it finished ({}); {records}",
            if why.is_empty() { "stopped" } else { why }
        ),
        RunStatus::Failed if !why.is_empty() => format!("failed: {why}; {records}"),
        status => format!("{}, and no result was kept; {records}", status.word()),
    }
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
                    for line in table(std::slice::from_ref(&run)) {
                        stanley_cli::outln!("{line}");
                    }
                    stanley_cli::outln!("{}", unfinished(&run));
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
                    .export_run(
                        ExportRunRequest {
                            id,
                            export_format: ExportFormat::from_word(&format)
                                .unwrap_or(ExportFormat::Sarif)
                                as i32,
                            ..ExportRunRequest::default()
                        }
                        .with_words(),
                    )
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
                    for line in table(&runs) {
                        stanley_cli::outln!("{line}");
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

    #[test]
    fn the_columns_line_up_whatever_the_run_ids() {
        let run = |id: &str, status: &str, findings: u32, ms: u64| RunSummary {
            id: id.into(),
            run_status: RunStatus::from_word(status).unwrap() as i32,
            findings,
            duration_ms: ms,
            request: "Review this".into(),
            ..RunSummary::default()
        };
        let lines = table(&[
            run("review-20261203T100000Z-a1b2c3", "complete", 12, 420),
            run(
                "triage_failures-20261203T100100Z-d4e5f6",
                "interrupted",
                0,
                12_345,
            ),
        ]);
        assert_eq!(lines.len(), 3);
        let at = |line: &str, word: &str| line.find(word).unwrap();
        // Each column starts where its header does.
        for (i, word) in [(1, "complete"), (2, "interrupted")] {
            assert_eq!(at(&lines[i], word), at(&lines[0], "STATUS"), "{lines:#?}");
        }
        let ends = |line: &str, word: &str| line.find(word).unwrap() + word.len();
        assert_eq!(
            ends(&lines[1], "420 ms"),
            ends(&lines[0], "TOOK"),
            "{lines:#?}"
        );
        assert_eq!(
            ends(&lines[2], "12.3 s"),
            ends(&lines[0], "TOOK"),
            "{lines:#?}"
        );
        assert_eq!(at(&lines[1], "Review"), at(&lines[2], "Review"));
    }
}

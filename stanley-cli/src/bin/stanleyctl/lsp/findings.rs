//! Findings as an editor shows them: the typed findings of the standing runs
//! (`Runs.GetLatestFindings`) translated into LSP diagnostics (severity, source `stanley`, the
//! workflow as the code, a short message, the evidence and the run in related information) and
//! hovers (the finding whole: why, the evidence, the run id and what it cost). Translation only:
//! which runs stand is the daemon's decision. A path the daemon names is used only when it stays
//! inside the repository root.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use stanley_proto::v1::{Finding, RunFindings, RunSummary, Severity};
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, Range, Uri,
};

/// The `source` of every diagnostic this server publishes.
pub(crate) const SOURCE: &str = "stanley";

/// What a diagnostic carries in `data`, so a code action or a hover finds its finding again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tag {
    pub(crate) run_id: String,
    pub(crate) fingerprint: String,
    /// The finding's place in its run's list (fingerprints need not be unique).
    pub(crate) index: usize,
}

/// `path` (repository-relative, from the daemon) under `root`, when it stays there: relative,
/// no `..`, and, when it exists, not leaving the root through a link.
pub(crate) fn confined(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = Path::new(path);
    if path.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let full = root.join(relative);
    // The nearest part of it that exists must resolve inside the root (a link in the
    // repository may point anywhere).
    let real = full.ancestors().find_map(|p| p.canonicalize().ok())?;
    real.starts_with(root).then_some(full)
}

/// The repository-relative path of a document, when it is a file inside `root`.
pub(crate) fn relative(root: &Path, uri: &Uri) -> Option<String> {
    if !uri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.to_file_path()?.into_owned();
    let inside = |p: &Path| {
        p.strip_prefix(root)
            .ok()
            .and_then(|r| r.to_str())
            .map(str::to_owned)
    };
    inside(&path)
        .or_else(|| path.canonicalize().ok().as_deref().and_then(inside))
        .filter(|r| !r.is_empty())
}

/// The URI of a repository-relative path the daemon named, when it stays inside `root`.
pub(crate) fn uri_of(root: &Path, path: &str) -> Option<Uri> {
    Uri::from_file_path(confined(root, path)?)
}

/// A finding's lines as 0-based (first, last): line 0 of the file when the finding has none
/// (about the whole file, or removed lines).
pub(crate) fn lines_of(f: &Finding) -> (usize, usize) {
    let start = f.start_line.max(1) as usize - 1;
    let end = (f.end_line.max(f.start_line).max(1) as usize - 1).max(start);
    (start, end)
}

fn severity(f: &Finding) -> DiagnosticSeverity {
    match Severity::try_from(f.severity) {
        Ok(Severity::Error) => DiagnosticSeverity::ERROR,
        Ok(Severity::Warn) => DiagnosticSeverity::WARNING,
        _ => DiagnosticSeverity::INFORMATION,
    }
}

/// Who decided, and how sure: `jev decided it (p 0.91) about hunk h_1`.
fn evidence(f: &Finding) -> String {
    let who = if f.source.is_empty() {
        "stanley"
    } else {
        &f.source
    };
    let sure = if f.confidence > 0.0 {
        format!(" with probability {:.2}", f.confidence)
    } else {
        String::new()
    };
    let item = if f.item_id.is_empty() {
        String::new()
    } else {
        format!(" about item {}", f.item_id)
    };
    format!("{who} decided `{}`{sure}{item}", f.label)
}

/// What a run cost, in one line.
pub(crate) fn cost(run: &RunSummary) -> String {
    let Some(u) = &run.usage else {
        return "cost not recorded".to_owned();
    };
    let dollars = u.estimated_cost_usd.map_or_else(String::new, |c| {
        if c <= 0.0 {
            ", $0".to_owned()
        } else if c < 0.0001 {
            // Never `$0.0000` for a cost that rounds to nothing at four places.
            ", under $0.0001".to_owned()
        } else {
            format!(", about ${c:.4}")
        }
    });
    format!(
        "{} Jev request{}, {} answered from cache, {} input and {} output tokens{dollars}",
        u.jev_requests,
        if u.jev_requests == 1 { "" } else { "s" },
        u.cached_answers,
        u.input_tokens,
        u.output_tokens
    )
}

/// One line about the run: `run <id>: complete, 2 findings, 3 Jev requests, ...`.
fn run_line(run: &RunSummary) -> String {
    format!(
        "run {}: {}, {}",
        run.id,
        run.resolved_run_status().word(),
        cost(run)
    )
}

/// The diagnostic for finding `index` of `run`, on 0-based `lines` of document `uri`, the last
/// line `end_len` UTF-16 units long.
pub(crate) fn diagnostic(
    root: &Path,
    uri: &Uri,
    run: &RunFindings,
    index: usize,
    lines: (usize, usize),
    end_len: u32,
) -> Option<Diagnostic> {
    let f = run.findings.get(index)?;
    let summary = run.run.as_ref()?;
    let range = Range::new(
        Position::new(lines.0 as u32, 0),
        Position::new(lines.1 as u32, end_len),
    );
    let record = Uri::from_file_path(
        root.join(".stanley/runs")
            .join(&summary.id)
            .join("result.json"),
    );
    let mut related = vec![DiagnosticRelatedInformation {
        location: Location::new(uri.clone(), range),
        message: evidence(f),
    }];
    if let Some(record) = record {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(record, Range::default()),
            message: run_line(summary),
        });
    }
    Some(Diagnostic {
        range,
        severity: Some(severity(f)),
        code: Some(NumberOrString::String(f.workflow.clone())),
        source: Some(SOURCE.to_owned()),
        message: f.message.clone(),
        related_information: Some(related),
        data: serde_json::to_value(Tag {
            run_id: summary.id.clone(),
            fingerprint: f.fingerprint.clone(),
            index,
        })
        .ok(),
        ..Diagnostic::default()
    })
}

/// The hover for finding `index` of `run`: the finding whole, in Markdown.
pub(crate) fn hover(run: &RunFindings, index: usize, lines: (usize, usize)) -> Option<String> {
    let f = run.findings.get(index)?;
    let summary = run.run.as_ref()?;
    let severity = match Severity::try_from(f.severity) {
        Ok(Severity::Error) => "error",
        Ok(Severity::Warn) => "warning",
        Ok(Severity::Info) => "info",
        _ => "note",
    };
    let mut out = vec![
        format!("**Stanley {}** · {severity} · `{}`", f.workflow, f.label),
        String::new(),
        f.message.clone(),
        String::new(),
    ];
    if !f.quote.is_empty() {
        out.push("```diff".to_owned());
        out.extend(stanley_proto::quote::shown(&f.quote));
        out.push("```".to_owned());
        out.push(String::new());
    }
    out.extend([
        format!("- **Why:** {}", evidence(f)),
        format!(
            "- **Evidence:** `{}` {}{}",
            f.path,
            if lines.0 == lines.1 {
                format!("line {}", lines.0 + 1)
            } else {
                format!("lines {}–{}", lines.0 + 1, lines.1 + 1)
            },
            if f.start_line == 0 {
                " (the finding names no line: removed lines or the whole file)".to_owned()
            } else {
                String::new()
            }
        ),
        format!(
            "- **Run:** `{}` ({}, started {}{})",
            summary.id,
            summary.resolved_run_status().word(),
            summary.started_at,
            if summary.request.is_empty() {
                String::new()
            } else {
                format!(", asked: “{}”", summary.request)
            }
        ),
        format!("- **Cost:** {}", cost(summary)),
    ]);
    if !f.fingerprint.is_empty() {
        out.push(format!("- **Fingerprint:** `{}`", f.fingerprint));
    }
    Some(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stanley_proto::v1::Usage;

    fn run() -> RunFindings {
        RunFindings {
            run: Some(RunSummary {
                id: "check-20261130T190000Z-abc123".into(),
                run_status: stanley_proto::v1::RunStatus::Complete as i32,
                started_at: "2026-11-30T19:00:00Z".into(),
                request: "Check this".into(),
                usage: Some(Usage {
                    jev_requests: 3,
                    cached_answers: 2,
                    input_tokens: 900,
                    output_tokens: 12,
                    estimated_cost_usd: Some(0.0012),
                    ..Usage::default()
                }),
                ..RunSummary::default()
            }),
            findings: vec![Finding {
                workflow: "check".into(),
                label: "skip_marker_added".into(),
                severity: Severity::Warn as i32,
                confidence: 0.91,
                path: "test/a.test.js".into(),
                start_line: 3,
                end_line: 5,
                message: "skip marker added".into(),
                source: "jev".into(),
                item_id: "h_1".into(),
                fingerprint: "fp".into(),
                quote: vec![stanley_proto::v1::QuotedLine {
                    change: stanley_proto::v1::Change::Added as i32,
                    line: 3,
                    text: "it.skip('adds', () => {".into(),
                }],
            }],
            seen: Vec::new(),
        }
    }

    #[test]
    fn a_finding_becomes_a_diagnostic_with_its_evidence_and_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        let uri = uri_of(root, "test/a.test.js").unwrap();
        let base = Uri::from_file_path(root).unwrap();
        assert_eq!(uri.as_str(), format!("{}/test/a.test.js", base.as_str()));
        let r = run();
        let d = diagnostic(root, &uri, &r, 0, lines_of(&r.findings[0]), 7).unwrap();
        assert_eq!(
            d.range,
            Range::new(Position::new(2, 0), Position::new(4, 7))
        );
        assert_eq!(d.severity, Some(DiagnosticSeverity::WARNING));
        assert_eq!(d.code, Some(NumberOrString::String("check".into())));
        assert_eq!(d.source.as_deref(), Some("stanley"));
        let related = d.related_information.unwrap();
        assert_eq!(
            related[0].message,
            "jev decided `skip_marker_added` with probability 0.91 about item h_1"
        );
        assert_eq!(
            related[1].location.uri.as_str(),
            format!(
                "{}/.stanley/runs/check-20261130T190000Z-abc123/result.json",
                base.as_str()
            )
        );
        assert!(related[1].message.contains("3 Jev requests"));
        let tag: Tag = serde_json::from_value(d.data.unwrap()).unwrap();
        assert_eq!(tag.run_id, "check-20261130T190000Z-abc123");
        let hover = hover(&r, 0, (2, 4)).unwrap();
        for part in [
            "check-20261130T190000Z-abc123",
            "about $0.0012",
            "lines 3–5",
            "Why",
            "```diff\n+ 3 | it.skip('adds', () => {\n```",
        ] {
            assert!(hover.contains(part), "{part} in {hover}");
        }
    }

    #[test]
    fn paths_that_leave_the_root_are_not_shown() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("src/out")).unwrap();
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "src/../../x",
            "src/out/passwd",
            "src/out/not-there",
        ] {
            assert_eq!(confined(&root, bad), None, "{bad}");
        }
        assert_eq!(confined(&root, "src/a.rs"), Some(root.join("src/a.rs")));
        let uri = Uri::from_file_path(root.join("src/a.rs")).unwrap();
        assert_eq!(relative(&root, &uri).as_deref(), Some("src/a.rs"));
        let outside = Uri::from_file_path("/etc/passwd").unwrap();
        assert_eq!(relative(&root, &outside), None);
    }

    #[test]
    fn a_finding_without_lines_sits_on_the_first_line() {
        let mut f = run().findings[0].clone();
        (f.start_line, f.end_line) = (0, 0);
        assert_eq!(lines_of(&f), (0, 0));
        (f.start_line, f.end_line) = (7, 0);
        assert_eq!(lines_of(&f), (6, 6));
    }
}

//! The page's HTML, made on the server (maud escapes every value): the frame with its
//! navigation, and the main part of each page (overview, runs, one run, the queue with its
//! candidates, one candidate, the flow). The live updates send the same main part again. Every
//! address the HTML names is on the page's own origin under its token (`base`, `/<token>`):
//! nothing links elsewhere, so the token never leaves in a link.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, html};
use serde_json::Value;
use stanley_proto::v1;
use stanley_workflows::flow::Flow;
use stanley_workflows::flow::state::FlowState;
use stanley_workflows::improve::{CandidateRecord, CandidateStatus, Job, JobState};
use stanley_workflows::run::coverage_text;
use stanley_workflows::runs::{RunStatus, RunSummary};

/// A whole page: the frame around `main`, its links under `base`. `live` is the address of its
/// update stream.
pub(crate) fn frame(
    repo: &str,
    base: &str,
    title: &str,
    live: Option<&str>,
    main: &Markup,
) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Stanley · " (repo) }
                link rel="stylesheet" href={(base) "/assets/style.css"};
                script src={(base) "/assets/live.js"} defer {}
            }
            body data-live=[live] {
                header {
                    nav {
                        a.brand href={(base) "/"} { "Stanley" }
                        span.repo { (repo) }
                        a href={(base) "/runs"} { "Runs" }
                        a href={(base) "/queue"} { "Queue and candidates" }
                        a href={(base) "/flow"} { "Flow" }
                    }
                }
                main #main { (main) }
                footer {
                    "Read-only. "
                    @if live.is_some() {
                        "Live updates: " span #live-state { "off (the page is current as loaded)" }
                    }
                }
            }
        }
    }
}

/// A page for something that is not there, or could not be read.
pub(crate) fn problem(heading: &str, line: &str) -> Markup {
    html! {
        h1 { (heading) }
        p.problem { (line) }
    }
}

/// `1234` ms → `1.2 s`.
/// A run's time as the page shows it, or a dash when it has none.
fn shown_time(at: Option<stanley_workflows::time::Stamp>) -> String {
    at.map_or_else(|| "–".to_owned(), |t| t.to_string())
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 120_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

fn status_badge(status: &str) -> Markup {
    let class = match status {
        "complete" | "done" | "validated" | "promoted" | "pass" => "good",
        "incomplete" | "budget_exhausted" | "unsupported" | "pending" | "active" | "running"
        | "waiting" => "note",
        "error" | "failed" | "interrupted" | "rejected" | "fail" => "bad",
        _ => "plain",
    };
    html! { span class={"badge " (class)} { (status) } }
}

fn jev_requests(usage: &Value) -> String {
    match (
        usage["jevRequests"].as_u64(),
        usage["cachedAnswers"].as_u64(),
    ) {
        (Some(sent), Some(cached)) if cached > 0 => format!("{sent} sent, {cached} cached"),
        (Some(sent), _) => sent.to_string(),
        _ => "–".into(),
    }
}

/// The runs table (newest first), each run linked under `base`.
pub(crate) fn runs_table(base: &str, runs: &[RunSummary]) -> Markup {
    html! {
        @if runs.is_empty() {
            p.empty { "No runs yet. Every request `stanley` answers is kept here." }
        } @else {
            table.runs {
                thead { tr { th { "Request" } th { "Workflow" } th { "Scope" } th { "Status" }
                    th.num { "Findings" } th { "Coverage" } th.num { "Jev requests" } th.num { "Took" } th { "Started (UTC)" } } }
                tbody {
                    @for run in runs {
                        tr data-run=(run.run_id) {
                            // The run is named by what was asked (issue 49: the links were
                            // timestamps).
                            td.request { a href={(base) "/runs/" (run.run_id)} { @if run.request.is_empty() { (run.run_id) } @else { (run.request) } } }
                            td { @if run.workflow.is_empty() { "–" } @else { code { (run.workflow) } }
                                 @if run.delegated { " " span.badge.plain { "delegated" } } }
                            td { (run.scope.map_or("–", |s| s.as_str())) }
                            td { (status_badge(run.status.as_str()))
                                 @if let Some(e) = &run.error { br; span.reason { (e.message) } } }
                            td.num { (run.findings) }
                            td { @match run.coverage.as_ref().filter(|c| c.is_object()) {
                                Some(c) => { (c["judged"].as_u64().unwrap_or(0)) " of " (c["candidates"].as_u64().unwrap_or(0)) " judged" }
                                None => { "–" }
                            } }
                            td.num { (jev_requests(&run.usage)) }
                            td.num { @if run.duration_ms > 0 { (duration(run.duration_ms)) } @else { "–" } }
                            td.time { (shown_time(run.started_at)) }
                        }
                    }
                }
            }
        }
    }
}

/// The runs page.
pub(crate) fn runs(base: &str, runs: &[RunSummary], refused: Option<&str>) -> Markup {
    html! {
        h1 { "Runs" }
        @if let Some(why) = refused { p.problem { (why) } }
        p.hint { "Export one for code scanning with " code { "stanleyctl runs export <id> --format sarif" } "." }
        (runs_table(base, runs))
    }
}

/// One run: what was asked, its findings by file and line, coverage, limits, and what was not
/// checked.
pub(crate) fn run(
    summary: &RunSummary,
    typed: &v1::Result,
    document: &Value,
    human: &str,
) -> Markup {
    let data = &document["output"]["data"];
    let mut by_file: BTreeMap<&str, Vec<&v1::Finding>> = BTreeMap::new();
    for f in &typed.findings {
        by_file.entry(f.path.as_str()).or_default().push(f);
    }
    for list in by_file.values_mut() {
        list.sort_by_key(|f| (f.start_line == 0, f.start_line, f.end_line));
    }
    let not_checked = strings(&data["notChecked"]);
    html! {
        h1 { "Run " code { (summary.run_id) } }
        (run_facts(summary))
        @if let Some(error) = &summary.error {
            p.problem { (error.message) }
        }
        @if summary.status == RunStatus::Running {
            p.note { "Still running: this page updates when it ends." }
        }
        h2 { "Findings (" (typed.findings.len()) ")" }
        @if typed.findings.is_empty() {
            p.empty { @if document.is_null() { "No result was kept for this run." } @else { "None flagged (this is not an approval)." } }
        }
        @if !by_file.is_empty() {
            table.findings {
                thead { tr { th { "Lines" } th { "Finding" } th { "Severity" } th.num { "Confidence" } th { "Said by" } } }
                @for (path, findings) in &by_file {
                    tbody.file {
                        tr.file { th colspan="5" { @if path.is_empty() { "(no file)" } @else { code { (path) } } } }
                        @for f in findings {
                            tr {
                                td.lines { @if f.start_line == 0 { "–" } @else if f.start_line == f.end_line { (f.start_line) } @else { (f.start_line) "–" (f.end_line) } }
                                td {
                                    strong { (f.label) } br; (f.message)
                                    @if !f.quote.is_empty() {
                                        pre.quote { @for q in stanley_proto::quote::shown(&f.quote) { (q) "\n" } }
                                    }
                                }
                                td { (severity(f.severity)) }
                                td.num { @if f.confidence > 0.0 { (format!("{:.2}", f.confidence)) } @else { "–" } }
                                td { (f.source) }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Coverage" }
        @let coverage = &data["coverage"];
        @if coverage.is_object() {
            p { (coverage_text(coverage)) @if coverage["complete"] != true { " " span.badge.note { "incomplete" } } }
        } @else {
            p.empty { "This workflow reports no coverage." }
        }
        h2 { "Limits" }
        (list_or(&typed.limits, "None: everything eligible was judged."))
        h2 { "Not checked" }
        (list_or(&not_checked, "Nothing listed."))
        (unjudged(data))
        @if !human.is_empty() {
            details #printed { summary { "As printed" } pre { (human) } }
        }
    }
}

fn run_facts(summary: &RunSummary) -> Markup {
    html! {
        dl.facts {
            dt { "Request" } dd { (summary.request) }
            dt { "Workflow" } dd { @if summary.workflow.is_empty() { "–" } @else { code { (summary.workflow) } } @if summary.delegated { " (handed to the coding agent)" } }
            dt { "Status" } dd { (status_badge(summary.status.as_str())) " exit " (summary.exit_code) }
            dt { "Started" } dd { (shown_time(summary.started_at)) }
            dt { "Took" } dd { @if summary.duration_ms > 0 { (duration(summary.duration_ms)) } @else { "–" } }
            dt { "Jev" } dd { (jev_requests(&summary.usage)) " requests" }
        }
    }
}

/// Parked and excluded items: looked at, but not judged.
fn unjudged(data: &Value) -> Markup {
    let rows = |key: &str| -> Vec<(String, String)> {
        data[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| {
                // An exclusion names the rule that decided it (D-118).
                let rule = item["rule"]
                    .as_str()
                    .map(|r| format!(" [{r}]"))
                    .unwrap_or_default();
                (
                    item["path"].as_str().unwrap_or("").to_owned(),
                    format!("{}{rule}", item["reason"].as_str().unwrap_or("")),
                )
            })
            .collect()
    };
    let (parked, excluded) = (rows("parked"), rows("excluded"));
    html! {
        @for (heading, items) in [("Parked", &parked), ("Excluded", &excluded)] {
            @if !items.is_empty() {
                h3 { (heading) " (" (items.len()) ")" }
                ul.items { @for (path, reason) in items { li { code { (path) } ": " (reason) } } }
            }
        }
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn list_or(items: &[String], empty: &str) -> Markup {
    html! {
        @if items.is_empty() { p.empty { (empty) } }
        @else { ul { @for item in items { li { (item) } } } }
    }
}

fn severity(code: i32) -> &'static str {
    match v1::Severity::try_from(code) {
        Ok(v1::Severity::Info) => "info",
        Ok(v1::Severity::Warn) => "warn",
        Ok(v1::Severity::Error) => "error",
        _ => "–",
    }
}

/// The improvement queue and the candidates it drafted.
pub(crate) fn queue(
    base: &str,
    jobs: Result<&[Job], &str>,
    recoveries: &[String],
    candidates: &[CandidateRecord],
) -> Markup {
    html! {
        h1 { "Improvement queue" }
        p.hint { "Each request handed to the coding agent queues a job that drafts a workflow for next time. Run the pending ones now with " code { "stanleyctl queue work" } "." }
        @for line in recoveries { p.problem { (line) } }
        @match jobs {
            Err(why) => { p.problem { (why) } }
            Ok([]) => { p.empty { "No jobs." } }
            Ok(jobs) => {
                table.jobs {
                    thead { tr { th { "Job" } th { "State" } th { "Request" } th { "Input" } th.num { "Attempts" } th { "Queued" } th { "Diary" } } }
                    tbody {
                        @for job in jobs {
                            tr data-job=(job.id) {
                                td { code { (job.id) } }
                                td { (status_badge(job.state.as_str())) @if let (JobState::Done, Some(r)) = (job.state, job.result) { " " (status_badge(r.as_str())) } }
                                td.request { (job.request) }
                                td { (job.input_shape.as_str()) }
                                td.num { (job.attempts) }
                                td.time { (job.created_at) }
                                td {
                                    details id={"diary-" (job.id)} {
                                        summary { (job.diary.len()) " entries" }
                                        ol.diary { @for d in &job.diary { li { span.time { (d.at) } " " (d.text) } } }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Candidates" }
        @if candidates.is_empty() {
            p.empty { "No candidates yet." }
        } @else {
            table.candidates {
                thead { tr { th { "Candidate" } th { "Status" } th { "Workflow" } th { "Request" } th { "Drafted" } } }
                tbody {
                    @for c in candidates {
                        tr data-candidate=(c.id) {
                            td { a href={(base) "/candidates/" (c.id)} { code { (c.id) } } }
                            td { (status_badge(c.status.as_str())) }
                            td { @match &c.workflow_id { Some(w) => { code { (w) } } None => { "–" } } }
                            td.request { (c.request) }
                            td.time { (c.created_at) }
                        }
                    }
                }
            }
        }
    }
}

/// One candidate: its record, its validation, its source and the commands that decide it.
pub(crate) fn candidate(
    record: &CandidateRecord,
    // Why the source is not shown, as the page says it (the reader's error, D-177: the pages
    // know nothing of how their facts were read).
    source: Result<&str, &dyn std::fmt::Display>,
) -> Markup {
    let checks = &record.checks;
    html! {
        h1 { "Candidate " code { (record.id) } }
        dl.facts {
            dt { "Status" } dd { (status_badge(record.status.as_str())) }
            dt { "Workflow" } dd { @match &record.workflow_id { Some(w) => { code { (w) } } None => { "–" } } }
            dt { "For the request" } dd { (record.request) }
            dt { "Drafted" } dd { (record.created_at) " by the agent (" (record.agent.outcome.as_str()) ", " (record.agent.tool_calls) " tool calls, " (duration(record.agent.duration_ms)) ")" }
            dt { "Summary" } dd { (record.summary) }
        }
        h2 { "Validation" }
        table.checks {
            tbody {
                tr { th { "Loads in the workflow host" } td { (yes_no(checks.loaded)) } }
                tr { th { "Its id is free" } td { (yes_no(!checks.duplicate_id)) } }
                tr { th { "Routed for its request" } td { (checks.routing.as_str()) } }
                tr { th { "Quarantined" } td { (joined(&checks.quarantined)) } }
                tr { th { "Wrote outside its folder" } td { (joined(&checks.outside_writes)) } }
            }
        }
        @if !record.reasons.is_empty() {
            h3 { "Reasons" }
            ul { @for r in &record.reasons { li { (r) } } }
        }
        h2 { "Decide" }
        @if record.status == CandidateStatus::Validated {
            p { "Promote it (it moves into " code { ".stanley/workflows/" } " and is trusted):" }
            pre.command { "stanleyctl candidates promote " (record.id) }
            p { "Or reject it:" }
            pre.command { "stanleyctl candidates reject " (record.id) }
        } @else {
            p { "It is " (record.status) "; there is nothing to decide. To draft it again: " }
            pre.command { "stanleyctl queue retry " (record.id) }
        }
        h2 { "Source" @if let Some(path) = &record.source { " " code { (path) } } }
        @match source {
            Ok(text) => { pre.source { code { (text) } } }
            Err(why) => { p.problem { (why) } }
        }
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn joined(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// What the flow page shows besides the flow file itself.
pub(crate) struct FlowFacts<'a> {
    /// The journal, or why it is not shown.
    pub(crate) journal: Result<Option<&'a FlowState>, &'a dyn std::fmt::Display>,
    /// Where the flow stands, in one word (`waiting` shows the person's question).
    pub(crate) standing: &'static str,
    pub(crate) supervisor_running: bool,
    pub(crate) person_note: Option<&'a str>,
    pub(crate) recoveries: &'a [String],
}

/// The flow: its phases, budgets, a question waiting for a person, and every decision kept in
/// the journal, newest first.
pub(crate) fn flow(flow: &Flow, facts: &FlowFacts<'_>) -> Markup {
    let journal = facts.journal.ok().flatten();
    let waiting = facts.standing == "waiting";
    html! {
        h1 { "Flow" @if !flow.title.is_empty() { ": " (flow.title) } }
        dl.facts {
            dt { "Goal" } dd { (flow.goal) }
            dt { "State" } dd #flow-state { (status_badge(facts.standing)) @if facts.supervisor_running { " the supervisor is running" } }
            dt { "Mode" } dd { (flow.mode.as_str()) }
            dt { "Current phase" } dd #current-phase { @match journal { Some(s) => { code { (s.current_phase) } } None => { "not started" } } }
        }
        @if let Err(why) = facts.journal { p.problem { (why) } }
        @for line in facts.recoveries { p.problem { (line) } }
        @if let (true, Some(note)) = (waiting, facts.person_note) {
            section.person #person-note {
                h2 { "Waiting on a person" }
                pre { (note) }
                p { "Answer by writing under the answer heading in " code { ".stanley/flow/NEEDS_HUMAN.md" } " (or remove the file), then run " code { "stanleyctl flow run" } " again or start the next Claude Code session." }
            }
        }
        h2 { "Phases" }
        table.phases {
            thead { tr { th { "Phase" } th { "Status" } th { "Done when" } th { "Check" } th.num { "Attempts" } th.num { "Loops" } } }
            tbody {
                @for p in &flow.phases {
                    @let record = journal.and_then(|s| s.phases.get(&p.id));
                    tr data-phase=(p.id) {
                        td { code { (p.id) } br; (p.name) @if p.side_effect { " " span.badge.plain { "side effect" } } }
                        td { (status_badge(record.map_or("pending", |r| r.status.as_str()))) }
                        td { (p.done_when) }
                        td { @match &p.check { Some(c) => { code { (c) } } None => { "–" } } }
                        td.num { (record.map_or(0, |r| r.attempts)) }
                        td.num { (record.map_or(0, |r| r.loop_iterations)) }
                    }
                }
            }
        }
        h2 { "Budgets" }
        (budgets(flow, journal))
        h2 { "Decisions" }
        (decisions(journal))
    }
}

fn budgets(flow: &Flow, journal: Option<&FlowState>) -> Markup {
    let used = |f: fn(&FlowState) -> u32| journal.map_or(0, f);
    let by_kind = journal.map(|s| &s.jev_by_kind);
    html! {
        table.budgets {
            tbody {
                tr { th { "Restarts" } td #budget-restarts { (used(|s| s.restarts)) " of " (flow.limits.max_restarts) } }
                tr { th { "Blocks this session" } td #budget-blocks { (used(|s| s.blocks_in_session)) " of " (flow.limits.max_blocks_per_session) } }
                tr { th { "Jev calls" } td #budget-jev { (used(|s| s.jev_calls)) " of " (flow.limits.max_jev_calls)
                    @if let Some(kinds) = by_kind.filter(|k| !k.is_empty()) {
                        " (" (kinds.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")) ")"
                    } } }
                tr { th { "Time" } td { "at most " (flow.limits.max_total_minutes) " minutes" } }
            }
        }
    }
}

fn decisions(journal: Option<&FlowState>) -> Markup {
    let Some(state) = journal.filter(|s| !s.decisions.is_empty()) else {
        return html! { p.empty { "No decisions yet." } };
    };
    html! {
        ol.timeline reversed {
            @for d in state.decisions.iter().rev() {
                li data-action=(d.action.as_str()) {
                    span.time { (d.at) } " "
                    (status_badge(d.action.as_str())) " "
                    code { (d.phase) } @if let Some(to) = &d.to { " → " code { (to) } }
                    " " span.condition { (d.condition) }
                    @match d.check_passed { Some(true) => { " " span.badge.good { "check passes" } } Some(false) => { " " span.badge.bad { "check fails" } } None => {} }
                    @if !d.reason.is_empty() { pre.reason { (d.reason) } }
                }
            }
        }
    }
}

/// The overview: the newest runs, the queue's counts, and the flow's state in one line.
pub(crate) fn overview(
    base: &str,
    latest: &[RunSummary],
    queue: Option<(usize, usize)>,
    waiting_candidates: usize,
    flow_line: &str,
) -> Markup {
    html! {
        h1 { "Overview" }
        section.cards {
            a.card href={(base) "/queue"} {
                h2 { "Improvement queue" }
                @match queue {
                    Some((pending, total)) => { p { (pending) " pending of " (total) " jobs" } }
                    None => { p { "unavailable" } }
                }
                p { (waiting_candidates) " candidates waiting for review" }
            }
            a.card href={(base) "/flow"} { h2 { "Flow" } p #flow-line { (flow_line) } }
        }
        h2 { "Latest runs" }
        (runs_table(base, latest))
        p { a href={(base) "/runs"} { "All runs" } }
    }
}

/// The stylesheet and the live-update script, embedded in the binary.
pub(crate) const STYLE: &str = include_str!("style.css");
pub(crate) const LIVE: &str = include_str!("live.js");

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `href` and `src` value in `html`.
    fn addresses(html: &str) -> Vec<String> {
        [" href=\"", " src=\""]
            .iter()
            .flat_map(|attr| html.split(attr).skip(1))
            .map(|rest| rest.split('"').next().unwrap_or("").to_owned())
            .collect()
    }

    #[test]
    fn every_address_a_page_names_is_under_its_token() {
        let base = format!("/{}", "ab".repeat(32));
        let run: RunSummary = serde_json::from_value(serde_json::json!({
            "schema": "stanley.run/v1", "runId": "review-20261201T010203Z-ab12",
            "startedAt": "2026-12-01T01:02:03Z", "finishedAt": "2026-12-01T01:02:04Z",
            "durationMs": 1000, "request": "see https://elsewhere.example/", "workflow": "check",
            "status": "complete", "exitCode": 0, "delegated": false, "findings": 1
        }))
        .unwrap();
        let candidate: CandidateRecord = serde_json::from_value(serde_json::json!({
            "schema": "stanley.candidate/v1", "id": "imp_0123456789ab", "status": "validated",
            "workflowId": "todo_audit", "source": null, "request": "x",
            "createdAt": "2026-12-01T00:00:00Z",
            "checks": {"loaded": true, "quarantined": [], "duplicateId": false,
                       "outsideWrites": [], "routing": "selected"},
            "reasons": [], "agent": {"outcome": "finished", "toolCalls": 1, "durationMs": 1},
            "summary": "x"
        }))
        .unwrap();
        let mains = [
            overview(&base, std::slice::from_ref(&run), Some((1, 2)), 1, "goal"),
            runs(&base, std::slice::from_ref(&run), None),
            queue(&base, Ok(&[]), &[], std::slice::from_ref(&candidate)),
        ];
        let mut seen = Vec::new();
        for main in &mains {
            let live = format!("{base}/events/?since=0");
            let page = frame("repo", &base, "Title", Some(&live), main).into_string();
            seen.extend(addresses(&page));
        }
        for address in &seen {
            assert!(address.starts_with(&format!("{base}/")), "{address}");
        }
        for expected in [
            format!("{base}/assets/style.css"),
            format!("{base}/assets/live.js"),
            format!("{base}/"),
            format!("{base}/runs"),
            format!("{base}/queue"),
            format!("{base}/flow"),
            format!("{base}/runs/review-20261201T010203Z-ab12"),
            format!("{base}/candidates/imp_0123456789ab"),
        ] {
            assert!(seen.contains(&expected), "{expected} in {seen:?}");
        }
    }
}

//! One built-in run: dispositions per candidate, findings, parked and excluded items, limits,
//! the internal packet (`stanley.packet/v1`) it ends with, and its run records. The report a
//! person reads is rendered from the packet in `report`.

mod report;

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use stanley_core::{AttemptRecord, BudgetLimits, Denial, Executor, FrameSink, Status, stable_hash};

use crate::diff::{Exclusion, Hunk, Quoted};
use crate::ports::{Clock, RunRecorder};
use crate::runs::{RunId, RunStatus};

/// What happened to one candidate (last write wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    Judged,
    Deterministic,
    Excluded,
    Parked,
    Failed,
    Unjudged,
}

impl Disposition {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Judged => "judged",
            Disposition::Deterministic => "deterministic",
            Disposition::Excluded => "excluded",
            Disposition::Parked => "parked",
            Disposition::Failed => "failed",
            Disposition::Unjudged => "unjudged",
        }
    }
}

/// Typed rows as the JSON the results carry (the shapes serialize infallibly).
pub fn to_values<T: serde::Serialize>(rows: &[T]) -> Vec<Value> {
    rows.iter().map(to_value).collect()
}

/// One typed shape as the JSON a document carries. The shapes are plain structs of strings,
/// numbers, maps with string keys and `Value`s, so serializing them cannot fail.
pub fn to_value<T: serde::Serialize + ?Sized>(shape: &T) -> Value {
    serde_json::to_value(shape).unwrap_or_default()
}

/// A run's `coverage`: how many candidates ended in each disposition, and whether that is all
/// of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub candidates: usize,
    pub judged: usize,
    pub deterministic: usize,
    pub excluded: usize,
    pub parked: usize,
    pub failed: usize,
    pub unjudged: usize,
    pub complete: bool,
}

/// `manifest.json`: a run's status as it goes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Manifest<'a> {
    schema: &'static str,
    run_id: &'a RunId,
    workflow: &'a str,
    status: RunStatus,
    requested_model: &'a str,
    budget: BudgetLimits,
    updated_at: crate::time::Stamp,
}

/// `inputs.json`: what a run was asked, and its hash.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InputsRecord<'a> {
    schema: &'static str,
    inputs: &'a Value,
    inputs_hash: String,
}

/// One line of `decisions.ndjson`: a policy's decision about a candidate.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DecisionRecord<'a, R: Serialize> {
    candidate_id: &'a str,
    rule: &'a str,
    result: R,
    policy_version: &'a str,
}

/// What a finding's fingerprint hashes: its flag, its path and what it is about.
#[derive(Serialize)]
struct FingerprintKey<'a> {
    flag: &'a str,
    path: &'a Option<String>,
    about: String,
}

/// `packet.json`, `stanley.packet/v1`: everything a run ends with.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PacketDocument<'a> {
    schema: &'static str,
    workflow: &'a str,
    run_id: &'a RunId,
    advisory: bool,
    status: &'static str,
    /// Why the status is not `complete`, in a few words, when a cause is known (issue 49).
    #[serde(skip_serializing_if = "Option::is_none")]
    status_reason: Option<String>,
    coverage: Coverage,
    findings: &'a [Finding],
    parked: &'a [Parked],
    excluded: &'a [Exclusion],
    limits: &'a [String],
    not_checked: &'a [String],
    results: &'a [Value],
    summary: &'a Value,
    redactions: u64,
    jev: Value,
    artifact: Option<String>,
}

/// One line of `frames.ndjson`: one attempt at one frame. The optional keys are left out, not
/// `null`, when the attempt has no such part. A sent attempt's line ends with `request`, the
/// state and questions as they were sent; an answer from a cache names its `cacheKey` instead.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameRecord<'a> {
    run_id: &'a RunId,
    frame_id: &'a stanley_core::FrameId,
    template: &'a str,
    scope: &'a str,
    provenance: &'a Value,
    attempt: u32,
    requested_model: &'a str,
    started_at: crate::time::Stamp,
    latency_ms: u64,
    /// The judgment cache key of an answer from a cache: the hash of the redacted request it
    /// answers (D-89, D-175).
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_key: Option<&'a str>,
    result: stanley_core::AttemptResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    resolved_model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<TokenUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parsed: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
}

/// Tokens an attempt used, as Jev reported them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TokenUsage {
    input_tokens: u64,
    output_tokens: u64,
}

/// One line of `events.ndjson`: the budget refused a frame.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BudgetEvent<'a> {
    at: crate::time::Stamp,
    #[serde(rename = "type")]
    kind: &'static str,
    frame_id: &'a stanley_core::FrameId,
    limit: &'static str,
}

/// The public output `{text, data}` of a run.
#[derive(Serialize)]
pub struct Output<D: Serialize> {
    pub text: String,
    pub data: D,
}

/// Severity of a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warn,
    Info,
}

/// One finding.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub flag: String,
    pub id: String,
    /// `deterministic`, `jev` or `policy`.
    pub source: &'static str,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Map<String, Value>>,
    /// What was judged and why it was raised, in a person's words: the question asked and how
    /// sure the answer was (issue 49). Every surface shows this, not the flag and its numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How much it matters, 0 to 1, for ranking (a Jev finding: the chosen answer's
    /// probability times the mass at a material importance or above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// A few of the changed lines it is about, marked added or removed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quote: Vec<Quoted>,
    /// A hash of the flag, the path and the content of what the finding is about (never its
    /// line numbers), set when the run finishes: the same finding keeps it across runs and
    /// line shifts (SARIF's `partialFingerprints`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

impl Finding {
    /// A finding of `flag` about item `id`, with no location or detail yet.
    pub fn new(
        flag: impl Into<String>,
        id: impl Into<String>,
        source: &'static str,
        severity: Severity,
    ) -> Self {
        Self {
            flag: flag.into(),
            id: id.into(),
            source,
            severity,
            path: None,
            lines: None,
            detail: None,
            message: None,
            score: None,
            quote: Vec::new(),
            fingerprint: None,
        }
    }

    /// Saying `message` in words.
    #[must_use]
    pub fn says(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Ranked by `score` (0 to 1).
    #[must_use]
    pub fn scored(mut self, score: f64) -> Self {
        self.score = Some(crate::text::round3(score.clamp(0.0, 1.0)));
        self
    }

    /// About `hunk`'s changed lines: placed on them, quoting a few.
    #[must_use]
    pub fn on_change(mut self, hunk: &Hunk) -> Self {
        self.path = Some(hunk.path.clone());
        self.lines = Some(hunk.changed_range());
        self.quote = hunk.quote(crate::diff::QUOTED_LINES);
        self
    }

    /// Located at `path` (and `lines`).
    #[must_use]
    pub fn at(mut self, path: Option<String>, lines: Option<String>) -> Self {
        self.path = path;
        self.lines = lines;
        self
    }

    /// With one more detail field, after those already there.
    #[must_use]
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.detail
            .get_or_insert_with(Map::new)
            .insert(key.to_owned(), value.into());
        self
    }
}

/// An item set aside because it needs context Stanley does not have.
#[derive(Clone, Debug, Serialize)]
pub struct Parked {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub reason: String,
}

/// A titled block of human lines a workflow adds to its report.
#[derive(Clone, Debug)]
pub struct Section {
    pub title: String,
    /// What the report shows.
    pub lines: Vec<String>,
    /// What `--verbose` shows instead, when it has more to say.
    pub full: Option<Vec<String>>,
    /// Shown only with `--verbose`: a row per item, which the findings and the coverage line
    /// already sum up.
    pub verbose_only: bool,
}

impl Section {
    /// A section every report shows.
    pub fn new(title: impl Into<String>, lines: Vec<String>) -> Self {
        Self {
            title: title.into(),
            lines,
            full: None,
            verbose_only: false,
        }
    }

    /// A section of rows per item, shown only with `--verbose`.
    pub fn rows(title: impl Into<String>, lines: Vec<String>) -> Self {
        Self {
            verbose_only: true,
            ..Self::new(title, lines)
        }
    }

    /// With the longer lines `--verbose` shows instead.
    #[must_use]
    pub fn with_full(mut self, lines: Vec<String>) -> Self {
        self.full = Some(lines);
        self
    }
}

/// What an item is about, independent of where it sits (a hunk id's content id), if known.
pub type ContentOf = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The shared state of one built-in run.
pub struct Run {
    pub run_id: RunId,
    pub workflow: String,
    recorder: Arc<dyn RunRecorder>,
    clock: Arc<dyn Clock>,
    dispositions: Vec<(String, Disposition)>,
    pub findings: Vec<Finding>,
    pub parked: Vec<Parked>,
    pub excluded: Vec<Exclusion>,
    pub limits: Vec<String>,
    pub not_checked: Vec<String>,
    pub results: Vec<Value>,
    pub summary: Value,
    pub sections: Vec<Section>,
    /// Forces coverage incomplete (a section reported itself incomplete).
    pub incomplete: bool,
    budget: BudgetLimits,
    model: String,
    /// Item id → what it is about, independent of position (a hunk's content id).
    contents: Option<ContentOf>,
}

/// The run id `<name>-<YYYYMMDDTHHMMSSZ>-<6 hex>` from a clock reading and a random suffix.
pub fn run_id(name: &str, now: crate::time::Timestamp, random_hex: &str) -> RunId {
    RunId::new(name, now, random_hex)
}

impl Run {
    /// Starts a run: writes `manifest.json` (status `running`) and `inputs.json`.
    pub fn start(
        run_id: RunId,
        workflow: &str,
        recorder: Arc<dyn RunRecorder>,
        clock: Arc<dyn Clock>,
        budget: BudgetLimits,
        model: &str,
        inputs: Value,
    ) -> Self {
        let run = Self {
            run_id,
            workflow: workflow.to_owned(),
            recorder,
            clock,
            dispositions: Vec::new(),
            findings: Vec::new(),
            parked: Vec::new(),
            excluded: Vec::new(),
            limits: Vec::new(),
            not_checked: Vec::new(),
            results: Vec::new(),
            summary: Value::Object(Map::new()),
            sections: Vec::new(),
            incomplete: false,
            budget,
            model: model.to_owned(),
            contents: None,
        };
        run.write_manifest(RunStatus::Running);
        let hash = stable_hash(&inputs);
        run.recorder.write_json(
            "inputs.json",
            &to_value(&InputsRecord {
                schema: "stanley.run/v1",
                inputs: &inputs,
                inputs_hash: hash,
            }),
        );
        run
    }

    fn write_manifest(&self, status: RunStatus) {
        self.recorder.write_json(
            "manifest.json",
            &to_value(&Manifest {
                schema: "stanley.run/v1",
                run_id: &self.run_id,
                workflow: &self.workflow,
                status,
                requested_model: &self.model,
                budget: self.budget,
                updated_at: crate::time::Stamp(self.clock.now()),
            }),
        );
    }

    /// A frame sink that writes every attempt to `frames.ndjson` and budget events to
    /// `events.ndjson`.
    pub fn sink(&self) -> Arc<dyn FrameSink> {
        Arc::new(RecordSink {
            run_id: self.run_id.clone(),
            recorder: self.recorder.clone(),
            clock: self.clock.clone(),
        })
    }

    /// Says what items are about, independent of where they sit (a hunk id's content id), so
    /// their findings' fingerprints survive line shifts. Asked only for items with findings.
    pub fn contents(&mut self, of: ContentOf) {
        self.contents = Some(of);
    }

    /// Writes `candidates.json`.
    pub fn candidates(&self, value: &Value) {
        self.recorder.write_json("candidates.json", value);
    }

    /// Records a candidate's disposition (last write wins).
    pub fn set(&mut self, id: &str, disposition: Disposition) {
        match self.dispositions.iter_mut().find(|(i, _)| i == id) {
            Some(entry) => entry.1 = disposition,
            None => self.dispositions.push((id.to_owned(), disposition)),
        }
    }

    /// Appends a policy decision to `decisions.ndjson`; `result` is the decision's typed shape.
    pub fn decision(&self, candidate: &str, rule: &str, result: impl Serialize, policy: &str) {
        self.recorder.append(
            "decisions.ndjson",
            &to_value(&DecisionRecord {
                candidate_id: candidate,
                rule,
                result,
                policy_version: policy,
            }),
        );
    }

    fn coverage(&self) -> Coverage {
        let count = |d: Disposition| self.dispositions.iter().filter(|(_, x)| *x == d).count();
        let (failed, unjudged) = (count(Disposition::Failed), count(Disposition::Unjudged));
        Coverage {
            candidates: self.dispositions.len(),
            judged: count(Disposition::Judged),
            deterministic: count(Disposition::Deterministic),
            excluded: count(Disposition::Excluded),
            parked: count(Disposition::Parked),
            failed,
            unjudged,
            complete: failed == 0 && unjudged == 0 && !self.incomplete,
        }
    }

    /// Ends the run: builds the packet, writes `packet.json` and the final manifest.
    pub fn finish(mut self, executor: &Executor) -> Packet {
        let exhausted = executor.budget().exhausted();
        if let Some(d) = exhausted {
            let left = self
                .dispositions
                .iter()
                .filter(|(_, x)| *x == Disposition::Unjudged)
                .count();
            self.limits.push(format!(
                "budget exhausted ({}): {left} item{} not judged",
                d.as_str(),
                if left == 1 { "" } else { "s" }
            ));
        }
        let trouble = executor.trouble();
        let mut status_reason = None;
        match (&trouble, executor.disabled()) {
            // Answers that did not fit their questions stopped the asking: that is the cause,
            // not a spent budget, and it is said first.
            (Some(t @ stanley_core::JevTrouble::Invalid { .. }), _) => {
                self.limits.push(format!("{t}; the rest was not judged"));
                status_reason = Some("Jev's answers did not fit the questions".to_owned());
                self.incomplete = true;
            }
            (_, Some(reason)) => self.limits.push(format!("Jev not called: {reason}")),
            // Some frames could not be judged because Jev failed: say so, and never call the
            // result complete.
            (Some(t), None) => {
                self.limits.push(format!("{t}; the rest was not judged"));
                self.incomplete = true;
            }
            (None, None) => {}
        }
        let coverage = self.coverage();
        let status = if exhausted.is_some() {
            Status::BudgetExhausted
        } else if coverage.complete {
            Status::Complete
        } else {
            Status::Incomplete
        };
        for f in &mut self.findings {
            // `<hunk id>:<rule id>` (a rule about a hunk) is about the hunk's content too.
            let content = |id: &str| self.contents.as_ref().and_then(|of| of(id));
            let about = content(&f.id).unwrap_or_else(|| {
                f.id.split_once(':')
                    .and_then(|(item, rest)| content(item).map(|c| format!("{c}:{rest}")))
                    .unwrap_or_else(|| f.id.clone())
            });
            f.fingerprint = Some(stanley_core::stable_id(
                "fp",
                &to_value(&FingerprintKey {
                    flag: &f.flag,
                    path: &f.path,
                    about,
                }),
                16,
            ));
        }
        sort_findings(&mut self.findings);
        let artifact = self.recorder.artifact();
        // The rows move into the document rather than being copied: written with none, then
        // put in their place (a key's value replaced keeps its place).
        let results = std::mem::take(&mut self.results);
        let mut packet = to_value(&PacketDocument {
            schema: "stanley.packet/v1",
            workflow: &self.workflow,
            run_id: &self.run_id,
            advisory: true,
            status: status.as_str(),
            status_reason,
            coverage,
            findings: &self.findings,
            parked: &self.parked,
            excluded: &self.excluded,
            limits: &self.limits,
            not_checked: &self.not_checked,
            results: &[],
            summary: &self.summary,
            redactions: executor.redactions(),
            jev: executor.usage().record(),
            artifact,
        });
        packet["results"] = Value::Array(results);
        self.recorder.write_json("packet.json", &packet);
        self.write_manifest(status.into());
        if let Some(failure) = self.recorder.failure() {
            // The answer stands; its record on disk does not. Say so rather than point at a
            // folder that is missing files.
            if let Some(limits) = packet["limits"].as_array_mut() {
                limits.push(Value::String(format!(
                    "the run record is incomplete: {failure}"
                )));
            }
        }
        Packet {
            status,
            json: packet,
            sections: self.sections,
        }
    }
}

/// Sorts findings, most important first: `warn` first; then by score, highest first (a finding
/// without one after those with one); then findings about no file (a criterion, the task),
/// source, tests, and the rest (configuration, documentation); then by path, then flag.
pub fn sort_findings(findings: &mut [Finding]) {
    use crate::paths::{PathKind, classify_path};
    let tier = |f: &Finding| match f.path.as_deref().map(classify_path) {
        None => 0u8,
        Some(PathKind::Source) => 1,
        Some(PathKind::Test) => 2,
        Some(_) => 3,
    };
    findings.sort_by(|a, b| {
        let sev = |f: &Finding| u8::from(f.severity != Severity::Warn);
        let score = |f: &Finding| f.score.unwrap_or(-1.0);
        sev(a)
            .cmp(&sev(b))
            .then_with(|| score(b).total_cmp(&score(a)))
            .then_with(|| tier(a).cmp(&tier(b)))
            .then_with(|| {
                a.path
                    .as_deref()
                    .unwrap_or("")
                    .cmp(b.path.as_deref().unwrap_or(""))
            })
            .then_with(|| a.flag.cmp(&b.flag))
    });
}

struct RecordSink {
    run_id: RunId,
    recorder: Arc<dyn RunRecorder>,
    clock: Arc<dyn Clock>,
}

impl FrameSink for RecordSink {
    fn attempt(&self, r: AttemptRecord) {
        let record = FrameRecord {
            run_id: &self.run_id,
            frame_id: &r.frame_id,
            template: &r.template,
            scope: &r.scope,
            provenance: &r.provenance,
            attempt: r.attempt,
            requested_model: &r.requested_model,
            started_at: crate::time::Stamp(self.clock.now()),
            latency_ms: r.latency_ms,
            cache_key: r.cache_key.as_deref(),
            result: r.result,
            resolved_model: r.resolved_model.as_deref(),
            usage: r.usage.map(|(input_tokens, output_tokens)| TokenUsage {
                input_tokens,
                output_tokens,
            }),
            response: r.response.as_ref(),
            parsed: r.parsed.as_ref(),
            error: r.error.as_deref(),
        };
        let line = to_value(&record);
        match r.request {
            // The request as it was sent, after redaction: its text goes in as it is (D-175).
            Some(sent) if r.prepared => {
                self.recorder
                    .append_with("frames.ndjson", &line, "request", &sent);
            }
            // Sent without redaction (an executor with no `prepare`): scanned with the rest.
            Some(sent) => {
                let mut line = line;
                if let (Some(fields), Ok(sent)) = (
                    line.as_object_mut(),
                    serde_json::from_str::<Value>(sent.get()),
                ) {
                    fields.insert("request".to_owned(), sent);
                }
                self.recorder.append("frames.ndjson", &line);
            }
            None => self.recorder.append("frames.ndjson", &line),
        }
    }

    fn budget_exhausted(&self, frame_id: &stanley_core::FrameId, limit: Denial) {
        self.recorder.append(
            "events.ndjson",
            &to_value(&BudgetEvent {
                at: crate::time::Stamp(self.clock.now()),
                kind: "budget_exhausted",
                frame_id,
                limit: limit.as_str(),
            }),
        );
    }
}

/// A finished run's packet, with the workflow's human sections.
#[derive(Clone, Debug)]
pub struct Packet {
    pub status: Status,
    pub json: Value,
    pub sections: Vec<Section>,
}

/// A result's `coverage` as one line: `2 candidates · 1 judged · 0 deterministic · …` (the
/// human report's and the local page's).
pub fn coverage_text(c: &Value) -> String {
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    format!(
        "{} candidates · {} judged · {} deterministic · {} excluded · {} parked · {} failed · {} unjudged",
        n("candidates"),
        n("judged"),
        n("deterministic"),
        n("excluded"),
        n("parked"),
        n("failed"),
        n("unjudged")
    )
}

impl Packet {
    /// The report a person reads (D-127): the headline, the findings, the workflow's own lines,
    /// one coverage line, what was left out counted by reason, and what was not checked.
    pub fn human(&self) -> String {
        report::render(self, false)
    }

    /// The same report with every item listed: each parked, excluded and unjudged item, and
    /// the workflow's rows per item (`stanley --verbose`, `stanleyctl runs show`).
    pub fn verbose(&self) -> String {
        report::render(self, true)
    }

    /// The public output `{text, data}`: `data` has exactly the eight public packet keys, moved
    /// out of the packet (a review's are thousands of rows; nothing is copied).
    pub fn into_output(mut self) -> Value {
        let text = self.human();
        let mut data = Map::new();
        for key in [
            "coverage",
            "findings",
            "parked",
            "excluded",
            "limits",
            "notChecked",
            "results",
            "summary",
        ] {
            let value = self
                .json
                .get_mut(key)
                .map(Value::take)
                .unwrap_or(Value::Null);
            data.insert(key.into(), value);
        }
        // In the order `Output` writes its fields.
        let mut output = Map::new();
        output.insert("text".into(), text.into());
        output.insert("data".into(), Value::Object(data));
        Value::Object(output)
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;

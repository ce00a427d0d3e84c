//! One shape for a built-in: [`plan`] turns a request into the built-in's [`BuiltinRun`]
//! (input errors first), and the trait says what the run needs (the diff, the tracked files),
//! what it records, how many hunks it plans to judge, whether its whole answer may be
//! remembered, and runs it. The daemon drives every built-in through this one shape.

use std::sync::Arc;

use serde_json::Value;
use stanley_core::{BoxFuture, Executor};

use crate::analysis::{self, AnalysisInput, DEFAULT_MAX_HUNKS, modes};
use crate::diff::DiffEvidence;
use crate::ports::Redactor;
use crate::registry::{Builtin, Kind};
use crate::routing::Reading;
use crate::run::Run;
use crate::text::{RequestTextError, check_request_text};
use crate::triage::logs::ParsedLog;
use crate::triage::review_comments::{Comment, CommentsError, parse_comments};
use crate::triage::{Sources, comments, failures};
use crate::{check, find, routing};

/// What a built-in's run is given.
pub struct RunOn<'a> {
    /// The diff evidence (an empty diff for a built-in that uses none).
    pub evidence: &'a DiffEvidence,
    /// The diff as context (when there is one), the tracked files and the workspace.
    pub sources: Sources<'a>,
    /// The request's redactor, for text read from the workspace.
    pub redactor: &'a dyn Redactor,
}

/// A planned built-in.
pub trait BuiltinRun: Send + Sync {
    /// The name its runs are recorded under, when not the built-in's id.
    fn record_name(&self) -> Option<&'static str> {
        None
    }

    /// Whether it runs on the request's diff (otherwise an empty diff stands in).
    fn uses_diff(&self) -> bool {
        true
    }

    /// Whether it reads the repository's tracked files.
    fn reads_tracked(&self) -> bool {
        false
    }

    /// Whether its whole answer may be remembered by the commits of a branch diff (a diff
    /// analysis: its answer is a function of the diff, the request and the settings).
    fn remembered(&self) -> bool {
        false
    }

    /// The inputs recorded in the run's `inputs.json`; `context` is the diff when there is
    /// one, `tracked` the number of tracked files read.
    fn inputs(
        &self,
        evidence: &DiffEvidence,
        context: Option<&DiffEvidence>,
        tracked: usize,
    ) -> Value;

    /// How many hunks it plans to judge (the progress total); 0 when it judges no hunks.
    fn planned(&self, _evidence: &DiffEvidence) -> usize {
        0
    }

    /// Runs it, recording into `run`.
    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()>;
}

/// Why a built-in cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The request's text is blank or too long (input, 65).
    #[error(transparent)]
    Text(#[from] RequestTextError),
    /// A check's task or its rules or criteria (input, 65).
    #[error(transparent)]
    Check(#[from] check::PlanError),
    /// Review comments that do not read (input, 65).
    #[error(transparent)]
    Comments(#[from] CommentsError),
    /// A diff analysis with no mode in this build (internal, 70).
    #[error("{0} has no runner in this build")]
    NoRunner(&'static str),
}

/// A request for a built-in.
pub struct PlanRequest<'a> {
    /// The request's text.
    pub text: &'a str,
    /// The supplied input: its text, where it came from (`stdin` or a path), and how it was
    /// read.
    pub input: Option<PlanInput<'a>>,
    /// The repository root, stripped from absolute paths in a failure log.
    pub root: &'a str,
}

/// The supplied input of a built-in request.
#[derive(Clone, Copy)]
pub struct PlanInput<'a> {
    /// Its text.
    pub text: &'a str,
    /// `stdin`, or the path it was read from.
    pub source: &'a str,
    /// Its shape and the failure log it parsed as, read once for the request.
    pub reading: &'a Reading,
}

/// The built-in's run for `request`; `None` when it needs input that was not supplied.
pub fn plan(
    builtin: &Builtin,
    request: &PlanRequest<'_>,
) -> Result<Option<Box<dyn BuiltinRun>>, Refused> {
    let text = request.text;
    Ok(Some(match builtin.kind {
        Kind::Find => {
            check_request_text(text, "task")?;
            Box::new(Find(find::FindInput::new(text)))
        }
        Kind::Check => Box::new(Check(check::plan(
            text,
            request.input.map(|i| (i.text, i.source)),
        )?)),
        Kind::TriageComments => {
            let Some(PlanInput {
                text: input,
                source,
                ..
            }) = request.input
            else {
                return Ok(None);
            };
            let parsed = parse_comments(input)?;
            Box::new(Comments(
                comments::CommentsInput {
                    text: input.to_owned(),
                    source: source.to_owned(),
                    max_items: comments::DEFAULT_MAX_ITEMS,
                },
                parsed,
            ))
        }
        Kind::TriageFailures => {
            let Some(PlanInput {
                text: input,
                source,
                reading,
            }) = request.input
            else {
                return Ok(None);
            };
            check_request_text(text, "task")?;
            let parsed = reading.log.clone();
            Box::new(Failures(
                failures::FailuresInput {
                    text: input.to_owned(),
                    source: source.to_owned(),
                    task: text.to_owned(),
                    root: request.root.to_owned(),
                    max_items: failures::DEFAULT_MAX_ITEMS,
                },
                parsed,
            ))
        }
        Kind::Analysis => {
            let mode = modes::mode(builtin.id).ok_or(Refused::NoRunner(builtin.id))?;
            check_request_text(text, "request")?;
            Box::new(Analysis(
                mode,
                AnalysisInput {
                    request: text.to_owned(),
                    max_hunks: DEFAULT_MAX_HUNKS,
                },
            ))
        }
    }))
}

/// `find` as the code-change fallback plans it: excerpts in the output and the fallback notice
/// first among the limits.
pub fn code_change_find(task: &str) -> Result<Box<dyn BuiltinRun>, Refused> {
    check_request_text(task, "task")?;
    Ok(Box::new(Find(find::FindInput {
        fallback: true,
        ..find::FindInput::new(task)
    })))
}

/// A diff analysis (review, summarize, ...).
struct Analysis(&'static modes::Mode, AnalysisInput);

impl BuiltinRun for Analysis {
    fn remembered(&self) -> bool {
        true
    }

    fn inputs(&self, evidence: &DiffEvidence, _: Option<&DiffEvidence>, _: usize) -> Value {
        analysis::recorded_inputs(self.0, &self.1, evidence)
    }

    fn planned(&self, evidence: &DiffEvidence) -> usize {
        evidence.hunks.len().min(self.1.max_hunks)
    }

    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()> {
        Box::pin(analysis::analyze(
            self.0,
            &self.1,
            on.evidence,
            executor,
            run,
        ))
    }
}

/// `check`: a task, with rules or criteria.
struct Check(check::CheckPlan);

impl BuiltinRun for Check {
    fn inputs(&self, evidence: &DiffEvidence, _: Option<&DiffEvidence>, _: usize) -> Value {
        check::recorded_inputs(&self.0, evidence)
    }

    fn planned(&self, evidence: &DiffEvidence) -> usize {
        evidence.hunks.len().min(check::task::DEFAULT_MAX_HUNKS)
    }

    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()> {
        Box::pin(check::check(&self.0, on.evidence, executor, run))
    }
}

/// `triage` of a failure log.
struct Failures(failures::FailuresInput, Arc<ParsedLog>);

impl BuiltinRun for Failures {
    fn record_name(&self) -> Option<&'static str> {
        Some("triage")
    }

    fn reads_tracked(&self) -> bool {
        true
    }

    fn inputs(&self, _: &DiffEvidence, context: Option<&DiffEvidence>, _: usize) -> Value {
        failures::recorded_inputs(&self.0, &self.1, context)
    }

    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()> {
        Box::pin(failures::triage(
            &self.0, &self.1, on.sources, executor, run,
        ))
    }
}

/// `triage` of review comments.
struct Comments(comments::CommentsInput, Vec<Comment>);

impl BuiltinRun for Comments {
    fn record_name(&self) -> Option<&'static str> {
        Some("triage")
    }

    fn reads_tracked(&self) -> bool {
        true
    }

    fn inputs(&self, _: &DiffEvidence, context: Option<&DiffEvidence>, _: usize) -> Value {
        comments::recorded_inputs(&self.0, &self.1, context)
    }

    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()> {
        Box::pin(comments::triage(
            &self.0, &self.1, on.sources, executor, run,
        ))
    }
}

/// `find`: the repository code a task is about.
struct Find(find::FindInput);

impl BuiltinRun for Find {
    fn uses_diff(&self) -> bool {
        false
    }

    fn reads_tracked(&self) -> bool {
        true
    }

    fn inputs(&self, _: &DiffEvidence, _: Option<&DiffEvidence>, tracked: usize) -> Value {
        find::recorded_inputs(&self.0, tracked)
    }

    fn run<'a>(
        &'a self,
        on: RunOn<'a>,
        executor: &'a Executor,
        run: &'a mut Run,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            find::find(
                &self.0,
                on.sources.tracked,
                on.sources.workspace,
                on.redactor,
                executor,
                run,
            )
            .await;
            if self.0.fallback {
                run.limits
                    .insert(0, routing::FIND_FALLBACK_NOTICE.to_owned());
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Diff, DiffSource};
    use crate::registry::BUILTINS;
    use crate::triage::logs::Parsers;

    fn reading(text: &str) -> Reading {
        let never = stanley_core::Cancel::new();
        Reading::of(text, Parsers::All, &stanley_core::Pace::new(&never)).unwrap()
    }

    fn request<'a>(
        text: &'a str,
        input: Option<(&'a str, &'a str, &'a Reading)>,
    ) -> PlanRequest<'a> {
        PlanRequest {
            text,
            input: input.map(|(text, source, reading)| PlanInput {
                text,
                source,
                reading,
            }),
            root: "/repo",
        }
    }

    /// Every registered built-in plans through the one shape, and says what it needs: only the
    /// diff analyses are remembered whole, `find` alone runs without the diff, and both
    /// triages read the tracked files and record under one name.
    #[test]
    fn every_builtin_plans_through_one_shape() {
        let evidence = DiffEvidence::from_source(DiffSource::worktree(Diff::default()));
        let log = "FAILED tests/test_a.py::test_one - AssertionError: boom\n";
        let log_reading = reading(log);
        let comments = r#"[{"path": "a.py", "line": 3, "body": "rename this"}]"#;
        let comments_reading = reading(comments);
        for builtin in BUILTINS.iter().filter(|b| b.implemented) {
            let input =
                (builtin.kind == Kind::TriageFailures).then_some((log, "stdin", &log_reading));
            let planned = match builtin.kind {
                // Comments need comments; a log is not one.
                Kind::TriageComments => plan(
                    builtin,
                    &request("triage these", Some((comments, "stdin", &comments_reading))),
                ),
                _ => plan(builtin, &request("look at this change", input)),
            };
            let run = match planned {
                Ok(Some(run)) => run,
                Ok(None) => panic!("{} was not planned with its input", builtin.id),
                Err(e) => panic!("{} refused: {e}", builtin.id),
            };
            assert_eq!(
                run.remembered(),
                builtin.kind == Kind::Analysis,
                "{}",
                builtin.id
            );
            assert_eq!(
                run.uses_diff(),
                builtin.kind != Kind::Find,
                "{}",
                builtin.id
            );
            let triage = matches!(builtin.kind, Kind::TriageFailures | Kind::TriageComments);
            assert_eq!(
                run.reads_tracked(),
                triage || builtin.kind == Kind::Find,
                "{}",
                builtin.id
            );
            assert_eq!(
                run.record_name(),
                triage.then_some("triage"),
                "{}",
                builtin.id
            );
            assert!(run.inputs(&evidence, None, 0).is_object(), "{}", builtin.id);
            assert_eq!(
                run.planned(&evidence),
                0,
                "{}: no hunks to judge",
                builtin.id
            );
        }
    }

    /// Input errors come before anything runs, each as its own kind.
    #[test]
    fn a_request_that_cannot_be_planned_says_why() {
        let by_id = |id: &str| BUILTINS.iter().find(|b| b.id == id).unwrap();
        let broken = reading("{not json");
        assert!(matches!(
            plan(by_id("review"), &request("   ", None)),
            Err(Refused::Text(_))
        ));
        assert!(matches!(
            plan(
                by_id("check"),
                &request("check it", Some(("{not json", "rules.json", &broken)))
            ),
            Err(Refused::Check(_))
        ));
        assert!(matches!(
            plan(by_id("triage_failures"), &request("why", None)),
            Ok(None)
        ));
        assert!(matches!(
            plan(by_id("triage_comments"), &request("triage", None)),
            Ok(None)
        ));
        let too_long = "x".repeat(4001);
        assert!(matches!(code_change_find(&too_long), Err(Refused::Text(_))));
    }
}

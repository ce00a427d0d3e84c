//! The `check` task section (`check-task-policy@2`): how each hunk relates to the stated task,
//! weakened or disabled test expectations, special-cased literal inputs, enabler follow-ups and
//! the deterministic ladder, decided in code from Jev's answers.

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use serde::Serialize;
use serde_json::{Map, Value};
use stanley_core::{Answer, Executor, Frame, FrameOutcome, Question, Questions};

use crate::change::ChangeContext;
use crate::check::SectionOutcome;
use crate::diff::{DiffEvidence, Hunk};
use crate::ladder::{enabled_hunks, ladder};
use crate::paths::PathKind;
use crate::policy::SECTION_ROWS;
use crate::policy::{
    HunkState, Instructions, LinkedHunk, TaskText, untrusted_instruction_question,
};
use crate::run::{Disposition, Finding, Parked, Run, Severity, to_value};
use crate::text::round3;

/// The section's heading in the human report.
const TITLE: &str = "task: hunks needing attention";
/// The policy version of the task section.
pub const POLICY: &str = "check-task-policy@2";
/// Hunks judged at most.
/// (Each may also need a test and a follow-up frame, so this stays under the analyses' 500.)
pub const DEFAULT_MAX_HUNKS: usize = 300;
const WEAK_LOW_MASS: f64 = 0.7;
const WEAKENS: f64 = 0.7;
const STATED_IN_TASK: f64 = 0.5;
const SPECIAL_CASE: f64 = 0.7;
const CONFLICT_DIRECT_MASS: f64 = 0.6;
const CONFLICT_FORMATTING_CONFIDENCE: f64 = 0.7;
const ENABLES: f64 = 0.6;
const ENABLER_MIN_HIGH_MASS: f64 = 0.5;
const TASK_INSUFFICIENT_SHARE: f64 = 0.7;
const TASK_INSUFFICIENT_MIN_JUDGED: usize = 4;
/// What a hunk the budget plan left out says.
const PLAN_LIMIT_ERROR: &str = "not judged: budget plan";

const NOT_CHECKED: [&str; 4] = [
    "correctness of the change",
    "tests were not executed",
    "hunks are judged individually; intent spread across unlinked hunks is not modeled",
    "hunks with unchanged test files are not checked for weakening",
];

const CHANGE_KINDS: [(&str, &str); 7] = [
    ("behavior_change", "Changes what the code does."),
    (
        "refactor_no_behavior_change",
        "Restructures code without changing what it does.",
    ),
    (
        "formatting_or_comments",
        "Only layout, whitespace or comments change.",
    ),
    ("test_change", "Changes tests or fixtures."),
    (
        "config_or_dependency",
        "Changes configuration or dependencies.",
    ),
    ("documentation", "Changes documentation."),
    (
        "cannot_tell",
        "The shown hunk does not reveal what kind of change it is.",
    ),
];

fn intent_questions(hunk: &Hunk) -> Questions {
    let mut q = Questions::new()
        .with(
            "task_relation",
            Question::score(
                Instructions::new("How does the diff hunk shown relate to the stated task?")
                    .guidance("Judge what the hunk contributes to a coherent implementation of the task. Documentation, exports, registrations, imports, fixtures, configuration and renamed references can support behavior added elsewhere in the change (see the related files). Do not infer a relation from nearby folders or shared words alone."),
                [
                    "No visible connection to the task.",
                    "Same area of the code, but not needed for the task.",
                    "Supports the task indirectly, or keeps the repository consistent with behavior implemented elsewhere.",
                    "Directly implements or verifies the task's primary behavior.",
                ],
            ),
        )
        .with(
            "change_kind",
            Question::choice("What kind of change is the diff hunk shown?", CHANGE_KINDS),
        );
    if hunk.kind == PathKind::Source {
        q = q.with(
            "special_cases_literal_input",
            Question::noul(
                "Does the hunk shown add a branch or return keyed on a specific literal that reads like a fixture or test input rather than a domain rule?",
                "A condition matches a hard-coded input, such as a test id, fixture name or magic value, to force a result.",
                "Any literal in a condition is a genuine domain rule, or there is no such condition.",
            ),
        );
    }
    q.with(
        "untrusted_instruction_text",
        untrusted_instruction_question(),
    )
}

fn test_questions() -> Questions {
    Questions::new()
        .with(
            "weakens_expectation",
            Question::noul(
                Instructions {
                    definition: Some("True when the test now accepts strictly more outcomes or no longer checks a value it used to check. A tightened assertion, or one changed to another exact value, is not weaker."),
                    worked_examples: Some(to_value(&WEAKENING_EXAMPLES)),
                    ..Instructions::new("Does the test hunk shown weaken what the test expects?")
                },
                "The test accepts more outcomes than before or stopped checking something.",
                "The test checks at least as much as before.",
            ),
        )
        .with(
            "expectation_change_stated_in_task",
            Question::noul(
                "Does the requested behavior require, or clearly entail, that the old expectation no longer holds? Broad topical overlap is not enough.",
                "The task itself changes the expected behavior.",
                "The task does not call for this expectation to change.",
            ),
        )
        .with(
            "disables_or_bypasses_test",
            Question::noul(
                "Is a test skipped, commented out, made to return early or otherwise bypassed?",
                "A test no longer runs its checks.",
                "Every test still runs its checks.",
            ),
        )
}

/// A worked example of a weakened (or not weakened) test expectation.
#[derive(Serialize)]
struct WeakeningExample {
    change: &'static str,
    answer: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
}

const WEAKENING_EXAMPLES: [WeakeningExample; 6] = [
    WeakeningExample {
        change: "expect(price).toEqual(42) became expect(price).toBeDefined()",
        answer: true,
        why: None,
    },
    WeakeningExample {
        change: "expect(status).toBe(200) became expect([200, 500]).toContain(status)",
        answer: true,
        why: None,
    },
    WeakeningExample {
        change: "assert result == [1, 2, 3] became assert len(result) > 0",
        answer: true,
        why: None,
    },
    WeakeningExample {
        change: "expect(ok).toBeTruthy() became expect(ok).toBe(true)",
        answer: false,
        why: Some("tightened"),
    },
    WeakeningExample {
        change: "expect(base).toBe(10) became expect(base).toBe(12) for the task \"Raise the base price to 12\"",
        answer: false,
        why: Some("a different exact value"),
    },
    WeakeningExample {
        change: "only the test's name changed",
        answer: false,
        why: None,
    },
];

fn lines_of(hunk: &Hunk) -> String {
    hunk.line_range()
}

fn finding(
    flag: &str,
    hunk: &Hunk,
    source: &'static str,
    severity: Severity,
    detail: Option<Map<String, Value>>,
) -> Finding {
    let p = detail
        .as_ref()
        .and_then(|d| d.get("p").or_else(|| d.get("lowMass")))
        .and_then(Value::as_f64);
    let mut f = Finding {
        detail,
        ..Finding::new(flag, &hunk.id, source, severity).on_change(hunk)
    }
    .says(task_reason(flag, p));
    if let Some(p) = p {
        f = f.scored(p);
    }
    f
}

/// Why check raised `flag` on a hunk, in words, with Jev's confidence when it answered.
fn task_reason(flag: &str, p: Option<f64>) -> String {
    let what = match flag {
        "skip_marker_added" => "A test is newly skipped or marked to be left out here.",
        "assertions_removed" => "Assertions were removed from a test here.",
        "test_file_deleted" => "A test file was deleted.",
        "ci_config_changed" => {
            "The CI configuration changed: what runs on every push is different."
        }
        "config_changed" => "A configuration file changed.",
        "formatting_only" => "Only formatting changed here.",
        "generated_file_changed" => "A generated file changed; its source should change with it.",
        "lockfile_changed" => "A lockfile changed: dependency versions moved.",
        "special_cased_literal_input" => {
            "The code special-cases one literal input (a value the task or a test names) rather than handling the general case."
        }
        "test_expectation_weakened" => {
            "A test's expectation was weakened, and the task does not say it should change."
        }
        "expectation_changed_per_task" => "A test's expectation changed, as the task asks.",
        "test_disabled_or_bypassed" => "A test is disabled or bypassed by this change.",
        "weak_task_relation" => "This change does not visibly serve the task.",
        _ => "Check raised this on the change.",
    };
    match p {
        Some(p) => format!(
            "{what} Jev said so with {} confidence when asked about this hunk and the task.",
            crate::analysis::percent(p)
        ),
        None => format!("{what} (found by a rule, not by Jev)"),
    }
}

fn detail<const N: usize>(pairs: [(&str, Value); N]) -> Option<Map<String, Value>> {
    Some(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// The task section while it is being judged: a row, flags and the deterministic ladder per
/// hunk, and what the answers decided so far.
struct Judging<'a> {
    task_state: TaskText,
    evidence: &'a DiffEvidence,
    hunks: Vec<&'a Hunk>,
    /// For each hunk, the hunks it is linked to (they use what it declares).
    links: Vec<Vec<usize>>,
    rows: Vec<TaskRow>,
    /// Jev-decided flags per hunk.
    flags: Vec<Vec<String>>,
    /// Deterministic ladder flags per hunk.
    det: Vec<Vec<&'static str>>,
    /// Hunks asked for their intent, and test hunks asked about their expectation.
    intent_idx: Vec<usize>,
    test_idx: Vec<usize>,
    weak: Vec<bool>,
    high_mass: Vec<f64>,
    judged_with_relation: usize,
    /// The hunks under the cap in judging order (indexes into `hunks`): the budget plan's
    /// order.
    order: Vec<usize>,
    /// For each intent position, the position whose question answers it: hunks with the same
    /// changed text and deterministic flags are asked once (D-119).
    leader: Vec<usize>,
    /// For each test position, the position whose test question answers it, alike.
    test_leader: Vec<usize>,
}

impl<'a> Judging<'a> {
    /// Rows for every hunk with the ladder's findings; lockfiles and generated files are
    /// settled by code, hunks past the cap are left unjudged.
    fn plan(task: &str, evidence: &'a DiffEvidence, run: &mut Run, max_hunks: usize) -> Self {
        let hunks: Vec<&Hunk> = evidence.hunks.iter().collect();
        let n = hunks.len();
        // The hunks judged under the cap: in the shared order (source first, what the task
        // names first), lockfiles and generated files aside since code settles them.
        let judgeable: Vec<usize> = (0..n)
            .filter(|&i| !matches!(hunks[i].kind, PathKind::Lockfile | PathKind::Generated))
            .collect();
        let candidates: Vec<&Hunk> = judgeable.iter().map(|&i| hunks[i]).collect();
        if candidates.len() > max_hunks {
            run.limits.push(format!(
                "only the {max_hunks} highest-priority of {} hunks were judged (policy hunk limit; source first, then tests, then the rest)",
                candidates.len()
            ));
        }
        let order: Vec<usize> = crate::order::judging_order(&candidates, task, |_| 0.0)
            .into_iter()
            .take(max_hunks)
            .map(|k| judgeable[k])
            .collect();
        let within_cap: std::collections::BTreeSet<usize> = order.iter().copied().collect();
        let mut this = Self {
            task_state: TaskText::user(task),
            evidence,
            links: enabled_hunks(&hunks),
            rows: Vec::with_capacity(n),
            flags: vec![Vec::new(); n],
            det: Vec::with_capacity(n),
            intent_idx: Vec::new(),
            test_idx: Vec::new(),
            weak: vec![false; n],
            high_mass: vec![0.0; n],
            judged_with_relation: 0,
            order,
            leader: Vec::new(),
            test_leader: Vec::new(),
            hunks,
        };
        for (i, hunk) in this.hunks.iter().enumerate() {
            let ladder_flags = ladder(hunk);
            for flag in &ladder_flags {
                let severity = if matches!(
                    *flag,
                    "skip_marker_added" | "assertions_removed" | "test_file_deleted"
                ) {
                    Severity::Warn
                } else {
                    Severity::Info
                };
                run.findings
                    .push(finding(flag, hunk, "deterministic", severity, None));
            }
            let mut row = TaskRow::new(hunk, ladder_flags.clone());
            if matches!(hunk.kind, PathKind::Lockfile | PathKind::Generated) {
                run.set(&hunk.id, Disposition::Deterministic);
                row.disposition = Disposition::Deterministic;
            } else if !within_cap.contains(&i) {
                run.set(&hunk.id, Disposition::Unjudged);
                row.error = Some("not judged: hunk limit".to_owned());
            } else {
                run.set(&hunk.id, Disposition::Unjudged);
                this.intent_idx.push(i);
                if hunk.kind == PathKind::Test && hunk.removed > 0 {
                    this.test_idx.push(i);
                }
            }
            this.det.push(ladder_flags);
            this.rows.push(row);
        }
        this
    }

    /// Groups the intent questions, and the test questions: in judging order, the first hunk of
    /// each changed text (with its deterministic flags) leads, and the others take its answer.
    fn group_intents(&mut self) {
        let leader = leaders(&self.intent_idx, &self.order, |i| {
            self.hunks[i].same_change_key(&self.det[i])
        });
        for (k, &l) in leader.iter().enumerate() {
            if l != k {
                let lead = self.hunks[self.intent_idx[l]].id.clone();
                self.rows[self.intent_idx[k]].judged_with = Some(lead);
            }
        }
        self.leader = leader;
        // A test question shows the task and the hunk alone: the same changed test lines ask
        // the same question wherever they are.
        self.test_leader = leaders(&self.test_idx, &self.order, |i| {
            self.hunks[i].same_change_key(&["test_expectation"])
        });
    }

    /// The budget plan over every hunk's intent frame, (for a test hunk) its test frame and
    /// (for a hunk with linked hunks) room for its enabler follow-up, in judging order, before
    /// any is sent: what fits is charged and will be asked; what does not is left out with a
    /// limits line (D-117). A follow-up's room is its largest possible frame; whether it is
    /// asked depends on the answers, and room not used is given back.
    #[allow(clippy::type_complexity)] // Two lists of optional (frame, estimate) pairs, by index.
    fn budget_plan(
        &self,
        executor: &Executor,
        intents: Vec<Frame>,
        tests: Vec<Frame>,
        run: &mut Run,
    ) -> (
        Vec<Option<(Frame, u64)>>,
        Vec<Option<(Frame, u64)>>,
        Vec<Option<u64>>,
    ) {
        #[derive(Clone, Copy)]
        enum Slot {
            Intent(usize),
            Test(usize),
            /// The follow-up of hunk `i`, sized by `follow_frames[k]`.
            FollowUp(usize, usize),
        }
        let intent_of: std::collections::HashMap<usize, usize> = self
            .intent_idx
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, k))
            .collect();
        let test_of: std::collections::HashMap<usize, usize> = self
            .test_idx
            .iter()
            .enumerate()
            .map(|(k, &i)| (i, k))
            .collect();
        let mut follow_frames: Vec<Frame> = Vec::new();
        let mut slots: Vec<Slot> = Vec::new();
        for &i in &self.order {
            let Some(&k) = intent_of.get(&i) else {
                continue;
            };
            if self.leader[k] == k {
                slots.push(Slot::Intent(k));
            }
            if let Some(&t) = test_of.get(&i).filter(|&&t| self.test_leader[t] == t) {
                slots.push(Slot::Test(t));
            }
            let largest = self.links[i]
                .iter()
                .filter(|j| intent_of.contains_key(j))
                .map(|&j| self.enables_frame(i, j))
                .max_by_key(|f| executor.estimate(f));
            if let Some(frame) = largest {
                slots.push(Slot::FollowUp(i, follow_frames.len()));
                follow_frames.push(frame);
            }
        }
        let ordered: Vec<&Frame> = slots
            .iter()
            .map(|slot| match *slot {
                Slot::Intent(k) => &intents[k],
                Slot::Test(k) => &tests[k],
                Slot::FollowUp(_, f) => &follow_frames[f],
            })
            .collect();
        let (plan, estimates) = executor.plan(&ordered);
        let mut chosen_intents = vec![None; intents.len()];
        let mut chosen_tests = vec![None; tests.len()];
        let mut follow_room = vec![None; self.hunks.len()];
        let (mut intents, mut tests): (Vec<Option<Frame>>, Vec<Option<Frame>>) = (
            intents.into_iter().map(Some).collect(),
            tests.into_iter().map(Some).collect(),
        );
        for (n, slot) in slots.iter().enumerate().take(plan.chosen) {
            match *slot {
                Slot::Intent(k) => chosen_intents[k] = intents[k].take().map(|f| (f, estimates[n])),
                Slot::Test(k) => chosen_tests[k] = tests[k].take().map(|f| (f, estimates[n])),
                Slot::FollowUp(i, _) => follow_room[i] = Some(estimates[n]),
            }
        }
        if plan.stopped_by.is_some() {
            let judged = (0..self.intent_idx.len())
                .filter(|&k| chosen_intents[self.leader[k]].is_some())
                .count();
            run.limits.push(format!(
                "the budget plan judged the {judged} highest-priority of {} hunks (source first, \
                 then tests, then the rest): the next would pass the allowance of {} estimated \
                 input tokens; the other {} are listed as unjudged (\"{PLAN_LIMIT_ERROR}\")",
                self.intent_idx.len(),
                plan.allowance.input_tokens,
                self.intent_idx.len() - judged
            ));
        }
        (chosen_intents, chosen_tests, follow_room)
    }

    /// A hunk the budget plan left out: unjudged, and said so.
    fn left_out(&mut self, i: usize, run: &mut Run) {
        fail_row(
            run,
            &mut self.rows[i],
            self.hunks[i],
            PLAN_LIMIT_ERROR,
            true,
        );
    }

    fn intent_frames(&self, change: &ChangeContext<'_>) -> Vec<Frame> {
        self.intent_idx
            .iter()
            .map(|&i| {
                let h = self.hunks[i];
                Frame {
                    template: "hunk_intent@3".into(),
                    scope: h.id.clone(),
                    state: HunkState {
                        task: Some(&self.task_state),
                        change: Some(change.of(h)),
                        linked_hunks: Some(self.linked(i)),
                        deterministic_flags: Some(&self.det[i]),
                        ..HunkState::hunk(h.evidence())
                    }
                    .value(),
                    questions: intent_questions(h),
                    provenance: Value::Array(vec![h.reference(&self.evidence.source)]),
                }
            })
            .collect()
    }

    /// The hunks linked to hunk `i`, as their files and sections: no ids or line numbers, so
    /// an edit elsewhere in a linked file does not change this frame.
    fn linked(&self, i: usize) -> Vec<LinkedHunk> {
        let mut out: Vec<LinkedHunk> = Vec::new();
        for &j in &self.links[i] {
            let h = self.hunks[j];
            let entry = LinkedHunk {
                path: h.path.clone(),
                section: h.section.clone(),
            };
            if !out.contains(&entry) {
                out.push(entry);
            }
        }
        out
    }

    fn test_frames(&self) -> Vec<Frame> {
        self.test_idx
            .iter()
            .map(|&i| {
                let h = self.hunks[i];
                Frame {
                    template: "test_expectation@3".into(),
                    scope: h.id.clone(),
                    state: HunkState {
                        task: Some(&self.task_state),
                        ..HunkState::hunk(h.evidence())
                    }
                    .value(),
                    questions: test_questions(),
                    provenance: Value::Array(vec![h.reference(&self.evidence.source)]),
                }
            })
            .collect()
    }

    /// Hunk `i`'s intent answers: its relation to the task, a hard conflict parked, weakness
    /// and a special-cased literal input flagged.
    fn apply_intent(&mut self, i: usize, outcome: &FrameOutcome, run: &mut Run) {
        let hunk = self.hunks[i];
        let ok = match outcome {
            Err(f) => {
                fail_row(
                    run,
                    &mut self.rows[i],
                    hunk,
                    &format!("{}: {}", f.reason.as_str(), f.detail),
                    f.reason.is_unjudged(),
                );
                return;
            }
            Ok(ok) => ok,
        };
        let (
            Some(
                relation @ Answer::Score {
                    score,
                    probabilities,
                    ..
                },
            ),
            Some(
                kind @ Answer::Choice {
                    choice, confidence, ..
                },
            ),
        ) = (
            ok.answers.get("task_relation"),
            ok.answers.get("change_kind"),
        )
        else {
            return;
        };
        let row = &mut self.rows[i];
        let signal = intent_signal(outcome);
        let high = signal.high;
        let low = round3(1.0 - relation.mass_at_least(2));
        self.high_mass[i] = high;
        self.judged_with_relation += 1;
        row.task_relation = Some(TaskRelation {
            low_mass: low,
            high_mass: high,
            expected: score.round(),
            distribution: probabilities.iter().map(|p| round3(*p)).collect(),
        });
        row.change_kind = Some(ChangeKind {
            label: choice.clone(),
            confidence: round3(*confidence),
            distribution: kind.to_json()["probabilities"].clone(),
        });
        let untrusted = round3(ok.answers.noul("untrusted_instruction_text"));
        row.untrusted_instruction_text = Some(untrusted);
        run.set(&hunk.id, Disposition::Judged);
        row.disposition = Disposition::Judged;
        let direct = probabilities.get(3).copied().unwrap_or(0.0);
        if direct >= CONFLICT_DIRECT_MASS
            && choice == "formatting_or_comments"
            && *confidence >= CONFLICT_FORMATTING_CONFIDENCE
        {
            run.parked.push(Parked {
                id: hunk.id.clone(),
                path: Some(hunk.path.clone()),
                reason: "conflict: direct task relation vs formatting_or_comments".to_owned(),
            });
            run.set(&hunk.id, Disposition::Parked);
            row.disposition = Disposition::Parked;
            run.decision(
                &hunk.id,
                "hard_conflict",
                HardConflict {
                    direct: round3(direct),
                    change_kind: choice,
                },
                POLICY,
            );
            return;
        }
        let flags = &mut self.flags[i];
        if signal.weak {
            self.weak[i] = true;
            flags.push("weak_task_relation".into());
        }
        if let Some(Answer::Noul { probability }) = ok.answers.get("special_cases_literal_input") {
            row.special_cases_literal_input = Some(round3(*probability));
            if *probability >= SPECIAL_CASE {
                flags.push("special_cased_literal_input".into());
                run.findings.push(finding(
                    "special_cased_literal_input",
                    hunk,
                    "jev",
                    Severity::Warn,
                    detail([("p", round3(*probability).into())]),
                ));
            }
        }
        run.decision(
            &hunk.id,
            "hunk_intent",
            IntentDecision {
                low_mass: low,
                high_mass: high,
                flags,
            },
            POLICY,
        );
    }

    /// Test hunk `i`'s expectation answers: a weakened or disabled test flagged, unless the
    /// task explains it.
    fn apply_test(&mut self, i: usize, outcome: &FrameOutcome, run: &mut Run) {
        let hunk = self.hunks[i];
        let row = &mut self.rows[i];
        let ok = match outcome {
            Err(f) => {
                let text = format!("test_expectation {}: {}", f.reason.as_str(), f.detail);
                row.append_error(text);
                if row.disposition == Disposition::Judged {
                    let d = if f.reason.is_unjudged() {
                        Disposition::Unjudged
                    } else {
                        Disposition::Failed
                    };
                    run.set(&hunk.id, d);
                    row.disposition = d;
                }
                return;
            }
            Ok(ok) => ok,
        };
        let weakens = round3(ok.answers.noul("weakens_expectation"));
        let stated = round3(ok.answers.noul("expectation_change_stated_in_task"));
        let disables = round3(ok.answers.noul("disables_or_bypasses_test"));
        row.test_expectation = Some(TestExpectation {
            weakens,
            stated_in_task: stated,
            disables_or_bypasses: disables,
        });
        if weakens >= WEAKENS {
            let explained = stated >= STATED_IN_TASK;
            let (flag, severity) = if explained {
                ("expectation_changed_per_task", Severity::Info)
            } else {
                ("test_expectation_weakened", Severity::Warn)
            };
            self.flags[i].push(flag.into());
            run.findings.push(finding(
                flag,
                hunk,
                "jev",
                severity,
                detail([("p", weakens.into()), ("explainedByTask", explained.into())]),
            ));
        }
        if disables >= WEAKENS && !self.det[i].contains(&"skip_marker_added") {
            self.flags[i].push("test_disabled_or_bypassed".into());
            run.findings.push(finding(
                "test_disabled_or_bypassed",
                hunk,
                "jev",
                Severity::Warn,
                detail([("p", disables.into())]),
            ));
        }
        run.decision(
            &hunk.id,
            "test_expectation",
            row.test_expectation.as_ref(),
            POLICY,
        );
    }

    /// The enabler follow-up of weak hunk `i`: the first linked hunk that is relevant, decided
    /// as soon as the intents known so far settle it. `None` while an earlier linked hunk is
    /// still being asked; `Some(None)` when no linked hunk is relevant.
    fn enabler(&self, i: usize, known: &[Option<IntentSignal>]) -> Option<Option<usize>> {
        for &j in &self.links[i] {
            match known[j] {
                None if self.intent_idx.contains(&j) => return None,
                Some(s) if s.high >= ENABLER_MIN_HIGH_MASS => return Some(Some(j)),
                _ => {}
            }
        }
        Some(None)
    }

    /// Asks every intent frame, and each weak hunk's enabler follow-up as soon as the answers
    /// that decide it have arrived (not after the whole batch): a large change costs one
    /// dependent round, not two batches. The pairs are chosen exactly as if every intent were
    /// known first. Intent outcomes come back in `intent_idx` order, follow-ups by hunk.
    async fn intents_and_follow_ups(
        &self,
        executor: &Executor,
        planned: Vec<Option<(Frame, u64)>>,
        follow_room: Vec<Option<u64>>,
    ) -> (
        Vec<Option<FrameOutcome>>,
        Vec<((usize, usize), FrameOutcome)>,
    ) {
        enum Done {
            Intent(usize, FrameOutcome),
            Enables(usize, usize, FrameOutcome),
        }
        let mut work: FuturesUnordered<BoxFuture<'static, Done>> = FuturesUnordered::new();
        let mut intents: Vec<Option<FrameOutcome>> = vec![None; planned.len()];
        for (k, chosen) in planned.into_iter().enumerate() {
            // A hunk the budget plan left out is never asked.
            let Some((frame, estimate)) = chosen else {
                continue;
            };
            let asked = executor.run_admitted(frame, estimate);
            work.push(Box::pin(async move { Done::Intent(k, asked.await) }));
        }
        let mut known: Vec<Option<IntentSignal>> = vec![None; self.hunks.len()];
        let mut waiting: Vec<usize> = Vec::new();
        let mut follow = Vec::new();
        let mut used = vec![false; self.hunks.len()];
        while let Some(done) = work.next().await {
            match done {
                Done::Intent(lead, outcome) => {
                    // The answer stands for every hunk whose question it was.
                    let signal = intent_signal(&outcome);
                    for k in (0..self.leader.len()).filter(|&k| self.leader[k] == lead) {
                        let i = self.intent_idx[k];
                        known[i] = Some(signal);
                        intents[k] = Some(outcome.clone());
                        if signal.weak {
                            waiting.push(i);
                        }
                    }
                    waiting.retain(|&w| match self.enabler(w, &known) {
                        None => true,
                        Some(None) => false,
                        // Asked only in the room the plan kept for it, so a tight budget
                        // asks the same follow-ups whatever order the answers came in.
                        Some(Some(j)) => {
                            if let Some(room) = follow_room[w] {
                                used[w] = true;
                                let asked = executor.run_admitted(self.enables_frame(w, j), room);
                                work.push(Box::pin(
                                    async move { Done::Enables(w, j, asked.await) },
                                ));
                            }
                            false
                        }
                    });
                }
                Done::Enables(i, j, outcome) => follow.push(((i, j), outcome)),
            }
        }
        follow.sort_by_key(|((i, _), _)| *i);
        // Room kept for a follow-up the answers did not call for is given back.
        for (room, used) in follow_room.iter().zip(&used) {
            if let (Some(room), false) = (room, used) {
                executor.give_back(*room);
            }
        }
        (intents, follow)
    }

    fn enables_frame(&self, i: usize, j: usize) -> Frame {
        let (a, b) = (self.hunks[i], self.hunks[j]);
        Frame {
            template: "hunk_enables@2".into(),
            scope: format!("{}->{}", a.id, b.id),
            state: HunkState {
                task: Some(&self.task_state),
                candidate_hunk: Some(a.evidence()),
                dependent_hunk: Some(b.evidence()),
                ..HunkState::empty()
            }
            .value(),
            questions: Questions::new().with(
                "enables_other_hunk",
                Question::noul(
                    format!(
                        "Does hunk {} add or change something that hunk {} uses and needs?",
                        a.id, b.id
                    ),
                    "The dependent hunk relies on what the candidate hunk adds or changes.",
                    "The dependent hunk does not need the candidate hunk.",
                ),
            ),
            provenance: Value::Array(vec![
                a.reference(&self.evidence.source),
                b.reference(&self.evidence.source),
            ]),
        }
    }

    /// A weak hunk that a relevant hunk needs is not weak: it enables that hunk.
    fn apply_enables(&mut self, (i, j): (usize, usize), outcome: &FrameOutcome, run: &mut Run) {
        match outcome {
            Err(f) => {
                let text = format!("hunk_enables {}: {}", f.reason.as_str(), f.detail);
                self.rows[i].append_error(text);
            }
            Ok(ok) => {
                let p = round3(ok.answers.noul("enables_other_hunk"));
                self.rows[i].enables = Some(Enables {
                    hunk: self.hunks[j].id.clone(),
                    probability: p,
                });
                if p >= ENABLES {
                    self.weak[i] = false;
                    for f in self.flags[i]
                        .iter_mut()
                        .filter(|f| *f == "weak_task_relation")
                    {
                        *f = "enables_linked_hunk".into();
                    }
                }
                run.decision(
                    &self.hunks[i].id,
                    "hunk_enables",
                    self.rows[i].enables.as_ref(),
                    POLICY,
                );
            }
        }
    }

    /// When most judged hunks are weak the task text is the problem, not the hunks: one
    /// finding for the task, the weak flags suppressed. Otherwise a finding per weak hunk.
    /// Returns (whether the task was insufficient, weak hunks).
    fn task_sufficiency(&mut self, run: &mut Run) -> (bool, usize) {
        let weak_n = self.weak.iter().filter(|w| **w).count();
        let judged = self.judged_with_relation;
        let insufficient = judged >= TASK_INSUFFICIENT_MIN_JUDGED
            && (weak_n as f64 / judged as f64) > TASK_INSUFFICIENT_SHARE;
        if insufficient {
            run.findings.push(
                Finding::new("task_text_insufficient", "task", "policy", Severity::Warn)
                    .says(format!(
                        "The task says too little to judge the change by: {weak_n} of {judged} judged hunks relate to it only weakly. Say what the change should do, and check again."
                    ))
                    .with("weakHunks", weak_n)
                    .with("judgedHunks", judged),
            );
            for f in self
                .flags
                .iter_mut()
                .flatten()
                .filter(|f| *f == "weak_task_relation")
            {
                *f = "weak_task_relation_suppressed".into();
            }
            run.decision(
                "task",
                "task_text_insufficient",
                TaskInsufficient {
                    weak_hunks: weak_n,
                    judged_hunks: judged,
                },
                POLICY,
            );
        } else {
            for i in (0..self.hunks.len()).filter(|&i| self.weak[i]) {
                let low = Value::from(self.rows[i].task_relation.as_ref().map(|t| t.low_mass));
                run.findings.push(finding(
                    "weak_task_relation",
                    self.hunks[i],
                    "jev",
                    Severity::Warn,
                    detail([
                        ("lowMass", low),
                        ("kind", self.hunks[i].kind.as_str().into()),
                    ]),
                ));
            }
        }
        (insufficient, weak_n)
    }

    /// Writes each row's flags and returns the human lines: hunks with a flag or an error.
    fn finish_rows(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        for (i, row) in self.rows.iter_mut().enumerate() {
            row.flags = self.flags[i].clone();
            let all: Vec<String> = self.det[i]
                .iter()
                .map(|s| (*s).to_owned())
                .chain(self.flags[i].iter().cloned())
                .collect();
            if (!all.is_empty() || row.error.is_some()) && lines.len() < SECTION_ROWS {
                let low = row
                    .task_relation
                    .as_ref()
                    .map_or("-".to_owned(), |t| format!("{:.2}", t.low_mass));
                let error = row
                    .error
                    .as_ref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default();
                let shown = if all.is_empty() {
                    "-".to_owned()
                } else {
                    all.join(",")
                };
                lines.push(format!(
                    "{}:{} [{}] {shown} low={low}{error}",
                    self.hunks[i].path,
                    row.lines,
                    row.disposition.as_str()
                ));
            }
        }
        lines
    }
}

/// One hunk's row in the task section's results, serialized in this field order.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskRow {
    id: String,
    path: String,
    lines: String,
    kind: &'static str,
    file_status: &'static str,
    part: Option<String>,
    added: usize,
    removed: usize,
    disposition: Disposition,
    deterministic_flags: Vec<&'static str>,
    task_relation: Option<TaskRelation>,
    change_kind: Option<ChangeKind>,
    special_cases_literal_input: Option<f64>,
    untrusted_instruction_text: Option<f64>,
    test_expectation: Option<TestExpectation>,
    enables: Option<Enables>,
    flags: Vec<String>,
    error: Option<String>,
    /// The hunk with the same changed text whose question answered this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_with: Option<String>,
}

/// How a hunk relates to the task: the mass below and at or above "supports it".
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskRelation {
    low_mass: f64,
    high_mass: f64,
    expected: f64,
    distribution: Vec<f64>,
}

/// What kind of change a hunk is.
#[derive(Clone, Debug, Serialize)]
struct ChangeKind {
    label: String,
    confidence: f64,
    distribution: Value,
}

/// A test hunk's expectation answers.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct TestExpectation {
    weakens: f64,
    stated_in_task: f64,
    disables_or_bypasses: f64,
}

/// The `hard_conflict` decision: a direct task relation against a formatting-only change.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HardConflict<'a> {
    direct: f64,
    change_kind: &'a str,
}

/// The `hunk_intent` decision.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IntentDecision<'a> {
    low_mass: f64,
    high_mass: f64,
    flags: &'a [String],
}

/// The `task_text_insufficient` decision.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskInsufficient {
    weak_hunks: usize,
    judged_hunks: usize,
}

/// The task section's summary.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskSummary {
    hunks: usize,
    weak_task_relation: usize,
    task_text_insufficient: bool,
    test_hunks_checked: usize,
    follow_ups: usize,
}

/// The linked hunk a weak hunk may enable.
#[derive(Clone, Debug, Serialize)]
struct Enables {
    hunk: String,
    probability: f64,
}

impl TaskRow {
    /// An unjudged row for `hunk`.
    fn new(hunk: &Hunk, deterministic_flags: Vec<&'static str>) -> Self {
        Self {
            id: hunk.id.clone(),
            path: hunk.path.clone(),
            lines: lines_of(hunk),
            kind: hunk.kind.as_str(),
            file_status: hunk.file_status.as_str(),
            part: hunk.part.map(|(a, b)| format!("{a}/{b}")),
            added: hunk.added,
            removed: hunk.removed,
            disposition: Disposition::Unjudged,
            deterministic_flags,
            task_relation: None,
            change_kind: None,
            special_cases_literal_input: None,
            untrusted_instruction_text: None,
            test_expectation: None,
            enables: None,
            flags: Vec::new(),
            error: None,
            judged_with: None,
        }
    }

    /// Adds `text` to the row's error, after any error it already has.
    fn append_error(&mut self, text: String) {
        self.error = Some(match self.error.take() {
            Some(e) => format!("{e}; {text}"),
            None => text,
        });
    }
}

/// Runs the task section.
pub async fn judge(
    task: &str,
    evidence: &DiffEvidence,
    executor: &Executor,
    run: &mut Run,
    max_hunks: usize,
) -> SectionOutcome {
    let change = ChangeContext::new(evidence);
    let mut judging = Judging::plan(task, evidence, run, max_hunks);
    judging.group_intents();
    let (intent_frames, test_frames) = (judging.intent_frames(&change), judging.test_frames());
    let (intent_plan, test_plan, follow_room) =
        judging.budget_plan(executor, intent_frames, test_frames, run);
    // The executor's permits bound how many are in flight.
    let tests_asked: Vec<_> = test_plan
        .into_iter()
        .map(|chosen| {
            let asked = chosen.map(|(frame, estimate)| executor.run_admitted(frame, estimate));
            async move {
                match asked {
                    Some(asked) => Some(asked.await),
                    None => None,
                }
            }
        })
        .collect();
    let ((intents, follow), tests) = futures::join!(
        judging.intents_and_follow_ups(executor, intent_plan, follow_room),
        futures::future::join_all(tests_asked)
    );
    // Applied in a fixed order, whatever order the answers came in.
    for (i, outcome) in judging.intent_idx.clone().into_iter().zip(&intents) {
        match outcome {
            Some(outcome) => judging.apply_intent(i, outcome, run),
            None => judging.left_out(i, run),
        }
    }
    // Each test hunk takes the answer of the question it shares.
    for (k, i) in judging.test_idx.clone().into_iter().enumerate() {
        if let Some(outcome) = &tests[judging.test_leader[k]] {
            judging.apply_test(i, outcome, run);
        }
    }
    for (pair, outcome) in &follow {
        judging.apply_enables(*pair, outcome, run);
    }
    let (insufficient, weak_n) = judging.task_sufficiency(run);
    let lines = judging.finish_rows();
    let summary = to_value(&TaskSummary {
        hunks: evidence.hunks.len(),
        weak_task_relation: if insufficient { 0 } else { weak_n },
        task_text_insufficient: insufficient,
        test_hunks_checked: judging.test_idx.len(),
        follow_ups: follow.len(),
    });
    SectionOutcome {
        title: TITLE,
        rows: crate::run::to_values(&judging.rows),
        summary,
        not_checked: NOT_CHECKED.iter().map(|s| (*s).to_owned()).collect(),
        lines,
        incomplete: false,
    }
}

/// For each position of `questions` (hunk indexes), the position whose question answers it: in
/// judging `order`, the first hunk of each `key` leads (D-119).
fn leaders(questions: &[usize], order: &[usize], key: impl Fn(usize) -> String) -> Vec<usize> {
    let position: std::collections::HashMap<usize, usize> =
        questions.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut leader: Vec<usize> = (0..questions.len()).collect();
    let mut first: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for i in order {
        if let Some(&k) = position.get(i) {
            leader[k] = *first.entry(key(*i)).or_insert(k);
        }
    }
    leader
}

/// What an intent answer says for the follow-ups (and `apply_intent` reads it the same way):
/// whether the hunk relates weakly to the task, and its mass on a supporting or direct relation.
#[derive(Clone, Copy, Debug)]
struct IntentSignal {
    weak: bool,
    high: f64,
}

fn intent_signal(outcome: &FrameOutcome) -> IntentSignal {
    let answers = outcome.as_ref().ok().map(|ok| {
        (
            ok.answers.get("task_relation"),
            ok.answers.get("change_kind"),
        )
    });
    let Some((Some(relation @ Answer::Score { .. }), Some(Answer::Choice { choice, .. }))) =
        answers
    else {
        return IntentSignal {
            weak: false,
            high: 0.0,
        };
    };
    let low = round3(1.0 - relation.mass_at_least(2));
    IntentSignal {
        weak: low >= WEAK_LOW_MASS && choice != "formatting_or_comments",
        high: round3(relation.mass_at_least(2)),
    }
}

fn fail_row(run: &mut Run, row: &mut TaskRow, hunk: &Hunk, error: &str, unjudged: bool) {
    let d = if unjudged {
        Disposition::Unjudged
    } else {
        Disposition::Failed
    };
    run.set(&hunk.id, d);
    row.disposition = d;
    row.error = Some(error.to_owned());
}

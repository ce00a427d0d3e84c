//! What the supervised agent is told: the launch and relaunch prompts of `stanleyctl flow run`
//! and the context a Claude Code session gets at its start (goal, phase table, current phase and,
//! after a resume or compaction, the last instruction).

use std::fmt::Write as _;

use crate::flow::Flow;
use crate::flow::state::FlowState;

/// The marker line naming the current phase; the stand-in agent of the tests reads it too.
pub const CURRENT_PHASE: &str = "Current phase: ";

/// The goal and the phase table with each phase's status, check and dependencies.
pub fn plan_text(flow: &Flow, state: &FlowState) -> String {
    let mut text = format!("Goal: {}\n\nPhases:\n", flow.goal);
    for p in &flow.phases {
        let status = state
            .phases
            .get(&p.id)
            .map_or("pending", |r| r.status.as_str());
        let _ = write!(
            text,
            "- {} ({}) [{status}]: done when {}",
            p.id, p.name, p.done_when
        );
        if let Some(check) = &p.check {
            let _ = write!(text, "; check `{check}`");
        }
        if !p.depends_on.is_empty() {
            let _ = write!(text, "; after {}", p.depends_on.join(", "));
        }
        if p.side_effect {
            text.push_str("; an external action, done once");
        }
        text.push('\n');
    }
    text
}

/// A phase restated for an agent sent to it: ` (name): done when …; check `…``.
pub fn phase_brief(flow: &Flow, id: &str) -> String {
    let Some(p) = flow.phase(id) else {
        return String::new();
    };
    let mut text = format!(" ({}): done when {}", p.name, p.done_when);
    if let Some(check) = &p.check {
        let _ = write!(text, "; check `{check}`");
    }
    text
}

/// The current phase line and what it needs.
pub fn current_text(flow: &Flow, state: &FlowState) -> String {
    let Some(p) = flow.phase(&state.current_phase) else {
        return format!("{CURRENT_PHASE}{}\n", state.current_phase);
    };
    let mut text = format!(
        "{CURRENT_PHASE}{} ({}): done when {}\n",
        p.id, p.name, p.done_when
    );
    if p.dynamic {
        text.push_str(
            "You may split this phase into sub-steps in .stanley/flow/subtasks.json as \
{\"<phase id>\": [{\"title\": \"...\", \"done\": false}]}; the phase is held until every sub-step is done.\n",
        );
    }
    text
}

/// The last instruction the flow gave, if any.
pub fn last_instruction(state: &FlowState) -> Option<&str> {
    state
        .decisions
        .iter()
        .rev()
        .find(|d| !d.reason.is_empty())
        .map(|d| d.reason.as_str())
}

const RULES: &str = "Rules: work only on the current phase; do not edit .stanley/flow.json or anything \
under .stanley/flow/ except subtasks.json; when the phase is done, say so and stop. The supervisor \
runs the checks after you stop and tells you what comes next.\n";

/// The prompt of a supervised run: the plan, the current phase and, on a relaunch, why the
/// agent is sent back.
pub fn run_prompt(flow: &Flow, state: &FlowState, instruction: Option<&str>) -> String {
    let mut text =
        String::from("You are working through a supervised plan in this repository.\n\n");
    text.push_str(&plan_text(flow, state));
    text.push('\n');
    text.push_str(&current_text(flow, state));
    if let Some(i) = instruction.filter(|i| !i.trim().is_empty()) {
        let _ = write!(text, "\nThe supervisor says: {}\n", i.trim());
    }
    text.push('\n');
    text.push_str(RULES);
    text
}

/// The context injected when a Claude Code session starts, resumes or is compacted; `source` is
/// the hook's `source` field.
pub fn session_context(flow: &Flow, state: &FlowState, source: &str) -> String {
    let mut text = String::from("This session is tracked by a Stanley flow.\n\n");
    text.push_str(&plan_text(flow, state));
    text.push('\n');
    text.push_str(&current_text(flow, state));
    if matches!(source, "resume" | "compact")
        && let Some(i) = last_instruction(state)
    {
        let _ = write!(text, "\nLast instruction from the flow: {i}\n");
    }
    text
}

/// The heading under which a person answers the flow's question in `NEEDS_HUMAN.md`.
pub const ANSWER_HEADING: &str = "## Answer";

/// `.stanley/flow/NEEDS_HUMAN.md` for a question to a person, for either way the agent runs.
pub fn needs_human_note(goal: &str, phase: &str, reason: &str) -> String {
    format!(
        "# A person is needed\n\nGoal: {goal}\nPhase: {phase}\n\n{reason}\n\nTo answer, write \
         below the \"{ANSWER_HEADING}\" line and save, or delete this file once it is resolved. \
         Under Claude Code the next session starts with your answer; under the supervisor, run \
         `stanleyctl flow run` again. `stanleyctl flow status` shows whether the flow still \
         waits.\n\n{ANSWER_HEADING}\n\n"
    )
}

/// A person's note read back: the question (the text before [`ANSWER_HEADING`], without its
/// instructions) and the answer written under it, if any.
pub fn person_note(text: &str) -> (String, Option<String>) {
    // The heading as a line of its own (the instructions name it in quotes).
    let heading = format!("\n{ANSWER_HEADING}\n");
    let (question, answer) = match text.split_once(&heading) {
        Some((q, a)) => (q, Some(a.trim())),
        None => (text, None),
    };
    let question = question
        .split("\n\nTo answer, write below")
        .next()
        .unwrap_or(question)
        .trim_start_matches("# A person is needed")
        .trim();
    (
        crate::text::truncate_chars(question, 2_000),
        answer
            .filter(|a| !a.is_empty())
            .map(|a| crate::text::truncate_chars(a, 4_000)),
    )
}

/// What a session starting while the flow waits on a person is told (for the model), and what
/// the person is shown, from the note's question and answer.
pub fn person_context(question: &str, answer: Option<&str>) -> (String, String) {
    match answer {
        Some(answer) => (
            format!(
                "The flow asked a person:\n{question}\n\nThey answered:\n{answer}\n\nAct on \
                 their answer."
            ),
            "your answer in .stanley/flow/NEEDS_HUMAN.md was given to the agent".to_owned(),
        ),
        None => (
            format!(
                "The flow is waiting on a person:\n{question}\n\nDo not work around this: ask \
                 them for what is needed, and stop until they answer."
            ),
            format!(
                "waiting on a person: read .stanley/flow/NEEDS_HUMAN.md and write your answer \
                 under \"{ANSWER_HEADING}\", or delete it once resolved"
            ),
        ),
    }
}

/// The open sub-steps of `phase` in `.stanley/flow/subtasks.json` (`{"<phase>": [{"title",
/// "done"}]}`). The file is agent-written: an unreadable one holds nothing, since sub-steps can
/// only hold an advance, never cause one.
pub fn open_subtasks(text: &str, phase: &str) -> Vec<String> {
    let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    doc.get(phase)
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| s["done"] != serde_json::Value::Bool(true))
        .filter_map(|s| s["title"].as_str())
        .map(|t| crate::text::truncate_chars(t, 200))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::parse_flow;
    use crate::flow::state::DecisionEntry;

    #[test]
    fn a_persons_note_reads_back_its_question_and_answer() {
        let note = needs_human_note("Ship it", "docs", "which license should the docs name?");
        assert!(note.ends_with("## Answer\n\n"), "{note}");
        let (question, answer) = person_note(&note);
        assert_eq!(
            question,
            "Goal: Ship it\nPhase: docs\n\nwhich license should the docs name?"
        );
        assert_eq!(answer, None);
        let answered = format!("{note}MIT, as in Cargo.toml\n");
        let (_, answer) = person_note(&answered);
        assert_eq!(answer.as_deref(), Some("MIT, as in Cargo.toml"));
        let (for_model, for_person) = person_context(&question, answer.as_deref());
        assert!(
            for_model.ends_with("They answered:\nMIT, as in Cargo.toml\n\nAct on their answer.")
        );
        assert!(for_person.starts_with("your answer"));
        // A note a person rewrote by hand still reads as a question.
        let (question, answer) = person_note("Please decide X");
        assert_eq!((question.as_str(), answer), ("Please decide X", None));
    }

    #[test]
    fn prompts_carry_the_plan_the_phase_and_the_last_instruction() {
        let flow = parse_flow(
            r#"{"goal": "Ship it", "phases": [
            {"id": "a", "name": "A", "done_when": "a exists", "check": "test -f a"},
            {"id": "b", "name": "B", "done_when": "b exists", "dynamic": true}]}"#,
        )
        .unwrap();
        let mut state = FlowState::new(&flow, crate::time::Stamp::EPOCH);
        let first = run_prompt(&flow, &state, None);
        assert!(first.contains("Goal: Ship it"), "{first}");
        assert!(first.contains("- a (A) [active]: done when a exists; check `test -f a`"));
        assert!(first.contains("- b (B) [pending]: done when b exists; after a"));
        assert!(first.contains("Current phase: a (A)"));
        assert!(!first.contains("The supervisor says"));
        let again = run_prompt(&flow, &state, Some("not done yet: the check failed"));
        assert!(again.contains("The supervisor says: not done yet: the check failed"));

        state.current_phase = "b".into();
        state.record(DecisionEntry {
            at: crate::time::Stamp::EPOCH,
            condition: crate::flow::state::Condition::Advance,
            action: crate::flow::state::JournaledAction::Advance,
            phase: "a".into(),
            to: Some("b".into()),
            reason: "A is done".into(),
            check_passed: None,
        });
        let start = session_context(&flow, &state, "startup");
        assert!(start.contains("Current phase: b (B)"), "{start}");
        assert!(start.contains("subtasks.json"));
        assert!(!start.contains("Last instruction"));
        let resumed = session_context(&flow, &state, "compact");
        assert!(resumed.contains("Last instruction from the flow: A is done"));
    }

    #[test]
    fn open_subtasks_are_the_undone_titles_of_the_phase() {
        let text = r#"{"b": [{"title": "add", "done": true}, {"title": "list"}, {"title": "done", "done": false}], "a": [{"title": "x"}]}"#;
        assert_eq!(open_subtasks(text, "b"), ["list", "done"]);
        assert!(open_subtasks(text, "c").is_empty());
        assert!(open_subtasks("not json", "b").is_empty());
        assert!(open_subtasks("[1]", "b").is_empty());
    }
}

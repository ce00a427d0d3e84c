//! Claude Code hook events answered for the repository's flow, in the hook protocol: SessionStart
//! context, the Stop policy (`decision: "block"` with a reason), and the optional gates
//! (PreToolUse `permissionDecision` deny/ask, the PostToolUse injection warning, SubagentStop and
//! TaskCompleted holds). Gates only tighten and fail open when Jev cannot answer; `observe`
//! journals only and `warn` shows a system message instead of acting.

use std::sync::Arc;

use serde_json::{Value, json};
use stanley_core::Frame;
use stanley_proto::v1::FlowHookRequest;
use stanley_proto::{HOOK_EVENTS, HookEvent};
use stanley_workflows::flow::agent::{person_context, person_note, session_context};
use stanley_workflows::flow::gates::{
    GateName, Verdict, done_claim_frame, done_claim_verdict, injection_frame, injection_verdict,
    is_read_only, pre_tool_frame, pre_tool_verdict, screens,
};
use stanley_workflows::flow::policy::{budget_condition, enforcement_ended};
use stanley_workflows::flow::state::{FlowState, FlowStore, JevAsk};
use stanley_workflows::flow::{Flow, Mode};
use stanley_workflows::ports::Redactor;

use crate::error::RequestError;
use crate::flow::eval::{
    self as flow_eval, FlowLoad, JournalTrouble, LoadedFlow, load_flow, read_journal,
    stored_journal,
};
use crate::settings::RequestSettings;
use crate::state::DaemonState;

/// How much of a transcript's end is read for the last assistant message.
const TRANSCRIPT_TAIL_BYTES: u64 = 256 * 1024;

/// What the hook process prints and exits with.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct HookAnswer {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

fn out(doc: Value) -> HookAnswer {
    HookAnswer {
        stdout: doc.to_string(),
        ..HookAnswer::default()
    }
}

fn system_message(text: &str) -> HookAnswer {
    out(json!({"systemMessage": format!("Stanley flow: {text}")}))
}

fn str_field<'a>(input: &'a Value, name: &str) -> &'a str {
    input.get(name).and_then(Value::as_str).unwrap_or("")
}

/// The text of the last assistant message in a Claude Code transcript (JSONL), if readable.
pub(crate) fn transcript_tail(path: &str) -> String {
    let path = std::path::Path::new(path);
    if path.as_os_str().is_empty() || !path.is_absolute() {
        return String::new();
    }
    // Claude Code names the file; a FIFO or a device there must not stall or flood the hook.
    let Ok(bytes) = stanley_adapters::records::read_tail(path, TRANSCRIPT_TAIL_BYTES) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "assistant")
        .map(|v| match &v["message"]["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .unwrap_or_default()
}

/// The agent's last words: the hook's `last_assistant_message`, else the transcript's tail.
fn last_words(input: &Value, transcript_field: &str) -> String {
    match input.get("last_assistant_message").and_then(Value::as_str) {
        Some(m) => m.to_owned(),
        None => transcript_tail(str_field(input, transcript_field)),
    }
}

/// The event a hook request names: its `hook_event`, or an older client's word.
pub(crate) fn event_of(request: &FlowHookRequest) -> Result<HookEvent, RequestError> {
    let unknown = |word: &str| {
        RequestError::usage(format!(
            "unknown hook event {word:?}; expected one of {}",
            HOOK_EVENTS.join(", ")
        ))
    };
    // (Every known wire event is a hook event: `from_wire` fails only for none.)
    match request.resolved_hook_event() {
        Ok(wire) => HookEvent::from_wire(wire).ok_or_else(|| unknown(wire.word())),
        Err(word) => Err(unknown(word)),
    }
}

/// Answers one hook event. No flow file: nothing to say. A bad flow file: FAILED_PRECONDITION.
pub(crate) async fn answer(
    state: &DaemonState,
    event: HookEvent,
    input: &str,
    settings: &RequestSettings,
) -> Result<HookAnswer, RequestError> {
    let input: Value = match serde_json::from_str(input) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            return Err(RequestError::usage(
                "the hook input on standard input is not a JSON object",
            ));
        }
    };
    let root = state.config().files.root.clone();
    let LoadedFlow { flow, hash } = match load_flow(&root) {
        Ok(f) => f,
        Err(FlowLoad::Missing) => return Ok(HookAnswer::default()),
        Err(unusable) => return Err(unusable.into()),
    };
    // An untrusted flow supervises nothing: its commands never run, and the person and the
    // model are told why where they can see it (never a block, so the agent is not held).
    if let Some(why) = crate::trust::flow_refusal(state, settings, &hash) {
        return Ok(match event {
            HookEvent::SessionStart | HookEvent::Stop => system_message(&why),
            _ => HookAnswer::default(),
        });
    }
    let hook = Hook {
        state,
        store: state.flows().store().clone(),
        flow,
        settings,
    };
    match event {
        HookEvent::SessionStart => Ok(hook.session_start(&input).await),
        HookEvent::Stop => hook.stop(&input).await,
        HookEvent::PreToolUse => Ok(hook.pre_tool(&input).await),
        HookEvent::PostToolUse => Ok(hook.post_tool(&input).await),
        HookEvent::SubagentStop => hook.done_claim(true, &input).await,
        HookEvent::TaskCompleted => hook.done_claim(false, &input).await,
    }
}

/// What every hook answer works with.
struct Hook<'a> {
    state: &'a DaemonState,
    flow: Flow,
    store: Arc<dyn FlowStore>,
    settings: &'a RequestSettings,
}

/// Journals a gate's verdict (best effort) and answers for the flow's mode: `enforce` gets
/// `acted`, `warn` a system message, `observe` nothing.
fn gate_answer(
    flow: &Flow,
    store: &dyn FlowStore,
    gate: GateName,
    subject: &str,
    verdict: &Verdict,
    acted: HookAnswer,
) -> HookAnswer {
    let line = json!({
        "at": flow_eval::now().to_string(), "gate": gate, "subject": subject,
        "decision": verdict.decision, "reason": verdict.reason, "mode": flow.mode.as_str(),
    });
    if let Err(e) = store.record_gate(&line.to_string()) {
        tracing::warn!(error = %e, "cannot journal a gate decision");
    }
    match flow.mode {
        Mode::Enforce => acted,
        Mode::Warn => system_message(&format!(
            "(warn mode, not enforced) {gate} would {}: {}",
            verdict.decision, verdict.reason
        )),
        Mode::Observe => HookAnswer::default(),
    }
}

/// Asks a gate's question; `None` (fail open) when Jev cannot answer.
async fn ask_gate(
    state: &DaemonState,
    settings: &RequestSettings,
    flow: &Flow,
    kind: JevAsk,
    frame: Frame,
) -> Option<stanley_core::Answers> {
    let executor = flow_eval::executor(state, settings).ok()?;
    // Gates share the flow's one Jev budget: with it used up a gate stays silent, as it does
    // when Jev cannot answer; a request it sent is counted (an answer from the cache is not).
    let store = state.flows().store().as_ref();
    {
        let _held = state.flows().hold_journal().await;
        if read_journal(store, flow).ok()?.jev_calls >= flow.limits.max_jev_calls {
            tracing::info!(
                gate = kind.as_str(),
                "a flow gate is silent: the Jev budget is used up"
            );
            return None;
        }
    }
    let outcome = executor.run(frame).await;
    let sent = executor.usage().requests;
    if sent > 0 {
        let _held = state.flows().hold_journal().await;
        let counted = read_journal(store, flow).and_then(|mut journal| {
            for _ in 0..sent {
                journal.count_jev(kind);
            }
            store.write_state(&journal).map_err(JournalTrouble::Store)
        });
        if let Err(e) = counted {
            tracing::warn!(error = %e, gate = kind.as_str(), "cannot count a gate's Jev request");
        }
    }
    match outcome {
        Ok(ok) => Some(ok.answers),
        Err(failure) => {
            tracing::info!(reason = failure.reason.as_str(), "a flow gate fails open");
            None
        }
    }
}

impl Hook<'_> {
    async fn session_start(&self, input: &Value) -> HookAnswer {
        let (flow, store) = (&self.flow, &*self.store);
        let held = self.state.flows().hold_journal().await;
        let source = input
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or("startup");
        let journal = match stored_journal(store, flow) {
            Ok(Some(mut journal)) => {
                // A new session (not a resume or a compaction) gets fresh block and time
                // budgets, as a supervised run does; phases and decisions carry over.
                if matches!(source, "startup" | "clear") {
                    journal.new_session(flow_eval::now());
                    if let Err(e) = store.write_state(&journal) {
                        tracing::warn!(error = %e, "cannot reset the flow's session budgets");
                    }
                }
                journal
            }
            Ok(None) => FlowState::new(flow, flow_eval::now()),
            Err(_) => return HookAnswer::default(),
        };
        drop(held);
        if flow.mode == Mode::Observe {
            return HookAnswer::default();
        }
        let mut context = session_context(flow, &journal, source);
        let mut answer = json!({"hookSpecificOutput": {"hookEventName": "SessionStart"}});
        let mut tell = Vec::new();
        // A question to a person: its answer reaches the model (and the note is done with), or
        // the model and the person hear that the flow still waits.
        if let Some(note) = store.read_needs_human().filter(|_| !journal.complete) {
            let (question, reply) = person_note(&note);
            let (for_model, for_person) = person_context(&question, reply.as_deref());
            context.push_str(&format!("\n\n{for_model}"));
            tell.push(for_person);
            if reply.is_some()
                && let Err(e) = store.clear_needs_human()
            {
                tracing::warn!(error = %e, "cannot remove the answered NEEDS_HUMAN.md");
            }
        }
        // A resumed session whose budgets are used up is not enforced: say so, once, here.
        let elapsed = flow_eval::elapsed_minutes(&journal, flow_eval::minute(self.settings));
        if let Some(condition) =
            budget_condition(flow, &journal, elapsed).filter(|_| !journal.complete)
        {
            let report = enforcement_ended(flow, condition, &journal.current_phase, None);
            context.push_str(&format!("\n\n{report}"));
            tell.push(report);
        }
        if !tell.is_empty() {
            answer["systemMessage"] = json!(format!("Stanley flow: {}", tell.join("; ")));
        }
        answer["hookSpecificOutput"]["additionalContext"] = json!(context);
        out(answer)
    }

    async fn stop(&self, input: &Value) -> Result<HookAnswer, RequestError> {
        // A stop that no block of ours caused starts a new chain of consecutive blocks.
        let new_chain = input.get("stop_hook_active") != Some(&Value::Bool(true));
        let words = last_words(input, "transcript_path");
        let stop =
            flow_eval::stop(self.state, self.settings, &self.flow, &words, new_chain).await?;
        // A budget or cap that ends enforcement is said to the person, never silent.
        let ended = stop
            .budget()
            .filter(|_| self.flow.mode != Mode::Observe)
            .map(|c| enforcement_ended(&self.flow, c, &stop.phase, stop.check.as_ref()));
        Ok(match (stop.told.keep_going, stop.told.message, ended) {
            (true, Some(reason), _) => out(json!({"decision": "block", "reason": reason})),
            (false, Some(message), _) | (false, None, Some(message)) => system_message(&message),
            _ => HookAnswer::default(),
        })
    }

    async fn pre_tool(&self, input: &Value) -> HookAnswer {
        let (state, flow, store, settings) = (self.state, &self.flow, &*self.store, self.settings);
        let command = input["tool_input"]["command"].as_str().unwrap_or("");
        if !flow.gates.pre_tool || str_field(input, "tool_name") != "Bash" || is_read_only(command)
        {
            return HookAnswer::default();
        }
        // Redacted here for the gate journal; the executor redacts what it sends anyway.
        let command = settings.redactor().text(command).0;
        let Some(answers) = ask_gate(
            state,
            settings,
            flow,
            JevAsk::PreTool,
            pre_tool_frame(&command),
        )
        .await
        else {
            return HookAnswer::default();
        };
        let Some(verdict) = pre_tool_verdict(&answers, &flow.gates.bands) else {
            return HookAnswer::default();
        };
        let acted = out(json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": verdict.decision,
            "permissionDecisionReason": verdict.reason,
        }}));
        gate_answer(flow, store, GateName::PreTool, &command, &verdict, acted)
    }

    async fn post_tool(&self, input: &Value) -> HookAnswer {
        let (state, flow, store, settings) = (self.state, &self.flow, &*self.store, self.settings);
        let tool = str_field(input, "tool_name");
        if !screens(flow, tool) {
            return HookAnswer::default();
        }
        let content = match &input["tool_response"] {
            Value::String(s) => s.clone(),
            Value::Null => return HookAnswer::default(),
            other => other.to_string(),
        };
        let Some(answers) = ask_gate(
            state,
            settings,
            flow,
            JevAsk::InjectionScreen,
            injection_frame(tool, &content),
        )
        .await
        else {
            return HookAnswer::default();
        };
        let Some(verdict) = injection_verdict(&answers, &flow.gates.bands, tool) else {
            return HookAnswer::default();
        };
        let acted = out(json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": verdict.reason,
        }}));
        gate_answer(
            flow,
            store,
            GateName::InjectionScreen,
            tool,
            &verdict,
            acted,
        )
    }

    /// A done claim: a subagent's stop (`subagent`) or a task marked completed.
    async fn done_claim(&self, subagent: bool, input: &Value) -> Result<HookAnswer, RequestError> {
        let (state, flow, store, settings) = (self.state, &self.flow, &*self.store, self.settings);
        let on = if subagent {
            flow.gates.subagent_stop
        } else {
            flow.gates.task_completed
        };
        if !on {
            return Ok(HookAnswer::default());
        }
        let (key, subject, words) = if subagent {
            let id = [str_field(input, "agent_id"), str_field(input, "session_id")]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or("subagent");
            let words = match input.get("last_assistant_message").and_then(Value::as_str) {
                Some(m) => m.to_owned(),
                None => transcript_tail(
                    [
                        str_field(input, "agent_transcript_path"),
                        str_field(input, "transcript_path"),
                    ]
                    .into_iter()
                    .find(|s| !s.is_empty())
                    .unwrap_or(""),
                ),
            };
            (
                format!("subagent:{id}"),
                "a subagent's work".to_owned(),
                words,
            )
        } else {
            let subject = format!(
                "{}\n{}",
                str_field(input, "task_subject"),
                str_field(input, "task_description")
            );
            (
                format!("task:{}", str_field(input, "task_id")),
                subject,
                last_words(input, "transcript_path"),
            )
        };
        if words.trim().is_empty() {
            // A transcript that lags the live turn says nothing yet: allow.
            return Ok(HookAnswer::default());
        }
        let holds = read_journal(store, flow)?
            .holds
            .get(&key)
            .copied()
            .unwrap_or(0);
        let Some(answers) = ask_gate(
            state,
            settings,
            flow,
            JevAsk::DoneClaim,
            done_claim_frame(flow, &subject, &words),
        )
        .await
        else {
            return Ok(HookAnswer::default());
        };
        let Some(verdict) = done_claim_verdict(flow, &answers, holds) else {
            return Ok(HookAnswer::default());
        };
        if flow.mode == Mode::Enforce {
            // Read again under the journal lock: the gate's request was counted meanwhile.
            let _held = state.flows().hold_journal().await;
            let mut journal = read_journal(store, flow)?;
            *journal.holds.entry(key.clone()).or_default() += 1;
            store.write_state(&journal).map_err(JournalTrouble::Store)?;
        }
        let acted = if subagent {
            out(json!({"decision": "block", "reason": verdict.reason}))
        } else {
            // TaskCompleted blocks through exit 2, with the reason on stderr for the model.
            HookAnswer {
                stdout: String::new(),
                stderr: verdict.reason.clone(),
                code: 2,
            }
        };
        let gate = if subagent {
            GateName::SubagentStop
        } else {
            GateName::TaskCompleted
        };
        Ok(gate_answer(flow, store, gate, &key, &verdict, acted))
    }
}

#[cfg(test)]
#[path = "hooks_tests.rs"]
mod tests;

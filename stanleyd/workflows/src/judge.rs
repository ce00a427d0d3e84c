//! `judge({scope, state, questions})` for repository workflows: the request is validated here
//! (every rule has its own message), turned into one frame, and the outcome is shaped into the
//! `{ok, answers, model}` or `{ok: false, reason, detail}` value a workflow receives. It never
//! throws.

use serde::Serialize;
use serde_json::{Map, Value};
use stanley_core::{Answer, FrameOutcome, Question, Questions};

use crate::run::to_value;

/// Valid judge calls allowed per workflow run.
pub const MAX_CALLS: usize = 64;
/// Questions allowed per call.
pub const MAX_QUESTIONS: usize = 8;
const MAX_SCOPE_CHARS: usize = 120;
const MAX_STATE_BYTES: usize = 32_768;

fn ident(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && text.len() <= 64
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A validated judge request.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeRequest {
    pub scope: String,
    pub state: Value,
    pub questions: Questions,
}

/// Why a judge request is invalid; the message is the `detail` of an `invalid` result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JudgeRequestError {
    #[error("judge request must be an object (got {got})")]
    NotObject { got: String },
    #[error("judge scope must be non-empty text of at most {MAX_SCOPE_CHARS} characters")]
    Scope,
    #[error("judge state must be a JSON object")]
    StateNotObject,
    #[error("judge state must be at most {MAX_STATE_BYTES} bytes")]
    StateTooLarge,
    #[error("judge questions must be an object of questions")]
    QuestionsNotObject,
    #[error("judge needs between 1 and {MAX_QUESTIONS} questions")]
    QuestionCount,
    #[error("judge question names must be lowercase identifiers (got {name})")]
    QuestionName { name: String },
    #[error("judge question {name} must be a JSON object")]
    QuestionNotObject { name: String },
    #[error("judge question {name}: choice criteria must be an object")]
    ChoiceCriteria { name: String },
    #[error("judge question {name}: choice needs at least two lowercase identifier labels")]
    ChoiceLabels { name: String },
    #[error("judge question {name}: score criteria need 2 to 10 levels")]
    ScoreLevels { name: String },
    #[error("judge question {name}: type must be noul, choice, or score")]
    QuestionType { name: String },
}

/// A refused judge call as the workflow receives it.
#[derive(Serialize)]
struct Refusal<'a> {
    ok: bool,
    reason: &'a str,
    detail: &'a str,
}

/// A judged call as the workflow receives it: the answers by name and the model.
#[derive(Serialize)]
struct Judged<'a> {
    ok: bool,
    answers: Map<String, Value>,
    model: &'a str,
}

/// A noul answer as a workflow receives it.
#[derive(Serialize)]
struct NoulAnswer {
    #[serde(rename = "type")]
    kind: &'static str,
    probability: f64,
}

/// Validates a judge request; the error is the `detail` of an `invalid` result.
pub fn validate(request: &Value) -> Result<JudgeRequest, JudgeRequestError> {
    let Some(obj) = request.as_object().filter(|o| !o.contains_key("__invalid")) else {
        let got = request
            .get("__invalid")
            .and_then(Value::as_str)
            .unwrap_or_else(|| type_name(request));
        return Err(JudgeRequestError::NotObject {
            got: got.to_owned(),
        });
    };
    let scope = match obj.get("scope").and_then(Value::as_str) {
        Some(s) if !s.trim().is_empty() && s.chars().count() <= MAX_SCOPE_CHARS => {
            s.trim().to_owned()
        }
        _ => return Err(JudgeRequestError::Scope),
    };
    let state = match obj.get("state") {
        Some(s @ Value::Object(_)) => s.clone(),
        _ => return Err(JudgeRequestError::StateNotObject),
    };
    if serde_json::to_string(&state).map_or(0, |t| t.len()) > MAX_STATE_BYTES {
        return Err(JudgeRequestError::StateTooLarge);
    }
    let Some(raw) = obj.get("questions").and_then(Value::as_object) else {
        return Err(JudgeRequestError::QuestionsNotObject);
    };
    if raw.is_empty() || raw.len() > MAX_QUESTIONS {
        return Err(JudgeRequestError::QuestionCount);
    }
    let mut questions = Questions::new();
    for (name, q) in raw {
        if !ident(name) {
            return Err(JudgeRequestError::QuestionName { name: name.clone() });
        }
        let Some(q) = q.as_object() else {
            return Err(JudgeRequestError::QuestionNotObject { name: name.clone() });
        };
        let instructions = q.get("instructions").cloned().unwrap_or(Value::Null);
        let question = match q.get("type").and_then(Value::as_str) {
            Some("noul") => {
                let criteria = q.get("criteria").and_then(Value::as_object);
                Question::noul(
                    instructions,
                    criteria
                        .and_then(|c| c.get("true"))
                        .cloned()
                        .unwrap_or(Value::Null),
                    criteria
                        .and_then(|c| c.get("false"))
                        .cloned()
                        .unwrap_or(Value::Null),
                )
            }
            Some("choice") => {
                let Some(criteria) = q.get("criteria").and_then(Value::as_object) else {
                    return Err(JudgeRequestError::ChoiceCriteria { name: name.clone() });
                };
                if criteria.len() < 2 || !criteria.keys().all(|k| ident(k)) {
                    return Err(JudgeRequestError::ChoiceLabels { name: name.clone() });
                }
                Question::Choice {
                    instructions,
                    criteria: criteria
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                }
            }
            Some("score") => match q.get("criteria").and_then(Value::as_array) {
                Some(levels) if (2..=10).contains(&levels.len()) => Question::Score {
                    instructions,
                    levels: levels.clone(),
                },
                _ => return Err(JudgeRequestError::ScoreLevels { name: name.clone() }),
            },
            _ => return Err(JudgeRequestError::QuestionType { name: name.clone() }),
        };
        questions = questions.with(name.clone(), question);
    }
    Ok(JudgeRequest {
        scope,
        state,
        questions,
    })
}

/// A refusal with its reason and detail.
pub fn refusal(reason: &str, detail: &str) -> Value {
    to_value(&Refusal {
        ok: false,
        reason,
        detail,
    })
}

/// The value a workflow receives for a frame outcome.
pub fn result(outcome: &FrameOutcome) -> Value {
    match outcome {
        Ok(ok) => {
            let answers: Map<String, Value> = ok
                .answers
                .0
                .iter()
                .map(|(name, a)| {
                    let v = match a {
                        Answer::Noul { probability } => to_value(&NoulAnswer {
                            kind: "noul",
                            probability: *probability,
                        }),
                        other => other.to_json(),
                    };
                    (name.clone(), v)
                })
                .collect();
            to_value(&Judged {
                ok: true,
                answers,
                model: &ok.model,
            })
        }
        Err(f) => refusal(f.reason.as_str(), &f.detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> String {
        validate(&v).unwrap_err().to_string()
    }

    #[test]
    fn every_rule_has_its_message() {
        assert_eq!(
            err(json!([])),
            "judge request must be an object (got array)"
        );
        assert_eq!(
            err(json!({"__invalid": "undefined"})),
            "judge request must be an object (got undefined)"
        );
        assert_eq!(
            err(json!({"scope": " ", "state": {}, "questions": {}})),
            "judge scope must be non-empty text of at most 120 characters"
        );
        assert_eq!(
            err(json!({"scope": "x".repeat(121), "state": {}, "questions": {}})),
            "judge scope must be non-empty text of at most 120 characters"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": [], "questions": {}})),
            "judge state must be a JSON object"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {"a": "x".repeat(40000)}, "questions": {}})),
            "judge state must be at most 32768 bytes"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": []})),
            "judge questions must be an object of questions"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": {}})),
            "judge needs between 1 and 8 questions"
        );
        let nine: Map<String, Value> = (0..9)
            .map(|i| (format!("q{i}"), json!({"type": "noul"})))
            .collect();
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": nine})),
            "judge needs between 1 and 8 questions"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": {"Bad": {"type": "noul"}}})),
            "judge question names must be lowercase identifiers (got Bad)"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": {"q": 1}})),
            "judge question q must be a JSON object"
        );
        assert_eq!(
            err(
                json!({"scope": "s", "state": {}, "questions": {"q": {"type": "choice", "criteria": {"a": "x"}}}})
            ),
            "judge question q: choice needs at least two lowercase identifier labels"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": {"q": {"type": "choice"}}})),
            "judge question q: choice criteria must be an object"
        );
        assert_eq!(
            err(
                json!({"scope": "s", "state": {}, "questions": {"q": {"type": "score", "criteria": ["a"]}}})
            ),
            "judge question q: score criteria need 2 to 10 levels"
        );
        assert_eq!(
            err(json!({"scope": "s", "state": {}, "questions": {"q": {"type": "yesno"}}})),
            "judge question q: type must be noul, choice, or score"
        );
        let ok = validate(&json!({"scope": "  s  ", "state": {"a": 1}, "questions": {"q": {"type": "noul", "instructions": "ok?"}}})).unwrap();
        assert_eq!(ok.scope, "s");
    }
}

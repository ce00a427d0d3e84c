//! Strict validation of System One responses: the envelope, then every answer against the
//! question it answers. A response that fails here is retried at once by the executor.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::jev::{Answer, Answers, Question, Questions};

/// Why a response was refused: one variant per rule, each carrying what the message names
/// (the answer's key, the labels missing or unexpected, the figure that disagreed).
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ValidationError {
    /// The body is not a JSON object.
    #[error("response is not an object")]
    NotAnObject,
    /// `model` is missing, empty or not a string.
    #[error("response model must be a non-empty string")]
    Model,
    /// `answers` is missing or not an object.
    #[error("response answers must be an object")]
    AnswersNotAnObject,
    /// `usage` is missing or not an object.
    #[error("response usage must be an object")]
    UsageNotAnObject,
    /// `usage` lacks a finite, non-negative token count.
    #[error("response usage must carry non-negative input_tokens and output_tokens")]
    UsageTokens,
    /// The answers' keys are not exactly the questions asked.
    #[error("answer keys differ (missing: {}; unexpected: {})", .missing.join(", "), .unexpected.join(", "))]
    AnswerKeys {
        /// Questions with no answer.
        missing: Vec<String>,
        /// Answers to no question.
        unexpected: Vec<String>,
    },
    /// An answer is not an object.
    #[error("answers.{key} must be an object")]
    AnswerNotAnObject {
        /// The question's key.
        key: String,
    },
    /// An answer's `type` is not its question's kind.
    #[error("answers.{key}.type must be {expected}")]
    AnswerType {
        /// The question's key.
        key: String,
        /// The kind the question asks for.
        expected: &'static str,
    },
    /// A probability or confidence outside `[0, 1]` (or not a number).
    #[error("{field} must be a number in [0, 1]")]
    NotUnit {
        /// The field's path (`answers.k.confidence`).
        field: String,
    },
    /// `probabilities` is missing or not an object.
    #[error("answers.{key}.probabilities must be an object")]
    ProbabilitiesNotAnObject {
        /// The question's key.
        key: String,
    },
    /// The distribution's labels are not exactly the question's.
    #[error("answers.{key}.probabilities keys differ (missing: {}; unexpected: {})", .missing.join(", "), .unexpected.join(", "))]
    ProbabilityKeys {
        /// The question's key.
        key: String,
        /// Labels with no probability.
        missing: Vec<String>,
        /// Probabilities of no label.
        unexpected: Vec<String>,
    },
    /// The distribution does not sum to 1.
    #[error("answers.{key}.probabilities must sum to 1 (got {sum:.4})")]
    ProbabilitySum {
        /// The question's key.
        key: String,
        /// What it summed to.
        sum: f64,
    },
    /// `choice` is missing or not a string.
    #[error("answers.{key}.choice must be a string")]
    ChoiceNotAString {
        /// The question's key.
        key: String,
    },
    /// `choice` is not one of the question's labels.
    #[error("answers.{key}.choice {choice:?} is not a permitted label")]
    ChoiceNotPermitted {
        /// The question's key.
        key: String,
        /// The label answered.
        choice: String,
    },
    /// `choice` is not the most probable label of its distribution.
    #[error("answers.{key}.choice must be the most probable label")]
    ChoiceNotMostProbable {
        /// The question's key.
        key: String,
    },
    /// `score` is outside `[0, levels - 1]` (or not a number).
    #[error("answers.{key}.score must be a number in [0, {max}]")]
    ScoreRange {
        /// The question's key.
        key: String,
        /// The highest level.
        max: usize,
    },
    /// `score` is too far from its distribution's expectation.
    #[error("answers.{key}.score {score} disagrees with its distribution ({expected:.3})")]
    ScoreDisagrees {
        /// The question's key.
        key: String,
        /// The score answered.
        score: f64,
        /// Its distribution's expectation.
        expected: f64,
    },
}

fn owned(names: Vec<&str>) -> Vec<String> {
    names.into_iter().map(str::to_owned).collect()
}

/// The parts of a valid envelope.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The model that answered.
    pub model: String,
    /// The raw answers object.
    pub answers: Map<String, Value>,
    /// Reported input tokens.
    pub input_tokens: u64,
    /// Reported output tokens.
    pub output_tokens: u64,
}

fn finite_non_negative(value: Option<&Value>) -> Option<f64> {
    value
        .and_then(Value::as_f64)
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Checks `{model, answers, usage: {input_tokens, output_tokens}}`.
pub fn envelope(body: &Value) -> Result<Envelope, ValidationError> {
    let Some(obj) = body.as_object() else {
        return Err(ValidationError::NotAnObject);
    };
    let model = match obj.get("model").and_then(Value::as_str) {
        Some(m) if !m.is_empty() => m.to_owned(),
        _ => return Err(ValidationError::Model),
    };
    let Some(answers) = obj.get("answers").and_then(Value::as_object) else {
        return Err(ValidationError::AnswersNotAnObject);
    };
    let Some(usage) = obj.get("usage").and_then(Value::as_object) else {
        return Err(ValidationError::UsageNotAnObject);
    };
    let (Some(input), Some(output)) = (
        finite_non_negative(usage.get("input_tokens")),
        finite_non_negative(usage.get("output_tokens")),
    ) else {
        return Err(ValidationError::UsageTokens);
    };
    Ok(Envelope {
        model,
        answers: answers.clone(),
        input_tokens: input as u64,
        output_tokens: output as u64,
    })
}

fn unit(value: Option<&Value>, what: &str) -> Result<f64, ValidationError> {
    match value.and_then(Value::as_f64) {
        Some(v) if v.is_finite() && (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(ValidationError::NotUnit {
            field: what.to_owned(),
        }),
    }
}

fn distribution(
    value: Option<&Value>,
    labels: &[String],
    key: &str,
) -> Result<Vec<(String, f64)>, ValidationError> {
    let Some(map) = value.and_then(Value::as_object) else {
        return Err(ValidationError::ProbabilitiesNotAnObject {
            key: key.to_owned(),
        });
    };
    let missing: Vec<&str> = labels
        .iter()
        .filter(|l| !map.contains_key(*l))
        .map(String::as_str)
        .collect();
    let extra: Vec<&str> = map
        .keys()
        .filter(|k| !labels.contains(k))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(ValidationError::ProbabilityKeys {
            key: key.to_owned(),
            missing: owned(missing),
            unexpected: owned(extra),
        });
    }
    let mut out = Vec::with_capacity(labels.len());
    let mut sum = 0.0;
    for label in labels {
        let p = unit(
            map.get(label),
            &format!("answers.{key}.probabilities.{label}"),
        )?;
        sum += p;
        out.push((label.clone(), p));
    }
    if (sum - 1.0).abs() > 0.02 {
        return Err(ValidationError::ProbabilitySum {
            key: key.to_owned(),
            sum,
        });
    }
    Ok(out)
}

/// Validates every asked question's answer, requiring exactly the asked keys.
pub fn answers(
    questions: &Questions,
    raw: &Map<String, Value>,
) -> Result<Answers, ValidationError> {
    let missing: Vec<&str> = questions
        .0
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !raw.contains_key(*n))
        .collect();
    let extra: Vec<&str> = raw
        .keys()
        .filter(|k| questions.get(k).is_none())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(ValidationError::AnswerKeys {
            missing: owned(missing),
            unexpected: owned(extra),
        });
    }
    let mut out = Vec::with_capacity(questions.0.len());
    for (name, question) in &questions.0 {
        out.push((name.clone(), answer(name, question, &raw[name])?));
    }
    Ok(Answers(out))
}

fn answer(key: &str, question: &Question, raw: &Value) -> Result<Answer, ValidationError> {
    let Some(obj) = raw.as_object() else {
        return Err(ValidationError::AnswerNotAnObject {
            key: key.to_owned(),
        });
    };
    if obj.get("type").and_then(Value::as_str) != Some(question.kind()) {
        return Err(ValidationError::AnswerType {
            key: key.to_owned(),
            expected: question.kind(),
        });
    }
    match question {
        Question::Noul { .. } => Ok(Answer::Noul {
            probability: unit(obj.get("noul"), &format!("answers.{key}.noul"))?,
        }),
        Question::Choice { criteria, .. } => {
            let labels: Vec<String> = criteria.iter().map(|(l, _)| l.clone()).collect();
            let Some(choice) = obj.get("choice").and_then(Value::as_str) else {
                return Err(ValidationError::ChoiceNotAString {
                    key: key.to_owned(),
                });
            };
            if !labels.iter().any(|l| l == choice) {
                return Err(ValidationError::ChoiceNotPermitted {
                    key: key.to_owned(),
                    choice: choice.to_owned(),
                });
            }
            let confidence = unit(obj.get("confidence"), &format!("answers.{key}.confidence"))?;
            let probabilities = distribution(obj.get("probabilities"), &labels, key)?;
            let max = probabilities.iter().map(|(_, p)| *p).fold(0.0, f64::max);
            let chosen = probabilities
                .iter()
                .find(|(l, _)| l == choice)
                .map_or(0.0, |(_, p)| *p);
            if (max - chosen).abs() > 1e-6 {
                return Err(ValidationError::ChoiceNotMostProbable {
                    key: key.to_owned(),
                });
            }
            Ok(Answer::Choice {
                choice: choice.to_owned(),
                confidence,
                probabilities,
            })
        }
        Question::Score { levels, .. } => {
            let n = levels.len();
            let score = match obj.get("score").and_then(Value::as_f64) {
                Some(s) if s.is_finite() && s >= -1e-6 && s <= (n as f64 - 1.0) + 1e-6 => s,
                _ => {
                    return Err(ValidationError::ScoreRange {
                        key: key.to_owned(),
                        max: n.saturating_sub(1),
                    });
                }
            };
            let confidence = unit(obj.get("confidence"), &format!("answers.{key}.confidence"))?;
            let labels: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            let probabilities: Vec<f64> = distribution(obj.get("probabilities"), &labels, key)?
                .into_iter()
                .map(|(_, p)| p)
                .collect();
            let expected: f64 = probabilities
                .iter()
                .enumerate()
                .map(|(i, p)| i as f64 * p)
                .sum();
            let tolerance = f64::max(0.05, 0.02 * n as f64);
            if (expected - score).abs() > tolerance {
                return Err(ValidationError::ScoreDisagrees {
                    key: key.to_owned(),
                    score,
                    expected,
                });
            }
            Ok(Answer::Score {
                score,
                confidence,
                probabilities,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn qs() -> Questions {
        Questions::new()
            .with("n", Question::noul("?", "t", "f"))
            .with("c", Question::choice("?", [("a", "A"), ("b", "B")]))
            .with("s", Question::score("?", ["0", "1", "2"]))
    }

    fn good() -> Value {
        json!({
            "n": {"type": "noul", "noul": 0.3},
            "c": {"type": "choice", "choice": "a", "confidence": 0.7, "probabilities": {"a": 0.7, "b": 0.3}},
            "s": {"type": "score", "score": 0.4, "confidence": 0.8, "probabilities": {"0": 0.7, "1": 0.2, "2": 0.1}, "legend": {}},
        })
    }

    fn check(raw: Value) -> Result<Answers, ValidationError> {
        answers(&qs(), raw.as_object().unwrap())
    }

    #[test]
    fn accepts_a_valid_set_and_ignores_extra_fields() {
        let a = check(good()).unwrap();
        assert_eq!(a.noul("n"), 0.3);
        assert_eq!(a.get("c").unwrap().p("b"), 0.3);
        assert!((a.get("s").unwrap().mass_at_least(1) - 0.3).abs() < 1e-9);
    }

    #[test]
    fn refuses_missing_or_extra_keys() {
        let mut raw = good();
        raw.as_object_mut().unwrap().remove("n");
        raw["zzz"] = json!({});
        let err = check(raw).unwrap_err();
        assert_eq!(
            err,
            ValidationError::AnswerKeys {
                missing: vec!["n".into()],
                unexpected: vec!["zzz".into()],
            }
        );
        assert_eq!(
            err.to_string(),
            "answer keys differ (missing: n; unexpected: zzz)"
        );
    }

    #[test]
    fn refuses_bad_values() {
        use ValidationError as E;
        type Case = (&'static str, Value, fn(&ValidationError) -> bool);
        let cases: [Case; 9] = [
            (
                "/n/noul",
                json!(7),
                |e| matches!(e, E::NotUnit { field } if field == "answers.n.noul"),
            ),
            (
                "/n/type",
                json!("choice"),
                |e| matches!(e, E::AnswerType { key, expected: "noul" } if key == "n"),
            ),
            (
                "/c/choice",
                json!("zzz"),
                |e| matches!(e, E::ChoiceNotPermitted { choice, .. } if choice == "zzz"),
            ),
            (
                "/c/choice",
                json!("b"),
                |e| matches!(e, E::ChoiceNotMostProbable { key } if key == "c"),
            ),
            (
                "/c/probabilities",
                json!({"a": 0.9, "b": 0.3}),
                |e| matches!(e, E::ProbabilitySum { key, .. } if key == "c"),
            ),
            (
                "/c/probabilities",
                json!({"a": 1.0}),
                |e| matches!(e, E::ProbabilityKeys { missing, .. } if missing == &["b"]),
            ),
            (
                "/s/score",
                json!(2.0),
                |e| matches!(e, E::ScoreDisagrees { key, .. } if key == "s"),
            ),
            ("/s/score", json!(3.5), |e| {
                matches!(e, E::ScoreRange { max: 2, .. })
            }),
            (
                "/s/probabilities",
                json!({"0": 1.0}),
                |e| matches!(e, E::ProbabilityKeys { unexpected, .. } if unexpected.is_empty()),
            ),
        ];
        for (pointer, value, expected) in cases {
            let mut raw = good();
            *raw.pointer_mut(pointer).unwrap() = value.clone();
            match check(raw) {
                Err(err) => assert!(expected(&err), "{pointer} = {value}: {err:?}"),
                Ok(_) => panic!("{pointer} = {value} was accepted"),
            }
        }
    }

    #[test]
    fn envelope_requires_model_answers_and_usage() {
        assert!(envelope(&json!({"model": "m", "answers": {}, "usage": {"input_tokens": 1, "output_tokens": 2}})).is_ok());
        assert!(envelope(&json!({"model": "", "answers": {}, "usage": {"input_tokens": 1, "output_tokens": 2}})).is_err());
        assert!(envelope(&json!({"model": "m", "answers": [], "usage": {"input_tokens": 1, "output_tokens": 2}})).is_err());
        assert!(envelope(&json!({"model": "m", "answers": {}, "usage": {"input_tokens": -1, "output_tokens": 2}})).is_err());
        assert!(envelope(&json!("x")).is_err());
    }
}

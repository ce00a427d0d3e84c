//! Jev's wire vocabulary as types: questions (`noul`, `choice`, `score`), typed answers, the
//! request document, transport errors and their classes, and the `Jev` port itself.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value, json};
use thiserror::Error;

/// A boxed, sendable future; the ports use it so they can be called through `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One typed question. `instructions` and descriptions are JSON: a string, or an object such as
/// `{question, guidance}` when a question carries structured guidance.
#[derive(Clone, Debug, PartialEq)]
pub enum Question {
    /// Probability that a statement is true. `criteria` describes the `true` and `false` outcomes.
    Noul {
        instructions: Value,
        truthy: Value,
        falsy: Value,
    },
    /// One label out of named options, each with a description (label order is kept).
    Choice {
        instructions: Value,
        criteria: Vec<(String, Value)>,
    },
    /// A level on an ordered rubric; `levels[i]` describes level `i`.
    Score {
        instructions: Value,
        levels: Vec<Value>,
    },
}

impl Question {
    /// A choice question from `(label, description)` pairs.
    pub fn choice(
        instructions: impl Into<Value>,
        criteria: impl IntoIterator<Item = (impl Into<String>, impl Into<Value>)>,
    ) -> Self {
        Question::Choice {
            instructions: instructions.into(),
            criteria: criteria
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// A score question from its level descriptions, lowest first.
    pub fn score(
        instructions: impl Into<Value>,
        levels: impl IntoIterator<Item = impl Into<Value>>,
    ) -> Self {
        Question::Score {
            instructions: instructions.into(),
            levels: levels.into_iter().map(Into::into).collect(),
        }
    }

    /// A noul question with descriptions of the true and false outcomes.
    pub fn noul(
        instructions: impl Into<Value>,
        truthy: impl Into<Value>,
        falsy: impl Into<Value>,
    ) -> Self {
        Question::Noul {
            instructions: instructions.into(),
            truthy: truthy.into(),
            falsy: falsy.into(),
        }
    }

    /// The wire name of the question's type.
    pub fn kind(&self) -> &'static str {
        match self {
            Question::Noul { .. } => "noul",
            Question::Choice { .. } => "choice",
            Question::Score { .. } => "score",
        }
    }

    /// The question as its wire JSON object.
    pub fn to_json(&self) -> Value {
        match self {
            Question::Noul {
                instructions,
                truthy,
                falsy,
            } => json!({
                "type": "noul",
                "instructions": instructions,
                "criteria": {"true": truthy, "false": falsy},
            }),
            Question::Choice {
                instructions,
                criteria,
            } => {
                let map: Map<String, Value> = criteria.iter().cloned().collect();
                json!({"type": "choice", "instructions": instructions, "criteria": map})
            }
            Question::Score {
                instructions,
                levels,
            } => json!({"type": "score", "instructions": instructions, "criteria": levels}),
        }
    }
}

/// The named questions of one request, in the order they were added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Questions(pub Vec<(String, Question)>);

impl Questions {
    /// No questions yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a question under `name`.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, question: Question) -> Self {
        self.0.push((name.into(), question));
        self
    }

    /// The question named `name`.
    pub fn get(&self, name: &str) -> Option<&Question> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, q)| q)
    }

    /// The questions as one wire JSON object.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(name, q)| (name.clone(), q.to_json()))
                .collect(),
        )
    }
}

impl Question {
    /// Writes [`Question::to_json`]'s stable JSON without building it: `criteria`,
    /// `instructions`, `type`, the criteria of a choice by label. `None` when a choice repeats a
    /// label (the tree keeps one of them; [`Questions::stable_bytes`] writes the tree then).
    fn write_stable(&self, out: &mut Vec<u8>) -> Option<()> {
        use crate::hash::{write_leaf, write_sorted_object, write_stable};
        out.extend_from_slice(br#"{"criteria":"#);
        let instructions = match self {
            Question::Noul {
                instructions,
                truthy,
                falsy,
            } => {
                out.extend_from_slice(br#"{"false":"#);
                write_stable(falsy, out);
                out.extend_from_slice(br#","true":"#);
                write_stable(truthy, out);
                out.push(b'}');
                instructions
            }
            Question::Choice {
                instructions,
                criteria,
            } => {
                write_sorted_object(criteria, out, |text, out| {
                    write_stable(text, out);
                    Some(())
                })?;
                instructions
            }
            Question::Score {
                instructions,
                levels,
            } => {
                out.push(b'[');
                for (i, level) in levels.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_stable(level, out);
                }
                out.push(b']');
                instructions
            }
        };
        out.extend_from_slice(br#","instructions":"#);
        write_stable(instructions, out);
        out.extend_from_slice(br#","type":"#);
        write_leaf(self.kind(), out);
        out.push(b'}');
        Some(())
    }
}

impl Questions {
    /// The stable JSON of [`Questions::to_json`] (what frame ids and cache keys hash), written
    /// without building the tree (D-230).
    pub fn stable_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let written = crate::hash::write_sorted_object(&self.0, &mut out, |question, out| {
            question.write_stable(out)
        });
        match written {
            Some(()) => out,
            // A repeated name or label: the tree says which one stands.
            None => crate::hash::stable_bytes(&self.to_json()),
        }
    }
}

impl Serialize for Questions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, question) in &self.0 {
            map.serialize_entry(name, &question.to_json())?;
        }
        map.end()
    }
}

/// One System One request as sent: `{model, state, questions}`. `questions` is kept as JSON so
/// that redaction can rewrite it before sending.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JevRequest {
    /// The model name, e.g. `jev-1.13.0`.
    pub model: String,
    /// The state the questions are asked about.
    pub state: Value,
    /// The questions, keyed by name.
    pub questions: Value,
}

impl JevRequest {
    /// The request body as JSON text.
    pub fn body(&self) -> String {
        // Serializing a struct of `String` and `Value` cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The token estimate the budget reserves: `ceil(bytes of the JSON body / 3)`.
    pub fn estimate_tokens(&self) -> u64 {
        Self::estimate_of(&self.model, &self.state, &self.questions)
    }

    /// [`JevRequest::estimate_tokens`] of the request these parts make, counted without
    /// building it or its text.
    pub fn estimate_of(model: &str, state: &Value, questions: &Value) -> u64 {
        /// Counts the bytes written to it.
        struct Counter(u64);
        impl std::io::Write for Counter {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0 += buf.len() as u64;
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        #[derive(Serialize)]
        struct Body<'a> {
            model: &'a str,
            state: &'a Value,
            questions: &'a Value,
        }
        let mut counter = Counter(0);
        // Writing a struct of strings and values to a counter cannot fail.
        let _ = serde_json::to_writer(
            &mut counter,
            &Body {
                model,
                state,
                questions,
            },
        );
        counter.0.div_ceil(3)
    }

    /// [`JevRequest::estimate_of`] from the lengths of the state's and the questions' compact
    /// JSON (their stable JSON is as long: only the order of keys differs).
    pub fn estimate_from_lengths(model: &str, state: usize, questions: usize) -> u64 {
        // `{"model":` M `,"state":` S `,"questions":` Q `}`
        let model = serde_json::to_string(model).map_or(0, |m| m.len());
        let frame = r#"{"model":,"state":,"questions":}"#.len();
        ((frame + model + state + questions) as u64).div_ceil(3)
    }
}

/// A validated, typed answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `noul`: the probability that the statement is true.
    Noul { probability: f64 },
    /// `choice`: the picked label, its confidence, and the distribution in label order.
    Choice {
        choice: String,
        confidence: f64,
        probabilities: Vec<(String, f64)>,
    },
    /// `score`: the expected level, confidence, and the distribution over levels `0..n`.
    Score {
        score: f64,
        confidence: f64,
        probabilities: Vec<f64>,
    },
}

impl Answer {
    /// The probability of `label` in a choice answer (0 when absent or not a choice).
    pub fn p(&self, label: &str) -> f64 {
        match self {
            Answer::Choice { probabilities, .. } => probabilities
                .iter()
                .find(|(l, _)| l == label)
                .map_or(0.0, |(_, p)| *p),
            _ => 0.0,
        }
    }

    /// Sum of a score distribution's probabilities for levels `k..`.
    pub fn mass_at_least(&self, k: usize) -> f64 {
        match self {
            Answer::Score { probabilities, .. } => probabilities.iter().skip(k).sum(),
            _ => 0.0,
        }
    }

    /// The answer in the JSON shape used in records and rows.
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Noul { probability } => json!({"type": "noul", "probability": probability}),
            Answer::Choice {
                choice,
                confidence,
                probabilities,
            } => {
                let map: Map<String, Value> = probabilities
                    .iter()
                    .map(|(l, p)| (l.clone(), json!(p)))
                    .collect();
                json!({"type": "choice", "choice": choice, "confidence": confidence, "probabilities": map})
            }
            Answer::Score {
                score,
                confidence,
                probabilities,
            } => {
                let map: Map<String, Value> = probabilities
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (i.to_string(), json!(p)))
                    .collect();
                json!({"type": "score", "score": score, "confidence": confidence, "probabilities": map})
            }
        }
    }
}

/// The validated answers of one frame, keyed by question name in question order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answers(pub Vec<(String, Answer)>);

impl Answers {
    /// The answer to the question named `name`.
    pub fn get(&self, name: &str) -> Option<&Answer> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }

    /// The noul probability of `name`, 0 when missing.
    pub fn noul(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Answer::Noul { probability }) => *probability,
            _ => 0.0,
        }
    }

    /// All answers as one JSON object.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(n, a)| (n.clone(), a.to_json()))
                .collect(),
        )
    }
}

/// How a transport failure is handled by the executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// The request was cancelled.
    Aborted,
    /// The key was rejected (401/403): the port is disabled for the rest of the request.
    Auth,
    /// The request was too large for the model (413 or a context-length message).
    TooLarge,
    /// Worth retrying with backoff (408, 429, 5xx, timeouts, connection failures).
    Transient,
    /// Any other 4xx.
    Rejected,
    /// Anything else.
    Unknown,
}

impl ErrorClass {
    /// The class name used in records and failure details.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Aborted => "aborted",
            ErrorClass::Auth => "auth",
            ErrorClass::TooLarge => "too_large",
            ErrorClass::Transient => "transient",
            ErrorClass::Rejected => "rejected",
            ErrorClass::Unknown => "unknown",
        }
    }

    /// Classifies a failure from what the transport ran into and, for an answer with an error
    /// status, what Jev's answer said, in the reference's order (§3.4): abort, auth, too large,
    /// transient, rejected, unknown. Only Jev's own answer is read as text: a 400 whose body
    /// says the request was too large is too large (the wire's words, not an error's).
    pub fn of(failure: &Failure, answer: &str) -> Self {
        match *failure {
            Failure::Aborted => ErrorClass::Aborted,
            Failure::Status(401 | 403) => ErrorClass::Auth,
            Failure::Status(413) => ErrorClass::TooLarge,
            Failure::Status(_) if too_large(answer) => ErrorClass::TooLarge,
            Failure::Status(408 | 429) => ErrorClass::Transient,
            Failure::Status(s) if s >= 500 => ErrorClass::Transient,
            Failure::TimedOut | Failure::Unreachable { .. } | Failure::CutOff => {
                ErrorClass::Transient
            }
            Failure::Status(s) if s >= 400 => ErrorClass::Rejected,
            Failure::Status(_) | Failure::Other => ErrorClass::Unknown,
        }
    }
}

/// Whether Jev's answer to a request says it was too large for the model.
fn too_large(answer: &str) -> bool {
    let answer = answer.to_ascii_lowercase();
    [
        "max_tokens_exceeded",
        "too large",
        "payload",
        "context length",
    ]
    .iter()
    .any(|m| answer.contains(m))
}

/// What a failed call ran into, as the transport saw it (the typed form of the reference's
/// error `name`, §3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The run was cancelled.
    Aborted,
    /// No answer in time.
    TimedOut,
    /// No connection could be made: refused, unknown host, or TLS.
    Unreachable {
        /// The certificate the server presented was not accepted, and why (`UnknownIssuer`).
        certificate: Option<String>,
    },
    /// The connection was cut off mid-answer.
    CutOff,
    /// Jev answered with an error status (or a success whose body was no JSON).
    Status(u16),
    /// Anything else (a client that could not be built).
    Other,
}

/// A failed call to the Jev port.
#[derive(Clone, Debug, Error)]
#[error("{message}")]
pub struct JevError {
    /// How the executor handles it.
    pub class: ErrorClass,
    /// What the transport ran into.
    pub failure: Failure,
    /// What went wrong, for diagnostics (redacted before it is shown).
    pub message: String,
}

impl JevError {
    /// A failure and its message; for an error status, `message` holds Jev's answer, which
    /// the class reads (see [`ErrorClass::of`]).
    pub fn new(failure: Failure, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            class: ErrorClass::of(&failure, &message),
            failure,
            message,
        }
    }

    /// A failure handled as `class` whatever it is (a success whose body was no JSON).
    pub fn classed(class: ErrorClass, failure: Failure, message: impl Into<String>) -> Self {
        Self {
            class,
            failure,
            message: message.into(),
        }
    }

    /// The HTTP status Jev answered with, when it answered.
    pub fn status(&self) -> Option<u16> {
        match self.failure {
            Failure::Status(s) => Some(s),
            _ => None,
        }
    }
}

/// Why Jev could not answer, as a person should hear it: the key was refused, Jev could not be
/// reached, or it kept failing (throttled, server errors, timeouts) until retries ran out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JevTrouble {
    /// The key was refused (HTTP 401 or 403).
    Auth {
        /// The status Jev answered with.
        status: Option<u16>,
    },
    /// No connection could be made.
    Unreachable {
        /// What the transport said (redacted).
        detail: String,
        /// The server's TLS certificate was not accepted, and why: its fix is a setting.
        certificate: Option<String>,
    },
    /// Jev answered with failures or not at all, on every attempt.
    Unavailable {
        /// The last status, when there was one (429, 5xx).
        status: Option<u16>,
        /// The last attempt timed out.
        timed_out: bool,
        /// Attempts made for the frame that gave up.
        attempts: u32,
        /// How long that frame kept trying.
        tried: Duration,
    },
    /// Jev answered, but its answers did not fit the questions asked, frame after frame.
    Invalid {
        /// Responses in a row whose answers did not fit.
        answers: u32,
        /// Why the last one's did not (redacted).
        detail: String,
    },
}

impl std::fmt::Display for JevTrouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JevTrouble::Auth { status } => match status {
                Some(s) => write!(f, "Jev refused the key (HTTP {s})"),
                None => write!(f, "Jev refused the key"),
            },
            JevTrouble::Unreachable { detail, .. } => {
                write!(f, "Jev could not be reached: {detail}")
            }
            JevTrouble::Unavailable {
                status,
                timed_out,
                attempts,
                tried,
            } => {
                let what = match (status, timed_out) {
                    (Some(429), _) => "was rate-limited (HTTP 429)".to_owned(),
                    (Some(s), _) => format!("answered HTTP {s}"),
                    (None, true) => "did not answer in time".to_owned(),
                    (None, false) => "failed".to_owned(),
                };
                write!(
                    f,
                    "Jev {what} on every attempt ({attempts} over {:.1} s)",
                    tried.as_secs_f64()
                )
            }
            JevTrouble::Invalid { answers, detail } => write!(
                f,
                "Jev's answers did not fit the questions asked ({answers} answers in a row): \
                 {detail}"
            ),
        }
    }
}

impl JevTrouble {
    /// The trouble a frame's final failure shows, if it is one.
    pub fn from_error(
        error: &JevError,
        attempts: u32,
        tried: Duration,
        detail: &str,
    ) -> Option<Self> {
        match (error.class, &error.failure) {
            (ErrorClass::Auth, _) => Some(JevTrouble::Auth {
                status: error.status(),
            }),
            (ErrorClass::Transient, Failure::Unreachable { certificate }) => {
                Some(JevTrouble::Unreachable {
                    detail: detail.to_owned(),
                    certificate: certificate.clone(),
                })
            }
            (ErrorClass::Transient, failure) => Some(JevTrouble::Unavailable {
                status: error.status(),
                timed_out: *failure == Failure::TimedOut,
                attempts,
                tried,
            }),
            _ => None,
        }
    }
}

/// The Jev port: sends one request and returns the response body as JSON. The executor validates
/// the envelope and the answers; the port only moves bytes and classifies failures.
pub trait Jev: Send + Sync {
    /// Sends `request`, giving up after `timeout`.
    fn ask<'a>(
        &'a self,
        request: &'a JevRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, JevError>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_the_reference_order() {
        use ErrorClass::*;
        let of = |f: Failure, answer: &str| ErrorClass::of(&f, answer);
        assert_eq!(of(Failure::Status(401), ""), Auth);
        assert_eq!(of(Failure::Status(403), ""), Auth);
        assert_eq!(of(Failure::Status(413), ""), TooLarge);
        assert_eq!(
            of(Failure::Status(400), "context length exceeded"),
            TooLarge
        );
        assert_eq!(of(Failure::Status(429), ""), Transient);
        assert_eq!(of(Failure::Status(503), ""), Transient);
        assert_eq!(of(Failure::TimedOut, ""), Transient);
        assert_eq!(of(Failure::CutOff, ""), Transient);
        let refused = Failure::Unreachable { certificate: None };
        assert_eq!(of(refused, ""), Transient);
        assert_eq!(of(Failure::Status(404), ""), Rejected);
        assert_eq!(of(Failure::Aborted, ""), Aborted);
        assert_eq!(of(Failure::Other, "too large"), Unknown);
        // Only Jev's answer is read: a transport's words classify nothing.
        assert_eq!(of(Failure::Other, "socket hang up"), Unknown);
    }

    /// The estimate counted without a body is the estimate of the body as it is sent.
    #[test]
    fn the_counted_estimate_is_the_sent_bodys() {
        for (bytes, state) in [
            (0, serde_json::json!({})),
            (
                1,
                serde_json::json!({"hunk": "é\n\"∑\"\u{1}", "n": [1.5, -2, null, true]}),
            ),
            (2, serde_json::json!({"text": "x".repeat(1000)})),
        ] {
            let request = JevRequest {
                model: format!("jev-{bytes}"),
                state,
                questions: Questions::new()
                    .with("q", Question::noul("Is it?", "yes", "no"))
                    .to_json(),
            };
            let sent = request.body().len() as u64;
            assert_eq!(request.estimate_tokens(), sent.div_ceil(3), "{sent} bytes");
            let lengths = JevRequest::estimate_from_lengths(
                &request.model,
                crate::hash::stable_bytes(&request.state).len(),
                crate::hash::stable_bytes(&request.questions).len(),
            );
            assert_eq!(lengths, sent.div_ceil(3), "{sent} bytes, from the lengths");
        }
    }

    #[test]
    fn questions_written_stable_are_their_tree_written_stable() {
        let long = "x".repeat(300);
        let structured = json!({"question": "Is it?", "guidance": ["a", {"z": 1, "b": null}]});
        let cases = [
            Questions::new(),
            Questions::new()
                .with("zeta", Question::noul("Is it?", "yes", "no"))
                .with(
                    "Alpha",
                    Question::choice("Which?", [("é", "e"), ("b", "bee"), ("B", "Bee")]),
                )
                .with(
                    "mid",
                    Question::score(structured.clone(), ["none", long.as_str(), "all"]),
                ),
            Questions::new()
                .with(
                    "😀",
                    Question::noul(structured, json!({"k": [1.5, -2]}), "no \"quoted\""),
                )
                .with(
                    "\u{fb01}",
                    Question::choice("x", [("\u{1f600}", "a"), ("\u{fb01}", "b")]),
                ),
            // Repeated names and labels: the tree keeps one, and so must the bytes.
            Questions::new()
                .with("a", Question::noul("first", "y", "n"))
                .with("a", Question::noul("second", "y", "n")),
            Questions::new().with("c", Question::choice("x", [("l", "one"), ("l", "two")])),
        ];
        for qs in cases {
            assert_eq!(
                String::from_utf8(qs.stable_bytes()).unwrap(),
                crate::hash::stable_json(&qs.to_json()),
                "{qs:?}"
            );
        }
    }

    #[test]
    fn questions_serialize_in_wire_shape_and_order() {
        let qs = Questions::new()
            .with("b", Question::noul("Is it?", "yes", "no"))
            .with("a", Question::choice("Which?", [("x", "ex"), ("y", "why")]))
            .with("c", Question::score("How much?", ["none", "some"]));
        let text = serde_json::to_string(&qs).unwrap();
        assert_eq!(
            text,
            r#"{"b":{"type":"noul","instructions":"Is it?","criteria":{"true":"yes","false":"no"}},"a":{"type":"choice","instructions":"Which?","criteria":{"x":"ex","y":"why"}},"c":{"type":"score","instructions":"How much?","criteria":["none","some"]}}"#
        );
    }
}

//! A fake System One server (axum on `127.0.0.1:0`): scripted answers by question name or by a
//! keyword of the request, a request log, and fault injection (status codes, delays, malformed
//! bodies, dropped connections, wrong answer keys). It also serves over TLS with a test
//! authority, offering HTTP/2 or only HTTP/1.1 by ALPN, and counts connections and the protocol
//! of every request.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Version};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Map, Value, json};

/// A fault served instead of (or before) a normal answer.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer normally (lets a test fault a later request).
    Pass,
    /// Answer with this HTTP status and a JSON error body.
    Status(u16),
    /// Wait, then answer normally.
    Delay(Duration),
    /// Wait, then answer with this HTTP status (a refusal that arrives after the answers sent
    /// beside it).
    StatusAfter(Duration, u16),
    /// Answer with this HTTP status and an error message that echoes the request's
    /// `Authorization` header (a server that leaks the key back).
    EchoAuth(u16),
    /// Answer 200 with a body that is not JSON.
    Garbage,
    /// Start a 200 response, then break the connection.
    Drop,
    /// Answer with one extra, unasked key.
    ExtraKey,
    /// Answer without the first asked key.
    MissingKey,
}

/// How the fake answers a `choice` question.
#[derive(Clone, Debug)]
pub struct ChoiceRule {
    /// The label to pick (may be outside the label set, to produce an invalid answer).
    pub label: String,
    /// Its probability; the rest is spread evenly over the other labels.
    pub mass: f64,
    /// The confidence reported.
    pub confidence: f64,
}

#[derive(Default)]
struct Script {
    /// Answers by question name.
    by_name: HashMap<String, Value>,
    /// Answers by question name for requests whose body contains a text (checked first).
    by_content: Vec<(String, String, Value)>,
    /// `route` answers by a keyword of the request (first match wins); the flag says the rule
    /// applies only when its label is offered.
    route_keywords: Vec<(String, ChoiceRule, bool)>,
    faults: VecDeque<Fault>,
    log: Vec<(HeaderMap, Value)>,
    /// Added before every answer, to stand in for a real model's latency.
    latency: Duration,
    /// Answers computed from the whole request body (checked before everything else).
    responder: Option<Responder>,
    /// Beyond this many requests in flight, answer 429 with `Retry-After` (ms), as a server
    /// that throttles does.
    throttle: Option<(usize, u64)>,
    in_flight: usize,
    peak: usize,
    throttled: usize,
    /// The HTTP version of every request.
    versions: Vec<Version>,
    /// TLS connections whose handshake completed, and those refused by the client.
    connections: usize,
    failed_handshakes: usize,
}

/// Counts a request out of flight when its answer is done.
struct InFlight(Arc<Mutex<Script>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        s.in_flight = s.in_flight.saturating_sub(1);
    }
}

/// Computes a request's answers from its body; `None` falls back to the other rules.
pub type Responder = Arc<dyn Fn(&Value) -> Option<Map<String, Value>> + Send + Sync>;

/// A running fake server. Dropping it stops the server.
pub struct FakeJev {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    /// The authority a TLS fake's certificate comes from, and the folder of its PEM file.
    tls: Option<(crate::tls::TestCa, tempfile::TempDir)>,
    _task: tokio::task::JoinHandle<()>,
    _runtime: Option<tokio::runtime::Runtime>,
}

/// A judge's answers to a flow stop request: sure (0.9) that the work is in `phase` and that
/// `next` comes next; `phase_done` 0.9 when `done`, else 0.2; the agent claims to be done; it is
/// neither stuck nor off the goal.
pub fn flow_stop_answers(
    questions: &Map<String, Value>,
    phase: &str,
    done: bool,
    next: &str,
) -> Map<String, Value> {
    let labels = |name: &str| -> Vec<String> {
        questions[name]["criteria"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let rule = |label: &str| ChoiceRule {
        label: label.to_owned(),
        mass: 0.9,
        confidence: 0.9,
    };
    let noul = |p: f64| json!({"type": "noul", "noul": p});
    let mut answers = Map::new();
    answers.insert(
        "current_phase".into(),
        choice_answer(&labels("current_phase"), &rule(phase)),
    );
    answers.insert(
        "next_action".into(),
        choice_answer(&labels("next_action"), &rule(next)),
    );
    answers.insert("phase_done".into(), noul(if done { 0.9 } else { 0.2 }));
    answers.insert("stuck".into(), noul(0.05));
    answers.insert("off_goal".into(), noul(0.05));
    answers.insert("claims_done".into(), noul(0.9));
    answers
}

/// A choice distribution with `mass` on `label` and the rest spread evenly.
pub fn choice_answer(labels: &[String], rule: &ChoiceRule) -> Value {
    let others = labels.iter().filter(|l| **l != rule.label).count().max(1) as f64;
    let rest = (1.0 - rule.mass) / others;
    let probs: Map<String, Value> = labels
        .iter()
        .map(|l| {
            (
                l.clone(),
                json!(if *l == rule.label { rule.mass } else { rest }),
            )
        })
        .collect();
    json!({"type": "choice", "choice": rule.label, "confidence": rule.confidence, "probabilities": probs})
}

/// A score distribution with `mass` on `level` and the rest spread evenly, with a consistent
/// expected score.
pub fn score_answer(levels: usize, level: usize, mass: f64) -> Value {
    let rest = if levels > 1 {
        (1.0 - mass) / (levels - 1) as f64
    } else {
        0.0
    };
    let probs: Vec<f64> = (0..levels)
        .map(|i| if i == level { mass } else { rest })
        .collect();
    let expected: f64 = probs.iter().enumerate().map(|(i, p)| i as f64 * p).sum();
    let map: Map<String, Value> = probs
        .iter()
        .enumerate()
        .map(|(i, p)| (i.to_string(), json!(p)))
        .collect();
    json!({"type": "score", "score": expected, "confidence": mass, "probabilities": map})
}

fn neutral(question: &Value) -> Value {
    match question["type"].as_str() {
        Some("choice") => {
            let labels: Vec<String> = question["criteria"]
                .as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            let pick = if labels.iter().any(|l| l == "cannot_tell") {
                "cannot_tell".to_owned()
            } else {
                labels.last().cloned().unwrap_or_default()
            };
            choice_answer(
                &labels,
                &ChoiceRule {
                    label: pick,
                    mass: 0.8,
                    confidence: 0.8,
                },
            )
        }
        Some("score") => {
            let levels = question["criteria"].as_array().cloned().unwrap_or_default();
            let mut answer = score_answer(levels.len().max(1), 0, 0.8);
            // System One echoes each level's description as the answer's `legend`.
            answer["legend"] = Value::Object(
                levels
                    .into_iter()
                    .enumerate()
                    .map(|(i, d)| (i.to_string(), d))
                    .collect(),
            );
            answer
        }
        _ => json!({"type": "noul", "noul": 0.1}),
    }
}

fn answer(script: &Script, body: &Value) -> Map<String, Value> {
    if let Some(answers) = script.responder.as_ref().and_then(|r| r(body)) {
        return answers;
    }
    let request = body
        .pointer("/state/request")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    let mut answers = Map::new();
    if let Some(questions) = body["questions"].as_object() {
        for (name, question) in questions {
            let body_text = body.to_string();
            let conditional = script
                .by_content
                .iter()
                .find(|(n, needle, _)| n == name && body_text.contains(needle.as_str()));
            let value = if let Some((_, _, fixed)) = conditional {
                fixed.clone()
            } else if let Some(fixed) = script.by_name.get(name) {
                fixed.clone()
            } else if name == "route" {
                let labels: Vec<String> = question["criteria"]
                    .as_object()
                    .map(|m| m.keys().cloned().collect())
                    .unwrap_or_default();
                match script
                    .route_keywords
                    .iter()
                    .find(|(k, rule, only_if_present)| {
                        request.contains(k.as_str())
                            && (!only_if_present || labels.contains(&rule.label))
                    }) {
                    Some((_, rule, _)) => choice_answer(&labels, rule),
                    None => neutral(question),
                }
            } else {
                neutral(question)
            };
            answers.insert(name.clone(), value);
        }
    }
    answers
}

async fn systemone(
    State(script): State<Arc<Mutex<Script>>>,
    version: Version,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (fault, latency) = {
        let mut s = script.lock().unwrap();
        s.versions.push(version);
        s.log.push((headers, body.clone()));
        if let Some((limit, retry_ms)) = s.throttle
            && s.in_flight >= limit
        {
            s.throttled += 1;
            let secs = retry_ms.div_ceil(1000).to_string();
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [
                    ("retry-after", secs),
                    ("retry-after-ms", retry_ms.to_string()),
                ],
                axum::Json(json!({"error": {"message": "too many requests in flight"}})),
            )
                .into_response();
        }
        s.in_flight += 1;
        s.peak = s.peak.max(s.in_flight);
        (s.faults.pop_front(), s.latency)
    };
    let _in_flight = InFlight(script.clone());
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    let mut extra = None;
    let fault = match fault {
        Some(Fault::StatusAfter(d, code)) => {
            tokio::time::sleep(d).await;
            Some(Fault::Status(code))
        }
        other => other,
    };
    match fault {
        Some(Fault::Status(code)) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (
                status,
                axum::Json(json!({"error": {"message": format!("injected {code}")}})),
            )
                .into_response();
        }
        Some(Fault::EchoAuth(code)) => {
            let auth = script
                .lock()
                .unwrap()
                .log
                .last()
                .and_then(|(h, _)| {
                    h.get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                })
                .unwrap_or_default();
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (
                status,
                axum::Json(json!({"error": {"message": format!("bad request with {auth}")}})),
            )
                .into_response();
        }
        Some(Fault::Delay(d)) => tokio::time::sleep(d).await,
        Some(Fault::Garbage) => return (StatusCode::OK, "<html>not json").into_response(),
        Some(Fault::Drop) => {
            let stream = futures::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("dropped"))
            });
            return Response::builder()
                .status(200)
                .header("content-length", "1000")
                .body(Body::from_stream(stream))
                .unwrap();
        }
        Some(Fault::Pass) | None => {}
        Some(other) => extra = Some(other),
    }
    let mut answers = answer(&script.lock().unwrap(), &body);
    match extra {
        Some(Fault::ExtraKey) => {
            answers.insert("unasked".into(), json!({"type": "noul", "noul": 0.5}));
        }
        Some(Fault::MissingKey) => {
            let first = answers.keys().next().cloned();
            if let Some(k) = first {
                answers.remove(&k);
            }
        }
        _ => {}
    }
    let sent =
        serde_json::to_string(&json!({"state": body["state"], "questions": body["questions"]}))
            .unwrap_or_default();
    let n = answers.len();
    let reply = json!({
        "model": body["model"].as_str().unwrap_or("jev-fake"),
        "answers": answers,
        "usage": {"input_tokens": sent.len().div_ceil(4), "output_tokens": 4 * n},
    });
    axum::Json(reply).into_response()
}

impl FakeJev {
    /// A fresh script, the app that answers from it, and a loopback listener.
    async fn bind() -> (
        Arc<Mutex<Script>>,
        Router,
        tokio::net::TcpListener,
        SocketAddr,
    ) {
        let script = Arc::new(Mutex::new(Script::default()));
        let app = Router::new()
            .route("/v1/systemone", post(systemone))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        (script, app, listener, addr)
    }

    /// Starts the server on the current Tokio runtime.
    pub async fn start() -> Self {
        let (script, app, listener, addr) = Self::bind().await;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            addr,
            script,
            tls: None,
            _task: task,
            _runtime: None,
        }
    }

    /// Starts the server over TLS on the current Tokio runtime, with a certificate from a test
    /// authority (trust it with [`FakeJev::ca_file`]) and `offer` by ALPN.
    pub async fn start_tls(offer: crate::tls::Offer) -> Self {
        use hyper_util::rt::{TokioExecutor, TokioIo};
        let dir = tempfile::tempdir().expect("temp dir");
        let ca = crate::tls::TestCa::new(dir.path());
        let acceptor = tokio_rustls::TlsAcceptor::from(ca.server_config(offer));
        let (script, app, listener, addr) = Self::bind().await;
        let counts = script.clone();
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, app, counts) = (acceptor.clone(), app.clone(), counts.clone());
                tokio::spawn(async move {
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        counts.lock().unwrap().failed_handshakes += 1;
                        return;
                    };
                    counts.lock().unwrap().connections += 1;
                    let mut builder =
                        hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                    if offer == crate::tls::Offer::Http1Only {
                        builder = builder.http1_only();
                    }
                    let service = hyper_util::service::TowerToHyperService::new(app);
                    let _ = builder
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            addr,
            script,
            tls: Some((ca, dir)),
            _task: task,
            _runtime: None,
        }
    }

    /// The PEM file of a TLS fake's authority (for `STANLEY_JEV_CA_FILE`).
    pub fn ca_file(&self) -> Option<PathBuf> {
        self.tls.as_ref().map(|(ca, _)| ca.ca_file().to_owned())
    }

    /// The HTTP version of every request so far (`"HTTP/2.0"`, `"HTTP/1.1"`).
    pub fn versions(&self) -> Vec<String> {
        let s = self.script.lock().unwrap();
        s.versions.iter().map(|v| format!("{v:?}")).collect()
    }

    /// TLS connections made so far, and handshakes the client broke off.
    pub fn connections(&self) -> (usize, usize) {
        let s = self.script.lock().unwrap();
        (s.connections, s.failed_handshakes)
    }

    /// Starts the server on a runtime of its own (for synchronous tests).
    pub fn start_blocking() -> Self {
        Self::on_own_runtime(Self::start())
    }

    /// Starts the TLS server on a runtime of its own (for synchronous tests).
    pub fn start_tls_blocking(offer: crate::tls::Offer) -> Self {
        Self::on_own_runtime(Self::start_tls(offer))
    }

    fn on_own_runtime(start: impl std::future::Future<Output = Self>) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let mut fake = runtime.block_on(start);
        fake._runtime = Some(runtime);
        fake
    }

    /// The API root to put in `TYPESAFE_BASE_URL`.
    pub fn base_url(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// Throttles beyond `limit` requests in flight: HTTP 429 with `Retry-After` of
    /// `retry_after_ms` (and `retry-after-ms`); also resets the counters.
    pub fn throttle_beyond(&self, limit: usize, retry_after_ms: u64) {
        let mut s = self.script.lock().unwrap();
        s.throttle = Some((limit, retry_after_ms));
        s.peak = 0;
        s.throttled = 0;
    }

    /// The most requests in flight at once, and the throttled replies, since the last reset.
    pub fn load(&self) -> (usize, usize) {
        let s = self.script.lock().unwrap();
        (s.peak, s.throttled)
    }

    /// Resets the peak and throttled counts.
    pub fn reset_load(&self) {
        let mut s = self.script.lock().unwrap();
        s.peak = 0;
        s.throttled = 0;
    }

    /// Answers every question named `name` with `answer`.
    pub fn answer(&self, name: &str, answer: Value) {
        self.script
            .lock()
            .unwrap()
            .by_name
            .insert(name.to_owned(), answer);
    }

    /// Computes answers from each request's body (a scripted judge); `None` from the closure
    /// falls back to the other rules.
    pub fn respond(
        &self,
        responder: impl Fn(&Value) -> Option<Map<String, Value>> + Send + Sync + 'static,
    ) {
        self.script.lock().unwrap().responder = Some(Arc::new(responder));
    }

    /// A scripted `find` judge: candidates whose path contains `needle` are the implementation
    /// (top relevance), the rest unrelated, and excerpts that mention it are relevant.
    pub fn judge_find_by_path(&self, needle: &'static str) {
        let roles = labels_of(&stanley_workflows::find::ROLES);
        self.respond(move |body| {
            let mut answers = Map::new();
            for c in body.pointer("/state/candidates")?.as_array()? {
                let (id, path) = (c["id"].as_str()?, c["path"].as_str()?);
                let hit = path.contains(needle);
                answers.insert(
                    format!("relevance_{id}"),
                    score_answer(4, if hit { 3 } else { 0 }, 0.9),
                );
                let rule = ChoiceRule {
                    label: if hit { "implementation" } else { "unrelated" }.into(),
                    mass: 0.9,
                    confidence: 0.9,
                };
                answers.insert(format!("role_{id}"), choice_answer(&roles, &rule));
            }
            Some(answers)
        });
        self.answer_if("relevance", needle, score_answer(4, 3, 0.9));
    }

    /// Answers the question `name` with `answer` in requests whose body contains `needle`.
    pub fn answer_if(&self, name: &str, needle: &str, answer: Value) {
        self.script
            .lock()
            .unwrap()
            .by_content
            .push((name.to_owned(), needle.to_owned(), answer));
    }

    /// Routes requests containing `keyword` (lowercase) to `label` with probability `mass`.
    pub fn route(&self, keyword: &str, label: &str, mass: f64) {
        self.push_route(keyword, label, mass, false);
    }

    /// Like [`FakeJev::route`], but only when `label` is among the offered candidates; rules
    /// added earlier win, so add this before a catch-all rule for the same keyword.
    pub fn route_if_present(&self, keyword: &str, label: &str, mass: f64) {
        self.push_route(keyword, label, mass, true);
    }

    fn push_route(&self, keyword: &str, label: &str, mass: f64, only_if_present: bool) {
        self.script.lock().unwrap().route_keywords.push((
            keyword.to_lowercase(),
            ChoiceRule {
                label: label.to_owned(),
                mass,
                confidence: mass,
            },
            only_if_present,
        ));
    }

    /// Delays every answer by `latency`.
    pub fn set_latency(&self, latency: Duration) {
        self.script.lock().unwrap().latency = latency;
    }

    /// Queues faults served to the next requests, one each.
    pub fn fail_next(&self, faults: impl IntoIterator<Item = Fault>) {
        self.script.lock().unwrap().faults.extend(faults);
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.script
            .lock()
            .unwrap()
            .log
            .iter()
            .map(|(_, b)| b.clone())
            .collect()
    }

    /// The `Authorization` header of every request.
    pub fn auth_headers(&self) -> Vec<String> {
        self.script
            .lock()
            .unwrap()
            .log
            .iter()
            .map(|(h, _)| {
                h.get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned()
            })
            .collect()
    }

    /// Requests that asked the `route` question.
    pub fn route_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.pointer("/questions/route").is_some())
            .collect()
    }
}

/// The labels of a built-in's choice question, in order (`cannot_tell` last), for scripting
/// answers that follow the product's own label set.
pub fn labels_of(labels: &[(&str, &str)]) -> Vec<String> {
    labels.iter().map(|(l, _)| (*l).to_owned()).collect()
}

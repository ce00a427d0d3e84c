//! A scripted Anthropic Messages API server on loopback, for driving the real Claude Code CLI:
//! `POST /v1/messages` (any query string) answers each main-conversation request with the next
//! [`Turn`] of a script, streamed as server-sent events; a request without the `Bash` tool (a side
//! request: a title, a summary) gets plain text without using up the script, and any other path
//! gets a harmless answer (`HEAD /api/hello` an empty 200). Every `/v1/messages` request body is
//! kept ([`MessagesServer::requests`]) so tests can read what the model was told.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// What the model answers to one main-conversation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Turn {
    /// A text answer that ends the turn (`stop_reason: end_turn`).
    Text(String),
    /// One `Bash` tool call (`stop_reason: tool_use`) running this command.
    Bash(String),
}

impl Turn {
    /// A text answer.
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }

    /// A `Bash` tool call.
    pub fn bash(command: &str) -> Self {
        Self::Bash(command.to_owned())
    }
}

/// The answer once the script is used up, so an unexpected request is visible in the test.
pub const EXHAUSTED: &str = "SCRIPT-EXHAUSTED";

#[derive(Default)]
struct Shared {
    script: VecDeque<Turn>,
    /// Every `/v1/messages` body, in order.
    requests: Vec<Value>,
}

type Handle = Arc<Mutex<Shared>>;

fn sse(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

/// A request of the agent loop carries its whole tool set, `Bash` included.
fn is_main(request: &Value) -> bool {
    request["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "Bash"))
}

/// The streamed answer holding `turn`, message number `n`.
fn stream(turn: &Turn, n: usize, model: &str) -> String {
    let usage = json!({"input_tokens": 10, "output_tokens": 1,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0});
    let mut out = sse(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": format!("msg_scripted_{n:04}"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": usage}}),
    );
    let (start, delta, stop_reason) = match turn {
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
        Turn::Bash(command) => (
            json!({"type": "tool_use", "id": format!("toolu_scripted_{n:04}"), "name": "Bash",
                   "input": {}}),
            json!({"type": "input_json_delta", "partial_json":
                   json!({"command": command, "description": "scripted command"}).to_string()}),
            "tool_use",
        ),
    };
    out.push_str(&sse(
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": start}),
    ));
    out.push_str(&sse(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": delta}),
    ));
    out.push_str(&sse(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push_str(&sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": 5}}),
    ));
    out.push_str(&sse("message_stop", &json!({"type": "message_stop"})));
    out
}

async fn messages(State(shared): State<Handle>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (turn, n) = {
        let mut s = shared.lock().unwrap();
        s.requests.push(request.clone());
        let n = s.requests.len();
        if is_main(&request) {
            let next = s.script.pop_front();
            (next.unwrap_or_else(|| Turn::text(EXHAUSTED)), n)
        } else {
            (Turn::text("Scripted side answer"), n)
        }
    };
    let model = request["model"].as_str().unwrap_or("claude-scripted");
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        stream(&turn, n, model),
    )
        .into_response()
}

/// Anything else: `HEAD` gets an empty 200 (the CLI's `HEAD /api/hello`), the rest a 404 in the
/// API's error shape.
async fn other(method: Method) -> Response {
    if method == Method::HEAD {
        return StatusCode::OK.into_response();
    }
    let error = json!({"type": "error", "error": {"type": "not_found_error",
        "message": "scripted server: not served"}});
    (StatusCode::NOT_FOUND, axum::Json(error)).into_response()
}

/// A running scripted Messages API server with a runtime of its own.
pub struct MessagesServer {
    pub addr: SocketAddr,
    shared: Handle,
    _runtime: tokio::runtime::Runtime,
}

impl MessagesServer {
    /// Starts the server on `127.0.0.1:0` with an empty script.
    pub fn start() -> Self {
        let shared = Handle::default();
        let app = Router::new()
            .route("/v1/messages", post(messages))
            .fallback(other)
            .with_state(shared.clone());
        let (addr, runtime) = crate::serve_on_loopback(app);
        Self {
            addr,
            shared,
            _runtime: runtime,
        }
    }

    /// `ANTHROPIC_BASE_URL` for this server.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Appends `turns` to the script.
    pub fn play(&self, turns: impl IntoIterator<Item = Turn>) {
        self.shared.lock().unwrap().script.extend(turns);
    }

    /// Turns of the script not played yet.
    pub fn unplayed(&self) -> usize {
        self.shared.lock().unwrap().script.len()
    }

    /// Every `/v1/messages` request body received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.lock().unwrap().requests.clone()
    }
}

/// The text of a message's content: a string, or every text block and every tool result's text,
/// in order.
pub fn content_texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .flat_map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().map(str::to_owned).into_iter().collect(),
                Some("tool_result") => content_texts(&b["content"]),
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The texts of a request's last message (what is new in it after an assistant turn).
pub fn last_message_texts(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| content_texts(&m["content"]))
        .unwrap_or_default()
}

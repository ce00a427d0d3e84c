//! A scripted OpenAI-compatible chat-completions server on loopback, for driving the real Pi:
//! model `write-doc` makes Pi write `docs/conventions.md` with its `write` tool and then reports;
//! model `broken` answers HTTP 401 (which Pi does not retry); model `draft-workflow` plays the
//! improvement agent: given an improvement brief about TODO notes it writes
//! [`crate::TODO_WORKFLOW`] into the brief's candidate folder, and otherwise just answers; model
//! `two-step` only claims to be done on the first prompt of a session and writes [`FLOW_FILE`]
//! once the conversation holds a second prompt (a supervisor's relaunch that continued the
//! session); model `empty` answers HTTP 200 with a stream that says nothing; model `run` runs
//! the shell command that follows `RUN: ` in the conversation with Pi's `bash` tool, then
//! reports (a repository's test script, as the agent would run one). Every request body
//! is kept ([`ModelServer::requests`]) so tests can read what the model was told.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// The file the `write-doc` model writes, and its content.
pub const DOC_PATH: &str = "docs/conventions.md";
/// The content written.
pub const DOC_CONTENT: &str =
    "# Conventions\n\nRust 2024, rustfmt defaults, no unwrap in long-running code.\n";

/// The file the `two-step` model writes on its second prompt.
pub const FLOW_FILE: &str = "done.txt";

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let body = json!({"id": "chatcmpl-stanley", "object": "chat.completion.chunk", "created": 0, "model": "write-doc",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {body}\n\n")
}

/// Every request body the server received, in order.
type Received = std::sync::Arc<std::sync::Mutex<Vec<Value>>>;

async fn completions(
    axum::extract::State(received): axum::extract::State<Received>,
    body: Bytes,
) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    received.lock().unwrap().push(request.clone());
    let model = request["model"].as_str().unwrap_or("");
    if model == "empty" {
        // HTTP 200 with a stream that says nothing: no text, no tool call.
        return (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            "data: [DONE]\n\n".to_owned(),
        )
            .into_response();
    }
    if model == "broken" {
        let error = json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}});
        return (StatusCode::UNAUTHORIZED, axum::Json(error)).into_response();
    }
    let tool_results = request["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "tool").count());
    let usage = format!(
        "data: {}\n\n",
        json!({"id": "chatcmpl-stanley", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
    );
    let mut stream = String::new();
    let prompts = request["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "user").count());
    if model == "two-step" {
        if prompts < 2 {
            stream.push_str(&chunk(
                json!({"role": "assistant", "content": "All done, I believe."}),
                None,
            ));
            stream.push_str(&chunk(json!({}), Some("stop")));
        } else if tool_results == 0 {
            let args = json!({"path": FLOW_FILE, "content": "done\n"}).to_string();
            stream.push_str(&chunk(json!({"tool_calls": [{"index": 0, "id": "call_write", "type": "function", "function": {"name": "write", "arguments": args}}]}), None));
            stream.push_str(&chunk(json!({}), Some("tool_calls")));
        } else {
            stream.push_str(&chunk(
                json!({"role": "assistant", "content": format!("Wrote {FLOW_FILE}.")}),
                None,
            ));
            stream.push_str(&chunk(json!({}), Some("stop")));
        }
        stream.push_str(&usage);
        stream.push_str("data: [DONE]\n\n");
        return (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            stream,
        )
            .into_response();
    }
    if model == "run" {
        let text: Vec<String> = request["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "user")
            .flat_map(|m| match &m["content"] {
                Value::String(t) => vec![t.clone()],
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let command = text
            .iter()
            .find_map(|t| t.split("RUN: ").nth(1))
            .and_then(|rest| rest.lines().next())
            .unwrap_or_default()
            .to_owned();
        if tool_results == 0 && !command.is_empty() {
            let args = json!({"command": command}).to_string();
            stream.push_str(&chunk(json!({"tool_calls": [{"index": 0, "id": "call_bash", "type": "function", "function": {"name": "bash", "arguments": args}}]}), None));
            stream.push_str(&chunk(json!({}), Some("tool_calls")));
        } else {
            stream.push_str(&chunk(
                json!({"role": "assistant", "content": "Ran it."}),
                None,
            ));
            stream.push_str(&chunk(json!({}), Some("stop")));
        }
        stream.push_str(&usage);
        stream.push_str("data: [DONE]\n\n");
        return (
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            stream,
        )
            .into_response();
    }
    let draft = (model == "draft-workflow")
        .then(|| crate::brief_candidate_file(&request["messages"].to_string()))
        .flatten();
    if model == "draft-workflow" && (draft.is_none() || tool_results > 0) {
        let reply = match &draft {
            Some(path) => format!("Wrote {path}."),
            None => "Nothing to do.".to_owned(),
        };
        stream.push_str(&chunk(json!({"role": "assistant", "content": reply}), None));
        stream.push_str(&chunk(json!({}), Some("stop")));
    } else if let Some(path) = draft {
        let args = json!({"path": path, "content": crate::TODO_WORKFLOW}).to_string();
        stream.push_str(&chunk(json!({"tool_calls": [{"index": 0, "id": "call_write", "type": "function", "function": {"name": "write", "arguments": args}}]}), None));
        stream.push_str(&chunk(json!({}), Some("tool_calls")));
    } else if tool_results == 0 {
        stream.push_str(&chunk(
            json!({"role": "assistant", "content": "Writing the file."}),
            None,
        ));
        let args = json!({"path": DOC_PATH, "content": DOC_CONTENT}).to_string();
        stream.push_str(&chunk(json!({"tool_calls": [{"index": 0, "id": "call_write", "type": "function", "function": {"name": "write", "arguments": args}}]}), None));
        stream.push_str(&chunk(json!({}), Some("tool_calls")));
    } else {
        stream.push_str(&chunk(json!({"role": "assistant", "content": format!("Wrote {DOC_PATH}. Verified nothing else.")}), None));
        stream.push_str(&chunk(json!({}), Some("stop")));
    }
    stream.push_str(&usage);
    stream.push_str("data: [DONE]\n\n");
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        stream,
    )
        .into_response()
}

/// A running model server with a runtime of its own.
pub struct ModelServer {
    pub addr: SocketAddr,
    received: Received,
    _runtime: tokio::runtime::Runtime,
}

impl ModelServer {
    /// Starts the server on `127.0.0.1:0`.
    pub fn start() -> Self {
        let received = Received::default();
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(received.clone());
        let (addr, runtime) = crate::serve_on_loopback(app);
        Self {
            addr,
            received,
            _runtime: runtime,
        }
    }

    /// The request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.received.lock().unwrap().clone()
    }

    /// Pi's `models.json` registering this server as provider `mock`.
    pub fn models_json(&self) -> String {
        json!({"providers": {"mock": {
            "baseUrl": format!("http://{}/v1", self.addr),
            "api": "openai-completions",
            "apiKey": "mock-key",
            "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
            "models": [{"id": "write-doc"}, {"id": "broken"}, {"id": "draft-workflow"}, {"id": "two-step"}, {"id": "empty"}, {"id": "run"}],
        }}})
        .to_string()
    }
}

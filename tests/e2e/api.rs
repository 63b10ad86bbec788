//! A stand-in of the Anthropic Messages API on a loopback port: a small HTTP/1.1 server that
//! answers `POST /v1/messages` with scripted server-sent events and records every request body.
//!
//! A conversation is picked by a marker in its prompt (the first user message); its step is the
//! number of assistant turns already in `messages`. Requests without `tools` are side calls and
//! get a short text; `count_tokens` gets a fixed count.

use std::collections::HashMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

/// The request reader shared with the Gemini CLI and Codex stand-ins.
#[path = "../e2e_hosts/http.rs"]
mod http;

/// One scripted assistant turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Call a tool with this input.
    Tool { name: String, input: Value },
    /// Call several tools in one answer (each a [`Step::Tool`]); the host runs them, in
    /// parallel where it can, and answers with all their results in one request.
    Tools(Vec<Step>),
    /// Say this and end the turn.
    Text(String),
}

impl Step {
    /// A tool call.
    pub fn tool(name: &str, input: Value) -> Step {
        Step::Tool {
            name: name.to_owned(),
            input,
        }
    }

    /// `Read` of an absolute path.
    pub fn read(path: &std::path::Path) -> Step {
        Step::tool("Read", json!({"file_path": path}))
    }

    /// `Edit` of an absolute path.
    pub fn edit(path: &std::path::Path, old: &str, new: &str) -> Step {
        Step::tool(
            "Edit",
            json!({"file_path": path, "old_string": old, "new_string": new}),
        )
    }

    /// `Agent` launching a sub-agent of type `kind` with `prompt` (its first user message,
    /// which should start with the sub-agent's own script marker).
    pub fn agent(description: &str, prompt: &str, kind: &str) -> Step {
        Step::tool(
            "Agent",
            json!({"description": description, "prompt": prompt, "subagent_type": kind}),
        )
    }

    /// `Bash` running `command`.
    pub fn bash(command: &str) -> Step {
        Step::tool(
            "Bash",
            json!({"command": command, "description": "scripted step", "timeout": 120000}),
        )
    }
}

/// One request the stand-in received.
#[derive(Debug, Clone)]
pub struct Request {
    /// Request path with query.
    pub path: String,
    /// The JSON body (Null when there was none or it did not parse).
    pub body: Value,
    /// The script marker found in it, if any.
    pub marker: Option<String>,
    /// The step answered (assistant turns already present), for scripted calls.
    pub step: Option<usize>,
}

impl Request {
    /// The `messages` array of the body.
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

#[derive(Default)]
struct Shared {
    scripts: HashMap<String, Vec<Step>>,
    log: Vec<Request>,
}

/// The running stand-in. It lives as long as the test process; dropping the handle leaves the
/// listener thread idle.
#[derive(Clone)]
pub struct StandIn {
    port: u16,
    shared: Arc<Mutex<Shared>>,
}

impl StandIn {
    /// Bind 127.0.0.1 on a free port and serve in background threads.
    pub fn start() -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("stand-in API: cannot bind a loopback port: {e}"));
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let state = Arc::clone(&shared);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&state);
                thread::spawn(move || {
                    let _ = serve(stream, &state);
                });
            }
        });
        StandIn { port, shared }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Register the script for conversations whose prompt holds `marker`.
    pub fn script(&self, marker: &str, steps: Vec<Step>) {
        self.shared
            .lock()
            .unwrap()
            .scripts
            .insert(marker.to_owned(), steps);
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().unwrap().log.clone()
    }

    /// The scripted requests of the conversation marked `marker`, in arrival order.
    pub fn conversation(&self, marker: &str) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| r.marker.as_deref() == Some(marker) && r.step.is_some())
            .collect()
    }

    /// The `tool_result` block answering the tool call of `step` in the conversation `marker`,
    /// as the model saw it in a later request.
    pub fn tool_result(&self, marker: &str, step: usize) -> Option<Value> {
        self.result_of(marker, &tool_use_id(marker, step))
    }

    /// The `tool_result` answering call `index` of the several tool calls of `step`
    /// ([`Step::Tools`]) in the conversation `marker`.
    pub fn tool_result_at(&self, marker: &str, step: usize, index: usize) -> Option<Value> {
        self.result_of(marker, &block_id(&tool_use_id(marker, step), index))
    }

    fn result_of(&self, marker: &str, id: &str) -> Option<Value> {
        self.conversation(marker).iter().find_map(|r| {
            r.messages()
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id)
                .cloned()
        })
    }

    /// The text of every message with role `system` the conversation `marker` sent, in order,
    /// each once.
    pub fn system_texts(&self, marker: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.conversation(marker) {
            for m in r.messages().iter().filter(|m| m["role"] == "system") {
                let text = content_text(&m["content"]);
                if !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        out
    }

    /// A one-line-per-request summary, for failure reports.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for r in self.requests() {
            let tools = r.body.get("tools").is_some_and(|t| !t.is_null());
            out.push_str(&format!(
                "  {} marker={:?} step={:?} messages={} tools={}\n",
                r.path,
                r.marker,
                r.step,
                r.messages().len(),
                tools
            ));
        }
        out
    }
}

/// The id the stand-in gives the tool call of `step` in the conversation marked `marker`.
pub fn tool_use_id(marker: &str, step: usize) -> String {
    let plain: String = marker.chars().filter(char::is_ascii_alphanumeric).collect();
    format!("toolu_{plain}_{step}")
}

/// The id of call `index` of an answer with several tool calls whose step id is `id`.
fn block_id(id: &str, index: usize) -> String {
    format!("{id}_{index}")
}

/// The text of a message's content: the string, or its text blocks joined.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match &b["content"] {
                Value::Null => b["text"].as_str().unwrap_or_default().to_owned(),
                inner => content_text(inner),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The text blocks of the first user message, in order.
fn first_user_texts(body: &Value) -> Vec<String> {
    let Some(first) = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
    else {
        return Vec::new();
    };
    match &first["content"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The marker of the conversation: a registered marker that starts a text block of the first
/// user message (prompts start with their marker), else the one found latest there (the prompt
/// comes after any context the host puts before it; hook context may quote other prompts).
fn find_marker(body: &Value, scripts: &HashMap<String, Vec<Step>>) -> Option<String> {
    let texts = first_user_texts(body);
    let leading = texts.iter().find_map(|t| {
        scripts
            .keys()
            .find(|m| t.trim_start().starts_with(m.as_str()))
    });
    if let Some(m) = leading {
        return Some(m.clone());
    }
    for text in texts.iter().rev() {
        let found = scripts
            .keys()
            .filter_map(|m| text.rfind(m.as_str()).map(|at| (at, m)))
            .max();
        if let Some((_, m)) = found {
            return Some(m.clone());
        }
    }
    None
}

/// Handle one connection: one request, one answer, then close.
fn serve(stream: TcpStream, state: &Mutex<Shared>) -> std::io::Result<()> {
    let (method, path, body) = http::read_request(&stream)?;
    let mut out = stream;
    let route = path.split('?').next().unwrap_or("");
    if method != "POST" || !route.starts_with("/v1/messages") {
        record(state, &path, body, None, None);
        return respond_json(
            &mut out,
            404,
            &json!({"type": "error", "error": {"type": "not_found_error", "message": "stand-in: no such route"}}),
        );
    }
    if route.ends_with("/count_tokens") {
        record(state, &path, body, None, None);
        return respond_json(&mut out, 200, &json!({"input_tokens": 42}));
    }
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let stream_wanted = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let model = body["model"]
        .as_str()
        .unwrap_or("claude-stand-in")
        .to_owned();
    let (step, marker, answer) = {
        let mut shared = state.lock().unwrap();
        let marker = find_marker(&body, &shared.scripts);
        let (step, answer) = if has_tools {
            let step = body["messages"]
                .as_array()
                .map(|m| m.iter().filter(|m| m["role"] == "assistant").count())
                .unwrap_or(0);
            let answer = marker
                .as_ref()
                .and_then(|m| shared.scripts.get(m))
                .and_then(|s| s.get(step).cloned())
                .unwrap_or_else(|| Step::Text("done".into()));
            (Some(step), answer)
        } else {
            (None, Step::Text("ok".into()))
        };
        shared.log.push(Request {
            path: path.clone(),
            body,
            marker: marker.clone(),
            step,
        });
        (step, marker, answer)
    };
    let id = tool_use_id(marker.as_deref().unwrap_or("none"), step.unwrap_or(999));
    if stream_wanted {
        respond_sse(&mut out, &model, &id, &answer)
    } else {
        respond_json(&mut out, 200, &whole_message(&model, &id, &answer))
    }
}

fn record(
    state: &Mutex<Shared>,
    path: &str,
    body: Value,
    marker: Option<String>,
    step: Option<usize>,
) {
    state.lock().unwrap().log.push(Request {
        path: path.to_owned(),
        body,
        marker,
        step,
    });
}

fn respond_json(out: &mut TcpStream, status: u16, value: &Value) -> std::io::Result<()> {
    let text = value.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )?;
    out.flush()
}

/// The content blocks of `answer`, and the stop reason. Several tool calls get ids `ID_0`,
/// `ID_1`, ...
fn blocks(id: &str, answer: &Step) -> (Vec<Value>, &'static str) {
    match answer {
        Step::Tool { name, input } => (
            vec![json!({"type": "tool_use", "id": id, "name": name, "input": input})],
            "tool_use",
        ),
        Step::Tools(steps) => {
            let mut out = Vec::new();
            for (i, step) in steps.iter().enumerate() {
                out.extend(blocks(&block_id(id, i), step).0);
            }
            (out, "tool_use")
        }
        Step::Text(text) => (vec![json!({"type": "text", "text": text})], "end_turn"),
    }
}

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn whole_message(model: &str, id: &str, answer: &Step) -> Value {
    let (content, stop) = blocks(id, answer);
    json!({
        "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage(),
    })
}

fn respond_sse(out: &mut TcpStream, model: &str, id: &str, answer: &Step) -> std::io::Result<()> {
    let (content, stop) = blocks(id, answer);
    let mut events = vec![json!({"type": "message_start", "message": {
        "id": format!("msg_{id}"), "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}})];
    for (index, block) in content.iter().enumerate() {
        let (start, delta) = if block["type"] == "tool_use" {
            let mut start = block.clone();
            start["input"] = json!({});
            let delta =
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()});
            (start, delta)
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 10}}),
    );
    events.push(json!({"type": "message_stop"}));
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    )?;
    for event in events {
        write!(
            out,
            "event: {}\ndata: {}\n\n",
            event["type"].as_str().unwrap(),
            event
        )?;
    }
    out.flush()
}

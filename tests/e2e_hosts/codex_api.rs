//! A stand-in of the OpenAI Responses API (`POST /v1/responses`) for Codex: each turn answers
//! with the next scripted tool call (`exec_command` as a function call, `apply_patch` as a
//! custom tool call), then with a message.

use serde_json::{Value, json};

use super::http::{Reply, Request, Server};

/// A shell command through Codex's `exec_command` tool.
pub fn exec(cmd: &str) -> Value {
    json!({"type": "function_call", "name": "exec_command",
           "arguments": json!({"cmd": cmd}).to_string()})
}

/// A patch through Codex's freeform `apply_patch` tool.
pub fn patch(text: &str) -> Value {
    json!({"type": "custom_tool_call", "name": "apply_patch", "input": text})
}

/// Start a stand-in that plays `script` (one tool call per turn).
pub fn start(script: Vec<Value>) -> Server {
    Server::start(move |r| answer(r, &script))
}

fn answer(r: &Request, script: &[Value]) -> Reply {
    if r.method != "POST" {
        return Reply::json(&json!({"models": []}));
    }
    let step = tool_calls(&r.body);
    let id = format!("resp_{step}");
    let item = match script.get(step) {
        Some(call) => {
            let mut item = call.clone();
            item["id"] = json!(format!("item_{step}"));
            item["call_id"] = json!(call_id(step));
            item["status"] = json!("completed");
            item
        }
        None => json!({"type": "message", "role": "assistant", "id": format!("msg_{step}"),
            "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}]}),
    };
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15});
    let events = [
        json!({"type": "response.created", "response": {"id": id}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": id, "usage": usage}}),
    ];
    Reply::sse(
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
            .collect(),
    )
}

/// The call id the stand-in gives the tool call of `step`.
pub fn call_id(step: usize) -> String {
    format!("call_{step}")
}

/// How many tool calls a request's `input` already holds.
fn tool_calls(body: &Value) -> usize {
    body["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| {
                    matches!(
                        i["type"].as_str(),
                        Some("function_call" | "custom_tool_call")
                    )
                })
                .count()
        })
        .unwrap_or(0)
}

/// The output Codex sent back for the tool call of `step`, from any later request.
pub fn tool_output(server: &Server, step: usize) -> Option<String> {
    let id = call_id(step);
    server.requests().iter().find_map(|r| {
        r.body["input"].as_array()?.iter().find_map(|i| {
            let kind = i["type"].as_str()?;
            (kind.ends_with("_output") && i["call_id"] == id.as_str()).then(|| {
                i["output"]
                    .as_str()
                    .map_or_else(|| i["output"].to_string(), str::to_owned)
            })
        })
    })
}

/// The text of every `developer` or `system` message Codex sent, in order, each once.
pub fn context_texts(server: &Server) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in server.requests() {
        for item in r.body["input"].as_array().into_iter().flatten() {
            if item["type"] != "message"
                || !matches!(item["role"].as_str(), Some("developer" | "system"))
            {
                continue;
            }
            for part in item["content"].as_array().into_iter().flatten() {
                if let Some(text) = part["text"].as_str()
                    && !out.iter().any(|t| t == text)
                {
                    out.push(text.to_owned());
                }
            }
        }
    }
    out
}

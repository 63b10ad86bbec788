//! A stand-in of the Gemini API (`:streamGenerateContent?alt=sse`): each model turn answers with
//! the next scripted function call, then with text; side calls (`:generateContent`,
//! `:countTokens`) get fixed answers.

use serde_json::{Value, json};

use super::http::{Reply, Request, Server};

/// One scripted function call: the tool's name and its arguments.
pub fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}

/// Start a stand-in that plays `script` (one function call per model turn).
pub fn start(script: Vec<Value>) -> Server {
    Server::start(move |r| answer(r, &script))
}

fn answer(r: &Request, script: &[Value]) -> Reply {
    if r.path.contains(":countTokens") {
        return Reply::json(&json!({"totalTokens": 42}));
    }
    let usage = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15});
    if !r.path.contains(":streamGenerateContent") {
        // Side calls ask for JSON matching a schema; an empty object satisfies the ones seen.
        return Reply::json(&json!({"candidates": [{"content": {"role": "model",
            "parts": [{"text": "{}"}]}, "finishReason": "STOP"}], "usageMetadata": usage}));
    }
    let turns = model_turns(&r.body);
    let part = match script.get(turns) {
        Some(call) => {
            let mut call = call.clone();
            call["id"] = json!(format!("call_{turns}"));
            json!({"functionCall": call})
        }
        None => json!({"text": "done"}),
    };
    let event = json!({"candidates": [{"content": {"role": "model", "parts": [part]},
        "finishReason": "STOP", "index": 0}], "usageMetadata": usage});
    Reply::sse(format!("data: {event}\r\n\r\n"))
}

/// How many model turns a request's `contents` already hold.
pub fn model_turns(body: &Value) -> usize {
    body["contents"]
        .as_array()
        .map(|c| c.iter().filter(|m| m["role"] == "model").count())
        .unwrap_or(0)
}

/// The `functionResponse.response` the model was sent for the tool call of turn `step`, as
/// found in any later request.
pub fn function_response(server: &Server, step: usize) -> Option<Value> {
    let id = format!("call_{step}");
    server.requests().iter().find_map(|r| {
        r.body["contents"]
            .as_array()?
            .iter()
            .filter_map(|m| m["parts"].as_array())
            .flatten()
            .find(|p| p["functionResponse"]["id"] == id.as_str())
            .map(|p| p["functionResponse"]["response"].clone())
    })
}

//! Gemini CLI's hook wire format: `BeforeTool` / `AfterTool` with its own tool names
//! (`write_file`, `replace`, `read_file`, `run_shell_command`), `BeforeAgent` for the prompt and
//! the session events, and the `decision` / `systemMessage` / `additionalContext` answers.
//!
//! Gemini gives the model no hook context before a tool runs (`BeforeTool` has no
//! `additionalContext`), so an edit is checked twice: at `BeforeTool` (the claim is taken before
//! the write lands and the person is told) and again at `AfterTool`, whose `additionalContext`
//! is appended to the tool result the model reads.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{
    CANNOT_ASK, CANNOT_ASK_PERSON, EditChange, Event, EventKind, Host, Output, ProtocolError,
    Response, StartSource, common,
};

/// The fields of Gemini CLI's input that git-dibs reads; everything else is ignored.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Input {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    tool_name: Option<String>,
    tool_input: Value,
    tool_response: Value,
    prompt: Option<String>,
    source: Option<String>,
    reason: Option<String>,
    mcp_context: Value,
}

/// Gemini's tools that write the file named in `file_path`.
const EDIT_TOOLS: &[&str] = &["write_file", "replace"];
/// Gemini's file-reading tool.
const READ_TOOL: &str = "read_file";
/// Gemini's shell tool.
const SHELL_TOOL: &str = "run_shell_command";
/// How Gemini names an MCP server's tools: `mcp_<server>_<tool>`.
const MCP_PREFIX: &str = "mcp_";

pub(super) fn parse(value: Value) -> Result<Event, ProtocolError> {
    let input: Input = common::typed(value)?;
    let event_name = common::required([input.hook_event_name.as_ref()], "hook_event_name")?;
    let session_id = common::required([input.session_id.as_ref()], "session_id")?;
    let mut cwd = common::directory([input.cwd.as_deref()])?;
    let tool = input.tool_name.clone().unwrap_or_default();
    let before = event_name == "BeforeTool";
    let failed = !matches!(input.tool_response.get("error"), None | Some(Value::Null));
    let kind = match event_name.as_str() {
        "BeforeTool" | "AfterTool" if EDIT_TOOLS.contains(&tool.as_str()) => {
            match file_path(&input.tool_input) {
                // AfterTool checks again: only there can the model be told (see the module doc).
                Some(path) if before || !failed => {
                    // After the tool ran, the file already holds its result.
                    let change = if before {
                        common::edit_change(&input.tool_input)
                    } else {
                        EditChange::Unknown
                    };
                    EventKind::BeforeEdit {
                        tool,
                        paths: vec![path],
                        change,
                    }
                }
                _ => EventKind::Ignored,
            }
        }
        "AfterTool" if tool == READ_TOOL => match file_path(&input.tool_input) {
            Some(path) if !failed => EventKind::AfterRead { path },
            _ => EventKind::Ignored,
        },
        "BeforeTool" | "AfterTool" if tool == SHELL_TOOL => {
            match input.tool_input.get("command").and_then(Value::as_str) {
                Some(command) => {
                    if let Some(dir) = input.tool_input.get("dir_path").and_then(Value::as_str)
                        && !dir.is_empty()
                    {
                        cwd = cwd.join(Path::new(dir));
                    }
                    let command = command.to_owned();
                    if before {
                        EventKind::BeforeShell { command }
                    } else {
                        // `is_background: true`: the host started it in the background and
                        // AfterTool comes at once, so the job writes after it.
                        EventKind::AfterShell {
                            command,
                            took: None,
                            background: input.tool_input.get("is_background")
                                == Some(&Value::Bool(true)),
                        }
                    }
                }
                None => EventKind::Ignored,
            }
        }
        // An MCP server's tool: anything it writes is found by state. Its own name is known
        // only when the host says (`mcp_context.tool_name`): a server's name may hold `_`.
        "BeforeTool" | "AfterTool" if tool.starts_with(MCP_PREFIX) => {
            let name = match input.mcp_context.get("tool_name").and_then(Value::as_str) {
                Some(own) if !own.is_empty() => own.to_owned(),
                _ => tool.clone(),
            };
            if before {
                EventKind::BeforeOtherTool { tool, name }
            } else {
                EventKind::AfterOtherTool {
                    tool,
                    name,
                    took: None,
                }
            }
        }
        "BeforeAgent" => EventKind::Prompt {
            prompt: input.prompt.clone().unwrap_or_default(),
        },
        "SessionStart" => EventKind::SessionStart {
            source: StartSource::from_name(input.source.as_deref()),
        },
        "SessionEnd" => EventKind::SessionEnd {
            reason: input.reason.clone().unwrap_or_default(),
        },
        _ => EventKind::Ignored,
    };
    Ok(Event {
        host: Host::Gemini,
        session_id,
        cwd,
        event_name,
        actor: None,
        call: None,
        kind,
    })
}

/// The file a tool's input names (`file_path`, or `absolute_path` in older versions).
fn file_path(tool_input: &Value) -> Option<PathBuf> {
    common::first_path(tool_input, &["file_path", "absolute_path"])
}

/// Events whose `hookSpecificOutput.additionalContext` reaches the model.
pub(super) fn takes_context(event: &str) -> bool {
    matches!(event, "AfterTool" | "BeforeAgent" | "SessionStart")
}

/// Events a `decision: "deny"` acts on.
fn takes_decision(event: &str) -> bool {
    matches!(event, "BeforeTool" | "AfterTool" | "BeforeAgent")
}

pub(super) fn render(event: &Event, response: &Response) -> Output {
    let name = event.event_name.as_str();
    let mut out = Map::new();
    match response {
        Response::Silent => return Output::default(),
        Response::Warn { model, .. } if name == "AfterTool" => {
            // The person was told at BeforeTool; this one is for the model.
            out.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": name, "additionalContext": model}),
            );
        }
        Response::Warn { person, model } => {
            out.insert("systemMessage".into(), json!(person));
            if takes_context(name) {
                out.insert(
                    "hookSpecificOutput".into(),
                    json!({"hookEventName": name, "additionalContext": model}),
                );
            }
        }
        Response::Deny { reason, person } if takes_decision(name) => {
            out.insert("decision".into(), json!("deny"));
            out.insert("reason".into(), json!(reason));
            if let Some(person) = person {
                out.insert("systemMessage".into(), json!(person));
            }
        }
        Response::Ask { reason } if takes_decision(name) => {
            // Gemini's own `ask` waits for a confirmation that a headless run never gives (the
            // session hangs until killed): refuse and say why instead.
            let reason = format!("{reason}{CANNOT_ASK}");
            out.insert("decision".into(), json!("deny"));
            out.insert("reason".into(), json!(reason));
            out.insert(
                "systemMessage".into(),
                json!(format!("{reason}{CANNOT_ASK_PERSON}")),
            );
        }
        Response::Deny { reason, .. } | Response::Ask { reason } => {
            return Output::blocking(reason.clone());
        }
    }
    Output::json(&Value::Object(out))
}

//! Cursor's hook wire format: the camelCase events of its native `hooks.json` (and of Claude
//! Code hooks it imports from `.claude/settings.json`), keyed by `conversation_id`, and the
//! `permission` / `user_message` / `agent_message` answers it accepts back.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{
    CANNOT_ASK, CANNOT_ASK_PERSON, EditChange, Event, EventKind, Host, Output, ProtocolError,
    Response, StartSource, common,
};

/// The fields of Cursor's input that git-dibs reads; everything else is ignored.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Input {
    hook_event_name: Option<String>,
    conversation_id: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    workspace_roots: Vec<Value>,
    tool_name: Option<String>,
    tool_input: Value,
    file_path: Option<String>,
    command: Option<String>,
    prompt: Option<String>,
    reason: Option<String>,
    duration: Value,
    tool_use_id: Value,
}

/// Cursor's tools that write or remove the file named in their input.
const EDIT_TOOLS: &[&str] = &["Write", "Delete", "Edit", "MultiEdit", "NotebookEdit"];
/// How Cursor's generic tool events name an MCP server's tool: `MCP:<tool>`.
const MCP_PREFIX: &str = "MCP:";
/// Cursor's shell tool (and Claude's name for it, in imported hooks).
const SHELL_TOOLS: &[&str] = &["Shell", "Bash"];

/// The event name in Cursor's native spelling: Claude-style names of imported hooks mapped the
/// way Cursor maps them.
fn native(name: &str) -> &str {
    match name {
        "PreToolUse" => "preToolUse",
        "PostToolUse" => "postToolUse",
        "UserPromptSubmit" => "beforeSubmitPrompt",
        "SessionStart" => "sessionStart",
        "SessionEnd" => "sessionEnd",
        other => other,
    }
}

pub(super) fn parse(value: Value) -> Result<Event, ProtocolError> {
    let input: Input = common::typed(value)?;
    let event_name = common::required([input.hook_event_name.as_ref()], "hook_event_name")?;
    let session_id = common::required(
        [input.conversation_id.as_ref(), input.session_id.as_ref()],
        "conversation_id",
    )?;
    let root = input.workspace_roots.iter().find_map(Value::as_str);
    let cwd = common::directory([input.cwd.as_deref(), root])?;
    let (kind, cwd) = kind(&input, native(&event_name), cwd);
    Ok(Event {
        host: Host::Cursor,
        session_id,
        cwd,
        event_name,
        actor: None,
        call: common::call_id(&input.tool_use_id),
        kind,
    })
}

/// The host-neutral meaning of one Cursor event, and the directory it happens in.
fn kind(input: &Input, event: &str, cwd: PathBuf) -> (EventKind, PathBuf) {
    let tool = input.tool_name.clone().unwrap_or_default();
    let kind = match event {
        "preToolUse" | "postToolUse" if EDIT_TOOLS.contains(&tool.as_str()) => {
            let paths = tool_paths(&input.tool_input);
            match (paths.is_empty(), event) {
                (true, _) => EventKind::Ignored,
                (false, "preToolUse") => {
                    // Cursor's Delete tool leaves nothing of the file.
                    let change = if tool == "Delete" {
                        EditChange::Delete
                    } else {
                        common::edit_change(&input.tool_input)
                    };
                    EventKind::BeforeEdit {
                        tool,
                        paths,
                        change,
                    }
                }
                (false, _) => EventKind::AfterEdit { tool, paths },
            }
        }
        "preToolUse" | "postToolUse" if SHELL_TOOLS.contains(&tool.as_str()) => {
            let dir = input
                .tool_input
                .get("working_directory")
                .or_else(|| input.tool_input.get("cwd"))
                .and_then(Value::as_str)
                .filter(|d| !d.is_empty());
            let Some(command) = input.tool_input.get("command").and_then(Value::as_str) else {
                return (EventKind::Ignored, cwd);
            };
            let cwd = dir.map_or(cwd.clone(), |d| cwd.join(d));
            let command = command.to_owned();
            return match event {
                "preToolUse" => (EventKind::BeforeShell { command }, cwd),
                _ => (
                    EventKind::AfterShell {
                        command,
                        took: common::took_ms(&input.duration),
                        background: false,
                    },
                    cwd,
                ),
            };
        }
        // An MCP server's tool: anything it writes is found by state. Cursor names it in its
        // own MCP events, and as `MCP:<tool>` in the generic tool events.
        "beforeMCPExecution" | "preToolUse" | "afterMCPExecution" | "postToolUse"
        | "postToolUseFailure"
            if event.ends_with("MCPExecution") || tool.starts_with(MCP_PREFIX) =>
        {
            let name = tool
                .strip_prefix(MCP_PREFIX)
                .filter(|n| !n.is_empty())
                .unwrap_or(&tool)
                .to_owned();
            if event == "beforeMCPExecution" || event == "preToolUse" {
                EventKind::BeforeOtherTool { tool, name }
            } else {
                EventKind::AfterOtherTool {
                    tool,
                    name,
                    took: common::took_ms(&input.duration),
                }
            }
        }
        "postToolUse" if tool == "Read" => match tool_paths(&input.tool_input).pop() {
            Some(path) => EventKind::AfterRead { path },
            None => EventKind::Ignored,
        },
        "afterFileEdit" => match nonempty(&input.file_path) {
            Some(path) => EventKind::AfterEdit {
                tool: "Write".to_owned(),
                paths: vec![path],
            },
            None => EventKind::Ignored,
        },
        "beforeShellExecution" | "afterShellExecution" => match &input.command {
            Some(c) if event == "beforeShellExecution" => {
                EventKind::BeforeShell { command: c.clone() }
            }
            Some(c) => EventKind::AfterShell {
                command: c.clone(),
                took: common::took_ms(&input.duration),
                background: false,
            },
            None => EventKind::Ignored,
        },
        "beforeSubmitPrompt" => EventKind::Prompt {
            prompt: input.prompt.clone().unwrap_or_default(),
        },
        "sessionStart" => EventKind::SessionStart {
            source: StartSource::Startup,
        },
        "sessionEnd" => EventKind::SessionEnd {
            reason: input.reason.clone().unwrap_or_default(),
        },
        _ => EventKind::Ignored,
    };
    (kind, cwd)
}

fn nonempty(path: &Option<String>) -> Option<PathBuf> {
    path.as_deref()
        .filter(|p| !p.is_empty() && !p.contains('\0'))
        .map(PathBuf::from)
}

/// The file a tool's input names: `file_path`, else `path`, `target_file` or `notebook_path`.
fn tool_paths(tool_input: &Value) -> Vec<PathBuf> {
    common::first_path(
        tool_input,
        &["file_path", "path", "target_file", "notebook_path"],
    )
    .into_iter()
    .collect()
}

/// Events whose answer carries a `permission`.
fn has_permission(event: &str) -> bool {
    matches!(
        event,
        "preToolUse" | "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile"
    )
}

pub(super) fn render(event: &Event, response: &Response) -> Output {
    let name = native(&event.event_name);
    let mut out = Map::new();
    match response {
        Response::Silent => return Output::default(),
        Response::Warn { person, model } => match name {
            "preToolUse" | "beforeShellExecution" => {
                out.insert("user_message".into(), json!(person));
                out.insert("agent_message".into(), json!(model));
            }
            "postToolUse" | "sessionStart" => {
                out.insert("additional_context".into(), json!(model));
            }
            "beforeSubmitPrompt" => {
                out.insert("continue".into(), json!(true));
                out.insert("user_message".into(), json!(person));
            }
            // afterFileEdit, afterShellExecution, sessionEnd: nothing reaches anyone.
            _ => {
                return Output::note(person.clone());
            }
        },
        Response::Deny { reason, person } if has_permission(name) => {
            out.insert("permission".into(), json!("deny"));
            out.insert(
                "user_message".into(),
                json!(person.as_ref().unwrap_or(reason)),
            );
            out.insert("agent_message".into(), json!(reason));
        }
        Response::Ask { reason } if name == "beforeShellExecution" => {
            out.insert("permission".into(), json!("ask"));
            out.insert("user_message".into(), json!(reason));
            out.insert("agent_message".into(), json!(reason));
        }
        Response::Ask { reason } if has_permission(name) => {
            // preToolUse accepts `ask` but does not enforce it: refuse rather than let through.
            let reason = format!("{reason}{CANNOT_ASK}");
            out.insert("permission".into(), json!("deny"));
            out.insert(
                "user_message".into(),
                json!(format!("{reason}{CANNOT_ASK_PERSON}")),
            );
            out.insert("agent_message".into(), json!(reason));
        }
        Response::Deny { reason, .. } | Response::Ask { reason }
            if name == "beforeSubmitPrompt" =>
        {
            out.insert("continue".into(), json!(false));
            out.insert("user_message".into(), json!(reason));
        }
        Response::Deny { reason, .. } | Response::Ask { reason } => {
            return Output::blocking(reason.clone());
        }
    }
    Output::json(&Value::Object(out))
}

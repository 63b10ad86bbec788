//! Claude Code's hook wire format: the stdin object of every event it sends, and the JSON it
//! accepts back (`systemMessage`, `hookSpecificOutput`).

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Event, EventKind, Host, Output, ProtocolError, Response, StartSource, SubAgent, common,
};

/// The fields of Claude Code's input that git-dibs reads; everything else is ignored.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Input {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    tool_name: Option<String>,
    tool_input: Value,
    source: Option<String>,
    reason: Option<String>,
    prompt: Option<String>,
    agent_id: Option<String>,
    agent_type: Option<String>,
    tool_use_id: Value,
    file_path: Option<String>,
    duration_ms: Value,
    tool_response: Value,
}

/// Tools that write a file named in their input.
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

pub(super) fn parse(value: Value) -> Result<Event, ProtocolError> {
    let input: Input = common::typed(value)?;
    let event_name = common::required([input.hook_event_name.as_ref()], "hook_event_name")?;
    let session_id = common::required([input.session_id.as_ref()], "session_id")?;
    let cwd = common::directory([input.cwd.as_deref()])?;
    let tool = input.tool_name.unwrap_or_default();
    let actor = SubAgent::from_fields(input.agent_id.as_deref(), input.agent_type.as_deref());
    let kind = match event_name.as_str() {
        "PreToolUse" | "PostToolUse" if EDIT_TOOLS.contains(&tool.as_str()) => {
            let paths = edit_paths(&input.tool_input);
            if paths.is_empty() {
                EventKind::Ignored
            } else if event_name == "PreToolUse" {
                // Read whatever the name: a link may make any path a settings file.
                let change = common::edit_change(&input.tool_input);
                EventKind::BeforeEdit {
                    tool,
                    paths,
                    change,
                }
            } else {
                EventKind::AfterEdit { tool, paths }
            }
        }
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" if tool == "Bash" => match input
            .tool_input
            .get("command")
        {
            Some(Value::String(command)) if event_name == "PreToolUse" => EventKind::BeforeShell {
                command: command.clone(),
            },
            Some(Value::String(command)) => EventKind::AfterShell {
                command: command.clone(),
                took: common::took_ms(&input.duration_ms),
                background: input.tool_input.get("run_in_background") == Some(&Value::Bool(true))
                    || input.tool_response.get("backgroundTaskId").is_some(),
            },
            _ => EventKind::Ignored,
        },
        "PreToolUse" if tool == "ExitWorktree" => match input.tool_input.get("action") {
            Some(Value::String(a)) if a == "remove" => EventKind::BeforeWorktreeRemove {
                discard_changes: input.tool_input.get("discard_changes")
                    == Some(&Value::Bool(true)),
            },
            _ => EventKind::Ignored,
        },
        // An MCP server's tool (`mcp__<server>__<tool>`): anything it writes is found by state.
        "PreToolUse" if tool.starts_with(common::MCP_PREFIX) => EventKind::BeforeOtherTool {
            name: common::mcp_name(&tool),
            tool,
        },
        "PostToolUse" | "PostToolUseFailure" if tool.starts_with(common::MCP_PREFIX) => {
            EventKind::AfterOtherTool {
                name: common::mcp_name(&tool),
                tool,
                took: common::took_ms(&input.duration_ms),
            }
        }
        "SubagentStart" if actor.is_some() => EventKind::SubAgentStart,
        "SubagentStop" if actor.is_some() => EventKind::SubAgentStop,
        "PostToolUse" if tool == "Read" => match edit_paths(&input.tool_input).pop() {
            Some(path) => EventKind::AfterRead { path },
            None => EventKind::Ignored,
        },
        "SessionStart" => EventKind::SessionStart {
            source: StartSource::from_name(input.source.as_deref()),
        },
        "SessionEnd" => EventKind::SessionEnd {
            reason: input.reason.unwrap_or_default(),
        },
        "ConfigChange" => EventKind::ConfigChange {
            path: input
                .file_path
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        },
        "UserPromptSubmit" => EventKind::Prompt {
            prompt: input.prompt.unwrap_or_default(),
        },
        _ => EventKind::Ignored,
    };
    Ok(Event {
        host: Host::Claude,
        session_id,
        cwd,
        event_name,
        actor,
        call: common::call_id(&input.tool_use_id),
        kind,
    })
}

/// The file an edit tool writes: `file_path`, or `notebook_path` for notebooks.
fn edit_paths(tool_input: &Value) -> Vec<PathBuf> {
    common::first_path(tool_input, &["file_path", "notebook_path"])
        .into_iter()
        .collect()
}

/// Events whose output may carry `hookSpecificOutput`.
fn has_specific_output(event_name: &str) -> bool {
    matches!(
        event_name,
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "SessionStart" | "SubagentStart"
    )
}

pub(super) fn render(event: &Event, response: &Response) -> Output {
    let name = event.event_name.as_str();
    let value = match response {
        Response::Silent => return Output::default(),
        Response::Warn { person, model } => {
            if has_specific_output(name) {
                json!({
                    "systemMessage": person,
                    "hookSpecificOutput": {"hookEventName": name, "additionalContext": model},
                })
            } else {
                json!({ "systemMessage": person })
            }
        }
        Response::Deny { reason, person } if name == "PreToolUse" => {
            let mut v = json!({
                "hookSpecificOutput": {
                    "hookEventName": name,
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            });
            if let Some(person) = person {
                v["systemMessage"] = json!(person);
            }
            v
        }
        Response::Ask { reason } if name == "PreToolUse" => json!({
            "hookSpecificOutput": {
                "hookEventName": name,
                "permissionDecision": "ask",
                "permissionDecisionReason": reason,
            }
        }),
        Response::Deny { reason, .. } | Response::Ask { reason } => {
            return Output::blocking(reason.clone());
        }
    };
    Output::json(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str, tool: &str, extra: Value) -> EventKind {
        let mut v = json!({"hook_event_name": name, "session_id": "s", "cwd": "/",
            "tool_name": tool, "tool_input": {"path": "/x"}});
        if let (Some(o), Some(more)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(more.clone());
        }
        parse(v).unwrap().kind
    }

    #[test]
    fn mcp_tools_are_other_tools_with_their_own_name() {
        let before = kind("PreToolUse", "mcp__filesystem__write_file", json!({}));
        assert_eq!(
            before,
            EventKind::BeforeOtherTool {
                tool: "mcp__filesystem__write_file".into(),
                name: "write_file".into(),
            }
        );
        for event in ["PostToolUse", "PostToolUseFailure"] {
            let after = kind(
                event,
                "mcp__plugin_x_ide__getDiagnostics",
                json!({"duration_ms": 1500}),
            );
            assert_eq!(
                after,
                EventKind::AfterOtherTool {
                    tool: "mcp__plugin_x_ide__getDiagnostics".into(),
                    name: "getDiagnostics".into(),
                    took: Some(std::time::Duration::from_millis(1500)),
                },
                "{event}"
            );
        }
        // No tool name after the server's: the whole name is all there is to go by.
        assert_eq!(common::mcp_name("mcp__fs__"), "mcp__fs__");
        assert_eq!(common::mcp_name("mcp__fs"), "mcp__fs");
        assert_eq!(common::mcp_name("mcp__a__b__c"), "b__c");
        // Only the prefix makes an MCP tool; other events of one are ignored.
        assert_eq!(
            kind("PreToolUse", "Mcp__fs__write", json!({})),
            EventKind::Ignored
        );
        assert_eq!(
            kind("PreToolUse", "my_mcp__x__y", json!({})),
            EventKind::Ignored
        );
        assert_eq!(
            kind("PermissionRequest", "mcp__fs__write_file", json!({})),
            EventKind::Ignored
        );
    }
}

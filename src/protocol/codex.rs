//! Codex CLI's hook wire format: Claude-like snake_case input with `turn_id`, shell calls as
//! `Bash`, edits as `apply_patch` whose patch text names the files, and a strictly validated
//! answer (unknown fields fail the hook; no `ask`; a deny needs a non-empty reason).
//!
//! Codex cannot ask the person from a hook, so a question becomes a refusal that says why: the
//! guard only asks about a command that could destroy work and whose targets it cannot resolve,
//! and letting exactly those through unchecked would defeat it. The model can spell the targets
//! out (the guard then checks them) or leave the command to the person.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{
    CANNOT_ASK, CANNOT_ASK_PERSON, EditChange, Event, EventKind, Host, Output, ProtocolError,
    Response, StartSource, SubAgent, common,
};

/// The fields of Codex's input that git-dibs reads; everything else is ignored.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Input {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    cwd: Option<String>,
    tool_name: Option<String>,
    tool_input: Value,
    source: Option<String>,
    prompt: Option<String>,
    reason: Option<String>,
    agent_id: Option<String>,
    agent_type: Option<String>,
    tool_use_id: Value,
}

/// Codex's names for its shell tool.
const SHELL_TOOLS: &[&str] = &["Bash", "shell", "exec_command", "local_shell"];
/// Codex's file-editing tool.
const PATCH_TOOL: &str = "apply_patch";
/// What a deny says when the decision came without a reason (Codex rejects an empty one).
const DEFAULT_REASON: &str = "git-dibs refused this tool call.";

pub(super) fn parse(value: Value) -> Result<Event, ProtocolError> {
    let input: Input = common::typed(value)?;
    let event_name = common::required([input.hook_event_name.as_ref()], "hook_event_name")?;
    let session_id = common::required([input.session_id.as_ref()], "session_id")?;
    let cwd = common::directory([input.cwd.as_deref()])?;
    let tool = input.tool_name.clone().unwrap_or_default();
    let pre = event_name == "PreToolUse";
    let actor = SubAgent::from_fields(input.agent_id.as_deref(), input.agent_type.as_deref());
    let kind = match event_name.as_str() {
        "PreToolUse" | "PostToolUse" if tool == PATCH_TOOL => {
            let text = patch_text(&input.tool_input).unwrap_or_default();
            let paths = patch_paths(&text);
            match (paths.is_empty(), pre) {
                (true, _) => EventKind::Ignored,
                (false, true) => EventKind::BeforeEdit {
                    change: EditChange::Each(super::patch::changes(&text)),
                    tool,
                    paths,
                },
                (false, false) => EventKind::AfterEdit { tool, paths },
            }
        }
        "PreToolUse" | "PostToolUse" if SHELL_TOOLS.contains(&tool.as_str()) => {
            match shell_command(&input.tool_input) {
                Some(command) if pre => EventKind::BeforeShell { command },
                Some(command) => EventKind::AfterShell {
                    command,
                    took: None,
                    background: false,
                },
                None => EventKind::Ignored,
            }
        }
        // An MCP server's tool: anything it writes is found by state (Codex gives no run time).
        "PreToolUse" if tool.starts_with(common::MCP_PREFIX) => EventKind::BeforeOtherTool {
            name: common::mcp_name(&tool),
            tool,
        },
        "PostToolUse" if tool.starts_with(common::MCP_PREFIX) => EventKind::AfterOtherTool {
            name: common::mcp_name(&tool),
            tool,
            took: None,
        },
        "SessionStart" => EventKind::SessionStart {
            source: StartSource::from_name(input.source.as_deref()),
        },
        "SessionEnd" => EventKind::SessionEnd {
            reason: input.reason.clone().unwrap_or_default(),
        },
        "UserPromptSubmit" => EventKind::Prompt {
            prompt: input.prompt.clone().unwrap_or_default(),
        },
        "SubagentStart" if actor.is_some() => EventKind::SubAgentStart,
        "SubagentStop" if actor.is_some() => EventKind::SubAgentStop,
        _ => EventKind::Ignored,
    };
    Ok(Event {
        host: Host::Codex,
        session_id,
        cwd,
        event_name,
        actor,
        call: common::call_id(&input.tool_use_id),
        kind,
    })
}

/// The command line of a shell call: a string, or an argv array joined with quoting.
fn shell_command(tool_input: &Value) -> Option<String> {
    match tool_input.get("command")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Vec<String> = words
                .iter()
                .filter_map(Value::as_str)
                .map(crate::shell::quote_word)
                .collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        _ => None,
    }
}

/// The patch text of an `apply_patch` call (`command` in current versions; `patch` or `input`
/// in others).
fn patch_text(tool_input: &Value) -> Option<String> {
    if let Some(text) = tool_input.as_str() {
        return Some(text.to_owned());
    }
    ["command", "patch", "input"]
        .iter()
        .find_map(|k| match tool_input.get(k)? {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        })
}

/// The files a patch writes, in order, each once: the targets of `*** Update File:`,
/// `*** Add File:`, `*** Delete File:` and `*** Move to:` lines (as written: relative to the
/// session's directory, or absolute).
pub(super) fn patch_paths(patch: &str) -> Vec<PathBuf> {
    const MARKERS: [&str; 4] = [
        "*** Update File:",
        "*** Add File:",
        "*** Delete File:",
        "*** Move to:",
    ];
    let mut paths: Vec<PathBuf> = Vec::new();
    for line in patch.lines() {
        // Codex reads a header with the line's surrounding whitespace trimmed.
        let line = line.trim();
        let Some(rest) = MARKERS.iter().find_map(|m| line.strip_prefix(m)) else {
            continue;
        };
        let path = rest.trim();
        if path.is_empty() || path.contains('\0') {
            continue;
        }
        let path = PathBuf::from(path);
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    paths
}

/// Events whose `hookSpecificOutput` may carry `additionalContext`.
fn takes_context(event: &str) -> bool {
    matches!(
        event,
        "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "SessionStart"
    )
}

/// A reason Codex accepts: never empty.
fn nonempty(reason: &str) -> &str {
    if reason.trim().is_empty() {
        DEFAULT_REASON
    } else {
        reason
    }
}

pub(super) fn render(event: &Event, response: &Response) -> Output {
    let name = event.event_name.as_str();
    let mut out = Map::new();
    let refusal = match response {
        Response::Silent => return Output::default(),
        Response::Warn { person, model } => {
            if !takes_context(name) {
                // Stop and other events accept no warning fields: say it on stderr only.
                return Output::note(person.clone());
            }
            out.insert("systemMessage".into(), json!(person));
            out.insert(
                "hookSpecificOutput".into(),
                json!({"hookEventName": name, "additionalContext": model}),
            );
            None
        }
        Response::Deny { reason, person } => Some((nonempty(reason).to_owned(), person.clone())),
        Response::Ask { reason } => {
            let refusal = format!("{}{CANNOT_ASK}", nonempty(reason));
            let person = format!("{refusal}{CANNOT_ASK_PERSON}");
            Some((refusal, Some(person)))
        }
    };
    if let Some((reason, person)) = refusal {
        match name {
            "PreToolUse" => {
                out.insert(
                    "hookSpecificOutput".into(),
                    json!({
                        "hookEventName": name,
                        "permissionDecision": "deny",
                        "permissionDecisionReason": reason,
                    }),
                );
            }
            "PostToolUse" | "UserPromptSubmit" => {
                out.insert("decision".into(), json!("block"));
                out.insert("reason".into(), json!(reason));
            }
            _ => {
                return Output::blocking(reason);
            }
        }
        if let Some(person) = person {
            out.insert("systemMessage".into(), json!(person));
        }
    }
    Output::json(&Value::Object(out))
}

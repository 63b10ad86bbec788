//! Host wire formats: reading one hook event from stdin into a host-neutral [`Event`], and
//! rendering a [`Response`] back in the host's own format. `serde_json::Value` stays in here.

mod claude;
mod codex;
mod common;
mod cursor;
mod gemini;
mod patch;
pub(crate) mod settings;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_actor;
#[cfg(test)]
mod tests_hosts;
#[cfg(test)]
mod tests_render;
#[cfg(test)]
mod tests_shell;

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::store::Actor;

/// Largest hook input read from stdin; anything longer is treated as unreadable. Sized for an
/// edit of a file at the snapshot cap (8 MiB): Claude Code's PostToolUse carries the old file
/// and the new content, each up to twice as long once escaped in JSON.
pub(crate) const MAX_INPUT: usize = 64 * 1024 * 1024;

pub(crate) use crate::host::{Host, SubAgent};

/// One hook call, whatever host sent it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    /// Who sent it.
    pub(crate) host: Host,
    /// The host's durable session id.
    pub(crate) session_id: String,
    /// The directory the session was in when the hook fired.
    pub(crate) cwd: PathBuf,
    /// The host's own name for the event (echoed back in `hookEventName`).
    pub(crate) event_name: String,
    /// The sub-agent that made the call, when it was not the session's main thread.
    pub(crate) actor: Option<SubAgent>,
    /// The host's id of this tool call (`tool_use_id`), shared by its before and after
    /// events, when the host sends one: it tells apart two calls of one actor running at once.
    pub(crate) call: Option<String>,
    /// What happened.
    pub(crate) kind: EventKind,
}

impl<'a> From<&'a Event> for Actor<'a> {
    /// The store's actor that made the hook call: the session's main thread or its sub-agent.
    fn from(event: &'a Event) -> Actor<'a> {
        Actor {
            session: &event.session_id,
            agent: event.actor.as_ref(),
        }
    }
}

/// How a session started, as the host reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartSource {
    /// A new session.
    Startup,
    /// A resumed session (same id).
    Resume,
    /// After `/clear` (new id, same agent process).
    Clear,
    /// After compaction (same id).
    Compact,
    /// Anything else, including forks.
    Other,
}

/// The host-neutral meaning of a hook call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EventKind {
    /// A session began.
    SessionStart {
        /// Why it began.
        source: StartSource,
    },
    /// A session ended.
    SessionEnd {
        /// The host's reason text.
        reason: String,
    },
    /// The person submitted a prompt.
    Prompt {
        /// The prompt text.
        prompt: String,
    },
    /// A file-editing tool is about to run (`tool` is the host's tool name).
    BeforeEdit {
        /// The host's tool name.
        tool: String,
        /// Files the tool will write, as given (absolute or relative to `cwd`).
        paths: Vec<PathBuf>,
        /// What it will write, read from its input only for an agent host's settings file
        /// (whose hook wiring git-dibs guards); [`EditChange::Unknown`] otherwise.
        change: EditChange,
    },
    /// A file-editing tool ran.
    AfterEdit {
        /// The host's tool name.
        tool: String,
        /// Files the tool wrote.
        paths: Vec<PathBuf>,
    },
    /// A file-reading tool ran.
    AfterRead {
        /// The file read.
        path: PathBuf,
    },
    /// A shell command is about to run.
    BeforeShell {
        /// The whole command line.
        command: String,
    },
    /// A shell command ran.
    AfterShell {
        /// The whole command line.
        command: String,
        /// How long it ran, when the host says (Claude Code's `duration_ms`, Cursor's
        /// `duration`); at most a day, else unknown.
        took: Option<std::time::Duration>,
        /// Whether the host ran it as a background job (Claude Code's `run_in_background`,
        /// Gemini CLI's `is_background`).
        background: bool,
    },
    /// A tool git-dibs does not know by name (an MCP server's tool) is about to run: it may
    /// write any file, so what sessions made is swept into the object store first.
    BeforeOtherTool {
        /// The host's full tool name (`mcp__filesystem__write_file`).
        tool: String,
        /// The tool's own name within its server (`write_file`), as far as the host tells it;
        /// the full name when it does not.
        name: String,
    },
    /// A tool git-dibs does not know by name ran (or failed): what it changed is found by state.
    AfterOtherTool {
        /// The host's full tool name.
        tool: String,
        /// The tool's own name within its server (see [`EventKind::BeforeOtherTool`]).
        name: String,
        /// How long it ran, when the host says (Claude Code's `duration_ms`); at most a day.
        took: Option<std::time::Duration>,
    },
    /// A sub-agent began (the event's `actor`).
    SubAgentStart,
    /// A sub-agent stopped (the event's `actor`): what it holds becomes its session's own.
    SubAgentStop,
    /// The host's own worktree tool is about to remove the worktree the session is in
    /// (Claude Code's `ExitWorktree` with `action: "remove"`).
    BeforeWorktreeRemove {
        /// Whether the tool was told to discard uncommitted changes.
        discard_changes: bool,
    },
    /// A settings file changed while the session ran (Claude Code's `ConfigChange`), made by
    /// any means; a refusal keeps the change out of the session.
    ConfigChange {
        /// The file that changed, when the host says.
        path: Option<PathBuf>,
    },
    /// Anything this version does not act on.
    Ignored,
}

/// What an edit tool will make of a file, as its input says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum EditChange {
    /// Not read (not a settings file), or not a tool whose result can be told.
    #[default]
    Unknown,
    /// The whole new content (Claude Code's Write).
    Whole(String),
    /// Replacements in order, each `(old, new, replace all)` (Edit, MultiEdit).
    Replace(Vec<(String, String, bool)>),
    /// The file is deleted (Cursor's Delete, a patch's `Delete File` or a moved file's old
    /// path).
    Delete,
    /// A change of each file, for a tool that changes several (Codex's `apply_patch`).
    Each(Vec<(PathBuf, EditChange)>),
}

impl EditChange {
    /// The change of `path`, the `index`th path the tool names: the tool's one change is its
    /// first path's.
    pub(crate) fn of(&self, path: &Path, index: usize) -> &EditChange {
        match self {
            EditChange::Each(each) => each
                .iter()
                .find(|(p, _)| p == path)
                .map_or(&EditChange::Unknown, |(_, c)| c),
            _ if index == 0 => self,
            _ => &EditChange::Unknown,
        }
    }

    /// The file's content after the tool ran on `current`; `None` when it cannot be told (or
    /// the tool would fail: a replaced string is not there).
    pub(crate) fn apply(&self, current: &str) -> Option<String> {
        match self {
            EditChange::Unknown | EditChange::Each(_) => None,
            EditChange::Delete => Some(String::new()),
            EditChange::Whole(text) => Some(text.clone()),
            EditChange::Replace(edits) => {
                let mut text = current.to_owned();
                for (old, new, all) in edits {
                    if old.is_empty() || !text.contains(old.as_str()) {
                        return None;
                    }
                    text = if *all {
                        text.replace(old.as_str(), new)
                    } else {
                        text.replacen(old.as_str(), new, 1)
                    };
                }
                Some(text)
            }
        }
    }
}

/// Why an input could not be turned into an [`Event`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProtocolError {
    /// stdin could not be read.
    #[error("could not read the hook input: {0}")]
    Read(#[from] std::io::Error),
    /// The input was larger than [`MAX_INPUT`].
    #[error("hook input is larger than {} bytes; ignored", MAX_INPUT)]
    TooLarge,
    /// The input was empty.
    #[error("hook input is empty; expected one JSON object")]
    Empty,
    /// The input was not a JSON object.
    #[error("hook input is not a JSON object: {0}")]
    NotJson(String),
    /// A required field was missing or had the wrong type.
    #[error("hook input lacks {0}")]
    Missing(&'static str),
}

/// Read all of stdin (always to the end, so the host never sees a broken pipe), up to
/// [`MAX_INPUT`] bytes kept.
pub(crate) fn read_input(mut input: impl Read) -> Result<Vec<u8>, ProtocolError> {
    // Read into the heap as it comes: a large buffer on the stack costs a page fault for each
    // of its pages before the first byte is read.
    let mut buf = Vec::with_capacity(4096);
    (&mut input)
        .take(MAX_INPUT as u64 + 1)
        .read_to_end(&mut buf)?;
    if buf.len() > MAX_INPUT {
        drop(buf);
        std::io::copy(&mut input, &mut std::io::sink())?;
        return Err(ProtocolError::TooLarge);
    }
    Ok(buf)
}

/// Turn raw hook input into an [`Event`]. `host` forces the host when the caller knows it.
pub(crate) fn parse_event(bytes: &[u8], host: Option<Host>) -> Result<Event, ProtocolError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ProtocolError::Empty);
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| ProtocolError::NotJson(e.to_string()))?;
    if !value.is_object() {
        return Err(ProtocolError::NotJson(
            "the top level is not an object".into(),
        ));
    }
    match host.unwrap_or_else(|| detect(&value)) {
        Host::Cursor => cursor::parse(value),
        Host::Gemini => gemini::parse(value),
        Host::Codex => codex::parse(value),
        Host::Claude | Host::Person => claude::parse(value),
    }
}

/// Events only Gemini CLI sends.
const GEMINI_EVENTS: &[&str] = &[
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "PreCompress",
];

/// Which host sent `value`, from its fields (`hook-protocols.md`, section 6). Cursor's markers
/// win, since Cursor also runs hooks registered in `.claude/settings.json`; a `timestamp`
/// string is Gemini's; `turn_id`, or a `SessionStart` with both `model` and `permission_mode`,
/// is Codex's; anything else is read as Claude Code's.
fn detect(value: &serde_json::Value) -> Host {
    let has = |key: &str| value.get(key).is_some_and(|v| !v.is_null());
    let event = value
        .get("hook_event_name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let camel = event.starts_with(|c: char| c.is_ascii_lowercase());
    if has("conversation_id") || has("cursor_version") || has("workspace_roots") || camel {
        Host::Cursor
    } else if value
        .get("timestamp")
        .is_some_and(serde_json::Value::is_string)
        || GEMINI_EVENTS.contains(&event)
    {
        Host::Gemini
    } else if has("turn_id") || (event == "SessionStart" && has("model") && has("permission_mode"))
    {
        Host::Codex
    } else {
        Host::Claude
    }
}

/// Added to a question turned into a refusal, on hosts that cannot (or not reliably) ask the
/// person from a hook.
pub(crate) const CANNOT_ASK: &str =
    " (This host cannot reliably ask the person from a hook, so git-dibs refuses instead.)";

/// Added for the person (never the model) to a question turned into a refusal: how to go ahead
/// deliberately.
pub(crate) const CANNOT_ASK_PERSON: &str = " If it is deliberate, run it yourself with \
     WT_GUARD_BYPASS=1 in front of that very command; the bypass is written to the audit log \
     (git dibs audit).";

/// What a hook answers, before it is put in a host's format.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Response {
    /// No objection, nothing to say: exit 0, print nothing.
    #[default]
    Silent,
    /// Let it happen, but tell the person and the model.
    Warn {
        /// For the person (`systemMessage`).
        person: String,
        /// For the model (`additionalContext`).
        model: String,
    },
    /// Refuse the tool call.
    Deny {
        /// For the model: what is at risk and what to do instead.
        reason: String,
        /// For the person, when it differs from `reason`.
        person: Option<String>,
    },
    /// Ask the person to decide.
    Ask {
        /// Why the hook cannot decide.
        reason: String,
    },
}

impl Response {
    /// This answer with `line` said first to the person and the model (a silent answer becomes
    /// a warning of that line alone; a refusal or question keeps its own text).
    pub(crate) fn prepend(self, line: &str) -> Response {
        match self {
            Response::Silent => Response::Warn {
                person: line.to_owned(),
                model: line.to_owned(),
            },
            Response::Warn { person, model } => Response::Warn {
                person: format!("{line}\n{person}"),
                model: format!("{line}\n{model}"),
            },
            other => other,
        }
    }
}

/// A rendered answer: what to print and how to exit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Output {
    /// One JSON object for stdout, if any.
    pub(crate) stdout: Option<String>,
    /// Text for stderr, if any.
    pub(crate) stderr: Option<String>,
    /// Process exit code.
    pub(crate) code: u8,
}

/// Whether a warning in answer to `event` reaches the host's model (Gemini CLI's `BeforeTool`
/// tells only the person; its `AfterTool` tells the model).
pub(crate) fn warning_reaches_model(event: &Event) -> bool {
    match event.host {
        Host::Gemini => gemini::takes_context(&event.event_name),
        _ => true,
    }
}

/// Render `response` for the host that sent `event`.
pub(crate) fn render(event: &Event, response: &Response) -> Output {
    match event.host {
        Host::Cursor => cursor::render(event, response),
        Host::Gemini => gemini::render(event, response),
        Host::Codex => codex::render(event, response),
        Host::Claude | Host::Person => claude::render(event, response),
    }
}

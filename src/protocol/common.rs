//! What every host's wire format shares: reading the typed input, its required fields, the
//! directory the hook fired in, a file named in a tool's input, session-start sources, and the
//! two ways of answering (one JSON object on stdout, or exit 2 with the reason on stderr).

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{EditChange, Output, ProtocolError, StartSource};

/// A host's input as its typed fields (unknown fields are ignored by the types).
/// A host's run time field (milliseconds): a whole number of at most a day, else unknown.
pub(super) fn took_ms(value: &Value) -> Option<std::time::Duration> {
    const DAY_MS: u64 = 24 * 60 * 60 * 1000;
    let ms = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(|f| f as u64)
    })?;
    (ms <= DAY_MS).then(|| std::time::Duration::from_millis(ms))
}

/// How Claude Code and Codex name an MCP server's tools: `mcp__<server>__<tool>`.
pub(super) const MCP_PREFIX: &str = "mcp__";

/// An MCP tool's own name: what follows its server's name (`mcp__fs__write_file` → `write_file`).
pub(super) fn mcp_name(tool: &str) -> String {
    let rest = &tool[MCP_PREFIX.len()..];
    match rest.split_once("__") {
        Some((_, name)) if !name.is_empty() => name.to_owned(),
        _ => tool.to_owned(),
    }
}

/// The longest tool-call id kept; a longer one is treated as absent.
const MAX_CALL_ID: usize = 128;

/// A tool call's id as the host gave it, when it is a plausible one (a string, not blank, not
/// oversized); anything else is no id, and the event reads as one without.
pub(super) fn call_id(id: &Value) -> Option<String> {
    id.as_str()
        .filter(|s| !s.trim().is_empty() && s.len() <= MAX_CALL_ID)
        .map(str::to_owned)
}

pub(super) fn typed<T: DeserializeOwned>(value: Value) -> Result<T, ProtocolError> {
    serde_json::from_value(value).map_err(|e| ProtocolError::NotJson(e.to_string()))
}

/// The first of `candidates` that is not blank, or the error naming field `name`.
pub(super) fn required<'a>(
    candidates: impl IntoIterator<Item = Option<&'a String>>,
    name: &'static str,
) -> Result<String, ProtocolError> {
    candidates
        .into_iter()
        .flatten()
        .find(|s| !s.trim().is_empty())
        .cloned()
        .ok_or(ProtocolError::Missing(name))
}

/// The directory the hook fired in: the first non-empty candidate, else this process's own.
pub(super) fn directory<'a>(
    candidates: impl IntoIterator<Item = Option<&'a str>>,
) -> Result<PathBuf, ProtocolError> {
    candidates
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .ok_or(ProtocolError::Missing("cwd"))
}

/// The file a tool's input names: the first of `keys` holding a usable path.
pub(super) fn first_path(tool_input: &Value, keys: &[&str]) -> Option<PathBuf> {
    keys.iter()
        .filter_map(|key| tool_input.get(key).and_then(Value::as_str))
        .find(|p| !p.is_empty() && !p.contains('\0'))
        .map(PathBuf::from)
}

impl StartSource {
    /// A host's name for why a session started (`startup`, `resume`, `clear`, `compact`).
    pub(super) fn from_name(name: Option<&str>) -> StartSource {
        match name {
            Some("startup") => StartSource::Startup,
            Some("resume") => StartSource::Resume,
            Some("clear") => StartSource::Clear,
            Some("compact") => StartSource::Compact,
            _ => StartSource::Other,
        }
    }
}

impl Output {
    /// Exit 0 with one JSON object on stdout.
    pub(super) fn json(value: &Value) -> Output {
        Output {
            stdout: Some(value.to_string()),
            stderr: None,
            code: 0,
        }
    }

    /// Exit 0 with one line for the person on stderr and nothing on stdout.
    pub(crate) fn note(text: impl Into<String>) -> Output {
        Output {
            stderr: Some(text.into()),
            ..Output::default()
        }
    }

    /// Exit 2 with the reason on stderr and nothing on stdout: the answer every host reads as
    /// a refusal.
    pub(super) fn blocking(reason: impl Into<String>) -> Output {
        Output {
            stdout: None,
            stderr: Some(reason.into()),
            code: 2,
        }
    }
}

/// What an edit tool will make of its file, from the fields its input holds: `content` is the
/// whole new text (Write, `write_file`); `old_string`/`new_string` one replacement, of every
/// match with `replace_all` or `allow_multiple` (Edit, `replace`); `edits` several in order
/// (MultiEdit). Anything else cannot be told.
pub(super) fn edit_change(input: &Value) -> EditChange {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let one = |v: &Value| {
        let all = ["replace_all", "allow_multiple"]
            .iter()
            .any(|k| v.get(k) == Some(&Value::Bool(true)));
        Some((text(v, "old_string")?, text(v, "new_string")?, all))
    };
    let change = if let Some(content) = text(input, "content") {
        Some(EditChange::Whole(content))
    } else if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        edits
            .iter()
            .map(one)
            .collect::<Option<Vec<_>>>()
            .map(EditChange::Replace)
    } else {
        one(input).map(|e| EditChange::Replace(vec![e]))
    };
    change.unwrap_or_default()
}

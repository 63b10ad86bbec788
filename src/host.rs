//! Who acts: which agent host (or a person) a session belongs to, and which of its sub-agents
//! made a call. Plain values the store records and the protocol reads and renders for, so that
//! the store never imports the wire formats.

use crate::text;

/// The agent host that sent an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    /// Anthropic's Claude Code.
    Claude,
    /// Cursor's agent.
    Cursor,
    /// Google's Gemini CLI.
    Gemini,
    /// OpenAI's Codex CLI.
    Codex,
    /// A person or script using the command line.
    Person,
}

impl Host {
    /// The short name used in messages and records.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Cursor => "cursor",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
            Host::Person => "person",
        }
    }
}

/// The longest sub-agent id kept as given; a longer one is shortened with a digest of it.
const MAX_AGENT_ID: usize = 64;
/// The longest sub-agent type kept.
const MAX_AGENT_TYPE: usize = 40;

/// A sub-agent of a session (Claude Code's and Codex's `agent_id` / `agent_type`): within its
/// session it is an actor of its own, a peer of its siblings and of the main thread.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub(crate) struct SubAgent {
    /// The host's id of the sub-agent (printable, at most `MAX_AGENT_ID` (64) bytes).
    pub(crate) id: String,
    /// Its type (`general-purpose`, `Explore`, ...), when the host says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
}

impl SubAgent {
    /// The sub-agent a host's `agent_id` and `agent_type` name; `None` when the id is blank.
    /// Hostile input is data: control characters are dropped, and an overlong id keeps its
    /// start and a digest of the whole (two different ids stay two sub-agents).
    pub(crate) fn from_fields(id: Option<&str>, kind: Option<&str>) -> Option<SubAgent> {
        let printable = |s: &str| text::clean(s, usize::MAX);
        let id = printable(id?.trim());
        if id.is_empty() {
            return None;
        }
        let id = if id.len() > MAX_AGENT_ID {
            let start: String = id.chars().take(40).collect();
            format!("{start}~{:016x}", crate::store::fnv1a(id.as_bytes()))
        } else {
            id
        };
        let kind = kind
            .map(|k| {
                printable(k.trim())
                    .chars()
                    .take(MAX_AGENT_TYPE)
                    .collect::<String>()
            })
            .filter(|k| !k.is_empty());
        Some(SubAgent { id, kind })
    }

    /// The first 8 characters of the id, as shown to people.
    pub(crate) fn short_id(&self) -> &str {
        crate::store::short_id(&self.id)
    }
}

//! Which agent host (or a person) a session belongs to: a plain value the store records and the
//! protocol reads and renders for, so that neither has to import the other for it.

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
    pub fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Cursor => "cursor",
            Host::Gemini => "gemini",
            Host::Codex => "codex",
            Host::Person => "person",
        }
    }
}

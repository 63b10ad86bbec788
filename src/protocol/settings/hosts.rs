//! The hook files of each agent host git-dibs wires: where the project file lives, its shape
//! (grouped like Claude Code's, or Cursor's flat handler lists), the timeout unit, and the places
//! (event, matcher) git-dibs hooks.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{HOOKS, HookSpec, MCP_MATCHER, TIMEOUT_SECS};

/// The shape of one host's hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Every place git-dibs wires, in the order a fresh file lists them.
    pub(crate) hooks: &'static [HookSpec],
    /// Handlers sit directly in each event's array, each with its own `matcher` (Cursor);
    /// otherwise in matcher groups under `hooks` (Claude Code, Gemini CLI, Codex).
    pub(crate) flat: bool,
    /// The `timeout` written on each handler, in the host's unit.
    pub(crate) timeout: u64,
    /// A top-level `version` the file must carry (Cursor's `1`).
    pub(crate) version: Option<u64>,
    /// Handlers in exec form (`command` is the program, `args` the rest; no shell), and guards
    /// marked `onFailure: "block"` (Claude Code 2.1.139 and later). Otherwise one command line.
    pub(crate) exec: bool,
}

const fn spec(event: &'static str, matcher: Option<&'static str>) -> HookSpec {
    HookSpec::new(event, matcher)
}

/// Claude Code: `.claude/settings.json`, timeouts in seconds, exec-form handlers.
pub(crate) const CLAUDE: Layout = Layout {
    hooks: &HOOKS,
    flat: false,
    timeout: TIMEOUT_SECS,
    version: None,
    exec: true,
};

/// Cursor: `.cursor/hooks.json` (`version: 1`), flat handler lists, timeouts in seconds.
pub(crate) const CURSOR: Layout = Layout {
    hooks: &[
        spec("preToolUse", Some("Write|Delete")),
        HookSpec::guard("beforeShellExecution", None),
        spec("afterFileEdit", None),
        spec("postToolUse", Some("Read")),
        spec("afterShellExecution", None),
        spec("beforeSubmitPrompt", None),
        spec("sessionStart", None),
        spec("sessionEnd", None),
        // An MCP server's tool, swept before and scanned after.
        spec("beforeMCPExecution", None).later(),
        spec("afterMCPExecution", None).later(),
    ],
    flat: true,
    timeout: TIMEOUT_SECS,
    version: Some(1),
    exec: false,
};

/// The matcher of Gemini CLI's MCP tools (a regex), every server's.
pub(crate) const GEMINI_MCP_MATCHER: &str = "mcp_.*";

/// Gemini CLI: `.gemini/settings.json`, timeouts in milliseconds.
pub(crate) const GEMINI: Layout = Layout {
    hooks: &[
        spec("BeforeTool", Some("write_file|replace")),
        HookSpec::guard("BeforeTool", Some("run_shell_command")),
        spec(
            "AfterTool",
            Some("write_file|replace|read_file|run_shell_command"),
        ),
        spec("SessionStart", None),
        spec("SessionEnd", None),
        spec("BeforeAgent", None),
        // An MCP server's tool (`mcp_<server>_<tool>`), swept before and scanned after.
        spec("BeforeTool", Some(GEMINI_MCP_MATCHER)).later(),
        spec("AfterTool", Some(GEMINI_MCP_MATCHER)).later(),
    ],
    flat: false,
    timeout: TIMEOUT_SECS * 1000,
    version: None,
    exec: false,
};

/// Codex: `.codex/hooks.json`, timeouts in seconds. Codex has no session-end event.
pub(crate) const CODEX: Layout = Layout {
    hooks: &[
        spec("PreToolUse", Some("apply_patch")),
        HookSpec::guard("PreToolUse", Some("Bash")),
        spec("PostToolUse", Some("apply_patch|Bash")),
        spec("SessionStart", None),
        spec("UserPromptSubmit", None),
        // An MCP server's tool (`mcp__<server>__<tool>`, as Claude Code's), swept before and
        // scanned after.
        spec("PreToolUse", Some(MCP_MATCHER)).later(),
        spec("PostToolUse", Some(MCP_MATCHER)).later(),
    ],
    flat: false,
    timeout: TIMEOUT_SECS,
    version: None,
    exec: false,
};

/// A host whose project hook file `git dibs install` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigHost {
    /// Claude Code.
    Claude,
    /// Cursor.
    Cursor,
    /// Gemini CLI.
    Gemini,
    /// Codex CLI.
    Codex,
}

impl ConfigHost {
    /// Every host, in the order they are installed and reported.
    pub(crate) const ALL: [ConfigHost; 4] = [
        ConfigHost::Claude,
        ConfigHost::Cursor,
        ConfigHost::Gemini,
        ConfigHost::Codex,
    ];

    /// The host's display name.
    pub(crate) fn title(self) -> &'static str {
        match self {
            ConfigHost::Claude => "Claude Code",
            ConfigHost::Cursor => "Cursor",
            ConfigHost::Gemini => "Gemini CLI",
            ConfigHost::Codex => "Codex",
        }
    }

    /// The `--host` value and the install flag's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ConfigHost::Claude => "claude",
            ConfigHost::Cursor => "cursor",
            ConfigHost::Gemini => "gemini",
            ConfigHost::Codex => "codex",
        }
    }

    /// The shape of the host's hook file.
    pub(crate) fn layout(self) -> &'static Layout {
        match self {
            ConfigHost::Claude => &CLAUDE,
            ConfigHost::Cursor => &CURSOR,
            ConfigHost::Gemini => &GEMINI,
            ConfigHost::Codex => &CODEX,
        }
    }

    /// The project hook file, relative to the worktree root.
    pub(crate) fn project_file(self) -> PathBuf {
        let (dir, file) = match self {
            ConfigHost::Claude => (".claude", "settings.json"),
            ConfigHost::Cursor => (".cursor", "hooks.json"),
            ConfigHost::Gemini => (".gemini", "settings.json"),
            ConfigHost::Codex => (".codex", "hooks.json"),
        };
        Path::new(dir).join(file)
    }

    /// The handler command for this host, given the bare `git-dibs hook` command: the host is
    /// named (`--host <name>`) except for Claude Code, whose command stays as it always was.
    pub(crate) fn command(self, base: &str) -> String {
        match self {
            ConfigHost::Claude => base.to_owned(),
            other => format!("{base} --host {}", other.name()),
        }
    }
}

impl fmt::Display for ConfigHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

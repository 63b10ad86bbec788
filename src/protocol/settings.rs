//! Agent-host settings files (Claude Code's `.claude/settings.json` and friends; Cursor's,
//! Gemini CLI's and Codex's hook files through a [`Layout`]): which hooks git-dibs wires, merging
//! them into a person's file without disturbing anything else, taking them out again, and
//! reporting how a file is wired. Pure: bytes in, bytes out; the caller reads and writes.

mod command;
mod hosts;
mod weaken;
mod wiring;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_hosts;

pub(crate) use command::{hook_command, is_our_command, program_of};
use command::{is_our_program, quote_word, words};
pub(crate) use hosts::{CLAUDE, ConfigHost, Layout};
pub(crate) use weaken::{host_of_file, partly_unwired, weakening};

/// Every host's settings file in a project that can wire git-dibs, from the project's top.
pub(crate) const PROJECT_FILES: [&str; 5] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".gemini/settings.json",
    ".codex/hooks.json",
    ".cursor/hooks.json",
];
pub(crate) use wiring::Wiring;

use std::fmt;

// Objects keep their keys in the file's order: serde_json's `preserve_order` feature (see the
// README's dependency list), so a merge rewrites only what it changes. `==` on objects ignores
// the order of keys.
use serde_json::{Map, Value as Json, json};

/// The program name git-dibs is wired under when it is on PATH.
pub(crate) const PROGRAM: &str = "git-dibs";
/// The name of git-dibs's Claude Code plugin (`plugins/claude` in its repository).
pub(crate) const PLUGIN: &str = "git-dibs";
/// The timeout, in seconds, written on every git-dibs handler.
pub(crate) const TIMEOUT_SECS: u64 = 10;

/// One place a git-dibs handler belongs: an event and, for tool events, a matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookSpec {
    /// Claude Code's event name (`PreToolUse`, `SessionStart`, ...).
    pub(crate) event: &'static str,
    /// The matcher of the group; `None` for events without one.
    pub(crate) matcher: Option<&'static str>,
    /// A guard: where the host can say so, a handler that cannot start, crashes or times out
    /// stops the tool call instead of letting it through (`onFailure: "block"`). Claim hooks
    /// never are: they must never stop an edit.
    pub(crate) fail_closed: bool,
    /// Added after installs of earlier versions were made: a file that lacks it is out of date
    /// (`doctor` says to rerun `git dibs install`), not partly unwired (which the
    /// `ConfigChange` hook refuses).
    pub(crate) later: bool,
}

impl fmt::Display for HookSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.matcher {
            Some(m) => write!(f, "{} ({m})", self.event),
            None => f.write_str(self.event),
        }
    }
}

impl HookSpec {
    /// A claim or awareness hook: it never stops anything, so a failure lets the call go on.
    pub(crate) const fn new(event: &'static str, matcher: Option<&'static str>) -> HookSpec {
        HookSpec {
            event,
            matcher,
            fail_closed: false,
            later: false,
        }
    }

    /// A guard: where the host can say so, a failure of the handler stops the tool call.
    pub(crate) const fn guard(event: &'static str, matcher: Option<&'static str>) -> HookSpec {
        HookSpec {
            event,
            matcher,
            fail_closed: true,
            later: false,
        }
    }

    /// The same place, added after earlier versions' installs (see [`HookSpec::later`]).
    pub(crate) const fn later(self) -> HookSpec {
        HookSpec {
            later: true,
            ..self
        }
    }
}

/// Every hook git-dibs wires for Claude Code, in the order a fresh file lists them.
pub(crate) const HOOKS: [HookSpec; 14] = [
    HookSpec::new("PreToolUse", Some("Edit|Write|MultiEdit|NotebookEdit")),
    HookSpec::guard("PreToolUse", Some("Bash")),
    HookSpec::guard("PreToolUse", Some("ExitWorktree")),
    HookSpec::new(
        "PostToolUse",
        Some("Edit|Write|MultiEdit|NotebookEdit|Read|Bash"),
    ),
    // A shell command that exits non-zero arrives as PostToolUseFailure: what it wrote and
    // committed before failing is kept all the same.
    HookSpec::new("PostToolUseFailure", Some("Bash")),
    HookSpec::new("SessionStart", None),
    HookSpec::new("SessionEnd", None),
    HookSpec::new("UserPromptSubmit", None),
    HookSpec::new("SubagentStart", None),
    HookSpec::new("SubagentStop", None),
    // A settings change made other than by an edit tool that unwires git-dibs is refused.
    HookSpec::new("ConfigChange", None),
    // An MCP server's tool (`mcp__<server>__<tool>`) may write any file: swept before, scanned
    // after, as a shell command is. A regex (Claude Code tests it unanchored).
    HookSpec::new("PreToolUse", Some(MCP_MATCHER)).later(),
    HookSpec::new("PostToolUse", Some(MCP_MATCHER)).later(),
    HookSpec::new("PostToolUseFailure", Some(MCP_MATCHER)).later(),
];

/// The matcher of Claude Code's (and Codex's) MCP tools, every server's.
pub(crate) const MCP_MATCHER: &str = "mcp__.*";

/// Why a settings file cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SettingsError {
    /// The bytes are not JSON.
    #[error("not valid JSON ({message})")]
    Invalid {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// serde_json's description, with the position.
        message: String,
    },
    /// The top level is JSON but not an object.
    #[error("the top level is not a JSON object")]
    NotObject,
    /// `hooks` is present but not an object.
    #[error("its \"hooks\" is not a JSON object")]
    HooksNotObject,
    /// `hooks.<event>` is present but not an array.
    #[error("its \"hooks\".\"{0}\" is not a JSON array")]
    EventNotArray(String),
}

/// A handler object: whether it is one of ours, and its command line.
fn our_command(handler: &Json) -> Option<String> {
    let command = handler.get("command")?.as_str()?;
    if is_our_command(command) {
        return Some(command.to_owned());
    }
    // The exec form (`args`, no shell): `command` is the program, `args[0]` is `hook`.
    let Some(Json::Array(args)) = handler.get("args") else {
        return None;
    };
    let first = args.first().and_then(Json::as_str);
    (is_our_program(command) && first == Some("hook")).then(|| {
        let mut line = hook_command(command);
        for arg in args.iter().filter_map(Json::as_str).skip(1) {
            line.push(' ');
            line.push_str(&quote_word(arg));
        }
        line
    })
}

/// The handler git-dibs writes for `spec` in `layout`'s files: `command` as one command line,
/// or in exec form (program and `args`, with `onFailure: "block"` on a guard) where the layout
/// says so; with its matcher, where handlers carry it.
fn handler(layout: &Layout, spec: &HookSpec, command: &str) -> Json {
    let timeout = Json::from(layout.timeout);
    let mut pairs = Map::new();
    if !layout.flat {
        pairs.insert("type".to_owned(), json!("command"));
        let mut words = words(command, usize::MAX).into_iter();
        match (layout.exec, words.next()) {
            (true, Some(program)) => {
                pairs.insert("command".to_owned(), json!(program));
                pairs.insert("args".to_owned(), words.collect());
            }
            _ => _ = pairs.insert("command".to_owned(), json!(command)),
        }
        pairs.insert("timeout".to_owned(), timeout);
        if layout.exec && spec.fail_closed {
            pairs.insert("onFailure".to_owned(), json!("block"));
        }
        return Json::Object(pairs);
    }
    pairs.insert("command".to_owned(), json!(command));
    if let Some(m) = spec.matcher {
        pairs.insert("matcher".to_owned(), json!(m));
    }
    pairs.insert("timeout".to_owned(), timeout);
    Json::Object(pairs)
}

/// A group's matcher for comparison: `None` when it matches everything (absent, `""`, `"*"`).
fn matcher_of(group: &Map<String, Json>) -> Option<String> {
    match group.get("matcher") {
        None => None,
        Some(Json::String(m)) if m.is_empty() || m == "*" => None,
        Some(Json::String(m)) => Some(m.clone()),
        Some(_) => Some("<not a string>".to_owned()),
    }
}

/// The index in `layout`'s hooks of the place (event, matcher).
fn spec_index(layout: &Layout, event: &str, matcher: Option<&str>) -> Option<usize> {
    layout
        .hooks
        .iter()
        .position(|s| s.event == event && s.matcher == matcher)
}

/// Visit every handler of ours: `place(event, matcher)` gives its replacement, or `None` to
/// remove it. Groups and event arrays that removal empties are dropped. Returns how many went.
fn sweep(
    layout: &Layout,
    hooks: &mut Map<String, Json>,
    mut place: impl FnMut(&str, Option<&str>) -> Option<Json>,
) -> usize {
    let mut removed = 0;
    hooks.retain(|event, value| {
        let Json::Array(groups) = value else {
            return true;
        };
        let before = removed;
        if layout.flat {
            // Handlers sit directly in the event's array, each with its own matcher.
            groups.retain_mut(|h| {
                let matcher = match &*h {
                    Json::Object(pairs) if our_command(h).is_some() => matcher_of(pairs),
                    _ => return true,
                };
                match place(event, matcher.as_deref()) {
                    Some(new) => {
                        if *h != new {
                            *h = new;
                        }
                        true
                    }
                    None => {
                        removed += 1;
                        false
                    }
                }
            });
            return !(removed > before && groups.is_empty());
        }
        groups.retain_mut(|group| {
            let Json::Object(pairs) = group else {
                return true;
            };
            let matcher = matcher_of(pairs);
            let Some(Json::Array(handlers)) = pairs.get_mut("hooks") else {
                return true;
            };
            let n = handlers.len();
            handlers.retain_mut(|h| {
                if our_command(h).is_none() {
                    return true;
                }
                match place(event, matcher.as_deref()) {
                    Some(new) => {
                        if *h != new {
                            *h = new;
                        }
                        true
                    }
                    None => false,
                }
            });
            let gone = n - handlers.len();
            removed += gone;
            !(gone > 0 && handlers.is_empty())
        });
        !(removed > before && groups.is_empty())
    });
    removed
}

/// A parsed settings file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    root: Map<String, Json>,
}

impl Settings {
    /// A file with nothing in it (`{}`).
    pub(crate) fn empty() -> Settings {
        Settings { root: Map::new() }
    }

    /// Parse a file's bytes. Empty or blank bytes read as an empty file.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Settings, SettingsError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Settings::empty());
        }
        let value: Json = serde_json::from_slice(bytes).map_err(|e| SettingsError::Invalid {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let Json::Object(root) = value else {
            return Err(SettingsError::NotObject);
        };
        let settings = Settings { root };
        match settings.hooks() {
            None | Some(Json::Object(_)) => Ok(settings),
            Some(_) => Err(SettingsError::HooksNotObject),
        }
    }

    fn hooks(&self) -> Option<&Json> {
        self.root.get("hooks")
    }

    /// The file as text: pretty-printed with two spaces, ending in a newline.
    pub(crate) fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.root).unwrap_or_else(|_| "{}".to_owned());
        text.push('\n');
        text
    }

    /// The git-dibs plugins this file enables (`"enabledPlugins": {"git-dibs@<marketplace>":
    /// true}`), by their full name.
    pub(crate) fn enabled_plugins(&self) -> Vec<String> {
        let Some(Json::Object(plugins)) = self.root.get("enabledPlugins") else {
            return Vec::new();
        };
        plugins
            .iter()
            .filter(|(name, on)| name.split('@').next() == Some(PLUGIN) && **on == Json::Bool(true))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Whether `disableAllHooks` is true here (no hook runs at all).
    pub(crate) fn hooks_disabled(&self) -> bool {
        self.root.get("disableAllHooks") == Some(&Json::Bool(true))
    }

    /// Wire every hook of [`HOOKS`] to run `command` in a Claude Code settings file; see
    /// [`Settings::install_in`].
    pub(crate) fn install(&mut self, command: &str) -> Result<bool, SettingsError> {
        self.install_in(&CLAUDE, command)
    }

    /// Wire every hook of `layout` to run `command`, once each. git-dibs handlers already in
    /// place are rewritten to the current form; out-of-place or duplicate ones are removed.
    /// Another handler's group with the same matcher is joined rather than repeated. Returns
    /// whether anything changed; on error nothing has.
    pub(crate) fn install_in(
        &mut self,
        layout: &Layout,
        command: &str,
    ) -> Result<bool, SettingsError> {
        if let Some(Json::Object(hooks)) = self.hooks() {
            for spec in layout.hooks {
                if let Some(v) = hooks.get(spec.event)
                    && !matches!(v, Json::Array(_))
                {
                    return Err(SettingsError::EventNotArray(spec.event.to_owned()));
                }
            }
        }
        let before = self.root.clone();
        if let Some(version) = layout.version
            && !self.root.contains_key("version")
        {
            self.root
                .shift_insert(0, "version".to_owned(), version.into());
        }
        let hooks = self.root.entry("hooks").or_insert_with(|| json!({}));
        let Json::Object(hooks) = hooks else {
            return Err(SettingsError::HooksNotObject);
        };
        let mut placed = vec![false; layout.hooks.len()];
        sweep(layout, hooks, |event, matcher| {
            let i = spec_index(layout, event, matcher)?;
            (!std::mem::replace(&mut placed[i], true))
                .then(|| handler(layout, &layout.hooks[i], command))
        });
        for (spec, _) in layout.hooks.iter().zip(placed).filter(|(_, p)| !p) {
            let Json::Array(groups) = hooks.entry(spec.event).or_insert_with(|| json!([])) else {
                return Err(SettingsError::EventNotArray(spec.event.to_owned()));
            };
            if layout.flat {
                groups.push(handler(layout, spec, command));
                continue;
            }
            let handler = || handler(layout, spec, command);
            let shared = groups.iter_mut().find_map(|g| match g {
                Json::Object(pairs) if matcher_of(pairs).as_deref() == spec.matcher => {
                    match pairs.get_mut("hooks") {
                        Some(Json::Array(handlers)) => Some(handlers),
                        _ => None,
                    }
                }
                _ => None,
            });
            match shared {
                Some(handlers) => handlers.push(handler()),
                None => {
                    let list = Json::Array(vec![handler()]);
                    groups.push(match spec.matcher {
                        Some(m) => json!({"matcher": m, "hooks": list}),
                        None => json!({"hooks": list}),
                    });
                }
            }
        }
        Ok(self.root != before)
    }

    /// Remove every git-dibs handler, and the groups, event arrays and `hooks` object that
    /// become empty because of it. Returns how many handlers went.
    pub(crate) fn uninstall(&mut self) -> usize {
        self.uninstall_in(&CLAUDE)
    }

    /// Remove every git-dibs handler from a file of `layout`, and what becomes empty because of
    /// it. Returns how many handlers went.
    pub(crate) fn uninstall_in(&mut self, layout: &Layout) -> usize {
        let Some(Json::Object(hooks)) = self.root.get_mut("hooks") else {
            return 0;
        };
        let removed = sweep(layout, hooks, |_, _| None);
        if removed > 0 && hooks.is_empty() {
            self.root.shift_remove("hooks");
        }
        removed
    }

    /// How this Claude Code settings file is wired for git-dibs.
    pub(crate) fn wiring(&self) -> Wiring {
        self.wiring_in(&CLAUDE)
    }

    /// How this file of `layout` is wired for git-dibs.
    pub(crate) fn wiring_in(&self, layout: &Layout) -> Wiring {
        let mut wiring = Wiring {
            specs: layout.hooks,
            counts: vec![0; layout.hooks.len()],
            ..Wiring::default()
        };
        let Some(Json::Object(hooks)) = self.hooks() else {
            return wiring;
        };
        for (event, value) in hooks {
            let Json::Array(groups) = value else { continue };
            for group in groups {
                let Json::Object(pairs) = group else { continue };
                let matcher = matcher_of(pairs);
                let handlers = match group.get("hooks") {
                    _ if layout.flat => std::slice::from_ref(group),
                    Some(Json::Array(handlers)) => handlers.as_slice(),
                    _ => continue,
                };
                for h in handlers {
                    let Some(command) = our_command(h) else {
                        continue;
                    };
                    let m = matcher.as_deref();
                    match spec_index(layout, event, m) {
                        Some(i) if *h == handler(layout, &layout.hooks[i], &command) => {
                            wiring.counts[i] += 1;
                        }
                        Some(i) => wiring.stale.push(format!(
                            "{} differs from what install writes",
                            layout.hooks[i]
                        )),
                        None => wiring.stale.push(format!(
                            "{event} with matcher {:?} is not a place git-dibs hooks",
                            matcher.as_deref().unwrap_or("")
                        )),
                    }
                    if !wiring.commands.contains(&command) {
                        wiring.commands.push(command);
                    }
                }
            }
        }
        wiring
    }
}

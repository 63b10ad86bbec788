//! Who is calling a command: the agent session its shell exports, or else a person.

use anyhow::{Result, bail};

use crate::agent::{self, AgentProcess};
use crate::protocol::Host;

/// The agent process a command from session `id`'s shell speaks for: the session's registered
/// agent when it is an ancestor of this process (a wrapper such as `make` or `perl` between
/// them is not a new agent, so the session's generation stays), else the nearest agent-like
/// ancestor.
pub(crate) fn session_agent(store: &Store, id: &str) -> Option<AgentProcess> {
    let chain = agent::ancestors();
    let registered = store.session(id).ok().flatten().and_then(|s| s.agent);
    if let Some(reg) = registered
        && chain.contains(&reg)
    {
        return Some(reg);
    }
    chain.into_iter().next()
}
use crate::store::{Session, Store};

/// When the session `id` (named by the environment) is live under an agent process that is
/// not an ancestor of this one, that agent: this command runs under another session's shell
/// (`DIBS_SESSION=<a peer> git dibs release --all`), and may not speak for it. `None` when it
/// may, or when that cannot be told (no agent registered, a system that cannot describe
/// processes).
pub(crate) fn impersonated(store: &Store, id: &str) -> Option<AgentProcess> {
    let registered = store.session(id).ok().flatten()?.agent?;
    if registered.is_gone() != Some(false) {
        return None;
    }
    let chain = agent::ancestors();
    (!chain.is_empty() && !chain.contains(&registered)).then_some(registered)
}

/// The session an agent's shell exports: `DIBS_SESSION` (set at session start), else Claude
/// Code's own `CLAUDE_CODE_SESSION_ID`; with the host that implies where it is known.
pub(crate) fn env_session() -> Option<(String, Host)> {
    [
        ("DIBS_SESSION", Host::Person),
        ("CLAUDE_CODE_SESSION_ID", Host::Claude),
    ]
    .into_iter()
    .find_map(|(var, host)| {
        let id = std::env::var(var).ok().filter(|v| !v.trim().is_empty())?;
        Some((id, host))
    })
}

/// The user's login name, for naming a person's session.
pub(crate) fn user_name() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "someone".into())
}

/// A person's session at this terminal: `person-<user>-<tty>`, or `person-<user>` without one.
pub(crate) fn person_session() -> String {
    match crate::platform::stdin_tty() {
        Some(t) => format!("person-{}-{t}", user_name()),
        None => format!("person-{}", user_name()),
    }
}

/// The least a session id prefix must have to stand for a session.
const MIN_PREFIX: usize = 4;

/// The session `text` names (`--session`, `DIBS_SESSION`): the record with exactly that id,
/// else the one session whose id (or short id) begins with `text`, as every message prints it;
/// else `text` itself, a new session. Several sessions beginning with `text` is an error that
/// names them; an empty id is refused.
pub(crate) fn resolve_session(store: &Store, text: &str) -> Result<String> {
    let text = text.trim();
    if text.is_empty() {
        bail!("an empty session id names no session; give a session's id or its short id");
    }
    if store.session(text)?.is_some() || text.chars().count() < MIN_PREFIX {
        return Ok(text.to_owned());
    }
    let everyone = store.everyone()?;
    let matches: Vec<&Session> = everyone
        .iter()
        .filter(|s| s.id.starts_with(text) || s.short_id().starts_with(text))
        .collect();
    match matches.as_slice() {
        [] => Ok(text.to_owned()),
        [one] => Ok(one.id.clone()),
        many => {
            let names: Vec<String> = many
                .iter()
                .take(8)
                .map(|s| format!("{} ({})", s.id, s.host.name()))
                .collect();
            bail!(
                "session `{text}` is ambiguous: it begins {}; give more of the id",
                names.join(", ")
            )
        }
    }
}

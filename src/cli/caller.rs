//! Who is calling a command: the agent session its shell exports, or else a person.

use std::path::Path;

use crate::protocol::Host;

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
    let tty = std::fs::read_link("/proc/self/fd/0")
        .ok()
        .and_then(|p| p.strip_prefix("/dev").ok().map(Path::to_path_buf))
        .map(|p| p.to_string_lossy().replace('/', ""))
        .filter(|t| t.starts_with("pts") || t.starts_with("tty"));
    match tty {
        Some(t) => format!("person-{}-{t}", user_name()),
        None => format!("person-{}", user_name()),
    }
}

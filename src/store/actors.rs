//! Actors: a session's main thread and each of its sub-agents hold files and claims under a key
//! of their own (the session's key, `~`, the sub-agent's id), so the index and the rosters list
//! them as distinct holders, while they share the session's id, generation and agent process.
//! When a sub-agent stops, what it held becomes the main thread's.

use std::fs;

use super::changes::MAX_SEEN;
use super::fence::fence;
use super::record::Session;
use super::{Store, StoreError, Writer, io_err, record, session_key};
use crate::host::Host;
use crate::host::SubAgent;

/// Who acts: a session's main thread (`agent: None`) or one of its live sub-agents. Each is a
/// holder of its own in the store; they share the session's id, generation and agent process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Actor<'a> {
    /// The host's session id.
    pub(crate) session: &'a str,
    /// The sub-agent, when it is not the main thread.
    pub(crate) agent: Option<&'a SubAgent>,
}

impl<'a> Actor<'a> {
    /// The main thread of session `id`.
    pub(crate) fn main(id: &'a str) -> Actor<'a> {
        Actor {
            session: id,
            agent: None,
        }
    }

    /// The sub-agent's id, if it is one.
    pub(crate) fn agent_id(&self) -> Option<&'a str> {
        self.agent.map(|a| a.id.as_str())
    }
}

impl<'a> From<&'a str> for Actor<'a> {
    fn from(id: &'a str) -> Self {
        Actor::main(id)
    }
}

impl<'a> From<&'a String> for Actor<'a> {
    fn from(id: &'a String) -> Self {
        Actor::main(id)
    }
}

/// An actor's file name: its session's key, and for a sub-agent `~` and the sub-agent's id
/// (or a digest of it when it is not a plain name). A main thread and each sub-agent of one
/// session are distinct holders in the index and the rosters.
pub(super) fn actor_key(actor: Actor<'_>) -> String {
    let session = session_key(actor.session);
    match actor.agent_id() {
        None => session,
        Some(agent) => {
            let plain = !agent.is_empty()
                && agent.len() <= 64
                && agent
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if plain {
                format!("{session}~{agent}")
            } else {
                format!("{session}~h-{:016x}", record::fnv1a(agent.as_bytes()))
            }
        }
    }
}

impl Store {
    /// The records of session `id`'s sub-agents, live or not.
    pub(crate) fn sub_agents_of(&self, id: &str) -> Result<Vec<Session>, StoreError> {
        let dir = self.dir.join("sessions");
        let prefix = format!("{}~", session_key(id));
        let mut out = Vec::new();
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.starts_with(&prefix) || !name.ends_with(".json") {
                continue;
            }
            if let Some(s) = self.read_record(&entry.path(), false)?
                && s.id == id
                && s.sub_agent.is_some()
            {
                out.push(s);
            }
        }
        out.sort_by(|a, b| (a.first_seen, &a.sub_agent).cmp(&(b.first_seen, &b.sub_agent)));
        Ok(out)
    }

    /// Sub-agent `agent` of session `id` stopped: what it holds (touches, claims, seen
    /// contents) becomes the main thread's, and its record ends. Nothing happens when the
    /// store never saw it (a stop without a start), beyond creating nothing.
    pub(crate) fn fold_sub_agent(
        &self,
        id: &str,
        agent: &SubAgent,
        host: Host,
        writer: Writer<'_>,
        now: u64,
    ) -> Result<(), StoreError> {
        let sub_path = self.session_path(Actor {
            session: id,
            agent: Some(agent),
        });
        if !sub_path.exists() {
            return Ok(());
        }
        let _guard = self.lock()?;
        let Some(old_sub) = self.read_record(&sub_path, true)? else {
            return Ok(());
        };
        let main_path = self.session_path(Actor::main(id));
        let old_main = self.read_record(&main_path, true)?;
        let mut main = old_main
            .clone()
            .unwrap_or_else(|| Session::new(id, host, now));
        fence(&mut main, writer, old_main.is_some())?;
        fold_into(&mut main, &old_sub);
        main.last_seen = main.last_seen.max(now);
        let mut sub = old_sub.clone();
        sub.files.clear();
        sub.claims.clear();
        sub.seen.clear();
        sub.ended.get_or_insert(now);
        self.write_session(old_main.as_ref(), &mut main)?;
        self.write_session(Some(&old_sub), &mut sub)?;
        Ok(())
    }
}

/// Give `to` what `from` holds: its touches (the later of two touches of one file wins), its
/// claims on targets `to` does not claim, and its seen contents.
pub(super) fn fold_into(to: &mut Session, from: &Session) {
    for f in &from.files {
        match to.files.iter_mut().find(|t| t.key == f.key) {
            Some(t) => {
                t.first = t.first.min(f.first);
                t.last = t.last.max(f.last);
            }
            None => to.files.push(f.clone()),
        }
    }
    for c in &from.claims {
        if !to.claims.iter().any(|n| n.target == c.target) {
            to.claims.push(c.clone());
        }
    }
    for seen in &from.seen {
        if !to.seen.iter().any(|s| s.key == seen.key && s.at >= seen.at) {
            to.seen.retain(|s| s.key != seen.key);
            to.seen.push(seen.clone());
        }
    }
    if to.seen.len() > MAX_SEEN {
        let extra = to.seen.len() - MAX_SEEN;
        to.seen.drain(..extra);
    }
}

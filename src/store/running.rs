//! Shell commands still running in the foreground: a marker per session (`running/<key>`),
//! written before a command that may write starts and removed once its host reports it ended
//! (PostToolUse, or PostToolUseFailure). What such a command has written so far is seen by no
//! hook until it ends; while the marker lives, a peer's shell command that may destroy is
//! preceded by a scan of the marker's worktrees for files changed since it began, into the
//! marker's session's snapshot. A marker older than the session's lease is stale (its session
//! died mid-command) and is dropped by whoever reads it.
//!
//! The same marker, kept in `pending/`, says that a scan after a session's command stopped at
//! its budget (a command that made thousands of files): any session's next command that may
//! destroy finishes it first.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Store, fsio, session_key};

/// The most worktrees one marker names.
const MAX_ROOTS: usize = 16;
/// The largest marker read back (bytes).
const MAX_MARKER_BYTES: usize = 16 << 10;
/// The most markers looked at per clone.
const MAX_MARKERS: usize = 64;
/// A marker that would change only in when it was written is rewritten after this long.
const REWRITE_AFTER: u64 = 60;

/// A session's shell command in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Running {
    /// The session running it.
    pub(crate) session: String,
    /// Its host's name.
    pub(crate) host: String,
    /// When the command began, seconds since the Unix epoch (the earliest, when one session
    /// runs several at once).
    pub(crate) since: u64,
    /// When the marker was last written (seconds).
    pub(crate) at: u64,
    /// The worktree roots it runs in.
    pub(crate) roots: Vec<PathBuf>,
    /// The sub-agent running it (a peer of its siblings), when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// The host's id of the tool call, when it sends one: the marker is then that call's
    /// alone, and the call's end removes it without ending another call of the same actor
    /// still running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) call: Option<String>,
}

impl Running {
    /// Whose marker this is: the session, or the session's sub-agent.
    pub(crate) fn key(&self) -> String {
        mark_key(&self.session, self.agent.as_deref())
    }

    /// The marker's file name: its actor's key, and its call's when it has one.
    fn file_name(&self) -> String {
        marker_name(&self.key(), self.call.as_deref())
    }
}

/// The file name of the marker of actor `key` (see [`mark_key`]) for tool call `call`. `~`
/// is in no session key, so an actor's call markers are the names that begin `<key>~`. A
/// call id longer than [`MAX_CALL_NAME`] is hashed, so the name stays within a file name's
/// limit however long the session id is.
fn marker_name(key: &str, call: Option<&str>) -> String {
    match call {
        Some(c) if c.len() > MAX_CALL_NAME => {
            format!("{}~h-{:016x}", session_key(key), super::fnv1a(c.as_bytes()))
        }
        Some(c) => format!("{}~{}", session_key(key), session_key(c)),
        None => session_key(key),
    }
}

/// The longest call id kept as it is in a marker's file name (a session key is 128 bytes at
/// most: with `~`, 193 of the 255 a name may have).
const MAX_CALL_NAME: usize = 64;

/// The marker key of `session`'s sub-agent `agent` (or of the session itself).
pub(crate) fn mark_key(session: &str, agent: Option<&str>) -> String {
    match agent {
        Some(a) => format!("{session}\u{1f}{a}"),
        None => session.to_owned(),
    }
}

/// Which markers: commands running, or scans left unfinished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marks {
    /// Shell commands still running (`running/`).
    Running,
    /// Scans after a command that stopped at their budget (`pending/`).
    Pending,
}

impl Marks {
    fn folder(self) -> &'static str {
        match self {
            Marks::Running => "running",
            Marks::Pending => "pending",
        }
    }
}

impl Store {
    fn marks_dir(&self, marks: Marks) -> PathBuf {
        self.dir.join(marks.folder())
    }

    /// The store of the clone whose common git dir is `common_dir`, without creating anything
    /// (a marker is written or read only where a store is).
    pub(crate) fn existing(common_dir: &Path) -> Option<Store> {
        let store = Store {
            dir: common_dir.join("dibs"),
        };
        fsio::is_real_dir(&store.dir).then_some(store)
    }

    /// Record that `run`'s session started a command (merged with a marker of the session
    /// written within `fresh` seconds, as when it runs two at once: the earliest start, every
    /// root; a marker of one tool call is that call's alone). Best effort.
    pub(crate) fn mark_running(&self, marks: Marks, mut run: Running, fresh: u64) {
        let dir = self.marks_dir(marks);
        if !fsio::is_real_dir(&dir) && self.make_dir(&dir).is_err() {
            return;
        }
        let file = dir.join(run.file_name());
        if run.call.is_none()
            && std::fs::symlink_metadata(&file).is_ok()
            && let Some(old) = read_marker(&file)
            && old.key() == run.key()
            && run.at.saturating_sub(old.at) < fresh
        {
            // Nothing new within a minute: no write (a rename over a file makes ext4 wait for
            // the disk).
            if old.since <= run.since
                && run.roots.iter().all(|r| old.roots.contains(r))
                && run.at.saturating_sub(old.at) < REWRITE_AFTER
            {
                return;
            }
            run.since = run.since.min(old.since);
            for r in old.roots {
                if !run.roots.contains(&r) {
                    run.roots.push(r);
                }
            }
        }
        run.roots.truncate(MAX_ROOTS);
        let bytes = serde_json::to_vec(&run).expect("a marker serializes");
        let _ = fsio::write_atomic(&file, &bytes);
    }

    /// Every marker of this clone but those of the actor keyed `except` (see [`mark_key`]; one
    /// listing, nothing read when that actor's are the only ones).
    pub(crate) fn running_except(&self, marks: Marks, except: Option<&str>) -> Vec<Running> {
        let Ok(entries) = std::fs::read_dir(self.marks_dir(marks)) else {
            return Vec::new();
        };
        let own = except.map(session_key);
        let mut out = Vec::new();
        for entry in entries.flatten().take(MAX_MARKERS) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.')
                || own.as_deref().is_some_and(|own| {
                    name.strip_prefix(own)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('~'))
                })
            {
                continue;
            }
            if let Some(run) = read_marker(&entry.path())
                && run.file_name() == name
            {
                out.push(run);
            }
        }
        out.sort_by(|a, b| a.session.cmp(&b.session));
        out
    }

    /// Remove the marker of actor `key` (see [`mark_key`]) for tool call `call` (its command
    /// ended, or it is stale).
    pub(crate) fn end_running(&self, marks: Marks, key: &str, call: Option<&str>) {
        let _ = std::fs::remove_file(self.marks_dir(marks).join(marker_name(key, call)));
    }
}

fn read_marker(file: &Path) -> Option<Running> {
    let bytes = fsio::read(file).ok()?;
    if bytes.len() > MAX_MARKER_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(session: &str, since: u64, root: &str) -> Running {
        Running {
            session: session.into(),
            host: "claude".into(),
            since,
            at: since,
            roots: vec![PathBuf::from(root)],
            agent: None,
            call: None,
        }
    }

    #[test]
    fn markers_merge_while_fresh_and_are_listed_for_the_others() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("dibs")).unwrap();
        let store = Store::existing(dir.path()).unwrap();
        store.mark_running(Marks::Running, run("s1", 100, "/a"), 60);
        store.mark_running(Marks::Running, run("s1", 130, "/b"), 60);
        store.mark_running(Marks::Running, run("s2", 140, "/a"), 60);
        let seen = store.running_except(Marks::Running, Some("s2"));
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].since, 100);
        assert_eq!(seen[0].roots, [PathBuf::from("/b"), PathBuf::from("/a")]);
        // A marker older than `fresh` is replaced, not merged.
        store.mark_running(Marks::Running, run("s1", 500, "/c"), 60);
        let seen = store.running_except(Marks::Running, Some("s2"));
        assert_eq!((seen[0].since, seen[0].roots.len()), (500, 1));
        store.end_running(Marks::Running, "s1", None);
        assert!(store.running_except(Marks::Pending, None).is_empty());
        assert!(store.running_except(Marks::Running, Some("s2")).is_empty());
        assert_eq!(store.running_except(Marks::Running, Some("s1")).len(), 1);
        assert!(Store::existing(&dir.path().join("nothing")).is_none());
        // A sub-agent's marker is its own: a peer of its session's.
        let mut sub = run("s2", 600, "/d");
        sub.agent = Some("agent-1".into());
        store.mark_running(Marks::Running, sub.clone(), 60);
        assert_eq!(
            store.running_except(Marks::Running, Some("s2")),
            [sub.clone()]
        );
        store.end_running(Marks::Running, &sub.key(), None);
        assert!(store.running_except(Marks::Running, Some("s2")).is_empty());
    }

    #[test]
    fn each_call_of_one_actor_has_its_own_marker() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("dibs")).unwrap();
        let store = Store::existing(dir.path()).unwrap();
        let call = |id: &str, since| Running {
            call: Some(id.into()),
            ..run("s1", since, "/a")
        };
        store.mark_running(Marks::Running, call("toolu_1", 100), 60);
        store.mark_running(Marks::Running, call("toolu_2", 110), 60);
        assert_eq!(store.running_except(Marks::Running, Some("s2")).len(), 2);
        // The actor's own calls are all left out of what it is shown.
        assert!(store.running_except(Marks::Running, Some("s1")).is_empty());
        // The first call's end leaves the second one marked.
        store.end_running(Marks::Running, "s1", Some("toolu_1"));
        let seen = store.running_except(Marks::Running, Some("s2"));
        assert_eq!(seen, [call("toolu_2", 110)]);
        store.end_running(Marks::Running, "s1", Some("toolu_2"));
        assert!(store.running_except(Marks::Running, Some("s2")).is_empty());
        // The longest ids a host may send still make a marker.
        let long = Running {
            session: "s".repeat(128),
            call: Some("c".repeat(128)),
            ..run("x", 130, "/c")
        };
        store.mark_running(Marks::Running, long.clone(), 60);
        assert_eq!(
            store.running_except(Marks::Running, Some("s2")),
            std::slice::from_ref(&long)
        );
        store.end_running(Marks::Running, &long.key(), long.call.as_deref());
        // A session whose id begins with another's is not taken for it.
        store.mark_running(Marks::Running, call("toolu_3", 120), 60);
        store.mark_running(Marks::Running, run("s1x", 120, "/b"), 60);
        assert_eq!(store.running_except(Marks::Running, Some("s1")).len(), 1);
    }
}

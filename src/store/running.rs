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
/// The most actors whose markers are looked at per clone.
const MAX_MARKERS: usize = 64;
/// The most marker files read per look (the acting actor's own and stale ones not counted).
const MAX_READ: usize = 1024;
/// The most names listed per look.
const MAX_LISTED: usize = 8192;
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
    /// When a later command of the same actor scanned what the call wrote (seconds): a call
    /// whose end never came (its post-tool hook killed by the host's timeout, a call the
    /// person declined) is scanned once before the actor's next command that may destroy,
    /// not before each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scanned: Option<u64>,
    /// Where a scan left unfinished goes on, per worktree (pending marks only): a root without
    /// one is scanned from its start, for what changed since [`Running::since`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) resume: Vec<Resume>,
}

/// Where the scan of one worktree left unfinished goes on: its files (in byte order of their
/// paths) after `after` still need what changed since `since` taken, those up to it only what
/// changed since `again` (when the scan that took them ran). Seconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Resume {
    /// The worktree's root.
    pub(crate) root: PathBuf,
    /// The last path taken.
    pub(crate) after: String,
    /// Changes since this count for the paths after `after`.
    pub(crate) since: u64,
    /// Changes since this count for the paths up to `after`.
    pub(crate) again: u64,
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
            // the disk). A marker its actor scanned is written again: the new call is not.
            if old.scanned.is_none()
                && old.since <= run.since
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

    /// Every actor's markers in this clone but those of the actor keyed `except` (see
    /// [`mark_key`]), one entry per actor: its calls' markers merged (the earliest start, every
    /// root). A marker last written `lease` or more before `now` is stale (its session
    /// died mid-command, or its host never reported the call's end, as for a call the person
    /// declined) and is removed unread into the answer. The actor's own names and stale
    /// markers count toward no cap, so no number of them crowds out a live one.
    pub(crate) fn running_except<F: FnOnce() -> u64>(
        &self,
        marks: Marks,
        except: Option<&str>,
        now: u64,
        lease: &mut super::Lease<F>,
    ) -> Vec<Running> {
        self.running_around(marks, except.map(|k| (k, None)), now, lease)
            .0
    }

    /// [`Store::running_except`] for the actor keyed `own.0`, and that actor's own markers
    /// (one per call) that no later command of it has scanned, but the marker of its tool call
    /// `own.1` (the one about to run, when the host names calls): its calls whose end never
    /// came, or that still run beside this one. One listing of the folder for both.
    pub(crate) fn running_around<F: FnOnce() -> u64>(
        &self,
        marks: Marks,
        own: Option<(&str, Option<&str>)>,
        now: u64,
        lease: &mut super::Lease<F>,
    ) -> (Vec<Running>, Vec<Running>) {
        let Ok(entries) = std::fs::read_dir(self.marks_dir(marks)) else {
            return (Vec::new(), Vec::new());
        };
        let own_actor = own.map(|(k, _)| session_key(k));
        let this_call = own.and_then(|(k, c)| Some(marker_name(k, Some(c?))));
        let mut actors: Vec<(String, Running)> = Vec::new();
        let mut mine: Vec<Running> = Vec::new();
        let mut read = 0;
        for entry in entries.flatten().take(MAX_LISTED) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let actor = name.split('~').next().unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            if own_actor.as_deref() == Some(actor) {
                if this_call.as_deref() != Some(&*name)
                    && mine.len() < MAX_MARKERS
                    && let Some(run) = read_marker(&entry.path()).filter(|r| r.file_name() == name)
                {
                    if !lease.within(now.saturating_sub(run.at)) {
                        let _ = std::fs::remove_file(entry.path());
                    } else if run.scanned.is_none() {
                        mine.push(run);
                    }
                }
                continue;
            }
            let known = actors.iter().position(|(a, _)| a == actor);
            if known.is_none() && actors.len() >= MAX_MARKERS || read >= MAX_READ {
                continue;
            }
            read += 1;
            let Some(run) = read_marker(&entry.path()).filter(|r| r.file_name() == name) else {
                continue;
            };
            if !lease.within(now.saturating_sub(run.at)) {
                let _ = std::fs::remove_file(entry.path());
                read -= 1;
                continue;
            }
            match known {
                Some(i) => {
                    let merged = &mut actors[i].1;
                    merged.since = merged.since.min(run.since);
                    merged.at = merged.at.max(run.at);
                    for r in run.roots {
                        if merged.roots.len() < MAX_ROOTS && !merged.roots.contains(&r) {
                            merged.roots.push(r);
                        }
                    }
                }
                None => actors.push((
                    actor.to_owned(),
                    Running {
                        call: None,
                        scanned: None,
                        ..run
                    },
                )),
            }
        }
        let mut out: Vec<Running> = actors.into_iter().map(|(_, r)| r).collect();
        out.sort_by(|a, b| a.session.cmp(&b.session));
        (out, mine)
    }

    /// Every marker of actor `key` (see [`mark_key`]), one per call, scanned or not.
    pub(crate) fn running_of(&self, marks: Marks, key: &str) -> Vec<Running> {
        let Ok(entries) = std::fs::read_dir(self.marks_dir(marks)) else {
            return Vec::new();
        };
        let actor = session_key(key);
        entries
            .flatten()
            .take(MAX_LISTED)
            .filter(|e| e.file_name().to_string_lossy().split('~').next() == Some(&*actor))
            .take(MAX_MARKERS)
            .filter_map(|e| read_marker(&e.path()))
            .filter(|r| r.key() == key)
            .collect()
    }

    /// Record that the actor's later command scanned `run` (as [`Store::running_around`]
    /// returned it) at `at`. Nothing when its marker went meanwhile (the call ended).
    pub(crate) fn running_scanned(&self, marks: Marks, run: &Running, at: u64) {
        let file = self.marks_dir(marks).join(run.file_name());
        if std::fs::symlink_metadata(&file).is_err() {
            return;
        }
        let run = Running {
            scanned: Some(at),
            ..run.clone()
        };
        let bytes = serde_json::to_vec(&run).expect("a marker serializes");
        let _ = fsio::write_atomic(&file, &bytes);
    }

    /// When the command of actor `key` (see [`mark_key`]) for tool call `call` began, as its
    /// marker says (seconds since the Unix epoch); `None` without one.
    pub(crate) fn running_since(&self, marks: Marks, key: &str, call: Option<&str>) -> Option<u64> {
        read_marker(&self.marks_dir(marks).join(marker_name(key, call))).map(|r| r.since)
    }

    /// Write `run` as the pending mark of its session as it is (no merge: the caller read the
    /// old one and took it into account), or remove the mark when it names no worktree.
    pub(crate) fn replace_pending(&self, mut run: Running) {
        if run.roots.is_empty() {
            self.end_running(Marks::Pending, &run.session, None);
            return;
        }
        let dir = self.marks_dir(Marks::Pending);
        if !fsio::is_real_dir(&dir) && self.make_dir(&dir).is_err() {
            return;
        }
        run.roots.truncate(MAX_ROOTS);
        run.resume.retain(|r| run.roots.contains(&r.root));
        let bytes = serde_json::to_vec(&run).expect("a marker serializes");
        let _ = fsio::write_atomic(&dir.join(run.file_name()), &bytes);
    }

    /// The pending mark of `session` (a scan of its left unfinished), if any.
    pub(crate) fn pending_of(&self, session: &str) -> Option<Running> {
        read_marker(
            &self
                .marks_dir(Marks::Pending)
                .join(marker_name(session, None)),
        )
        .filter(|r| r.session == session && r.agent.is_none())
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
#[path = "tests_running.rs"]
mod tests;

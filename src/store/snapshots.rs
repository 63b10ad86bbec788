//! What the store remembers about snapshots: per session, the last snapshot's commit and the
//! stat data of each file as it was snapshotted (`snapshots/<key>.log`, appended to as
//! snapshots are made; see `snaplog`), so a later call can tell by `stat` alone whether a file
//! changed since; the HEAD each worktree had when last
//! looked at (`heads`), so a shell command that made commits is noticed without opening the
//! repository; and the last snapshot failure (`snapshots/failed`), for `doctor`.

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{Store, StoreError, fsio, io_err, read_small, session_key, snaplog};
use crate::platform::below::Lstat;

/// How many files one session's state watches at most (the most recently snapshotted).
pub(crate) const MAX_WATCHED: usize = 4096;
/// How long a snapshot is kept by default.
pub(crate) const DEFAULT_SNAPSHOT_EXPIRY: Duration = Duration::from_secs(14 * 24 * 60 * 60);
/// The largest state file read back (bytes).
const MAX_STATE_BYTES: u64 = 8 << 20;
/// A state log is compacted once it is longer than this and mostly superseded lines.
const COMPACT_AT: u64 = 64 << 10;

/// The stat data that tells whether a file changed: size, modification and change times to the
/// nanosecond, inode and mode. Equal stamps mean unchanged, as git's index assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// Size in bytes.
    pub(crate) len: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub(crate) mtime: i128,
    /// Status change time, nanoseconds since the Unix epoch.
    pub(crate) ctime: i128,
    /// Inode.
    pub(crate) ino: u64,
    /// File type and permission bits.
    pub(crate) mode: u32,
}

impl Stamp {
    /// The stamp of a file an edit tool is about to create (no file has it): whatever is there
    /// later counts as changed, so a host that dies before its post-tool hook leaves the
    /// written file to the next sweep, not to nobody.
    pub(crate) const WRITING: Stamp = Stamp {
        len: 0,
        mtime: 0,
        ctime: 0,
        ino: 0,
        mode: 0,
    };

    /// The stamp of `meta` (from `symlink_metadata`).
    #[cfg(unix)]
    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        Stamp::from(Lstat::of(meta))
    }

    /// The stamp of `meta` (from `symlink_metadata`).
    #[cfg(not(unix))]
    pub(crate) fn of(meta: &fs::Metadata) -> Stamp {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Stamp {
            len: meta.len(),
            mtime,
            ctime: 0,
            ino: 0,
            mode: u32::from(meta.is_dir()),
        }
    }
}

impl From<Lstat> for Stamp {
    fn from(s: Lstat) -> Stamp {
        let ns = |(s, n): (i64, i64)| i128::from(s) * 1_000_000_000 + i128::from(n);
        Stamp {
            len: s.len,
            mtime: ns(s.mtime),
            ctime: ns(s.ctime),
            ino: s.ino,
            mode: s.mode,
        }
    }
}

/// One file a session's snapshots watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Watched {
    /// Its worktree root.
    pub(crate) worktree: PathBuf,
    /// Relative to the root.
    pub(crate) path: String,
    /// Its stat data when last snapshotted (or last skipped).
    pub(crate) stamp: Stamp,
    /// Why it was left out last time, when it was.
    pub(crate) skipped: Option<String>,
    /// The blob id of the content snapshotted, when it was.
    pub(crate) blob: Option<String>,
}

/// The snapshot state of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SnapState {
    /// The session's id.
    pub(crate) session: String,
    /// Its host's name.
    pub(crate) host: String,
    /// The newest snapshot commit, when there is one.
    pub(crate) commit: Option<String>,
    /// When it was made, seconds since the Unix epoch.
    pub(crate) at: u64,
    /// The files watched, oldest snapshot first.
    pub(crate) files: Vec<Watched>,
}

impl SnapState {
    /// The watched entry of `path` in the worktree at `root`.
    pub(crate) fn watched(&self, root: &Path, path: &str) -> Option<&Watched> {
        self.files
            .iter()
            .find(|w| w.worktree == root && w.path == path)
    }

    /// Record `entry` as the newest state of its file (moved to the end), keeping at most
    /// [`MAX_WATCHED`] files.
    pub(crate) fn watch(&mut self, entry: Watched) {
        self.files
            .retain(|w| !(w.worktree == entry.worktree && w.path == entry.path));
        self.files.push(entry);
        if self.files.len() > MAX_WATCHED {
            let extra = self.files.len() - MAX_WATCHED;
            self.files.drain(..extra);
        }
    }
}

/// The last snapshot failure, for `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SnapshotFailure {
    /// When, seconds since the Unix epoch.
    pub(crate) at: u64,
    /// What went wrong.
    pub(crate) what: String,
}

impl Store {
    fn snapshots_dir(&self) -> PathBuf {
        self.dir.join("snapshots")
    }

    /// Whether any session ever snapshotted here (one `lstat`).
    pub(crate) fn has_snapshots(&self) -> bool {
        fsio::is_real_dir(&self.snapshots_dir())
    }

    /// The store of the clone whose common git dir is `common_dir`, when some session ever
    /// snapshotted there; `None` otherwise, and nothing is created (an everyday command in a
    /// clone without a store leaves none).
    pub(crate) fn with_snapshots(common_dir: &Path) -> Option<Store> {
        let store = Store {
            dir: common_dir.join("dibs"),
        };
        store.has_snapshots().then_some(store)
    }

    /// The name session `id`'s snapshot ref ends with (safe as a ref component).
    pub(crate) fn snapshot_key(id: &str) -> String {
        session_key(id)
    }

    pub(super) fn state_path(&self, id: &str) -> PathBuf {
        self.snapshots_dir()
            .join(format!("{}.log", session_key(id)))
    }

    /// The snapshot state of session `id`; `None` when it has none (or it cannot be read).
    pub(crate) fn snapshot_state(&self, id: &str) -> Option<SnapState> {
        read_state(&self.state_path(id)).filter(|s| s.session == id)
    }

    /// Whether session `id`'s snapshot state log was last written at or after `since`
    /// (seconds since the Unix epoch): one `lstat`, no link followed.
    pub(crate) fn snapshot_log_written_since(&self, id: &str, since: u64) -> bool {
        fs::symlink_metadata(self.state_path(id))
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .is_some_and(|d| d.as_secs() >= since)
    }

    /// What session `id`'s snapshot state remembers of `path` in the worktree at `root`, read
    /// without decoding the rest of the state (an edit's pre-check costs one read and a search).
    pub(crate) fn watched_file(&self, id: &str, root: &Path, path: &str) -> Option<Watched> {
        let bytes = crate::platform::files::read_regular(
            &self.state_path(id),
            crate::platform::files::Links::Refuse,
            MAX_STATE_BYTES,
        )
        .ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let wid = crate::git::snapshot::worktree_id(root);
        snaplog::last_file(&text, &wid, root, path)
    }

    /// The snapshot commits session `id`'s log still names, newest first (older ones until
    /// the log is compacted): where a broken chain can be picked up again.
    pub(crate) fn snapshot_commits(&self, id: &str) -> Vec<String> {
        let Ok(bytes) = crate::platform::files::read_regular(
            &self.state_path(id),
            crate::platform::files::Links::Refuse,
            MAX_STATE_BYTES,
        ) else {
            return Vec::new();
        };
        let mut all = snaplog::commits(&String::from_utf8_lossy(&bytes));
        all.reverse();
        all.dedup();
        all
    }

    /// Record in `state` (session `state.session`'s snapshot state as read before) that
    /// `commit` was made at `at`, when one was, and the newest stat data of `files`: `state`
    /// is updated as its log now reads, and the lines are appended to the log (one append, no
    /// file created but the first time, none replaced but when the log is compacted).
    pub(crate) fn add_snapshot_state(
        &self,
        state: &mut SnapState,
        commit: Option<&str>,
        at: u64,
        files: Vec<Watched>,
    ) -> Result<(), StoreError> {
        let dir = self.snapshots_dir();
        if !fsio::is_real_dir(&dir) {
            self.make_dir(&dir)?;
        }
        let mut text = String::new();
        // The lines about whose state this is, and which root a worktree id stands for, are
        // written once: when the state is new, when the worktree is.
        if state.commit.is_none() && state.files.is_empty() {
            snaplog::session_line(&mut text, &state.session, &state.host);
        }
        if let Some(c) = commit {
            snaplog::commit_line(&mut text, c, at);
            state.commit = Some(c.to_owned());
            state.at = at;
        }
        let mut roots: Vec<&Path> = Vec::new();
        for w in &files {
            let wid = crate::git::snapshot::worktree_id(&w.worktree);
            let known = |r: &Path| state.files.iter().any(|k| k.worktree == r);
            if !roots.contains(&w.worktree.as_path()) && !known(&w.worktree) {
                roots.push(&w.worktree);
                snaplog::worktree_line(&mut text, &wid, &w.worktree.to_string_lossy());
            }
            snaplog::file_line(&mut text, &wid, w);
        }
        for w in files {
            state.watch(w);
        }
        let path = self.state_path(&state.session);
        let len = fsio::append_locked(&path, text.as_bytes()).map_err(io_err(&path))?;
        // Compacted once mostly superseded: a file's line is about 100 bytes.
        let live = 200 + 100 * state.files.len() as u64;
        if len > COMPACT_AT && len > 2 * live {
            let wid = crate::git::snapshot::worktree_id;
            fsio::replace_locked(&path, |old| {
                let (now, _) = snaplog::decode(&String::from_utf8_lossy(old))?;
                Some(snaplog::encode(&now, wid).into_bytes())
            })
            .map_err(io_err(&path))?;
        }
        Ok(())
    }

    /// The snapshot states written at or after `since` (seconds since the Unix epoch): one
    /// listing of `snapshots/`, one `stat` per state, one read per recent one. Empty (and no
    /// more than one failed listing) when no session ever snapshotted.
    pub(crate) fn snapshot_states_since(&self, since: u64) -> Vec<SnapState> {
        let mut out: Vec<SnapState> = self
            .state_logs_since(since)
            .iter()
            .filter_map(|b| decode_log(b))
            .collect();
        out.sort_by(|a, b| a.session.cmp(&b.session));
        out
    }

    /// This clone's records (main threads and sub-agents, live or not) of the sessions that
    /// have a snapshot log, by first activity: only those can have kept a file as written. One
    /// listing of `snapshots/` and one of the records, and a read of each of those records;
    /// none when no session ever snapshotted. A `snapshots/` that cannot be listed: every
    /// record.
    pub(crate) fn sessions_with_snapshots(&self) -> Result<Vec<super::Session>, StoreError> {
        let entries = match fs::read_dir(self.snapshots_dir()) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(_) => return self.sessions(),
        };
        let keys: std::collections::BTreeSet<String> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let key = name.strip_suffix(".log")?;
                (!key.starts_with('.')).then(|| key.to_owned())
            })
            .collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        // A sub-agent's record is `<session key>~<agent>`: its session's log is its own.
        let mut out = self
            .records_where(|stem| keys.contains(stem.split_once('~').map_or(stem, |(k, _)| k)))?;
        out.retain(|s| s.origin.is_none());
        Ok(out)
    }

    /// Every snapshot state, whatever its age.
    #[cfg(test)]
    pub(crate) fn snapshot_states(&self) -> Vec<SnapState> {
        self.snapshot_states_since(0)
    }

    /// The bytes of each snapshot state log written since `since` (seconds). A log this
    /// process read before and whose stat data (size, times, inode) are still what they were
    /// then is not read again: a refusal reads every log for its audit line and again for the
    /// line that says how to recover.
    fn state_logs_since(&self, since: u64) -> Vec<Vec<u8>> {
        use std::collections::HashMap;
        use std::sync::Mutex;
        type Seen = HashMap<PathBuf, (Lstat, Vec<u8>)>;
        static SEEN: Mutex<Option<Seen>> = Mutex::new(None);
        let listed = self.state_logs_listed(|mtime| mtime >= since);
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let seen = seen.get_or_insert_with(HashMap::new);
        if since == 0 {
            // Every log of the store was listed: one no longer there is forgotten (a process
            // that lives on, the clone's watcher, would otherwise keep every log it ever read).
            let dir = self.snapshots_dir();
            seen.retain(|p, _| {
                p.parent() != Some(dir.as_path()) || listed.iter().any(|(l, _)| l == p)
            });
        }
        listed
            .into_iter()
            .filter_map(|(path, stat)| match seen.get(&path) {
                Some((was, bytes)) if *was == stat => Some(bytes.clone()),
                _ => {
                    let bytes = read_log(&path)?;
                    seen.insert(path, (stat, bytes.clone()));
                    Some(bytes)
                }
            })
            .collect()
    }

    /// The newest snapshot commit of each session that snapshotted files in (or below) one of
    /// `roots`, with the session's id, in id order. Reads each log in place, its file lines no
    /// further than the worktree they name.
    pub(crate) fn snapshot_heads_in(&self, roots: &[&Path]) -> Vec<(String, String)> {
        let logs: Vec<Vec<u8>> = self.state_logs_since(0);
        let texts: Vec<Cow<'_, str>> = logs.iter().map(|b| text_of(b)).collect();
        let mut out: Vec<(String, String)> = texts
            .iter()
            .filter_map(|t| snaplog::heads(t))
            .filter_map(|(session, commit, used)| {
                let commit = commit?;
                let here = used.iter().any(|root| {
                    let root = snaplog::owned(root);
                    roots.iter().any(|r| Path::new(&root).starts_with(r))
                });
                here.then(|| (snaplog::owned(session), snaplog::owned(commit)))
            })
            .collect();
        out.sort();
        out
    }

    /// Delete the snapshot states last written before `cutoff` (their refs expire with them),
    /// and those of the JSON format used before the logs.
    pub(crate) fn drop_snapshot_states_before(&self, cutoff: u64) {
        let Ok(entries) = fs::read_dir(self.snapshots_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let old = entry
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .is_some_and(|d| d.as_secs() < cutoff);
            let name = entry.file_name();
            let name = name.as_encoded_bytes();
            // (A log's sweep copy is written after the log it copies: an old one belongs to an
            // old log, or to none.)
            let state =
                name.ends_with(b".log") || name.ends_with(b".stat") || name.ends_with(b".json");
            if state && !name.starts_with(b".") && (old || name.ends_with(b".json")) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Remember that a snapshot failed (best effort).
    pub(crate) fn note_snapshot_failure(&self, at: u64, what: &str) {
        let dir = self.snapshots_dir();
        if !dir.is_dir() && self.make_dir(&dir).is_err() {
            return;
        }
        let what: String = what.chars().filter(|c| !c.is_control()).take(300).collect();
        let bytes = serde_json::to_vec(&SnapshotFailure { at, what }).expect("serializes");
        let _ = fsio::write_atomic(&dir.join("failed"), &bytes);
    }

    /// The last snapshot failure, if one was recorded.
    pub(crate) fn last_snapshot_failure(&self) -> Option<SnapshotFailure> {
        let bytes = read_small(&self.snapshots_dir().join("failed"))?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The HEAD commit the worktree at `root` had when last looked at ([`Store::remember_head`]).
    pub(crate) fn last_head(&self, root: &Path) -> Option<String> {
        let bytes = read_state_bytes(&self.dir.join("heads"))?;
        let text = String::from_utf8_lossy(&bytes);
        let root = root.to_string_lossy();
        text.lines()
            .filter_map(|l| l.split_once('\t'))
            .find(|(_, r)| *r == root)
            .map(|(c, _)| c.to_owned())
    }

    /// Remember `commit` as the HEAD of the worktree at `root` (best effort; the last few
    /// dozen worktrees are kept).
    pub(crate) fn remember_head(&self, root: &Path, commit: &str) {
        let path = self.dir.join("heads");
        let old = read_state_bytes(&path).unwrap_or_default();
        let old = String::from_utf8_lossy(&old);
        let root = root.to_string_lossy();
        if root.contains(['\n', '\t']) {
            return;
        }
        let mut text = format!("{commit}\t{root}\n");
        for line in old
            .lines()
            .filter(|l| l.split_once('\t').is_some_and(|(_, r)| r != root))
            .take(40)
        {
            text.push_str(line);
            text.push('\n');
        }
        let _ = fsio::write_atomic(&path, text.as_bytes());
    }
}

/// A state file's bytes, when it is a regular file of at most [`MAX_STATE_BYTES`] (no symlink
/// is followed).
fn read_state_bytes(path: &Path) -> Option<Vec<u8>> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_STATE_BYTES {
        return None;
    }
    fs::read(path).ok()
}

/// Files a session watches that changed ([`Store::changed_watched`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangedWatched {
    /// The session's id.
    pub(crate) session: String,
    /// Its host's name (empty when not known).
    pub(crate) host: String,
    /// Each file: its worktree root and its path relative to it.
    pub(crate) files: Vec<(PathBuf, String)>,
}

/// A state log's bytes, when it is a regular file of at most [`MAX_STATE_BYTES`] (one open,
/// no link followed).
fn read_log(path: &Path) -> Option<Vec<u8>> {
    crate::platform::files::read_regular(
        path,
        crate::platform::files::Links::Refuse,
        MAX_STATE_BYTES,
    )
    .ok()
}

/// A state log, when it is a regular file of at most [`MAX_STATE_BYTES`] that names its
/// session (one open, no link followed).
fn read_state(path: &Path) -> Option<SnapState> {
    decode_log(&read_log(path)?)
}

/// A log's bytes as text (a byte that is not UTF-8 replaced).
fn text_of(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The state a log's bytes describe.
fn decode_log(bytes: &[u8]) -> Option<SnapState> {
    snaplog::decode(&text_of(bytes)).map(|(state, _)| state)
}

mod sweep;
#[cfg(test)]
mod tests;

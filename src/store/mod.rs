//! The one [`Store`]: session records, the file-claim index, the audit log; atomic writes under a
//! lock with a timeout, fencing by generation, pruning and recovery. Nothing outside this module
//! knows the layout of `$(git rev-parse --git-common-dir)/dibs/`.
//!
//! Layout: `sessions/<key>.json` holds one session record; `files/<digest>/<key>` is an empty
//! marker saying that session `<key>` holds the file with that digest, so finding the holders of
//! a file costs one directory listing whatever the number of sessions; `lock` is the write lock;
//! `audit.log` is JSON lines; `pruned` is a time stamp for cheap, periodic pruning.

mod fsio;
mod record;

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use record::{Change, FileKey, FileTouch, Session, short_id};

use crate::protocol::Host;

/// How long a writer waits for the lock before giving up.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(3);
/// The default lease: a session is live while idle for less than this.
pub const DEFAULT_TTL: Duration = Duration::from_secs(2 * 60 * 60);
/// How often pruning runs at most.
const PRUNE_EVERY: Duration = Duration::from_secs(10 * 60);
/// How long a dead session's record is kept (for `status --all`) before it is deleted.
const KEEP_DEAD: Duration = Duration::from_secs(24 * 60 * 60);

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store folder could not be created or opened.
    #[error("the git-dibs store at {path} cannot be used: {source}")]
    Unavailable {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Another writer held the lock for the whole timeout.
    #[error("the git-dibs store at {0} is locked by another process; try again")]
    LockTimeout(PathBuf),
    /// A writer stamped with an older generation than the record's was refused.
    #[error(
        "session {session} was taken over (generation {current}); this writer holds generation \
         {held} and may not change it"
    )]
    Fenced {
        /// The session id.
        session: String,
        /// The writer's generation.
        held: u64,
        /// The record's generation.
        current: u64,
    },
    /// A read or write failed.
    #[error("git-dibs store I/O on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A session's file name: its id when that is a plain, safe name, else a digest of it.
fn session_key(id: &str) -> String {
    let plain = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if plain {
        id.to_owned()
    } else {
        format!("h-{:016x}", record::fnv1a(id.as_bytes()))
    }
}

/// Another session holding a file, with its touch of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The holding session's record.
    pub session: Session,
    /// Its touch of the file.
    pub touch: FileTouch,
}

/// The shared record of one clone, in `<common dir>/dibs/`.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// Open (creating if needed) the store of the clone whose common git dir is `common_dir`.
    pub fn open(common_dir: &Path) -> Result<Store, StoreError> {
        let dir = common_dir.join("dibs");
        let store = Store { dir };
        for sub in ["sessions", "files"] {
            let path = store.dir.join(sub);
            if !path.is_dir() {
                store.make_dir(&path)?;
            }
        }
        Ok(store)
    }

    /// Create `path` (and the store folder); a file in the way is set aside.
    fn make_dir(&self, path: &Path) -> Result<(), StoreError> {
        for p in [self.dir.as_path(), path] {
            if p.exists() && !p.is_dir() {
                fsio::set_aside(p).map_err(|source| StoreError::Unavailable {
                    path: p.to_path_buf(),
                    source,
                })?;
            }
        }
        fs::create_dir_all(path).map_err(|source| StoreError::Unavailable {
            path: path.to_path_buf(),
            source,
        })
    }

    /// The store folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn session_path(&self, id: &str) -> PathBuf {
        self.dir
            .join("sessions")
            .join(format!("{}.json", session_key(id)))
    }

    fn marker_dir(&self, key: &FileKey) -> PathBuf {
        self.dir.join("files").join(key.digest())
    }

    /// Take the write lock, waiting at most [`LOCK_TIMEOUT`].
    fn lock(&self) -> Result<fsio::LockGuard, StoreError> {
        let path = self.dir.join("lock");
        match fsio::lock(&path, LOCK_TIMEOUT).map_err(io_err(&path))? {
            fsio::Locked::Held(guard) => Ok(guard),
            fsio::Locked::TimedOut => Err(StoreError::LockTimeout(self.dir.clone())),
        }
    }

    /// Read a record file; a file that cannot be parsed is set aside and reads as absent.
    fn read_record(&self, path: &Path) -> Result<Option<Session>, StoreError> {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(path)(e)),
        };
        match serde_json::from_slice::<Session>(&bytes) {
            Ok(s) => Ok(Some(s)),
            Err(_) => {
                // Set aside under the lock, so a concurrent writer's fresh file is never moved.
                let _guard = self.lock()?;
                if fs::read(path).is_ok_and(|now| now == bytes) {
                    let _ = fsio::set_aside(path);
                }
                Ok(None)
            }
        }
    }

    /// The record of session `id`, if any.
    pub fn session(&self, id: &str) -> Result<Option<Session>, StoreError> {
        self.read_record(&self.session_path(id))
    }

    /// Every record in the store, live or not, ordered by first activity.
    pub fn sessions(&self) -> Result<Vec<Session>, StoreError> {
        let dir = self.dir.join("sessions");
        let mut out = Vec::new();
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            if let Some(s) = self.read_record(&entry.path())? {
                out.push(s);
            }
        }
        out.sort_by(|a, b| (a.first_seen, &a.id).cmp(&(b.first_seen, &b.id)));
        Ok(out)
    }

    /// Sessions other than `except` whose records say they hold `key`. Liveness is the caller's
    /// question. Costs one directory listing plus one read per holder.
    pub fn holders(&self, key: &FileKey, except: &str) -> Result<Vec<Holder>, StoreError> {
        let dir = self.marker_dir(key);
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) if e.kind() == ErrorKind::NotADirectory => return Ok(Vec::new()),
            Err(e) => return Err(io_err(&dir)(e)),
        };
        let skip = session_key(except);
        let mut out = Vec::new();
        for entry in entries {
            let name = entry.map_err(io_err(&dir))?.file_name();
            let name = name.to_string_lossy();
            if name == skip || name.starts_with('.') {
                continue;
            }
            let path = self.dir.join("sessions").join(format!("{name}.json"));
            let Some(session) = self.read_record(&path)? else {
                continue;
            };
            if session.id == except {
                continue;
            }
            if let Some(touch) = session.touch_of(key).cloned() {
                out.push(Holder { session, touch });
            }
        }
        Ok(out)
    }

    /// Apply `changes` to session `id` under the lock and return the new record.
    ///
    /// `stamp` is the writer's generation: a writer holding an older generation than the
    /// record's is refused with [`StoreError::Fenced`]. `None` means the caller has no process
    /// identity to stamp with and writes at the record's current generation.
    pub fn apply(
        &self,
        id: &str,
        host: Host,
        stamp: Option<u64>,
        now: u64,
        changes: &[Change],
    ) -> Result<Session, StoreError> {
        let _guard = self.lock()?;
        let path = self.session_path(id);
        let old = self.read_record(&path)?;
        if let (Some(old), Some(held)) = (&old, stamp)
            && held < old.generation
        {
            return Err(StoreError::Fenced {
                session: id.to_owned(),
                held,
                current: old.generation,
            });
        }
        let mut session = old.clone().unwrap_or_else(|| Session::new(id, host, now));
        for change in changes {
            apply_change(&mut session, now, change);
        }
        self.write_session(old.as_ref(), &mut session)?;
        Ok(session)
    }

    /// Raise session `id`'s generation (a new agent process took it over) and return it.
    pub fn bump_generation(&self, id: &str, host: Host, now: u64) -> Result<u64, StoreError> {
        let _guard = self.lock()?;
        let path = self.session_path(id);
        let old = self.read_record(&path)?;
        let mut session = old.clone().unwrap_or_else(|| Session::new(id, host, now));
        session.generation += 1;
        session.last_seen = now;
        self.write_session(old.as_ref(), &mut session)?;
        Ok(session.generation)
    }

    /// Write `new` (the lock is held) and bring the index in line with it.
    fn write_session(&self, old: Option<&Session>, new: &mut Session) -> Result<(), StoreError> {
        let old_keys: BTreeSet<&FileKey> = match old {
            Some(o) if o.indexed => o.files.iter().map(|f| &f.key).collect(),
            _ => BTreeSet::new(),
        };
        let new_keys: BTreeSet<&FileKey> = new.files.iter().map(|f| &f.key).collect();
        let name = session_key(&new.id);
        for key in new_keys.difference(&old_keys) {
            let dir = self.marker_dir(key);
            if !dir.is_dir() {
                self.make_dir(&dir)?;
            }
            let marker = dir.join(&name);
            fs::File::create(&marker).map_err(io_err(&marker))?;
        }
        for key in old_keys.difference(&new_keys) {
            self.remove_marker(key, &name);
        }
        new.indexed = true;
        let path = self.session_path(&new.id);
        let bytes = serde_json::to_vec(&*new).expect("a session record always serializes");
        fsio::write_atomic(&path, &bytes).map_err(io_err(&path))
    }

    fn remove_marker(&self, key: &FileKey, name: &str) {
        let dir = self.marker_dir(key);
        let _ = fs::remove_file(dir.join(name));
        let _ = fs::remove_dir(&dir); // only succeeds when empty
    }

    /// Prune when due: dead sessions (idle past `ttl`, or ended) stop being indexed, and records
    /// dead for a day are deleted. Cheap when not due (one `stat`); never waits for the lock.
    /// `ttl` is only asked for when pruning is due.
    pub fn prune_if_due(&self, ttl: impl FnOnce() -> Duration, now: u64) -> Result<(), StoreError> {
        let stamp = self.dir.join("pruned");
        let due = match fs::metadata(&stamp).and_then(|m| m.modified()) {
            Ok(t) => SystemTime::now()
                .duration_since(t)
                .is_ok_and(|age| age >= PRUNE_EVERY),
            Err(_) => true,
        };
        if !due {
            return Ok(());
        }
        let lock_path = self.dir.join("lock");
        let _guard = match fsio::lock(&lock_path, Duration::ZERO).map_err(io_err(&lock_path))? {
            fsio::Locked::Held(g) => g,
            fsio::Locked::TimedOut => return Ok(()),
        };
        fs::File::create(&stamp).map_err(io_err(&stamp))?;
        self.prune_locked(ttl(), now)
    }

    fn prune_locked(&self, ttl: Duration, now: u64) -> Result<(), StoreError> {
        let dir = self.dir.join("sessions");
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let path = entry.map_err(io_err(&dir))?.path();
            let Ok(bytes) = fs::read(&path) else { continue };
            let Ok(mut session) = serde_json::from_slice::<Session>(&bytes) else {
                continue;
            };
            if session.is_live(now, ttl) {
                continue;
            }
            let name = session_key(&session.id);
            if session.indexed {
                for f in &session.files {
                    self.remove_marker(&f.key, &name);
                }
            }
            let dead_since = session.ended.unwrap_or(session.last_seen + ttl.as_secs());
            if now.saturating_sub(dead_since) >= KEEP_DEAD.as_secs() {
                let _ = fs::remove_file(&path);
            } else if session.indexed {
                session.indexed = false;
                let bytes = serde_json::to_vec(&session).expect("a session record serializes");
                fsio::write_atomic(&path, &bytes).map_err(io_err(&path))?;
            }
        }
        self.prune_orphan_markers()
    }

    /// Remove index markers whose session record is gone (set aside, or deleted by hand).
    fn prune_orphan_markers(&self) -> Result<(), StoreError> {
        let files = self.dir.join("files");
        let sessions = self.dir.join("sessions");
        for dir in fs::read_dir(&files).map_err(io_err(&files))?.flatten() {
            let Ok(markers) = fs::read_dir(dir.path()) else {
                continue;
            };
            for marker in markers.flatten() {
                let mut record = marker.file_name();
                record.push(".json");
                if !sessions.join(&record).exists() {
                    let _ = fs::remove_file(marker.path());
                }
            }
            let _ = fs::remove_dir(dir.path());
        }
        Ok(())
    }

    /// Append one line to the audit log (`audit.log`, JSON lines), under the lock.
    pub fn append_audit(&self, line: &str) -> Result<(), StoreError> {
        let _guard = self.lock()?;
        let path = self.dir.join("audit.log");
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err(&path))?;
        let mut text = line.replace('\n', " ");
        text.push('\n');
        file.write_all(text.as_bytes()).map_err(io_err(&path))
    }

    /// The audit log's lines, oldest first (empty when there is none).
    pub fn audit_lines(&self) -> Result<Vec<String>, StoreError> {
        let path = self.dir.join("audit.log");
        match fs::read_to_string(&path) {
            Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_err(&path)(e)),
        }
    }
}

fn apply_change(session: &mut Session, now: u64, change: &Change) {
    session.last_seen = session.last_seen.max(now);
    match change {
        Change::Activity { worktree, branch } => {
            session.ended = None;
            if worktree.is_some() {
                session.worktree.clone_from(worktree);
                session.branch.clone_from(branch);
            }
        }
        Change::Label(label) => {
            if session.label.is_none() && !label.trim().is_empty() {
                session.label = Some(label.clone());
            }
        }
        Change::Touch(keys) => {
            session.ended = None;
            for key in keys {
                match session.files.iter_mut().find(|f| &f.key == key) {
                    Some(f) => f.last = now,
                    None => session.files.push(FileTouch {
                        key: key.clone(),
                        first: now,
                        last: now,
                    }),
                }
            }
        }
        Change::ReleaseAll => session.files.clear(),
        Change::End => session.ended = Some(now),
    }
}

#[cfg(test)]
mod tests;

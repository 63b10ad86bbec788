//! The one `Store`: session records, the lookup index, the audit log; atomic writes under a
//! lock with a timeout, fencing by generation, pruning and recovery. Nothing outside this module
//! knows the layout of `$(git rev-parse --git-common-dir)/dibs/`.
//!
//! Layout: `sessions/<key>.json` holds one session record (overwritten in place, its previous
//! version in `sessions/.<key>.json.prev`; see `recfile`); `index/<digest>/<key>` is an empty
//! marker saying that session `<key>` holds something with that digest (a file, a claim target,
//! or works in a worktree), so finding the holders of a file costs one directory listing
//! whatever the number of sessions (the empty ones are other names of the one empty file
//! `empty`: a name costs no new file); `cleared/<process>` remembers a session ended by `/clear`;
//! `lock` is the write lock; `audit.log` is JSON lines; `pruned` stamps the last pruning;
//! `settings.json` keeps the `dibs.*` settings with the fingerprint of the config they came from;
//! `trees` keeps the tree of the last few HEAD commits; `snapshots/<key>.log` holds a session's
//! snapshot state (see `SnapState`), `heads` the HEAD each worktree had when last looked at.

mod actors;
mod background;
mod changes;
mod claimlist;
mod clear;
mod erased;
mod fence;
mod fsio;
mod health;
mod kept;
mod lease;
mod locks;
mod makers;
mod nested;
mod prune;
mod reach;
mod recfile;
mod record;
mod remote;
mod roster;
mod running;
pub mod shared;
mod snaplog;
mod snapshots;
mod sweepcache;
mod tips;
pub(crate) mod watch;
mod write;

use std::fs;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) use actors::Actor;
use actors::actor_key;
pub(crate) use background::Background;
pub(crate) use changes::COALESCE;
pub(crate) use claimlist::ListedClaim;
pub(crate) use fence::Writer;
pub(crate) use health::{Kind as AsideKind, SetAside};
pub(crate) use lease::Lease;
pub(crate) use record::fnv1a;
pub(crate) use record::{
    Change, Claim, FileKey, FileTouch, Origin, SeenFile, Session, SessionHead, Target, short_id,
};
pub(crate) use remote::SyncDue;
pub(crate) use roster::LISTED_LAG;
pub(crate) use running::{Marks, Resume, Running, mark_key};
pub(crate) use snapshots::{DEFAULT_SNAPSHOT_EXPIRY, SnapState, Stamp, Watched};
pub(crate) use tips::BranchTips;
pub(crate) use write::{ClaimRequest, Grant};

/// How long a writer waits for the lock before giving up.
pub(crate) const LOCK_TIMEOUT: Duration = Duration::from_secs(3);
/// The default lease: a session is live while idle for less than this.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(2 * 60 * 60);
/// The shortest lease a claim may ask for.
pub(crate) const MIN_LEASE: Duration = Duration::from_secs(60);
/// The longest lease a claim may ask for (a year).
pub(crate) const MAX_LEASE: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
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
        "session {session} was taken over by another process (generation {current}); this \
         writer holds generation {held} and may not change it"
    )]
    Fenced {
        /// The session id.
        session: String,
        /// The writer's generation.
        held: u64,
        /// The record's generation.
        current: u64,
    },
    /// A read or write failed. The cause is in the text (not a separate source, which an
    /// error chain would print again), with what to do when it is the permissions.
    #[error("git-dibs store I/O on {path}: {cause}{}", io_hint(.cause, .path))]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |cause| StoreError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// The next step for a store file the user may not read or write (a store made by another
/// user, or made read-only): empty for any other failure.
fn io_hint(cause: &io::Error, path: &Path) -> String {
    if cause.kind() != io::ErrorKind::PermissionDenied {
        return String::new();
    }
    let store = path
        .ancestors()
        .find(|p| p.file_name().is_some_and(|n| n == "dibs"))
        .unwrap_or(path);
    format!(
        "; the store {} must be readable and writable by you: give it back to your user \
         (`chown -R`) or make it writable (`chmod -R u+w`), then run this again",
        store.display()
    )
}

/// Seconds since the Unix epoch. Debug builds (the tests' builds) honour `DIBS_NOW` (seconds
/// since the epoch), a test-only clock so that snapshots of messages with times in them are
/// stable without sleeping; release builds never read it.
pub(crate) fn now_secs() -> u64 {
    #[cfg(debug_assertions)]
    if let Some(now) = std::env::var("DIBS_NOW")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return now;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The latest time [`rfc3339`] writes as a date: the end of year 9999.
pub(crate) const LATEST_TIME: u64 = 253_402_300_799;

/// `secs` since the Unix epoch as an RFC 3339 time (`2026-11-29T06:41:07Z`). A time past year
/// 9999, which only a damaged record or an old version's unchecked lease holds, is written as
/// that year's last second rather than failing.
pub(crate) fn rfc3339(secs: u64) -> String {
    let secs = secs.min(LATEST_TIME);
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string()
}

/// A session's file name: its id when that is a plain, safe name, else a digest of it.
fn session_key(id: &str) -> String {
    let plain = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        // What git refuses in a ref name's component (`refs/dibs/snapshots/<key>`), and a name
        // that could be taken for a lock file of the store.
        && !id.ends_with('.')
        && !id.ends_with(".lock")
        && !id.contains("..")
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    if plain {
        id.to_owned()
    } else {
        format!("h-{:016x}", record::fnv1a(id.as_bytes()))
    }
}

/// The entries of an index folder; `None` when there is none (nobody is listed there). A link
/// where the folder belongs is set aside, never listed.
fn list_index(dir: &Path) -> Result<Option<fs::ReadDir>, StoreError> {
    if fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
        let _ = fsio::set_aside(dir);
        return Ok(None);
    }
    match fs::read_dir(dir) {
        Ok(e) => Ok(Some(e)),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => Ok(None),
        Err(e) => Err(io_err(dir)(e)),
    }
}

/// [`fsio::ensure_dir`] for a folder of the store.
fn ensure(path: &Path) -> Result<(), StoreError> {
    fsio::ensure_dir(path).map_err(|source| StoreError::Unavailable {
        path: path.to_path_buf(),
        source,
    })
}

/// A small file's bytes in one `read` (index markers are a few hundred bytes); `None` when it
/// cannot be read, is not a plain file (no link followed) or is larger than the buffer.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut buf = vec![0u8; 4096];
    let (mut file, _) =
        crate::platform::files::open_regular(path, crate::platform::files::Links::Refuse).ok()?;
    let n = file.read(&mut buf).ok()?;
    (n < buf.len()).then(|| {
        buf.truncate(n);
        buf
    })
}

/// A digest of file content, as kept in [`SeenFile`].
pub(crate) fn content_digest(bytes: &[u8]) -> String {
    format!("{:016x}-{}", record::fnv1a(bytes), bytes.len())
}

/// Another session holding a file, with its touch of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Holder {
    /// The holding session's record.
    pub(crate) session: Session,
    /// Its touch of the file, if it touched it.
    pub(crate) touch: Option<FileTouch>,
    /// Its explicit claim on the file, if it made one.
    pub(crate) claim: Option<Claim>,
}

/// The shared record of one clone, in `<common dir>/dibs/`.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    dir: PathBuf,
}

impl Store {
    /// Open (creating if needed) the store of the clone whose common git dir is `common_dir`.
    pub(crate) fn open(common_dir: &Path) -> Result<Store, StoreError> {
        let store = Store {
            dir: common_dir.join("dibs"),
        };
        let index = store.dir.join("index");
        let had_store = fsio::is_real_dir(&store.dir);
        let had_index = had_store && fsio::is_real_dir(&index);
        // One `lstat` a folder: what was found a folder just now is not looked at again.
        if !had_store {
            ensure(&store.dir)?;
        }
        ensure(&store.dir.join("sessions"))?;
        if !had_index {
            ensure(&index)?;
        }
        if !had_store || !had_index {
            store.notice_loss(!had_store, !had_index)?;
        }
        Ok(store)
    }

    /// Make sure `path`, a folder inside the store, and every folder between it and the store
    /// folder are folders of their own: a file or a symbolic link in the way is set aside (never
    /// followed), and what is missing is made. One `lstat` per level when all is well.
    fn make_dir(&self, path: &Path) -> Result<(), StoreError> {
        let mut at = self.dir.clone();
        let levels = path.strip_prefix(&self.dir).unwrap_or(Path::new(""));
        ensure(&at)?;
        for level in levels.components() {
            at.push(level);
            ensure(&at)?;
        }
        Ok(())
    }

    /// The store folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn session_path<'a>(&self, actor: impl Into<Actor<'a>>) -> PathBuf {
        self.dir
            .join("sessions")
            .join(format!("{}.json", actor_key(actor.into())))
    }

    fn index_dir(&self, digest: &str) -> PathBuf {
        self.dir.join("index").join(digest)
    }

    /// Read a record file; a file that cannot be parsed is set aside and reads as absent.
    /// `locked` says whether the caller already holds the lock.
    /// A link, a FIFO or anything else that is not a plain file is set aside the same way.
    /// A record torn by a writer overwriting it reads as its previous version ([`recfile`]).
    fn read_record(&self, path: &Path, locked: bool) -> Result<Option<Session>, StoreError> {
        match recfile::read(path) {
            Ok(recfile::Found::Missing) => Ok(None),
            Ok(recfile::Found::Whole(bytes)) => match serde_json::from_slice::<Session>(&bytes) {
                Ok(s) => Ok(Some(s)),
                Err(_) => self.damaged_record(path, locked),
            },
            Ok(recfile::Found::Torn(_)) => self.damaged_record(path, locked),
            Err(e) if fsio::is_foreign(&e) => self.damaged_record(path, locked),
            Err(e) => Err(io_err(path)(e)),
        }
    }

    /// A record that read as torn, unparsable or foreign, read again under the lock (which no
    /// writer holds meanwhile, so what is there is what was left): set aside when it still is
    /// so, so that a concurrent writer's fresh record is never moved.
    fn damaged_record(&self, path: &Path, locked: bool) -> Result<Option<Session>, StoreError> {
        let _guard = if locked { None } else { Some(self.lock()?) };
        match recfile::read(path) {
            Ok(recfile::Found::Missing) => return Ok(None),
            Ok(recfile::Found::Whole(bytes)) => {
                if let Ok(s) = serde_json::from_slice::<Session>(&bytes) {
                    return Ok(Some(s));
                }
            }
            Ok(recfile::Found::Torn(_)) => {}
            Err(e) if fsio::is_foreign(&e) => {}
            Err(e) => return Err(io_err(path)(e)),
        }
        let _ = fsio::set_aside(path);
        Ok(None)
    }

    /// The record of `actor` (a session id is its main thread), if any.
    pub(crate) fn session<'a>(
        &self,
        actor: impl Into<Actor<'a>>,
    ) -> Result<Option<Session>, StoreError> {
        self.read_record(&self.session_path(actor), false)
    }

    /// This clone's own session records, live or not, ordered by first activity: everything
    /// but the sessions imported from other machines.
    pub(crate) fn sessions(&self) -> Result<Vec<Session>, StoreError> {
        let mut all = self.everyone()?;
        all.retain(|s| s.origin.is_none());
        Ok(all)
    }

    /// Every record in the store, live or not, this clone's own and those imported from other
    /// machines by `git dibs sync`, ordered by first activity.
    pub(crate) fn everyone(&self) -> Result<Vec<Session>, StoreError> {
        self.records_where(|_| true)
    }

    /// The records whose file name (without `.json`) `keep` accepts, ordered by first
    /// activity; hidden files and other names are passed over.
    pub(super) fn records_where(
        &self,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<Session>, StoreError> {
        let dir = self.dir.join("sessions");
        let mut out = Vec::new();
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Some(stem) = name.strip_suffix(".json").filter(|s| !s.starts_with('.')) else {
                continue;
            };
            if !keep(stem) {
                continue;
            }
            if let Some(s) = self.read_record(&entry.path(), false)? {
                out.push(s);
            }
        }
        out.sort_by(|a, b| (a.first_seen, &a.id).cmp(&(b.first_seen, &b.id)));
        Ok(out)
    }

    /// Records listed under `digest` in the index, other than actor `except`'s. A session
    /// whose record was set aside is listed by a stand-in holding `file` (see
    /// [`health`]).
    fn indexed(
        &self,
        digest: &str,
        except: Actor<'_>,
        locked: bool,
        file: Option<&FileKey>,
    ) -> Result<Vec<Session>, StoreError> {
        let dir = self.index_dir(digest);
        let Some(entries) = list_index(&dir)? else {
            return Ok(Vec::new());
        };
        let skip = actor_key(except);
        let mut out = Vec::new();
        for entry in entries {
            let name = entry.map_err(io_err(&dir))?.file_name();
            let name = name.to_string_lossy();
            if name == skip || name.starts_with('.') {
                continue;
            }
            let path = self.dir.join("sessions").join(format!("{name}.json"));
            match self.read_record(&path, locked)? {
                Some(session) if !session.is(except) => out.push(session),
                Some(_) => {}
                None => {
                    if let Some(at) = self.set_aside_at(&name) {
                        out.push(self.stand_in(&name, at, file));
                    }
                }
            }
        }
        out.sort_by(|a, b| (a.first_seen, &a.id).cmp(&(b.first_seen, &b.id)));
        Ok(out)
    }

    /// Actors other than `except` whose records hold `key` (touched it, or claim it): other
    /// sessions, and the other threads (main or sub-agent) of `except`'s own session. Liveness
    /// is the caller's question. Costs one directory listing plus one read per holder.
    pub(crate) fn holders<'a>(
        &self,
        key: &FileKey,
        except: impl Into<Actor<'a>>,
        now: u64,
    ) -> Result<Vec<Holder>, StoreError> {
        let target = Target::File(key.clone());
        Ok(self
            .indexed(&key.digest(), except.into(), false, Some(key))?
            .into_iter()
            .filter_map(|session| {
                let touch = session.touch_of(key).cloned();
                let claim = session.claim_on(&target, now).cloned();
                (touch.is_some() || claim.is_some()).then_some(Holder {
                    session,
                    touch,
                    claim,
                })
            })
            .collect())
    }

    /// Sessions other than `except` that hold an unexpired explicit claim on `target`.
    #[cfg(test)]
    pub(crate) fn claimants<'a>(
        &self,
        target: &Target,
        except: impl Into<Actor<'a>>,
        now: u64,
    ) -> Result<Vec<Session>, StoreError> {
        Ok(self
            .indexed(&target.digest(), except.into(), false, None)?
            .into_iter()
            .filter(|s| s.claim_on(target, now).is_some())
            .collect())
    }

    /// Append one line to the audit log (`audit.log`, JSON lines). A link there is set aside,
    /// never appended through. No lock is taken: one line goes in one append, which the
    /// kernel keeps whole, so a record is written even while something holds the store's lock
    /// (a hung or stopped process, or an agent's `flock` meant to silence the log).
    pub(crate) fn append_audit(&self, line: &str) -> Result<(), StoreError> {
        let path = self.dir.join("audit.log");
        let mut text = line.replace('\n', " ");
        text.push('\n');
        fsio::append(&path, text.as_bytes()).map_err(io_err(&path))
    }

    /// The audit log's lines, oldest first (empty when there is none).
    pub(crate) fn audit_lines(&self) -> Result<Vec<String>, StoreError> {
        let path = self.dir.join("audit.log");
        match fsio::read_text(&path) {
            Ok(text) => Ok(text.lines().map(str::to_owned).collect()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_err(&path)(e)),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_actors;
#[cfg(test)]
mod tests_continuity;

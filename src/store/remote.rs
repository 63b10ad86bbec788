//! The store's side of `git dibs sync`: the sessions imported from other machines (kept as
//! ordinary records marked with their [`Origin`](super::Origin), so every lookup sees them), and
//! the bookkeeping of background syncs (`sync/due`, `sync/lock`, `sync/last.json`).

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use super::record::Session;
use super::{Store, StoreError, actor_key, fsio, io_err, recfile};

/// Whether a background sync is due, by the `sync/due` stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SyncDue {
    /// No stamp: sync has not run in this clone (or was turned off).
    Never,
    /// Not before the stamp's time.
    NotYet,
    /// The stamp's time has passed.
    Due,
}

/// The held lock of a running sync; dropping it lets the next one run.
pub(crate) struct SyncLock {
    _guard: fsio::LockGuard,
}

impl Store {
    fn sync_dir(&self) -> Result<PathBuf, StoreError> {
        let dir = self.dir.join("sync");
        self.make_dir(&dir)?;
        Ok(dir)
    }

    /// Replace every session imported from `remote` with `sessions` (each with its origin set),
    /// under the lock. A record of this clone's own is never overwritten. Returns how many
    /// imported records were written or removed.
    pub(crate) fn import_remote(
        &self,
        remote: &str,
        sessions: Vec<Session>,
    ) -> Result<usize, StoreError> {
        let _guard = self.lock()?;
        let mut changed = 0;
        let mut keep = BTreeSet::new();
        for mut session in sessions {
            if session.origin.is_none() {
                continue;
            }
            let old = self.read_record(&self.session_path(&session.id), true)?;
            if old.as_ref().is_some_and(|o| o.origin.is_none()) {
                continue;
            }
            keep.insert(session.id.clone());
            if old.as_ref().is_some_and(|o| {
                let mut same = o.clone();
                same.indexed = session.indexed;
                same == session
            }) {
                continue;
            }
            self.write_session(old.as_ref(), &mut session)?;
            changed += 1;
        }
        let dir = self.dir.join("sessions");
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let path = entry.map_err(io_err(&dir))?.path();
            let Some(old) = recfile::read_session(&path) else {
                continue;
            };
            let stale = old
                .origin
                .as_ref()
                .is_some_and(|o| o.remote == remote && !keep.contains(&old.id));
            if stale {
                let name = actor_key(old.actor());
                if old.indexed {
                    for digest in old.digests() {
                        self.remove_marker(&digest, &name);
                    }
                }
                let _ = recfile::remove(&path);
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Whether a background sync is due now.
    pub(crate) fn sync_due(&self) -> SyncDue {
        let stamp = self.dir.join("sync").join("due");
        match fs::symlink_metadata(&stamp).and_then(|m| m.modified()) {
            Ok(at) if at > std::time::SystemTime::now() => SyncDue::NotYet,
            Ok(_) => SyncDue::Due,
            Err(_) => SyncDue::Never,
        }
    }

    /// Set the next background sync no earlier than `at` (seconds since the Unix epoch).
    pub(crate) fn set_sync_due(&self, at: u64) -> Result<(), StoreError> {
        let stamp = self.sync_dir()?.join("due");
        let file = fsio::write_in_place(&stamp, b"").map_err(io_err(&stamp))?;
        file.set_modified(UNIX_EPOCH + Duration::from_secs(at))
            .map_err(io_err(&stamp))
    }

    /// Stop background syncs (sync was turned off).
    pub(crate) fn clear_sync_due(&self) {
        let _ = fs::remove_file(self.dir.join("sync").join("due"));
    }

    /// Take the sync lock, waiting at most `wait`; `None` when another sync holds it.
    pub(crate) fn sync_lock(&self, wait: Duration) -> Result<Option<SyncLock>, StoreError> {
        let path = self.sync_dir()?.join("lock");
        match fsio::lock(&path, wait).map_err(io_err(&path))? {
            fsio::Locked::Held(guard) => Ok(Some(SyncLock { _guard: guard })),
            fsio::Locked::TimedOut => Ok(None),
        }
    }

    /// Keep the outcome of the last sync (a JSON document) for `doctor` and `status`.
    pub(crate) fn write_sync_report(&self, json: &[u8]) -> Result<(), StoreError> {
        let path = self.sync_dir()?.join("last.json");
        fsio::write_atomic(&path, json).map_err(io_err(&path))
    }

    /// The outcome of the last sync, if one ran.
    pub(crate) fn sync_report(&self) -> Option<Vec<u8>> {
        fsio::read(&self.dir.join("sync").join("last.json")).ok()
    }
}

//! Pruning, as a cheap side effect of normal calls: dead sessions leave the index at once and
//! their records go after a day; index markers of vanished records are swept.

use std::fs;
use std::time::{Duration, SystemTime};

use super::{Store, StoreError, actor_key, fsio, io_err, recfile};

/// How often pruning runs at most.
const PRUNE_EVERY: Duration = Duration::from_secs(10 * 60);
/// How long a dead session's record is kept (for `status --all`) before it is deleted.
const KEEP_DEAD: Duration = Duration::from_secs(24 * 60 * 60);

impl Store {
    /// Prune when due. Cheap when not due (one `stat`); never waits for the lock. `ttl` is only
    /// asked for when pruning is due. Says whether it pruned (the caller then expires what the
    /// store cannot, such as old snapshot refs).
    pub(crate) fn prune_if_due(
        &self,
        ttl: impl FnOnce() -> Duration,
        now: u64,
    ) -> Result<bool, StoreError> {
        let stamp = self.dir.join("pruned");
        let due = match fs::symlink_metadata(&stamp).and_then(|m| m.modified()) {
            Ok(t) => SystemTime::now()
                .duration_since(t)
                .is_ok_and(|age| age >= PRUNE_EVERY),
            Err(_) => true,
        };
        if !due {
            return Ok(false);
        }
        let lock_path = self.dir.join("lock");
        let _guard = match fsio::lock(&lock_path, Duration::ZERO).map_err(io_err(&lock_path))? {
            fsio::Locked::Held(g) => g,
            fsio::Locked::TimedOut => return Ok(false),
        };
        fsio::write_in_place(&stamp, b"").map_err(io_err(&stamp))?;
        self.ensure_marker();
        self.prune_locked(ttl(), now)?;
        Ok(true)
    }

    /// Prune now; the caller holds the lock. Temporary files that killed writers left are
    /// removed here too (only old ones: a live writer's is never taken).
    pub(super) fn prune_locked(&self, ttl: Duration, now: u64) -> Result<(), StoreError> {
        for sub in ["", "sessions", "sync", "cleared"] {
            let dir = self.dir.join(sub);
            if fsio::is_real_dir(&dir) {
                fsio::sweep_temps(&dir);
            }
        }
        let dir = self.dir.join("sessions");
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let path = entry.path();
            if let Some(record) = orphan_prev(&entry.file_name()) {
                // A previous version whose record is gone.
                if !dir.join(record).exists() {
                    let _ = fs::remove_file(&path);
                }
                continue;
            }
            let Some(old) = recfile::read_session(&path) else {
                continue;
            };
            let mut session = old.clone();
            if session.is_alive(now, ttl) {
                continue;
            }
            let name = actor_key(session.actor());
            if session.indexed {
                for digest in session.digests() {
                    self.remove_marker(&digest, &name);
                }
            }
            if let Some(w) = &session.worktree {
                self.set_roster(w, &name, None)?;
            }
            let dead_since = session
                .ended
                .unwrap_or(session.last_seen.saturating_add(ttl.as_secs()))
                .min(now);
            if now.saturating_sub(dead_since) >= KEEP_DEAD.as_secs() {
                let _ = recfile::remove(&path);
            } else if session.indexed {
                session.indexed = false;
                recfile::write(&path, Some(&old), &session).map_err(io_err(&path))?;
            }
        }
        self.prune_orphan_markers()?;
        self.prune_locks();
        Ok(())
    }

    /// Remove index markers whose session record is gone (set aside, or deleted by hand).
    fn prune_orphan_markers(&self) -> Result<(), StoreError> {
        let index = self.dir.join("index");
        let sessions = self.dir.join("sessions");
        for dir in fs::read_dir(&index).map_err(io_err(&index))?.flatten() {
            // Never descend into a link: it would list (and remove) another folder's files.
            match dir.file_type() {
                Ok(t) if t.is_dir() => {}
                Ok(t) if t.is_symlink() => {
                    let _ = fsio::set_aside(&dir.path());
                    continue;
                }
                _ => continue,
            }
            let Ok(markers) = fs::read_dir(dir.path()) else {
                continue;
            };
            fsio::sweep_temps(&dir.path());
            for marker in markers.flatten() {
                // A marker is a plain file; a link there is set aside (reported by `doctor`), and
                // nothing else is removed here.
                match marker.file_type() {
                    Ok(t) if t.is_file() => {}
                    Ok(t) if t.is_symlink() => {
                        let _ = fsio::set_aside(&marker.path());
                        continue;
                    }
                    _ => continue,
                }
                let key = marker.file_name();
                if key == super::roster::ROSTER || key.as_encoded_bytes().starts_with(b".") {
                    continue;
                }
                let mut record = key.clone();
                record.push(".json");
                // A record set aside lately keeps its markers: they are what still protects
                // its files (through a stand-in holder).
                let stand_in = key
                    .to_str()
                    .is_some_and(|k| self.keeps_stand_in(k, super::now_secs(), KEEP_DEAD));
                if !sessions.join(&record).exists() && !stand_in {
                    let _ = fs::remove_file(marker.path());
                }
            }
            self.sweep_roster(&dir.path());
            let _ = fs::remove_dir(dir.path());
        }
        Ok(())
    }

    /// Remove the lock files of sessions whose record is gone and of index folders that are
    /// gone. The caller holds the store's lock exclusively, so no one holds or is about to
    /// take any of them: they are opened only under the store's lock held shared.
    fn prune_locks(&self) {
        let Ok(entries) = fs::read_dir(self.dir.join("locks")) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let gone = match super::locks::owner(name) {
                Some(super::locks::Owner::Session(key)) => !self
                    .dir
                    .join("sessions")
                    .join(format!("{key}.json"))
                    .exists(),
                Some(super::locks::Owner::Folder(digest)) => !self.index_dir(digest).exists(),
                None => false,
            };
            if gone && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// For the name of a record's previous version (`.<key>.json.prev`), the record's name.
fn orphan_prev(name: &std::ffi::OsStr) -> Option<&str> {
    name.to_str()?.strip_prefix('.')?.strip_suffix(".prev")
}

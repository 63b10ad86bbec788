//! The store's locks. A change that spans sessions (an explicit claim, pruning, a handover,
//! an import from the remote, the audit log) takes the store's lock (`lock`) exclusively. The
//! everyday write, one session changing its own record, takes it shared and then its session's
//! own lock (`locks/s-<key>`) exclusively: sessions that have nothing to do with each other
//! never queue behind each other's renames. What such writers share, a worktree's roster and
//! the list of explicit claims, has a lock of its own (`locks/r-<digest>`, `locks/claims`),
//! taken in that order and only for the read and rename of that one file. Pruning removes the
//! lock files of records and folders that are gone, under the exclusive lock.
//!
//! A writer waiting for the exclusive lock goes first: it holds the gate (`locks/gate`), which
//! a shared holder passes on its way in, so a stream of everyday writes cannot starve a claim.
//! `DIBS_LOCK_TRACE` set in the environment makes each lock say on stderr how long it was
//! waited for and held (the contention test reads it).

use std::path::Path;
use std::time::{Duration, Instant};

use super::{LOCK_TIMEOUT, Store, StoreError, fsio, io_err};

/// Held locks of the store, released on drop (in the reverse order of taking).
#[derive(Debug)]
pub(super) struct Held {
    guards: Vec<fsio::LockGuard>,
    /// When `DIBS_LOCK_TRACE` is set: how long the wait was, and when the lock was taken.
    trace: Option<(Duration, Instant)>,
}

impl Drop for Held {
    fn drop(&mut self) {
        while let Some(g) = self.guards.pop() {
            drop(g);
        }
        if let Some((waited, since)) = self.trace {
            eprintln!(
                "git-dibs lock: waited {} us, held {} us",
                waited.as_micros(),
                since.elapsed().as_micros()
            );
        }
    }
}

/// How a lock file is held.
#[derive(Clone, Copy)]
enum How {
    Shared,
    Exclusive,
}

impl Store {
    /// Take the store's lock exclusively, waiting at most [`LOCK_TIMEOUT`] in all.
    pub(super) fn lock(&self) -> Result<Held, StoreError> {
        self.take(|s, deadline, held| {
            let gate = s.take_one(&s.locks_dir()?.join("gate"), deadline, How::Exclusive)?;
            held.push(gate);
            held.push(s.take_one(&s.dir.join("lock"), deadline, How::Exclusive)?);
            Ok(())
        })
    }

    /// Take what a write of one session's own record (the session or sub-agent whose file
    /// name is `key`) needs: the store's lock shared, the lock of `key` exclusively.
    pub(super) fn lock_actor(&self, key: &str) -> Result<Held, StoreError> {
        self.take(|s, deadline, held| {
            let locks = s.locks_dir()?;
            // Passing the gate: a writer waiting for the exclusive lock holds it.
            let gate = s.take_one(&locks.join("gate"), deadline, How::Shared)?;
            held.push(s.take_one(&s.dir.join("lock"), deadline, How::Shared)?);
            drop(gate);
            held.push(s.take_one(&locks.join(format!("s-{key}")), deadline, How::Exclusive)?);
            Ok(())
        })
    }

    /// The lock of one file that writers of different sessions share (a worktree's roster,
    /// named by its folder's digest, or the claim list): for its read and rename only.
    pub(super) fn lock_shared_file(&self, name: &str) -> Result<Held, StoreError> {
        self.take(|s, deadline, held| {
            let path = s.locks_dir()?.join(name);
            held.push(s.take_one(&path, deadline, How::Exclusive)?);
            Ok(())
        })
    }

    /// The name of the roster lock of the index folder `digest`.
    pub(super) fn roster_lock(digest: &str) -> String {
        format!("r-{digest}")
    }

    fn take(
        &self,
        steps: impl FnOnce(&Store, Instant, &mut Vec<fsio::LockGuard>) -> Result<(), StoreError>,
    ) -> Result<Held, StoreError> {
        let start = Instant::now();
        let mut guards = Vec::new();
        steps(self, start + LOCK_TIMEOUT, &mut guards)?;
        let trace = std::env::var_os("DIBS_LOCK_TRACE").map(|_| {
            let now = Instant::now();
            (now - start, now)
        });
        Ok(Held { guards, trace })
    }

    fn take_one(
        &self,
        path: &Path,
        deadline: Instant,
        how: How,
    ) -> Result<fsio::LockGuard, StoreError> {
        let shared = matches!(how, How::Shared);
        match fsio::lock_until(path, deadline, shared).map_err(io_err(path))? {
            fsio::Locked::Held(g) => Ok(g),
            fsio::Locked::TimedOut => Err(StoreError::LockTimeout(self.dir.clone())),
        }
    }

    fn locks_dir(&self) -> Result<std::path::PathBuf, StoreError> {
        let dir = self.dir.join("locks");
        self.make_dir(&dir)?;
        Ok(dir)
    }
}

/// What a lock file of `locks/` belongs to, by its name.
pub(super) enum Owner<'a> {
    /// The session (or sub-agent) whose record's file name is this key.
    Session(&'a str),
    /// The index folder of this digest (its roster).
    Folder(&'a str),
}

/// The owner of the lock file `name`; `None` for the store-wide ones (`gate`, `claims`).
pub(super) fn owner(name: &str) -> Option<Owner<'_>> {
    if let Some(key) = name.strip_prefix("s-") {
        Some(Owner::Session(key))
    } else {
        name.strip_prefix("r-").map(Owner::Folder)
    }
}

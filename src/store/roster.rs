//! The roster of a worktree: one small file (`index/<worktree digest>/.roster`) listing, for
//! every session that works there and has not ended, its key and last activity. Written under
//! the store's lock with each record write that changes it, read in one go when a session starts
//! and wants to know who else is here, instead of one `stat` per listed session.
//!
//! Format: one line per session, `<last activity, seconds since the Unix epoch> <key>`.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::record::worktree_digest;
use super::{Store, StoreError, fsio, io_err};

/// The roster's file name inside a worktree's index folder (a dot name: never a marker).
pub(super) const ROSTER: &str = ".roster";

/// The lines of a roster file.
fn parse(text: &str) -> impl Iterator<Item = (u64, &str)> {
    text.lines().filter_map(|line| {
        let (at, key) = line.split_once(' ')?;
        Some((at.parse().ok()?, key))
    })
}

impl Store {
    fn roster_path(&self, root: &Path) -> PathBuf {
        self.index_dir(&worktree_digest(root)).join(ROSTER)
    }

    /// The roster of the worktree at `root`: `None` when it has none (nobody registered there
    /// since rosters were introduced), else every `(last activity, key)` it lists.
    pub(super) fn roster(&self, root: &Path) -> Result<Option<Vec<(u64, String)>>, StoreError> {
        let path = self.roster_path(root);
        match fs::read_to_string(&path) {
            Ok(text) => Ok(Some(
                parse(&text).map(|(at, k)| (at, k.to_owned())).collect(),
            )),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                Ok(None)
            }
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Set (`Some`) or remove (`None`) session `key`'s line in the roster of the worktree at
    /// `root`. The caller holds the lock. Not written when nothing changes.
    pub(super) fn set_roster(
        &self,
        root: &Path,
        key: &str,
        last: Option<u64>,
    ) -> Result<(), StoreError> {
        let path = self.roster_path(root);
        let old = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let mut text = String::with_capacity(old.len() + 64);
        for (at, k) in parse(&old).filter(|(_, k)| *k != key) {
            text.push_str(&format!("{at} {k}\n"));
        }
        if let Some(at) = last {
            text.push_str(&format!("{at} {key}\n"));
        }
        if text == old {
            return Ok(());
        }
        if text.is_empty() {
            let _ = fs::remove_file(&path);
            return Ok(());
        }
        let dir = self.index_dir(&worktree_digest(root));
        if !dir.is_dir() {
            self.make_dir(&dir)?;
        }
        fsio::write_atomic(&path, text.as_bytes()).map_err(io_err(&path))
    }

    /// Drop the roster lines of `dir` (an index folder) whose session has no marker there any
    /// more. The caller holds the lock.
    pub(super) fn sweep_roster(&self, dir: &Path) {
        let path = dir.join(ROSTER);
        let Ok(old) = fs::read_to_string(&path) else {
            return;
        };
        let text: String = parse(&old)
            .filter(|(_, k)| dir.join(k).exists())
            .map(|(at, k)| format!("{at} {k}\n"))
            .collect();
        if text.is_empty() {
            let _ = fs::remove_file(&path);
        } else if text != old {
            let _ = fsio::write_atomic(&path, text.as_bytes());
        }
    }
}

//! The roster of a worktree: one small file (`index/<worktree digest>/.roster`) listing, for
//! every session that works there and has not ended, its key and last activity. Written under
//! the store's lock with each record write that changes it, read in one go when a session starts
//! and wants to know who else is here, instead of one `stat` per listed session.
//!
//! Format: one line per session, `<last activity, seconds since the Unix epoch> <key>`.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::actors::Actor;
use super::record::{self, SessionHead, worktree_digest};
use super::{Store, StoreError, actor_key, fsio, io_err, list_index, read_small};

/// The roster's file name inside a worktree's index folder (a dot name: never a marker).
pub(super) const ROSTER: &str = ".roster";
/// A session's listed time is rewritten only once its activity moved on by this much (seconds):
/// a listing trails the session's last activity by at most this plus [`super::COALESCE`].
pub(crate) const ROSTER_STEP: u64 = 5 * 60;
/// How far a worktree listing's time may trail the session's last activity (seconds).
pub(crate) const LISTED_LAG: u64 = ROSTER_STEP + super::COALESCE;

/// The lines of a roster file.
fn parse(text: &str) -> impl Iterator<Item = (u64, &str)> {
    text.lines().filter_map(|line| {
        let (at, key) = line.split_once(' ')?;
        Some((at.parse().ok()?, key))
    })
}

/// Whether every line of a roster's bytes is one this version writes.
fn well_formed(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok_and(|text| {
        text.lines().all(|line| {
            line.split_once(' ').is_some_and(|(at, key)| {
                at.parse::<u64>().is_ok()
                    && !key.is_empty()
                    && !key.starts_with('.')
                    && !key.contains(['/', ' '])
            })
        })
    })
}

/// A session listed under a worktree, found by [`Store::recent_in`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    marker: PathBuf,
    key: String,
    /// When its listing was last written, seconds since the Unix epoch.
    pub(crate) written: u64,
}

impl Store {
    /// The sessions other than `except` working in the worktree at `root` whose last recorded
    /// activity is at or after `since` (seconds since the Unix epoch), newest first: one read
    /// of the worktree's roster (a store written before rosters: one `stat` per marker). The
    /// recorded activity trails the session's last by at most the coalescing window; ended
    /// sessions are not listed.
    pub(crate) fn recent_in<'a>(
        &self,
        root: &Path,
        except: impl Into<Actor<'a>>,
        since: u64,
    ) -> Result<Vec<Listed>, StoreError> {
        let dir = self.index_dir(&record::worktree_digest(root));
        let skip = actor_key(except.into());
        let mut out = Vec::new();
        if let Some(roster) = self.roster(root)? {
            for (written, key) in roster {
                if key != skip && written >= since {
                    out.push(Listed {
                        marker: dir.join(&key),
                        key,
                        written,
                    });
                }
            }
        } else {
            // A store from before rosters: one stat per marker.
            let Some(entries) = list_index(&dir)? else {
                return Ok(Vec::new());
            };
            for entry in entries {
                let entry = entry.map_err(io_err(&dir))?;
                let name = entry.file_name();
                if name == skip.as_str() || name.as_encoded_bytes().starts_with(b".") {
                    continue;
                }
                // An empty marker is a claim on the worktree, or left by a session that moved on.
                let Ok(meta) = entry.metadata() else { continue };
                let written = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_secs());
                if meta.len() > 0 && written >= since {
                    out.push(Listed {
                        marker: entry.path(),
                        key: name.to_string_lossy().into_owned(),
                        written,
                    });
                }
            }
        }
        out.sort_by(|a, b| b.written.cmp(&a.written).then_with(|| a.key.cmp(&b.key)));
        Ok(out)
    }

    /// The header of a session found by [`Store::recent_in`], from its marker (or, when that is
    /// torn, its record); `None` when neither can be read.
    pub(crate) fn head_of(&self, listed: &Listed) -> Option<SessionHead> {
        read_small(&listed.marker)
            .and_then(|b| serde_json::from_slice::<SessionHead>(&b).ok())
            .or_else(|| {
                let path = self
                    .dir
                    .join("sessions")
                    .join(format!("{}.json", listed.key));
                match super::recfile::read(&path).ok()? {
                    super::recfile::Found::Whole(b) => serde_json::from_slice(&b).ok(),
                    _ => None,
                }
            })
    }

    fn roster_path(&self, root: &Path) -> PathBuf {
        self.index_dir(&worktree_digest(root)).join(ROSTER)
    }

    /// The roster of the worktree at `root`: `None` when it has none (nobody registered there
    /// since rosters were introduced), else every `(last activity, key)` it lists.
    /// A roster that cannot be read as written is set aside and rebuilt from the index.
    pub(super) fn roster(&self, root: &Path) -> Result<Option<Vec<(u64, String)>>, StoreError> {
        self.roster_file(&self.roster_path(root))
    }

    /// As [`Store::roster`], for the roster file at `path`.
    pub(super) fn roster_file(
        &self,
        path: &Path,
    ) -> Result<Option<Vec<(u64, String)>>, StoreError> {
        let path = path.to_path_buf();
        match fsio::read(&path) {
            Ok(bytes) if well_formed(&bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                Ok(Some(
                    parse(&text).map(|(at, k)| (at, k.to_owned())).collect(),
                ))
            }
            Ok(bytes) => self.rebuild_roster(&path, &bytes).map(Some),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                Ok(None)
            }
            // A folder (or anything else unreadable as a file) where the roster should be.
            Err(_) if fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) => {
                self.rebuild_roster(&path, &[]).map(Some)
            }
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Set the damaged roster at `path` aside (under the lock, when it still holds `seen`) and
    /// write it anew from the worktree's index markers: each marker that holds a session header
    /// of a session that has not ended, with that header's last activity.
    fn rebuild_roster(&self, path: &Path, seen: &[u8]) -> Result<Vec<(u64, String)>, StoreError> {
        let _guard = self.lock()?;
        let current = fsio::read(path).unwrap_or_default();
        let is_file = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
        if is_file && current != seen && well_formed(&current) {
            // Another writer fixed it meanwhile.
            let text = String::from_utf8_lossy(&current);
            return Ok(parse(&text).map(|(at, k)| (at, k.to_owned())).collect());
        }
        let _ = fsio::set_aside(path);
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut rows: Vec<(u64, String)> = Vec::new();
        if !fsio::is_real_dir(dir) {
            return Ok(rows);
        }
        if let Ok(entries) = fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') || name.contains(".corrupt-") {
                    continue;
                }
                let Some(head) = super::read_small(&entry.path())
                    .and_then(|b| serde_json::from_slice::<super::SessionHead>(&b).ok())
                else {
                    continue;
                };
                if head.ended.is_none() {
                    rows.push((head.last_seen, name));
                }
            }
        }
        rows.sort();
        let text: String = rows.iter().map(|(at, k)| format!("{at} {k}\n")).collect();
        if !text.is_empty() {
            fsio::write_atomic(path, text.as_bytes()).map_err(io_err(path))?;
        }
        Ok(rows)
    }

    /// Set (`Some`) or remove (`None`) session `key`'s line in the roster of the worktree at
    /// `root`. The caller holds the store's lock, shared or not; the roster's own lock is taken
    /// here. Not written when nothing changes, nor when only the time moved forward by less
    /// than [`ROSTER_STEP`]: every session of a worktree writes this one file.
    pub(super) fn set_roster(
        &self,
        root: &Path,
        key: &str,
        last: Option<u64>,
    ) -> Result<(), StoreError> {
        let path = self.roster_path(root);
        let digest = worktree_digest(root);
        let dir = self.index_dir(&digest);
        let listed = |text: &str| parse(text).find(|(_, k)| *k == key).map(|(at, _)| at);
        let current = |old: &str| match (listed(old), last) {
            (None, None) => true,
            (Some(was), Some(at)) => at >= was && at < was.saturating_add(ROSTER_STEP),
            _ => false,
        };
        // A look without the roster's lock first: most writes leave the listing as it is.
        if fsio::read(&path).is_ok_and(|b| well_formed(&b) && current(&String::from_utf8_lossy(&b)))
        {
            return Ok(());
        }
        if fs::symlink_metadata(&dir).is_ok() {
            self.make_dir(&dir)?;
        }
        let _guard = self.lock_shared_file(&Self::roster_lock(&digest))?;
        // A roster that is not as written is left for the next reader to rebuild (it takes the
        // lock, which the caller holds now).
        let old = match fsio::read(&path) {
            Ok(bytes) if well_formed(&bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
            Err(e) if fsio::is_foreign(&e) => {
                let _ = fsio::set_aside(&path);
                String::new()
            }
            Err(e) => return Err(io_err(&path)(e)),
        };
        if current(&old) {
            return Ok(());
        }
        let mut text = String::with_capacity(old.len() + 64);
        for (at, k) in parse(&old).filter(|(_, k)| *k != key) {
            text.push_str(&format!("{at} {k}\n"));
        }
        if let Some(at) = last {
            text.push_str(&format!("{at} {key}\n"));
        }
        if text.is_empty() {
            let _ = fs::remove_file(&path);
            return Ok(());
        }
        let mut tries = 0;
        loop {
            self.make_dir(&dir)?;
            match fsio::write_atomic(&path, text.as_bytes()) {
                Ok(()) => return Ok(()),
                // Emptied and removed by another session's writer at the same moment.
                Err(e) if e.kind() == ErrorKind::NotFound && tries < 3 => tries += 1,
                Err(e) => return Err(io_err(&path)(e)),
            }
        }
    }

    /// Drop the roster lines of `dir` (an index folder) whose session has no marker there any
    /// more. The caller holds the lock.
    pub(super) fn sweep_roster(&self, dir: &Path) {
        let path = dir.join(ROSTER);
        let Ok(old) = fsio::read_text(&path) else {
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

//! Damage in the store, found and reported: records set aside because they could not be read
//! (`*.corrupt-<time>`), with what each one was; rosters rebuilt from the index; a lock that was
//! not a file. A set-aside session record still protects the files its index markers name, for
//! one lease from when it was set aside, through a stand-in holder.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::record::{FileKey, FileTouch, Session};
use super::{Store, StoreError};
use crate::host::Host;

/// The label of the stand-in for a session whose record was set aside.
pub(crate) const DAMAGED_LABEL: &str = "its record was damaged and set aside";

/// What a set-aside file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A session record (`sessions/<key>.json`).
    Session,
    /// A worktree's roster (rebuilt from the index when set aside).
    Roster,
    /// The write lock (rebuilt as an empty file).
    Lock,
    /// A symbolic link, FIFO or other foreign file found where a file or folder of the store
    /// belongs: set aside without being followed.
    Foreign,
    /// Another of the store's files.
    Other,
}

impl Kind {}

/// A file the store set aside because it could not use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetAside {
    /// Where it is now.
    pub(crate) path: PathBuf,
    /// What it was.
    pub(crate) kind: Kind,
    /// When it was set aside, seconds since the Unix epoch.
    pub(crate) at: u64,
    /// For a session record: the session's key (its id when that is a plain name).
    pub(crate) session: Option<String>,
}

/// The time stamp of a set-aside name (`<name>.corrupt-<secs>`), and the original name.
fn parse_aside(name: &str) -> Option<(&str, u64)> {
    let (orig, secs) = name.rsplit_once(".corrupt-")?;
    Some((orig, secs.parse().ok()?))
}

impl Store {
    /// Every file the store has set aside, oldest first: in the store folder, `sessions/`,
    /// `sync/`, `locks/` and each index folder. Costs one listing per index folder (for
    /// `status` and `doctor`, never on a hook's path).
    pub(crate) fn set_aside(&self) -> Vec<SetAside> {
        let mut out = Vec::new();
        let mut scan = |dir: &Path, kind_of: &dyn Fn(&str) -> Kind| {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some((orig, at)) = parse_aside(&name) else {
                    continue;
                };
                let foreign = entry.file_type().is_ok_and(|t| !t.is_file() && !t.is_dir());
                let kind = match kind_of(orig) {
                    Kind::Lock => Kind::Lock,
                    _ if foreign => Kind::Foreign,
                    kind => kind,
                };
                out.push(SetAside {
                    path: entry.path(),
                    kind,
                    at,
                    session: (kind == Kind::Session)
                        .then(|| orig.trim_end_matches(".json").to_owned()),
                });
            }
        };
        scan(&self.dir, &|orig| match orig {
            "lock" => Kind::Lock,
            "sessions" | "index" => Kind::Other,
            _ => Kind::Other,
        });
        scan(&self.dir.join("sessions"), &|_| Kind::Session);
        scan(&self.dir.join("sync"), &|_| Kind::Other);
        scan(&self.dir.join("locks"), &|_| Kind::Lock);
        scan(&self.dir.join("index"), &|_| Kind::Other);
        if let Ok(index) = fs::read_dir(self.dir.join("index")) {
            for dir in index
                .flatten()
                .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
            {
                scan(&dir.path(), &|orig| {
                    if orig == super::roster::ROSTER {
                        Kind::Roster
                    } else {
                        Kind::Other
                    }
                });
            }
        }
        out.sort_by(|a, b| (a.at, &a.path).cmp(&(b.at, &b.path)));
        out
    }

    /// When the record of session `key` was last set aside, if it was.
    pub(super) fn set_aside_at(&self, key: &str) -> Option<u64> {
        let prefix = format!("{key}.json.corrupt-");
        fs::read_dir(self.dir.join("sessions"))
            .ok()?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name();
                let name = name.to_str()?;
                name.strip_prefix(&prefix)?.parse::<u64>().ok()
            })
            .max()
    }

    /// A stand-in for session `key`, whose record was set aside at `at` while the index still
    /// lists it under `file`: it holds that file, active as of `at`, so the file keeps its
    /// protection for one lease instead of losing it with the record.
    pub(super) fn stand_in(&self, key: &str, at: u64, file: Option<&FileKey>) -> Session {
        let mut s = Session::new(key, Host::Person, at);
        s.label = Some(DAMAGED_LABEL.to_owned());
        if let Some(k) = file {
            s.files.push(FileTouch {
                key: k.clone(),
                first: at,
                last: at,
            });
        }
        s
    }

    /// Whether the index marker of session `key` should outlive its record: it was set aside
    /// less than `keep` ago.
    pub(super) fn keeps_stand_in(&self, key: &str, now: u64, keep: Duration) -> bool {
        self.set_aside_at(key)
            .is_some_and(|at| now.saturating_sub(at) < keep.as_secs())
    }

    /// Mend what can be rebuilt: a lock that is not a file (set aside, made anew), every
    /// worktree roster that cannot be read (set aside, rebuilt from the index), index markers of
    /// records that are gone. `Ok(false)` when another process held the lock throughout.
    pub(crate) fn repair(&self, ttl: Duration, now: u64) -> Result<bool, StoreError> {
        if let Ok(index) = fs::read_dir(self.dir.join("index")) {
            for dir in index
                .flatten()
                .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
            {
                self.roster_file(&dir.path().join(super::roster::ROSTER))?;
            }
        }
        match self.lock() {
            Ok(_guard) => {
                self.prune_locked(ttl, now)?;
                Ok(true)
            }
            Err(StoreError::LockTimeout(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Stand-ins for the sessions whose records were set aside less than `keep` ago, each
    /// holding those of `paths` (relative to the worktree at `root`) that the index still lists
    /// under it. One listing of `sessions/` when there are none (no index folder is listed); for the guard, which reads
    /// sessions' files from their records.
    pub(crate) fn stand_ins_holding(
        &self,
        root: &Path,
        paths: impl Fn() -> Vec<String>,
        now: u64,
        keep: Duration,
    ) -> Vec<Session> {
        let mut keys: Vec<(String, u64)> = Vec::new();
        let Ok(entries) = fs::read_dir(self.dir.join("sessions")) else {
            return Vec::new();
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some((orig, at)) = name.to_str().and_then(parse_aside) else {
                continue;
            };
            let key = orig.trim_end_matches(".json");
            if now.saturating_sub(at) < keep.as_secs() && !self.session_path_of_key(key).exists() {
                match keys.iter_mut().find(|(k, _)| k == key) {
                    Some((_, last)) => *last = (*last).max(at),
                    None => keys.push((key.to_owned(), at)),
                }
            }
        }
        if keys.is_empty() {
            return Vec::new();
        }
        let paths = paths();
        keys.into_iter()
            .filter_map(|(key, at)| {
                let mut s = self.stand_in(&key, at, None);
                for p in &paths {
                    let file = FileKey::new(root.to_path_buf(), p.clone());
                    if self.index_dir(&file.digest()).join(&key).exists() {
                        s.files.push(FileTouch {
                            key: file,
                            first: at,
                            last: at,
                        });
                    }
                }
                (!s.files.is_empty()).then_some(s)
            })
            .collect()
    }

    /// The record file of the session with this key.
    fn session_path_of_key(&self, key: &str) -> PathBuf {
        self.dir.join("sessions").join(format!("{key}.json"))
    }
}

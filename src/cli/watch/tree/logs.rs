//! The watcher's set of watched files read again from the snapshot logs: new files watched
//! and checked, changed stamps checked, files no log names any more let go.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use inotify::WatchMask;

use super::{File, Tree, Watch, dir_mask, folders_of};
use crate::store::watch::WatchedFile;

impl Tree {
    /// Read the set of watched files again: new ones watched and checked, changed stamps
    /// checked, files no log names any more let go.
    pub(super) fn read_logs(&mut self) {
        let logs = self.store.snapshot_logs_dir();
        if !self.watches.values().any(|w| matches!(w, Watch::Logs)) {
            let mask = dir_mask() | WatchMask::MODIFY | WatchMask::CLOSE_WRITE;
            if let Ok(wd) = self.inotify.watches().add(&logs, mask) {
                self.watches.insert(wd, Watch::Logs);
            }
        }
        let mut now: BTreeMap<PathBuf, File> = BTreeMap::new();
        for WatchedFile {
            root,
            rel,
            stamp,
            at,
        } in self.store.all_watched_files()
        {
            let path = root.join(OsStr::from_bytes(&rel));
            let file = now.entry(path).or_default();
            file.at = file.at.max(at);
            if !file.names.iter().any(|(r, p)| *r == root && *p == rel) {
                file.names.push((root, rel));
            }
            if !file.stamps.contains(&stamp) {
                file.stamps.push(stamp);
            }
        }
        let old = std::mem::take(&mut self.files);
        let mut fresh = Vec::new();
        for (path, mut file) in now {
            match old.get(&path) {
                Some(before) => {
                    file.wd = before.wd.clone();
                    file.unwatched = before.unwatched;
                    file.dirty = before.dirty;
                    if before.stamps != file.stamps || before.names != file.names {
                        fresh.push(path.clone());
                    }
                }
                None => fresh.push(path.clone()),
            }
            self.files.insert(path, file);
        }
        for (path, file) in old {
            if !self.files.contains_key(&path)
                && let Some(wd) = file.wd
            {
                self.unwatch_file(&path, wd);
            }
        }
        let wanted: BTreeSet<PathBuf> = self.files.keys().flat_map(|p| folders_of(p)).collect();
        let dropped: Vec<PathBuf> = self.wanted.difference(&wanted).cloned().collect();
        for dir in dropped {
            if let Some(wd) = self.dirs.remove(&dir) {
                self.watches.remove(&wd);
                let _ = self.inotify.watches().remove(wd);
            }
            self.blind.remove(&dir);
        }
        self.wanted = wanted;
        // Folders first (top down, so a folder made meanwhile is seen by its parent's watch),
        // then each new file's inode, then its stat data.
        let missing: Vec<PathBuf> = self
            .wanted
            .iter()
            .filter(|d| !self.dirs.contains_key(*d))
            .cloned()
            .collect();
        for dir in missing {
            self.watch_dir(&dir);
        }
        fresh.sort_by_key(|p| std::cmp::Reverse(self.files.get(p).map_or(0, |f| f.at)));
        for path in fresh {
            if self.files.get(&path).is_some_and(|f| f.wd.is_none()) {
                self.rewatch_file(&path);
            }
            self.check(&path);
        }
    }
}

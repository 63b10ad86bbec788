//! The sweep's read of the snapshot states: which watched files changed since their last
//! snapshot, by stat data alone, from each log's sweep copy ([`sweepcache`]) when it is fresh
//! and from the log's text otherwise.

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::super::{Lease, Store, snaplog, sweepcache};
use super::{ChangedWatched, Stamp, read_log, text_of};
use crate::platform::below::Lstat;

impl Store {
    /// Each snapshot state log whose modification time (seconds) `keep` keeps, with its stat
    /// data: one listing of `snapshots/`, one `stat` per log.
    pub(super) fn state_logs_listed(
        &self,
        mut keep: impl FnMut(u64) -> bool,
    ) -> Vec<(PathBuf, Lstat)> {
        let Ok(entries) = fs::read_dir(self.snapshots_dir()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.as_encoded_bytes();
            if name.starts_with(b".") || !name.ends_with(b".log") {
                continue;
            }
            let Some(meta) = entry.metadata().ok().filter(|m| m.is_file()) else {
                continue;
            };
            let recent = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .is_some_and(|d| keep(d.as_secs()));
            if recent {
                out.push((entry.path(), Lstat::of(&meta)));
            }
        }
        out
    }

    /// Of the files watched by sessions whose snapshot state was written since `since`, those
    /// `changed` says changed (it is given each one's worktree root, its path relative to the
    /// root as the bytes to hand to the filesystem and its stat data when last snapshotted, in
    /// path order within each worktree), newest first and at most `limit` in all, by session
    /// (in id order). A log whose sweep copy ([`sweepcache`]) is fresh is not read unless a
    /// file of it changed; one that is read gets a fresh copy. Nothing is allocated for a file
    /// that did not change.
    pub(crate) fn changed_watched<F: FnOnce() -> u64>(
        &self,
        now: u64,
        lease: &mut Lease<F>,
        limit: usize,
        mut changed: impl FnMut(&Path, &[u8], &Stamp) -> bool,
    ) -> Vec<ChangedWatched> {
        // Written at the lease's start or since (the lease is read only for a log older than
        // the shortest lease).
        let listed = self.state_logs_listed(|mtime| lease.reaches(now.saturating_sub(mtime)));
        let mut cached: Vec<(usize, sweepcache::Cache)> = Vec::new();
        let mut logs: Vec<(usize, Vec<u8>)> = Vec::new();
        for (i, (path, key)) in listed.iter().enumerate() {
            if let Some(c) = sweepcache::Cache::read(&sweepcache::path_of(path), key) {
                cached.push((i, c));
            } else if let Some(bytes) = read_log(path) {
                logs.push((i, bytes));
            }
        }
        let texts: Vec<(usize, usize, Cow<'_, str>)> = logs
            .iter()
            .map(|(i, b)| (*i, b.len(), text_of(b)))
            .collect();
        let views: Vec<(usize, snaplog::View<'_>)> = texts
            .iter()
            .filter_map(|(i, len, t)| {
                let view = snaplog::View::of(t)?;
                let (path, key) = &listed[*i];
                // Only a copy of the log as it was stat'ed: one that grew meanwhile is not it.
                if *len as u64 == key.len {
                    let _ = sweepcache::write(&sweepcache::path_of(path), key, &view);
                }
                Some((*i, view))
            })
            .collect();
        enum Read<'v, 't> {
            Cached(&'v sweepcache::Cache),
            Text(&'v snaplog::View<'t>),
        }
        let mut all: Vec<(&str, usize, Read<'_, '_>)> = cached
            .iter()
            .map(|(i, c)| (c.session(), *i, Read::Cached(c)))
            .chain(views.iter().map(|(i, v)| (v.session, *i, Read::Text(v))))
            .collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        let mut out = Vec::new();
        let mut budget = limit;
        for (_, i, read) in all {
            if budget == 0 {
                break;
            }
            let found = match read {
                Read::Text(view) => changed_in(view, budget, &mut changed),
                Read::Cached(cache) => {
                    if !cache.any_changed(&mut changed) {
                        continue;
                    }
                    // A file changed: what the log says now is what counts.
                    let Some(bytes) = read_log(&listed[i].0) else {
                        continue;
                    };
                    let text = text_of(&bytes);
                    let Some(view) = snaplog::View::of(&text) else {
                        continue;
                    };
                    changed_in(&view, budget, &mut changed)
                }
            };
            if let Some(found) = found {
                budget -= found.files.len();
                out.push(found);
            }
        }
        out
    }
}

/// The files of `view` that `changed` says changed, newest first and at most `budget`, with
/// the session's id and host; `None` when none did.
fn changed_in(
    view: &snaplog::View<'_>,
    budget: usize,
    changed: &mut impl FnMut(&Path, &[u8], &Stamp) -> bool,
) -> Option<ChangedWatched> {
    // Stat'ed in path order (a folder is looked up once for all its files), taken newest
    // first. A log lists its files mostly in the order they were first written, which is
    // often path order already: a stable sort finds such runs at once.
    let mut order: Vec<usize> = (0..view.files.len()).collect();
    order.sort_by_key(|&i| (view.files[i].root, view.files[i].path));
    let mut differs = vec![false; view.files.len()];
    let mut at_root = usize::MAX;
    let (mut root, mut path) = (String::new(), String::new());
    for i in order {
        let f = &view.files[i];
        if f.root != at_root {
            at_root = f.root;
            root.clear();
            snaplog::unescape_into(&mut root, view.roots[f.root]);
        }
        path.clear();
        snaplog::unescape_into(&mut path, f.path);
        let rel = crate::pathtext::to_bytes(&path);
        differs[i] = changed(&crate::pathtext::to_path(&root), &rel, &f.stamp);
    }
    let files: Vec<(PathBuf, String)> = (0..view.files.len())
        .rev()
        .filter(|&i| differs[i])
        .take(budget)
        .map(|i| snaplog::owned_file(view, &view.files[i]))
        .collect();
    (!files.is_empty()).then(|| ChangedWatched {
        session: snaplog::owned(view.session),
        host: snaplog::owned(view.host),
        files,
    })
}

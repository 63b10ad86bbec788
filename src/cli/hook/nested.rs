//! Nested repositories (see `git::nested`): what is snapshotted or retained in a repository
//! whose worktree lies inside another's is also kept in the enclosing one, so deleting the
//! nested folder (its `.git` with it) loses nothing for good.
//!
//! The enclosing repository is the outermost repository around the nested worktree where
//! git-dibs keeps a store already (a session ran there: the project the agents work in); a
//! repository around it that git-dibs was never used in (a dotfiles repository in the home
//! folder) is left alone. Nothing is done for a worktree no repository encloses: one `stat`
//! per folder above it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::changed;
use super::snap::{Batch, Pending, failed, snapshot_into};
use crate::git::nested::bundle::{self, Bundled};
use crate::git::nested::inside;
use crate::git::nested::{
    enclosing, mirror_retained as fetch_retained, object_format, sweep_mirrored,
};
use crate::git::snapshot::worktree_id;
use crate::git::{self, Worktree};
use crate::protocol::Event;
use crate::store::Store;

/// The enclosing repository where the files of the worktree at `root` (of the clone whose
/// common dir is `own`) are also kept: its worktree and store.
fn keeper(root: &Path, own: &Path) -> Option<(Worktree, Store)> {
    enclosing(root, own)
        .into_iter()
        .rev()
        .find_map(|w| Store::in_use(&w.common_dir).map(|s| (w, s)))
}

/// Before an edit or shell write in `wt` is snapshotted: when `wt` is a nested repository
/// inside the worktree the session works in (its cwd's), that repository's store is made if
/// none is there yet (a host that sends no session start), so the edit is kept there too.
pub(super) fn enclosed_by_session(event: &Event, wt: &Worktree) {
    if event.cwd.starts_with(&wt.root) {
        // The everyday case: the session works in the file's own worktree.
        return;
    }
    if let Some(here) = git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree)
        && here.common_dir != wt.common_dir
        && wt.root.starts_with(&here.root)
        && Store::in_use(&here.common_dir).is_none()
    {
        let _ = Store::open(&here.common_dir);
    }
}

/// After `batch` was snapshotted (or tried) in the clone whose common dir is `common_dir`: its
/// files of nested worktrees go into the snapshot ref of the same session in the enclosing
/// repository too, with their nested worktree root (`recover` there lists and
/// restores them under it). Never fails: a failure is one stderr line and a note for `doctor`.
pub(super) fn mirror(common_dir: &Path, batch: Batch<'_>) {
    let files = batch.files;
    let mut roots: Vec<&PathBuf> = files.iter().map(|f| &f.worktree).collect();
    roots.sort();
    roots.dedup();
    let mut into: BTreeMap<PathBuf, (Store, Vec<Pending>)> = BTreeMap::new();
    for root in roots {
        let Some((outer, store)) = keeper(root, common_dir) else {
            continue;
        };
        store.remember_nested(&worktree_id(root), root);
        let entry = into
            .entry(outer.common_dir)
            .or_insert_with(|| (store, Vec::new()));
        entry.1.extend(
            files
                .iter()
                .filter(|f| &f.worktree == root)
                .map(|f| Pending {
                    worktree: f.worktree.clone(),
                    path: f.path.clone(),
                }),
        );
    }
    for (outer, (store, files)) in into {
        let theirs = Batch {
            files: &files,
            ..batch
        };
        if let Err(e) = snapshot_into(&store, &outer, theirs) {
            failed(
                Some(&store),
                batch.now,
                &format!("{e} (in the enclosing repository)"),
            );
        }
    }
}

/// How many nested repositories one worktree's scan goes into at most, and how deep.
const MAX_INSIDE: usize = 16;
const MAX_DEPTH: usize = 3;

/// The scan after a shell command (`changed::scan_worktree`), for the nested repositories
/// inside `wt` (its submodules, and the folders `made` lists whole because they hold a
/// repository, ignored or not): each is scanned as a worktree of its own, so what a program run at the
/// project's top wrote inside them is snapshotted there and, by [`mirror`], in the enclosing
/// repository. `depth` is how many levels down `wt` is. `None` when there are none or
/// nothing was looked at; else whether a budget stopped it (more of them than
/// [`MAX_INSIDE`], or a scan inside stopped).
pub(super) fn scan_inside(
    event: &Event,
    wt: &Worktree,
    scan: &changed::Scan<'_>,
    made: &git::ShellMade,
    depth: usize,
) -> Option<bool> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let listed: Vec<&str> = made
        .dirty
        .iter()
        .chain(&made.ignored_repos)
        .map(String::as_str)
        .filter(|p| p.ends_with('/'))
        .collect();
    let (inner, more) = inside::repositories_in(wt, &listed, MAX_INSIDE);
    let mut out = more.then_some(true);
    for nested in &inner {
        if let Some(over) = changed::scan_at(event, nested, scan, depth + 1) {
            out = Some(over || out == Some(true));
        }
    }
    out
}

/// The git config key that caps the size of a nested repository's bundle.
pub(crate) const BUNDLE_MAX_KEY: &str = "dibs.nestedBundleMax";
/// The cap when [`BUNDLE_MAX_KEY`] is not set.
pub(crate) const DEFAULT_BUNDLE_MAX: u64 = 32 << 20;

/// After a shell command moved commits or refs in the clone of `wt`: when that is a nested
/// repository, its retention refs are fetched into the enclosing repository
/// (`refs/dibs/nested/<id>/…`, `<id>` of its main worktree's root: the folder holding its
/// `.git`, whatever worktree git was run in, as `GIT_DIR=inner/.git git commit` runs in the
/// folder above), and those it now has on its remote dropped there. A repository of another
/// object format (SHA-256 inside SHA-1, or the reverse) cannot be fetched from: its history is
/// kept there as a bundle instead (at most [`BUNDLE_MAX_KEY`]; over it, said plainly, here and
/// by `doctor`).
pub(super) fn mirror_retained(wt: &Worktree) {
    let root = match (wt.common_dir.file_name(), wt.common_dir.parent()) {
        (Some(n), Some(main)) if n == ".git" => main.to_path_buf(),
        _ => wt.root.clone(),
    };
    let Some((outer, store)) = keeper(&root, &wt.common_dir) else {
        return;
    };
    let id = worktree_id(&root);
    store.remember_nested(&id, &root);
    let (inner_format, outer_format) = (
        object_format(&wt.common_dir),
        object_format(&outer.common_dir),
    );
    let formats = || {
        format!(
            "its commits are {inner_format} and {} is {outer_format}",
            outer.root.display()
        )
    };
    // Its own retention refs on commits now on its remote go first (as after a commit).
    let _ = crate::git::retention::sweep(&root);
    let failure = if inner_format == outer_format {
        fetch_retained(&outer.root, &wt.common_dir, &id)
            .and_then(|()| sweep_mirrored(&outer.root, &wt.common_dir, &id))
            .err()
            .map(|e| e.to_string())
    } else {
        let max = super::facts::settings_in(&outer, Some(&store))
            .bytes(BUNDLE_MAX_KEY)
            .unwrap_or(DEFAULT_BUNDLE_MAX);
        match bundle::keep(&outer.root, &wt.common_dir, &id, max) {
            Ok(Bundled::TooLarge(size)) => Some(format!(
                "{}, so they are kept there as a bundle, but its history is about {}, over \
                 {BUNDLE_MAX_KEY} ({}): push them, or raise {BUNDLE_MAX_KEY}",
                formats(),
                human(size),
                human(max)
            )),
            Ok(_) => None,
            Err(e) => Some(format!(
                "{}, and bundling them failed ({e}): push them to keep them",
                formats()
            )),
        }
    };
    if let Some(why) = failure {
        let what = format!(
            "cannot keep {}'s retained commits: {why}",
            wt.root.display()
        );
        eprintln!("git-dibs: {what}");
        store.note_snapshot_failure(crate::store::now_secs(), &what);
    }
}

/// A size for people: KiB below a MiB, else MiB (rounded up).
fn human(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{} KiB", bytes.div_ceil(1 << 10))
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

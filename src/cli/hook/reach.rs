//! The worktrees of other clones where a session has work (see `store/reach.rs`): noted when
//! its work is kept in a clone other than the one its event runs in (in both clones' stores,
//! so a session that later runs from the sibling finds its way back), and added to what the
//! scan after a shell command and the sweep before one look at. An entry is a hint: one whose
//! folder is no longer that clone's worktree (gone, another repository there, a link in its
//! place) is passed over.

use std::path::Path;

use crate::git::{self, Worktree};
use crate::protocol::Event;
use crate::store::Store;

/// Note that the event's session has work in `wt`, when `wt` is not of the clone its event
/// runs in (best effort; nothing is read or written for the same clone).
pub(super) fn note(event: &Event, wt: &Worktree) {
    // The everyday case, told without a lookup: the event runs in that very worktree (a
    // repository nested below its cwd is noted by its enclosing one's scan, see `nested`).
    if event.cwd.starts_with(&wt.root) {
        return;
    }
    let Some(here) = git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree) else {
        return;
    };
    if here.common_dir == wt.common_dir {
        return;
    }
    for (store_of, other) in [(&here, wt), (wt, &here)] {
        if let Ok(store) = Store::open(&store_of.common_dir) {
            store.note_reached(&event.session_id, &other.root, &other.common_dir);
        }
    }
}

/// The worktrees of other clones noted for the event's session in the store of `here` (the
/// worktree of its cwd), each still that clone's worktree at that very path.
pub(super) fn reached(event: &Event, here: Option<&Worktree>) -> Vec<Worktree> {
    let Some(here) = here else {
        return Vec::new();
    };
    let Some(store) = Store::existing(&here.common_dir) else {
        return Vec::new();
    };
    store
        .reached(&event.session_id)
        .into_iter()
        .filter(|(_, common)| *common != here.common_dir)
        .filter_map(|(root, common)| {
            // No link on the way: the path must be its own canonical form.
            let canonical = std::fs::canonicalize(&root).ok()?;
            let wt = git::worktree_at(&canonical).filter(|_| canonical == root)?;
            (wt.common_dir == common).then_some(wt)
        })
        .collect()
}

/// Add to `clones` (one worktree per clone) the clones the event's session has work in besides
/// (a command may write there by any path), as [`reached`] finds them from `here`.
pub(super) fn add_clones(event: &Event, here: Option<&Worktree>, clones: &mut Vec<Worktree>) {
    for wt in reached(event, here) {
        if !clones.iter().any(|w| w.common_dir == wt.common_dir) {
            clones.push(wt);
        }
    }
}

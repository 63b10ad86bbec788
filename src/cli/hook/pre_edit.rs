//! Before an edit tool changes a file: a change nobody's snapshot has yet (a person's editor, a
//! formatter, found by stat data) is snapshotted first, so the edit does not replace the only
//! copy of it.

use std::fs;

use super::snap::{Pending, Source, failed, snapshot};
use crate::git::Located;
use crate::protocol::{Event, Host};
use crate::store::{self, Stamp, Store};

/// Before an edit tool writes `located` (the files of `store`'s clone among them count): each
/// one that the snapshots of the event's session or of `holders` (the other sessions holding
/// one of them) watch and that changed since it was snapshotted (a person's editor, a
/// formatter: by stat data) goes into that session's snapshot first, so the edit does not
/// replace the only copy. One `lstat` when nothing changed and no one else holds the file, and
/// one read of the session's snapshot state.
pub(crate) fn keep_changed(event: &Event, store: &Store, located: &[Located], holders: &[String]) {
    let Some(first) = located.first() else {
        return;
    };
    if !store.has_snapshots() {
        return;
    }
    let common_dir = &first.worktree.common_dir;
    let mut sessions: Vec<&str> = vec![event.session_id.as_str()];
    for h in holders {
        if !sessions.contains(&h.as_str()) {
            sessions.push(h);
        }
    }
    let now = store::now_secs();
    for id in sessions {
        let Some(state) = store.snapshot_state(id) else {
            continue;
        };
        let changed: Vec<Pending> = located
            .iter()
            .filter(|l| l.worktree.common_dir == *common_dir)
            .filter(|l| {
                state
                    .watched(&l.worktree.root, &l.relative)
                    .is_some_and(|w| {
                        fs::symlink_metadata(l.worktree.root.join(&l.relative))
                            .is_ok_and(|m| Stamp::of(&m) != w.stamp)
                    })
            })
            .map(|l| Pending {
                worktree: l.worktree.root.clone(),
                path: l.relative.clone(),
            })
            .collect();
        if changed.is_empty() {
            continue;
        }
        let host = if state.host.is_empty() {
            Host::Person.name()
        } else {
            state.host.as_str()
        };
        if let Err(e) = snapshot(
            store,
            common_dir,
            &state.session,
            host,
            now,
            &changed,
            Source::Sweep,
        ) {
            failed(Some(store), now, &e);
        }
    }
}

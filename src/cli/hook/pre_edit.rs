//! Before an edit tool changes a file: a change nobody's snapshot has yet (a person's editor, a
//! formatter, found by stat data) is snapshotted first, so the edit does not replace the only
//! copy of it.

use std::fs;

use super::snap::{Batch, Pending, Source, failed, snapshot};
use crate::git::Located;
use crate::protocol::{Event, Host};
use crate::store::{self, Stamp, Store};

/// Before an edit tool writes `located` (the files of `store`'s clone among them count): each
/// one that the snapshots of the event's session or of `holders` (the other sessions holding
/// one of them) watch and that changed since it was snapshotted (a person's editor, a
/// formatter: by stat data) goes into that session's snapshot first, so the edit does not
/// replace the only copy. One `lstat` when nothing changed and no one else holds the file, and
/// one read of the session's snapshot state.
pub(crate) fn keep_changed(
    event: &Event,
    store: &Store,
    located: &[Located],
    holders: &[(String, Host)],
) {
    let Some(first) = located.first() else {
        return;
    };
    if !store.has_snapshots() {
        return;
    }
    let common_dir = &first.worktree.common_dir;
    let mut sessions: Vec<(&str, Host)> = vec![(event.session_id.as_str(), event.host)];
    for (id, host) in holders {
        if !sessions.iter().any(|(s, _)| s == id) {
            sessions.push((id, *host));
        }
    }
    let now = store::now_secs();
    for (id, host) in sessions {
        let changed: Vec<Pending> = located
            .iter()
            .filter(|l| l.worktree.common_dir == *common_dir)
            .filter(|l| {
                store
                    .watched_file(id, &l.worktree.root, &l.relative)
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
        let batch = Batch {
            session: id,
            host: host.name(),
            now,
            files: &changed,
            source: Source::Sweep,
        };
        let result = snapshot(store, common_dir, batch);
        if let Err(e) = result {
            failed(Some(store), now, &e);
        }
    }
}

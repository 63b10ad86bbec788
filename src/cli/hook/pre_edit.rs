//! Before an edit tool changes a file: a change nobody's snapshot has yet (a person's editor, a
//! formatter, found by stat data) is snapshotted first, so the edit does not replace the only
//! copy of it; and a file it is about to create is watched from then on, so that when the
//! tool's end never comes (the host died, the call was killed) the next sweep takes it.

use std::fs;

use super::snap::{Batch, Pending, Source, failed, snapshot};
use crate::git::Located;
use crate::protocol::{Event, Host};
use crate::store::{self, SnapState, Stamp, Store, Watched};

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

/// Before an edit tool writes `located`: each file (of the first one's clone) that does not
/// exist yet and that the event's session's snapshots do not watch is watched from now on, at
/// [`Stamp::WRITING`] (no file has it), so that whatever the tool creates there counts as
/// changed until the tool's end snapshots it. Without it, a host that dies between writing and
/// its post-tool hook (or a call killed there) leaves a new file, whose only copy it is, that
/// no snapshot has and no session watches. A file the session watches already needs nothing
/// (any write changes its stat data, which the sweep compares); an existing file it does not
/// watch is left out, since its earlier content is in git or in a snapshot and marking every
/// file a session is about to edit would make each sweep stat them all. A declined call
/// creates nothing, so nothing is snapshotted for it. At most one append to the session's
/// snapshot log, and one `lstat` a file when they all exist.
pub(crate) fn mark_writing(event: &Event, store: &Store, located: &[Located]) {
    let Some(first) = located.first() else {
        return;
    };
    // Files that exist need nothing: the session's state is read only when one does not.
    let absent: Vec<&Located> = located
        .iter()
        .filter(|l| l.worktree.common_dir == first.worktree.common_dir)
        .filter(|l| fs::symlink_metadata(l.worktree.root.join(&l.relative)).is_err())
        .collect();
    if absent.is_empty() {
        return;
    }
    let session = event.session_id.as_str();
    let mut state = store.snapshot_state(session).unwrap_or_else(|| SnapState {
        session: session.to_owned(),
        host: event.host.name().to_owned(),
        ..SnapState::default()
    });
    let marks: Vec<Watched> = absent
        .into_iter()
        .filter(|l| state.watched(&l.worktree.root, &l.relative).is_none())
        .map(|l| Watched {
            worktree: l.worktree.root.clone(),
            path: l.relative.clone(),
            stamp: Stamp::WRITING,
            skipped: None,
            blob: None,
        })
        .collect();
    if marks.is_empty() {
        return;
    }
    let now = store::now_secs();
    if let Err(e) = store.add_snapshot_state(&mut state, None, now, marks) {
        failed(Some(store), now, &e.to_string());
    }
}

//! A session's snapshot chain made whole again when something outside git-dibs broke it: its
//! ref deleted (`git update-ref -d`, a mirror fetch with `--prune`) or pointed at a commit
//! git-dibs did not write on it (`git update-ref`, `git push . +X:refs/dibs/…`), or its newest
//! commits' objects pruned by a `git gc --prune=now` that ran while the snapshot was being
//! written, or its loose file damaged (empty, torn, a link). The ref is put back on the newest
//! intact commit (what it was pointed at kept under
//! `refs/dibs/rewritten/`); where nothing intact is left, the session's watched files are taken
//! again as they are now. Each repair is said on stderr and noted for `doctor`. This is looked
//! at before each snapshot of the session, for every session when the store prunes and before
//! any line that may prune (`git gc`, `git prune`, `git reflog expire`, ...), and by `doctor`.

use std::path::Path;

use super::snap::{Batch, Source, failed, host_or_person, snapshot_again};
use crate::git::{self, Worktree, snapshot};
use crate::store::{SnapState, Store};

/// Whether the chain of `state`'s session (store key `key`) is gone, ref and commits: then
/// its files must be taken anew. A ref deleted from outside git-dibs, or pointed at a commit
/// git-dibs did not write on the newest snapshot the store remembers, is put back on that
/// snapshot while it is still here (and so reported). One read of a small file when the ref
/// is a loose file on that snapshot.
pub(super) fn lost(
    store: &Store,
    common_dir: &Path,
    key: &str,
    state: &SnapState,
    now: u64,
) -> bool {
    let Some(commit) = state.commit.as_deref() else {
        return false;
    };
    if snapshot::loose_ref_tip(common_dir, key).as_deref() == Some(commit) {
        return false;
    }
    let session = &state.session;
    // A loose ref file damaged from outside is removed first: then it is put back as a
    // deleted one is, and said as what it was.
    let gone = match snapshot::mend_damaged(common_dir, key) {
        Some(what) => format!("was damaged outside git-dibs ({what} in its place)"),
        None => "was deleted outside git-dibs".to_owned(),
    };
    let found = snapshot::Snapshots::open(common_dir).and_then(|s| s.reattach(key, commit));
    match found {
        Ok(snapshot::Reattach::Present) => false,
        Ok(snapshot::Reattach::Restored) => {
            note(
                store,
                now,
                &format!(
                    "session {session}'s snapshot ref {gone}; it is back on its newest \
                     snapshot {}",
                    git::lanes::short_sha(commit)
                ),
            );
            false
        }
        Ok(snapshot::Reattach::Lost) => {
            note(
                store,
                now,
                &format!(
                    "session {session}'s snapshot ref {gone} and its commit {} is gone too; \
                     its files are snapshotted again as they are now",
                    git::lanes::short_sha(commit)
                ),
            );
            true
        }
        Ok(snapshot::Reattach::Rewritten { foreign, kept }) => {
            note(
                store,
                now,
                &format!(
                    "session {session}'s snapshot ref was pointed at {} outside git-dibs; it is \
                     back on its newest snapshot {} ({kept} keeps {})",
                    git::lanes::short_sha(&foreign),
                    git::lanes::short_sha(commit),
                    git::lanes::short_sha(&foreign),
                ),
            );
            false
        }
        Ok(snapshot::Reattach::Pruned { foreign }) => {
            note(
                store,
                now,
                &format!(
                    "session {session}'s snapshot ref was pointed at {} outside git-dibs and \
                     its snapshots up to {} were pruned since; its files are snapshotted again \
                     as they are now",
                    git::lanes::short_sha(&foreign),
                    git::lanes::short_sha(commit)
                ),
            );
            true
        }
        Err(_) => false,
    }
}

/// Say what happened to a session's chain: one line on stderr, and a note for `doctor`.
fn note(store: &Store, now: u64, what: &str) {
    eprintln!("git-dibs: {what}");
    store.note_snapshot_failure(now, what);
}

/// When the store prunes, and before a line that may prune: the chain of every session
/// snapshotted since `since` whose ref was deleted or pointed elsewhere from outside git-dibs
/// is put back (or, its commits gone too, its files are taken again), and one left on a
/// commit whose objects were pruned is repaired, so that a session that snapshots nothing
/// more does not lose its chain to the next `git gc`. Best effort.
pub(crate) fn reattach_all(store: &Store, wt: &Worktree, since: u64, now: u64) {
    let mut opened: Option<Option<snapshot::Snapshots>> = None;
    for state in store.snapshot_states_since(since) {
        if state.commit.is_none() {
            continue;
        }
        let key = Store::snapshot_key(&state.session);
        let repaired = snapshot::loose_ref_exists(&wt.common_dir, &key) && {
            let snapshots = opened
                .get_or_insert_with(|| snapshot::Snapshots::open(&wt.common_dir).ok())
                .as_ref();
            let Some(snapshots) = snapshots else {
                return;
            };
            repaired_in(store, snapshots, &state.session, now)
        };
        if !repaired && !lost(store, &wt.common_dir, &key, &state, now) {
            continue;
        }
        let batch = Batch {
            session: &state.session,
            host: host_or_person(&state.host),
            now,
            files: &[],
            source: Source::Sweep,
        };
        if let Err(e) = snapshot_again(store, &wt.common_dir, batch) {
            failed(Some(store), now, &e);
        }
    }
}

/// [`reattach_all`] for every session whose snapshots have not expired
/// (`dibs.snapshotExpiry`): before a line that may prune, and from `doctor`. Nothing when no
/// session ever snapshotted here.
pub(crate) fn reattach_unexpired(store: &Store, wt: &Worktree, now: u64) {
    if !store.has_snapshots() {
        return;
    }
    let expiry = super::facts::settings_in(wt, Some(store))
        .duration("dibs.snapshotExpiry")
        .unwrap_or(crate::store::DEFAULT_SNAPSHOT_EXPIRY);
    reattach_all(store, wt, now.saturating_sub(expiry.as_secs()), now);
}

/// Whether the chain of `session` in the clone at `common_dir` was broken (its newest commit or
/// that commit's tree missing) and is repaired now: its ref moved back to the newest intact
/// commit, or deleted when none is left. Said on stderr and noted for `doctor`.
pub(super) fn repaired(store: &Store, common_dir: &Path, session: &str, now: u64) -> bool {
    snapshot::Snapshots::open(common_dir).is_ok_and(|s| repaired_in(store, &s, session, now))
}

/// [`repaired`] with the clone's snapshots open already.
fn repaired_in(store: &Store, snapshots: &snapshot::Snapshots, session: &str, now: u64) -> bool {
    let key = Store::snapshot_key(session);
    let what = match snapshots.repair(&key) {
        Ok(snapshot::Repair::Intact) | Err(_) => return false,
        Ok(snapshot::Repair::BackTo(commit)) => format!(
            "session {session}'s newest snapshots lost their objects (a `git gc --prune=now` \
             while they were written?); its ref is back on {}, and its files are taken again",
            git::lanes::short_sha(&commit)
        ),
        Ok(snapshot::Repair::Cut) => match older_intact(store, snapshots, session, &key) {
            Some(commit) => format!(
                "session {session}'s newest snapshots lost their objects (a `git gc \
                 --prune=now` while they were written?); its ref is back on {}, and its files \
                 are taken again",
                git::lanes::short_sha(&commit)
            ),
            None => format!(
                "session {session}'s snapshot chain lost its objects (a `git gc --prune=now` \
                 while it was written?); its files are taken again as they are now"
            ),
        },
    };
    note(store, now, &what);
    true
}

/// After a chain was cut (its newest commit gone, so its parents cannot be found from it): the
/// ref of `session` (store key `key`) put back on the newest older snapshot its log still
/// names that is intact, so the versions before the loss stay recoverable.
fn older_intact(
    store: &Store,
    snapshots: &snapshot::Snapshots,
    session: &str,
    key: &str,
) -> Option<String> {
    store
        .snapshot_commits(session)
        .into_iter()
        .find(|c| matches!(snapshots.reattach(key, c), Ok(snapshot::Reattach::Restored)))
}

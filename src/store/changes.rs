//! Applying [`Change`]s to a session record, and whether the result is worth a write: a
//! change that only moves time stamps forward by less than [`COALESCE`] is not.

use super::record::{Change, FileTouch, SeenFile, Session, Target};

/// How many seen-file digests a record keeps.
pub(super) const MAX_SEEN: usize = 256;
/// How many (peer, file) co-edit warnings a record remembers.
const MAX_WARNED: usize = 128;

/// Time stamps that move by less than this are not worth a write on their own.
pub(crate) const COALESCE: u64 = 60;

pub(super) fn apply_all(session: &mut Session, now: u64, changes: &[Change]) {
    session.last_seen = session.last_seen.max(now);
    for change in changes {
        apply_change(session, now, change);
    }
}

/// Whether `new` differs from `old` by more than time stamps moved forward within [`COALESCE`].
pub(super) fn worth_writing(old: &Session, new: &Session) -> bool {
    let stale = |was: u64, is: u64| is >= was.saturating_add(COALESCE);
    if !old.indexed
        || stale(old.last_seen, new.last_seen)
        || old.files.len() != new.files.len()
        || old.claims.len() != new.claims.len()
        || old.seen.len() != new.seen.len()
        || old.warned.len() != new.warned.len()
    {
        return true;
    }
    let files = old
        .files
        .iter()
        .zip(&new.files)
        .any(|(o, n)| o.key != n.key || o.first != n.first || stale(o.last, n.last));
    let claims = old
        .claims
        .iter()
        .zip(&new.claims)
        .any(|(o, n)| o.target != n.target || o.token != n.token || stale(o.until, n.until));
    let seen = old
        .seen
        .iter()
        .zip(&new.seen)
        .any(|(o, n)| o.key != n.key || o.digest != n.digest || stale(o.at, n.at));
    let mut head = new.clone();
    head.last_seen = old.last_seen;
    head.files.clone_from(&old.files);
    head.claims.clone_from(&old.claims);
    head.seen.clone_from(&old.seen);
    files || claims || seen || head != *old
}

fn apply_change(session: &mut Session, now: u64, change: &Change) {
    session.last_seen = session.last_seen.max(now);
    match change {
        Change::Activity { worktree, branch } => {
            session.ended = None;
            if worktree.is_some() {
                session.worktree.clone_from(worktree);
                session.branch.clone_from(branch);
            }
        }
        Change::Label(label) => {
            if session.label.is_none() {
                session.label = crate::text::note(label);
            }
        }
        Change::Touch(keys) => {
            session.ended = None;
            for key in keys {
                match session.files.iter_mut().find(|f| &f.key == key) {
                    Some(f) => f.last = now,
                    None => session.files.push(FileTouch {
                        key: key.clone(),
                        first: now,
                        last: now,
                    }),
                }
                let target = Target::File(key.clone());
                for c in session.claims.iter_mut().filter(|c| c.target == target) {
                    c.until = c.until.max(now.saturating_add(c.lease));
                }
            }
        }
        Change::Seen(key, digest) => {
            if let Some(same) = session
                .seen
                .iter_mut()
                .find(|s| &s.key == key && &s.digest == digest)
            {
                same.at = now;
                return;
            }
            session.seen.retain(|s| &s.key != key);
            session.seen.push(SeenFile {
                key: key.clone(),
                digest: digest.clone(),
                at: now,
            });
            if session.seen.len() > MAX_SEEN {
                session.seen.remove(0);
            }
        }
        Change::ReleaseAllBut(keep) => {
            session.files.retain(|f| keep.contains(&f.key));
            session.claims.clear();
        }
        Change::Warned(told) => {
            for (peer, key) in told {
                let digest = key.digest();
                if !session
                    .warned
                    .iter()
                    .any(|w| &w.peer == peer && w.file == digest)
                {
                    session.warned.push(super::record::Warned {
                        peer: peer.clone(),
                        file: digest,
                    });
                }
            }
            let extra = session.warned.len().saturating_sub(MAX_WARNED);
            session.warned.drain(..extra);
        }
        Change::End => session.ended = Some(now),
    }
}

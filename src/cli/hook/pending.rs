//! Scans left unfinished: where the budget stops the scan after a session's shell command, the
//! worktree is left marked (`store::Marks::Pending`) with where the scan goes on (see
//! `resume`). The session's next calls, and the next command of any session that may destroy,
//! go on from there, so repeated calls cover every file; what a command that may destroy still
//! finds left after its budgets is put to the person (`[guard:scan-unfinished]`).

use std::path::{Path, PathBuf};

use super::changed::{Scan, scan_from};
use super::resume::Cursor;
use crate::git;
use crate::policy::guard::unfinished::Unfinished;
use crate::protocol::Event;
use crate::store::{self, Running, Store};

/// How many budgets' worth (see `changed`) a scan before a command that may destroy takes at
/// most, per worktree, to finish what a scan left.
pub(super) const ROUNDS: usize = 8;

const NS: i128 = 1_000_000_000;

/// Where the scan of `root` goes on, as the pending mark `run` says: its cursor there, or
/// every path since the mark's start when the mark names the worktree without one. `None`
/// when the mark does not name it.
pub(crate) fn cursor_of(run: Option<&Running>, root: &Path) -> Option<Cursor> {
    let run = run?;
    if let Some(r) = run.resume.iter().find(|r| r.root == root) {
        return Some(Cursor::of(r));
    }
    run.roots
        .iter()
        .any(|r| r == root)
        .then(|| Cursor::flat(i128::from(run.since) * NS))
}

/// After the scan of a shell command's output in the clone whose common dir is `common_dir`:
/// `done` holds each worktree it looked at, with where the next scan goes on when the budget
/// stopped it there; `unlooked` the worktrees it did not reach. `old` is the session's pending
/// mark the scan went on from. The mark is rewritten to name what is left (every change since
/// `since_ns` in the worktrees not reached), or removed when nothing is.
pub(crate) fn scan_left(
    event: &Event,
    common_dir: &Path,
    since_ns: i128,
    done: Vec<(PathBuf, Option<Cursor>)>,
    unlooked: Vec<PathBuf>,
    old: Option<Running>,
) {
    let Some(store) = Store::existing(common_dir) else {
        return;
    };
    if old.is_none() && unlooked.is_empty() && done.iter().all(|(_, c)| c.is_none()) {
        return;
    }
    let since = u64::try_from(since_ns.div_euclid(NS)).unwrap_or(0);
    let mut run = old.clone().unwrap_or_else(|| Running {
        session: event.session_id.clone(),
        host: event.host.name().to_owned(),
        since,
        at: 0,
        roots: Vec::new(),
        agent: None,
        call: None,
        scanned: None,
        resume: Vec::new(),
    });
    // The worktrees not looked at now also need what this command changed.
    for r in &mut run.resume {
        r.since = r.since.min(since);
        r.again = r.again.min(since);
    }
    run.since = run.since.min(since);
    for (root, next) in done {
        run.roots.retain(|r| *r != root);
        run.resume.retain(|r| r.root != root);
        if let Some(c) = next {
            run.resume.push(c.to_resume(&root));
            run.roots.push(root);
        }
    }
    for root in unlooked {
        if !run.roots.contains(&root) {
            run.roots.push(root);
        }
    }
    if old
        .as_ref()
        .is_some_and(|o| o.roots == run.roots && o.resume == run.resume)
    {
        return;
    }
    run.at = store::now_secs();
    store.set_scan_pending(&event.session_id, !run.roots.is_empty());
    store.replace_pending(run);
}

/// Before a command that may destroy: go on with the scan pending mark `run` left, [`ROUNDS`]
/// budgets per worktree at most (its files become the event's session's when the mark is its,
/// `own`), and rewrite the mark to name what is still left (or remove it). What is left.
pub(super) fn finish(event: &Event, store: &Store, run: Running, own: bool) -> Option<Unfinished> {
    let mut next = Running {
        roots: Vec::new(),
        resume: Vec::new(),
        at: store::now_secs(),
        ..run.clone()
    };
    let mut files = 0;
    for root in &run.roots {
        let Some(wt) = git::worktree_at(root) else {
            continue;
        };
        let Some(mut from) = cursor_of(Some(&run), root) else {
            continue;
        };
        let since = i128::from(run.since) * NS;
        let scan = Scan {
            session: &run.session,
            host: &run.host,
            since: since.min(from.since),
            claim_since: own.then_some(since),
        };
        let mut left = None;
        for _ in 0..ROUNDS {
            match scan_from(event, &wt, &scan, &from) {
                Some(o) if o.over => {
                    from = o.next;
                    left = Some(o.left);
                }
                _ => {
                    left = None;
                    break;
                }
            }
        }
        if let Some(n) = left {
            files += n;
            next.resume.push(from.to_resume(&wt.root));
            next.roots.push(wt.root);
        }
    }
    let roots = next.roots.clone();
    if roots.is_empty() {
        store.set_scan_pending(&run.session, false);
    }
    store.replace_pending(next);
    (!roots.is_empty()).then_some(Unfinished {
        files,
        roots,
        per_try: ROUNDS * super::changed::MAX_FILES,
    })
}

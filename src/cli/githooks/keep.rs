//! The `committed` state of the `reference-transaction` hook: what a ref update by any actor
//! may have left held by nothing is kept (see `git::retention::keep_moved`), and before a
//! stash is written, the worktrees of live background jobs are scanned into their sessions'
//! snapshots (`git stash` puts the files back right after). Nothing is read for updates that
//! cannot drop a commit (a new branch, `HEAD`, git-dibs' own refs); a commit's forward move
//! costs a read of its reflog's last entry (else one ancestry check). Never fails git.

use crate::git::retention::{RefMove, forward_by_reflog, keep_moved, old_from_reflog};

use super::reference_transaction::Update;

/// The update as git announced it.
fn announced(u: &Update) -> RefMove<'_> {
    RefMove {
        name: &u.name,
        old: u.old.as_deref(),
        new: u.new.as_deref(),
    }
}

/// Keep what the committed `updates` may have dropped; a failure is one line on stderr.
pub(super) fn after_commit(updates: &[Update]) {
    if !updates
        .iter()
        .map(announced)
        .any(|m| m.may_drop() || m.unchecked())
    {
        return;
    }
    let Some((cwd, wt)) = super::here() else {
        return;
    };
    // An update git did not check announces no old value: the reflog says what it was.
    let olds: Vec<Option<String>> = updates
        .iter()
        .map(|u| match announced(u) {
            m @ RefMove { new: Some(new), .. } if m.unchecked() => {
                old_from_reflog(&wt.common_dir, &u.name, new)
            }
            _ => u.old.clone(),
        })
        .collect();
    let moves: Vec<RefMove<'_>> = updates
        .iter()
        .zip(&olds)
        .map(|(u, old)| RefMove {
            name: &u.name,
            old: old.as_deref(),
            new: u.new.as_deref(),
        })
        .filter(RefMove::may_drop)
        // A commit's or a fast-forward's own reflog entry says it moved forward.
        .filter(|m| {
            m.name == "refs/stash"
                || m.new
                    .is_none_or(|new| !forward_by_reflog(&wt.common_dir, m.name, new))
        })
        .collect();
    if moves.is_empty() {
        return;
    }
    if moves
        .iter()
        .any(|m| m.name == "refs/stash" && m.new.is_some())
    {
        crate::cli::hook::scan_background_jobs(&wt);
    }
    if let Err(e) = keep_moved(&cwd, &moves) {
        eprintln!("git-dibs reference-transaction: cannot keep what this ref update left: {e}");
    }
}

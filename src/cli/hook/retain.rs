//! Retention after a shell command: every worktree of the clones the line ran in (by its
//! directories and by git's own options: `git -C lib`, `--git-dir`, `GIT_DIR=`) whose HEAD
//! moved, every branch that moved, and every commit the reflogs gained get retention refs while
//! on no remote; a nested repository's are also kept in the repository around it.

use std::time::Duration;

use crate::git::{self, Worktree};
use crate::protocol::Event;
use crate::shell::SimpleCommand;
use crate::store::{BranchTips, Store};

/// After a shell command: every worktree of the clones it ran in whose HEAD moved since last
/// looked at (ref files only, no repository opened when none moved) gets its new HEAD kept by
/// a retention ref while that commit is on no remote; one committed while the command ran
/// (`took`, when the host says) is remembered as the event's actor's.
pub(crate) fn retain_new_commits(event: &Event, cmds: &[SimpleCommand], took: Option<Duration>) {
    for wt in super::snap::clones(event, cmds) {
        let Ok(store) = Store::open(&wt.common_dir) else {
            continue;
        };
        let mut kept = false;
        for root in git::worktree_roots(&wt.common_dir) {
            let Some(head) = git::worktree_at(&root).and_then(|w| git::head_commit(&w)) else {
                continue;
            };
            if store.last_head(&root).as_deref() == Some(head.as_str()) {
                continue;
            }
            match git::retention::retain_head(&root) {
                Ok(_) => {
                    // Moved: what keeps it (made now, or by git's post-commit hook before).
                    kept = true;
                    store.remember_head(&root, &head);
                    if git::retention::committed_within(&root, &head, took) {
                        store.remember_maker(&head, crate::store::Actor::from(event));
                    }
                }
                Err(e) => eprintln!(
                    "git-dibs: cannot keep a retention ref on {} in {}: {e}",
                    git::lanes::short_sha(&head),
                    root.display()
                ),
            }
        }
        let (moved, refs_changed) = retain_moved_branches(&store, &wt);
        // Snapshot refs the line deleted (a mirror fetch with `--prune`, `git update-ref -d`,
        // `rm -rf .git/refs/dibs`) are put back while their commits are still here: one read
        // of a small file per session that snapshotted.
        super::chain::reattach_unexpired(&store, &wt, crate::store::now_secs());
        kept |= moved;
        kept |= retain_from_reflogs(&store, &wt, refs_changed);
        // A push or fetch moves no branch but may put retained commits on the remote: what
        // the repository around keeps of them may go.
        if kept || refs_changed {
            super::nested::mirror_retained(&wt);
        }
    }
}

/// Commits a command made and then moved away from within itself (`git commit && git reset
/// --hard HEAD~1`) are left only in reflogs and `ORIG_HEAD`: what the reflogs gained since last
/// looked at (by their lengths; the branches' only when `branches` changed), and what each
/// `ORIG_HEAD` came to name, get retention refs where nothing else holds it. In a reftable
/// repository both are read through git when its table list changed. Returns whether it made
/// any.
fn retain_from_reflogs(store: &Store, wt: &Worktree, branches: bool) -> bool {
    let worktrees: Vec<Worktree> = git::worktree_roots(&wt.common_dir)
        .iter()
        .filter_map(|r| git::worktree_at(r))
        .collect();
    let now = crate::store::now_secs();
    let before = store.reflog_lengths();
    let reftable = wt.common_dir.join("reftable/tables.list").is_file();
    let (mut gained, mut lengths) = if reftable {
        let mut lengths = std::collections::BTreeMap::new();
        let found =
            git::reflog::reftable_gained(&wt.common_dir, &worktrees, &before, now, &mut lengths);
        (found, lengths)
    } else {
        let logs = git::reflog::reflogs(&wt.common_dir, &worktrees, branches);
        let (found, looked) = git::reflog::gained(&logs, &before, now);
        // Branch logs not looked at this time keep what was known of them.
        let mut lengths = if branches {
            std::collections::BTreeMap::new()
        } else {
            before.clone()
        };
        lengths.extend(looked);
        (found, lengths)
    };
    if !reftable {
        gained.extend(git::reflog::orig_heads(
            &worktrees,
            &before,
            now,
            &mut lengths,
        ));
    }
    let made = match git::retention::retain_reflog_commits(&wt.root, &gained) {
        Ok(r) => !r.created.is_empty(),
        Err(e) => {
            eprintln!(
                "git-dibs: cannot keep retention refs on commits left in reflogs in {}: {e}",
                wt.root.display()
            );
            return false;
        }
    };
    if lengths != before {
        store.remember_reflog_lengths(&lengths);
    }
    made
}

/// Branches that no worktree has checked out move too (`git commit-tree` plus `git
/// update-ref`, `git branch -f`, a script): when the clone's branch storage changed since last
/// looked at (by `stat` alone), each branch whose tip moved gets a retention ref on its new tip,
/// and retention and kept-stash refs deleted from outside git-dibs (a mirror fetch with
/// `--prune`, a script), or branches deleted with them, are put back while their commits are
/// still here and on no remote.
/// Returns whether any branch moved, and whether the branch storage changed at all (local or
/// remote-tracking refs).
fn retain_moved_branches(store: &Store, wt: &Worktree) -> (bool, bool) {
    let fingerprint = git::retention::branch_fingerprint(&wt.common_dir);
    let before = store.branch_tips();
    if fingerprint.is_some() && fingerprint.as_deref() == Some(before.fingerprint.as_str()) {
        return (false, false);
    }
    let now = crate::store::now_secs();
    let expiry = snapshot_expiry(store, wt);
    keep_stashes(wt, expiry, now);
    let stash_since = i64::try_from(now.saturating_sub(expiry)).unwrap_or(0);
    match git::retention::retain_moved_branches(&wt.root, &before.tips, stash_since) {
        Ok((_, tips, complete)) => {
            let moved = tips != before.tips;
            store.remember_branch_tips(&BranchTips {
                fingerprint: fingerprint.filter(|_| complete).unwrap_or_default(),
                tips,
            });
            (moved, true)
        }
        Err(e) => {
            eprintln!(
                "git-dibs: cannot keep retention refs on moved branches in {}: {e}",
                wt.root.display()
            );
            (false, true)
        }
    }
}

/// The snapshot expiry (`dibs.snapshotExpiry`) of the clone of `wt`, in seconds.
fn snapshot_expiry(store: &Store, wt: &Worktree) -> u64 {
    super::facts::settings_in(wt, Some(store))
        .duration("dibs.snapshotExpiry")
        .unwrap_or(crate::store::DEFAULT_SNAPSHOT_EXPIRY)
        .as_secs()
}

/// The stash entries made within the snapshot expiry (`expiry` seconds before `now`) get refs
/// of their own (`git stash drop`, `clear` and `reflog expire` leave them in no ref); those of
/// entries gone and older go.
fn keep_stashes(wt: &Worktree, expiry: u64, now: u64) {
    let now = i64::try_from(now).unwrap_or(i64::MAX);
    if let Err(e) = git::stashes::keep(&wt.root, expiry, now) {
        eprintln!(
            "git-dibs: cannot keep the stash commits in {}: {e}",
            wt.root.display()
        );
    }
}

/// git subcommands (with the first argument that makes them one, or any) that may expire
/// reflogs, prune objects or drop stash entries.
const PRUNES: &[(&str, &[&str])] = &[
    ("gc", &[]),
    ("prune", &[]),
    ("repack", &[]),
    ("maintenance", &["run"]),
    ("reflog", &["expire", "delete", "drop"]),
    ("worktree", &["prune", "remove"]),
    ("stash", &["drop", "clear", "pop"]),
];

/// git subcommands that may move remote-tracking refs.
const FETCHES: &[&str] = &["fetch", "pull", "remote"];

/// What a line's git commands may do to what only refs hold: (may prune, may also fetch first).
/// A line that cannot be read may do both when it names git.
pub(crate) fn prunes(cmds: Option<&[SimpleCommand]>, command: &str) -> (bool, bool) {
    let Some(cmds) = cmds else {
        let git = command.contains("git");
        return (git, git);
    };
    let (mut prune, mut fetch) = (false, false);
    for c in cmds {
        let Some(inv) = git::parse_invocation(&c.argv, &c.cwd, &c.assignments) else {
            continue;
        };
        let Some(sub) = inv.args.first().map(String::as_str) else {
            continue;
        };
        let first = inv.args.get(1).map(String::as_str);
        prune |= PRUNES
            .iter()
            .any(|(s, a)| *s == sub && (a.is_empty() || first.is_some_and(|f| a.contains(&f))));
        fetch |= FETCHES.contains(&sub);
    }
    (prune, prune && fetch)
}

/// Before a line that may prune (see [`prunes`]): branches, remote-tracking refs and stash
/// entries that moved since last looked at (a fetch, a stash or a commit without any hook) are
/// kept as after a command, every session's snapshot chain that was deleted or pointed
/// elsewhere from outside git-dibs is put back (see [`super::chain`]), and when the line
/// fetches first, the remote-tracking tips that nothing else holds are kept before the fetch
/// can move them.
pub(crate) fn before_prune(event: &Event, cmds: &[SimpleCommand], fetches: bool) {
    for wt in super::snap::clones(event, cmds) {
        let Ok(store) = Store::open(&wt.common_dir) else {
            continue;
        };
        retain_moved_branches(&store, &wt);
        super::chain::reattach_unexpired(&store, &wt, crate::store::now_secs());
        if fetches && let Err(e) = git::prekeep::keep_tracking_tips(&wt.root) {
            eprintln!(
                "git-dibs: cannot keep remote-tracking tips before a prune in {}: {e}",
                wt.root.display()
            );
        }
    }
}

/// After a line that may have pruned: retention refs whose commits are on a remote again go
/// (those [`before_prune`] made while the fetch left them where they were).
pub(crate) fn after_prune(event: &Event, cmds: &[SimpleCommand]) {
    for wt in super::snap::clones(event, cmds) {
        let _ = git::retention::sweep(&wt.root);
    }
}

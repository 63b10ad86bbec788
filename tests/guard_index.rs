//! The index- and worktree-rewriting family against a live peer's files: `reset --merge` and
//! `--keep`, `read-tree -um HEAD`, `read-tree --reset -u`, `checkout-index -f -a`, `restore
//! --staged --worktree`, `merge/cherry-pick/revert/am --abort` (a `reset --merge`), `rebase
//! --abort` (a hard reset), `git mv` over or of their files, are refused while the peer's staged
//! or dirty files are among what they revert; with nothing of a peer's in reach they stay silent
//! (red-team finding 02).

mod common;
mod guard_support;

use common::*;
use guard_support::*;

#[test]
fn commands_that_revert_a_peers_staged_files_are_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    // The peer stages its own files by explicit path, as the house rule asks.
    git(r, &["add", "src/lib.rs", "notes.txt"]);
    for cmd in [
        "git reset --merge",
        "git reset --merge HEAD",
        "git reset --keep",
        "git read-tree -um HEAD",
        "git read-tree -m -u HEAD",
        "git read-tree --reset -u HEAD",
        "git restore --staged --worktree .",
        "git restore -SW src",
        "git merge --abort",
        "git cherry-pick --abort",
        "git revert --abort",
        "git am --abort",
        "git rebase --abort",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
        assert!(reason.contains("src/lib.rs"), "{cmd}: {reason}");
    }
}

#[test]
fn commands_that_revert_a_peers_dirty_files_are_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "git checkout-index -f -a",
        "git checkout-index -fa",
        "git checkout-index -f -- src/lib.rs",
        "git read-tree -u --reset HEAD",
        "git rebase --abort",
        "git mv -f mine.rs src/lib.rs",
        "git mv src/lib.rs src/moved.rs",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
}

#[test]
fn the_family_stays_silent_with_nothing_of_a_peers_in_reach() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    // The peer's files are dirty but not staged: these leave unstaged changes alone.
    for cmd in [
        "git reset --merge",
        "git reset --keep",
        "git read-tree -um HEAD",
        "git merge --abort",
        "git read-tree HEAD",
        "git read-tree -m -u HEAD HEAD",
        "git reset",
        "git reset --soft HEAD",
        "git restore --staged mine.rs",
        "git checkout-index -a",
        "git mv -n mine.rs x.rs",
    ] {
        allowed(r, cmd);
    }
    // And in a worktree where no peer works at all.
    for cmd in [
        "git reset --merge",
        "git read-tree --reset -u HEAD",
        "git checkout-index -f -a",
        "git rebase --abort",
        "git mv src/lib.rs src/moved.rs",
    ] {
        allowed(&f.clean, cmd);
    }
}

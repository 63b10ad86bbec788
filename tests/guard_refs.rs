//! An unpushed branch deleted or pointed away from its commits by any git spelling is refused
//! like `git branch -D`: `update-ref -d HEAD` (HEAD on that branch), `update-ref refs/heads/X
//! REV`, `push -f . REV:X`, `fetch . +REV:X`, a forced fetch from a remote into `refs/heads/`,
//! `branch -M`; a move that keeps them (a fast-forward) passes; `symbolic-ref HEAD` to another
//! commit under a live peer's dirty files is refused like a switch (red-team finding 03).

mod common;
mod guard_support;

use common::*;
use guard_support::*;

#[test]
fn an_unpushed_branch_is_not_deleted_or_moved_away_by_other_spellings() {
    let f = fixture();
    let r = &f.repo.root;
    let topic = git_out(r, &["rev-parse", "topic"]);
    for (cwd, cmd) in [
        (&f.unpushed, "git update-ref -d HEAD"),
        (r, "git update-ref -d refs/heads/topic"),
        (r, "git update-ref refs/heads/topic origin/main"),
        (r, "git update-ref -m why refs/heads/topic main"),
        (
            r,
            "git update-ref refs/heads/topic 0000000000000000000000000000000000000000",
        ),
        (r, "git push -f . main:topic"),
        (r, "git push . +main:topic"),
        (r, "git push . +main:refs/heads/topic"),
        (r, "git push . :topic"),
        (r, "git push --delete . topic"),
        (r, "git fetch . +main:topic"),
        (r, "git fetch -f . main:topic"),
        (r, "git fetch origin +main:topic"),
        (r, "git fetch origin '+refs/heads/*:refs/heads/*'"),
        (r, "git fetch --prune origin 'refs/heads/*:refs/heads/*'"),
        (r, "git pull origin +main:topic"),
        (r, "git branch -M topic"),
        (r, "git branch -M main topic"),
        (r, "git branch -C main topic"),
        (r, "git branch -f topic main"),
        (r, "git checkout -B topic main"),
        (r, "git worktree add -B topic ../scratch origin/main"),
        (
            r,
            "git worktree add --lock --reason x -B topic ../scratch main",
        ),
        (r, "git worktree add -f -B topic ../scratch"),
    ] {
        let reason = denied(cwd, cmd);
        assert!(
            reason.contains("[guard:branch-unpushed]"),
            "{cmd}: {reason}"
        );
        assert!(
            reason.contains(&topic[..8]) || cmd.contains("HEAD"),
            "{cmd}: {reason}"
        );
    }
    let reason = denied(&f.unpushed, "git update-ref -d HEAD");
    assert!(reason.contains("branch unpushed has"), "{reason}");
}

#[test]
fn a_detached_heads_commits_are_kept_by_a_new_branch_not_pushed_by_name() {
    let f = fixture();
    let wt = &f.unpushed;
    git(wt, &["checkout", "-q", "--detach"]);
    commit_in(wt, "detached.txt", "detached work");
    let tip = git_out(wt, &["rev-parse", "HEAD"]);
    for cmd in ["git update-ref -d HEAD", "git update-ref HEAD HEAD~1"] {
        let reason = denied(wt, cmd);
        assert!(
            reason.contains("the detached HEAD has")
                && reason.contains(&format!("git branch keep-{0} {0}", &tip[..8])),
            "{cmd}: {reason}"
        );
        // No advice to push a branch named after the HEAD.
        assert!(!reason.contains("git push -u origin"), "{cmd}: {reason}");
        assert!(!reason.contains("(detached)"), "{cmd}: {reason}");
    }
    // Following the advice keeps them: the same command then loses nothing.
    git(wt, &["branch", &format!("keep-{}", &tip[..8]), &tip[..8]]);
    git(
        wt,
        &["push", "-q", "origin", &format!("keep-{}", &tip[..8])],
    );
    allowed(wt, "git update-ref HEAD HEAD~1");
}

#[test]
fn moves_that_keep_the_commits_and_everyday_ref_commands_stay_silent() {
    let f = fixture();
    let r = &f.repo.root;
    // `unpushed` holds `topic` and is one commit ahead: moving topic there is a fast-forward.
    git(&f.unpushed, &["merge", "-q", "--no-edit", "topic"]);
    commit_in(&f.unpushed, "ahead.txt", "ahead");
    for (cwd, cmd) in [
        (r, "git update-ref refs/heads/topic unpushed"),
        (r, "git branch -f topic unpushed"),
        (r, "git push -f . unpushed:topic"),
        (r, "git fetch . +unpushed:topic"),
        (r, "git update-ref refs/heads/brand-new HEAD"),
        (r, "git update-ref refs/heads/pushed topic"),
        (r, "git push . main:topic"),
        (r, "git fetch . main:topic"),
        (r, "git fetch"),
        (r, "git fetch origin"),
        (r, "git fetch origin main"),
        (r, "git fetch --all --prune"),
        (r, "git fetch origin '+refs/heads/*:refs/remotes/origin/*'"),
        (r, "git fetch origin main:refs/remotes/origin/main"),
        (r, "git pull --rebase origin main"),
        (r, "git branch -m topic renamed"),
        (r, "git symbolic-ref HEAD"),
        (r, "git symbolic-ref --short HEAD"),
        (r, "git update-ref -d refs/heads/pushed"),
        (r, "git worktree add -B topic ../scratch unpushed"),
        (r, "git worktree add -B fresh ../scratch origin/main"),
        (r, "git worktree add -b fresh ../scratch"),
        (r, "git worktree add ../scratch topic"),
    ] {
        allowed(cwd, cmd);
    }
}

#[test]
fn symbolic_ref_moves_the_branch_under_a_live_peer() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let reason = denied(r, "git symbolic-ref HEAD refs/heads/topic");
    assert!(reason.contains("[guard:peer-switch]"), "{reason}");
    assert!(reason.contains("src/lib.rs"), "{reason}");
    // `pushed` is at the commit checked out: no file stands against another commit.
    allowed(r, "git symbolic-ref HEAD refs/heads/pushed");
}

/// A branch whose commits another local branch (or a tag) holds loses nothing when it goes
/// (red-team 2/20: `git branch -D feat` after merging feat into unpushed main); unless that
/// other branch goes or moves in the same line, or only a detached HEAD holds them.
#[test]
fn commits_another_branch_holds_are_not_lost_unless_it_goes_too() {
    let f = fixture();
    let r = &f.repo.root;
    // feat is merged into local, unpushed main (fast-forward); feat2 by a merge commit.
    git(r, &["checkout", "-q", "-b", "feat"]);
    commit_in(r, "feat.txt", "feat work");
    git(r, &["checkout", "-q", "-b", "feat2", "main"]);
    commit_in(r, "feat2.txt", "feat2 work");
    git(r, &["checkout", "-q", "main"]);
    git(r, &["merge", "-q", "--ff-only", "feat"]);
    git(r, &["merge", "-q", "--no-ff", "--no-edit", "feat2"]);
    for cmd in [
        "git branch -D feat",
        "git branch -D feat feat2",
        "git branch --delete --force feat2",
        "git update-ref -d refs/heads/feat",
        "git branch -f feat2 origin/main",
    ] {
        allowed(r, cmd);
    }
    // Two branches sharing a commit no other ref has, deleted together or one after the other.
    git(r, &["branch", "a", "topic"]);
    for cmd in [
        "git branch -D a topic",
        "git branch -D topic && git branch -D a",
        "git branch -D a; git update-ref -d refs/heads/topic",
        "git branch -f a main && git branch -D topic",
        "git branch -D '*'",
    ] {
        let reason = denied(r, cmd);
        assert!(
            reason.contains("[guard:branch-unpushed]"),
            "{cmd}: {reason}"
        );
        assert!(reason.contains("no other branch"), "{cmd}: {reason}");
    }
    allowed(r, "git branch -D a");
    git(r, &["branch", "-D", "a"]);
    // main deleted in the same line takes feat's only other copy with it.
    let reason = denied(&f.clean, "git branch -D main feat");
    assert!(reason.contains("feat work"), "{reason}");
    // A tag keeps them; a detached HEAD does not (the next checkout leaves them).
    git(&f.unpushed, &["checkout", "-q", "--detach", "topic"]);
    let reason = denied(r, "git branch -D topic");
    assert!(reason.contains("more"), "{reason}");
    git(r, &["tag", "v-topic", "topic"]);
    allowed(r, "git branch -D topic");
}

#[test]
fn the_stash_ref_and_its_reflog_are_guarded_like_stash_clear_and_drop() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git reflog expire --expire=now --all",
        "git reflog show stash",
        "git reflog",
    ] {
        allowed(r, cmd);
    }
    std::fs::write(r.join("README.md"), "stashed work\n").unwrap();
    git(r, &["stash", "push", "-q", "-m", "wip"]);
    for cmd in [
        "git update-ref -d refs/stash",
        "git reflog expire --expire=now refs/stash",
        "git reflog expire --expire=now --all",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:stash-clear]"), "{cmd}: {reason}");
    }
    let reason = asked(r, "git reflog delete stash@{0}");
    assert!(reason.contains("[guard:stash-drop]"), "{reason}");
    for cmd in [
        "git stash list",
        "git reflog show stash",
        "git stash show -p",
    ] {
        allowed(r, cmd);
    }
}

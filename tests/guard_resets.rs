//! Git commands that put shared state back under a live peer (third red team, 18, 29, 23, 24,
//! 05, 13), through the real hook on real repositories: a reset that moves the checked-out
//! branch off a live peer's unpushed commits, or an amend of one (judged as `branch -f` is,
//! while a session's own commits are its own to reset), a sequencer's `--skip` (the reset it
//! performs, as `--abort`), unstaging a live peer's staged files, patch modes with no pathspec
//! (the whole tree, as `.`) and `git bisect` (the checkout it performs); a worktree's move,
//! unlock or removal by name: `tests/guard_worktree_moves.rs`. Each with the spellings nobody
//! wrote down and the everyday commands that stay silent; the messages under snapshot tests.

mod common;
mod recover_support;

use std::path::Path;

use common::snap::stable;
use common::*;
use recover_support::{Agent, refused, sh, silent};
use serde_json::json;

const PEER: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const ME: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn end(session: &str, cwd: &Path) {
    let ev = claude_event("SessionEnd", session, cwd, json!({"reason": "exit"}));
    assert_eq!(hook(cwd, &ev).code, 0);
}

#[test]
fn a_reset_off_a_live_peers_unpushed_commit_is_refused_and_off_ones_own_passes() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    peer.write("a.txt", b"peer work\n");
    peer.bash("git add a.txt && git commit -qm 'peer work'");
    let elsewhere = repo.tmp.path().canonicalize().unwrap();
    let from_afar = Agent::new(ME, &elsewhere);
    for cmd in [
        "git reset --hard HEAD~1",
        "git reset --keep HEAD~1",
        "git reset --merge HEAD~1",
        "git reset HEAD~1",
        "git reset -q --mixed HEAD~1",
        "git reset --soft HEAD~1",
        "git reset --hard origin/main",
        "git reset --hard @~",
        "git reset --ha HEAD~1",
        "git reset --hard HEAD~1 --",
        "git -c core.quotepath=off reset --hard HEAD~1",
        "git --git-dir=.git --work-tree=. reset --hard HEAD~1",
        "git -c alias.undo='reset --hard' undo HEAD~1",
        "cd src && git reset --hard HEAD~1",
        // A target only known when it runs, and rebases that drop commits (red-team 4/01).
        "git reset --hard \"$(git rev-parse HEAD~1)\"",
        "git reset --hard `git rev-parse HEAD~1`",
        "git rebase --onto HEAD~1 HEAD",
        "git rebase --onto=origin/main main",
        "GIT_SEQUENCE_EDITOR='sed -i 1d' git rebase -i HEAD~1",
        "git rebase --interactive origin/main",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("peer work"), "{cmd}: {reason}");
        assert!(reason.contains("aaaaaaaa"), "{cmd}: {reason}");
        assert!(
            reason.contains("[guard:branch-unpushed]"),
            "{cmd}: {reason}"
        );
    }
    let reason = refused(
        &from_afar,
        &format!("git -C {} reset --hard HEAD~1", r.display()),
    );
    assert!(reason.contains("branch main"), "{reason}");
    insta::assert_snapshot!(
        "guard_reset_peer_commit",
        stable(&repo, &refused(&me, "git reset --hard HEAD~1"))
    );
    // Nothing moves, or the operand is a path: silent.
    for cmd in [
        "git reset --hard",
        "git reset HEAD",
        "git reset a.txt",
        "git reset -- a.txt",
        "git reset --soft HEAD",
        "git log --oneline -3",
        "git rebase origin/main",
        "git rebase --onto HEAD HEAD",
    ] {
        silent(&me, cmd);
    }
    // Amending the peer's commit rewrites it as mine.
    for cmd in [
        "git commit --amend --no-edit",
        "git commit --am -m rewritten",
        "git commit -a --amend -m rewritten",
    ] {
        let reason = refused(&me, cmd);
        assert!(
            reason.contains("peer work") && reason.contains("Amending"),
            "{cmd}: {reason}"
        );
    }
    silent(&me, "git commit -m 'on top'");
    // The peer resets or amends its own commit.
    silent(&peer, "git reset --soft HEAD~1");
    silent(&peer, "git commit --amend --no-edit");
    // A commit of my own on top: resetting it is mine to do; reaching under it to the peer's is
    // not.
    me.write("b.txt", b"mine\n");
    me.bash("git add b.txt && git commit -qm mine");
    silent(&me, "git reset --hard HEAD~1");
    silent(&me, "git reset HEAD~1");
    silent(&me, "git commit --amend --no-edit");
    silent(&me, "git rebase --onto HEAD~1 HEAD");
    silent(&me, "git rebase -i HEAD~1");
    let reason = refused(&me, "git reset --soft HEAD~2");
    assert!(
        reason.contains("peer work") && reason.contains("2 commit(s)"),
        "{reason}"
    );
    // Once the peer is gone its commits are no live session's (retention refs keep them).
    end(PEER, r);
    silent(&me, "git reset --hard HEAD~2");
}

#[test]
fn a_reset_in_another_worktree_or_on_a_detached_head_is_judged_there() {
    let repo = TestRepo::new();
    let wt = repo.worktree("lane");
    let peer = Agent::new(PEER, &wt);
    let me = Agent::new(ME, &repo.root);
    peer.write("lane.txt", b"lane work\n");
    peer.bash("git add lane.txt && git commit -qm 'lane work'");
    let cmd = format!("git -C {} reset --hard HEAD~1", wt.display());
    let reason = refused(&me, &cmd);
    assert!(
        reason.contains("branch lane") && reason.contains("lane work"),
        "{reason}"
    );
    // Detached: the commit is on no branch at all once HEAD leaves it.
    peer.bash("git checkout -q --detach && echo more > more.txt && git add more.txt && git commit -qm 'detached work'");
    let reason = refused(&me, &cmd);
    assert!(
        reason.contains("the detached HEAD") && reason.contains("detached work"),
        "{reason}"
    );
}

#[test]
fn a_solo_session_resets_its_own_commits_in_silence() {
    let repo = TestRepo::new();
    let me = Agent::new(ME, &repo.root);
    me.write("a.txt", b"one\n");
    me.bash("git add a.txt && git commit -qm one");
    me.write("a.txt", b"two\n");
    me.bash("git commit -qam two");
    for cmd in [
        "git reset --hard HEAD~1",
        "git reset HEAD~2",
        "git reset --soft HEAD~2",
        "git reset --keep origin/main",
        "git commit --amend --no-edit",
        "git reset",
        "git bisect start HEAD HEAD~2",
        "git checkout -p",
        "git add -p",
    ] {
        silent(&me, cmd);
    }
}

#[test]
fn a_sequencer_skip_is_the_reset_it_performs() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    peer.write("src/lib.rs", b"pub fn peer() {}\n");
    peer.write("new.txt", b"staged by the peer\n");
    peer.bash("git add new.txt");
    for cmd in [
        "git rebase --skip",
        "git rebase --ski",
        "git am --skip",
        "git cherry-pick --skip",
        "git revert --skip",
        "git -c core.editor=true rebase --skip",
        "git rebase --abort",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("new.txt"), "{cmd}: {reason}");
    }
    for cmd in [
        "git rebase --continue",
        "git cherry-pick --continue",
        "git rebase --quit",
    ] {
        silent(&me, cmd);
    }
}

#[test]
fn unstaging_a_live_peers_staged_files_is_refused_and_ones_own_passes() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    peer.write("src/lib.rs", b"pub fn staged() {}\n");
    peer.bash("git add src/lib.rs");
    peer.write("src/lib.rs", b"pub fn staged() {}\npub fn not_yet() {}\n");
    me.write("mine.txt", b"mine\n");
    me.bash("git add mine.txt");
    for cmd in [
        "git reset",
        "git reset -q",
        "git reset -- .",
        "git reset HEAD",
        "git reset HEAD -- src/lib.rs",
        "git reset src",
        "git reset -p",
        "git restore --staged .",
        "git restore --sta :/",
        "git restore -S src/lib.rs",
        "git rm -r -q --cached .",
        "git rm --cached src/lib.rs",
        "git read-tree HEAD",
        "git read-tree --empty",
        "cd src && git reset -- .",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("src/lib.rs (staged)"), "{cmd}: {reason}");
    }
    insta::assert_snapshot!(
        "guard_unstage_peer",
        stable(&repo, &refused(&me, "git reset"))
    );
    for cmd in [
        "git reset mine.txt",
        "git reset -- mine.txt",
        "git reset HEAD mine.txt",
        "git restore --staged mine.txt",
        "git rm --cached -q mine.txt",
        "git read-tree --index-output=/tmp/other-index HEAD",
        "git read-tree -n HEAD",
    ] {
        silent(&me, cmd);
    }
    // The peer unstages its own file.
    silent(&peer, "git restore --staged src/lib.rs");
    // With nothing of the peer's staged, unstaging everything loses nothing of it.
    sh(r, "git restore --staged src/lib.rs");
    silent(&me, "git reset");
    silent(&me, "git restore --staged .");
}

#[test]
fn patch_modes_with_no_pathspec_take_the_whole_tree() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    peer.write("src/lib.rs", b"pub fn peer() {}\n");
    me.write("README.md", b"# mine\n");
    for cmd in [
        "git checkout -p",
        "yes | git checkout --patch",
        "git checkout -p HEAD",
        "git checkout -p HEAD --",
        "git restore -p",
        "git restore --patc",
        "git restore -p -s HEAD~0",
        "git add -p",
        "git add --patch",
        "git add -i",
        "git add --interactive",
        "git add -e",
        "git commit -p -m x",
        "git commit --interactive",
        "git stash -p",
        "git diff | patch -R -p1",
        "git diff HEAD | patch -Rp1",
        "git diff | patch --reverse -p1",
        "git diff HEAD -- src | git apply -R",
        "git diff src/lib.rs | git apply -R",
        "git diff HEAD src | patch -R -p1",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("src/lib.rs"), "{cmd}: {reason}");
    }
    insta::assert_snapshot!(
        "guard_patch_mode",
        stable(&repo, &refused(&me, "git checkout -p"))
    );
    for cmd in [
        "git add -p README.md",
        "git checkout -p README.md",
        "git checkout -p HEAD README.md",
        "git restore -p README.md",
        "git commit -p -m x README.md",
        "git diff",
        "git diff | cat",
        "git diff | patch -R --dry-run -p1",
        "git diff -- README.md | patch -R -p1",
        // One's own file reverted by its diff (red-team 4/07), in each spelling.
        "git diff README.md | git apply -R",
        "git diff -- README.md | git apply -R",
        "git diff HEAD -- README.md | git apply -R",
        "git diff HEAD README.md | patch -R -p1",
        "git diff --stat",
    ] {
        silent(&me, cmd);
    }
}

#[test]
fn bisect_steps_are_the_checkouts_they_perform() {
    let repo = TestRepo::new();
    let r = &repo.root;
    for n in 1..=3 {
        std::fs::write(r.join("log.txt"), format!("{n}\n")).unwrap();
        git(r, &["add", "log.txt"]);
        git(r, &["commit", "-qm", &format!("step {n}")]);
    }
    git(r, &["push", "-q", "origin", "main"]);
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    // No peer with work here: bisect as one likes.
    silent(&me, "git bisect start HEAD HEAD~3");
    peer.write("src/lib.rs", b"pub fn peer() {}\n");
    for cmd in [
        "git bisect start HEAD HEAD~3",
        "git bisect start --first-parent HEAD HEAD~3 -- src",
        "git bisect good",
        "git bisect bad HEAD~1",
        "git bisect skip",
        "git bisect reset",
        "git bisect run true",
        "git -C src bisect good",
    ] {
        let reason = refused(&me, cmd);
        assert!(
            reason.contains("src/lib.rs") && reason.contains("[guard:peer-switch]"),
            "{cmd}: {reason}"
        );
    }
    for cmd in [
        "git bisect start",
        "git bisect start HEAD",
        "git bisect start --no-checkout HEAD HEAD~3",
        "git bisect log",
        "git bisect terms",
    ] {
        silent(&me, cmd);
    }
}

#[test]
fn a_reset_off_a_peers_commit_is_refused_in_a_reftable_repository_too() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let init = ["init", "-q", "--ref-format=reftable", "-b", "main"];
    if !git_command(&base)
        .args(init)
        .arg("--bare")
        .arg("remote.git")
        .status()
        .unwrap()
        .success()
    {
        eprintln!("skipped: the installed git cannot make a reftable repository");
        return;
    }
    git(&base, &[&init[..], &["repo"]].concat());
    let r = base.join("repo");
    std::fs::write(r.join("README.md"), "# test\n").unwrap();
    git(&r, &["add", "."]);
    git(&r, &["commit", "-qm", "init"]);
    git(&r, &["remote", "add", "origin", "../remote.git"]);
    git(&r, &["push", "-q", "-u", "origin", "main"]);
    let peer = Agent::new(PEER, &r);
    let me = Agent::new(ME, &r);
    peer.write("a.txt", b"peer work\n");
    peer.bash("git add a.txt && git commit -qm 'peer work'");
    let reason = refused(&me, "git reset --hard HEAD~1");
    assert!(reason.contains("peer work"), "{reason}");
    silent(&peer, "git reset --soft HEAD~1");
    silent(&me, "git reset a.txt");
}

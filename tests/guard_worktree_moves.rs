//! Moving, unlocking or removing a worktree that holds a live session's work (third red team),
//! through the real hook on real repositories: `git worktree move` / `unlock` judged as
//! removing it, a plain `mv` of its root, and a bare repository's worktree removed by name
//! from its git dir. Each with the spellings nobody wrote down and the everyday commands that
//! stay silent; the messages under snapshot tests.

mod common;
mod recover_support;

use common::snap::stable;
use common::*;
use recover_support::{Agent, refused, sh, silent};

const PEER: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const ME: &str = "bbbbbbbb-2222-4222-8222-222222222222";

#[test]
fn moving_or_unlocking_a_worktree_with_a_live_sessions_work_is_refused() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let lane = repo.worktree("lane");
    let peer = Agent::new(PEER, &lane);
    let me = Agent::new(ME, r);
    peer.write("lane.txt", b"uncommitted lane work\n");
    // git-dibs locked the lane when the peer's file made it hold work found nowhere else.
    let list = git_out(r, &["worktree", "list", "--porcelain"]);
    assert!(list.contains("locked git-dibs:"), "{list}");
    let moved = repo.tmp.path().canonicalize().unwrap().join("moved");
    let (l, m) = (lane.display(), moved.display());
    for cmd in [
        format!("git worktree unlock {l}"),
        "git worktree unlock ../lane".to_owned(),
        format!("git worktree move {l} {m}"),
        format!("git worktree move -f -f {l} {m}"),
        format!("git worktree move --force {l} {m}"),
        format!("git -C {l} worktree move . {m}"),
        "git worktree move lane ../moved".to_owned(),
        format!("mv {l} {m}"),
        format!("mv -f {l} -t {}", repo.tmp.path().display()),
        format!("cd {} && mv lane moved", repo.tmp.path().display()),
        // Run from inside the git dir, git finds the worktree by its name (red-team 4/10).
        "cd .git && git worktree remove -f -f lane".to_owned(),
        "git -C .git worktree remove --force lane".to_owned(),
        format!("git --git-dir={}/.git worktree move lane {m}", r.display()),
        "git -C .git/worktrees worktree unlock lane".to_owned(),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("lane.txt"), "{cmd}: {reason}");
    }
    silent(&me, "git -C .git worktree list");
    insta::assert_snapshot!(
        "guard_worktree_move",
        stable(&repo, &refused(&me, &format!("git worktree move {l} {m}")))
    );
    insta::assert_snapshot!(
        "guard_worktree_unlock",
        stable(&repo, &refused(&me, &format!("git worktree unlock {l}")))
    );
    // Moved anyway (bypassed): the peer's files are still guarded where git moved them, and
    // still its own to clean.
    sh(
        r,
        &format!("git worktree unlock {l} && git worktree move {l} {m}"),
    );
    for cmd in [
        format!("git -C {m} clean -fd"),
        format!("cd {m} && git stash -u"),
        format!("git -C {m} add -A"),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("lane.txt"), "{cmd}: {reason}");
    }
    silent(&me, &format!("git -C {m} status"));
    silent(&Agent::new(PEER, &moved), "git clean -fd");
    sh(r, &format!("git worktree move {m} {l}"));
    // A clean, pushed worktree moves freely; a lock a person set is theirs to lift.
    let clean = repo.worktree("clean");
    git(&clean, &["push", "-q", "-u", "origin", "clean"]);
    git(
        r,
        &[
            "worktree",
            "lock",
            "--reason",
            "on a USB disk",
            clean.to_str().unwrap(),
        ],
    );
    silent(&me, &format!("git worktree unlock {}", clean.display()));
    sh(r, &format!("git worktree unlock {}", clean.display()));
    silent(&me, &format!("git worktree move {} {m}", clean.display()));
    silent(&me, "git worktree list");
    // Moving folders and files of one's own worktree is one's own business.
    std::fs::create_dir_all(r.join("docs")).unwrap();
    me.write("notes.txt", b"mine\n");
    for cmd in [
        "mv docs manual",
        "mv notes.txt docs/",
        "mv -t docs notes.txt",
        "mv src lib",
    ] {
        silent(&me, cmd);
    }
    insta::assert_snapshot!(
        "guard_mv_worktree",
        stable(&repo, &refused(&me, &format!("mv {l} {m}")))
    );
}

#[test]
fn removing_a_bare_repositorys_worktree_by_name_from_its_git_dir_is_refused() {
    let repo = TestRepo::new();
    let base = repo.tmp.path().canonicalize().unwrap();
    let bare = base.join("proj.git");
    git(
        &base,
        &[
            "clone",
            "-q",
            "--bare",
            repo.root.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    git(&bare, &["worktree", "add", "-q", "-b", "b1", "../wt1"]);
    let wt1 = base.join("wt1");
    Agent::new(PEER, &wt1).write("peer.txt", b"uncommitted\n");
    let me = Agent::new(ME, &base);
    for cmd in [
        "git -C proj.git worktree remove --force wt1",
        "git -C proj.git worktree remove --force ../wt1",
        "cd proj.git && git worktree remove -f -f wt1",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("peer.txt"), "{cmd}: {reason}");
    }
    silent(&me, "git -C proj.git worktree list");
    silent(&me, "git -C proj.git worktree prune");
}

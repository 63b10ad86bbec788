//! Git-side leftovers of the fourth red team (03, 04, 05 and the one-line ref deletions),
//! through the real hook on real repositories: a lane moved by a plain `mv` keeps its
//! sessions' files guarded where it went (its admin folder still names the old root); each
//! with the spellings nobody wrote down and the everyday commands that stay silent.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::Agent;

const PEER: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const ME: &str = "bbbbbbbb-2222-4222-8222-222222222222";

/// The guard's (decision, reason) for `command` run by `who`; `None` when silent.
fn verdict(who: &Agent, command: &str) -> Option<(String, String)> {
    let run = who.pre_bash(command);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    hook_decision(&run).map(|(d, r, _)| (d, r))
}

#[track_caller]
fn refused(who: &Agent, command: &str) -> String {
    match verdict(who, command) {
        Some((d, reason)) if d == "deny" => reason,
        other => panic!("`{command}` was not refused: {other:?}"),
    }
}

#[track_caller]
fn silent(who: &Agent, command: &str) {
    if let Some(v) = verdict(who, command) {
        panic!("`{command}` was not silent: {v:?}");
    }
}

#[track_caller]
fn sh_ok(cwd: &Path, command: &str) {
    let out = recover_support::sh(cwd, command);
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_lane_moved_by_a_plain_mv_keeps_its_sessions_files_guarded() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let lanes = r.join(".worktrees");
    std::fs::create_dir_all(&lanes).unwrap();
    let lane = lanes.join("l1");
    git(
        r,
        &["worktree", "add", "-q", "-b", "l1", lane.to_str().unwrap()],
    );
    let peer = Agent::new(PEER, &lane);
    let me = Agent::new(ME, r);
    peer.write("f.txt", b"uncommitted lane work\n");
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let moved = tmp.join("moved");
    // A plain `mv` (a bypass, a file manager): git's admin folder still names the old root.
    sh_ok(r, &format!("mv {} {}", lane.display(), moved.display()));
    let m = moved.display();
    for cmd in [
        format!("git -C {m} clean -fd"),
        "git -C ../moved clean -fdq".to_owned(),
        format!("cd {m} && git stash -u"),
        format!("git -C {m} add -A"),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("f.txt"), "{cmd}: {reason}");
    }
    silent(&me, &format!("git -C {m} status"));
    silent(&me, &format!("git -C {m} diff"));
    // The peer's own files, where they went, are its own to clean.
    silent(&Agent::new(PEER, &moved), "git clean -fd");
    // Moved into another lane's name, the same: claims follow the admin folder, not the name.
    let other = tmp.join("l1");
    sh_ok(r, &format!("mv {m} {}", other.display()));
    let reason = refused(&me, &format!("git -C {} clean -fd", other.display()));
    assert!(reason.contains("f.txt"), "{reason}");
    // Once git is told (`worktree repair`), the same.
    sh_ok(&other, "git worktree repair");
    let reason = refused(&me, &format!("git -C {} clean -fd", other.display()));
    assert!(reason.contains("f.txt"), "{reason}");
}

#[test]
fn a_lane_git_moved_then_moved_again_by_mv_keeps_its_files_guarded() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let lane = repo.worktree("lane");
    let first = tmp.join("first");
    git(
        r,
        &[
            "worktree",
            "move",
            lane.to_str().unwrap(),
            first.to_str().unwrap(),
        ],
    );
    // The peer works where git moved it: its claims name `first`, which is not the admin
    // folder's name (`lane`).
    let peer = Agent::new(PEER, &first);
    let me = Agent::new(ME, r);
    peer.write("g.txt", b"uncommitted\n");
    let second = tmp.join("second");
    sh_ok(r, &format!("mv {} {}", first.display(), second.display()));
    let reason = refused(&me, &format!("git -C {} clean -fd", second.display()));
    assert!(reason.contains("g.txt"), "{reason}");
    // The main worktree, and a fresh lane of one's own, stay one's own to clean.
    silent(&me, "git clean -fd");
    let mine = repo.worktree("mine");
    silent(&me, &format!("git -C {} clean -fd", mine.display()));
}

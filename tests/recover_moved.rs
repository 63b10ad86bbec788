//! Snapshots of a worktree that moved after they were taken (red team 6/11): the whole clone
//! moved with `mv`, a linked worktree moved with `git worktree move`, or with `mv` then `git
//! worktree repair`, its old folder gone or holding another worktree. `recover` (listing,
//! `--json`, `recover PATH`, `recover --worktree PATH`) finds them where the worktree is now,
//! by the worktree's identity and the files' paths in it, and says where they were taken; a
//! later worktree that reuses a removed one's name is never taken for it.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_clone_moved_whole_is_recovered_where_it_is_now() {
    let repo = TestRepo::new();
    let old = repo.root.clone();
    let agent = Agent::new("mover", &old);
    agent.write("src/lib.rs", b"pub fn agent_work() {}\n");
    agent.write("notes/new.md", &binary(700));
    let new = old.parent().unwrap().join("repo2");
    std::fs::rename(&old, &new).unwrap();
    // The working copy destroyed in its new place, then everything only reflogs hold is gone.
    sh(&new, "git checkout -- . && rm -r notes");
    collect_garbage(&new);
    // Something else is at the old path now: another clone.
    git(old.parent().unwrap(), &["init", "-q", "repo"]);
    std::fs::write(old.join("src.txt"), "not the agent's").unwrap();

    let listing = recover_json(&new, &[]);
    let f = listed(&listing, "mover", "src/lib.rs");
    assert_eq!(f["worktree"], text(&new), "{listing}");
    assert_eq!(f["worktree_exists"], true, "{listing}");
    assert_eq!(f["taken_at"], text(&old), "{listing}");
    assert_eq!(f["working_copy"], "differs", "{listing}");
    assert_eq!(
        listed(&listing, "mover", "notes/new.md")["working_copy"],
        "missing"
    );
    let (code, out, err) = recover(&new, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let header = format!(
        "  {} (snapshotted at {} before it moved here)",
        new.display(),
        old.display()
    );
    assert!(out.contains(&header), "{out}");
    assert!(!out.contains("gone"), "{out}");

    // By its path now, from inside it.
    assert_recovers(
        &new.join("src"),
        &["lib.rs", "--force"],
        &[(new.join("src/lib.rs"), b"pub fn agent_work() {}\n".to_vec())],
    );
    // By its old path: brought back where it is now, nothing written in the clone there.
    let (code, out, err) = recover(&new, &[text(&old.join("notes/new.md"))]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("moved to"), "{err}");
    assert_files(&[(new.join("notes/new.md"), binary(700))]);
    assert!(!old.join("notes").exists());
    // `--worktree` with its new path puts back what is still missing, and changes nothing else.
    std::fs::remove_file(new.join("notes/new.md")).unwrap();
    assert_recovers(
        &new,
        &["--worktree", text(&new)],
        &[(new.join("notes/new.md"), binary(700))],
    );
    // From the old path, which is another clone now: nothing of these is there to recover.
    let (code, out, _) = recover(&old, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn a_worktree_moved_by_git_is_recovered_where_it_is_now() {
    let repo = TestRepo::new();
    let lane = repo.worktree("lane");
    let agent = Agent::new("laner", &lane);
    agent.write("src/lib.rs", b"pub fn in_lane() {}\n");
    agent.write("lane-notes.md", b"lane notes\n");
    let moved = repo.root.parent().unwrap().join("lane-moved");
    // (git-dibs locked the worktree while the session has work there: forced twice.)
    sh(
        &repo.root,
        &format!("git worktree move -f -f {} {}", text(&lane), text(&moved)),
    );
    sh(&moved, "git checkout -- . && rm lane-notes.md");
    collect_garbage(&repo.root);

    // Listed from the main worktree at its new place.
    let listing = recover_json(&repo.root, &[]);
    let f = listed(&listing, "laner", "lane-notes.md");
    assert_eq!(f["worktree"], text(&moved), "{listing}");
    assert_eq!(f["taken_at"], text(&lane), "{listing}");
    assert_eq!(f["working_copy"], "missing", "{listing}");
    // `--worktree` with the old path (as a listing of before said): brought back at the new.
    let (code, out, err) = recover(&repo.root, &["--worktree", text(&lane)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[
        (moved.join("lane-notes.md"), b"lane notes\n".to_vec()),
        (moved.join("src/lib.rs"), b"pub fn in_lane() {}\n".to_vec()),
    ]);
    assert!(!lane.exists(), "no worktree made again at the old path");
}

#[test]
fn a_worktree_moved_by_mv_then_repaired_and_its_old_path_reused() {
    let repo = TestRepo::new();
    let lane = repo.worktree("lane");
    let agent = Agent::new("laner", &lane);
    agent.write("work.txt", b"the first lane's work\n");
    let moved = repo.root.parent().unwrap().join("renamed");
    std::fs::rename(&lane, &moved).unwrap();
    // Recover from the new place before git is told: found there.
    std::fs::remove_file(moved.join("work.txt")).unwrap();
    collect_garbage(&repo.root);
    let listing = recover_json(&moved, &[]);
    assert_eq!(
        listed(&listing, "laner", "work.txt")["worktree"],
        text(&moved)
    );
    sh(&moved, "git worktree repair");
    // Another worktree at the old path, with a session's work of its own.
    sh(
        &repo.root,
        &format!("git worktree add -q -b second {}", text(&lane)),
    );
    let second = Agent::new("second", &lane);
    second.write("work.txt", b"the second lane's work\n");
    std::fs::remove_file(lane.join("work.txt")).unwrap();
    collect_garbage(&repo.root);

    for from in [&repo.root, &lane, &moved] {
        let listing = recover_json(from, &[]);
        assert_eq!(
            listed(&listing, "laner", "work.txt")["worktree"],
            text(&moved)
        );
        let s = listed(&listing, "second", "work.txt");
        assert_eq!(s["worktree"], text(&lane), "{listing}");
        assert!(s.get("taken_at").is_none(), "{listing}");
    }
    // Each file goes back to its own worktree, by path or by worktree.
    assert_recovers(
        &repo.root,
        &[text(&lane.join("work.txt"))],
        &[(lane.join("work.txt"), b"the second lane's work\n".to_vec())],
    );
    assert!(!moved.join("work.txt").exists());
    assert_recovers(
        &repo.root,
        &["--worktree", text(&moved)],
        &[(moved.join("work.txt"), b"the first lane's work\n".to_vec())],
    );
}

#[test]
fn a_removed_worktree_is_not_taken_for_a_later_one_of_the_same_name() {
    let repo = TestRepo::new();
    let base = repo.root.parent().unwrap().to_path_buf();
    let lane = repo.worktree("lane");
    let agent = Agent::new("first", &lane);
    agent.write("gone.txt", b"kept by the snapshots\n");
    sh(
        &repo.root,
        &format!("git worktree remove -f -f {}", text(&lane)),
    );
    // A new worktree elsewhere whose admin folder git names `lane` again, with work of its own.
    std::fs::create_dir_all(base.join("elsewhere")).unwrap();
    let later = base.join("elsewhere/lane");
    sh(
        &repo.root,
        &format!("git worktree add -q -b later {}", text(&later)),
    );
    assert!(repo.root.join(".git/worktrees/lane").is_dir());
    Agent::new("later", &later).write("new.txt", b"later work\n");
    collect_garbage(&repo.root);

    let listing = recover_json(&later, &[]);
    let f = listed(&listing, "first", "gone.txt");
    assert_eq!(f["worktree"], text(&lane), "{listing}");
    assert_eq!(f["worktree_exists"], false, "{listing}");
    let (code, out, err) = recover(&later, &["."]);
    assert!(!later.join("gone.txt").exists(), "{code} {out}{err}");
    // It comes back as its own worktree, as before.
    let (code, out, err) = recover(&repo.root, &["--worktree", text(&lane)]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[(lane.join("gone.txt"), b"kept by the snapshots\n".to_vec())]);
}

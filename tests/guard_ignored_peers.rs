//! A live peer's own edit-tool files under paths git ignores (`.env`, `notes/plan.md`, a
//! lane's `notes/design.md`) are its work: every command that deletes ignored files over them
//! (`git clean -x`/`-X` in any spelling, `rm -r`, removing the lane that holds them, the host's
//! ExitWorktree) is refused or asked. Build output nobody wrote with an edit tool, a session's
//! own ignored files, and cleans that leave ignored files alone stay silent.

mod common;
mod guard_support;
mod recover_support;

use std::path::Path;

use common::*;
use guard_support::{ME, allowed, stopped};
use recover_support::{Agent, sh};
use serde_json::json;

/// A project ignoring `.env`, `notes/` and `build/`, with a pushed, clean lane
/// `.worktrees/l1`.
fn project() -> (TestRepo, std::path::PathBuf) {
    let repo = TestRepo::new();
    std::fs::write(repo.root.join(".gitignore"), ".env\nnotes/\nbuild/\n").unwrap();
    sh(
        &repo.root,
        "git add .gitignore && git commit -qm ignore && git push -q origin main \
         && echo .worktrees/ >> .git/info/exclude \
         && git worktree add -q .worktrees/l1 -b lane/l1 && git -C .worktrees/l1 push -q -u origin lane/l1",
    );
    let lane = repo.root.join(".worktrees/l1");
    (repo, lane)
}

fn started(id: &str, cwd: &Path) -> Agent {
    assert_eq!(hook(cwd, &session_start(id, cwd, "startup")).code, 0);
    Agent::new(id, cwd)
}

fn exit_remove(cwd: &Path, session: &str) -> HookRun {
    let event = claude_event(
        "PreToolUse",
        session,
        cwd,
        json!({"tool_name": "ExitWorktree", "tool_input": {"action": "remove", "discard_changes": true}}),
    );
    hook(cwd, &event)
}

#[test]
fn a_peers_ignored_edit_tool_files_are_refused_to_every_deleting_spelling() {
    let (repo, lane) = project();
    let s1 = started("ign-s1", &repo.root);
    s1.write(".env", b"SECRET=abc\n");
    s1.write("notes/plan.md", b"s1 plan\n");
    let s3 = started("ign-s3", &lane);
    s3.write("notes/design.md", b"s3 design\n");
    started(ME, &repo.root);
    for cmd in [
        "git clean -fdx",
        "git clean -xdf",
        "git clean -fX",
        "git clean -ffdX",
        "git clean -f -x -d",
        "git clean -fdx -- notes",
        "rm -rf notes",
        "rm -r notes/",
        "rm notes/plan.md",
        "rm -f .env",
        "mv notes /tmp/elsewhere",
        "git -C .worktrees/l1 clean -fdx",
        "cd .worktrees/l1 && git clean -fX",
        "git worktree remove .worktrees/l1",
        "rm -rf .worktrees/l1",
        "rm -rf .worktrees",
    ] {
        let reason = stopped(&repo.root, cmd);
        assert!(
            reason.contains("notes/") || reason.contains(".env") || reason.contains("l1"),
            "`{cmd}`: {reason}"
        );
    }
    let reason = stopped(&repo.root, "git clean -fdx");
    assert!(
        reason.contains("ignored by git, written with its edit tool"),
        "{reason}"
    );
    // The host's own removal of the lane loses s3's notes too: put to the person.
    let run = exit_remove(&lane, "ign-s3");
    let (decision, reason, _) = hook_decision(&run).expect("an answer");
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("notes/design.md"), "{reason}");
}

#[test]
fn build_output_own_files_and_cleans_that_spare_ignored_files_stay_silent() {
    let (repo, lane) = project();
    // s1 writes an ignored file with its edit tool, and build output from its shell.
    let s1 = started("ign-b1", &repo.root);
    s1.bash("mkdir -p build && echo out > build/app.o");
    started(ME, &repo.root);
    // Nobody's edit-tool file is ignored: every ignored clean is silent.
    for cmd in ["git clean -fdX", "git clean -fdx", "rm -rf build"] {
        allowed(&repo.root, cmd);
    }
    s1.write("notes/plan.md", b"s1 plan\n");
    // A clean that leaves ignored files alone is silent beside it.
    allowed(&repo.root, "git clean -fd");
    allowed(&repo.root, "rm -rf build");
    // A solo session's own ignored files: its own business.
    let solo = TestRepo::new();
    std::fs::write(solo.root.join(".gitignore"), "notes/\n").unwrap();
    sh(&solo.root, "git add .gitignore && git commit -qm ignore");
    let me = started(ME, &solo.root);
    me.write("notes/mine.md", b"mine\n");
    allowed(&solo.root, "git clean -fdx");
    allowed(&solo.root, "rm -rf notes");
    // A lane whose only ignored file is build output is removed in silence.
    let s3 = started("ign-b3", &lane);
    s3.bash("mkdir -p build && echo out > build/lib.o");
    let run = exit_remove(&lane, "ign-b3");
    assert!(hook_decision(&run).is_none(), "{run:?}");
}

#[test]
fn an_ended_peers_ignored_files_do_not_count() {
    let (repo, _lane) = project();
    let s1 = started("ign-e1", &repo.root);
    s1.write("notes/plan.md", b"s1 plan\n");
    let end = claude_event(
        "SessionEnd",
        "ign-e1",
        &repo.root,
        json!({"reason": "exit"}),
    );
    hook(&repo.root, &end);
    started(ME, &repo.root);
    allowed(&repo.root, "git clean -fdx");
}

#[test]
fn a_peers_ignored_file_in_a_lane_counts_wherever_the_peer_works() {
    let (repo, lane) = project();
    // s1 works in the main worktree and writes an ignored file inside the lane; s3 works in
    // the lane (so the lane has sessions of its own) and holds nothing ignored there.
    let s1 = started("ign-w1", &repo.root);
    s1.write(".worktrees/l1/notes/from-main.md", b"s1 notes\n");
    started("ign-w3", &lane);
    started(ME, &repo.root);
    let reason = stopped(&repo.root, "git worktree remove .worktrees/l1");
    assert!(reason.contains("notes/from-main.md"), "{reason}");
    let reason = stopped(&repo.root, "rm -rf .worktrees/l1");
    assert!(reason.contains("notes/from-main.md"), "{reason}");
}

#[test]
fn a_tracked_file_in_a_peers_snapshots_is_safe_in_head_even_under_an_ignored_name() {
    let (repo, lane) = project();
    let s1 = started("ign-t1", &repo.root);
    s1.write(".worktrees/l1/notes/keep.md", b"kept\n");
    started(ME, &repo.root);
    // Ignored and only here: refused.
    let reason = stopped(&repo.root, "git worktree remove .worktrees/l1");
    assert!(reason.contains("notes/keep.md"), "{reason}");
    // Committed (forced past the ignore rule) and pushed: HEAD holds it, nothing is lost.
    sh(
        &lane,
        "git add -f notes/keep.md && git commit -qm keep && git push -q",
    );
    allowed(&repo.root, "git worktree remove .worktrees/l1");
    allowed(&repo.root, "rm -rf .worktrees/l1");
    // Changed again by the peer: uncommitted work, refused.
    s1.write(".worktrees/l1/notes/keep.md", b"kept, then changed\n");
    let reason = stopped(&repo.root, "git worktree remove .worktrees/l1");
    assert!(reason.contains("notes/keep.md"), "{reason}");
}

#[test]
fn a_solo_sessions_own_ignored_files_in_a_lane_do_not_stop_its_removal() {
    let (repo, lane) = project();
    let me = started(ME, &repo.root);
    me.write(".worktrees/l1/notes/mine.md", b"mine\n");
    let s3 = Agent::new("ign-o3", &lane);
    assert!(s3.pre_bash("true").code == 0);
    allowed(&repo.root, "git worktree remove .worktrees/l1");
    allowed(&repo.root, "rm -rf .worktrees/l1");
    assert!(lane.join("notes/mine.md").exists());
}

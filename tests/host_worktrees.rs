//! Host-made worktrees (`claude -w NAME`: `.claude/worktrees/NAME` on `worktree-NAME`) and
//! commits at risk, through the real binary: a linked worktree holding commits on no remote is
//! autolocked (after the agent's `git commit`, and from the post-commit hook) and unlocked once
//! pushed; someone else's lock is left alone and `status` says who holds it; `lane list`,
//! `lane prune` and `landed` know host worktrees, and prune never removes one with uncommitted
//! work or commits on no remote.

mod common;
#[path = "lanes_support/mod.rs"]
mod support;

use std::path::Path;

use common::*;
use serde_json::{Value, json};
use support::*;

const S: &str = "5f0c2b7e-3a41-4c8e-9d2a-1b6e4f8a9c30";

/// The PostToolUse of a Bash command the session ran in `cwd`.
fn ran(cwd: &Path, command: &str) {
    let ev = claude_event(
        "PostToolUse",
        S,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command},
               "tool_response": {"stdout": "", "stderr": ""}}),
    );
    hook(cwd, &ev).assert_silent();
}

fn lock_of(repo: &TestRepo, name: &str) -> Option<String> {
    std::fs::read_to_string(repo.root.join(".git/worktrees").join(name).join("locked"))
        .ok()
        .map(|s| s.trim().to_owned())
}

fn forced_remove(repo: &TestRepo, wt: &Path) -> bool {
    git_command(&repo.root)
        .args(["worktree", "remove", "--force", wt.to_str().unwrap()])
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn commits_on_no_remote_keep_the_worktree_locked_until_pushed() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    hook(
        &wt,
        &claude_event("SessionStart", S, &wt, json!({"source": "startup"})),
    );
    // Everyday commands and a clean, pushed worktree: no lock.
    ran(&wt, "git status && cargo test");
    assert_eq!(lock_of(&repo, "fix-login"), None);
    commit(&wt, "login.rs", "fn login() {}\n", "half of the login fix");
    ran(
        &wt,
        "git add login.rs && git commit -m 'half of the login fix'",
    );
    let reason = lock_of(&repo, "fix-login").expect("locked");
    assert_eq!(
        reason,
        "git-dibs: claude 5f0c2b7e holds 1 commit on no remote on worktree-fix-login"
    );
    assert!(!forced_remove(&repo, &wt), "one --force cannot remove it");
    // The session ends: the commit is still on no remote, so the lock stays.
    hook(
        &wt,
        &claude_event("SessionEnd", S, &wt, json!({"reason": "exit"})),
    );
    assert!(lock_of(&repo, "fix-login").is_some());
    // Pushed (from anywhere), the next git command there lifts it.
    git(&wt, &["push", "-q"]);
    ran(&wt, "git push");
    assert_eq!(lock_of(&repo, "fix-login"), None);
    assert!(forced_remove(&repo, &wt));
}

#[test]
fn the_post_commit_hook_locks_without_any_agent() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("by-hand");
    let path = install_git_hooks(&repo.root);
    std::fs::write(wt.join("x.txt"), "x\n").unwrap();
    git(&wt, &["add", "x.txt"]);
    let out = git_command(&wt)
        .args(["commit", "-qm", "by hand"])
        .env("PATH", &path)
        .env_remove("DIBS_SESSION")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        lock_of(&repo, "by-hand").as_deref(),
        Some("git-dibs: holds 1 commit on no remote on worktree-by-hand")
    );
}

#[test]
fn someone_elses_lock_is_left_alone_and_status_names_it() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("theirs");
    git(
        &repo.root,
        &[
            "worktree",
            "lock",
            "--reason",
            "claude agent agent-a1b2 (pid 4242)",
            wt.to_str().unwrap(),
        ],
    );
    commit(&wt, "t.txt", "t\n", "theirs");
    ran(&wt, "git commit -am theirs");
    assert_eq!(
        lock_of(&repo, "theirs").as_deref(),
        Some("claude agent agent-a1b2 (pid 4242)")
    );
    let text = String::from_utf8(dibs(&repo.root, &["status"]).stdout).unwrap();
    assert!(
        text.contains("is locked by someone else, left alone by git-dibs: \"claude agent agent-a1b2 (pid 4242)\""),
        "{text}"
    );
    let v = status_of(&repo.root);
    let locks = v["worktree_locks"].as_array().unwrap();
    assert_eq!(locks.len(), 1, "{v}");
    assert_eq!(locks[0]["by_git_dibs"], false);
    assert_eq!(locks[0]["worktree"], json!(wt));
    // A hostile reason is shown printable.
    git(&repo.root, &["worktree", "unlock", wt.to_str().unwrap()]);
    git(
        &repo.root,
        &[
            "worktree",
            "lock",
            "--reason",
            "evil\u{1b}[2Jreason",
            wt.to_str().unwrap(),
        ],
    );
    let text = String::from_utf8(dibs(&repo.root, &["status"]).stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

fn lane<'a>(lanes: &'a [Value], name: &str) -> &'a Value {
    lanes
        .iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("lane {name} listed: {lanes:?}"))
}

#[test]
fn lane_list_prune_and_landed_know_host_worktrees() {
    let repo = TestRepo::new();
    let clean = repo.host_worktree("clean");
    let dirty = repo.host_worktree("dirty");
    let unpushed = repo.host_worktree("unpushed");
    let local = repo.host_worktree("landed-locally");
    repo.write(&dirty, "wip.txt", "wip\n");
    commit(&unpushed, "u.txt", "u\n", "unpushed work");
    // Landed on the local main, never pushed anywhere.
    commit(&local, "l.txt", "l\n", "local only");
    git(
        &repo.root,
        &["merge", "-q", "--ff-only", "worktree-landed-locally"],
    );
    hook(
        &clean,
        &claude_event("SessionStart", S, &clean, json!({"source": "startup"})),
    );
    let lanes = lanes_json(&repo);
    let c = lane(&lanes, "clean");
    assert_eq!(c["made_by"], "claude");
    assert_eq!(c["branch"], "worktree-clean");
    assert_eq!(c["holder"]["session"], S, "{c}");
    assert_eq!(lane(&lanes, "dirty")["porcelain"], json!(["?? wip.txt"]));
    assert_eq!(lane(&lanes, "unpushed")["pushed"], false);
    let listed = text(&ok(dibs_as(&repo.root, "viewer", &["lane", "list"], &[])));
    assert!(listed.contains("(made by claude)"), "{listed}");
    // Prune keeps every one with work at risk (and the live holder's), says why.
    let out = text(&ok(dibs_as(&repo.root, "viewer", &["lane", "prune"], &[])));
    for kept in [&clean, &dirty, &unpushed, &local] {
        assert!(kept.exists(), "{} kept: {out}", kept.display());
    }
    assert!(out.contains("commits on no remote"), "{out}");
    // Once its session ended, the clean, pushed one goes; the others stay.
    hook(
        &clean,
        &claude_event("SessionEnd", S, &clean, json!({"reason": "exit"})),
    );
    let out = text(&ok(dibs_as(&repo.root, "viewer", &["lane", "prune"], &[])));
    assert!(!clean.exists(), "{out}");
    for kept in [&dirty, &unpushed, &local] {
        assert!(kept.exists(), "{} kept: {out}", kept.display());
    }
    // `landed` answers for a host branch against the remote base.
    let not = dibs_as(
        &repo.root,
        "viewer",
        &["landed", "worktree-unpushed", "--offline"],
        &[],
    );
    assert_eq!(not.status.code(), Some(1), "{}", text(&not));
    git(
        &repo.root,
        &["merge", "-q", "--no-ff", "-m", "merge", "worktree-unpushed"],
    );
    git(&repo.root, &["push", "-q", "origin", "main"]);
    let yes = dibs_as(
        &repo.root,
        "viewer",
        &["landed", "worktree-unpushed", "--offline"],
        &[],
    );
    assert_eq!(yes.status.code(), Some(0), "{}", text(&yes));
}

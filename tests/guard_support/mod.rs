//! Shared fixture of the guard's integration tests: a clone with a bare remote, a dirty worktree,
//! one with only an untracked file, an unpushed one, a clean pushed one, a husk, an unpushed
//! branch, and helpers that run the hook on a Bash command and read its answer.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::*;

pub const ME: &str = "bbbbbbbb-2222";
pub const PEER: &str = "aaaaaaaa-1111";

/// A clone with every kind of worktree and branch the rules care about.
pub struct Fixture {
    pub repo: TestRepo,
    pub base: PathBuf,
    pub dirty: PathBuf,
    pub untracked: PathBuf,
    pub unpushed: PathBuf,
    pub clean: PathBuf,
    pub husk: PathBuf,
}

pub fn commit_in(dir: &Path, file: &str, msg: &str) {
    fs::write(dir.join(file), msg).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-qm", msg]);
}

/// `git worktree add -q -b NAME PATH` from `root`.
pub fn add_worktree(root: &Path, name: &str, path: &Path) {
    git(
        root,
        &["worktree", "add", "-q", "-b", name, path.to_str().unwrap()],
    );
}

pub fn fixture() -> Fixture {
    let repo = TestRepo::new();
    let base = repo.root.parent().unwrap().to_path_buf();
    let dirty = repo.worktree("dirty");
    fs::write(dirty.join("src/lib.rs"), "pub fn changed() {}\n").unwrap();
    let untracked = repo.worktree("untracked");
    fs::write(untracked.join("notes.txt"), "only here\n").unwrap();
    let unpushed = repo.worktree("unpushed");
    commit_in(&unpushed, "feature.txt", "unpushed work");
    let clean = repo.worktree("clean");
    let husk = repo.worktree("husk");
    fs::remove_file(husk.join(".git")).unwrap();
    // An unpushed local branch and a pushed one.
    git(&repo.root, &["branch", "topic"]);
    git(&repo.root, &["branch", "pushed"]);
    git(&repo.root, &["push", "-q", "origin", "pushed"]);
    // `topic` holds a commit ("more") that no other branch and no remote has, as `unpushed`
    // holds "unpushed work": deleting either loses a commit.
    git(&unpushed, &["checkout", "-q", "--detach", "main"]);
    commit_in(&unpushed, "more.txt", "more");
    git(&unpushed, &["branch", "-f", "topic", "HEAD"]);
    git(&unpushed, &["checkout", "-q", "unpushed"]);
    Fixture {
        repo,
        base,
        dirty,
        untracked,
        unpushed,
        clean,
        husk,
    }
}

pub fn bash(cwd: &Path, command: &str) -> HookRun {
    hook(cwd, &bash_event(ME, cwd, command))
}

pub fn bash_env(cwd: &Path, command: &str, env: &[(&str, &str)]) -> HookRun {
    bash_hook_env(cwd, ME, command, env)
}

pub fn decision(run: &HookRun) -> Option<(String, String, Value)> {
    hook_decision(run)
}

/// The reason of a deny (panics when the command was not denied).
#[track_caller]
pub fn denied(cwd: &Path, command: &str) -> String {
    let run = bash(cwd, command);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    match decision(&run) {
        Some((d, reason, v)) if d == "deny" => {
            assert!(
                !reason.contains("WT_GUARD_BYPASS"),
                "reason advertises bypass"
            );
            let person = v["systemMessage"].as_str().unwrap_or("");
            assert!(person.contains("WT_GUARD_BYPASS=1"), "{person}");
            reason
        }
        other => panic!("`{command}` was not denied: {other:?} / {}", run.stderr),
    }
}

/// Refused or asked: anything but a silent pass.
#[track_caller]
pub fn stopped(cwd: &Path, command: &str) -> String {
    let run = bash(cwd, command);
    match decision(&run) {
        Some((d, reason, _)) if d == "deny" || d == "ask" => reason,
        other => panic!("`{command}` went through: {other:?} / {}", run.stderr),
    }
}

#[track_caller]
pub fn asked(cwd: &Path, command: &str) -> String {
    let run = bash(cwd, command);
    match decision(&run) {
        Some((d, reason, _)) if d == "ask" => reason,
        other => panic!(
            "`{command}` was not put to the person: {other:?} / {}",
            run.stderr
        ),
    }
}

#[track_caller]
pub fn allowed(cwd: &Path, command: &str) {
    let run = bash(cwd, command);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "", "`{command}` was not allowed silently");
}

pub fn audit(repo: &TestRepo) -> Vec<Value> {
    fs::read_to_string(repo.store_dir().join("audit.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A second clone pushes `remote-only` with a commit no ref of ours has; we fetch it.
pub fn remote_only_branch(f: &Fixture) {
    let other = f.base.join("other");
    git(
        &f.base,
        &["clone", "-q", f.repo.remote.to_str().unwrap(), "other"],
    );
    git(&other, &["checkout", "-q", "-b", "remote-only"]);
    commit_in(&other, "theirs.txt", "only on the remote");
    git(&other, &["push", "-q", "origin", "remote-only"]);
    git(&f.repo.root, &["fetch", "-q", "origin"]);
}

pub fn stub_gh(dir: &Path, script: &str) -> String {
    let bin = dir.join("stub-bin");
    fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    fs::write(&gh, format!("#!/bin/sh\n{script}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&gh, fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The peer edits `src/lib.rs` and creates `notes.txt` in the main worktree; this session
/// edits `mine.rs`.
pub fn two_sessions(f: &Fixture) {
    let r = &f.repo.root;
    for (session, file) in [(PEER, "src/lib.rs"), (PEER, "notes.txt"), (ME, "mine.rs")] {
        let path = r.join(file);
        hook(r, &edit_event("PreToolUse", "Write", session, r, &path));
        fs::write(&path, format!("// {session}\n")).unwrap();
        hook(r, &edit_event("PostToolUse", "Write", session, r, &path));
    }
}

/// The co-edit warning (never a refusal) naming the peer, for `command`.
#[track_caller]
pub fn warned(cwd: &Path, command: &str) -> String {
    let run = bash(cwd, command);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    assert!(!run.stdout.is_empty(), "`{command}` was silent");
    let v = run.json();
    let msg = v["systemMessage"].as_str().unwrap_or("").to_owned();
    assert!(msg.contains(&PEER[..8]), "{command}: {v}");
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "{command}: {v}"
    );
    msg
}

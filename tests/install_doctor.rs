//! `git dibs doctor` against real repositories and real settings files: its verdicts before and
//! after install, worktrees whose sessions would run unguarded, broken and partial settings, and
//! git-dibs missing from PATH or an old one on it.

mod common;
#[path = "install_support/mod.rs"]
mod support;

use std::fs;

use common::*;
use serde_json::json;
use support::*;

#[test]
fn doctor_before_and_after_install() {
    let s = Setup::new();
    let out = s.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("hooks are not wired: run `git dibs install`"),
        "{text}"
    );
    assert!(text.contains("is on PATH"), "{text}");
    assert!(
        text.contains("`git dibs` works as a git subcommand"),
        "{text}"
    );

    ok(&s.run(&["install"]));
    // Uncommitted, the project file does not reach the worktrees `claude -w` makes.
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("new `claude -w` worktrees would run without git-dibs"),
        "{text}"
    );
    git(&s.repo.root, &["add", ".claude/settings.json"]);
    git(&s.repo.root, &["commit", "-qm", "wire git-dibs"]);
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("hooks are wired in the project settings"),
        "{text}"
    );
    assert!(text.contains("readable and writable"), "{text}");
    assert!(text.contains("0 live sessions"), "{text}");
    assert!(text.contains("all is well"), "{text}");
    assert!(!text.contains("problem"), "{text}");

    // A session makes the count go up.
    let cwd = s.repo.root.clone();
    hook(
        &cwd,
        &claude_event(
            "SessionStart",
            "sess-doctor-1",
            &cwd,
            json!({"source": "startup"}),
        ),
    )
    .assert_silent();
    let text = stdout(&s.run(&["doctor"]));
    assert!(text.contains("1 live session "), "{text}");
}

#[test]
fn doctor_names_worktrees_whose_sessions_would_run_unguarded() {
    let s = Setup::new();
    // A worktree made from a commit without the wiring, then the wiring committed.
    let old = s.repo.worktree("old-wt");
    ok(&s.run(&["install"]));
    git(&s.repo.root, &["add", ".claude/settings.json"]);
    git(&s.repo.root, &["commit", "-qm", "wire git-dibs"]);
    let fresh = s.repo.root.join(".claude/worktrees/fresh");
    git(
        &s.repo.root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "worktree-fresh",
            fresh.to_str().unwrap(),
        ],
    );
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("would run without git-dibs"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&old.display().to_string()), "{line}");
    assert!(
        !line.contains("fresh"),
        "made from the wired commit: {line}"
    );
    assert!(!text.contains("new `claude -w` worktrees would"), "{text}");
    // Wired for the user, every worktree is covered.
    ok(&s.run(&["install", "--user"]));
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("git-dibs is wired for this user"), "{text}");
}

#[test]
fn doctor_names_broken_and_partial_settings() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    let mut v = read_json(&s.project());
    v["hooks"].as_object_mut().unwrap().remove("SessionEnd");
    write(&s.project(), &serde_json::to_string_pretty(&v).unwrap());
    write(&s.user(), "{ not json");
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("lack the git-dibs hooks for SessionEnd: run `git dibs install`"),
        "{text}"
    );
    assert!(text.contains(&s.user().display().to_string()), "{text}");
    assert!(text.contains("not valid JSON"), "{text}");

    // Wired twice under different commands is reported too.
    fs::remove_file(s.user()).unwrap();
    ok(&s.run(&["install"]));
    let empty = tempfile::tempdir().unwrap();
    ok(&s.run_with(
        &s.repo.root,
        &["install", "--user"],
        empty.path().into(),
        &[],
    ));
    let text = stdout(&s.run(&["doctor"]));
    assert!(text.contains("different commands"), "{text}");
}

#[test]
fn doctor_without_git_dibs_or_with_an_old_one_on_path() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    let empty = tempfile::tempdir().unwrap();
    let out = s.run_with(&s.repo.root, &["doctor"], empty.path().into(), &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("git-dibs is not on PATH"), "{text}");

    let fake = tempfile::tempdir().unwrap();
    let script = fake.path().join("git-dibs");
    fs::write(&script, "#!/bin/sh\necho 'git-dibs 0.0.1'\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(fake.path().to_path_buf()).chain(std::env::split_paths(&rest)),
    )
    .unwrap();
    let out = s.run_with(&s.repo.root, &["doctor"], path, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("0.0.1"), "{text}");
}

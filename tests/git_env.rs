//! A host started with git's environment set (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_COMMON_DIR`):
//! a dotfiles setup (the bare clone `~/.dotfiles`, the work tree `~`), or `GIT_DIR` naming a
//! clone from a folder outside it. Its hooks and its commands inherit that environment, so
//! git-dibs finds the repository git works on: edits are kept in its snapshots, the guard judges
//! commands against it, and asks where git would work on one repository's index in another
//! clone's worktree. Git's own hooks (run with `GIT_DIR` set) change nothing.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use recover_support::*;

/// A home folder `home` whose dotfiles live in the bare clone `home/.dotfiles`, with `.bashrc`
/// committed; and the environment naming it.
struct Dotfiles {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    env: Vec<(String, String)>,
}

impl Dotfiles {
    fn new() -> Dotfiles {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap().join("home");
        std::fs::create_dir(&home).unwrap();
        git(&home, &["init", "-q", "--bare", "-b", "main", ".dotfiles"]);
        let env = vec![
            (
                "GIT_DIR".to_owned(),
                home.join(".dotfiles").display().to_string(),
            ),
            ("GIT_WORK_TREE".to_owned(), home.display().to_string()),
        ];
        let d = Dotfiles {
            _tmp: tmp,
            home,
            env,
        };
        std::fs::write(d.home.join(".bashrc"), "alias ll='ls -l'\n").unwrap();
        d.git(&["add", ".bashrc"]);
        d.git(&["commit", "-qm", "dotfiles"]);
        d
    }

    fn env(&self) -> Vec<(&str, &str)> {
        self.env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// git run with the dotfiles environment in the home folder.
    fn git(&self, args: &[&str]) -> String {
        let mut cmd = Command::new("git");
        with_git_env(cmd.current_dir(&self.home).args(args));
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", out_text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// The PostToolUse of a Write of `file` by `session` in `cwd`, the hook run with `env`.
fn wrote(session: &str, cwd: &Path, file: &Path, bytes: &[u8], env: &[(&str, &str)]) {
    std::fs::write(file, bytes).unwrap();
    let ev = edit_event("PostToolUse", "Write", session, cwd, file);
    hook_raw(cwd, format!("{ev}\n").as_bytes(), env).assert_silent();
}

/// The guard's decision on `command` by `session` in `cwd` with `env` (`None`: silent).
fn decision(session: &str, cwd: &Path, command: &str, env: &[(&str, &str)]) -> Option<String> {
    let run = bash_hook_env(cwd, session, command, env);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    hook_decision(&run).map(|(d, _, _)| d)
}

#[test]
fn a_dotfiles_edit_is_kept_guarded_and_recovered_from_the_named_clone() {
    let d = Dotfiles::new();
    let env = d.env();
    let rc = d.home.join(".bashrc");
    let mine = b"alias ll='ls -l'\nexport EDITOR=vi\n".to_vec();
    wrote("s1", &d.home, &rc, &mine, &env);
    assert!(
        d.git(&["for-each-ref", "refs/dibs/snapshots/"])
            .contains("s1"),
        "the edit is in the dotfiles clone's snapshots"
    );
    // A peer's destroyers are refused; what reads, or works elsewhere, is not.
    for command in [
        "git checkout -- .",
        "git reset --hard",
        "rm -rf .bashrc",
        // Unsetting the environment in the line does not hide the home's files either: git
        // then finds no repository, and `rm` needs none.
        "unset GIT_DIR GIT_WORK_TREE; rm -f .bashrc",
    ] {
        assert_eq!(
            decision("s2", &d.home, command, &env).as_deref(),
            Some("deny"),
            "{command}"
        );
    }
    for command in [
        "git status",
        "git diff",
        "ls -la",
        "git log -1",
        "git -C /tmp status",
    ] {
        assert_eq!(decision("s2", &d.home, command, &env), None, "{command}");
    }
    // The dotfiles clone's own files are nobody's work: never listed.
    let listing = {
        let out = dibs_env(&d.home, None, &["recover", "--json"], &env);
        assert!(out.status.success(), "{}", out_text(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(listed_paths(&listing), vec![".bashrc"], "{listing}");
    // Destroyed by git itself, the reflogs dropped and garbage collected: recovered.
    d.git(&["checkout", "--", "."]);
    d.git(&["reflog", "expire", "--expire=now", "--all"]);
    d.git(&["gc", "-q", "--prune=now"]);
    let out = dibs_env(&d.home, None, &["recover", ".bashrc"], &env);
    assert!(out.status.success(), "{}", out_text(&out));
    assert_files(&[(rc, mine)]);
}

#[test]
fn a_command_line_naming_the_dotfiles_clone_is_judged_against_it() {
    let d = Dotfiles::new();
    let env = d.env();
    let rc = d.home.join(".bashrc");
    wrote("s1", &d.home, &rc, b"mine\n", &env);
    // The peer's host has no such environment: its command line names the clone, whose status
    // the guard reads only in a host that names it too: it asks (or refuses), never lets through.
    let named = format!(
        "GIT_DIR={} GIT_WORK_TREE={} git checkout -- .",
        d.home.join(".dotfiles").display(),
        d.home.display()
    );
    let exported = "export GIT_DIR=.dotfiles GIT_WORK_TREE=.; git reset --hard".to_owned();
    for command in [
        named.as_str(),
        exported.as_str(),
        "git --git-dir=.dotfiles --work-tree=. checkout .",
    ] {
        let said = decision("s2", &d.home, command, &[]);
        assert!(
            matches!(said.as_deref(), Some("deny" | "ask")),
            "{command}: {said:?}"
        );
        assert_eq!(
            decision("s2", &d.home, command, &env).as_deref(),
            Some("deny"),
            "{command}"
        );
    }
}

#[test]
fn git_run_on_one_clone_in_another_clones_worktree_is_asked_about() {
    let a = TestRepo::new();
    let b = TestRepo::new();
    let b_git = b.root.join(".git").display().to_string();
    // A peer's untracked work in A, a session's work in B.
    wrote("peer", &a.root, &a.root.join("notes.txt"), b"peer's\n", &[]);
    wrote("s1", &b.root, &b.root.join("draft.txt"), b"s1's\n", &[]);
    // The host of s2 runs in A with `GIT_DIR` naming B: git's work tree is then A's folder,
    // with B's index: `clean` would take A's untracked files.
    let env = [("GIT_DIR", b_git.as_str())];
    for command in ["git clean -fdx", "git checkout -- .", "git stash -u"] {
        assert_eq!(
            decision("s2", &a.root, command, &env).as_deref(),
            Some("ask"),
            "{command}"
        );
    }
    // The same in the command line, and another clone's refs and objects.
    let line = format!("GIT_DIR={b_git} git clean -fdx");
    assert_eq!(decision("s2", &a.root, &line, &[]).as_deref(), Some("ask"));
    let common = format!("GIT_COMMON_DIR={b_git} git branch -D main");
    assert_eq!(
        decision("s2", &a.root, &common, &[]).as_deref(),
        Some("ask")
    );
    // `env -u` and `unset` take the inherited name away: A's own repository is judged.
    for command in [
        "env -u GIT_DIR git clean -fdx",
        "unset GIT_DIR; git clean -fdx",
    ] {
        assert_eq!(
            decision("s2", &a.root, command, &env).as_deref(),
            Some("deny"),
            "{command}"
        );
    }
    // A host whose cwd is inside B's git dir, with `GIT_WORK_TREE` naming B: B is judged.
    let b_root = b.root.display().to_string();
    let inside = [("GIT_WORK_TREE", b_root.as_str())];
    wrote(
        "s1",
        &b.root,
        &b.root.join("README.md"),
        b"s1's change\n",
        &[],
    );
    for command in ["git reset --hard", "git stash"] {
        let said = decision("s2", &b.root.join(".git"), command, &inside);
        assert_eq!(said.as_deref(), Some("deny"), "{command}");
    }
    // git itself cleans nothing from there (its cwd is in no work tree folder).
    assert_eq!(
        decision("s2", &b.root.join(".git"), "git clean -fdx", &inside),
        None
    );
    // What reads stays silent; the edit in A is still A's.
    assert_eq!(decision("s2", &a.root, "git status", &env), None);
    assert!(snapshot_refs(&a.root).contains("peer"));
}

#[test]
fn git_hooks_and_everyday_hooks_with_gits_own_environment_stay_as_they_were() {
    let repo = TestRepo::new();
    // What git sets for a hook at the top of the worktree: `GIT_DIR=.git`.
    let env = [("GIT_DIR", ".git")];
    wrote("s1", &repo.root, &repo.root.join("a.txt"), b"one\n", &env);
    assert!(snapshot_refs(&repo.root).contains("s1"));
    for command in ["git status", "cargo build", "git diff a.txt", "ls"] {
        assert_eq!(decision("s2", &repo.root, command, &env), None, "{command}");
    }
    assert_eq!(
        decision("s2", &repo.root, "git clean -fdx", &env).as_deref(),
        Some("deny")
    );
    // A linked worktree's git hook: the absolute git dir of that worktree.
    let lane = repo.worktree("lane");
    let admin = repo.root.join(".git/worktrees/lane").display().to_string();
    let env = [("GIT_DIR", admin.as_str())];
    wrote("s3", &lane, &lane.join("b.txt"), b"two\n", &env);
    assert_eq!(
        decision("s2", &lane, "git checkout -- . && git clean -fd", &env).as_deref(),
        Some("deny")
    );
}

#[test]
fn a_home_whose_untracked_files_git_hides_is_not_walked_and_its_edits_are_kept() {
    let d = Dotfiles::new();
    let env = d.env();
    // What dotfiles guides set: `git status` over the home lists no untracked file.
    d.git(&["config", "status.showUntrackedFiles", "no"]);
    std::fs::create_dir_all(d.home.join(".cache/x")).unwrap();
    std::fs::write(d.home.join(".cache/x/blob"), "cache\n").unwrap();
    let vimrc = d.home.join(".vimrc");
    wrote("s1", &d.home, &vimrc, b"set nu\n", &env);
    let run = {
        let ev = claude_event(
            "PostToolUse",
            "s1",
            &d.home,
            serde_json::json!({
                "tool_name": "Bash",
                "tool_input": {"command": "cargo build"},
                "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
            }),
        );
        hook_raw(&d.home, format!("{ev}\n").as_bytes(), &env)
    };
    run.assert_silent();
    let out = dibs_env(&d.home, None, &["recover", "--json"], &env);
    assert!(out.status.success(), "{}", out_text(&out));
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed_paths(&listing), vec![".vimrc"], "{listing}");
    std::fs::remove_file(&vimrc).unwrap();
    let out = dibs_env(&d.home, None, &["recover", ".vimrc"], &env);
    assert!(out.status.success(), "{}", out_text(&out));
    assert_files(&[(vimrc, b"set nu\n".to_vec())]);
}

//! Erasing a clone's git directory is refused whatever the folder is named: the common dir of
//! a bare-clone-plus-worktrees layout (`proj/.bare`), a `--separate-git-dir` store, a
//! submodule's repository under `.git/modules/`, and the parts of any of them that hold refs
//! (`packed-refs`, `reftable/`, `logs/`), objects or git-dibs's hooks; so are the host settings
//! folders that hold the wiring. A bare repository that is not this clone's, lock files and
//! everyday commands stay silent. (Red-team findings 00, 00b, 01b, 16.)

mod common;

use std::fs;
use std::path::Path;

use common::*;

const ME: &str = "aaaaaaaa-1111-4111-8111-111111111111";

fn decision(cwd: &Path, command: &str) -> String {
    let run = bash_hook_env(cwd, ME, command, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    match hook_decision(&run) {
        None => "silent".to_owned(),
        Some((d, reason, _)) => {
            if d == "deny" {
                assert!(reason.contains("[guard:"), "{command}: {reason}");
            }
            d
        }
    }
}

fn assert_all(cwd: &Path, want: &str, cmds: &[&str]) {
    let wrong: Vec<String> = cmds
        .iter()
        .map(|c| (c, decision(cwd, c)))
        .filter(|(_, d)| d != want)
        .map(|(c, d)| format!("{c} -> {d}"))
        .collect();
    assert!(wrong.is_empty(), "want {want}:\n{}", wrong.join("\n"));
}

#[test]
fn the_common_dir_of_a_bare_clone_with_worktrees_is_protected_under_any_name() {
    let repo = TestRepo::new();
    let proj = repo.tmp.path().canonicalize().unwrap().join("proj");
    let url = repo.remote.to_str().unwrap().to_owned();
    git(
        repo.tmp.path(),
        &["clone", "-q", "--bare", &url, "proj/.store"],
    );
    fs::write(proj.join(".git"), "gitdir: ./.store\n").unwrap();
    git(&proj, &["worktree", "add", "-q", "main", "main"]);
    git(&proj, &["worktree", "add", "-q", "feat", "-b", "feat"]);
    let main = proj.join("main");
    hook(&main, &session_start(ME, &main, "startup"));
    assert_all(
        &main,
        "deny",
        &[
            "rm -rf ../.store",
            "rm -rf ../.store/",
            "rm -rf ../.store/objects",
            "rm -rf ../.store/refs",
            "rm -f ../.store/packed-refs",
            "rm -rf ../.store/worktrees",
            "rm -rf ../.store/worktrees/feat",
            "mv ../.store /tmp/elsewhere",
            "cd .. && rm -rf .store",
            "rm -rf \"$PWD/../.store\"",
            ": > ../.store/HEAD",
            "echo x > ../.store/config",
        ],
    );
    assert_all(
        &main,
        "silent",
        &[
            "ls ../.store",
            "cat ../.store/config",
            "rm -f ../.store/worktrees/main/index.lock",
            "rm -f ../.store/index.lock",
            &format!("rm -rf {url}"),
            "git status",
        ],
    );
}

#[test]
fn a_separate_git_dir_and_its_refs_files_are_protected() {
    let repo = TestRepo::new();
    let base = repo.tmp.path().canonicalize().unwrap();
    fs::create_dir_all(base.join("store.d")).unwrap();
    git(
        &base,
        &[
            "init",
            "-q",
            "-b",
            "main",
            "--separate-git-dir=store.d/x",
            "sep",
        ],
    );
    let sep = base.join("sep");
    fs::write(sep.join("a.txt"), "a\n").unwrap();
    git(&sep, &["add", "."]);
    git(&sep, &["commit", "-qm", "a"]);
    git(&sep, &["pack-refs", "--all"]);
    assert_all(
        &sep,
        "deny",
        &[
            "rm -rf ../store.d/x",
            "rm -rf ../store.d",
            "rm ../store.d/x/packed-refs",
            "truncate -s0 ../store.d/x/packed-refs",
            "rm -rf ../store.d/x/logs",
        ],
    );
    // The plain layout: the packed refs and the ref logs, by name and by state.
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    git(&repo.root, &["pack-refs", "--all"]);
    assert_all(
        &repo.root,
        "deny",
        &[
            "rm .git/packed-refs",
            "rm -f .git/packed-refs",
            ": > .git/packed-refs",
            "echo > .git/packed-refs",
            "cp /dev/null .git/packed-refs",
            "rm -rf .git/logs",
            "rm -rf .git/objects",
            "rm -rf .git/reftable",
            // Archivers and compressors that take in what they are given and delete it.
            "zip -rm /tmp/x.zip .git",
            "zip -r -m -q /tmp/x.zip .git/objects",
            "7z a -sdel /tmp/x.7z .git",
            "gzip -r .git",
            "xz -r .git/objects",
            // A cargo target folder and sed's `w` files are written or removed too.
            "cargo clean --target-dir .git/dibs",
            "CARGO_TARGET_DIR=.git/objects cargo clean",
            "sed -n 'w .git/dibs/audit.log' README.md",
            "sed -n '1w .git/packed-refs' README.md",
        ],
    );
    // Archived or compressed without deleting: nothing is lost.
    assert_all(
        &repo.root,
        "silent",
        &["zip -rq /tmp/x.zip .git", "gzip -k -r -c .git/packed-refs"],
    );
    assert_all(
        &repo.root,
        "silent",
        &[
            "cat .git/packed-refs",
            "rm -f .git/index.lock",
            "rm -f .git/gc.log",
        ],
    );
}

#[test]
fn a_submodules_repository_under_git_modules_is_protected() {
    let repo = TestRepo::new();
    let url = repo.remote.to_str().unwrap().to_owned();
    add_submodule(&repo.root, &url, "lib");
    assert!(repo.root.join(".git/modules/lib/HEAD").is_file());
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    assert_all(
        &repo.root,
        "deny",
        &[
            "rm -rf .git/modules/lib",
            "rm -rf .git/modules/lib/objects",
            "rm -rf .git/modules",
            "mv .git/modules/lib /tmp/x",
        ],
    );
    let lib = repo.root.join("lib");
    assert_all(&lib, "deny", &["rm -rf ../.git/modules/lib"]);
    assert_all(
        &repo.root,
        "silent",
        &["ls .git/modules/lib", "git submodule status"],
    );
}

#[test]
fn deinit_forced_over_a_submodule_with_uncommitted_work_is_refused() {
    let repo = TestRepo::new();
    let url = repo.remote.to_str().unwrap().to_owned();
    git(
        &repo.root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            &url,
            "lib",
        ],
    );
    git(&repo.root, &["commit", "-qm", "add lib"]);
    // Clean, deinit passes whatever its flags; without -f git keeps local changes itself.
    assert_all(
        &repo.root,
        "silent",
        &[
            "git submodule deinit -f lib",
            "git submodule deinit --all -f",
        ],
    );
    std::fs::write(repo.root.join("lib/work.txt"), "uncommitted\n").unwrap();
    assert_all(
        &repo.root,
        "deny",
        &[
            "git submodule deinit -f lib",
            "git submodule deinit --force lib/",
            "git submodule deinit -f --all",
            "git submodule deinit --all --force",
            "git -C lib/.. submodule deinit -f -- lib",
        ],
    );
    assert_all(
        &repo.root,
        "silent",
        &[
            "git submodule deinit lib",
            "git submodule status",
            "git submodule update",
        ],
    );
}

#[test]
fn the_wiring_folders_and_git_dibs_git_hooks_are_protected() {
    let repo = TestRepo::new();
    for what in ["--claude", "--git-hooks"] {
        let out = dibs(&repo.root, &["install", what]);
        assert!(out.status.success(), "{}", out_text(&out));
    }
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    let hooks: Vec<String> = fs::read_dir(repo.root.join(".git/hooks"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sample"))
        .collect();
    assert!(!hooks.is_empty());
    let mut deny: Vec<String> = hooks.iter().map(|h| format!("rm .git/hooks/{h}")).collect();
    deny.extend(
        [
            "rm -rf .claude",
            "rm -rf .claude/",
            "mv .claude .claude.off",
            "rm -rf .git/hooks",
            "echo > .git/hooks/post-commit",
        ]
        .map(String::from),
    );
    let deny: Vec<&str> = deny.iter().map(String::as_str).collect();
    assert_all(&repo.root, "deny", &deny);
    fs::write(repo.root.join(".git/hooks/pre-push"), "#!/bin/sh\nexit 0\n").unwrap();
    fs::create_dir_all(repo.root.join("other/.claude")).unwrap();
    assert_all(
        &repo.root,
        "silent",
        &[
            "rm .git/hooks/pre-push",
            "rm .git/hooks/pre-commit.sample",
            "rm -rf other/.claude",
            "ls .claude",
        ],
    );
}

#[test]
fn a_find_whose_matches_may_be_the_git_dir_is_judged_like_rm_of_it() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    assert_all(
        &repo.root,
        "deny",
        &[
            "find . -name .git -exec rm -rf {} +",
            "find . -name .git -prune -exec rm -rf {} \\;",
            "find . -type d -name .git -exec rm -rf {} +",
            "find . -name '.g*' -exec /bin/rm -rf {} +",
            "find . -delete",
            "cd src && find .. -name .git -exec rm -rf {} +",
            "find . -name packed-refs -delete",
        ],
    );
    assert_eq!(
        decision(&repo.root, "find . -path './.git*' -delete"),
        "ask"
    );
    assert_all(
        &repo.root,
        "silent",
        &[
            "find . -name '*.tmp' -delete",
            "find . -name __pycache__ -exec rm -rf {} +",
            "find src -name .git -exec rm -rf {} +",
            "find . -name .git",
        ],
    );
}

#[test]
fn a_fetch_whose_refspec_writes_over_refs_dibs_is_refused() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    assert_all(
        &repo.root,
        "deny",
        &[
            "git fetch --prune --update-head-ok origin '+refs/*:refs/*'",
            "git fetch -p origin 'refs/*:refs/*'",
            "git fetch origin '+*:*'",
            "git fetch . +main:refs/dibs/snapshots/s1",
            "git fetch origin '+refs/heads/*:refs/dibs/*'",
            "git pull origin +main:refs/dibs/retention/x",
        ],
    );
    assert_all(
        &repo.root,
        "silent",
        &[
            "git fetch",
            "git fetch --prune origin",
            "git fetch origin '+refs/heads/*:refs/remotes/origin/*'",
            "git fetch origin main:refs/remotes/origin/main",
            "git pull --rebase",
        ],
    );
}

#[test]
fn git_config_of_dibs_settings_or_the_hooks_path_is_refused_and_reading_them_passes() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    assert_all(
        &repo.root,
        "deny",
        &[
            "git config dibs.snapshotExpiry 1s",
            "git config dibs.ttl 1m",
            "git config --local dibs.ttl 1m",
            "git config set dibs.ttl 1m",
            "git config --unset dibs.ttl",
            "git config --remove-section dibs",
            "git config DIBS.TTL 1m",
            "git config core.hooksPath /dev/null",
            "git -C . config --add dibs.sync false",
        ],
    );
    assert_all(
        &repo.root,
        "silent",
        &[
            "git config dibs.ttl",
            "git config --get dibs.ttl",
            "git config get dibs.ttl",
            "git config -l",
            "git config --get-regexp dibs",
            "git config user.name Someone",
            "git config core.autocrlf false",
        ],
    );
    assert!(!git_out(&repo.root, &["config", "-l"]).contains("dibs.ttl"));
}

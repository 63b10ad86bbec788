//! The git hooks through the real binary and the real `git`: installed over existing hooks
//! (chained, still able to veto, idempotent, restored byte for byte), `core.hooksPath`
//! respected, a person's commit of a live peer's file refused and their own passing, an agent
//! named by `DIBS_SESSION` committing its own file, `git branch -D` of an unpushed branch refused
//! from a plain shell, the bypass audited, and an unreadable store failing open.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use serde_json::Value;

const PEER: &str = "aaaaaaaa-peer-1111";
const AGENT: &str = "cccccccc-agent-3333";

/// `git` in `dir` as a plain shell would run it: the built binary first on PATH, no session in
/// the environment, plus `env`.
fn sh_git(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin_dir];
    paths.extend(std::env::split_paths(&path));
    let mut cmd = git_command(dir);
    cmd.args(args)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env("USER", "tester")
        .env_remove("DIBS_SESSION")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("WT_GUARD_BYPASS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git dibs ARGS` through git, as a person types it.
fn git_dibs(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["dibs"];
    all.extend_from_slice(args);
    let out = sh_git(dir, &all, &[]);
    assert!(out.status.success(), "git dibs {args:?}: {}", stderr(&out));
    out
}

/// Session `id` edits `rel` in `root` (the claim as a by-product of work).
fn hold(root: &Path, id: &str, rel: &str) {
    hook(
        root,
        &edit_event("PreToolUse", "Edit", id, root, &root.join(rel)),
    );
}

/// Every entry of a folder with its bytes (or link target) and mode.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let meta = fs::symlink_metadata(e.path()).unwrap();
        let bytes = if meta.file_type().is_symlink() {
            fs::read_link(e.path())
                .unwrap()
                .into_os_string()
                .into_encoded_bytes()
        } else {
            fs::read(e.path()).unwrap()
        };
        out.insert(
            e.file_name().to_string_lossy().into_owned(),
            (bytes, meta.permissions().mode()),
        );
    }
    out
}

fn write_hook(path: &Path, text: &str, mode: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn commit(dir: &Path, file: &str, text: &str, env: &[(&str, &str)]) -> Output {
    fs::write(dir.join(file), text).unwrap();
    git(dir, &["add", file]);
    sh_git(dir, &["commit", "-qm", &format!("change {file}")], env)
}

fn audit(repo: &TestRepo) -> Vec<Value> {
    fs::read_to_string(repo.store_dir().join("audit.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn installs_over_existing_hooks_chained_idempotent_and_restored_exactly() {
    let repo = TestRepo::new();
    let hooks = repo.root.join(".git/hooks");
    // An existing pre-commit that leaves a marker with its args and can veto; a post-commit
    // with an unusual mode; a non-executable reference-transaction (git ignores it).
    let marker = repo.root.join("../pre-commit-ran");
    write_hook(
        &hooks.join("pre-commit"),
        &format!(
            "#!/bin/sh\necho ran \"$@\" >> {}\n[ -e \"$(git rev-parse --show-toplevel)/VETO\" ] \
             && {{ echo vetoed >&2; exit 3; }}\nexit 0\n",
            marker.display()
        ),
        0o750,
    );
    write_hook(&hooks.join("post-commit"), "#!/bin/sh\nexit 0\n", 0o700);
    write_hook(
        &hooks.join("reference-transaction"),
        "#!/bin/sh\nexit 1\n",
        0o644,
    );
    let before = snapshot(&hooks);

    let out = git_dibs(&repo.root, &["install", "--git-hooks", "--dry-run"]);
    assert!(
        stdout(&out).contains("would move the existing"),
        "{}",
        stdout(&out)
    );
    assert_eq!(snapshot(&hooks), before, "a dry run changes nothing");

    git_dibs(&repo.root, &["install", "--git-hooks"]);
    let installed = snapshot(&hooks);
    assert_eq!(installed["pre-commit.dibs-chained"], before["pre-commit"]);
    assert!(
        String::from_utf8_lossy(&installed["pre-commit"].0).contains("git-dibs githook pre-commit")
    );
    let out = git_dibs(&repo.root, &["install", "--git-hooks"]);
    assert!(
        stdout(&out).contains("already installed"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        snapshot(&hooks),
        installed,
        "installing twice changes nothing"
    );
    let out = sh_git(&repo.root, &["dibs", "doctor"], &[]);
    assert!(
        stdout(&out).contains("git hooks are installed in"),
        "{}",
        stdout(&out)
    );

    // The chained pre-commit still runs (and a branch can still be made: the chained,
    // non-executable reference-transaction stays ignored).
    let out = commit(&repo.root, "README.md", "one\n", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read_to_string(&marker).unwrap().contains("ran"));
    sh_git(&repo.root, &["branch", "side"], &[]);
    // ... and can still veto, with its own exit status stopping the commit.
    fs::write(repo.root.join("VETO"), "").unwrap();
    let out = commit(&repo.root, "README.md", "two\n", &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("vetoed"), "{}", stderr(&out));
    fs::remove_file(repo.root.join("VETO")).unwrap();

    git_dibs(&repo.root, &["uninstall", "--git-hooks"]);
    assert_eq!(
        snapshot(&hooks),
        before,
        "uninstall restores what was there"
    );
    let out = git_dibs(&repo.root, &["uninstall", "--git-hooks"]);
    assert!(stdout(&out).contains("nothing changed"), "{}", stdout(&out));
}

#[test]
fn install_refuses_when_a_chained_hook_would_be_overwritten() {
    let repo = TestRepo::new();
    let hooks = repo.root.join(".git/hooks");
    write_hook(&hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n", 0o755);
    write_hook(
        &hooks.join("pre-commit.dibs-chained"),
        "#!/bin/sh\nexit 0\n",
        0o755,
    );
    let before = snapshot(&hooks);
    let out = sh_git(&repo.root, &["dibs", "install", "--git-hooks"], &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("refusing"), "{}", stderr(&out));
    assert_eq!(snapshot(&hooks), before);
}

#[test]
fn core_hooks_path_is_respected_relative_and_absolute() {
    let repo = TestRepo::new();
    git(&repo.root, &["config", "core.hooksPath", ".githooks"]);
    git_dibs(&repo.root.join("src"), &["install", "--git-hooks"]);
    assert!(repo.root.join(".githooks/pre-commit").is_file());
    assert!(!repo.root.join(".git/hooks/pre-commit").exists());
    hold(&repo.root, PEER, "src/lib.rs");
    let out = commit(&repo.root, "src/lib.rs", "pub fn b() {}\n", &[]);
    assert!(!out.status.success(), "refused through .githooks");

    let abs = repo.tmp.path().join("shared-hooks");
    git(
        &repo.root,
        &["config", "core.hooksPath", abs.to_str().unwrap()],
    );
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    assert!(abs.join("reference-transaction").is_file());
}

#[test]
fn a_persons_commit_of_a_live_peers_file_is_refused_and_their_own_passes() {
    let repo = TestRepo::new();
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    hold(&repo.root, PEER, "src/lib.rs");

    let out = commit(&repo.root, "src/lib.rs", "pub fn b() {}\n", &[]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("aaaaaaaa"), "names the session: {err}");
    assert!(err.contains("claude"), "names the host: {err}");
    assert!(err.contains("src/lib.rs"), "names the file: {err}");
    assert!(err.contains("git restore --staged -- src/lib.rs"), "{err}");
    assert!(
        !err.contains("WT_GUARD_BYPASS"),
        "never advertises the bypass: {err}"
    );
    let last = audit(&repo).pop().expect("the block is audited");
    assert_eq!(last["verdict"], "block");
    assert_eq!(last["hook"], "pre-commit");
    assert_eq!(last["files"][0], "src/lib.rs");

    // `commit -a` commits through a temporary index; it is seen too.
    git(&repo.root, &["reset", "-q"]);
    let out = sh_git(&repo.root, &["commit", "-qam", "all"], &[]);
    assert!(!out.status.success(), "commit -a is refused too");

    // Their own file (no one else holds it) passes.
    git(&repo.root, &["reset", "-q"]);
    let out = commit(&repo.root, "README.md", "mine\n", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_dead_or_other_worktree_holder_does_not_stop_a_commit() {
    let repo = TestRepo::new();
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    let wt = repo.worktree("lane");
    hold(&wt, PEER, "src/lib.rs");
    let out = commit(&repo.root, "src/lib.rs", "pub fn b() {}\n", &[]);
    assert!(
        out.status.success(),
        "same path, other worktree: {}",
        stderr(&out)
    );
    // The linked worktree shares the hooks and is guarded.
    let out = commit(&wt, "src/lib.rs", "pub fn c() {}\n", &[]);
    assert!(!out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_committer_named_by_dibs_session_commits_its_own_file_and_releases_it() {
    let repo = TestRepo::new();
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    hold(&repo.root, AGENT, "src/lib.rs");
    hold(&repo.root, AGENT, "README.md");
    fs::write(repo.root.join("README.md"), "still editing\n").unwrap();

    let out = commit(
        &repo.root,
        "src/lib.rs",
        "pub fn b() {}\n",
        &[("DIBS_SESSION", AGENT)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // post-commit released the now-clean file, and kept the dirty one.
    let record: Value = serde_json::from_slice(
        &fs::read(repo.store_dir().join(format!("sessions/{AGENT}.json"))).unwrap(),
    )
    .unwrap();
    let files: Vec<&str> = record["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["README.md"]);
    // So a person may now commit src/lib.rs, but not README.md.
    let out = commit(&repo.root, "src/lib.rs", "pub fn c() {}\n", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = commit(&repo.root, "README.md", "mine\n", &[]);
    assert!(!out.status.success());
    // CLAUDE_CODE_SESSION_ID names the committer too.
    let out = sh_git(
        &repo.root,
        &["commit", "-qm", "readme"],
        &[("CLAUDE_CODE_SESSION_ID", AGENT)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A clone with hooks installed and a branch `feat` holding one unpushed commit.
fn with_unpushed_branch() -> TestRepo {
    let repo = TestRepo::new();
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    git(&repo.root, &["checkout", "-q", "-b", "feat"]);
    fs::write(repo.root.join("feat.txt"), "x\n").unwrap();
    git(&repo.root, &["add", "feat.txt"]);
    git(&repo.root, &["commit", "-qm", "only here"]);
    git(&repo.root, &["checkout", "-q", "main"]);
    repo
}

fn branches(repo: &TestRepo) -> String {
    git_out(&repo.root, &["branch", "--list"])
}

#[test]
fn deleting_an_unpushed_branch_is_refused_from_a_plain_shell_and_a_pushed_one_passes() {
    let repo = with_unpushed_branch();
    let out = sh_git(&repo.root, &["branch", "-D", "feat"], &[]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(
        branches(&repo).contains("feat"),
        "the branch is still there"
    );
    assert!(err.contains("feat") && err.contains("only here"), "{err}");
    assert!(err.contains("Push it first"), "{err}");
    // Any command: update-ref too.
    let out = sh_git(&repo.root, &["update-ref", "-d", "refs/heads/feat"], &[]);
    assert!(!out.status.success());
    assert!(branches(&repo).contains("feat"));
    // Packing refs (gc) deletes loose ref files only; a rename keeps the commits.
    for args in [
        &["pack-refs", "--all"][..],
        &["gc", "-q"],
        &["branch", "-m", "feat", "feat2"],
    ] {
        let out = sh_git(&repo.root, args, &[]);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert!(branches(&repo).contains("feat2"));
    let last = audit(&repo).pop().expect("the block is audited");
    assert_eq!(last["verdict"], "block");
    assert_eq!(last["commits"][0]["summary"], "only here");
    assert!(
        last["command"].as_str().unwrap().contains("update-ref"),
        "{last}"
    );

    // Pushed: deleting passes.
    git(&repo.root, &["push", "-q", "origin", "feat2"]);
    let out = sh_git(&repo.root, &["branch", "-D", "feat2"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!branches(&repo).contains("feat2"));
    // Merged into a branch that stays: nothing is lost either.
    git(&repo.root, &["checkout", "-q", "-b", "topic"]);
    fs::write(repo.root.join("t.txt"), "t\n").unwrap();
    git(&repo.root, &["add", "t.txt"]);
    git(&repo.root, &["commit", "-qm", "topic"]);
    git(&repo.root, &["checkout", "-q", "main"]);
    git(&repo.root, &["merge", "-q", "--ff-only", "topic"]);
    let out = sh_git(&repo.root, &["branch", "-d", "topic"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_bypass_lets_a_deletion_and_a_commit_through_and_is_audited() {
    let repo = with_unpushed_branch();
    let out = sh_git(
        &repo.root,
        &["branch", "-D", "feat"],
        &[("WT_GUARD_BYPASS", "1")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!branches(&repo).contains("feat"));
    let last = audit(&repo).pop().unwrap();
    assert_eq!(last["verdict"], "bypass");
    assert_eq!(last["hook"], "reference-transaction");
    assert_eq!(last["command"], "git branch -D feat");
    assert_eq!(last["commits"][0]["summary"], "only here");
    assert!(last["at"].as_str().unwrap().ends_with('Z'));

    hold(&repo.root, PEER, "src/lib.rs");
    let out = commit(
        &repo.root,
        "src/lib.rs",
        "pub fn z() {}\n",
        &[("WT_GUARD_BYPASS", "1")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let last = audit(&repo).pop().unwrap();
    assert_eq!(last["verdict"], "bypass");
    assert_eq!(last["hook"], "pre-commit");
    let text = stdout(&dibs(&repo.root, &["audit"]));
    assert!(text.contains("bypass"), "{text}");
}

#[test]
fn a_peers_record_turned_into_a_folder_is_set_aside_and_still_protects_its_file() {
    let repo = TestRepo::new();
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    hold(&repo.root, PEER, "src/lib.rs");
    // The peer's record turns into something no read succeeds on: it is set aside, and the
    // index still names the peer for its file, so the commit is refused rather than let through.
    let record: PathBuf = repo.store_dir().join(format!("sessions/{PEER}.json"));
    fs::remove_file(&record).unwrap();
    fs::create_dir(&record).unwrap();
    let out = commit(&repo.root, "src/lib.rs", "pub fn b() {}\n", &[]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("damaged and set aside"), "{err}");
    assert!(!record.exists(), "set aside");
}

#[test]
fn without_git_dibs_on_path_the_shims_skip_and_chain() {
    let repo = TestRepo::new();
    let hooks = repo.root.join(".git/hooks");
    let marker = repo.root.join("../ran");
    write_hook(
        &hooks.join("pre-commit"),
        &format!("#!/bin/sh\ntouch {}\n", marker.display()),
        0o755,
    );
    git_dibs(&repo.root, &["install", "--git-hooks"]);
    fs::write(repo.root.join("README.md"), "x\n").unwrap();
    git(&repo.root, &["add", "README.md"]);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let without = std::env::split_paths(&path).filter(|d| !d.join("git-dibs").exists());
    let out = git_command(&repo.root)
        .args(["commit", "-qm", "x"])
        .env("PATH", std::env::join_paths(without).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("not on PATH"), "{}", stderr(&out));
    assert!(marker.exists());
}

//! The Bash guard through the real binary, over real repositories: a bare remote, a dirty
//! worktree, one with only an untracked file, an unpushed one, a clean pushed one, a husk, an
//! unpushed branch, a remote-only branch, a stub `gh`, and two live sessions.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

const ME: &str = "bbbbbbbb-2222";
const PEER: &str = "aaaaaaaa-1111";

/// A clone with every kind of worktree and branch the rules care about.
struct Fixture {
    repo: TestRepo,
    base: PathBuf,
    dirty: PathBuf,
    untracked: PathBuf,
    unpushed: PathBuf,
    clean: PathBuf,
    husk: PathBuf,
}

fn commit_in(dir: &Path, file: &str, msg: &str) {
    fs::write(dir.join(file), msg).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-qm", msg]);
}

fn fixture() -> Fixture {
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
    commit_in(&unpushed, "more.txt", "more");
    git(&repo.root, &["branch", "-f", "topic", "unpushed"]);
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

fn bash(cwd: &Path, command: &str) -> HookRun {
    hook(cwd, &bash_event(ME, cwd, command))
}

fn bash_env(cwd: &Path, command: &str, env: &[(&str, &str)]) -> HookRun {
    let ev = bash_event(ME, cwd, command);
    hook_raw(cwd, format!("{ev}\n").as_bytes(), env)
}

fn decision(run: &HookRun) -> Option<(String, String, Value)> {
    if run.stdout.trim().is_empty() {
        return None;
    }
    let v = run.json();
    let out = &v["hookSpecificOutput"];
    Some((
        out["permissionDecision"].as_str().unwrap_or("").to_owned(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        v.clone(),
    ))
}

/// The reason of a deny (panics when the command was not denied).
#[track_caller]
fn denied(cwd: &Path, command: &str) -> String {
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

#[track_caller]
fn asked(cwd: &Path, command: &str) -> String {
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
fn allowed(cwd: &Path, command: &str) {
    let run = bash(cwd, command);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "", "`{command}` was not allowed silently");
}

fn audit(repo: &TestRepo) -> Vec<Value> {
    fs::read_to_string(repo.store_dir().join("audit.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn rule1_worktree_remove_of_dirty_untracked_or_unpushed_is_refused() {
    let f = fixture();
    let r = &f.repo.root;
    let reason = denied(r, "git worktree remove ../dirty");
    assert!(reason.contains("M src/lib.rs"), "{reason}");
    assert!(reason.contains("dirty"), "{reason}");
    assert!(reason.contains("Commit and push"), "{reason}");
    let reason = denied(r, "git worktree remove --force --force ../untracked");
    assert!(reason.contains("?? notes.txt"), "{reason}");
    let reason = denied(r, "git worktree remove -f ../unpushed");
    assert!(
        reason.contains("unpushed work") && reason.contains("more"),
        "{reason}"
    );
    allowed(r, "git worktree remove ../clean");
    allowed(r, "git worktree remove ../husk");
    assert!(f.dirty.join("src/lib.rs").exists() && f.untracked.exists() && f.unpushed.exists());
    assert!(f.husk.exists() && f.clean.exists());
}

#[test]
fn rule1_ignored_files_do_not_count() {
    let f = fixture();
    fs::write(f.repo.root.join(".git/info/exclude"), "*.log\n").unwrap();
    fs::write(f.clean.join("build.log"), "noise\n").unwrap();
    allowed(&f.repo.root, "git worktree remove ../clean");
}

#[test]
fn rule2_rm_recursive_of_a_worktree_root_in_any_spelling() {
    let f = fixture();
    for cmd in [
        "rm -rf ../dirty",
        "rm -fr ../dirty",
        "rm -r -f ../dirty",
        "rm -R ../untracked",
        "rm --recursive --force ../unpushed",
        "rm -rf ../dirt*",
        "rm -rf ../dirty/",
        "/bin/rm -rfv -- ../dirty",
    ] {
        denied(&f.repo.root, cmd);
    }
    allowed(&f.repo.root, "rm -rf ../clean");
    allowed(&f.repo.root, "rm -rf ../husk");
    allowed(&f.repo.root, "rm -rf ../dirty/src");
    allowed(&f.repo.root, "rm -f ../dirty/src/lib.rs");
    assert!(f.dirty.exists());
}

#[test]
fn rule2_rm_of_a_folder_holding_worktrees_checks_every_child() {
    let f = fixture();
    let a = f.repo.worktree("lanes/a");
    let _b = f.repo.worktree("lanes/b");
    allowed(&f.base, "rm -rf lanes");
    fs::write(a.join("wip.txt"), "x").unwrap();
    let reason = denied(&f.base, "rm -rf lanes");
    assert!(
        reason.contains("wip.txt") && reason.contains("lanes/a"),
        "{reason}"
    );
    assert!(!reason.contains("lanes/b"), "{reason}");
    // The whole temp folder holds the main clone and every worktree.
    denied(&f.base.join("lanes"), "rm -rf ..");
}

#[test]
fn rule3_branch_delete_of_an_unpushed_tip() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git branch -D topic",
        "git branch --delete --force topic",
        "git branch -d -f topic",
        "git branch -D pushed topic",
        "git update-ref -d refs/heads/topic",
    ] {
        let reason = denied(r, cmd);
        assert!(
            reason.contains("topic") && reason.contains("more"),
            "{reason}"
        );
        assert!(!reason.contains("branch pushed"), "{reason}");
    }
    allowed(r, "git branch -D pushed");
    allowed(r, "git branch -d topic");
    assert_eq!(
        git_out(r, &["rev-parse", "--verify", "-q", "topic"]).len(),
        40
    );
}

/// A second clone pushes `remote-only` with a commit no ref of ours has; we fetch it.
fn remote_only_branch(f: &Fixture) {
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

#[test]
fn rule4_push_delete_of_the_only_copy() {
    let f = fixture();
    remote_only_branch(&f);
    let r = &f.repo.root;
    for cmd in [
        "git push origin --delete remote-only",
        "git push -d origin remote-only",
        "git push origin :remote-only",
        "git push origin :refs/heads/remote-only",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("only on the remote"), "{reason}");
    }
    allowed(r, "git push origin --delete pushed");
    assert!(!git_out(r, &["rev-parse", "origin/remote-only"]).is_empty());
}

fn stub_gh(dir: &Path, script: &str) -> String {
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

#[test]
fn rule4_push_delete_of_a_branch_with_an_open_pull_request() {
    let f = fixture();
    let r = &f.repo.root;
    let path = stub_gh(
        &f.base,
        r#"case "$*" in *"--head pushed"*) echo '[{"number":42,"url":"https://example.invalid/pull/42"}]';; *) echo '[]';; esac"#,
    );
    let run = bash_env(r, "git push origin --delete pushed", &[("PATH", &path)]);
    let (d, reason, _) = decision(&run).expect("a decision");
    assert_eq!(d, "deny");
    assert!(
        reason.contains("#42") && reason.contains("pull/42"),
        "{reason}"
    );
    let run = bash_env(r, "git push origin --delete clean", &[("PATH", &path)]);
    assert_eq!(run.stdout, "");
    // A failing or missing gh means "no pull request known".
    let failing = stub_gh(&f.base.join("x"), "exit 1");
    let run = bash_env(r, "git push origin --delete pushed", &[("PATH", &failing)]);
    assert_eq!(run.stdout, "");
    let run = bash_env(
        r,
        "git push origin --delete pushed",
        &[("PATH", "/nonexistent")],
    );
    assert_eq!(run.stdout, "");
}

/// The peer edits `src/lib.rs` and creates `notes.txt` in the main worktree; this session
/// edits `mine.rs`.
fn two_sessions(f: &Fixture) {
    let r = &f.repo.root;
    for (session, file) in [(PEER, "src/lib.rs"), (PEER, "notes.txt"), (ME, "mine.rs")] {
        let path = r.join(file);
        hook(r, &edit_event("PreToolUse", "Write", session, r, &path));
        fs::write(&path, format!("// {session}\n")).unwrap();
        hook(r, &edit_event("PostToolUse", "Write", session, r, &path));
    }
}

#[test]
fn rule5_a_live_peers_uncommitted_files() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "git add -A",
        "git add .",
        "git add --all",
        "git add -u",
        "git add src/lib.rs",
        "git add notes.txt mine.rs",
        "git commit -a -m wip",
        "git commit -am wip",
        "git stash",
        "git stash -u",
        "git stash push --include-untracked",
        "git reset --hard",
        "git checkout -- .",
        "git checkout .",
        "git restore src/lib.rs",
        "git restore .",
        "git clean -f",
        "git clean -fd",
        "git clean -fdx",
        "git switch -c elsewhere",
        "git switch pushed",
        "git checkout pushed",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("aaaaaaaa"), "{cmd}: {reason}");
    }
    let reason = denied(r, "git add -A");
    assert!(reason.contains("src/lib.rs (modified)"), "{reason}");
    assert!(reason.contains("notes.txt (untracked)"), "{reason}");
    assert!(reason.contains("explicit path"), "{reason}");
    allowed(r, "git add mine.rs");
    allowed(r, "git stash push -- mine.rs");
    allowed(r, "git restore README.md");
    allowed(r, "git commit -m 'only what I staged'");
    // Once the peer's file is staged, a plain commit would take it.
    git(r, &["add", "src/lib.rs"]);
    denied(r, "git commit -m x");
    assert_eq!(
        fs::read_to_string(r.join("src/lib.rs")).unwrap(),
        format!("// {PEER}\n")
    );
}

#[test]
fn rule5_needs_a_live_peer_in_the_same_worktree() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    // Another worktree is not the peer's.
    allowed(&f.clean, "git add -A");
    allowed(&f.dirty, "git reset --hard");
    // A peer that ended is not live.
    hook(
        r,
        &claude_event("SessionEnd", PEER, r, serde_json::json!({"reason": "exit"})),
    );
    allowed(r, "git add -A");
    allowed(r, "git reset --hard");
}

#[test]
fn rule5_lease_from_git_config() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    denied(r, "git stash");
    git(r, &["config", "dibs.ttl", "1"]);
    std::thread::sleep(std::time::Duration::from_millis(2100));
    allowed(r, "git stash");
}

#[test]
fn wrappers_and_evasions_are_seen_through() {
    let f = fixture();
    let r = &f.repo.root;
    let base = f.base.to_str().unwrap();
    for cmd in [
        "cd .. && git -C repo worktree remove ../dirty",
        "cd .. && rm -rf dirty",
        "(cd .. && rm -rf dirty)",
        "{ rm -rf ../dirty; }",
        "true && rm -rf ../dirty",
        "false || rm -rf ../dirty",
        "ls | rm -rf ../dirty",
        "rm -r\\\n -f ../dirty",
        "'rm' -rf \"../dir\"ty",
        "bash -c 'git worktree remove ../dirty'",
        "sh -c \"rm -rf ../dirty\"",
        "bash -lc 'git branch -D topic'",
        "bash -c \"bash -c 'git branch -D topic'\"",
        "bash <<'EOF'\nrm -rf ../dirty\nEOF",
        "bash <<< 'git branch -D topic'",
        "sudo git branch -D topic",
        "env FOO=1 git branch -D topic",
        "command git branch -D topic",
        "exec git branch -D topic",
        "nohup git branch -D topic",
        "time git branch -D topic",
        "timeout 10 git branch -D topic",
        "nice -n 5 git branch -D topic",
        "/usr/bin/git branch -D topic",
        "git --no-pager -c core.pager=cat branch -D topic",
        "git -C ../clean branch -D topic",
        "FOO=bar git branch -D topic",
    ] {
        denied(r, cmd);
    }
    denied(
        &f.base,
        &format!("git --git-dir={base}/repo/.git branch -D topic"),
    );
    denied(&f.base, "GIT_DIR=repo/.git git branch -D topic");
    denied(&f.base, "git --git-dir=repo/.git worktree remove dirty");
}

#[test]
fn regression_worktree_remove_with_dash_c_outside_the_repository() {
    let f = fixture();
    denied(&f.repo.root, "git -C .. worktree remove dirty");
}

#[test]
fn regression_worktree_remove_by_unique_path_suffix() {
    let f = fixture();
    denied(&f.repo.root, "git worktree remove dirty");
}

#[test]
fn regression_git_aliases_for_destructive_commands() {
    let f = fixture();
    let r = &f.repo.root;
    denied(r, "git -c alias.nuke='branch -D' nuke topic");
    git(r, &["config", "alias.zap", "branch -D"]);
    denied(r, "git zap topic");
}

#[test]
fn regression_rm_of_a_symlink_to_a_worktree_passes_but_a_trailing_slash_does_not() {
    let f = fixture();
    std::os::unix::fs::symlink(&f.dirty, f.base.join("link")).unwrap();
    allowed(&f.base, "rm -rf link");
    denied(&f.base, "rm -rf link/");
}

#[test]
fn unknown_targets_are_put_to_the_person() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "echo ../dirty | xargs rm -rf",
        "rm -rf $(echo ../dirty)",
        "rm -rf `echo ../dirty`",
        "git branch -D $(git branch --format='%(refname:short)')",
        "$RM -rf ../dirty",
        "eval \"$CMD\"",
        "find .. -delete",
        "find .. -name '*.txt' -exec rm {} +",
    ] {
        let reason = asked(r, cmd);
        assert!(!reason.contains("WT_GUARD_BYPASS"), "{reason}");
    }
    allowed(r, "find . -name '*.pyc' -delete");
}

#[test]
fn text_that_is_only_an_argument_never_triggers() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "git commit -m 'never git reset --hard or rm -rf ../dirty'",
        "git commit -m \"$(cat <<'EOF'\nAvoid git add -A and git branch -D topic\nEOF\n)\"",
        "echo git branch -D topic",
        "echo 'rm -rf ../dirty'",
        "grep -r 'git worktree remove' .",
        "cat <<EOF\ngit worktree remove ../dirty\nEOF",
        "python3 -c \"print('git reset --hard')\"",
        "ls # rm -rf ../dirty",
        "git log --grep='branch -D'",
        "git status",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn bypass_on_the_very_command_only() {
    let f = fixture();
    let r = &f.repo.root;
    allowed(r, "WT_GUARD_BYPASS=1 git branch -D topic");
    allowed(r, "WT_GUARD_BYPASS=1 rm -rf ../dirty");
    for cmd in [
        "WT_GUARD_BYPASS=0 git branch -D topic",
        "WT_GUARD_BYPASS=true git branch -D topic",
        "WT_GUARD_BYPASS=1 true && git branch -D topic",
        "export WT_GUARD_BYPASS=1; git branch -D topic",
        "echo WT_GUARD_BYPASS=1 && git branch -D topic",
        "git branch -D topic # WT_GUARD_BYPASS=1",
        "WT_GUARD_BYPASS=1 git branch -D pushed && git branch -D topic",
    ] {
        denied(r, cmd);
    }
    assert!(f.dirty.exists());
}

#[test]
fn every_block_ask_and_bypass_is_audited() {
    let f = fixture();
    let r = &f.repo.root;
    denied(r, "git worktree remove ../dirty");
    allowed(r, "WT_GUARD_BYPASS=1 git branch -D topic");
    asked(r, "echo x | xargs rm -rf");
    allowed(r, "ls");
    let lines = audit(&f.repo);
    assert_eq!(lines.len(), 3, "{lines:?}");
    let verdicts: Vec<&str> = lines
        .iter()
        .map(|l| l["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["block", "bypass", "ask"]);
    let first = &lines[0];
    assert_eq!(first["session"], ME);
    assert_eq!(first["command"], "git worktree remove ../dirty");
    assert_eq!(first["cwd"], r.to_str().unwrap());
    let at = first["at"].as_str().unwrap();
    assert!(humantime::parse_rfc3339(at).is_ok(), "{at}");
    assert!(first["reason"].as_str().unwrap().contains("src/lib.rs"));
    let wt = &first["worktrees"][0];
    assert_eq!(wt["status"][0], " M src/lib.rs");
    assert_eq!(wt["head"].as_str().unwrap().len(), 40);
    assert!(lines[1]["reason"].as_str().unwrap().contains("topic"));
    let human = dibs(r, &["audit"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().last().unwrap().contains("ask"));
    let json = dibs(r, &["audit", "--json"]);
    let text = String::from_utf8_lossy(&json.stdout);
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}

#[test]
fn unreadable_commands_go_ahead_with_one_line_on_stderr() {
    let f = fixture();
    let run = bash(&f.repo.root, "echo \"unterminated");
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

#[test]
fn everyday_commands_open_no_store() {
    let repo = TestRepo::new();
    for cmd in [
        "ls",
        "cargo test",
        "git status",
        "npm run build",
        "git log -1",
    ] {
        allowed(&repo.root, cmd);
    }
    assert!(!repo.store_dir().exists());
}

#[test]
fn rule5_in_a_linked_worktree_through_dash_c_cd_and_work_tree() {
    let f = fixture();
    let wt = &f.clean;
    let file = wt.join("src/lib.rs");
    hook(wt, &edit_event("PreToolUse", "Edit", PEER, wt, &file));
    fs::write(&file, "peer work\n").unwrap();
    let r = &f.repo.root;
    allowed(r, "git add -A");
    denied(r, "git -C ../clean stash");
    denied(r, "cd ../clean && git add -A");
    denied(r, "cd ../clean/src && git add ..");
    allowed(r, "cd ../clean/src && git add .gitkeep");
    denied(
        r,
        "git --git-dir=.git/worktrees/clean --work-tree=../clean reset --hard",
    );
    denied(
        r,
        "GIT_WORK_TREE=../clean GIT_DIR=.git/worktrees/clean git checkout .",
    );
}

#[test]
fn regression_rm_of_the_repository_data_itself() {
    let f = fixture();
    let r = &f.repo.root;
    let reason = denied(r, "rm -rf .git");
    assert!(reason.contains("topic"), "{reason}");
    denied(r, "rm -rf .git/worktrees");
    denied(r, "cd .git && rm -rf refs");
    allowed(&f.clean, "rm -rf target");
}

#[test]
fn more_spellings_of_the_same_acts() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git -C ../dirty worktree remove .",
        "cd ../dirty && git worktree remove .",
        "rm -rf ../{clean,dirty}",
        "time (rm -rf ../dirty)",
        "git branch -D topic 2>/dev/null || true",
        "if true; then git branch -D topic; fi",
        "for b in topic; do git branch -D topic; done",
        "x=1; git branch -D topic &",
        "git stash list; rm -rf ../untracked",
    ] {
        denied(r, cmd);
    }
}

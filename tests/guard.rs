//! The Bash guard's rules through the real binary, over real repositories: every rule, the
//! bypass and the audit log (fixture in `guard_support`).

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn rule1_worktree_remove_of_dirty_untracked_or_unpushed_is_refused() {
    let f = fixture();
    let r = &f.repo.root;
    let reason = denied(r, "git worktree remove ../dirty");
    assert!(reason.contains("M src/lib.rs"), "{reason}");
    assert!(reason.contains("dirty"), "{reason}");
    assert!(reason.contains("commit and push it first"), "{reason}");
    let reason = denied(r, "git worktree remove --force --force ../untracked");
    assert!(reason.contains("?? notes.txt"), "{reason}");
    // Unpushed commits on a detached HEAD go with the worktree; on a branch, the branch keeps
    // them and removing the worktree loses nothing.
    git(&f.unpushed, &["checkout", "-q", "--detach"]);
    commit_in(&f.unpushed, "detached.txt", "detached work");
    let reason = denied(r, "git worktree remove -f ../unpushed");
    assert!(
        reason.contains("detached work") && reason.contains("commit(s) on no remote"),
        "{reason}"
    );
    git(&f.unpushed, &["checkout", "-q", "unpushed"]);
    allowed(r, "git worktree remove ../unpushed");
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
        "rm --recursive --force ../untracked",
        "rm -rf ../dirt*",
        "rm -rf ../dirty/",
        "/bin/rm -rfv -- ../dirty",
    ] {
        denied(&f.repo.root, cmd);
    }
    allowed(&f.repo.root, "rm -rf ../clean");
    allowed(&f.repo.root, "rm -rf ../husk");
    // Inside another worktree: refused where it holds uncommitted files, else its own business.
    denied(&f.repo.root, "rm -rf ../dirty/src");

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
    // A branch never fetched here: what it holds is unknown, so the person decides.
    let run = bash_env(r, "git push origin --delete clean", &[("PATH", &path)]);
    let (d, reason, _) = decision(&run).expect("a decision");
    assert_eq!(d, "ask");
    assert!(reason.contains("[guard:remote-unknown]"), "{reason}");
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
        "git pull --rebase --autostash",
        "git rebase --autostash origin/main",
        "git merge --autostash topic",
        "git reset --hard",
        "git checkout -- .",
        "git checkout .",
        "git restore src/lib.rs",
        "git restore .",
        "git clean -f",
        "git clean -fd",
        "git clean -fdx",
        "git switch -c elsewhere topic",
        "git switch topic",
        "git checkout topic",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("aaaaaaaa"), "{cmd}: {reason}");
    }
    let reason = denied(r, "git add -A");
    assert!(reason.contains("src/lib.rs (modified)"), "{reason}");
    assert!(reason.contains("notes.txt (untracked)"), "{reason}");
    assert!(reason.contains("explicit path"), "{reason}");
    allowed(r, "git add mine.rs");
    // A new branch from HEAD leaves every file where it is.
    allowed(r, "git switch -c elsewhere");
    allowed(r, "git stash push -- mine.rs");
    // Without --autostash a rebase refuses a dirty worktree and a merge leaves the files be.
    allowed(r, "git pull --rebase --no-autostash");
    allowed(r, "git merge --ff-only origin/main");
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
    // Twenty minutes on (the test clock of debug builds), under the default two-hour lease the
    // peer is live; under a fifteen-minute one it is not.
    let later = (now_secs() + 20 * 60).to_string();
    let run = bash_env(r, "git stash", &[("DIBS_NOW", &later)]);
    assert!(run.stdout.contains("deny"), "{run:?}");
    git(r, &["config", "dibs.ttl", "15m"]);
    let run = bash_env(r, "git stash", &[("DIBS_NOW", &later)]);
    assert_eq!(run.stdout, "", "{run:?}");
    // A lease shorter than a shell command may run is raised to ten minutes, whoever set it.
    git(r, &["config", "dibs.ttl", "1"]);
    denied(r, "git stash");
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
fn a_bypass_is_audited_even_while_something_holds_the_stores_lock() {
    let f = fixture();
    let r = &f.repo.root;
    // A hung or stopped process, or an agent's `flock ... &` meant to silence the log.
    let mut holder = std::process::Command::new("flock")
        .arg(f.repo.store_dir().join("lock"))
        .args(["sleep", "20"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    allowed(r, "WT_GUARD_BYPASS=1 git branch -D topic");
    let _ = holder.kill();
    let _ = holder.wait();
    let lines = audit(&f.repo);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["verdict"], "bypass");
    assert_eq!(lines[0]["session"], ME);
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
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
}

#[test]
fn unreadable_commands_that_reach_nothing_guarded_go_ahead() {
    let f = fixture();
    let run = bash(&f.repo.root, "echo \"unterminated");
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
}

#[test]
fn everyday_commands_open_no_store() {
    let repo = TestRepo::new();
    for cmd in ["ls", "git status", "git log -1"] {
        allowed(&repo.root, cmd);
    }
    assert!(!repo.store_dir().exists());
    // A line that may write is marked as running until its end (a peer's command scans what
    // it writes meanwhile): the clone's store is made for that mark, once, and holds nothing
    // else.
    for cmd in ["cargo test", "npm run build"] {
        allowed(&repo.root, cmd);
    }
    let running = std::fs::read_dir(repo.store_dir().join("running"))
        .unwrap()
        .count();
    assert_eq!(
        running, 1,
        "one mark for the session, whose calls the host does not name"
    );
    let sessions = std::fs::read_dir(repo.store_dir().join("sessions"))
        .unwrap()
        .count();
    assert_eq!(sessions, 0, "no session is recorded by a command's mark");
}

#[test]
fn gh_pr_create_is_refused_when_the_branch_already_has_a_pull_request() {
    let f = fixture();
    let r = &f.repo.root;
    let path = stub_gh(
        &f.base,
        r#"case "$*" in *"--head pushed --state all"*) echo '[{"number":9,"url":"https://example.invalid/pull/9","state":"MERGED"}]';; *) echo '[]';; esac"#,
    );
    let run = bash_env(r, "gh pr create --fill --head pushed", &[("PATH", &path)]);
    let (d, reason, _) = decision(&run).expect("a decision");
    assert_eq!(d, "deny");
    assert!(
        reason.contains("#9 (merged) https://example.invalid/pull/9"),
        "{reason}"
    );
    assert!(reason.contains("git dibs landed"), "{reason}");
    // The current branch (main) has none; offline or without gh it passes too.
    assert_eq!(
        bash_env(r, "gh pr create --fill", &[("PATH", &path)]).stdout,
        ""
    );
    let run = bash_env(r, "gh pr create --head pushed", &[("PATH", "/nonexistent")]);
    assert_eq!(run.stdout, "");
}

/// A plain `git pull` (or `merge`, `rebase`) stashes first when git config sets
/// `rebase.autoStash` / `merge.autoStash`, from any config source: refused like `git stash`
/// over a live peer's files (red-team 2/09); silent without the setting or with
/// `--no-autostash`.
#[test]
fn rule5_autostash_from_config_is_a_stash() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in ["git pull", "git rebase origin/main", "git merge topic"] {
        allowed(r, cmd);
    }
    git(r, &["config", "pull.rebase", "true"]);
    git(r, &["config", "rebase.autoStash", "true"]);
    for cmd in [
        "git pull",
        "git pull -q origin main",
        "git pull --rebase",
        "git rebase origin/main",
        "git -c merge.autoStash=yes merge topic",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=merge.autostash GIT_CONFIG_VALUE_0=1 git pull --no-rebase",
    ] {
        let reason = denied(r, cmd);
        assert!(
            reason.contains("[guard:peer-files]") && reason.contains("src/lib.rs"),
            "{cmd}: {reason}"
        );
        assert!(
            reason.contains("autoStash set, it would stash"),
            "{cmd}: {reason}"
        );
    }
    for cmd in [
        "git pull --no-autostash",
        "git -c rebase.autoStash=false pull",
        "git pull --no-rebase",
        "git merge topic",
        "git rebase --continue",
        "git fetch",
    ] {
        allowed(r, cmd);
    }
    // From an included file, and for the branch (`branch.main.rebase` over `pull.rebase`).
    git(r, &["config", "--unset", "rebase.autoStash"]);
    git(r, &["config", "pull.rebase", "false"]);
    allowed(r, "git pull");
    fs::write(f.base.join("extra.cfg"), "[rebase]\n\tautoStash = true\n").unwrap();
    git(r, &["config", "include.path", "../../extra.cfg"]);
    allowed(r, "git pull");
    git(r, &["config", "branch.main.rebase", "true"]);
    denied(r, "git pull");
}

/// `git sparse-checkout set` takes out of the worktree the files outside its patterns whose
/// copy matches the index: a live peer's staged file is refused, an unstaged edit (which git
/// leaves) is not.
#[test]
fn rule5_sparse_checkout_over_a_peers_staged_file() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in ["git sparse-checkout set docs", "git sparse-checkout list"] {
        allowed(r, cmd);
    }
    git(r, &["add", "src/lib.rs"]);
    for cmd in [
        "git sparse-checkout set docs",
        "git sparse-checkout init --cone",
        "git sparse-checkout reapply",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("src/lib.rs"), "{cmd}: {reason}");
    }
    allowed(r, "git sparse-checkout disable");
}

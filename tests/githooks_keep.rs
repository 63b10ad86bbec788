//! The `reference-transaction` git hook keeps what a ref update by an actor no agent hook sees
//! (a person's terminal) would leave held by nothing, through the real binary, real git and the
//! installed shims: an agent's pushed commit that a colleague's force push took off the remote,
//! then reset away after a fetch; an unpushed tip reset away; a stash written and dropped, with
//! a background job's writes scanned into its session's snapshot first. Each is checked after
//! `git reflog expire --expire=now --all && git gc --prune=now`, through `git dibs recover`.

mod common;
mod recover_support;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use serde_json::json;

/// `command` run by `sh -c` in `cwd` as a person's terminal runs it: the binary on `PATH` (so
/// git's shims find it), no session in the environment, no bypass. It must succeed.
fn person(cwd: &Path, command: &str) -> Output {
    sh_with(cwd, command, |cmd| {
        cmd.env("PATH", path_with_bin())
            .env("USER", "tester")
            .env_remove("DIBS_SESSION")
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env_remove("WT_GUARD_BYPASS");
    })
}

fn refs(root: &Path, prefix: &str) -> String {
    git_out(
        root,
        &["for-each-ref", "--format=%(refname) %(objectname)", prefix],
    )
}

/// A repository with the git hooks installed, and an agent session started in it.
fn setup(id: &str) -> (TestRepo, Agent) {
    let repo = TestRepo::new();
    install_git_hooks(&repo.root);
    let agent = Agent::started(id, &repo.root);
    (repo, agent)
}

/// The agent commits on `feat` and pushes it (its retention ref goes, as designed); a colleague
/// force-pushes `feat` over it. Returns the agent's commit.
fn pushed_then_overwritten(repo: &TestRepo, agent: &Agent) -> String {
    agent.bash(
        "git checkout -qb feat && echo agentwork > w.txt && git add w.txt && git commit -qm \
         'agent work: important message' && git push -q -u origin feat",
    );
    let commit = git_out(&repo.root, &["rev-parse", "feat"])
        .trim()
        .to_owned();
    assert!(
        !refs(&repo.root, "refs/dibs/retention/").contains(&commit),
        "on the remote, its retention went"
    );
    let other = repo.tmp.path().join("colleague");
    git(
        repo.tmp.path(),
        &["clone", "-q", repo.remote.to_str().unwrap(), "colleague"],
    );
    sh(
        &other,
        "git checkout -qb feat origin/main && echo theirs > t.txt && git add t.txt && git \
         commit -qm theirs && git push -qf origin feat",
    );
    commit
}

#[test]
fn an_agents_commit_force_pushed_off_the_remote_then_reset_away_in_a_terminal_is_kept() {
    let (repo, agent) = setup("rt-force-pushed");
    let commit = pushed_then_overwritten(&repo, &agent);
    person(
        &repo.root,
        "git fetch -q origin && git reset -q --hard origin/feat",
    );
    let kept = refs(&repo.root, "refs/dibs/retention/");
    assert!(
        kept.contains(&format!(
            "refs/dibs/retention/remotes/origin/feat/{}",
            &commit[..7]
        )),
        "the fetch that moved origin/feat back keeps its old tip: {kept}"
    );
    assert_eq!(kept.matches(&commit).count(), 1, "kept once: {kept}");
    collect_garbage(&repo.root);
    assert!(
        git_command(&repo.root)
            .args(["cat-file", "-e", &commit])
            .status()
            .unwrap()
            .success()
    );
    let (code, text, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains(&commit[..7]), "{text}");
    let listing = recover_json(&repo.root, &[]).to_string();
    assert!(listing.contains(&commit), "{listing}");
}

#[test]
fn the_agents_next_call_keeps_the_commit_when_no_git_hook_saw_the_force_push() {
    let repo = TestRepo::new();
    let agent = Agent::started("rt-no-githooks", &repo.root);
    let commit = pushed_then_overwritten(&repo, &agent);
    // The person's terminal, no git hooks installed: nothing is kept yet.
    sh(
        &repo.root,
        "git fetch -q origin && git reset -q --hard origin/feat",
    );
    assert!(!refs(&repo.root, "refs/dibs/").contains(&commit));
    // The agent's next shell call looks at the refs it saw move.
    agent.bash("echo more > notes.txt");
    assert!(refs(&repo.root, "refs/dibs/retention/").contains(&commit));
    collect_garbage(&repo.root);
    let (_, text, _) = recover(&repo.root, &[]);
    assert!(text.contains(&commit[..7]), "{text}");
}

#[test]
fn a_terminals_reset_keeps_the_unpushed_old_tip_and_a_forward_move_keeps_nothing() {
    let repo = TestRepo::new();
    install_git_hooks(&repo.root);
    // Made where no hook ran (a GUI built on libgit2, `core.hooksPath` pointed away).
    person(
        &repo.root,
        "echo one > one.txt && git add one.txt && git -c core.hooksPath=/nonexistent commit \
         -qm 'unpushed one'",
    );
    let tip = git_out(&repo.root, &["rev-parse", "HEAD"])
        .trim()
        .to_owned();
    assert!(!refs(&repo.root, "refs/dibs/").contains(&tip));
    // A forward move through the hooks keeps nothing.
    person(
        &repo.root,
        "git branch -q side HEAD~1 && git checkout -q side && git merge -q --ff-only main && \
         git checkout -q main",
    );
    assert!(!refs(&repo.root, "refs/dibs/").contains(&tip));
    // Moved back by `branch -f`, then by `reset --hard`: kept once.
    person(&repo.root, "git branch -q -f side main~1");
    assert!(refs(&repo.root, "refs/dibs/retention/side/").contains(&tip));
    person(&repo.root, "git reset -q --hard HEAD~1");
    assert_eq!(refs(&repo.root, "refs/dibs/").matches(&tip).count(), 1);
    // A pushed tip reset away is on the remote: nothing more is kept.
    person(
        &repo.root,
        "echo two > two.txt && git add two.txt && git -c core.hooksPath=/nonexistent commit \
         -qm two && git push -q origin main && git reset -q --hard HEAD~1",
    );
    let pushed = git_out(&repo.root, &["rev-parse", "origin/main"])
        .trim()
        .to_owned();
    assert!(!refs(&repo.root, "refs/dibs/").contains(&pushed));
    collect_garbage(&repo.root);
    let (_, text, _) = recover(&repo.root, &[]);
    assert!(text.contains(&tip[..7]), "{text}");
}

/// Wait until `path` holds `text` (the job wrote it).
fn wait_for(path: &Path, text: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        assert!(Instant::now() < until, "{} never written", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_background_jobs_writes_survive_a_terminals_stash_and_drop() {
    let (repo, agent) = setup("rt-bg-stash");
    let command = "(sleep 1; echo 'generated by job' >> README.md; echo jobnew > gen.txt) \
                   >/dev/null 2>&1 &";
    let input = json!({"command": command, "run_in_background": true});
    let pre = claude_event(
        "PreToolUse",
        &agent.id,
        &repo.root,
        json!({"tool_name": "Bash", "tool_input": input}),
    );
    assert_eq!(hook(&repo.root, &pre).code, 0);
    sh(&repo.root, command);
    let post = claude_event(
        "PostToolUse",
        &agent.id,
        &repo.root,
        json!({"tool_name": "Bash", "tool_input": input, "duration_ms": 5,
               "tool_response": {"stdout": "", "stderr": "", "interrupted": false,
                                 "backgroundTaskId": "b1"}}),
    );
    assert_eq!(hook(&repo.root, &post).code, 0);
    let gen_txt = repo.root.join("gen.txt");
    wait_for(&gen_txt, "jobnew\n");
    let readme = std::fs::read(repo.root.join("README.md")).unwrap();
    // The person's terminal: no agent hook runs.
    person(&repo.root, "git stash -u -q && git stash drop -q");
    assert!(!gen_txt.exists());
    assert!(
        !refs(&repo.root, "refs/dibs/stash/").is_empty(),
        "the dropped stash is kept"
    );
    collect_garbage(&repo.root);
    let (code, text, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("rt-bg-st"),
        "the job's session's snapshot: {text}"
    );
    assert!(text.contains("stash commit"), "{text}");
    assert_recovers(
        &repo.root,
        &["README.md"],
        &[(repo.root.join("README.md"), readme)],
    );
    assert_recovers(&repo.root, &["gen.txt"], &[(gen_txt, b"jobnew\n".to_vec())]);
}

#[test]
fn a_stash_made_and_dropped_in_a_terminal_is_listed_by_recover() {
    let repo = TestRepo::new();
    install_git_hooks(&repo.root);
    std::fs::write(repo.root.join("README.md"), "mine\n").unwrap();
    std::fs::write(repo.root.join("new.txt"), "new\n").unwrap();
    person(&repo.root, "git stash -u -q && git stash drop -q");
    collect_garbage(&repo.root);
    let kept = refs(&repo.root, "refs/dibs/stash/");
    let stash = kept.split_whitespace().nth(1).expect("kept").to_owned();
    let (_, text, _) = recover(&repo.root, &[]);
    assert!(
        text.contains(&format!("stash commit {}", &stash[..7])),
        "{text}"
    );
    person(&repo.root, &format!("git stash apply -q {stash}"));
    assert_eq!(
        std::fs::read_to_string(repo.root.join("new.txt")).unwrap(),
        "new\n"
    );
}

//! What a shell command has written while it still runs (`python3 gen.py && pytest`: the
//! generated file exists, the tests go on for minutes) reaches the object store before a
//! peer's command that may destroy it runs: the running command's session is marked from its
//! PreToolUse to its PostToolUse (or PostToolUseFailure), and the peer's command is preceded
//! by a scan of the marked worktrees. A command that ended, or one that only reads, leaves
//! no mark: nobody pays for it afterwards.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;
use serde_json::json;

/// The PostToolUse (`failed`: PostToolUseFailure) of `session`'s Bash `command`.
fn post(session: &str, cwd: &Path, command: &str, failed: bool) {
    let name = if failed {
        "PostToolUseFailure"
    } else {
        "PostToolUse"
    };
    let event = claude_event(
        name,
        session,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command},
               "tool_response": {"stdout": "5 passed", "stderr": "", "interrupted": false},
               "duration_ms": 95000}),
    );
    let run = hook(cwd, &event);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn marks(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.store_dir().join("running")).map_or(0, |d| d.count())
}

/// The paths `session`'s snapshots hold, by `recover --json`.
fn kept_for(root: &Path, session: &str) -> Vec<String> {
    let (code, out, _) = recover(root, &["--json", "--session", session]);
    if code != 0 {
        return Vec::new();
    }
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    listed_paths(&v).into_iter().map(str::to_owned).collect()
}

#[test]
fn a_running_commands_output_survives_a_peers_clean_in_the_meantime() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let command = "python3 gen.py && pytest -q";
    let s1 = Agent::started("generator", root);
    s1.pre_bash(command).assert_silent();
    assert_eq!(marks(&repo), 1);
    // gen.py's first second; the tests are still running.
    repo.write(root, "migrations/0042_orders.py", "# s1's migration\n");
    let s2 = Agent::started("tidier", root);
    s2.bash("git clean -fdq");
    assert!(!root.join("migrations").exists());
    post(&s1.id, root, command, false);
    assert_eq!(marks(&repo), 0, "the mark goes when the command ends");
    collect_garbage(root);
    assert_eq!(kept_for(root, "generator"), ["migrations/0042_orders.py"]);
    assert_recovers(
        root,
        &["migrations"],
        &[(
            root.join("migrations/0042_orders.py"),
            b"# s1's migration\n".to_vec(),
        )],
    );
}

#[test]
fn a_command_running_in_a_lane_is_scanned_by_a_peer_in_the_main_checkout() {
    let repo = TestRepo::new();
    let lane = repo.worktree("lane");
    let s1 = Agent::started("builder", &repo.root);
    // Started from the main checkout, runs in the lane.
    let command = format!("cd {} && make generate && make test", lane.display());
    s1.pre_bash(&command);
    repo.write(&lane, "out/schema.gen.sql", "create table t (id int);\n");
    let s2 = Agent::started("remover", &repo.root);
    // A destroyer the guard cannot judge (its target comes at run time): asked, not refused,
    // so the sweep before it runs (a literal `shutil.rmtree('…/out')` is refused as `rm -rf`).
    s2.bash(&format!(
        "python3 -c \"import shutil, sys; shutil.rmtree(sys.argv[1])\" {}/out",
        lane.display()
    ));
    post(&s1.id, &repo.root, &command, true);
    assert_eq!(marks(&repo), 0, "PostToolUseFailure ends the mark too");
    collect_garbage(&repo.root);
    assert_recovers(
        &repo.root,
        &[lane.join("out").to_str().unwrap()],
        &[(
            lane.join("out/schema.gen.sql"),
            b"create table t (id int);\n".to_vec(),
        )],
    );
}

#[test]
fn an_ended_or_read_only_command_leaves_no_mark_and_claims_nothing_later() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = Agent::started("reader", root);
    s1.pre_bash("ls -la && git log --oneline");
    assert_eq!(marks(&repo), 0, "a line that only reads is not marked");
    s1.pre_bash("cargo build");
    post(&s1.id, root, "cargo build", false);
    assert_eq!(marks(&repo), 0);
    // A file someone else makes afterwards is not s1's: the peer's command scans nothing.
    repo.write(root, "stray.txt", "not s1's\n");
    let s2 = Agent::started("cleaner", root);
    s2.bash("git clean -fdq");
    assert!(kept_for(root, "reader").is_empty());
}

#[test]
fn a_mark_past_the_lease_is_dropped_unscanned() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = Agent::started("vanished", root);
    s1.pre_bash("./long-job.sh");
    assert_eq!(marks(&repo), 1);
    repo.write(root, "later.txt", "made after the session died\n");
    // Three hours on (the lease is two): the session died mid-command.
    let later = (now_secs() + 3 * 3600).to_string();
    let run = bash_hook_env(root, "survivor", "git clean -fdq", &[("DIBS_NOW", &later)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::remove_file(repo.store_dir().join("running/survivor")).unwrap();
    assert_eq!(marks(&repo), 0, "the stale mark is gone");
    assert!(kept_for(root, "vanished").is_empty());
}

#[test]
fn a_refused_command_is_not_marked() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = Agent::started("holder", root);
    s1.write("mine.txt", b"s1's edit\n");
    let s2 = Agent::started("sweeper", root);
    let run = s2.pre_bash("git clean -fd");
    assert_eq!(
        hook_decision(&run).map(|d| d.0).as_deref(),
        Some("deny"),
        "{}",
        run.stdout
    );
    assert_eq!(marks(&repo), 0);
}

#[test]
fn a_sub_agents_running_output_survives_its_siblings_clean() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let main = Agent::started("lead", root);
    let as_agent = |name: &str, agent: &str, command: &str| {
        let mut event = main_event(name, &main.id, root, command);
        event["agent_id"] = json!(agent);
        event["agent_type"] = json!("general-purpose");
        let run = hook(root, &event);
        assert_eq!(run.code, 0, "{}", run.stderr);
    };
    as_agent("PreToolUse", "agent-a", "python3 gen.py && pytest");
    repo.write(root, "gen/out.txt", "agent a's output\n");
    // Its sibling tidies up meanwhile.
    as_agent("PreToolUse", "agent-b", "git clean -fdq");
    sh(root, "git clean -fdq");
    as_agent("PostToolUse", "agent-b", "git clean -fdq");
    assert_eq!(marks(&repo), 1, "agent a's command still runs");
    as_agent("PostToolUse", "agent-a", "python3 gen.py && pytest");
    assert_eq!(marks(&repo), 0);
    collect_garbage(root);
    assert_recovers(
        root,
        &["gen"],
        &[(root.join("gen/out.txt"), b"agent a's output\n".to_vec())],
    );
}

#[test]
fn the_first_of_two_parallel_commands_ending_leaves_the_other_marked() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = Agent::started("parallel", root);
    let call = |name: &str, id: &str, command: &str| {
        let mut event = main_event(name, &s1.id, root, command);
        event["tool_use_id"] = json!(id);
        let run = hook(root, &event);
        assert_eq!(run.code, 0, "{}", run.stderr);
    };
    // One message, two Bash calls at once: a quick lint and a long generator.
    call("PreToolUse", "toolu_lint", "cargo clippy");
    call("PreToolUse", "toolu_gen", "python3 gen.py && pytest");
    assert_eq!(marks(&repo), 2);
    call("PostToolUse", "toolu_lint", "cargo clippy");
    assert_eq!(marks(&repo), 1, "the generator still runs");
    repo.write(root, "gen/schema.sql", "create table orders (id int);\n");
    let s2 = Agent::started("tidier", root);
    s2.bash("git clean -fdq");
    assert!(!root.join("gen").exists());
    call("PostToolUse", "toolu_gen", "python3 gen.py && pytest");
    assert_eq!(marks(&repo), 0);
    collect_garbage(root);
    assert_recovers(
        root,
        &["gen"],
        &[(
            root.join("gen/schema.sql"),
            b"create table orders (id int);\n".to_vec(),
        )],
    );
}

/// A Claude Code Bash event (`PreToolUse` or `PostToolUse`) of `session`.
fn main_event(name: &str, session: &str, cwd: &Path, command: &str) -> serde_json::Value {
    let mut extra = json!({"tool_name": "Bash", "tool_input": {"command": command}});
    if name != "PreToolUse" {
        extra["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    }
    claude_event(name, session, cwd, extra)
}

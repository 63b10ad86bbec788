//! Sub-agents as actors, through the real binary with fixture-shaped Claude Code input: two
//! sub-agents of one session warn each other, a sub-agent and its main thread are peers, the
//! guard protects a live sibling's uncommitted files, a stopped sub-agent's files become its
//! session's own, `SubagentStart` tells the new sub-agent who holds what, `status` shows
//! sub-agents under their session, the pre-commit hook, and hostile `agent_id`s.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

/// The session of the fixtures.
const S: &str = "5f0c2b7e-3a41-4c8e-9d2a-1b6e4f8a9c30";
/// Another session.
const OTHER: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const A1: &str = "ada3551d9f4e5a0a0";
const A2: &str = "a37b13129a4430df6";

/// A fixture of `tests/fixtures/hooks/claude-code`, moved to `cwd`.
fn fixture(name: &str, cwd: &Path) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks/claude-code")
        .join(name);
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["cwd"] = json!(cwd);
    v
}

/// `event` as sub-agent `agent` of its session made it (`None`: the main thread).
fn by(mut event: Value, agent: Option<&str>) -> Value {
    match agent {
        Some(id) => {
            event["agent_id"] = json!(id);
            event["agent_type"] = json!("general-purpose");
        }
        None => {
            let obj = event.as_object_mut().unwrap();
            obj.remove("agent_id");
            obj.remove("agent_type");
        }
    }
    event
}

/// A `PreToolUse` Edit of `rel` by `agent` of `session`, shaped like the sub-agent fixture.
fn edit(repo: &TestRepo, session: &str, agent: Option<&str>, rel: &str) -> Value {
    let mut v = fixture("PreToolUse-Edit-subagent.json", &repo.root);
    v["session_id"] = json!(session);
    v["tool_input"]["file_path"] = json!(repo.root.join(rel));
    by(v, agent)
}

/// A `PreToolUse` Bash of `command` by `agent` of `session`.
fn bash(repo: &TestRepo, session: &str, agent: Option<&str>, command: &str) -> Value {
    let mut v = bash_event(session, &repo.root, command);
    v["permission_mode"] = json!("default");
    by(v, agent)
}

fn start(repo: &TestRepo, agent: &str) -> HookRun {
    hook(
        &repo.root,
        &by(fixture("SubagentStart.json", &repo.root), Some(agent)),
    )
}

fn stop(repo: &TestRepo, agent: &str) -> HookRun {
    hook(
        &repo.root,
        &by(fixture("SubagentStop.json", &repo.root), Some(agent)),
    )
}

/// The warning's text for the model (panics on anything else).
fn warning(run: &HookRun) -> String {
    let v = run.json();
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "a warning never decides: {v}"
    );
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sub-agent `agent` edits `rel` (the hook before, the change, the hook after).
fn edits(repo: &TestRepo, session: &str, agent: Option<&str>, rel: &str, text: &str) -> HookRun {
    let before = hook(&repo.root, &edit(repo, session, agent, rel));
    repo.write(&repo.root, rel, text);
    let mut after = edit(repo, session, agent, rel);
    after["hook_event_name"] = json!("PostToolUse");
    hook(&repo.root, &after).assert_silent();
    before
}

#[test]
fn two_sub_agents_on_one_file_the_second_is_told() {
    let repo = TestRepo::new();
    start(&repo, A1).assert_silent();
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n").assert_silent();
    let told = start(&repo, A2);
    let context = told.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        told.json()["hookSpecificOutput"]["hookEventName"],
        "SubagentStart"
    );
    assert!(
        context.contains("sub-agent general-purpose ada3551d of this session: src/lib.rs"),
        "{context}"
    );
    let w = warning(&hook(&repo.root, &edit(&repo, S, Some(A2), "src/lib.rs")));
    assert!(
        w.contains("sub-agent general-purpose ada3551d of this session also holds src/lib.rs"),
        "{w}"
    );
    // The first is told about the second too, once it edits again.
    let w = warning(&hook(&repo.root, &edit(&repo, S, Some(A1), "src/lib.rs")));
    assert!(
        w.contains("sub-agent general-purpose a37b1312 of this session"),
        "{w}"
    );
    // The main thread of the session is told as well, and another session sees whose it is.
    let w = warning(&hook(&repo.root, &edit(&repo, S, None, "src/lib.rs")));
    assert!(
        w.contains(
            "2 others also hold src/lib.rs: sub-agent general-purpose ada3551d of this session"
        ),
        "{w}"
    );
    let w = warning(&hook(&repo.root, &edit(&repo, OTHER, None, "src/lib.rs")));
    assert!(
        w.contains("sub-agent general-purpose ada3551d of claude session 5f0c2b7e"),
        "{w}"
    );
}

#[test]
fn a_sub_agent_and_its_main_thread_are_peers() {
    let repo = TestRepo::new();
    edits(&repo, S, None, "README.md", "# main\n").assert_silent();
    let w = warning(&hook(&repo.root, &edit(&repo, S, Some(A1), "README.md")));
    assert!(
        w.contains("the main thread of this session also holds README.md"),
        "{w}"
    );
    // Files no one else holds stay silent, for the sub-agent and for the main thread.
    hook(&repo.root, &edit(&repo, S, Some(A1), "src/lib.rs")).assert_silent();
    hook(&repo.root, &edit(&repo, S, None, "src/new.rs")).assert_silent();
}

#[test]
fn the_start_block_lists_peers_and_says_nothing_when_none_hold_files() {
    let repo = TestRepo::new();
    // The main thread is live but holds nothing: nothing to say.
    hook(&repo.root, &fixture("SessionStart.json", &repo.root));
    start(&repo, A1).assert_silent();
    edits(&repo, OTHER, None, "README.md", "# other\n");
    let told = start(&repo, A2);
    let context = told.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        context.contains("claude session bbbbbbbb: README.md"),
        "{context}"
    );
    assert!(!context.contains("ada3551d"), "A1 holds nothing: {context}");
}

fn decision(run: &HookRun) -> (String, String) {
    let (d, reason, _) = hook_decision(run).unwrap_or_else(|| panic!("a decision: {run:?}"));
    (d, reason)
}

#[test]
fn a_sub_agents_sweep_is_refused_over_a_live_siblings_file() {
    let repo = TestRepo::new();
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n");
    edits(&repo, S, Some(A2), "README.md", "# two\n");
    for sweep in [
        "git add -A",
        "git add . && git commit -m x",
        "git commit -am x",
        "git stash",
    ] {
        let (d, reason) = decision(&hook(&repo.root, &bash(&repo, S, Some(A2), sweep)));
        assert_eq!(d, "deny", "{sweep}");
        assert!(
            reason.contains("sub-agent general-purpose ada3551d of this session")
                && reason.contains("src/lib.rs"),
            "{sweep}: {reason}"
        );
    }
    // Its own file by explicit path passes, and so do everyday commands.
    for ok in ["git add README.md", "git status", "git diff", "cargo test"] {
        hook(&repo.root, &bash(&repo, S, Some(A2), ok)).assert_silent();
    }
}

#[test]
fn the_main_threads_sweep_waits_for_its_sub_agents() {
    let repo = TestRepo::new();
    start(&repo, A1);
    start(&repo, A2);
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n");
    edits(&repo, S, Some(A2), "README.md", "# two\n");
    let (d, reason) = decision(&hook(&repo.root, &bash(&repo, S, None, "git add -A")));
    assert_eq!(d, "deny");
    assert!(
        reason.contains("ada3551d") && reason.contains("a37b1312"),
        "{reason}"
    );
    stop(&repo, A1).assert_silent();
    let (d, reason) = decision(&hook(&repo.root, &bash(&repo, S, None, "git add -A")));
    assert_eq!(d, "deny", "A2 still works");
    assert!(
        !reason.contains("ada3551d") && reason.contains("README.md"),
        "{reason}"
    );
    stop(&repo, A2).assert_silent();
    hook(
        &repo.root,
        &bash(&repo, S, None, "git add -A && git commit -m both"),
    )
    .assert_silent();
    // What they left is the session's own: the main thread holds both files now.
    let status = status_of(&repo.root);
    let main = session_of(&status, S);
    let mut held = held_paths(main);
    held.sort_unstable();
    assert_eq!(held, ["README.md", "src/lib.rs"]);
    assert!(
        main.get("sub_agents").is_none(),
        "stopped sub-agents are not live: {main}"
    );
    // Another session is still refused the session's files.
    let (d, _) = decision(&hook(&repo.root, &bash(&repo, OTHER, None, "git stash")));
    assert_eq!(d, "deny");
}

#[test]
fn status_shows_sub_agents_under_their_session() {
    let repo = TestRepo::new();
    edits(&repo, S, None, "README.md", "# main\n");
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n");
    let status = status_of(&repo.root);
    let list = session_list(&status);
    assert_eq!(list.len(), 1, "one session: {status}");
    let subs = list[0]["sub_agents"].as_array().expect("sub_agents");
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0]["agent_id"], A1);
    assert_eq!(subs[0]["agent_type"], "general-purpose");
    assert_eq!(subs[0]["id"], S);
    assert_eq!(held_paths(&subs[0]), ["src/lib.rs"]);
    assert_eq!(subs[0]["files"][0]["dirty"], true);
    let text = String::from_utf8(dibs(&repo.root, &["status"]).stdout).unwrap();
    assert!(
        text.contains("  sub-agent general-purpose ada3551d of claude 5f0c2b7e"),
        "{text}"
    );
}

#[test]
fn a_stop_without_a_start_and_a_session_end_leave_nothing_behind() {
    let repo = TestRepo::new();
    edits(&repo, S, None, "README.md", "# main\n");
    stop(&repo, "never-started").assert_silent();
    let status = status_of(&repo.root);
    assert!(
        session_of(&status, S).get("sub_agents").is_none(),
        "{status}"
    );
    assert!(
        !repo
            .store_dir()
            .join("sessions")
            .read_dir()
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().contains("never")),
        "no record for a sub-agent the store never saw"
    );
    // The session ends while a sub-agent is live: both end, nothing is held.
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n");
    hook(&repo.root, &fixture("SessionEnd.json", &repo.root)).assert_silent();
    assert!(session_list(&status_of(&repo.root)).is_empty());
    hook(&repo.root, &bash(&repo, OTHER, None, "git stash")).assert_silent();
}

#[test]
fn lost_update_names_the_sibling() {
    let repo = TestRepo::new();
    let path = repo.root.join("src/lib.rs");
    let mut read = fixture("PostToolUse-Read.json", &repo.root);
    read["session_id"] = json!(S);
    read["tool_input"] = json!({"file_path": path});
    hook(&repo.root, &by(read, Some(A2))).assert_silent();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 2 }\n");
    let mut write = fixture("PreToolUse-Write.json", &repo.root);
    write["session_id"] = json!(S);
    write["tool_input"] = json!({"file_path": path, "content": "x"});
    let (d, reason) = decision(&hook(&repo.root, &by(write, Some(A2))));
    assert_eq!(d, "deny");
    assert!(
        reason.contains("sub-agent general-purpose ada3551d of this session edited it"),
        "{reason}"
    );
}

#[test]
fn hostile_agent_ids_stay_data() {
    let repo = TestRepo::new();
    // An empty agent_id is the main thread: no peer of itself.
    edits(&repo, S, None, "README.md", "# main\n");
    let mut empty = edit(&repo, S, Some(A1), "README.md");
    empty["agent_id"] = json!("");
    hook(&repo.root, &empty).assert_silent();
    // A huge id and one with control characters are two bounded, printable actors.
    let huge = "z".repeat(200_000);
    edits(&repo, S, Some(&huge), "src/lib.rs", "pub fn a() { 3 }\n");
    let w = warning(&hook(
        &repo.root,
        &edit(&repo, S, Some("bad\u{1b}[2J\nid"), "src/lib.rs"),
    ));
    assert!(
        w.contains("sub-agent general-purpose zzzzzzzz of this session"),
        "{w}"
    );
    assert!(!w.contains('\u{1b}'), "{w:?}");
    assert!(w.len() < 2000, "{}", w.len());
    let status = status_of(&repo.root);
    let subs = session_of(&status, S)["sub_agents"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(subs.len(), 2, "{status}");
    for s in &subs {
        let id = s["agent_id"].as_str().unwrap();
        assert!(
            id.len() <= 64 && !id.chars().any(char::is_control),
            "{id:?}"
        );
    }
    for e in repo.store_dir().join("sessions").read_dir().unwrap() {
        let name = e.unwrap().file_name();
        assert!(name.len() < 200, "{name:?}");
    }
}

/// `git commit` with the git hooks installed, as a shell of session `S` runs it.
fn commit(repo: &TestRepo, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = git_command(&repo.root);
    cmd.args(["commit", "-qm", "x"])
        .env_remove("DIBS_SESSION")
        .env_remove("DIBS_AGENT")
        .env_remove("WT_GUARD_BYPASS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn the_pre_commit_hook_sees_sub_agents() {
    let repo = TestRepo::new();
    let path = install_git_hooks(&repo.root);
    edits(&repo, S, Some(A1), "src/lib.rs", "pub fn a() { 1 }\n");
    git(&repo.root, &["add", "src/lib.rs"]);
    // A sibling named by DIBS_AGENT is refused, with the holder named.
    let out = commit(
        &repo,
        &[
            ("PATH", &path),
            ("CLAUDE_CODE_SESSION_ID", S),
            ("DIBS_AGENT", A2),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("sub-agent general-purpose ada3551d of this session"),
        "{err}"
    );
    // Another session is refused too.
    let out = commit(&repo, &[("PATH", &path), ("CLAUDE_CODE_SESSION_ID", OTHER)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("sub-agent general-purpose ada3551d of claude session 5f0c2b7e"),
        "{err}"
    );
    // The session's own shell (Claude Code gives its sub-agents no id of their own) commits.
    let out = commit(&repo, &[("PATH", &path), ("CLAUDE_CODE_SESSION_ID", S)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

//! The `ExitWorktree` guard through the real binary with the fixture's shape: a host-made
//! worktree (`.claude/worktrees/NAME` on `worktree-NAME`) with uncommitted files, commits on no
//! remote, or another live actor in it is put to the person (and audited); a clean, pushed one
//! passes silently, as do `action: "keep"` and everything outside a linked worktree.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

const S: &str = "5f0c2b7e-3a41-4c8e-9d2a-1b6e4f8a9c30";
const OTHER: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn exit_event(cwd: &Path, input: Value) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks/claude-code/PreToolUse-ExitWorktree.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["cwd"] = json!(cwd);
    v["tool_input"] = input;
    v
}

fn remove(cwd: &Path) -> HookRun {
    hook(
        cwd,
        &exit_event(cwd, json!({"action": "remove", "discard_changes": true})),
    )
}

/// The reason of an "ask" (panics on anything else).
fn asked(run: &HookRun) -> String {
    let (decision, reason, _) = hook_decision(run).unwrap_or_else(|| panic!("an answer: {run:?}"));
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.ends_with("[guard:exit-worktree]"), "{reason}");
    reason
}

fn audit(repo: &TestRepo) -> Vec<Value> {
    std::fs::read_to_string(repo.store_dir().join("audit.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_clean_pushed_worktree_passes_silently() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    remove(&wt).assert_silent();
    // Ignored files are not work at risk.
    std::fs::write(wt.join(".gitignore"), "target/\n").unwrap();
    git(&wt, &["add", ".gitignore"]);
    git(&wt, &["commit", "-qm", "ignore"]);
    git(&wt, &["push", "-q"]);
    std::fs::create_dir_all(wt.join("target")).unwrap();
    std::fs::write(wt.join("target/out"), "x").unwrap();
    remove(&wt).assert_silent();
    assert!(audit(&repo).is_empty());
}

#[test]
fn uncommitted_files_are_named_as_porcelain_lines_and_audited() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    repo.write(&wt, "src/lib.rs", "pub fn a() { 1 }\n");
    repo.write(&wt, "notes.md", "draft\n");
    let reason = asked(&remove(&wt));
    assert!(
        reason.contains(" M src/lib.rs") && reason.contains("?? notes.md"),
        "{reason}"
    );
    assert!(
        reason.contains("fix-login") && reason.contains("discard_changes"),
        "{reason}"
    );
    // discard_changes false is stopped as well: the host's own check does not see the branch.
    let keep_changes = exit_event(&wt, json!({"action": "remove", "discard_changes": false}));
    let reason = asked(&hook(&wt, &keep_changes));
    assert!(reason.contains("(remove)"), "{reason}");
    let lines = audit(&repo);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["verdict"], "ask");
    assert_eq!(lines[0]["rule"], "exit-worktree");
    assert_eq!(lines[0]["session"], S);
    assert!(
        lines[0]["command"]
            .as_str()
            .unwrap()
            .starts_with("ExitWorktree")
    );
    let status = lines[0]["worktrees"][0]["status"].as_array().unwrap();
    assert_eq!(status.len(), 2, "{status:?}");
    // From a folder below the worktree root it is the same worktree.
    asked(&remove(&wt.join("src")));
}

#[test]
fn commits_on_no_remote_are_named() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    repo.write(&wt, "src/lib.rs", "pub fn a() { 2 }\n");
    git(&wt, &["commit", "-qam", "half of the login fix"]);
    let reason = asked(&remove(&wt));
    assert!(reason.contains("half of the login fix"), "{reason}");
    assert!(!reason.contains("uncommitted"), "{reason}");
    // Pushed, it passes again.
    git(&wt, &["push", "-q"]);
    remove(&wt).assert_silent();
}

#[test]
fn another_live_actor_in_the_worktree_is_named() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    hook(
        &wt,
        &claude_event("SessionStart", OTHER, &wt, json!({"source": "startup"})),
    );
    let reason = asked(&remove(&wt));
    assert!(
        reason.contains("live in it now: claude session bbbbbbbb"),
        "{reason}"
    );
    hook(
        &wt,
        &claude_event("SessionEnd", OTHER, &wt, json!({"reason": "exit"})),
    );
    remove(&wt).assert_silent();
    // A live sub-agent of the session itself works there too.
    let mut read = claude_event(
        "PostToolUse",
        S,
        &wt,
        json!({"tool_name": "Read", "tool_input": {"file_path": wt.join("README.md")},
               "agent_id": "a7c41e09", "agent_type": "Explore"}),
    );
    hook(&wt, &read).assert_silent();
    let reason = asked(&remove(&wt));
    assert!(
        reason.contains("sub-agent Explore a7c41e09 of this session"),
        "{reason}"
    );
    read["hook_event_name"] = json!("SubagentStop");
    hook(&wt, &read).assert_silent();
    remove(&wt).assert_silent();
}

#[test]
fn keep_other_inputs_and_places_outside_a_linked_worktree_are_silent() {
    let repo = TestRepo::new();
    let wt = repo.host_worktree("fix-login");
    repo.write(&wt, "src/lib.rs", "dirty\n");
    for input in [
        json!({"action": "keep"}),
        json!({"action": "keep", "discard_changes": true}),
        json!({}),
        json!(null),
        json!("remove"),
        json!({"action": ["remove"]}),
    ] {
        hook(&wt, &exit_event(&wt, input)).assert_silent();
    }
    // The main worktree is never removed by the tool; a folder in no repository has nothing.
    let plain = TestRepo::new();
    plain.write(&plain.root, "src/lib.rs", "dirty\n");
    remove(&plain.root).assert_silent();
    let outside = tempfile::tempdir().unwrap();
    remove(outside.path()).assert_silent();
    // A PostToolUse (the tool already ran) has nothing to stop.
    let mut post = exit_event(&wt, json!({"action": "remove", "discard_changes": true}));
    post["hook_event_name"] = json!("PostToolUse");
    hook(&wt, &post).assert_silent();
}

#[test]
fn from_the_main_checkout_the_worktree_the_session_entered_is_judged() {
    let repo = TestRepo::new();
    // The session worked in `fix` (claude -w), then `cd`-ed back to the main checkout: the
    // host still removes `fix`.
    let fix = repo.host_worktree("fix");
    let pre = edit_event("PreToolUse", "Write", S, &fix, &fix.join("fix.txt"));
    hook(&fix, &pre).assert_silent();
    repo.write(&fix, "fix.txt", "the fix\n");
    let other = repo.host_worktree("other");
    repo.write(&other, "theirs.txt", "someone else's\n");
    let reason = asked(&remove(&repo.root));
    assert!(
        reason.contains("fix.txt") && !reason.contains("theirs.txt"),
        "{reason}"
    );
    // A session that worked in none of the host's worktrees: which one is meant cannot be
    // told, so each at risk is judged.
    let mut stranger = exit_event(
        &repo.root,
        json!({"action": "remove", "discard_changes": true}),
    );
    stranger["session_id"] = json!(OTHER);
    let reason = asked(&hook(&repo.root, &stranger));
    assert!(reason.contains("worktree"), "{reason}");
    // Clean and pushed, both pass from anywhere.
    std::fs::remove_file(fix.join("fix.txt")).unwrap();
    std::fs::remove_file(other.join("theirs.txt")).unwrap();
    remove(&repo.root).assert_silent();
}

//! Awareness and continuity through the real binary and real host processes: the session-start
//! disclosure, the prompt block, `/clear` hand-over, a crashed agent, fencing of a stale process,
//! and the lost-update refusal.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn start(session: &str, cwd: &Path, source: &str) -> Value {
    claude_event(
        "SessionStart",
        session,
        cwd,
        json!({"source": source, "model": "m"}),
    )
}

fn prompt(session: &str, cwd: &Path, text: &str) -> Value {
    claude_event("UserPromptSubmit", session, cwd, json!({"prompt": text}))
}

fn context(run: &HookRun, event: &str) -> String {
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn session_ids(dir: &Path) -> Vec<String> {
    session_list(&status_of(dir))
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn session_start_discloses_peers_with_their_dirty_files_and_the_house_rule() {
    let repo = TestRepo::new();
    let mut host_a = FakeHost::start();
    host_a
        .hook(&repo.root, &start(A, &repo.root, "startup"))
        .assert_silent();
    host_a
        .hook(
            &repo.root,
            &prompt(A, &repo.root, "Delete the SessionsView"),
        )
        .assert_silent();
    repo.write(&repo.root, "src/lib.rs", "pub fn changed() {}\n");
    host_a
        .hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"))
        .assert_silent();

    let mut host_b = FakeHost::start();
    let text = context(
        &host_b.hook(&repo.root, &start(B, &repo.root, "startup")),
        "SessionStart",
    );
    assert!(
        text.contains("claude session aaaaaaaa (\"Delete the SessionsView\")"),
        "{text}"
    );
    assert!(text.contains("on branch main"), "{text}");
    assert!(text.contains("uncommitted: src/lib.rs"), "{text}");
    assert!(
        text.contains("never revert, stash, reset, clean or commit another session's changes"),
        "{text}"
    );
    assert!(text.lines().count() <= 4, "{text}");
}

#[test]
fn session_start_alone_is_silent_and_exports_the_session_id() {
    let repo = TestRepo::new();
    let env_file = repo.tmp.path().join("claude-env.sh");
    let mut host = FakeHost::start();
    let run = host.hook_env(
        &repo.root,
        &start(A, &repo.root, "startup"),
        &[("CLAUDE_ENV_FILE", env_file.to_str().unwrap())],
    );
    run.assert_silent();
    let exported = std::fs::read_to_string(&env_file).unwrap();
    assert_eq!(exported, format!("export DIBS_SESSION='{A}'\n"));
}

#[test]
fn nested_worktrees_share_a_checkout_and_sibling_worktrees_do_not() {
    let repo = TestRepo::new();
    let nested = repo.root.join(".worktrees/lane");
    git(
        &repo.root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "lane",
            nested.to_str().unwrap(),
        ],
    );
    let sibling = repo.worktree("sibling");
    let mut host_a = FakeHost::start();
    host_a
        .hook(&repo.root, &start(A, &repo.root, "startup"))
        .assert_silent();

    let mut host_b = FakeHost::start();
    let text = context(
        &host_b.hook(&nested, &start(B, &nested, "startup")),
        "SessionStart",
    );
    assert!(text.contains("aaaaaaaa"), "{text}");
    let mut host_c = FakeHost::start();
    host_c
        .hook(&sibling, &start("cccccccc-3333", &sibling, "startup"))
        .assert_silent();
}

#[test]
fn the_prompt_block_names_peers_sharing_warm_files_in_two_lines() {
    let repo = TestRepo::new();
    let mut host_a = FakeHost::start();
    let mut host_b = FakeHost::start();
    host_a
        .hook(&repo.root, &prompt(A, &repo.root, "Refactor the parser"))
        .assert_silent();
    host_b
        .hook(&repo.root, &prompt(B, &repo.root, "Fix the lexer"))
        .assert_silent();
    host_a.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    host_b.hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    for i in 0..6 {
        let f = repo.root.join(format!("src/m{i}.rs"));
        host_a.hook(
            &repo.root,
            &edit_event("PreToolUse", "Write", A, &repo.root, &f),
        );
        host_b.hook(
            &repo.root,
            &edit_event("PreToolUse", "Write", B, &repo.root, &f),
        );
    }
    let text = context(
        &host_a.hook(&repo.root, &prompt(A, &repo.root, "next")),
        "UserPromptSubmit",
    );
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.contains("claude session bbbbbbbb (\"Fix the lexer\")"),
        "{text}"
    );
    assert!(text.contains("and 3 more"), "{text}");
    // The label stays the first prompt.
    assert!(!text.contains("next"));
}

#[test]
fn a_file_committed_long_ago_is_not_warm() {
    let repo = TestRepo::new();
    git(&repo.root, &["config", "dibs.warm", "1s"]);
    let mut host_a = FakeHost::start();
    let mut host_b = FakeHost::start();
    host_a.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    host_b.hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    host_a
        .hook(&repo.root, &prompt(A, &repo.root, "go on"))
        .assert_silent();
    // Still dirty in git's eyes: warm again.
    repo.write(&repo.root, "src/lib.rs", "pub fn dirty() {}\n");
    let text = context(
        &host_a.hook(&repo.root, &prompt(A, &repo.root, "go on")),
        "UserPromptSubmit",
    );
    assert!(text.contains("src/lib.rs"), "{text}");
}

#[test]
fn a_crashed_agent_stops_holding_at_once_and_status_reports_it_until_dealt_with() {
    let repo = TestRepo::new();
    let mut host_a = FakeHost::start();
    host_a.hook(&repo.root, &start(A, &repo.root, "startup"));
    host_a.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn half_done() {}\n");
    let run = hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    assert!(
        run.stdout.contains("aaaaaaaa"),
        "a live peer warns: {run:?}"
    );

    host_a.kill();
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs")).assert_silent();

    for _ in 0..2 {
        let shown = String::from_utf8(dibs(&repo.root, &["status"]).stdout).unwrap();
        assert!(
            shown.contains("claude session aaaaaaaa died with uncommitted files: src/lib.rs"),
            "{shown}"
        );
    }
    assert_eq!(session_ids(&repo.root), [B]);
}

#[test]
fn a_session_resumed_in_another_process_fences_the_old_one() {
    let repo = TestRepo::new();
    let mut old_window = FakeHost::start();
    let mut new_window = FakeHost::start();
    old_window
        .hook(&repo.root, &start(A, &repo.root, "startup"))
        .assert_silent();
    old_window
        .hook(&repo.root, &repo.pre_edit(A, "README.md"))
        .assert_silent();
    new_window
        .hook(&repo.root, &start(A, &repo.root, "resume"))
        .assert_silent();

    // The old process can no longer claim, release or renew: its hook answers, records nothing.
    let run = old_window.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
    assert!(
        run.stderr.contains("resumed by another process"),
        "{}",
        run.stderr
    );
    // What its edit tool writes is still kept: the work is not the record's to drop.
    let f2 = repo.root.join("f2.txt");
    std::fs::write(&f2, "the old window keeps working\n").unwrap();
    let post = old_window.hook(
        &repo.root,
        &edit_event("PostToolUse", "Write", A, &repo.root, &f2),
    );
    assert_eq!((post.code, post.stdout.as_str()), (0, ""));
    std::fs::remove_file(&f2).unwrap();
    let back = dibs(&repo.root, &["recover", "f2.txt"]);
    assert!(back.status.success(), "{back:?}");
    assert_eq!(
        std::fs::read_to_string(&f2).unwrap(),
        "the old window keeps working\n"
    );
    let end = old_window.hook(
        &repo.root,
        &claude_event("SessionEnd", A, &repo.root, json!({"reason": "other"})),
    );
    assert_eq!(end.code, 0);

    let v = status_of(&repo.root);
    let s = &v["sessions"][0];
    assert_eq!(s["generation"], 1);
    let files = held_paths(s);
    assert_eq!(
        files,
        ["README.md"],
        "the stale window neither claimed nor released"
    );

    new_window
        .hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"))
        .assert_silent();
}

#[test]
fn clear_hands_the_claims_to_the_new_session_of_the_same_process_only() {
    let repo = TestRepo::new();
    let mut host = FakeHost::start();
    host.hook(&repo.root, &start(A, &repo.root, "startup"));
    host.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    host.hook(
        &repo.root,
        &claude_event("SessionEnd", A, &repo.root, json!({"reason": "clear"})),
    );
    host.hook(&repo.root, &start(B, &repo.root, "clear"))
        .assert_silent();
    assert_eq!(session_ids(&repo.root), [B]);
    let run = hook(&repo.root, &repo.pre_edit("cccccccc-3", "src/lib.rs"));
    assert!(
        run.stdout.contains("bbbbbbbb") && !run.stdout.contains("aaaaaaaa"),
        "{run:?}"
    );

    // A session started with source clear in another process takes nothing over.
    let mut other = FakeHost::start();
    let run = other.hook(&repo.root, &start("dddddddd-4", &repo.root, "clear"));
    assert_eq!(run.code, 0);
    let v = status_of(&repo.root);
    assert!(held_paths(session_of(&v, "dddddddd-4")).is_empty());
}

#[test]
fn a_whole_file_write_over_a_peers_newer_change_is_refused() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    let read = |s: &str| {
        claude_event(
            "PostToolUse",
            s,
            &repo.root,
            json!({"tool_name": "Read", "tool_input": {"file_path": file}, "tool_response": {}}),
        )
    };
    // A reads; B edits the file afterwards; A's whole-file Write would erase B's change.
    hook(&repo.root, &read(A)).assert_silent();
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn from_b() {}\n");
    hook(
        &repo.root,
        &edit_event("PostToolUse", "Edit", B, &repo.root, &file),
    );
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Write", A, &repo.root, &file),
    );
    let v = run.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("bbbbbbbb") && reason.contains("Read src/lib.rs again"),
        "{reason}"
    );

    // After reading again, the write passes (with the co-edit note only).
    hook(&repo.root, &read(A)).assert_silent();
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Write", A, &repo.root, &file),
    );
    assert!(
        run.json()["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none()
    );
    // A file a session never saw passes; so does one only it changed.
    let fresh = repo.root.join("README.md");
    hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", B, &repo.root, &fresh),
    );
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Write", A, &repo.root, &fresh),
    );
    assert!(
        run.json()["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none()
    );
}

#[test]
fn uncommitted_files_are_told_apart_from_committed_ones_at_session_start() {
    let repo = TestRepo::new();
    repo.write(&repo.root, ".gitignore", "*.log\n");
    git(&repo.root, &["add", ".gitignore"]);
    git(&repo.root, &["commit", "-qm", "ignore logs"]);
    let mut host_a = FakeHost::start();
    for f in ["README.md", "src/lib.rs", "new.rs", "build.log", "gone.rs"] {
        host_a.hook(
            &repo.root,
            &edit_event("PreToolUse", "Write", A, &repo.root, &repo.root.join(f)),
        );
    }
    repo.write(&repo.root, "src/lib.rs", "pub fn edited() {}\n"); // changed
    repo.write(&repo.root, "new.rs", "fn new() {}\n"); // untracked
    repo.write(&repo.root, "build.log", "noise\n"); // ignored
    std::fs::remove_file(repo.root.join("README.md")).unwrap(); // deleted
    let mut host_b = FakeHost::start();
    let text = context(
        &host_b.hook(&repo.root, &start(B, &repo.root, "startup")),
        "SessionStart",
    );
    assert!(
        text.contains("uncommitted: README.md, src/lib.rs, new.rs"),
        "{text}"
    );
    assert!(
        !text.contains("build.log") && !text.contains("gone.rs"),
        "{text}"
    );
}

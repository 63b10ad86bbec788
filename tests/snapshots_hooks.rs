//! What hooks say to models and people, under snapshot tests (insta), through the real binary
//! on real repositories, beyond `tests/snapshots.rs`: sub-agents (`SubagentStart`'s block, a
//! sibling's and another session's sub-agent named in a co-edit warning, a sub-agent's sweep
//! refused, `SubagentStop` and the Agent tool itself silent), the git hooks
//! (`reference-transaction` refusing and letting through a branch deletion, `post-commit`),
//! the guard's refusals and questions in Codex's, Gemini's and Cursor's renderings, the
//! fail-closed question over a line it cannot parse, `ExitWorktree`, the self-protection
//! refusals (shell, edit tool, `ConfigChange`), a session start after `/clear`, and unreadable
//! hook input. The clock is the test-only `DIBS_NOW`; temporary folders are `[REPO]` / `[TMP]`
//! and object ids `[COMMIT]`.

mod common;

use common::snap::*;
use common::*;
use serde_json::{Value, json};

const S: &str = "5f0c2b7e-3a41-4c8e-9d2a-1b6e4f8a9c30";
const OTHER: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const A1: &str = "ada3551d9f4e5a0a0";
const A2: &str = "a37b13129a4430df6";

/// `event` as sub-agent `agent` (general-purpose) of its session.
fn by(mut event: Value, agent: &str) -> Value {
    event["agent_id"] = json!(agent);
    event["agent_type"] = json!("general-purpose");
    event
}

/// A stable answer: [`answer`] with object ids as `[COMMIT]`.
fn said(repo: &TestRepo, run: &HookRun) -> String {
    redact_ids(&repo.root, &answer(repo, run))
}

#[test]
fn sub_agent_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    at_now(root, &session_start(S, root, "startup"));
    at_now(
        root,
        &by(fixture("claude-code", "SubagentStart.json", root), A1),
    );
    at_now(root, &by(repo.pre_edit(S, "src/lib.rs"), A1));
    repo.write(root, "src/lib.rs", "pub fn a1s() {}\n");
    at_now(root, &repo.pre_edit(OTHER, "README.md"));
    insta::assert_snapshot!(
        "subagent_start",
        said(
            &repo,
            &at_now(
                root,
                &by(fixture("claude-code", "SubagentStart.json", root), A2)
            )
        )
    );
    insta::assert_snapshot!(
        "subagent_co_edit_sibling",
        said(
            &repo,
            &at_now(root, &by(repo.pre_edit(S, "src/lib.rs"), A2))
        )
    );
    insta::assert_snapshot!(
        "subagent_co_edit_other_session",
        said(&repo, &at_now(root, &repo.pre_edit(OTHER, "src/lib.rs")))
    );
    insta::assert_snapshot!(
        "subagent_sweep_refused",
        said(
            &repo,
            &at_now(root, &by(bash_event(S, root, "git add -A"), A2))
        )
    );
    // The Agent tool that starts a sub-agent, and a sub-agent stopping: nothing to say.
    let agent_tool = claude_event(
        "PreToolUse",
        S,
        root,
        json!({"tool_name": "Agent", "tool_input": {"description": "look around",
               "prompt": "find the parser", "subagent_type": "general-purpose"}}),
    );
    let task_tool = claude_event(
        "PreToolUse",
        S,
        root,
        json!({"tool_name": "Task", "tool_input": {"description": "look around",
               "prompt": "find the parser", "subagent_type": "general-purpose"}}),
    );
    let stop = by(fixture("claude-code", "SubagentStop.json", root), A1);
    let quiet = [
        ("Agent", at_now(root, &agent_tool)),
        ("Task", at_now(root, &task_tool)),
        ("SubagentStop", at_now(root, &stop)),
    ]
    .iter()
    .map(|(what, run)| format!("{what}: {}", said(&repo, run)))
    .collect::<Vec<_>>()
    .join("\n");
    insta::assert_snapshot!("subagent_silent", quiet);
}

#[test]
fn git_hook_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    assert!(
        cli(root, None, &["install", "--git-hooks"])
            .status
            .success()
    );
    git(root, &["branch", "unpushed"]);
    let wt = repo.worktree("side");
    git(&wt, &["checkout", "-q", "unpushed"]);
    repo.write(&wt, "only-here.txt", "work\n");
    git(&wt, &["add", "only-here.txt"]);
    let commit = git_as(
        &wt,
        OTHER,
        &["commit", "-qm", "only copy"],
        &[("DIBS_NOW", NOW)],
    );
    git(&wt, &["checkout", "-q", "--detach"]);
    let delete = |env: &[(&str, &str)]| {
        let mut all = vec![("DIBS_NOW", NOW)];
        all.extend_from_slice(env);
        let out = git_as(root, OTHER, &["branch", "-D", "unpushed"], &all);
        stable(&repo, &both(&out))
    };
    let text = format!(
        "$ git commit -m 'only copy' (post-commit)\n{}\n$ git branch -D unpushed\n{}\n\
         $ WT_GUARD_BYPASS=1 git branch -D unpushed\n{}",
        stable(&repo, &both(&commit)),
        delete(&[]),
        delete(&[("WT_GUARD_BYPASS", "1")]),
    );
    insta::assert_snapshot!("git_hooks", text);
}

#[test]
fn guard_in_each_hosts_rendering() {
    let repo = TestRepo::new();
    let root = &repo.root;
    at_now(root, &repo.pre_edit(OTHER, "src/lib.rs"));
    repo.write(root, "src/lib.rs", "pub fn peers() {}\n");
    let mut codex = fixture("codex", "PreToolUse-Bash.json", root);
    codex["tool_input"]["command"] = json!("git stash");
    insta::assert_snapshot!(
        "guard_codex_refusal",
        said(&repo, &at_now_as(root, "codex", &codex))
    );
    codex["tool_input"]["command"] = json!("cat list | xargs rm");
    insta::assert_snapshot!(
        "guard_codex_question_as_refusal",
        said(&repo, &at_now_as(root, "codex", &codex))
    );
    let gemini = json!({
        "session_id": "cccccccc-3333-4333-8333-333333333333", "cwd": root,
        "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "git reset --hard"},
        "transcript_path": "/tmp/x.jsonl", "timestamp": "2026-11-29T06:40:00Z"
    });
    insta::assert_snapshot!(
        "guard_gemini_refusal",
        said(&repo, &at_now_as(root, "gemini", &gemini))
    );
    let mut cursor = fixture("cursor", "beforeShellExecution-Shell.json", root);
    cursor["command"] = json!("git checkout .");
    insta::assert_snapshot!(
        "guard_cursor_refusal",
        said(&repo, &at_now_as(root, "cursor", &cursor))
    );
    insta::assert_snapshot!(
        "guard_unparsable_question",
        said(
            &repo,
            &at_now(root, &bash_event(S, root, "git stash 'unterminated"))
        )
    );
}

#[test]
fn exit_worktree_self_protection_clear_and_bad_input() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let wt = repo.host_worktree("fix-login");
    repo.write(&wt, "half.txt", "uncommitted\n");
    let mut exit = fixture("claude-code", "PreToolUse-ExitWorktree.json", root);
    exit["cwd"] = json!(wt);
    exit["session_id"] = json!(S);
    insta::assert_snapshot!("exit_worktree_question", said(&repo, &at_now(&wt, &exit)));

    assert!(cli(root, None, &["install"]).status.success());
    insta::assert_snapshot!(
        "self_protect_shell",
        said(
            &repo,
            &at_now(root, &bash_event(S, root, "rm -rf .git/dibs"))
        )
    );
    let settings = root.join(".claude/settings.json");
    let edit = claude_event(
        "PreToolUse",
        S,
        root,
        json!({"tool_name": "Write", "tool_input": {"file_path": settings,
               "content": "{\"hooks\": {}}\n"}}),
    );
    insta::assert_snapshot!("self_protect_edit", said(&repo, &at_now(root, &edit)));
    let wired = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        wired.replacen('{', "{\n  \"env\": {\"WT_GUARD_BYPASS\": \"1\"},", 1),
    )
    .unwrap();
    let change = claude_event(
        "ConfigChange",
        S,
        root,
        json!({"source": "project_settings", "file_path": settings}),
    );
    insta::assert_snapshot!(
        "self_protect_config_change",
        said(&repo, &at_now(root, &change))
    );
    std::fs::write(&settings, wired).unwrap();

    // `/clear`: the new session takes over the claims of the process's previous one.
    at_now(root, &session_start(S, root, "startup"));
    assert!(
        cli(root, Some(S), &["claim", "record:5", "--intent", "triage"])
            .status
            .success()
    );
    let cleared = "dddddddd-4444-4444-8444-444444444444";
    insta::assert_snapshot!(
        "session_start_after_clear",
        said(&repo, &at_now(root, &session_start(cleared, root, "clear")))
    );

    let bad = [
        ("empty", hook_raw(root, b"", &[])),
        ("not JSON", hook_raw(root, b"{ nope", &[])),
        ("not an object", hook_raw(root, b"[1, 2]\n", &[])),
        (
            "a guarded event that is not readable",
            hook_raw(
                root,
                br#"{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": 7}"#,
                &[],
            ),
        ),
    ]
    .iter()
    .map(|(what, run)| format!("{what}: {}", said(&repo, run)))
    .collect::<Vec<_>>()
    .join("\n");
    insta::assert_snapshot!("hook_bad_input", bad);
}

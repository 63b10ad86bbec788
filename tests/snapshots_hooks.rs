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

#[test]
fn prompt_blocks_and_shell_write_warnings_in_each_host() {
    let repo = TestRepo::new();
    let root = &repo.root;
    at_now(root, &repo.pre_edit(OTHER, "src/lib.rs"));
    repo.write(root, "src/lib.rs", "pub fn others() {}\n");
    // This session's warm file is the peer's too.
    let gemini_id = "cccccccc-3333-4333-8333-333333333333";
    let gemini_edit = json!({
        "session_id": gemini_id, "cwd": root, "hook_event_name": "AfterTool",
        "tool_name": "replace", "tool_input": {"file_path": root.join("src/lib.rs")},
        "tool_response": {"llmContent": "ok", "returnDisplay": "ok"},
        "transcript_path": "/tmp/x.jsonl", "timestamp": "2026-11-29T06:40:00Z"
    });
    at_now_as(root, "gemini", &gemini_edit);
    let gemini_prompt = json!({
        "session_id": gemini_id, "cwd": root, "hook_event_name": "BeforeAgent",
        "prompt": "finish it", "transcript_path": "/tmp/x.jsonl",
        "timestamp": "2026-11-29T06:40:00Z"
    });
    insta::assert_snapshot!(
        "prompt_gemini",
        said(&repo, &at_now_as(root, "gemini", &gemini_prompt))
    );
    let cursor_id = "c2e7a9f0-4d13-4b6a-8f25-7e1d3c9b0a64";
    let mut cursor_edit = fixture("cursor", "afterFileEdit-Write.json", root);
    cursor_edit["file_path"] = json!(root.join("src/lib.rs"));
    at_now_as(root, "cursor", &cursor_edit);
    let cursor_prompt = json!({
        "conversation_id": cursor_id, "generation_id": "g-2", "hook_event_name":
        "beforeSubmitPrompt", "prompt": "finish it", "workspace_roots": [root], "cwd": root,
        "cursor_version": "2.3.8"
    });
    insta::assert_snapshot!(
        "prompt_cursor",
        said(&repo, &at_now_as(root, "cursor", &cursor_prompt))
    );
    let codex_id = "019a7c3e-5b21-7d40-9e8f-3c6a1b2d4e5f";
    let mut patch = codex_patch(root);
    patch["session_id"] = json!(codex_id);
    at_now_as(root, "codex", &patch);
    let codex_prompt = json!({
        "session_id": codex_id, "cwd": root, "hook_event_name": "UserPromptSubmit",
        "prompt": "finish it", "model": "gpt-5.1-codex", "transcript_path": "/tmp/x.jsonl"
    });
    insta::assert_snapshot!(
        "prompt_codex",
        said(&repo, &at_now_as(root, "codex", &codex_prompt))
    );
    // A shell command that writes the peer's file: warned, not refused.
    insta::assert_snapshot!(
        "shell_write_claude",
        said(
            &repo,
            &at_now(
                root,
                &bash_event(S, root, "sed -i s/others/mine/ src/lib.rs")
            )
        )
    );
    let mut codex_sed = fixture("codex", "PreToolUse-Bash.json", root);
    codex_sed["session_id"] = json!(codex_id);
    codex_sed["tool_input"]["command"] = json!("echo x > src/lib.rs");
    insta::assert_snapshot!(
        "shell_write_codex",
        said(&repo, &at_now_as(root, "codex", &codex_sed))
    );
}

#[test]
fn guard_rules_as_check_explains_them() {
    let repo = TestRepo::new();
    let root = &repo.root;
    git(root, &["branch", "unpushed"]);
    let wt = repo.worktree("side");
    git(&wt, &["checkout", "-q", "unpushed"]);
    repo.write(&wt, "only.txt", "only copy\n");
    git(&wt, &["add", "only.txt"]);
    git(&wt, &["commit", "-qm", "only copy"]);
    // A branch only the remote has: pushed, then deleted here.
    git(&wt, &["checkout", "-q", "-b", "remote-only", "main"]);
    repo.write(&wt, "remote.txt", "on the remote only\n");
    git(&wt, &["add", "remote.txt"]);
    git(&wt, &["commit", "-qm", "remote only"]);
    git(&wt, &["push", "-q", "origin", "remote-only"]);
    git(&wt, &["checkout", "-q", "--detach", "main"]);
    git(root, &["branch", "-D", "remote-only"]);
    git(root, &["fetch", "-q", "origin"]);
    repo.write(root, "stashed.txt", "x\n");
    git(root, &["add", "stashed.txt"]);
    git(root, &["stash", "-q"]);
    at_now(root, &repo.pre_edit(OTHER, "src/lib.rs"));
    repo.write(root, "src/lib.rs", "pub fn peers() {}\n");
    repo.write(
        root,
        "package.json",
        "{\"scripts\": {\"clean\": \"rm -rf src\"}}\n",
    );
    let mut runs: Vec<(&[&str], std::process::Output)> = Vec::new();
    for cmd in [
        &["check", "--", "git branch -D unpushed"][..],
        &["check", "--", "git branch -f unpushed main"],
        &["check", "--", "git push origin --delete remote-only"],
        &["check", "--", "git stash clear"],
        &["check", "--", "git stash drop"],
        &["check", "--", "git clean -fd"],
        &["check", "--", "git checkout -f unpushed"],
        &["check", "--", "rm src/lib.rs"],
        &["check", "--", "git update-ref -d refs/dibs/snapshots/x"],
        &[
            "check",
            "--",
            "python3 -c 'import shutil; shutil.rmtree(target)'",
        ],
        &["check", "--", "npm run clean"],
        &["check", "--", "eval \"$CMD\""],
        &["check", "--json", "--", "git stash clear"],
    ] {
        runs.push((cmd, cli(root, Some(S), cmd)));
    }
    insta::assert_snapshot!("guard_rules_check", transcript(&repo, &runs));
}

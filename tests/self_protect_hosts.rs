//! Every host's edit tools are held to the same wiring rule as Claude Code's (red-team 3/07):
//! Cursor's Write and Delete, Gemini CLI's `write_file` and `replace`, and Codex's
//! `apply_patch` (Delete, Add, Update, Move) that take git-dibs's hooks out of any host's
//! settings file, or set the bypass in its `env`, are refused; edits that leave the hooks in
//! place go ahead.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

fn wired() -> TestRepo {
    let repo = TestRepo::new();
    let out = dibs(&repo.root, &["install", "--all"]);
    assert!(out.status.success(), "{}", out_text(&out));
    repo
}

fn cursor(root: &Path, tool: &str, input: Value) -> HookRun {
    let ev = json!({
        "conversation_id": "c1", "generation_id": "g1", "hook_event_name": "preToolUse",
        "workspace_roots": [root], "tool_name": tool, "tool_input": input,
        "tool_use_id": "t1", "cwd": root,
    });
    hook_host(root, "cursor", &ev, &[])
}

fn gemini(root: &Path, tool: &str, input: Value) -> HookRun {
    let ev = json!({
        "session_id": "g1", "transcript_path": "/tmp/g.jsonl", "cwd": root,
        "hook_event_name": "BeforeTool", "timestamp": "2026-12-01T00:00:00Z",
        "tool_name": tool, "tool_input": input,
    });
    hook_host(root, "gemini", &ev, &[])
}

fn codex(root: &Path, patch: &str) -> HookRun {
    let ev = json!({
        "session_id": "x1", "turn_id": "1", "transcript_path": null, "cwd": root,
        "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
        "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "t",
    });
    hook_host(root, "codex", &ev, &[])
}

fn refused(run: &HookRun, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    assert!(
        run.stdout.contains("deny") && run.stdout.contains("[guard:self-protect]"),
        "{what}: {}",
        run.stdout
    );
}

fn let_through(run: &HookRun, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    assert!(!run.stdout.contains("deny"), "{what}: {}", run.stdout);
}

#[test]
fn other_hosts_edit_tools_may_not_unwire_any_host() {
    let repo = wired();
    let r = &repo.root;
    for file in [
        ".claude/settings.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
        ".codex/hooks.json",
    ] {
        let path = r.join(file);
        refused(
            &cursor(r, "Write", json!({"file_path": path, "content": "{}"})),
            file,
        );
        refused(&cursor(r, "Delete", json!({"file_path": path})), file);
        refused(
            &gemini(r, "write_file", json!({"file_path": path, "content": "{}"})),
            file,
        );
        let patch = format!("*** Begin Patch\n*** Delete File: {file}\n*** End Patch\n");
        refused(&codex(r, &patch), file);
        let patch = format!(
            "*** Begin Patch\n*** Update File: {file}\n*** Move to: elsewhere.json\n*** End Patch\n"
        );
        refused(&codex(r, &patch), file);
    }
    // A replacement that takes the hook command out, and one that adds the bypass.
    let settings = std::fs::read_to_string(r.join(".gemini/settings.json")).unwrap();
    let command = settings
        .lines()
        .find(|l| l.contains("\"command\""))
        .expect("a hook command")
        .trim()
        .trim_end_matches(',')
        .to_owned();
    let path = r.join(".gemini/settings.json");
    let gone = json!({"file_path": path, "old_string": command, "new_string": "\"command\": \"true\"", "allow_multiple": true});
    refused(&gemini(r, "replace", gone), "gemini replace");
    let patch = format!(
        "*** Begin Patch\n*** Add File: notes.md\n+hello\n*** Update File: .gemini/settings.json\n@@\n-{0}\n+\"command\": \"true\"\n*** End Patch\n",
        settings
            .lines()
            .find(|l| l.contains("\"command\""))
            .unwrap()
    );
    refused(&codex(r, &patch), "codex update");
}

#[test]
fn edits_that_keep_the_hooks_and_other_files_go_ahead() {
    let repo = wired();
    let r = &repo.root;
    let_through(
        &cursor(
            r,
            "Write",
            json!({"file_path": r.join("src.rs"), "content": "fn main() {}\n"}),
        ),
        "cursor write",
    );
    let_through(
        &cursor(r, "Delete", json!({"file_path": r.join("old.rs")})),
        "cursor delete",
    );
    let_through(
        &gemini(
            r,
            "write_file",
            json!({"file_path": r.join("a.txt"), "content": "x"}),
        ),
        "gemini write",
    );
    let_through(
        &codex(
            r,
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** End Patch\n",
        ),
        "codex patch",
    );
    // The same settings file, whole, with one more setting: the hooks stay.
    let path = r.join(".gemini/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["theme"] = json!("dark");
    let_through(
        &gemini(
            r,
            "write_file",
            json!({"file_path": path, "content": settings.to_string()}),
        ),
        "gemini keeps the hooks",
    );
}

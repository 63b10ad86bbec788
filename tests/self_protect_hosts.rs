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

fn sh(cwd: &Path, command: &str) {
    let out = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {}", out_text(&out));
}

fn claude_write(root: &Path, file: &Path, content: &str) -> HookRun {
    let ev = claude_event(
        "PreToolUse",
        "s2",
        root,
        json!({"tool_name": "Write", "tool_input": {"file_path": file, "content": content}}),
    );
    hook(root, &ev)
}

#[test]
fn a_link_to_a_settings_file_is_judged_as_the_file_it_reaches() {
    let repo = TestRepo::new();
    let r = &repo.root;
    assert!(dibs(r, &["install", "--claude"]).status.success());
    sh(r, "git add .claude && git commit -qm wire");
    // A linked folder and a linked file are judged by where they lead, so making them is no
    // question; a hard link is a second name that hides the file: making one is refused, and
    // one already there is found by the file it is.
    sh(
        r,
        "ln -s ./.claude c2 && ln -s .claude/settings.json s.json && ln .claude/settings.json hard.json",
    );
    for cmd in ["ln -s .claude c3", "ln -s .claude/settings.json s2.json"] {
        bash_hook_env(r, "s2", cmd, &[]).assert_silent();
    }
    for cmd in [
        "ln .claude/settings.json h2.json",
        "cp -l .claude/settings.json h3.json",
        "ln .git/dibs/audit.log a",
    ] {
        let run = bash_hook_env(r, "s2", cmd, &[]);
        refused(&run, cmd);
    }
    for via in [
        "c2/settings.json",
        "s.json",
        "hard.json",
        ".claude/settings.json",
    ] {
        refused(&claude_write(r, &r.join(via), "{}"), via);
        refused(&cursor(r, "Delete", json!({"file_path": r.join(via)})), via);
    }
    sh(r, "ln -s .git g");
    let run = claude_write(r, &r.join("g/config"), "[dibs]\n\tsnapshotExpiry = 1s\n");
    refused(&run, "g/config");
    // An ordinary file with two names, and a link to one, are edited in peace.
    sh(
        r,
        "echo a > notes.txt && ln notes.txt notes2.txt && ln -s notes.txt n3.txt",
    );
    let_through(&claude_write(r, &r.join("notes2.txt"), "b"), "notes2.txt");
    let_through(&claude_write(r, &r.join("n3.txt"), "b"), "n3.txt");
}

#[test]
fn config_change_refuses_taking_out_the_hooks_a_committed_file_holds() {
    let repo = TestRepo::new();
    let r = &repo.root;
    assert!(dibs(r, &["install", "--claude"]).status.success());
    let file = r.join(".claude/settings.json");
    let change = || {
        let ev = claude_event(
            "ConfigChange",
            "s2",
            r,
            json!({"source": "project_settings", "file_path": file}),
        );
        hook(r, &ev)
    };
    sh(r, "git add .claude && git commit -qm wire");
    change().assert_silent();
    std::fs::write(&file, "{}\n").unwrap();
    let run = change();
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("removes git-dibs's hooks"), "{run:?}");
    // Once the commit holds no wiring either, it is no change of the project's wiring.
    sh(r, "git commit -qam unwire");
    change().assert_silent();
}

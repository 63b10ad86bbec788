//! Unit tests of each host's events beyond the fixtures: Cursor's, Gemini CLI's and Codex's
//! names, shapes and odd fields, read into host-neutral events.

use serde_json::{Value, json};

use super::tests::parse;
use super::*;

#[test]
fn cursor_events() {
    let c = |extra: Value| {
        let mut v = json!({"conversation_id": "conv", "workspace_roots": ["/ws"],
            "cursor_version": "2.3.8"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        parse(&v)
    };
    let shell = c(
        json!({"hook_event_name": "preToolUse", "tool_name": "Shell",
        "tool_input": {"command": "git status", "working_directory": "/ws/sub"}, "cwd": "/ws"}),
    );
    assert_eq!(
        shell.kind,
        EventKind::BeforeShell {
            command: "git status".into()
        }
    );
    assert_eq!(shell.cwd, PathBuf::from("/ws/sub"));
    let prompt = c(json!({"hook_event_name": "beforeSubmitPrompt", "prompt": "fix it"}));
    assert_eq!(
        prompt.kind,
        EventKind::Prompt {
            prompt: "fix it".into()
        }
    );
    assert_eq!(
        prompt.cwd,
        PathBuf::from("/ws"),
        "cwd falls back to the workspace root"
    );
    let start = c(json!({"hook_event_name": "sessionStart", "session_id": "conv"}));
    assert_eq!(
        start.kind,
        EventKind::SessionStart {
            source: StartSource::Startup
        }
    );
    let end = c(json!({"hook_event_name": "sessionEnd", "reason": "user_close"}));
    assert_eq!(
        end.kind,
        EventKind::SessionEnd {
            reason: "user_close".into()
        }
    );
    let delete = c(
        json!({"hook_event_name": "preToolUse", "tool_name": "Delete",
        "tool_input": {"path": "/ws/a.rs"}}),
    );
    assert_eq!(
        delete.kind,
        EventKind::BeforeEdit {
            tool: "Delete".into(),
            paths: vec!["/ws/a.rs".into()],
            change: EditChange::Delete,
        }
    );
    let read = c(
        json!({"hook_event_name": "postToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "/ws/a.rs"}}),
    );
    assert_eq!(
        read.kind,
        EventKind::AfterRead {
            path: "/ws/a.rs".into()
        }
    );
    let after = c(
        json!({"hook_event_name": "afterShellExecution", "command": "make",
        "duration": 1500}),
    );
    assert_eq!(
        after.kind,
        EventKind::AfterShell {
            command: "make".into(),
            took: Some(std::time::Duration::from_millis(1500)),
            background: false,
        }
    );
    // An imported Claude hook with Claude's event name is read in Cursor's terms.
    let imported = c(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}}));
    assert_eq!(imported.host, Host::Cursor);
    assert_eq!(
        imported.kind,
        EventKind::BeforeShell {
            command: "ls".into()
        }
    );
    let other = c(json!({"hook_event_name": "stop", "status": "completed"}));
    assert_eq!(other.kind, EventKind::Ignored);
    let none = parse_event(
        br#"{"hook_event_name":"afterFileEdit","cursor_version":"1"}"#,
        None,
    );
    assert!(matches!(
        none,
        Err(ProtocolError::Missing("conversation_id"))
    ));
}

#[test]
fn gemini_background_flag() {
    let g = |event: &str, input: Value| {
        parse(
            &json!({"session_id": "g", "cwd": "/r", "hook_event_name": event,
            "tool_name": "run_shell_command", "tool_input": input,
            "tool_response": {"llmContent": "started"}}),
        )
        .kind
    };
    let after = |command: &str, background: bool| EventKind::AfterShell {
        command: command.into(),
        took: None,
        background,
    };
    // `is_background: true`: the host runs it in the background, AfterTool comes at once.
    let job = json!({"command": "python3 job.py", "is_background": true});
    assert_eq!(g("AfterTool", job.clone()), after("python3 job.py", true));
    // BeforeTool is the guard's as for any command line.
    assert_eq!(
        g("BeforeTool", job),
        EventKind::BeforeShell {
            command: "python3 job.py".into()
        }
    );
    // Absent, false, or not a boolean: not said.
    for input in [
        json!({"command": "make"}),
        json!({"command": "make", "is_background": false}),
        json!({"command": "make", "is_background": "true"}),
        json!({"command": "make", "is_background": null}),
    ] {
        assert_eq!(g("AfterTool", input), after("make", false));
    }
    // Claude Code's spelling means nothing to Gemini's tool.
    let claude = json!({"command": "make", "run_in_background": true});
    assert_eq!(g("AfterTool", claude), after("make", false));
}

#[test]
fn gemini_events() {
    let g = |extra: Value| {
        let mut v = json!({"session_id": "g", "cwd": "/r", "timestamp": "2026-11-29T06:31:12Z",
            "transcript_path": ""});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        parse(&v)
    };
    let write = g(
        json!({"hook_event_name": "BeforeTool", "tool_name": "write_file",
        "tool_input": {"file_path": "/r/a.rs", "content": "x"}}),
    );
    assert_eq!(
        write.kind,
        EventKind::BeforeEdit {
            tool: "write_file".into(),
            paths: vec!["/r/a.rs".into()],
            change: EditChange::Whole("x".into()),
        }
    );
    // After the edit the peers are checked again: only AfterTool context reaches the model.
    let after = g(
        json!({"hook_event_name": "AfterTool", "tool_name": "replace",
        "tool_input": {"file_path": "/r/a.rs"}, "tool_response": {"llmContent": "ok"}}),
    );
    assert_eq!(
        after.kind,
        EventKind::BeforeEdit {
            tool: "replace".into(),
            paths: vec!["/r/a.rs".into()],
            change: EditChange::Unknown,
        }
    );
    assert_eq!(after.event_name, "AfterTool");
    let failed = g(
        json!({"hook_event_name": "AfterTool", "tool_name": "replace",
        "tool_input": {"file_path": "/r/a.rs"}, "tool_response": {"error": "no match"}}),
    );
    assert_eq!(failed.kind, EventKind::Ignored);
    let read = g(
        json!({"hook_event_name": "AfterTool", "tool_name": "read_file",
        "tool_input": {"file_path": "/r/a.rs"}, "tool_response": {}}),
    );
    assert_eq!(
        read.kind,
        EventKind::AfterRead {
            path: "/r/a.rs".into()
        }
    );
    let before_read = g(
        json!({"hook_event_name": "BeforeTool", "tool_name": "read_file",
        "tool_input": {"file_path": "/r/a.rs"}}),
    );
    assert_eq!(before_read.kind, EventKind::Ignored);
    let shell = g(
        json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "git branch -D x", "dir_path": "sub"}}),
    );
    assert_eq!(
        shell.kind,
        EventKind::BeforeShell {
            command: "git branch -D x".into()
        }
    );
    assert_eq!(shell.cwd, PathBuf::from("/r/sub"));
    let shell = g(
        json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command",
        "tool_input": {"command": "make", "dir_path": "/abs"}}),
    );
    assert_eq!(
        shell.kind,
        EventKind::AfterShell {
            command: "make".into(),
            took: None,
            background: false,
        }
    );
    assert_eq!(shell.cwd, PathBuf::from("/abs"));
    let prompt = g(json!({"hook_event_name": "BeforeAgent", "prompt": "do it"}));
    assert_eq!(
        prompt.kind,
        EventKind::Prompt {
            prompt: "do it".into()
        }
    );
    let start = g(json!({"hook_event_name": "SessionStart", "source": "resume"}));
    assert_eq!(
        start.kind,
        EventKind::SessionStart {
            source: StartSource::Resume
        }
    );
    let end = g(json!({"hook_event_name": "SessionEnd", "reason": "exit"}));
    assert_eq!(
        end.kind,
        EventKind::SessionEnd {
            reason: "exit".into()
        }
    );
    let model = g(json!({"hook_event_name": "BeforeModel"}));
    assert_eq!(model.kind, EventKind::Ignored);
}

#[test]
fn codex_events() {
    let x = |extra: Value| {
        let mut v = json!({"session_id": "cx", "turn_id": "1", "cwd": "/r", "model": "gpt-5.5",
            "permission_mode": "default", "transcript_path": null});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        parse(&v)
    };
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-a\n+b\n*** Add File: /abs/new.rs\n\
        +x\n  *** Delete File: old.rs\n*** Update File: src/mv.rs\n*** Move to: src/moved.rs\n\
        *** Update File: src/a.rs\n*** End Patch\n";
    let pre = x(
        json!({"hook_event_name": "PreToolUse", "tool_name": "apply_patch",
        "tool_input": {"command": patch}}),
    );
    let paths: Vec<PathBuf> = [
        "src/a.rs",
        "/abs/new.rs",
        "old.rs",
        "src/mv.rs",
        "src/moved.rs",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(
        pre.kind,
        EventKind::BeforeEdit {
            tool: "apply_patch".into(),
            paths: paths.clone(),
            change: EditChange::Each(vec![
                (
                    paths[0].clone(),
                    EditChange::Replace(vec![("a".into(), "b".into(), false)])
                ),
                (paths[1].clone(), EditChange::Whole("x\n".into())),
                (paths[2].clone(), EditChange::Delete),
                (paths[3].clone(), EditChange::Delete),
                (paths[4].clone(), EditChange::Unknown),
            ]),
        }
    );
    let post = x(
        json!({"hook_event_name": "PostToolUse", "tool_name": "apply_patch",
        "tool_input": {"command": patch}, "tool_response": "ok"}),
    );
    assert_eq!(
        post.kind,
        EventKind::AfterEdit {
            tool: "apply_patch".into(),
            paths
        }
    );
    let empty = x(
        json!({"hook_event_name": "PreToolUse", "tool_name": "apply_patch",
        "tool_input": {"command": "*** Begin Patch\n*** End Patch"}}),
    );
    assert_eq!(empty.kind, EventKind::Ignored);
    let after = x(
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "make"}}),
    );
    assert_eq!(
        after.kind,
        EventKind::AfterShell {
            command: "make".into(),
            took: None,
            background: false,
        }
    );
    let argv = x(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": ["bash", "-lc", "git branch -D x"]}}));
    assert_eq!(
        argv.kind,
        EventKind::BeforeShell {
            command: "bash -lc 'git branch -D x'".into()
        }
    );
    let prompt = x(json!({"hook_event_name": "UserPromptSubmit", "prompt": "go"}));
    assert_eq!(
        prompt.kind,
        EventKind::Prompt {
            prompt: "go".into()
        }
    );
    let start = x(json!({"hook_event_name": "SessionStart", "source": "startup"}));
    assert_eq!(
        start.kind,
        EventKind::SessionStart {
            source: StartSource::Startup
        }
    );
    let stop = x(json!({"hook_event_name": "Stop", "stop_hook_active": false}));
    assert_eq!(stop.kind, EventKind::Ignored);
    assert_eq!(stop.host, Host::Codex);
    // An MCP server's tool, named as Claude Code names it, is swept before and scanned after.
    for (event, want) in [
        (
            "PreToolUse",
            EventKind::BeforeOtherTool {
                tool: "mcp__fs__write".into(),
                name: "write".into(),
            },
        ),
        (
            "PostToolUse",
            EventKind::AfterOtherTool {
                tool: "mcp__fs__write".into(),
                name: "write".into(),
                took: None,
            },
        ),
    ] {
        let mcp = x(
            json!({"hook_event_name": event, "tool_name": "mcp__fs__write",
            "tool_input": {}, "tool_response": "ok"}),
        );
        assert_eq!(mcp.kind, want, "{event}");
    }
}

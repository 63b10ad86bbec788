//! Files an agent changes through an MCP server's tools (the filesystem server's `write_file`
//! and `edit_file`, Serena's `replace_symbol_body`) are in the object store by the next tool
//! call, found by state as after a shell command, and claimed when the host says how long the
//! tool ran; a peer's `git clean` or `git checkout` cannot lose them for good. A tool whose name
//! says it only reads is left alone. The wiring: install adds the `mcp__.*` hooks, and a file
//! installed before they existed is out of date (doctor says so), not partly unwired (the
//! `ConfigChange` hook does not refuse it).

mod common;
#[path = "install_support/mod.rs"]
mod install_support;
mod recover_support;

use std::fs;
use std::path::Path;

use common::*;
use recover_support::*;
use serde_json::{Value, json};

/// The Claude Code event of an MCP tool call by `session` in `cwd`.
fn mcp_event(name: &str, session: &str, cwd: &Path, tool: &str, extra: Value) -> Value {
    let mut v = claude_event(
        name,
        session,
        cwd,
        json!({"tool_name": tool, "tool_input": {"path": cwd.join("x")}, "tool_use_id": "toolu_1"}),
    );
    if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
        for (k, val) in more {
            obj.insert(k.clone(), val.clone());
        }
    }
    v
}

/// An MCP tool call as Claude Code makes it: PreToolUse, the tool's work (`work`), then
/// PostToolUse with the run time. Both hooks must be silent and exit 0.
fn mcp_call(session: &str, cwd: &Path, tool: &str, work: impl FnOnce()) {
    hook(cwd, &mcp_event("PreToolUse", session, cwd, tool, json!({}))).assert_silent();
    work();
    let post = mcp_event(
        "PostToolUse",
        session,
        cwd,
        tool,
        json!({"tool_response": [{"type": "text", "text": "ok"}], "duration_ms": 40}),
    );
    hook(cwd, &post).assert_silent();
}

/// The snapshot refs of the clone at `root`, each with the commit it points at.
fn snapshot_tips(root: &Path) -> String {
    git_out(
        root,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/dibs/snapshots/",
        ],
    )
}

/// Session `owner` writes `notes.md` through its edit tool, then changes it to `text` by a way
/// no hook sees (which a sweep or a scan would take).
fn changed_unseen(root: &Path, text: &str) {
    Agent::new("owner", root).write("notes.md", b"first\n");
    std::thread::sleep(std::time::Duration::from_millis(20));
    fs::write(root.join("notes.md"), text).unwrap();
}

fn start(session: &str, cwd: &Path) {
    hook(cwd, &session_start(session, cwd, "startup"));
}

#[test]
fn a_file_an_mcp_tool_wrote_is_claimed_and_comes_back_after_a_peers_git_clean() {
    let repo = TestRepo::new();
    let root = &repo.root;
    start("mcp-writer", root);
    let body = b"def feature():\n    return 42\n\x00\xff binary tail\n".to_vec();
    mcp_call("mcp-writer", root, "mcp__filesystem__write_file", || {
        fs::create_dir_all(root.join("pkg")).unwrap();
        fs::write(root.join("pkg/feature.py"), &body).unwrap();
    });
    // Claimed for the session, as an edit tool's write is.
    let status = status_of(root);
    assert_eq!(
        held_paths(session_of(&status, "mcp-writer")),
        ["pkg/feature.py"],
        "{status}"
    );
    // So the guard stops a peer's clean, and when it runs anyway the file comes back.
    start("cleaner", root);
    let peer = Agent::new("cleaner", root);
    let verdict = hook_decision(&peer.pre_bash("git clean -fd"));
    assert!(
        verdict.as_ref().is_some_and(|(d, _, _)| d == "deny"),
        "{verdict:?}"
    );
    peer.bash("git clean -fdq");
    collect_garbage(root);
    assert!(!root.join("pkg/feature.py").exists());
    assert_recovers(
        root,
        &["pkg/feature.py"],
        &[(root.join("pkg/feature.py"), body)],
    );
}

#[test]
fn a_tracked_file_an_mcp_tool_edited_without_a_run_time_survives_a_peers_checkout() {
    let repo = TestRepo::new();
    let root = &repo.root;
    start("serena", root);
    let tool = "mcp__serena__replace_symbol_body";
    hook(
        root,
        &mcp_event("PreToolUse", "serena", root, tool, json!({})),
    )
    .assert_silent();
    fs::write(root.join("src/lib.rs"), "pub fn a() { 7 }\n").unwrap();
    // An older host sends no duration: the change is snapshotted, not claimed.
    let post = mcp_event("PostToolUse", "serena", root, tool, json!({}));
    hook(root, &post).assert_silent();
    let peer = Agent::new("reverter", root);
    peer.bash("git checkout -- .");
    collect_garbage(root);
    assert_eq!(
        fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        "pub fn a() {}\n"
    );
    assert_recovers(
        root,
        &["src/lib.rs", "--force"],
        &[(root.join("src/lib.rs"), b"pub fn a() { 7 }\n".to_vec())],
    );
}

#[test]
fn a_failed_mcp_tool_call_keeps_what_it_wrote_before_failing() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let tool = "mcp__filesystem__edit_file";
    hook(
        root,
        &mcp_event("PreToolUse", "half", root, tool, json!({})),
    )
    .assert_silent();
    fs::write(root.join("half.txt"), "half written\n").unwrap();
    let failed = mcp_event(
        "PostToolUseFailure",
        "half",
        root,
        tool,
        json!({"error": "disk full", "duration_ms": 12}),
    );
    hook(root, &failed).assert_silent();
    let listing = recover_json(root, &[]);
    assert!(
        listing["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "half.txt" && f["session"] == "half"),
        "{listing}"
    );
}

#[test]
fn before_an_mcp_tool_runs_a_peers_later_change_is_swept_into_its_snapshot() {
    let repo = TestRepo::new();
    let root = &repo.root;
    // The owner changes its file again by a way no hook sees.
    changed_unseen(root, "second, unseen\n");
    // Another session's MCP tool (a move, say) is about to run: the sweep comes first.
    let before = snapshot_tips(root);
    let pre = mcp_event(
        "PreToolUse",
        "mover",
        root,
        "mcp__filesystem__move_file",
        json!({}),
    );
    hook(root, &pre).assert_silent();
    assert_ne!(snapshot_tips(root), before, "the sweep made a snapshot");
    fs::remove_file(root.join("notes.md")).unwrap();
    collect_garbage(root);
    assert_recovers(
        root,
        &["notes.md"],
        &[(root.join("notes.md"), b"second, unseen\n".to_vec())],
    );
}

#[test]
fn a_read_only_mcp_tool_scans_nothing_and_a_writing_one_does() {
    let repo = TestRepo::new();
    let root = &repo.root;
    changed_unseen(root, "second\n");
    fs::write(root.join("loose.txt"), "untracked\n").unwrap();
    let refs = snapshot_tips(root);
    for tool in [
        "mcp__filesystem__read_file",
        "mcp__filesystem__read_multiple_files",
        "mcp__filesystem__list_directory",
        "mcp__filesystem__search_files",
        "mcp__serena__find_symbol",
        "mcp__ide__getDiagnostics",
    ] {
        mcp_call("reader", root, tool, || {});
    }
    assert_eq!(snapshot_tips(root), refs, "reading tools snapshot nothing");
    // A tool whose name may write does, with nothing written by it: the sweep and the scan.
    mcp_call("reader", root, "mcp__ide__openFile", || {});
    assert_ne!(snapshot_tips(root), refs);
}

#[test]
fn odd_mcp_events_stay_silent_and_exit_0() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let outside = tempfile::tempdir().unwrap();
    for (cwd, tool) in [
        (root.as_path(), "mcp__"),
        (root.as_path(), "mcp____"),
        (root.as_path(), "mcp__fs__"),
        (root.as_path(), "mcp__\u{1b}[31m__write\u{7}"),
        (outside.path(), "mcp__filesystem__write_file"),
    ] {
        for name in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
            let run = hook(
                cwd,
                &mcp_event(name, "odd", cwd, tool, json!({"duration_ms": "x"})),
            );
            run.assert_silent();
        }
    }
    // Codex's MCP tools are not wired: still nothing.
    let codex = json!({"hook_event_name": "PreToolUse", "session_id": "c", "cwd": root,
        "tool_name": "mcp__fs__write", "tool_input": {}, "model": "gpt-5"});
    hook_host(root, "codex", &codex, &[]).assert_silent();
}

/// The project settings as an earlier version installed them: without the `mcp__.*` places.
fn without_mcp(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    for groups in v["hooks"].as_object_mut().unwrap().values_mut() {
        groups
            .as_array_mut()
            .unwrap()
            .retain(|g| g["matcher"] != "mcp__.*");
    }
    serde_json::to_string_pretty(&v).unwrap() + "\n"
}

#[test]
fn install_wires_mcp_tools_and_an_older_install_is_out_of_date_not_unwired() {
    let s = install_support::Setup::new();
    let root = s.repo.root.clone();
    install_support::ok(&s.run(&["install"]));
    let file = s.project();
    let wired = fs::read_to_string(&file).unwrap();
    let v: Value = serde_json::from_str(&wired).unwrap();
    for event in ["PreToolUse", "PostToolUse", "PostToolUseFailure"] {
        let group = v["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["matcher"] == "mcp__.*")
            .unwrap_or_else(|| panic!("{event} has an mcp__.* group: {wired}"));
        assert_eq!(group["hooks"][0]["command"], "git-dibs", "{event}");
        assert!(group["hooks"][0].get("onFailure").is_none(), "{event}");
    }
    git(&root, &["add", ".claude/settings.json"]);
    git(&root, &["commit", "-qm", "wire git-dibs"]);
    let doctor = s.run(&["doctor"]);
    assert_eq!(
        doctor.status.code(),
        Some(0),
        "{}",
        install_support::stdout(&doctor)
    );

    // An install made before the MCP hooks existed.
    let old = without_mcp(&wired);
    assert!(!old.contains("mcp__"));
    fs::write(&file, &old).unwrap();
    git(&root, &["commit", "-qam", "as an earlier version wired it"]);
    let change = claude_event(
        "ConfigChange",
        "me",
        &root,
        json!({"source": "project_settings", "file_path": file}),
    );
    hook(&root, &change).assert_silent();
    let doctor = s.run(&["doctor"]);
    let text = install_support::stdout(&doctor);
    assert_eq!(doctor.status.code(), Some(1), "{text}");
    assert!(
        text.contains("was wired before git-dibs had its hooks for PreToolUse (mcp__.*), PostToolUse (mcp__.*), PostToolUseFailure (mcp__.*): run `git dibs install` to add them"),
        "{text}"
    );
    assert!(!text.contains("lack the git-dibs hooks"), "{text}");
    // Taking out an older place is still refused.
    let partial = old.replace("\"SessionStart\"", "\"SessionStartX\"");
    fs::write(&file, partial).unwrap();
    assert_eq!(hook(&root, &change).code, 2);
    fs::write(&file, &old).unwrap();
    // Install brings the file up to date, the rest as it was.
    install_support::ok(&s.run(&["install"]));
    assert_eq!(fs::read_to_string(&file).unwrap(), wired);
    hook(&root, &change).assert_silent();
    // Taking the new places out again once they are there is refused, as for any other.
    fs::write(&file, without_mcp(&wired)).unwrap();
    let edit = claude_event(
        "PreToolUse",
        "me",
        &root,
        json!({"tool_name": "Write", "tool_input": {"file_path": file, "content": without_mcp(&wired)}}),
    );
    fs::write(&file, &wired).unwrap();
    let (decision, reason, _) = hook_decision(&hook(&root, &edit)).expect("an answer");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("mcp__.*"), "{reason}");
}

/// A Gemini CLI event of an MCP tool call (`mcp_<server>_<tool>`).
fn gemini_mcp(name: &str, cwd: &Path, tool: &str, own: Option<&str>) -> Value {
    let mut v = json!({"hook_event_name": name, "session_id": "gem", "cwd": cwd,
        "transcript_path": "", "timestamp": "2026-12-01T00:00:00Z",
        "tool_name": tool, "tool_input": {"path": "x"}});
    if let Some(own) = own {
        v["mcp_context"] = json!({"server_name": "fs", "tool_name": own});
    }
    if name == "AfterTool" {
        v["tool_response"] = json!({"llmContent": "ok", "returnDisplay": "ok"});
    }
    v
}

#[test]
fn gemini_mcp_tools_are_scanned_unless_their_own_name_only_reads() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let refs = snapshot_tips(root);
    // Its own name given: a reading tool is left alone.
    for event in ["BeforeTool", "AfterTool"] {
        let ev = gemini_mcp(event, root, "mcp_fs_read_file", Some("read_file"));
        if event == "AfterTool" {
            fs::write(root.join("gem.txt"), "made by an MCP tool\n").unwrap();
        }
        hook_host(root, "gemini", &ev, &[]).assert_silent();
    }
    assert_eq!(snapshot_tips(root), refs);
    // Without it, the server's name could hold `_`: scanned, as any other.
    for event in ["BeforeTool", "AfterTool"] {
        let ev = gemini_mcp(event, root, "mcp_my_fs_read_file", None);
        hook_host(root, "gemini", &ev, &[]).assert_silent();
    }
    assert_ne!(snapshot_tips(root), refs);
    fs::remove_file(root.join("gem.txt")).unwrap();
    collect_garbage(root);
    assert_recovers(
        root,
        &["gem.txt"],
        &[(root.join("gem.txt"), b"made by an MCP tool\n".to_vec())],
    );
}

/// A Cursor event of an MCP tool call: its own MCP events, or the generic tool events that
/// name the tool `MCP:<tool>`.
fn cursor_mcp(name: &str, cwd: &Path, tool: &str) -> Value {
    let mut v = json!({"hook_event_name": name, "conversation_id": "cur-1",
        "generation_id": "g1", "workspace_roots": [cwd], "cwd": cwd,
        "tool_name": tool, "tool_input": "{\"path\":\"x\"}", "mcp_server_name": "fs"});
    if name.starts_with("after") || name.starts_with("post") {
        v["result_json"] = json!("{}");
        v["duration"] = json!(30);
    }
    v
}

#[test]
fn cursor_mcp_tools_are_claimed_and_kept_unless_their_name_only_reads() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let refs = snapshot_tips(root);
    for event in ["preToolUse", "postToolUse"] {
        if event == "postToolUse" {
            fs::write(root.join("seen.txt"), "read, not written\n").unwrap();
        }
        hook_host(
            root,
            "cursor",
            &cursor_mcp(event, root, "MCP:read_file"),
            &[],
        )
        .assert_silent();
    }
    assert_eq!(snapshot_tips(root), refs, "a reading tool is left alone");
    fs::remove_file(root.join("seen.txt")).unwrap();
    hook_host(
        root,
        "cursor",
        &cursor_mcp("beforeMCPExecution", root, "write_file"),
        &[],
    )
    .assert_silent();
    fs::write(root.join("cur.txt"), "made by Cursor's MCP tool\n").unwrap();
    hook_host(
        root,
        "cursor",
        &cursor_mcp("afterMCPExecution", root, "write_file"),
        &[],
    )
    .assert_silent();
    let status = status_of(root);
    assert_eq!(
        held_paths(session_of(&status, "cur-1")),
        ["cur.txt"],
        "{status}"
    );
    fs::remove_file(root.join("cur.txt")).unwrap();
    collect_garbage(root);
    assert_recovers(
        root,
        &["cur.txt"],
        &[(
            root.join("cur.txt"),
            b"made by Cursor's MCP tool\n".to_vec(),
        )],
    );
}

#[test]
fn codex_mcp_tools_are_scanned_and_what_they_wrote_comes_back() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let codex = |name: &str| {
        let mut v = json!({"hook_event_name": name, "session_id": "019a-codex", "cwd": root,
            "turn_id": "t1", "model": "gpt-5", "tool_name": "mcp__fs__write_file",
            "tool_input": {"path": "x"}, "tool_use_id": "call_1"});
        if name == "PostToolUse" {
            v["tool_response"] = json!("ok");
        }
        v
    };
    hook_host(root, "codex", &codex("PreToolUse"), &[]).assert_silent();
    fs::write(root.join("codex.txt"), "made by Codex's MCP tool\n").unwrap();
    hook_host(root, "codex", &codex("PostToolUse"), &[]).assert_silent();
    fs::remove_file(root.join("codex.txt")).unwrap();
    collect_garbage(root);
    assert_recovers(
        root,
        &["codex.txt"],
        &[(
            root.join("codex.txt"),
            b"made by Codex's MCP tool\n".to_vec(),
        )],
    );
}

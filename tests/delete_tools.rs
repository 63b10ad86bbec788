//! A host's delete tool is `rm` (red-team 3/08): Cursor's Delete and a Codex patch's `Delete
//! File` or `Move to` of a file a live peer holds uncommitted are refused; the peer's committed
//! file, the session's own file and files nobody holds are deleted in peace.

mod common;

use std::path::Path;

use common::*;
use serde_json::json;

fn cursor_delete(root: &Path, file: &Path) -> HookRun {
    let ev = json!({
        "conversation_id": "c1", "generation_id": "g1", "hook_event_name": "preToolUse",
        "workspace_roots": [root], "tool_name": "Delete", "tool_input": {"file_path": file},
        "tool_use_id": "t1", "cwd": root,
    });
    hook_host(root, "cursor", &ev, &[])
}

fn codex_patch(root: &Path, patch: &str) -> HookRun {
    let ev = json!({
        "session_id": "x1", "turn_id": "1", "transcript_path": null, "cwd": root,
        "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
        "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "t",
    });
    hook_host(root, "codex", &ev, &[])
}

fn write_as(root: &Path, session: &str, rel: &str, text: &str) {
    let path = root.join(rel);
    hook(
        root,
        &edit_event("PreToolUse", "Write", session, root, &path),
    );
    std::fs::write(&path, text).unwrap();
    hook(
        root,
        &edit_event("PostToolUse", "Write", session, root, &path),
    );
}

#[test]
fn deleting_a_live_peers_uncommitted_file_with_a_host_tool_is_refused() {
    let repo = TestRepo::new();
    let r = &repo.root;
    write_as(r, "peer-s1", "new.txt", "s1's new module\n");
    for run in [
        cursor_delete(r, &r.join("new.txt")),
        codex_patch(
            r,
            "*** Begin Patch\n*** Delete File: new.txt\n*** End Patch\n",
        ),
        codex_patch(
            r,
            "*** Begin Patch\n*** Update File: new.txt\n*** Move to: old.txt\n*** End Patch\n",
        ),
    ] {
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout.contains("deny")
                && run.stdout.contains("refused deleting new.txt")
                && run.stdout.contains("peer-s1"),
            "{}",
            run.stdout
        );
    }
    assert!(r.join("new.txt").exists());
}

#[test]
fn committed_own_and_unheld_files_are_deleted_in_peace() {
    let repo = TestRepo::new();
    let r = &repo.root;
    write_as(r, "peer-s1", "done.txt", "committed\n");
    git(r, &["add", "done.txt"]);
    git(r, &["commit", "-qm", "done"]);
    std::fs::write(r.join("loose.txt"), "nobody's\n").unwrap();
    for run in [
        cursor_delete(r, &r.join("done.txt")),
        cursor_delete(r, &r.join("loose.txt")),
        codex_patch(
            r,
            "*** Begin Patch\n*** Delete File: done.txt\n*** End Patch\n",
        ),
    ] {
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stdout.contains("deny"), "{}", run.stdout);
    }
    // The Codex session's own new file.
    let patch = "*** Begin Patch\n*** Add File: mine.txt\n+x\n*** End Patch\n";
    codex_patch(r, patch);
    std::fs::write(r.join("mine.txt"), "x\n").unwrap();
    let post = json!({
        "session_id": "x1", "turn_id": "1", "transcript_path": null, "cwd": r,
        "hook_event_name": "PostToolUse", "model": "m", "permission_mode": "default",
        "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "t",
        "tool_response": "ok",
    });
    hook_host(r, "codex", &post, &[]);
    let run = codex_patch(
        r,
        "*** Begin Patch\n*** Delete File: mine.txt\n*** End Patch\n",
    );
    assert!(!run.stdout.contains("deny"), "{}", run.stdout);
}

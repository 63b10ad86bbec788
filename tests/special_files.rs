//! Hooks never hang: a FIFO, or a link to `/dev/zero`, in the worktree is never opened for
//! reading or hashing by the edit, write, read or shell hooks; each call returns promptly.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

/// Run the hook with `event`, killing it when it takes longer than `limit`; panics then.
fn hook_within(cwd: &Path, event: &Value, limit: Duration) -> String {
    let mut child = spawn_hook(
        cwd,
        format!(
            "{event}
"
        )
        .as_bytes(),
        &[],
    );
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert_eq!(status.code(), Some(0), "{event}");
            let mut out = String::new();
            use std::io::Read;
            child
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out)
                .unwrap();
            return out;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the hook hung for {limit:?} on {event}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success());
}

#[test]
fn a_fifo_and_a_link_to_dev_zero_never_hang_a_hook() {
    let repo = TestRepo::new();
    let limit = Duration::from_secs(10);
    mkfifo(&repo.root.join("pipe"));
    std::os::unix::fs::symlink("/dev/zero", repo.root.join("zero")).unwrap();
    // The same names committed as plain files first would make them "changed" files; here
    // they are new ones, and B holds them so that the lost-update check runs too.
    let start = claude_event("SessionStart", A, &repo.root, json!({"source": "startup"}));
    hook_within(&repo.root, &start, limit);
    for name in ["pipe", "zero"] {
        let file = repo.root.join(name);
        for (who, event, tool) in [
            (B, "PreToolUse", "Edit"),
            (B, "PostToolUse", "Edit"),
            (A, "PreToolUse", "Write"),
            (A, "PostToolUse", "Write"),
            (A, "PostToolUse", "Read"),
        ] {
            let ev = edit_event(event, tool, who, &repo.root, &file);
            hook_within(&repo.root, &ev, limit);
        }
        let read = claude_event(
            "PostToolUse",
            A,
            &repo.root,
            json!({"tool_name": "Read", "tool_input": {"file_path": file}}),
        );
        hook_within(&repo.root, &read, limit);
    }
    // Shell commands whose writes are looked for, and the guard's view of dirty files.
    for cmd in ["echo hi > pipe2", "git add -A", "git stash"] {
        let pre = bash_event(A, &repo.root, cmd);
        hook_within(&repo.root, &pre, limit);
        let mut post = bash_event(A, &repo.root, cmd);
        post["hook_event_name"] = json!("PostToolUse");
        hook_within(&repo.root, &post, limit);
    }
    let status = dibs(&repo.root, &["status"]);
    assert!(status.status.success());
}

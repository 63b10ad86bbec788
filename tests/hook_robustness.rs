//! The claim hooks never block and never fail an edit: bad input, an unusable store, a corrupt
//! record and many concurrent writers all end in exit 0 with nothing lost.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::thread;

use common::*;
use serde_json::{Value, json};

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

/// Exit 0, nothing on stdout, at most one line on stderr.
fn assert_harmless(run: &HookRun, what: &str) {
    assert_eq!(run.code, 0, "{what}: exit code; stderr {:?}", run.stderr);
    assert_eq!(run.stdout, "", "{what}: stdout");
    assert!(
        run.stderr.lines().count() <= 1,
        "{what}: stderr {:?}",
        run.stderr
    );
}

#[test]
fn malformed_input_exits_zero_with_at_most_one_line() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    let good = edit_event("PreToolUse", "Edit", A, &repo.root, &file).to_string();
    let truncated = &good[..good.len() / 2];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("whitespace", b"  \n\t ".to_vec()),
        ("not json", b"hello".to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        ("string", b"\"PreToolUse\"".to_vec()),
        ("number", b"42".to_vec()),
        ("null", b"null".to_vec()),
        ("truncated", truncated.as_bytes().to_vec()),
        ("invalid utf-8", b"{\"session_id\":\"\xff\xfe\"}".to_vec()),
        ("two objects", format!("{good}{good}").into_bytes()),
        ("deep nesting", "[".repeat(100_000).into_bytes()),
        ("oversized", {
            let mut v = format!("{{\"pad\":\"{}\",", "x".repeat(65 * 1024 * 1024)).into_bytes();
            v.extend_from_slice(&good.as_bytes()[1..]);
            v
        }),
    ];
    for (what, bytes) in cases {
        assert_harmless(&hook_raw(&repo.root, &bytes, &[]), what);
    }
    assert!(
        !repo.store_dir().join("sessions").exists()
            || std::fs::read_dir(repo.store_dir().join("sessions"))
                .unwrap()
                .count()
                == 0,
        "nothing was recorded from bad input"
    );
}

#[test]
fn odd_but_valid_events_are_ignored_or_handled() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    let base = |extra: Value| claude_event("PreToolUse", A, &repo.root, extra);
    let cases = vec![
        (
            "unknown tool",
            base(json!({"tool_name": "Frobnicate", "tool_input": {"file_path": file}})),
        ),
        ("no tool input", base(json!({"tool_name": "Edit"}))),
        (
            "tool input is a string",
            base(json!({"tool_name": "Edit", "tool_input": "src/lib.rs"})),
        ),
        (
            "file_path is a number",
            base(json!({"tool_name": "Edit", "tool_input": {"file_path": 7}})),
        ),
        (
            "empty file_path",
            base(json!({"tool_name": "Write", "tool_input": {"file_path": ""}})),
        ),
        (
            "unknown fields",
            base(
                json!({"tool_name": "Read", "tool_input": {"file_path": file}, "brand_new": {"x": [1]}}),
            ),
        ),
        (
            "unknown event",
            claude_event("MessageDisplay", A, &repo.root, json!({})),
        ),
        (
            "missing session",
            json!({"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"file_path": file}}),
        ),
        (
            "missing event name",
            json!({"session_id": A, "tool_name": "Edit", "tool_input": {"file_path": file}}),
        ),
        (
            "cwd that does not exist",
            claude_event(
                "PreToolUse",
                A,
                Path::new("/no/such/dir"),
                json!({"tool_name": "Edit", "tool_input": {"file_path": "rel.rs"}}),
            ),
        ),
        (
            "wrong type for cwd",
            json!({"session_id": A, "hook_event_name": "SessionStart", "cwd": 5}),
        ),
    ];
    for (what, event) in cases {
        assert_harmless(&hook(&repo.root, &event), what);
    }
}

#[test]
fn a_store_folder_that_cannot_be_created_lets_the_edit_through() {
    let repo = TestRepo::new();
    // The store folder's name is taken by a link to nowhere, so it cannot be created (this also
    // holds for root, for whom a read-only .git is no obstacle).
    // The link is set aside before anything is made; a folder in the way of each name it could
    // be set aside as keeps it there.
    std::os::unix::fs::symlink("/nonexistent/dibs-target", repo.store_dir()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for at in now..now + 30 {
        let blocker = repo.root.join(format!(".git/dibs.corrupt-{at}/x"));
        std::fs::create_dir_all(blocker).unwrap();
    }
    let run = hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    assert_harmless(&run, "unusable store");
    assert!(
        run.stderr.contains("cannot be used"),
        "says why: {}",
        run.stderr
    );
}

#[test]
fn a_corrupt_record_is_set_aside_and_rebuilt() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", A, &repo.root, &file),
    )
    .assert_silent();
    let sessions = repo.store_dir().join("sessions");
    // The record, not its previous version (a dot name).
    let record = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .unwrap();
    std::fs::write(&record, b"{\"id\": \"aaaa, torn").unwrap();

    // Another session's hook still answers (warning of the holder whose record was damaged:
    // the file keeps its protection), and the damaged file is kept aside, not deleted.
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", B, &repo.root, &file),
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("damaged"), "{run:?}");
    let names: Vec<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.contains(".corrupt-")), "{names:?}");

    // The owner's next touch rebuilds its record.
    hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", A, &repo.root, &file),
    );
    let out = dibs(&repo.root, &["status", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions"].as_array().unwrap().len(), 2, "{v}");
}

#[test]
fn a_foreign_file_in_place_of_the_store_folder_is_set_aside() {
    let repo = TestRepo::new();
    std::fs::write(repo.store_dir(), b"not a folder").unwrap();
    hook(&repo.root, &repo.pre_edit(A, "README.md")).assert_silent();
    assert!(repo.store_dir().join("sessions").is_dir());
    let kept = std::fs::read_dir(repo.root.join(".git")).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("dibs.corrupt-")
    });
    assert!(kept);
}

fn status_sessions(dir: &Path) -> Vec<Value> {
    let out = dibs(dir, &["status", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"].as_array().unwrap().clone()
}

#[test]
fn twenty_four_sessions_claiming_at_once_all_land() {
    let repo = Arc::new(TestRepo::new());
    let file = repo.root.join("src/lib.rs");
    let handles: Vec<_> = (0..24)
        .map(|i| {
            let repo = Arc::clone(&repo);
            let file = file.clone();
            thread::spawn(move || {
                let id = format!("{i:08}-race-session");
                let run = hook(
                    &repo.root,
                    &edit_event("PreToolUse", "Edit", &id, &repo.root, &file),
                );
                assert_eq!(run.code, 0, "{}", run.stderr);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let sessions = status_sessions(&repo.root);
    assert_eq!(sessions.len(), 24);
    assert!(
        sessions
            .iter()
            .all(|s| s["files"][0]["path"] == "src/lib.rs")
    );
    // The next session is told about every one of them: three by name, the rest counted.
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", B, &repo.root, &file),
    );
    let msg = run.json()["systemMessage"].as_str().unwrap().to_owned();
    let named = (0..24).filter(|i| msg.contains(&format!("{i:08}"))).count();
    assert_eq!(named, 3, "{msg}");
    assert!(msg.contains("24 others also hold src/lib.rs"), "{msg}");
    assert!(msg.contains("and 21 more"), "{msg}");
}

#[test]
fn one_session_claiming_sixteen_files_at_once_keeps_them_all() {
    let repo = Arc::new(TestRepo::new());
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let repo = Arc::clone(&repo);
            thread::spawn(move || {
                let file = repo.root.join(format!("src/file_{i:02}.rs"));
                let run = hook(
                    &repo.root,
                    &edit_event("PreToolUse", "Write", A, &repo.root, &file),
                );
                assert_eq!(run.code, 0, "{}", run.stderr);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let sessions = status_sessions(&repo.root);
    assert_eq!(sessions.len(), 1);
    let mut paths: Vec<String> = sessions[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    paths.sort();
    let expected: Vec<String> = (0..16).map(|i| format!("src/file_{i:02}.rs")).collect();
    assert_eq!(paths, expected);
    // And the index agrees: another session is warned about each of them.
    for i in [0, 7, 15] {
        let file = repo.root.join(format!("src/file_{i:02}.rs"));
        let run = hook(
            &repo.root,
            &edit_event("PreToolUse", "Edit", B, &repo.root, &file),
        );
        assert!(
            run.json()["systemMessage"]
                .as_str()
                .unwrap()
                .contains("aaaaaaaa")
        );
    }
}

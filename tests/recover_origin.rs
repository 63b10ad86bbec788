//! What `recover` brings back is the work, whoever changed the file last: a person's edit made
//! between tool calls is kept before an edit tool replaces it (in every host's pre-edit hook),
//! `recover --force` keeps what it overwrites, and a sweep that found the file put back to its
//! committed content (a reset that slipped through), or the session's own command that put one
//! file back (`git checkout -- F`), is passed over, so `recover PATH` brings back the agent's
//! edit and the listing says why; what a session wrote and committed is no revert.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;
use serde_json::{Value, json};

/// Every blob reachable from any ref of the clone at `root`, as text.
fn reachable_contents(root: &Path) -> String {
    let out = sh(
        root,
        "git rev-list --all --objects | cut -d' ' -f1 | git cat-file --batch-check='%(objectname) %(objecttype)' | awk '$2==\"blob\"{print $1}' | git cat-file --batch",
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn snapshots_of(root: &Path, session: &str) -> u64 {
    let listing = recover_json(root, &[]);
    listing["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session"] == session)
        .map_or(0, |s| s["snapshots"].as_u64().unwrap())
}

#[test]
fn a_persons_edit_since_the_last_snapshot_is_kept_before_any_hosts_edit_tool_replaces_it() {
    let repo = TestRepo::new();
    let agent = Agent::new("s1-writer", &repo.root);
    let file = agent.write("notes.txt", b"v1 by the agent\n");
    let rel = "notes.txt";
    let patch = format!("*** Begin Patch\n*** Update File: {rel}\n@@\n-a\n+b\n*** End Patch\n");
    // (host, event) pairs: the same session's tools, then other hosts' sessions (which see the
    // file held by s1-writer).
    let events: Vec<(&str, Value)> = vec![
        (
            "claude",
            edit_event("PreToolUse", "Write", &agent.id, &repo.root, &file),
        ),
        (
            "claude",
            edit_event("PreToolUse", "Edit", &agent.id, &repo.root, &file),
        ),
        (
            "claude",
            edit_event("PreToolUse", "MultiEdit", &agent.id, &repo.root, &file),
        ),
        (
            "claude",
            edit_event("PreToolUse", "NotebookEdit", &agent.id, &repo.root, &file),
        ),
        (
            "gemini",
            json!({"session_id": "g-2", "cwd": repo.root, "hook_event_name": "BeforeTool",
                   "transcript_path": "/tmp/g.jsonl", "tool_name": "write_file",
                   "tool_input": {"file_path": file, "content": "x"}}),
        ),
        (
            "cursor",
            json!({"conversation_id": "c-3", "generation_id": "g", "hook_event_name": "preToolUse",
                   "workspace_roots": [repo.root], "cwd": repo.root, "tool_name": "Write",
                   "tool_input": {"file_path": file, "content": "x"}}),
        ),
        (
            "codex",
            json!({"session_id": "x-4", "turn_id": "t", "cwd": repo.root,
                   "hook_event_name": "PreToolUse", "transcript_path": null, "model": "m",
                   "tool_name": "apply_patch", "tool_input": {"command": patch}}),
        ),
    ];
    for (i, (host, event)) in events.iter().enumerate() {
        let typed = format!("typed by the person, round {i}\n");
        std::fs::write(&file, &typed).unwrap();
        let run = hook_host(&repo.root, host, event, &[]);
        assert_eq!(run.code, 0, "{host}: {}", run.stderr);
        // The tool replaces the whole file, then reports it (as s1-writer, whose file it is).
        std::fs::write(&file, format!("agent's rewrite {i}\n")).unwrap();
        agent.post_edit(&file).assert_silent();
        collect_garbage(&repo.root);
        assert!(
            reachable_contents(&repo.root).contains(&typed),
            "{host}: the person's version is on no ref"
        );
    }
    // The agent's newest version is what recover names, and the person's are versions of it.
    let listing = recover_json(&repo.root, &[]);
    let entry = listed(&listing, &agent.id, rel);
    assert_eq!(entry["working_copy"], "matches", "{listing}");
    assert_eq!(entry["origin"], "edit", "{listing}");
    assert_eq!(entry["versions"], 1 + 2 * events.len() as u64, "{listing}");

    // Nothing changed since the last snapshot: the pre-edit hook makes none.
    let before = snapshots_of(&repo.root, &agent.id);
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Write", &agent.id, &repo.root, &file),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(snapshots_of(&repo.root, &agent.id), before);
}

#[test]
fn a_file_no_snapshot_watches_costs_the_pre_edit_nothing_and_gets_no_snapshot() {
    let repo = TestRepo::new();
    let agent = Agent::new("s1-fresh", &repo.root);
    agent.write("other.txt", b"x\n");
    let file = repo.root.join("src/lib.rs");
    std::fs::write(&file, b"pub fn a() { /* the person's */ }\n").unwrap();
    let run = hook(
        &repo.root,
        &edit_event("PreToolUse", "Write", &agent.id, &repo.root, &file),
    );
    run.assert_silent();
    assert_eq!(snapshots_of(&repo.root, &agent.id), 1);
}

#[test]
fn a_reset_that_slipped_through_and_was_swept_does_not_hide_the_agents_edit() {
    for destroyer in ["git reset -q --hard", "git checkout -- .", "git stash -q"] {
        let repo = TestRepo::new();
        let agent = Agent::new("s1-edit", &repo.root);
        let lib = agent.write("src/lib.rs", b"pub fn a() { 42 }\n");
        let peer = Agent::new("s2-peer", &repo.root);
        peer.bash(destroyer);
        // The next shell call of anyone that may write sweeps the reverted file into s1's
        // snapshot.
        peer.bash("touch build.log");
        collect_garbage(&repo.root);
        assert_eq!(
            std::fs::read(&lib).unwrap(),
            b"pub fn a() {}\n",
            "{destroyer}"
        );

        let listing = recover_json(&repo.root, &[]);
        let entry = listed(&listing, &agent.id, "src/lib.rs");
        assert_eq!(entry["working_copy"], "differs", "{destroyer}: {listing}");
        assert!(entry["reverted_at"].is_string(), "{destroyer}: {listing}");
        let (code, text, err) = recover(&repo.root, &[]);
        assert_eq!(code, 0, "{err}");
        assert!(text.contains("put back to the committed content"), "{text}");

        // The reverted file is the committed content: the edit goes back in place.
        let (code, out, err) = recover(&repo.root, &["src/lib.rs"]);
        assert_eq!(code, 0, "{destroyer}: {out}{err}");
        assert_files(&[(lib.clone(), b"pub fn a() { 42 }\n".to_vec())]);
        let listing = recover_json(&repo.root, &[]);
        assert_eq!(
            listed(&listing, &agent.id, "src/lib.rs")["working_copy"],
            "matches"
        );
    }
}

#[test]
fn a_persons_later_edit_is_what_recover_brings_back() {
    let repo = TestRepo::new();
    let agent = Agent::new("s1-then-person", &repo.root);
    let lib = agent.write("src/lib.rs", b"pub fn a() { 42 }\n");
    std::fs::write(&lib, b"pub fn a() { 43 } // the person\n").unwrap();
    agent.bash("touch build.log");
    std::fs::remove_file(&lib).unwrap();
    let listing = recover_json(&repo.root, &[]);
    let entry = listed(&listing, &agent.id, "src/lib.rs");
    assert_eq!(
        (entry["origin"].as_str(), entry["working_copy"].as_str()),
        (Some("sweep"), Some("missing"))
    );
    assert!(entry.get("reverted_at").is_none(), "{listing}");
    assert_recovers(
        &repo.root,
        &["src/lib.rs"],
        &[(lib, b"pub fn a() { 43 } // the person\n".to_vec())],
    );
}

#[test]
fn recover_never_writes_through_a_folder_replaced_by_a_link() {
    let repo = TestRepo::new();
    let agent = Agent::new("s1-linked", &repo.root);
    let file = agent.write("gen/deep/x.rs", b"pub fn x() {}\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(repo.root.join("gen/deep")).unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.root.join("gen/deep")).unwrap();
    let (code, out, err) = recover(&repo.root, &["gen"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("not written") && out.contains("gen/deep"),
        "{out}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    // With the link gone, it comes back.
    std::fs::remove_file(repo.root.join("gen/deep")).unwrap();
    assert_recovers(&repo.root, &["gen"], &[(file, b"pub fn x() {}\n".to_vec())]);
}

#[test]
fn the_sessions_own_revert_of_one_file_does_not_hide_its_edit() {
    for reverter in [
        "git checkout -- src/lib.rs",
        "git restore src/lib.rs",
        "git checkout HEAD src/lib.rs",
        "git show HEAD:src/lib.rs > src/lib.rs",
    ] {
        let repo = TestRepo::new();
        let agent = Agent::new("s1-own-revert", &repo.root);
        let lib = agent.write("src/lib.rs", b"pub fn a() { 42 }\n");
        agent.bash(reverter);
        collect_garbage(&repo.root);
        assert_eq!(
            std::fs::read(&lib).unwrap(),
            b"pub fn a() {}\n",
            "{reverter}"
        );
        let listing = recover_json(&repo.root, &[]);
        let entry = listed(&listing, &agent.id, "src/lib.rs");
        assert_eq!(entry["working_copy"], "differs", "{reverter}: {listing}");
        assert_recovers(
            &repo.root,
            &["src/lib.rs"],
            &[(lib, b"pub fn a() { 42 }\n".to_vec())],
        );
    }
}

#[test]
fn what_a_session_wrote_and_committed_is_no_revert() {
    // Written then committed in one line, and written then committed by the next: the newest
    // version is the work itself, not a revert of the one before.
    for (write, commit) in [
        (
            "printf 'v2\\n' > notes.txt && git add notes.txt && git commit -qm v2",
            None,
        ),
        (
            "printf 'v2\\n' > notes.txt",
            Some("git add notes.txt && git commit -qm v2"),
        ),
    ] {
        let repo = TestRepo::new();
        let agent = Agent::new("s1-committer", &repo.root);
        let notes = agent.write("notes.txt", b"v1\n");
        agent.bash(write);
        if let Some(commit) = commit {
            agent.bash(commit);
        }
        std::fs::remove_file(&notes).unwrap();
        let listing = recover_json(&repo.root, &[]);
        let entry = listed(&listing, &agent.id, "notes.txt");
        assert!(entry.get("reverted_at").is_none(), "{write}: {listing}");
        assert_recovers(&repo.root, &["notes.txt"], &[(notes, b"v2\n".to_vec())]);
    }
}

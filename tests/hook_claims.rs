//! Co-edit claims through the real binary in real repositories: silence when alone, the warning
//! to both sessions, every edit tool, worktree scoping, release at session end, the lease.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn pre(tool: &str, session: &str, cwd: &Path, file: &Path) -> HookRun {
    hook(cwd, &edit_event("PreToolUse", tool, session, cwd, file))
}

fn status_json(dir: &Path, all: bool) -> Value {
    let args: &[&str] = if all {
        &["status", "--json", "--all"]
    } else {
        &["status", "--json"]
    };
    let out = dibs(dir, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("status --json is JSON")
}

fn warning_text(run: &HookRun) -> (String, String) {
    let v = run.json();
    assert_eq!(run.code, 0);
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "a warning never decides: {v}"
    );
    (
        v["systemMessage"].as_str().unwrap().to_owned(),
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[test]
fn alone_is_silent() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    for tool in ["Edit", "Write", "MultiEdit"] {
        pre(tool, A, &repo.root, &file).assert_silent();
    }
    hook(
        &repo.root,
        &edit_event("PostToolUse", "Edit", A, &repo.root, &file),
    )
    .assert_silent();
}

#[test]
fn second_session_is_warned_and_the_holder_on_its_next_touch() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    hook(
        &repo.root,
        &claude_event(
            "UserPromptSubmit",
            A,
            &repo.root,
            json!({"prompt": "Refactor the parser\nplease"}),
        ),
    )
    .assert_silent();
    pre("Edit", A, &repo.root, &file).assert_silent();

    let (person, model) = warning_text(&pre("Edit", B, &repo.root, &file));
    for text in [&person, &model] {
        assert!(text.contains("claude session aaaaaaaa"), "{text}");
        assert!(text.contains("\"Refactor the parser\""), "label: {text}");
        assert!(text.contains("src/lib.rs"), "{text}");
        assert!(text.contains("just now"), "{text}");
        assert!(!text.contains(A), "only the short id: {text}");
    }

    let (person, _) = warning_text(&pre("Edit", A, &repo.root, &file));
    assert!(person.contains("claude session bbbbbbbb"), "{person}");
}

#[test]
fn write_multiedit_and_notebookedit_claim_their_files() {
    let repo = TestRepo::new();
    let nb = repo.root.join("notes/latency.ipynb");
    let new_file = repo.root.join("src/new_module.rs"); // does not exist yet
    for (tool, file) in [
        ("Write", &new_file),
        ("MultiEdit", &repo.root.join("README.md")),
        ("NotebookEdit", &nb),
    ] {
        pre(tool, A, &repo.root, file).assert_silent();
        let (person, _) = warning_text(&pre(tool, B, &repo.root, file));
        assert!(person.contains("aaaaaaaa"), "{tool}: {person}");
    }
    let status = status_json(&repo.root, false);
    let paths = held_paths(session_of(&status, A));
    assert_eq!(
        paths,
        ["src/new_module.rs", "README.md", "notes/latency.ipynb"]
    );
}

#[test]
fn relative_and_symlinked_paths_resolve_to_the_same_file() {
    let repo = TestRepo::new();
    pre("Edit", A, &repo.root, Path::new("src/lib.rs")).assert_silent();
    let link = repo.tmp.path().join("link-to-repo");
    std::os::unix::fs::symlink(&repo.root, &link).unwrap();
    let via_link = link.join("src/../src/lib.rs");
    let (person, _) = warning_text(&pre("Edit", B, &link, &via_link));
    assert!(person.contains("src/lib.rs"), "{person}");
}

#[test]
fn the_same_path_in_two_worktrees_is_two_files() {
    let repo = TestRepo::new();
    let wt = repo.worktree("feature");
    pre("Edit", A, &repo.root, &repo.root.join("src/lib.rs")).assert_silent();
    pre("Edit", B, &wt, &wt.join("src/lib.rs")).assert_silent();
    // A session in the main worktree editing the linked worktree's file is told about B.
    let (person, _) = warning_text(&pre("Edit", A, &repo.root, &wt.join("src/lib.rs")));
    assert!(
        person.contains("bbbbbbbb") && person.contains("on branch feature"),
        "{person}"
    );
    // Both worktrees share one store, in the common git dir.
    assert!(repo.store_dir().join("sessions").is_dir());
    assert!(!wt.join(".git").is_dir());
    assert_eq!(git_out(&repo.root, &["status", "--porcelain"]), "");
}

#[test]
fn a_file_outside_any_repository_is_ignored() {
    let repo = TestRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let file = outside.path().join("notes.txt");
    pre("Write", A, outside.path(), &file).assert_silent();
    pre("Write", B, outside.path(), &file).assert_silent();
    // Inside the git dir is not a working-tree file either: not claimed, so no co-edit
    // warning (a write into git's config or refs is refused outright: tests/self_protect.rs).
    let msg = repo.root.join(".git/COMMIT_EDITMSG");
    pre("Write", A, &repo.root, &msg).assert_silent();
    pre("Write", B, &repo.root, &msg).assert_silent();
    assert!(!outside.path().join(".git").exists());
}

#[test]
fn session_end_releases_the_claims() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    hook(
        &repo.root,
        &claude_event("SessionStart", A, &repo.root, json!({"source": "startup"})),
    )
    .assert_silent();
    pre("Edit", A, &repo.root, &file).assert_silent();
    hook(
        &repo.root,
        &claude_event(
            "SessionEnd",
            A,
            &repo.root,
            json!({"reason": "prompt_input_exit"}),
        ),
    )
    .assert_silent();
    pre("Edit", B, &repo.root, &file).assert_silent();
    let live = status_json(&repo.root, false);
    let ids: Vec<&str> = session_list(&live)
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [B], "an ended session is not live");
    let all = status_json(&repo.root, true);
    let a = session_of(&all, A);
    assert_eq!(a["live"], false);
    assert!(a["ended"].is_string());
}

#[test]
fn a_session_idle_past_the_lease_no_longer_warns() {
    let repo = TestRepo::new();
    git(&repo.root, &["config", "dibs.ttl", "15m"]);
    let file = repo.root.join("src/lib.rs");
    pre("Edit", A, &repo.root, &file).assert_silent();
    // Twenty minutes on (the test clock of debug builds): A is idle past its lease.
    let later = (now_secs() + 20 * 60).to_string();
    let at_later = [("DIBS_NOW", later.as_str())];
    let event = edit_event("PreToolUse", "Edit", B, &repo.root, &file);
    hook_raw(&repo.root, format!("{event}\n").as_bytes(), &at_later).assert_silent();
    let status = dibs_env(&repo.root, None, &["status", "--json"], &at_later);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["sessions"].as_array().unwrap().len(), 1, "{status}");
    assert_eq!(status["ttl_seconds"], 900);
}

#[test]
fn status_marks_files_dirty_or_clean() {
    let repo = TestRepo::new();
    repo.write(&repo.root, "src/lib.rs", "pub fn a() { changed() }\n");
    pre("Edit", A, &repo.root, &repo.root.join("src/lib.rs")).assert_silent();
    pre("Edit", A, &repo.root, &repo.root.join("README.md")).assert_silent();
    let v = status_json(&repo.root, false);
    let s = &v["sessions"][0];
    assert_eq!(v["version"], 1);
    assert_eq!(s["short_id"], "aaaaaaaa");
    assert_eq!(s["host"], "claude");
    assert_eq!(s["branch"], "main");
    assert_eq!(s["worktree"], repo.root.to_str().unwrap());
    assert_eq!(s["files"][0]["path"], "src/lib.rs");
    assert_eq!(s["files"][0]["dirty"], true);
    assert_eq!(s["files"][1]["path"], "README.md");
    assert_eq!(s["files"][1]["dirty"], false);
    let text = String::from_utf8(dibs(&repo.root, &["status"]).stdout).unwrap();
    assert!(text.contains("claude aaaaaaaa"), "{text}");
    assert!(text.contains("dirty  src/lib.rs"), "{text}");
    assert!(text.contains("clean  README.md"), "{text}");
}

#[test]
fn status_outside_a_repository_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dibs(dir.path(), &["status"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not inside a git working tree"), "{err}");
}

//! Co-edit claims through the real binary: silence alone, warnings to both sessions.

mod common;

use common::*;

#[test]
fn alone_is_silent_and_a_second_session_warns_both() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", "aaaaaaaa-1111", &repo.root, &file),
    )
    .assert_silent();
    let second = hook(
        &repo.root,
        &edit_event("PreToolUse", "Edit", "bbbbbbbb-2222", &repo.root, &file),
    );
    let v = second.json();
    assert!(v["systemMessage"].as_str().unwrap().contains("aaaaaaaa"));
}

//! Writes the edit tools do not see: files a Bash command writes warn before it runs (never
//! blocking) and count as touched after it ran.

mod common;

use common::*;
use serde_json::json;

const A: &str = "aaaaaaaa-1111";
const B: &str = "bbbbbbbb-2222";

fn post_bash(session: &str, cwd: &std::path::Path, command: &str) -> serde_json::Value {
    claude_event(
        "PostToolUse",
        session,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_response": {"stdout": ""}}),
    )
}

#[test]
fn a_shell_write_to_a_peers_file_warns_without_blocking() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    for command in [
        "sed -i 's/a/b/' src/lib.rs",
        "cd src && perl -pi -e 's/a/b/' lib.rs",
        "echo '// note' >> src/lib.rs",
        "bash -c 'cat x | tee src/lib.rs'",
    ] {
        let run = hook(&repo.root, &bash_event(B, &repo.root, command));
        let v = run.json();
        assert!(
            v["systemMessage"].as_str().unwrap().contains("aaaaaaaa"),
            "{command}: {v}"
        );
        assert!(
            v["hookSpecificOutput"].get("permissionDecision").is_none(),
            "{command}: {v}"
        );
    }
    for command in [
        "ls -la",
        "cargo test",
        "grep -r 'sed -i src/lib.rs' .",
        "sed 's/a/b/' src/lib.rs",
    ] {
        hook(&repo.root, &bash_event(B, &repo.root, command)).assert_silent();
    }
}

#[test]
fn files_a_command_wrote_are_held_by_its_session_afterwards() {
    let repo = TestRepo::new();
    hook(
        &repo.root,
        &post_bash(
            B,
            &repo.root,
            "echo x > notes.txt && git mv README.md DOCS.md",
        ),
    )
    .assert_silent();
    for file in ["notes.txt", "README.md", "DOCS.md"] {
        let run = hook(
            &repo.root,
            &edit_event("PreToolUse", "Edit", A, &repo.root, &repo.root.join(file)),
        );
        assert!(run.stdout.contains("bbbbbbbb"), "{file}: {run:?}");
    }
}

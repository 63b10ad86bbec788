//! The guard fails closed: a command line it cannot read that may reach a guarded operation,
//! and a guarded command whose facts cannot be established, are put to the person (refused
//! with a way to go ahead on hosts without "ask"); `git dibs check` answers as the hook does and
//! names the rule. Real repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn unreadable_lines_that_may_reach_a_guarded_operation_are_asked() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git branch -D topic $(",
        "rm -rf ../dirty (",
        "bash -c 'git worktree remove ../dirty",
        "$X (",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:unparsable]"), "{cmd}: {reason}");
    }
    denied(r, "coproc git branch -D topic");
    asked(r, "coproc X { git branch -D topic; }");
    for cmd in ["ls -la (", "cargo test )", "echo \"unterminated"] {
        allowed(r, cmd);
    }
}

#[test]
fn an_unreadable_line_with_the_bypass_goes_ahead_and_is_audited() {
    let f = fixture();
    let r = &f.repo.root;
    allowed(r, "WT_GUARD_BYPASS=1 git branch -D topic $(");
    let lines = audit(&f.repo);
    assert_eq!(lines.last().unwrap()["verdict"], "bypass");
    assert_eq!(lines.last().unwrap()["rule"], "unparsable");
}

#[test]
fn deep_nesting_and_long_lines_are_asked_when_they_name_git() {
    let f = fixture();
    let r = &f.repo.root;
    let deep = format!("{}git branch -D topic{}", "( ".repeat(40), " )".repeat(40));
    asked(r, &deep);
    let long = format!("git branch -D topic # {}", "x".repeat(300 * 1024));
    asked(r, &long);
}

#[test]
fn a_repository_libgit2_cannot_open_is_asked_not_allowed() {
    let f = fixture();
    // A repository extension libgit2 does not know: its facts cannot be read.
    git(&f.dirty, &["config", "core.repositoryformatversion", "1"]);
    git(&f.dirty, &["config", "extensions.frobnicate", "true"]);
    let run = bash(&f.repo.root, "git worktree remove ../clean");
    let (d, reason, _) = decision(&run).expect("an answer");
    assert_eq!(d, "ask", "{reason}");
    assert!(reason.contains("[guard:facts-unknown]"), "{reason}");
}

#[test]
fn refusals_and_questions_name_their_rule() {
    let f = fixture();
    let r = &f.repo.root;
    assert!(denied(r, "git worktree remove ../dirty").contains("[guard:worktree-dirty]"));
    assert!(denied(r, "rm -rf ../dirty").contains("[guard:worktree-rm]"));
    assert!(denied(r, "git branch -D topic").contains("[guard:branch-unpushed]"));
    assert!(asked(r, "rm -rf \"$X\"").contains("[guard:unknown-target]"));
}

#[test]
fn hosts_without_ask_refuse_and_tell_the_person_how_to_go_ahead() {
    let f = fixture();
    let r = &f.repo.root;
    let event = serde_json::json!({
        "session_id": "019a7c3e-5b21-7d40-9e8f-3c6a1b2d4e5f", "turn_id": "7",
        "cwd": r, "hook_event_name": "PreToolUse", "model": "gpt-5.1-codex",
        "tool_name": "Bash", "tool_input": {"command": "git branch -D topic $("},
        "permission_mode": "default", "tool_use_id": "call_1",
    });
    let run = hook_raw(r, format!("{event}\n").as_bytes(), &[]);
    let v = run.json();
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{v}");
    let model = out["permissionDecisionReason"].as_str().unwrap();
    assert!(!model.contains("WT_GUARD_BYPASS"), "{model}");
    let person = v["systemMessage"].as_str().unwrap();
    assert!(person.contains("WT_GUARD_BYPASS=1"), "{person}");
}

#[test]
fn check_answers_as_the_hook_does_with_rule_and_facts() {
    let f = fixture();
    let r = &f.repo.root;
    let out = dibs(r, &["check", "--", "git worktree remove ../dirty"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("deny [guard:worktree-dirty]"), "{text}");
    assert!(text.contains("M src/lib.rs"), "{text}");
    let out = dibs(
        r,
        &["check", "--json", "--", "git", "branch", "-D", "topic"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer"], "deny");
    assert_eq!(v["rule"], "branch-unpushed");
    let facts = v["commands"][0]["facts"][0].as_str().unwrap();
    assert!(facts.starts_with("branch topic tip "), "{facts}");
    let out = dibs(r, &["check", "--json", "--", "rm -rf \"$X\""]);
    assert_eq!(out.status.code(), Some(3));
    let out = dibs(r, &["check", "--", "cargo test"]);
    assert_eq!(out.status.code(), Some(0));
    // Nothing was written: check is not the hook.
    assert!(audit(&f.repo).is_empty());
    assert!(!fs::read_dir(f.repo.store_dir()).is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| e.file_name() == "audit.log")
    }));
}

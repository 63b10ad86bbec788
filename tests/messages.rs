//! What sessions and people are told, through the real binary on real repositories: the
//! co-edit warning in full once per peer and file then brief, session start naming a person's
//! claims and every live explicit claim, `/clear` without `SessionEnd`, the bypass's audit line,
//! the `find -exec rm` question over repositories, and the audit log's filters and JSON lines.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const C: &str = "cccccccc-3333-4333-8333-333333333333";

fn start(session: &str, cwd: &Path, source: &str) -> Value {
    session_start(session, cwd, source)
}

fn dibs_as(dir: &Path, session: Option<&str>, args: &[&str]) -> std::process::Output {
    dibs_env(dir, session, args, &[("USER", "sam")])
}

/// As [`dibs_as`], at the test-only clock time `now`.
fn dibs_at(dir: &Path, session: Option<&str>, args: &[&str], now: u64) -> std::process::Output {
    dibs_env(
        dir,
        session,
        args,
        &[("USER", "sam"), ("DIBS_NOW", &now.to_string())],
    )
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn model_text(run: &HookRun) -> String {
    let v = run.json();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_full_co_edit_warning_comes_once_per_peer_and_file_then_brief() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    hook(&repo.root, &repo.pre_edit(A, "README.md"));
    let first = model_text(&hook(&repo.root, &repo.pre_edit(B, "src/lib.rs")));
    assert!(first.contains("keep your change small"), "{first}");
    for _ in 0..3 {
        let again = model_text(&hook(&repo.root, &repo.pre_edit(B, "src/lib.rs")));
        assert!(again.contains("src/lib.rs"), "{again}");
        assert!(again.contains("aaaaaaaa"), "{again}");
        assert!(!again.contains("keep your change small"), "{again}");
        assert!(again.len() < first.len() / 2, "{again}");
    }
    // Another file of the same peer gets the full warning once.
    let other = model_text(&hook(&repo.root, &repo.pre_edit(B, "README.md")));
    assert!(other.contains("keep your change small"), "{other}");
    // And so does another peer on the same file.
    let third = model_text(&hook(&repo.root, &repo.pre_edit(C, "src/lib.rs")));
    assert!(third.contains("keep your change small"), "{third}");
}

#[test]
fn a_new_session_is_told_of_a_persons_claims() {
    let repo = TestRepo::new();
    let out = dibs_as(
        &repo.root,
        None,
        &["claim", "src/lib.rs", "--intent", "hand-tuning the parser"],
    );
    assert!(out.status.success(), "{out:?}");
    let run = hook(&repo.root, &start(A, &repo.root, "startup"));
    let text = model_text(&run);
    assert!(text.contains("person-sam"), "{text}");
    assert!(text.contains("hand-tuning the parser"), "{text}");
}

#[test]
fn session_start_names_every_live_claim_and_intent_whatever_the_number_of_peers() {
    let repo = TestRepo::new();
    let peers: Vec<String> = (0..6)
        .map(|i| format!("{i}{i}{i}{i}{i}{i}{i}{i}-peer"))
        .collect();
    for (i, p) in peers.iter().enumerate() {
        hook(&repo.root, &start(p, &repo.root, "startup"));
        hook(&repo.root, &repo.pre_edit(p, "src/lib.rs"));
        if i < 2 {
            let intent = format!("intent number {i}");
            let out = dibs_at(
                &repo.root,
                Some(p),
                &["claim", &format!("record:R{i}"), "--intent", &intent],
                now_secs() - 100 + i as u64 * 10,
            );
            assert!(out.status.success(), "{out:?}");
        }
    }
    let text = model_text(&hook(&repo.root, &start(A, &repo.root, "startup")));
    for i in 0..2 {
        assert!(text.contains(&format!("record:R{i}")), "{text}");
        assert!(text.contains(&format!("intent number {i}")), "{text}");
    }
    // Newest first.
    let r0 = text.find("record:R0").unwrap();
    let r1 = text.find("record:R1").unwrap();
    assert!(r1 < r0, "{text}");
}

#[test]
fn clear_without_session_end_hands_the_claims_over_in_the_same_process() {
    let repo = TestRepo::new();
    let mut host = FakeHost::start();
    host.hook(&repo.root, &start(A, &repo.root, "startup"));
    host.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    // No SessionEnd (Gemini CLI does not wait for it): the new session starts with source clear.
    host.hook(&repo.root, &start(B, &repo.root, "clear"));
    let status = status_of(&repo.root);
    assert_eq!(
        held_paths(session_of(&status, B)),
        ["src/lib.rs"],
        "{status}"
    );
    let run = hook(&repo.root, &repo.pre_edit(C, "src/lib.rs"));
    assert!(
        run.stdout.contains("bbbbbbbb") && !run.stdout.contains("aaaaaaaa"),
        "{run:?}"
    );
    // Another process's clear takes nothing.
    let mut other = FakeHost::start();
    other.hook(&repo.root, &start("dddddddd-4", &repo.root, "clear"));
    let v = status_of(&repo.root);
    assert!(held_paths(session_of(&v, "dddddddd-4")).is_empty());
}

fn audit_json(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["audit", "--json"];
    all.extend_from_slice(args);
    let out = dibs(dir, &all);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a JSON line ({e}): {l}")))
        .collect()
}

#[test]
fn a_bypass_is_audited_as_let_through_and_the_audit_filters_and_json_hold() {
    let repo = TestRepo::new();
    git(&repo.root, &["branch", "topic"]);
    git(&repo.root, &["checkout", "-q", "topic"]);
    repo.write(&repo.root, "new.txt", "unpushed\n");
    git(&repo.root, &["add", "new.txt"]);
    git(&repo.root, &["commit", "-qm", "unpushed"]);
    git(&repo.root, &["checkout", "-q", "main"]);
    let refused = bash_hook_env(&repo.root, A, "git branch -D topic", &[]);
    assert_eq!(hook_decision(&refused).unwrap().0, "deny");
    let through = bash_hook_env(&repo.root, B, "WT_GUARD_BYPASS=1 git branch -D topic", &[]);
    assert!(hook_decision(&through).is_none(), "{through:?}");
    // A damaged line in the log does not break the JSON lines.
    let log = repo.store_dir().join("audit.log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{torn line\n");
    std::fs::write(&log, text).unwrap();

    let all = audit_json(&repo.root, &[]);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all[2]["unreadable"].is_string(), "{all:?}");
    let bypass = &all[1];
    assert_eq!(bypass["verdict"], "bypass");
    let reason = bypass["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("let through (WT_GUARD_BYPASS=1)"),
        "{reason}"
    );
    assert!(!reason.contains("git-dibs refused"), "{reason}");
    let human = String::from_utf8_lossy(&dibs(&repo.root, &["audit"]).stdout).into_owned();
    assert!(human.contains("let through (WT_GUARD_BYPASS=1)"), "{human}");

    // Filters.
    assert_eq!(audit_json(&repo.root, &["--verdict", "bypass"]).len(), 1);
    assert_eq!(
        audit_json(&repo.root, &["--verdict", "block"])[0]["session"],
        A
    );
    assert_eq!(
        audit_json(&repo.root, &["--session", "bbbbbbbb"])[0]["verdict"],
        "bypass"
    );
    assert_eq!(audit_json(&repo.root, &["--since", "1h"]).len(), 2);
    assert!(audit_json(&repo.root, &["--since", "2999-01-01T00:00:00Z"]).is_empty());
    let out = dibs(&repo.root, &["audit", "--verdict", "maybe"]);
    assert_eq!(out.status.code(), Some(2));
    let out = dibs(&repo.root, &["audit", "--since", "whenever"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_find_question_calls_repositories_repositories() {
    let repo = TestRepo::new();
    // A folder holding two separate clones with uncommitted work.
    let base = repo.tmp.path().join("projects");
    for name in ["one", "two"] {
        let dir = base.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        git(&dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("work.txt"), "uncommitted\n").unwrap();
    }
    let run = bash_hook_env(&base, A, "find . -name '*.txt' -exec rm {} +", &[]);
    let (decision, reason, _) = hook_decision(&run).expect("a question");
    assert_eq!(decision, "ask", "{reason}");
    assert!(reason.contains("2 repositories"), "{reason}");
    assert!(!reason.contains("worktree(s)"), "{reason}");
}

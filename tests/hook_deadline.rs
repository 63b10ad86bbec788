//! A hook that cannot finish answers by itself before its host's limit (red team 7/10): a FIFO
//! named `.gitignore` blocks the scan after a shell command, and a FIFO a config include names
//! blocks every hook. The hook answers at its deadline (the tests' builds take it from
//! `DIBS_TEST_DEADLINE_SECS`): before a shell command a question (the guard fails closed),
//! otherwise exit 0 and one line on stderr; the git it started does not outlive it.

mod common;
mod recover_support;

use std::time::{Duration, Instant};

use common::*;
use recover_support::*;

const DEADLINE: &[(&str, &str)] = &[("DIBS_TEST_DEADLINE_SECS", "2")];

/// Make a FIFO at `path`.
fn fifo(path: &std::path::Path) {
    sh(
        path.parent().unwrap(),
        &format!("mkfifo '{}'", path.display()),
    );
}

/// How many `git` processes run with their directory at `dir` (Linux: by `/proc`).
fn gits_in(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let p = e.path();
            std::fs::read_link(p.join("cwd")).is_ok_and(|c| c == dir)
                && std::fs::read_to_string(p.join("comm")).is_ok_and(|c| c.trim() == "git")
        })
        .count()
}

/// Run the hook on `event` in `cwd`, with the short deadline; what it answered and how long it
/// took.
fn timed(cwd: &std::path::Path, event: &serde_json::Value) -> (HookRun, Duration) {
    let start = Instant::now();
    let run = hook_raw(cwd, format!("{event}\n").as_bytes(), DEADLINE);
    (run, start.elapsed())
}

#[test]
fn a_fifo_named_gitignore_stops_no_hook_past_its_deadline() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("s1", r);
    agent.write("README.md", b"agent's edit\n");
    std::fs::create_dir_all(r.join("gen")).unwrap();
    fifo(&r.join("gen/.gitignore"));
    std::fs::write(r.join("gen/out.txt"), "made by the command\n").unwrap();

    let post = claude_event(
        "PostToolUse",
        "s1",
        r,
        serde_json::json!({"tool_name": "Bash", "tool_input": {"command": "make"},
                           "tool_response": {"stdout": "", "stderr": "", "interrupted": false}}),
    );
    let (run, took) = timed(r, &post);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        took >= Duration::from_secs(2),
        "the scan blocks on the FIFO: {run:?}"
    );
    assert!(
        took < Duration::from_secs(8),
        "answered at its deadline: {took:?}"
    );
    insta::assert_snapshot!("post_tool_use_at_deadline", run.stderr);
    // What the session made before is still kept.
    sh(r, "git checkout -- README.md");
    collect_garbage(r);
    assert_recovers(
        r,
        &["README.md"],
        &[(r.join("README.md"), b"agent's edit\n".to_vec())],
    );
}

#[test]
fn a_fifo_a_config_include_names_makes_a_shell_command_a_question() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("s1", r);
    agent.write("notes.txt", b"agent's notes\n");
    let pipe = repo.tmp.path().join("included");
    fifo(&pipe);
    git(r, &["config", "include.path", pipe.to_str().unwrap()]);

    let (run, took) = timed(r, &bash_event("s1", r, "git checkout -- ."));
    assert!(
        took < Duration::from_secs(8),
        "answered at its deadline: {took:?}"
    );
    assert_eq!(run.code, 0, "{run:?}");
    let answer: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    let decision = &answer["hookSpecificOutput"]["permissionDecision"];
    assert!(decision == "ask" || decision == "deny", "{answer}");
    assert!(run.stdout.contains("[guard:"), "{answer}");
    assert_eq!(gits_in(r), 0, "no git left behind, blocked on the FIFO");

    // An edit's hook exits 0 at its deadline too.
    let file = r.join("notes.txt");
    std::fs::write(&file, "agent's notes, again\n").unwrap();
    let edit = edit_event("PostToolUse", "Edit", "s1", r, &file);
    let (run, took) = timed(r, &edit);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(took < Duration::from_secs(8), "{took:?}");
}

/// A hook that crashes (a stack overflow, an abort: the tests' builds do so on purpose when
/// `DIBS_TEST_CRASH` says how) answers as at its deadline, not with a signal and nothing said:
/// before a shell command a question naming the crash, otherwise exit 0 and one line.
#[test]
fn a_hook_that_crashes_still_answers() {
    let repo = common::TestRepo::new();
    let bash = bash_event("crash-1", &repo.root, "git branch -D main");
    let edit = edit_event(
        "PostToolUse",
        "Write",
        "crash-1",
        &repo.root,
        &repo.root.join("src/lib.rs"),
    );
    for how in ["overflow", "abort"] {
        let env = [("DIBS_TEST_CRASH", how)];
        let run = hook_raw(&repo.root, format!("{bash}\n").as_bytes(), &env);
        assert_eq!(run.code, 0, "{how}: {}", run.stderr);
        let (decision, reason, _) = hook_decision(&run).expect("an answer");
        assert_eq!(decision, "ask", "{how}");
        assert!(reason.contains("[guard:internal-error]"), "{how}: {reason}");
        let run = hook_raw(&repo.root, format!("{edit}\n").as_bytes(), &env);
        assert_eq!(run.code, 0, "{how}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{how}");
        assert!(run.stderr.contains("crashed"), "{how}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{how}: {}", run.stderr);
    }
}

//! A snapshot ref pointed from outside git-dibs at commits it never wrote (red team 6/02):
//! `git update-ref`, `git push . +X:refs/...`, or deleted with `for-each-ref | update-ref -d`.
//! The next hook call that looks (the session's own snapshot, or any session's line that may
//! prune) puts the ref back on the newest snapshot the store remembers, keeps what it was
//! pointed at under `refs/dibs/rewritten/`, and says so on stderr; a `git gc` after it loses
//! nothing. When the gc came first, the hook says the snapshots were pruned and the session's
//! files are taken again as they are now.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;

const REF: &str = "refs/dibs/snapshots/writer";

/// A commit git-dibs never wrote: the main worktree's tree, with a message of its own.
fn foreign_commit(root: &Path) -> String {
    git_out(
        root,
        &["commit-tree", "HEAD^{tree}", "-m", "not a snapshot"],
    )
}

/// The refs that keep what snapshot refs were found on.
fn rewritten(root: &Path) -> String {
    git_out(
        root,
        &[
            "for-each-ref",
            "--format=%(objectname) %(refname)",
            "refs/dibs/rewritten/",
        ],
    )
}

#[test]
fn a_ref_pointed_elsewhere_is_put_back_by_the_sessions_next_snapshot() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("writer", r);
    agent.write("plan.md", b"v1\n");
    agent.write("plan.md", b"v2 the agent's\n");
    let newest = git_out(r, &["rev-parse", REF]);
    let foreign = foreign_commit(r);
    git(r, &["update-ref", REF, &foreign]);
    // The session's next edit notices, puts the ref back, snapshots on top of its chain.
    let run = write_seen(&agent, "other.md", b"more work\n");
    assert!(run.stderr.contains("was pointed at"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(git_out(r, &["rev-parse", &format!("{REF}~1")]), newest);
    assert!(rewritten(r).starts_with(&foreign), "{}", rewritten(r));
    std::fs::remove_file(r.join("plan.md")).unwrap();
    std::fs::remove_file(r.join("other.md")).unwrap();
    collect_garbage(r);
    assert_recovers(
        r,
        &["."],
        &[
            (r.join("plan.md"), b"v2 the agent's\n".to_vec()),
            (r.join("other.md"), b"more work\n".to_vec()),
        ],
    );
    let listing = recover_json(r, &["--session", "writer"]);
    assert_eq!(
        listed(&listing, "writer", "plan.md")["versions"],
        2,
        "{listing}"
    );
    // `git dibs doctor` names it.
    let doctor = out_text(&dibs(r, &["doctor"]));
    assert!(doctor.contains("was pointed at"), "{doctor}");
}

#[test]
fn another_sessions_gc_line_puts_back_a_rewritten_or_deleted_ref_first() {
    for how in ["push", "older", "delete"] {
        let repo = TestRepo::new();
        let r = &repo.root;
        let agent = Agent::new("writer", r);
        agent.write("a.txt", b"first\n");
        agent.write("a.txt", b"second, kept\n");
        match how {
            // Onto a branch's commit, through a push to the repository itself.
            "push" => sh(r, &format!("git push -q . +HEAD:{REF}")),
            // Back onto an older snapshot of its own chain.
            "older" => sh(r, &format!("git update-ref {REF} {REF}~1")),
            // Every ref of git-dibs deleted.
            _ => sh(
                r,
                "git for-each-ref --format='%(refname)' refs/dibs | xargs -n1 git update-ref -d",
            ),
        };
        // A person's editor loses the file; then another session collects garbage.
        std::fs::remove_file(r.join("a.txt")).unwrap();
        let other = Agent::new("cleaner", r);
        other.bash("git reflog expire --expire=now --all && git gc -q --prune=now");
        assert_recovers(
            r,
            &["a.txt"],
            &[(r.join("a.txt"), b"second, kept\n".to_vec())],
        );
    }
}

#[test]
fn doctor_puts_back_a_rewritten_ref_before_any_hook_call() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("writer", r);
    agent.write("a.txt", b"the agent's\n");
    let foreign = foreign_commit(r);
    git(r, &["update-ref", REF, &foreign]);
    let doctor = out_text(&dibs(r, &["doctor"]));
    assert!(
        doctor.contains("repaired") && doctor.contains("was pointed at"),
        "{doctor}"
    );
    std::fs::remove_file(r.join("a.txt")).unwrap();
    collect_garbage(r);
    assert_recovers(
        r,
        &["a.txt"],
        &[(r.join("a.txt"), b"the agent's\n".to_vec())],
    );
    assert!(rewritten(r).starts_with(&foreign), "{}", rewritten(r));
}

#[test]
fn a_session_writing_in_parallel_is_not_taken_for_a_rewrite() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("writer", r);
    agent.write("a.txt", b"one\n");
    // The store's log lags behind the ref, as when a sub-agent of the same session moved it
    // on and has not yet written its line.
    let log = std::fs::read_dir(repo.store_dir().join("snapshots"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "log"))
        .unwrap();
    let before = std::fs::read(&log).unwrap();
    agent.write("a.txt", b"two\n");
    std::fs::write(&log, before).unwrap();
    let tip = git_out(r, &["rev-parse", REF]);
    write_seen(&agent, "b.txt", b"three\n").assert_silent();
    assert_eq!(write_seen(&agent, "b.txt", b"four\n").stderr, "");
    assert_eq!(git_out(r, &["rev-parse", &format!("{REF}~2")]), tip);
    assert_eq!(rewritten(r), "");
}

#[test]
fn a_gc_before_any_hook_call_is_said_and_the_session_starts_again() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("writer", r);
    agent.write("a.txt", b"kept until the rewrite\n");
    let foreign = foreign_commit(r);
    git(r, &["update-ref", REF, &foreign]);
    collect_garbage(r);
    // Nothing looked between: the snapshot is gone, and the next call says so.
    let run = write_seen(&agent, "b.txt", b"after\n");
    assert!(run.stderr.contains("were pruned since"), "{}", run.stderr);
    std::fs::remove_file(r.join("b.txt")).unwrap();
    collect_garbage(r);
    assert_recovers(r, &["b.txt"], &[(r.join("b.txt"), b"after\n".to_vec())]);
    // And the file it had watched is taken again as it is now.
    std::fs::remove_file(r.join("a.txt")).unwrap();
    assert_recovers(
        r,
        &["a.txt"],
        &[(r.join("a.txt"), b"kept until the rewrite\n".to_vec())],
    );
}

//! Damage to the store, through the real binary on real repositories: a corrupt session record,
//! a corrupt roster, a lock that became a folder. Each is survived, reported by `status` or
//! `doctor` with what to do, and mended where it can be rebuilt.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const C: &str = "cccccccc-3333-4333-8333-333333333333";

fn start(session: &str, cwd: &Path) -> Value {
    session_start(session, cwd, "startup")
}

fn doctor(dir: &Path) -> Value {
    let out = dibs(dir, &["doctor", "--json"]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("doctor --json is JSON ({e}): {}", out_text(&out)))
}

/// The doctor lines of `status` (ok, repaired, problem) that contain `needle`.
fn checks_with<'a>(doc: &'a Value, needle: &str) -> Vec<(&'a str, &'a str)> {
    doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["status"].as_str().unwrap(), c["text"].as_str().unwrap()))
        .filter(|(_, t)| t.contains(needle))
        .collect()
}

#[test]
fn a_corrupt_session_record_is_reported_and_its_file_stays_protected() {
    let repo = holder_with_a_damaged_record();

    // B's edit of the file is still warned about: the index still names A.
    let run = hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    assert!(run.stdout.contains("aaaaaaaa"), "{run:?}");
    assert!(run.stdout.contains("damaged"), "{run:?}");

    // status says so, every time.
    for _ in 0..2 {
        let shown = out_text(&dibs(&repo.root, &["status"]));
        assert!(
            shown.contains("could not be read and was set aside"),
            "{shown}"
        );
        assert!(shown.contains(&format!("{A}.json.corrupt-")), "{shown}");
    }
    // doctor counts it as a problem, with what to do.
    let doc = doctor(&repo.root);
    let lines = checks_with(&doc, "set aside");
    assert_eq!(lines.len(), 1, "{doc}");
    assert_eq!(lines[0].0, "problem");
    assert!(lines[0].1.contains("delete it"), "{doc}");
    // A commit by C (which never touched it) of A's file is still refused by the pre-commit hook.
    assert!(
        dibs(&repo.root, &["install", "--git-hooks"])
            .status
            .success()
    );
    git(&repo.root, &["add", "src/lib.rs"]);
    let out = git_as(&repo.root, C, &["commit", "-qm", "sweep"], &[]);
    assert!(!out.status.success(), "{}", out_text(&out));
}

#[test]
fn a_corrupt_roster_is_rebuilt_so_new_sessions_are_told_of_their_peers() {
    let repo = TestRepo::new();
    hook(&repo.root, &start(A, &repo.root));
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn half_done() {}\n");
    let rosters: Vec<_> = walk(&repo.store_dir().join("index"))
        .into_iter()
        .filter(|p| p.ends_with(".roster"))
        .collect();
    assert_eq!(rosters.len(), 1, "{rosters:?}");
    std::fs::write(&rosters[0], b"\xff\xfe not a roster\n").unwrap();

    let run = hook(&repo.root, &start(C, &repo.root));
    assert!(run.stdout.contains("aaaaaaaa"), "C is told of A: {run:?}");
    let doc = doctor(&repo.root);
    let lines = checks_with(&doc, "roster");
    assert_eq!(lines.len(), 1, "{doc}");
    assert_eq!(lines[0].0, "repaired", "{doc}");
}

#[test]
fn a_lock_that_became_a_folder_is_set_aside_and_claims_work_again() {
    let repo = TestRepo::new();
    hook(&repo.root, &start(A, &repo.root));
    let lock = repo.store_dir().join("lock");
    let _ = std::fs::remove_file(&lock);
    std::fs::create_dir_all(lock.join("inside")).unwrap();
    let out = dibs(&repo.root, &["claim", "README.md"]);
    assert!(out.status.success(), "{}", out_text(&out));
    assert!(lock.is_file());
    let doc = doctor(&repo.root);
    let lines = checks_with(&doc, "lock");
    assert_eq!(lines.len(), 1, "{doc}");
    assert_eq!(lines[0].0, "repaired", "{doc}");
    assert!(lines[0].1.contains("lock.corrupt-"), "{doc}");
}

#[test]
fn doctor_repairs_a_lock_folder_itself_and_reports_it() {
    let repo = TestRepo::new();
    hook(&repo.root, &start(A, &repo.root));
    let lock = repo.store_dir().join("lock");
    let _ = std::fs::remove_file(&lock);
    std::fs::create_dir(&lock).unwrap();
    let doc = doctor(&repo.root);
    assert!(lock.is_file(), "{doc}");
    assert_eq!(checks_with(&doc, "lock was not a file")[0].0, "repaired");
}

#[test]
fn work_a_dead_session_left_uncommitted_is_shown_until_dealt_with() {
    let repo = TestRepo::new();
    let mut host = FakeHost::start();
    host.hook(&repo.root, &start(A, &repo.root));
    host.hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn half_done() {}\n");
    host.kill();
    for _ in 0..3 {
        let shown = out_text(&dibs(&repo.root, &["status"]));
        assert!(
            shown.contains("aaaaaaaa died with uncommitted files: src/lib.rs"),
            "{shown}"
        );
        let status = status_of(&repo.root);
        assert_eq!(
            status["died_dirty"][0]["files"][0], "src/lib.rs",
            "{status}"
        );
    }
    let doc = doctor(&repo.root);
    assert_eq!(checks_with(&doc, "died with uncommitted")[0].0, "problem");
    // Committed: no longer listed.
    git(&repo.root, &["commit", "-qam", "finish a's work"]);
    let shown = out_text(&dibs(&repo.root, &["status"]));
    assert!(!shown.contains("uncommitted"), "{shown}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn a_peers_stash_is_still_refused_over_a_file_whose_holders_record_was_set_aside() {
    let repo = holder_with_a_damaged_record();
    // The record is found damaged (and set aside) by the next reader.
    out_text(&dibs(&repo.root, &["status"]));
    let run = bash_hook_env(&repo.root, B, "git stash", &[]);
    let (decision, reason, _) = hook_decision(&run).expect("an answer");
    assert_eq!(decision, "deny", "{reason}");
    assert!(
        reason.contains("src/lib.rs") && reason.contains("aaaaaaaa"),
        "{reason}"
    );
    // Everyday commands stay silent.
    assert!(hook_decision(&bash_hook_env(&repo.root, B, "git status", &[])).is_none());
    assert!(hook_decision(&bash_hook_env(&repo.root, B, "git stash list", &[])).is_none());
}

/// A repository where session A changed `src/lib.rs` and A's record was then damaged.
fn holder_with_a_damaged_record() -> TestRepo {
    let repo = TestRepo::new();
    hook(&repo.root, &start(A, &repo.root));
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn half_done() {}\n");
    std::fs::write(
        repo.store_dir().join(format!("sessions/{A}.json")),
        "{ garbage",
    )
    .unwrap();
    repo
}

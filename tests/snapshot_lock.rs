//! A lock file left beside a session's snapshot ref (a writer killed between lock and rename,
//! a killed `git pack-refs`) does not stop its snapshots for good (red-team 3/27): a lock over a
//! minute old is taken for a leftover and cleared; a fresh one (a live writer) is waited for
//! only briefly, and the hook never fails.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn a_stale_ref_lock_is_cleared_and_a_fresh_one_costs_one_snapshot_at_most() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("s1", r);
    agent.write("one.txt", b"one\n");
    let name = "refs/dibs/snapshots/s1";
    let before = git_out(r, &["rev-parse", name]);
    let lock = r.join(".git").join(format!("{name}.lock"));
    assert!(
        lock.parent().unwrap().is_dir(),
        "a loose ref: {}",
        lock.display()
    );

    // A fresh lock: that snapshot may fail (one stderr line), the hook still exits 0.
    std::fs::write(&lock, "").unwrap();
    let file = r.join("two.txt");
    std::fs::write(&file, "two\n").unwrap();
    let run = agent.post_edit(&file);
    assert_eq!(run.code, 0, "{run:?}");

    // Left there two minutes: taken for a leftover; the next snapshot goes in.
    sh(r, &format!("touch -d '2 minutes ago' '{}'", lock.display()));
    agent.write("three.txt", b"three\n");
    assert!(!lock.exists());
    let after = git_out(r, &["rev-parse", name]);
    assert_ne!(after, before);
    std::fs::remove_file(r.join("three.txt")).unwrap();
    assert_recovers(
        r,
        &["three.txt"],
        &[(r.join("three.txt"), b"three\n".to_vec())],
    );
}

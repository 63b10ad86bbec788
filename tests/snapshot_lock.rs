//! A lock file left beside a session's snapshot ref (a writer killed between lock and rename,
//! a killed `git pack-refs`, a hook the host killed at its timeout) does not stop its snapshots
//! (red teams 3/27 and 7/09): while a fresh lock stays, snapshots go on the session's spare
//! chain, which `recover` reads like any; a lock over a minute old is taken for a leftover and
//! cleared, and the chain catches up with the spare without a word. Two snapshots of one file
//! made in the same second on two chains come back newest first (red team 7/06).

mod common;
mod recover_support;

use common::*;
use recover_support::*;

const CHAIN: &str = "refs/dibs/snapshots/s1";
const SPARE: &str = "refs/dibs/snapshots/s1.spare";

/// Every hook run answered with exit 0 and nothing on stderr.
#[track_caller]
fn quiet(run: &HookRun) {
    assert!(run.code == 0 && run.stderr.is_empty(), "{run:?}");
}

#[test]
fn a_lock_nobody_releases_costs_no_snapshot_and_a_stale_one_is_cleared() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("s1", r);
    agent.write("a.txt", b"v1\n");
    let lock = r.join(".git").join(format!("{CHAIN}.lock"));
    assert!(
        lock.parent().unwrap().is_dir(),
        "a loose ref: {}",
        lock.display()
    );

    // A lock left just now, with nothing to release it: every change still goes in, quietly,
    // by the edit tool, a new file, and a shell command's write.
    std::fs::write(&lock, "").unwrap();
    let a = r.join("a.txt");
    std::fs::write(&a, "v2 under the lock\n").unwrap();
    quiet(&agent.post_edit(&a));
    let b = r.join("b.txt");
    std::fs::write(&b, "b, new\n").unwrap();
    quiet(&agent.post_edit(&b));
    quiet(&agent.pre_bash("sh -c 'echo c > c.txt'"));
    sh(r, "echo c > c.txt");
    quiet(&agent.post_bash("sh -c 'echo c > c.txt'"));
    assert!(lock.exists(), "a fresh lock is not taken away");
    let chain = git_out(r, &["rev-parse", CHAIN]);
    let spare = git_out(r, &["rev-parse", SPARE]);
    assert_ne!(chain, spare);
    // The spare chain goes on from the session's chain.
    sh(r, &format!("git merge-base --is-ancestor {chain} {spare}"));

    sh(r, "rm a.txt b.txt c.txt");
    collect_garbage(r);
    assert_recovers(
        r,
        &["."],
        &[
            (a.clone(), b"v2 under the lock\n".to_vec()),
            (b.clone(), b"b, new\n".to_vec()),
            (r.join("c.txt"), b"c\n".to_vec()),
        ],
    );

    // Left there two minutes: a leftover. The next snapshot clears it, the chain catches up
    // with the spare (nothing said, nothing kept as rewritten) and goes on.
    sh(r, &format!("touch -d '2 minutes ago' '{}'", lock.display()));
    let d = r.join("d.txt");
    std::fs::write(&d, "d\n").unwrap();
    quiet(&agent.post_edit(&d));
    assert!(!lock.exists());
    let chain = git_out(r, &["rev-parse", CHAIN]);
    sh(r, &format!("git merge-base --is-ancestor {spare} {chain}"));
    assert_eq!(git_out(r, &["for-each-ref", "refs/dibs/rewritten/"]), "");
    let (code, out, err) = recover(r, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("outside git-dibs"), "{out}");
    sh(r, "rm d.txt");
    collect_garbage(r);
    assert_recovers(r, &["d.txt"], &[(d, b"d\n".to_vec())]);
}

#[test]
fn the_newest_of_two_sessions_versions_in_one_second_comes_back() {
    let repo = TestRepo::new();
    let r = &repo.root;
    // "a" sorts first: with whole seconds alone, its older version would win the tie.
    let (older, newer) = (Agent::new("a", r), Agent::new("b", r));
    let file = r.join("shared.txt");
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let mut same_second = false;
    for _ in 0..20 {
        let start = now();
        std::fs::write(&file, "older\n").unwrap();
        quiet(&older.post_edit(&file));
        std::fs::write(&file, "newer\n").unwrap();
        quiet(&newer.post_edit(&file));
        if now() == start {
            same_second = true;
            break;
        }
    }
    assert!(same_second, "two edits within one second");
    std::fs::remove_file(&file).unwrap();
    collect_garbage(r);
    assert_recovers(r, &["shared.txt"], &[(file, b"newer\n".to_vec())]);
}

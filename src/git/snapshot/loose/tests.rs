//! The plain-file writer makes, byte for byte, the commits libgit2 makes (so `git fsck` and
//! every reader agree), over flat and nested trees, and moves the ref only from the value it
//! read.

use std::path::Path;

use super::super::*;
use super::{Outcome, move_ref, read_ref};
use crate::git::testing::git;

fn put(root: &Path, path: &str, bytes: &[u8], executable: bool) -> Put {
    Put {
        worktree: root.to_owned(),
        path: path.to_owned(),
        content: Content::File {
            bytes: bytes.to_vec(),
            executable,
        },
    }
}

fn snapshot<'a>(puts: &'a [Put], worktrees: &'a [WorktreeMeta], at: u64) -> NewSnapshot<'a> {
    NewSnapshot {
        session: "s1",
        host: "claude",
        at,
        puts,
        skipped: &[],
        worktrees,
        origin: Origin::Edit,
    }
}

#[test]
fn the_plain_file_writer_makes_the_commits_libgit2_makes() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ra, rb) = (
        git2::Repository::init(a.path()).unwrap(),
        git2::Repository::init(b.path()).unwrap(),
    );
    let root = Path::new("/w/tree");
    let wts = [WorktreeMeta {
        root: root.to_owned(),
        branch: Some("main".into()),
        head: None,
        identity: None,
    }];
    let key = "s1";
    let first = [put(root, "src/lib.rs", b"one\n", false)];
    // The first snapshot of a chain goes through libgit2 in both.
    let ca = super::super::write(ra.path(), key, &snapshot(&first, &wts, 10)).unwrap();
    let cb = write_through_libgit2(rb.path(), key, &snapshot(&first, &wts, 10)).unwrap();
    assert_eq!(ca, cb);
    // Later ones: names that sort around each other (`.`, `-`, `:` and `/` neighbours), an
    // executable, a file written again.
    let rounds: Vec<Vec<Put>> = vec![
        vec![put(root, "src/lib.rs", b"two\n", false)],
        vec![
            put(root, "src-x.rs", b"x", false),
            put(root, "src.rs", b"y", true),
            put(Path::new("/w/other"), "a/b/c.rs", &[0u8; 20_000], false),
        ],
        vec![put(root, "src/lib.rs", b"three\n", false)],
    ];
    for (i, puts) in rounds.iter().enumerate() {
        let at = 20 + i as u64;
        let name = snapshot_ref(key);
        let made = match loose::write(ra.path(), &name, &snapshot(puts, &wts, at)).unwrap() {
            Outcome::Made(c) => c,
            Outcome::NotHere => panic!("a chain in a files-backend repository is written here"),
        };
        let theirs = write_through_libgit2(rb.path(), key, &snapshot(puts, &wts, at)).unwrap();
        assert_eq!(made, theirs, "round {i}");
        assert_eq!(
            ra.find_reference(&name)
                .unwrap()
                .target()
                .unwrap()
                .to_string(),
            made
        );
    }
    git(a.path(), &["fsck", "--strict", "--no-dangling"]);
    let snaps = Snapshots::open(ra.path()).unwrap();
    let (_, tip) = snaps.refs().unwrap().pop().unwrap();
    assert_eq!(snaps.history(&tip).len(), 4);
    let files = snaps.files(&tip).unwrap();
    let lib = files.iter().find(|h| h.path == "src/lib.rs").unwrap();
    assert_eq!(snaps.blob(&lib.blob).unwrap(), b"three\n");
    assert!(files.iter().any(|h| h.path == "src.rs" && h.executable));
}

#[test]
fn a_nested_chain_gets_the_same_tree_as_libgit2_gives_it() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = Path::new("/w/tree");
    let wid = worktree_id(root);
    let mut ids = Vec::new();
    for dir in [a.path(), b.path()] {
        let repo = git2::Repository::init(dir).unwrap();
        // `<wid>/src/lib.rs` under a tree entry named `<wid>`, which git sorts as `<wid>/`.
        ids.push(super::super::tests::nested_snapshot(&repo, &wid, root));
    }
    assert_eq!(ids[0], ids[1]);
    let puts = [put(root, "src/lib.rs", b"new\n", false)];
    let made = match loose::write(
        a.path().join(".git").as_path(),
        &snapshot_ref("s1"),
        &snapshot(&puts, &[], 5),
    )
    .unwrap()
    {
        Outcome::Made(c) => c,
        Outcome::NotHere => panic!("written here"),
    };
    let theirs =
        write_through_libgit2(&b.path().join(".git"), "s1", &snapshot(&puts, &[], 5)).unwrap();
    assert_eq!(made, theirs);
    git(a.path(), &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn a_first_snapshot_or_a_packed_ref_is_not_written_here() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let root = Path::new("/w");
    let puts = [put(root, "a", b"a", false)];
    let name = snapshot_ref("s1");
    assert!(matches!(
        loose::write(repo.path(), &name, &snapshot(&puts, &[], 1)).unwrap(),
        Outcome::NotHere
    ));
    let first = super::super::write(repo.path(), "s1", &snapshot(&puts, &[], 1)).unwrap();
    git(dir.path(), &["pack-refs", "--all"]);
    assert!(matches!(
        loose::write(repo.path(), &name, &snapshot(&puts, &[], 2)).unwrap(),
        Outcome::NotHere
    ));
    // `write` goes on through libgit2 from the packed ref, and the chain continues.
    let second = super::super::write(repo.path(), "s1", &snapshot(&puts, &[], 2)).unwrap();
    let parent = repo
        .find_commit(git2::Oid::from_str(&second).unwrap())
        .unwrap()
        .parent_id(0)
        .unwrap();
    assert_eq!(parent.to_string(), first);
}

#[test]
fn the_ref_moves_only_from_the_value_read_and_never_past_a_held_lock() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let puts = [put(Path::new("/w"), "a", b"a", false)];
    let first = super::super::write(repo.path(), "s1", &snapshot(&puts, &[], 1)).unwrap();
    let first = git2::Oid::from_str(&first).unwrap();
    let other = repo.blob(b"not a commit").unwrap();
    let ref_file = repo.path().join(snapshot_ref("s1"));
    let lock = repo.path().join(format!("{}.lock", snapshot_ref("s1")));
    // Another value than the one read: not moved, no lock left.
    assert!(!move_ref(&ref_file, &lock, other, other).unwrap());
    assert!(!lock.exists());
    // A held lock (git or another hook mid-update): not moved, the lock left to its holder.
    std::fs::write(&lock, "").unwrap();
    assert!(!move_ref(&ref_file, &lock, first, other).unwrap());
    assert!(lock.exists());
    assert!(matches!(
        loose::write(repo.path(), &snapshot_ref("s1"), &snapshot(&puts, &[], 2)),
        Err(SnapshotError::Raced(_))
    ));
    assert_eq!(read_ref(&ref_file), Some(first));
    std::fs::remove_file(&lock).unwrap();
    assert!(move_ref(&ref_file, &lock, first, other).unwrap());
    assert_eq!(read_ref(&ref_file), Some(other));
    assert!(!lock.exists());
}

//! Snapshot trees: flat names that survive any path, and chains written in the nested layout
//! of before read the same, with a later snapshot of a file winning over its nested entry.

use std::path::Path;

use super::*;

fn put(root: &Path, path: &str, bytes: &[u8]) -> Put {
    Put {
        worktree: root.to_owned(),
        path: path.to_owned(),
        content: Content::File {
            bytes: bytes.to_vec(),
            executable: false,
        },
    }
}

#[test]
fn flat_names_round_trip_any_path() {
    let root = Path::new("/w");
    for path in [
        "a.rs",
        "src/a/b.rs",
        "100%/x%2Fy/%25",
        "we ird/ñ:é.txt",
        "caf\u{0}e9/%00\u{0}ff",
    ] {
        let name = tree_path(&put(root, path, b""));
        assert!(!name.contains('/') && !name.contains('\0'), "{name}");
        assert_eq!(file_at(&name), Some((worktree_id(root), path.to_owned())));
    }
    assert_eq!(file_at("no-colon"), None);
    assert_eq!(file_at(":x"), None);
    assert_eq!(
        file_at("0123456789abcdef/src/a.rs"),
        Some(("0123456789abcdef".into(), "src/a.rs".into()))
    );
}

/// A commit of the nested layout, as snapshots were written before trees were flat, on the
/// ref of session `s1`.
pub(super) fn nested_snapshot(repo: &git2::Repository, wid: &str, root: &Path) -> git2::Oid {
    let blob = repo.blob(b"old content\n").unwrap();
    let mut src = repo.treebuilder(None).unwrap();
    src.insert("lib.rs", blob, 0o100644).unwrap();
    let src = src.write().unwrap();
    let mut wt = repo.treebuilder(None).unwrap();
    wt.insert("src", src, 0o040000).unwrap();
    wt.insert("top.sh", blob, 0o100755).unwrap();
    let wt = wt.write().unwrap();
    let mut top = repo.treebuilder(None).unwrap();
    top.insert(wid, wt, 0o040000).unwrap();
    let tree = repo.find_tree(top.write().unwrap()).unwrap();
    let new = NewSnapshot {
        session: "s1",
        host: "claude",
        at: 1,
        puts: &[],
        skipped: &[],
        worktrees: &[WorktreeMeta {
            root: root.to_owned(),
            branch: None,
            head: None,
            identity: None,
        }],
        origin: Origin::Edit,
    };
    let message = message(&new, &describe(&new, None));
    let sig = git2::Signature::new(IDENTITY.0, IDENTITY.1, &git2::Time::new(1, 0)).unwrap();
    let commit = repo.commit(None, &sig, &sig, &message, &tree, &[]).unwrap();
    repo.reference(&snapshot_ref("s1"), commit, false, "test")
        .unwrap();
    commit
}

#[test]
fn a_nested_chain_reads_the_same_and_its_next_snapshot_is_flat() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init(dir.path()).unwrap();
    let root = dir.path().join("wt");
    let wid = worktree_id(&root);
    let old = nested_snapshot(&repo, &wid, &root);
    let snaps = Snapshots::open(repo.path()).unwrap();
    let sorted = |mut v: Vec<Held>| {
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    };
    let before = sorted(snaps.files(&old.to_string()).unwrap());
    let paths: Vec<(&str, bool)> = before
        .iter()
        .map(|h| (h.path.as_str(), h.executable))
        .collect();
    assert_eq!(paths, [("src/lib.rs", false), ("top.sh", true)]);

    // The next snapshot changes one of the nested files and adds a deep one: both flat.
    let puts = [
        put(&root, "src/lib.rs", b"new lib\n"),
        put(&root, "src/deep/er/new%.rs", b"new\n"),
    ];
    let new = NewSnapshot {
        session: "s1",
        host: "claude",
        at: 2,
        puts: &puts,
        skipped: &[],
        worktrees: &[],
        origin: Origin::Edit,
    };
    let tip = write(repo.path(), "s1", &new).unwrap();
    let history = snaps.history(&tip);
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].id, old.to_string());
    assert_eq!(history[0].meta.worktrees[&wid].root, root);
    let commit = repo
        .find_commit(git2::Oid::from_str(&tip).unwrap())
        .unwrap();
    let flat: Vec<String> = commit
        .tree()
        .unwrap()
        .iter()
        .filter(|e| e.kind() == Some(git2::ObjectType::Blob))
        .filter_map(|e| e.name().map(str::to_owned))
        .collect();
    assert_eq!(
        flat,
        [
            format!("{wid}:src%2Fdeep%2Fer%2Fnew%25.rs"),
            format!("{wid}:src%2Flib.rs")
        ]
    );
    let after = sorted(snaps.files(&tip).unwrap());
    let paths: Vec<&str> = after.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["src/deep/er/new%.rs", "src/lib.rs", "top.sh"]);
    assert_eq!(
        snaps.blob(&after[1].blob).unwrap(),
        b"new lib\n",
        "the flat entry wins"
    );
    assert_eq!(snaps.blob(&after[0].blob).unwrap(), b"new\n");
    assert!(after[2].executable);

    // A third snapshot of a flat chain writes no tree but the top one.
    let again = [put(&root, "src/lib.rs", b"newer lib\n")];
    let new = NewSnapshot {
        puts: &again,
        at: 3,
        ..new
    };
    let third = write(repo.path(), "s1", &new).unwrap();
    let files = sorted(snaps.files(&third).unwrap());
    assert_eq!(files.len(), 3);
    assert_eq!(snaps.blob(&files[1].blob).unwrap(), b"newer lib\n");
}

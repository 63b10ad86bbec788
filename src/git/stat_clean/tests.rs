//! The stat-data answer against libgit2's hashing answer, over the states a file can be in and
//! the shapes an index, HEAD and a worktree can take.

use super::*;

use crate::git::testing::git;
use std::process::Command;

fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

/// A committed repository: `src/f0.rs`..`src/f9.rs`, `src/deep/g0.rs`..`g4.rs`, `run.sh`
/// (executable), a `.gitignore` for `*.log`; its index written a little after the files, so
/// that none of them is racily clean.
fn repo() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    fs::create_dir_all(root.join("src/deep")).unwrap();
    let mut paths = Vec::new();
    for i in 0..10 {
        paths.push(format!("src/f{i}.rs"));
    }
    for i in 0..5 {
        paths.push(format!("src/deep/g{i}.rs"));
    }
    for p in &paths {
        fs::write(root.join(p), format!("// {p}\n")).unwrap();
    }
    fs::write(root.join("run.sh"), "#!/bin/sh\n").unwrap();
    Command::new("chmod")
        .args(["+x", "run.sh"])
        .current_dir(root)
        .status()
        .unwrap();
    fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "init"]);
    paths.push("run.sh".into());
    (dir, paths)
}

/// Changes of every kind a file can see, and the paths a session would ask about.
fn change_everything(root: &Path, paths: &mut Vec<String>) {
    fs::write(root.join("src/f1.rs"), "// longer than it was\n").unwrap();
    fs::write(root.join("src/f2.rs"), "// src/fX.rs\n").unwrap(); // same size
    fs::remove_file(root.join("src/f3.rs")).unwrap();
    fs::write(root.join("src/deep/g1.rs"), "changed\n").unwrap();
    // Rewritten with the same content: stat data changes, content does not.
    fs::write(root.join("src/f4.rs"), "// src/f4.rs\n").unwrap();
    fs::write(root.join("src/new.rs"), "new\n").unwrap();
    fs::write(root.join("src/x.log"), "ignored\n").unwrap();
    paths.extend(
        [
            "src/new.rs",
            "src/x.log",
            "src/gone.rs",
            "nowhere/at/all.rs",
        ]
        .map(String::from),
    );
}

const CHANGED: &[&str] = &[
    "src/f1.rs",
    "src/f2.rs",
    "src/f3.rs",
    "src/deep/g1.rs",
    "src/new.rs",
];

fn settled(root: &Path, paths: &[String]) -> Option<Settled> {
    settle(root, &worktree_at(root).unwrap(), paths, None)
}

#[test]
fn stat_data_settles_what_libgit2_would_hash_and_says_the_same() {
    let (dir, mut paths) = repo();
    let root = dir.path();
    let s = settled(root, &paths).expect("a fresh index vouches for HEAD");
    assert!(s.dirty.is_empty() && s.unsettled.is_empty(), "{s:?}");

    change_everything(root, &mut paths);
    let s = settled(root, &paths).expect("nothing staged");
    // Only the new files are left to libgit2 (their ignore rules), and nothing else is hashed.
    assert_eq!(s.unsettled, vec!["src/new.rs", "src/x.log"]);
    let want = set(CHANGED);
    assert_eq!(uncommitted_among(root, &paths).unwrap(), want);
    assert_eq!(uncommitted_files(root, &paths).unwrap(), want);
    assert_eq!(
        uncommitted_files(root, &paths[..3]).unwrap(),
        set(&["src/f1.rs", "src/f2.rs"])
    );
    // Told HEAD's tree, it reads no object; told a wrong one, it falls back: same answer.
    let wt = worktree_at(root).unwrap();
    let tree = tree_of(&wt, &head_commit(&wt).unwrap()).unwrap();
    assert_eq!(
        uncommitted_files_at(&wt, &paths, Some(&tree)).unwrap(),
        want
    );
    assert!(settle(root, &wt, &paths, Some(&tree)).is_some());
    let wrong = "0".repeat(40);
    assert!(settle(root, &wt, &paths, Some(&wrong)).is_none());
    assert_eq!(
        uncommitted_files_at(&wt, &paths, Some(&wrong)).unwrap(),
        want
    );
}

#[test]
fn a_same_size_change_with_its_old_mtime_is_still_seen() {
    let (dir, paths) = repo();
    let root = dir.path();
    let file = root.join("src/f5.rs");
    let old = fs::metadata(&file).unwrap().modified().unwrap();
    fs::write(&file, "// src/f5.RS\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(old)
        .unwrap();
    assert_eq!(
        uncommitted_files(root, &paths).unwrap(),
        set(&["src/f5.rs"])
    );
}

#[test]
fn only_a_file_older_than_the_index_with_every_stat_field_equal_is_settled() {
    let stat = Stat {
        mode: MODE_FILE,
        size: 12,
        mtime: (1_000, 500),
        ctime: (1_000, 600),
        dev: 7,
        ino: 1 << 33 | 9,
        uid: 1,
        gid: 2,
    };
    let e = Entry {
        ctime: (1_000, 600),
        mtime: (1_000, 500),
        dev: 7,
        ino: 9,
        mode: MODE_FILE,
        uid: 1,
        gid: 2,
        size: 12,
        oid: [0; 20],
        special: false,
    };
    assert!(same_stat(&e, &stat, (1_000, 501)));
    // Racily clean: written in the same tick as the index, or after it.
    assert!(!same_stat(&e, &stat, (1_000, 500)));
    assert!(!same_stat(&e, &stat, (999, 900)));
    for changed in [
        Stat { size: 13, ..stat },
        Stat {
            mode: MODE_EXEC,
            ..stat
        },
        Stat {
            mtime: (1_000, 499),
            ..stat
        },
        Stat {
            ctime: (1_001, 600),
            ..stat
        },
        Stat { ino: 10, ..stat },
        Stat { dev: 8, ..stat },
        Stat { uid: 0, ..stat },
        Stat { gid: 0, ..stat },
    ] {
        assert!(!same_stat(&e, &changed, (2_000, 0)), "{changed:?}");
    }
}

#[test]
fn anything_staged_leaves_it_all_to_libgit2() {
    let (dir, mut paths) = repo();
    let root = dir.path();
    change_everything(root, &mut paths);
    git(root, &["add", "src/f1.rs"]);
    assert!(settled(root, &paths).is_none());
    assert_eq!(uncommitted_files(root, &paths).unwrap(), set(CHANGED));
    // Staged, then undone in the worktree: clean against HEAD either way.
    fs::write(root.join("src/f1.rs"), "// src/f1.rs\n").unwrap();
    let mut want = set(CHANGED);
    want.remove("src/f1.rs");
    assert_eq!(uncommitted_files(root, &paths).unwrap(), want);
}

#[test]
fn linked_worktrees_packed_refs_packed_objects_and_index_v4() {
    let (dir, paths) = repo();
    let root = dir.path();
    let linked = dir.path().join("linked");
    git(
        root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            linked.to_str().unwrap(),
        ],
    );
    git(root, &["gc", "-q"]);
    assert!(
        !root.join(".git/refs/heads/main").exists(),
        "refs are packed"
    );
    git(&linked, &["update-index", "--index-version", "4"]);
    let linked = fs::canonicalize(&linked).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    for wt in [root, linked.as_path()] {
        fs::write(wt.join("src/deep/g2.rs"), "changed here\n").unwrap();
        let s = settled(wt, &paths).expect("the index vouches for HEAD");
        assert_eq!(s.dirty, set(&["src/deep/g2.rs"]), "in {}", wt.display());
        assert!(s.unsettled.is_empty());
        assert_eq!(uncommitted_among(wt, &paths).unwrap(), s.dirty);
    }
    // Detached HEAD.
    git(&linked, &["checkout", "-q", "--detach"]);
    assert!(settled(&linked, &paths).is_some());
}

#[test]
fn an_unborn_branch_or_a_broken_index_leaves_it_to_libgit2() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    fs::write(root.join("a.rs"), "a\n").unwrap();
    git(root, &["add", "a.rs"]);
    let paths = vec!["a.rs".to_owned()];
    assert!(settled(root, &paths).is_none());
    assert_eq!(uncommitted_files(root, &paths).unwrap(), set(&["a.rs"]));

    let (dir, paths) = repo();
    let root = dir.path();
    let index = root.join(".git/index");
    let bytes = fs::read(&index).unwrap();
    fs::write(&index, &bytes[..bytes.len() / 2]).unwrap();
    assert!(settled(root, &paths).is_none());
    let short = std::io::Cursor::new(b"DIRC\0\0\0\x02".to_vec());
    assert!(lookup(&mut Window::new(short, 8), &["a"]).is_none());
}

//! What the commands say when what they were given, or where they were run, is not what they
//! need, through the real binary: an empty target for `claim` and `release`, `release` with
//! nothing named, a bare repository and a shell inside `.git` or `.git/dibs`, `landed` with no
//! base to compare with or naming no commit, `audit --session` too short to stand for a
//! session and `--since` with an RFC 3339 offset, and (not as root) a store the user cannot
//! write: each names what was wrong and what to do instead.

mod common;

use common::snap::*;
use common::*;

#[test]
fn wrong_targets_and_wrong_places_are_named_with_what_to_do() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let mut runs = Vec::new();
    for args in [
        &["claim", ""][..],
        &["claim", " "],
        &["release", ""],
        &["release"],
        &["claim", "."],
        &["release", "."],
    ] {
        let out = step(&mut runs, root, None, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
    // `worktree:.`, which the message for `.` offers, is taken.
    let out = cli(root, None, &["claim", "worktree:."]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let out = cli(root, None, &["release", "--all"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Places that are repositories but no working tree.
    let bare = repo.remote.clone();
    for dir in [
        bare.clone(),
        root.join(".git"),
        root.join(".git/dibs"),
        root.join(".git/refs"),
    ] {
        let out = cli(&dir, None, &["status"]);
        let text = out_text(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(!text.contains("run this from a repository"), "{text}");
        runs.push((Box::leak(Box::new(["status"])) as &[&str], out));
    }
    // `landed`: nothing to compare with, and names that are no commit.
    let out = step(&mut runs, root, None, &["landed", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let out = step(&mut runs, root, None, &["landed", "--", "-x"]);
    assert_eq!(out.status.code(), Some(2));
    git(root, &["remote", "remove", "origin"]);
    let out = step(&mut runs, root, None, &["landed", "main"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out_text(&out).contains("git landed"), "{out:?}");
    // `audit`: too short a session prefix; an RFC 3339 offset.
    let out = step(&mut runs, root, None, &["audit", "--session", "a"]);
    assert_eq!(out.status.code(), Some(2));
    let out = step(
        &mut runs,
        root,
        None,
        &["audit", "--since", "2026-11-29T07:00:00+01:00"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    insta::assert_snapshot!("wrong_targets_and_places", transcript(&repo, &runs));
}

#[test]
fn a_store_the_user_cannot_write_says_so_once_and_what_to_do() {
    let uid = std::process::Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        eprintln!("skipped: root writes a read-only store anyway");
        return;
    }
    let repo = TestRepo::new();
    let out = cli(&repo.root, None, &["claim", "README.md"]);
    assert!(out.status.success(), "{out:?}");
    let store = repo.root.join(".git/dibs");
    let chmod = |mode: &str| {
        std::process::Command::new("chmod")
            .args(["-R", mode])
            .arg(&store)
            .status()
            .unwrap()
    };
    chmod("a-w");
    let out = cli(&repo.root, None, &["claim", "src/lib.rs"]);
    chmod("u+w");
    let text = out_text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert_eq!(text.matches("(os error 13)").count(), 1, "{text}");
    assert!(
        text.contains("must be readable and writable by you"),
        "{text}"
    );
}

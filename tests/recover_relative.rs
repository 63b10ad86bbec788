//! `recover PATH` and `recover --worktree PATH` read PATH as every command-line tool does:
//! relative to the folder it runs in (a subfolder, a sibling worktree, `..`), through a link to
//! the repository, or absolute; the same file comes back whichever spelling names it.

mod common;
mod recover_support;

use std::fs;

use common::*;
use recover_support::*;

/// An agent writes `src/deep/b.rs`, `src/a.rs` and `notes.md`, then all three are deleted.
fn written_then_deleted(repo: &TestRepo) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let agent = Agent::new("rel-agent", &repo.root);
    let files = vec![
        (
            agent.write("src/deep/b.rs", b"pub fn b() {}\n"),
            b"pub fn b() {}\n".to_vec(),
        ),
        (
            agent.write("src/a.rs", b"pub fn a2() {}\n"),
            b"pub fn a2() {}\n".to_vec(),
        ),
        (agent.write("notes.md", b"- plan\n"), b"- plan\n".to_vec()),
    ];
    sh(&repo.root, "rm -rf src/deep src/a.rs notes.md");
    collect_garbage(&repo.root);
    files
}

#[test]
fn paths_relative_to_a_subfolder_come_back() {
    let repo = TestRepo::new();
    let files = written_then_deleted(&repo);
    let src = repo.root.join("src");
    assert_recovers(&src, &["deep"], &files[..1]);
    assert_recovers(&src, &["./a.rs"], &files[1..2]);
    assert_recovers(&src, &["../notes.md"], &files[2..]);
}

#[test]
fn a_path_through_a_link_or_with_dot_dots_names_the_same_file() {
    let repo = TestRepo::new();
    let files = written_then_deleted(&repo);
    let base = repo.root.parent().unwrap();
    std::os::unix::fs::symlink(&repo.root, base.join("link")).unwrap();
    let via_link = base.join("link/src/deep/b.rs");
    assert_recovers(base, &[via_link.to_str().unwrap()], &files[..1]);
    assert_recovers(&repo.root, &["src/deep/../a.rs"], &files[1..2]);
    let absolute = repo.root.join("notes.md");
    assert_recovers(base, &[absolute.to_str().unwrap()], &files[2..]);
}

#[test]
fn a_removed_worktree_named_relative_to_a_sibling_comes_back() {
    let repo = TestRepo::new();
    let wt = repo.worktree("wt-rel");
    let agent = Agent::new("wt-agent", &wt);
    let file = agent.write("wip.rs", b"// wip\n");
    // git-dibs locks a worktree with uncommitted work; a second `--force` overrides the lock.
    sh(&repo.root, "git worktree remove --force --force ../wt-rel");
    collect_garbage(&repo.root);
    assert!(!wt.exists());
    let src = repo.root.join("src");
    assert_recovers(
        &src,
        &["--worktree", "../../wt-rel"],
        &[(file, b"// wip\n".to_vec())],
    );
}

#[test]
fn a_relative_path_outside_every_worktree_is_named_in_the_answer() {
    let repo = TestRepo::new();
    written_then_deleted(&repo);
    let (code, out, err) = recover(&repo.root.join("src"), &["../../elsewhere.rs"]);
    assert_eq!(code, 1, "out={out} err={err}");
    let outside = repo.root.parent().unwrap().join("elsewhere.rs");
    assert!(
        out.contains(&format!("nothing to recover at {}", outside.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "it is in no worktree of the clone at {}",
            repo.root.display()
        )),
        "{out}"
    );
    assert!(fs::metadata(&outside).is_err());
    // Inside the clone, a path with nothing kept gets no such line.
    let (code, out, _) = recover(&repo.root.join("src"), &["../never.rs"]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("no worktree"), "{out}");
}

#[test]
fn outside_every_repository_a_path_with_nothing_kept_says_where_to_run() {
    let repo = TestRepo::new();
    let base = repo.root.parent().unwrap();
    let (code, out, err) = recover(base, &["nowhere.rs"]);
    assert_eq!(code, 2, "out={out} err={err}");
    assert!(err.contains("is not inside a git working tree"), "{err}");
}

/// `--session` names one session with snapshots: its whole id or a prefix of four or more
/// characters only it starts with; otherwise the error says which sessions there are. `--at`
/// takes an RFC 3339 time with `Z` or an offset, or a duration ago.
#[test]
fn session_and_time_filters_say_what_they_could_not_use() {
    let repo = TestRepo::new();
    let one = Agent::new("abcd-1111", &repo.root);
    let two = Agent::new("abcd-2222", &repo.root);
    let file = one.write("one.txt", b"one\n");
    two.write("two.txt", b"two\n");
    std::fs::remove_file(&file).unwrap();
    let mut errors = Vec::new();
    for filter in ["zzzz", "a", "abcd"] {
        let (code, out, err) = recover(&repo.root, &["--session", filter]);
        assert_eq!(code, 2, "{filter}: {out}{err}");
        assert_eq!(out, "", "{filter}");
        errors.push(format!("--session {filter}: {}", err.trim()));
    }
    insta::assert_snapshot!("recover_session_filters", errors.join("\n"));
    assert_recovers(
        &repo.root,
        &["one.txt", "--session", "abcd-1"],
        &[(file.clone(), b"one\n".to_vec())],
    );
    // The same instant written with an offset and with `Z`.
    std::fs::remove_file(&file).unwrap();
    let listing = recover_json(&repo.root, &[]);
    let at = listed(&listing, "abcd-1111", "one.txt")["at"]
        .as_str()
        .unwrap()
        .to_owned();
    let east = format!("{}+00:30", at.trim_end_matches('Z'));
    // 30 minutes east of UTC is 30 minutes earlier in UTC: before the snapshot, nothing.
    let (code, out, _) = recover(&repo.root, &["one.txt", "--at", &east]);
    assert_eq!(code, 1, "{east}: {out}");
    let west = east.replace("+00:30", "-00:30");
    assert_recovers(
        &repo.root,
        &["one.txt", "--at", &west],
        &[(file, b"one\n".to_vec())],
    );
    let (code, _, err) = recover(&repo.root, &["--at", "2026-13-40T99:00:00+01:00"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read `--at"), "{err}");
}

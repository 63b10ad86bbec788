//! The clone's file watcher (`git dibs watch`, started by the sweep before a shell command): it
//! names every snapshotted file changed since its snapshot however the change came (in place, a
//! rename over it, through a hard link elsewhere, its folder moved away and made anew), names
//! none once they are snapshotted, never makes the sweep follow a link, and when it is gone,
//! asked to end or sent junk, the sweep stats every file itself and still finds every change.

mod common;
mod recover_support;
mod watch_support;

use std::io::Write as _;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use watch_support::*;

#[test]
fn a_change_in_place_is_named_then_snapshotted_and_named_no_more() {
    let (repo, _agent, files) = watched_repo(12);
    let first = snapshot(&repo.root, "maker");
    std::thread::sleep(Duration::from_millis(20));
    // Same size, same inode: only the times differ.
    std::fs::write(&files[4], b"fn g04() {}\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d1/f04.rs"]);
    let peer = Agent::new("peer", &repo.root);
    pre_bash(&peer, "make").assert_silent();
    let second = snapshot(&repo.root, "maker");
    assert_ne!(first, second);
    settle();
    assert_eq!(ask(&repo.root).unwrap(), Vec::<String>::new());
    // Nothing changed since: no snapshot.
    pre_bash(&peer, "make").assert_silent();
    assert_eq!(snapshot(&repo.root, "maker"), second);
    sh(&repo.root, "rm -rf src");
    assert_recovers(
        &repo.root,
        &["src/d1/f04.rs"],
        &[(files[4].clone(), b"fn g04() {}\n".to_vec())],
    );
}

#[test]
fn a_rename_over_a_file_and_a_write_through_a_hard_link_are_named() {
    let (repo, _agent, files) = watched_repo(6);
    // An editor's save: a new file renamed over the old.
    let tmp = repo.root.join("src/d0/.f00.rs.swp");
    std::fs::write(&tmp, b"fn saved() {}\n").unwrap();
    std::fs::rename(&tmp, &files[0]).unwrap();
    // A second name elsewhere, then a write through it alone.
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("other-name.rs");
    std::fs::hard_link(&files[1], &link).unwrap();
    assert_eq!(
        ask(&repo.root).unwrap(),
        vec!["src/d0/f00.rs", "src/d1/f01.rs"]
    );
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert_eq!(ask(&repo.root).unwrap(), Vec::<String>::new());
    settle();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&link)
        .unwrap()
        .write_all(b"// through the other name\n")
        .unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d1/f01.rs"]);
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"fn saved() {}\n"));
    assert!(has_blob(&repo.root, &std::fs::read(&files[1]).unwrap()));
}

#[test]
fn a_folder_moved_away_and_made_anew_is_watched_anew() {
    let (repo, _agent, _files) = watched_repo(6);
    let away = tempfile::tempdir().unwrap();
    std::fs::rename(repo.root.join("src"), away.path().join("src")).unwrap();
    // The moved folder's files are not the worktree's: writing them there is nothing to name.
    std::fs::write(away.path().join("src/d0/f00.rs"), b"moved away\n").unwrap();
    std::fs::create_dir_all(repo.root.join("src/d2")).unwrap();
    std::fs::write(repo.root.join("src/d2/f02.rs"), b"made anew\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d2/f02.rs"]);
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"made anew\n"));
    settle();
    // The new folder is watched: a later write in place there is named too.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(repo.root.join("src/d2/f02.rs"), b"made again\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d2/f02.rs"]);
    // And so is one in a folder made deeper down later.
    std::fs::create_dir_all(repo.root.join("src/d1")).unwrap();
    std::fs::write(repo.root.join("src/d1/f01.rs"), b"deeper\n").unwrap();
    assert_eq!(
        ask(&repo.root).unwrap(),
        vec!["src/d1/f01.rs", "src/d2/f02.rs"]
    );
}

#[test]
fn a_file_snapshotted_after_the_watcher_started_is_watched() {
    let (repo, agent, _files) = watched_repo(3);
    let late = agent.write("late/new.rs", b"fn late() {}\n");
    assert_eq!(ask(&repo.root).unwrap(), Vec::<String>::new());
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&late, b"fn LATE() {}\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["late/new.rs"]);
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"fn LATE() {}\n"));
}

#[test]
fn a_folder_replaced_by_a_link_is_never_followed_through_the_watcher() {
    let (repo, _agent, files) = watched_repo(6);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(
        elsewhere.path().join("f00.rs"),
        b"TOKEN=never-snapshot-this\n",
    )
    .unwrap();
    let away = tempfile::tempdir().unwrap();
    std::fs::rename(repo.root.join("src/d0"), away.path().join("d0")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), repo.root.join("src/d0")).unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    // (The link itself may be kept, as the sweep without a watcher keeps it; never what it
    // points to.)
    assert!(!has_blob(&repo.root, b"TOKEN=never-snapshot-this\n"));
    std::fs::remove_file(repo.root.join("src/d0")).unwrap();
    assert_recovers(
        &repo.root,
        &["src/d0/f00.rs"],
        &[(files[0].clone(), b"fn f00() {}\n".to_vec())],
    );
}

#[test]
fn without_its_watcher_the_sweep_still_finds_every_change() {
    let (repo, _agent, files) = watched_repo(6);
    // Junk on its socket ends it; so does a line of another version.
    let mut junk = UnixStream::connect(socket(&repo.root)).unwrap();
    junk.write_all(b"\xff\xfe not a question\n").unwrap();
    drop(junk);
    let until = Instant::now() + Duration::from_secs(20);
    while ask(&repo.root).is_some() {
        assert!(Instant::now() < until, "the watcher did not end");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::write(&files[2], b"changed while no watcher ran\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"changed while no watcher ran\n"));
    settle();
    // A socket file left behind by a watcher that died answers nothing and costs nothing.
    let _ = std::fs::remove_file(socket(&repo.root));
    std::os::unix::net::UnixListener::bind(socket(&repo.root)).unwrap();
    std::fs::write(&files[3], b"changed beside a dead socket\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"changed beside a dead socket\n"));
}

#[test]
fn the_watcher_ends_when_its_store_goes_and_only_one_runs_per_clone() {
    let (repo, _agent, _files) = watched_repo(3);
    let common = repo.root.join(".git");
    // A second watcher for the clone ends at once: the first holds the lock.
    let second = std::process::Command::new(bin())
        .args(["watch", "--dir"])
        .arg(&common)
        .status()
        .unwrap();
    assert!(second.success());
    assert!(ask(&repo.root).is_some());
    let pids = watchers(&common);
    assert_eq!(pids.len(), 1, "{pids:?}");
    std::fs::remove_dir_all(common.join("dibs")).unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !watchers(&common).is_empty() {
        assert!(Instant::now() < until, "the watcher outlived its store");
        std::thread::sleep(Duration::from_millis(50));
    }
}

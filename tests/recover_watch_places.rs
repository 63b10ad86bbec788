//! The file watcher where the files live: a file system mounted over a watched folder (no
//! event reports a mount) or a watched folder on a tmpfs from the start, a folder bind-mounted
//! at a second place, the git folder moved away (`git init --separate-git-dir`), git rewriting
//! many watched files (checkout, `git mv`, stash, rebase), a linked worktree moved by git, and
//! a bare repository with linked worktrees. Mount cases pass over where mounting is not allowed.

mod common;
mod recover_support;
mod watch_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use watch_support::*;

/// Unmount `dir` when dropped.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// `mount` with `args`; `None` when mounting is not allowed here.
fn mount(args: &[&str], at: &Path) -> Option<Mounted> {
    let ok = std::process::Command::new("mount")
        .args(args)
        .arg(at)
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mounted(at.to_path_buf()))
}

/// A tmpfs mounted over a watched folder after the watcher started (a mount makes no inotify
/// event): a file written in its place is a change the sweep without a watcher keeps.
#[test]
fn a_file_system_mounted_over_a_watched_folder_is_seen_at_once() {
    let (repo, _agent, files) = watched_repo(6);
    let d0 = repo.root.join("src/d0");
    let Some(_m) = mount(&["-t", "tmpfs", "none"], &d0) else {
        eprintln!("mount not allowed: skipped");
        return;
    };
    std::fs::write(&files[0], b"written on the mounted tmpfs\n").unwrap();
    let named = ask(&repo.root).unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    let kept = has_blob(&repo.root, b"written on the mounted tmpfs\n");
    let control = kept_without_watcher(&repo.root, b"written on the mounted tmpfs\n");
    settle();
    quit(&repo.root);
    assert!(
        kept,
        "a file on a tmpfs mounted over its folder missed; named {named:?}; kept without the watcher: {control}"
    );
}

/// As above, then later writes on the mounted tmpfs: each is named (the watches moved to the
/// mounted folder and its files, not left on the covered inodes).
#[test]
fn a_file_system_mounted_over_a_watched_folder_is_watched_anew_for_later_writes() {
    let (repo, _agent, files) = watched_repo(6);
    let d0 = repo.root.join("src/d0");
    let Some(_m) = mount(&["-t", "tmpfs", "none"], &d0) else {
        eprintln!("mount not allowed: skipped");
        return;
    };
    std::fs::write(&files[0], b"first on the tmpfs\n").unwrap();
    // Past the watcher's 5 s recheck.
    std::thread::sleep(Duration::from_secs(6));
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d0/f00.rs"]);
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"first on the tmpfs\n"));
    settle();
    let mut missed = Vec::new();
    for round in 0..3 {
        std::thread::sleep(Duration::from_millis(300));
        let bytes = format!("tmpfs write {round}\n");
        std::fs::write(&files[0], &bytes).unwrap();
        let named = ask(&repo.root).unwrap();
        pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
        if !has_blob(&repo.root, bytes.as_bytes()) {
            missed.push((round, named));
        }
        settle();
    }
    quit(&repo.root);
    assert!(missed.is_empty(), "missed after the recheck: {missed:?}");
}

/// A watched folder that is a tmpfs from the start (mounted before its files were written):
/// changes there are named.
#[test]
fn a_watched_folder_on_a_tmpfs_from_the_start() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let tmp = repo.root.join("gen");
    std::fs::create_dir_all(&tmp).unwrap();
    let Some(_m) = mount(&["-t", "tmpfs", "none"], &tmp) else {
        eprintln!("mount not allowed: skipped");
        return;
    };
    let files: Vec<PathBuf> = (0..6)
        .map(|i| agent.write(&format!("gen/sub/f{i}.rs"), b"on tmpfs\n"))
        .collect();
    started(&repo.root, &agent);
    tick();
    std::fs::remove_file(&files[1]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    std::fs::write(&files[1], b"tmpfs made anew\n").unwrap();
    std::fs::write(&files[2], b"tmpfs in place\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    let kept = (
        has_blob(&repo.root, b"tmpfs made anew\n"),
        has_blob(&repo.root, b"tmpfs in place\n"),
    );
    settle();
    quit(&repo.root);
    assert_eq!(kept, (true, true));
}

/// A watched folder bind-mounted at a second watched place inside the worktree (both are one
/// inode: one inotify watch). A file removed, then (once the watcher took that in) made anew
/// at the first place: the sweep without a watcher keeps its bytes.
#[test]
fn a_folder_bind_mounted_at_a_second_watched_place() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let a = repo.root.join("src/a");
    let b = repo.root.join("src/b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let Some(_m) = mount(&["--bind", a.to_str().unwrap()], &b) else {
        eprintln!("bind mount not allowed: skipped");
        return;
    };
    let x = agent.write("src/a/x.rs", b"x first\n");
    let y = agent.write("src/b/y.rs", b"y first\n");
    started(&repo.root, &agent);
    let mut missed = Vec::new();
    for (i, f) in [&x, &y, &x, &y].into_iter().enumerate() {
        tick();
        std::fs::remove_file(f).unwrap();
        // The watcher takes in the removal before the file comes back.
        std::thread::sleep(Duration::from_millis(300));
        let _ = ask(&repo.root);
        let bytes = format!("{} made anew under a bind mount, round {i}\n", f.display());
        std::fs::write(f, &bytes).unwrap();
        let named = ask(&repo.root).unwrap();
        pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
        if !has_blob(&repo.root, bytes.as_bytes()) {
            missed.push((i, f.clone(), named));
        }
        settle();
    }
    quit(&repo.root);
    let kept = missed.is_empty();
    let named = &missed;
    assert!(
        kept,
        "the file made anew was missed; the watcher named {named:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Writes no event reports.

/// `git init --separate-git-dir` moves `.git` (and the store in it) away while the watcher
/// runs: the watcher, still reachable through the moved socket, must not say "nothing
/// changed" about files it no longer reads the logs of.
#[test]
fn the_git_folder_moved_by_separate_git_dir() {
    let (repo, agent, files) = watched_repo(6);
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("moved.git");
    git(
        &repo.root,
        &["init", "--separate-git-dir", moved.to_str().unwrap()],
    );
    assert!(repo.root.join(".git").is_file());
    // A session goes on: a write through its edit tool (its log changes).
    agent.write("src/d0/new.rs", b"after the move\n");
    tick();
    std::fs::write(&files[1], b"changed after the git folder moved\n").unwrap();
    let named = ask_at(&moved.join("dibs/watch.sock"));
    let t = Instant::now();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    let took = t.elapsed();
    let kept = has_blob(&repo.root, b"changed after the git folder moved\n");
    let control = kept_without_watcher(&repo.root, b"changed after the git folder moved\n");
    eprintln!("kept without the watcher: {control}");
    eprintln!("the watcher at the moved socket named {named:?}");
    settle();
    eprintln!("hook took {took:?}");
    for pid in watchers(&repo.root.join(".git")) {
        sh(&repo.root, &format!("kill {pid}"));
    }
    assert!(
        kept,
        "a change after `git init --separate-git-dir` was missed"
    );
}

// ---------------------------------------------------------------------------------------
// A killed watcher.

/// `git checkout` of another branch, `git mv` of a watched folder, `git stash pop`, and
/// `git rebase`: each rewrites many watched files; a person's edit after each is kept by the
/// next sweep.
#[test]
fn git_rewrites_many_watched_files_then_a_person_edits() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    for i in 0..40 {
        std::fs::create_dir_all(repo.root.join(format!("lib/m{}", i % 4))).unwrap();
        std::fs::write(
            repo.root.join(format!("lib/m{}/f{i}.rs", i % 4)),
            format!("main {i}\n"),
        )
        .unwrap();
    }
    git(&repo.root, &["add", "-A"]);
    git(&repo.root, &["commit", "-qm", "lib"]);
    git(&repo.root, &["checkout", "-qb", "other"]);
    for i in 0..40 {
        std::fs::write(
            repo.root.join(format!("lib/m{}/f{i}.rs", i % 4)),
            format!("other {i}\n"),
        )
        .unwrap();
    }
    git(&repo.root, &["commit", "-qam", "other"]);
    git(&repo.root, &["checkout", "-q", "-"]);
    // The session writes each file (all snapshotted).
    for i in 0..40 {
        agent.write(
            &format!("lib/m{}/f{i}.rs", i % 4),
            format!("main {i}\n").as_bytes(),
        );
    }
    started(&repo.root, &agent);
    let peer = Agent::new("peer", &repo.root);
    let edit = |rel: &str, bytes: &[u8]| {
        tick();
        std::fs::write(repo.root.join(rel), bytes).unwrap();
        pre_bash(&peer, "make").assert_silent();
        let kept = has_blob(&repo.root, bytes);
        settle();
        assert!(kept, "{rel}: {:?} lost", String::from_utf8_lossy(bytes));
    };
    // Another branch: every file rewritten (new inodes).
    sh(&repo.root, "git checkout -q other");
    std::thread::sleep(Duration::from_millis(50));
    pre_bash(&peer, "make").assert_silent();
    settle();
    edit("lib/m1/f5.rs", b"edit after checkout other\n");
    // Back.
    sh(&repo.root, "git checkout -q -f -");
    pre_bash(&peer, "make").assert_silent();
    settle();
    edit("lib/m2/f6.rs", b"edit after checkout back\n");
    // A watched folder moved by git and moved back.
    sh(&repo.root, "git mv lib/m3 lib/m3x && git mv lib/m3x lib/m3");
    edit("lib/m3/f7.rs", b"edit after git mv and back\n");
    // Stash and pop.
    sh(&repo.root, "git stash -q && git stash pop -q");
    edit("lib/m0/f8.rs", b"edit after stash pop\n");
    // A rebase that rewrites the files (onto the other branch).
    sh(
        &repo.root,
        "git checkout -q -- . && git stash -q -u; git rebase -q other || true",
    );
    std::thread::sleep(Duration::from_millis(50));
    pre_bash(&peer, "make").assert_silent();
    settle();
    edit("lib/m1/f9.rs", b"edit after rebase\n");
    quit(&repo.root);
}

/// `git worktree move` of a linked worktree whose files a session snapshotted; then the
/// session goes on at the new place, and a person edits files there.
#[test]
fn a_linked_worktree_moved_by_git() {
    let repo = TestRepo::new();
    let wt = repo.worktree("side");
    let agent = Agent::new("maker", &wt);
    let files: Vec<PathBuf> = (0..8)
        .map(|i| agent.write(&format!("w/f{i}.rs"), b"side\n"))
        .collect();
    started(&repo.root, &agent);
    let to = wt.parent().unwrap().join("side-moved");
    // The worktree is locked while a session holds files in it: a person unlocks it.
    git(&repo.root, &["worktree", "unlock", wt.to_str().unwrap()]);
    git(
        &repo.root,
        &[
            "worktree",
            "move",
            wt.to_str().unwrap(),
            to.to_str().unwrap(),
        ],
    );
    let agent2 = Agent::new("maker", &to);
    agent2.write("w/f0.rs", b"side moved, written by the session\n");
    tick();
    std::fs::write(to.join("w/f0.rs"), b"moved worktree, person edit\n").unwrap();
    pre_bash(&Agent::new("peer", &to), "make").assert_silent();
    let kept = has_blob(&repo.root, b"moved worktree, person edit\n");
    settle();
    quit(&repo.root);
    let _ = files;
    assert!(kept);
}

// ---------------------------------------------------------------------------------------
// A bare repository with worktrees.

/// A bare clone with two linked worktrees: the watcher of the bare store names changes in both.
#[test]
fn a_bare_repository_with_worktrees() {
    let repo = TestRepo::new();
    let top = tempfile::tempdir().unwrap();
    let bare = top.path().join("b.git");
    git(
        top.path(),
        &[
            "clone",
            "-q",
            "--bare",
            repo.root.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    let w1 = top.path().join("w1");
    let w2 = top.path().join("w2");
    git(
        &bare,
        &["worktree", "add", "-q", "--detach", w1.to_str().unwrap()],
    );
    git(
        &bare,
        &["worktree", "add", "-q", "--detach", w2.to_str().unwrap()],
    );
    let a1 = Agent::new("one", &w1);
    let a2 = Agent::new("two", &w2);
    let f1 = a1.write("x/a.rs", b"a\n");
    let f2 = a2.write("x/b.rs", b"b\n");
    pre_bash(&a1, "cargo build").assert_silent();
    let sock = bare.join("dibs/watch.sock");
    let until = Instant::now() + Duration::from_secs(10);
    while ask_at(&sock).is_none() {
        assert!(Instant::now() < until, "no watcher for the bare store");
        std::thread::sleep(Duration::from_millis(20));
    }
    settle();
    tick();
    std::fs::write(&f1, b"bare w1 edit\n").unwrap();
    std::fs::write(&f2, b"bare w2 edit\n").unwrap();
    assert_eq!(ask_at(&sock).unwrap(), vec!["x/a.rs", "x/b.rs"]);
    pre_bash(&Agent::new("peer", &w2), "make").assert_silent();
    assert!(has_blob(&w1, b"bare w1 edit\n"));
    assert!(has_blob(&w1, b"bare w2 edit\n"));
    settle();
    if let Ok(mut s) = std::os::unix::net::UnixStream::connect(&sock) {
        use std::io::Write as _;
        let _ = s.write_all(b"DIBSW1 quit\n");
    }
}

// ---------------------------------------------------------------------------------------
// More changes than one sweep takes; huge answers.

//! The file watcher against what may sit at its socket or in its store: a listener that
//! takes no connection, dribbles bytes or is stopped never holds a hook past its wait; a socket
//! linked to another clone's watcher, or a fake one that says nothing changed, hides no change
//! (the answer names the store it is about); a watcher whose socket is replaced ends; clones
//! and nested worktrees keep apart; a store removed and made anew, or a log edited by hand, is
//! watched as it is now.

mod common;
mod recover_support;
mod watch_support;

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use watch_support::*;

/// A process at `watch.sock` that answers one byte every 100 ms (a valid-looking head, then
/// garbage): each read returns within 250 ms, but the hook's wait is for the whole answer.
#[test]
fn a_socket_that_dribbles_bytes_holds_no_hook() {
    let (repo, _agent, files) = watched_repo(3);
    let listener = take_socket(&repo.root);
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            std::thread::spawn(move || {
                for _ in 0..60 {
                    if s.write_all(b"D").is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            });
        }
    });
    std::fs::write(&files[0], b"changed beside a dribbling socket\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let (took, killed) = timed_pre_bash(&peer, "make", Duration::from_secs(10));
    assert!(
        took < Duration::from_millis(1500) && !killed,
        "the hook was held {took:?} by a socket that dribbles (killed: {killed})"
    );
    assert!(has_blob(&repo.root, b"changed beside a dribbling socket\n"));
}

/// A listener at `watch.sock` whose accept queue is full (backlog 0, one connection queued,
/// never accepted): the hook does not wait to connect.
#[test]
fn a_socket_whose_queue_is_full_holds_no_hook() {
    let (repo, _agent, files) = watched_repo(3);
    stop_watcher(&repo.root);
    let sock = socket(&repo.root);
    let _ = std::fs::remove_file(&sock);
    let script = format!(
        "import socket,time\n\
         s=socket.socket(socket.AF_UNIX); s.bind({p:?}); s.listen(0)\n\
         c=socket.socket(socket.AF_UNIX); c.connect({p:?})\n\
         print('ready', flush=True)\n\
         time.sleep(30)\n",
        p = sock.to_str().unwrap()
    );
    let mut py = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = [0u8; 6];
    py.stdout.as_mut().unwrap().read_exact(&mut ready).unwrap();
    std::fs::write(&files[0], b"changed beside a full socket\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let (took, killed) = timed_pre_bash(&peer, "make", Duration::from_secs(5));
    let _ = py.kill();
    let _ = py.wait();
    assert!(
        !killed && took < Duration::from_millis(1500),
        "the hook was held {took:?} by a socket whose queue is full (killed: {killed})"
    );
    assert!(has_blob(&repo.root, b"changed beside a full socket\n"));
}

/// The watcher stopped (SIGSTOP: swapped out, a debugger): the hook waits at most its answer
/// time, then stats every file itself and finds the change.
#[test]
fn a_stopped_watcher_neither_holds_a_hook_nor_hides_a_change() {
    let (repo, _agent, files) = watched_repo(3);
    let pids = watchers(&repo.root.join(".git"));
    assert_eq!(pids.len(), 1);
    sh(&repo.root, &format!("kill -STOP {}", pids[0]));
    std::fs::write(&files[1], b"changed while the watcher was stopped\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let (took, killed) = timed_pre_bash(&peer, "make", Duration::from_secs(5));
    sh(&repo.root, &format!("kill -CONT {}", pids[0]));
    assert!(!killed && took < Duration::from_millis(1500), "{took:?}");
    assert!(has_blob(
        &repo.root,
        b"changed while the watcher was stopped\n"
    ));
}

/// Clone A's `watch.sock` replaced by a link to clone B's live watcher socket. B answers for
/// B's store, which is not A's: A's hook stats its files itself.
#[test]
fn a_socket_linked_to_another_clones_watcher_hides_no_change() {
    let (a, _aa, a_files) = watched_repo(3);
    let (b, _ba, _b_files) = watched_repo(3);
    std::fs::remove_file(socket(&a.root)).unwrap();
    std::os::unix::fs::symlink(socket(&b.root), socket(&a.root)).unwrap();
    // A's own watcher saw its socket go and ended.
    let until = Instant::now() + Duration::from_secs(10);
    while !watchers(&a.root.join(".git")).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::write(&a_files[0], b"A changed, B's watcher asked\n").unwrap();
    pre_bash(&Agent::new("peer", &a.root), "make").assert_silent();
    quit(&b.root);
    assert!(
        has_blob(&a.root, b"A changed, B's watcher asked\n"),
        "A's change was not snapshotted: the answer of B's watcher was taken for A's"
    );
}

/// The socket renamed over (not removed): the watcher, no longer reachable, ends (and lets go
/// of the clone's lock, so a new one can start).
#[test]
fn a_watcher_whose_socket_is_renamed_over_ends() {
    let (repo, _agent, files) = watched_repo(3);
    let common = repo.root.join(".git");
    assert_eq!(watchers(&common).len(), 1);
    let other = repo.root.join(".git/dibs/not-a-socket");
    std::fs::write(&other, b"junk").unwrap();
    std::fs::rename(&other, socket(&repo.root)).unwrap();
    std::fs::write(&files[0], b"changed after the socket was renamed over\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let (took, _) = timed_pre_bash(&peer, "make", Duration::from_secs(5));
    assert!(took < Duration::from_millis(1500));
    assert!(has_blob(
        &repo.root,
        b"changed after the socket was renamed over\n"
    ));
    let until = Instant::now() + Duration::from_secs(12);
    while !watchers(&common).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left = watchers(&common);
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
    }
    assert!(
        left.is_empty(),
        "watcher {left:?} outlived its socket (renamed over) by 12 s"
    );
}

/// Two clones and a nested host worktree (`.claude/worktrees/x` inside the main checkout):
/// each clone's watcher names its own changes only, and each sweep snapshots them.
#[test]
fn two_clones_and_a_nested_worktree_keep_apart() {
    let (a, _aa, a_files) = watched_repo(3);
    let (b, _ba, b_files) = watched_repo(3);
    let nested = a.host_worktree("x");
    let na = Agent::new("nested", &nested);
    let nf = na.write("src/d0/f00.rs", b"nested one\n");
    tick();
    std::fs::write(&a_files[0], b"A zero\n").unwrap();
    std::fs::write(&nf, b"nested two\n").unwrap();
    std::fs::write(&b_files[1], b"B one\n").unwrap();
    let named = ask(&a.root).unwrap();
    assert!(named.contains(&"src/d0/f00.rs".to_owned()), "{named:?}");
    assert_eq!(ask(&b.root).unwrap(), vec!["src/d1/f01.rs"]);
    pre_bash(&Agent::new("p", &a.root), "make").assert_silent();
    pre_bash(&Agent::new("p", &b.root), "make").assert_silent();
    assert!(has_blob(&a.root, b"A zero\n"));
    assert!(has_blob(&a.root, b"nested two\n"));
    assert!(has_blob(&b.root, b"B one\n"));
    assert!(!has_blob(&a.root, b"B one\n"));
    quit(&a.root);
    quit(&b.root);
}

/// A session's log edited by hand: truncated to nothing, then the session writes a file again;
/// a stamp rewritten. The watcher keeps answering and the changes are snapshotted.
#[test]
fn a_log_edited_by_hand_is_read_as_it_is() {
    let (repo, agent, files) = watched_repo(4);
    let logs = repo.root.join(".git/dibs/snapshots");
    let log = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "log"))
        .unwrap();
    let text = std::fs::read(&log).unwrap();
    // A stamp edited in place (a digit of the first file line changed, same size).
    let mut edited = text.clone();
    let at = edited
        .windows(2)
        .position(|w| w == b"\nf")
        .and_then(|s| {
            edited[s + 2..]
                .iter()
                .position(u8::is_ascii_digit)
                .map(|d| s + 2 + d)
        })
        .unwrap();
    edited[at] = if edited[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&log, &edited).unwrap();
    let named = ask(&repo.root).unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    eprintln!("after a stamp edited: named {named:?}");
    settle();
    std::fs::write(&log, b"").unwrap();
    assert!(ask(&repo.root).is_some());
    std::fs::write(&log, &text).unwrap();
    tick();
    std::fs::write(&files[2], b"after the log came back\n").unwrap();
    assert!(
        ask(&repo.root)
            .unwrap()
            .contains(&"src/d2/f02.rs".to_owned())
    );
    let late = agent.write("src/late.rs", b"late\n");
    tick();
    std::fs::write(&late, b"late changed\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"after the log came back\n"));
    assert!(has_blob(&repo.root, b"late changed\n"));
    quit(&repo.root);
}

/// The store removed and made anew (a new session's first write): the old watcher ends, a new
/// one starts, and a change after is named.
#[test]
fn a_store_removed_and_made_anew_gets_a_new_watcher() {
    let (repo, agent, _files) = watched_repo(3);
    let common = repo.root.join(".git");
    std::fs::remove_dir_all(common.join("dibs")).unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while !watchers(&common).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(watchers(&common).is_empty());
    let f = agent.write("src/again.rs", b"again\n");
    let g = agent.write("src/again2.rs", b"again2\n");
    pre_bash(&agent, "cargo build").assert_silent();
    wait_answer(&repo.root);
    settle();
    tick();
    std::fs::write(&f, b"again changed\n").unwrap();
    std::fs::write(&g, b"again2 changed\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"again changed\n"));
    assert!(has_blob(&repo.root, b"again2 changed\n"));
    assert_eq!(watchers(&common).len(), 1);
    quit(&repo.root);
}

/// A fake watcher at the socket that answers "nothing changed" in another version's words, or
/// about another store: not believed, the sweep stats every file itself.
#[test]
fn a_fake_watcher_that_says_nothing_changed_is_not_believed() {
    let (repo, _agent, files) = watched_repo(3);
    let listener = take_socket(&repo.root);
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(mut s) = s else { continue };
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut line = [0u8; 11];
            let _ = s.read_exact(&mut line);
            let answer: &[u8] = if n.is_multiple_of(2) {
                b"DIBSW1 0\n"
            } else {
                b"DIBSW1 0 1 2\n"
            };
            let _ = s.write_all(answer);
        }
    });
    for (i, file) in files.iter().take(2).enumerate() {
        tick();
        let bytes = format!("changed, a fake watcher says no ({i})\n");
        std::fs::write(file, &bytes).unwrap();
        let peer = Agent::new("peer", &repo.root);
        pre_bash(&peer, "make").assert_silent();
        assert!(has_blob(&repo.root, bytes.as_bytes()), "{bytes}");
        settle();
    }
    assert!(
        asked.load(std::sync::atomic::Ordering::SeqCst) >= 2,
        "the hook never asked"
    );
}

/// A watcher short of inotify watches (its share of the user's limit spent) names every file
/// it could not watch in every answer, and the sweep stats those itself.
#[test]
fn a_watcher_short_of_watches_names_what_it_cannot_watch() {
    let (repo, _agent, files) = watched_repo(12);
    let common = repo.root.join(".git");
    stop_watcher(&repo.root);
    // The store and its logs' folder, every folder from `/` down to the files', and five
    // files: the other seven are named.
    let folders = repo.root.ancestors().count() + 1 + 3;
    let budget = 2 + folders + 5;
    let mut watcher = std::process::Command::new(bin())
        .args(["watch", "--budget", &budget.to_string(), "--dir"])
        .arg(&common)
        .spawn()
        .unwrap();
    let named = wait_answer(&repo.root);
    assert_eq!(named.len(), 7, "{named:?}");
    // A file it could not watch, changed: found by the sweep's own stat.
    let unwatched = files
        .iter()
        .find(|f| named.iter().any(|n| f.ends_with(n)))
        .unwrap();
    tick();
    std::fs::write(unwatched, b"changed, never watched\n").unwrap();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"changed, never watched\n"));
    settle();
    // Fewer watches than the folders on the way: every file is named.
    quit(&repo.root);
    watcher.wait().unwrap();
    let mut starved = std::process::Command::new(bin())
        .args(["watch", "--budget", "3", "--dir"])
        .arg(&common)
        .spawn()
        .unwrap();
    assert_eq!(wait_answer(&repo.root).len(), 12);
    quit(&repo.root);
    starved.wait().unwrap();
}

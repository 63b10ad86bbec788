//! The file watcher under load and over time: thirty hooks asking at once, a flood of events
//! in a watched folder while hooks ask, thousands of create/rename/delete cycles and sessions'
//! logs coming and going (its descriptors, watches and memory stay bounded, it idles without
//! spending CPU), more changed files than one sweep takes, and a killed watcher replaced once
//! the pause between starts is over.

mod common;
mod recover_support;
mod watch_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use watch_support::*;

/// 30 PreToolUse sweeps of three sessions at once, three rounds, while files change between
/// rounds: every change kept, no hook held long.
#[test]
fn many_hooks_asking_at_once_keep_every_change() {
    let repo = TestRepo::new();
    let makers: Vec<Agent> = (0..3)
        .map(|s| Agent::new(&format!("maker{s}"), &repo.root))
        .collect();
    let mut files = Vec::new();
    for (s, a) in makers.iter().enumerate() {
        for i in 0..20 {
            files.push(a.write(&format!("s{s}/d{}/f{i}.rs", i % 4), b"start\n"));
        }
    }
    started(&repo.root, &makers[0]);
    let mut worst = Duration::ZERO;
    for round in 0..3 {
        tick();
        for (i, f) in files.iter().enumerate() {
            if i % 3 == round {
                std::fs::write(f, format!("round {round} file {i}\n")).unwrap();
            }
        }
        let children: Vec<(Instant, std::process::Child)> = (0..30)
            .map(|h| {
                let id = format!("peer{}", h % 5);
                let event = bash_event(&id, &repo.root, "make");
                (
                    Instant::now(),
                    spawn_hook(&repo.root, format!("{event}\n").as_bytes(), ON),
                )
            })
            .collect();
        for (t, mut child) in children {
            let out = child.wait().unwrap();
            assert!(out.success());
            worst = worst.max(t.elapsed());
        }
        for (i, f) in files.iter().enumerate() {
            if i % 3 == round {
                let bytes = format!("round {round} file {i}\n");
                assert!(
                    has_blob(&repo.root, bytes.as_bytes()),
                    "round {round}: {} lost",
                    f.display()
                );
            }
        }
        for h in 0..5 {
            let post = Agent::new(&format!("peer{h}"), &repo.root).post_bash_env("make", ON);
            assert_eq!(post.code, 0, "{}", post.stderr);
        }
    }
    eprintln!("slowest of 90 parallel hooks: {worst:?}");
    assert_eq!(watchers(&repo.root.join(".git")).len(), 1);
    quit(&repo.root);
    assert!(worst < Duration::from_secs(3), "a hook took {worst:?}");
}

// ---------------------------------------------------------------------------------------
// Resources over time.

/// Thousands of create/rename/delete cycles of watched files and folders: the watcher's fds,
/// memory and inotify watches stay bounded, and it idles without spending CPU.
#[test]
fn resources_stay_bounded_over_thousands_of_cycles() {
    let (repo, _agent, files) = watched_repo(30);
    let pid = the_watcher(&repo.root.join(".git"));
    // Warm up: one of each cycle.
    let cycle = |n: usize| {
        let f = &files[n % files.len()];
        // Editor save: new file renamed over.
        let tmp = f.with_extension("swp");
        std::fs::write(&tmp, format!("save {n}\n")).unwrap();
        std::fs::rename(&tmp, f).unwrap();
        // Deleted and made anew.
        let g = &files[(n + 7) % files.len()];
        std::fs::remove_file(g).unwrap();
        std::fs::write(g, format!("anew {n}\n")).unwrap();
        // A watched folder moved away and back.
        let d = repo.root.join(format!("src/d{}", n % 3));
        let away = repo.root.join("src/away");
        std::fs::rename(&d, &away).unwrap();
        std::fs::rename(&away, &d).unwrap();
        // A folder made and removed beside them.
        let junk = repo.root.join(format!("src/d{}/junk", n % 3));
        std::fs::create_dir(&junk).unwrap();
        std::fs::remove_dir(&junk).unwrap();
    };
    for n in 0..50 {
        cycle(n);
    }
    assert!(ask(&repo.root).is_some());
    std::thread::sleep(Duration::from_millis(300));
    let before = resources(pid);
    for n in 50..3050 {
        cycle(n);
        if n % 200 == 0 {
            assert!(ask(&repo.root).is_some());
        }
    }
    let named = ask(&repo.root).unwrap();
    assert!(!named.is_empty());
    std::thread::sleep(Duration::from_millis(300));
    let after = resources(pid);
    eprintln!("before (fds, rss kB, watches) {before:?}, after 3000 cycles {after:?}");
    assert_eq!(before.0, after.0, "fds grew");
    assert!(
        after.2 <= before.2 + 2,
        "watches grew: {before:?} -> {after:?}"
    );
    assert!(
        after.1 < before.1 + 4096,
        "RSS grew: {before:?} -> {after:?}"
    );
    // Everything still kept.
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    for f in &files {
        assert!(
            has_blob(&repo.root, &std::fs::read(f).unwrap()),
            "{}",
            f.display()
        );
    }
    settle();
    // Idle: CPU over 20 s.
    let t0 = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(20));
    let spent = cpu_ticks(pid) - t0;
    eprintln!("idle CPU over 20 s: {spent} ticks");
    quit(&repo.root);
    assert!(spent < 100, "{spent} ticks of CPU in 20 s idle");
}

/// Many sessions' logs come and go (each session snapshots a file, then its log is pruned):
/// the watcher's memory stays bounded.
#[test]
fn many_sessions_logs_coming_and_going_leak_no_memory() {
    let (repo, agent, _files) = watched_repo(4);
    let pid = the_watcher(&repo.root.join(".git"));
    let logs = repo.root.join(".git/dibs/snapshots");
    // A big log: the maker's, with 2 000 files (each a line).
    let mut text = std::fs::read_to_string(logs.join(format!("{}.log", agent.id)))
        .or_else(|_| {
            // The log may be named by a key, not the id: the only one.
            let only = std::fs::read_dir(&logs)
                .unwrap()
                .flatten()
                .find(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .unwrap();
            std::fs::read_to_string(only.path())
        })
        .unwrap();
    let template = text.clone();
    text.clear();
    eprintln!("log template:\n{template}");
    let rss = |pid| resources(pid).1;
    assert!(ask(&repo.root).is_some());
    let start = rss(pid);
    let mut series = Vec::new();
    for round in 0..6 {
        for s in 0..100 {
            let id = format!("gone{round}x{s}");
            let body = template.replace(&agent.id, &id);
            // Padded with comment-free repeats of the file lines: bigger logs.
            std::fs::write(logs.join(format!("{id}.log")), body.repeat(20)).unwrap();
            if s % 10 == 0 {
                let _ = ask(&repo.root);
            }
        }
        let _ = ask(&repo.root);
        for s in 0..100 {
            let _ = std::fs::remove_file(logs.join(format!("gone{round}x{s}.log")));
            let _ = std::fs::remove_file(logs.join(format!("gone{round}x{s}.stat")));
        }
        let _ = ask(&repo.root);
        series.push(rss(pid));
    }
    eprintln!("RSS kB at start {start}, after each 100 sessions come and gone: {series:?}");
    quit(&repo.root);
    let last = *series.last().unwrap();
    assert!(
        last < start + 8192,
        "RSS grew from {start} kB to {last} kB: {series:?}"
    );
}

// ---------------------------------------------------------------------------------------
// A flood while a hook asks.

/// A thread makes and removes names in a watched folder without pause while watched files
/// change: each hook answers in time (or falls back) and no change is lost.
#[test]
fn a_flood_in_a_watched_folder_while_hooks_ask() {
    let (repo, _agent, files) = watched_repo(12);
    let stop_flood = Arc::new(AtomicBool::new(false));
    let flood = {
        let stop_flood = Arc::clone(&stop_flood);
        let dir = repo.root.join("src/d0");
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop_flood.load(Ordering::Relaxed) {
                let p = dir.join(format!("flood{}", n % 500));
                let _ = std::fs::write(&p, b"x");
                let _ = std::fs::remove_file(&p);
                n += 1;
            }
            n
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let peer = Agent::new("peer", &repo.root);
    let mut worst = Duration::ZERO;
    for round in 0..8 {
        tick();
        let f = &files[round % files.len()];
        let bytes = format!("amid the flood {round}\n");
        std::fs::write(f, &bytes).unwrap();
        worst = worst.max(timed(&peer, "make"));
        assert!(
            has_blob(&repo.root, bytes.as_bytes()),
            "round {round}: {} lost amid the flood",
            f.display()
        );
        settle();
    }
    stop_flood.store(true, Ordering::Relaxed);
    let n = flood.join().unwrap();
    eprintln!("{n} names made and removed; slowest hook {worst:?}");
    quit(&repo.root);
    assert!(worst < Duration::from_secs(1), "a hook took {worst:?}");
}

// ---------------------------------------------------------------------------------------
// Other file systems inside the worktree.

/// The watcher killed (SIGKILL: its socket and lock left behind): hooks find changes by
/// themselves at once, no second watcher starts within the pause, and one does after it.
#[test]
fn a_killed_watcher_is_replaced_after_the_pause() {
    let (repo, _agent, files) = watched_repo(6);
    let common = repo.root.join(".git");
    let pid = the_watcher(&common);
    sh(&repo.root, &format!("kill -KILL {pid}"));
    let until = Instant::now() + Duration::from_secs(5);
    while !watchers(&common).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(socket(&repo.root).exists(), "the socket is left behind");
    tick();
    std::fs::write(&files[0], b"after the kill\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let took = timed(&peer, "make");
    assert!(has_blob(&repo.root, b"after the kill\n"));
    assert!(took < Duration::from_secs(1), "{took:?}");
    settle();
    std::thread::sleep(Duration::from_millis(300));
    assert!(watchers(&common).is_empty(), "restarted within the pause");
    // The pause over (as if 61 s passed): the next sweep starts one.
    let then = now_secs() - 61;
    std::fs::write(common.join("dibs/watch.started"), format!("{then}\n")).unwrap();
    pre_bash(&peer, "make").assert_silent();
    settle();
    assert_eq!(wait_answer(&repo.root), Vec::<String>::new());
    tick();
    std::fs::write(&files[1], b"after the restart\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/d1/f01.rs"]);
    pre_bash(&peer, "make").assert_silent();
    assert!(has_blob(&repo.root, b"after the restart\n"));
    settle();
    assert_eq!(watchers(&common).len(), 1);
    quit(&repo.root);
}

// ---------------------------------------------------------------------------------------
// Git rewriting many watched files.

/// 700 watched files changed at once (more than the sweep's 512): two sweeps keep them all,
/// and the watcher's answer naming them all comes in time.
#[test]
fn more_changed_files_than_one_sweep_takes() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    agent.write("src/seed.rs", b"seed\n");
    let long = "n".repeat(150);
    for i in 0..700 {
        let dir = repo.root.join(format!("big/s{}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{long}{i}.txt")), format!("file {i}\n")).unwrap();
    }
    git(&repo.root, &["add", "big"]);
    git(&repo.root, &["commit", "-qm", "big"]);
    sh(
        &repo.root,
        "for f in big/s*/*.txt; do echo dirty >> $f; done",
    );
    // The guard's PreToolUse of a destroyer snapshots the dirty files.
    let _ = pre_bash(&agent, "git checkout -- big");
    settle();
    let _ = pre_bash(&agent, "cargo build");
    settle();
    let _ = wait_answer(&repo.root);
    tick();
    sh(
        &repo.root,
        "for f in big/s*/*.txt; do echo person >> $f; done",
    );
    let named = ask(&repo.root).unwrap();
    assert!(named.len() >= 700, "named {}", named.len());
    let peer = Agent::new("peer", &repo.root);
    let first = timed(&peer, "make");
    settle();
    let second = timed(&peer, "make");
    settle();
    let mut lost = Vec::new();
    for i in 0..700 {
        let f = repo.root.join(format!("big/s{}/{long}{i}.txt", i % 20));
        if !has_blob(&repo.root, &std::fs::read(&f).unwrap()) {
            lost.push(i);
        }
    }
    eprintln!("sweeps took {first:?} and {second:?}");
    quit(&repo.root);
    assert!(
        lost.is_empty(),
        "{} of 700 lost after two sweeps: {:?}",
        lost.len(),
        &lost[..lost.len().min(10)]
    );
}

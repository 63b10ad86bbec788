//! The file watcher names every change a sweep without it finds, however the change came:
//! rewritten by git (`checkout --`, `stash`, `reset --hard`), by stat alone or keeping its
//! times (`chmod`, `touch -d`, `cp -p`), replaced by a link, a FIFO or a folder, an ancestor
//! folder moved and a worktree removed and added again, a repository reached through a link,
//! changes made while the watcher starts, an overflowed event queue, thousands of files in
//! deep folders, odd names, a path that is a file in one log and a folder on the way in another.

mod common;
mod recover_support;
mod watch_support;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use watch_support::*;

/// A log names `gen` (a file once) and `gen/out.rs` (after `gen` became a folder). The file
/// watch the watcher adds for `gen` lands on the folder's inode, where inotify replaces the
/// folder watch's mask (no CREATE/DELETE/MOVED_TO any more): a file removed and made anew in
/// `gen/` is never named.
#[test]
fn a_path_watched_as_file_and_as_folder_hides_no_file_made_anew() {
    let (repo, agent) = gen_once_a_file();
    std::fs::remove_file(repo.root.join("gen")).unwrap();
    let out = agent.write("gen/out.rs", b"fn out() {}\n");
    let peer = Agent::new("peer", &repo.root);
    pre_bash(&peer, "cargo build").assert_silent();
    wait_answer(&repo.root);
    settle();
    // The file removed, then made anew with other bytes (a generator, `git checkout`).
    std::fs::remove_file(&out).unwrap();
    std::fs::write(&out, b"fn out() { regenerated }\n").unwrap();
    // (The watcher may have ended, its store away for a moment: then the sweep stats all.)
    let named = ask(&repo.root);
    pre_bash(&peer, "make").assert_silent();
    quit(&repo.root);
    assert!(
        has_blob(&repo.root, b"fn out() { regenerated }\n"),
        "gen/out.rs made anew was not snapshotted; the watcher named {named:?}"
    );
}

/// Session A snapshotted F; session B then edited F (its own snapshot has F's new stamp). The
/// watcher calls F clean (its stat matches B's stamp), so A's sweep never stats F: A's
/// snapshots lack the change, unlike without a watcher. Once B's snapshots are gone (its
/// ref deleted, as `recover_refs_gone` contemplates), the bytes are nowhere.
#[test]
fn another_sessions_stamp_hides_no_change_from_a_session() {
    let run = |env: &'static [(&str, &str)]| -> (bool, bool) {
        let repo = TestRepo::new();
        let a = Agent::new("aaa", &repo.root);
        let files: Vec<PathBuf> = (0..3)
            .map(|i| {
                a.write(
                    &format!("src/f{i}.rs"),
                    format!("fn f{i}() {{}}\n").as_bytes(),
                )
            })
            .collect();
        pre_bash_env(&a, "cargo build", env).assert_silent();
        if env == ON {
            wait_answer(&repo.root);
        }
        settle();
        let before = snapshot(&repo.root, "aaa");
        let b = Agent::new("bbb", &repo.root);
        tick();
        b.write("src/f1.rs", b"fn f1() { written by bbb }\n");
        pre_bash_env(&Agent::new("peer", &repo.root), "make", env).assert_silent();
        let a_moved = snapshot(&repo.root, "aaa") != before;
        settle();
        // B's snapshots dropped; F deleted; garbage collected.
        git(&repo.root, &["update-ref", "-d", "refs/dibs/snapshots/bbb"]);
        quit(&repo.root);
        std::fs::remove_file(&files[1]).unwrap();
        collect_garbage(&repo.root);
        (
            a_moved,
            has_blob(&repo.root, b"fn f1() { written by bbb }\n"),
        )
    };
    let without = run(OFF);
    let with = run(ON);
    assert_eq!(
        with, without,
        "(A's ref moved, bytes kept): with watcher {with:?}, without {without:?}"
    );
}

/// Files git rewrites (unlink + create: a new inode each) are watched anew: a later write in
/// place to each is named and snapshotted.
#[test]
fn files_rewritten_by_checkout_stash_and_reset_are_watched_anew() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let lib = agent.write("src/lib.rs", b"pub fn a() { 1 }\n");
    let readme = agent.write("README.md", b"# changed\n");
    let extra: Vec<PathBuf> = (0..3)
        .map(|i| agent.write(&format!("src/x{i}.rs"), b"x\n"))
        .collect();
    git(&repo.root, &["add", "src"]);
    git(&repo.root, &["commit", "-qm", "x"]);
    started(&repo.root, &agent);
    let peer = Agent::new("peer", &repo.root);
    // A person's change, then the agent's `git checkout -- README.md`.
    std::fs::write(&readme, b"# by a person\n").unwrap();
    agent.bash("git checkout -- README.md");
    assert!(has_blob(&repo.root, b"# by a person\n"));
    tick();
    std::fs::write(&readme, b"# after checkout\n").unwrap();
    std::fs::write(&lib, b"pub fn a() { 2 }\n").unwrap();
    agent.bash("git stash");
    assert!(has_blob(&repo.root, b"# after checkout\n"));
    assert!(has_blob(&repo.root, b"pub fn a() { 2 }\n"));
    tick();
    std::fs::write(&lib, b"pub fn a() { 3 }\n").unwrap();
    std::fs::write(&extra[0], b"x0 changed\n").unwrap();
    agent.bash("git reset -q --hard");
    assert!(has_blob(&repo.root, b"pub fn a() { 3 }\n"));
    assert!(has_blob(&repo.root, b"x0 changed\n"));
    tick();
    std::fs::write(&extra[0], b"x0 after reset\n").unwrap();
    std::fs::write(&lib, b"pub fn a() { 4 }\n").unwrap();
    let named = ask(&repo.root).unwrap();
    assert!(named.contains(&"src/x0.rs".to_owned()), "{named:?}");
    assert!(named.contains(&"src/lib.rs".to_owned()), "{named:?}");
    pre_bash(&peer, "make").assert_silent();
    assert!(has_blob(&repo.root, b"x0 after reset\n"));
    assert!(has_blob(&repo.root, b"pub fn a() { 4 }\n"));
    quit(&repo.root);
}

/// Stat-only changes: chmod, a write whose mtime is put back (`touch -d`, `cp -p`), a
/// truncate and rewrite to the same size right after the snapshot, a file moved in from
/// elsewhere (`mv`), a write through a hard link made after the watcher started.
#[test]
fn stat_only_and_time_keeping_changes_are_named() {
    let (repo, _agent, files) = watched_repo(8);
    tick();
    sh(&repo.root, "chmod +x src/d0/f00.rs");
    // Same size, mtime put back.
    sh(
        &repo.root,
        "m=$(stat -c %y src/d1/f01.rs); printf 'fn F01() {}\\n' > src/d1/f01.rs; touch -d \"$m\" src/d1/f01.rs",
    );
    // cp -p of a file with the same size and the old mtime.
    let elsewhere = tempfile::tempdir().unwrap();
    let src = elsewhere.path().join("f02.rs");
    std::fs::write(&src, b"fn F02() {}\n").unwrap();
    sh(
        &repo.root,
        &format!(
            "touch -r src/d2/f02.rs {0} && cp -p {0} src/d2/f02.rs",
            src.display()
        ),
    );
    // Truncate then rewrite the same size, at once.
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&files[3])
            .unwrap();
        f.set_len(0).unwrap();
        f.write_all(b"fn F03() {}\n").unwrap();
    }
    // mv in from elsewhere, keeping times.
    let moved = elsewhere.path().join("f04.rs");
    std::fs::write(&moved, b"fn F04() {}\n").unwrap();
    sh(
        &repo.root,
        &format!(
            "touch -r src/d1/f04.rs {0} && mv {0} src/d1/f04.rs",
            moved.display()
        ),
    );
    // A hard link made now, written through.
    let link = elsewhere.path().join("link5");
    std::fs::hard_link(&files[5], &link).unwrap();
    let named_link = ask(&repo.root).unwrap();
    std::fs::write(&link, b"fn F05() {}\n").unwrap();
    let named = ask(&repo.root).unwrap();
    for p in [
        "src/d0/f00.rs",
        "src/d1/f01.rs",
        "src/d2/f02.rs",
        "src/d0/f03.rs",
        "src/d1/f04.rs",
        "src/d2/f05.rs",
    ] {
        assert!(
            named.contains(&p.to_owned()),
            "{p} not named: {named:?} (after link: {named_link:?})"
        );
    }
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    for bytes in [
        &b"fn F01() {}\n"[..],
        b"fn F02() {}\n",
        b"fn F03() {}\n",
        b"fn F04() {}\n",
        b"fn F05() {}\n",
    ] {
        assert!(
            has_blob(&repo.root, bytes),
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }
    quit(&repo.root);
}

/// A watched file replaced by a link out of the worktree, a FIFO, a folder: the hook neither
/// hangs (a FIFO opened for reading blocks) nor snapshots what the link points to.
#[test]
fn a_file_replaced_by_a_link_a_fifo_or_a_folder() {
    let (repo, _agent, files) = watched_repo(6);
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = elsewhere.path().join("secret");
    std::fs::write(&secret, b"SECRET=never-snapshot\n").unwrap();
    std::fs::remove_file(&files[0]).unwrap();
    std::os::unix::fs::symlink(&secret, &files[0]).unwrap();
    std::fs::remove_file(&files[1]).unwrap();
    sh(&repo.root, &format!("mkfifo {}", files[1].display()));
    std::fs::remove_file(&files[2]).unwrap();
    std::fs::create_dir(&files[2]).unwrap();
    std::fs::write(files[2].join("inner.rs"), b"inner\n").unwrap();
    let peer = Agent::new("peer", &repo.root);
    let (took, killed) = timed_pre_bash(&peer, "make", Duration::from_secs(10));
    assert!(!killed && took < Duration::from_secs(5), "{took:?}");
    assert!(!has_blob(&repo.root, b"SECRET=never-snapshot\n"));
    settle();
    // Put back as files: each named and snapshotted.
    std::fs::remove_file(&files[0]).unwrap();
    std::fs::write(&files[0], b"back 0\n").unwrap();
    std::fs::remove_file(&files[1]).unwrap();
    std::fs::write(&files[1], b"back 1\n").unwrap();
    std::fs::remove_dir_all(&files[2]).unwrap();
    std::fs::write(&files[2], b"back 2\n").unwrap();
    pre_bash(&peer, "make").assert_silent();
    for b in [&b"back 0\n"[..], b"back 1\n", b"back 2\n"] {
        assert!(has_blob(&repo.root, b), "{}", String::from_utf8_lossy(b));
    }
    quit(&repo.root);
}

/// A linked worktree deep below `a/b/`: the ancestor `a` moved away and another `a/b/wt` put
/// in its place; then the linked worktree removed and added again at the same path.
#[test]
fn an_ancestor_moved_and_a_worktree_removed_and_added_again() {
    let repo = TestRepo::new();
    let base = repo.tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("a/b")).unwrap();
    let wt = base.join("a/b/wt");
    git(
        &repo.root,
        &["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()],
    );
    let agent = Agent::new("maker", &wt);
    let f = agent.write("src/deep/f.rs", b"fn f() {}\n");
    let g = agent.write("src/g.rs", b"fn g() {}\n");
    let main_agent = Agent::new("main", &repo.root);
    main_agent.write("src/m.rs", b"fn m() {}\n");
    started(&repo.root, &main_agent);
    // `a` moved away, another put in its place with new bytes at the same paths.
    std::fs::rename(base.join("a"), base.join("a-old")).unwrap();
    std::fs::create_dir_all(f.parent().unwrap()).unwrap();
    std::fs::write(&f, b"fn f() { new a }\n").unwrap();
    assert_eq!(ask(&repo.root).unwrap(), vec!["src/deep/f.rs"]);
    pre_bash(&main_agent, "make").assert_silent();
    assert!(has_blob(&repo.root, b"fn f() { new a }\n"));
    settle();
    // Back: the worktree removed and added again at the same path.
    std::fs::remove_dir_all(base.join("a")).unwrap();
    std::fs::rename(base.join("a-old"), base.join("a")).unwrap();
    git(
        &repo.root,
        &["worktree", "remove", "-f", "-f", wt.to_str().unwrap()],
    );
    git(
        &repo.root,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "wt"],
    );
    std::fs::create_dir_all(f.parent().unwrap()).unwrap();
    std::fs::write(&f, b"fn f() { re-added }\n").unwrap();
    std::fs::write(&g, b"fn g() { re-added }\n").unwrap();
    pre_bash(&main_agent, "make").assert_silent();
    assert!(has_blob(&repo.root, b"fn f() { re-added }\n"));
    assert!(has_blob(&repo.root, b"fn g() { re-added }\n"));
    settle();
    tick();
    std::fs::write(&g, b"fn g() { in place after }\n").unwrap();
    assert!(ask(&repo.root).unwrap().contains(&"src/g.rs".to_owned()));
    pre_bash(&main_agent, "make").assert_silent();
    assert!(has_blob(&repo.root, b"fn g() { in place after }\n"));
    quit(&repo.root);
}

/// The repository reached through a symlinked path (the agent's cwd is the link).
#[test]
fn a_repository_reached_through_a_link() {
    let repo = TestRepo::new();
    let base = repo.tmp.path().canonicalize().unwrap();
    let link = base.join("via-link");
    std::os::unix::fs::symlink(&repo.root, &link).unwrap();
    let agent = Agent::new("maker", &link);
    let files: Vec<PathBuf> = (0..3)
        .map(|i| agent.write(&format!("src/f{i}.rs"), b"x\n"))
        .collect();
    pre_bash(&agent, "cargo build").assert_silent();
    wait_answer(&repo.root);
    settle();
    tick();
    std::fs::write(&files[0], b"through the link\n").unwrap();
    std::fs::write(repo.root.join("src/f1.rs"), b"through the real path\n").unwrap();
    pre_bash(&agent, "make").assert_silent();
    assert!(has_blob(&repo.root, b"through the link\n"));
    assert!(has_blob(&repo.root, b"through the real path\n"));
    quit(&repo.root);
}

/// Changes made while the watcher starts (it is run by hand here, so that writes race its
/// first read of the logs and its watches): the last bytes of each file reach the store.
#[test]
fn changes_while_the_watcher_starts() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let files: Vec<PathBuf> = (0..40)
        .map(|i| agent.write(&format!("src/d{}/f{i:02}.rs", i % 4), b"x\n"))
        .collect();
    let common = repo.root.join(".git");
    for round in 0..5 {
        quit(&repo.root);
        let until = Instant::now() + Duration::from_secs(10);
        while !watchers(&common).is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut w = std::process::Command::new(bin())
            .args(["watch", "--dir"])
            .arg(&common)
            .current_dir("/")
            .spawn()
            .unwrap();
        // Write every file while it starts, until it answers.
        let mut n = 0;
        while ask(&repo.root).is_none() {
            let f = &files[n % files.len()];
            std::fs::write(f, format!("round {round} write {n}\n")).unwrap();
            if f.parent().unwrap().ends_with("d3") && n % 3 == 0 {
                // Renamed over, too.
                let tmp = f.with_extension("tmp");
                std::fs::write(&tmp, format!("round {round} write {n}\n")).unwrap();
                std::fs::rename(&tmp, f).unwrap();
            }
            n += 1;
        }
        pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            assert!(
                has_blob(&repo.root, &bytes),
                "round {round}: {} ({}) not in the store after {n} writes",
                f.display(),
                String::from_utf8_lossy(&bytes)
            );
        }
        settle();
        quit(&repo.root);
        let _ = w.wait();
    }
}

/// The watcher stopped while 40 000 names come and go in a watched folder (its event queue
/// overflows), with a watched file changed among them; resumed, it names the change.
#[test]
fn an_overflowed_event_queue_still_names_the_change() {
    let (repo, _agent, files) = watched_repo(6);
    let pids = watchers(&repo.root.join(".git"));
    sh(&repo.root, &format!("kill -STOP {}", pids[0]));
    let flood = repo.root.join("src/d0/flood");
    std::fs::create_dir(&flood).unwrap();
    for i in 0..20_000 {
        std::fs::write(repo.root.join(format!("src/d0/n{i}")), b"").unwrap();
        if i == 10_000 {
            std::fs::write(&files[3], b"changed amid a flood\n").unwrap();
            std::fs::rename(repo.root.join("src/d1"), repo.root.join("src/d1-away")).unwrap();
            std::fs::create_dir(repo.root.join("src/d1")).unwrap();
            std::fs::write(&files[1], b"made anew amid a flood\n").unwrap();
        }
    }
    for i in 0..20_000 {
        let _ = std::fs::remove_file(repo.root.join(format!("src/d0/n{i}")));
    }
    sh(&repo.root, &format!("kill -CONT {}", pids[0]));
    let named = ask(&repo.root).unwrap();
    assert!(named.contains(&"src/d0/f03.rs".to_owned()), "{named:?}");
    assert!(named.contains(&"src/d1/f01.rs".to_owned()), "{named:?}");
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    assert!(has_blob(&repo.root, b"changed amid a flood\n"));
    assert!(has_blob(&repo.root, b"made anew amid a flood\n"));
    settle();
    // Still watching after: a write in place named.
    tick();
    std::fs::write(&files[4], b"after the flood\n").unwrap();
    assert!(
        ask(&repo.root)
            .unwrap()
            .contains(&"src/d1/f04.rs".to_owned())
    );
    quit(&repo.root);
}

/// Thousands of watched files in deep folders (snapshotted by the guard before `rm -rf`),
/// one changed deep down: named, snapshotted; the hook's answer is quick.
#[test]
fn thousands_of_watched_files_in_deep_folders() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    // Each file written through the edit tool (its own snapshot): slow, so the rest are
    // written in one go and snapshotted by the guard's PreToolUse of a destroyer.
    agent.write("src/seed.rs", b"seed\n");
    let mut deep = repo.root.join("big");
    for i in 0..40 {
        deep = deep.join(format!("level{i:02}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    for i in 0..1500 {
        let dir = repo.root.join(format!("big/s{}", i % 50));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    std::fs::write(deep.join("bottom.txt"), b"bottom\n").unwrap();
    git(&repo.root, &["add", "big"]);
    sh(
        &repo.root,
        "for d in big/s*; do echo more >> $d/f0.txt 2>/dev/null; done; true",
    );
    // The guard's PreToolUse of a destroyer snapshots the dirty files.
    std::fs::write(deep.join("bottom.txt"), b"bottom dirty\n").unwrap();
    let _ = pre_bash(&agent, "git checkout -- big");
    let _ = pre_bash(&agent, "cargo build");
    let named = wait_answer(&repo.root);
    settle();
    assert!(named.len() < 10, "{named:?}");
    tick();
    std::fs::write(deep.join("bottom.txt"), b"bottom changed by a person\n").unwrap();
    let named = ask(&repo.root).unwrap();
    let t = Instant::now();
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    let took = t.elapsed();
    quit(&repo.root);
    assert!(
        has_blob(&repo.root, b"bottom changed by a person\n"),
        "named {named:?}"
    );
    eprintln!("sweep with watcher took {took:?}");
}

/// Odd names (backslash, tab, newline, percent, unicode): the watcher's names and the sweep's
/// agree.
#[test]
fn odd_names_are_named_as_the_sweep_names_them() {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let names = [
        "src/back\\slash.rs",
        "src/tab\there.rs",
        "src/new\nline.rs",
        "src/per%25cent.rs",
        "src/ünï cödé.rs",
        "src/-dash.rs",
    ];
    let files: Vec<PathBuf> = names.iter().map(|n| agent.write(n, b"odd\n")).collect();
    started(&repo.root, &agent);
    tick();
    for (i, f) in files.iter().enumerate() {
        std::fs::write(f, format!("odd changed {i}\n")).unwrap();
    }
    let named = ask(&repo.root).unwrap();
    assert_eq!(named.len(), names.len(), "{named:?}");
    pre_bash(&Agent::new("peer", &repo.root), "make").assert_silent();
    for (i, name) in names.iter().enumerate() {
        assert!(
            has_blob(&repo.root, format!("odd changed {i}\n").as_bytes()),
            "{name}"
        );
    }
    quit(&repo.root);
}

/// As above, with the watcher already running while `gen` turns from a file into a folder,
/// and then the worktree renamed away and back (every watch below it made anew: folders
/// first, then files, so the file watch for `gen` lands last on the folder's inode).
#[test]
fn a_path_watched_as_file_and_folder_after_a_rewatch_hides_no_file_made_anew() {
    let (repo, agent) = gen_once_a_file();
    started(&repo.root, &agent);
    std::fs::remove_file(repo.root.join("gen")).unwrap();
    let out = agent.write("gen/out.rs", b"fn out() {}\n");
    let peer = Agent::new("peer", &repo.root);
    pre_bash(&peer, "make").assert_silent();
    settle();
    let log = std::fs::read_dir(repo.root.join(".git/dibs/snapshots"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "log"))
        .unwrap();
    let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    let gen_lines: Vec<&str> = text.lines().filter(|l| l.contains("\tgen")).collect();
    eprintln!("gen lines: {gen_lines:?}");
    // The worktree renamed away and back.
    let away = repo.root.with_file_name("repo-away");
    std::fs::rename(&repo.root, &away).unwrap();
    std::fs::rename(&away, &repo.root).unwrap();
    eprintln!("named before the removal: {:?}", ask(&repo.root));
    // The file removed, then made anew with other bytes.
    std::fs::remove_file(&out).unwrap();
    // (The watcher takes in the removal before the file comes back.)
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&out, b"fn out() { regenerated }\n").unwrap();
    // (The watcher may have ended, its store away for a moment: then the sweep stats all.)
    let named = ask(&repo.root);
    pre_bash(&peer, "make").assert_silent();
    let kept = has_blob(&repo.root, b"fn out() { regenerated }\n");
    eprintln!("named after regen: {named:?}");
    settle();
    quit(&repo.root);
    assert!(
        kept,
        "gen/out.rs made anew was not snapshotted; the watcher named {named:?}; log: {gen_lines:?}"
    );
}

/// A session that snapshotted three files in `src/` and a file `gen` (later a folder).
fn gen_once_a_file() -> (TestRepo, Agent) {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    for i in 0..3 {
        agent.write(
            &format!("src/f{i}.rs"),
            format!("fn f{i}() {{}}\n").as_bytes(),
        );
    }
    agent.write("gen", b"once a file\n");
    (repo, agent)
}

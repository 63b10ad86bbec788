//! The sweep before a shell command that may destroy, where its stat data come from folder
//! handles: a file changed in place among many watched in its folder (and in folders whose
//! names sort around it) is found and snapshotted alone; a folder replaced by a link is never
//! followed (what lies behind it never enters the object store); a file replaced by a FIFO is
//! listed as left out and never opened; a removed file or folder costs nothing.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;

fn snapshot(root: &Path, session: &str) -> String {
    git_out(
        root,
        &["rev-parse", &format!("refs/dibs/snapshots/{session}")],
    )
}

/// The paths whose content differs between two snapshot commits.
fn changed_between(root: &Path, old: &str, new: &str) -> Vec<String> {
    let out = git_out(root, &["diff-tree", "-r", "--name-only", old, new]);
    let mut paths: Vec<String> = out.lines().map(str::to_owned).collect();
    paths.sort();
    paths
}

/// Rewrite `file` in place with as many bytes as it had: its size and inode stay, and so do
/// its folder's stat data. (After a pause, so its times are not those of the snapshot.)
fn rewrite_in_place(file: &Path, bytes: &[u8]) {
    assert_eq!(std::fs::metadata(file).unwrap().len(), bytes.len() as u64);
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(file).unwrap());
    std::thread::sleep(std::time::Duration::from_millis(30));
    std::fs::write(file, bytes).unwrap();
    let after = std::fs::metadata(file).unwrap();
    assert_eq!(std::os::unix::fs::MetadataExt::ino(&after), ino);
}

#[test]
fn a_file_changed_in_place_among_many_in_its_folder_is_snapshotted_alone() {
    let repo = TestRepo::new();
    let agent = Agent::new("many", &repo.root);
    let mut files = Vec::new();
    for i in 0..60 {
        let body = format!("pub fn f{i:02}() {{}}\n");
        files.push(agent.write(&format!("src/many/f{i:02}.rs"), body.as_bytes()));
    }
    // Names that sort around the folder's, and deeper and shallower ones.
    for rel in [
        "src/many.rs",
        "src/many-x/g.rs",
        "src/many/deeper/h.rs",
        "src/a.rs",
        "top.rs",
    ] {
        agent.write(rel, b"pub fn x() {}\n");
    }
    let first = snapshot(&repo.root, "many");
    rewrite_in_place(&files[37], b"pub fn g37() {}\n");
    rewrite_in_place(&repo.root.join("src/many-x/g.rs"), b"pub fn y() {}\n");
    rewrite_in_place(&repo.root.join("src/many/deeper/h.rs"), b"pub fn z() {}\n");
    let peer = Agent::new("peer", &repo.root);
    peer.pre_bash("cargo build").assert_silent();
    let second = snapshot(&repo.root, "many");
    let changed = changed_between(&repo.root, &first, &second);
    assert_eq!(changed.len(), 3, "{changed:?}");
    for rel in ["src/many-x/g.rs", "src/many/deeper/h.rs", "src/many/f37.rs"] {
        // (A snapshot's tree names a file by its worktree and its path, `/` spelled `%2F`.)
        let named = rel.replace('/', "%2F");
        assert!(
            changed.iter().any(|p| p.ends_with(&named)),
            "{rel}: {changed:?}"
        );
    }
    // Nothing changed since: the next sweep makes no snapshot.
    peer.pre_bash("cargo build").assert_silent();
    assert_eq!(snapshot(&repo.root, "many"), second);
    sh(&repo.root, "rm -rf src");
    assert_recovers(
        &repo.root,
        &["src/many/f37.rs"],
        &[(files[37].clone(), b"pub fn g37() {}\n".to_vec())],
    );
}

#[test]
fn a_folder_replaced_by_a_link_is_never_followed_by_the_sweep() {
    let repo = TestRepo::new();
    let agent = Agent::new("linked", &repo.root);
    let file = agent.write("src/deep/f.rs", b"pub fn mine() {}\n");
    let first = snapshot(&repo.root, "linked");
    // Outside any hook, the folder goes and a link to a folder elsewhere takes its place,
    // holding a file of the same name.
    let elsewhere = tempfile::tempdir().unwrap();
    let secret = elsewhere.path().join("f.rs");
    std::fs::write(&secret, "TOKEN=never-snapshot-this\n").unwrap();
    let moved = tempfile::tempdir().unwrap();
    std::fs::rename(repo.root.join("src/deep"), moved.path().join("deep")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), repo.root.join("src/deep")).unwrap();
    let peer = Agent::new("peer", &repo.root);
    peer.pre_bash("make").assert_silent();
    assert_eq!(snapshot(&repo.root, "linked"), first);
    let blob = git_out(&repo.root, &["hash-object", &secret.display().to_string()]);
    let probe = std::process::Command::new("git")
        .args(["cat-file", "-e", &blob])
        .current_dir(&repo.root)
        .status()
        .unwrap();
    assert!(
        !probe.success(),
        "what lies behind the link was snapshotted"
    );
    // What the agent made is still there to bring back.
    std::fs::remove_file(repo.root.join("src/deep")).unwrap();
    assert_recovers(
        &repo.root,
        &["src/deep/f.rs"],
        &[(file, b"pub fn mine() {}\n".to_vec())],
    );
}

#[test]
fn a_file_replaced_by_a_fifo_is_listed_never_opened_and_a_removed_one_costs_nothing() {
    let repo = TestRepo::new();
    let agent = Agent::new("piped", &repo.root);
    agent.write("src/pipe.rs", b"pub fn pipe() {}\n");
    agent.write("src/gone.rs", b"pub fn gone() {}\n");
    agent.write("src/gonedir/x.rs", b"pub fn x() {}\n");
    let first = snapshot(&repo.root, "piped");
    sh(
        &repo.root,
        "rm src/pipe.rs src/gone.rs && rm -r src/gonedir && mkfifo src/pipe.rs",
    );
    let peer = Agent::new("peer", &repo.root);
    // A FIFO opened for reading would block until a writer came: the hook returns at once.
    peer.pre_bash("./run.sh").assert_silent();
    let second = snapshot(&repo.root, "piped");
    assert_ne!(second, first);
    let listing = recover_json(&repo.root, &[]);
    let skipped = listing["skipped"].to_string();
    assert!(
        skipped.contains("src/pipe.rs") && skipped.contains("a FIFO (never read)"),
        "{skipped}"
    );
    // The removed ones were not there to snapshot: nothing else changed.
    assert!(
        changed_between(&repo.root, &first, &second)
            .iter()
            .all(|p| !p.contains("gone"))
    );
    peer.pre_bash("./run.sh").assert_silent();
    assert_eq!(snapshot(&repo.root, "piped"), second);
}

/// The sweep's copies of the snapshot logs in the store (`snapshots/*.stat`).
fn sweep_copies(root: &Path) -> Vec<std::path::PathBuf> {
    let dir = root.join(".git/dibs/snapshots");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "stat"))
        .collect();
    out.sort();
    out
}

#[test]
fn a_file_rewritten_at_once_after_a_sweep_that_found_nothing_is_found_by_the_next_one() {
    let repo = TestRepo::new();
    let agent = Agent::new("quick", &repo.root);
    let files: Vec<_> = (0..20)
        .map(|i| {
            agent.write(
                &format!("src/q/f{i:02}.rs"),
                format!("pub fn f{i:02}() {{}}\n").as_bytes(),
            )
        })
        .collect();
    let peer = Agent::new("peer", &repo.root);
    peer.pre_bash("cargo build").assert_silent();
    let first = snapshot(&repo.root, "quick");
    // That sweep read the log and left its copy, which the next sweep reads instead.
    assert_eq!(sweep_copies(&repo.root).len(), 1);
    // Same size, same inode, no pause: within the same second, likely the same clock tick.
    std::fs::write(&files[7], b"pub fn g07() {}\n").unwrap();
    peer.pre_bash("cargo build").assert_silent();
    let second = snapshot(&repo.root, "quick");
    assert_eq!(changed_between(&repo.root, &first, &second).len(), 1);
    assert!(changed_between(&repo.root, &first, &second)[0].ends_with("src%2Fq%2Ff07.rs"));
    peer.pre_bash("cargo build").assert_silent();
    assert_eq!(
        snapshot(&repo.root, "quick"),
        second,
        "nothing changed since"
    );
    // A damaged copy is not believed: the log answers, and the copy is made again.
    for copy in sweep_copies(&repo.root) {
        let mut bytes = std::fs::read(&copy).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&copy, bytes).unwrap();
    }
    std::fs::write(&files[8], b"pub fn g08() {}\n").unwrap();
    peer.pre_bash("cargo build").assert_silent();
    let third = snapshot(&repo.root, "quick");
    let changed = changed_between(&repo.root, &second, &third);
    assert!(
        changed.len() == 1 && changed[0].ends_with("src%2Fq%2Ff08.rs"),
        "{changed:?}"
    );
    // Gone: nothing is left behind the copy either.
    std::fs::remove_dir_all(repo.root.join(".git/dibs/snapshots")).unwrap();
    peer.pre_bash("cargo build").assert_silent();
}

/// Session `session`'s snapshot log in the store.
fn snapshot_log(root: &Path, session: &str) -> std::path::PathBuf {
    root.join(format!(".git/dibs/snapshots/{session}.log"))
}

#[test]
fn an_edit_that_changed_nothing_leaves_a_fresh_log_alone_and_a_same_size_rewrite_is_still_kept() {
    let repo = TestRepo::new();
    let agent = Agent::new("steady", &repo.root);
    let file = agent.write("src/steady.rs", b"pub fn a() {}\n");
    let first = snapshot(&repo.root, "steady");
    let log = snapshot_log(&repo.root, "steady");
    let written = std::fs::read(&log).unwrap();
    // Post-tool hooks of edits that left the file untouched (the edit failed, or had nothing
    // to replace): the file is read and found as the log has it, so no line is added.
    for _ in 0..3 {
        agent.post_edit(&file).assert_silent();
    }
    assert_eq!(std::fs::read(&log).unwrap(), written);
    assert_eq!(snapshot(&repo.root, "steady"), first);
    // A rewrite of the same size at once (same second, likely the same clock tick) is read
    // all the same, whatever its stat data say.
    std::fs::write(&file, b"pub fn b() {}\n").unwrap();
    agent.post_edit(&file).assert_silent();
    let second = snapshot(&repo.root, "steady");
    let changed = changed_between(&repo.root, &first, &second);
    assert!(
        changed.len() == 1 && changed[0].ends_with("src%2Fsteady.rs"),
        "{changed:?}"
    );
    // A log left alone for over a minute gets the line anyway: its age is what tells a
    // peer's sweep that the session still works.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    std::fs::File::options()
        .append(true)
        .open(&log)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let len = std::fs::metadata(&log).unwrap().len();
    agent.post_edit(&file).assert_silent();
    let meta = std::fs::metadata(&log).unwrap();
    assert!(meta.len() > len);
    assert!(meta.modified().unwrap() > old + std::time::Duration::from_secs(60));
    assert_eq!(snapshot(&repo.root, "steady"), second);
    // And the session's file is still swept before a peer's command.
    rewrite_in_place(&file, b"pub fn c() {}\n");
    Agent::new("peer", &repo.root)
        .pre_bash("cargo build")
        .assert_silent();
    let third = snapshot(&repo.root, "steady");
    let changed = changed_between(&repo.root, &second, &third);
    assert!(
        changed.len() == 1 && changed[0].ends_with("src%2Fsteady.rs"),
        "{changed:?}"
    );
}

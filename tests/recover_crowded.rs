//! A crowded clone (red team 5/08): twelve linked worktrees, one lane a session, and a script
//! that writes a result into every lane. The scan after a shell command looks at eight
//! worktrees at most; those past the cap are marked pending, as a scan stopped at its budget
//! is, so the next command that may destroy anywhere in the clone, of any session, scans them
//! first. A peer's `git clean` in a lane the scan did not reach therefore finds the file in
//! git's object store, and `git dibs recover` brings it back byte for byte. With the first and
//! the twelfth lane, a lane added after the command, and everyday commands that stay silent.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

/// How many lanes the clone has.
const LANES: usize = 12;
/// How many worktrees the scan after a command looks at: the event's (the main one) and seven
/// lanes.
const SCANNED: usize = 8;

/// What the script writes into lane `i` (1-based): text and every byte value.
fn result(i: usize) -> Vec<u8> {
    let mut bytes = format!("lane {i}: generated, only copy\n").into_bytes();
    bytes.extend(0..=255u8);
    bytes
}

/// A clone with [`LANES`] linked worktrees (`lane1` ... `lane12`), after session `s1`, in the
/// main worktree, ran a script that wrote `src/out.txt` (see [`result`]) into each: the clone
/// and the lanes' roots.
fn crowded() -> (TestRepo, Vec<PathBuf>) {
    let repo = TestRepo::new();
    let lanes: Vec<PathBuf> = (1..=LANES)
        .map(|i| repo.worktree(&format!("lane{i}")))
        .collect();
    let script = repo.root.parent().unwrap().join("gen.py");
    let targets: Vec<String> = lanes
        .iter()
        .map(|l| format!("{:?}", l.join("src/out.txt").display().to_string()))
        .collect();
    std::fs::write(
        &script,
        format!(
            "for i, path in enumerate([{}], 1):\n    \
             open(path, 'wb').write(f'lane {{i}}: generated, only copy\\n'.encode() + bytes(range(256)))\n",
            targets.join(", ")
        ),
    )
    .unwrap();
    let s1 = Agent::started("s1-codegen", &repo.root);
    s1.bash(&format!("python3 {}", script.display()));
    for (i, lane) in lanes.iter().enumerate() {
        assert_eq!(
            std::fs::read(lane.join("src/out.txt")).unwrap(),
            result(i + 1)
        );
    }
    (repo, lanes)
}

/// The lanes (1-based) whose result is in no object yet.
fn unkept(repo: &TestRepo) -> Vec<usize> {
    (1..=LANES)
        .filter(|&i| !has_blob(&repo.root, &result(i)))
        .collect()
}

/// How many scans are left marked pending in the clone.
fn pending(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.store_dir().join("pending")).map_or(0, |d| d.count())
}

/// `who` runs `git clean -fdq` in its lane for real (its hooks around it), then git's garbage
/// collection runs: the lane's result is gone from the working tree.
fn cleaned(repo: &TestRepo, who: &Agent) {
    who.bash("git clean -fdq");
    collect_garbage(&repo.root);
    assert!(
        !who.cwd.join("src/out.txt").exists(),
        "{}",
        who.cwd.display()
    );
}

/// `git dibs recover src/out.txt` in `lane` brings back exactly lane `i`'s result.
#[track_caller]
fn recovered(lane: &Path, i: usize) {
    assert_recovers(
        lane,
        &["src/out.txt"],
        &[(lane.join("src/out.txt"), result(i))],
    );
}

#[test]
fn a_clean_in_a_lane_past_the_scans_cap_finds_the_file_first_and_it_comes_back() {
    let (repo, lanes) = crowded();
    let left = unkept(&repo);
    assert_eq!(
        left.len(),
        LANES + 1 - SCANNED,
        "the scan after s1's command looks at {SCANNED} worktrees, the rest are left: {left:?}"
    );
    assert_eq!(
        pending(&repo),
        1,
        "the lanes past the cap are marked pending"
    );
    let i = left[0];
    let s2 = Agent::new("s2-tidier", &lanes[i - 1]);
    // s2's first command there: before it runs, the lanes left are scanned, all of them.
    assert_eq!(s2.pre_bash("git clean -fdq").code, 0);
    assert_eq!(unkept(&repo), Vec::<usize>::new());
    assert_eq!(pending(&repo), 0, "the scan is finished: its mark is gone");
    sh(&s2.cwd, "git clean -fdq");
    assert_eq!(s2.post_bash("git clean -fdq").code, 0);
    collect_garbage(&repo.root);
    assert!(!s2.cwd.join("src/out.txt").exists());
    recovered(&s2.cwd, i);
    // And the others of the lanes left, cleaned later, come back as well.
    for &j in &left[1..] {
        let other = Agent::new(&format!("s2-in-lane{j}"), &lanes[j - 1]);
        cleaned(&repo, &other);
        recovered(&other.cwd, j);
    }
}

/// The two ends of the clone's list of lanes; which lanes the scan itself reached (by recency
/// and rotation) is not what this asserts: both come back, and nothing is left unkept.
#[test]
fn the_first_and_the_twelfth_lane_come_back_too() {
    let (repo, lanes) = crowded();
    let first = Agent::new("s2-first", &lanes[0]);
    cleaned(&repo, &first);
    let last = Agent::new("s3-last", &lanes[LANES - 1]);
    cleaned(&repo, &last);
    recovered(&first.cwd, 1);
    recovered(&last.cwd, LANES);
    assert_eq!(unkept(&repo), Vec::<usize>::new());
}

#[test]
fn a_command_in_a_lane_added_after_the_scan_scans_the_lanes_left_too() {
    let (repo, lanes) = crowded();
    assert!(!unkept(&repo).is_empty());
    // A thirteenth lane, made after s1's command: nothing of s1's is in it, so its clean is
    // silent; the lanes the scan left are scanned before it all the same (the mark is the
    // clone's, not a lane's).
    let added = repo.worktree("lane13");
    let s2 = Agent::new("s2-newcomer", &added);
    s2.pre_bash("git clean -fdq").assert_silent();
    assert_eq!(unkept(&repo), Vec::<usize>::new());
    assert_eq!(pending(&repo), 0);
    sh(&added, "git clean -fdq");
    s2.post_bash("git clean -fdq").assert_silent();
    // A clean in a lane the scan had left, then gc: its file comes back.
    let i = LANES;
    let s3 = Agent::new("s3-tidier", &lanes[i - 1]);
    cleaned(&repo, &s3);
    recovered(&s3.cwd, i);
}

#[test]
fn everyday_commands_in_lanes_of_the_crowded_clone_stay_silent() {
    let (repo, lanes) = crowded();
    let left = unkept(&repo);
    let scanned = (1..=LANES).find(|i| !left.contains(i)).unwrap();
    for i in [scanned, left[0]] {
        let s2 = Agent::new(&format!("s2-reader{i}"), &lanes[i - 1]);
        for cmd in [
            "ls src",
            "cat src/out.txt",
            "git status",
            "git status --porcelain",
            "git diff",
            "git log --oneline -1",
            "grep -c generated src/out.txt",
            "git clean -n",
        ] {
            s2.bash_silent(cmd);
        }
    }
    // The session that wrote them goes on in its own worktree in silence too.
    let s1 = Agent::new("s1-codegen", &repo.root);
    for cmd in ["git status", "ls", "git log --oneline -1"] {
        s1.bash_silent(cmd);
    }
}

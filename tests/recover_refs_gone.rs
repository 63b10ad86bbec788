//! The refs that keep an agent's work deleted from outside git-dibs, with the branches or
//! alone (a mirror fetch with `--prune`, a script feeding `git update-ref --stdin`, `rm -rf` of
//! the ref folders): after the line's PostToolUse they are back, so the person's `git gc
//! --prune=now` that follows loses nothing and `git dibs recover` brings the work back.

mod common;
mod recover_support;

use std::fs;

use common::*;
use recover_support::*;

/// A lane `.worktrees/feat` on branch `feat` with an unpushed commit and an uncommitted edit
/// by agent `laner`, and a stash entry made by agent `stasher` in the main checkout. Returns
/// (the lane agent, the commit, the stash commit).
fn work(repo: &TestRepo) -> (Agent, String, String) {
    fs::write(repo.root.join(".git/info/exclude"), ".worktrees/\n").unwrap();
    sh(&repo.root, "git worktree add -q -b feat .worktrees/feat");
    let lane = Agent::new("laner", &repo.root.join(".worktrees/feat"));
    lane.write("feat.rs", b"pub fn feat() {}\n");
    lane.bash("git add feat.rs && git commit -qm feat");
    let commit = git_out(&lane.cwd, &["rev-parse", "HEAD"]);
    lane.write("src/lib.rs", b"pub fn a() { /* lane wip */ }\n");
    let stasher = Agent::new("stasher", &repo.root);
    stasher.write("stashed.md", b"stashed notes\n");
    stasher.bash("git stash -q -u");
    let stash = git_out(&repo.root, &["rev-parse", "refs/stash"]);
    (lane, commit, stash)
}

/// Whether `id` is reachable from a ref of the clone at `root`.
fn reachable(root: &std::path::Path, id: &str) -> bool {
    git_out(root, &["rev-list", "--objects", "--all"])
        .lines()
        .any(|l| l.split_whitespace().next() == Some(id))
}

/// After `line` (run by an agent, let through), the person removes the lane and its branch and
/// collects garbage: `recover --worktree` brings back the lane with its commit and its
/// uncommitted edit, and the stash commit is still kept.
fn survives(line: &str) {
    let repo = TestRepo::new();
    let (lane, commit, stash) = work(&repo);
    let cleaner = Agent::new("cleaner", &repo.root);
    cleaner.bash(line);
    assert!(
        git_out(&repo.root, &["for-each-ref", "refs/dibs/retention/"]).contains(&commit),
        "{line}: the retention ref was not put back"
    );
    sh(
        &repo.root,
        "git worktree remove --force --force .worktrees/feat; git branch -D feat; true",
    );
    collect_garbage(&repo.root);
    assert!(reachable(&repo.root, &commit), "{line}: lost the commit");
    assert!(
        reachable(&repo.root, &stash),
        "{line}: lost the stash commit"
    );
    assert!(!lane.cwd.exists());
    assert_recovers(
        &repo.root,
        &["--worktree", ".worktrees/feat"],
        &[
            (lane.cwd.join("feat.rs"), b"pub fn feat() {}\n".to_vec()),
            (
                lane.cwd.join("src/lib.rs"),
                b"pub fn a() { /* lane wip */ }\n".to_vec(),
            ),
        ],
    );
    let (code, out, err) = recover(&repo.root, &["stashed.md", "--session", "stasher"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[(repo.root.join("stashed.md"), b"stashed notes\n".to_vec())]);
}

#[test]
fn a_mirror_fetch_that_prunes_every_local_ref_loses_nothing() {
    survives("git fetch -q --prune --update-head-ok origin '+refs/*:refs/*'");
}

#[test]
fn a_script_deleting_every_git_dibs_ref_loses_nothing() {
    survives("git for-each-ref --format='delete %(refname)' refs/dibs/ | git update-ref --stdin");
}

#[test]
fn removing_the_ref_folders_loses_nothing() {
    survives("rm -rf .git/refs/dibs");
}

#[test]
fn packed_git_dibs_refs_deleted_with_the_branches_lose_nothing() {
    survives(
        "git pack-refs --all && git for-each-ref --format='delete %(refname)' refs/dibs/ refs/heads/feat | git update-ref --stdin",
    );
}

/// What git-dibs lets go itself stays gone: a retention ref whose commit reached a remote goes
/// at the next line that fetches and collects garbage, and a later line that changes the branches does not put it
/// back.
#[test]
fn a_retention_ref_let_go_after_a_push_is_not_put_back() {
    let repo = TestRepo::new();
    let (lane, commit, _) = work(&repo);
    lane.bash("git push -q origin feat && git fetch -q origin && git gc -q");
    let retained = || git_out(&repo.root, &["for-each-ref", "refs/dibs/retention/"]);
    assert!(!retained().contains(&commit), "{}", retained());
    lane.bash("git branch side && git branch -D side");
    assert!(!retained().contains(&commit), "{}", retained());
}

/// A session's snapshot ref file damaged from outside (emptied by a crash or a full disk,
/// overwritten with other text, made a symbolic ref to itself or a link): the session's next
/// edit mends it (the file removed, the ref put back on the newest snapshot, said on stderr),
/// its snapshots go on, and `recover` lists every version; `doctor` mends it too.
#[test]
fn a_damaged_snapshot_ref_is_mended_and_snapshots_go_on() {
    type Damage = fn(&std::path::Path);
    let damages: [(&str, Damage); 4] = [
        ("an empty file", |p| fs::write(p, b"").unwrap()),
        ("text that is no commit id", |p| {
            fs::write(p, b"garbage\n").unwrap();
        }),
        ("text that is no commit id", |p| {
            fs::write(p, b"ref: refs/dibs/snapshots/mended\n").unwrap();
        }),
        ("a symbolic link", |p| {
            fs::remove_file(p).unwrap();
            std::os::unix::fs::symlink("/nonexistent", p).unwrap();
        }),
    ];
    for (what, damage) in damages {
        let repo = TestRepo::new();
        let agent = Agent::new("mended", &repo.root);
        let first = agent.write("a.txt", b"work v1\n");
        let reference = repo.root.join(".git/refs/dibs/snapshots/mended");
        damage(&reference);
        // The next edit mends the ref and is snapshotted on the chain.
        fs::write(&first, b"work v2\n").unwrap();
        let run = agent.post_edit(&first);
        assert_eq!(run.code, 0, "{what}");
        assert!(
            run.stderr.contains(&format!(
                "was damaged outside git-dibs ({what} in its place)"
            )),
            "{what}: {}",
            run.stderr
        );
        let notes = agent.write("b.txt", b"more\n");
        collect_garbage(&repo.root);
        assert!(has_blob(&repo.root, b"work v1\n"), "{what}: v1 lost");
        let listing = recover_json(&repo.root, &[]);
        assert_eq!(
            listed(&listing, "mended", "a.txt")["versions"],
            2,
            "{what}: {listing}"
        );
        fs::remove_file(&first).unwrap();
        fs::remove_file(&notes).unwrap();
        assert_recovers(
            &repo.root,
            &["."],
            &[(first, b"work v2\n".to_vec()), (notes, b"more\n".to_vec())],
        );
    }
    // `doctor` mends it when no hook comes first.
    let repo = TestRepo::new();
    let agent = Agent::new("mended", &repo.root);
    agent.write("a.txt", b"work v1\n");
    fs::write(repo.root.join(".git/refs/dibs/snapshots/mended"), b"").unwrap();
    let out = dibs(&repo.root, &["doctor"]);
    assert!(
        out_text(&out).contains("was damaged outside git-dibs (an empty file in its place)"),
        "{}",
        out_text(&out)
    );
    assert!(listed_paths(&recover_json(&repo.root, &[])).contains(&"a.txt"));
    // `recover` too, run first: what the chain holds is listed and comes back.
    let repo = TestRepo::new();
    let agent = Agent::new("mended", &repo.root);
    let file = agent.write("a.txt", b"work v1\n");
    fs::write(repo.root.join(".git/refs/dibs/snapshots/mended"), b"\0\0").unwrap();
    fs::remove_file(&file).unwrap();
    assert_recovers(&repo.root, &["a.txt"], &[(file, b"work v1\n".to_vec())]);
}

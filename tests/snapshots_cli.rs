//! What the commands say to a person, under snapshot tests (insta), through the real binary on
//! real repositories: every `lane` subcommand's lines, refusals and errors; `sync` between two
//! clones (its summary, the other machine's session in `status` and in a co-edit warning, a
//! remote claim refused, errors); `landed`, `recover`, `audit`, `check`, `install` /
//! `uninstall`, `doctor` and `status --all` as text. The clock is the test-only `DIBS_NOW`;
//! temporary folders are `[REPO]` / `[TMP]` and object ids `[COMMIT]` (commit dates, so ids,
//! change from run to run).
//!
//! A changed message fails here until its snapshot is reviewed (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test --test snapshots_cli` and a look at the diff) and committed.

mod common;

use std::path::Path;
use std::process::Output;

use common::snap::*;
use common::*;

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

fn commit(dir: &Path, file: &str, body: &str, msg: &str) {
    std::fs::write(dir.join(file), body).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-qm", msg]);
}

#[test]
fn lane_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let mut runs = Vec::new();
    step(&mut runs, root, Some(A), &["lane", "new", "feat"]);
    let lane = root.join(".worktrees/feat");
    commit(&lane, "feat.txt", "feature\n", "Add the feature");
    repo.write(&lane, "wip.txt", "not yet\n");
    step(&mut runs, root, Some(A), &["lane", "list"]);
    step(&mut runs, root, Some(A), &["lane", "land", "feat"]);
    std::fs::remove_file(lane.join("wip.txt")).unwrap();
    step(&mut runs, root, Some(A), &["lane", "land", "feat"]);
    step(&mut runs, root, Some(A), &["lane", "land", "feat"]);
    step(&mut runs, root, None, &["lane", "prune", "--dry-run"]);
    step(&mut runs, root, Some(A), &["release", "--all"]);
    step(&mut runs, root, None, &["lane", "prune"]);
    step(&mut runs, root, None, &["lane", "prune"]);
    // Retention by hand: an unpushed commit on main (the landing made one).
    step(&mut runs, root, None, &["lane", "retain"]);
    git(root, &["push", "-q", "origin", "main"]);
    step(&mut runs, root, None, &["lane", "retain", "--sweep"]);
    step(&mut runs, root, None, &["lane", "retain", "nosuch"]);
    // Refusals and errors.
    repo.write(root, "README.md", "a person's edit\n");
    step(
        &mut runs,
        root,
        Some(A),
        &["lane", "new", "stale", "--base", "main"],
    );
    git(root, &["checkout", "-q", "--", "README.md"]);
    step(
        &mut runs,
        root,
        Some(B),
        &["claim", "branch:lane/taken", "--exclusive"],
    );
    step(&mut runs, root, Some(A), &["lane", "new", "taken"]);
    step(&mut runs, root, Some(A), &["lane", "new", "bad name"]);
    step(&mut runs, root, Some(A), &["lane", "land", "nosuch"]);
    // A landing that stops on conflicts, inside the lane only.
    step(
        &mut runs,
        root,
        Some(A),
        &["lane", "new", "clash", "--base", "main"],
    );
    let clash = root.join(".worktrees/clash");
    commit(&clash, "README.md", "the lane's\n", "Lane edit");
    commit(root, "README.md", "main's\n", "Main edit");
    step(&mut runs, root, Some(A), &["lane", "land", "clash"]);
    insta::assert_snapshot!("lane", transcript(&repo, &runs));
}

#[test]
fn sync_messages() {
    let repo = TestRepo::new();
    let a = repo.root.clone();
    let base = a.parent().unwrap().to_path_buf();
    git(&base, &["clone", "-q", repo.remote.to_str().unwrap(), "b"]);
    let b = base.join("b");
    git(&a, &["config", "dibs.machine", "alpha"]);
    git(&b, &["config", "dibs.machine", "beta"]);
    let mut runs = Vec::new();
    at_now(&a, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&a, "src/lib.rs", "pub fn alphas() {}\n");
    step(
        &mut runs,
        &a,
        Some(A),
        &[
            "claim",
            "record:42",
            "--exclusive",
            "--intent",
            "the release",
        ],
    );
    step(&mut runs, &a, None, &["sync"]);
    step(&mut runs, &b, None, &["sync"]);
    step(&mut runs, &b, None, &["status"]);
    step(&mut runs, &b, None, &["sync"]);
    // With dibs.sync on, an exclusive claim asks the remote first.
    git(&b, &["config", "dibs.sync", "true"]);
    step(
        &mut runs,
        &b,
        Some(B),
        &["claim", "record:42", "--exclusive"],
    );
    // Errors: no such remote, an unreachable one.
    step(&mut runs, &b, None, &["sync", "nosuch"]);
    git(
        &b,
        &["remote", "set-url", "origin", "/nonexistent/remote.git"],
    );
    step(
        &mut runs,
        &b,
        Some(B),
        &["claim", "record:43", "--exclusive"],
    );
    step(&mut runs, &b, None, &["sync"]);
    let text = transcript(&repo, &runs).replace("/nonexistent/remote.git", "[GONE]");
    insta::assert_snapshot!("sync", text);

    // The other machine's session, named in a co-edit warning on this machine.
    let edit = edit_event("PreToolUse", "Edit", B, &b, &b.join("src/lib.rs"));
    insta::assert_snapshot!("sync_co_edit", answer(&repo, &at_now(&b, &edit)));
}

#[test]
fn landed_recover_audit_and_check_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let mut runs = Vec::new();
    git(root, &["branch", "topic"]);
    let topic = repo.worktree("topic-wt");
    git(&topic, &["checkout", "-q", "topic"]);
    commit(&topic, "t.txt", "topic\n", "Topic work");
    step(&mut runs, root, None, &["landed", "main", "--offline"]);
    step(&mut runs, root, None, &["landed", "topic", "--offline"]);
    step(&mut runs, root, None, &["landed", "nosuch", "--offline"]);
    // A session's edit, snapshotted, then lost.
    at_now(root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(root, "src/lib.rs", "pub fn precious() {}\n");
    let post = edit_event("PostToolUse", "Edit", A, root, &root.join("src/lib.rs"));
    at_now(root, &post);
    git(root, &["checkout", "-q", "--", "src/lib.rs"]);
    step(&mut runs, root, None, &["recover"]);
    step(&mut runs, root, None, &["recover", "src/lib.rs"]);
    step(&mut runs, root, None, &["recover", "README.md"]);
    step(&mut runs, root, None, &["recover", "--at", "bogus"]);
    // The guard's audit log: a block and a bypass.
    at_now(root, &repo.pre_edit(B, "README.md"));
    repo.write(root, "README.md", "b's\n");
    at_now(root, &bash_event(A, root, "git stash"));
    at_now(root, &bash_event(A, root, "WT_GUARD_BYPASS=1 git stash"));
    step(&mut runs, root, None, &["audit"]);
    step(&mut runs, root, None, &["audit", "--verdict", "bypass"]);
    step(&mut runs, root, None, &["audit", "--session", "nosuch"]);
    step(&mut runs, root, None, &["audit", "--since", "soon"]);
    step(
        &mut runs,
        root,
        Some(A),
        &["check", "--", "git", "add", "-A"],
    );
    step(&mut runs, root, Some(A), &["check", "--", "ls", "-la"]);
    step(
        &mut runs,
        root,
        Some(A),
        &["check", "--", "cat list | xargs rm"],
    );
    let text = transcript(&repo, &runs);
    // The audit lines carry the real clock's time (the guard writes them).
    insta::assert_snapshot!("landed_recover_audit_check", mask_times(&text));
}

#[test]
fn install_doctor_and_status_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let home = repo.tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut runs: Vec<(&[&str], Output)> = Vec::new();
    let run = |runs: &mut Vec<(&'static [&'static str], Output)>, args: &'static [&'static str]| {
        let out = dibs_env(
            root,
            None,
            args,
            &[
                ("DIBS_NOW", NOW),
                ("USER", "sam"),
                ("HOME", home.to_str().unwrap()),
                ("PATH", "/usr/bin:/bin"),
            ],
        );
        runs.push((args, out));
    };
    run(&mut runs, &["install"]);
    run(&mut runs, &["install"]);
    run(&mut runs, &["install", "--all"]);
    run(&mut runs, &["install", "--git-hooks"]);
    run(&mut runs, &["install", "--git-hooks"]);
    run(&mut runs, &["install", "--user"]);
    std::fs::write(root.join(".claude/settings.local.json"), "{ not json").unwrap();
    run(&mut runs, &["install", "--local"]);
    std::fs::remove_file(root.join(".claude/settings.local.json")).unwrap();
    run(&mut runs, &["uninstall", "--codex"]);
    run(&mut runs, &["uninstall", "--git-hooks", "--dry-run"]);
    at_now(root, &session_start(A, root, "startup"));
    at_now(root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(root, "src/lib.rs", "pub fn wip() {}\n");
    run(&mut runs, &["doctor"]);
    run(&mut runs, &["status", "--all"]);
    let bin_dir = bin().parent().unwrap().display().to_string();
    let text = transcript(&repo, &runs).replace(&bin_dir, "[BIN]");
    insta::assert_snapshot!("install_doctor_status", text);
}

/// RFC 3339 times other than the test clock's (`2026-12-01T11:52:07Z`, the examples messages
/// give) written as `[TIME]`: the examples stay, but nothing of the real clock gets in.
fn mask_times(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("20") {
        let candidate = &rest[i..];
        let b = candidate.as_bytes();
        let is_time =
            b.len() >= 20 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[13] == b':';
        if is_time && !candidate.starts_with("2026-11-29T06:40:00") {
            let end = candidate
                .find(|c: char| !(c.is_ascii_digit() || "TZ:.+-".contains(c)))
                .unwrap_or(candidate.len());
            out.push_str(&rest[..i]);
            out.push_str("[TIME]");
            rest = &candidate[end..];
        } else {
            out.push_str(&rest[..i + 2]);
            rest = &rest[i + 2..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn status_doctor_damage_and_recover_worktree_messages() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let mut runs = Vec::new();
    // A session that ended with a file uncommitted (SessionEnd releases what it held, so it is
    // not listed as left uncommitted); a live one with a sub-agent in a lane git-dibs locked.
    at_now(root, &session_start(A, root, "startup"));
    at_now(root, &repo.pre_edit(A, "README.md"));
    repo.write(root, "README.md", "left behind\n");
    at_now(
        root,
        &claude_event("SessionEnd", A, root, serde_json::json!({"reason": "exit"})),
    );
    step(
        &mut runs,
        root,
        Some(B),
        &["lane", "new", "work", "--shared-target"],
    );
    let lane = root.join(".worktrees/shared-target/work");
    at_now(&lane, &session_start(B, &lane, "startup"));
    let mut sub = edit_event("PreToolUse", "Edit", B, &lane, &lane.join("src/lib.rs"));
    sub["agent_id"] = serde_json::json!("ada3551d9f4e5a0a0");
    sub["agent_type"] = serde_json::json!("Explore");
    at_now(&lane, &sub);
    repo.write(&lane, "src/lib.rs", "pub fn in_lane() {}\n");
    let post = edit_event("PostToolUse", "Edit", B, &lane, &lane.join("src/lib.rs"));
    at_now(&lane, &post);
    step(&mut runs, root, None, &["status"]);
    step(&mut runs, root, None, &["status", "README.md", "nope.txt"]);
    // Three hours on, past every lease: what the lapsed sessions left uncommitted is listed.
    let later = (NOW.parse::<u64>().unwrap() + 3 * 3600).to_string();
    let args: &[&str] = &["status"];
    let out = dibs_env(root, None, args, &[("DIBS_NOW", &later), ("USER", "sam")]);
    runs.push((args, out));
    // Damage: a lock that became a folder.
    let store = repo.store_dir();
    let _ = std::fs::remove_file(store.join("lock"));
    std::fs::create_dir_all(store.join("lock/inside")).unwrap();
    step(&mut runs, root, None, &["doctor"]);
    // A removed lane brought back (its snapshot, at the test clock, is older than the real
    // clock's commit, so it goes beside the file).
    git(
        root,
        &["worktree", "remove", "-f", "-f", lane.to_str().unwrap()],
    );
    step(
        &mut runs,
        root,
        None,
        &["recover", "--worktree", ".worktrees/shared-target/work"],
    );
    step(
        &mut runs,
        root,
        None,
        &["recover", "--worktree", "/nowhere"],
    );
    let bin_dir = bin().parent().unwrap().display().to_string();
    let text = transcript(&repo, &runs).replace(&bin_dir, "[BIN]");
    insta::assert_snapshot!(
        "status_doctor_damage_recover",
        mask_corrupt_stamp(&mask_times(&text))
    );
}

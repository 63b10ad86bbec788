//! Protection outside the hooks, through the real binary: autolock against a plain `git worktree
//! remove --force` run by another process; retention refs surviving `branch -D` plus
//! `gc --prune=now`, and opt-in retention pushes; `landed` on fast-forward, rebase and squash
//! merges and a merged pull request (with a stub `gh`).

mod common;
#[path = "lanes_support/mod.rs"]
mod support;

use std::path::Path;

use common::*;
use serde_json::Value;
use support::*;

#[test]
fn autolock_stops_a_plain_forced_worktree_remove_and_lifts_when_pushed_and_ended() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "locked");
    let foreign = repo.worktree("foreign");
    git(
        &repo.root,
        &[
            "worktree",
            "lock",
            "--reason",
            "my own lock",
            foreign.to_str().unwrap(),
        ],
    );
    let sid = "lockme-12345678";
    for (dir, file) in [(&lane, "a.txt"), (&foreign, "b.txt")] {
        repo.write(dir, file, "wip\n");
        hook(
            dir,
            &edit_event("PostToolUse", "Write", sid, dir, &dir.join(file)),
        )
        .assert_silent();
    }
    let reason = lane_named(&repo, "locked")["locked"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(reason, "git-dibs: claude lockme-1 holds 1 uncommitted file");
    let out = git_command(&repo.root)
        .args(["worktree", "remove", "--force", lane.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a single --force must not remove a locked worktree"
    );
    assert!(lane.join("a.txt").exists());
    // Committed but unpushed while the session lives: still locked.
    git(&lane, &["add", "a.txt"]);
    git(&lane, &["commit", "-qm", "a"]);
    git(&lane, &["push", "-q", "origin", "lane/locked"]);
    hook(
        &lane,
        &claude_event(
            "SessionEnd",
            sid,
            &lane,
            serde_json::json!({"reason": "exit"}),
        ),
    )
    .assert_silent();
    assert_eq!(
        lane_named(&repo, "locked")["locked"],
        Value::Null,
        "unlocked once pushed and ended clean"
    );
    let foreign_lock =
        std::fs::read_to_string(repo.root.join(".git/worktrees/foreign/locked")).unwrap();
    assert_eq!(
        foreign_lock.trim(),
        "my own lock",
        "someone else's lock is never touched"
    );
}

#[test]
fn retention_refs_survive_branch_delete_and_gc_and_go_once_pushed() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "keepme");
    let first = commit(&lane, "one.txt", "1\n", "one");
    let tip = commit(&lane, "two.txt", "2\n", "two");
    let out = ok(dibs_as(&lane, "s1", &["lane", "retain"], &[]));
    let name = format!("refs/dibs/retention/lane/keepme/{}", &tip[..7]);
    assert!(text(&out).contains(&name), "{}", text(&out));
    git(
        &repo.root,
        &["worktree", "remove", "--force", lane.to_str().unwrap()],
    );
    git(&repo.root, &["branch", "-D", "lane/keepme"]);
    git(&repo.root, &["reflog", "expire", "--expire=now", "--all"]);
    git(&repo.root, &["gc", "-q", "--prune=now"]);
    git(
        &repo.root,
        &["cat-file", "-e", &format!("{tip}^{{commit}}")],
    );
    git(
        &repo.root,
        &["cat-file", "-e", &format!("{first}^{{commit}}")],
    );
    git(
        &repo.root,
        &["push", "-q", "origin", &format!("{tip}:refs/heads/saved")],
    );
    let out = ok(dibs_as(
        &repo.root,
        "s1",
        &["lane", "retain", "--sweep"],
        &[],
    ));
    assert!(text(&out).contains("dropped"), "{}", text(&out));
    assert_eq!(
        git_out(&repo.root, &["for-each-ref", "refs/dibs/retention"]),
        ""
    );
}

#[test]
fn retention_push_is_opt_in_and_uses_a_tag_when_the_upstream_is_gone() {
    let repo = TestRepo::new();
    git(&repo.root, &["checkout", "-q", "-b", "gone"]);
    git(&repo.root, &["push", "-q", "-u", "origin", "gone"]);
    git(&repo.root, &["push", "-q", "origin", "--delete", "gone"]);
    let tip = commit(&repo.root, "x.txt", "x\n", "x");
    ok(dibs_as(&repo.root, "s1", &["lane", "retain"], &[]));
    assert_eq!(
        git_out(&repo.remote, &["tag", "--list"]),
        "",
        "no push by default"
    );
    git(&repo.root, &["config", "dibs.retentionPush", "true"]);
    let tip2 = commit(&repo.root, "y.txt", "y\n", "y");
    let out = ok(dibs_as(&repo.root, "s1", &["lane", "retain"], &[]));
    let tag = format!("retention/gone-{}", &tip2[..7]);
    assert_eq!(
        git_out(&repo.remote, &["tag", "--list"]),
        tag,
        "{}",
        text(&out)
    );
    let _ = tip;
}

/// A `gh` stand-in on PATH that reports one merged pull request for branch `merged-by-pr`.
fn stub_gh(dir: &Path) -> String {
    let bin = dir.join("stub-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(
        &gh,
        "#!/bin/sh\ncase \"$*\" in *'--head merged-by-pr'*'--state merged'*) echo '[{\"number\":7,\"url\":\"https://example.invalid/pull/7\"}]';; *) echo '[]';; esac\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn landed_answers_for_fast_forward_rebase_squash_and_merged_pull_requests() {
    let repo = TestRepo::new();
    let path = stub_gh(repo.tmp.path());
    let env = [("PATH", path.as_str())];
    let landed = |what: &str| {
        let out = dibs_as(&repo.root, "s", &["landed", what], &env);
        (out.status.code(), text(&out))
    };
    // Fast-forward.
    git(&repo.root, &["checkout", "-q", "-b", "ff"]);
    commit(&repo.root, "ff.txt", "ff\n", "ff");
    git(&repo.root, &["push", "-q", "origin", "ff:main"]);
    let (code, t) = landed("ff");
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("ancestor of origin/main"), "{t}");
    // Rebased: the same patches with other parents.
    git(&repo.root, &["checkout", "-q", "-b", "rebased", "main"]);
    commit(&repo.root, "r.txt", "r\n", "rebased work");
    git(
        &repo.root,
        &["checkout", "-q", "-b", "upstream-side", "origin/main"],
    );
    commit(&repo.root, "other.txt", "o\n", "someone else");
    git(&repo.root, &["cherry-pick", "rebased"]);
    git(&repo.root, &["push", "-q", "origin", "upstream-side:main"]);
    let (code, t) = landed("rebased");
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("patch-equivalent"), "{t}");
    // Squashed: two commits landed as one.
    git(
        &repo.root,
        &["checkout", "-q", "-b", "squashed", "origin/main"],
    );
    commit(&repo.root, "s1.txt", "1\n", "s1");
    commit(&repo.root, "s2.txt", "2\n", "s2");
    git(
        &repo.root,
        &["checkout", "-q", "-b", "sq-main", "origin/main"],
    );
    git(&repo.root, &["merge", "-q", "--squash", "squashed"]);
    git(&repo.root, &["commit", "-qm", "squash of s1 and s2"]);
    git(&repo.root, &["push", "-q", "origin", "sq-main:main"]);
    let (code, t) = landed("squashed");
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("squashed into"), "{t}");
    // Not landed; then a merged pull request says landed; offline skips it.
    git(
        &repo.root,
        &["checkout", "-q", "-b", "merged-by-pr", "origin/main"],
    );
    commit(&repo.root, "pr.txt", "pr\n", "pr work");
    let (code, t) = landed("merged-by-pr");
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("pull request #7"), "{t}");
    let out = dibs_as(
        &repo.root,
        "s",
        &["landed", "merged-by-pr", "--offline"],
        &env,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("not landed"), "{}", text(&out));
    let out = dibs_as(&repo.root, "s", &["landed", "no-such-thing"], &env);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

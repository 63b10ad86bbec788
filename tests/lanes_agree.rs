//! `lane list` and `git dibs landed` agree, through the real binary on a real repository with
//! a bare remote: a new empty lane is neither pushed nor landed, a lane landed on the local base
//! only says so, a squashed landing carries the lane's own message, and `lane retain --all`
//! says why it dropped a ref.

mod common;
#[path = "lanes_support/mod.rs"]
mod support;

use common::*;
use support::*;

/// The human `lane list` block of lane `name`.
fn listed(repo: &TestRepo, name: &str) -> String {
    let out = ok(dibs_as(&repo.root, "sess-x", &["lane", "list"], &[]));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let start = text
        .find(&format!("{name}  "))
        .unwrap_or_else(|| panic!("{text}"));
    text[start..].lines().take(2).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_new_empty_lane_is_neither_pushed_nor_landed() {
    let repo = TestRepo::new();
    new_lane(&repo, "sess-x", "fresh");
    let shown = listed(&repo, "fresh");
    assert!(shown.contains("no commits of its own yet"), "{shown}");
    assert!(
        !shown.contains("pushed") && !shown.contains("landed"),
        "{shown}"
    );
    assert!(lane_named(&repo, "fresh")["landed_on"].is_null());
}

#[test]
fn lane_list_says_landed_only_where_git_dibs_landed_does() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "sess-x", "feat");
    commit(&lane, "feature.txt", "feature\n", "Add the feature");
    // Not landed anywhere.
    let shown = listed(&repo, "feat");
    assert!(shown.contains("not landed"), "{shown}");
    let out = landed_offline(&repo, "lane/feat");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // Landed on the local main, not pushed: list and landed both say it is not on origin/main.
    ok(dibs_as(
        &repo.root,
        "sess-x",
        &["lane", "land", "feat"],
        &[],
    ));
    let shown = listed(&repo, "feat");
    assert!(
        shown.contains("landed on main here, not yet on its remote"),
        "{shown}"
    );
    let out = landed_offline(&repo, "lane/feat");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // Pushed: both say landed.
    git(&repo.root, &["push", "-q", "origin", "main"]);
    let shown = listed(&repo, "feat");
    assert!(shown.contains("landed on origin/main"), "{shown}");
    assert_eq!(
        lane_named(&repo, "feat")["landed_on"],
        "refs/remotes/origin/main"
    );
    let out = landed_offline(&repo, "lane/feat");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_squashed_landing_carries_the_lanes_own_message() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "sess-x", "sq");
    commit(
        &lane,
        "a.txt",
        "a\n",
        "Teach the parser heredocs\n\nWith a body line.",
    );
    // main moves on, so landing merges main into the lane first.
    commit(
        &repo.root,
        "other.txt",
        "other\n",
        "Unrelated change on main",
    );
    ok(dibs_as(
        &repo.root,
        "sess-x",
        &["lane", "land", "sq", "--squash"],
        &[],
    ));
    let msg = git_out(&repo.root, &["log", "-1", "--format=%B", "main"]);
    assert!(msg.starts_with("Teach the parser heredocs"), "{msg}");
    assert!(msg.contains("With a body line."), "{msg}");
    assert!(!msg.contains("Merge main into"), "{msg}");
    // Several commits: the oldest one's subject, then each subject.
    let lane = new_lane(&repo, "sess-x", "sq2");
    commit(&lane, "b.txt", "b\n", "First step");
    commit(&lane, "c.txt", "c\n", "Second step");
    ok(dibs_as(
        &repo.root,
        "sess-x",
        &["lane", "land", "sq2", "--squash"],
        &[],
    ));
    let msg = git_out(&repo.root, &["log", "-1", "--format=%B", "main"]);
    assert!(msg.starts_with("First step (squashed lane sq2)"), "{msg}");
    assert!(msg.contains("- Second step"), "{msg}");
}

#[test]
fn retain_all_says_why_it_dropped_a_ref() {
    let repo = TestRepo::new();
    git(&repo.root, &["checkout", "-q", "-b", "topic"]);
    commit(&repo.root, "t1.txt", "1\n", "one");
    ok(dibs_as(&repo.root, "sess-x", &["lane", "retain"], &[]));
    commit(&repo.root, "t2.txt", "2\n", "two");
    let out = ok(dibs_as(
        &repo.root,
        "sess-x",
        &["lane", "retain", "--all"],
        &[],
    ));
    let said = text(&out);
    assert!(
        said.contains("is kept by refs/dibs/retention/topic/"),
        "{said}"
    );
    assert!(!said.contains("on a remote now"), "{said}");
}

/// `git dibs landed BRANCH --offline`, as the lane's session asks it.
fn landed_offline(repo: &TestRepo, branch: &str) -> std::process::Output {
    dibs_as(&repo.root, "sess-x", &["landed", branch, "--offline"], &[])
}

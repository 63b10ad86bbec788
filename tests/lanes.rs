//! Lanes through the real binary, with real worktrees and a bare remote: the whole life cycle;
//! refusals of `lane new`; landing with a moving base, with conflicts, with a dirty base
//! checkout and squashed; pruning after a SIGKILLed holder; a dirty lane surviving every command.

mod common;
#[path = "lanes_support/mod.rs"]
mod support;

use std::path::PathBuf;

use common::*;
use serde_json::Value;
use support::*;

#[test]
fn the_whole_life_cycle_new_list_land_prune_leaves_nothing_behind() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "sess-one", "one");
    assert_eq!(lane, repo.root.join(".worktrees/one"));
    assert!(
        std::fs::read_to_string(repo.root.join(".git/info/exclude"))
            .unwrap()
            .contains("/.worktrees/")
    );
    assert_eq!(
        git_out(&repo.root, &["status", "--porcelain"]),
        "",
        "the lanes folder is ignored"
    );
    let claims = claims_of(&repo, "sess-one");
    assert!(
        claims
            .iter()
            .any(|c| c.contains("worktree:") && c.contains(".worktrees/one")),
        "{claims:?}"
    );
    assert!(
        claims.iter().any(|c| c.contains("branch:lane/one")),
        "{claims:?}"
    );

    let v = lane_named(&repo, "one");
    assert_eq!(v["branch"], "lane/one");
    assert_eq!(v["base"], "main");
    assert_eq!(v["holder"]["session"], "sess-one");
    assert_eq!(v["holder"]["live"], true);
    assert_eq!(v["locked"], Value::Null);

    let tip = commit(&lane, "feature.txt", "feature\n", "add feature");
    let v = lane_named(&repo, "one");
    assert_eq!(
        (v["ahead"].as_u64(), v["behind"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(
        (v["pushed"].as_bool(), v["landed"].as_bool()),
        (Some(false), Some(false))
    );

    let out = ok(dibs_as(
        &repo.root,
        "sess-one",
        &["lane", "land", "one"],
        &[],
    ));
    assert!(
        text(&out).contains("landed lane one on main"),
        "{}",
        text(&out)
    );
    assert_eq!(git_out(&repo.root, &["rev-parse", "main"]), tip);
    assert_eq!(
        std::fs::read_to_string(repo.root.join("feature.txt")).unwrap(),
        "feature\n"
    );
    assert_eq!(
        git_out(&repo.root, &["status", "--porcelain"]),
        "",
        "the main checkout was updated cleanly"
    );
    assert_eq!(lane_named(&repo, "one")["landed"], true);

    // The holder is live: prune keeps the lane.
    let out = ok(dibs_as(&repo.root, "viewer", &["lane", "prune"], &[]));
    assert!(
        text(&out).contains("kept lane one") && text(&out).contains("held by live"),
        "{}",
        text(&out)
    );
    ok(dibs_as(&repo.root, "sess-one", &["release", "--all"], &[]));
    let out = ok(dibs_as(
        &repo.root,
        "viewer",
        &["lane", "prune", "--dry-run"],
        &[],
    ));
    assert!(
        text(&out).contains("would remove lane one"),
        "{}",
        text(&out)
    );
    assert!(lane.exists());
    let out = ok(dibs_as(&repo.root, "viewer", &["lane", "prune"], &[]));
    assert!(text(&out).contains("removed lane one"), "{}", text(&out));
    assert!(!lane.exists());
    assert!(!repo.root.join(".git/worktrees/one").exists());
    assert_eq!(git_out(&repo.root, &["branch", "--list", "lane/*"]), "");
    assert_eq!(
        git_out(&repo.root, &["for-each-ref", "refs/dibs/landed"]),
        ""
    );
    let cfg = git_command(&repo.root)
        .args(["config", "--get-regexp", "^branch\\.lane/"])
        .output()
        .unwrap();
    assert!(
        cfg.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&cfg.stdout)
    );
    assert!(lanes_json(&repo).is_empty());
}

#[test]
fn lane_new_refuses_clashes_existing_branches_and_a_dirty_base_and_makes_nothing() {
    let repo = TestRepo::new();
    new_lane(&repo, "s1", "taken");
    let out = dibs_as(&repo.root, "s2", &["lane", "new", "taken"], &[]);
    assert!(!out.status.success());
    assert!(text(&out).contains("already exists"), "{}", text(&out));

    git(&repo.root, &["branch", "lane/branchy"]);
    let out = dibs_as(&repo.root, "s2", &["lane", "new", "branchy"], &[]);
    assert!(
        !out.status.success() && text(&out).contains("branch lane/branchy already exists"),
        "{}",
        text(&out)
    );
    assert!(!repo.root.join(".worktrees/branchy").exists());

    repo.write(&repo.root, "src/lib.rs", "pub fn a() { /* wip */ }\n");
    let out = dibs_as(
        &repo.root,
        "s2",
        &["lane", "new", "dirty", "--base", "main"],
        &[],
    );
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("uncommitted") && text(&out).contains("src/lib.rs"),
        "{}",
        text(&out)
    );
    assert!(!repo.root.join(".worktrees/dirty").exists());
    assert_eq!(git_out(&repo.root, &["branch", "--list", "lane/dirty"]), "");
    assert!(claims_of(&repo, "s2").is_empty(), "nothing was claimed");
    // From the upstream (the default), local dirt does not matter; with --shared-target the
    // lane builds into the main worktree's target folder.
    let out = ok(dibs_as(
        &repo.root,
        "s2",
        &["lane", "new", "clean", "--shared-target", "--json"],
        &[],
    ));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = PathBuf::from(v["path"].as_str().unwrap());
    assert_eq!(path, repo.root.join(".worktrees/shared-target/clean"));
    let cfg = std::fs::read_to_string(
        repo.root
            .join(".worktrees/shared-target/.cargo/config.toml"),
    )
    .unwrap();
    assert!(
        cfg.contains(&format!(
            "target-dir = \"{}\"",
            repo.root.join("target").display()
        )),
        "{cfg}"
    );
    assert_eq!(
        git_out(&path, &["status", "--porcelain"]),
        "",
        "the lane itself stays clean"
    );
    assert_eq!(lane_named(&repo, "clean")["holder"]["session"], "s2");
}

#[test]
fn land_loses_the_compare_and_swap_cleanly_when_the_base_moves() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "race");
    commit(&lane, "race.txt", "lane\n", "lane work");
    let before = git_out(&repo.root, &["rev-parse", "main"]);
    let mover = format!(
        "git -C '{}' commit -q --allow-empty -m 'moved meanwhile'",
        repo.root.display()
    );
    let out = dibs_as(
        &repo.root,
        "s1",
        &["lane", "land", "race"],
        &[("DIBS_TEST_BEFORE_SWAP", &mover)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("main moved meanwhile"),
        "{}",
        text(&out)
    );
    let after = git_out(&repo.root, &["rev-parse", "main"]);
    assert_ne!(after, before);
    assert_eq!(
        git_out(&repo.root, &["log", "-1", "--format=%s", "main"]),
        "moved meanwhile"
    );
    assert!(!repo.root.join("race.txt").exists());
    assert_eq!(git_out(&repo.root, &["status", "--porcelain"]), "");
    assert_eq!(lane_named(&repo, "race")["landed"], false);
    // Without the race it lands on the new tip.
    ok(dibs_as(&repo.root, "s1", &["lane", "land", "race"], &[]));
    assert_eq!(
        git_out(&repo.root, &["log", "-2", "--format=%s", "main"]),
        "lane work\nmoved meanwhile"
    );
}

#[test]
fn land_stops_on_conflicts_inside_the_lane_and_refuses_a_dirty_base_checkout() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "clash");
    commit(&lane, "README.md", "# lane\n", "lane readme");
    commit(&repo.root, "README.md", "# main\n", "main readme");
    let main_tip = git_out(&repo.root, &["rev-parse", "main"]);
    let out = dibs_as(&repo.root, "s1", &["lane", "land", "clash"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("stopped on conflicts") && text(&out).contains("README.md"),
        "{}",
        text(&out)
    );
    assert_eq!(git_out(&repo.root, &["rev-parse", "main"]), main_tip);
    assert_eq!(
        git_out(&repo.root, &["status", "--porcelain"]),
        "",
        "nothing happened outside the lane"
    );
    git(&lane, &["rebase", "--abort"]);

    // A live session holds a dirty file where main is checked out: refused, naming it.
    let other = new_lane(&repo, "s1", "other");
    commit(&other, "other.txt", "x\n", "other work");
    repo.write(&repo.root, "src/lib.rs", "pub fn a() { /* peer wip */ }\n");
    let file = repo.root.join("src/lib.rs");
    hook(
        &repo.root,
        &edit_event("PostToolUse", "Edit", "peer-abcdef12", &repo.root, &file),
    )
    .assert_silent();
    let out = dibs_as(&repo.root, "s1", &["lane", "land", "other", "--merge"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("peer-abc") && text(&out).contains("src/lib.rs"),
        "{}",
        text(&out)
    );
    assert_eq!(git_out(&repo.root, &["rev-parse", "main"]), main_tip);
    assert!(std::fs::read_to_string(&file).unwrap().contains("peer wip"));
}

#[test]
fn land_squash_puts_one_commit_on_the_base() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "sq");
    commit(&lane, "a.txt", "a\n", "first");
    commit(&lane, "b.txt", "b\n", "second");
    let before = git_out(&repo.root, &["rev-parse", "main"]);
    ok(dibs_as(
        &repo.root,
        "s1",
        &["lane", "land", "sq", "--squash"],
        &[],
    ));
    assert_eq!(git_out(&repo.root, &["rev-parse", "main^"]), before);
    assert!(repo.root.join("a.txt").exists() && repo.root.join("b.txt").exists());
    assert_eq!(lane_named(&repo, "sq")["landed"], true);
}

#[test]
fn prune_after_a_sigkilled_holder_removes_clean_pushed_lanes_and_keeps_dirty_ones() {
    let repo = TestRepo::new();
    let mut host = FakeHost::start();
    let sid = "killed-0001";
    host.hook(
        &repo.root,
        &claude_event(
            "SessionStart",
            sid,
            &repo.root,
            serde_json::json!({"source": "startup"}),
        ),
    );
    let done = new_lane(&repo, "x", "done");
    let ok_out = dibs_as(
        &repo.root,
        "x",
        &["lane", "new", "done2", "--session", sid],
        &[],
    );
    assert!(ok_out.status.success(), "{}", text(&ok_out));
    let _ = done;
    let clean = repo.root.join(".worktrees/done2");
    let dirty = PathBuf::from(
        String::from_utf8(
            ok(dibs_as(
                &repo.root,
                "x",
                &["lane", "new", "wip", "--session", sid],
                &[],
            ))
            .stdout,
        )
        .unwrap()
        .trim(),
    );
    // The session edits in both lanes: each gets locked.
    for lane in [&clean, &dirty] {
        repo.write(lane, "work.txt", "work\n");
        host.hook(
            lane,
            &edit_event("PostToolUse", "Write", sid, lane, &lane.join("work.txt")),
        );
    }
    assert!(
        lane_named(&repo, "done2")["locked"]
            .as_str()
            .unwrap()
            .starts_with("git-dibs: claude killed-0")
    );
    git(&clean, &["add", "work.txt"]);
    git(&clean, &["commit", "-qm", "work"]);
    git(&clean, &["push", "-q", "origin", "lane/done2"]);
    host.kill();

    let out = ok(dibs_as(&repo.root, "x", &["release", "--all"], &[]));
    let _ = out;
    let out = ok(dibs_as(&repo.root, "viewer", &["lane", "prune"], &[]));
    let t = text(&out);
    assert!(t.contains("removed lane done2"), "{t}");
    assert!(t.contains("removed lane done"), "{t}");
    assert!(
        t.contains("kept lane wip") && t.contains("?? work.txt"),
        "{t}"
    );
    assert!(!clean.exists() && !repo.root.join(".git/worktrees/done2").exists());
    assert!(dirty.join("work.txt").exists());
    assert!(
        lane_named(&repo, "wip")["locked"]
            .as_str()
            .unwrap()
            .starts_with("git-dibs:"),
        "the dirty lane stays locked"
    );
    let left = claims_of(&repo, sid);
    assert!(!left.iter().any(|c| c.contains("done2")), "{left:?}");
    assert!(
        left.iter().any(|c| c.contains("wip")),
        "the kept lane keeps its claims: {left:?}"
    );
    assert_eq!(
        git_out(&repo.root, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        2
    );
}

#[test]
fn a_dirty_lane_survives_every_lane_command() {
    let repo = TestRepo::new();
    let lane = new_lane(&repo, "s1", "keep");
    commit(&lane, "committed.txt", "c\n", "unpushed work");
    repo.write(&lane, "src/lib.rs", "pub fn a() { /* uncommitted */ }\n");
    repo.write(&lane, "new.txt", "untracked\n");
    ok(dibs_as(&repo.root, "s1", &["release", "--all"], &[]));
    let runs: Vec<Vec<&str>> = vec![
        vec!["lane", "land", "keep"],
        vec!["lane", "land", "keep", "--squash"],
        vec!["lane", "prune"],
        vec!["lane", "prune", "--dry-run"],
        vec!["lane", "list"],
        vec!["lane", "new", "keep"],
        vec!["lane", "retain", "--all"],
        vec!["landed", "lane/keep", "--offline"],
    ];
    for args in runs {
        let out = dibs_as(&repo.root, "s2", &args, &[]);
        assert!(
            lane.join("new.txt").exists(),
            "after {args:?}: {}",
            text(&out)
        );
        assert!(
            std::fs::read_to_string(lane.join("src/lib.rs"))
                .unwrap()
                .contains("uncommitted"),
            "after {args:?}"
        );
        assert_eq!(
            git_out(&lane, &["log", "-1", "--format=%s"]),
            "unpushed work",
            "after {args:?}"
        );
    }
    let out = dibs_as(&repo.root, "s2", &["lane", "prune"], &[]);
    assert!(
        text(&out).contains(" M src/lib.rs") && text(&out).contains("?? new.txt"),
        "{}",
        text(&out)
    );
    assert_eq!(
        lane_named(&repo, "keep")["dirty"],
        serde_json::json!(["new.txt", "src/lib.rs"])
    );
}

#[test]
fn a_shared_target_lane_inside_the_main_worktree_warns_when_cargo_would_double_its_flags() {
    let repo = TestRepo::new();
    // No cargo config with flags: no warning.
    let out = ok(dibs_as(
        &repo.root,
        "s1",
        &["lane", "new", "plain", "--shared-target"],
        &[],
    ));
    assert!(!text(&out).contains("warning"), "{}", text(&out));
    // A committed config with rustflags: the lane has its own copy and reads the main
    // worktree's above it.
    std::fs::create_dir_all(repo.root.join(".cargo")).unwrap();
    commit(
        &repo.root,
        ".cargo/config.toml",
        "# rustflags = [\"commented out\"]\n[build]\nrustflags = [\"--cfg\", \"x\"]\n",
        "cargo flags",
    );
    let out = ok(dibs_as(
        &repo.root,
        "s2",
        &[
            "lane",
            "new",
            "doubled",
            "--shared-target",
            "--base",
            "main",
        ],
        &[],
    ));
    let said = text(&out);
    assert!(
        said.contains("warning: the lane reads")
            && said.contains(&repo.root.join(".cargo/config.toml").display().to_string())
            && said.contains("dibs.worktreesDir"),
        "{said}"
    );
    // Lanes kept outside the main worktree read only their own copy: no warning.
    // Given relative to the main worktree, as the README suggests.
    let outside = repo.root.parent().unwrap().join("lanes-outside");
    git(
        &repo.root,
        &["config", "dibs.worktreesDir", "../lanes-outside"],
    );
    let out = ok(dibs_as(
        &repo.root,
        "s3",
        &["lane", "new", "apart", "--shared-target", "--base", "main"],
        &[],
    ));
    assert!(!text(&out).contains("warning"), "{}", text(&out));
    assert!(
        outside
            .join("shared-target/apart/.cargo/config.toml")
            .is_file()
    );
    let exclude = std::fs::read_to_string(repo.root.join(".git/info/exclude")).unwrap();
    assert!(
        !exclude.contains(".."),
        "nothing outside is excluded: {exclude}"
    );
}

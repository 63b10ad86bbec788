//! What a new user meets in the first hour, through the real binary on real repositories:
//! lease lengths, damaged records, identities, targets, re-claims.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use serde_json::{Value, json};

/// Run the binary in `dir` as session `session` (`None`: a person called sam).
fn dibs_as(dir: &Path, session: Option<&str>, args: &[&str]) -> Output {
    dibs_env(dir, session, args, &[("USER", "sam")])
}

fn text(out: &Output) -> String {
    out_text(out)
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn leases_outside_a_minute_to_a_year_are_refused_with_the_range() {
    let repo = TestRepo::new();
    for ttl in [
        "8000y",
        "18446744073709551615",
        "0",
        "0s",
        "1ms",
        "59s",
        "366d",
    ] {
        let out = dibs_as(
            &repo.root,
            Some("s1"),
            &["claim", "README.md", "--ttl", ttl],
        );
        assert_eq!(code(&out), 2, "--ttl {ttl}: {}", text(&out));
        assert!(
            text(&out).contains("between 1m and 365d"),
            "--ttl {ttl}: {}",
            text(&out)
        );
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
    }
    // Nothing was saved by the refusals, and status still reads.
    let status = status_of(&repo.root);
    assert!(session_list(&status).is_empty(), "{status}");
    for ttl in ["1m", "365d", "90m", "3600"] {
        let out = dibs_as(
            &repo.root,
            Some("s1"),
            &["claim", "README.md", "--ttl", ttl],
        );
        assert!(out.status.success(), "--ttl {ttl}: {}", text(&out));
    }
}

#[test]
fn a_claim_with_an_absurd_lease_on_disk_is_reported_not_a_panic() {
    let repo = TestRepo::new();
    let out = dibs_as(&repo.root, Some("old-version"), &["claim", "README.md"]);
    assert!(out.status.success(), "{}", text(&out));
    // An older version saved `until` unchecked (and its records carry no `check`).
    let path = repo.store_dir().join("sessions/old-version.json");
    let mut record: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    record["claims"][0]["until"] = Value::from(u64::MAX);
    record.as_object_mut().unwrap().remove("check");
    std::fs::write(&path, serde_json::to_vec(&record).unwrap()).unwrap();
    for args in [&["status"][..], &["status", "--json"], &["status", "--all"]] {
        let out = dibs_as(&repo.root, Some("other"), args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
    }
    let out = dibs_as(&repo.root, Some("other"), &["status"]);
    assert!(
        text(&out).contains("longer than a year"),
        "the damaged lease is reported: {}",
        text(&out)
    );
    let doc: Value =
        serde_json::from_slice(&dibs_as(&repo.root, None, &["status", "--json"]).stdout).unwrap();
    assert_eq!(
        doc["sessions"][0]["claims"][0]["until"],
        "9999-12-31T23:59:59Z"
    );
}

#[test]
fn a_persons_claim_shows_its_whole_id_its_worktree_and_its_branch() {
    let repo = TestRepo::new();
    let out = dibs_as(&repo.root, None, &["claim", "README.md"]);
    assert!(out.status.success(), "{}", text(&out));
    let status = status_of(&repo.root);
    let person = &session_list(&status)[0];
    let id = person["id"].as_str().unwrap();
    assert!(id.starts_with("person-sam"), "{person}");
    assert_eq!(person["short_id"], id, "a person's id is not cut: {person}");
    assert_eq!(person["branch"], "main");
    assert_eq!(person["worktree"], repo.root.to_str().unwrap());
    let shown = text(&dibs_as(&repo.root, None, &["status"]));
    assert!(shown.contains("branch main"), "{shown}");
    assert!(!shown.contains("worktree ?"), "{shown}");
    assert!(!shown.contains("(detached)"), "{shown}");
}

#[test]
fn a_short_id_names_the_session_it_abbreviates() {
    let repo = TestRepo::new();
    let long = "5f0c2b7e-1111-4000-8000-000000000001";
    let out = dibs_as(&repo.root, Some(long), &["claim", "record:7"]);
    assert!(out.status.success(), "{}", text(&out));
    // The short id, as `--session` and as `DIBS_SESSION`, is that session, not a new one.
    let out = dibs_as(
        &repo.root,
        None,
        &["claim", "--session", "5f0c2b7e", "record:8"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = dibs_as(&repo.root, Some("5f0c2b7e"), &["claim", "record:9"]);
    assert!(out.status.success(), "{}", text(&out));
    let status = status_of(&repo.root);
    assert_eq!(session_list(&status).len(), 1, "{status}");
    assert_eq!(
        session_of(&status, long)["claims"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // Two sessions beginning alike: the prefix is refused, naming both.
    let twin = "5f0c2b7e-2222-4000-8000-000000000002";
    let out = dibs_as(&repo.root, Some(twin), &["claim", "record:10"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = dibs_as(
        &repo.root,
        None,
        &["claim", "--session", "5f0c2b7e", "record:11"],
    );
    assert_eq!(code(&out), 2, "{}", text(&out));
    assert!(
        text(&out).contains(long) && text(&out).contains(twin),
        "{}",
        text(&out)
    );
    assert_eq!(session_list(&status_of(&repo.root)).len(), 2);
}

#[test]
fn release_with_the_session_that_just_claimed_works() {
    let repo = TestRepo::new();
    let out = dibs_as(
        &repo.root,
        None,
        &["claim", "--session", "job-42", "record:1"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = dibs_as(
        &repo.root,
        None,
        &["release", "--session", "job-42", "record:1"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("released record:1"), "{}", text(&out));
    let status = status_of(&repo.root);
    assert!(
        session_of(&status, "job-42")["claims"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn an_empty_session_id_is_refused() {
    let repo = TestRepo::new();
    for args in [
        &["claim", "--session", "", "record:1"][..],
        &["claim", "--session", "  ", "record:1"],
        &["release", "--session", "", "--all"],
    ] {
        let out = dibs_as(&repo.root, None, args);
        assert_eq!(code(&out), 2, "{args:?}: {}", text(&out));
        assert!(text(&out).contains("empty session id"), "{}", text(&out));
    }
    assert!(session_list(&status_of(&repo.root)).is_empty());
}

#[test]
fn targets_that_name_nothing_claimable_are_refused() {
    let repo = TestRepo::new();
    let wt = repo.worktree("feature");
    for (target, expected) in [
        ("worktree:src", "not a worktree's top folder"),
        ("worktree:", "names no worktree"),
        ("foo:bar", "no kind of target called `foo:`"),
        ("branch:..bad", "not a valid branch name"),
        ("branch:a b", "not a valid branch name"),
        ("branch:-x", "not a valid branch name"),
        ("branch:x.lock", "not a valid branch name"),
        ("nonexistent.rs", "does not exist"),
        ("src", "is a folder"),
        ("src/", "is a folder"),
    ] {
        let out = dibs_as(&repo.root, Some("s1"), &["claim", target]);
        assert_eq!(code(&out), 2, "{target}: {}", text(&out));
        assert!(text(&out).contains(expected), "{target}: {}", text(&out));
    }
    assert!(session_list(&status_of(&repo.root)).is_empty());
    // What is well formed still claims: a worktree root, a branch with slashes, a file.
    let wt_target = format!("worktree:{}", wt.display());
    for target in [
        wt_target.as_str(),
        "worktree:.",
        "branch:feature/auth-2",
        "src/lib.rs",
        "record:ISSUE-1",
    ] {
        let out = dibs_as(&repo.root, Some("s1"), &["claim", target]);
        assert!(out.status.success(), "{target}: {}", text(&out));
    }
}

#[test]
fn claiming_again_without_exclusive_keeps_the_claim_exclusive() {
    let repo = TestRepo::new();
    let out = dibs_as(
        &repo.root,
        Some("s1"),
        &["claim", "record:5", "--exclusive", "--intent", "migrating"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = dibs_as(&repo.root, Some("s1"), &["claim", "record:5"]);
    assert!(out.status.success(), "{}", text(&out));
    let status = status_of(&repo.root);
    let claim = &session_of(&status, "s1")["claims"][0];
    assert_eq!(claim["exclusive"], true, "{claim}");
    assert_eq!(claim["intent"], "migrating", "{claim}");
    // And so another session's claim is still refused.
    let out = dibs_as(&repo.root, Some("s2"), &["claim", "record:5"]);
    assert_eq!(code(&out), 1, "{}", text(&out));
}

#[test]
fn a_file_two_live_sessions_changed_is_committable_by_either_and_the_guard_agrees() {
    let repo = TestRepo::new();
    let out = dibs(&repo.root, &["install", "--git-hooks"]);
    assert!(out.status.success(), "{}", text(&out));
    let (a, b) = ("aaaaaaaa-one", "bbbbbbbb-two");
    for s in [a, b] {
        hook(&repo.root, &repo.pre_edit(s, "src/lib.rs"));
    }
    hook(&repo.root, &repo.pre_edit(a, "README.md"));
    std::fs::write(repo.root.join("src/lib.rs"), "pub fn both() {}\n").unwrap();
    std::fs::write(repo.root.join("README.md"), "a's alone\n").unwrap();
    // The guard lets B commit the shared file by path...
    let guard = bash_hook_env(&repo.root, b, "git commit -m x -- src/lib.rs", &[]);
    assert!(hook_decision(&guard).is_none(), "{}", guard.stdout);
    // ...and so does the pre-commit hook, warning B whose work goes in with it.
    let out = git_as(
        &repo.root,
        b,
        &["commit", "-qm", "shared", "--", "src/lib.rs"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("src/lib.rs") && said.contains("aaaaaaaa"),
        "{said}"
    );
    // A's own file stays refused to B, by the guard and by the hook alike.
    let guard = bash_hook_env(&repo.root, b, "git commit -m x -- README.md", &[]);
    assert_eq!(hook_decision(&guard).map(|d| d.0).as_deref(), Some("deny"));
    let out = git_as(
        &repo.root,
        b,
        &["commit", "-qm", "theirs", "--", "README.md"],
        &[],
    );
    assert!(!out.status.success(), "{}", text(&out));
    // And A may commit the shared file too.
    std::fs::write(repo.root.join("src/lib.rs"), "pub fn again() {}\n").unwrap();
    hook(&repo.root, &repo.pre_edit(b, "src/lib.rs"));
    let out = git_as(
        &repo.root,
        a,
        &["commit", "-qm", "a's turn", "--", "src/lib.rs"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn git_dibs_help_opens_the_manual_page_that_install_writes() {
    let repo = TestRepo::new();
    // An installed binary: `<prefix>/bin/git-dibs`.
    let (prefix, path) = installed_prefix(&repo, "prefix");
    let exe = prefix.join("bin/git-dibs");
    let out = Command::new(&exe)
        .arg("install")
        .current_dir(&repo.root)
        .env("PATH", &path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let page = prefix.join("share/man/man1/git-dibs.1");
    assert!(page.is_file(), "{}", text(&out));
    assert!(text(&out).contains("git-dibs.1"), "{}", text(&out));
    // git turns `--help` into `man git-dibs`; man finds the page beside the binary on PATH.
    let has_man = Command::new("man").arg("-w").arg("git").output().is_ok();
    if has_man {
        let out = git_command(&repo.root)
            .args(["dibs", "--help"])
            .env("PATH", &path)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env_remove("MANPATH")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert!(text(&out).contains("NAME"), "{}", text(&out));
        assert!(text(&out).contains("git-dibs"), "{}", text(&out));
    }
    // The page is also printed, or written elsewhere, on request.
    let out = dibs(&repo.root, &["man"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(".TH git-dibs 1"));
    let dir = repo.tmp.path().join("man1");
    let out = dibs(
        &repo.root,
        &["man", "--install", "--dir", dir.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(dir.join("git-dibs.1").is_file());
}

#[test]
fn usage_errors_point_at_help_that_works_and_exit_2() {
    let repo = TestRepo::new();
    for args in [&["bogus"][..], &["claim"], &["status", "--nope"]] {
        let out = dibs(&repo.root, args);
        assert_eq!(code(&out), 2, "{args:?}");
        let said = text(&out);
        assert!(said.contains("git dibs -h"), "{args:?}: {said}");
        assert!(!said.contains("try '--help'"), "{args:?}: {said}");
    }
    let out = dibs(&repo.root, &["-h"]);
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: git dibs"));
}

#[test]
fn completions_are_printed_for_each_shell() {
    let repo = TestRepo::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = dibs(&repo.root, &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains("claim") && script.contains("release"),
            "{shell}"
        );
    }
    let out = dibs(&repo.root, &["completions", "tcsh"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn a_session_that_ends_with_uncommitted_files_is_shown_until_someone_deals_with_it() {
    let repo = TestRepo::new();
    let dirty = repo.root.join("README.md");
    let clean = repo.root.join("src/lib.rs");
    for file in [&dirty, &clean] {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, "edited\n").unwrap();
        let ev = edit_event("PostToolUse", "Write", "ender", &repo.root, file);
        assert_eq!(hook(&repo.root, &ev).code, 0);
    }
    // One of the two is committed before the session ends; the other is left behind.
    git(&repo.root, &["add", "src/lib.rs"]);
    git(&repo.root, &["commit", "-qm", "lib"]);
    let end = claude_event(
        "SessionEnd",
        "ender",
        &repo.root,
        json!({"reason": "other"}),
    );
    assert_eq!(hook(&repo.root, &end).code, 0);
    for _ in 0..2 {
        let out = text(&dibs_as(&repo.root, None, &["status"]));
        assert!(
            out.contains("ended with uncommitted files: README.md."),
            "{out}"
        );
        assert!(!out.contains("src/lib.rs"), "{out}");
    }
    let json = status_of(&repo.root);
    assert_eq!(
        json["died_dirty"][0]["files"],
        json!(["README.md"]),
        "{json}"
    );
    // Not live, so not protected: a peer may deal with it.
    let peer = bash_hook_env(&repo.root, "peer", "git stash", &[]);
    assert!(peer.stdout.trim().is_empty(), "{}", peer.stdout);
    let out = dibs_as(
        &repo.root,
        None,
        &["release", "--all", "--session", "ender", "--force"],
    );
    assert_eq!(code(&out), 0, "{}", text(&out));
    let out = text(&dibs_as(&repo.root, None, &["status"]));
    assert!(!out.contains("ended with"), "{out}");
}

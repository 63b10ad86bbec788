//! Explicit claims through the real binary: intents in status and warnings, exclusive claims
//! raced by real processes, leases, and releasing with and without force.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

fn dibs_as(dir: &Path, session: &str, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("DIBS_SESSION", session)
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_claim_with_an_intent_shows_in_status_and_in_the_co_edit_warning() {
    let repo = TestRepo::new();
    let out = dibs_as(
        &repo.root,
        "aaaaaaaa-1",
        &[
            "claim",
            "src/lib.rs",
            "branch:main",
            "record:ISSUE-7",
            "--intent",
            "about to delete SessionsView",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let grants: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(grants.as_array().unwrap().len(), 3);
    assert!(
        grants[0]["token"]
            .as_str()
            .unwrap()
            .starts_with("aaaaaaaa-")
    );
    assert!(grants[0]["token"].as_str().unwrap().ends_with("-g0"));

    let status: Value =
        serde_json::from_slice(&dibs(&repo.root, &["status", "--json"]).stdout).unwrap();
    let claims = status["sessions"][0]["claims"].as_array().unwrap();
    let targets: Vec<&str> = claims
        .iter()
        .map(|c| c["target"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["src/lib.rs", "branch:main", "record:ISSUE-7"]);
    assert_eq!(claims[0]["intent"], "about to delete SessionsView");

    let run = hook(&repo.root, &repo.pre_edit("bbbbbbbb-2", "src/lib.rs"));
    let msg = run.json()["systemMessage"].as_str().unwrap().to_owned();
    assert!(
        msg.contains("aaaaaaaa") && msg.contains("claimed: \"about to delete SessionsView\""),
        "{msg}"
    );
}

#[test]
fn exactly_one_of_eight_racing_processes_wins_an_exclusive_claim_every_round() {
    let repo = TestRepo::new();
    for round in 0..12 {
        let target = format!("branch:race-{round}");
        let children: Vec<_> = (0..8)
            .map(|i| {
                Command::new(bin())
                    .args(["claim", &target, "--exclusive", "--intent", "racing"])
                    .current_dir(&repo.root)
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .env("DIBS_SESSION", format!("racer-{i}"))
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let winners = outs.iter().filter(|o| o.status.success()).count();
        assert_eq!(
            winners,
            1,
            "round {round}: {:?}",
            outs.iter().map(text).collect::<Vec<_>>()
        );
        for loser in outs.iter().filter(|o| !o.status.success()) {
            assert_eq!(loser.status.code(), Some(1));
            let t = text(loser);
            assert!(
                t.contains(&format!("{target} is held by person session racer-")),
                "{t}"
            );
            assert!(t.contains("(intent: racing)"), "{t}");
        }
    }
}

#[test]
fn a_shared_claim_does_not_block_another_shared_claim_but_blocks_an_exclusive_one() {
    let repo = TestRepo::new();
    assert!(
        dibs_as(&repo.root, "s1", &["claim", "record:42"])
            .status
            .success()
    );
    assert!(
        dibs_as(&repo.root, "s2", &["claim", "record:42"])
            .status
            .success()
    );
    let out = dibs_as(
        &repo.root,
        "s3",
        &["claim", "record:42", "record:43", "--exclusive"],
    );
    assert_eq!(out.status.code(), Some(1));
    // All or nothing: record:43 was not taken either.
    assert!(
        dibs_as(&repo.root, "s4", &["claim", "record:43", "--exclusive"])
            .status
            .success()
    );
    // A file another live session is editing cannot be claimed exclusively.
    hook(&repo.root, &repo.pre_edit("editor-1", "README.md"));
    let out = dibs_as(&repo.root, "s5", &["claim", "README.md", "--exclusive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn a_claim_lapses_at_its_ttl() {
    let repo = TestRepo::new();
    // The test-only clock (`DIBS_NOW`, debug builds) instead of sleeping past the lease.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = |secs: u64| (secs).to_string();
    let claim = |session: &str, when: u64| {
        Command::new(bin())
            .args(["claim", "branch:x", "--exclusive", "--ttl", "1m"])
            .current_dir(&repo.root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("DIBS_SESSION", session)
            .env("DIBS_NOW", at(when))
            .output()
            .unwrap()
    };
    assert!(claim("s1", now).status.success());
    assert_eq!(claim("s2", now + 59).status.code(), Some(1));
    assert!(claim("s2", now + 61).status.success());
}

#[test]
fn releasing_own_claims_and_forcing_a_dead_sessions_release() {
    let repo = TestRepo::new();
    assert!(
        dibs_as(&repo.root, "me-1", &["claim", "record:1", "record:2"])
            .status
            .success()
    );
    let out = dibs_as(&repo.root, "me-1", &["release", "record:1"]);
    assert!(text(&out).contains("released record:1"), "{}", text(&out));

    // Another, live session's claims: --force is needed, and is refused while it is live.
    let out = dibs_as(
        &repo.root,
        "other-2",
        &["release", "--all", "--session", "me-1"],
    );
    assert_eq!(out.status.code(), Some(1), "a refusal");
    assert!(text(&out).contains("needs --force"), "{}", text(&out));
    let out = dibs_as(
        &repo.root,
        "other-2",
        &["release", "--all", "--session", "me-1", "--force"],
    );
    assert_eq!(out.status.code(), Some(1), "a refusal");
    assert!(text(&out).contains("is live"), "{}", text(&out));

    // Once it is dead (its two-hour lease lapsed: the test clock of debug builds is moved on),
    // --force releases and is audited.
    let later = (now_secs() + 3 * 60 * 60).to_string();
    let out = dibs_env(
        &repo.root,
        Some("other-2"),
        &["release", "--all", "--session", "me-1", "--force"],
        &[("DIBS_NOW", &later)],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("released record:2"));
    let audit = std::fs::read_to_string(repo.store_dir().join("audit.log")).unwrap();
    let line: Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
    assert_eq!(line["verdict"], "force-release");
    assert_eq!(line["session"], "other-2");
    assert!(line["reason"].as_str().unwrap().contains("record:2"));
}

#[test]
fn bad_arguments_say_what_was_wrong_and_what_to_do() {
    let repo = TestRepo::new();
    let outside = tempfile::tempdir().unwrap();
    for (args, expected) in [
        (vec!["claim", "branch:"], "write branch:NAME"),
        (vec!["claim", "record:"], "write record:ID"),
        (vec!["claim", "x.rs", "--ttl", "soon"], "is not a duration"),
        (
            vec!["claim", outside.path().to_str().unwrap()],
            "is not inside a git worktree",
        ),
        (vec!["claim", "."], "name the worktree as worktree:."),
        (
            vec!["release", "--session", "nobody", "record:1"],
            "no session `nobody`",
        ),
    ] {
        let out = dibs_as(&repo.root, "s1", &args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(expected), "{args:?}: {}", text(&out));
    }
}

#[test]
fn a_command_under_one_agent_cannot_speak_for_another_live_sessions_claims() {
    let repo = TestRepo::new();
    // Session s1's agent (a long-lived process, as a host is) claims a file through its hook.
    let file = repo.root.join("src/lib.rs");
    let event = edit_event("PreToolUse", "Edit", "s1-agent-owned", &repo.root, &file);
    let mut agent = Command::new("python3")
        .args([
            "-c",
            "import subprocess, sys, time\n\
             subprocess.run([sys.argv[1], 'hook'], input=sys.argv[2].encode(), check=True)\n\
             print('ready', flush=True)\n\
             time.sleep(60)",
        ])
        .arg(bin())
        .arg(event.to_string())
        .current_dir(&repo.root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(agent.stdout.as_mut().unwrap()),
        &mut ready,
    )
    .unwrap();
    assert_eq!(ready.trim(), "ready");
    // Another agent's shell (this test process) names s1 in the environment.
    let out = dibs_as(&repo.root, "s1-agent-owned", &["release", "--all"]);
    let said = text(&out);
    let _ = agent.kill();
    let _ = agent.wait();
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("live under another process") && said.contains("Unset DIBS_SESSION"),
        "{said}"
    );
    let status = dibs(&repo.root, &["status", "--json", "--all"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(
        status["sessions"][0]["files"][0]["path"], "src/lib.rs",
        "{status}"
    );
    // Once its agent is gone, a command may act for it as before.
    let out = dibs_as(&repo.root, "s1-agent-owned", &["release", "--all"]);
    assert!(out.status.success(), "{}", text(&out));
}

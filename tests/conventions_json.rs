//! `--json` on the commands that had none (`lane land`, `lane prune`, `lane retain`, `install`,
//! `uninstall`) and on the refusals that printed only text (`release` of another session's
//! claims, `lane new` over a dirty base, `recover --worktree` with nothing to bring back): one
//! JSON document on stdout whenever the command answers (exit 0 or 1), parsed here with
//! serde_json over a real repository.

mod common;

use std::path::Path;
use std::process::Output;

use common::*;
use serde_json::Value;

fn run(dir: &Path, session: Option<&str>, args: &[&str]) -> Output {
    dibs_env(
        dir,
        session,
        args,
        &[
            ("USER", "sam"),
            ("GIT_AUTHOR_NAME", "Test"),
            ("GIT_AUTHOR_EMAIL", "test@example.invalid"),
            ("GIT_COMMITTER_NAME", "Test"),
            ("GIT_COMMITTER_EMAIL", "test@example.invalid"),
        ],
    )
}

/// stdout as one JSON document, and the exit code.
fn json_of(out: &Output) -> (Value, i32) {
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}):\n{}", out_text(out)));
    (v, out.status.code().unwrap_or(-1))
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

#[test]
fn lane_land_answers_in_json_when_it_lands_and_when_it_refuses() {
    let repo = TestRepo::new();
    let out = run(&repo.root, Some("s1"), &["lane", "new", "x", "--json"]);
    let (made, code) = json_of(&out);
    assert_eq!(code, 0, "{made}");
    let lane = Path::new(made["path"].as_str().unwrap()).to_path_buf();
    repo.write(&lane, "x.txt", "lane work\n");
    git(&lane, &["add", "x.txt"]);
    git(&lane, &["commit", "-qm", "lane work"]);
    repo.write(&lane, "half.txt", "not committed\n");

    let (v, code) = json_of(&run(
        &repo.root,
        Some("s1"),
        &["lane", "land", "x", "--json"],
    ));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["landed"], false);
    assert_eq!(v["lane"], "x");
    assert!(
        v["refused"].as_str().unwrap().contains("uncommitted"),
        "{v}"
    );
    assert_eq!(strings(&v["paths"]), ["?? half.txt"]);
    std::fs::remove_file(lane.join("half.txt")).unwrap();

    let before = git_out(&repo.root, &["rev-parse", "main"]);
    let (v, code) = json_of(&run(
        &repo.root,
        Some("s1"),
        &["lane", "land", "x", "--squash", "--json"],
    ));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["landed"], true);
    assert_eq!(v["mode"], "squash");
    assert_eq!(v["base"], "main");
    assert_eq!(v["from"], before.as_str());
    let after = git_out(&repo.root, &["rev-parse", "main"]);
    assert_eq!(v["to"], after.as_str(), "main moved to what the JSON says");
    assert_eq!(
        strings(&v["updated_checkouts"]),
        [repo.root.to_str().unwrap()]
    );
    assert!(v["refused"].is_null());

    // Without --json: the line for people, nothing else on stdout.
    let out = run(&repo.root, Some("s1"), &["lane", "land", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("lane x has nothing main lacks"),
        "{}",
        out_text(&out)
    );
}

#[test]
fn lane_prune_lists_every_lane_and_orphan_with_what_it_did() {
    let repo = TestRepo::new();
    let (made, _) = json_of(&run(
        &repo.root,
        Some("s1"),
        &["lane", "new", "keep", "--json"],
    ));
    let kept = made["path"].as_str().unwrap().to_owned();
    repo.write(Path::new(&kept), "dirty.txt", "uncommitted\n");
    let (_, code) = json_of(&run(
        &repo.root,
        Some("s2"),
        &["lane", "new", "done", "--json"],
    ));
    assert_eq!(code, 0);
    // The holder of `done` lets it go; it is clean and has nothing unpushed.
    let out = run(&repo.root, Some("s2"), &["release", "--all"]);
    assert!(out.status.success(), "{}", out_text(&out));
    let orphan = repo.root.join(".worktrees/empty-orphan");
    std::fs::create_dir_all(&orphan).unwrap();

    let (v, code) = json_of(&run(
        &repo.root,
        None,
        &["lane", "prune", "--dry-run", "--json"],
    ));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["dry_run"], true);
    let lanes = v["lanes"].as_array().unwrap();
    let of = |name: &str| {
        lanes
            .iter()
            .find(|l| l["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed: {v}"))
            .clone()
    };
    assert_eq!(of("keep")["action"], "kept", "{v}");
    assert!(of("keep")["reason"].as_str().is_some(), "{v}");
    assert_eq!(strings(&of("keep")["porcelain"]), ["?? dirty.txt"]);
    assert_eq!(of("done")["action"], "would-remove", "{v}");
    let orphans = v["orphans"].as_array().unwrap();
    assert_eq!(orphans.len(), 1, "{v}");
    assert_eq!(orphans[0]["action"], "would-remove");
    assert!(orphan.exists(), "a dry run changes nothing");

    let (v, code) = json_of(&run(&repo.root, None, &["lane", "prune", "--json"]));
    assert_eq!(code, 0, "{v}");
    let lanes = v["lanes"].as_array().unwrap();
    let done = lanes.iter().find(|l| l["name"] == "done").unwrap();
    assert_eq!(done["action"], "removed", "{v}");
    assert!(!Path::new(done["path"].as_str().unwrap()).exists());
    assert_eq!(v["orphans"][0]["action"], "removed");
    assert!(!orphan.exists());
    assert!(Path::new(&kept).join("dirty.txt").exists());
}

#[test]
fn lane_retain_says_in_json_what_it_made_and_dropped() {
    let repo = TestRepo::new();
    repo.write(&repo.root, "new.txt", "unpushed\n");
    git(&repo.root, &["add", "new.txt"]);
    git(&repo.root, &["commit", "-qm", "unpushed"]);
    let sha = git_out(&repo.root, &["rev-parse", "--short=7", "HEAD"]);
    let name = format!("refs/dibs/retention/main/{sha}");

    let (v, code) = json_of(&run(&repo.root, None, &["lane", "retain", "--json"]));
    assert_eq!(code, 0, "{v}");
    assert_eq!(strings(&v["retained"]), [name.as_str()], "{v}");
    // Again: nothing new, and nothing said to have been made and dropped at once.
    let (v, _) = json_of(&run(
        &repo.root,
        None,
        &["lane", "retain", "--all", "--json"],
    ));
    assert!(strings(&v["retained"]).is_empty(), "{v}");
    assert!(v["covered"].as_array().unwrap().is_empty(), "{v}");
    let out = run(&repo.root, None, &["lane", "retain"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("nothing to retain or drop"),
        "{}",
        out_text(&out)
    );

    git(&repo.root, &["push", "-q", "origin", "main"]);
    let (v, code) = json_of(&run(
        &repo.root,
        None,
        &["lane", "retain", "--sweep", "--json"],
    ));
    assert_eq!(code, 0, "{v}");
    assert_eq!(strings(&v["dropped"]), [name.as_str()], "{v}");
}

#[test]
fn install_and_uninstall_answer_in_json() {
    let repo = TestRepo::new();
    let (v, code) = json_of(&run(&repo.root, None, &["install", "--json"]));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["mode"], "install");
    assert_eq!(v["dry_run"], false);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{v}");
    assert_eq!(files[0]["host"], "claude");
    assert_eq!(files[0]["changed"], true);
    let settings = repo.root.join(".claude/settings.json");
    assert_eq!(files[0]["path"], settings.to_str().unwrap());
    assert!(settings.exists());
    // What install leaves to do: commit the project file.
    assert!(
        strings(&v["notes"])
            .iter()
            .any(|n| n.starts_with("next: commit .claude/settings.json")),
        "{v}"
    );

    let (v, _) = json_of(&run(&repo.root, None, &["install", "--all", "--json"]));
    let hosts: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["host"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["cursor", "gemini", "codex", "claude"], "{v}");
    assert_eq!(v["files"][3]["changed"], false, "already wired: {v}");

    let (v, _) = json_of(&run(
        &repo.root,
        None,
        &["install", "--git-hooks", "--json"],
    ));
    let names: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        names,
        ["pre-commit", "reference-transaction", "post-commit"],
        "{v}"
    );

    let (v, code) = json_of(&run(
        &repo.root,
        None,
        &["uninstall", "--dry-run", "--json"],
    ));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["dry_run"], true);
    let content = v["files"][0]["content"].as_str().unwrap();
    assert!(
        !content.contains("git-dibs"),
        "the file as it would be: {content}"
    );
    assert!(
        std::fs::read_to_string(&settings)
            .unwrap()
            .contains("git-dibs"),
        "a dry run writes nothing"
    );
    let (v, _) = json_of(&run(&repo.root, None, &["uninstall", "--json"]));
    assert_eq!(v["mode"], "uninstall");
    assert_eq!(v["files"][0]["changed"], true, "{v}");
}

#[test]
fn refusals_that_printed_text_answer_in_json_with_exit_1() {
    let repo = TestRepo::new();
    assert!(
        run(&repo.root, Some("s1"), &["claim", "record:1"])
            .status
            .success()
    );
    // Another agent session releasing s1's claim without --force.
    let (v, code) = json_of(&run(
        &repo.root,
        Some("s2"),
        &["release", "--session", "s1", "record:1", "--json"],
    ));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["session"], "s1");
    assert!(strings(&v["released"]).is_empty());
    assert!(v["refused"].as_str().unwrap().contains("--force"), "{v}");
    // With --force while s1 is live: refused too.
    let (v, code) = json_of(&run(
        &repo.root,
        Some("s2"),
        &["release", "--session", "s1", "--all", "--force", "--json"],
    ));
    assert_eq!(code, 1, "{v}");
    assert!(v["refused"].as_str().unwrap().contains("is live"), "{v}");

    // A lane from a base with uncommitted changes.
    repo.write(&repo.root, "README.md", "changed\n");
    let (v, code) = json_of(&run(
        &repo.root,
        Some("s1"),
        &["lane", "new", "y", "--base", "main", "--json"],
    ));
    assert_eq!(code, 1, "{v}");
    assert!(
        v["refused"].as_str().unwrap().contains("M README.md"),
        "{v}"
    );
    assert!(!repo.root.join(".worktrees/y").exists());

    // Nothing to bring back for a worktree no snapshot knows.
    let gone = repo.tmp.path().join("never-was");
    let (v, code) = json_of(&run(
        &repo.root,
        None,
        &["recover", "--worktree", gone.to_str().unwrap(), "--json"],
    ));
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["created"], false);
    assert!(
        v["refused"].as_str().unwrap().contains("no snapshot"),
        "{v}"
    );
}

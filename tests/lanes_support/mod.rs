//! Helpers shared by the lane tests: running the binary as a session, reading `lane list`,
//! committing, and the claims a session holds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use serde_json::Value;

/// Run the binary as session `session` (with a committer identity for rebases and merges).
pub fn dibs_as(dir: &Path, session: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    with_git_env(cmd.args(args).current_dir(dir))
        .env("DIBS_SESSION", session)
        .env_remove("CLAUDE_CODE_SESSION_ID");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git-dibs runs")
}

/// stdout and stderr together.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Assert success and pass the output on.
pub fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", text(&out));
    out
}

/// `lane new NAME --json` as `session`; the lane's path.
pub fn new_lane(repo: &TestRepo, session: &str, name: &str) -> PathBuf {
    let out = ok(dibs_as(
        &repo.root,
        session,
        &["lane", "new", name, "--json"],
        &[],
    ));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(v["path"].as_str().unwrap())
}

/// `lane list --json`.
pub fn lanes_json(repo: &TestRepo) -> Vec<Value> {
    let out = ok(dibs_as(
        &repo.root,
        "viewer",
        &["lane", "list", "--json"],
        &[],
    ));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// One lane of `lane list --json`, by name.
pub fn lane_named(repo: &TestRepo, name: &str) -> Value {
    lanes_json(repo)
        .into_iter()
        .find(|l| l["name"] == name)
        .unwrap_or_else(|| panic!("no lane {name}"))
}

/// Write, add and commit one file; the new commit id.
pub fn commit(dir: &Path, file: &str, body: &str, msg: &str) -> String {
    std::fs::write(dir.join(file), body).unwrap();
    git(dir, &["add", file]);
    git(dir, &["commit", "-qm", msg]);
    git_out(dir, &["rev-parse", "HEAD"])
}

/// Every claim target and touched file of `session`, from `status --all --json`.
pub fn claims_of(repo: &TestRepo, session: &str) -> Vec<String> {
    let out = ok(dibs_as(
        &repo.root,
        "viewer",
        &["status", "--all", "--json"],
        &[],
    ));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"] == session)
        .flat_map(|s| {
            let claims = s["claims"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["target"].to_string());
            let files = s["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].to_string());
            claims.chain(files).collect::<Vec<_>>()
        })
        .collect()
}

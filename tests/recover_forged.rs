//! Snapshots are data anyone in the clone can write (red-team 3/20): `recover` never writes
//! into a git directory nor into a folder that is no worktree of the clone, whatever a forged
//! snapshot names; the genuine files beside them come back as ever.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;

/// A snapshot commit of session `evil` holding `rel` (executable) of the worktree at `root`, in
/// the shape git-dibs writes, put under `refs/dibs/snapshots/evil`.
fn forge(repo: &Path, root: &Path, rel: &str) {
    let key = git_out(repo, &["ls-tree", "refs/dibs/snapshots/genuine"]);
    let key = key
        .split('\t')
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .to_owned();
    let blob = sh(
        repo,
        "printf '#!/bin/sh\\necho planted > planted.txt\\n' | git hash-object -w --stdin",
    );
    let blob = String::from_utf8_lossy(&blob.stdout).trim().to_owned();
    let name = rel.replace('/', "%2F");
    let tree = sh(
        repo,
        &format!("printf '100755 blob {blob}\\t{key}:{name}\\n' | git mktree"),
    );
    let tree = String::from_utf8_lossy(&tree.stdout).trim().to_owned();
    let head = git_out(repo, &["rev-parse", "HEAD"]);
    let meta = serde_json::json!({
        "version": 1, "session": "evil", "host": "claude", "at": now_secs(),
        "worktrees": {key.clone(): {"root": root, "branch": "main", "head": head}},
        "changed": [{"worktree": key, "path": rel}], "skipped": [], "origin": "edit",
    });
    let message = format!("git-dibs snapshot: 1 file of claude session evil\n\n{meta}");
    let commit = git_out(repo, &["commit-tree", &tree, "-m", &message]);
    git(repo, &["update-ref", "refs/dibs/snapshots/evil", &commit]);
}

#[test]
fn a_forged_snapshot_never_writes_a_git_hook_nor_outside_the_clone() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let agent = Agent::new("genuine", r);
    let ok = agent.write("ok.txt", b"genuine work\n");
    forge(r, r, ".git/hooks/pre-commit");
    let elsewhere = repo.root.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::remove_file(&ok).unwrap();
    let (code, out, err) = recover(r, &["."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!r.join(".git/hooks/pre-commit").exists(), "{out}");
    assert_files(&[(ok.clone(), b"genuine work\n".to_vec())]);

    // A snapshot naming a folder that is no worktree of this clone as its worktree.
    git(r, &["update-ref", "-d", "refs/dibs/snapshots/evil"]);
    forge(r, &elsewhere, "authorized_keys");
    let (_, out, err) = recover(r, &["--worktree", elsewhere.to_str().unwrap()]);
    assert!(!elsewhere.join("authorized_keys").exists(), "{out}{err}");
    let (_, out, err) = recover(r, &[elsewhere.join("authorized_keys").to_str().unwrap()]);
    assert!(!elsewhere.join("authorized_keys").exists(), "{out}{err}");
}

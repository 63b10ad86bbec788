//! A mode change is a change: `chmod +x` (or `-x`) of a snapshotted file after the edit tool
//! wrote it makes a new snapshot, and `recover` brings the bit back with the bytes.

mod common;
mod recover_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;
use recover_support::*;

fn executable(path: &Path) -> bool {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o111 != 0
}

#[test]
fn chmod_after_a_write_is_snapshotted_and_recover_sets_the_bit() {
    let repo = TestRepo::new();
    let agent = Agent::new("mode-agent", &repo.root);
    let run = agent.write("run.sh", b"#!/bin/sh\necho run\n");
    let tool = agent.write("bin/tool", b"#!/bin/sh\necho tool\n");
    agent.bash("chmod +x run.sh");
    // Another spelling, and a later command's sweep rather than the chmod's own call.
    sh(&repo.root, "chmod 0750 bin/tool");
    agent.bash("rm -f nothing.tmp");
    let tree = git_out(
        &repo.root,
        &["ls-tree", "-r", "refs/dibs/snapshots/mode-agent"],
    );
    assert!(
        tree.lines().filter(|l| l.starts_with("100755")).count() == 2,
        "{tree}"
    );
    sh(&repo.root, "rm -rf run.sh bin");
    assert_recovers(
        &repo.root,
        &["."],
        &[
            (run.clone(), b"#!/bin/sh\necho run\n".to_vec()),
            (tool.clone(), b"#!/bin/sh\necho tool\n".to_vec()),
        ],
    );
    assert!(executable(&run) && executable(&tool));
}

#[test]
fn taking_the_bit_away_is_a_change_too_and_a_touch_is_not() {
    let repo = TestRepo::new();
    let agent = Agent::new("mode-agent2", &repo.root);
    let file = agent.write("x.sh", b"echo x\n");
    agent.bash("chmod +x x.sh");
    let count = || {
        git_out(
            &repo.root,
            &["rev-list", "--count", "refs/dibs/snapshots/mode-agent2"],
        )
    };
    let after_chmod = count();
    // Same content, same mode, new times: no new snapshot.
    agent.bash("touch x.sh");
    assert_eq!(count(), after_chmod);
    agent.bash("chmod -x x.sh");
    assert_ne!(count(), after_chmod);
    sh(&repo.root, "rm x.sh");
    assert_recovers(
        &repo.root,
        &["x.sh"],
        &[(file.clone(), b"echo x\n".to_vec())],
    );
    assert!(!executable(&file));
}

#[test]
fn a_reverted_bit_alone_is_listed_and_set_back_and_a_link_is_left_alone() {
    let repo = TestRepo::new();
    sh(
        &repo.root,
        "printf '#!/bin/sh\\necho run\\n' > run.sh && git add run.sh && git commit -qm run",
    );
    let agent = Agent::new("mode-agent3", &repo.root);
    agent.bash("chmod +x run.sh");
    let run = repo.root.join("run.sh");
    // A revert by anyone (the guard would ask; here it simply happens) takes the bit away.
    sh(&repo.root, "git checkout -- . && chmod -x run.sh");
    assert!(!executable(&run));
    let listing = recover_json(&repo.root, &["--session", "mode-agent3"]);
    assert_eq!(
        listing["files"][0]["working_copy"], "mode differs",
        "{listing}"
    );
    let (code, out, err) = recover(&repo.root, &["run.sh"]);
    assert_eq!(code, 0, "{out}{err}");
    let at = listing["files"][0]["at"].as_str().unwrap();
    insta::assert_snapshot!(
        "recover_mode_only",
        snap::stable(&repo, &out.replace(at, "[TIME]"))
    );
    assert!(executable(&run));
    // Once as snapshotted, it matches and nothing is done.
    let (code, out, _) = recover(&repo.root, &["run.sh"]);
    assert_eq!(code, 0);
    assert!(out.contains("already as snapshotted"), "{out}");
}

//! Tracked files the index marks assume-unchanged (`git ls-files -v`: `h`) or skip-worktree
//! (`S`; every file outside a sparse checkout's cone) are taken for unchanged by git's status
//! without being looked at. What a script writes into one is snapshotted all the same, a peer's
//! destroyer is refused over one a live session holds, and `recover` brings them back; files
//! marked but not written, and the files a sparse checkout leaves out, stay out of it.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

/// `conf.txt` skip-worktree and `b.txt` assume-unchanged, committed and pushed.
fn marked_repo() -> TestRepo {
    let repo = TestRepo::new();
    sh(
        &repo.root,
        "echo conf > conf.txt && echo v1 > b.txt && git add . && git commit -qm c \
         && git push -q origin main && git update-index --skip-worktree conf.txt \
         && git update-index --assume-unchanged b.txt",
    );
    let flags = git_out(&repo.root, &["ls-files", "-v"]);
    assert!(
        flags.contains("h b.txt") && flags.contains("S conf.txt"),
        "{flags}"
    );
    repo
}

#[test]
fn a_scripts_writes_to_marked_files_are_kept_and_come_back() {
    let repo = marked_repo();
    let s1 = Agent::started("marked-s1", &repo.root);
    let s2 = Agent::started("marked-s2", &repo.root);
    s1.bash("python3 -c \"open('conf.txt','w').write('AGENTCONF1\\n'); open('b.txt','w').write('AGENTB1\\n')\"");
    // git itself sees nothing to keep.
    assert_eq!(git_out(&repo.root, &["status", "--porcelain"]), "");
    s2.bash("git reset -q --hard");
    s2.bash("git update-index --no-skip-worktree conf.txt && git checkout -- .");
    collect_garbage(&repo.root);
    assert!(has_blob(&repo.root, b"AGENTB1\n") && has_blob(&repo.root, b"AGENTCONF1\n"));
    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("b.txt") && out.contains("conf.txt"), "{out}");
    assert_recovers(
        &repo.root,
        &["b.txt", "--force"],
        &[(repo.root.join("b.txt"), b"AGENTB1\n".to_vec())],
    );
    assert_recovers(
        &repo.root,
        &["conf.txt", "--force"],
        &[(repo.root.join("conf.txt"), b"AGENTCONF1\n".to_vec())],
    );
}

#[test]
fn a_peers_destroyer_is_refused_over_marked_files_a_live_session_holds() {
    let repo = marked_repo();
    let s1 = Agent::started("marked-h1", &repo.root);
    Agent::started("marked-h2", &repo.root);
    s1.write("b.txt", b"EDITB\n");
    s1.write("conf.txt", b"EDITCONF\n");
    for command in ["git reset -q --hard", "git stash -q"] {
        let run = hook(&repo.root, &bash_event("marked-h2", &repo.root, command));
        let (decision, reason, _) = hook_decision(&run).expect("a decision");
        assert_eq!(decision, "deny", "{command}: {reason}");
        assert!(
            reason.contains("b.txt") && reason.contains("conf.txt"),
            "{command}: {reason}"
        );
    }
    // A marked file nobody wrote is nobody's work: the same command is silent once they are
    // back to their committed content.
    sh(&repo.root, "echo v1 > b.txt && echo conf > conf.txt");
    hook(
        &repo.root,
        &bash_event("marked-h2", &repo.root, "git reset -q --hard"),
    )
    .assert_silent();
}

#[test]
fn a_file_outside_a_sparse_cone_a_script_writes_is_kept_and_the_absent_ones_are_not() {
    let repo = TestRepo::new();
    sh(
        &repo.root,
        "mkdir -p docs/deep && echo d > docs/d.md && echo e > docs/deep/e.md && git add . \
         && git commit -qm docs && git push -q origin main && git sparse-checkout set src",
    );
    assert!(!repo.root.join("docs").exists());
    let flags = git_out(&repo.root, &["ls-files", "-v"]);
    assert!(flags.contains("S docs/d.md"), "{flags}");
    let s1 = Agent::started("sparse-s1", &repo.root);
    let s2 = Agent::started("sparse-s2", &repo.root);
    s1.bash("echo note > notes.txt");
    // Only what the command made: nothing of the files the cone leaves out.
    let recovered = recover_json(&repo.root, &[]).to_string();
    assert!(recovered.contains("notes.txt"), "{recovered}");
    assert!(!recovered.contains("docs/"), "{recovered}");
    s1.bash("mkdir -p docs && printf 'OUTCONE\\n' > docs/d.md");
    s2.bash("git sparse-checkout reapply && rm -rf docs");
    collect_garbage(&repo.root);
    assert!(has_blob(&repo.root, b"OUTCONE\n"));
    let recovered = recover_json(&repo.root, &[]).to_string();
    assert!(!recovered.contains("deep/e.md"), "{recovered}");
    assert_recovers(
        &repo.root,
        &["docs/d.md"],
        &[(repo.root.join("docs/d.md"), b"OUTCONE\n".to_vec())],
    );
}

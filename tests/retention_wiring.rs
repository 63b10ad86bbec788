//! Retention refs where they matter: before a deletion the guard lets through, and after a
//! commit through the git hooks, so `branch -D` plus `gc` cannot drop unpushed commits.

mod common;

use common::*;

fn unpushed_branch(repo: &TestRepo, name: &str) -> String {
    git(&repo.root, &["checkout", "-q", "-b", name]);
    repo.write(&repo.root, "feature.txt", "work\n");
    git(&repo.root, &["add", "feature.txt"]);
    git(&repo.root, &["commit", "-qm", "unpushed work"]);
    let sha = git_out(&repo.root, &["rev-parse", "HEAD"]);
    git(&repo.root, &["checkout", "-q", "main"]);
    sha
}

fn retention_refs(repo: &TestRepo) -> String {
    git_out(
        &repo.root,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/dibs/retention/",
        ],
    )
}

#[test]
fn a_bypassed_branch_deletion_keeps_its_commits_through_gc() {
    let repo = TestRepo::new();
    let sha = unpushed_branch(&repo, "feat");
    let run = hook(
        &repo.root,
        &bash_event("s1", &repo.root, "WT_GUARD_BYPASS=1 git branch -D feat"),
    );
    assert_eq!(run.code, 0);
    assert!(!run.stdout.contains("deny"), "bypassed: {}", run.stdout);
    let refs = retention_refs(&repo);
    assert!(
        refs.contains(&format!("refs/dibs/retention/feat/{} {sha}", &sha[..7])),
        "{refs}"
    );

    git(&repo.root, &["branch", "-D", "feat"]);
    git(&repo.root, &["reflog", "expire", "--expire=now", "--all"]);
    git(&repo.root, &["gc", "-q", "--prune=now"]);
    assert_eq!(git_out(&repo.root, &["cat-file", "-t", &sha]), "commit");
}

#[test]
fn a_refused_deletion_leaves_no_retention_ref_behind() {
    let repo = TestRepo::new();
    unpushed_branch(&repo, "feat");
    let run = hook(
        &repo.root,
        &bash_event("s1", &repo.root, "git branch -D feat"),
    );
    assert!(run.stdout.contains("deny"), "{}", run.stdout);
    assert_eq!(
        retention_refs(&repo),
        "",
        "the branch itself still holds the commits"
    );
}

#[test]
fn a_commit_through_the_git_hooks_is_retained_until_pushed() {
    let repo = TestRepo::new();
    let path = install_git_hooks(&repo.root);
    repo.write(&repo.root, "new.txt", "x\n");
    git(&repo.root, &["add", "new.txt"]);
    let commit = git_command(&repo.root)
        .args(["commit", "-qm", "local only"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        commit.status.success(),
        "{}",
        String::from_utf8_lossy(&commit.stderr)
    );
    let sha = git_out(&repo.root, &["rev-parse", "HEAD"]);
    assert!(
        retention_refs(&repo).contains(&sha),
        "{}",
        retention_refs(&repo)
    );

    git(&repo.root, &["push", "-q", "origin", "main"]);
    git(
        &repo.root,
        &["commit", "-q", "--allow-empty", "-m", "second"],
    );
    let out = dibs(&repo.root, &["lane", "retain", "--sweep"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!retention_refs(&repo).contains(&sha), "dropped once pushed");
}

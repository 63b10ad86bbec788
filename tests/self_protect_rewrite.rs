//! History rewriters whose ref selection reaches `refs/dibs/` are refused
//! (`[guard:self-protect]`, red team 6/02): `git filter-branch … -- --all` rewrites the snapshot
//! chains and retention refs, and `git filter-repo` does so unless `--refs` limits it. Naming
//! the refs to rewrite, and reading every ref (`git log --all`), stay silent.

mod common;

use common::*;

const ME: &str = "aaaaaaaa-1111-4111-8111-111111111111";

fn decision(repo: &TestRepo, command: &str) -> (String, String) {
    let run = bash_hook_env(&repo.root, ME, command, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    match hook_decision(&run) {
        None => ("silent".to_owned(), String::new()),
        Some((d, reason, _)) => {
            assert!(
                reason.contains("[guard:self-protect]"),
                "{command}: {reason}"
            );
            (d, reason)
        }
    }
}

#[test]
fn rewriters_reaching_refs_dibs_are_refused() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    git(
        &repo.root,
        &[
            "config",
            "alias.scrub",
            "filter-branch -f --index-filter true -- --all",
        ],
    );
    let before = git(&repo.root, &["for-each-ref", "refs/dibs"]).stdout;
    for cmd in [
        "git filter-branch -f --index-filter 'git rm -r -q --cached --ignore-unmatch -- \"*.env\"' -- --all",
        "git filter-branch --tree-filter 'rm -f x' -- --glob='refs/*'",
        "git filter-branch -f -- --glob=dibs",
        "git filter-branch -f -- main --all",
        "git filter-branch -f --env-filter true -- --exclude='refs/heads/*' --all",
        "git filter-branch -f -- --exclude='refs/dibs/*' --branches --all",
        "git filter-branch -f --original refs/dibs -- main",
        "git -C src filter-branch -f -- --all",
        "git -c core.quotepath=off --no-pager filter-branch -f -- --all",
        "FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f -- --all",
        "sh -c 'git filter-branch -f -- --all'",
        "/usr/lib/git-core/git-filter-branch -f -- --all",
        "git scrub",
        "git filter-repo --path secrets.env --invert-paths --force",
        "git filter-repo --force --refs refs/dibs/snapshots/x",
        "git-filter-repo --replace-text /tmp/words",
    ] {
        assert_eq!(decision(&repo, cmd).0, "deny", "{cmd}");
    }
    let (d, _) = decision(&repo, "git filter-branch -f -- $REFS");
    assert_eq!(d, "ask");
    let (_, reason) = decision(
        &repo,
        "git filter-branch -f --index-filter 'git rm -q --cached --ignore-unmatch prod.env' -- --all",
    );
    insta::assert_snapshot!("self_protect_filter_branch", reason);
    let (_, reason) = decision(&repo, "git filter-repo --path prod.env --invert-paths");
    insta::assert_snapshot!("self_protect_filter_repo", reason);
    assert_eq!(
        git(&repo.root, &["for-each-ref", "refs/dibs"]).stdout,
        before
    );
}

#[test]
fn rewriting_named_refs_and_reading_all_refs_stay_silent() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    for cmd in [
        "git filter-branch -f --index-filter true -- main",
        "git filter-branch -f --msg-filter cat -- --branches --tags",
        "git filter-branch -f -- --exclude='refs/dibs/*' --all",
        "git filter-branch -f -- --glob='refs/heads/*'",
        "git filter-branch -f -- main --not --all",
        "git filter-repo --refs main --path x --invert-paths",
        "git filter-repo --analyze",
        "git log --all --oneline",
        "git rev-list --all",
        "git log --glob='refs/*'",
        "git fsck",
        "git for-each-ref refs/dibs",
    ] {
        assert_eq!(decision(&repo, cmd).0, "silent", "{cmd}");
    }
}

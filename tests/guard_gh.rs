//! The GitHub CLI's branch-deleting forms are judged as the git commands they run (red-team 3
//! finding 25): `gh pr close N --delete-branch` as `git push --delete` plus `git branch -D` of
//! the pull request's branch, `gh pr merge N -d` as `git branch -D`, `gh api -X DELETE
//! repos/O/R/git/refs/heads/B` as `git push --delete`; a branch that cannot be known offline
//! (gh failing, a GraphQL `deleteRef`) is asked while unpushed work is in reach; `gh repo
//! delete` is always asked. A stub `gh` on PATH stands for GitHub, as in the other gh tests.

mod common;
mod guard_support;

use std::path::Path;

use common::snap::answer;
use common::*;
use guard_support::*;

/// A `gh` that knows pull requests 12 (`feat`), 13 (`pushed`) and 14 (`remote-only`).
const GH: &str = r#"case "$1 $2 $3" in
  "pr view 12"|"pr view https://github.com/acme/widgets/pull/12") echo '{"headRefName":"feat"}';;
  "pr view 13") echo '{"headRefName":"pushed"}';;
  "pr view 14") echo '[{"headRefName":"remote-only"}]';;
  "pr list "*) echo '[]';;
  *) exit 1;;
esac"#;

fn verdict(cwd: &Path, path: &str, cmd: &str) -> (String, String) {
    let run = bash_env(cwd, cmd, &[("PATH", path)]);
    assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
    match decision(&run) {
        Some((d, reason, _)) => (d, reason),
        None => {
            assert_eq!(run.stdout, "", "{cmd}");
            ("allow".into(), String::new())
        }
    }
}

/// `feat`: pushed with a pull request, then one more commit that is on no remote.
fn feature_branch(r: &Path) {
    git(r, &["checkout", "-q", "-b", "feat"]);
    commit_in(r, "f.txt", "feature");
    git(r, &["push", "-q", "-u", "origin", "feat"]);
    commit_in(r, "f.txt", "feature, more (unpushed)");
    git(r, &["checkout", "-q", "main"]);
}

#[test]
fn gh_deleting_a_pull_requests_branch_is_judged_as_the_git_deletions() {
    let f = fixture();
    let r = &f.repo.root;
    feature_branch(r);
    remote_only_branch(&f);
    // The push URL names the GitHub repository, as a clone of it does.
    git(
        r,
        &[
            "remote",
            "set-url",
            "--push",
            "origin",
            "git@github.com:acme/widgets.git",
        ],
    );
    let path = stub_gh(&f.base, GH);
    for cmd in [
        "gh pr close 12 --delete-branch",
        "gh pr close -d 12",
        "gh pr close 12 -c done -d",
        "gh pr close feat -d",
        "gh pr merge 12 --delete-branch",
        "gh pr merge -sd 12",
        "gh pr merge --squash --delete-branch=true 12",
        "gh pr merge https://github.com/acme/widgets/pull/12 -d",
        "/usr/bin/env gh pr merge 12 -d",
        "bash -c 'gh pr close 12 -d'",
    ] {
        let (d, reason) = verdict(r, &path, cmd);
        assert_eq!(d, "deny", "{cmd}: {reason}");
        assert!(
            reason.contains("[guard:branch-unpushed]") && reason.contains("feat"),
            "{cmd}: {reason}"
        );
    }
    // The current branch when none is named.
    git(r, &["checkout", "-q", "feat"]);
    let (d, reason) = verdict(r, &path, "gh pr close -d");
    assert_eq!(d, "deny", "{reason}");
    git(r, &["checkout", "-q", "main"]);
    // A remote branch holding the only copy of commits: closing its pull request and deleting
    // it loses them; through the REST API too, by this repository's name or gh's placeholders.
    for cmd in [
        "gh pr close 14 -d",
        "gh api -X DELETE repos/acme/widgets/git/refs/heads/remote-only",
        "gh api --method DELETE /repos/{owner}/{repo}/git/refs/heads/remote-only",
        "gh api repos/ACME/Widgets/git/refs/heads/remote-only -XDELETE",
        "gh api --method=delete https://api.github.com/repos/acme/widgets/git/refs/heads/remote%2Donly",
    ] {
        let (d, reason) = verdict(r, &path, cmd);
        assert_eq!(d, "deny", "{cmd}: {reason}");
        assert!(
            reason.contains("[guard:remote-branch]") && reason.contains("only on the remote"),
            "{cmd}: {reason}"
        );
    }
    // Another repository's branch: never fetched here, so unknown.
    let (d, reason) = verdict(
        r,
        &path,
        "gh api -X DELETE repos/other/repo/git/refs/heads/x",
    );
    assert_eq!(d, "ask", "{reason}");
    assert!(reason.contains("[guard:remote-unknown]"), "{reason}");
}

#[test]
fn a_branch_only_github_can_name_is_asked_while_unpushed_work_is_in_reach() {
    let f = fixture();
    let r = &f.repo.root;
    let offline = stub_gh(&f.base, "exit 1");
    for cmd in [
        "gh pr close 12 -d",
        "gh pr merge 99 --delete-branch",
        "gh api graphql -f query='mutation { deleteRef(input: {refId: \"REF_x\"}) { clientMutationId } }'",
    ] {
        let (d, reason) = verdict(r, &offline, cmd);
        assert_eq!(d, "ask", "{cmd}: {reason}");
        assert!(
            reason.contains("[guard:gh-branch-unknown]") && reason.contains("topic"),
            "{cmd}: {reason}"
        );
    }
    // Nothing unpushed in reach: silent.
    let solo = f.base.join("solo");
    git(
        &f.base,
        &["clone", "-q", f.repo.remote.to_str().unwrap(), "solo"],
    );
    let (d, reason) = verdict(&solo, &offline, "gh pr close 12 -d");
    assert_eq!(d, "allow", "{reason}");
}

#[test]
fn gh_repo_delete_is_put_to_the_person() {
    let f = fixture();
    let r = &f.repo.root;
    let path = stub_gh(&f.base, GH);
    for cmd in ["gh repo delete", "gh repo delete acme/widgets --yes"] {
        let (d, reason) = verdict(r, &path, cmd);
        assert_eq!(d, "ask", "{cmd}: {reason}");
        assert!(reason.contains("[guard:gh-repo-delete]"), "{reason}");
    }
}

#[test]
fn everyday_gh_stays_silent() {
    let f = fixture();
    let r = &f.repo.root;
    feature_branch(r);
    let path = stub_gh(&f.base, GH);
    for cmd in [
        "gh pr create --fill",
        "gh pr view 12",
        "gh pr list",
        "gh pr merge 12",
        "gh pr merge 12 --squash",
        "gh pr merge 12 --delete-branch=false",
        "gh pr close 12",
        "gh pr close 12 -c 'not needed'",
        // A pushed branch whose pull request is merged: nothing is lost.
        "gh pr merge 13 -d",
        "gh pr close 13 --delete-branch",
        "gh api repos/acme/widgets/pulls",
        "gh api -X DELETE repos/acme/widgets/git/refs/tags/v1",
        "gh api graphql -f query='{ viewer { login } }'",
    ] {
        let (d, reason) = verdict(r, &path, cmd);
        assert_eq!(d, "allow", "{cmd}: {reason}");
    }
}

#[test]
fn messages_name_the_branch_and_what_it_holds() {
    let f = fixture();
    let r = &f.repo.root;
    feature_branch(r);
    let path = stub_gh(&f.base, GH);
    let offline = stub_gh(&f.base.join("offline"), "exit 1");
    let shown = |cmd: &str, path: &str| {
        let run = bash_env(r, cmd, &[("PATH", path), ("DIBS_NOW", common::snap::NOW)]);
        common::snap::redact_ids(r, &answer(&f.repo, &run))
    };
    insta::assert_snapshot!("gh_pr_close_delete", shown("gh pr close 12 -d", &path));
    insta::assert_snapshot!(
        "gh_pr_offline",
        shown("gh pr merge 12 --delete-branch", &offline)
    );
    insta::assert_snapshot!("gh_repo_delete", shown("gh repo delete", &path));
}

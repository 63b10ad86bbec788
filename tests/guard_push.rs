//! A forced push over a remote branch whose remote-tracking tip holds commits no other ref has
//! is refused in every spelling (`-f`, `+SRC:DST`, `--force-with-lease[=…]`,
//! `--force-if-includes`, `HEAD:`, `refs/heads/`, `-c remote.origin.push=+…`, a bare `git push`
//! through a configured `+` refspec); one that cannot be judged is asked; everyday pushes,
//! including a lease over your own amended branch, stay silent. And by state, whatever the
//! spelling: after a shell command a remote-tracking ref that moved other than forward keeps its
//! old tip on a retention ref, which `git dibs recover` lists (red-team finding 00d).

mod common;
mod recover_support;

use common::*;
use recover_support::{Agent, collect_garbage};

/// A clone whose `feature` lives only on the remote (pushed, then deleted here), and an own
/// branch `mine`, pushed then amended.
fn setup() -> (TestRepo, String) {
    let repo = TestRepo::new();
    let r = &repo.root;
    git(r, &["checkout", "-q", "-b", "feature"]);
    repo.write(r, "f.txt", "feature\n");
    git(r, &["add", "f.txt"]);
    git(r, &["commit", "-qm", "s1 feature"]);
    git(r, &["push", "-q", "-u", "origin", "feature"]);
    let lost = git_out(r, &["rev-parse", "HEAD"]);
    git(r, &["checkout", "-q", "main"]);
    git(r, &["branch", "-q", "-D", "feature"]);
    git(r, &["checkout", "-q", "-b", "mine"]);
    repo.write(r, "m.txt", "mine\n");
    git(r, &["add", "m.txt"]);
    git(r, &["commit", "-qm", "mine"]);
    git(r, &["push", "-q", "-u", "origin", "mine"]);
    git(r, &["commit", "-q", "--amend", "-m", "mine, amended"]);
    (repo, lost)
}

fn answer(repo: &TestRepo, cmd: &str) -> (String, String) {
    let run = hook(&repo.root, &bash_event("s2", &repo.root, cmd));
    assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
    match hook_decision(&run) {
        Some((d, reason, _)) => (d, reason),
        None => ("allow".into(), String::new()),
    }
}

#[test]
fn a_force_push_over_the_only_copy_is_refused_in_every_spelling() {
    let (repo, lost) = setup();
    for cmd in [
        "git push -f origin main:feature",
        "git push --force origin main:feature",
        "git push origin +main:feature",
        "git push --force-with-lease origin main:feature",
        "git push --force-with-lease=feature origin main:feature",
        "git push --force-with-lease --force-if-includes origin main:feature",
        "git push -f origin HEAD:feature",
        "git push -f origin main:refs/heads/feature",
        "git push --repo=origin -f main:feature",
        "git -c remote.origin.push=+main:feature push",
        "git push -q -f -u origin main:feature",
        "git push --force-w origin main:feature",
        "git push origin main:feature --force",
        "git send-pack --force origin main:feature",
        "git send-pack --force ../remote.git main:feature",
        "git push -f ../remote.git main:feature",
    ] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "deny", "{cmd}: {reason}");
        assert!(reason.contains("[guard:force-push]"), "{cmd}: {reason}");
        assert!(
            reason.contains(&lost[..8]),
            "{cmd} names the commit: {reason}"
        );
        assert!(reason.contains("origin/feature"), "{cmd}: {reason}");
    }
    // A `+` in the configured push refspec forces a bare `git push` and `git push origin`.
    git(
        &repo.root,
        &["config", "remote.origin.push", "+main:feature"],
    );
    for cmd in ["git push", "git push origin"] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "deny", "{cmd}: {reason}");
    }
}

#[test]
fn everyday_pushes_stay_silent() {
    let (repo, _) = setup();
    let r = &repo.root;
    git(r, &["checkout", "-q", "mine"]);
    // `-f --all` pushes main and mine over themselves; feature is no local branch.
    for cmd in [
        "git push -f --all origin",
        "git push -f origin 'refs/heads/*:refs/heads/*'",
    ] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "allow", "{cmd}: {reason}");
    }
    git(r, &["branch", "fresh"]);
    for cmd in [
        "git push",
        "git push origin",
        "git push -u origin mine",
        "git push origin mine",
        "git push origin HEAD",
        "git push --tags",
        // Your own branch, amended: the commit it drops was this branch's own.
        "git push --force-with-lease",
        "git push --force-with-lease origin mine",
        "git push -f origin mine",
        "git push --force-with-lease --force-if-includes origin mine",
        // A lease on a branch the remote lacks: git writes nothing over.
        "git push --force-with-lease origin fresh",
        "git push -n -f origin main:feature",
        "git push --dry-run -f origin main:feature",
    ] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "allow", "{cmd}: {reason}");
    }
}

#[test]
fn a_force_push_that_cannot_be_judged_is_asked() {
    let (repo, _) = setup();
    let r = &repo.root;
    git(r, &["checkout", "-q", "-b", "fresh"]);
    // Never fetched here, and the remote has no such branch: nothing there to lose
    // (red-team 2: `git push -f` of a branch never pushed was a false alarm).
    for cmd in [
        "git push -f origin fresh",
        "git push -f -u origin HEAD",
        "git push origin +fresh:elsewhere",
    ] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "allow", "{cmd}: {reason}");
    }
    // Another clone pushed `theirs`, never fetched here: the remote holds a commit not here.
    let base = repo.tmp.path().canonicalize().unwrap();
    git(
        &base,
        &["clone", "-q", repo.remote.to_str().unwrap(), "other"],
    );
    let other = base.join("other");
    git(&other, &["checkout", "-q", "-b", "theirs"]);
    repo.write(&other, "t.txt", "theirs\n");
    git(&other, &["add", "t.txt"]);
    git(&other, &["commit", "-qm", "their work"]);
    git(&other, &["push", "-q", "origin", "theirs"]);
    git(r, &["remote", "add", "gone", "/nonexistent/remote.git"]);
    for cmd in [
        "git push -f origin fresh:theirs",
        "git push origin +HEAD:refs/heads/theirs",
        // A remote that does not answer.
        "git push -f gone fresh",
        // A source that names no commit here.
        "git push -f origin nosuchref:mine",
    ] {
        let (d, reason) = answer(&repo, cmd);
        assert_eq!(d, "ask", "{cmd}: {reason}");
        assert!(reason.contains("[guard:force-push-unknown]"), "{reason}");
    }
    let (_, reason) = answer(&repo, "git push -f origin fresh:theirs");
    assert!(reason.contains("origin/theirs holds"), "{reason}");
    // Once fetched, it is judged from what it holds: their commit would go.
    git(r, &["fetch", "-q", "origin"]);
    let (d, reason) = answer(&repo, "git push -f origin fresh:theirs");
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains("their work"), "{reason}");
}

#[test]
fn a_peers_commit_on_your_own_branch_is_not_rewritten_away() {
    // Someone else pushed onto `mine`; we fetched it, then amended our own commit: a lease
    // push drops their commit too.
    let (repo, _) = setup();
    let r = &repo.root;
    let base = repo.tmp.path().canonicalize().unwrap();
    git(
        &base,
        &["clone", "-q", repo.remote.to_str().unwrap(), "other"],
    );
    let other = base.join("other");
    git(&other, &["checkout", "-q", "mine"]);
    std::fs::write(other.join("theirs.txt"), "theirs\n").unwrap();
    git(&other, &["add", "theirs.txt"]);
    git(&other, &["commit", "-qm", "their commit"]);
    git(&other, &["push", "-q", "origin", "mine"]);
    let theirs = git_out(&other, &["rev-parse", "HEAD"]);
    git(r, &["fetch", "-q", "origin"]);
    let (d, reason) = answer(&repo, "git push --force-with-lease origin mine");
    assert_eq!(d, "deny", "{reason}");
    assert!(reason.contains(&theirs[..8]), "{reason}");
    assert!(reason.contains("their commit"), "{reason}");
}

#[test]
fn a_remote_tracking_ref_moved_other_than_forward_keeps_its_old_tip_for_recover() {
    // Bypassed force push: the old tip of origin/feature is kept, through gc, and listed.
    let (repo, lost) = setup();
    let r = &repo.root;
    git(r, &["checkout", "-q", "main"]);
    let s2 = Agent::new("s2", r);
    s2.bash("git status");
    s2.bash("WT_GUARD_BYPASS=1 git push -q -f origin main:feature");
    collect_garbage(r);
    assert_eq!(git_out(r, &["cat-file", "-t", &lost]), "commit");
    let listing = out_text(&dibs(r, &["recover"]));
    assert!(
        listing.contains(&lost[..7]) && listing.contains("git branch feature"),
        "{listing}"
    );

    // A fetch after someone else force-pushed over a branch we had fetched.
    let base = repo.tmp.path().canonicalize().unwrap();
    git(
        &base,
        &["clone", "-q", repo.remote.to_str().unwrap(), "other"],
    );
    let other = base.join("other");
    git(&other, &["checkout", "-q", "-b", "shared"]);
    std::fs::write(other.join("s.txt"), "shared\n").unwrap();
    git(&other, &["add", "s.txt"]);
    git(&other, &["commit", "-qm", "shared work"]);
    git(&other, &["push", "-q", "origin", "shared"]);
    let shared = git_out(&other, &["rev-parse", "HEAD"]);
    s2.bash("git fetch -q origin");
    git(&other, &["push", "-q", "-f", "origin", "main:shared"]);
    s2.bash("git fetch -q origin");
    collect_garbage(r);
    assert_eq!(git_out(r, &["cat-file", "-t", &shared]), "commit");
    let refs = git_out(
        r,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/dibs/retention/",
        ],
    );
    assert!(
        refs.contains(&format!(
            "refs/dibs/retention/remotes/origin/shared/{}",
            &shared[..7]
        )),
        "{refs}"
    );

    // A remote-tracking ref that moves forward keeps nothing new.
    let before = refs.lines().count();
    std::fs::write(other.join("s2.txt"), "more\n").unwrap();
    git(&other, &["add", "s2.txt"]);
    git(&other, &["commit", "-qm", "forward"]);
    git(&other, &["push", "-q", "origin", "HEAD:shared"]);
    s2.bash("git fetch -q origin");
    let after = git_out(
        r,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/dibs/retention/",
        ],
    );
    assert_eq!(after.lines().count(), before, "{after}");
}

#[test]
fn a_remote_tracking_ref_deleted_by_any_spelling_keeps_its_only_copy() {
    for cmd in [
        "git branch -r -D origin/feature",
        "git update-ref -d refs/remotes/origin/feature",
        "git remote remove origin",
    ] {
        let (repo, lost) = setup();
        let r = &repo.root;
        let s2 = Agent::new("s2", r);
        s2.bash("git status");
        s2.bash(cmd);
        collect_garbage(r);
        assert_eq!(git_out(r, &["cat-file", "-t", &lost]), "commit", "{cmd}");
        let listing = out_text(&dibs(r, &["recover"]));
        assert!(listing.contains(&lost[..7]), "{cmd}: {listing}");
    }
}

//! What only a stash or a remote-tracking ref holds, kept through a prune: a stash commit an
//! agent's command made gets `refs/dibs/stash/<short sha>` (its untracked-files parent kept
//! with it) and `recover` names it with the command that brings it back; before a line that
//! may expire reflogs or prune, a remote-tracking ref moved by a hook-less fetch has its old tip
//! kept, and one the line itself fetches first has its tip kept before it runs. Everyday
//! commands stay silent and make no ref.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::json;

/// One agent command through the hooks: PreToolUse (its answer returned), the command under
/// `bash -c` in `cwd`, then PostToolUse.
fn run_line(cwd: &Path, command: &str) -> String {
    let pre = hook(cwd, &bash_event("s1", cwd, command));
    assert_eq!(pre.code, 0);
    let out = Command::new("bash")
        .args(["-c", command])
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {}", out_text(&out));
    let post = claude_event(
        "PostToolUse",
        "s1",
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command},
               "tool_response": {"stdout": "", "stderr": ""}}),
    );
    let run = hook(cwd, &post);
    assert_eq!(run.code, 0);
    assert_eq!(run.stderr, "", "{command}: PostToolUse said something");
    pre.stdout
}

fn refs(dir: &Path, prefix: &str) -> String {
    git_out(
        dir,
        &["for-each-ref", "--format=%(refname) %(objectname)", prefix],
    )
}

fn prune_everything(dir: &Path) {
    git(dir, &["reflog", "expire", "--expire=now", "--all"]);
    git(dir, &["gc", "-q", "--prune=now"]);
}

/// The agent's command makes a file and edits another, then stashes both (`-u`).
fn stash_made_by_command(repo: &TestRepo) -> String {
    run_line(
        &repo.root,
        "echo 'stashed precious new' > gen.txt && echo 'stashed edit' >> README.md && git stash -q -u",
    );
    git_out(&repo.root, &["rev-parse", "refs/stash"])
}

#[test]
fn a_stash_made_by_a_command_survives_drop_and_gc() {
    for drop in ["drop", "clear"] {
        let repo = TestRepo::new();
        let stash = stash_made_by_command(&repo);
        let kept = refs(&repo.root, "refs/dibs/stash/");
        assert_eq!(kept, format!("refs/dibs/stash/{} {stash}", &stash[..7]));
        assert_eq!(refs(&repo.root, "refs/dibs/retention/"), "", "not a branch");

        git(&repo.root, &["stash", drop]);
        prune_everything(&repo.root);
        // The untracked file is in the stash's third parent: kept with the stash commit.
        assert_eq!(
            git_out(&repo.root, &["show", &format!("{stash}^3:gen.txt")]),
            "stashed precious new"
        );
        let listing = out_text(&dibs(&repo.root, &["recover"]));
        // git stash reads digits alone as an entry number: recover names such a commit whole.
        let short = match &stash[..7] {
            s if s.bytes().all(|b| b.is_ascii_digit()) => stash.as_str(),
            s => s,
        };
        assert!(
            listing.contains(&format!("stash commit {short}"))
                && listing.contains(&format!("git stash apply {short}")),
            "{listing}"
        );
        // The command it names brings both files back.
        git(&repo.root, &["stash", "apply", "-q", short]);
        assert_eq!(
            std::fs::read_to_string(repo.root.join("gen.txt")).unwrap(),
            "stashed precious new\n"
        );
        assert!(
            std::fs::read_to_string(repo.root.join("README.md"))
                .unwrap()
                .contains("stashed edit")
        );
    }
}

#[test]
fn a_stash_still_listed_is_not_offered_by_recover_and_two_in_one_line_are_both_kept() {
    let repo = TestRepo::new();
    run_line(
        &repo.root,
        "echo one > a.txt && git stash -q -u && echo two > b.txt && git stash -q -u",
    );
    let kept = refs(&repo.root, "refs/dibs/stash/");
    assert_eq!(kept.lines().count(), 2, "{kept}");
    let listing = out_text(&dibs(&repo.root, &["recover"]));
    assert!(!listing.contains("stash commit"), "{listing}");
}

#[test]
fn an_old_stash_dropped_goes_and_an_old_one_is_never_kept() {
    let repo = TestRepo::new();
    // A stash made long before the snapshot expiry (30 days ago).
    repo.write(&repo.root, "old.txt", "old\n");
    let old = git_command(&repo.root)
        .args(["stash", "-q", "-u"])
        .env("GIT_COMMITTER_DATE", "@1000000000 +0000")
        .env("GIT_AUTHOR_DATE", "@1000000000 +0000")
        .output()
        .unwrap();
    assert!(old.status.success());
    let old = git_out(&repo.root, &["rev-parse", "refs/stash"]);
    // A ref of an old stash that is in no entry any more.
    git(&repo.root, &["update-ref", "refs/dibs/stash/0ld", &old]);
    git(&repo.root, &["stash", "drop", "-q"]);
    let fresh = stash_made_by_command(&repo);
    assert_eq!(
        refs(&repo.root, "refs/dibs/stash/"),
        format!("refs/dibs/stash/{} {fresh}", &fresh[..7])
    );
}

#[test]
fn popping_ones_own_stash_keeps_the_commit_until_expiry() {
    // Decided: a pop may stop on a conflict halfway; the kept commit costs nothing and goes
    // with the snapshot expiry. `recover` names it (it is in no entry).
    let repo = TestRepo::new();
    let stash = stash_made_by_command(&repo);
    run_line(&repo.root, "git stash pop -q");
    assert!(refs(&repo.root, "refs/dibs/stash/").contains(&stash));
    assert!(std::fs::read_to_string(repo.root.join("gen.txt")).is_ok());
}

/// A pushed commit whose local branch went, then the remote branch force-pushed away from
/// another clone. Returns the commit.
fn left_on_remote_only(repo: &TestRepo) -> String {
    run_line(
        &repo.root,
        "git checkout -q -b feature && echo feat > feat.txt && git add feat.txt && git commit -qm 'feature precious commit' && git push -q -u origin feature && git checkout -q main && git branch -q -D feature",
    );
    let commit = git_out(&repo.root, &["rev-parse", "origin/feature"]);
    let other = repo.root.parent().unwrap().join("other");
    git(
        repo.root.parent().unwrap(),
        &["clone", "-q", repo.remote.to_str().unwrap(), "other"],
    );
    git(
        &other,
        &[
            "push",
            "-q",
            "-f",
            "origin",
            "origin/main:refs/heads/feature",
        ],
    );
    commit
}

#[test]
fn a_hookless_fetch_then_a_prune_keeps_the_tip_the_fetch_moved_away_from() {
    let repo = TestRepo::new();
    let commit = left_on_remote_only(&repo);
    git(&repo.root, &["fetch", "-q", "origin"]); // the IDE's auto-fetch: no hook
    let answer = run_line(
        &repo.root,
        "git reflog expire --expire=now --all && git gc -q --prune=now",
    );
    assert!(
        !answer.contains("deny") && !answer.contains("ask"),
        "{answer}"
    );
    assert_eq!(git_out(&repo.root, &["cat-file", "-t", &commit]), "commit");
    assert!(refs(&repo.root, "refs/dibs/retention/remotes/origin/feature/").contains(&commit));
}

#[test]
fn a_fetch_and_prune_in_one_line_keeps_the_tip_and_nothing_else() {
    for line in [
        "git fetch -q origin && git reflog expire --expire=now --all && git gc -q --prune=now",
        "git pull -q --ff-only && git reflog expire --expire=now --all && git repack -q -a -d && git prune --expire=now",
    ] {
        let repo = TestRepo::new();
        let commit = left_on_remote_only(&repo);
        run_line(&repo.root, line);
        assert_eq!(
            git_out(&repo.root, &["cat-file", "-t", &commit]),
            "commit",
            "{line}"
        );
        // What is still on a remote is not kept once the line ran.
        let kept = refs(&repo.root, "refs/dibs/retention/");
        assert_eq!(kept.lines().count(), 1, "{line}: {kept}");
        assert!(kept.contains(&commit), "{line}: {kept}");
    }
}

#[test]
fn everyday_commands_and_a_prune_with_nothing_moved_stay_silent_and_keep_nothing() {
    let repo = TestRepo::new();
    for line in [
        "git status",
        "git log --oneline -3",
        "git stash list",
        "git gc -q",
        "git fetch -q && git gc -q --prune=now",
    ] {
        let answer = run_line(&repo.root, line);
        assert!(
            !answer.contains("deny") && !answer.contains("ask"),
            "{line}: {answer}"
        );
        assert_eq!(refs(&repo.root, "refs/dibs/retention/"), "", "{line}");
        assert_eq!(refs(&repo.root, "refs/dibs/stash/"), "", "{line}");
    }
}

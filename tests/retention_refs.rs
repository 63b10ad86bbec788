//! Commits an agent makes that no branch holds, kept however they are held or left: on a tag or
//! a ref outside the branches (`refs/wip/…`, as checkpoint tools do), a commit made and reset
//! away within one line that also expires the reflogs (found through `ORIG_HEAD`), the same in a
//! reftable repository (its reflogs are in the table), and a branch set and moved back in a
//! clone with more branches than reflogs used to be looked at. Old tags and a tag of a pushed
//! commit make no ref.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

fn refs(dir: &Path, prefix: &str) -> String {
    git_out(dir, &["for-each-ref", "--format=%(refname)", prefix])
}

/// A plumbing commit of `file` holding `text` on HEAD, made by one line that keeps it with
/// `keep` (`git tag NAME $c`, `git update-ref refs/wip/x $c`).
fn checkpoint(agent: &Agent, file: &str, text: &str, keep: &str) {
    agent.bash(&format!(
        "b=$(echo {text} | git hash-object -w --stdin) && \
         t=$(printf '100644 blob %s\\t{file}\\n' $b | git mktree) && \
         c=$(git commit-tree $t -p HEAD -m checkpoint) && {keep}"
    ));
}

fn exists(dir: &Path, commit: &str) -> bool {
    git_command(dir)
        .args(["cat-file", "-e", commit])
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_commit_kept_only_by_a_tag_or_a_ref_outside_the_branches_survives_its_deletion() {
    let repo = TestRepo::new();
    // A tag made before git-dibs first looked, on a pushed commit: no ref for it.
    git(&repo.root, &["tag", "v0"]);
    let agent = Agent::new("checkpointer", &repo.root);
    checkpoint(&agent, "t.txt", "TAGWORK", "git tag checkpoint-1 $c");
    checkpoint(&agent, "u.txt", "REFWORK", "git update-ref refs/wip/s1 $c");
    let tag = git_out(&repo.root, &["rev-parse", "checkpoint-1"]);
    let wip = git_out(&repo.root, &["rev-parse", "refs/wip/s1"]);
    let kept = refs(&repo.root, "refs/dibs/retention/");
    assert!(
        kept.contains("refs/dibs/retention/refs/tags/checkpoint-1/"),
        "{kept}"
    );
    assert!(kept.contains("refs/dibs/retention/refs/wip/s1/"), "{kept}");
    assert!(!kept.contains("v0"), "{kept}");
    // An annotated tag of a pushed commit is on a remote: nothing kept.
    agent.bash("git tag -a -m release v1 HEAD");
    assert!(!refs(&repo.root, "refs/dibs/retention/").contains("v1"));
    // While the tag is there, recover lists nothing for it.
    let (_, out, _) = recover(&repo.root, &[]);
    assert!(!out.contains("checkpoint-1"), "{out}");
    agent.bash("git tag -d checkpoint-1 && git update-ref -d refs/wip/s1");
    collect_garbage(&repo.root);
    assert!(exists(&repo.root, tag.trim()) && exists(&repo.root, wip.trim()));
    let (_, out, _) = recover(&repo.root, &[]);
    let short = |id: &str| id.trim()[..7].to_owned();
    assert!(
        out.contains(&format!("git tag checkpoint-1 {}", short(&tag))),
        "{out}"
    );
    assert!(
        out.contains(&format!("git update-ref refs/wip/s1 {}", short(&wip))),
        "{out}"
    );
}

/// A commit made and reset away by one line ending with `tail`, in `root`; its id.
fn commit_and_reset(agent: &Agent, tail: &str) -> String {
    agent.bash(&format!(
        "echo ONELINE > s.txt && git add s.txt && git commit -qm wip && \
         git rev-parse HEAD > ../made && git reset -q --hard HEAD~1{tail}"
    ));
    let made = agent.cwd.parent().unwrap().join("made");
    std::fs::read_to_string(made).unwrap().trim().to_owned()
}

#[test]
fn a_commit_reset_away_by_a_line_that_also_expires_the_reflogs_is_kept() {
    let repo = TestRepo::new();
    let agent = Agent::new("one-liner", &repo.root);
    agent.bash("true");
    let made = commit_and_reset(&agent, " && git reflog expire --expire=now --all");
    collect_garbage(&repo.root);
    assert!(exists(&repo.root, &made), "the commit was not kept");
    assert_eq!(
        git_out(&repo.root, &["show", &format!("{made}:s.txt")]),
        "ONELINE"
    );
}

#[test]
fn a_commit_reset_away_in_a_reftable_repository_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let root: PathBuf = base.join("repo");
    if !git_command(&base)
        .args(["init", "-q", "-b", "main", "--ref-format=reftable", "repo"])
        .status()
        .unwrap()
        .success()
    {
        eprintln!("skipped: the installed git cannot make a reftable repository");
        return;
    }
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "init"]);
    let agent = Agent::new("reftable-one-liner", &root);
    agent.bash("true");
    let made = commit_and_reset(&agent, "");
    collect_garbage(&root);
    assert!(exists(&root, &made), "the commit was not kept");
    // And with the reflogs expired in the same line.
    let again = commit_and_reset(&agent, " && git reflog expire --expire=now --all");
    collect_garbage(&root);
    assert!(exists(&root, &again), "the second commit was not kept");
}

#[test]
fn a_branch_set_and_moved_back_in_one_line_is_kept_past_hundreds_of_branches() {
    let repo = TestRepo::new();
    let head = git_out(&repo.root, &["rev-parse", "HEAD"]);
    // 400 branches with reflogs, made as a script would.
    let mut input = String::new();
    for i in 0..400 {
        input.push_str(&format!("create refs/heads/b{i:03} {}", head.trim()));
        input.push('\n');
    }
    let mut cmd = git_command(&repo.root);
    cmd.args(["update-ref", "--create-reflog", "--stdin"])
        .stdin(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let agent = Agent::new("brancher", &repo.root);
    agent.bash("true");
    let mut made = Vec::new();
    for b in ["b000", "b399", "b250"] {
        agent.bash(&format!(
            "c=$(git commit-tree HEAD^{{tree}} -p HEAD -m 'on {b}') && echo $c > ../made && \
             git branch -f {b} $c && git branch -f {b} main"
        ));
        let id = std::fs::read_to_string(repo.root.parent().unwrap().join("made")).unwrap();
        made.push(id.trim().to_owned());
    }
    collect_garbage(&repo.root);
    for id in made {
        assert!(exists(&repo.root, &id), "{id} was not kept");
    }
}

#[test]
fn a_commit_whose_short_id_names_another_commits_retention_ref_is_kept_under_its_full_id() {
    let repo = TestRepo::new();
    let dated = "GIT_AUTHOR_DATE='1796170000 +0000' GIT_COMMITTER_DATE='1796170000 +0000' \
                 git commit -q --allow-empty -m wip";
    // The id the agent's commit will have (same tree, parent, dates and message).
    sh(&repo.root, dated);
    let made = git_out(&repo.root, &["rev-parse", "HEAD"]);
    sh(&repo.root, "git reset -q --hard HEAD~1");
    // Another unpushed commit is kept under the name the short id gives (two ids sharing
    // seven digits).
    sh(
        &repo.root,
        "git branch side $(git commit-tree HEAD^{tree} -p HEAD -m other)",
    );
    let other = git_out(&repo.root, &["rev-parse", "side"]);
    let taken = format!("refs/dibs/retention/main/{}", &made[..7]);
    git(&repo.root, &["update-ref", &taken, &other]);
    let agent = Agent::new("collider", &repo.root);
    agent.bash(dated);
    assert_eq!(git_out(&repo.root, &["rev-parse", "HEAD"]), made);
    let full = format!("refs/dibs/retention/main/{made}");
    let kept = refs(&repo.root, "refs/dibs/");
    assert!(kept.contains(&full), "{kept}");
    assert_eq!(git_out(&repo.root, &["rev-parse", &taken]), other);
    agent.bash("git reset -q --hard HEAD~1");
    collect_garbage(&repo.root);
    assert!(exists(&repo.root, &made));
}

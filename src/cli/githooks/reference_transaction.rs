//! The `reference-transaction` git hook: in the `prepared` state, refuse deleting a local branch
//! (`refs/heads/*`, new value zeros) whose commits would be lost: its tip is on no
//! remote-tracking ref (nor on another local branch or tag, nor kept by the same transaction).
//! This is git's only hook that sees `git branch -D`, `git update-ref -d` and any program's ref
//! deletion. `WT_GUARD_BYPASS=1` lets it through; blocks and bypasses are audited. In the
//! `committed` state it keeps what a move left held by nothing (see `super::keep`).

use std::io::Read;
use std::process::ExitCode;

use anyhow::Result;

use super::{AuditCommit, AuditLine, Committer, fail_open, git_argv};
use crate::git::hookreads::{Deletion, HookRepo, Lost};

const HOOK: &str = "reference-transaction";
/// How many lost commits a message lists per branch.
const SHOWN: usize = 10;

/// One ref update git announced on stdin: `<old> SP <new> SP <ref>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Update {
    pub(super) old: Option<String>,
    pub(super) new: Option<String>,
    pub(super) name: String,
}

/// Run the hook: exit 1 in `prepared` to abort the transaction, 0 otherwise; in `committed`,
/// keep what the updates may have dropped (`super::keep`).
pub(super) fn run(args: &[String]) -> ExitCode {
    let state = args.first().map(String::as_str);
    if !matches!(state, Some("prepared" | "committed")) {
        return ExitCode::SUCCESS;
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        return fail_open(HOOK, format!("cannot read the ref updates: {e}"));
    }
    let updates = parse(&input);
    if state == Some("committed") {
        super::keep::after_commit(&updates);
        return ExitCode::SUCCESS;
    }
    if !updates.iter().any(is_branch_deletion) {
        return ExitCode::SUCCESS;
    }
    match check(&updates) {
        Ok(code) => code,
        Err(e) => fail_open(HOOK, format!("{e:#}")),
    }
}

/// A deletion of a local branch.
fn is_branch_deletion(u: &Update) -> bool {
    u.new.is_none() && u.name.starts_with("refs/heads/")
}

/// The lines git wrote; malformed lines are skipped, all-zero ids read as `None`.
fn parse(input: &str) -> Vec<Update> {
    let id = |s: &str| (!s.bytes().all(|b| b == b'0')).then(|| s.to_owned());
    input
        .lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let (old, new, name) = (parts.next()?, parts.next()?, parts.next()?);
            if name.is_empty() || old.is_empty() || new.is_empty() {
                return None;
            }
            Some(Update {
                old: id(old),
                new: id(new),
                name: name.to_owned(),
            })
        })
        .collect()
}

/// Whether `argv` is a git command whose ref deletions keep the commits: `git pack-refs` (also
/// run by `gc` and `maintenance`), which moves loose refs into `packed-refs` and then deletes the
/// loose files, and `git branch -m|-M|--move`, which git carries out as a deletion the hook sees
/// and a creation it does not.
fn keeps_commits(argv: &[&str]) -> bool {
    let mut rest = argv.iter().skip(1);
    let mut sub = None;
    while let Some(a) = rest.next() {
        match *a {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                rest.next();
            }
            a if a.starts_with('-') => {}
            a => {
                sub = Some(a);
                break;
            }
        }
    }
    match sub {
        Some("pack-refs") => true,
        Some("branch") => rest.take_while(|a| **a != "--").any(|a| {
            *a == "--move" || (a.starts_with('-') && !a.starts_with("--") && a.contains(['m', 'M']))
        }),
        _ => false,
    }
}

fn check(updates: &[Update]) -> Result<ExitCode> {
    let argv = git_argv();
    let command = argv.join(" ");
    if keeps_commits(&argv.iter().map(String::as_str).collect::<Vec<_>>()) {
        return Ok(ExitCode::SUCCESS);
    }
    let repo = HookRepo::from_env()?;
    let deleted: Vec<Deletion> = updates
        .iter()
        .filter(|u| is_branch_deletion(u))
        .map(|u| Deletion {
            name: u.name.clone(),
            old: u.old.clone(),
        })
        .collect();
    let new_values: Vec<String> = updates.iter().filter_map(|u| u.new.clone()).collect();
    let at_risk = repo.lost_commits(&deleted, &new_values, SHOWN)?;
    if at_risk.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let me = Committer::from_env();
    let cwd = std::env::current_dir().unwrap_or_default();
    let branches: Vec<&str> = at_risk.iter().map(|a| a.branch.as_str()).collect();
    let reason = format!(
        "deleting branch {} would lose commits that are on no remote-tracking ref",
        branches.join(", ")
    );
    let line = AuditLine {
        commits: at_risk
            .iter()
            .flat_map(|a| {
                a.commits.iter().map(|c| AuditCommit {
                    branch: a.branch.clone(),
                    id: c.id.clone(),
                    summary: c.summary.clone(),
                })
            })
            .collect(),
        ..AuditLine::decided(HOOK, &me.id, &cwd, command.clone(), &reason)
    };
    line.write(repo.common_dir());
    if line.is_bypass() {
        eprintln!("git-dibs: WT_GUARD_BYPASS=1: {reason}; deleting anyway, and this is audited");
        return Ok(ExitCode::SUCCESS);
    }
    let remote = repo.first_remote();
    eprintln!("{}", message(&at_risk, remote.as_deref()));
    Ok(ExitCode::from(1))
}

fn message(at_risk: &[Lost], remote: Option<&str>) -> String {
    let mut text = String::new();
    for a in at_risk {
        text.push_str(&format!(
            "git-dibs: refusing to delete branch {}: these commits are on no remote-tracking ref \
             and no other branch, so they would be lost:\n",
            a.branch
        ));
        for c in &a.commits {
            text.push_str(&format!("  {} {}\n", &c.id[..c.id.len().min(7)], c.summary));
        }
        if a.more {
            text.push_str("  ... and more\n");
        }
    }
    let first = &at_risk[0].branch;
    match remote {
        Some(r) => text.push_str(&format!(
            "Push it first (`git push -u {r} {first}`), or merge it into a branch you keep; then \
             delete it."
        )),
        None => text.push_str(
            "This repository has no remote: merge it into a branch you keep (or tag it) first; \
             then delete it.",
        ),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_deletions_and_skips_noise() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let input =
            format!("{z} {z} refs/heads/feat\n{a} {z} refs/heads/x\n{z} {a} HEAD\nbroken\n");
        let u = parse(&input);
        assert_eq!(u.len(), 3);
        assert!(is_branch_deletion(&u[0]) && u[0].old.is_none());
        assert!(is_branch_deletion(&u[1]) && u[1].old.as_deref() == Some(a.as_str()));
        assert!(!is_branch_deletion(&u[2]));
    }

    #[test]
    fn renames_and_packing_are_told_apart_from_deletions() {
        assert!(keeps_commits(&["git", "branch", "-m", "a", "b"]));
        assert!(keeps_commits(&["git", "-C", "x", "branch", "-M", "b"]));
        assert!(keeps_commits(&["git", "branch", "--move", "a", "b"]));
        assert!(keeps_commits(&["git", "pack-refs", "--all", "--prune"]));
        assert!(!keeps_commits(&[
            "git",
            "update-ref",
            "-d",
            "refs/heads/pack-refs"
        ]));
        assert!(!keeps_commits(&["git", "branch", "-D", "a"]));
        assert!(!keeps_commits(&["git", "branch", "-D", "--", "-m"]));
        assert!(!keeps_commits(&["git", "update-ref", "-d", "refs/heads/m"]));
        assert!(!keeps_commits(&["git", "-c", "x=-m", "branch", "-d", "a"]));
    }
}

//! Rule 3: deleting a local branch whose tip is on no remote-tracking ref (`git branch -D`,
//! `--delete --force`, `-d -f`, several names at once; `git update-ref -d refs/heads/NAME`).

use super::{Finding, Guarded, Op, Verdict, list_commits};
use crate::git::CommitInfo;

/// What the guard knows about one local branch a command deletes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchState {
    /// The branch name (without `refs/heads/`).
    pub(crate) name: String,
    /// Its tip, when it exists.
    pub(crate) tip: Option<String>,
    /// Commits of its tip on no remote-tracking ref, newest first.
    pub(crate) unpushed: Vec<CommitInfo>,
}

/// `git branch` forcing a delete or overwriting a branch (`-M`, `-C`, `-f`), `git checkout -B`
/// / `git switch -C` of an existing branch, or `git update-ref -d refs/heads/NAME` and the
/// deletions and updates of `update-ref --stdin` (given as `--stdin-delete NAME`).
pub(crate) fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    let names = match args.first().map(String::as_str)? {
        "branch" => branch_delete(&args[1..]).or_else(|| branch_overwrite(&args[1..]))?,
        "checkout" | "switch" => create_force(&args[1..])?,
        "update-ref" => update_ref_delete(&args[1..])?,
        _ => return None,
    };
    if names.is_empty() && !open {
        return None;
    }
    Some((
        Op::BranchDelete {
            names: names.clone(),
        },
        names,
    ))
}

/// The names `git branch ARGS` deletes without git's own merged check, if it does.
fn branch_delete(args: &[String]) -> Option<Vec<String>> {
    let (mut delete, mut big_d, mut force, mut remotes) = (false, false, false, false);
    let mut names = Vec::new();
    let mut dashdash = false;
    let mut skip_value = false;
    for a in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        if dashdash || !a.starts_with('-') || a == "-" {
            names.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "--delete" => delete = true,
            "--force" => force = true,
            "--remotes" => remotes = true,
            "--set-upstream-to" | "--contains" | "--no-contains" | "--merged" | "--no-merged"
            | "--points-at" | "--sort" | "--format" => skip_value = true,
            long if long.starts_with("--") => {}
            short => {
                for (i, c) in short.char_indices().skip(1) {
                    match c {
                        'd' => delete = true,
                        'D' => big_d = true,
                        'f' => force = true,
                        'r' => remotes = true,
                        'u' => {
                            skip_value = i + 1 == short.len();
                            break;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    ((big_d || (delete && force)) && !remotes).then_some(names)
}

/// The branch `git branch -M/-C [OLD] NEW` or `git branch -f NAME [START]` overwrites.
fn branch_overwrite(args: &[String]) -> Option<Vec<String>> {
    let mut force_move = false;
    let mut force = false;
    let mut plain_move = false;
    let mut operands = Vec::new();
    for a in args {
        match a.as_str() {
            "--force" => force = true,
            "--move" | "--copy" => plain_move = true,
            s if s.starts_with("--") => {}
            s if s.starts_with('-') && s.len() > 1 => {
                force_move |= s.contains('M') || s.contains('C');
                force |= s.contains('f');
                plain_move |= s.contains('m') || s.contains('c');
            }
            _ => operands.push(a.clone()),
        }
    }
    if force_move || (plain_move && force) {
        // The last operand is the branch written over.
        return operands.last().map(|n| vec![n.clone()]);
    }
    if force && !plain_move {
        return operands.first().map(|n| vec![n.clone()]);
    }
    None
}

/// The branch `git checkout -B NAME` / `git switch -C NAME` (or `--force-create`) resets.
fn create_force(args: &[String]) -> Option<Vec<String>> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-B" || a == "-C" || a == "--force-create" {
            return it.next().map(|n| vec![n.clone()]);
        }
        if let Some(n) = a.strip_prefix("--force-create=") {
            return Some(vec![n.to_owned()]);
        }
    }
    None
}

/// `rm`/`unlink` of a branch's ref file (`.git/refs/heads/NAME`): deletes that branch.
pub(crate) fn classify_ref_rm(argv: &[String], cwd: &std::path::Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if !matches!(first.rsplit('/').next(), Some("rm" | "unlink" | "shred")) {
        return None;
    }
    let names: Vec<String> = argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| {
            let p = cwd.join(a).to_string_lossy().into_owned();
            let (_, name) = p.split_once("/refs/heads/")?;
            (!name.is_empty()).then(|| name.trim_end_matches('/').to_owned())
        })
        .collect();
    if names.is_empty() {
        return None;
    }
    Some((
        Op::BranchDelete {
            names: names.clone(),
        },
        names,
    ))
}

/// The branch `git update-ref -d refs/heads/NAME [OLD]` deletes.
fn update_ref_delete(args: &[String]) -> Option<Vec<String>> {
    let mut delete = false;
    let mut operands = Vec::new();
    let mut skip_value = false;
    for a in args {
        if skip_value {
            skip_value = false;
        } else if a == "--stdin-delete" {
            // What `update-ref --stdin` reads, rewritten by the classifier.
            delete = true;
        } else if a == "-d" || a == "--delete" {
            delete = true;
        } else if a == "-m" {
            skip_value = true;
        } else if !a.starts_with('-') {
            operands.push(a.clone());
        }
    }
    if !delete {
        return None;
    }
    if args.iter().any(|a| a == "--stdin-delete") {
        return Some(
            operands
                .iter()
                .filter_map(|r| r.strip_prefix("refs/heads/").map(str::to_owned))
                .collect(),
        );
    }
    match operands.first() {
        None => Some(Vec::new()),
        Some(r) => r.strip_prefix("refs/heads/").map(|n| vec![n.to_owned()]),
    }
}

/// Rule 3: refuse when a named branch's tip is not pushed.
pub(crate) fn check(g: &Guarded, branches: &[BranchState]) -> Verdict {
    let risky: Vec<&BranchState> = branches
        .iter()
        .filter(|b| b.tip.is_some() && !b.unpushed.is_empty())
        .collect();
    if risky.is_empty() {
        return Verdict::Allow;
    }
    let parts: Vec<String> = risky
        .iter()
        .map(|b| {
            format!(
                "branch {} has {} commit(s) on no remote: {}",
                b.name,
                b.unpushed.len(),
                list_commits(&b.unpushed)
            )
        })
        .collect();
    let names: Vec<&str> = risky.iter().map(|b| b.name.as_str()).collect();
    // `branch -f/-M/-C`, `checkout -B` point the branch elsewhere rather than delete it.
    let words: Vec<&str> = g.display.split_whitespace().collect();
    let deletes = words.iter().any(|w| matches!(*w, "-D" | "-d" | "--delete"));
    let moves = words
        .iter()
        .any(|w| matches!(*w, "-f" | "--force" | "-M" | "-C" | "-B"));
    let act = if moves && !deletes {
        "Pointing it elsewhere"
    } else {
        "Deleting it"
    };
    Verdict::Block(Finding::new(
        "branch-unpushed",
        format!(
            "git-dibs refused `{}`: {}. {act} loses those commits. Push it first (git push -u \
         origin {}), or merge it where it belongs, or ask the person whether it can go.",
            g.display,
            parts.join("; "),
            names.join(" ")
        ),
    ))
}

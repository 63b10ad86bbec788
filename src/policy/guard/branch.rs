//! Rule 3: deleting a local branch holding commits that no remote-tracking ref, tag or other
//! local branch (one the same line does not delete or move too) holds (`git branch -D`,
//! `--delete --force`, `-d -f`, several names at once; `git update-ref -d refs/heads/NAME` or
//! `HEAD`), or pointing it where its unpushed commits are not (`branch -f/-M/-C`, `checkout
//! -B`, `update-ref refs/heads/NAME REV`, `push -f . REV:NAME`, `fetch R +REV:NAME`).

use super::{Finding, Guarded, Op, Verdict, list, list_commits};
use crate::git::CommitInfo;

/// What the guard knows about one local branch a command deletes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchState {
    /// The branch name (without `refs/heads/`).
    pub(crate) name: String,
    /// Its tip, when it exists.
    pub(crate) tip: Option<String>,
    /// Commits of its tip on no remote-tracking ref, tag or other branch, newest first.
    pub(crate) unpushed: Vec<CommitInfo>,
    /// `name` stands for a detached HEAD (no branch to push).
    pub(crate) detached: bool,
    /// The live peers that made some of `unpushed`, named (read for `git reset` only).
    pub(crate) made_by: Vec<String>,
}

impl BranchState {
    /// How messages name it: `branch NAME`, or `the detached HEAD`.
    pub(crate) fn label(&self) -> String {
        if self.detached {
            "the detached HEAD".to_owned()
        } else {
            format!("branch {}", self.name)
        }
    }
}

/// `git branch` forcing a delete or overwriting a branch (`-M`, `-C`, `-f`), `git checkout -B`
/// / `git switch -C` of an existing branch, or `git update-ref -d refs/heads/NAME` (or `HEAD`)
/// and the deletions and updates of `update-ref --stdin` (given as `--stdin-delete NAME`), or
/// `git update-ref refs/heads/NAME REV` pointing one elsewhere.
pub(crate) fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    let (names, onto) = match args.first().map(String::as_str)? {
        "branch" => match branch_delete(&args[1..]) {
            Some(names) => (names, None),
            None => branch_overwrite(&args[1..])?,
        },
        "checkout" | "switch" => create_force(&args[1..])?,
        "worktree" if args.get(1).is_some_and(|a| a == "add") => worktree_add_force(&args[2..])?,
        "update-ref" => update_ref(&args[1..])?,
        // The checked-out branch (or a detached HEAD) moved to the commit named; an amend
        // puts it on HEAD's parent and a new commit there.
        "reset" => (
            vec!["HEAD".to_owned()],
            Some(super::resets::reset_target(&args[1..])?),
        ),
        // `git rebase --onto X U`: the commits of U that X lacks are dropped (the rest are
        // replayed), as if U were moved to X.
        "rebase" => rebase_onto(&args[1..])?,
        "commit"
            if args[1..]
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a == "--amend") =>
        {
            (vec!["HEAD".to_owned()], Some("HEAD^".to_owned()))
        }
        _ => return None,
    };
    if names.is_empty() && !open {
        return None;
    }
    Some((
        Op::BranchDelete {
            names: names.clone(),
            onto,
        },
        names,
    ))
}

/// Local branches a push into this very repository (`git push . +REV:NAME`, `-f`, `:NAME`,
/// `--delete . NAME`) or a forced fetch into `refs/heads/` (`git fetch . +REV:NAME`, `git fetch
/// origin +main:NAME`, `+refs/heads/*:refs/heads/*`, `--prune` into `refs/heads/*`) deletes or
/// points elsewhere: one operation per refspec.
pub(crate) fn classify_local_updates(args: &[String]) -> Vec<(Op, Vec<String>)> {
    let Some(sub) = args.first().map(String::as_str) else {
        return Vec::new();
    };
    let Some(t) = super::transfer::parse(args).filter(|_| sub != "send-pack") else {
        return Vec::new();
    };
    let force = t.force || !t.lease.is_empty();
    let (delete, prune) = (t.delete, t.prune);
    let (Some(remote), specs) = t.remote_and_specs() else {
        return Vec::new();
    };
    let local = remote == ".";
    if sub == "push" && !local {
        return Vec::new();
    }
    let mut out = Vec::new();
    for spec in &specs {
        let forced = force || spec.starts_with('+');
        let spec = spec.trim_start_matches('+');
        let (src, dst) = match spec.split_once(':') {
            Some((s, d)) => (s, d),
            // `git push . X` writes X over itself; `git fetch R X` writes no branch.
            None if sub == "push" && delete => ("", spec),
            None => continue,
        };
        let Some(name) = local_branch(dst) else {
            continue;
        };
        let deleted = src.is_empty() || delete;
        let wildcard = name.contains('*');
        if !(forced || deleted || (wildcard && prune)) {
            // Without force git refuses to move a branch anywhere but forward.
            continue;
        }
        let onto = (local && !deleted && !wildcard).then(|| src.to_owned());
        let names = vec![if wildcard { "*".to_owned() } else { name }];
        out.push((
            Op::BranchDelete {
                names: names.clone(),
                onto,
            },
            names,
        ));
    }
    out
}

/// The local branch a refspec destination names: `refs/heads/X`, or a bare `X` (git makes it
/// a branch when no other ref has that name).
fn local_branch(dst: &str) -> Option<String> {
    if let Some(name) = dst.strip_prefix("refs/heads/") {
        return (!name.is_empty()).then(|| name.to_owned());
    }
    if dst.starts_with("refs/") || dst.is_empty() || dst == "HEAD" {
        return None;
    }
    Some(dst.to_owned())
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

/// The branch `git branch -M/-C [OLD] NEW` or `git branch -f NAME [START]` overwrites, and
/// what it is pointed at instead.
fn branch_overwrite(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
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
        // The last operand is the branch written over, by the first (or the current branch).
        let over = operands.last()?.clone();
        let from = if operands.len() > 1 {
            operands[0].clone()
        } else {
            "HEAD".to_owned()
        };
        return Some((vec![over], Some(from)));
    }
    if force && !plain_move {
        let name = operands.first()?.clone();
        let start = operands.get(1).cloned().unwrap_or_else(|| "HEAD".into());
        return Some((vec![name], Some(start)));
    }
    None
}

/// `git rebase --onto NEWBASE UPSTREAM [BRANCH]`: UPSTREAM, whose commits NEWBASE lacks are
/// dropped from the branch, and NEWBASE. `git rebase -i UPSTREAM` may drop any commit after
/// UPSTREAM (its todo list is edited, by a person or by a scripted sequence editor): HEAD and
/// UPSTREAM. Otherwise every commit is replayed: `None`.
fn rebase_onto(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
    let interactive = args.iter().take_while(|a| *a != "--").any(|a| {
        a == "--interactive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
    });
    let mut onto = None;
    let mut operands = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--onto" => onto = it.next().cloned(),
            "-s" | "--strategy" | "-X" | "--strategy-option" | "-x" | "--exec" => {
                it.next();
            }
            "--" => break,
            _ if a.starts_with("--onto=") => onto = Some(a["--onto=".len()..].to_owned()),
            _ if a.starts_with('-') => {}
            _ => operands.push(a.clone()),
        }
    }
    let upstream = operands.first()?.clone();
    match onto {
        Some(onto) => Some((vec![upstream], Some(onto))),
        None if interactive => Some((vec!["HEAD".to_owned()], Some(upstream))),
        None => None,
    }
}

/// The branch `git checkout -B NAME [START]` / `git switch -C NAME [START]` (or
/// `--force-create`) resets, and to what.
fn create_force(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
    let mut it = args.iter();
    let mut name = None;
    while let Some(a) = it.next() {
        if a == "-B" || a == "-C" || a == "--force-create" {
            name = it.next().cloned();
            break;
        }
        if let Some(n) = a.strip_prefix("--force-create=") {
            name = Some(n.to_owned());
            break;
        }
    }
    let name = name?;
    let start = it
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_else(|| "HEAD".into());
    Some((vec![name], Some(start)))
}

/// `git worktree add -B NAME PATH [COMMIT]`: resets branch NAME to COMMIT (default `HEAD`),
/// as `checkout -B` does.
fn worktree_add_force(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
    let mut it = args.iter();
    let mut name = None;
    let mut positional = Vec::new();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-B" => name = it.next().cloned(),
            "-b" | "--reason" => {
                it.next();
            }
            "--" => positional.extend(it.by_ref().cloned()),
            s if s.starts_with('-') => {}
            _ => positional.push(a.clone()),
        }
    }
    let start = positional.get(1).cloned().unwrap_or_else(|| "HEAD".into());
    Some((vec![name?], Some(start)))
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
            onto: None,
        },
        names,
    ))
}

/// The branch `git update-ref -d refs/heads/NAME [OLD]` deletes (`HEAD`: the one it points
/// at), or the one `git update-ref refs/heads/NAME NEW [OLD]` points at NEW.
fn update_ref(args: &[String]) -> Option<(Vec<String>, Option<String>)> {
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
    let branch = |r: &String| {
        if r == "HEAD" {
            return Some("HEAD".to_owned());
        }
        r.strip_prefix("refs/heads/").map(str::to_owned)
    };
    if args.iter().any(|a| a == "--stdin-delete") {
        return Some((operands.iter().filter_map(branch).collect(), None));
    }
    if args.iter().any(|a| a == "--stdin") {
        return None;
    }
    let Some(first) = operands.first() else {
        return delete.then(|| (Vec::new(), None));
    };
    let name = branch(first)?;
    if delete {
        return Some((vec![name], None));
    }
    let new = operands.get(1)?;
    // An all-zero new value deletes the ref.
    let onto = (!new.chars().all(|c| c == '0')).then(|| new.clone());
    Some((vec![name], onto))
}

/// Rule 3: refuse when a named branch holds commits on no remote and no other branch.
pub(crate) fn check(g: &Guarded, branches: &[BranchState]) -> Verdict {
    let sub = g
        .git
        .as_ref()
        .and_then(|i| i.args.first())
        .map(String::as_str);
    // A reset, an amend or a rebase that drops commits moves the branch off commits its own
    // session may take back at will: refused only over a live peer's.
    let reset = matches!(sub, Some("reset" | "commit" | "rebase"));
    let risky: Vec<&BranchState> = branches
        .iter()
        .filter(|b| b.tip.is_some() && !b.unpushed.is_empty())
        .filter(|b| !reset || !b.made_by.is_empty())
        .collect();
    if risky.is_empty() {
        return Verdict::Allow;
    }
    if reset {
        let parts: Vec<String> = risky
            .iter()
            .map(|b| {
                format!(
                    "{} has {} commit(s) on no remote and no other branch, made by {}: {}",
                    b.label(),
                    b.unpushed.len(),
                    list(&b.made_by),
                    list_commits(&b.unpushed)
                )
            })
            .collect();
        let act = if sub == Some("commit") {
            "Amending rewrites that commit as yours, from under the session that made it. \
             Commit on top of it instead (git commit without --amend)"
        } else if sub == Some("rebase") {
            "This rebase drops those commits from the branch, from under the session that made \
             them. Leave them to it (rebase only your own commits, or work on a branch of your \
             own: git switch -c <name>)"
        } else {
            "Resetting moves the branch off those commits, from under the session that made \
             them. Leave them to it (reset only your own commits, or work on a branch of your \
             own: git switch -c <name>)"
        };
        return Verdict::Block(Finding::new(
            "branch-unpushed",
            format!(
                "git-dibs refused `{}`: {}. {act}, or ask the person.",
                g.display,
                parts.join("; "),
            ),
        ));
    }
    let parts: Vec<String> = risky
        .iter()
        .map(|b| {
            format!(
                "{} has {} commit(s) on no remote and no other branch: {}",
                b.label(),
                b.unpushed.len(),
                list_commits(&b.unpushed)
            )
        })
        .collect();
    let names: Vec<&str> = risky
        .iter()
        .filter(|b| !b.detached)
        .map(|b| b.name.as_str())
        .collect();
    // `branch -f/-M/-C`, `checkout -B`, `update-ref NAME REV`, a forced fetch point the branch
    // elsewhere rather than delete it.
    let fetch = matches!(sub, Some("fetch" | "pull"));
    let act = if matches!(g.op, Op::BranchDelete { onto: Some(_), .. }) || fetch {
        "Pointing it elsewhere"
    } else {
        "Deleting it"
    };
    // A detached HEAD has no branch to push: name one that keeps its commits.
    let keep = risky
        .iter()
        .find(|b| b.detached)
        .and_then(|b| b.tip.as_deref())
        .map(|tip| format!("git branch keep-{0} {0}", &tip[..tip.len().min(8)]));
    let push = (!names.is_empty()).then(|| format!("git push -u origin {}", names.join(" ")));
    let first = [keep, push]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", then ");
    let what = if names.is_empty() {
        "Keep them"
    } else {
        "Push it"
    };
    Verdict::Block(Finding::new(
        "branch-unpushed",
        format!(
            "git-dibs refused `{}`: {}. {act} loses those commits. {what} first ({first}), or \
             merge it where it belongs, or ask the person whether it can go.",
            g.display,
            parts.join("; "),
        ),
    ))
}

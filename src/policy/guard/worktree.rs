//! Rules 1 and 2: removing a worktree (`git worktree remove`, `rm -r` of its root or of a folder
//! holding worktrees, `find ... -delete` over one) is refused when the worktree is dirty or its
//! HEAD is not on any remote-tracking ref. Husks and clean, pushed worktrees pass; paths deeper
//! inside a worktree are its owner's business.

use std::path::{Path, PathBuf};

use super::{AtRisk, Finding, Guarded, Op, Verdict, list, list_commits, show_path};
use crate::git::lanes::LOCK_PREFIX;
use crate::git::{CommitInfo, WorktreeEntry};

/// What the guard knows about one worktree a removal would reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorktreeState {
    /// Its root.
    pub(crate) root: PathBuf,
    /// The branch checked out there.
    pub(crate) branch: Option<String>,
    /// The main worktree (its `.git` is the whole repository).
    pub(crate) main: bool,
    /// A folder with no `.git` link: nothing to lose.
    pub(crate) husk: bool,
    /// The lock reason, when locked.
    pub(crate) locked: Option<String>,
    /// `git status --porcelain` lines (ignored files left out).
    pub(crate) status: Vec<String>,
    /// HEAD commit.
    pub(crate) head: Option<String>,
    /// Commits of HEAD on no remote-tracking ref, newest first.
    pub(crate) unpushed: Vec<CommitInfo>,
    /// For the main worktree: local branches whose tips are on no remote-tracking ref (they go
    /// with the repository).
    pub(crate) unpushed_branches: Vec<String>,
}

impl WorktreeState {
    /// Whether removing it loses work: uncommitted files, commits on no remote that nothing
    /// else keeps, or (for the main worktree, whose removal takes the repository) unpushed
    /// branches. The one definition of "at risk" every rule uses.
    pub(crate) fn at_risk(&self) -> bool {
        !self.husk
            && (!self.status.is_empty()
                || self.loses_commits()
                || !self.unpushed_branches.is_empty())
    }

    /// Whether its unpushed commits go with it: a linked worktree on a branch leaves them on
    /// that branch; a detached HEAD or the main worktree (the repository itself) does not.
    pub(crate) fn loses_commits(&self) -> bool {
        !self.unpushed.is_empty() && (self.main || self.branch.is_none())
    }

    /// [`Self::at_risk`] for a removal that deletes the worktree's branch too (the host's
    /// `ExitWorktree`): its unpushed commits then go with it whatever its HEAD.
    pub(crate) fn at_risk_with_branch(&self) -> bool {
        self.at_risk() || (!self.husk && !self.unpushed.is_empty())
    }

    /// The worktree as the audit log records it.
    pub(crate) fn audit(&self) -> AtRisk {
        AtRisk {
            root: self.root.clone(),
            head: self.head.clone(),
            status: self.status.clone(),
        }
    }

    /// What is at risk, in words.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        let name = match &self.branch {
            Some(b) => format!("worktree {} (branch {b})", show_path(&self.root)),
            None => format!("worktree {} (detached HEAD)", show_path(&self.root)),
        };
        if !self.status.is_empty() {
            parts.push(format!(
                "{} uncommitted path(s): {}",
                self.status.len(),
                list(&self.status)
            ));
        }
        if !self.unpushed.is_empty() {
            parts.push(format!(
                "commit(s) on no remote: {}",
                list_commits(&self.unpushed)
            ));
        }
        if !self.unpushed_branches.is_empty() {
            parts.push(format!(
                "its repository holds unpushed branch(es): {}",
                list(&self.unpushed_branches)
            ));
        }
        if let Some(reason) = &self.locked {
            if reason.is_empty() {
                parts.push("it is locked".into());
            } else {
                parts.push(format!("it is locked (\"{reason}\")"));
            }
        }
        format!("{name} has {}", parts.join("; "))
    }
}

/// The worktrees a removal would reach, with the resolved targets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorktreeFacts {
    /// The targets, absolute and canonical as far as they exist.
    pub(crate) targets: Vec<PathBuf>,
    /// Every worktree found at or below a target, and other worktrees holding a target.
    pub(crate) worktrees: Vec<WorktreeState>,
    /// The root of the worktree the command runs in (its insides are its own business).
    pub(crate) own: Option<PathBuf>,
}

const INSTEAD: &str = "If that work is yours, commit and push it first; if it is another \
                       session's, leave the worktree to it (or ask the person what to keep). \
                       Remove a worktree only when it is clean and pushed.";

/// `git clean` forced twice with `-d`: it deletes nested repositories and worktrees too.
fn clean_nested(args: &[String]) -> Option<(Op, Vec<String>)> {
    let mut forces = 0;
    let mut dirs = false;
    let mut dry = false;
    for a in &args[1..] {
        match a.as_str() {
            "--" => break,
            "--force" => forces += 1,
            "--dry-run" => dry = true,
            s if s.starts_with("--") => {}
            s if s.starts_with('-') => {
                forces += s.matches('f').count();
                dirs |= s.contains('d');
                dry |= s.contains('n');
            }
            _ => {}
        }
    }
    (forces >= 2 && dirs && !dry).then(|| {
        (
            Op::CleanNested {
                dir: PathBuf::from("."),
            },
            Vec::new(),
        )
    })
}

/// `git worktree remove [-f [-f]] [--] TARGET`, `git worktree move [-f [-f]] TARGET DEST`
/// and `git worktree unlock TARGET` (judged as removing TARGET: a move takes its work from
/// under the sessions there, an unlock drops the lock git-dibs keeps on it), and `git clean
/// -ffd`.
pub(crate) fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    if args.first().map(String::as_str) == Some("clean") {
        return clean_nested(args);
    }
    if args.first().map(String::as_str) != Some("worktree")
        || !matches!(
            args.get(1).map(String::as_str),
            Some("remove" | "move" | "unlock")
        )
    {
        return None;
    }
    let mut target = None;
    let mut dashdash = false;
    for a in &args[2..] {
        if !dashdash && a == "--" {
            dashdash = true;
        } else if !dashdash && a.starts_with('-') && a.len() > 1 {
            continue;
        } else if target.is_none() {
            target = Some(a.clone());
        }
    }
    match target {
        Some(t) => Some((Op::WorktreeRemove { target: t.clone() }, vec![t])),
        None if open => Some((
            Op::WorktreeRemove {
                target: String::new(),
            },
            Vec::new(),
        )),
        None => None,
    }
}

/// `rm` with `-r`, `-R` or `--recursive` in any spelling; its operands, made absolute. `mv`
/// of folders: gone from where they were, as far as a worktree there is concerned.
pub(crate) fn classify_rm(argv: &[String], cwd: &Path, open: bool) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if first.rsplit('/').next() == Some("mv") {
        return super::files::moved_folders(&argv[1..], cwd);
    }
    if first.rsplit('/').next() != Some("rm") {
        return None;
    }
    let mut recursive = false;
    let mut dashdash = false;
    let mut operands = Vec::new();
    for a in &argv[1..] {
        if !dashdash && a == "--" {
            dashdash = true;
        } else if !dashdash && a.starts_with("--") {
            recursive |= a == "--recursive";
        } else if !dashdash && a.starts_with('-') && a.len() > 1 {
            recursive |= a.contains('r') || a.contains('R');
        } else {
            operands.push(a.clone());
        }
    }
    // Removing a worktree's `.git` (file or folder) unregisters it, whatever the flags: judged
    // as removing the worktree.
    let links: Vec<String> = operands
        .iter()
        .filter(|o| super::classify::is_git_entry(Path::new(o.trim_end_matches('/'))))
        .cloned()
        .collect();
    if !recursive && !links.is_empty() {
        let paths = links
            .iter()
            .map(|o| {
                let p = cwd.join(o.trim_end_matches('/'));
                p.parent().map_or(p.clone(), Path::to_path_buf)
            })
            .collect();
        return Some((Op::RemoveTree { paths }, links));
    }
    if !recursive || (operands.is_empty() && !open) {
        return None;
    }
    let paths = operands
        .iter()
        .map(|o| {
            let p = cwd.join(o.trim_end_matches('/'));
            if super::classify::is_git_entry(&p) {
                p.parent().map_or(p.clone(), Path::to_path_buf)
            } else {
                cwd.join(o)
            }
        })
        .collect();
    Some((Op::RemoveTree { paths }, operands))
}

/// `git submodule deinit -f PATH...` (or `--all`), run in `cwd`: it deletes the submodules'
/// working trees with whatever is uncommitted in them, as `rm -rf PATH` does (without `-f`
/// git itself refuses to drop local changes). `--all` reaches every submodule `.gitmodules`
/// lists at the top of the worktree.
pub(crate) fn classify_deinit(args: &[String], cwd: &Path) -> Option<(Op, Vec<String>)> {
    let [sub, verb, rest @ ..] = args else {
        return None;
    };
    if sub != "submodule" || verb != "deinit" {
        return None;
    }
    let mut force = false;
    let mut all = false;
    let mut named = Vec::new();
    let mut dashdash = false;
    for a in rest {
        match a.as_str() {
            "--" if !dashdash => dashdash = true,
            "--force" if !dashdash => force = true,
            "--all" if !dashdash => all = true,
            s if !dashdash && s.starts_with("--") => {}
            s if !dashdash && s.starts_with('-') && s.len() > 1 => force |= s.contains('f'),
            _ => named.push(a.clone()),
        }
    }
    if !force {
        return None;
    }
    if all || named.is_empty() {
        let top = cwd.ancestors().find(|d| d.join(".git").exists())?;
        let listed = std::fs::read_to_string(top.join(".gitmodules")).unwrap_or_default();
        let paths: Vec<PathBuf> = listed
            .lines()
            .filter_map(|l| {
                let (key, value) = l.split_once('=')?;
                (key.trim() == "path").then(|| top.join(value.trim()))
            })
            .collect();
        let shown = paths.iter().map(|p| p.display().to_string()).collect();
        return (!paths.is_empty()).then_some((Op::RemoveTree { paths }, shown));
    }
    let paths = named
        .iter()
        .map(|n| cwd.join(n.trim_end_matches('/')))
        .collect();
    Some((Op::RemoveTree { paths }, named))
}

/// The registered worktree `target` names: by its path (resolved against the command's
/// directory, `resolved`), else by a unique suffix of path components as git allows.
pub(crate) fn pick_worktree<'a>(
    entries: &'a [WorktreeEntry],
    resolved: &Path,
    target: &str,
) -> Option<&'a WorktreeEntry> {
    if let Some(e) = entries.iter().find(|e| e.root == resolved) {
        return Some(e);
    }
    let suffix = Path::new(target.trim_end_matches('/'));
    if suffix.as_os_str().is_empty() || suffix.is_absolute() {
        return None;
    }
    let mut matches = entries
        .iter()
        .filter(|e| !e.main && e.root.ends_with(suffix));
    let found = matches.next()?;
    matches.next().is_none().then_some(found)
}

/// Rule 1: `git worktree remove` of a dirty or unpushed worktree; `move` of one (the sessions
/// working there keep their claims on the old path, and the guard with them); `unlock` of the
/// lock git-dibs keeps on one.
pub(crate) fn check_remove(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
    let Some(w) = facts.worktrees.first() else {
        return Verdict::Allow;
    };
    if !w.at_risk() {
        return Verdict::Allow;
    }
    let verb = g
        .git
        .as_ref()
        .and_then(|i| i.args.get(1))
        .map_or("remove", String::as_str);
    let ours = w
        .locked
        .as_deref()
        .is_some_and(|r| r.starts_with(LOCK_PREFIX));
    let effect = match verb {
        "move" => {
            "Moving it takes that work from under the sessions working there (their tools still \
             name the old path). Leave it where it is, or ask the person."
        }
        "unlock" if ours => {
            "git-dibs keeps that lock while work there exists nowhere else; it goes by itself \
             once the work is committed and pushed. Leave it, or ask the person."
        }
        "unlock" => return Verdict::Allow,
        _ => "Removing it destroys that work.",
    };
    let instead = if verb == "remove" { INSTEAD } else { "" };
    Verdict::Block(
        Finding::new(
            "worktree-dirty",
            format!(
                "git-dibs refused `{}`: {}. {effect} {instead}",
                g.display,
                w.describe()
            )
            .trim_end()
            .to_owned(),
        )
        .with_worktrees(vec![w.audit()]),
    )
}

/// The worktrees at or below `target` that are at risk.
pub(super) fn at_risk_under<'a>(facts: &'a WorktreeFacts, target: &Path) -> Vec<&'a WorktreeState> {
    facts
        .worktrees
        .iter()
        .filter(|w| w.root.starts_with(target) && w.at_risk())
        .collect()
}

/// What `risky` are, counted: "a repository", "2 worktrees", "a repository and a worktree".
/// A main worktree is a whole repository (its `.git` holds everything).
pub(super) fn kinds(risky: &[&WorktreeState]) -> String {
    let count = |n: usize, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("a {one}")),
        n => Some(format!("{n} {many}")),
    };
    let repos = risky.iter().filter(|w| w.main).count();
    [
        count(repos, "repository", "repositories"),
        count(risky.len() - repos, "worktree", "worktrees"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" and ")
}

/// Uncommitted paths of another worktree `w` that lie under `target` inside it.
fn dirty_inside(w: &WorktreeState, target: &Path) -> Vec<String> {
    let Ok(inner) = target.strip_prefix(&w.root) else {
        return Vec::new();
    };
    if inner.as_os_str().is_empty() {
        return Vec::new();
    }
    w.status
        .iter()
        .filter(|line| Path::new(line.get(3..).unwrap_or("")).starts_with(inner))
        .cloned()
        .collect()
}

/// Rule 2: `rm -r` of a worktree root or a folder that holds worktrees, or of the insides of
/// another worktree holding uncommitted files there (`rm -rf ../lane/*`).
pub(crate) fn check_rm(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
    let mut risky: Vec<&WorktreeState> = Vec::new();
    let mut inside: Vec<String> = Vec::new();
    for t in &facts.targets {
        for w in at_risk_under(facts, t) {
            if !risky.iter().any(|r| r.root == w.root) {
                risky.push(w);
            }
        }
        for w in &facts.worktrees {
            if facts.own.as_ref() == Some(&w.root) {
                continue;
            }
            for line in dirty_inside(w, t) {
                let shown = format!("{} in {}", line, show_path(&w.root));
                if !inside.contains(&shown) {
                    inside.push(shown);
                }
            }
        }
    }
    // `mv` takes them away rather than deleting them.
    let moves = g
        .display
        .split(' ')
        .next()
        .is_some_and(|w| w.rsplit('/').next() == Some("mv"));
    let (verb, instead) = if moves {
        (
            "moves away",
            "Moving it takes that work from under the sessions there (their tools still name \
             the old path). Leave it where it is, or ask the person."
                .to_owned(),
        )
    } else {
        (
            "deletes",
            format!("{INSTEAD} Use `git worktree remove` for a clean, pushed worktree."),
        )
    };
    if risky.is_empty() && !inside.is_empty() {
        return Verdict::Block(Finding::new(
            "worktree-contents",
            format!(
                "git-dibs refused `{}`: it {verb} uncommitted files of another worktree: {}. \
                 Commit them there first, or ask the person.",
                g.display,
                list(&inside)
            ),
        ));
    }
    if risky.is_empty() {
        return Verdict::Allow;
    }
    let described: Vec<String> = risky.iter().map(|w| w.describe()).collect();
    Verdict::Block(
        Finding::new(
            "worktree-rm",
            format!(
                "git-dibs refused `{}`: it {verb} {} holding work that exists nowhere else. \
                 {}. {instead}",
                g.display,
                kinds(&risky),
                described.join(". ")
            ),
        )
        .with_worktrees(risky.iter().map(|w| w.audit()).collect()),
    )
}

//! Rules 1 and 2: removing a worktree (`git worktree remove`, `rm -r` of its root or of a folder
//! holding worktrees, `find ... -delete` over one) is refused when the worktree is dirty or its
//! HEAD is not on any remote-tracking ref. Husks and clean, pushed worktrees pass; paths deeper
//! inside a worktree are its owner's business.

use std::path::{Path, PathBuf};

use super::{AtRisk, Finding, Guarded, Op, Verdict, list, list_commits, show_path};
use crate::git::{CommitInfo, WorktreeEntry};

/// What the guard knows about one worktree a removal would reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorktreeState {
    /// Its root.
    pub root: PathBuf,
    /// The branch checked out there.
    pub branch: Option<String>,
    /// The main worktree (its `.git` is the whole repository).
    pub main: bool,
    /// A folder with no `.git` link: nothing to lose.
    pub husk: bool,
    /// The lock reason, when locked.
    pub locked: Option<String>,
    /// `git status --porcelain` lines (ignored files left out).
    pub status: Vec<String>,
    /// HEAD commit.
    pub head: Option<String>,
    /// Commits of HEAD on no remote-tracking ref, newest first.
    pub unpushed: Vec<CommitInfo>,
    /// For the main worktree: local branches whose tips are on no remote-tracking ref (they go
    /// with the repository).
    pub unpushed_branches: Vec<String>,
}

impl WorktreeState {
    /// Whether removing it loses work: uncommitted files, commits on no remote that nothing
    /// else keeps, or (for the main worktree, whose removal takes the repository) unpushed
    /// branches. The one definition of "at risk" every rule uses.
    pub fn at_risk(&self) -> bool {
        !self.husk
            && (!self.status.is_empty()
                || self.loses_commits()
                || !self.unpushed_branches.is_empty())
    }

    /// Whether its unpushed commits go with it: a linked worktree on a branch leaves them on
    /// that branch; a detached HEAD or the main worktree (the repository itself) does not.
    pub fn loses_commits(&self) -> bool {
        !self.unpushed.is_empty() && (self.main || self.branch.is_none())
    }

    /// [`Self::at_risk`] for a removal that deletes the worktree's branch too (the host's
    /// `ExitWorktree`): its unpushed commits then go with it whatever its HEAD.
    pub fn at_risk_with_branch(&self) -> bool {
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
    pub targets: Vec<PathBuf>,
    /// Every worktree found at or below a target, and other worktrees holding a target.
    pub worktrees: Vec<WorktreeState>,
    /// The root of the worktree the command runs in (its insides are its own business).
    pub own: Option<PathBuf>,
}

const INSTEAD: &str = "Commit and push that work first (or ask the person what to keep); \
                       remove the worktree only when it is clean and pushed.";

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

/// `git worktree remove [-f [-f]] [--] TARGET`, and `git clean -ffd`.
pub fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    if args.first().map(String::as_str) == Some("clean") {
        return clean_nested(args);
    }
    if args.first().map(String::as_str) != Some("worktree")
        || args.get(1).map(String::as_str) != Some("remove")
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

/// `rm` with `-r`, `-R` or `--recursive` in any spelling; its operands, made absolute.
pub fn classify_rm(argv: &[String], cwd: &Path, open: bool) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
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

/// `tar ... --remove-files PATHS`: the paths are deleted once archived.
pub fn classify_tar(argv: &[String], cwd: &Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if first.rsplit('/').next() != Some("tar") {
        return None;
    }
    let removes = argv[1..]
        .iter()
        .any(|a| a.len() >= 8 && "--remove-files".starts_with(a.as_str()));
    if !removes {
        return None;
    }
    let mut base = cwd.to_path_buf();
    let mut operands = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let takes_value = matches!(
            a,
            "-f" | "--file"
                | "-T"
                | "--files-from"
                | "-X"
                | "--exclude-from"
                | "-b"
                | "-H"
                | "--format"
                | "-g"
                | "-N"
                | "--exclude"
        );
        if a == "-C" || a == "--directory" {
            if let Some(d) = argv.get(i + 1) {
                base = base.join(d);
            }
            i += 2;
            continue;
        }
        if takes_value {
            i += 2;
            continue;
        }
        if i == 1 && !a.starts_with('-') {
            // Old style `tar czf ARCHIVE ...`: `f` takes the next word.
            i += if a.contains('f') { 2 } else { 1 };
            continue;
        }
        if a.starts_with('-') {
            // `-czf ARCHIVE`
            if !a.starts_with("--") && a.ends_with('f') {
                i += 1;
            }
            i += 1;
            continue;
        }
        operands.push(a.to_owned());
        i += 1;
    }
    if operands.is_empty() {
        return None;
    }
    let paths = operands.iter().map(|o| base.join(o)).collect();
    Some((Op::RemoveTree { paths }, operands))
}

/// `find PATHS ... -delete` or `find PATHS ... -exec rm ...` (also `-execdir`, `-ok`).
pub fn classify_find(argv: &[String], cwd: &Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if first.rsplit('/').next() != Some("find") {
        return None;
    }
    let deletes = argv.iter().enumerate().any(|(i, a)| {
        a == "-delete"
            || (matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && argv
                    .get(i + 1)
                    .is_some_and(|c| c.rsplit('/').next() == Some("rm")))
    });
    if !deletes {
        return None;
    }
    let starts: Vec<String> = argv[1..]
        .iter()
        .skip_while(|a| matches!(a.as_str(), "-H" | "-L" | "-P"))
        .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
        .cloned()
        .collect();
    let starts = if starts.is_empty() {
        vec![".".to_owned()]
    } else {
        starts
    };
    let paths = starts.iter().map(|s| cwd.join(s)).collect();
    Some((
        Op::FindDelete {
            paths,
            names: name_filter(&argv[1..]),
        },
        starts,
    ))
}

/// The `-name`/`-iname` patterns every match of a find expression must satisfy, when the
/// expression is a plain conjunction (no `-o`, `!`, `-not`, parentheses or path tests).
fn name_filter(args: &[String]) -> Vec<String> {
    let loose = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-o" | "-or"
                | "!"
                | "-not"
                | "("
                | ")"
                | "-path"
                | "-wholename"
                | "-regex"
                | "-iregex"
                | "-ipath"
        )
    });
    if loose {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if (a == "-name" || a == "-iname")
            && let Some(p) = it.next()
        {
            out.push(if a == "-iname" {
                format!("(?i){p}")
            } else {
                p.clone()
            });
        }
    }
    out
}

/// Whether a path component matches a find `-name` pattern (`(?i)` for `-iname`).
fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_prefix("(?i)") {
        Some(p) => super::pathspec::wildmatch_str(&p.to_lowercase(), &name.to_lowercase()),
        None => super::pathspec::wildmatch_str(pattern, name),
    }
}

/// The registered worktree `target` names: by its path (resolved against the command's
/// directory, `resolved`), else by a unique suffix of path components as git allows.
pub fn pick_worktree<'a>(
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

/// Rule 1: `git worktree remove` of a dirty or unpushed worktree.
pub fn check_remove(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
    let Some(w) = facts.worktrees.first() else {
        return Verdict::Allow;
    };
    if !w.at_risk() {
        return Verdict::Allow;
    }
    Verdict::Block(
        Finding::new(
            "worktree-dirty",
            format!(
                "git-dibs refused `{}`: {}. Removing it destroys that work. {INSTEAD}",
                g.display,
                w.describe()
            ),
        )
        .with_worktrees(vec![w.audit()]),
    )
}

/// The worktrees at or below `target` that are at risk.
fn at_risk_under<'a>(facts: &'a WorktreeFacts, target: &Path) -> Vec<&'a WorktreeState> {
    facts
        .worktrees
        .iter()
        .filter(|w| w.root.starts_with(target) && w.at_risk())
        .collect()
}

/// What `risky` are, counted: "a repository", "2 worktrees", "a repository and a worktree".
/// A main worktree is a whole repository (its `.git` holds everything).
fn kinds(risky: &[&WorktreeState]) -> String {
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
pub fn check_rm(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
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
    if risky.is_empty() && !inside.is_empty() {
        return Verdict::Block(Finding::new(
            "worktree-contents",
            format!(
                "git-dibs refused `{}`: it deletes uncommitted files of another worktree: {}. \
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
                "git-dibs refused `{}`: it deletes {} holding work that exists nowhere else. \
                 {}. {INSTEAD} Use `git worktree remove` for a clean, pushed worktree.",
                g.display,
                kinds(&risky),
                described.join(". ")
            ),
        )
        .with_worktrees(risky.iter().map(|w| w.audit()).collect()),
    )
}

/// `find ... -delete` / `-exec rm` over worktrees with work at risk: ask, unless its `-name`
/// filter matches none of their uncommitted paths (nor a worktree root), as for `find . -name
/// '*.tmp' -delete`.
pub fn check_find(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
    let Op::FindDelete { names, .. } = &g.op else {
        return Verdict::Allow;
    };
    let mut risky: Vec<&WorktreeState> = Vec::new();
    let mut hits: Vec<String> = Vec::new();
    for t in &facts.targets {
        for w in at_risk_under(facts, t) {
            if risky.iter().any(|r| r.root == w.root) {
                continue;
            }
            let matched: Vec<String> = if names.is_empty() {
                w.status.clone()
            } else {
                let mut m: Vec<String> = w
                    .status
                    .iter()
                    .filter(|line| {
                        let full = w.root.join(line.get(3..).unwrap_or(""));
                        let below = full.strip_prefix(t).unwrap_or(&full);
                        below.components().any(|c| {
                            let c = c.as_os_str().to_string_lossy();
                            names.iter().all(|n| name_matches(n, &c))
                        })
                    })
                    .cloned()
                    .collect();
                let root_name = w.root.file_name().map(|n| n.to_string_lossy().into_owned());
                if let Some(rn) = root_name
                    && w.root != *t
                    && names.iter().all(|n| name_matches(n, &rn))
                {
                    m.push(format!("the worktree {}", show_path(&w.root)));
                }
                m
            };
            if !matched.is_empty() || (names.is_empty() && w.loses_commits()) {
                hits.extend(matched);
                risky.push(w);
            }
        }
    }
    if risky.is_empty() {
        return Verdict::Allow;
    }
    let roots: Vec<String> = risky.iter().map(|w| show_path(&w.root)).collect();
    Verdict::Ask(
        Finding::new(
            "worktree-find",
            format!(
                "git-dibs cannot tell what `{}` deletes: it searches over {} with uncommitted \
                 or unpushed work ({}) and may delete {}. Name the files to delete explicitly, \
                 or ask the person.",
                g.display,
                kinds(&risky),
                list(&roots),
                list(&hits)
            ),
        )
        .with_worktrees(risky.iter().map(|w| w.audit()).collect()),
    )
}

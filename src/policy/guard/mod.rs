//! The Bash guard's decisions, pure: which parsed commands are guarded ([`classify`]), and
//! given the facts gathered for each, whether it is allowed, blocked or put to the person
//! ([`evaluate`], [`decide`]). Nothing here reads a repository or the store.
//!
//! Rules: `worktree` (removing a dirty or unpushed worktree, `rm -r` of worktrees), `branch`
//! (deleting a branch whose tip is not pushed), `remote` (deleting a remote branch with an open
//! pull request or the only copy of commits), `peers` (sweeping or destroying a live peer's
//! uncommitted files).

pub mod branch;
pub mod closed;
mod decide;
pub mod exit_worktree;
pub mod explain;
mod pathspec;
pub mod peers;
pub mod pr;
pub mod remote;
pub mod worktree;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_peers;

use std::path::{Path, PathBuf};

use crate::git::{self, CommitInfo, GitInvocation};
use crate::shell::{SimpleCommand, Unknown};

pub use branch::BranchState;
pub use decide::{AuditEntry, Decision, decide};
pub use peers::{Peer, PeerFacts, Take};
pub use remote::RemoteBranchState;
pub use worktree::{WorktreeFacts, WorktreeState};

/// The leading assignment that lets a refused command through (value `1` only).
pub const BYPASS_VAR: &str = "WT_GUARD_BYPASS";

/// How many files or commits a reason lists before it says "and N more".
const LIST_LIMIT: usize = 12;

/// What a guarded command does, as far as the guard cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `git worktree remove [-f] TARGET` (TARGET as written).
    WorktreeRemove {
        /// The worktree as named on the command line (a path or a unique path suffix).
        target: String,
    },
    /// `rm -r` of these paths (absolute, not yet canonical).
    RemoveTree {
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// `find PATHS ... -delete` or `-exec rm`: what it deletes is only known when it runs.
    FindDelete {
        /// The starting points (absolute).
        paths: Vec<PathBuf>,
    },
    /// `git branch -D NAMES` or `git update-ref -d refs/heads/NAME`.
    BranchDelete {
        /// Branch names.
        names: Vec<String>,
    },
    /// `git push REMOTE --delete B` / `:B`.
    PushDelete {
        /// The remote as written (a name or a URL).
        remote: String,
        /// Branch names on the remote.
        branches: Vec<String>,
    },
    /// A git command that takes or discards uncommitted files.
    Take(Vec<Take>),
    /// A command whose name or text is only known when it runs (`$CMD ...`, `eval "$x"`).
    Opaque,
    /// `git switch` / `git checkout -b`: the branch moves under everyone in the worktree.
    Switch,
    /// `gh pr create`, for the branch named by `--head` or else the current one.
    PrCreate {
        /// The `--head` branch, when given.
        head: Option<String>,
    },
    /// `git checkout X [PATHS]` without `--`: a switch when X names a commit, else paths.
    Checkout {
        /// The first operand.
        first: String,
        /// The other operands.
        rest: Vec<String>,
    },
}

/// A simple command the guard has to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// What it does.
    pub op: Op,
    /// The directory it runs in (for git: after `-C`).
    pub cwd: PathBuf,
    /// git's global options, for git commands.
    pub git: Option<GitInvocation>,
    /// The command as shown in messages.
    pub display: String,
    /// `WT_GUARD_BYPASS=1` leads this very command.
    pub bypass: bool,
    /// Why its targets cannot be known before it runs, if they cannot.
    pub unknown: Option<String>,
}

impl Guarded {
    /// A command line the parser could not read, as one opaque command (bypassed when the line
    /// starts with `WT_GUARD_BYPASS=1 `).
    pub fn unread(command: &str, cwd: &Path) -> Guarded {
        let shown: String = command
            .chars()
            .filter(|c| !c.is_control() || *c == '\n')
            .take(200)
            .collect();
        Guarded {
            op: Op::Opaque,
            cwd: cwd.to_path_buf(),
            git: None,
            display: shown.replace('\n', " "),
            bypass: command
                .trim_start()
                .starts_with(&format!("{BYPASS_VAR}=1 ")),
            unknown: Some("it cannot be read".into()),
        }
    }
}

/// The facts gathered for one guarded command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Facts {
    /// Nothing could be gathered (not in a repository, or nothing to look at).
    #[default]
    None,
    /// Worktrees a removal would reach.
    Worktrees(WorktreeFacts),
    /// Local branches a deletion names.
    Branches(Vec<BranchState>),
    /// Remote branches a push would delete.
    RemoteBranches(Vec<RemoteBranchState>),
    /// Live peers' dirty files in the worktree the command acts on.
    Peers(PeerFacts),
    /// The pull requests, in any state, of the branch a `gh pr create` is for.
    PullRequests {
        /// The branch.
        branch: String,
        /// Its pull requests.
        existing: Vec<crate::git::PullRequest>,
    },
}

/// A worktree whose work is at risk, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtRisk {
    /// Its root.
    pub root: PathBuf,
    /// Its HEAD commit.
    pub head: Option<String>,
    /// Its full `git status --porcelain` lines.
    pub status: Vec<String>,
}

/// Why a command is refused or put to the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule that decided (`worktree-dirty`, `peer-files`, ...), shown as `[guard:RULE]`.
    pub rule: &'static str,
    /// The sentence for the model: what is at risk and what to do instead, ending with the rule
    /// id. Never mentions the bypass.
    pub reason: String,
    /// Worktrees at risk, with their status and HEAD.
    pub worktrees: Vec<AtRisk>,
}

impl Finding {
    /// A finding of `rule` with no worktree attached; the reason ends with `[guard:RULE]`.
    pub fn new(rule: &'static str, reason: impl Into<String>) -> Self {
        Finding {
            rule,
            reason: format!("{} [guard:{rule}]", reason.into()),
            worktrees: Vec::new(),
        }
    }

    /// The same finding with these worktrees at risk attached.
    pub fn with_worktrees(mut self, worktrees: Vec<AtRisk>) -> Self {
        self.worktrees = worktrees;
        self
    }
}

/// The verdict on one guarded command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing at risk that the guard can show.
    Allow,
    /// Refused.
    Block(Finding),
    /// Targets cannot be known: the person decides.
    Ask(Finding),
}

/// Looks up a git alias for an invocation (only called for subcommands git does not build in).
pub type AliasLookup<'a> = dyn FnMut(&GitInvocation, &str) -> Option<String> + 'a;

/// The guarded commands among `cmds`, in order. Everyday commands yield nothing, and nothing is
/// read unless a git subcommand is not a builtin (then `alias` is asked).
pub fn classify(cmds: &[SimpleCommand], alias: &mut AliasLookup<'_>) -> Vec<Guarded> {
    cmds.iter().filter_map(|c| classify_one(c, alias)).collect()
}

fn has_expansion(word: &str) -> bool {
    word.contains('$') || word.contains('`')
}

/// Quote a word for display when it needs it.
fn show_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+%,^~".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A command's words joined for display.
pub fn display(argv: &[String]) -> String {
    argv.iter()
        .map(|w| show_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn classify_one(cmd: &SimpleCommand, alias: &mut AliasLookup<'_>) -> Option<Guarded> {
    let argv = &cmd.argv;
    let first = argv.first()?;
    let bypass = cmd
        .assignments
        .iter()
        .any(|(k, v)| k == BYPASS_VAR && v == "1");
    let guarded = |op: Op, git: Option<GitInvocation>, targets: Vec<String>| {
        let cwd = git
            .as_ref()
            .map_or_else(|| cmd.cwd.clone(), |g| g.cwd.clone());
        let unknown = unknown_reason(cmd, &targets);
        Some(Guarded {
            op,
            cwd,
            git,
            display: display(argv),
            bypass,
            unknown,
        })
    };
    let base = first.rsplit('/').next().unwrap_or(first);
    let opaque = if has_expansion(first) && cmd.unknown.is_some() {
        Some(format!(
            "the command name `{first}` is only known when it runs"
        ))
    } else if base == "eval" && cmd.unknown.is_some() {
        Some("`eval` runs text that is only known when it runs".to_owned())
    } else {
        None
    };
    if let Some(why) = opaque {
        return Some(Guarded {
            op: Op::Opaque,
            cwd: cmd.cwd.clone(),
            git: None,
            display: display(argv),
            bypass,
            unknown: Some(why),
        });
    }
    if let Some((op, targets)) = worktree::classify_rm(argv, &cmd.cwd, open_ended(cmd)) {
        return guarded(op, None, targets);
    }
    if let Some((op, targets)) = worktree::classify_find(argv, &cmd.cwd) {
        return guarded(op, None, targets);
    }
    if let Some(op) = pr::classify(argv) {
        return guarded(op, None, Vec::new());
    }
    let mut inv = git::parse_invocation(argv, &cmd.cwd, &cmd.assignments)?;
    let sub = inv.args.first()?.clone();
    if !git::BUILTINS.contains(&sub.as_str())
        && let Some(value) = alias(&inv, &sub)
    {
        let mut args = inv.args.clone();
        if git::expand_alias(&value, &mut args) {
            inv.args = args;
        }
    }
    let open = open_ended(cmd);
    let (op, targets) = worktree::classify_git(&inv.args, open)
        .or_else(|| branch::classify_git(&inv.args, open))
        .or_else(|| remote::classify_git(&inv.args, open))
        .or_else(|| peers::classify_git(&inv.args, open))?;
    guarded(op, Some(inv), targets)
}

/// Whether more arguments are appended when the command runs (`xargs`).
fn open_ended(cmd: &SimpleCommand) -> bool {
    cmd.unknown == Some(Unknown::Xargs)
}

fn unknown_reason(cmd: &SimpleCommand, targets: &[String]) -> Option<String> {
    match cmd.unknown {
        Some(Unknown::Xargs) => {
            return Some("its targets come from `xargs` when it runs".into());
        }
        Some(Unknown::Eval) => {
            return Some("it runs under `eval` or from a script whose text is not known".into());
        }
        _ => {}
    }
    if let Some(t) = targets.iter().find(|t| has_expansion(t)) {
        return Some(format!("its target `{t}` is only known when it runs"));
    }
    if !cmd.cwd_known {
        return Some("the directory it runs in is only known when it runs".into());
    }
    None
}

/// Decide one guarded command over its facts.
pub fn evaluate(g: &Guarded, facts: &Facts) -> Verdict {
    if let Some(why) = &g.unknown {
        let peer_op = matches!(g.op, Op::Take(_) | Op::Switch | Op::Checkout { .. });
        if peer_op && !matches!(facts, Facts::Peers(p) if p.has_dirty_peers()) {
            return Verdict::Allow;
        }
        return Verdict::Ask(Finding::new(
            "unknown-target",
            format!(
                "git-dibs cannot tell what `{}` would destroy: {why}. Run it with literal targets \
             (expand the list first and check it), or ask the person.",
                g.display
            ),
        ));
    }
    match (&g.op, facts) {
        (Op::WorktreeRemove { .. }, Facts::Worktrees(f)) => worktree::check_remove(g, f),
        (Op::RemoveTree { .. }, Facts::Worktrees(f)) => worktree::check_rm(g, f),
        (Op::FindDelete { .. }, Facts::Worktrees(f)) => worktree::check_find(g, f),
        (Op::BranchDelete { .. }, Facts::Branches(b)) => branch::check(g, b),
        (Op::PushDelete { .. }, Facts::RemoteBranches(r)) => remote::check(g, r),
        (Op::Take(takes), Facts::Peers(p)) => peers::check_take(g, takes, p),
        (Op::Switch, Facts::Peers(p)) => peers::check_switch(g, p),
        (Op::Checkout { first, rest }, Facts::Peers(p)) => peers::check_checkout(g, first, rest, p),
        (Op::PrCreate { .. }, Facts::PullRequests { branch, existing }) => {
            pr::check(g, branch, existing)
        }
        _ => Verdict::Allow,
    }
}

/// `a, b, c and 4 more`.
pub(crate) fn list<T: AsRef<str>>(items: &[T]) -> String {
    let shown: Vec<&str> = items.iter().take(LIST_LIMIT).map(AsRef::as_ref).collect();
    let mut text = shown.join(", ");
    if items.len() > LIST_LIMIT {
        text.push_str(&format!(" and {} more", items.len() - LIST_LIMIT));
    }
    text
}

/// `abc1234 subject` for each commit, listed.
pub(crate) fn list_commits(commits: &[CommitInfo]) -> String {
    let lines: Vec<String> = commits
        .iter()
        .map(|c| format!("{} \"{}\"", &c.id[..c.id.len().min(8)], c.summary))
        .collect();
    list(&lines)
}

/// `p` relative to `base` when inside it, else absolute.
pub(crate) fn show_path(p: &Path) -> String {
    p.display().to_string()
}

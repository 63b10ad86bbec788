//! The Bash guard's decisions, pure: which parsed commands are guarded ([`classify()`]), and
//! given the facts gathered for each, whether it is allowed, blocked or put to the person
//! ([`evaluate`], `decide`). Nothing here reads a repository or the store.
//!
//! Rules: `worktree` (removing a dirty or unpushed worktree, `rm -r` of worktrees), `branch`
//! (deleting a branch whose tip is not pushed), `remote` (deleting a remote branch with an open
//! pull request or the only copy of commits), `push` (forcing over a remote branch that holds
//! the only copy of commits), `peers` (sweeping or destroying a live peer's
//! uncommitted files), `self-protect` (erasing or unwiring git-dibs itself).

pub(crate) mod branch;
mod by_path;
mod cargo_clean;
mod classify;
pub mod closed;
mod code;
mod decide;
pub(crate) mod exit_worktree;
pub(crate) mod explain;
pub(crate) mod files;
pub(crate) mod find;
pub(crate) mod gh;
mod gitline;
mod hook_writes;
mod index_file;
mod inputs;
mod interp;
mod make;
mod named_repo;
pub(crate) mod options;
mod overwrites;
mod patch_program;
mod patches;
mod pathspec;
pub(crate) mod peers;
pub(crate) mod pr;
mod programs;
pub(crate) mod push;
mod readonly;
pub(crate) mod remote;
mod removers;
mod resets;
mod reverts;
mod scripts;
pub(crate) mod sed;
pub(crate) mod self_protect;
mod syncers;
mod takes;
mod transfer;
pub(crate) mod unfinished;
pub(crate) mod worktree;
mod worst;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_options;
#[cfg(test)]
mod tests_peers;
#[cfg(test)]
mod tests_scripts;

use std::path::{Path, PathBuf};

use crate::git::{CommitInfo, GitInvocation};

pub use branch::BranchState;
pub(crate) use decide::{AuditEntry, decide};
pub use peers::{Peer, PeerFacts, Take};
pub use remote::RemoteBranchState;
pub use worktree::{WorktreeFacts, WorktreeState};

/// The leading assignment that lets a refused command through (value `1` only).
pub(crate) const BYPASS_VAR: &str = "WT_GUARD_BYPASS";

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
        /// `-name`/`-iname` patterns every deleted entry matches (empty: anything may be).
        names: Vec<String>,
        /// Symbolic links it follows: `None` none (`-P`), `Some(false)` only the starting
        /// points (`-H`), `Some(true)` every one (`-L`, `-follow`).
        follow: Option<bool>,
    },
    /// `git branch -D NAMES` or `git update-ref -d refs/heads/NAME`, or a branch pointed
    /// elsewhere (`branch -f`, `update-ref refs/heads/NAME REV`, `push -f . REV:NAME`).
    BranchDelete {
        /// Branch names; `HEAD` is the branch HEAD points at (or a detached HEAD), `*` every
        /// local branch.
        names: Vec<String>,
        /// Where they are pointed instead (`None`: deleted, or unknown): commits it contains
        /// are not lost.
        onto: Option<String>,
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
    /// A command that deletes, moves or rewrites git-dibs's own store, refs or hook wiring.
    Tamper {
        /// What it reaches, for the reason.
        what: String,
        /// Whether its words show it (else they are only known when it runs: ask).
        sure: bool,
    },
    /// A push that sends git-dibs's snapshots (`refs/dibs/snapshots/`, by name, by a glob that
    /// reaches them, or `--mirror`) to a remote: they never leave the machine.
    SendSnapshots,
    /// A history rewrite (`git filter-branch … --all`, `git filter-repo` without `--refs`)
    /// whose ref selection reaches `refs/dibs/`.
    Rewrites {
        /// The command and how it reaches there, for the reason.
        what: String,
        /// What to run instead.
        instead: String,
        /// Whether its words show it (else they are only known when it runs: ask).
        sure: bool,
    },
    /// A program that runs code the guard cannot see through (`python -c`, `make`, `sed e`):
    /// judged against what is at risk within reach.
    Runs {
        /// What runs, and why it may reach a guarded operation.
        what: String,
    },
    /// Shell text run by another command that cannot be read (`bash -c '... $('`).
    Unreadable {
        /// The text.
        text: String,
    },
    /// `git pull`, `merge` or `rebase` without `--autostash`: a stash of every tracked change
    /// first when git config sets `rebase.autoStash` / `merge.autoStash`.
    Autostash {
        /// Whether it rebases (`Some(true)`), merges, or (a bare `pull`) the config decides.
        rebase: Option<bool>,
    },
    /// `git stash drop` / `git stash clear`.
    StashDrop {
        /// `clear`: every entry.
        all: bool,
    },
    /// A `git push` that may force (`-f`, `+SRC:DST`, a lease, `--mirror`, a configured
    /// refspec): writes over remote branches.
    PushOver(crate::git::PushRequest),
    /// `git push --prune` / `--mirror`: deletes the remote's branches that are not local.
    PushPrune {
        /// The remote as written.
        remote: String,
    },
    /// `gh pr close|merge --delete-branch`, `gh api` deleting a branch: the git branch
    /// deletions it performs.
    GhDelete(gh::GhDelete),
    /// `gh repo delete`: the GitHub repository with every branch on it.
    RepoDelete,
    /// `git clean -ffd` (twice forced): also deletes worktrees nested below `dir`.
    CleanNested {
        /// The folder cleaned (absolute).
        dir: PathBuf,
    },
}

impl Op {
    /// Whether the peers rule judges it (it takes, switches or stashes the worktree's files):
    /// with targets only known when it runs, it is asked only while a live peer has work there.
    pub(crate) fn on_peers_files(&self) -> bool {
        matches!(
            self,
            Op::Take(_) | Op::Switch | Op::Checkout { .. } | Op::Autostash { .. }
        )
    }
}

/// A simple command the guard has to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// What it does.
    pub(crate) op: Op,
    /// The directory it runs in (for git: after `-C`).
    pub(crate) cwd: PathBuf,
    /// git's global options, for git commands.
    pub(crate) git: Option<GitInvocation>,
    /// The command as shown in messages.
    pub(crate) display: String,
    /// `WT_GUARD_BYPASS=1` leads this very command.
    pub(crate) bypass: bool,
    /// Why its targets cannot be known before it runs, if they cannot.
    pub(crate) unknown: Option<String>,
    /// The program whose arguments hold it, not known to run them (`docker run IMG CMD`): what
    /// would be refused is asked, naming that program.
    pub(crate) runner: Option<String>,
}

impl Guarded {
    /// A command line the parser could not read, as one opaque command (bypassed when the line
    /// starts with `WT_GUARD_BYPASS=1 `).
    pub(crate) fn unread(command: &str, cwd: &Path) -> Guarded {
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
            runner: None,
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
    /// The remote branches a push forces, and what each drops.
    Pushes(Vec<crate::git::ForcedUpdate>),
    /// Live peers' dirty files in the worktree the command acts on.
    Peers(PeerFacts),
    /// What is at risk within reach of a program that runs code the guard cannot read.
    Reach(explain::Reach),
    /// The autostash setting that applies (`rebase.autoStash`), and the peers' files it would
    /// stash.
    Autostash {
        /// The config key that is true.
        key: String,
        /// Live peers' dirty files there.
        peers: PeerFacts,
    },
    /// How many stash entries the repository holds.
    Stash(usize),
    /// The branch a `gh` deletion resolved to, and its local and remote states.
    Gh(gh::GhFacts),
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
pub(crate) struct AtRisk {
    /// Its root.
    pub(crate) root: PathBuf,
    /// Its HEAD commit.
    pub(crate) head: Option<String>,
    /// Its full `git status --porcelain` lines.
    pub(crate) status: Vec<String>,
}

/// Why a command is refused or put to the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule that decided (`worktree-dirty`, `peer-files`, ...), shown as `[guard:RULE]`.
    pub(crate) rule: &'static str,
    /// The sentence for the model: what is at risk and what to do instead, ending with the rule
    /// id. Never mentions the bypass.
    pub(crate) reason: String,
    /// Worktrees at risk, with their status and HEAD.
    pub(crate) worktrees: Vec<AtRisk>,
}

impl Finding {
    /// A finding of `rule` with no worktree attached; the reason ends with `[guard:RULE]`.
    pub(crate) fn new(rule: &'static str, reason: impl Into<String>) -> Self {
        Finding {
            rule,
            reason: format!("{} [guard:{rule}]", reason.into()),
            worktrees: Vec::new(),
        }
    }

    /// The same finding with these worktrees at risk attached.
    pub(crate) fn with_worktrees(mut self, worktrees: Vec<AtRisk>) -> Self {
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

pub use classify::{AliasLookup, classify};

/// Decide one guarded command over its facts.
pub fn evaluate(g: &Guarded, facts: &Facts) -> Verdict {
    match (judge(g, facts), &g.runner) {
        // It may not run at all: the person decides.
        (Verdict::Block(f), Some(runner)) => {
            let said = format!("`{runner}` may run a command git-dibs would refuse,");
            let reason = match f.reason.strip_prefix("git-dibs refused") {
                Some(rest) => format!("{said}{rest}"),
                None => format!("{said} `{}`: {}", g.display, f.reason),
            };
            Verdict::Ask(Finding { reason, ..f })
        }
        (v, _) => v,
    }
}

/// [`evaluate`] as though the command runs.
fn judge(g: &Guarded, facts: &Facts) -> Verdict {
    if let Some(why) = &g.unknown
        && !matches!(g.op, Op::Unreadable { .. })
    {
        let peer_op = g.op.on_peers_files();
        let dirty = match facts {
            Facts::Peers(p) | Facts::Autostash { peers: p, .. } => p.has_dirty_peers(),
            _ => false,
        };
        if peer_op && !dirty {
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
        (Op::FindDelete { .. }, Facts::Worktrees(f)) => find::check_find(g, f),
        (Op::BranchDelete { .. }, Facts::Branches(b)) => branch::check(g, b),
        (Op::PushDelete { .. }, Facts::RemoteBranches(r)) => remote::check(g, r),
        (Op::Take(takes), Facts::Peers(p)) => peers::check_take(g, takes, p),
        (Op::Autostash { .. }, Facts::Autostash { key, peers }) => {
            peers::check_autostash(g, key, peers)
        }
        (Op::Switch, Facts::Peers(p)) => peers::check_switch(g, p),
        (Op::Checkout { first, rest }, Facts::Peers(p)) => peers::check_checkout(g, first, rest, p),
        (Op::PrCreate { .. }, Facts::PullRequests { branch, existing }) => {
            pr::check(g, branch, existing)
        }
        (Op::Runs { what }, Facts::Reach(r)) => explain::check_reach(g, what, r),
        (Op::Unreadable { text }, _) => closed::unparsable(text, "shell text it runs"),
        (Op::Tamper { what, sure }, _) => self_protect::check(g, what, *sure),
        (Op::SendSnapshots, _) => self_protect::check_send(g),
        (
            Op::Rewrites {
                what,
                instead,
                sure,
            },
            _,
        ) => self_protect::check_rewrite(g, what, instead, *sure),
        (Op::StashDrop { all }, Facts::Stash(n)) => check_stash(g, *all, *n),
        (Op::PushPrune { .. }, Facts::RemoteBranches(r)) => remote::check(g, r),
        (Op::PushOver(_), Facts::Pushes(u)) => push::check(g, u),
        (Op::CleanNested { .. }, Facts::Worktrees(f)) => worktree::check_rm(g, f),
        (Op::GhDelete(_), Facts::Gh(f)) => gh::check(g, f),
        (Op::RepoDelete, _) => gh::check_repo_delete(g),
        _ => Verdict::Allow,
    }
}

/// `git stash clear` with entries is refused; `git stash drop` is put to the person (whose
/// entry it is cannot be told).
fn check_stash(g: &Guarded, all: bool, entries: usize) -> Verdict {
    if entries == 0 {
        return Verdict::Allow;
    }
    if all {
        return Verdict::Block(Finding::new(
            "stash-clear",
            format!(
                "git-dibs refused `{}`: it deletes {}, which may hold other sessions' work. \
                 Drop only your own entry (git stash list; git stash drop stash@{{N}}), or ask \
                 the person.",
                g.display,
                match entries {
                    1 => "the one stash entry".to_owned(),
                    n => format!("all {n} stash entries"),
                }
            ),
        ));
    }
    Verdict::Ask(Finding::new(
        "stash-drop",
        format!(
            "git-dibs cannot tell whose stash entry `{}` deletes ({entries} held). Check it is \
             yours (git stash show -p stash@{{N}}), or ask the person.",
            g.display
        ),
    ))
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

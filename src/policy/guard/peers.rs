//! Rule 5: another live session's uncommitted files. Sweeping them into your own commit (`git
//! add -A`/`.`/`-u`, `git add PATH`, `commit -a`, `commit` with their files staged), taking or
//! discarding them (`stash`, `reset --hard`, `checkout .`, `restore`, `clean`), or switching the
//! branch under them is refused. Your own files named by explicit path always pass; with no live
//! peer holding dirty files in the worktree, nothing here applies.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::pathspec::{self, Spec};
use super::{Finding, Guarded, Verdict, list, show_path};
use crate::git::FileState;

/// Which files of the worktree a command takes or discards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    /// Tracked files with changes (staged or not).
    pub(crate) tracked: bool,
    /// Only files with staged changes (`git commit` without `-a`, `stash --staged`).
    pub(crate) staged_only: bool,
    /// Untracked files.
    pub(crate) untracked: bool,
    /// Pathspecs as written; `None` means the whole tree.
    pub(crate) paths: Option<Vec<String>>,
    /// `true` when no pathspec means the command's own directory rather than the whole tree.
    pub(crate) prefix_default: bool,
    /// Pathspecs match case-insensitively (`--icase-pathspecs`, `GIT_ICASE_PATHSPECS`).
    pub(crate) icase: bool,
    /// Ignored files (`git clean -x`, `-X`).
    pub(crate) ignored: bool,
    /// The first pathspec may be a revision (`git reset REV`, `checkout -p REV`): when the
    /// facts find it names a commit it is no path (and alone, the whole tree is taken).
    pub(crate) rev_first: bool,
    /// Only the index is put back; the files stay as they are (`git reset`, `restore
    /// --staged`, `rm --cached`): what is staged is lost, for the message.
    pub(crate) unstages: bool,
    /// Whether the command changes the files it reaches is only known when it runs (why, as
    /// the end of "which files `CMD` changes: ..."): a peer's file among them is asked about,
    /// not refused (`git show X | git apply -R`, `vidir src`, `cpio -i`).
    pub(crate) maybe: Option<String>,
}

impl Take {
    pub(super) fn new(tracked: bool, untracked: bool, paths: Vec<String>) -> Take {
        Take {
            tracked,
            staged_only: false,
            untracked,
            paths: (!paths.is_empty()).then_some(paths),
            prefix_default: false,
            icase: false,
            ignored: false,
            rev_first: false,
            unstages: false,
            maybe: None,
        }
    }

    /// A take of files the command may or may not change, which only running it tells (`why`).
    pub(super) fn maybe(self, why: impl Into<String>) -> Take {
        Take {
            maybe: Some(why.into()),
            ..self
        }
    }

    /// A take by a program that deletes whatever is at its paths (`rm`, `mv`): ignored files
    /// too.
    pub(super) fn removal(paths: Vec<String>) -> Take {
        Take {
            ignored: true,
            ..Take::new(true, true, paths)
        }
    }

    fn kind_matches(&self, f: &FileState) -> bool {
        if f.ignored() {
            self.ignored
        } else if f.untracked() {
            self.untracked
        } else {
            self.tracked || (self.staged_only && f.staged())
        }
    }
}

/// A live peer and its files that are dirty now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// How it is named in messages (host, short id, label).
    pub(crate) name: String,
    /// Its files in this worktree that are modified, staged or untracked now.
    pub(crate) files: Vec<FileState>,
}

/// The worktree a command acts on, with its live peers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PeerFacts {
    /// The worktree root.
    pub(crate) root: PathBuf,
    /// The branch checked out there.
    pub(crate) branch: Option<String>,
    /// The command's directory relative to the root (`""` at the root).
    pub(crate) prefix: String,
    /// Live peers holding dirty files here.
    pub(crate) peers: Vec<Peer>,
    /// Files the session itself holds here.
    pub(crate) mine: BTreeSet<String>,
    /// For `git checkout X ...` (and a take whose first pathspec may be a revision): whether
    /// X names a commit.
    pub(crate) first_is_rev: bool,
    /// For a switch: it goes to the commit already checked out, so no file changes.
    pub(crate) same_commit: bool,
    /// Host settings files here that wire git-dibs's hooks and exist only in the worktree
    /// (untracked, or changed from a commit that does not wire them).
    pub(crate) wiring: Vec<FileState>,
}

impl PeerFacts {
    /// Whether some live peer holds a dirty file here.
    pub(crate) fn has_dirty_peers(&self) -> bool {
        self.peers.iter().any(|p| !p.files.is_empty())
    }

    fn place(&self) -> String {
        match &self.branch {
            Some(b) => format!("worktree {} (branch {b})", show_path(&self.root)),
            None => format!("worktree {}", show_path(&self.root)),
        }
    }
}

/// Rule 5 for commands that take files: refuse when one of a live peer's dirty files is among
/// them (unless the session itself holds it and named it by explicit path).
pub(crate) fn check_take(g: &Guarded, takes: &[Take], facts: &PeerFacts) -> Verdict {
    let taken = |f: &FileState, sure: bool| {
        takes
            .iter()
            .any(|t| t.maybe.is_none() == sure && takes_file(t, f, facts))
    };
    let wiring: Vec<&FileState> = facts
        .wiring
        .iter()
        .filter(|f| taken(f, true) || taken(f, false))
        .collect();
    if !wiring.is_empty() {
        let shown: Vec<String> = wiring.iter().map(|f| f.porcelain()).collect();
        let what = format!(
            "an agent host's hook wiring ({}, in the worktree only: commit it first)",
            list(&shown)
        );
        let sure = wiring.iter().any(|f| taken(f, true));
        return super::self_protect::check(g, &what, sure);
    }
    let hits = |sure: bool| -> Vec<(&Peer, Vec<&FileState>)> {
        let mut hit = Vec::new();
        for peer in &facts.peers {
            let files: Vec<&FileState> = peer.files.iter().filter(|f| taken(f, sure)).collect();
            if !files.is_empty() {
                hit.push((peer, files));
            }
        }
        hit
    };
    let hit = hits(true);
    if hit.is_empty() {
        return check_maybe(g, takes, facts, &hits(false));
    }
    let staging = g
        .git
        .as_ref()
        .and_then(|i| i.args.first())
        .is_some_and(|s| s == "add" || s == "commit");
    if takes.iter().all(|t| t.unstages) {
        return Verdict::Block(Finding::new(
            "peer-files",
            format!(
                "git-dibs refused `{}`: in {} it would unstage what another live session staged \
                 (the staged version is kept nowhere else): {}. Unstage only your own files, by \
                 explicit path (git restore --staged <your files>), or ask the person.",
                g.display,
                facts.place(),
                describe_peers(&hit)
            ),
        ));
    }
    let instead = if staging {
        "Stage and commit only your own files, by explicit path (git add <your files>; git \
         commit -- <your files>), or ask the person."
    } else {
        "Leave those files alone: act on your own files by explicit path, or ask the person to \
         coordinate with that session."
    };
    Verdict::Block(Finding::new(
        "peer-files",
        format!(
            "git-dibs refused `{}`: in {} it would take uncommitted work of another live session: \
         {}. {instead}",
            g.display,
            facts.place(),
            describe_peers(&hit)
        ),
    ))
}

/// A take whose effect only running the command tells, over a live peer's dirty files: asked.
fn check_maybe(
    g: &Guarded,
    takes: &[Take],
    facts: &PeerFacts,
    hit: &[(&Peer, Vec<&FileState>)],
) -> Verdict {
    if hit.is_empty() {
        return Verdict::Allow;
    }
    let why = takes.iter().find_map(|t| t.maybe.as_deref()).unwrap_or("");
    Verdict::Ask(Finding::new(
        "peer-files",
        format!(
            "git-dibs cannot tell which files `{}` changes: {why}. In {} it reaches uncommitted \
             work of another live session: {}. Limit it to your own files, by explicit path, or ask \
             the person.",
            g.display,
            facts.place(),
            describe_peers(hit)
        ),
    ))
}

/// A pull, merge or rebase that git config makes stash every tracked change first (`key` is
/// set): refused like `git stash` over a live peer's files.
pub(crate) fn check_autostash(g: &Guarded, key: &str, facts: &PeerFacts) -> Verdict {
    match check_take(g, &[Take::new(true, false, Vec::new())], facts) {
        Verdict::Block(mut f) => {
            f.reason = f
                .reason
                .replacen(
                    "it would take uncommitted work",
                    &format!("with {key} set, it would stash uncommitted work"),
                    1,
                )
                .replacen(
                    "Leave those files alone: act on your own files by explicit path, or ask the \
                     person to coordinate with that session.",
                    "Add --no-autostash (git then stops rather than stash them), or ask the person.",
                    1,
                );
            Verdict::Block(f)
        }
        v => v,
    }
}

fn takes_file(take: &Take, f: &FileState, facts: &PeerFacts) -> bool {
    if !take.kind_matches(f) {
        return false;
    }
    let specs: Vec<Spec> = match &take.paths {
        None if take.prefix_default => vec![pathspec::resolve(".", &facts.prefix, &facts.root)]
            .into_iter()
            .flatten()
            .collect(),
        None => Vec::new(),
        Some(raw) if take.rev_first && facts.first_is_rev && raw.len() == 1 => Vec::new(),
        Some(raw) => {
            let skip = usize::from(take.rev_first && facts.first_is_rev);
            let specs: Vec<Spec> = raw[skip..]
                .iter()
                .filter_map(|s| pathspec::resolve(s, &facts.prefix, &facts.root))
                .map(|mut s| {
                    s.icase |= take.icase;
                    s
                })
                .collect();
            if specs.is_empty() {
                return false;
            }
            specs
        }
    };
    if !pathspec::selects(&specs, &f.path) {
        return false;
    }
    !(crate::policy::claims::may_commit_co_held(&facts.mine, &f.path)
        && pathspec::names_exactly(&specs, &f.path))
}

fn state_word(f: &FileState) -> &'static str {
    if f.ignored() {
        "ignored by git, written with its edit tool"
    } else if f.untracked() {
        "untracked"
    } else if f.staged() {
        "staged"
    } else if f.worktree == 'D' {
        "deleted"
    } else {
        "modified"
    }
}

fn describe_peers(hit: &[(&Peer, Vec<&FileState>)]) -> String {
    hit.iter()
        .map(|(peer, files)| {
            let names: Vec<String> = files
                .iter()
                .map(|f| format!("{} ({})", f.path, state_word(f)))
                .collect();
            format!("{} holds {}", peer.name, list(&names))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Rule 5 for a branch switch: refuse while a live peer has dirty files in the worktree.
pub(crate) fn check_switch(g: &Guarded, facts: &PeerFacts) -> Verdict {
    if facts.same_commit {
        return Verdict::Allow;
    }
    let hit: Vec<(&Peer, Vec<&FileState>)> = facts
        .peers
        .iter()
        .filter(|p| !p.files.is_empty())
        .map(|p| (p, p.files.iter().collect()))
        .collect();
    if hit.is_empty() {
        return Verdict::Allow;
    }
    Verdict::Block(Finding::new(
        "peer-switch",
        format!(
            "git-dibs refused `{}`: it moves the branch of {} under another live session with \
         uncommitted files there: {}. Work in a worktree of your own instead (git worktree add \
         ../<name> -b <name>), or ask the person.",
            g.display,
            facts.place(),
            describe_peers(&hit)
        ),
    ))
}

/// `git checkout X [PATHS]` without `--`: a switch when X names a commit and no paths follow,
/// paths from X when some do, else all operands are paths.
pub(crate) fn check_checkout(
    g: &Guarded,
    first: &str,
    rest: &[String],
    facts: &PeerFacts,
) -> Verdict {
    if facts.first_is_rev && rest.is_empty() {
        return check_switch(g, facts);
    }
    let paths: Vec<String> = if facts.first_is_rev {
        rest.to_vec()
    } else {
        std::iter::once(first.to_owned())
            .chain(rest.iter().cloned())
            .collect()
    };
    check_take(g, &[Take::new(true, false, paths)], facts)
}

/// For `git switch`/`git checkout` args (subcommand first): the commit it goes to, when the
/// command leaves every file alone if that commit is the one checked out (no `-f`, `--merge`,
/// `--orphan`, paths). `HEAD` when it names none (`switch -c NEW`, `checkout --detach`).
pub(crate) fn switch_target(args: &[String]) -> Option<String> {
    let (sub, rest) = args.split_first()?;
    if sub == "symbolic-ref" {
        // `git symbolic-ref [-m MSG] HEAD REF`.
        let ops: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
        return match ops.as_slice() {
            [.., head, target] if *head == "HEAD" => Some((*target).clone()),
            _ => None,
        };
    }
    let valued: &[&str] = match sub.as_str() {
        "switch" => &["-c", "-C", "--create", "--force-create"],
        "checkout" => &["-b", "-B"],
        _ => return None,
    };
    let mut operands = Vec::new();
    let mut it = rest.iter();
    while let Some(w) = it.next() {
        let w = w.as_str();
        if valued.contains(&w) {
            it.next();
        } else if matches!(
            w,
            "-f" | "--force"
                | "--discard-changes"
                | "-m"
                | "--merge"
                | "--orphan"
                | "-p"
                | "--patch"
                | "--"
        ) || (w.starts_with('-')
            && w.len() > 2
            && !w.starts_with("--")
            && w.contains('f'))
        {
            return None;
        } else if !w.starts_with('-') {
            operands.push(w);
        }
    }
    match operands.as_slice() {
        [] => Some("HEAD".to_owned()),
        ["-"] => Some("@{-1}".to_owned()),
        [one] => Some((*one).to_owned()),
        _ => None,
    }
}

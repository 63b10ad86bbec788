//! Gathering the facts each guarded command needs: worktrees below a removal (and their status,
//! HEAD and unpushed commits), branch tips, remote branches and their pull requests, and live
//! peers' dirty files. Errors are returned, never turned into "nothing at risk".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::git::{self, Repo, Worktree};
use crate::policy::claims::{describe, describe_to};
use crate::policy::guard::{BranchState, Facts, Guarded, Op, RemoteBranchState};
use crate::protocol::Event;
use crate::store::{self, Actor, Store};

use super::peers::peers_anywhere;
pub(super) use super::worktrees::worktree_state;
use super::worktrees::{tree, worktree_remove};

/// How many commits a fact lists at most.
pub(super) const COMMIT_LIMIT: usize = 50;
/// How deep and how wide the search for worktrees below an `rm -r` target goes.
pub(super) const SCAN_DEPTH: usize = 4;
pub(super) const SCAN_ENTRIES: usize = 5000;

/// Every ref the command line deletes or points elsewhere: none of them keeps another's
/// commits (`git push origin --delete B && git branch -D B` drops the only two copies).
#[derive(Debug, Default)]
pub(super) struct Going {
    /// Local branches (`HEAD`, `*` as the branch rule names them).
    pub(super) branches: Vec<String>,
    /// Remote branches a push deletes: the remote as written, and the branch.
    pub(super) pushed: Vec<(String, String)>,
}

impl Going {
    /// The full names of the refs going, as `repo` resolves the remotes: `refs/heads/B` and
    /// `refs/remotes/R/B` (a push deleting B removes its remote-tracking ref too).
    fn refs(&self, repo: &Repo) -> (Vec<String>, Vec<String>) {
        let heads = self
            .branches
            .iter()
            .filter(|b| *b != "*" && *b != "HEAD")
            .map(|b| format!("refs/heads/{b}"))
            .collect();
        let remotes = self
            .pushed
            .iter()
            .map(|(r, b)| {
                let name = repo.remote_named(r).unwrap_or_else(|| r.clone());
                format!("refs/remotes/{name}/{b}")
            })
            .collect();
        (heads, remotes)
    }
}

/// Gather the facts `g` needs, and the common dir of the clone it acts on (for the audit).
pub(super) fn gather(
    event: &Event,
    g: &Guarded,
    going: &Going,
) -> Result<(Facts, Option<PathBuf>)> {
    let peer_op = matches!(
        g.op,
        Op::Take(_) | Op::Switch | Op::Checkout { .. } | Op::Autostash { .. }
    );
    if g.unknown.is_some() && !peer_op {
        let here = git::locate(&g.cwd, Path::new(".")).map(|l| l.worktree.common_dir);
        return Ok((Facts::None, here));
    }
    let wt = match &g.git {
        Some(inv) => git::invocation_worktree(inv),
        // `rm`, `mv` of files, a ref file: the worktree the first path is in.
        None => first_path(&g.op)
            .and_then(|p| git::locate(&canonical_lenient(&p), Path::new(".")))
            .or_else(|| git::locate(&g.cwd, Path::new(".")))
            .map(|l| l.worktree),
    };
    // A directory that cannot be followed: judged from where the session is.
    let wt = wt.or_else(|| {
        g.unknown
            .as_ref()
            .and_then(|_| git::locate(&event.cwd, Path::new(".")))
            .map(|l| l.worktree)
    });
    let anchor = wt.as_ref().map(|w| w.common_dir.clone());
    let facts = match &g.op {
        Op::Opaque
        | Op::Unreadable { .. }
        | Op::Tamper { .. }
        | Op::SendSnapshots
        | Op::Rewrites { .. } => Facts::None,
        Op::Runs { .. } => match &wt {
            Some(wt) => Facts::Reach(super::reach::reach(event, g, wt)?),
            None => Facts::None,
        },
        Op::StashDrop { .. } => match &wt {
            Some(wt) => Facts::Stash(Repo::open(&wt.git_dir)?.stash_entries()),
            None => Facts::None,
        },
        Op::PushPrune { remote } => match &wt {
            Some(wt) => {
                let repo = Repo::open(&wt.git_dir)?;
                let name = repo
                    .remote_named(remote)
                    .unwrap_or_else(|| remote.to_owned());
                let local: BTreeSet<String> =
                    repo.local_branches().into_iter().map(|(n, _)| n).collect();
                let gone: Vec<String> = repo
                    .remote_branches(&name)
                    .into_iter()
                    .filter(|b| !local.contains(b))
                    .collect();
                Facts::RemoteBranches(remote_branches(wt, remote, &gone, going)?)
            }
            None => Facts::None,
        },
        Op::CleanNested { dir } => {
            let dir = g.cwd.join(dir);
            let (mut facts, anchor) = tree(event, &g.cwd, std::slice::from_ref(&dir))?;
            // The worktree being cleaned keeps its tracked files: only nested ones are lost.
            let here = canonical_lenient(&dir);
            facts.worktrees.retain(|w| !here.starts_with(&w.root));
            return Ok((Facts::Worktrees(facts), anchor));
        }
        Op::WorktreeRemove { target } => {
            // git finds the repository from its directory, but the target may name a worktree
            // of it from anywhere: look from the target too (`git -C /tmp worktree remove X`).
            let resolved = canonical_lenient(&g.cwd.join(target));
            let via_target = git::locate(&resolved, Path::new(".")).map(|l| l.worktree);
            // Run from inside a git dir (`git -C .git worktree remove l1`, a bare repository),
            // git works on that repository's worktrees: found by what is on disk.
            let common = wt
                .as_ref()
                .or(via_target.as_ref())
                .map(|w| w.common_dir.clone())
                .or_else(|| {
                    let inv = g.git.as_ref()?;
                    let dir = inv.git_dir.as_deref().unwrap_or(&inv.cwd);
                    git::gitdir::common_dir_from(&canonical_lenient(dir))
                });
            match common {
                Some(common) => {
                    let facts = worktree_remove(event, &common, resolved, target)?;
                    return Ok((Facts::Worktrees(facts), Some(common)));
                }
                None => Facts::None,
            }
        }
        Op::RemoveTree { paths } => {
            let (facts, anchor) = tree(event, &g.cwd, paths)?;
            return Ok((Facts::Worktrees(facts), anchor));
        }
        Op::FindDelete { paths, follow, .. } => {
            // Links it follows lead it wherever they point: those folders are searched too.
            let paths = match follow {
                Some(all) => super::worktrees::through_links(paths, *all)?,
                None => paths.clone(),
            };
            let (facts, anchor) = tree(event, &g.cwd, &paths)?;
            return Ok((Facts::Worktrees(facts), anchor));
        }
        Op::BranchDelete { names, onto } => match &wt {
            Some(wt) => {
                // `reset`, `commit --amend` and `rebase --onto`: judged by who made the
                // commits they drop.
                let reset = g
                    .git
                    .as_ref()
                    .and_then(|i| i.args.first())
                    .is_some_and(|s| matches!(s.as_str(), "reset" | "commit" | "rebase"));
                let mut found = branches(wt, names, onto.as_deref(), going, reset)?;
                if reset {
                    made_by_peers(event, wt, &mut found)?;
                }
                Facts::Branches(found)
            }
            None => Facts::None,
        },
        Op::PushOver(req) => match &wt {
            Some(wt) => {
                // `git -c remote.origin.push=+main:x push` forces through its own config.
                let mut req = req.clone();
                req.config = g.git.as_ref().map(|i| i.config.clone()).unwrap_or_default();
                Facts::Pushes(git::forced_updates(&wt.root, &req, COMMIT_LIMIT)?)
            }
            None => Facts::None,
        },
        Op::GhDelete(d) => match &wt {
            Some(wt) => Facts::Gh(super::gh::gh_facts(event, g, wt, d, going)?),
            None => Facts::None,
        },
        Op::RepoDelete => Facts::None,
        Op::PushDelete { remote, branches } => match &wt {
            Some(wt) => Facts::RemoteBranches(remote_branches(wt, remote, branches, going)?),
            None => Facts::None,
        },
        Op::PrCreate { head } => {
            let here = git::locate(&g.cwd, Path::new("."));
            let branch = head
                .clone()
                .or_else(|| here.as_ref().and_then(|l| l.worktree.branch()));
            let anchor = here.map(|l| l.worktree.common_dir);
            let facts = match branch {
                Some(branch) => Facts::PullRequests {
                    existing: git::pull_requests(&g.cwd, &branch),
                    branch,
                },
                None => Facts::None,
            };
            return Ok((facts, anchor));
        }
        Op::Take(_) | Op::Switch | Op::Checkout { .. } => match &wt {
            Some(wt) => Facts::Peers(peers_anywhere(event, g, wt)?),
            None => Facts::None,
        },
        Op::Autostash { rebase } => {
            let key = g.git.as_ref().and_then(|i| git::autostash_set(i, *rebase));
            match (&wt, key) {
                (Some(wt), Some(key)) => Facts::Autostash {
                    key: key.to_owned(),
                    peers: peers_anywhere(event, g, wt)?,
                },
                _ => Facts::None,
            }
        }
    };
    Ok((facts, anchor))
}

/// The first literal path a non-git operation names.
fn first_path(op: &Op) -> Option<PathBuf> {
    let spec = match op {
        Op::Take(takes) => takes.first()?.paths.as_ref()?.first()?.clone(),
        _ => return None,
    };
    let p = PathBuf::from(spec.strip_prefix(":(literal)")?);
    p.parent().map(Path::to_path_buf)
}

/// Canonical as far as the path exists; the rest appended, `.` and `..` folded.
pub(super) fn canonical_lenient(path: &Path) -> PathBuf {
    git::normalize(Path::new(""), path)
}

/// The branches `names` deletes or points at `onto`: `HEAD` stands for the branch it points at
/// (or a detached HEAD), `*` for every local branch. A commit another local branch holds is not
/// lost, unless that branch goes too (`going`, from the whole command line).
pub(super) fn branches(
    wt: &Worktree,
    names: &[String],
    onto: Option<&str>,
    going: &Going,
    reset: bool,
) -> Result<Vec<BranchState>> {
    let repo = Repo::open(&wt.git_dir)?;
    let (_, gone_remote) = going.refs(&repo);
    let going = &going.branches;
    let onto = match onto {
        // A revision that names no commit may be anything: judged as a deletion. For `git
        // reset X`, an X that names no commit is a path: no branch moves.
        Some(rev) => match repo.commit_id(rev) {
            // A target only known when the line runs (`"$(git rev-parse HEAD~1)"`) may be any
            // commit: judged as the deletion it may be.
            None if reset && !(rev.contains('$') || rev.contains('`')) => return Ok(Vec::new()),
            found => found,
        },
        None => None,
    };
    // `HEAD` in the line stands for the branch it names.
    let head = repo.head_target();
    let mut going: Vec<String> = going.clone();
    if let Some(git::Head::Branch(b)) = &head
        && going.iter().any(|g| g == "HEAD")
    {
        going.push(b.clone());
    }
    let mut out = Vec::new();
    let mut state = |name: String, tip: Option<String>, detached: bool| -> Result<()> {
        let mut going = going.clone();
        going.push(name.clone());
        let unpushed = match &tip {
            Some(t) => {
                repo.unpushed_not_in(t, onto.as_deref(), &going, &gone_remote, COMMIT_LIMIT)?
            }
            None => Vec::new(),
        };
        out.push(BranchState {
            name,
            tip,
            unpushed,
            detached,
            made_by: Vec::new(),
        });
        Ok(())
    };
    for name in names {
        match name.as_str() {
            "*" => {
                for (b, tip) in repo.local_branches() {
                    state(b, Some(tip), false)?;
                }
            }
            "HEAD" => match &head {
                Some(git::Head::Branch(b)) => {
                    let tip = repo.branch_tip(b);
                    state(b.clone(), tip, false)?;
                }
                Some(git::Head::Detached(c)) => {
                    state("HEAD (detached)".into(), Some(c.clone()), true)?;
                }
                None => state(name.clone(), None, false)?,
            },
            _ => {
                let tip = repo.branch_tip(name);
                state(name.clone(), tip, false)?;
            }
        }
    }
    Ok(out)
}

/// For each branch, the live sessions other than the event's actor that made some of its
/// unpushed commits (as the store remembers who made them).
fn made_by_peers(event: &Event, wt: &Worktree, found: &mut [BranchState]) -> Result<()> {
    if found.iter().all(|b| b.unpushed.is_empty()) {
        return Ok(());
    }
    let store = Store::open(&wt.common_dir)?;
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    for b in found.iter_mut() {
        let ids: Vec<&str> = b.unpushed.iter().map(|c| c.id.as_str()).collect();
        for s in store.sessions_that_made(&ids)? {
            if !s.is(Actor::from(event)) && s.is_alive(now, ttl) {
                b.made_by.push(describe_to(&s, &event.session_id));
            }
        }
    }
    Ok(())
}

/// Live sessions on other machines, known from the last `git dibs sync`, working on `branch`.
fn working_on(wt: &Worktree, branch: &str) -> Vec<String> {
    let Ok(sessions) = Store::open(&wt.common_dir).and_then(|s| s.everyone()) else {
        return Vec::new();
    };
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    sessions
        .iter()
        .filter(|s| s.origin.is_some() && s.branch.as_deref() == Some(branch))
        .filter(|s| s.is_alive(now, ttl))
        .map(describe)
        .collect()
}

pub(super) fn remote_branches(
    wt: &Worktree,
    remote: &str,
    branches: &[String],
    going: &Going,
) -> Result<Vec<RemoteBranchState>> {
    let repo = Repo::open(&wt.git_dir)?;
    let name = repo
        .remote_named(remote)
        .unwrap_or_else(|| remote.to_owned());
    let (heads, remotes) = going.refs(&repo);
    let gone: Vec<String> = heads.into_iter().chain(remotes).collect();
    let mut out = Vec::new();
    for b in branches {
        let only = repo.only_on_remote_branch(&name, b, &gone, COMMIT_LIMIT)?;
        let unfetched = only.is_none();
        let only_copy = only.unwrap_or_default();
        let pr = git::open_pull_request(&wt.root, b);
        out.push(RemoteBranchState {
            remote: name.clone(),
            branch: b.clone(),
            only_copy,
            pr,
            remote_sessions: working_on(wt, b),
            unfetched,
        });
    }
    Ok(out)
}

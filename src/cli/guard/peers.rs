//! The live peers' files a guarded command could take: each live session's held files in the
//! worktree (under a path git moved too) that are dirty, the peers' ignored edit-tool files for
//! a command that deletes ignored files, and the hook wiring only this worktree's copy has.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::git::{self, Repo, Worktree};
use crate::policy::claims::describe_to;
use crate::policy::guard::{Guarded, Op, Peer, PeerFacts};
use crate::protocol::Event;
use crate::store::{self, Actor, Session, Store};

use super::facts::canonical_lenient;

/// Up to this many files held by peers, their status is read file by file.
const PER_FILE_STATUS: usize = 256;

/// The host settings files of the worktree at `root` that wire git-dibs's hooks and would be
/// gone with the worktree's copy: untracked, or modified from a HEAD whose copy does not wire
/// them. Nothing is read unless such a file exists.
fn wiring_only_here(root: &Path) -> Result<Vec<git::FileState>> {
    let wires = |bytes: &[u8]| {
        bytes.windows(8).any(|w| w == b"git-dibs") || bytes.windows(8).any(|w| w == b"git dibs")
    };
    let present: Vec<&str> = crate::protocol::settings::PROJECT_FILES
        .into_iter()
        .filter(|f| git::read_worktree_file(&root.join(f)).is_some_and(|b| wires(&b)))
        .collect();
    if present.is_empty() {
        return Ok(Vec::new());
    }
    let mut states = Repo::open(root)?.status_of(present.iter().copied())?;
    let cli = git::cli::CliRepo::open(root, None);
    // Not in the status: tracked and clean (safe in HEAD), or ignored (only here).
    for f in present {
        if !states.iter().any(|s| s.path == f) && cli.is_ignored(Path::new(f)) {
            states.push(git::FileState {
                path: f.to_owned(),
                index: '!',
                worktree: '!',
            });
        }
    }
    Ok(states
        .into_iter()
        .filter(|f| {
            f.untracked()
                || f.ignored()
                || !cli
                    .file_of("HEAD", &f.path, 1 << 20)
                    .is_some_and(|b| wires(&b))
        })
        .collect())
}

/// The peers of `wt`; when the command's directory is not known, of whichever worktree of the
/// clone has live peers with dirty files (the command may run in any of them).
pub(super) fn peers_anywhere(event: &Event, g: &Guarded, wt: &Worktree) -> Result<PeerFacts> {
    let facts = peers(event, g, wt)?;
    if g.unknown.is_none() || facts.has_dirty_peers() {
        return Ok(facts);
    }
    for root in git::worktree_roots(&wt.common_dir) {
        if root == wt.root {
            continue;
        }
        if let Some(other) = git::worktree_at(&root) {
            let f = peers(event, g, &other)?;
            if f.has_dirty_peers() {
                return Ok(f);
            }
        }
    }
    Ok(facts)
}

/// The live peers of the event's actor in `wt` and the dirty files they hold there, with what the
/// policy needs beside them (the actor's own files, the wiring only here, what a revision names).
/// Before a command that may take peers' files: the dirty files here held by sessions that are
/// gone (their host died, or their lease ran out) go into their snapshots first, as they are,
/// so whatever the guard then lets through finds them kept. An edit whose host died before
/// its post-tool hook (a first edit of a tracked file, which no sweep watches) is kept so.
/// Costs nothing without such a session; one status of their files with one.
fn keep_what_the_gone_left(
    store: &Store,
    wt: &Worktree,
    gone: &[&Session],
    is_here: &impl Fn(&Path) -> bool,
) {
    let held = |s: &Session| -> Vec<String> {
        s.files
            .iter()
            .filter(|f| is_here(&f.key.worktree))
            .map(|f| f.key.path.clone())
            .collect()
    };
    let all: BTreeSet<String> = gone.iter().flat_map(|s| held(s)).collect();
    if all.is_empty() {
        return;
    }
    let Ok(dirty) = git::uncommitted_files(&wt.root, &all.into_iter().collect::<Vec<_>>()) else {
        return;
    };
    for s in gone {
        let files: Vec<String> = held(s).into_iter().filter(|p| dirty.contains(p)).collect();
        crate::cli::hook::snap::keep_for(store, wt, &s.id, s.host.name(), &files);
    }
}

pub(super) fn peers(event: &Event, g: &Guarded, wt: &Worktree) -> Result<PeerFacts> {
    let root = &wt.root;
    let cwd = canonical_lenient(&g.cwd);
    let prefix = cwd
        .strip_prefix(root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut facts = PeerFacts {
        root: root.clone(),
        branch: wt.branch(),
        prefix,
        ..PeerFacts::default()
    };
    if let Some(inv) = &g.git
        && matches!(g.op, Op::Take(_) | Op::Checkout { .. })
        && !matches!(inv.args.first().map(String::as_str), Some("add" | "commit"))
    {
        facts.wiring = wiring_only_here(root)?;
    }
    let store = Store::open(&wt.common_dir)?;
    let mut sessions = store.sessions()?;
    // A session whose record was set aside still holds, through the index, its dirty files.
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let dirty_here = || {
        Repo::open(root)
            .and_then(|r| r.status())
            .map(|s| s.into_iter().map(|f| f.path).collect())
            .unwrap_or_default()
    };
    sessions.extend(store.stand_ins_holding(root, dirty_here, store::now_secs(), ttl));
    // A worktree git moved keeps its sessions' files under its old path in the store.
    let mut here: Vec<PathBuf> = git::former_roots(
        wt,
        sessions
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.key.worktree.as_path())),
    );
    here.push(root.clone());
    let is_here = |p: &Path| here.iter().any(|h| h == p);
    let holds_here = |s: &Session| s.files.iter().any(|f| is_here(&f.key.worktree));
    // A session on another machine has its files there: no command here can take them.
    let others: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.origin.is_none())
        .filter(|s| !s.is(Actor::from(event)) && s.ended.is_none() && holds_here(s))
        .collect();
    if others.is_empty() {
        return Ok(facts);
    }
    let now = store::now_secs();
    let (live, gone): (Vec<&Session>, Vec<&Session>) =
        others.into_iter().partition(|s| s.is_alive(now, ttl));
    keep_what_the_gone_left(&store, wt, &gone, &is_here);
    let others = live;
    if others.is_empty() {
        return Ok(facts);
    }
    let repo = Repo::open(root)?;
    let held: BTreeSet<&str> = others
        .iter()
        .flat_map(|s| s.files.iter())
        .filter(|f| is_here(&f.key.worktree))
        .map(|f| f.key.path.as_str())
        .collect();
    // Asking about each held file beats a full status unless the peers hold a lot of them.
    let states = if held.len() <= PER_FILE_STATUS {
        repo.status_of(held.iter().copied())?
    } else {
        repo.status()?
    };
    let dirty: BTreeMap<String, git::FileState> =
        states.into_iter().map(|f| (f.path.clone(), f)).collect();
    // A command that deletes ignored files (`clean -x`/`-X`, `rm -r`) also takes the peers'
    // own edit-tool files git ignores.
    let takes_ignored = matches!(&g.op, Op::Take(t) if t.iter().any(|t| t.ignored));
    let listed: BTreeSet<&str> = dirty.keys().map(String::as_str).collect();
    for s in others {
        let mut files: Vec<git::FileState> = s
            .files
            .iter()
            .filter(|f| is_here(&f.key.worktree))
            .filter_map(|f| dirty.get(&f.key.path).cloned())
            .collect();
        if takes_ignored {
            files.extend(super::ignored::held_ignored(&store, s, root, &listed));
        }
        if !files.is_empty() {
            facts.peers.push(Peer {
                name: describe_to(s, &event.session_id),
                files,
            });
        }
    }
    if let Some(me) = sessions.iter().find(|s| s.is(Actor::from(event))) {
        facts.mine = me
            .files
            .iter()
            .filter(|f| is_here(&f.key.worktree))
            .map(|f| f.key.path.clone())
            .collect();
    }
    let first = match &g.op {
        Op::Checkout { first, .. } => Some(first),
        Op::Take(takes) => takes
            .iter()
            .find(|t| t.rev_first)
            .and_then(|t| t.paths.as_ref()?.first()),
        _ => None,
    };
    if let Some(first) = first {
        facts.first_is_rev = repo.is_rev(first);
    }
    if matches!(g.op, Op::Switch | Op::Checkout { .. })
        && let Some(target) = g
            .git
            .as_ref()
            .and_then(|i| crate::policy::guard::peers::switch_target(&i.args))
    {
        facts.same_commit = repo.is_head_commit(&target);
    }
    Ok(facts)
}

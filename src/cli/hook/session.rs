//! Session-level hook calls: registering at start (with the disclosure of peers and the `/clear`
//! hand-over), releasing at end, and the prompt-time block about shared warm files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::facts::Ctx;
use crate::agent::AgentProcess;
use crate::git::{self, Worktree};
use crate::policy::awareness::{self, Peer, Sharing};
use crate::policy::claims;
use crate::protocol::{Response, StartSource};
use crate::store::{self, Actor, Change, FileKey, Session, SessionHead, Store, StoreError};
use crate::text;

/// Export `DIBS_SESSION` for the session's later shell commands, when the host gives a file.
fn export_session_id(id: &str) {
    let Some(path) = std::env::var_os("CLAUDE_ENV_FILE").filter(|p| !p.is_empty()) else {
        return;
    };
    let quoted = format!("'{}'", id.replace('\'', r"'\''"));
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "export DIBS_SESSION={quoted}");
    }
}

/// Worktrees of the clone that share a checkout with `wt`: itself, and any worktree whose root
/// is inside it or contains it.
pub(super) fn related_worktrees(wt: &Worktree) -> Vec<PathBuf> {
    let mut roots = vec![wt.root.clone()];
    for other in git::worktree_roots(&wt.common_dir) {
        if other != wt.root && (other.starts_with(&wt.root) || wt.root.starts_with(&other)) {
            roots.push(other);
        }
    }
    roots
}

/// How many peers the session-start block names one by one, with their dirty files; the rest
/// are counted. Three, as the co-edit warning and the prompt block.
const SHOWN_PEERS: usize = 3;

/// Dirty files of each of `sessions`: one check per worktree involved, over just the files
/// those sessions hold (`here` is already located); `None` for a session holding files in a
/// worktree git could not read.
fn dirty_files(sessions: &[Session], here: &Worktree, store: &Store) -> Vec<Option<Vec<String>>> {
    let mut held: BTreeMap<&Path, Vec<String>> = BTreeMap::new();
    for f in sessions.iter().flat_map(|s| &s.files) {
        held.entry(f.key.worktree.as_path())
            .or_default()
            .push(f.key.path.clone());
    }
    let dirty: BTreeMap<&Path, Option<BTreeSet<String>>> = held
        .into_iter()
        .map(|(root, paths)| (root, uncommitted(root, here, &paths, store)))
        .collect();
    sessions
        .iter()
        .map(|s| {
            let mut files = Vec::new();
            for f in &s.files {
                match dirty.get(f.key.worktree.as_path()) {
                    Some(None) => return None,
                    Some(Some(d)) if d.contains(&f.key.path) => files.push(f.key.path.clone()),
                    _ => {}
                }
            }
            Some(files)
        })
        .collect()
}

/// Of `paths` in the worktree at `root`, those that differ from HEAD; `None` when git cannot
/// tell (a worktree that is gone holds nothing uncommitted); `here` is a worktree already
/// located, used when it is that one.
fn uncommitted(
    root: &Path,
    here: &Worktree,
    paths: &[String],
    store: &Store,
) -> Option<BTreeSet<String>> {
    let dirty = if root == here.root {
        // HEAD's tree from the store's memo when it was asked before: no object read.
        let tree = git::head_commit(here).and_then(|commit| {
            store.tree_of(&commit).or_else(|| {
                let tree = git::tree_of(here, &commit)?;
                store.remember_tree(&commit, &tree);
                Some(tree)
            })
        });
        git::uncommitted_files_at(here, paths, tree.as_deref())
    } else {
        git::uncommitted_files(root, paths)
    };
    match dirty {
        Ok(d) => Some(d),
        Err(_) if !root.exists() => Some(BTreeSet::new()),
        Err(_) => None,
    }
}

/// Whether the session `head` lists is alive ([`SessionHead::is_alive`]), asking `/proc` about
/// each agent process once: peers started by one host share it.
fn alive(
    head: &SessionHead,
    now: u64,
    ttl: std::time::Duration,
    gone: &mut Vec<(AgentProcess, bool)>,
) -> bool {
    let Some(agent) = &head.agent else {
        return head.is_alive(now, ttl);
    };
    let by_lease = SessionHead {
        agent: None,
        ..head.clone()
    };
    if !by_lease.is_alive(now, ttl) {
        return false;
    }
    let known = gone.iter().find(|(a, _)| a == agent).map(|(_, g)| *g);
    let is_gone = known.unwrap_or_else(|| {
        let g = agent.is_gone() == Some(true);
        gone.push((agent.clone(), g));
        g
    });
    !is_gone
}

/// A session starts: register it (a new agent process takes the id over), hand over claims
/// after `/clear`, export its id, and disclose the live peers in this checkout.
pub(crate) fn start(ctx: &Ctx<'_>, source: StartSource) -> Result<Response, StoreError> {
    export_session_id(&ctx.event.session_id);
    let Some(here) = &ctx.here else {
        return Ok(Response::Silent);
    };
    let wt = &here.worktree;
    let store = Store::open(&wt.common_dir)?;
    let mut handed = None;
    if let (StartSource::Clear, Some(process)) = (source, &ctx.agent) {
        handed =
            store.take_over_cleared(process, &ctx.event.session_id, ctx.event.host, ctx.now)?;
    }
    ctx.record(&store, wt, true, &[ctx.activity()])?;
    let kept = match &handed {
        Some(old) => store
            .session(&ctx.event.session_id)?
            .map(|s| {
                s.claims
                    .iter()
                    .filter(|c| c.until > ctx.now)
                    .map(|c| match &c.intent {
                        Some(i) => format!("{} ({})", c.target, text::clean(i, 80)),
                        None => c.target.to_string(),
                    })
                    .collect::<Vec<_>>()
            })
            .and_then(|claims| awareness::cleared(store::short_id(old), &claims)),
        None => None,
    };
    let (others, more) = live_others(ctx, &store, wt, SHOWN_PEERS)?;
    let claims = live_claims(ctx, &store, &others, ctx.ttl(wt));
    let dirty = dirty_files(&others, wt, &store);
    let peers: Vec<Peer> = others
        .into_iter()
        .zip(dirty)
        .map(|(session, dirty)| Peer { session, dirty })
        .collect();
    let mut told = awareness::session_start(&peers, more, &claims, &ctx.event.session_id);
    if let Some(line) = kept {
        told = told.prepend(&line);
    }
    Ok(match store.erasure() {
        None => told,
        Some(lost) => told.prepend(&format!("git-dibs: {lost}")),
    })
}

/// The live explicit claims of other sessions anywhere in this clone, newest first, at most
/// [`awareness::SHOWN_CLAIMS`]: from the store's claim list (one read), each holder's
/// liveness checked by its record (read only for the claims named).
fn live_claims(
    ctx: &Ctx<'_>,
    store: &Store,
    known: &[Session],
    ttl: std::time::Duration,
) -> Vec<store::ListedClaim> {
    let mut out = Vec::new();
    let mut verdicts: Vec<(String, bool)> = Vec::new();
    for c in store.explicit_claims() {
        if out.len() == awareness::SHOWN_CLAIMS {
            break;
        }
        if c.claim.until <= ctx.now || c.session == ctx.event.session_id {
            continue;
        }
        let live = match verdicts.iter().find(|(id, _)| *id == c.session) {
            Some((_, live)) => *live,
            None => {
                let live = match known.iter().find(|s| s.id == c.session) {
                    Some(_) => true,
                    None => store.session(&c.session).ok().flatten().is_some_and(|s| {
                        s.is_alive(ctx.now, ttl) && s.claims.iter().any(|h| h.until > ctx.now)
                    }),
                };
                verdicts.push((c.session.clone(), live));
                live
            }
        };
        if live {
            out.push(c);
        }
    }
    out
}

/// The live actors other than the caller working in the checkout of `wt` (itself and the
/// worktrees nested in or around it), newest first: up to `shown` records, and how many more
/// are listed there within their lease. Listings first (one stat each); headers and agent
/// processes are read only until enough live ones are found, the others are counted by their
/// lease alone.
pub(super) fn live_others(
    ctx: &Ctx<'_>,
    store: &Store,
    wt: &Worktree,
    shown: usize,
) -> Result<(Vec<Session>, usize), StoreError> {
    let ttl = ctx.ttl(wt);
    let since = ctx
        .now
        .saturating_sub(ttl.as_secs())
        .saturating_sub(store::LISTED_LAG);
    let roots = related_worktrees(wt);
    let mut listed = Vec::new();
    for root in &roots {
        listed.extend(store.recent_in(root, Actor::from(ctx.event), since)?);
    }
    listed.sort_by_key(|l| std::cmp::Reverse(l.written));
    let mut others: Vec<Session> = Vec::new();
    let mut gone = Vec::new();
    let mut checked = 0;
    for l in &listed {
        if others.len() == shown {
            break;
        }
        checked += 1;
        let Some(head) = store.head_of(l) else {
            continue;
        };
        let here = head.worktree.as_ref().is_some_and(|w| roots.contains(w));
        if here
            && alive(&head, ctx.now, ttl, &mut gone)
            && !others.iter().any(|o| o.is(head.actor()))
        {
            others.extend(store.session(head.actor())?);
        }
    }
    Ok((others, listed.len() - checked))
}

/// A session ends: release its claims and mark it ended. After `/clear` the agent process's
/// next session takes the claims over instead.
pub(crate) fn end(ctx: &Ctx<'_>, reason: &str) -> Result<Response, StoreError> {
    let Some(here) = &ctx.here else {
        return Ok(Response::Silent);
    };
    let store = Store::open(&here.worktree.common_dir)?;
    // Its sub-agents end with it; what they held is the session's, handed over or released
    // with the rest.
    for sub in store.sub_agents_of(&ctx.event.session_id)? {
        if let Some(agent) = sub.sub_agent.as_ref().filter(|_| sub.ended.is_none()) {
            store.fold_sub_agent(&sub.id, agent, ctx.event.host, ctx.writer(false), ctx.now)?;
        }
    }
    if let ("clear", Some(process)) = (reason, &ctx.agent) {
        store.note_cleared(process, &ctx.event.session_id)?;
        ctx.record(&store, &here.worktree, false, &[Change::End])?;
    } else {
        // What it leaves uncommitted stays on its record (not protected: it is not live), so
        // `status` and `doctor` show it as work left behind until someone deals with it.
        let left = left_uncommitted(&store, ctx);
        ctx.record(
            &store,
            &here.worktree,
            false,
            &[Change::ReleaseAllBut(left), Change::End],
        )?;
    }
    ctx.refresh_autolock(&store, &here.worktree);
    Ok(Response::Silent)
}

/// A prompt: label the session, renew it, and name live peers sharing its warm files.
pub(crate) fn prompt(ctx: &Ctx<'_>, prompt: &str) -> Result<Response, StoreError> {
    let Some(here) = &ctx.here else {
        return Ok(Response::Silent);
    };
    let wt = &here.worktree;
    let store = Store::open(&wt.common_dir)?;
    let mut changes = vec![ctx.activity()];
    changes.extend(claims::label_from_prompt(prompt).map(Change::Label));
    let me = ctx.record(&store, wt, false, &changes)?;
    let warm_secs = ctx.warm(wt).as_secs();
    let recent = |t: u64| ctx.now.saturating_sub(t) < warm_secs;
    let mut sharing: Vec<Sharing> = Vec::new();
    // Whether one of this session's files is dirty: one status per worktree over its own files,
    // read only when a shared file is not warm by its touch times alone.
    let mut dirty_cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mine_in = |root: &Path| -> Vec<String> {
        me.files
            .iter()
            .filter(|f| f.key.worktree == root)
            .map(|f| f.key.path.clone())
            .collect()
    };
    for mine in &me.files {
        let holders = store.holders(&mine.key, me.actor(), ctx.now)?;
        for h in holders.into_iter().filter(|h| ctx.alive(&h.session, wt)) {
            let peer_recent = h.touch.as_ref().is_some_and(|t| recent(t.last)) || h.claim.is_some();
            let warm = (recent(mine.last) && peer_recent)
                || dirty_cache
                    .entry(mine.key.worktree.clone())
                    .or_insert_with(|| {
                        // Files git cannot read count as dirty: the peer is told.
                        let root = &mine.key.worktree;
                        let paths = mine_in(root);
                        uncommitted(root, wt, &paths, &store)
                            .unwrap_or_else(|| paths.into_iter().collect())
                    })
                    .contains(&mine.key.path);
            if !warm {
                continue;
            }
            let intent = h.claim.as_ref().and_then(|c| c.intent.clone());
            match sharing.iter_mut().find(|s| s.session.is(h.session.actor())) {
                Some(s) => {
                    s.files.push(mine.key.path.clone());
                    s.intents.extend(intent);
                }
                None => sharing.push(Sharing {
                    files: vec![mine.key.path.clone()],
                    intents: intent.into_iter().collect(),
                    session: h.session,
                }),
            }
        }
    }
    Ok(awareness::prompt(&sharing, &ctx.event.session_id))
}

/// The files of the event's session that are uncommitted now (every file of a worktree git
/// cannot read counts: none is said to be safe).
fn left_uncommitted(store: &Store, ctx: &Ctx<'_>) -> Vec<FileKey> {
    let Ok(Some(me)) = store.session(Actor::from(ctx.event)) else {
        return Vec::new();
    };
    let mut dirty: BTreeMap<PathBuf, Option<BTreeSet<String>>> = BTreeMap::new();
    me.files
        .iter()
        .filter(|f| {
            dirty
                .entry(f.key.worktree.clone())
                .or_insert_with(|| git::dirty_paths(&f.key.worktree).ok())
                .as_ref()
                .is_none_or(|d| d.contains(&f.key.path))
        })
        .map(|f| f.key.clone())
        .collect()
}

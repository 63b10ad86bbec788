//! Claims across machines, decided: what this clone publishes about its sessions and exclusive
//! claims, what it removes from the remote (its own ended refs, and other machines' refs only
//! once lapsed), how another machine's session maps onto this clone's worktrees, and who may
//! take a remote claim ref.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::store::shared::{SHARED_VERSION, SharedClaim, SharedFile};
use crate::store::shared::{SharedSession, SharedTarget, machine_of_ref, session_ref};
use crate::store::{Claim, FileKey, FileTouch, Origin, Session, Target};

/// A published session is not republished when only its last activity moved by less than this
/// (seconds): leases are hours long.
pub(crate) const REPUBLISH_AFTER: u64 = 5 * 60;

/// This clone's worktrees and the branch each has checked out.
pub(crate) type Branches = BTreeMap<PathBuf, Option<String>>;

/// The shareable form of a target on this clone, if it has one: worktrees are local paths, and
/// a file is shared by the branch of its worktree (none when detached).
pub(crate) fn share_target(target: &Target, branches: &Branches) -> Option<SharedTarget> {
    match target {
        Target::Branch { name } => Some(SharedTarget::Branch { name: name.clone() }),
        Target::Record { id } => Some(SharedTarget::Record { id: id.clone() }),
        Target::File(key) => Some(SharedTarget::File {
            branch: branches.get(&key.worktree).cloned().flatten()?,
            path: key.path.clone(),
        }),
        Target::Worktree { .. } => None,
    }
}

/// What this clone publishes about its live session `s`. `dirty` holds the files that are
/// uncommitted here now.
pub(crate) fn export(
    s: &Session,
    machine: &str,
    now: u64,
    branches: &Branches,
    dirty: &BTreeSet<FileKey>,
) -> SharedSession {
    SharedSession {
        version: SHARED_VERSION,
        machine: machine.to_owned(),
        id: s.id.clone(),
        host: s.host,
        label: s.label.clone(),
        branch: s.branch.clone(),
        first_seen: s.first_seen,
        last_seen: s.last_seen,
        published: now,
        files: s
            .files
            .iter()
            .map(|f| SharedFile {
                branch: branches.get(&f.key.worktree).cloned().flatten(),
                path: f.key.path.clone(),
                first: f.first,
                last: f.last,
                dirty: dirty.contains(&f.key),
            })
            .collect(),
        claims: s
            .claims
            .iter()
            .filter(|c| c.until > now)
            .filter_map(|c| Some(c.on(share_target(&c.target, branches)?)))
            .collect(),
    }
}

/// The remote claim record of this clone's exclusive claim `c` by session `session`.
pub(crate) fn export_claim(
    c: &Claim,
    session: &str,
    machine: &str,
    branches: &Branches,
) -> Option<SharedClaim> {
    (c.exclusive).then_some(())?;
    Some(SharedClaim {
        version: SHARED_VERSION,
        machine: machine.to_owned(),
        session: session.to_owned(),
        target: share_target(&c.target, branches)?,
        intent: c.intent.clone(),
        until: c.until,
        token: c.token.clone(),
    })
}

/// The local worktrees a file on `branch` of another machine stands for; when none has that
/// branch checked out, a stand-in folder `MACHINE:BRANCH` that names where it is.
fn places(branch: Option<&str>, machine: &str, branches: &Branches) -> Vec<PathBuf> {
    let here: Vec<PathBuf> = branches
        .iter()
        .filter(|(_, b)| branch.is_some() && b.as_deref() == branch)
        .map(|(root, _)| root.clone())
        .collect();
    if here.is_empty() {
        vec![PathBuf::from(format!(
            "{machine}:{}",
            branch.unwrap_or("(detached)")
        ))]
    } else {
        here
    }
}

/// Another machine's session as a record of this clone's store: files and file claims mapped
/// onto the worktrees that have the same branch checked out; a file still uncommitted there
/// counts as touched when it was published, so it stays warm while that machine keeps syncing.
pub(crate) fn import(shared: &SharedSession, remote: &str, branches: &Branches) -> Session {
    let machine = shared.machine.as_str();
    let mut s = Session::new(
        &format!("{}@{machine}", shared.id),
        shared.host,
        shared.first_seen,
    );
    s.label.clone_from(&shared.label);
    s.branch.clone_from(&shared.branch);
    s.last_seen = shared.last_seen;
    for f in &shared.files {
        for root in places(f.branch.as_deref(), machine, branches) {
            let key = FileKey::new(root, f.path.clone());
            if s.touch_of(&key).is_none() {
                let last = if f.dirty {
                    f.last.max(shared.published)
                } else {
                    f.last
                };
                s.files.push(FileTouch {
                    key,
                    first: f.first,
                    last,
                });
            }
        }
    }
    for c in &shared.claims {
        let targets = match &c.target {
            SharedTarget::Branch { name } => vec![Target::Branch { name: name.clone() }],
            SharedTarget::Record { id } => vec![Target::Record { id: id.clone() }],
            SharedTarget::File { branch, path } => places(Some(branch), machine, branches)
                .into_iter()
                .map(|root| Target::File(FileKey::new(root, path.clone())))
                .collect(),
        };
        s.claims.extend(targets.into_iter().map(|t| c.on(t)));
    }
    s.origin = Some(Origin {
        machine: machine.to_owned(),
        remote: remote.to_owned(),
        published: shared.published,
        id: shared.id.clone(),
        dirty: shared
            .files
            .iter()
            .filter(|f| f.dirty)
            .map(|f| f.path.clone())
            .collect(),
    });
    s
}

/// Whether another machine's session record has lapsed: its lease ended more than `skew`
/// seconds ago (clocks differ between machines).
pub(crate) fn session_lapsed(s: &SharedSession, now: u64, ttl: u64, skew: u64) -> bool {
    s.last_seen.saturating_add(ttl).saturating_add(skew) < now
}

/// Whether a remote claim has lapsed, allowing for `skew`.
pub(crate) fn claim_lapsed(c: &SharedClaim, now: u64, skew: u64) -> bool {
    c.until.saturating_add(skew) < now
}

/// Who may write a remote claim ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ClaimRef {
    /// No one holds it: create it (expected absent).
    Free,
    /// This session of this machine holds it: renew it (expected its old value).
    Ours,
    /// Someone else held it and the lease lapsed: take it over (expected its old value).
    Lapsed(SharedClaim),
    /// Someone else holds it.
    Held(SharedClaim),
    /// The ref exists but its record cannot be read (a newer format?): leave it alone.
    Unreadable,
}

/// Judge the remote claim ref of a target for `session` on `machine`. `existing` is `None`
/// when there is no ref, `Some(None)` when its record cannot be read.
pub(crate) fn judge_claim(
    existing: Option<Option<&SharedClaim>>,
    machine: &str,
    session: &str,
    now: u64,
    skew: u64,
) -> ClaimRef {
    match existing {
        None => ClaimRef::Free,
        Some(None) => ClaimRef::Unreadable,
        Some(Some(c)) if c.machine == machine && c.session == session => ClaimRef::Ours,
        Some(Some(c)) if claim_lapsed(c, now, skew) => ClaimRef::Lapsed(c.clone()),
        Some(Some(c)) => ClaimRef::Held(c.clone()),
    }
}

/// A remote ref as fetched: its name, commit, and record when readable.
#[derive(Debug, Clone)]
pub(crate) struct Fetched<T> {
    /// The full ref name.
    pub(crate) name: String,
    /// The commit it points at.
    pub(crate) oid: String,
    /// Its record, when it could be read.
    pub(crate) record: Option<T>,
    /// Why its record was rejected as hostile or damaged (out of range, malformed), when it
    /// was: such a ref may be replaced. `None` with no record: a newer format, left alone.
    pub(crate) rejected: Option<String>,
}

impl<T> Fetched<T> {
    /// The record, or `Some(None)` for one this version cannot read and must leave alone; a
    /// rejected record reads as no ref at all (`None`), so a claim can be taken over it.
    pub(crate) fn judged(&self) -> Option<Option<&T>> {
        match (&self.record, &self.rejected) {
            (None, Some(_)) => None,
            (record, _) => Some(record.as_ref()),
        }
    }
}

/// Everything a sync decides over.
#[derive(Debug, Clone)]
pub(crate) struct SyncFacts {
    /// This clone's machine name.
    pub(crate) machine: String,
    /// Now, seconds since the Unix epoch.
    pub(crate) now: u64,
    /// The lease, seconds.
    pub(crate) ttl: u64,
    /// The allowance for clock skew, seconds.
    pub(crate) skew: u64,
    /// This clone's live sessions, as published.
    pub(crate) local: Vec<SharedSession>,
    /// This clone's live exclusive claims that can be shared.
    pub(crate) local_claims: Vec<SharedClaim>,
    /// The session refs on the remote.
    pub(crate) sessions: Vec<Fetched<SharedSession>>,
    /// The claim refs on the remote.
    pub(crate) claims: Vec<Fetched<SharedClaim>>,
}

/// One ref to write: a new record, where it goes, and the value it must replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Put<T> {
    /// Write `record` to `name`, replacing `expect` (`None`: the ref must not exist).
    Write {
        /// The ref.
        name: String,
        /// The record.
        record: T,
        /// The value the ref must have now.
        expect: Option<String>,
    },
    /// Delete `name`, which must still be `expect`.
    Delete {
        /// The ref.
        name: String,
        /// The value it must have now.
        expect: String,
    },
}

/// What a sync does.
#[derive(Debug, Clone, Default)]
pub(crate) struct SyncPlan {
    /// Session refs to write or delete.
    pub(crate) sessions: Vec<Put<SharedSession>>,
    /// Claim refs to write or delete.
    pub(crate) claims: Vec<Put<SharedClaim>>,
    /// The deletions that remove other machines' lapsed refs.
    pub(crate) lapsed: Vec<String>,
    /// Other machines' live sessions, to import.
    pub(crate) import: Vec<SharedSession>,
    /// This clone's exclusive claims that another machine also holds, live.
    pub(crate) conflicts: Vec<(SharedClaim, SharedClaim)>,
    /// Other machines' records not imported because their machine is over a cap: `(ref, why)`.
    pub(crate) rejected: Vec<(String, String)>,
}

/// The most sessions imported from one machine.
pub(crate) const MAX_MACHINE_SESSIONS: usize = 64;
/// The most files imported from one machine, over all its sessions.
pub(crate) const MAX_MACHINE_FILES: usize = 10_000;

/// Decide a sync.
pub(crate) fn plan(f: &SyncFacts) -> SyncPlan {
    let mut out = SyncPlan::default();
    let mine = |name: &str| machine_of_ref(name) == Some(f.machine.as_str());
    for s in &f.local {
        let name = session_ref(&f.machine, &s.id);
        let there = f.sessions.iter().find(|r| r.name == name);
        let unchanged = there
            .and_then(|r| r.record.as_ref())
            .is_some_and(|r| r.same_as(s, REPUBLISH_AFTER));
        if !unchanged {
            out.sessions.push(Put::Write {
                name,
                record: s.clone(),
                expect: there.map(|r| r.oid.clone()),
            });
        }
    }
    let published: BTreeSet<String> = f
        .local
        .iter()
        .map(|s| session_ref(&f.machine, &s.id))
        .collect();
    // What each other machine has had imported so far: (sessions, files).
    let mut taken: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for r in &f.sessions {
        if mine(&r.name) {
            if !published.contains(&r.name) {
                out.sessions.push(Put::Delete {
                    name: r.name.clone(),
                    expect: r.oid.clone(),
                });
            }
            continue;
        }
        match &r.record {
            Some(s) if session_lapsed(s, f.now, f.ttl, f.skew) => {
                out.lapsed.push(r.name.clone());
                out.sessions.push(Put::Delete {
                    name: r.name.clone(),
                    expect: r.oid.clone(),
                });
            }
            // The machine a record names must be the machine whose folder it is in.
            Some(s) if machine_of_ref(&r.name) == Some(s.machine.as_str()) => {
                let (sessions, files) = taken.entry(s.machine.as_str()).or_insert((0, 0));
                if *sessions >= MAX_MACHINE_SESSIONS || *files + s.files.len() > MAX_MACHINE_FILES {
                    out.rejected.push((
                        r.name.clone(),
                        format!(
                            "machine {} publishes more than {MAX_MACHINE_SESSIONS} sessions or \
                             {MAX_MACHINE_FILES} files",
                            s.machine
                        ),
                    ));
                    continue;
                }
                *sessions += 1;
                *files += s.files.len();
                out.import.push(s.clone());
            }
            _ => {}
        }
    }
    plan_claims(f, &mut out);
    out
}

fn plan_claims(f: &SyncFacts, out: &mut SyncPlan) {
    let held: BTreeSet<String> = f
        .local_claims
        .iter()
        .map(|c| c.target.claim_ref())
        .collect();
    for c in &f.local_claims {
        let name = c.target.claim_ref();
        let there = f.claims.iter().find(|r| r.name == name);
        let judged = judge_claim(
            there.and_then(Fetched::judged),
            &f.machine,
            &c.session,
            f.now,
            f.skew,
        );
        let expect = there.map(|r| r.oid.clone());
        match judged {
            ClaimRef::Ours
                if there.and_then(|r| r.record.as_ref()).is_some_and(|r| {
                    r.until.abs_diff(c.until) < REPUBLISH_AFTER && r.intent == c.intent
                }) => {}
            ClaimRef::Free | ClaimRef::Ours | ClaimRef::Lapsed(_) => out.claims.push(Put::Write {
                name,
                record: c.clone(),
                expect,
            }),
            ClaimRef::Held(other) => out.conflicts.push((c.clone(), other)),
            ClaimRef::Unreadable => {}
        }
    }
    for r in &f.claims {
        let Some(c) = &r.record else { continue };
        let ours_released = c.machine == f.machine && !held.contains(&r.name);
        let lapsed = c.machine != f.machine && claim_lapsed(c, f.now, f.skew);
        if lapsed {
            out.lapsed.push(r.name.clone());
        }
        if ours_released || lapsed {
            out.claims.push(Put::Delete {
                name: r.name.clone(),
                expect: r.oid.clone(),
            });
        }
    }
}

pub(crate) mod fetch;

#[cfg(test)]
mod tests;

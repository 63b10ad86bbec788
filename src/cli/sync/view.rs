//! The remote's side of a sync: its refs listed, the ones a sync reads chosen under the caps
//! before anything is fetched, fetched in pages and read as checked records; and this clone's
//! own side in the same shared form.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::Result;

use crate::git::{
    self,
    dibsrefs::{DibsRemote, RemoteRef, SyncError},
};
use crate::policy::sync::{self as decide, Branches, Fetched};
use crate::store::shared::{
    CLAIM_FILE, CLAIMS_PREFIX, MAX_RECORD, Rejected, SESSION_FILE, SESSIONS_PREFIX, SharedClaim,
    SharedSession,
};
use crate::store::{self, FileKey};

use super::Here;

/// The session refs and claim refs of the remote, fetched and read.
pub(crate) type RemoteView = (Vec<Fetched<SharedSession>>, Vec<Fetched<SharedClaim>>);

/// The refs under `refs/dibs/` on the remote that match `patterns`, fetched and read.
pub(crate) fn fetch_all(remote: &DibsRemote, patterns: &[&str]) -> Result<RemoteView, SyncError> {
    let refs = remote.list(patterns)?;
    read_fetched(remote, refs)
}

/// Every ref under `refs/dibs/` on the remote as far as the caps allow: the listing first, then
/// only the refs [`decide::fetch::choose`] picks are fetched (in pages) and read. `own` are the
/// refs of this clone's live sessions and claims, always read. Also returns what was skipped.
pub(crate) fn fetch_capped(
    remote: &DibsRemote,
    here: &Here,
    own: &BTreeSet<String>,
) -> Result<(RemoteView, Vec<String>), SyncError> {
    let listed = remote.list(&[&format!("{}*", crate::store::shared::REFS_PREFIX)])?;
    let names: Vec<&str> = listed.iter().map(|r| r.name.as_str()).collect();
    let chosen = decide::fetch::choose(&names, &here.machine, own);
    let refs: Vec<RemoteRef> = chosen.fetch.iter().map(|&i| listed[i].clone()).collect();
    Ok((read_fetched(remote, refs)?, chosen.skipped))
}

fn read_fetched(remote: &DibsRemote, refs: Vec<RemoteRef>) -> Result<RemoteView, SyncError> {
    remote.fetch(&refs.iter().map(|r| r.oid.clone()).collect::<Vec<_>>())?;
    let now = store::now_secs();
    let sessions = read_refs(remote, &refs, SESSIONS_PREFIX, SESSION_FILE, |b| {
        SharedSession::check(b, now)
    });
    let claims = read_refs(remote, &refs, CLAIMS_PREFIX, CLAIM_FILE, |b| {
        SharedClaim::check(b, now)
    });
    Ok((sessions, claims))
}

/// The refs of `refs` under `prefix`, each with the record `file` of its commit when `check`
/// accepts it, else why it was rejected.
fn read_refs<T>(
    remote: &DibsRemote,
    refs: &[RemoteRef],
    prefix: &str,
    file: &str,
    check: impl Fn(&[u8]) -> Result<T, Rejected>,
) -> Vec<Fetched<T>> {
    refs.iter()
        .filter(|r| r.name.starts_with(prefix))
        .map(|r| {
            // A record that cannot be read at all (not fetched?) is left alone, as a newer one.
            let read = match remote.read(&r.oid, file, MAX_RECORD) {
                Some(b) => check(&b),
                None => Err(Rejected::Newer(0)),
            };
            let (record, rejected) = match read {
                Ok(t) => (Some(t), None),
                Err(Rejected::Newer(_)) => (None, None),
                Err(Rejected::Invalid(why)) => (None, Some(why)),
            };
            Fetched {
                name: r.name.clone(),
                oid: r.oid.clone(),
                record,
                rejected,
            }
        })
        .collect()
}

/// This clone's live sessions and exclusive claims in their shared form.
pub(super) fn local_facts(
    here: &Here,
    branches: &Branches,
) -> Result<(Vec<SharedSession>, Vec<SharedClaim>)> {
    let ttl = Duration::from_secs(here.ttl());
    let mut live: Vec<store::Session> = Vec::new();
    // Another machine sees a session as one: its live sub-agents' files are published with it.
    for s in here.store.sessions()? {
        if s.origin.is_some() || !s.is_alive(here.now, ttl) {
            continue;
        }
        match live.iter_mut().find(|m| m.id == s.id) {
            Some(m) => {
                for f in s.files {
                    if m.touch_of(&f.key).is_none() {
                        m.files.push(f);
                    }
                }
            }
            None => live.push(store::Session {
                sub_agent: None,
                ..s
            }),
        }
    }
    let mut by_root: BTreeMap<&std::path::Path, Vec<String>> = BTreeMap::new();
    for f in live.iter().flat_map(|s| &s.files) {
        by_root
            .entry(f.key.worktree.as_path())
            .or_default()
            .push(f.key.path.clone());
    }
    let dirty: BTreeSet<FileKey> = by_root
        .into_iter()
        .flat_map(|(root, paths)| {
            git::uncommitted_among(root, &paths)
                .unwrap_or_default()
                .into_iter()
                .map(move |p| FileKey::new(root, p))
        })
        .collect();
    let sessions = live
        .iter()
        .map(|s| decide::export(s, &here.machine, here.now, branches, &dirty))
        .collect();
    let claims = live
        .iter()
        .flat_map(|s| {
            s.claims
                .iter()
                .filter(|c| c.until > here.now)
                .filter_map(|c| decide::export_claim(c, &s.id, &here.machine, branches))
        })
        .collect();
    Ok((sessions, claims))
}

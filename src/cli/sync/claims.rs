//! The remote half of `claim --exclusive` and `release`: taking a target's claim ref on the
//! remote by compare-and-swap, so that of processes racing on several machines exactly one
//! wins, and giving it back.

use crate::git::dibsrefs::{DibsRemote, RefUpdate, SyncError};
use crate::policy::sync::{self as decide, ClaimRef, Fetched, Put};
use crate::store::shared::{CLAIM_FILE, SharedClaim};
use crate::store::{Claim, Target, short_id};

use super::{Here, fetch_all, to_update};

/// A target the remote would not give.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    /// The target, as the person wrote it.
    pub(crate) target: String,
    /// Who holds it, for a person.
    pub(crate) holder: String,
}

fn holder_of(c: &SharedClaim) -> String {
    let intent = c
        .intent
        .as_deref()
        .map(|i| format!(" (intent: {i})"))
        .unwrap_or_default();
    format!("session {} on {}{intent}", short_id(&c.session), c.machine)
}

/// The remote to coordinate claims through, when sync is on and one resolves.
pub(crate) fn claim_remote(here: &Here) -> Result<Option<DibsRemote>, SyncError> {
    if !here.sync_on() {
        return Ok(None);
    }
    match here.open_remote(None) {
        Ok(r) => Ok(Some(r)),
        Err(SyncError::NoRemote) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Take the remote claim refs of `claims` (just granted here to `session`), all or none.
/// Returns the targets the remote refused; when any is refused, the refs this call wrote are
/// given back.
pub(crate) fn take(
    here: &Here,
    remote: &DibsRemote,
    session: &str,
    claims: &[Claim],
) -> Result<Vec<Refusal>, SyncError> {
    let branches = here.branches();
    let shared: Vec<(String, SharedClaim)> = claims
        .iter()
        .filter_map(|c| {
            let s = decide::export_claim(c, session, &here.machine, &branches)?;
            Some((c.target.to_string(), s))
        })
        .collect();
    if shared.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = shared.iter().map(|(_, c)| c.target.claim_ref()).collect();
    let patterns: Vec<&str> = names.iter().map(String::as_str).collect();
    let (_, there) = fetch_all(remote, &patterns)?;
    let mut refused = Vec::new();
    let mut puts = Vec::new();
    for ((shown, claim), name) in shared.iter().zip(&names) {
        let existing = there.iter().find(|r| &r.name == name);
        let judged = decide::judge_claim(
            existing.and_then(Fetched::judged),
            &here.machine,
            session,
            here.now,
            here.skew(),
        );
        match judged {
            ClaimRef::Free | ClaimRef::Ours | ClaimRef::Lapsed(_) => puts.push(Put::Write {
                name: name.clone(),
                record: claim.clone(),
                expect: existing.map(|r| r.oid.clone()),
            }),
            ClaimRef::Held(other) => refused.push(Refusal {
                target: shown.clone(),
                holder: holder_of(&other),
            }),
            ClaimRef::Unreadable => refused.push(Refusal {
                target: shown.clone(),
                holder: format!(
                    "a claim on the remote this version cannot read ({name}; written by a newer \
                     git-dibs?)"
                ),
            }),
        }
    }
    if !refused.is_empty() {
        return Ok(refused);
    }
    let updates = puts
        .iter()
        .map(|p| to_update(remote, here, p, CLAIM_FILE))
        .collect::<Result<Vec<RefUpdate>, SyncError>>()?;
    let outcomes = remote.push(&updates)?;
    let lost: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.name.as_str())
        .collect();
    if lost.is_empty() {
        return Ok(Vec::new());
    }
    // Someone else wrote one of the refs first: name them, and give back what this call took.
    // A ref this very session holds now was written by its own background sync (it publishes
    // the claim just granted here): that is no refusal.
    let (_, now_there) = fetch_all(remote, &patterns).unwrap_or_default();
    for ((shown, _), name) in shared.iter().zip(&names) {
        if lost.contains(&name.as_str()) {
            let record = now_there
                .iter()
                .find(|r| &r.name == name)
                .and_then(|r| r.record.as_ref());
            if record.is_some_and(|c| c.machine == here.machine && c.session == session) {
                continue;
            }
            let holder =
                record.map_or_else(|| "another machine, a moment ago".to_owned(), holder_of);
            refused.push(Refusal {
                target: shown.clone(),
                holder,
            });
        }
    }
    if refused.is_empty() {
        return Ok(refused);
    }
    let give_back: Vec<RefUpdate> = updates
        .iter()
        .filter(|u| !lost.contains(&u.name.as_str()))
        .map(|u| RefUpdate {
            name: u.name.clone(),
            new: None,
            expect: u.new.clone(),
        })
        .collect();
    let _ = remote.push(&give_back);
    Ok(refused)
}

/// Delete the remote claim refs `session` holds on `targets` (released here). Best effort:
/// returns a note for a person when the remote could not be told.
pub(crate) fn give_back(here: &Here, session: &str, targets: &[Target]) -> Option<String> {
    let remote = match claim_remote(here) {
        Ok(Some(r)) => r,
        Ok(None) => return None,
        Err(e) => {
            return Some(format!(
                "{e}; the next sync removes the released claims there"
            ));
        }
    };
    let branches = here.branches();
    let names: Vec<String> = targets
        .iter()
        .filter_map(|t| decide::share_target(t, &branches))
        .map(|t| t.claim_ref())
        .collect();
    if names.is_empty() {
        return None;
    }
    let patterns: Vec<&str> = names.iter().map(String::as_str).collect();
    let result = fetch_all(&remote, &patterns).and_then(|(_, there)| {
        let updates: Vec<RefUpdate> = there
            .iter()
            .filter(|r| {
                r.record
                    .as_ref()
                    .is_some_and(|c| c.machine == here.machine && c.session == session)
            })
            .map(|r| RefUpdate {
                name: r.name.clone(),
                new: None,
                expect: Some(r.oid.clone()),
            })
            .collect();
        remote.push(&updates)
    });
    match result {
        Ok(_) => None,
        Err(e) => Some(format!(
            "{e}; the next sync removes the released claims there"
        )),
    }
}

//! What one sync did ([`Report`], kept in `sync/last.json`), in words for `sync` and for
//! `doctor`: what was published and imported, what was rejected and what was skipped.

use serde::{Deserialize, Serialize};

use crate::git::Worktree;
use crate::policy::sync::{self as decide, SyncFacts};
use crate::store::Store;
use crate::text;

use super::Here;

/// What one sync did, as `--json` prints it and `sync/last.json` keeps it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Report {
    /// When, seconds since the Unix epoch.
    pub(crate) at: u64,
    /// The remote.
    pub(crate) remote: String,
    /// This clone's machine name.
    pub(crate) machine: String,
    /// This clone's live sessions now on the remote.
    pub(crate) published_sessions: usize,
    /// This clone's exclusive claims now on the remote.
    pub(crate) published_claims: usize,
    /// Sessions of other machines now in the local store.
    pub(crate) imported_sessions: usize,
    /// Those machines.
    pub(crate) machines: Vec<String>,
    /// Other machines' lapsed refs removed.
    pub(crate) removed: usize,
    /// Problems worth a person's attention (claims held twice, refs that could not be written).
    pub(crate) problems: Vec<String>,
    /// Remote records not taken, each as `ref: why` (out of range, malformed, over a cap).
    pub(crate) rejected: Vec<String>,
    /// Remote refs not even fetched, over the caps a sync reads (per machine, machines, claim
    /// refs): one line for each reason, with how many.
    pub(crate) skipped: Vec<String>,
    /// Why the sync failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// For `doctor`: whether sync is on, and how the last one went (`Err` is a problem to fix).
pub(crate) fn health(wt: &Worktree, store: &Store) -> Result<String, String> {
    let here = Here::new(wt.clone(), store.clone());
    if !here.sync_on() {
        return Ok(
            "sync across machines is off (`git config dibs.sync true` shares sessions and \
             exclusive claims through the remote)"
                .to_owned(),
        );
    }
    if let Err(e) = here.open_remote(None) {
        return Err(format!("dibs.sync is on but {e}"));
    }
    let last = store
        .sync_report()
        .and_then(|b| serde_json::from_slice::<Report>(&b).ok());
    let ago = |at: u64| crate::policy::claims::ago(here.now, at);
    match last {
        None => Ok(format!(
            "sync is on as machine {}; none has run yet (the next hook starts one, or run \
             `git dibs sync`)",
            here.machine
        )),
        Some(r) => match r.error {
            Some(e) => Err(format!(
                "the last sync ({}) failed: {e}; or turn background sync off with `git config \
                 dibs.sync false`",
                ago(r.at)
            )),
            // Records someone pushed that are out of range or malformed: worth a look.
            None if !r.rejected.is_empty() || !r.skipped.is_empty() => Err(format!(
                "{} ({}); find who pushed them (`git ls-remote {} 'refs/dibs/*'`)",
                summary(&r),
                ago(r.at),
                crate::text::shell_word(&crate::text::clean(&r.remote, crate::text::MAX_NOTE))
            )),
            None => Ok(format!("{} ({})", summary(&r), ago(r.at))),
        },
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

pub(crate) fn summary(r: &Report) -> String {
    let from = if r.machines.is_empty() {
        String::new()
    } else {
        format!(
            " from {} ({})",
            plural(r.machines.len(), "other machine", "other machines"),
            r.machines.join(", ")
        )
    };
    // A clause naming every item of a list, or nothing when it is empty.
    let clause = |items: &[String], head: String| {
        if items.is_empty() {
            String::new()
        } else {
            format!("; {head} ({})", items.join("; "))
        }
    };
    let rejected = clause(
        &r.rejected,
        format!(
            "rejected {} from the remote",
            plural(r.rejected.len(), "record", "records")
        ),
    );
    let skipped = clause(&r.skipped, "skipped, not fetched, over the caps".to_owned());
    let imported = match r.imported_sessions {
        0 => "no sessions from other machines".to_owned(),
        n => format!("{}{from}", plural(n, "session", "sessions")),
    };
    format!(
        "synced with {} as {}: published {}, {}; {imported}; removed {}{rejected}{skipped}",
        r.remote,
        r.machine,
        plural(r.published_sessions, "session", "sessions"),
        plural(r.published_claims, "claim", "claims"),
        plural(r.removed, "lapsed ref", "lapsed refs"),
    )
}

/// The most rejected records a report names one by one.
const MAX_REJECTED_SHOWN: usize = 20;

/// Every remote record a sync did not take, as `ref: why`, the first
/// [`MAX_REJECTED_SHOWN`] named and the rest counted.
pub(crate) fn rejected(facts: &SyncFacts, plan: &decide::SyncPlan) -> Vec<String> {
    let mut all: Vec<String> = facts
        .sessions
        .iter()
        .filter_map(|r| r.rejected.as_ref().map(|why| (&r.name, why)))
        .chain(
            facts
                .claims
                .iter()
                .filter_map(|r| r.rejected.as_ref().map(|why| (&r.name, why))),
        )
        .chain(plan.rejected.iter().map(|(n, why)| (n, why)))
        .map(|(name, why)| format!("{}: {}", text::clean(name, text::MAX_SHOWN), why))
        .collect();
    if all.len() > MAX_REJECTED_SHOWN {
        let more = all.len() - MAX_REJECTED_SHOWN;
        all.truncate(MAX_REJECTED_SHOWN);
        all.push(format!("and {more} more"));
    }
    all
}

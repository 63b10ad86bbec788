//! The list of explicit claims of the whole clone (`claims.list`, one JSON object per line):
//! rewritten under the lock whenever a record's explicit claims change, read in one go when a
//! session starts, so it can name every live claim and its intent whatever the number of
//! sessions, without reading their records.

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::record::{Claim, Session};
use super::shared::MAX_RECORD;
use super::{Store, fsio};
use crate::host::Host;

/// The file's name in the store folder.
const LIST: &str = "claims.list";
/// The most claims the list keeps (the newest).
const MAX_LISTED: usize = 512;

/// One explicit claim, as listed: the claim (its target as shown, `branch:x`, `src/a.rs`) and
/// who holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ListedClaim {
    /// The holding session's id.
    pub(crate) session: String,
    /// The sub-agent of that session that holds it, if a sub-agent does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// Its host.
    pub(crate) host: Host,
    /// Its label, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    /// The worktree of a file claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) worktree: Option<PathBuf>,
    /// The claim.
    #[serde(flatten)]
    pub(crate) claim: Claim<String>,
}

impl ListedClaim {
    /// The holder's short id, as messages print it.
    pub(crate) fn short_id(&self) -> &str {
        super::record::short_id(&self.session)
    }
}

/// The claims `s` holds, as listed (none once it ended, or for another machine's session).
fn listed_of(s: &Session) -> Vec<ListedClaim> {
    if s.ended.is_some() || s.origin.is_some() {
        return Vec::new();
    }
    s.claims
        .iter()
        .map(|c| ListedClaim {
            session: s.id.clone(),
            agent: s.sub_agent.as_ref().map(|a| a.id.clone()),
            host: s.host,
            label: s.label.clone(),
            worktree: match &c.target {
                super::Target::File(k) => Some(k.worktree.clone()),
                _ => None,
            },
            claim: c.on(c.target.to_string()),
        })
        .collect()
}

impl Store {
    /// Every listed explicit claim, newest first; lines that cannot be read are skipped.
    pub(crate) fn explicit_claims(&self) -> Vec<ListedClaim> {
        let path = self.dir.join(LIST);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return Vec::new();
        };
        if !meta.is_file() || meta.len() > MAX_RECORD as u64 {
            return Vec::new();
        }
        let text = fsio::read(&path).unwrap_or_default();
        let mut out: Vec<ListedClaim> = String::from_utf8_lossy(&text)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        out.sort_by(|a, b| (b.claim.since, &a.session).cmp(&(a.claim.since, &b.session)));
        out
    }

    /// Bring the list in line with `new`'s claims when they changed from `old`'s. The caller
    /// holds the store's lock, shared or not; the list's own lock is taken here. Best effort:
    /// the list only informs, the records decide.
    pub(super) fn update_claim_list(&self, old: Option<&Session>, new: &Session) {
        let before = old.map(listed_of).unwrap_or_default();
        let after = listed_of(new);
        if before == after {
            return;
        }
        let Ok(_guard) = self.lock_shared_file("claims") else {
            return;
        };
        let agent = new.sub_agent.as_ref().map(|a| a.id.as_str());
        let mut all: Vec<ListedClaim> = self
            .explicit_claims()
            .into_iter()
            .filter(|c| c.session != new.id || c.agent.as_deref() != agent)
            .chain(after)
            .collect();
        all.sort_by(|a, b| (b.claim.since, &a.session).cmp(&(a.claim.since, &b.session)));
        all.truncate(MAX_LISTED);
        let mut text = String::new();
        for c in all.iter().rev() {
            if let Ok(line) = serde_json::to_string(c) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        let _ = fsio::write_atomic(&self.dir.join(LIST), text.as_bytes());
    }
}

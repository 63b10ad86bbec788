//! The commits retention refs keep that nothing else holds any more: what `recover` lists,
//! each with the branch (or tag, or other ref) it was kept for.

use std::path::Path;

use super::RETENTION_PREFIX;
use crate::git::lanes::{LaneError, LaneRepo};

/// A commit a retention ref keeps that no local branch contains: work whose branch was
/// deleted or moved away from it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Unheld {
    /// The retention ref.
    pub(crate) reference: String,
    /// What it was kept for: a branch's name (`feature`; a remote-tracking tip's by its
    /// branch), `detached/<folder>` for a detached HEAD, or a full ref name (`refs/tags/v1`,
    /// `refs/wip/x`) for a tag or another ref outside the branches.
    pub(crate) branch: String,
    /// Whether a branch (or, for a full ref name, a ref) of that name exists now (at another
    /// commit).
    pub(crate) branch_exists: bool,
    /// The commit, full id.
    pub(crate) commit: String,
    /// Its commit time, seconds since the Unix epoch.
    pub(crate) time: Option<i64>,
}

/// The commits retention refs keep that no local branch contains, newest first.
pub(crate) fn unheld(repo_dir: &Path) -> Result<Vec<Unheld>, LaneError> {
    let repo = LaneRepo::open(repo_dir)?;
    let branches = repo.refs_under("refs/heads/");
    let mut out: Vec<Unheld> = repo
        .refs_under(RETENTION_PREFIX)
        .into_iter()
        .filter(|(_, tip)| !branches.iter().any(|(_, b)| repo.is_ancestor(tip, b)))
        .filter(|(reference, tip)| {
            // Kept for a tag or another ref (`refs/tags/v1`, `refs/wip/x`) that still holds it.
            let label = reference.trim_start_matches(RETENTION_PREFIX);
            let held = label.rsplit_once('/').map(|(r, _)| r);
            !held.is_some_and(|r| {
                r.starts_with("refs/")
                    && repo
                        .commit_of(r)
                        .is_some_and(|holder| repo.is_ancestor(tip, &holder))
            })
        })
        .map(|(reference, commit)| {
            let label = reference.trim_start_matches(RETENTION_PREFIX);
            let mut branch = label.rsplit_once('/').map_or(label, |(b, _)| b).to_owned();
            // A remote-tracking tip kept as `remotes/<remote>/<branch>`: named by its branch.
            if let Some(rest) = branch.strip_prefix("remotes/")
                && let Some((_, b)) = rest.split_once('/')
            {
                branch = b.to_owned();
            }
            Unheld {
                branch_exists: if branch.starts_with("refs/") {
                    repo.ref_tip(&branch).is_some()
                } else {
                    repo.branch_tip(&branch).is_some()
                },
                time: repo.commit_time(&commit),
                reference,
                branch,
                commit,
            }
        })
        .collect();
    out.sort_by_key(|u| std::cmp::Reverse(u.time));
    Ok(out)
}

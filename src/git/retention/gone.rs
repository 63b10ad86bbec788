//! Refs that keep commits, deleted from outside git-dibs (a mirror fetch with `--prune`, `git
//! update-ref -d`, a script, a GUI): remembered with the branch tips, each is put back while its
//! commit is still in the object store and still needs keeping, by the same rules that decide
//! when git-dibs itself lets it go. A retention ref is put back while its commit is on no
//! remote-tracking ref and in no other retention ref; a kept stash commit while it is younger
//! than the snapshot expiry. A local branch that went is kept as a branch moved is: a retention
//! ref on its last tip while that is on no remote.

use std::collections::BTreeMap;
use std::path::Path;

use super::{RETENTION_PREFIX, Retained, retain_commit};
use crate::git::lanes::{LaneError, LaneRepo, git};
use crate::git::stashes::STASH_PREFIX;

/// Whether `name` is a ref git-dibs keeps commits by and remembers with the branch tips.
pub(crate) fn is_kept_ref(name: &str) -> bool {
    name.starts_with(RETENTION_PREFIX) || name.starts_with(STASH_PREFIX)
}

/// The retention and kept-stash refs of `repo` as they are now.
pub(super) fn kept_refs(repo: &LaneRepo) -> Vec<(String, String)> {
    let mut refs = repo.refs_under(RETENTION_PREFIX);
    refs.extend(repo.refs_under(STASH_PREFIX));
    refs
}

/// Put back what of `before` (full ref name to commit, as last remembered) went since: kept
/// refs gone while their commit still needs keeping, and retention on the last tip of each
/// local branch that went. `now` is the tips as known now; what is put back is added to it.
/// Stash commits made before `stash_since` (seconds since the epoch) are let go.
pub(super) fn put_back(
    dir: &Path,
    repo: &LaneRepo,
    before: &BTreeMap<String, String>,
    now: &mut BTreeMap<String, String>,
    stash_since: i64,
) -> Result<Retained, LaneError> {
    let mut out = Retained::default();
    for (name, commit) in before {
        if now.contains_key(name) || repo.commit_of(commit).is_none() {
            continue;
        }
        if name.starts_with("refs/heads/") {
            let branch = name.trim_start_matches("refs/heads/");
            out.absorb(retain_commit(dir, repo, branch, commit, None)?);
            continue;
        }
        let needed = if name.starts_with(RETENTION_PREFIX) {
            !repo.on_remote(commit)
                && !kept_refs(repo).iter().any(|(n, tip)| {
                    n.starts_with(RETENTION_PREFIX) && repo.is_ancestor(commit, tip)
                })
        } else if name.starts_with(STASH_PREFIX) {
            repo.commit_time(commit).is_some_and(|t| t >= stash_since)
        } else {
            false
        };
        if needed {
            git(
                dir,
                &["update-ref", "-m", "git-dibs: put back", name, commit, ""],
            )?;
            out.created.push(name.clone());
            now.insert(name.clone(), commit.clone());
        }
    }
    Ok(out)
}

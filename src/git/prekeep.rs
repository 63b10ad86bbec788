//! Before a line that fetches and then prunes (`git fetch && git reflog expire --all && git gc
//! --prune=now`): the tips of remote-tracking refs that no local branch and no retention ref
//! holds get retention refs first (`refs/dibs/retention/remotes/<remote>/<branch>/<short sha>`),
//! since the fetch may move them off their commits and the prune drop those before any hook
//! looks again. The next sweep drops what is still on a remote.

use std::path::Path;

use super::lanes::{LaneError, LaneRepo, git};
use super::retention::{MAX_MOVED, RETENTION_PREFIX, retention_ref};

/// Keep the remote-tracking tips of the repository at `dir` that nothing else local holds (at
/// most [`MAX_MOVED`]); returns the refs made. Never pushed.
pub(crate) fn keep_tracking_tips(dir: &Path) -> Result<Vec<String>, LaneError> {
    let repo = LaneRepo::open(dir)?;
    let holders: Vec<String> = repo
        .refs_under("refs/heads/")
        .into_iter()
        .chain(repo.refs_under(RETENTION_PREFIX))
        .map(|(_, tip)| tip)
        .collect();
    let mut made = Vec::new();
    for (name, tip) in repo.refs_under("refs/remotes/") {
        if made.len() == MAX_MOVED {
            break;
        }
        let Some(label) = name.strip_prefix("refs/remotes/") else {
            continue;
        };
        if holders.iter().any(|h| repo.is_ancestor(&tip, h)) {
            continue;
        }
        let kept = retention_ref(&format!("remotes/{label}"), &tip);
        if repo.ref_tip(&kept).is_some() {
            continue;
        }
        git(
            dir,
            &[
                "update-ref",
                "-m",
                "git-dibs: keep remote-tracking tip before a prune",
                &kept,
                &tip,
                "",
            ],
        )?;
        made.push(kept);
    }
    Ok(made)
}

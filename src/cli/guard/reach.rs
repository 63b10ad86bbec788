//! What is at risk within reach of a program the guard cannot see into: every worktree of the
//! clone whose removal would lose work, live peers' dirty files, and unpushed branches.

use anyhow::Result;

use super::facts::worktree_state;
use super::peers::peers;
use crate::git::{self, Repo, Worktree};
use crate::policy::guard::explain::Reach;
use crate::policy::guard::{Guarded, list};
use crate::protocol::Event;

/// Most worktrees looked at.
const MAX_WORKTREES: usize = 32;

/// What is at risk in the clone of `wt`.
pub(super) fn reach(event: &Event, g: &Guarded, wt: &Worktree) -> Result<Reach> {
    let mut r = Reach::default();
    for entry in git::list_worktrees(&wt.common_dir)
        .iter()
        .take(MAX_WORKTREES)
    {
        let state = worktree_state(entry)?;
        if state.at_risk() {
            r.worktrees.push(entry.root.display().to_string());
        }
        if let Some(w) = git::worktree_at(&entry.root) {
            for p in peers(event, g, &w)?.peers {
                let files: Vec<String> = p.files.iter().map(|f| f.path.clone()).collect();
                r.peers.push(format!(
                    "{} in {}: {}",
                    p.name,
                    w.root.display(),
                    list(&files)
                ));
            }
        }
    }
    let repo = Repo::open(&wt.git_dir)?;
    for (name, tip) in repo.local_branches() {
        if !repo.unpushed(&tip, 1)?.is_empty() {
            r.branches.push(name);
        }
    }
    Ok(r)
}

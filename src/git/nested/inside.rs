//! The nested repositories inside one worktree, as the scan after a shell command meets them:
//! its submodules (gitlink entries of its index, checked out) and the folders its status lists
//! whole because they hold a repository of their own (an untracked clone, `git init` inside
//! the project, an ignored `vendor/` clone). A program run at the project's top writes into
//! them as easily as anywhere; the scan goes on inside them.

use std::path::Path;

use crate::git::discover::{Worktree, worktree_at};
use crate::git::index::{self, MODE_GITLINK};

/// The nested repositories of `wt` (at most `max`; whether there were more): the checked-out
/// submodules its index names, then the worktrees at the folders in `listed` (paths relative
/// to its top, a folder's ending in `/`, as its status lists them). A folder is looked at only
/// when it holds a `.git`: one `stat` for each.
pub(crate) fn repositories_in(wt: &Worktree, listed: &[&str], max: usize) -> (Vec<Worktree>, bool) {
    let mut rels: Vec<String> = gitlinks(&wt.git_dir);
    rels.extend(
        listed
            .iter()
            .filter_map(|p| p.strip_suffix('/'))
            .map(str::to_owned),
    );
    let mut out: Vec<Worktree> = Vec::new();
    let mut more = false;
    for rel in rels {
        let dir = wt.root.join(crate::pathtext::to_path(&rel));
        if fs_exists(&dir.join(".git"))
            && let Some(inner) = worktree_at(&dir)
            && inner.common_dir != wt.common_dir
            && inner.root != wt.root
            && !out.iter().any(|w| w.root == inner.root)
        {
            if out.len() == max {
                more = true;
                break;
            }
            out.push(inner);
        }
    }
    (out, more)
}

fn fs_exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

/// The paths of the gitlink (submodule) entries of the index in the git dir `git_dir`: one
/// pass over the mapped index. Empty when it cannot be read so (a SHA-256 or split index).
fn gitlinks(git_dir: &Path) -> Vec<String> {
    let Some((map, _)) = index::map(git_dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let walked = index::walk(&mut map.bytes(), |name, raw| {
        if raw.entry().is_some_and(|e| e.mode == MODE_GITLINK) {
            out.push(crate::pathtext::from_bytes(name).into_owned());
        }
        Some(())
    });
    if walked.is_none() {
        out.clear();
    }
    out
}

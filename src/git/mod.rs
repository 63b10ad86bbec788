//! Every fact about repositories: which worktree a path is in (without opening a repository),
//! the current branch, dirty paths, and the common directory where the store lives.

mod config;
mod discover;
mod envrepo;
pub mod gitdir;
mod ignored;
pub(crate) mod nested;
pub(crate) mod sha1;
mod stat_clean;
mod status;
#[cfg(test)]
pub(crate) mod testing;

pub(crate) use config::{FLOORS as DURATION_FLOORS, Settings, parse_time};
pub(crate) use discover::{
    Located, Worktree, checked_out_elsewhere, common_dir_of, is_valid_branch_name, linked_dot_git,
    locate, normalize, normalize_no_follow, registration_gone, remember_paths, worktree_at,
    worktree_roots,
};
pub(crate) use envrepo::foreign_between;
pub(crate) use ignored::{FreshFolders, ShellMade, shell_made};
pub(crate) use stat_clean::{head_commit, tree_of, uncommitted_files, uncommitted_files_at};
pub(crate) use status::{
    GitError, dirty_paths, parse_duration, read_config_duration, uncommitted_among,
};

/// The largest worktree file a hook reads to hash its content; a larger one is not hashed.
pub(crate) const MAX_HASHED: u64 = 64 << 20;

/// The content of the worktree file at `path` (a link is followed), when it is a regular file
/// of at most [`MAX_HASHED`] bytes. A FIFO, a socket or a device, even behind a link, is never
/// opened for reading, so a hook never hangs on one nor reads without end.
pub(crate) fn read_worktree_file(path: &std::path::Path) -> Option<Vec<u8>> {
    use crate::platform::files::{Links, read_regular};
    read_regular(path, Links::Follow, MAX_HASHED).ok()
}
mod args;
pub(crate) mod cli;
pub(crate) mod dibsrefs;
mod facts;
mod flagged;
mod gh;
pub(crate) mod hookreads;
pub(crate) mod identity;
mod index;
pub(crate) mod landed;
pub(crate) mod lanes;
mod moves;
pub(crate) mod porcelain;
pub(crate) mod prekeep;
mod push;
pub(crate) mod reflog;
pub(crate) mod retention;
mod run;
mod scan;
pub(crate) mod snapshot;
pub(crate) mod stashes;
mod worktrees;

pub(crate) use args::{
    BUILTINS, GitInvocation, alias_via_git, autostash_set, expand_alias, invocation_worktree,
    parse_invocation,
};
pub(crate) use facts::{CommitInfo, FileState, ReadError, Repo};
pub(crate) use gh::{PullRequest, open_pull_request, pr_head, pull_requests};
pub(crate) use index::tracked_among;
pub(crate) use moves::Head;
pub(crate) use push::{ForcedUpdate, PushRequest, forced_updates};
pub(crate) use scan::Walked;
pub(crate) use worktrees::{
    WorktreeEntry, former_roots, linked_repositories, list_worktrees, worktree_roots_under,
};

/// The content of `rel` (a path from the worktree's top) in the commit checked out in the
/// worktree at `root`, when it is a file of at most `max` bytes there.
pub(crate) fn committed_file(root: &std::path::Path, rel: &str, max: u64) -> Option<Vec<u8>> {
    let spec = format!("HEAD:{rel}");
    let size = cli::run_text(root, &["cat-file", "-s", &spec]).ok()?;
    if size.parse::<u64>().ok()? > max {
        return None;
    }
    cli::run(root, &["cat-file", "blob", &spec], None).ok()
}

//! Every fact about repositories: which worktree a path is in (without opening a repository),
//! the current branch, dirty paths, and the common directory where the store lives.

mod config;
mod discover;
mod stat_clean;
mod status;
#[cfg(test)]
pub(crate) mod testing;

pub use config::Settings;
pub use discover::{
    Located, Worktree, common_dir_of, is_valid_branch_name, linked_dot_git, locate, normalize,
    worktree_at, worktree_roots,
};
pub use stat_clean::{
    head_commit, tree_of, uncommitted_files, uncommitted_files_at, uncommitted_files_in,
};
pub use status::{GitError, dirty_paths, parse_duration, read_config_duration, uncommitted_among};

/// The largest worktree file a hook reads to hash its content; a larger one is not hashed.
pub const MAX_HASHED: u64 = 64 << 20;

/// The content of the worktree file at `path` (a link is followed), when it is a regular file
/// of at most [`MAX_HASHED`] bytes. A FIFO, a socket or a device, even behind a link, is never
/// opened for reading, so a hook never hangs on one nor reads without end.
pub fn read_worktree_file(path: &std::path::Path) -> Option<Vec<u8>> {
    use crate::platform::files::{Links, read_regular};
    read_regular(path, Links::Follow, MAX_HASHED).ok()
}
mod args;
pub mod cli;
pub mod dibsrefs;
mod facts;
mod gh;
pub mod hookreads;
mod index;
pub mod landed;
pub mod lanes;
pub mod porcelain;
pub mod reflog;
pub mod retention;
mod run;
mod scan;
pub mod snapshot;
mod worktrees;

pub use args::{
    BUILTINS, GitInvocation, expand_alias, invocation_worktree, is_git, parse_invocation,
};
pub use facts::{CommitInfo, FileState, ReadError, Repo};
pub use gh::{GH_TIMEOUT, PullRequest, open_pull_request, pull_requests};
pub(crate) use scan::Walked;
pub use worktrees::{WorktreeEntry, list_worktrees, worktree_roots_under};

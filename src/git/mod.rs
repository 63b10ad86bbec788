//! Every fact about repositories: which worktree a path is in (without opening a repository),
//! the current branch, dirty paths, and the common directory where the store lives.

mod discover;
mod status;

pub use discover::{Located, Worktree, locate, worktree_at, worktree_roots};
pub use status::{GitError, dirty_paths, read_config_duration};

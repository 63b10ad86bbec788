//! Reads through libgit2: the dirty paths of a worktree and `dibs.*` settings from git config.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// A failure reading a repository.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct GitError {
    what: String,
    #[source]
    source: git2::Error,
}

impl GitError {
    fn new(what: impl Into<String>, source: git2::Error) -> Self {
        GitError {
            what: what.into(),
            source,
        }
    }
}

/// Paths (relative, `/`-separated) that are modified, staged or untracked in the worktree at
/// `root`. Ignored files do not count.
pub fn dirty_paths(root: &Path) -> Result<BTreeSet<String>, GitError> {
    let repo = git2::Repository::open(root)
        .map_err(|e| GitError::new(format!("cannot open {}", root.display()), e))?;
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    let statuses = repo
        .statuses(Some(&mut opts))
        .map_err(|e| GitError::new(format!("cannot read status of {}", root.display()), e))?;
    Ok(statuses
        .iter()
        .filter(|s| s.status() != git2::Status::CURRENT && !s.status().is_ignored())
        .filter_map(|s| s.path().map(str::to_owned))
        .collect())
}

/// Read a duration setting such as `dibs.ttl` (`2h`, `90m`, `3600` seconds) from the config that
/// applies to the repository whose git dir is `git_dir`. `None` when unset or unreadable.
pub fn read_config_duration(git_dir: &Path, key: &str) -> Option<Duration> {
    let repo = git2::Repository::open(git_dir).ok()?;
    let config = repo.config().ok()?;
    let text = config.get_string(key).ok()?;
    parse_duration(&text)
}

/// Parse `90m`, `2h`, `1h 30m` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    humantime::parse_duration(text).ok()
}

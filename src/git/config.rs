//! The git config that applies to one worktree, read once from its files (no repository is
//! opened), with typed getters for git-dibs settings.

use std::path::Path;
use std::time::Duration;

use super::status::{config_files, parse_duration};

/// The config that applies to a worktree: system, global, the clone's and the worktree's.
pub struct Settings {
    config: Option<git2::Config>,
}

impl Settings {
    /// Read the config files of the worktree whose git dir is `git_dir`. Unreadable files are
    /// skipped: every getter then answers `None`.
    pub fn load(git_dir: &Path) -> Settings {
        let config = git2::Config::new().ok().map(|mut config| {
            for (file, level) in config_files(git_dir) {
                if file.is_file() {
                    let _ = config.add_file(&file, level, false);
                }
            }
            config
        });
        Settings { config }
    }

    /// A string setting, when set.
    pub fn string(&self, key: &str) -> Option<String> {
        self.config.as_ref()?.get_string(key).ok()
    }

    /// A boolean setting (`true`/`yes`/`on`/`1` and their opposites), when set and readable.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.config.as_ref()?.get_bool(key).ok()
    }

    /// A duration setting (`90m`, `2h`, a bare number of seconds), when set and readable.
    pub fn duration(&self, key: &str) -> Option<Duration> {
        parse_duration(&self.string(key)?)
    }
}

//! Where the worktree a snapshot recorded is now: its recorded root while that is still the
//! same worktree; when it is not (the clone or the worktree moved, its old folder gone or
//! holding something else), the worktree of this clone with the same identity (see
//! [`crate::git::identity`]), so its files are listed and brought back there, by their paths
//! relative to it. A snapshot made before identities were recorded is mapped only to the
//! worktree `recover` runs in, when git's traces say it was there before (see
//! [`crate::git::former_roots`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::git::snapshot::WorktreeMeta;
use crate::git::{self, Worktree, identity};

/// The current places of the worktrees snapshots recorded, looked up once each.
pub(super) struct Places {
    common_dir: PathBuf,
    /// The worktree `recover` runs in, when it is one of this clone.
    here: Option<Worktree>,
    /// The clone's worktrees by identity, read when first needed.
    current: Option<Vec<(String, PathBuf)>>,
    /// (recorded root, identity) to where it is now.
    seen: HashMap<(PathBuf, Option<String>), PathBuf>,
}

impl Places {
    /// The places of the clone whose common dir is `common_dir`.
    pub(super) fn new(common_dir: &Path) -> Places {
        let here = std::env::current_dir()
            .ok()
            .and_then(|cwd| git::locate(&cwd, Path::new(".")))
            .map(|l| l.worktree)
            .filter(|w| w.common_dir == common_dir);
        Places {
            common_dir: common_dir.to_path_buf(),
            here,
            current: None,
            seen: HashMap::new(),
        }
    }

    /// Where the worktree `w` records is now (its recorded root when nothing better is known).
    pub(super) fn root_of(&mut self, w: &WorktreeMeta) -> PathBuf {
        let key = (w.root.clone(), w.identity.clone());
        if let Some(hit) = self.seen.get(&key) {
            return hit.clone();
        }
        let found = self.find(w).unwrap_or_else(|| w.root.clone());
        self.seen.insert(key, found.clone());
        found
    }

    fn find(&mut self, w: &WorktreeMeta) -> Option<PathBuf> {
        let Some(id) = &w.identity else {
            // Recorded before identities were: only git's traces of a move of `here`.
            let here = self.here.as_ref()?;
            return git::former_roots(here, [w.root.as_path()])
                .first()
                .map(|_| here.root.clone());
        };
        if identity::at(&w.root, &self.common_dir).as_deref() == Some(id.as_str()) {
            return None;
        }
        let (common_dir, here) = (&self.common_dir, self.here.as_ref());
        let current = self
            .current
            .get_or_insert_with(|| identity::current(common_dir, here));
        current
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, root)| root.clone())
    }
}

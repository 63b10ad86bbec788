//! A session's snapshot ref deleted from outside git-dibs (`git update-ref -d`, a mirror fetch
//! with `--prune`, `rm -rf .git/refs/dibs`): put back on the newest snapshot the store
//! remembers while that commit is still in the object store, so the chain goes on from it.

use std::path::Path;

use super::{Reader, SnapshotError, Snapshots, snapshot_ref};

/// What [`Snapshots::reattach`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reattach {
    /// The ref is there.
    Present,
    /// The ref was gone; it points at the remembered commit again.
    Restored,
    /// The ref and the remembered commit are both gone: what the chain held is in no object
    /// any more, and the session's files must be snapshotted anew.
    Lost,
}

/// Whether the snapshot ref of the session whose store key is `key` is a loose ref file under
/// `common_dir` (one `lstat`; a packed or reftable ref needs [`Snapshots::reattach`]).
pub(crate) fn loose_ref_exists(common_dir: &Path, key: &str) -> bool {
    std::fs::symlink_metadata(common_dir.join(snapshot_ref(key))).is_ok_and(|m| m.is_file())
}

impl Snapshots {
    /// Make sure the snapshot ref of the session whose store key is `key` exists: when it is
    /// gone and `commit` (the newest snapshot the store remembers) is still a commit here, the
    /// ref is created on it again.
    pub(crate) fn reattach(&self, key: &str, commit: &str) -> Result<Reattach, SnapshotError> {
        let name = snapshot_ref(key);
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.reattach(&name, commit),
        };
        if repo.find_reference(&name).is_ok() {
            return Ok(Reattach::Present);
        }
        let Ok(id) = git2::Oid::from_str(commit) else {
            return Ok(Reattach::Lost);
        };
        if repo.find_commit(id).is_err() {
            return Ok(Reattach::Lost);
        }
        match repo.reference(&name, id, false, "git-dibs: snapshot ref put back") {
            Ok(_) => Ok(Reattach::Restored),
            // Another call put it back (or wrote a first snapshot) meanwhile.
            Err(e) if e.code() == git2::ErrorCode::Exists => Ok(Reattach::Present),
            Err(e) => Err(e.into()),
        }
    }
}

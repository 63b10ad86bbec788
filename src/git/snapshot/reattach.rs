//! A session's snapshot chain broken from outside git-dibs: its ref deleted (`git update-ref
//! -d`, a mirror fetch with `--prune`, `rm -rf .git/refs/dibs`) is put back on the newest
//! snapshot the store remembers while that commit is still in the object store; a ref left on
//! a commit whose objects a concurrent `git gc --prune=now` removed is moved back to the
//! newest intact commit of the chain (or deleted when none is left), so later snapshots go on.

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

/// What [`Snapshots::repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Repair {
    /// The ref is absent, or its commit and that commit's tree are there.
    Intact,
    /// The ref was moved back to this intact commit of its chain.
    BackTo(String),
    /// Nothing of the chain was intact: the ref was deleted.
    Cut,
}

/// Whether the snapshot ref of the session whose store key is `key` is a loose ref file under
/// `common_dir` (one `lstat`; a packed or reftable ref needs [`Snapshots::reattach`]).
pub(crate) fn loose_ref_exists(common_dir: &Path, key: &str) -> bool {
    std::fs::symlink_metadata(common_dir.join(snapshot_ref(key))).is_ok_and(|m| m.is_file())
}

impl Snapshots {
    /// Make sure the snapshot ref of the session whose store key is `key` exists: when it is
    /// gone and `commit` (a snapshot the store remembers) is still a commit here with its
    /// tree, the ref is created on it again.
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
        if repo.find_commit(id).and_then(|c| c.tree()).is_err() {
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

impl Snapshots {
    /// Make the chain of the session whose store key is `key` whole: when the ref's commit or
    /// that commit's tree is missing, move the ref back (by compare-and-swap) to the newest
    /// first-parent ancestor that has both, or delete it when there is none within
    /// [`super::HISTORY_LIMIT`] commits.
    pub(crate) fn repair(&self, key: &str) -> Result<Repair, SnapshotError> {
        let name = snapshot_ref(key);
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.repair(&name),
        };
        let Some(tip) = repo.find_reference(&name).ok().and_then(|r| r.target()) else {
            return Ok(Repair::Intact);
        };
        let mut id = tip;
        for _ in 0..super::HISTORY_LIMIT {
            let Ok(commit) = repo.find_commit(id) else {
                break;
            };
            if commit.tree().is_ok() {
                if id == tip {
                    return Ok(Repair::Intact);
                }
                repo.reference_matching(&name, id, true, tip, "git-dibs: chain repaired")?;
                return Ok(Repair::BackTo(id.to_string()));
            }
            match commit.parent_id(0) {
                Ok(parent) => id = parent,
                Err(_) => break,
            }
        }
        repo.find_reference(&name)?.delete()?;
        Ok(Repair::Cut)
    }
}

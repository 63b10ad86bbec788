//! A session's snapshot chain broken from outside git-dibs: its ref deleted (`git update-ref
//! -d`, a mirror fetch with `--prune`, `rm -rf .git/refs/dibs`) is put back on the newest
//! snapshot the store remembers while that commit is still in the object store; a ref left on
//! a commit whose objects a concurrent `git gc --prune=now` removed is moved back to the
//! newest intact commit of the chain (or deleted when none is left), so later snapshots go on.
//! A ref pointed from outside git-dibs at a commit that does not descend from the newest
//! snapshot the store remembers (`git update-ref`, `git push . +X:refs/dibs/…`, a GUI) is put
//! back on that snapshot while it is still here, and the commit it was pointed at is kept under
//! `refs/dibs/rewritten/`, so a `git gc` after it loses neither.

use std::path::Path;

use super::{Reader, SnapshotError, Snapshots, snapshot_ref};

/// What [`Snapshots::reattach`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reattach {
    /// The ref is there.
    Present,
    /// The ref was gone; it points at the remembered commit again.
    Restored,
    /// The ref and the remembered commit are both gone: what the chain held is in no object
    /// any more, and the session's files must be snapshotted anew.
    Lost,
    /// The ref was on `foreign`, a commit git-dibs did not write on the remembered one; it is
    /// back on the remembered commit, and `foreign` is kept by the ref `kept`.
    Rewritten {
        /// Where the ref was found.
        foreign: String,
        /// The ref that keeps it now.
        kept: String,
    },
    /// The ref was on `foreign`, a commit git-dibs did not write, and the remembered commit is
    /// gone from the object store: nothing is left to put the ref back on, and the session's
    /// files must be snapshotted anew (the next snapshot goes on top of `foreign`, which stays
    /// reachable; the listing stops at it).
    Pruned {
        /// Where the ref was found.
        foreign: String,
    },
}

/// The prefix of the refs that keep the commits a snapshot ref was found on when it was put
/// back (see [`Reattach::Rewritten`]).
pub(crate) const REWRITTEN_PREFIX: &str = "refs/dibs/rewritten/";

/// The commit `common_dir`'s loose ref file of the snapshot ref of store key `key` holds
/// (one read of a small file; `None` when it is not a loose ref, or not a commit id).
pub(crate) fn loose_ref_tip(common_dir: &Path, key: &str) -> Option<String> {
    use crate::platform::files::{Links, read_regular};
    let bytes = read_regular(&common_dir.join(snapshot_ref(key)), Links::Refuse, 128).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?.trim();
    (text.len() >= 40 && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| text.to_owned())
}

/// Remove the loose file of the snapshot ref of store key `key` under `common_dir` when it
/// holds no commit id (an empty or torn file, other text, a symbolic ref, a symbolic link: git
/// and libgit2 read none of them, so every later snapshot of the session failed): git-dibs
/// writes nothing else there, so nothing is lost by it. Says what was there; `None` when the
/// file is absent or a plain commit id (one `lstat` and one small read).
pub(crate) fn mend_damaged(common_dir: &Path, key: &str) -> Option<&'static str> {
    let path = common_dir.join(snapshot_ref(key));
    let meta = std::fs::symlink_metadata(&path).ok()?;
    let what = if meta.file_type().is_symlink() {
        "a symbolic link"
    } else if !meta.is_file() {
        return None;
    } else if meta.len() == 0 {
        "an empty file"
    } else if loose_ref_tip(common_dir, key).is_some() {
        return None;
    } else {
        "text that is no commit id"
    };
    std::fs::remove_file(&path).ok()?;
    Some(what)
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
    /// Make sure the snapshot ref of the session whose store key is `key` exists and holds
    /// `commit` (a snapshot the store remembers): when it is gone and `commit` is still a
    /// commit here with its tree, the ref is created on it again; when it is on a commit that
    /// does not descend from `commit` by snapshots (see [`Reattach::Rewritten`]), it is put
    /// back. (Through git, for a repository libgit2 cannot open, a tip that holds `commit` by
    /// any path counts as written on it.)
    pub(crate) fn reattach(&self, key: &str, commit: &str) -> Result<Reattach, SnapshotError> {
        let name = snapshot_ref(key);
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.reattach(&name, commit),
        };
        let id = git2::Oid::from_str(commit).ok();
        let intact = |id: git2::Oid| repo.find_commit(id).and_then(|c| c.tree()).is_ok();
        if let Ok(r) = repo.find_reference(&name) {
            return match (r.target(), id) {
                // Behind the remembered snapshot, which was written on it (on the session's
                // spare chain while a lock held this ref): moved on to it.
                (Some(tip), Some(id)) if tip != id && descends(repo, id, tip) => {
                    let _ = repo.reference_matching(&name, id, true, tip, "git-dibs: caught up");
                    Ok(Reattach::Present)
                }
                (Some(tip), Some(id)) if tip != id && !descends(repo, tip, id) => {
                    put_back(repo, &name, key, tip, id, intact(id))
                }
                _ => Ok(Reattach::Present),
            };
        }
        let Some(id) = id.filter(|id| intact(*id)) else {
            return Ok(Reattach::Lost);
        };
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

/// Whether `tip` is `commit` or a snapshot written on it: its first parents, snapshots all,
/// reach `commit` within [`super::HISTORY_LIMIT`] commits (a concurrent call of the same
/// session moved the ref on meanwhile).
fn descends(repo: &git2::Repository, tip: git2::Oid, commit: git2::Oid) -> bool {
    let mut id = tip;
    for _ in 0..super::HISTORY_LIMIT {
        if id == commit {
            return true;
        }
        let Ok(c) = repo.find_commit(id) else {
            return false;
        };
        if super::meta_of(&c).is_none() {
            return false;
        }
        match c.parent_id(0) {
            Ok(p) => id = p,
            Err(_) => return false,
        }
    }
    false
}

/// The ref `name` (store key `key`) found on `tip`, which does not descend from the
/// remembered `commit`: when `commit` is `intact`, `tip` is kept under [`REWRITTEN_PREFIX`] and
/// the ref moved back (by compare-and-swap) to `commit`. A ref left on an older snapshot by a
/// repair (its newer commits' objects pruned mid-write) is not this: left alone.
fn put_back(
    repo: &git2::Repository,
    name: &str,
    key: &str,
    tip: git2::Oid,
    commit: git2::Oid,
    intact: bool,
) -> Result<Reattach, SnapshotError> {
    let ours = repo
        .find_commit(tip)
        .is_ok_and(|c| super::meta_of(&c).is_some());
    if !intact {
        return Ok(if ours {
            Reattach::Present
        } else {
            Reattach::Pruned {
                foreign: tip.to_string(),
            }
        });
    }
    let foreign = tip.to_string();
    let kept = format!("{REWRITTEN_PREFIX}{key}-{}", &foreign[..12]);
    if repo.find_object(tip, None).is_ok() {
        repo.reference(
            &kept,
            tip,
            true,
            "git-dibs: kept where a snapshot ref was pointed",
        )?;
    }
    match repo.reference_matching(name, commit, true, tip, "git-dibs: snapshot ref put back") {
        Ok(_) => Ok(Reattach::Rewritten { foreign, kept }),
        // Moved again meanwhile (a snapshot of the same session): looked at next time.
        Err(e) if e.code() == git2::ErrorCode::Modified => Ok(Reattach::Present),
        Err(e) => Err(e.into()),
    }
}

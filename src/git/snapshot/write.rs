//! Writing one snapshot: as plain files where the chain allows (`loose`), otherwise through
//! libgit2, or git for a repository libgit2 cannot open.

use std::path::Path;

use super::{
    IDENTITY, NewSnapshot, SnapshotError, describe, loose, message, meta_of, open, snapshot_ref,
    tree_path,
};

/// Write a snapshot of `new` on the chain of the session whose store key is `key`, and move
/// its ref there by compare-and-swap (retried when a concurrent call moved it). Returns the
/// new commit's id. A chain that exists is written as plain files (see `loose`); a first
/// snapshot, or a repository that is not written so, through libgit2 (or git).
pub(crate) fn write(
    common_dir: &Path,
    key: &str,
    new: &NewSnapshot<'_>,
) -> Result<String, SnapshotError> {
    match loose::write(common_dir, &snapshot_ref(key), new)? {
        loose::Outcome::Made(commit) => Ok(commit),
        loose::Outcome::NotHere => write_through_libgit2(common_dir, key, new),
    }
}

/// [`write`] through libgit2, or git for a repository libgit2 cannot open.
pub(super) fn write_through_libgit2(
    common_dir: &Path,
    key: &str,
    new: &NewSnapshot<'_>,
) -> Result<String, SnapshotError> {
    // Every entry of the trees written here is a blob written just before or a tree of the
    // parent: skip libgit2's check that each exists (an object read per entry).
    git2::opts::strict_object_creation(false);
    let repo = match open(common_dir) {
        Ok(repo) => repo,
        Err(e) => match crate::git::cli::snapshots::Cli::for_format(common_dir) {
            Some(cli) => return cli.write(key, new),
            None => return Err(e),
        },
    };
    let name = snapshot_ref(key);
    let blobs: Vec<(String, git2::Oid, git2::FileMode)> = new
        .puts
        .iter()
        .map(|p| {
            let id = repo.blob(p.content.bytes())?;
            Ok((tree_path(p), id, p.content.mode()))
        })
        .collect::<Result<_, git2::Error>>()?;
    for _ in 0..super::WRITE_ATTEMPTS {
        let parent = repo
            .find_reference(&name)
            .ok()
            .and_then(|r| r.peel_to_commit().ok());
        let baseline = match &parent {
            Some(c) => c.tree()?,
            None => repo.find_tree(repo.treebuilder(None)?.write()?)?,
        };
        let meta = describe(new, parent.as_ref().and_then(meta_of));
        let mut update = git2::build::TreeUpdateBuilder::new();
        for (at, id, mode) in &blobs {
            update.upsert(at.as_str(), *id, *mode);
        }
        let tree = repo.find_tree(update.create_updated(&repo, &baseline)?)?;
        let when = git2::Time::new(i64::try_from(new.at).unwrap_or(0), 0);
        let sig = git2::Signature::new(IDENTITY.0, IDENTITY.1, &when)?;
        let message = message(new, &meta);
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let commit = repo.commit(None, &sig, &sig, &message, &tree, &parents)?;
        let moved = match &parent {
            Some(p) => repo.reference_matching(&name, commit, true, p.id(), "git-dibs snapshot"),
            None => repo.reference(&name, commit, false, "git-dibs snapshot"),
        };
        match moved {
            Ok(_) => return Ok(commit.to_string()),
            Err(e)
                if matches!(
                    e.code(),
                    git2::ErrorCode::Modified | git2::ErrorCode::Exists
                ) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(SnapshotError::Raced(name))
}

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
///
/// A ref whose lock file stays (left by a git process, or a hook, killed between lock and
/// rename) would stop every later snapshot of the session: an old lock is removed, and while
/// a young one stays the snapshot goes on the session's spare chain (`<key>.spare`, read by
/// `recover` like any chain), so no change waits on it.
pub(crate) fn write(
    common_dir: &Path,
    key: &str,
    new: &NewSnapshot<'_>,
) -> Result<String, SnapshotError> {
    let on_chain = |key: &str| match loose::write(common_dir, &snapshot_ref(key), new)? {
        loose::Outcome::Made(commit) => Ok(commit),
        loose::Outcome::NotHere => write_through_libgit2(common_dir, key, new),
    };
    let spare = super::spare_key(key);
    // One `lstat` each: a spare chain is caught up with where one is left loose, or where the
    // lock that made it is there still (a `gc` may have packed the spare since).
    if super::loose_ref_exists(common_dir, &spare)
        || super::lock_left(common_dir, &snapshot_ref(key))
    {
        super::clear_stale_lock(common_dir, &snapshot_ref(key));
        catch_up(common_dir, key, &spare);
    }
    let first = on_chain(key);
    if first.is_ok() || !super::lock_left(common_dir, &snapshot_ref(key)) {
        return first;
    }
    if super::clear_stale_lock(common_dir, &snapshot_ref(key)) {
        return on_chain(key);
    }
    if super::lock_left(common_dir, &snapshot_ref(&spare)) {
        super::clear_stale_lock(common_dir, &snapshot_ref(&spare));
    }
    start_spare(common_dir, key, &spare);
    on_chain(&spare)
        .map_err(|_| SnapshotError::Locked(super::lock_path(common_dir, &snapshot_ref(key))))
}

/// The clone, and the tips of the chain of key `key` and of its spare `spare` (each when
/// there); `None` when the clone cannot be opened or the chain has no ref.
fn chain_and_spare(
    common_dir: &Path,
    key: &str,
    spare: &str,
) -> Option<(git2::Repository, git2::Oid, Option<git2::Oid>)> {
    let repo = open(common_dir).ok()?;
    let tip = |k: &str| {
        repo.find_reference(&snapshot_ref(k))
            .ok()
            .and_then(|r| r.target())
    };
    let (main, ahead) = (tip(key)?, tip(spare));
    Some((repo, main, ahead))
}

/// Once the lock is gone: move the chain of the session whose key is `key` on to its spare
/// chain `spare` (written on it), and delete the spare. Left as they are when the spare is not
/// ahead of the chain, or the chain is still locked (both are read by `recover`).
fn catch_up(common_dir: &Path, key: &str, spare: &str) {
    let Some((repo, main, Some(ahead))) = chain_and_spare(common_dir, key, spare) else {
        return;
    };
    let on = ahead == main
        || (repo.graph_descendant_of(ahead, main).unwrap_or(false)
            && repo
                .reference_matching(&snapshot_ref(key), ahead, true, main, "git-dibs: caught up")
                .is_ok());
    if on && let Ok(mut r) = repo.find_reference(&snapshot_ref(spare)) {
        let _ = r.delete();
    }
}

/// Put the spare chain `spare` of the session whose key is `key` on the tip of its chain,
/// unless it is ahead of it already: its snapshots then descend from the chain's, and the
/// chain catches up with them once its lock is gone (see `Snapshots::reattach`). Best effort:
/// a spare that cannot be moved still takes the snapshot, on its own.
fn start_spare(common_dir: &Path, key: &str, spare: &str) {
    let Some((repo, main, ahead)) = chain_and_spare(common_dir, key, spare) else {
        return;
    };
    match ahead {
        Some(at) if at == main || repo.graph_descendant_of(at, main).unwrap_or(false) => {}
        Some(at) => {
            let _ =
                repo.reference_matching(&snapshot_ref(spare), main, true, at, "git-dibs: spare");
        }
        None => {
            let _ = repo.reference(&snapshot_ref(spare), main, false, "git-dibs: spare");
        }
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

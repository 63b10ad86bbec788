//! Which of a few files differ from HEAD, settled by their stat data where git's index vouches
//! for them: one read of the index file, one `lstat` per file (looked up in its folder, opened
//! once), and no repository opened.
//!
//! Why: a session start names its peers' uncommitted files. Hashing each file against its blob
//! in HEAD's trees costs a repository open, a walk of HEAD's trees and a read and a hash per file;
//! here a file whose stat data matches its index entry (and is not racily clean) is known to hold
//! the index's content, and the index's cached tree, when it equals HEAD's tree, says that content
//! is HEAD's. Only what this cannot settle (a changed stat, a new file and its ignore rules, an
//! index or HEAD it does not understand) is left to [`super::uncommitted_among`], so the answer
//! is the same, except that a file git's filters changed on checkout reads as clean here.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fs;
use std::io::{ErrorKind, Read, Seek};
use std::path::Path;

use super::index::{self, Entry, MODE_EXEC, MODE_FILE, Stamp, same_stat};
#[cfg(test)]
use super::index::{Stat, Window};
use super::{GitError, Worktree, uncommitted_among, worktree_at};

mod at;

/// Of `paths` (relative, `/`-separated) in the worktree at `root`, those whose content differs
/// from HEAD: changed, deleted, or new and not ignored, as [`super::uncommitted_among`] tells,
/// which is asked only about the files stat data cannot settle.
pub(crate) fn uncommitted_files(
    root: &Path,
    paths: &[String],
) -> Result<BTreeSet<String>, GitError> {
    match worktree_at(root) {
        Some(wt) => uncommitted_files_in(&wt, paths),
        None => uncommitted_among(root, paths),
    }
}

/// [`uncommitted_files`] in a worktree already located.
pub(crate) fn uncommitted_files_in(
    wt: &Worktree,
    paths: &[String],
) -> Result<BTreeSet<String>, GitError> {
    uncommitted_files_at(wt, paths, None)
}

/// [`uncommitted_files_in`], told HEAD's tree (hex) when the caller already knows it (see
/// [`head_commit`] and [`tree_of`]): then no object is read.
pub(crate) fn uncommitted_files_at(
    wt: &Worktree,
    paths: &[String],
    head_tree: Option<&str>,
) -> Result<BTreeSet<String>, GitError> {
    if paths.is_empty() {
        return Ok(BTreeSet::new());
    }
    let Some(settled) = settle(&wt.root, wt, paths, head_tree) else {
        return uncommitted_among(&wt.root, paths);
    };
    let mut dirty = settled.dirty;
    if !settled.unsettled.is_empty() {
        dirty.extend(uncommitted_among(&wt.root, &settled.unsettled)?);
    }
    Ok(dirty)
}

/// What the index and stat data told.
#[derive(Debug, Default)]
struct Settled {
    dirty: BTreeSet<String>,
    unsettled: Vec<String>,
}

/// Past this many bytes of index per file asked about, reading the whole index costs more than
/// hashing the files (an 80-byte entry takes about as long to walk as 1/150 of a small file's
/// read and hash): leave them to libgit2.
const INDEX_BYTES_PER_PATH: u64 = 16 * 1024;

/// `None` when the index cannot vouch for HEAD (something staged, no valid cached tree, an
/// index or HEAD this reader does not understand) or is too large for so few files: the caller
/// asks libgit2 about every path.
fn settle(
    root: &Path,
    wt: &Worktree,
    paths: &[String],
    head_tree: Option<&str>,
) -> Option<Settled> {
    let mut wanted: Vec<&str> = paths.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let (entries, stamp) = read_index(wt, &wanted, head_tree)?;
    let mut out = Settled::default();
    // Each file looked up in its folder, opened once for all the files asked about there.
    let mut at = at::Lookups::new(root);
    for (rel, entry) in wanted.iter().zip(entries) {
        let state = match (entry, at.lstat(rel)) {
            (Some(e), _) if e.special || (e.mode != MODE_FILE && e.mode != MODE_EXEC) => None,
            // In HEAD (the index holds HEAD's tree), gone from the worktree.
            (Some(_), Err(err)) if err.kind() == ErrorKind::NotFound => Some(true),
            (Some(e), Ok((true, stat))) => {
                if same_stat(&e, &stat, stamp) {
                    Some(false)
                } else {
                    let bytes = super::read_worktree_file(&root.join(rel))?;
                    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()?;
                    Some(oid.as_bytes() != e.oid)
                }
            }
            // Neither in HEAD nor in the worktree.
            (None, Err(err)) if err.kind() == ErrorKind::NotFound => Some(false),
            // New (ignore rules decide), a folder or link where a file was, an unreadable one.
            _ => None,
        };
        match state {
            Some(true) => {
                out.dirty.insert((*rel).to_owned());
            }
            Some(false) => {}
            None => out.unsettled.push((*rel).to_owned()),
        }
    }
    Some(out)
}

/// The index entries of `wanted` (sorted) and the index's time stamp, when the index vouches
/// for HEAD and is small enough to be worth reading for them.
fn read_index(
    wt: &Worktree,
    wanted: &[&str],
    head_tree: Option<&str>,
) -> Option<(Vec<Option<Entry>>, Stamp)> {
    let max_len = INDEX_BYTES_PER_PATH.saturating_mul(wanted.len() as u64);
    let (mut index, stamp) = index::open(&wt.git_dir, max_len)?;
    let (entries, cached_tree) = lookup(&mut index, wanted)?;
    let head_tree = match head_tree {
        Some(hex) => git2::Oid::from_str(hex).ok()?,
        None => git2::Oid::from_str(&tree_of(wt, &head_commit(wt)?)?).ok()?,
    };
    (cached_tree? == head_tree).then_some((entries, stamp))
}

/// The id (hex) of HEAD's commit, from the ref files alone; `None` for an unborn branch, a ref
/// outside `refs/heads/` or a read error. A SHA-256 id has 64 digits. In a reftable repository
/// (its `HEAD` file is a stub, which shows in what is read anyway) git is asked.
pub(crate) fn head_commit(wt: &Worktree) -> Option<String> {
    let head = fs::read_to_string(wt.git_dir.join("HEAD")).ok()?;
    let head = head.trim_end();
    let commit = match head.strip_prefix("ref: ") {
        Some(name)
            if name.strip_prefix("refs/heads/") == Some(super::cli::REFTABLE_STUB_BRANCH) =>
        {
            return super::cli::head_commit(&wt.git_dir);
        }
        Some(name) if name.starts_with("refs/heads/") => resolve_ref(&wt.common_dir, name)?,
        Some(_) => return None,
        None => head.to_owned(),
    };
    matches!(commit.len(), 40 | 64).then_some(commit)
}

/// The id (hex) of the tree of `commit`, read from the object (loose or packed). A commit
/// never changes, so a caller may keep the answer.
pub(crate) fn tree_of(wt: &Worktree, commit: &str) -> Option<String> {
    let odb = git2::Odb::new().ok()?;
    odb.add_disk_alternate(wt.common_dir.join("objects").to_str()?)
        .ok()?;
    let object = odb.read(git2::Oid::from_str(commit).ok()?).ok()?;
    if object.kind() != git2::ObjectType::Commit {
        return None;
    }
    let hex = object.data().strip_prefix(b"tree ")?.get(..40)?;
    let hex = std::str::from_utf8(hex).ok()?;
    git2::Oid::from_str(hex).is_ok().then(|| hex.to_owned())
}

/// A branch's commit id (hex): its loose ref file, else its line in `packed-refs`.
fn resolve_ref(common_dir: &Path, name: &str) -> Option<String> {
    match fs::read_to_string(common_dir.join(name)) {
        Ok(text) => {
            let text = text.trim_end();
            (!text.starts_with("ref:")).then(|| text.to_owned())
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let packed = fs::read_to_string(common_dir.join("packed-refs")).ok()?;
            packed
                .lines()
                .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
                .filter_map(|l| l.split_once(' '))
                .find(|(_, r)| *r == name)
                .map(|(id, _)| id.to_owned())
        }
        Err(_) => None,
    }
}

/// The entries found for the wanted paths, and the root tree id the index's cache holds.
type Found = (Vec<Option<Entry>>, Option<git2::Oid>);

/// Walk an index file (versions 2 to 4) once, picking the entries of `wanted` (sorted, as the
/// index is): each one's entry, if it has one, and the root tree id its cache holds, if valid.
/// `None` for anything this reader must not rely on: a malformed file, a split or sparse index,
/// an unknown required extension. The trailing checksum is not verified, as git does not outside
/// `git fsck`.
fn lookup<R: Read + Seek>(index: &mut index::Window<R>, wanted: &[&str]) -> Option<Found> {
    let mut found: Vec<Option<Entry>> = vec![None; wanted.len()];
    let prefixes: Vec<u64> = wanted.iter().map(|w| prefix(w.as_bytes())).collect();
    let mut next = 0; // the first wanted path not passed yet
    let tree = index::walk(index, |name, raw| {
        // Pass the wanted paths that have no entry; is this entry the next one? Most entries
        // are told apart by their first 8 bytes.
        let first = prefix(name);
        while let Some(w) = wanted.get(next) {
            let order = match prefixes[next].cmp(&first) {
                Ordering::Equal => w.as_bytes().cmp(name),
                unequal => unequal,
            };
            match order {
                Ordering::Less => next += 1,
                Ordering::Equal => {
                    let entry = raw.entry()?;
                    let slot = &mut found[next];
                    *slot = match slot {
                        // A path listed twice is in conflict.
                        Some(first) => Some(Entry {
                            special: true,
                            ..*first
                        }),
                        None => Some(entry),
                    };
                    break;
                }
                Ordering::Greater => break,
            }
        }
        Some(())
    })?;
    Some((found, tree))
}

/// A path's first 8 bytes as a number, padded with zeros (no path holds a NUL): comparing two
/// of these orders the paths as comparing the paths would, when they differ.
#[inline]
fn prefix(path: &[u8]) -> u64 {
    if let Some(first) = path.first_chunk::<8>() {
        return u64::from_be_bytes(*first);
    }
    let mut first = [0u8; 8];
    let n = path.len().min(8);
    first[..n].copy_from_slice(&path[..n]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests;

//! Hashing, for a walk, the tracked files whose stat data cannot tell (times changed, size the
//! same; or racily clean, as right after a checkout): each one's blob id against its index
//! entry's, as libgit2 compares them, so that a few such files do not cost libgit2's whole status
//! (the index read and checksummed again, HEAD's trees loaded, the worktree iterated).
//!
//! Only where nothing can convert a file's content on its way into git: no `.gitattributes` in
//! any folder the walk listed, none in the repository's `info/`, no global or system attributes
//! file, and neither `core.attributesFile` nor `core.autocrlf` set (but to false). Otherwise,
//! for links, and past [`HASH_AT_MOST`] files, libgit2 is asked as before.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::git::MAX_HASHED;
use crate::platform::files::{Links, read_regular};

/// At most this many files are hashed here; past it libgit2 is asked about the rest.
const HASH_AT_MOST: usize = 256;

/// Hashes a walk's uncertain files (see the module's note).
pub(super) struct Hasher<'a> {
    repo: &'a git2::Repository,
    root: &'a Path,
    /// Whether a listing showed a `.gitattributes`.
    attributes: bool,
    /// Whether nothing converts content, once asked.
    usable: Option<bool>,
    left: usize,
}

impl<'a> Hasher<'a> {
    /// For the files a walk found in `repo`'s worktree at `root`; `attributes`: whether the
    /// walk saw a `.gitattributes`.
    pub(super) fn new(repo: &'a git2::Repository, root: &'a Path, attributes: bool) -> Hasher<'a> {
        Hasher {
            repo,
            root,
            attributes,
            usable: None,
            left: HASH_AT_MOST,
        }
    }

    /// Whether the file at `path` (relative) holds the blob `oid` (a regular file's entry);
    /// `None` when only libgit2 can tell.
    pub(super) fn same(&mut self, path: &str, oid: Option<[u8; 20]>) -> Option<bool> {
        let oid = oid?;
        if self.left == 0 {
            return None;
        }
        let (repo, attributes) = (self.repo, self.attributes);
        if !*self
            .usable
            .get_or_insert_with(|| !attributes && nothing_converts(repo))
        {
            return None;
        }
        self.left -= 1;
        let bytes = read_regular(&self.root.join(path), Links::Refuse, MAX_HASHED).ok()?;
        let id = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()?;
        Some(id.as_bytes() == oid)
    }
}

/// Whether no configuration and no attributes file outside the worktree can make git convert a
/// file's content (end of line, filters, encodings) before hashing it.
fn nothing_converts(repo: &git2::Repository) -> bool {
    let Ok(config) = repo.config() else {
        return false;
    };
    let unset_or_false = |key: &str| match config.get_string(key) {
        Ok(v) => ["", "false", "no", "off", "0"]
            .iter()
            .any(|f| v.trim().eq_ignore_ascii_case(f)),
        Err(e) => e.code() == git2::ErrorCode::NotFound,
    };
    let no_file_named = |key: &str| match config.get_string(key) {
        Ok(_) => false,
        Err(e) => e.code() == git2::ErrorCode::NotFound,
    };
    if !unset_or_false("core.autocrlf") || !no_file_named("core.attributesFile") {
        return false;
    }
    let mut files = vec![
        repo.path().join("info/attributes"),
        repo.commondir().join("info/attributes"),
        PathBuf::from("/etc/gitattributes"),
    ];
    for (var, below) in [
        ("XDG_CONFIG_HOME", "git/attributes"),
        ("HOME", ".config/git/attributes"),
    ] {
        if let Some(dir) = std::env::var_os(var).filter(|d| !d.is_empty()) {
            files.push(Path::new(&dir).join(below));
        }
    }
    files
        .iter()
        .all(|f| matches!(fs::symlink_metadata(f), Err(e) if e.kind() == ErrorKind::NotFound))
}

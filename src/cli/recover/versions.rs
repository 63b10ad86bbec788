//! Which version of a file `recover` brings back: the newest a filter allows, passing over one
//! that put the file back as committed (nobody's work), and what the working copy holds now,
//! read only when it may be one of the versions.

use std::path::Path;

use super::{Catalog, Version, session_matches};
use crate::git::snapshot::Origin;

impl Catalog {
    /// Whether `v` (a version of `path` in the worktree at `root`; `older` the versions before
    /// it, newest first) is the file put back as committed, nobody's work, so that the version
    /// before it is what to bring back: a state found on disk that is the file as committed
    /// there now (a reset, a checkout, a stash put it back), or what the session's own shell
    /// command left that is the file as committed at the HEAD of that moment while HEAD had not
    /// moved since the version before (`git checkout -- F`, `git restore F`; a command that
    /// committed what it wrote moved HEAD).
    fn is_revert<'v>(
        &self,
        root: &Path,
        path: &str,
        v: &Version,
        mut older: impl Iterator<Item = &'v Version>,
    ) -> bool {
        match v.origin {
            Some(Origin::Sweep) => {
                self.snapshots.committed_blob(root, path, None).as_deref() == Some(v.blob.as_str())
            }
            Some(Origin::Shell) => {
                let Some(head) = v.head.as_deref() else {
                    return false;
                };
                older
                    .find(|o| o.blob != v.blob)
                    .is_some_and(|o| o.head.as_deref() == Some(head))
                    && self
                        .snapshots
                        .committed_blob(root, path, Some(head))
                        .as_deref()
                        == Some(v.blob.as_str())
            }
            _ => false,
        }
    }

    /// The version of `path` in `root` to bring back from `versions` (newest first): the newest
    /// that `session` (a filter) and `at` (a time) allow, passing over one that put the file
    /// back as committed (see [`Catalog::is_revert`]), and copies `recover --force` kept unless
    /// a session is named. Also the revert passed over, when one was.
    pub(super) fn pick<'v>(
        &self,
        root: &Path,
        path: &str,
        versions: impl IntoIterator<Item = &'v Version>,
        session: Option<&str>,
        at: Option<u64>,
    ) -> (Option<&'v Version>, Option<&'v Version>) {
        let allowed: Vec<&Version> = versions
            .into_iter()
            .filter(|v| {
                session_matches(&v.session, session)
                    && at.is_none_or(|t| v.at <= t)
                    && (session.is_some() || v.origin != Some(Origin::Kept))
            })
            .collect();
        let Some((&first, rest)) = allowed.split_first() else {
            return (None, None);
        };
        if !self.is_revert(root, path, first, rest.iter().copied()) {
            return (Some(first), None);
        }
        let before = rest
            .iter()
            .find(|v| !(v.origin == first.origin && v.blob == first.blob));
        match before {
            Some(&v) => (Some(v), Some(first)),
            None => (Some(first), None),
        }
    }
}

impl Catalog {
    /// The blob the file at `full` would have now, hashed only when it may be one of `blobs`:
    /// a regular file whose size is none of theirs (a big file put in its place) is not read,
    /// and is given as the empty id, which matches no blob. `None` when there is no regular
    /// file or link there.
    pub(super) fn current_blob_among<'b>(
        &self,
        full: &Path,
        blobs: impl IntoIterator<Item = &'b str>,
    ) -> Option<String> {
        let meta = std::fs::symlink_metadata(full).ok()?;
        if meta.is_file()
            && !blobs.into_iter().any(|b| {
                self.snapshots
                    .blob_size(b)
                    .is_none_or(|size| size == meta.len())
            })
        {
            return Some(String::new());
        }
        self.snapshots.current_blob(full)
    }
}

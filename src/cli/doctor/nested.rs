//! `doctor`'s line on nested repositories of another object format whose history this clone
//! keeps as a bundle (see `git::nested::bundle`): which, and how large.

use super::Report;
use crate::git::Worktree;
use crate::git::nested::bundle;
use crate::store::Store;

/// One line per nested repository kept here as a bundle.
pub(super) fn check(r: &mut Report, wt: &Worktree, store: &Store) {
    for b in bundle::all_kept(&wt.root) {
        let root = store
            .nested_root(&b.id)
            .map_or_else(|| b.id.clone(), |p| p.display().to_string());
        r.ok(format!(
            "the commits of {} ({}, another object format than this repository's) are kept here \
             as a bundle ({} KiB, {}), never pushed",
            crate::text::clean(&root, crate::text::MAX_SHOWN),
            b.meta.format,
            b.bytes.div_ceil(1024),
            b.reference
        ));
    }
}

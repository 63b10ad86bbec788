//! Where files go in a snapshot's tree: flat entries at its top, `<worktree id>:<path>`, and
//! reading back the nested `<worktree id>/<path>` entries of chains begun before.

use super::{Held, Put, worktree_id};

/// Where `put` goes in a snapshot's tree: one entry at the top, `<worktree id>:<path>` with
/// `%`, `/` and NUL (a byte of a name that is not UTF-8, see [`crate::pathtext`]) of the path
/// written `%25`, `%2F` and `%00`, so that a snapshot of one file writes three
/// objects (the file, the tree, the commit) however deep the file lies.
pub(crate) fn tree_path(put: &Put) -> String {
    let path = &put.path;
    let mut name = worktree_id(&put.worktree);
    name.reserve(1 + path.len());
    name.push(':');
    for c in path.chars() {
        match c {
            '%' => name.push_str("%25"),
            '/' => name.push_str("%2F"),
            '\0' => name.push_str("%00"),
            c => name.push(c),
        }
    }
    name
}

/// The worktree id and path of the file at `at` in a snapshot's tree (a path from its top):
/// a flat entry ([`tree_path`]), or `<worktree id>/<path>` as snapshots nested their files
/// before (see [`newest_entries`]). `None` for anything else.
pub(crate) fn file_at(at: &str) -> Option<(String, String)> {
    if let Some((wid, path)) = at.split_once('/') {
        return (!wid.is_empty() && !path.is_empty()).then(|| (wid.to_owned(), path.to_owned()));
    }
    let (wid, escaped) = at.split_once(':')?;
    if wid.is_empty() || escaped.is_empty() {
        return None;
    }
    // Every `%` of the name starts an escape, so replacing `%2F` and `%00` first cannot
    // misread one.
    let path = escaped
        .replace("%2F", "/")
        .replace("%00", "\0")
        .replace("%25", "%");
    Some((wid.to_owned(), path))
}

/// The files of a snapshot's tree, each once: a chain begun before trees were flat keeps its
/// nested entries, and a later snapshot of the same file adds the flat one, which is newer.
pub(crate) fn newest_entries(entries: Vec<(Held, bool)>) -> Vec<Held> {
    let flat: std::collections::HashSet<(String, String)> = entries
        .iter()
        .filter(|(_, flat)| *flat)
        .map(|(h, _)| (h.worktree.clone(), h.path.clone()))
        .collect();
    entries
        .into_iter()
        .filter(|(h, is_flat)| *is_flat || !flat.contains(&(h.worktree.clone(), h.path.clone())))
        .map(|(h, _)| h)
        .collect()
}

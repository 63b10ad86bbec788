//! Nested repositories: a repository whose worktree lies inside another repository's worktree
//! (a library cloned into `vendor/`, a `git init` inside the project, a submodule). Its own
//! object store may sit inside the folder that holds its files, so whatever deletes the folder
//! deletes its snapshots and retention refs with it. What it keeps is therefore also kept in the
//! enclosing repository: snapshots on the session's snapshot ref there (by the caller), and its
//! retained commits fetched under `refs/dibs/nested/<worktree id>/…` (or, when the two object
//! formats differ, kept as a bundle: see [`bundle`]), never pushed. A kept commit goes once the
//! nested repository has it on its remote, as a retention ref does.

use std::path::{Component, Path, PathBuf};

use super::discover::{Worktree, worktree_at, worktree_roots};
use super::lanes::{LaneError, LaneRepo, git};

pub(crate) mod bundle;
pub(crate) mod inside;

/// The prefix of the refs that keep a nested repository's retained commits in the enclosing
/// repository: `refs/dibs/nested/<worktree id>/<branch>/<short sha>`.
pub(crate) const NESTED_PREFIX: &str = "refs/dibs/nested/";

/// The worktrees of other clones that the worktree at `root` (of the clone whose common dir is
/// `own`) lies inside, innermost first. One `stat` per folder above `root`; linked worktrees
/// of its own clone (lanes inside the main worktree) are not others.
pub(crate) fn enclosing(root: &Path, own: &Path) -> Vec<Worktree> {
    let mut out = Vec::new();
    let mut dir = root.parent();
    while let Some(d) = dir {
        if d.file_name().is_some_and(|n| n == ".git") {
            // A worktree inside a git dir is git's own business (it is never deleted by a
            // folder removal in the worktree above).
            break;
        }
        if let Some(wt) = worktree_at(d)
            && wt.common_dir != own
            && !out.iter().any(|w: &Worktree| w.common_dir == wt.common_dir)
        {
            out.push(wt);
        }
        dir = d.parent();
    }
    out
}

/// Whether `rel` is a plain relative path: only names, none of them `.git` (in any case).
fn plain(rel: &Path) -> bool {
    rel.components().all(|c| match c {
        Component::Normal(n) => !n.eq_ignore_ascii_case(".git"),
        _ => false,
    })
}

/// The worktree of the clone whose common dir is `common_dir` that `root` lies strictly below,
/// by plain folder names with no `.git` among them (the innermost, when lanes nest): where a
/// nested repository at `root` (there or gone) belongs. `None` when `root` is a worktree of
/// that clone itself, or lies in none.
pub(crate) fn home_of(common_dir: &Path, root: &Path) -> Option<PathBuf> {
    if worktree_at(root).is_some_and(|w| w.common_dir == common_dir) {
        return None;
    }
    worktree_roots(common_dir)
        .into_iter()
        .filter(|home| {
            root.strip_prefix(home)
                .is_ok_and(|rel| !rel.as_os_str().is_empty() && plain(rel))
        })
        .max_by_key(|home| home.components().count())
}

/// The object format of the repository whose common dir is `common_dir`: `sha1` unless its
/// configuration names another (`extensions.objectFormat`).
pub(crate) fn object_format(common_dir: &Path) -> String {
    git2::Config::open(&common_dir.join("config"))
        .and_then(|c| c.get_string("extensions.objectformat"))
        .map_or_else(|_| "sha1".to_owned(), |f| f.to_ascii_lowercase())
}

/// Fetch the retention refs of the nested repository whose common dir is `nested` into the
/// enclosing repository at `outer_root`, under `refs/dibs/nested/<id>/`: its commits are then
/// kept by the enclosing object store, whatever deletes the nested folder. Nothing is pruned:
/// a mirrored commit stays until its ref is deleted.
pub(crate) fn mirror_retained(outer_root: &Path, nested: &Path, id: &str) -> Result<(), LaneError> {
    let source = nested.to_string_lossy();
    let refspec = format!(
        "+{}*:{NESTED_PREFIX}{id}/*",
        super::retention::RETENTION_PREFIX
    );
    git(
        outer_root,
        &[
            "-c",
            "protocol.file.allow=always",
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--no-auto-maintenance",
            "--no-recurse-submodules",
            &source,
            &refspec,
        ],
    )
    .map(|_| ())
}

/// Drop the refs that keep commits of the nested repository whose common dir is `nested`
/// (worktree id `id`) in the enclosing repository at `outer_root` once it has them on its
/// remote, or when another of them holds the same commit. A commit the nested repository does
/// not have (it was deleted, or made again) stays kept.
pub(crate) fn sweep_mirrored(outer_root: &Path, nested: &Path, id: &str) -> Result<(), LaneError> {
    let inner = LaneRepo::open(nested)?;
    let here = LaneRepo::open(outer_root)?;
    let refs = here.refs_under(&format!("{NESTED_PREFIX}{id}/"));
    let mut gone: Vec<&str> = Vec::new();
    for (i, (name, tip)) in refs.iter().enumerate() {
        let held = refs.iter().enumerate().any(|(j, (other, t))| {
            j != i
                && !gone.contains(&other.as_str())
                && (t != tip || j < i)
                && here.is_ancestor(tip, t)
        });
        if held || (inner.commit_of(tip).is_some() && inner.on_remote(tip)) {
            git(outer_root, &["update-ref", "-d", name, tip])?;
            gone.push(name);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_lead_to_a_nested_root() {
        for ok in ["vendor/lib", "a", "deep/er/still"] {
            assert!(plain(Path::new(ok)), "{ok}");
        }
        for bad in [
            "../x",
            "a/../b",
            ".git/modules/lib",
            "x/.GIT/y",
            "/abs",
            "./a",
        ] {
            assert!(!plain(Path::new(bad)), "{bad}");
        }
    }
}

//! The worktrees of a clone, read from its common git dir without opening the repository: the
//! main one, every linked one with its lock, and husks (a registered folder with no `.git` link
//! left in it). Also a bounded search for worktrees below a folder, and where a moved worktree
//! was.

use std::fs;
use std::path::{Path, PathBuf};

/// One worktree registered in a clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorktreeEntry {
    /// Its top folder (canonical when it exists).
    pub(crate) root: PathBuf,
    /// Its own git dir (`.git` for the main one, `.git/worktrees/<id>` for linked ones).
    pub(crate) git_dir: PathBuf,
    /// Whether this is the main worktree (whose `.git` is the whole repository).
    pub(crate) main: bool,
    /// The lock reason when `git worktree lock` was used (empty reason → `Some("")`).
    pub(crate) locked: Option<String>,
    /// A folder with no `.git` link left in it (or no folder at all): nothing to lose.
    pub(crate) husk: bool,
}

/// Canonical as far as the path exists.
fn canonical(p: &Path) -> PathBuf {
    crate::git::normalize(Path::new(""), p)
}

/// Every worktree of the clone whose common git dir is `common_dir`, main one first.
pub(crate) fn list_worktrees(common_dir: &Path) -> Vec<WorktreeEntry> {
    let mut out = Vec::new();
    if common_dir.file_name().is_some_and(|n| n == ".git")
        && let Some(parent) = common_dir.parent()
    {
        out.push(WorktreeEntry {
            root: canonical(parent),
            git_dir: common_dir.to_path_buf(),
            main: true,
            locked: None,
            husk: false,
        });
    }
    let Ok(entries) = fs::read_dir(common_dir.join("worktrees")) else {
        return out;
    };
    let mut linked: Vec<WorktreeEntry> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let git_dir = e.path();
            let dot_git = crate::git::linked_dot_git(&git_dir)?;
            let root = canonical(dot_git.parent()?);
            let locked = fs::read_to_string(git_dir.join("locked"))
                .ok()
                .map(|s| s.trim().to_owned());
            let husk = fs::symlink_metadata(root.join(".git")).is_err();
            Some(WorktreeEntry {
                root,
                git_dir,
                main: false,
                locked,
                husk,
            })
        })
        .collect();
    linked.sort_by(|a, b| a.root.cmp(&b.root));
    out.extend(linked);
    out
}

/// Folders at or below `dir` that hold a `.git` entry (a worktree root or a whole clone), found
/// breadth-first without following symlinks, at most `max_depth` levels down and looking at no
/// more than `max_entries` entries. The second value is `true` when the limit cut the search.
pub(crate) fn worktree_roots_under(
    dir: &Path,
    max_depth: usize,
    max_entries: usize,
) -> (Vec<PathBuf>, bool) {
    let mut found = Vec::new();
    let mut seen = 0usize;
    let mut level = vec![dir.to_path_buf()];
    for depth in 0..=max_depth {
        let mut next = Vec::new();
        for folder in level {
            if fs::symlink_metadata(folder.join(".git")).is_ok() {
                found.push(folder.clone());
            }
            if depth == max_depth {
                continue;
            }
            let Ok(entries) = fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                seen += 1;
                if seen > max_entries {
                    return (found, true);
                }
                if entry.file_name() == ".git" {
                    continue;
                }
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    next.push(entry.path());
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    (found, false)
}

/// The repositories that symbolic links among the first `max_entries` entries of `dir` lead
/// to (`vendor -> ../lib`, a package linked in by hand): the canonical folder of each link
/// whose target is a folder holding a `.git` entry. Links to anything else (a file, a folder
/// inside a repository, the home folder) are passed over; nothing below `dir` is read.
pub(crate) fn linked_repositories(dir: &Path, max_entries: usize) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.filter_map(Result::ok).take(max_entries) {
        if !entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        let Ok(target) = fs::canonicalize(entry.path()) else {
            continue;
        };
        if target.is_dir()
            && fs::symlink_metadata(target.join(".git")).is_ok()
            && !out.contains(&target)
        {
            out.push(target);
        }
    }
    out
}

/// Which of `roots` (where sessions hold files) are the linked worktree `wt` before git moved
/// it (`git worktree move`, or `mv` and `git worktree repair`): no worktree is there any more,
/// none of the clone's registered worktrees is there, and the folder's name is the one git
/// named `wt`'s admin folder after (`.git/worktrees/<name>`, with the number git adds on a
/// clash), or (moved by a plain `mv`, git not told) the one its admin folder's `gitdir` still
/// names. Git keeps no record of a worktree's old path once it is told; these are what it
/// leaves.
pub(crate) fn former_roots<'a>(
    wt: &super::Worktree,
    roots: impl IntoIterator<Item = &'a Path>,
) -> Vec<PathBuf> {
    if wt.git_dir == wt.common_dir {
        return Vec::new();
    }
    let Some(admin) = wt.git_dir.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    // Moved by a plain `mv`, the admin folder's `gitdir` still names the root it left.
    let recorded =
        super::linked_dot_git(&wt.git_dir).and_then(|d| d.parent().map(Path::to_path_buf));
    let mut registered: Option<Vec<PathBuf>> = None;
    let mut out: Vec<PathBuf> = Vec::new();
    for root in roots {
        if root == wt.root || out.iter().any(|o| o == root) {
            continue;
        }
        if std::fs::symlink_metadata(root.join(".git")).is_ok() {
            continue;
        }
        if recorded.as_deref() == Some(root) {
            out.push(root.to_path_buf());
            continue;
        }
        let named = root.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            admin
                .strip_prefix(n)
                .is_some_and(|rest| rest.bytes().all(|b| b.is_ascii_digit()))
        });
        if !named {
            continue;
        }
        let registered = registered.get_or_insert_with(|| super::worktree_roots(&wt.common_dir));
        if !registered.iter().any(|r| r == root) {
            out.push(root.to_path_buf());
        }
    }
    out
}

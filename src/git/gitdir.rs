//! Which git directory a path lies in, found by what is on disk (a `HEAD` file beside `objects/`
//! or a `commondir` file), not by its name: `proj/.bare`, a `--separate-git-dir` store,
//! `.git/modules/<name>` and `.git/worktrees/<id>` are git dirs as much as `.git` is. A few
//! `stat` calls, no repository opened.

use std::fs;
use std::path::{Path, PathBuf};

/// The git dir nearest above (or at) a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    /// The git dir (as reached from the path, canonical as far as the path was).
    pub git_dir: PathBuf,
    /// The common dir of the clone it belongs to (canonical).
    pub common_dir: PathBuf,
}

/// Whether `dir` is a git dir: a `HEAD` file and an `objects/` folder (a clone's or a
/// submodule's), or a `HEAD` and a `commondir` file (a linked worktree's).
pub fn is_git_dir(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join("HEAD")).is_ok_and(|m| m.is_file())
        && (dir.join("objects").is_dir() || dir.join("commondir").is_file())
}

/// The nearest git dir at or above `path` (absolute, folded), if any.
pub fn holding(path: &Path) -> Option<Holding> {
    let mut dir = Some(path);
    while let Some(d) = dir {
        if is_git_dir(d) {
            let common = super::common_dir_of(d);
            return Some(Holding {
                git_dir: d.to_path_buf(),
                common_dir: fs::canonicalize(&common).unwrap_or(common),
            });
        }
        dir = d.parent();
    }
    None
}

/// The common dir of the clone `cwd` is in (in a worktree or inside a git dir), if any.
pub fn common_dir_from(cwd: &Path) -> Option<PathBuf> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if let Some(wt) = super::worktree_at(d) {
            return Some(wt.common_dir);
        }
        if is_git_dir(d) {
            return holding(d).map(|h| h.common_dir);
        }
        dir = d.parent();
    }
    None
}

/// The repositories of the submodules of the clone whose common dir is `common_dir` (as
/// `<common dir>/modules/<name>` holds them, nested ones too, a few levels deep): each one's
/// name and git dir. Found by what is on disk; nothing opened.
pub(crate) fn submodule_repos(common_dir: &Path) -> Vec<(String, PathBuf)> {
    let base = common_dir.join("modules");
    let mut out = Vec::new();
    let mut dirs = vec![(base.clone(), 0usize)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) || out.len() >= 64 {
                continue;
            }
            if path.join("HEAD").is_file() && path.join("objects").is_dir() {
                let name = path.strip_prefix(&base).unwrap_or(&path);
                out.push((
                    name.to_string_lossy().replace("/modules/", "/"),
                    path.clone(),
                ));
                dirs.push((path.join("modules"), depth + 1));
            } else if depth < 4 {
                dirs.push((path, depth + 1));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_dir_under_any_name_is_found_by_its_state() {
        let tmp = tempfile::tempdir().unwrap();
        let bare = tmp.path().join("proj/.bare");
        fs::create_dir_all(bare.join("objects")).unwrap();
        fs::create_dir_all(bare.join("refs")).unwrap();
        fs::write(bare.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        let h = holding(&bare.join("refs/heads")).unwrap();
        assert_eq!(h.git_dir, bare);
        assert!(holding(&tmp.path().join("proj")).is_none());
        fs::create_dir_all(tmp.path().join("proj/objects")).unwrap();
        assert!(!is_git_dir(&tmp.path().join("proj")), "no HEAD file");
    }
}

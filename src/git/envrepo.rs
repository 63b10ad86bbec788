//! The repository git's environment names for this process (`GIT_DIR`, `GIT_WORK_TREE`,
//! `GIT_COMMON_DIR`, `core.worktree`), found the way git finds it: a host started with a
//! dotfiles setup (`GIT_DIR=~/.dotfiles GIT_WORK_TREE=~`) passes it to its hooks and to every
//! command it runs, and git works on that repository whatever `.git` the folders hold. Read
//! once per process (a few environment lookups; the files only when `GIT_DIR` or
//! `GIT_WORK_TREE` is set). Only a work tree ordinary discovery does not find (no `.git` at its
//! top) counts: a git hook, which git runs with `GIT_DIR` set at the top of the very worktree
//! whose `.git` leads there, changes nothing.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::discover::{Worktree, canonicalize, common_dir_of, normalize};

static ENV_REPO: OnceLock<Option<Worktree>> = OnceLock::new();

/// The worktree git's environment names, when ordinary discovery does not find its work tree
/// (see the module's note); `None` otherwise.
pub(crate) fn env_worktree() -> Option<&'static Worktree> {
    ENV_REPO
        .get_or_init(|| {
            let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
            let (dir, tree, common) = (var("GIT_DIR"), var("GIT_WORK_TREE"), var("GIT_COMMON_DIR"));
            if dir.is_none() && tree.is_none() {
                return None;
            }
            let cwd = std::env::current_dir().ok()?;
            from_env(&cwd, dir.as_deref(), tree.as_deref(), common.as_deref())
        })
        .as_ref()
}

/// The worktree `GIT_DIR` = `dir`, `GIT_WORK_TREE` = `tree` and `GIT_COMMON_DIR` = `common`
/// (relative ones against `cwd`) name for git run in `cwd`, when its work tree has no `.git`
/// of its own. Without `GIT_DIR` the git dir is discovered from `cwd` (a
/// worktree's, or the one `cwd` is inside); without `GIT_WORK_TREE`, `core.worktree` (relative
/// to the git dir) names the work tree, else a bare clone has none and any other's is `cwd`.
pub(crate) fn from_env(
    cwd: &Path,
    dir: Option<&std::ffi::OsStr>,
    tree: Option<&std::ffi::OsStr>,
    common: Option<&std::ffi::OsStr>,
) -> Option<Worktree> {
    let git_dir = match dir {
        Some(d) => canonicalize(&normalize(cwd, Path::new(d))).ok()?,
        None => discovered_git_dir(cwd)?,
    };
    if !git_dir.join("HEAD").is_file() {
        return None;
    }
    let config = fs::read_to_string(git_dir.join("config")).unwrap_or_default();
    let (core_worktree, bare) = core_settings(&config);
    let root = match (tree, core_worktree) {
        (Some(t), _) => normalize(cwd, Path::new(t)),
        (None, Some(w)) => normalize(&git_dir, Path::new(&w)),
        (None, None) if bare || dir.is_none() => return None,
        (None, None) => normalize(cwd, Path::new(".")),
    };
    let common_dir = match common {
        Some(c) => normalize(cwd, Path::new(c)),
        None => common_dir_of(&git_dir),
    };
    let common_dir = canonicalize(&common_dir).ok()?;
    if !root.is_dir() || root.starts_with(&git_dir) {
        return None;
    }
    // A root with a `.git` of its own is that clone's worktree: its files are claimed and kept
    // there (the guard asks about git run there on another repository, see `foreign_between`).
    if super::discover::find_worktree_at(&root).is_some() {
        return None;
    }
    Some(Worktree {
        root,
        git_dir,
        common_dir,
    })
}

/// The git dir git finds from `cwd` by itself: the `.git` of the nearest worktree above, or the
/// git dir `cwd` is inside.
fn discovered_git_dir(cwd: &Path) -> Option<PathBuf> {
    let cwd = normalize(cwd, Path::new("."));
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir {
        if super::gitdir::is_git_dir(d) {
            return canonicalize(d).ok();
        }
        if let Some(w) = super::discover::find_worktree_at(d) {
            return Some(w.git_dir);
        }
        dir = d.parent();
    }
    None
}

/// `core.worktree` and `core.bare` of a config file's text.
fn core_settings(config: &str) -> (Option<String>, bool) {
    let (mut worktree, mut bare, mut in_core) = (None, false, false);
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            let name = line.trim_start_matches('[').trim_end_matches(']').trim();
            in_core = name.eq_ignore_ascii_case("core");
            continue;
        }
        if !in_core || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, "true"));
        let value = value.trim().trim_matches('"');
        match key.trim().to_ascii_lowercase().as_str() {
            "worktree" => worktree = Some(value.to_owned()),
            "bare" => {
                bare = matches!(
                    value.to_ascii_lowercase().as_str(),
                    "true" | "yes" | "on" | "1"
                );
            }
            _ => {}
        }
    }
    (worktree, bare)
}

/// The environment's worktree when its root is exactly `dir`.
pub(crate) fn env_worktree_at(dir: &Path) -> Option<Worktree> {
    env_worktree().filter(|w| w.root == dir).cloned()
}

/// Whether `dir` is the git dir of the environment's worktree (a path in it is no work file).
pub(crate) fn is_env_git_dir(dir: &Path) -> bool {
    env_worktree().is_some_and(|w| w.git_dir == dir || w.common_dir == dir)
}

/// Open the repository of the worktree (or git dir) at `path` with libgit2: the environment's
/// one through its git dir, with its work tree set, when `path` is its root.
pub(crate) fn open(path: &Path) -> Result<git2::Repository, git2::Error> {
    match env_worktree().filter(|w| w.root == path) {
        Some(w) => {
            let repo = git2::Repository::open_ext(
                &w.git_dir,
                git2::RepositoryOpenFlags::NO_SEARCH,
                std::iter::empty::<&std::ffi::OsStr>(),
            )?;
            repo.set_workdir(&w.root, false)?;
            Ok(repo)
        }
        None => git2::Repository::open(path),
    }
}

/// The worktree of git's environment when `dir` is its root: git run there must be told its
/// `GIT_DIR`, `GIT_WORK_TREE` and `GIT_COMMON_DIR` (any other folder finds its own repository).
pub(crate) fn git_env_for(dir: &Path) -> Option<&'static Worktree> {
    env_worktree().filter(|w| w.root == dir)
}

/// For a git command whose repository is named (`GIT_DIR`, `GIT_WORK_TREE`, `--git-dir`,
/// `--work-tree`, or inherited): the folder at or above its cwd, below its work tree's top, that
/// is a worktree of another clone. git works there on the named repository's index, so the
/// files at stake belong to a clone whose state the guard does not read for it.
pub(crate) fn foreign_between(inv: &super::GitInvocation) -> Option<PathBuf> {
    if inv.git_dir.is_none() && inv.work_tree.is_none() {
        return None;
    }
    let named = super::invocation_worktree(inv)?;
    let cwd = normalize(Path::new("/"), &inv.cwd);
    if !cwd.starts_with(&named.root) {
        return None;
    }
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir.filter(|d| d.starts_with(&named.root)) {
        if let Some(w) = super::discover::find_worktree_at(d)
            && w.common_dir != named.common_dir
        {
            return Some(w.root);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;
    use crate::git::testing::git;

    #[test]
    fn a_dotfiles_setup_and_a_git_hook_are_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        git(&home, &["init", "-q", "--bare", "-b", "main", ".dotfiles"]);
        let gd = home.join(".dotfiles");
        let wt = from_env(
            &home,
            Some(OsStr::new(".dotfiles")),
            Some(OsStr::new(".")),
            None,
        )
        .expect("the dotfiles work tree");
        assert_eq!(
            (wt.root.as_path(), wt.git_dir.as_path()),
            (home.as_path(), gd.as_path())
        );
        // A bare clone named without a work tree has none.
        assert_eq!(
            from_env(&home, Some(OsStr::new(".dotfiles")), None, None),
            None
        );
        // core.worktree names it instead.
        git(&gd, &["config", "core.worktree", ".."]);
        assert_eq!(
            from_env(&home, Some(gd.as_os_str()), None, None)
                .unwrap()
                .root,
            home
        );
        // What git sets for a hook: the git dir of the worktree at the top: nothing to add.
        git(&home, &["init", "-q", "-b", "main", "repo"]);
        let repo = home.join("repo");
        assert_eq!(from_env(&repo, Some(OsStr::new(".git")), None, None), None);
        // The repo's git dir with the work tree elsewhere, and `GIT_WORK_TREE` from inside `.git`.
        let other = from_env(&home, Some(repo.join(".git").as_os_str()), None, None).unwrap();
        assert_eq!(other.root, home);
        fs::create_dir(home.join("elsewhere")).unwrap();
        let inside = from_env(
            &repo.join(".git"),
            None,
            Some(OsStr::new("../../elsewhere")),
            None,
        );
        assert_eq!(inside.unwrap().git_dir, repo.join(".git"));
        // A git dir that is none, a work tree inside the git dir: nothing.
        assert_eq!(
            from_env(
                &home,
                Some(OsStr::new("nowhere")),
                Some(OsStr::new(".")),
                None
            ),
            None
        );
        assert_eq!(
            from_env(
                &home,
                Some(gd.as_os_str()),
                Some(gd.join("refs").as_os_str()),
                None
            ),
            None
        );
    }
}

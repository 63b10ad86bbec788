//! Fast, std-only discovery: from any path to its worktree root, its git dir and the common git
//! dir, by reading `.git` files the way git does. No repository is opened, so a hook can resolve
//! a file in a few system calls.

use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// What this process resolved already, once [`remember_paths`] was called: one hook call
/// resolves the same few paths (the event's folder, the file, its worktree and git dir) four
/// or five times over, each time a `readlink` per component and a walk up for `.git`. A hook
/// lives for a millisecond and makes no link, no `.git` and no git dir in a worktree, so what
/// it found once stays true for it (a path that could not be resolved is tried again).
struct Memo {
    /// Path given to `canonicalize` → its canonical form (successes only).
    canonical: HashMap<PathBuf, PathBuf>,
    /// Folder → the worktree whose root it is, or none.
    worktrees: HashMap<PathBuf, Option<Worktree>>,
    /// Git dir → its common dir (see [`common_dir_of`]).
    common_dirs: HashMap<PathBuf, PathBuf>,
}

static MEMO: Mutex<Option<Memo>> = Mutex::new(None);

/// Remember every path resolution for the rest of this process (see [`Memo`]): for processes
/// as short as a hook call, never for a command that changes worktrees.
pub(crate) fn remember_paths() {
    if let Ok(mut memo) = MEMO.lock() {
        memo.get_or_insert_with(|| Memo {
            canonical: HashMap::new(),
            worktrees: HashMap::new(),
            common_dirs: HashMap::new(),
        });
    }
}

fn with_memo<T>(f: impl FnOnce(&mut Memo) -> Option<T>) -> Option<T> {
    MEMO.lock().ok()?.as_mut().and_then(f)
}

/// `fs::canonicalize`, remembered (see [`remember_paths`]).
pub(crate) fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    if let Some(hit) = with_memo(|m| m.canonical.get(path).cloned()) {
        return Ok(hit);
    }
    let canon = fs::canonicalize(path)?;
    with_memo(|m| m.canonical.insert(path.to_path_buf(), canon.clone()));
    Ok(canon)
}

/// A working tree of a repository: the main one or a linked one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Worktree {
    /// The top folder of the working tree (canonical).
    pub(crate) root: PathBuf,
    /// This worktree's own git dir (`.git` or `.git/worktrees/<id>`).
    pub(crate) git_dir: PathBuf,
    /// The git dir shared by all worktrees of the clone.
    pub(crate) common_dir: PathBuf,
}

impl Worktree {
    /// The branch checked out here (`None` when HEAD is detached or unreadable). In a reftable
    /// repository (whose `HEAD` file is a stub) git is asked.
    pub(crate) fn branch(&self) -> Option<String> {
        let head = fs::read_to_string(self.git_dir.join("HEAD")).ok()?;
        match head.trim().strip_prefix("ref: refs/heads/") {
            Some(super::cli::REFTABLE_STUB_BRANCH) => super::cli::head_branch(&self.git_dir),
            branch => branch.map(str::to_owned),
        }
    }
}

/// A path resolved to the worktree that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// The worktree.
    pub(crate) worktree: Worktree,
    /// The path relative to the worktree root, with `/` separators.
    pub(crate) relative: String,
}

/// [`normalize`], except that a symbolic link as the last component names the link itself,
/// not where it leads (as `lstat` does): a file replaced by a link is still named by its path.
pub(crate) fn normalize_no_follow(base: &Path, path: &Path) -> PathBuf {
    let last = path.file_name().filter(|n| *n != "." && *n != "..");
    match last {
        Some(name) if fs_is_link(&base.join(path)) => {
            normalize(base, path.parent().unwrap_or(Path::new(""))).join(name)
        }
        _ => normalize(base, path),
    }
}

fn fs_is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Make `path` absolute against `base` and canonical as far as it exists: symlinks in the
/// existing part are resolved, `.` and `..` in the rest are folded.
pub(crate) fn normalize(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut existing = joined.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(canon) = canonicalize(existing) {
            let mut out = canon;
            for part in rest.iter().rev() {
                match *part {
                    p if p == ".." => {
                        out.pop();
                    }
                    p if p == "." => {}
                    p => out.push(p),
                }
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            (Some(parent), None) => {
                // A trailing `..` or `.`: keep it and go up.
                if let Some(Component::ParentDir) = existing.components().next_back() {
                    rest.push(std::ffi::OsStr::new(".."));
                }
                existing = parent;
            }
            _ => return joined,
        }
    }
}

/// Read a `.git` file (`gitdir: PATH`) into the git dir it points to.
fn read_gitfile(dot_git: &Path, dir: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let target = Path::new(target);
    Some(if target.is_absolute() {
        target.to_path_buf()
    } else {
        dir.join(target)
    })
}

/// The git dir shared by every worktree of the clone whose git dir is `git_dir`: where its
/// `commondir` file points (relative to `git_dir`, or absolute), else `git_dir` itself. Not
/// canonicalised.
pub(crate) fn common_dir_of(git_dir: &Path) -> PathBuf {
    if let Some(hit) = with_memo(|m| m.common_dirs.get(git_dir).cloned()) {
        return hit;
    }
    let common = match fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir.to_path_buf(),
    };
    with_memo(|m| m.common_dirs.insert(git_dir.to_path_buf(), common.clone()));
    common
}

/// The `.git` file of the linked worktree whose administrative folder (`.git/worktrees/<id>`)
/// is `admin`, from its `gitdir` file: absolute, or relative to `admin`
/// (`worktree.useRelativePaths`), with `.` and `..` folded. Its parent is the worktree's root.
pub(crate) fn linked_dot_git(admin: &Path) -> Option<PathBuf> {
    let text = fs::read_to_string(admin.join("gitdir")).ok()?;
    Some(normalize(admin, Path::new(text.trim())))
}

/// The worktree at `root` whose git dir is `git_dir`, when `git_dir` is one (it has a `HEAD`);
/// git dir and common dir canonical, `root` as given.
pub(crate) fn with_git_dir(root: PathBuf, git_dir: &Path) -> Option<Worktree> {
    let git_dir = canonicalize(git_dir).ok()?;
    if !git_dir.join("HEAD").exists() {
        return None;
    }
    let common_dir = canonicalize(&common_dir_of(&git_dir)).ok()?;
    Some(Worktree {
        root,
        git_dir,
        common_dir,
    })
}

/// The worktree whose root is exactly `dir`, if `dir` has a `.git` entry.
pub(crate) fn worktree_at(dir: &Path) -> Option<Worktree> {
    if let Some(env) = super::envrepo::env_worktree_at(dir) {
        return Some(env);
    }
    if let Some(hit) = with_memo(|m| m.worktrees.get(dir).cloned()) {
        return hit;
    }
    let found = find_worktree_at(dir);
    with_memo(|m| m.worktrees.insert(dir.to_path_buf(), found.clone()));
    found
}

pub(super) fn find_worktree_at(dir: &Path) -> Option<Worktree> {
    let dot_git = dir.join(".git");
    let meta = fs::metadata(&dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else {
        read_gitfile(&dot_git, dir)?
    };
    with_git_dir(dir.to_path_buf(), &git_dir)
}

/// Resolve `path` (absolute, or relative to `cwd`) to its worktree and relative path.
/// Returns `None` for a path outside any worktree or inside a git dir.
pub(crate) fn locate(cwd: &Path, path: &Path) -> Option<Located> {
    let full = normalize(cwd, path);
    let mut dir = full.as_path();
    if !full.is_dir() {
        dir = full.parent()?;
    }
    loop {
        if dir.file_name().is_some_and(|n| n == ".git") || super::envrepo::is_env_git_dir(dir) {
            return None;
        }
        if let Some(worktree) = worktree_at(dir) {
            let rel = full.strip_prefix(dir).ok()?;
            let mut relative = String::new();
            for part in rel.components() {
                if !relative.is_empty() {
                    relative.push('/');
                }
                relative.push_str(&part.as_os_str().to_string_lossy());
            }
            return Some(Located { worktree, relative });
        }
        dir = dir.parent()?;
    }
}

/// Roots of every worktree of the clone whose common git dir is `common_dir`, read from git's
/// administrative files (no repository is opened): the main worktree, then each linked one
/// whose folder still exists.
pub(crate) fn worktree_roots(common_dir: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if common_dir.file_name().is_some_and(|n| n == ".git")
        && let Some(main) = common_dir.parent()
    {
        roots.push(main.to_path_buf());
    }
    if let Ok(entries) = fs::read_dir(common_dir.join("worktrees")) {
        for entry in entries.flatten() {
            let Some(dot_git) = linked_dot_git(&entry.path()) else {
                continue;
            };
            if let Some(root) = dot_git.parent()
                && let Ok(root) = fs::canonicalize(root)
            {
                roots.push(root);
            }
        }
    }
    roots
}

/// Whether git still registers a linked worktree at `root` (as [`normalize`] spells it) whose
/// folder is gone: some `worktrees/<name>` points at `root` and nothing is at `root/.git`.
pub(crate) fn registration_gone(common_dir: &Path, root: &Path) -> bool {
    fs::symlink_metadata(root.join(".git")).is_err()
        && admin_dirs(common_dir)
            .iter()
            .any(|a| linked_dot_git(a).is_some_and(|d| d.parent() == Some(root)))
}

/// Where (a worktree's root, or the clone's git dir for the main one) `branch` is checked out
/// other than in the worktree registered at `root`.
pub(crate) fn checked_out_elsewhere(
    common_dir: &Path,
    root: &Path,
    branch: &str,
) -> Option<PathBuf> {
    // The main worktree, unless the clone is bare (a bare repository has no index).
    let main = common_dir.join("index").exists().then(|| {
        (
            common_dir.to_path_buf(),
            common_dir.parent().map(Path::to_path_buf),
        )
    });
    let linked = admin_dirs(common_dir).into_iter().map(|admin| {
        let at = linked_dot_git(&admin).and_then(|d| d.parent().map(Path::to_path_buf));
        (admin, at)
    });
    main.into_iter()
        .chain(linked)
        .filter(|(_, at)| at.as_deref() != Some(root))
        .find(|(admin, _)| super::lanes::checked_out_branch(admin).as_deref() == Some(branch))
        .map(|(admin, at)| at.unwrap_or(admin))
}

/// The admin folders of the clone's linked worktrees (`<common dir>/worktrees/*`).
fn admin_dirs(common_dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(common_dir.join("worktrees"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Whether `name` is a valid branch name by git's rules (`git check-ref-format --branch`):
/// no `..`, no spaces or control characters, no `~^:?*[\\`, no leading `-`, and so on.
pub(crate) fn is_valid_branch_name(name: &str) -> bool {
    !name.starts_with('-') && git2::Reference::is_valid_name(&format!("refs/heads/{name}"))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::git::testing::git;

    #[test]
    fn a_worktree_registered_with_relative_paths_is_listed_and_located() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let root = dir.join("repo");
        fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        git(&root, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let lane = dir.join("lane");
        git(&root, &["worktree", "add", "-q", lane.to_str().unwrap()]);
        // What `worktree.useRelativePaths` writes: both links relative.
        fs::write(lane.join(".git"), "gitdir: ../repo/.git/worktrees/lane\n").unwrap();
        let admin = root.join(".git/worktrees/lane");
        fs::write(admin.join("gitdir"), "../../../../lane/.git\n").unwrap();
        let common = root.join(".git");
        assert_eq!(linked_dot_git(&admin), Some(lane.join(".git")));
        assert_eq!(worktree_roots(&common), vec![root.clone(), lane.clone()]);
        let found = worktree_at(&lane).unwrap();
        assert_eq!(found.git_dir, admin);
        assert_eq!(found.common_dir, common);
        assert_eq!(common_dir_of(&admin), admin.join("../.."));
        assert_eq!(common_dir_of(&common), common);
    }
}

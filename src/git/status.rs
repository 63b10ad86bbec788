//! Reads through libgit2: the dirty paths of a worktree and `dibs.*` settings from git config.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// A failure reading a repository.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct GitError {
    what: String,
    #[source]
    source: git2::Error,
}

impl GitError {
    fn new(what: impl Into<String>, source: git2::Error) -> Self {
        GitError {
            what: what.into(),
            source,
        }
    }
}

/// Paths (relative, `/`-separated) that are modified, staged or untracked in the worktree at
/// `root`. Ignored files do not count.
pub fn dirty_paths(root: &Path) -> Result<BTreeSet<String>, GitError> {
    let repo = git2::Repository::open(root)
        .map_err(|e| GitError::new(format!("cannot open {}", root.display()), e))?;
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    let statuses = repo
        .statuses(Some(&mut opts))
        .map_err(|e| GitError::new(format!("cannot read status of {}", root.display()), e))?;
    Ok(statuses
        .iter()
        .filter(|s| s.status() != git2::Status::CURRENT && !s.status().is_ignored())
        .filter_map(|s| s.path().map(str::to_owned))
        .collect())
}

/// The config files git reads for the worktree whose git dir is `git_dir`, lowest priority
/// first: system (unless `GIT_CONFIG_NOSYSTEM`), global (`GIT_CONFIG_GLOBAL`, else the XDG file
/// and `~/.gitconfig`), the clone's `config`, and the worktree's `config.worktree`.
fn config_files(git_dir: &Path) -> Vec<(std::path::PathBuf, git2::ConfigLevel)> {
    use git2::ConfigLevel as L;
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let mut files = Vec::new();
    if env("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(("/etc/gitconfig".into(), L::System));
    }
    match env("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push((global.into(), L::Global)),
        None => {
            let home = env("HOME").map(std::path::PathBuf::from);
            let xdg = env("XDG_CONFIG_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".config")));
            if let Some(x) = xdg {
                files.push((x.join("git/config"), L::XDG));
            }
            if let Some(h) = home {
                files.push((h.join(".gitconfig"), L::Global));
            }
        }
    }
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|_| git_dir.to_path_buf());
    files.push((common.join("config"), L::Local));
    files.push((git_dir.join("config.worktree"), L::Worktree));
    files
}

/// Of `paths` (relative, `/`-separated) in the worktree at `root`, those whose content differs
/// from HEAD: changed, deleted, or new and not ignored. Each file is hashed and compared with its
/// blob in HEAD's tree, so the cost follows the number and size of these files, not the size of
/// the repository (no index is read). Content filters (`autocrlf`, clean filters) are not
/// applied, so a filtered file can read as changed; a change staged and then undone in the
/// worktree reads as clean.
pub fn uncommitted_among(root: &Path, paths: &[String]) -> Result<BTreeSet<String>, GitError> {
    if paths.is_empty() {
        return Ok(BTreeSet::new());
    }
    let open = |e| GitError::new(format!("cannot open {}", root.display()), e);
    let repo = git2::Repository::open_ext(
        root,
        git2::RepositoryOpenFlags::NO_SEARCH,
        std::iter::empty::<&std::ffi::OsStr>(),
    )
    .map_err(open)?;
    let tree = repo.head().and_then(|h| h.peel_to_tree()).ok();
    // One tree object per folder, read once: a large folder's tree is costly to parse.
    let mut folders: std::collections::HashMap<&str, Option<git2::Tree<'_>>> = Default::default();
    let mut out = BTreeSet::new();
    for rel in paths {
        let file = root.join(rel);
        let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        let subtree = folders.entry(folder).or_insert_with(|| {
            let top = tree.as_ref()?;
            if folder.is_empty() {
                return Some(top.clone());
            }
            let entry = top.get_path(Path::new(folder)).ok()?;
            entry.to_object(&repo).ok()?.into_tree().ok()
        });
        let in_head = subtree
            .as_ref()
            .and_then(|t| t.get_name(name).map(|e| e.id()));
        let content = std::fs::read(&file).ok();
        let changed = match (in_head, content) {
            (Some(id), Some(bytes)) => {
                !git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).is_ok_and(|oid| oid == id)
            }
            (Some(_), None) => true,
            (None, Some(_)) => !repo.is_path_ignored(rel).unwrap_or(false),
            (None, None) => false,
        };
        if changed {
            out.insert(rel.clone());
        }
    }
    Ok(out)
}

/// Read a duration setting such as `dibs.ttl` (`2h`, `90m`, `3600` seconds) from the config that
/// applies to the worktree whose git dir is `git_dir`. `None` when unset or unreadable. No
/// repository is opened: only the config files are read (includes are followed).
pub fn read_config_duration(git_dir: &Path, key: &str) -> Option<Duration> {
    let mut config = git2::Config::new().ok()?;
    for (file, level) in config_files(git_dir) {
        if file.is_file() {
            let _ = config.add_file(&file, level, false);
        }
    }
    let text = config.get_string(key).ok()?;
    parse_duration(&text)
}

/// Parse `90m`, `2h`, `1h 30m` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    humantime::parse_duration(text).ok()
}

//! Reads the git hooks need: the paths a commit would change (the index git commits against
//! HEAD) and the commits a branch deletion would lose. libgit2 where it opens the repository;
//! the `git` command where it cannot (SHA-256, reftable) or cannot read the index (a split
//! index).

use std::path::{Path, PathBuf};

use super::cli::{CliRepo, run_in};
use super::{CommitInfo, ReadError};

/// The paths a commit in the worktree at `root` would change (`git diff --cached --name-only`):
/// the index `index_file` (git's `GIT_INDEX_FILE` for `commit -a` or `commit PATHS`, relative to
/// `cwd`), else the worktree's own, against HEAD. Both sides of a rename count. Sorted.
pub(crate) fn staged_paths(
    cwd: &Path,
    root: &Path,
    index_file: Option<&Path>,
) -> Result<Vec<String>, ReadError> {
    let index_file = index_file.map(|f| cwd.join(f));
    let lib = match super::envrepo::open(root) {
        Ok(repo) => staged_by_libgit2(&repo, index_file.as_deref()),
        Err(e) => Err(ReadError::new(
            format!("cannot open the repository at {}", root.display()),
            e.message(),
        )),
    };
    lib.or_else(|first| {
        // A format libgit2 cannot open, or an index it cannot read: git's own answer.
        let cli = CliRepo::open(root, super::cli::Format::of(root));
        let mut env = Vec::new();
        if let Some(f) = &index_file {
            env.push(("GIT_INDEX_FILE", f.as_os_str()));
        }
        let out = run_in(
            cli.dir(),
            &[
                "diff",
                "--cached",
                "--name-only",
                "-z",
                "--no-renames",
                "--ignore-submodules",
                "--no-ext-diff",
            ],
            &env,
        )
        .map_err(|_| first)?;
        let mut paths: Vec<String> = out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    })
}

fn staged_by_libgit2(
    repo: &git2::Repository,
    index_file: Option<&Path>,
) -> Result<Vec<String>, ReadError> {
    let err = |what: &str| {
        let what = what.to_owned();
        move |e: git2::Error| ReadError::new(what, e.message())
    };
    let index = match index_file {
        Some(path) => git2::Index::open(path)
            .map_err(err(&format!("cannot read the index {}", path.display())))?,
        None => repo.index().map_err(err("cannot read the index"))?,
    };
    let head = match repo.head() {
        Ok(h) => Some(h.peel_to_tree().map_err(err("cannot read HEAD's tree"))?),
        Err(_) => None, // unborn branch: the first commit adds everything staged
    };
    let mut opts = git2::DiffOptions::new();
    opts.include_typechange(true).ignore_submodules(true);
    let diff = repo
        .diff_tree_to_index(head.as_ref(), Some(&index), Some(&mut opts))
        .map_err(err("cannot compare the index with HEAD"))?;
    let mut out: Vec<String> = Vec::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(p) = file.path().and_then(Path::to_str) {
                out.push(p.to_owned());
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// A branch being deleted: its full name, and its old tip when git said it.
#[derive(Debug, Clone)]
pub(crate) struct Deletion {
    /// `refs/heads/…`.
    pub(crate) name: String,
    /// The tip before the deletion, when known.
    pub(crate) old: Option<String>,
}

/// A deleted branch whose commits would be lost.
#[derive(Debug, Clone)]
pub(crate) struct Lost {
    /// The branch (without `refs/heads/`).
    pub(crate) branch: String,
    /// The commits, newest first.
    pub(crate) commits: Vec<CommitInfo>,
    /// Whether there are more than were listed.
    pub(crate) more: bool,
}

/// The repository a git hook runs for (found from git's environment: `GIT_DIR`, the cwd).
pub(crate) struct HookRepo {
    repo: Option<git2::Repository>,
    cli: CliRepo,
    common_dir: PathBuf,
}

impl HookRepo {
    /// The repository git runs this hook in.
    pub(crate) fn from_env() -> Result<HookRepo, ReadError> {
        let cwd = std::env::current_dir().map_err(|e| ReadError::new("cannot read the cwd", e))?;
        let git_dir = std::env::var_os("GIT_DIR").map(|d| cwd.join(d));
        let at = git_dir.clone().unwrap_or_else(|| cwd.clone());
        match git2::Repository::open_from_env() {
            Ok(repo) => Ok(HookRepo {
                common_dir: repo.commondir().to_path_buf(),
                cli: CliRepo::open(&at, None),
                repo: Some(repo),
            }),
            Err(e) => {
                let cli = CliRepo::for_format(&at)
                    .ok_or_else(|| ReadError::new("cannot open the repository", e.message()))?;
                let common_dir = super::cli::repository_common_dir(&at).ok_or_else(|| {
                    ReadError::new("cannot find the repository's common git dir", at.display())
                })?;
                Ok(HookRepo {
                    repo: None,
                    cli,
                    common_dir,
                })
            }
        }
    }

    /// The common git dir (where the store and the audit log live).
    pub(crate) fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The first configured remote (`origin` first), if any.
    pub(crate) fn first_remote(&self) -> Option<String> {
        let names: Vec<String> = match &self.repo {
            Some(repo) => repo
                .remotes()
                .ok()?
                .iter()
                .flatten()
                .map(str::to_owned)
                .collect(),
            None => self.cli.remotes().into_iter().map(|(n, _)| n).collect(),
        };
        names
            .iter()
            .find(|n| *n == "origin")
            .or(names.first())
            .cloned()
    }

    /// The branches of `deleted` whose tips no kept ref contains, with the commits that would
    /// go (at most `shown` each). Kept: remote-tracking refs, tags, local branches not being
    /// deleted, and `new_values` (what the same transaction writes).
    pub(crate) fn lost_commits(
        &self,
        deleted: &[Deletion],
        new_values: &[String],
        shown: usize,
    ) -> Result<Vec<Lost>, ReadError> {
        let mut out: Vec<Lost> = Vec::new();
        for d in deleted {
            let branch = d.name.trim_start_matches("refs/heads/").to_owned();
            if out.iter().any(|a| a.branch == branch) {
                continue;
            }
            let tip = match (&d.old, &self.repo) {
                (Some(old), _) => Some(old.clone()),
                (None, Some(repo)) => repo
                    .find_reference(&d.name)
                    .and_then(|r| r.peel_to_commit())
                    .ok()
                    .map(|c| c.id().to_string()),
                (None, None) => self.cli.ref_tip(&d.name),
            };
            let Some(tip) = tip else { continue }; // nothing there to lose
            let mut commits = match &self.repo {
                Some(repo) => walk(repo, &tip, deleted, new_values, shown + 1)?,
                None => {
                    let mut hide: Vec<String> = new_values.to_vec();
                    hide.extend(["--remotes".to_owned(), "--tags".to_owned()]);
                    hide.extend(deleted.iter().map(|d| {
                        format!("--exclude={}", d.name.trim_start_matches("refs/heads/"))
                    }));
                    hide.push("--branches".to_owned());
                    let hide: Vec<&str> = hide.iter().map(String::as_str).collect();
                    self.cli
                        .log_not(&tip, &hide, shown + 1)
                        .map_err(|e| ReadError::new("cannot walk the history", e))?
                }
            };
            let more = commits.len() > shown;
            commits.truncate(shown);
            if !commits.is_empty() {
                out.push(Lost {
                    branch,
                    commits,
                    more,
                });
            }
        }
        Ok(out)
    }
}

/// Commits from `tip` that no kept ref contains (see [`HookRepo::lost_commits`]), with libgit2.
fn walk(
    repo: &git2::Repository,
    tip: &str,
    deleted: &[Deletion],
    new_values: &[String],
    limit: usize,
) -> Result<Vec<CommitInfo>, ReadError> {
    let err = |what: &'static str| move |e: git2::Error| ReadError::new(what, e.message());
    let mut hide: Vec<git2::Oid> = new_values
        .iter()
        .filter_map(|n| git2::Oid::from_str(n).ok())
        .collect();
    for r in repo
        .references()
        .map_err(err("cannot list refs"))?
        .flatten()
    {
        let Some(name) = r.name() else { continue };
        let kept = name.starts_with("refs/remotes/")
            || name.starts_with("refs/tags/")
            || (name.starts_with("refs/heads/") && !deleted.iter().any(|d| d.name == name));
        if kept && let Ok(commit) = r.peel_to_commit() {
            hide.push(commit.id());
        }
    }
    super::facts::walk(repo, tip, &hide, limit)
}

//! Reads for the Bash guard through libgit2: a worktree's status as `git status --porcelain`
//! lines, its HEAD, which commits are on no remote-tracking ref, branch tips, and which commits
//! a remote branch holds that no other ref has. In a repository libgit2 cannot open (SHA-256,
//! reftable) the same reads go to `git` ([`super::cli::CliRepo`]); where libgit2 opens it but
//! cannot read its status (a split index), git is asked too.

use std::fs;
use std::path::Path;

use super::cli::{CliError, CliRepo};

mod worktree_status;
#[cfg(test)]
pub(crate) use worktree_status::libgit2_status;
use worktree_status::{file_state, status_from};
pub(crate) use worktree_status::{worktree_status, worktree_status_and_ignored};

/// A failure reading a repository for the guard. Its text is the whole story (what, and why,
/// once): it has no separate source, so a chain printed with `{:#}` does not repeat the cause.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {cause}")]
pub(crate) struct ReadError {
    what: String,
    cause: String,
}

impl ReadError {
    /// What could not be read, and why.
    pub(crate) fn new(what: impl Into<String>, cause: impl std::fmt::Display) -> ReadError {
        ReadError {
            what: what.into(),
            cause: cause.to_string(),
        }
    }
}

fn read_err(what: impl Into<String>) -> impl FnOnce(git2::Error) -> ReadError {
    let what = what.into();
    move |e| ReadError {
        what,
        cause: e.message().to_owned(),
    }
}

/// A failure of git itself, in a repository read through git: named by its format.
fn cli_err<'a>(cli: &'a CliRepo, what: &'a str) -> impl FnOnce(CliError) -> ReadError + 'a {
    move |e| ReadError {
        what: what.to_owned(),
        cause: match cli.format() {
            Some(f) => {
                format!("this repository has {f}, which git-dibs reads through git, and {e}")
            }
            None => e.to_string(),
        },
    }
}

/// One changed path in a worktree, as in `git status --porcelain`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileState {
    /// The path relative to the worktree root, `/`-separated.
    pub(crate) path: String,
    /// The index column (`X`): `M`, `A`, `D`, `R`, `T`, `U`, `?` or a space.
    pub(crate) index: char,
    /// The worktree column (`Y`): `M`, `D`, `T`, `U`, `?` or a space.
    pub(crate) worktree: char,
}

impl FileState {
    /// Not tracked (and not ignored).
    pub(crate) fn untracked(&self) -> bool {
        self.index == '?'
    }

    /// Ignored by git's rules (`!!`: only listed where asked for, never by a status).
    pub(crate) fn ignored(&self) -> bool {
        self.index == '!'
    }

    /// Has staged changes.
    pub(crate) fn staged(&self) -> bool {
        !matches!(self.index, ' ' | '?' | '!')
    }

    /// The `git status --porcelain` line.
    pub(crate) fn porcelain(&self) -> String {
        format!("{}{} {}", self.index, self.worktree, self.path)
    }
}

/// A commit, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitInfo {
    /// The full id.
    pub(crate) id: String,
    /// The first line of its message.
    pub(crate) summary: String,
}

/// An open repository (any worktree of it) to read guard facts from.
pub(crate) struct Repo {
    pub(super) repo: git2::Repository,
    /// Set when libgit2 cannot open this repository: every read goes to git.
    pub(super) cli: Option<CliRepo>,
}

/// A linked worktree moved without git being told (a plain `mv`): its admin folder's `gitdir`
/// still names the old root, which libgit2 takes for the work tree, while git itself works
/// where the `.git` file is. Opened at a root whose `.git` file led here, libgit2 is pointed
/// there too, so status is read where the files are.
fn moved_workdir(repo: &git2::Repository, path: &Path) {
    if !repo.is_worktree() || !path.join(".git").is_file() {
        return;
    }
    let same = repo.workdir().is_some_and(|w| {
        super::discover::canonicalize(w).ok() == super::discover::canonicalize(path).ok()
    });
    if !same {
        let _ = repo.set_workdir(path, false);
    }
}

impl Repo {
    /// Open the repository of the worktree (or git dir) at `path`; one libgit2 cannot open
    /// because of its format is read through git.
    pub(crate) fn open(path: &Path) -> Result<Repo, ReadError> {
        match super::envrepo::open(path) {
            Ok(repo) => {
                moved_workdir(&repo, path);
                Ok(Repo { repo, cli: None })
            }
            Err(e) => match CliRepo::for_format(path) {
                Some(cli) => Ok(Repo {
                    repo: super::cli::placeholder().map_err(read_err("cannot start libgit2"))?,
                    cli: Some(cli),
                }),
                None => Err(read_err(format!("cannot open {}", path.display()))(e)),
            },
        }
    }

    /// git's own status, for a repository read through git or when libgit2 failed (`error`).
    fn git_status(
        &self,
        paths: &[&str],
        error: Option<ReadError>,
    ) -> Result<Vec<FileState>, ReadError> {
        let fallback;
        let cli = match (&self.cli, self.repo.workdir()) {
            (Some(cli), _) => cli,
            (None, Some(root)) => {
                fallback = CliRepo::open(root, None);
                &fallback
            }
            (None, None) => return Err(error.unwrap_or_else(|| not_read("the status"))),
        };
        cli.status(paths).map_err(|e| match error {
            // libgit2 failed first: its error is the one to tell.
            Some(first) => first,
            None => cli_err(cli, "cannot read the status")(e),
        })
    }

    /// Every modified, staged or untracked path (untracked folders listed file by file; ignored
    /// files left out), sorted by path.
    pub(crate) fn status(&self) -> Result<Vec<FileState>, ReadError> {
        if self.cli.is_some() {
            return self.git_status(&[], None);
        }
        worktree_status(&self.repo)
            .map_err(read_err("cannot read the status"))
            .or_else(|e| self.git_status(&[], Some(e)))
    }

    /// As [`Repo::status`], from a walk of the worktree already done while this repository was
    /// being opened (see [`Walked`](super::Walked)); with no walk, or one this repository
    /// does not confirm, the status is read here.
    pub(crate) fn status_after(
        &self,
        walked: Option<super::Walked>,
    ) -> Result<Vec<FileState>, ReadError> {
        if self.cli.is_some() {
            return self.git_status(&[], None);
        }
        let scan = walked.and_then(|w| super::scan::settle(&self.repo, w));
        status_from(&self.repo, scan, false)
            .map(|(files, _)| files)
            .map_err(read_err("cannot read the status"))
            .or_else(|e| self.git_status(&[], Some(e)))
    }

    /// The state of just these paths (relative, `/`-separated); clean, ignored and absent
    /// ones are left out. Cheaper than [`Repo::status`] when few paths are asked about.
    pub(crate) fn status_of<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<FileState>, ReadError> {
        let paths: Vec<&str> = paths.into_iter().collect();
        if self.cli.is_some() {
            return self.git_exact(&paths, None);
        }
        let mut out = Vec::new();
        let mut clean = Vec::new();
        for path in paths.iter().copied() {
            let s = match self.repo.status_file(Path::new(path)) {
                Ok(s) => s,
                Err(e) if e.code() == git2::ErrorCode::NotFound => continue,
                Err(e) => {
                    let e = read_err(format!("cannot read the status of {path}"))(e);
                    return self.git_exact(&paths, Some(e));
                }
            };
            if s == git2::Status::CURRENT {
                clean.push(path);
            }
            if s.is_ignored() || s == git2::Status::CURRENT {
                continue;
            }
            out.push(file_state(s, path.to_owned()));
        }
        // libgit2 takes a file marked assume-unchanged or skip-worktree for clean unseen.
        if let (false, Some(root)) = (clean.is_empty(), self.repo.workdir()) {
            out.extend(super::flagged::changed_marked(
                root,
                self.repo.path(),
                Some(&clean),
            ));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        Ok(out)
    }

    /// git's status of exactly `paths` (what is below a folder named does not count).
    fn git_exact(
        &self,
        paths: &[&str],
        error: Option<ReadError>,
    ) -> Result<Vec<FileState>, ReadError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = self.git_status(paths, error)?;
        out.retain(|f| paths.contains(&f.path.as_str()));
        Ok(out)
    }

    /// The commit HEAD points at (`None` on an unborn branch).
    pub(crate) fn head(&self) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.commit_of("HEAD");
        }
        let oid = self.repo.head().ok()?.target()?;
        Some(oid.to_string())
    }

    /// The tip of local branch `name`, if it exists.
    pub(crate) fn branch_tip(&self, name: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.ref_tip(&format!("refs/heads/{name}"));
        }
        let r = self
            .repo
            .find_reference(&format!("refs/heads/{name}"))
            .ok()?;
        Some(r.resolve().ok()?.target()?.to_string())
    }

    /// Every local branch with its tip.
    pub(crate) fn local_branches(&self) -> Vec<(String, String)> {
        if let Some(cli) = &self.cli {
            return cli
                .refs_under("refs/heads/")
                .into_iter()
                .filter_map(|(n, id)| Some((n.strip_prefix("refs/heads/")?.to_owned(), id)))
                .collect();
        }
        let Ok(refs) = self.repo.references_glob("refs/heads/*") else {
            return Vec::new();
        };
        refs.filter_map(Result::ok)
            .filter_map(|r| {
                let name = r.name()?.strip_prefix("refs/heads/")?.to_owned();
                Some((name, r.target()?.to_string()))
            })
            .collect()
    }

    /// Commits reachable from `tip` that no remote-tracking ref (`refs/remotes/*`) contains,
    /// newest first, at most `limit`. Empty means `tip` is pushed.
    pub(crate) fn unpushed(&self, tip: &str, limit: usize) -> Result<Vec<CommitInfo>, ReadError> {
        if let Some(cli) = &self.cli {
            return cli
                .log_not(tip, &["--remotes"], limit)
                .map_err(cli_err(cli, "cannot list unpushed commits"));
        }
        let hide: Vec<git2::Oid> = self
            .ref_targets()
            .into_iter()
            .filter(|(name, _)| name.starts_with("refs/remotes/"))
            .map(|(_, oid)| oid)
            .collect();
        walk(&self.repo, tip, &hide, limit)
    }

    /// Commits of `refs/remotes/<remote>/<branch>` that no other ref but the refs `gone` (full
    /// names, deleted by the same command line), and no worktree's detached HEAD, contains (at
    /// most `limit`). `None` when that remote-tracking ref does not
    /// exist here.
    pub(crate) fn only_on_remote_branch(
        &self,
        remote: &str,
        branch: &str,
        gone: &[String],
        limit: usize,
    ) -> Result<Option<Vec<CommitInfo>>, ReadError> {
        let name = format!("refs/remotes/{remote}/{branch}");
        if let Some(cli) = &self.cli {
            let Some(tip) = cli.ref_tip(&name) else {
                return Ok(None);
            };
            let mut hide: Vec<String> = std::iter::once(&name)
                .chain(gone)
                .map(|r| format!("--exclude={r}"))
                .collect();
            hide.push("--all".into());
            let hide: Vec<&str> = hide.iter().map(String::as_str).collect();
            return cli
                .log_not(&tip, &hide, limit)
                .map(Some)
                .map_err(cli_err(cli, "cannot list the commits of a remote branch"));
        }
        let Some(tip) = self
            .repo
            .find_reference(&name)
            .ok()
            .and_then(|r| r.target())
        else {
            return Ok(None);
        };
        let mut hide: Vec<git2::Oid> = self
            .ref_targets()
            .into_iter()
            .filter(|(n, _)| n != &name && !gone.iter().any(|g| g == n))
            .map(|(_, oid)| oid)
            .collect();
        hide.extend(self.detached_heads());
        walk(&self.repo, &tip.to_string(), &hide, limit).map(Some)
    }

    /// The branches of `remote` known here (`refs/remotes/<remote>/*`, without the prefix).
    pub(crate) fn remote_branches(&self, remote: &str) -> Vec<String> {
        let prefix = format!("refs/remotes/{remote}/");
        if let Some(cli) = &self.cli {
            return cli
                .refs_under(&prefix)
                .into_iter()
                .filter_map(|(n, _)| Some(n.strip_prefix(&prefix)?.to_owned()))
                .filter(|n| n != "HEAD")
                .collect();
        }
        let Ok(refs) = self.repo.references_glob(&format!("{prefix}*")) else {
            return Vec::new();
        };
        refs.filter_map(Result::ok)
            .filter_map(|r| Some(r.name()?.strip_prefix(&prefix)?.to_owned()))
            .filter(|n| n != "HEAD")
            .collect()
    }

    /// How many entries the stash holds.
    pub(crate) fn stash_entries(&self) -> usize {
        if let Some(cli) = &self.cli {
            return cli.stash_entries();
        }
        self.repo.reflog("refs/stash").map_or(0, |r| r.len())
    }

    /// Whether `spec` names a commit (a branch, tag, id, `HEAD~2`, ...).
    pub(crate) fn is_rev(&self, spec: &str) -> bool {
        if let Some(cli) = &self.cli {
            return cli.is_rev(spec);
        }
        self.repo.revparse_single(spec).is_ok()
    }

    /// Whether `spec` names the commit HEAD is at (switching there changes no file).
    pub(crate) fn is_head_commit(&self, spec: &str) -> bool {
        if let Some(cli) = &self.cli {
            return cli
                .commit_of(spec)
                .is_some_and(|c| cli.commit_of("HEAD") == Some(c));
        }
        let commit = |s: &str| {
            self.repo
                .revparse_single(s)
                .ok()?
                .peel_to_commit()
                .ok()
                .map(|c| c.id())
        };
        commit(spec).is_some_and(|c| commit("HEAD") == Some(c))
    }

    /// The configured remote that `name_or_url` names, by name or by URL.
    pub(crate) fn remote_named(&self, name_or_url: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            let remotes = cli.remotes();
            return remotes
                .iter()
                .find(|(n, _)| n == name_or_url)
                .or_else(|| {
                    remotes
                        .iter()
                        .find(|(_, urls)| urls.iter().any(|u| u == name_or_url))
                })
                .map(|(n, _)| n.clone());
        }
        if self.repo.find_remote(name_or_url).is_ok() {
            return Some(name_or_url.to_owned());
        }
        let names = self.repo.remotes().ok()?;
        names.iter().flatten().find_map(|n| {
            let r = self.repo.find_remote(n).ok()?;
            let same = r.url() == Some(name_or_url) || r.pushurl() == Some(name_or_url);
            same.then(|| n.to_owned())
        })
    }

    /// Every direct ref (symbolic ones resolved, skipped when they point at themselves) with
    /// its target, excluding refs whose target is not an object id.
    pub(super) fn ref_targets(&self) -> Vec<(String, git2::Oid)> {
        let Ok(refs) = self.repo.references() else {
            return Vec::new();
        };
        refs.filter_map(Result::ok)
            .filter_map(|r| {
                let name = r.name()?.to_owned();
                let resolved = r.resolve().ok()?;
                if resolved.name() != Some(name.as_str()) && r.symbolic_target().is_some() {
                    // A symbolic ref (refs/remotes/origin/HEAD) stands for its target, which is
                    // listed on its own.
                    return None;
                }
                Some((name, resolved.target()?))
            })
            .collect()
    }

    /// Detached HEADs of every worktree of the clone.
    fn detached_heads(&self) -> Vec<git2::Oid> {
        let common = self.repo.commondir().to_path_buf();
        let mut files = vec![common.join("HEAD")];
        if let Ok(entries) = fs::read_dir(common.join("worktrees")) {
            files.extend(
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.path().join("HEAD")),
            );
        }
        files
            .iter()
            .filter_map(|f| fs::read_to_string(f).ok())
            .filter_map(|t| git2::Oid::from_str(t.trim()).ok())
            .collect()
    }
}

fn not_read(what: &str) -> ReadError {
    ReadError {
        what: format!("cannot read {what}"),
        cause: "the repository has no working tree".into(),
    }
}

/// The commits reachable from `tip` and from none of `hide`, newest first, at most `limit`,
/// with their first lines.
pub(crate) fn walk(
    repo: &git2::Repository,
    tip: &str,
    hide: &[git2::Oid],
    limit: usize,
) -> Result<Vec<CommitInfo>, ReadError> {
    let oid = git2::Oid::from_str(tip).map_err(read_err("bad commit id"))?;
    let mut walk = repo.revwalk().map_err(read_err("cannot walk"))?;
    walk.push(oid)
        .map_err(read_err(format!("cannot walk from {tip}")))?;
    for h in hide {
        // A ref to a non-commit (a tag of a tree) cannot be hidden; skip it.
        let _ = walk.hide(*h);
    }
    let mut out = Vec::new();
    for id in walk.take(limit) {
        let id = id.map_err(read_err("cannot walk"))?;
        let summary = repo
            .find_commit(id)
            .ok()
            .and_then(|c| c.summary().map(str::to_owned))
            .unwrap_or_default();
        out.push(CommitInfo {
            id: id.to_string(),
            summary,
        });
    }
    Ok(out)
}

//! Git facts and acts for lanes: reads through libgit2 (tips, ancestry, ahead/behind, whether a
//! commit is on a remote, a lane's recorded base, the landed marker), and the `git` command for
//! everything that changes a worktree or moves a ref (worktree add/remove/lock, rebase, merge,
//! `update-ref` with compare-and-swap, fetch, push).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::cli::CliRepo;

/// The git config key (under `branch.<lane>.`) that records a lane's base branch.
pub(crate) const BASE_KEY: &str = "dibsBase";
/// The prefix of every worktree lock reason git-dibs writes; only such locks are ever lifted
/// (and the guard refuses to lift them for anyone else).
pub(crate) const LOCK_PREFIX: &str = "git-dibs:";
/// The ref prefix of landed markers: `refs/dibs/landed/<lane branch>` points at the lane tip
/// that landed.
pub(crate) const LANDED_PREFIX: &str = "refs/dibs/landed/";

/// A failure reading or changing a repository for lanes.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LaneError {
    /// libgit2 could not answer.
    #[error("{what}: {}", cause.message())]
    Read {
        /// What was being read.
        what: String,
        /// Why (shown in the text, so not a separate source that a chain would repeat).
        cause: git2::Error,
    },
    /// The `git` command could not be started.
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// What was asked names nothing here, or lacks what the answer needs (said in full).
    #[error("{0}")]
    Unanswerable(String),
    /// The `git` command failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, joined.
        args: String,
        /// Its stderr (or stdout when stderr was empty), trimmed.
        stderr: String,
    },
}

/// A `git` command run in `dir` (stdin closed, output captured, no pager, no prompts).
pub(crate) fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_INDEX_FILE");
    // The repository git's environment names, at its root (see `envrepo`): git is told where.
    if let Some(w) = super::envrepo::git_env_for(dir) {
        cmd.env("GIT_DIR", &w.git_dir)
            .env("GIT_WORK_TREE", &w.root)
            .env("GIT_COMMON_DIR", &w.common_dir);
    }
    cmd
}

/// Run `git args` in `dir` and return its output, whatever the exit status.
pub(crate) fn git_output(dir: &Path, args: &[&str]) -> Result<Output, LaneError> {
    git_command(dir)
        .args(args)
        .output()
        .map_err(LaneError::Spawn)
}

/// Run `git args` in `dir`; its trimmed stdout, or [`LaneError::Failed`] with its stderr.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<String, LaneError> {
    let out = git_output(dir, args)?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_owned());
    }
    let mut stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    if stderr.is_empty() {
        stderr = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    }
    Err(LaneError::Failed {
        args: args.join(" "),
        stderr,
    })
}

/// The branch checked out in the worktree whose own git dir is `git_dir`, also in the middle of
/// a rebase (when HEAD is detached but the rebase remembers the branch).
pub(crate) fn checked_out_branch(git_dir: &Path) -> Option<String> {
    let head = fs::read_to_string(git_dir.join("HEAD")).ok()?;
    match head.trim().strip_prefix("ref: refs/heads/") {
        // A reftable repository's stub: the real HEAD is in the reftable.
        Some(super::cli::REFTABLE_STUB_BRANCH) => {
            if let Some(b) = super::cli::head_branch(git_dir) {
                return Some(b);
            }
        }
        Some(b) => return Some(b.to_owned()),
        None => {}
    }
    for dir in ["rebase-merge", "rebase-apply"] {
        if let Ok(name) = fs::read_to_string(git_dir.join(dir).join("head-name"))
            && let Some(b) = name.trim().strip_prefix("refs/heads/")
        {
            return Some(b.to_owned());
        }
    }
    None
}

/// Whether a rebase or merge is in progress in the worktree whose git dir is `git_dir`.
pub(crate) fn operation_in_progress(git_dir: &Path) -> Option<&'static str> {
    if git_dir.join("rebase-merge").exists() || git_dir.join("rebase-apply").exists() {
        Some("rebase")
    } else if git_dir.join("MERGE_HEAD").exists() {
        Some("merge")
    } else if git_dir.join("CHERRY_PICK_HEAD").exists() {
        Some("cherry-pick")
    } else {
        None
    }
}

/// A repository opened for lane reads.
pub(crate) struct LaneRepo {
    repo: git2::Repository,
    /// Set when libgit2 cannot open this repository (SHA-256, reftable): every read goes to git.
    cli: Option<CliRepo>,
}

fn read_err(what: impl Into<String>) -> impl FnOnce(git2::Error) -> LaneError {
    let what = what.into();
    move |cause| LaneError::Read { what, cause }
}

impl LaneRepo {
    /// Open the repository of the worktree (or git dir) at `path`.
    pub(crate) fn open(path: &Path) -> Result<LaneRepo, LaneError> {
        let what = || format!("cannot open {}", path.display());
        match super::envrepo::open(path) {
            Ok(repo) => Ok(LaneRepo { repo, cli: None }),
            Err(e) => match CliRepo::for_format(path) {
                Some(cli) => Ok(LaneRepo {
                    repo: super::cli::placeholder().map_err(read_err(what()))?,
                    cli: Some(cli),
                }),
                None => Err(read_err(what())(e)),
            },
        }
    }

    /// The commit `spec` names (a branch, remote branch, tag, id, `HEAD`), as a full id.
    pub(crate) fn commit_of(&self, spec: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.commit_of(spec);
        }
        let obj = self.repo.revparse_single(spec).ok()?;
        Some(obj.peel_to_commit().ok()?.id().to_string())
    }

    /// The tip of ref `name` (full name), if it exists.
    pub(crate) fn ref_tip(&self, name: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.ref_tip(name);
        }
        let r = self.repo.find_reference(name).ok()?;
        Some(r.resolve().ok()?.target()?.to_string())
    }

    /// The tip of local branch `name`.
    pub(crate) fn branch_tip(&self, name: &str) -> Option<String> {
        self.ref_tip(&format!("refs/heads/{name}"))
    }

    /// The full name of a ref `spec` resolves to by git's rules (`main` → `refs/heads/main`,
    /// `origin/main` → `refs/remotes/origin/main`), if it names a ref.
    pub(crate) fn full_ref_name(&self, spec: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.full_ref_name(spec);
        }
        let (_, r) = self.repo.revparse_ext(spec).ok()?;
        r?.name().map(str::to_owned)
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub(crate) fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        if let Some(cli) = &self.cli {
            return cli.is_ancestor(ancestor, descendant);
        }
        let (Ok(a), Ok(d)) = (
            git2::Oid::from_str(ancestor),
            git2::Oid::from_str(descendant),
        ) else {
            return false;
        };
        a == d || self.repo.graph_descendant_of(d, a).unwrap_or(false)
    }

    /// Commits `(ahead, behind)` of `tip` against `base`.
    pub(crate) fn ahead_behind(&self, tip: &str, base: &str) -> Option<(usize, usize)> {
        if let Some(cli) = &self.cli {
            return cli.ahead_behind(tip, base);
        }
        let t = git2::Oid::from_str(tip).ok()?;
        let b = git2::Oid::from_str(base).ok()?;
        self.repo.graph_ahead_behind(t, b).ok()
    }

    /// The best common ancestor of two commits.
    pub(crate) fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.merge_base(a, b);
        }
        let a = git2::Oid::from_str(a).ok()?;
        let b = git2::Oid::from_str(b).ok()?;
        self.repo.merge_base(a, b).ok().map(|o| o.to_string())
    }

    /// Full names and tips of the refs that are neither branches, remote-tracking refs, the
    /// stash nor git-dibs' own: tags, and what checkpoint tools and scripts keep elsewhere
    /// (`refs/wip/…`). Read per namespace folder under `refs/` (a namespace that is only in
    /// `packed-refs` is not listed; its refs were seen before they were packed).
    pub(crate) fn other_refs(&self) -> Vec<(String, String)> {
        let outside = |name: &str| {
            !["refs/heads/", "refs/remotes/", "refs/dibs/", "refs/stash"]
                .iter()
                .any(|p| name.starts_with(p))
        };
        if let Some(cli) = &self.cli {
            let mut all = cli.refs_under("refs/");
            all.retain(|(name, _)| outside(name));
            return all;
        }
        let mut spaces = vec!["tags".to_owned()];
        if let Ok(entries) = std::fs::read_dir(self.repo.commondir().join("refs")) {
            for e in entries.filter_map(Result::ok) {
                let name = e.file_name().to_string_lossy().into_owned();
                if e.file_type().is_ok_and(|t| t.is_dir())
                    && outside(&format!("refs/{name}/"))
                    && name != "tags"
                {
                    spaces.push(name);
                }
            }
        }
        spaces.sort();
        spaces
            .iter()
            .flat_map(|space| self.refs_under(&format!("refs/{space}/")))
            .collect()
    }

    /// Full names and tips of every ref under `prefix` (such as `refs/remotes/`).
    pub(crate) fn refs_under(&self, prefix: &str) -> Vec<(String, String)> {
        if let Some(cli) = &self.cli {
            return cli.refs_under(prefix);
        }
        let Ok(refs) = self.repo.references_glob(&format!("{prefix}*")) else {
            return Vec::new();
        };
        refs.filter_map(Result::ok)
            .filter(|r| r.symbolic_target().is_none())
            .filter_map(|r| Some((r.name()?.to_owned(), r.target()?.to_string())))
            .collect()
    }

    /// Whether some remote-tracking ref (`refs/remotes/*`) contains `commit`.
    pub(crate) fn on_remote(&self, commit: &str) -> bool {
        if let Some(cli) = &self.cli {
            return cli.on_remote(commit);
        }
        self.refs_under("refs/remotes/")
            .iter()
            .any(|(_, tip)| self.is_ancestor(commit, tip))
    }

    /// A string value from the git config that applies here.
    pub(crate) fn config(&self, key: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.config(key);
        }
        self.repo.config().ok()?.get_string(key).ok()
    }

    /// A boolean value from the git config (`false` when unset or unreadable).
    pub(crate) fn config_bool(&self, key: &str) -> bool {
        if let Some(cli) = &self.cli {
            return cli.config_bool(key);
        }
        self.repo
            .config()
            .ok()
            .and_then(|c| c.get_bool(key).ok())
            .unwrap_or(false)
    }

    /// The remote-tracking ref that local branch `branch` follows, by its configuration
    /// (`refs/remotes/<remote>/<name>`), whether or not that ref exists now.
    pub(crate) fn upstream_ref(&self, branch: &str) -> Option<(String, String)> {
        let remote = self.config(&format!("branch.{branch}.remote"))?;
        let merge = self.config(&format!("branch.{branch}.merge"))?;
        let name = merge.strip_prefix("refs/heads/")?;
        Some((remote.clone(), format!("refs/remotes/{remote}/{name}")))
    }

    /// The remote base of a branch: the upstream of `base` when it exists, else
    /// `refs/remotes/origin/HEAD`'s target, else `origin/main` or `origin/master`.
    pub(crate) fn remote_base(&self, base: Option<&str>) -> Option<String> {
        if let Some((_, up)) = base.and_then(|b| self.upstream_ref(b))
            && self.ref_tip(&up).is_some()
        {
            return Some(up);
        }
        if let Some(b) = base {
            let guess = format!("refs/remotes/origin/{b}");
            if self.ref_tip(&guess).is_some() {
                return Some(guess);
            }
        }
        if let Some(cli) = &self.cli {
            if let Some(t) = cli.symbolic_target("refs/remotes/origin/HEAD") {
                return Some(t);
            }
        } else if let Ok(r) = self.repo.find_reference("refs/remotes/origin/HEAD")
            && let Some(t) = r.symbolic_target()
        {
            return Some(t.to_owned());
        }
        ["refs/remotes/origin/main", "refs/remotes/origin/master"]
            .into_iter()
            .find(|r| self.ref_tip(r).is_some())
            .map(str::to_owned)
    }

    /// Whether `rel` (relative to the worktree root) is ignored by git's rules here.
    pub(crate) fn is_ignored(&self, rel: &Path) -> bool {
        if let Some(cli) = &self.cli {
            return cli.is_ignored(rel);
        }
        self.repo.is_path_ignored(rel).unwrap_or(false)
    }

    /// Whether `rel` (relative to the worktree root) is ignored by the committed, unchanged
    /// `.gitignore` files alone: rules anyone may write (`.git/info/exclude`, an excludes file,
    /// a `.gitignore` not committed) do not say a file is nobody's work. Without libgit2, no.
    pub(crate) fn hidden_by_committed_rules(&self, rel: &str) -> bool {
        self.cli.is_none() && super::ignored::one_hidden_by_committed(&self.repo, rel)
    }

    /// A commit's committer time, seconds since the Unix epoch.
    pub(crate) fn commit_time(&self, commit: &str) -> Option<i64> {
        if let Some(cli) = &self.cli {
            return cli.commit_line(commit).map(|(t, _)| t);
        }
        let id = git2::Oid::from_str(commit).ok()?;
        Some(self.repo.find_commit(id).ok()?.time().seconds())
    }

    /// The recorded base branch of lane branch `lane`.
    pub(crate) fn lane_base(&self, lane: &str) -> Option<String> {
        self.config(&format!("branch.{lane}.{BASE_KEY}"))
    }

    /// The landed marker of lane branch `lane`: the lane tip that was landed.
    pub(crate) fn landed_marker(&self, lane: &str) -> Option<String> {
        self.ref_tip(&format!("{LANDED_PREFIX}{lane}"))
    }
}

/// The first 7 characters of a commit id.
pub(crate) fn short_sha(id: &str) -> &str {
    id.get(..7).unwrap_or(id)
}

/// The main worktree's root for the common git dir `common_dir` (`None` for a bare clone).
pub(crate) fn main_root(common_dir: &Path) -> Option<PathBuf> {
    if common_dir.file_name().is_some_and(|n| n == ".git") {
        common_dir.parent().map(Path::to_path_buf)
    } else {
        None
    }
}

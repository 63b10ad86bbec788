//! [`CliRepo`]: the reads libgit2 gives the guard, the lanes and the git hooks elsewhere, asked
//! of `git` itself (one process per question) in a repository libgit2 cannot open.

use std::path::{Path, PathBuf};

use super::{CliError, Format, run, run_text};
use crate::git::{CommitInfo, FileState};

/// A repository read through the `git` command.
#[derive(Debug, Clone)]
pub(crate) struct CliRepo {
    /// Where git runs: a worktree root, or the git dir of a bare clone.
    dir: PathBuf,
    /// Why libgit2 could not open it (`None` when it opened but could not read something,
    /// such as a split index).
    format: Option<Format>,
}

impl CliRepo {
    /// The repository at `path` (a worktree root, a path in one, or a git dir), to be read
    /// through git because of `format`.
    pub(crate) fn open(path: &Path, format: Option<Format>) -> CliRepo {
        CliRepo {
            dir: worktree_of(path),
            format,
        }
    }

    /// The repository at `path` when libgit2 failed to open it because of its format (read from
    /// its config now, on the failure path only); `None` when the format is not the reason.
    pub(crate) fn for_format(path: &Path) -> Option<CliRepo> {
        Format::of(path).map(|f| CliRepo::open(path, Some(f)))
    }

    /// The format that sends this repository to git, if that is why.
    pub(crate) fn format(&self) -> Option<&Format> {
        self.format.as_ref()
    }

    /// Where git runs.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn text(&self, args: &[&str]) -> Result<String, CliError> {
        run_text(&self.dir, args)
    }

    /// The worktree's changed, staged and untracked paths (untracked folders file by file,
    /// ignored files left out), or only those at or below `paths` when any are given; sorted.
    pub(crate) fn status(&self, paths: &[&str]) -> Result<Vec<FileState>, CliError> {
        let mut args = vec!["status", "--porcelain=v2", "-z", "--untracked-files=all"];
        if !paths.is_empty() {
            args.push("--");
            args.extend(paths.iter().map(|p| p.trim_end_matches('/')));
        }
        let mut files = super::parse_status(&run(&self.dir, &args, None)?).files;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        Ok(files)
    }

    /// The commit `spec` names, as a full id.
    pub(crate) fn commit_of(&self, spec: &str) -> Option<String> {
        let peeled = format!("{spec}^{{commit}}");
        self.text(&["rev-parse", "-q", "--verify", "--end-of-options", &peeled])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// Whether `spec` names an object (a branch, tag, id, `HEAD~2`, …).
    pub(crate) fn is_rev(&self, spec: &str) -> bool {
        self.text(&["rev-parse", "-q", "--verify", "--end-of-options", spec])
            .is_ok()
    }

    /// The object ref `name` (full name) points at, symbolic refs resolved.
    pub(crate) fn ref_tip(&self, name: &str) -> Option<String> {
        if !name.starts_with("refs/") && name != "HEAD" {
            return None;
        }
        self.text(&["rev-parse", "-q", "--verify", "--end-of-options", name])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// The branch `HEAD` names (`refs/heads/…` stripped), `None` when detached or unreadable.
    pub(crate) fn head_branch(&self) -> Option<String> {
        let name = self.text(&["symbolic-ref", "-q", "HEAD"]).ok()?;
        name.strip_prefix("refs/heads/").map(str::to_owned)
    }

    /// The target of symbolic ref `name`.
    pub(crate) fn symbolic_target(&self, name: &str) -> Option<String> {
        self.text(&["symbolic-ref", "-q", name])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// The full name `spec` resolves to (`main` → `refs/heads/main`), when it names a ref.
    pub(crate) fn full_ref_name(&self, spec: &str) -> Option<String> {
        self.text(&[
            "rev-parse",
            "--symbolic-full-name",
            "--end-of-options",
            spec,
        ])
        .ok()
        .filter(|s| s.starts_with("refs/"))
    }

    /// Full names and ids of the direct refs under `prefix` (symbolic ones left out).
    pub(crate) fn refs_under(&self, prefix: &str) -> Vec<(String, String)> {
        let Ok(out) = self.text(&[
            "for-each-ref",
            "--format=%(objectname) %(refname) %(symref)",
            prefix,
        ]) else {
            return Vec::new();
        };
        out.lines()
            .filter_map(|l| {
                let mut f = l.splitn(3, ' ');
                let (id, name, symref) = (f.next()?, f.next()?, f.next().unwrap_or(""));
                symref.is_empty().then(|| (name.to_owned(), id.to_owned()))
            })
            .collect()
    }

    /// Commits reachable from `tip` that no ref in `hide` (`--remotes`, `--all`, with
    /// `--exclude=` before them) contains, newest first, at most `limit`.
    pub(crate) fn log_not(
        &self,
        tip: &str,
        hide: &[&str],
        limit: usize,
    ) -> Result<Vec<CommitInfo>, CliError> {
        let n = format!("-n{limit}");
        let mut args = vec!["log", &n, "--format=%H %s", tip, "--not"];
        args.extend_from_slice(hide);
        Ok(commits_of(&self.text(&args)?))
    }

    /// Whether some remote-tracking ref contains `commit`.
    pub(crate) fn on_remote(&self, commit: &str) -> bool {
        self.log_not(commit, &["--remotes"], 1)
            .is_ok_and(|v| v.is_empty())
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    pub(crate) fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        ancestor == descendant
            || self
                .text(&["merge-base", "--is-ancestor", ancestor, descendant])
                .is_ok()
    }

    /// Commits `(ahead, behind)` of `tip` against `base`.
    pub(crate) fn ahead_behind(&self, tip: &str, base: &str) -> Option<(usize, usize)> {
        let range = format!("{tip}...{base}");
        let out = self
            .text(&["rev-list", "--left-right", "--count", &range])
            .ok()?;
        let (a, b) = out.split_once(char::is_whitespace)?;
        Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
    }

    /// The best common ancestor of two commits.
    pub(crate) fn merge_base(&self, a: &str, b: &str) -> Option<String> {
        self.text(&["merge-base", a, b])
            .ok()
            .filter(|s| !s.is_empty())
    }

    /// A config value that applies here.
    pub(crate) fn config(&self, key: &str) -> Option<String> {
        self.text(&["config", "--get", key]).ok()
    }

    /// A boolean config value (`false` when unset or not a boolean).
    pub(crate) fn config_bool(&self, key: &str) -> bool {
        self.text(&["config", "--type=bool", "--get", key])
            .is_ok_and(|v| v == "true")
    }

    /// Every configured remote with its URLs (`url`, then `pushurl`).
    pub(crate) fn remotes(&self) -> Vec<(String, Vec<String>)> {
        let names = self.text(&["remote"]).unwrap_or_default();
        names
            .lines()
            .map(|n| {
                let urls = self
                    .text(&["config", "--get-all", &format!("remote.{n}.url")])
                    .unwrap_or_default()
                    .lines()
                    .chain(
                        self.text(&["config", "--get-all", &format!("remote.{n}.pushurl")])
                            .unwrap_or_default()
                            .lines(),
                    )
                    .map(str::to_owned)
                    .collect();
                (n.to_owned(), urls)
            })
            .collect()
    }

    /// Whether `rel` (relative to the worktree root) is ignored by git's rules.
    pub(crate) fn is_ignored(&self, rel: &Path) -> bool {
        let Some(rel) = rel.to_str() else {
            return false;
        };
        // check-ignore refuses literal pathspecs (git's `GIT_LITERAL_PATHSPECS`) outright.
        let literal = [("GIT_LITERAL_PATHSPECS", std::ffi::OsStr::new("0"))];
        super::run_in(
            &self.dir,
            &["check-ignore", "-q", "--no-index", "--", rel],
            &literal,
        )
        .is_ok()
    }

    /// A commit's committer time (seconds since the epoch) and the first line of its message.
    pub(crate) fn commit_line(&self, commit: &str) -> Option<(i64, String)> {
        let out = self
            .text(&["log", "-1", "--format=%ct %s", commit, "--"])
            .ok()?;
        let (time, summary) = out.split_once(' ').unwrap_or((&out, ""));
        Some((time.parse().ok()?, summary.to_owned()))
    }

    /// Of `oids`, those this repository does not have (one `cat-file --batch-check`).
    pub(crate) fn missing_objects(&self, oids: &[String]) -> Result<Vec<String>, CliError> {
        if oids.is_empty() {
            return Ok(Vec::new());
        }
        let list: String = oids.iter().map(|o| format!("{o}\n")).collect();
        let out = run(
            &self.dir,
            &["cat-file", "--batch-check=%(objectname)"],
            Some(list.as_bytes()),
        )?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|l| l.strip_suffix(" missing"))
            .map(str::to_owned)
            .collect())
    }

    /// The bytes of `file` in the tree of commit `oid`, when it is here and at most `limit`.
    pub(crate) fn file_of(&self, oid: &str, file: &str, limit: usize) -> Option<Vec<u8>> {
        let spec = format!("{oid}:{file}");
        let size: usize = self.text(&["cat-file", "-s", &spec]).ok()?.parse().ok()?;
        if size > limit {
            return None;
        }
        run(&self.dir, &["cat-file", "blob", &spec], None).ok()
    }

    /// Write a parentless commit whose tree holds `file` with `bytes`, by `name <email>` at
    /// `at` (seconds, UTC), with `message`; its id.
    pub(crate) fn record(
        &self,
        file: &str,
        bytes: &[u8],
        (name, email): (&str, &str),
        at: u64,
        message: &str,
    ) -> Result<String, CliError> {
        let blob = run_text_in(&self.dir, &["hash-object", "-w", "--stdin"], bytes)?;
        let entry = format!("100644 blob {blob}\t{file}\n");
        let tree = run_text_in(&self.dir, &["mktree"], entry.as_bytes())?;
        let when = format!("{at} +0000");
        let env = [
            ("GIT_AUTHOR_NAME", name),
            ("GIT_AUTHOR_EMAIL", email),
            ("GIT_AUTHOR_DATE", when.as_str()),
            ("GIT_COMMITTER_NAME", name),
            ("GIT_COMMITTER_EMAIL", email),
            ("GIT_COMMITTER_DATE", when.as_str()),
        ];
        let env: Vec<(&str, &std::ffi::OsStr)> = env
            .iter()
            .map(|(k, v)| (*k, std::ffi::OsStr::new(*v)))
            .collect();
        let out = super::run_with(
            &self.dir,
            &["commit-tree", &tree, "-F", "-"],
            Some(message.as_bytes()),
            &env,
        )?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// How many entries the stash holds.
    pub(crate) fn stash_entries(&self) -> usize {
        self.text(&["log", "-g", "--format=%H", "refs/stash", "--"])
            .map_or(0, |o| o.lines().count())
    }
}

/// The commits of `git log --format='%H %s'` output.
pub(crate) fn commits_of(log: &str) -> Vec<CommitInfo> {
    log.lines()
        .filter_map(|l| {
            let (id, summary) = l.split_once(' ').unwrap_or((l, ""));
            (!id.is_empty()).then(|| CommitInfo {
                id: id.to_owned(),
                summary: summary.to_owned(),
            })
        })
        .collect()
}

/// `git args` with `input` on stdin; its trimmed output.
fn run_text_in(dir: &Path, args: &[&str], input: &[u8]) -> Result<String, CliError> {
    let out = run(dir, args, Some(input))?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// Where git should run for the repository at `path`: the worktree a git dir belongs to (a
/// linked worktree's `gitdir` file, the folder above a `.git`), else `path` itself.
fn worktree_of(path: &Path) -> PathBuf {
    let is_git_dir = path.join("HEAD").is_file()
        && (path.join("commondir").is_file() || path.join("objects").is_dir());
    if !is_git_dir {
        return path.to_path_buf();
    }
    if let Some(dot_git) = crate::git::linked_dot_git(path)
        && let Some(root) = dot_git.parent()
        && root.is_dir()
    {
        return root.to_path_buf();
    }
    if path.file_name().is_some_and(|n| n == ".git")
        && let Some(root) = path.parent()
    {
        return root.to_path_buf();
    }
    path.to_path_buf()
}

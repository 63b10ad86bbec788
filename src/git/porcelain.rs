//! git's own answer, through the `git` command, where the fast reader (libgit2 and the index
//! walk) is not certain: submodules (status with `--ignore-submodules=none`, recursively),
//! repository extensions (reftable, SHA-256, relative worktrees), split and sparse indexes.
//! A failure here is an error for the caller to turn into a question, never "nothing".

use std::path::Path;
use std::process::Stdio;

use super::facts::CommitInfo;

/// `git` failing to answer.
#[derive(Debug, thiserror::Error)]
#[error("`git {args}` in {dir}: {message}")]
pub(crate) struct PorcelainError {
    args: String,
    dir: String,
    message: String,
}

fn run(dir: &Path, args: &[&str]) -> Result<String, PorcelainError> {
    let err = |message: String| PorcelainError {
        args: args.join(" "),
        dir: dir.display().to_string(),
        message,
    };
    let out = super::lanes::git_command(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| err(e.to_string()))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        return Err(err(text.trim().chars().take(300).collect()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether the fast reader may be wrong about the worktree at `root`: it has submodules, or
/// its repository uses an extension, a split or sparse index.
pub(crate) fn needs_git(root: &Path, git_dir: &Path, common_dir: &Path) -> bool {
    if root.join(".gitmodules").exists() {
        return true;
    }
    let config = std::fs::read_to_string(common_dir.join("config")).unwrap_or_default();
    let lower = config.to_ascii_lowercase();
    let flagged = [
        "[extensions]",
        "splitindex",
        "sparsecheckout",
        "sparse = true",
    ];
    if flagged.iter().any(|f| lower.contains(f)) {
        return true;
    }
    std::fs::read_dir(git_dir).is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("sharedindex."))
    })
}

/// What git reports of one worktree: status lines (`XY path`, ignored files left out, dirty
/// submodules included), HEAD, and HEAD's commits on no remote-tracking ref.
#[derive(Debug, Clone, Default)]
pub(crate) struct GitView {
    /// `XY path` lines.
    pub(crate) status: Vec<String>,
    /// HEAD's commit id.
    pub(crate) head: Option<String>,
    /// Commits of HEAD on no remote-tracking ref, newest first.
    pub(crate) unpushed: Vec<CommitInfo>,
    /// Local branches (for the main worktree) whose tips are on no remote-tracking ref.
    pub(crate) unpushed_branches: Vec<String>,
}

/// Ask git about the worktree at `root` (`limit` commits at most).
pub(crate) fn view(root: &Path, main: bool, limit: usize) -> Result<GitView, PorcelainError> {
    let mut v = GitView::default();
    let status = run(
        root,
        &[
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--ignore-submodules=none",
            "--untracked-files=all",
        ],
    )?;
    let parsed = super::cli::parse_status(status.as_bytes());
    v.head = parsed.head;
    v.status = parsed
        .files
        .iter()
        .map(super::FileState::porcelain)
        .collect();
    if v.head.is_some() {
        let n = format!("-n{limit}");
        let log = run(
            root,
            &["log", &n, "--format=%H %s", "HEAD", "--not", "--remotes"],
        )?;
        v.unpushed = super::cli::commits_of(&log);
    }
    if main {
        let refs = run(
            root,
            &[
                "for-each-ref",
                "--format=%(refname:short) %(objectname)",
                "refs/heads/",
            ],
        )?;
        for line in refs.lines() {
            let Some((name, tip)) = line.split_once(' ') else {
                continue;
            };
            let out = run(root, &["rev-list", "-n1", tip, "--not", "--remotes"])?;
            if !out.trim().is_empty() {
                v.unpushed_branches.push(name.to_owned());
            }
        }
    }
    Ok(v)
}

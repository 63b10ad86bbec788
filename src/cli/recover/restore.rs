//! Restoring from snapshots: files (never over a different current content without `--force`:
//! the snapshot is written beside it and the message says where), and removed worktrees (their
//! branch, or the commit a retention ref or the snapshot kept, checked out again with `git
//! worktree add`, then their files from the snapshots).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde::Serialize;

use super::file::{Restored, print_restored, restore_or_fail};
use super::nested::Rebuilt;
use super::{Args, Catalog, Version};
use crate::git::lanes::{LaneRepo, git, short_sha};
use crate::git::{self, Worktree, retention};

#[derive(Serialize)]
struct WorktreeOutcome<'a> {
    worktree: &'a Path,
    created: bool,
    branch: Option<String>,
    commit: Option<String>,
    files: &'a [Restored],
    /// Why nothing was brought back (exit 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
}

/// `recover --worktree` brings nothing back (exit 1): `why` on stdout, or in the JSON.
fn nothing(root: &Path, args: &Args, why: String) -> Result<ExitCode> {
    if args.json {
        super::super::print_json(&WorktreeOutcome {
            worktree: root,
            created: false,
            branch: None,
            commit: None,
            files: &[],
            refused: Some(why),
        })?;
    } else {
        println!("{why}");
    }
    Ok(ExitCode::from(1))
}

/// The version of a file to bring back: the newest of `--session`'s, at or before `--at`
/// (see [`Catalog::pick`]).
fn pick<'a>(
    catalog: &Catalog,
    root: &Path,
    rel: &str,
    versions: &'a [Version],
    args: &Args,
    at: Option<u64>,
) -> Option<&'a Version> {
    catalog
        .pick(root, rel, versions, args.session.as_deref(), at)
        .0
}

/// What `recover PATH --json` prints for a folder: what came back, and the worktrees that are
/// gone (to be brought back first).
#[derive(Serialize)]
struct Folder<'a> {
    restored: &'a [Restored],
    worktrees_gone: &'a [PathBuf],
    /// Nested repositories made again from their bundles.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repositories: &'a [Rebuilt],
    /// Nested repositories whose bundle could not be brought back, and why.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repository_problems: &'a [String],
}

/// `recover PATH`: every snapshotted file at `path` or below it; `rebuilt` are the nested
/// repositories made again there just before (and those that could not be), where a snapshot
/// newer than the commit checked out is the uncommitted work and goes in place.
pub(super) fn files(
    catalog: &Catalog,
    cwd: &Path,
    path: &Path,
    args: &Args,
    at: Option<u64>,
    rebuilt: &(Vec<Rebuilt>, Vec<String>),
) -> Result<ExitCode> {
    let (repositories, problems) = rebuilt;
    let full = git::normalize_no_follow(cwd, path);
    let mut done = Vec::new();
    let mut gone = Vec::new();
    for ((root, rel), versions) in &catalog.files {
        let target = super::file_in(root, rel);
        if !target.starts_with(&full) {
            continue;
        }
        let Some(v) = pick(catalog, root, rel, versions, args, at) else {
            continue;
        };
        // A nested repository's folder that is gone comes back as folders and files.
        if git::worktree_at(root).is_none() && catalog.nested_home(root).is_none() {
            if !gone.contains(root) {
                gone.push(root.clone());
            }
            continue;
        }
        let fresh = repositories
            .iter()
            .any(|r| r.worktree == *root && i64::try_from(v.at).unwrap_or(0) >= r.head_time);
        done.push(restore_or_fail(catalog, v, root, rel, args.force || fresh));
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Folder {
                restored: &done,
                worktrees_gone: &gone,
                repositories,
                repository_problems: problems,
            })?
        );
    } else {
        super::nested::print_rebuilt(repositories, problems);
        print_restored(&done);
        for root in &gone {
            println!(
                "the worktree {} is gone; bring it back first: git dibs recover --worktree {}",
                root.display(),
                crate::shell::quote_word(&root.to_string_lossy())
            );
        }
        if done.is_empty() && gone.is_empty() && repositories.is_empty() && problems.is_empty() {
            println!("nothing to recover at {}", super::shown_path(&full));
            if let Some(main) = outside_every_worktree(catalog, &full) {
                println!(
                    "it is in no worktree of the clone at {}; name a path inside one, or run `git dibs recover` there to list what can be brought back",
                    super::shown_path(&main)
                );
            }
        }
    }
    let any = !repositories.is_empty() || done.iter().any(|r| r.action != "refused");
    let failed = done.iter().any(|r| r.action == "failed");
    Ok(ExitCode::from(if any && !failed { 0 } else { 1 }))
}

/// The clone's main worktree, when `full` lies in none of its worktrees (there now, or known
/// to the snapshots): a path named from the wrong folder.
fn outside_every_worktree(catalog: &Catalog, full: &Path) -> Option<PathBuf> {
    let roots = git::worktree_roots(&catalog.common_dir);
    let inside = roots
        .iter()
        .chain(catalog.worktrees.keys())
        .any(|root| full.starts_with(root) || root.starts_with(full));
    (!inside).then(|| roots.into_iter().next())?
}

/// What to check out for a removed worktree: (branch to create or check out, commit, whether
/// the branch still exists).
fn checkout_of(
    repo_dir: &Path,
    branch: Option<&str>,
    head: Option<&str>,
) -> Option<(Option<String>, String, bool)> {
    let repo = LaneRepo::open(repo_dir).ok()?;
    if let Some(b) = branch {
        if let Some(tip) = repo.branch_tip(b) {
            return Some((Some(b.to_owned()), tip, true));
        }
        let kept = retention::retained_tip(repo_dir, b)
            .or_else(|| head.and_then(|h| repo.commit_of(h)))?;
        return Some((Some(b.to_owned()), kept, false));
    }
    let commit = head.and_then(|h| repo.commit_of(h))?;
    Some((None, commit, false))
}

/// `recover --worktree PATH`.
pub(super) fn worktree(
    catalog: &Catalog,
    wt: &Worktree,
    cwd: &Path,
    target: &Path,
    args: &Args,
    at: Option<u64>,
) -> Result<ExitCode> {
    let root = git::normalize(cwd, target);
    let Some((meta, _)) = catalog.worktrees.get(&root) else {
        let why = format!("no snapshot knows a worktree at {}", root.display());
        return nothing(&root, args, why);
    };
    if let Some(home) = catalog.nested_home(&root) {
        // Not a worktree of this clone: a repository of its own inside one. Its git directory
        // is not rebuilt; its files come back by path, its commits from refs/dibs/nested/.
        let word = crate::shell::quote_word(&root.to_string_lossy());
        let why = format!(
            "{} is a repository of its own inside {}: git dibs recover {word} brings its files back, and the repository too when its history is kept here as a bundle (else clone it again first to have its history; git dibs recover lists its kept commits)",
            root.display(),
            home.display()
        );
        return nothing(&root, args, why);
    }
    let mut created = false;
    let mut checked_out = None;
    if git::worktree_at(&root).is_none() {
        if fs::read_dir(&root).is_ok_and(|mut d| d.next().is_some()) {
            let why = format!(
                "{} exists and is not a worktree; move it away first",
                root.display()
            );
            return nothing(&root, args, why);
        }
        let Some((branch, commit, exists)) =
            checkout_of(&wt.root, meta.branch.as_deref(), meta.head.as_deref())
        else {
            bail!(
                "no commit of {} is left to check out (branch {}, HEAD {})",
                root.display(),
                meta.branch.as_deref().unwrap_or("none"),
                meta.head.as_deref().unwrap_or("unknown")
            );
        };
        let root_text = root.to_string_lossy().into_owned();
        if let Some(b) = &branch
            && let Some(other) = git::checked_out_elsewhere(&wt.common_dir, &root, b)
        {
            bail!(
                "branch {b} is checked out at {}: bring the files back there (git dibs recover \
                 PATH), or switch that worktree to another branch and run this again",
                other.display()
            );
        }
        let mut add: Vec<&str> = vec!["worktree", "add"];
        // Its folder was deleted but git still registers it (locked, perhaps by git-dibs while
        // a session had work there): the new checkout takes the registration over.
        if git::registration_gone(&wt.common_dir, &root) {
            add.extend(["-f", "-f"]);
        }
        match (&branch, exists) {
            (Some(b), true) => add.extend([root_text.as_str(), b.as_str()]),
            (Some(b), false) => add.extend(["-b", b.as_str(), root_text.as_str(), &commit]),
            (None, _) => add.extend(["--detach", root_text.as_str(), &commit]),
        }
        git(&wt.root, &add)?;
        created = true;
        checked_out = Some((branch, commit));
    }
    let head_time = LaneRepo::open(&root)
        .ok()
        .and_then(|r| r.commit_of("HEAD").and_then(|c| r.commit_time(&c)))
        .unwrap_or(0);
    let mut done = Vec::new();
    for ((r, rel), versions) in &catalog.files {
        if *r != root {
            continue;
        }
        let Some(v) = pick(catalog, r, rel, versions, args, at) else {
            continue;
        };
        // In a fresh checkout a snapshot newer than HEAD is the uncommitted work: it goes in
        // place. An older one may predate a commit that changed the file: it goes beside.
        let fresh = created && i64::try_from(v.at).unwrap_or(0) >= head_time;
        done.push(restore_or_fail(catalog, v, &root, rel, args.force || fresh));
    }
    let (branch, commit) = checked_out.unzip();
    if args.json {
        let outcome = WorktreeOutcome {
            worktree: &root,
            created,
            branch: branch.flatten(),
            commit,
            files: &done,
            refused: None,
        };
        println!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        if created {
            println!(
                "{} is back: {} at {}",
                root.display(),
                branch
                    .flatten()
                    .map_or("detached HEAD".to_owned(), |b| format!("branch {b}")),
                commit.as_deref().map_or("?", short_sha)
            );
        }
        print_restored(&done);
    }
    let failed = done.iter().any(|r| r.action == "failed");
    Ok(ExitCode::from(
        if (created || !done.is_empty()) && !failed {
            0
        } else {
            1
        },
    ))
}

//! `git dibs lane land`: bring a clean lane's work onto its base branch. The base is first
//! brought into the lane when needed (rebase or merge, inside the lane only; a conflict stops
//! there), then the base ref moves by compare-and-swap (`git update-ref BASE NEW OLD`). A base
//! checked out in a dirty worktree is refused (naming the live session that holds the files);
//! a base checked out in a clean worktree is updated there with `git read-tree -m -u OLD NEW`,
//! which refuses to overwrite anything, and the ref is swapped back if that fails.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::{Ctx, print_porcelain};
use crate::git::lanes::{LANDED_PREFIX, LaneRepo, checked_out_branch, git, git_output};
use crate::git::lanes::{operation_in_progress, short_sha};
use crate::git::{self, Repo, retention};
use crate::policy::claims::describe;

/// How the lane's work lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// Rebase the lane onto the base, then fast-forward the base (the default).
    Rebase,
    /// Merge the base into the lane, then fast-forward the base to the lane.
    Merge,
    /// Merge the base into the lane, then put one commit with the lane's tree on the base.
    Squash,
}

/// Options of `lane land`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The lane's name.
    pub name: String,
    /// Rebase the lane onto its base first (default).
    #[arg(long, group = "how")]
    pub rebase: bool,
    /// Merge the base into the lane first.
    #[arg(long, group = "how")]
    pub merge: bool,
    /// Land the lane as one squashed commit.
    #[arg(long, group = "how")]
    pub squash: bool,
}

/// Stop with exit 1 and a message.
fn stop(msg: impl std::fmt::Display) -> Result<ExitCode> {
    eprintln!("git dibs: {msg}");
    Ok(ExitCode::from(1))
}

/// Run `lane land`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mode = if args.merge {
        Mode::Merge
    } else if args.squash {
        Mode::Squash
    } else {
        Mode::Rebase
    };
    let ctx = Ctx::open()?;
    let lane = ctx.lane(&args.name)?;
    let root = lane.root().to_path_buf();
    if lane.entry.husk {
        bail!(
            "lane {} is a husk (no .git link in {}); `git dibs lane prune` clears it",
            lane.name,
            root.display()
        );
    }
    let Some(branch) = lane.branch.clone() else {
        bail!(
            "lane {} has a detached HEAD; check out its branch first",
            lane.name
        );
    };
    if let Some(op) = operation_in_progress(&lane.entry.git_dir) {
        return stop(format!(
            "a {op} is in progress in lane {} ({}); finish it (`git {op} --continue`) or abort it first",
            lane.name,
            root.display()
        ));
    }
    let status = Repo::open(&root)?.status()?;
    if !status.is_empty() {
        eprintln!(
            "git dibs: lane {} has {} uncommitted change(s); commit them first:",
            lane.name,
            status.len()
        );
        print_porcelain(&status.iter().map(|f| f.porcelain()).collect::<Vec<_>>());
        return Ok(ExitCode::from(1));
    }
    let repo = LaneRepo::open(&root)?;
    let Some(base) = repo.lane_base(&branch) else {
        bail!(
            "lane {} has no recorded base branch (it was started from a commit)",
            lane.name
        );
    };
    let Some(old) = repo.branch_tip(&base) else {
        bail!(
            "the base branch {base} of lane {} does not exist",
            lane.name
        );
    };
    if !repo.is_ancestor(&old, &repo.branch_tip(&branch).unwrap_or_default()) {
        let (cmd, what): (&[&str], &str) = match mode {
            Mode::Rebase => (&["rebase", "--quiet", &old], "rebase"),
            _ => (
                &[
                    "merge",
                    "--quiet",
                    "--no-edit",
                    "-m",
                    &format!("Merge {base} into {branch}"),
                    &old,
                ],
                "merge",
            ),
        };
        let out = git_output(&root, cmd)?;
        if !out.status.success() {
            let conflicts =
                git(&root, &["diff", "--name-only", "--diff-filter=U"]).unwrap_or_default();
            if operation_in_progress(&lane.entry.git_dir).is_some() {
                eprintln!(
                    "git dibs: bringing {base} into lane {} stopped on conflicts, inside the lane \
                     only ({}); {base} was not touched. Resolve them there and run `git {what} \
                     --continue`, then land again; or `git {what} --abort`. Conflicted files:",
                    lane.name,
                    root.display()
                );
                print_porcelain(&conflicts.lines().map(str::to_owned).collect::<Vec<_>>());
                return Ok(ExitCode::from(1));
            }
            bail!(
                "`git {what}` of {base} into lane {} failed: {}",
                lane.name,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    let repo = LaneRepo::open(&root)?;
    let tip = repo.branch_tip(&branch).unwrap_or_default();
    let new = match mode {
        Mode::Squash if tip != old => {
            let msg = squash_message(&root, &old, &tip, &lane.name)?;
            git(
                &root,
                &[
                    "commit-tree",
                    &format!("{tip}^{{tree}}"),
                    "-p",
                    &old,
                    "-m",
                    &msg,
                ],
            )?
        }
        _ => tip.clone(),
    };
    if new == old {
        mark_landed(&ctx, &branch, &tip)?;
        println!("lane {} has nothing {base} lacks; marked landed", lane.name);
        return Ok(ExitCode::SUCCESS);
    }
    // Where the base is checked out, the tree must be clean and no operation under way.
    let mut checkouts = Vec::new();
    let sessions = ctx.store.sessions()?;
    for entry in git::list_worktrees(&ctx.common) {
        if entry.husk || checked_out_branch(&entry.git_dir).as_deref() != Some(base.as_str()) {
            continue;
        }
        let dirty = Repo::open(&entry.root)?.status()?;
        if let Some(op) = operation_in_progress(&entry.git_dir) {
            return stop(format!(
                "{base} is checked out in {} with a {op} in progress; land refused",
                entry.root.display()
            ));
        }
        if !dirty.is_empty() {
            let names: Vec<String> = dirty.iter().map(|f| f.path.clone()).collect();
            let holders: Vec<String> = sessions
                .iter()
                .filter(|s| ctx.alive(s))
                .filter_map(|s| {
                    let held: Vec<&str> = s
                        .files
                        .iter()
                        .filter(|f| f.key.worktree == entry.root && names.contains(&f.key.path))
                        .map(|f| f.key.path.as_str())
                        .collect();
                    (!held.is_empty()).then(|| format!("{} holds {}", describe(s), held.join(", ")))
                })
                .collect();
            let who = if holders.is_empty() {
                "no live session holds them".to_owned()
            } else {
                holders.join("; ")
            };
            eprintln!(
                "git dibs: {base} is checked out in {} with {} uncommitted change(s) ({who}); \
                 moving {base} under them is refused. Ask them to commit, or land later:",
                entry.root.display(),
                dirty.len()
            );
            print_porcelain(&dirty.iter().map(|f| f.porcelain()).collect::<Vec<_>>());
            return Ok(ExitCode::from(1));
        }
        checkouts.push(entry.root);
    }
    before_swap_hook();
    let base_ref = format!("refs/heads/{base}");
    let why = format!("git-dibs: land lane {} ({mode:?})", lane.name).to_lowercase();
    if git(
        &ctx.main_root,
        &["update-ref", "-m", &why, &base_ref, &new, &old],
    )
    .is_err()
    {
        let now = LaneRepo::open(&ctx.main_root)?.branch_tip(&base);
        return stop(format!(
            "{base} moved meanwhile (expected {}, now {}); {base} was left as it is. The lane \
             already holds {base}'s earlier tip; run `git dibs lane land {}` again",
            short_sha(&old),
            now.as_deref().map(short_sha).unwrap_or("gone"),
            lane.name
        ));
    }
    for wt in &checkouts {
        if let Err(e) = git(wt, &["read-tree", "-m", "-u", &old, &new]) {
            let back = git(
                &ctx.main_root,
                &[
                    "update-ref",
                    "-m",
                    "git-dibs: land undone",
                    &base_ref,
                    &old,
                    &new,
                ],
            );
            bail!(
                "{base} is checked out in {} and could not be updated there ({e}); {}",
                wt.display(),
                if back.is_ok() {
                    format!("{base} was put back at {}", short_sha(&old))
                } else {
                    format!(
                        "{base} now points at {}: run `git -C {} reset --keep {}`",
                        short_sha(&new),
                        wt.display(),
                        short_sha(&new)
                    )
                }
            );
        }
    }
    mark_landed(&ctx, &branch, &tip)?;
    let kept = retention::retain_branch(&ctx.main_root, &base).unwrap_or_default();
    println!(
        "landed lane {} on {base}: {}..{} ({}){}{}",
        lane.name,
        short_sha(&old),
        short_sha(&new),
        format!("{mode:?}").to_lowercase(),
        if checkouts.is_empty() {
            String::new()
        } else {
            format!(
                "; updated the checkout in {}",
                checkouts
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        if kept.created.is_empty() {
            String::new()
        } else {
            format!("; retained as {}", kept.created.join(", "))
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// The message of a squashed landing: the lane's own commits speak (merges of the base into the
/// lane are left out): one commit gives its whole message; several give the oldest one's
/// subject, then every subject.
fn squash_message(root: &Path, old: &str, tip: &str, lane: &str) -> Result<String> {
    let range = format!("{old}..{tip}");
    let subjects = git(
        root,
        &["log", "--no-merges", "--reverse", "--format=%s", &range],
    )?;
    let subjects: Vec<&str> = subjects.lines().filter(|l| !l.trim().is_empty()).collect();
    match subjects.as_slice() {
        [] => Ok(format!("Squashed lane {lane}\n")),
        [_] => {
            let only = git(
                root,
                &["log", "--no-merges", "--format=%B", "-n", "1", &range],
            )?;
            Ok(format!("{}\n", only.trim_end()))
        }
        [first, ..] => {
            let list: Vec<String> = subjects.iter().map(|s| format!("- {s}")).collect();
            Ok(format!(
                "{first} (squashed lane {lane})\n\n{}\n",
                list.join("\n")
            ))
        }
    }
}

/// Record that the lane's `tip` landed: `refs/dibs/landed/<lane branch>`.
fn mark_landed(ctx: &Ctx, branch: &str, tip: &str) -> Result<()> {
    let name = format!("{LANDED_PREFIX}{branch}");
    git(
        &ctx.main_root,
        &["update-ref", "-m", "git-dibs: landed", &name, tip],
    )?;
    Ok(())
}

/// Tests only (debug builds): run `DIBS_TEST_BEFORE_SWAP` through `sh` just before the
/// compare-and-swap, to move the base under a landing deterministically.
fn before_swap_hook() {
    #[cfg(debug_assertions)]
    if let Some(cmd) = std::env::var_os("DIBS_TEST_BEFORE_SWAP") {
        let _ = std::process::Command::new("sh").arg("-c").arg(cmd).status();
    }
}

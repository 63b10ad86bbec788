//! `git dibs lane retain`: keep unpushed commits reachable with retention refs
//! (`refs/dibs/retention/<branch>/<short sha>`), for people and scripts, and the same calls the
//! git hooks and the guard make; dropped again once the commits are on a remote.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::git::retention::{self, Retained};

/// Options of `lane retain`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Branches to retain (default: the current worktree's HEAD).
    pub(crate) branches: Vec<String>,
    /// Retain every local branch.
    #[arg(long, conflicts_with = "branches")]
    pub(crate) all: bool,
    /// Only drop retention refs whose commits are on a remote now.
    #[arg(long, conflicts_with_all = ["branches", "all"])]
    pub(crate) sweep: bool,
    /// Print one JSON object: the refs made, dropped and pushed.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The `--json` answer of `lane retain`.
#[derive(Debug, Serialize)]
struct View<'a> {
    /// Retention refs made.
    retained: &'a [String],
    /// Retention refs dropped: their commit is on a remote now.
    dropped: &'a [String],
    /// Retention refs dropped because another ref keeps their commit.
    covered: Vec<Covered<'a>>,
    /// What was pushed (`<remote> <refspec>`), with `dibs.retentionPush`.
    pushed: &'a [String],
    /// Pushes that failed (they do not fail the command).
    push_errors: &'a [String],
}

/// A retention ref dropped because `kept_by` keeps its commit.
#[derive(Debug, Serialize)]
struct Covered<'a> {
    #[serde(rename = "ref")]
    name: &'a str,
    kept_by: &'a str,
}

/// Run `lane retain`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let wt = super::super::current_worktree()?;
    let mut done = Retained::default();
    if args.sweep {
        done = retention::sweep(&wt.root)?;
    } else if args.all {
        done = retention::retain_all(&wt.root)?;
    } else if args.branches.is_empty() {
        done = retention::retain_head(&wt.root)?;
    } else {
        let repo = crate::git::lanes::LaneRepo::open(&wt.root)?;
        for b in &args.branches {
            let b = b.trim_start_matches("refs/heads/");
            if repo.branch_tip(b).is_none() {
                bail!("no local branch `{b}` here; `git branch` lists them");
            }
        }
        for b in &args.branches {
            let r = retention::retain_branch(&wt.root, b.trim_start_matches("refs/heads/"))?;
            done.created.extend(r.created);
            done.dropped.extend(r.dropped);
            done.covered.extend(r.covered);
            done.pushed.extend(r.pushed);
            done.push_errors.extend(r.push_errors);
        }
    }
    if args.json {
        super::super::print_json(&View {
            retained: &done.created,
            dropped: &done.dropped,
            covered: done
                .covered
                .iter()
                .map(|(name, kept_by)| Covered { name, kept_by })
                .collect(),
            pushed: &done.pushed,
            push_errors: &done.push_errors,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    for r in &done.created {
        println!("retained {r}");
    }
    for r in &done.dropped {
        println!("dropped {r} (on a remote now)");
    }
    for (r, holder) in &done.covered {
        println!("dropped {r} (its commit is kept by {holder})");
    }
    for p in &done.pushed {
        println!("pushed {p}");
    }
    for e in &done.push_errors {
        eprintln!("git dibs: retention push failed: {e}");
    }
    if done.created.is_empty() && done.dropped.is_empty() && done.covered.is_empty() {
        println!(
            "nothing to retain or drop: commits here on no remote already have retention refs"
        );
    }
    Ok(ExitCode::SUCCESS)
}

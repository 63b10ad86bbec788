//! `git dibs lane land`: bring a clean lane's work onto its base branch. The base is first
//! brought into the lane when needed (rebase or merge, inside the lane only; a conflict stops
//! there), then the base ref moves by compare-and-swap (`git update-ref BASE NEW OLD`). A base
//! checked out in a dirty worktree is refused (naming the live session that holds the files);
//! a base checked out in a clean worktree is updated there with `git read-tree -m -u OLD NEW`,
//! which refuses to overwrite anything, and the ref is swapped back if that fails.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde::Serialize;

use super::Ctx;
use crate::git::lanes::{LANDED_PREFIX, LaneRepo, checked_out_branch, git, git_output};
use crate::git::lanes::{operation_in_progress, short_sha};
use crate::git::{self, Repo, retention};
use crate::policy::claims::describe;

/// How the lane's work lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Mode {
    /// Rebase the lane onto the base, then fast-forward the base (the default).
    Rebase,
    /// Merge the base into the lane, then fast-forward the base to the lane.
    Merge,
    /// Merge the base into the lane, then put one commit with the lane's tree on the base.
    Squash,
}

/// Options of `lane land`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The lane's name.
    pub(crate) name: String,
    /// Rebase the lane onto its base first (default).
    #[arg(long, group = "how")]
    pub(crate) rebase: bool,
    /// Merge the base into the lane first.
    #[arg(long, group = "how")]
    pub(crate) merge: bool,
    /// Land the lane as one squashed commit.
    #[arg(long, group = "how")]
    pub(crate) squash: bool,
    /// Print one JSON object: what landed, or why not (`refused`, `paths`).
    #[arg(long)]
    pub(crate) json: bool,
}

/// The `--json` answer: what landed, or why nothing did.
#[derive(Debug, Default, Serialize)]
struct Landing {
    /// The lane's name.
    lane: String,
    /// The lane's branch.
    branch: Option<String>,
    /// The base it lands on.
    base: Option<String>,
    /// `rebase`, `merge` or `squash`.
    mode: &'static str,
    /// Whether the lane's work is on the base now.
    landed: bool,
    /// The base's tip before, and after.
    from: Option<String>,
    to: Option<String>,
    /// Worktrees where the base is checked out, updated to the new tip.
    updated_checkouts: Vec<PathBuf>,
    /// Retention refs made for the base's new commits.
    retained: Vec<String>,
    /// Why nothing landed (exit 1).
    refused: Option<String>,
    /// The `git status --porcelain` lines (or conflicted paths) behind a refusal.
    paths: Vec<String>,
}

/// How `lane land` answers: lines for people, or one JSON document.
struct Answer {
    json: bool,
    doc: Landing,
}

impl Answer {
    /// Refuse with exit 1: the reason (and the paths behind it) on stderr, or in the JSON.
    fn refuse(mut self, why: String, paths: Vec<String>) -> Result<ExitCode> {
        if self.json {
            self.doc.refused = Some(why);
            self.doc.paths = paths;
            super::super::print_json(&self.doc)?;
        } else {
            eprintln!("git dibs: {why}");
            for p in &paths {
                eprintln!("    {p}");
            }
        }
        Ok(ExitCode::from(1))
    }

    /// Done, exit 0: `line` for people, or the JSON.
    fn done(mut self, line: String) -> Result<ExitCode> {
        self.doc.landed = true;
        if self.json {
            super::super::print_json(&self.doc)?;
        } else {
            println!("{line}");
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Run `lane land`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
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
    let mut answer = Answer {
        json: args.json,
        doc: Landing {
            lane: lane.name.clone(),
            branch: lane.branch.clone(),
            mode: mode.name(),
            ..Landing::default()
        },
    };
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
        return answer.refuse(
            format!(
                "a {op} is in progress in lane {} ({}); finish it (`git {op} --continue`) or abort it first",
                lane.name,
                root.display()
            ),
            Vec::new(),
        );
    }
    let status = Repo::open(&root)?.status()?;
    if !status.is_empty() {
        return answer.refuse(
            format!(
                "lane {} has {} uncommitted change(s); commit them first:",
                lane.name,
                status.len()
            ),
            status.iter().map(|f| f.porcelain()).collect(),
        );
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
    answer.doc.base = Some(base.clone());
    answer.doc.from = Some(old.clone());
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
                return answer.refuse(
                    format!(
                        "bringing {base} into lane {} stopped on conflicts, inside the lane only \
                         ({}); {base} was not touched. Resolve them there and run `git {what} \
                         --continue`, then land again; or `git {what} --abort`. Conflicted files:",
                        lane.name,
                        root.display()
                    ),
                    conflicts.lines().map(str::to_owned).collect(),
                );
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
        answer.doc.to = Some(new);
        return answer.done(format!(
            "lane {} has nothing {base} lacks; marked landed",
            lane.name
        ));
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
            return answer.refuse(
                format!(
                    "{base} is checked out in {} with a {op} in progress; land refused",
                    entry.root.display()
                ),
                Vec::new(),
            );
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
            return answer.refuse(
                format!(
                    "{base} is checked out in {} with {} uncommitted change(s) ({who}); moving \
                     {base} under them is refused. Ask them to commit, or land later:",
                    entry.root.display(),
                    dirty.len()
                ),
                dirty.iter().map(|f| f.porcelain()).collect(),
            );
        }
        checkouts.push(entry.root);
    }
    before_swap_hook();
    let base_ref = format!("refs/heads/{base}");
    let why = format!("git-dibs: land lane {} ({})", lane.name, mode.name());
    if git(
        &ctx.main_root,
        &["update-ref", "-m", &why, &base_ref, &new, &old],
    )
    .is_err()
    {
        let now = LaneRepo::open(&ctx.main_root)?.branch_tip(&base);
        return answer.refuse(
            format!(
                "{base} moved meanwhile (expected {}, now {}); {base} was left as it is. The \
                 lane already holds {base}'s earlier tip; run `git dibs lane land {}` again",
                short_sha(&old),
                now.as_deref().map(short_sha).unwrap_or("gone"),
                lane.name
            ),
            Vec::new(),
        );
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
    let line = format!(
        "landed lane {} on {base}: {}..{} ({}){}{}",
        lane.name,
        short_sha(&old),
        short_sha(&new),
        mode.name(),
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
    answer.doc.to = Some(new);
    answer.doc.updated_checkouts = checkouts;
    answer.doc.retained = kept.created;
    answer.done(line)
}

impl Mode {
    /// The mode's name, as the flag spells it.
    fn name(self) -> &'static str {
        match self {
            Mode::Rebase => "rebase",
            Mode::Merge => "merge",
            Mode::Squash => "squash",
        }
    }
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

//! `git dibs lane prune`: remove lanes whose holder is not live, which are clean, and whose
//! commits are landed or pushed; remove husks and orphan folders with no files in them; and
//! leave no administrative entry, git-dibs lock, branch config, landed marker or claim behind,
//! also after the holder was killed. A dirty or unpushed lane is kept and listed with its full
//! `git status --porcelain` lines; so is a lane someone else locked.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::autolock::{LockState, lock_state, unlock_ours};
use super::list::{LaneView, view};
use super::{Ctx, Lane, SHARED_TARGET_GROUP, print_porcelain};
use crate::git::lanes::{LANDED_PREFIX, LaneRepo, git};
use crate::git::retention;
use crate::store::{Session, Target, Writer};

/// Options of `lane prune`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Say what would be removed and kept; change nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Print one JSON object: each lane and orphan folder with what was done to it and why.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The `--json` answer of `lane prune`.
#[derive(Debug, Serialize)]
struct Pruned {
    /// Whether nothing was changed (`--dry-run`).
    dry_run: bool,
    /// Every lane, with what was done.
    lanes: Vec<PrunedLane>,
    /// Folders in the lanes folder that no worktree is registered at.
    orphans: Vec<Orphan>,
}

/// One lane in `lane prune --json`.
#[derive(Debug, Serialize)]
struct PrunedLane {
    name: String,
    path: PathBuf,
    /// `removed`, `would-remove` or `kept`.
    action: &'static str,
    /// Why it was kept.
    reason: Option<String>,
    /// Its `git status --porcelain` lines, when kept.
    porcelain: Vec<String>,
    husk: bool,
}

/// One orphan folder in `lane prune --json`.
#[derive(Debug, Serialize)]
struct Orphan {
    path: PathBuf,
    /// `removed`, `would-remove` or `kept`.
    action: &'static str,
    /// Files found in it (counted up to 1000).
    files: usize,
}

/// Why a lane is kept, or `None` when it may go.
fn keep_reason(v: &LaneView, lane: &Lane) -> Option<String> {
    if let Some(h) = v.holder.as_ref().filter(|h| h.live) {
        return Some(format!("held by live {} {}", h.host, h.short_id));
    }
    if let LockState::Foreign(r) = lock_state(&lane.entry.git_dir) {
        return Some(format!("locked by someone else ({r})"));
    }
    if v.husk {
        return None;
    }
    if let Some(op) = v.in_progress {
        return Some(format!("a {op} is in progress"));
    }
    if !v.porcelain.is_empty() {
        return Some(format!("{} uncommitted change(s)", v.porcelain.len()));
    }
    // A host's worktree goes with its branch: commits on no remote are kept even when landed
    // on a local base.
    if lane.made_by.is_some() && !v.pushed {
        return Some("commits on no remote".into());
    }
    if !v.landed && !v.pushed {
        return Some(match v.ahead {
            Some(n) => format!("unpushed and not landed ({n} commit(s) ahead of its base)"),
            None => "unpushed and not landed".into(),
        });
    }
    None
}

/// Files (not folders) at or below `dir`, counted up to `limit`.
fn file_count(dir: &Path, limit: usize) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                _ => n += 1,
            }
            if n >= limit {
                return n;
            }
        }
    }
    n
}

/// Release every claim and file touch any session holds on this lane's worktree or branch.
fn release_claims(ctx: &Ctx, sessions: &[Session], root: &Path, branch: Option<&str>) {
    for s in sessions {
        let mut targets: Vec<Target> = s
            .claims
            .iter()
            .map(|c| c.target.clone())
            .filter(|t| match t {
                Target::Worktree { path } => path == root,
                Target::Branch { name } => Some(name.as_str()) == branch,
                Target::File(k) => k.worktree == root,
                Target::Record { .. } => false,
            })
            .collect();
        targets.extend(
            s.files
                .iter()
                .filter(|f| f.key.worktree == root)
                .map(|f| Target::File(f.key.clone())),
        );
        if !targets.is_empty() {
            let _ = ctx
                .store
                .release(s.actor(), Writer::Anonymous, ctx.now, Some(&targets));
        }
    }
}

/// Remove one lane that may go, or say why it stopped.
fn remove(
    ctx: &Ctx,
    repo: &LaneRepo,
    lane: &Lane,
    v: &LaneView,
    sessions: &[Session],
) -> Result<(), String> {
    let root = lane.root();
    if let Some(b) = &lane.branch
        && !v.pushed
    {
        retention::retain_branch(&ctx.main_root, b).map_err(|e| e.to_string())?;
    }
    unlock_ours(&ctx.common, root, &lane.entry.git_dir);
    let p = root.to_string_lossy();
    if v.husk {
        if root.exists() && file_count(root, 1) > 0 {
            return Err(format!(
                "husk folder {} still holds files; look at them and remove it by hand",
                root.display()
            ));
        }
        let _ = fs::remove_dir_all(root);
        git(&ctx.main_root, &["worktree", "prune"]).map_err(|e| e.to_string())?;
    } else {
        git(&ctx.main_root, &["worktree", "remove", &p]).map_err(|e| e.to_string())?;
    }
    if let (Some(b), Some(tip)) = (&lane.branch, &v.tip)
        && b.starts_with(super::LANE_PREFIX)
        && (v.pushed || v.landed)
    {
        let _ = git(
            &ctx.main_root,
            &["update-ref", "-d", &format!("refs/heads/{b}"), tip],
        );
        let _ = git(
            &ctx.main_root,
            &["config", "--remove-section", &format!("branch.{b}")],
        );
        if let Some(m) = repo.landed_marker(b) {
            let _ = git(
                &ctx.main_root,
                &["update-ref", "-d", &format!("{LANDED_PREFIX}{b}"), &m],
            );
        }
    }
    release_claims(ctx, sessions, root, lane.branch.as_deref());
    remove_empty_parents(ctx, root);
    Ok(())
}

/// Remove `dir`'s now empty parents up to (not including) the lanes folder's parent.
fn remove_empty_parents(ctx: &Ctx, dir: &Path) {
    let group = ctx.dir.join(SHARED_TARGET_GROUP);
    let mut d = dir.parent();
    while let Some(p) = d {
        if !p.starts_with(&ctx.dir) || p == group || p == ctx.dir {
            break;
        }
        if fs::remove_dir(p).is_err() {
            break;
        }
        d = p.parent();
    }
}

/// Folders in the lanes folder that no worktree is registered at.
fn orphans(ctx: &Ctx, registered: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for folder in [ctx.dir.clone(), ctx.dir.join(SHARED_TARGET_GROUP)] {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            if !e.file_type().is_ok_and(|t| t.is_dir()) || name == ".cargo" {
                continue;
            }
            if folder == ctx.dir && name == SHARED_TARGET_GROUP {
                continue;
            }
            let canon = fs::canonicalize(&path).unwrap_or(path);
            if !registered.iter().any(|r| r == &canon) {
                out.push(canon);
            }
        }
    }
    out
}

/// Run `lane prune`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let ctx = Ctx::open()?;
    let repo = LaneRepo::open(&ctx.main_root)?;
    let sessions = ctx.store.sessions()?;
    let lanes = ctx.lanes();
    let mut doc = Pruned {
        dry_run: args.dry_run,
        lanes: Vec::new(),
        orphans: Vec::new(),
    };
    for lane in &lanes {
        let v = view(&ctx, &repo, &sessions, lane);
        let mut entry = PrunedLane {
            name: lane.name.clone(),
            path: lane.root().to_path_buf(),
            action: "kept",
            reason: None,
            porcelain: Vec::new(),
            husk: v.husk,
        };
        if let Some(why) = keep_reason(&v, lane) {
            entry.reason = Some(why);
            entry.porcelain = v.porcelain.clone();
        } else if args.dry_run {
            entry.action = "would-remove";
        } else {
            match remove(&ctx, &repo, lane, &v, &sessions) {
                Ok(()) => entry.action = "removed",
                Err(why) => entry.reason = Some(format!("could not remove it: {why}")),
            }
        }
        doc.lanes.push(entry);
    }
    let registered: Vec<PathBuf> = crate::git::list_worktrees(&ctx.common)
        .into_iter()
        .map(|e| e.root)
        .collect();
    for orphan in orphans(&ctx, &registered) {
        let files = file_count(&orphan, 1000);
        let action = if files > 0 {
            "kept"
        } else if args.dry_run {
            "would-remove"
        } else if fs::remove_dir_all(&orphan).is_ok() {
            "removed"
        } else {
            "kept"
        };
        doc.orphans.push(Orphan {
            path: orphan,
            action,
            files,
        });
    }
    if !args.dry_run {
        let _ = git(&ctx.main_root, &["worktree", "prune"]);
        let _ = retention::sweep(&ctx.main_root);
        stale_claims(&ctx, &sessions);
    }
    if args.json {
        super::super::print_json(&doc)?;
    } else {
        say(&doc);
    }
    Ok(ExitCode::SUCCESS)
}

/// `lane prune`'s lines for people.
fn say(doc: &Pruned) {
    for l in &doc.lanes {
        let husk = if l.husk { " (husk)" } else { "" };
        match (l.action, &l.reason) {
            ("removed", _) => println!("removed lane {} ({}){husk}", l.name, l.path.display()),
            ("would-remove", _) => {
                println!("would remove lane {} ({}){husk}", l.name, l.path.display());
            }
            (_, reason) => {
                println!(
                    "kept lane {} ({}): {}",
                    l.name,
                    l.path.display(),
                    reason.as_deref().unwrap_or("kept")
                );
                print_porcelain(&l.porcelain);
            }
        }
    }
    for o in &doc.orphans {
        match o.action {
            "removed" => println!("removed empty orphan folder {}", o.path.display()),
            "would-remove" => println!("would remove empty orphan folder {}", o.path.display()),
            _ if o.files == 0 => println!(
                "kept empty orphan folder {}: it could not be removed",
                o.path.display()
            ),
            _ => println!(
                "kept orphan folder {}: {}{} file(s) in it, no worktree registered there; look before removing it",
                o.path.display(),
                o.files,
                if o.files >= 1000 { "+" } else { "" }
            ),
        }
    }
    if doc.lanes.is_empty() && doc.orphans.is_empty() {
        println!("No lanes to prune.");
    }
}

/// Release claims on lane worktrees that no longer exist (left by a killed `lane new`, say).
fn stale_claims(ctx: &Ctx, sessions: &[Session]) {
    let sessions = ctx.store.sessions().unwrap_or_else(|_| sessions.to_vec());
    for s in &sessions {
        for c in &s.claims {
            if let Target::Worktree { path } = &c.target
                && path.starts_with(&ctx.dir)
                && !path.exists()
            {
                let branch = s.claims.iter().find_map(|c| match &c.target {
                    Target::Branch { name }
                        if name.starts_with(super::LANE_PREFIX)
                            && LaneRepo::open(&ctx.main_root)
                                .ok()
                                .and_then(|r| r.branch_tip(name))
                                .is_none() =>
                    {
                        Some(name.clone())
                    }
                    _ => None,
                });
                release_claims(ctx, std::slice::from_ref(s), path, branch.as_deref());
            }
        }
    }
}

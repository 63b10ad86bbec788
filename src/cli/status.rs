//! `git dibs status`: every live session of this clone (all worktrees) with its files, each
//! marked dirty or clean in git's eyes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, UNIX_EPOCH};

use anyhow::Result;
use serde::Serialize;

use crate::git;
use crate::policy::claims::ago;
use crate::store::{self, Session};

/// Options of `status`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON (shape documented in the README).
    #[arg(long)]
    pub json: bool,
    /// Include sessions that are no longer live.
    #[arg(long)]
    pub all: bool,
}

/// The `--json` shape of one file.
#[derive(Debug, Serialize)]
struct FileView {
    worktree: PathBuf,
    path: String,
    first_touch: String,
    last_touch: String,
    dirty: bool,
}

/// The `--json` shape of one session.
#[derive(Debug, Serialize)]
struct SessionView {
    id: String,
    short_id: String,
    host: &'static str,
    label: Option<String>,
    live: bool,
    generation: u64,
    worktree: Option<PathBuf>,
    branch: Option<String>,
    first_seen: String,
    last_seen: String,
    idle_seconds: u64,
    ended: Option<String>,
    files: Vec<FileView>,
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct StatusView {
    version: u32,
    ttl_seconds: u64,
    sessions: Vec<SessionView>,
}

fn rfc3339(secs: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string()
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (wt, store) = super::current_store()?;
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    let sessions: Vec<Session> = store
        .sessions()?
        .into_iter()
        .filter(|s| args.all || s.is_live(now, ttl))
        .collect();
    let worktrees: BTreeSet<&Path> = sessions
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.key.worktree.as_path()))
        .collect();
    let dirty: BTreeMap<&Path, BTreeSet<String>> = worktrees
        .into_iter()
        .map(|w| (w, git::dirty_paths(w).unwrap_or_default()))
        .collect();
    let views: Vec<SessionView> = sessions
        .iter()
        .map(|s| SessionView {
            id: s.id.clone(),
            short_id: s.short_id().to_owned(),
            host: s.host.name(),
            label: s.label.clone(),
            live: s.is_live(now, ttl),
            generation: s.generation,
            worktree: s.worktree.clone(),
            branch: s.branch.clone(),
            first_seen: rfc3339(s.first_seen),
            last_seen: rfc3339(s.last_seen),
            idle_seconds: now.saturating_sub(s.last_seen),
            ended: s.ended.map(rfc3339),
            files: s
                .files
                .iter()
                .map(|f| FileView {
                    worktree: f.key.worktree.clone(),
                    path: f.key.path.clone(),
                    first_touch: rfc3339(f.first),
                    last_touch: rfc3339(f.last),
                    dirty: dirty
                        .get(f.key.worktree.as_path())
                        .is_some_and(|d| d.contains(&f.key.path)),
                })
                .collect(),
        })
        .collect();
    if args.json {
        let doc = StatusView {
            version: 1,
            ttl_seconds: ttl.as_secs(),
            sessions: views,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    if views.is_empty() {
        println!("No live sessions in this repository.");
        return Ok(ExitCode::SUCCESS);
    }
    for (view, s) in views.iter().zip(&sessions) {
        let label = view
            .label
            .as_deref()
            .map(|l| format!(" \"{l}\""))
            .unwrap_or_default();
        let state = if view.live { "" } else { " (not live)" };
        println!("{} {}{}{}", view.host, view.short_id, label, state);
        println!(
            "  worktree {}  branch {}  idle {}",
            view.worktree
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "?".into()),
            view.branch.as_deref().unwrap_or("(detached)"),
            ago(now, s.last_seen),
        );
        for f in &view.files {
            let mark = if f.dirty { "dirty" } else { "clean" };
            let place = if Some(&f.worktree) == view.worktree.as_ref() {
                f.path.clone()
            } else {
                format!("{}/{}", f.worktree.display(), f.path)
            };
            println!("  {mark:5}  {place}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

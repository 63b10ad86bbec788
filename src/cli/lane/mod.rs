//! `git dibs lane`: a worktree per session under `dibs.worktreesDir` on a branch `lane/NAME`,
//! with a life cycle that never loses uncommitted or unpushed work: `new`, `list`, `land`,
//! `prune`; and the autolock that keeps a linked worktree with a live session's dirty files
//! locked against removal by tools that no agent hook sees.

mod autolock;
mod land;
mod list;
mod new;
mod prune;
mod retain;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Subcommand;

use crate::agent::{self, AgentProcess};
use crate::git::lanes::{LaneRepo, checked_out_branch, main_root};
use crate::git::{self, Worktree, WorktreeEntry};
use crate::protocol::Host;
use crate::store::{self, Session, Store, Target};

pub(crate) use autolock::{LOCK_PREFIX, refresh_after_git, refresh_autolock, refresh_autolock_as};

/// The folder that groups lanes sharing one cargo target directory.
pub(crate) const SHARED_TARGET_GROUP: &str = "shared-target";
/// The prefix of every lane branch.
pub(crate) const LANE_PREFIX: &str = "lane/";
/// Where Claude Code makes its own worktrees (`claude -w NAME`, `isolation: "worktree"`),
/// relative to the main worktree: `.claude/worktrees/NAME` on a branch `worktree-NAME`.
pub(crate) const CLAUDE_WORKTREES: &str = ".claude/worktrees";

/// Options of `lane`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// What to do with lanes.
    #[command(subcommand)]
    pub(crate) command: LaneCommand,
}

/// The lane subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum LaneCommand {
    /// Create a lane: a linked worktree on a new branch `lane/NAME`, claimed for the session.
    New(new::Args),
    /// Every lane with its holder, base, ahead/behind, dirty files, pushed, landed and lock.
    List(list::Args),
    /// Land a clean lane on its base branch (compare-and-swap on the base ref).
    Land(land::Args),
    /// Remove lanes whose holder is gone, which are clean and landed or pushed; and husks.
    Prune(prune::Args),
    /// Keep unpushed commits reachable with retention refs (what the git hooks and guard call).
    Retain(retain::Args),
}

/// Run a lane subcommand.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        LaneCommand::New(a) => new::run(a),
        LaneCommand::List(a) => list::run(a),
        LaneCommand::Land(a) => land::run(a),
        LaneCommand::Prune(a) => prune::run(a),
        LaneCommand::Retain(a) => retain::run(a),
    }
}

/// Everything the lane commands share: the clone, its store, the lanes folder, now, the lease.
pub(crate) struct Ctx {
    /// The worktree the command runs in.
    pub(crate) here: Worktree,
    /// The main worktree's root.
    pub(crate) main_root: PathBuf,
    /// The common git dir.
    pub(crate) common: PathBuf,
    /// The store.
    pub(crate) store: Store,
    /// The lanes folder (absolute).
    pub(crate) dir: PathBuf,
    /// Now, seconds since the Unix epoch.
    pub(crate) now: u64,
    /// The lease (`dibs.ttl`).
    pub(crate) ttl: Duration,
}

impl Ctx {
    /// Open the clone the current directory is in.
    pub(crate) fn open() -> Result<Ctx> {
        let (here, store) = super::current_store()?;
        let main_root = main_root(&here.common_dir)
            .context("lanes need a clone with a main worktree (this one is bare)")?;
        let repo = LaneRepo::open(&here.root)?;
        let dir = repo
            .config("dibs.worktreesDir")
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| ".worktrees".into());
        // Canonical as far as it exists, `..` folded in the rest: before the first lane the
        // folder does not exist, and `../repo-lanes` must not be taken for one inside the main
        // worktree.
        let dir = git::normalize(&main_root, Path::new(dir.trim()));
        let ttl =
            git::read_config_duration(&here.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
        Ok(Ctx {
            common: here.common_dir.clone(),
            here,
            main_root,
            store,
            dir,
            now: store::now_secs(),
            ttl,
        })
    }

    /// Every lane: a linked worktree on a `lane/` branch or inside the lanes folder, and every
    /// worktree a host made (`.claude/worktrees/NAME`).
    pub(crate) fn lanes(&self) -> Vec<Lane> {
        let host_dir = self.main_root.join(CLAUDE_WORKTREES);
        git::list_worktrees(&self.common)
            .into_iter()
            .filter(|e| !e.main)
            .filter_map(|entry| {
                let branch = checked_out_branch(&entry.git_dir);
                let on_lane = branch
                    .as_deref()
                    .is_some_and(|b| b.starts_with(LANE_PREFIX));
                let made_by = entry.root.starts_with(&host_dir).then_some("claude");
                if !on_lane && made_by.is_none() && !entry.root.starts_with(&self.dir) {
                    return None;
                }
                let name = match branch.as_deref().and_then(|b| b.strip_prefix(LANE_PREFIX)) {
                    Some(n) => n.to_owned(),
                    None => entry.root.file_name()?.to_string_lossy().into_owned(),
                };
                Some(Lane {
                    name,
                    branch,
                    entry,
                    made_by,
                })
            })
            .collect()
    }

    /// The lane called `name`, or a clear error.
    pub(crate) fn lane(&self, name: &str) -> Result<Lane> {
        let name = name.strip_prefix(LANE_PREFIX).unwrap_or(name);
        let lanes = self.lanes();
        let names: Vec<&str> = lanes.iter().map(|l| l.name.as_str()).collect();
        let list = if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        };
        let found = lanes.iter().find(|l| l.name == name).cloned();
        found.with_context(|| format!("no lane named `{name}` (lanes: {list})"))
    }

    /// Whether `s` is alive (record within the lease, agent process not gone).
    pub(crate) fn alive(&self, s: &Session) -> bool {
        s.is_alive(self.now, self.ttl)
    }
}

/// One lane.
#[derive(Debug, Clone)]
pub(crate) struct Lane {
    /// Its name (`lane/NAME` without the prefix, or the folder name).
    pub(crate) name: String,
    /// The branch checked out there.
    pub(crate) branch: Option<String>,
    /// Its worktree entry.
    pub(crate) entry: WorktreeEntry,
    /// The host that made it (`claude` for `.claude/worktrees/NAME`), `None` for a lane.
    pub(crate) made_by: Option<&'static str>,
}

impl Lane {
    /// The lane's root.
    pub(crate) fn root(&self) -> &Path {
        &self.entry.root
    }
}

/// Who holds a lane: the session with the newest claim on its worktree, else a live session
/// working or holding files there.
pub(crate) struct Holder {
    /// The session.
    pub(crate) session: Session,
    /// Whether it is alive.
    pub(crate) live: bool,
}

/// The holder of the worktree at `root`, from every record in the store.
pub(crate) fn holder(ctx: &Ctx, sessions: &[Session], root: &Path) -> Option<Holder> {
    let target = Target::Worktree {
        path: root.to_path_buf(),
    };
    let claimant = sessions
        .iter()
        .filter_map(|s| {
            let c = s.claims.iter().find(|c| c.target == target)?;
            Some((c.since, s))
        })
        .max_by_key(|(since, _)| *since)
        .map(|(_, s)| s);
    let live_worker = sessions.iter().find(|s| ctx.alive(s) && s.works_in(root));
    match (claimant, live_worker) {
        (Some(c), _) if ctx.alive(c) => Some(Holder {
            session: c.clone(),
            live: true,
        }),
        (_, Some(w)) => Some(Holder {
            session: w.clone(),
            live: true,
        }),
        (Some(c), None) => Some(Holder {
            session: c.clone(),
            live: false,
        }),
        (None, None) => None,
    }
}

/// The session a lane command acts for: `--session`, else `DIBS_SESSION` or
/// `CLAUDE_CODE_SESSION_ID` (with the calling agent process), else a person's session named
/// after the user and terminal.
pub(crate) fn caller_session(explicit: Option<&str>) -> (String, Host, Option<AgentProcess>) {
    if let Some(id) = explicit {
        return (id.to_owned(), Host::Person, None);
    }
    match super::caller::env_session() {
        Some((id, host)) => (id, host, agent::current()),
        None => (super::caller::person_session(), Host::Person, None),
    }
}

/// A lane name must be a plain folder and branch component.
pub(crate) fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && !name.ends_with(".lock")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.contains("..");
    if !ok {
        bail!(
            "`{name}` is not a usable lane name: use letters, digits, `-`, `_` and `.` (not first), \
             at most 64 characters"
        );
    }
    if name == SHARED_TARGET_GROUP {
        bail!("`{name}` is reserved for the folder of lanes that share a cargo target directory");
    }
    Ok(())
}

/// Print a list of `git status --porcelain` lines, indented.
pub(crate) fn print_porcelain(lines: &[String]) {
    for l in lines {
        println!("    {l}");
    }
}

//! `git dibs lane list`: every lane with its holder (and whether live), branch, base, commits
//! ahead and behind, dirty files, pushed or not, landed or not, locked or not. The same facts
//! drive `prune`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, Lane, holder};
use crate::git::Repo;
use crate::git::lanes::{LaneRepo, operation_in_progress};
use crate::store::Session;

/// Options of `lane list`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A lane's holder, as shown.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HolderView {
    pub(crate) session: String,
    pub(crate) short_id: String,
    pub(crate) host: &'static str,
    pub(crate) label: Option<String>,
    pub(crate) live: bool,
}

/// Everything known about one lane.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LaneView {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) branch: Option<String>,
    pub(crate) base: Option<String>,
    pub(crate) tip: Option<String>,
    pub(crate) holder: Option<HolderView>,
    pub(crate) ahead: Option<usize>,
    pub(crate) behind: Option<usize>,
    /// Dirty file names.
    pub(crate) dirty: Vec<String>,
    /// The full `git status --porcelain` lines.
    pub(crate) porcelain: Vec<String>,
    /// Every commit of the lane is on a remote-tracking ref.
    pub(crate) pushed: bool,
    /// The lane's commits are on its base (local or remote), or it was landed by `land`.
    pub(crate) landed: bool,
    /// Whether the lane has commits of its own (ahead of its base, or landed by `land`); a new
    /// lane has none and is neither pushed nor landed in `lane list`'s words.
    pub(crate) own_commits: bool,
    /// The remote base the lane's work is on, by the same tests as `git dibs landed` (without
    /// the pull-request one); `null` when it is not there (or the lane has no commits of its
    /// own).
    pub(crate) landed_on: Option<String>,
    /// The lock reason, when locked.
    pub(crate) locked: Option<String>,
    /// A registered worktree with no `.git` link left (or no folder).
    pub(crate) husk: bool,
    /// A rebase or merge in progress there.
    pub(crate) in_progress: Option<&'static str>,
    /// The host that made the worktree (`claude` for `claude -w NAME`), `null` for a lane.
    pub(crate) made_by: Option<&'static str>,
}

/// Gather the facts of `lane`.
pub(crate) fn view(ctx: &Ctx, repo: &LaneRepo, sessions: &[Session], lane: &Lane) -> LaneView {
    let root = lane.root();
    let husk = lane.entry.husk;
    let tip = match &lane.branch {
        Some(b) => repo.branch_tip(b),
        None if !husk => LaneRepo::open(root).ok().and_then(|r| r.commit_of("HEAD")),
        None => None,
    };
    let base = lane.branch.as_deref().and_then(|b| repo.lane_base(b));
    let base_tip = base.as_deref().and_then(|b| repo.branch_tip(b));
    let (ahead, behind) = match (&tip, &base_tip) {
        (Some(t), Some(b)) => repo
            .ahead_behind(t, b)
            .map_or((None, None), |(a, b)| (Some(a), Some(b))),
        _ => (None, None),
    };
    let porcelain: Vec<String> = if husk {
        Vec::new()
    } else {
        Repo::open(root)
            .and_then(|r| r.status())
            .map(|s| s.iter().map(|f| f.porcelain()).collect())
            .unwrap_or_else(|e| vec![format!("?? (status unreadable: {e})")])
    };
    let dirty = porcelain
        .iter()
        .map(|l| l.get(3..).unwrap_or(l).to_owned())
        .collect();
    let pushed = tip.as_deref().is_some_and(|t| repo.on_remote(t));
    let landed = tip.as_deref().is_some_and(|t| {
        let marker = lane.branch.as_deref().and_then(|b| repo.landed_marker(b));
        let remote = repo
            .remote_base(base.as_deref())
            .and_then(|r| repo.ref_tip(&r));
        marker.as_deref() == Some(t)
            || base_tip.as_deref().is_some_and(|b| repo.is_ancestor(t, b))
            || remote.as_deref().is_some_and(|r| repo.is_ancestor(t, r))
    });
    // Nothing ahead of its base and never landed: a lane with no commits of its own yet (a lane
    // fast-forwarded onto its base by `land` is also 0 ahead, and has its landed marker).
    let marked = lane
        .branch
        .as_deref()
        .and_then(|b| repo.landed_marker(b))
        .is_some();
    let own_commits = ahead != Some(0) || marked;
    let landed_on = match (&lane.branch, own_commits) {
        (Some(b), true) => crate::git::landed::landed(root, b, None, false)
            .ok()
            .filter(|r| r.answer != crate::git::landed::Answer::NotLanded)
            .map(|r| r.base),
        _ => None,
    };
    let holder = holder(ctx, sessions, root).map(|h| HolderView {
        session: h.session.id.clone(),
        short_id: h.session.short_id().to_owned(),
        host: h.session.host.name(),
        label: h.session.label.clone(),
        live: h.live,
    });
    LaneView {
        name: lane.name.clone(),
        path: root.to_path_buf(),
        branch: lane.branch.clone(),
        base,
        tip,
        holder,
        ahead,
        behind,
        dirty,
        porcelain,
        pushed,
        landed,
        own_commits,
        landed_on,
        locked: lane.entry.locked.clone(),
        husk,
        in_progress: if husk {
            None
        } else {
            operation_in_progress(&lane.entry.git_dir)
        },
        made_by: lane.made_by,
    }
}

/// Run `lane list`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let ctx = Ctx::open()?;
    let repo = LaneRepo::open(&ctx.here.root)?;
    let sessions = ctx.store.sessions()?;
    let views: Vec<LaneView> = ctx
        .lanes()
        .iter()
        .map(|l| view(&ctx, &repo, &sessions, l))
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&views)?);
        return Ok(ExitCode::SUCCESS);
    }
    if views.is_empty() {
        println!("No lanes. `git dibs lane new NAME` makes one.");
        return Ok(ExitCode::SUCCESS);
    }
    for v in &views {
        print_view(v);
    }
    Ok(ExitCode::SUCCESS)
}

/// Print one lane in a few lines.
pub(crate) fn print_view(v: &LaneView) {
    let holder = match &v.holder {
        Some(h) => format!(
            "{} {}{}",
            h.host,
            h.short_id,
            if h.live { " (live)" } else { " (gone)" }
        ),
        None => "no holder".into(),
    };
    let made = v
        .made_by
        .map(|h| format!("  (made by {h})"))
        .unwrap_or_default();
    println!("{}  {}  {}{made}", v.name, v.path.display(), holder);
    if v.husk {
        println!("  husk: registered, but its folder has no .git link left");
        return;
    }
    let counts = match (v.ahead, v.behind) {
        (Some(a), Some(b)) => format!("  {a} ahead, {b} behind"),
        _ => String::new(),
    };
    // Said as `git dibs landed` says it: landed means on the remote base.
    let state = match (v.own_commits, &v.landed_on) {
        (false, _) => "no commits of its own yet".to_owned(),
        (_, Some(remote)) => format!(
            "{}  landed on {}",
            if v.pushed { "pushed" } else { "unpushed" },
            remote.trim_start_matches("refs/remotes/")
        ),
        (_, None) if v.landed => format!(
            "{}  landed on {} here, not yet on its remote",
            if v.pushed { "pushed" } else { "unpushed" },
            v.base.as_deref().unwrap_or("its base")
        ),
        (_, None) => format!(
            "{}  not landed",
            if v.pushed { "pushed" } else { "unpushed" }
        ),
    };
    println!(
        "  {} on {}{counts}  {state}{}",
        v.branch.as_deref().unwrap_or("(detached)"),
        v.base.as_deref().unwrap_or("(no base)"),
        v.locked
            .as_deref()
            .map(|r| format!("  locked: {r}"))
            .unwrap_or_default()
    );
    if let Some(op) = v.in_progress {
        println!("  a {op} is in progress");
    }
    if !v.dirty.is_empty() {
        println!("  {} dirty: {}", v.dirty.len(), v.dirty.join(", "));
    }
}

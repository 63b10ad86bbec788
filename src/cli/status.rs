//! `git dibs status`: every live session of this clone (all worktrees) with its files, each
//! marked dirty or clean in git's eyes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::git;
use crate::policy::claims::ago;
use crate::store::{self, Session};
use crate::text;

/// Options of `status`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print JSON (shape documented in the README).
    #[arg(long)]
    pub(crate) json: bool,
    /// Include sessions that are no longer live.
    #[arg(long)]
    pub(crate) all: bool,
    /// Only say who holds these files (exit 0 when a live session holds one, 1 when none does).
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<String>,
}

/// The `--json` shape of one file.
#[derive(Debug, Serialize)]
struct FileView {
    worktree: PathBuf,
    path: String,
    first_touch: String,
    last_touch: String,
    /// `null` when git could not read its worktree, or it is gone.
    dirty: Option<bool>,
    /// Its worktree is gone (removed by someone): whether the file was uncommitted then is
    /// not known here; its snapshots are (`git dibs recover --worktree`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    worktree_gone: bool,
}

/// The `--json` shape of one explicit claim.
#[derive(Debug, Serialize)]
struct ClaimView {
    target: String,
    intent: Option<String>,
    exclusive: bool,
    since: String,
    until: String,
    token: String,
    /// The lease ends more than a year from now: no version that checks leases grants that.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lease_too_long: bool,
}

/// The `--json` shape of one session.
#[derive(Debug, Serialize)]
struct SessionView {
    id: String,
    short_id: String,
    /// For a sub-agent: its id (`agent_id`); absent for a session's main thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_id: Option<String>,
    /// For a sub-agent: its type (`agent_type`), when the host said.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_type: Option<String>,
    host: &'static str,
    label: Option<String>,
    /// The machine of a session imported from another machine (`git dibs sync`); `null` for
    /// this clone's own.
    machine: Option<String>,
    live: bool,
    generation: u64,
    worktree: Option<PathBuf>,
    branch: Option<String>,
    first_seen: String,
    last_seen: String,
    idle_seconds: u64,
    ended: Option<String>,
    agent_gone: bool,
    files: Vec<FileView>,
    claims: Vec<ClaimView>,
    /// The session's sub-agents shown with it (same fields, each with `agent_id`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sub_agents: Vec<SessionView>,
}

/// The `--json` document.
#[derive(Debug, Serialize)]
struct StatusView {
    version: u32,
    ttl_seconds: u64,
    sessions: Vec<SessionView>,
    /// Sessions that died holding uncommitted files, each reported once.
    died_dirty: Vec<DeathView>,
    /// Locked linked worktrees of this clone, with who locked them.
    worktree_locks: Vec<LockView>,
}

/// The `--json` shape of a locked linked worktree.
#[derive(Debug, Serialize)]
struct LockView {
    worktree: PathBuf,
    /// The lock reason as written (git-dibs' own name the holder).
    reason: String,
    /// Whether git-dibs set it (and lifts it); a lock someone else set is left alone.
    by_git_dibs: bool,
}

/// The locked linked worktrees of the clone whose common dir is `common`.
fn worktree_locks(common: &Path) -> Vec<LockView> {
    git::list_worktrees(common)
        .into_iter()
        .filter(|e| !e.main)
        .filter_map(|e| {
            // Written by anyone: shown printable and bounded.
            let reason: String = e
                .locked?
                .trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect();
            Some(LockView {
                by_git_dibs: reason.starts_with(super::lane::LOCK_PREFIX),
                worktree: e.root,
                reason,
            })
        })
        .collect()
}

/// The `--json` shape of a session that died holding uncommitted files.
#[derive(Debug, Serialize)]
struct DeathView {
    id: String,
    host: &'static str,
    files: Vec<String>,
}

use crate::store::rfc3339;

mod who_holds;

pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let (wt, store, unreadable) = super::current_store_any()?;
    if let Some(why) = unreadable {
        eprintln!("note: {why} (until then, files show as unread)");
    }
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    if !args.paths.is_empty() {
        return who_holds::run(&store, &args.paths, args.json, now, ttl);
    }
    let everyone = store.everyone()?;
    let set_aside: Vec<store::SetAside> = store
        .set_aside()
        .into_iter()
        .filter(|a| a.kind == store::AsideKind::Session)
        .collect();
    let alive: Vec<bool> = everyone.iter().map(|s| s.is_alive(now, ttl)).collect();
    let dead_dirty = left_uncommitted(&everyone, &alive);
    let sessions: Vec<Session> = everyone
        .into_iter()
        .zip(&alive)
        .filter(|(_, live)| args.all || **live)
        .map(|(s, _)| s)
        .collect();
    let worktrees: BTreeSet<&Path> = sessions
        .iter()
        .filter(|s| s.origin.is_none())
        .flat_map(|s| s.files.iter().map(|f| f.key.worktree.as_path()))
        .collect();
    let dirty: BTreeMap<&Path, Option<BTreeSet<String>>> =
        worktrees.into_iter().map(|w| (w, dirty_in(w))).collect();
    // Labels, intents, ids and paths may be anyone's words: cleaned once, for text and JSON.
    let shown = |t: &str| text::clean(t, text::MAX_SHOWN);
    let view = |s: &Session| SessionView {
        id: shown(&s.id),
        short_id: s.short_id().to_owned(),
        agent_id: s.sub_agent.as_ref().map(|a| shown(&a.id)),
        agent_type: s
            .sub_agent
            .as_ref()
            .and_then(|a| a.kind.as_deref().map(shown)),
        host: s.host.name(),
        label: s.label.as_deref().and_then(text::note),
        machine: s.machine().map(str::to_owned),
        live: s.is_alive(now, ttl),
        agent_gone: s.agent.as_ref().is_some_and(|a| a.is_gone() == Some(true)),
        generation: s.generation,
        worktree: s.worktree.clone(),
        branch: s.branch.as_deref().map(shown),
        first_seen: rfc3339(s.first_seen),
        last_seen: rfc3339(s.last_seen),
        idle_seconds: now.saturating_sub(s.last_seen),
        ended: s.ended.map(rfc3339),
        files: s
            .files
            .iter()
            .map(|f| FileView {
                worktree: f.key.worktree.clone(),
                path: shown(&f.key.path),
                first_touch: rfc3339(f.first),
                last_touch: rfc3339(f.last),
                dirty: match &s.origin {
                    // Uncommitted on its own machine, as that machine last said.
                    Some(origin) => Some(origin.dirty.contains(&f.key.path)),
                    None if gone(&f.key.worktree) => None,
                    None => match dirty.get(f.key.worktree.as_path()) {
                        Some(Some(d)) => Some(d.contains(&f.key.path)),
                        Some(None) => None,
                        None => Some(false),
                    },
                },
                worktree_gone: s.origin.is_none() && gone(&f.key.worktree),
            })
            .collect(),
        claims: s
            .claims
            .iter()
            .filter(|c| c.until > now)
            .map(|c| ClaimView {
                target: shown(&c.target.to_string()),
                intent: c.intent.as_deref().and_then(text::note),
                exclusive: c.exclusive,
                since: rfc3339(c.since),
                until: rfc3339(c.until),
                token: c.token.clone(),
                lease_too_long: c.until.saturating_sub(now) > store::MAX_LEASE.as_secs() + 60,
            })
            .collect(),
        sub_agents: Vec::new(),
    };
    // Sub-agents are shown under their session; one whose session is not shown stands alone.
    let mut views: Vec<SessionView> = Vec::new();
    for s in sessions.iter().filter(|s| s.sub_agent.is_none()) {
        let mut v = view(s);
        v.sub_agents = sessions
            .iter()
            .filter(|sub| sub.sub_agent.is_some() && sub.id == s.id && sub.origin.is_none())
            .map(view)
            .collect();
        views.push(v);
    }
    for sub in sessions.iter().filter(|s| s.sub_agent.is_some()) {
        if !views
            .iter()
            .any(|v| v.id == sub.id && v.agent_id.is_none() && v.machine.is_none())
        {
            views.push(view(sub));
        }
    }
    let locks = worktree_locks(&wt.common_dir);
    if args.json {
        let doc = StatusView {
            worktree_locks: locks,
            version: 1,
            ttl_seconds: ttl.as_secs(),
            sessions: views,
            died_dirty: dead_dirty
                .iter()
                .map(|(s, files)| DeathView {
                    id: s.id.clone(),
                    host: s.host.name(),
                    files: files.clone(),
                })
                .collect(),
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitCode::SUCCESS);
    }
    for aside in &set_aside {
        println!("{}", set_aside_line(aside));
    }
    for (s, files) in &dead_dirty {
        println!("{}", left_uncommitted_line(s, files));
    }
    for l in &locks {
        let reason = &l.reason;
        if l.by_git_dibs {
            println!("worktree {} is locked ({reason})", l.worktree.display());
        } else {
            println!(
                "worktree {} is locked by someone else, left alone by git-dibs: \"{reason}\"",
                l.worktree.display()
            );
        }
    }
    let gone: BTreeSet<&Path> = views
        .iter()
        .flat_map(|v| {
            v.files
                .iter()
                .chain(v.sub_agents.iter().flat_map(|s| &s.files))
        })
        .filter(|f| f.worktree_gone)
        .map(|f| f.worktree.as_path())
        .collect();
    for w in gone {
        let w = text::clean(&w.display().to_string(), text::MAX_SHOWN);
        let arg = crate::shell::quote_word(&w);
        println!(
            "worktree {w} is gone; what sessions left uncommitted there is in their snapshots: \
             git dibs recover --worktree {arg}"
        );
    }
    if views.is_empty() {
        println!("No live sessions in this repository.");
        return Ok(ExitCode::SUCCESS);
    }
    for v in &views {
        print_view(v, now, "");
        for sub in &v.sub_agents {
            print_view(sub, now, "  ");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The text form of one session (or, indented under it, one of its sub-agents).
fn print_view(view: &SessionView, now: u64, indent: &str) {
    let label = view
        .label
        .as_deref()
        .filter(|_| view.agent_id.is_none())
        .map(|l| format!(" \"{l}\""))
        .unwrap_or_default();
    let state = if view.live { "" } else { " (not live)" };
    let machine = view
        .machine
        .as_deref()
        .map(|m| format!(" on {m}"))
        .unwrap_or_default();
    match &view.agent_id {
        Some(agent) => {
            let kind = view
                .agent_type
                .as_deref()
                .map(|k| format!("{k} "))
                .unwrap_or_default();
            println!(
                "{indent}sub-agent {kind}{}{state} of {} {}",
                store::short_id(agent),
                view.host,
                view.short_id
            );
        }
        // A person's id already says so: `person-sam-pts3`, not `person person-sam-pts3`.
        None if view.short_id.starts_with("person-") => {
            println!("{}{machine}{}{}", view.short_id, label, state);
        }
        None => println!("{} {}{machine}{}{}", view.host, view.short_id, label, state),
    }
    let place = match (&view.machine, &view.worktree) {
        (Some(m), _) => format!("machine {m}"),
        (None, Some(w)) => format!("worktree {}", w.display()),
        (None, None) => "worktree ?".to_owned(),
    };
    println!(
        "{indent}  {place}  branch {}  idle {}",
        view.branch.as_deref().unwrap_or("(detached)"),
        ago(now, now.saturating_sub(view.idle_seconds)),
    );
    let mut shown = BTreeSet::new();
    for f in &view.files {
        let mark = match f.dirty {
            _ if f.worktree_gone => "gone",
            Some(true) => "dirty",
            Some(false) => "clean",
            None => "unread",
        };
        if view.machine.is_some() {
            // The same file may stand for several local worktrees on its branch: once.
            if shown.insert(&f.path) {
                println!("{indent}  {mark:5}  {}", f.path);
            }
            continue;
        }
        let place = if Some(&f.worktree) == view.worktree.as_ref() {
            f.path.clone()
        } else {
            format!("{}/{}", f.worktree.display(), f.path)
        };
        println!("{indent}  {mark:5}  {place}");
    }
    for c in &view.claims {
        let kind = if c.exclusive {
            "exclusive claim"
        } else {
            "claim"
        };
        let intent = c
            .intent
            .as_deref()
            .map(|i| format!(" ({i})"))
            .unwrap_or_default();
        let damaged = if c.lease_too_long {
            " (a lease longer than a year, which git-dibs never grants: a damaged record or an \
             older version made it; `git dibs release` ends it)"
        } else {
            ""
        };
        println!(
            "{indent}  {kind} {}{intent} until {}{damaged}",
            c.target, c.until
        );
    }
}

/// Sessions of this clone that ended or died (agent process gone, or lease lapsed) while
/// holding files that are still uncommitted, with those files: listed every time until the
/// files are committed or restored, or the session's hold on them is released.
pub(crate) fn left_uncommitted(
    everyone: &[Session],
    alive: &[bool],
) -> Vec<(Session, Vec<String>)> {
    let mut out = Vec::new();
    let mut dirty_cache: BTreeMap<PathBuf, Option<BTreeSet<String>>> = BTreeMap::new();
    for (s, live) in everyone.iter().zip(alive) {
        if *live || s.origin.is_some() || s.files.is_empty() {
            continue;
        }
        let files: Vec<String> = s
            .files
            .iter()
            .filter(|f| {
                // A worktree git cannot read: every file counts, none is said to be safe.
                dirty_cache
                    .entry(f.key.worktree.clone())
                    .or_insert_with(|| dirty_in(&f.key.worktree))
                    .as_ref()
                    .is_none_or(|d| d.contains(&f.key.path))
            })
            .map(|f| f.key.path.clone())
            .collect();
        if !files.is_empty() {
            out.push((s.clone(), files));
        }
    }
    out
}

/// What to do about files a session left uncommitted, for `status` and `doctor`.
pub(crate) fn left_uncommitted_line(s: &Session, files: &[String]) -> String {
    let how = if s.ended.is_some() { "ended" } else { "died" };
    format!(
        "{} {how} with uncommitted files: {}. They are its unfinished work: commit them, or \
         restore them if unwanted; then `git dibs release --all --session {} --force`",
        crate::policy::claims::describe(s),
        files.join(", "),
        s.short_id()
    )
}

/// A session record the store could not read and set aside, for `status` and `doctor`.
pub(crate) fn set_aside_line(a: &store::SetAside) -> String {
    format!(
        "the record of session {} could not be read and was set aside at {} as {}; its files \
         stay protected for one lease from then. Look at it, then delete it.",
        a.session.as_deref().unwrap_or("?"),
        rfc3339(a.at),
        a.path.display()
    )
}

/// Whether the worktree at `root` is gone: no folder, or no `.git` in it.
fn gone(root: &Path) -> bool {
    std::fs::symlink_metadata(root.join(".git")).is_err()
}

/// The dirty paths of the worktree at `root`; `None` when git cannot read it (a worktree that
/// is gone has none).
pub(super) fn dirty_in(root: &Path) -> Option<BTreeSet<String>> {
    match git::dirty_paths(root) {
        Ok(d) => Some(d),
        Err(_) if !root.exists() => Some(BTreeSet::new()),
        Err(_) => None,
    }
}

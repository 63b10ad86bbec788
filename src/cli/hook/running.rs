//! Shell commands in flight: what a foreground command (`python3 gen.py && pytest`) has written
//! while it still runs is seen by no hook until its PostToolUse, so a peer's `git clean` in
//! between would destroy it for good. Before a command that may write, its session is marked as
//! running one (the worktrees it runs in, when it began); the mark goes when the host reports
//! the command ended. Before any other session's command that may destroy, every such mark has
//! what changed in its worktrees since it began put into its session's snapshot. Protection
//! rests on state: nothing reads what the running command is. Likewise a scan after a command
//! that stopped at its budget (thousands of files made) is left as a mark that the next command
//! of any session that may destroy finishes first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::changed::{Scan, scan_worktree};
use super::resume::Cursor;
use crate::cli::guard::Judgement;
use crate::git::{self, Worktree};
use crate::policy::guard::unfinished::Unfinished;
use crate::policy::readers;
use crate::protocol::{Event, Response};
use crate::shell::SimpleCommand;
use crate::store::{self, Marks, Running, Store, mark_key};

/// Clock granularity and the hook's own start, as slack on a command's start (seconds).
const SLACK_SECS: u64 = 2;
use super::pending::{self, ROUNDS};

/// Within this long of the session's earlier mark, a new one is taken as running beside it
/// (a host running two commands at once), and both are covered from the earlier start.
const ALONGSIDE: Duration = Duration::from_secs(10 * 60);

/// Whether the command `judged` will run and may write: not refused, and not a line that can
/// only read.
pub(crate) fn may_write(judged: &Judgement) -> bool {
    !matches!(judged.response, Response::Deny { .. })
        && !judged.cmds.as_deref().is_some_and(readers::only_reads)
}

/// Before a shell command that may write (`cmds`, as parsed) starts: mark its session as
/// running it, in the worktrees of the event's directory (`here`) and of the commands' own. Costs one
/// small file written. In a clone without a store yet (this command's hook is the first
/// git-dibs hook there) the store is made first, once: the mark is what tells a peer's
/// command to scan what this one writes meanwhile, and what lends its start to the scan after
/// it on a host that gives no run time (Codex, Gemini CLI), so a command running over ten
/// minutes still has its early output kept.
pub(crate) fn mark(event: &Event, here: Option<&Worktree>, cmds: &[SimpleCommand]) {
    let Some(here) = here else {
        return;
    };
    let Some(store) =
        Store::existing(&here.common_dir).or_else(|| Store::open(&here.common_dir).ok())
    else {
        return;
    };
    let mut roots = vec![here.root.clone()];
    let mut dirs: Vec<&Path> = vec![event.cwd.as_path()];
    for c in cmds.iter().filter(|c| c.cwd_known) {
        if dirs.contains(&c.cwd.as_path()) {
            continue;
        }
        dirs.push(&c.cwd);
        if let Some(l) = git::locate(&c.cwd, Path::new("."))
            && l.worktree.common_dir == here.common_dir
            && !roots.contains(&l.worktree.root)
        {
            roots.push(l.worktree.root);
        }
    }
    let now = store::now_secs();
    store.mark_running(
        Marks::Running,
        Running {
            session: event.session_id.clone(),
            host: event.host.name().to_owned(),
            since: now.saturating_sub(SLACK_SECS),
            at: now,
            roots,
            agent: event.actor.as_ref().map(|a| a.id.clone()),
            call: event.call.clone(),
            scanned: None,
            resume: Vec::new(),
        },
        ALONGSIDE.as_secs(),
    );
}

/// After a shell command ended (its PostToolUse or PostToolUseFailure): its mark goes (the
/// call's own, when the host names calls: another command of the same actor still running
/// keeps its mark). One `unlink` when there is a store.
pub(crate) fn ended(event: &Event) {
    if let Some(store) = git::locate(&event.cwd, Path::new("."))
        .and_then(|l| Store::existing(&l.worktree.common_dir))
    {
        // A mark of a session's scan left unfinished stays: the next command of any session
        // that may destroy finishes it.
        store.end_running(Marks::Running, &own_key(event), event.call.as_deref());
    }
}

/// When the event's own shell command began, as its running mark says (nanoseconds since the
/// Unix epoch): a host that gives no run time (Codex, Gemini CLI) still has the scan after a
/// long command look back to its start. Read before [`ended`] removes the mark.
pub(crate) fn began(event: &Event) -> Option<i128> {
    let store = git::locate(&event.cwd, Path::new("."))
        .and_then(|l| Store::existing(&l.worktree.common_dir))?;
    let since = store.running_since(Marks::Running, &own_key(event), event.call.as_deref())?;
    Some(i128::from(since) * 1_000_000_000)
}

/// The key of the event's own marker: its session's, or its sub-agent's.
fn own_key(event: &Event) -> String {
    mark_key(
        &event.session_id,
        event.actor.as_ref().map(|a| a.id.as_str()),
    )
}

/// Scan `wt` for `scan` until nothing is left over the budget, [`ROUNDS`] times at most;
/// whether something still is.
fn scan_all(event: &Event, wt: &Worktree, scan: &Scan<'_>) -> bool {
    for _ in 0..ROUNDS {
        if scan_worktree(event, wt, scan) != Some(true) {
            return false;
        }
    }
    true
}

/// Before a shell command that may destroy: every other session's command still running in
/// the clone of `here` (the event's worktree) has what changed in its worktrees since it began
/// put into that session's snapshot, and every scan left unfinished (the event's own
/// session's too) is finished. So is each of the event's own actor's earlier calls whose end
/// never came (its PostToolUse killed by the host's hook timeout, a call the person
/// declined, or one still running beside this one), once: it is then recorded as scanned,
/// so a call that never gets its end costs one scan, not one before every later command of
/// the session. A mark older than its session's lease is dropped unscanned. What the scans
/// left unfinished still leave after their budgets (see `pending`). Costs two folder listings
/// when none is marked.
pub(crate) fn before_shell(event: &Event, here: Option<&Worktree>) -> Option<Unfinished> {
    let store = Store::existing(&here?.common_dir)?;
    let here = here?;
    let now = store::now_secs();
    let mut lease = super::facts::lease_of(here);
    let key = own_key(event);
    let (running, own) = store.running_around(
        Marks::Running,
        Some((&key, event.call.as_deref())),
        now,
        &mut lease,
    );
    let pending = store.running_except(Marks::Pending, None, now, &mut lease);
    if running.is_empty() && pending.is_empty() && own.is_empty() {
        return None;
    }
    // The actor's own earlier calls: kept, not claimed (no run time says what they wrote).
    for run in own {
        let scan = Scan {
            session: &run.session,
            host: &run.host,
            since: i128::from(run.since) * 1_000_000_000,
            claim_since: None,
        };
        if scan_roots(event, &run.roots, &scan).is_empty() {
            store.running_scanned(Marks::Running, &run, now);
        }
    }
    for run in running {
        let since = i128::from(run.since) * 1_000_000_000;
        let scan = Scan {
            session: &run.session,
            host: &run.host,
            since,
            claim_since: (run.key() == key).then_some(since),
        };
        scan_roots(event, &run.roots, &scan);
    }
    let mut left: Option<Unfinished> = None;
    for run in pending {
        let own = run.key() == key;
        if let Some(l) = pending::finish(event, &store, run, own) {
            left = Some(match left {
                Some(mut all) => {
                    all.files += l.files;
                    for r in l.roots {
                        if !all.roots.contains(&r) {
                            all.roots.push(r);
                        }
                    }
                    all
                }
                None => l,
            });
        }
    }
    left
}

/// Scan each worktree of `roots` for `scan`; the roots where something is still over the
/// budget.
fn scan_roots(event: &Event, roots: &[PathBuf], scan: &Scan<'_>) -> Vec<PathBuf> {
    let mut left = Vec::new();
    for root in roots {
        if let Some(wt) = git::worktree_at(root)
            && scan_all(event, &wt, scan)
        {
            left.push(wt.root);
        }
    }
    left
}

/// When the host says an actor's turn is over (a sub-agent's `SubagentStop`): each of its
/// calls still marked as running (a call whose end never came) has what changed since it
/// began (or since its last scan) taken one last time, and its mark goes, so no peer scans
/// for it afterwards. One folder listing when none is marked.
pub(crate) fn stopped(event: &Event) {
    let Some(common) = git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree.common_dir)
    else {
        return;
    };
    let Some(store) = Store::existing(&common) else {
        return;
    };
    let key = own_key(event);
    let runs = store.running_of(Marks::Running, &key);
    let Some(since) = runs.iter().map(|r| r.scanned.unwrap_or(r.since)).min() else {
        return;
    };
    let mut roots: Vec<PathBuf> = Vec::new();
    for r in runs.iter().flat_map(|r| &r.roots) {
        if !roots.contains(r) {
            roots.push(r.clone());
        }
    }
    let scan = Scan {
        session: &event.session_id,
        host: event.host.name(),
        since: i128::from(since) * 1_000_000_000,
        claim_since: None,
    };
    let left = scan_roots(event, &roots, &scan);
    if !left.is_empty() {
        // What one call's budgets could not finish, the next command that may destroy does.
        let old = store.pending_of(&event.session_id);
        let from = |r: PathBuf| (r, Some(Cursor::flat(scan.since)));
        let done = left.into_iter().map(from).collect();
        pending::scan_left(event, &common, scan.since, done, Vec::new(), old);
    }
    for run in &runs {
        store.end_running(Marks::Running, &key, run.call.as_deref());
    }
}

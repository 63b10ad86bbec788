//! Background jobs: a shell command that leaves a job running (Claude Code's
//! `run_in_background`, `cmd &`, `nohup`, `setsid`, a script that starts a dev server or a
//! watcher) may write files after its PostToolUse ran, when no hook looks. Such a job is found
//! by state where the system lists processes (Linux: the processes started while the command
//! ran that still run tied to a worktree of the clone: their directory, or, for one that left
//! with `cd`, the `PWD=` it was started with, its argv or its open files) and by the command line
//! or the host's flag everywhere, and marked in the store. While the mark lives, the session's
//! later calls scan whatever they run, and every session's shell command that may write is
//! preceded by a scan of the job's worktrees into the job's session's snapshot; it ends when
//! every process it names is gone (one last scan), or after ten minutes (the session's lease
//! where processes cannot be listed) when none was found.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::changed::{self, Scan, scan_worktree};
use crate::git::{self, Worktree};
use crate::platform;
use crate::policy::{background, readers};
use crate::protocol::Event;
use crate::shell::SimpleCommand;
use crate::store::{self, Background, Store};

/// How far back a command without a known run time may have started its job.
const RECENT: Duration = Duration::from_secs(10 * 60);
/// Clock granularity and the hook's own start, as slack.
const SLACK_SECS: u64 = 2;
/// How many processes are looked at, at most.
const MAX_PROCESSES: usize = 8192;

/// A job mark of the event's session, as its shell call's scan uses it.
pub(crate) struct OwnJob {
    store: Store,
    /// Changes since this (nanoseconds since the epoch) are the job's.
    pub(crate) since_ns: i128,
    ended: bool,
}

impl OwnJob {
    /// After the call's scan: a mark whose job ended goes.
    pub(crate) fn finish(self, session: &str) {
        if self.ended {
            self.store.end_background(session);
        }
    }
}

/// Whether `job` still runs: one of its processes does; with none known, until ten minutes
/// after it was marked (the lease `ttl` where processes cannot be listed).
fn running(job: &Background, now: u64, ttl: Duration) -> bool {
    if !job.pids.is_empty() {
        return job
            .pids
            .iter()
            .any(|&(pid, start)| platform::still_runs(pid, start));
    }
    let window = if cfg!(target_os = "linux") {
        RECENT
    } else {
        ttl
    };
    now.saturating_sub(job.at) < window.as_secs()
}

/// The session lease (`dibs.ttl`) in force at `wt`.
pub(super) fn ttl_of(wt: &Worktree) -> Duration {
    super::facts::settings_of(wt)
        .duration("dibs.ttl")
        .unwrap_or(store::DEFAULT_TTL)
}

/// After a shell command: mark a job it left running, and return the session's mark (new or
/// earlier) for the call's scan. No process is listed after a line that only reads, nor when
/// neither the host nor the line says background and the host did not say how long it ran.
pub(crate) fn after_shell(
    event: &Event,
    command: &str,
    flagged: bool,
    took: Option<Duration>,
    cmds: Option<&[SimpleCommand]>,
) -> Option<OwnJob> {
    let here = git::locate(&event.cwd, Path::new("."))?.worktree;
    let said = flagged || background::starts_job(command);
    let reads = cmds.is_some_and(readers::only_reads);
    let now = store::now_secs();
    if !reads && (said || took.is_some()) {
        mark(event, &here, said, took, cmds.unwrap_or_default(), now);
    }
    let store = Store::with_backgrounds(&here.common_dir)?;
    let job = store
        .backgrounds()
        .into_iter()
        .find(|b| b.session == event.session_id)?;
    let ended = !running(&job, now, ttl_of(&here));
    Some(OwnJob {
        store,
        since_ns: i128::from(job.since) * 1_000_000_000,
        ended,
    })
}

/// Look for what the command left running and mark it.
fn mark(
    event: &Event,
    here: &Worktree,
    said: bool,
    took: Option<Duration>,
    cmds: &[SimpleCommand],
    now: u64,
) {
    let ran = took.unwrap_or(RECENT).as_secs() + SLACK_SECS;
    let roots: Vec<PathBuf> = changed::worktrees(event, cmds)
        .into_iter()
        .filter(|w| w.common_dir == here.common_dir)
        .map(|w| w.root)
        .collect();
    let own = platform::proc_info(std::process::id()).map(|p| p.start);
    let found = own.map_or_else(Vec::new, |start| {
        let since = start.saturating_sub(ran * platform::START_UNITS_PER_SEC);
        platform::started_in(&roots, since, MAX_PROCESSES, said)
    });
    if found.is_empty() && !said {
        return;
    }
    let mut job_roots = vec![here.root.clone()];
    for &(_, _, i) in &found {
        if !job_roots.contains(&roots[i]) {
            job_roots.push(roots[i].clone());
        }
    }
    let Ok(store) = Store::open(&here.common_dir) else {
        return;
    };
    store.mark_background(Background {
        session: event.session_id.clone(),
        host: event.host.name().to_owned(),
        since: now.saturating_sub(ran),
        at: now,
        roots: job_roots,
        pids: found
            .into_iter()
            .map(|(pid, start, _)| (pid, start))
            .collect(),
    });
}

/// Before a shell command that may write (`cmds`; `None` when the line could not be read):
/// every job marked in the clone the event runs in has what it changed in its worktrees since
/// it began put into its session's snapshot (and the event's own session's become its own). A
/// mark whose job ended is scanned once more, then removed. `here` is the worktree of the
/// event's cwd. Costs one failed folder listing when no job is marked.
pub(crate) fn before_shell(event: &Event, here: Option<&Worktree>, cmds: Option<&[SimpleCommand]>) {
    if cmds.is_some_and(readers::only_reads) {
        return;
    }
    let Some(here) = here else {
        return;
    };
    let Some(store) = Store::with_backgrounds(&here.common_dir) else {
        return;
    };
    let jobs = store.backgrounds();
    if jobs.is_empty() {
        return;
    }
    let now = store::now_secs();
    let ttl = ttl_of(here);
    for job in jobs {
        let since = i128::from(job.since) * 1_000_000_000;
        let own = job.session == event.session_id;
        let scan = Scan {
            session: &job.session,
            host: &job.host,
            since,
            claim_since: own.then_some(since),
        };
        let ended = !running(&job, now, ttl);
        for root in &job.roots {
            if let Some(wt) = git::worktree_at(root) {
                scan_worktree(event, &wt, &scan);
            }
        }
        if ended {
            store.end_background(&job.session);
        }
    }
}

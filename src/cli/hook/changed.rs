//! After a shell command (or an MCP server's tool): the files it changed that no hook saw
//! written (an interpreter, a script, a build tool, a program run by any name) go into the
//! session's snapshot, so what
//! the next command destroys is still in the object store. Found by state, not by reading the
//! command: the dirty and untracked (not ignored) files of each worktree the command ran in
//! whose change time is recent (a line that can only read, `ls` or `git status`, is not
//! scanned). A file another live session watches goes into that session's snapshot, as the
//! sweep before the next shell command would put it. Recent files git
//! ignores are listed as left out (a few per call); ignore rules HEAD does not hold (`*.py` in
//! `.git/info/exclude`) hide nothing (see `git::shell_made`). Where the budget stops a scan, a
//! mark is left, with where the scan goes on, that the session's next calls and the next
//! command of any session that may destroy go on with (see `pending`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::facts::Ctx;
use super::resume::{Cursor, Outcome};
use super::snap::{Batch, MAX_SNAPSHOT_BYTES, Pending, Source, failed, snapshot};
use crate::git::{self, Worktree};
use crate::policy::readers;
use crate::protocol::Event;
use crate::shell::SimpleCommand;
use crate::store::{self, Change, FileKey, Stamp, Store};

/// How far back a change counts as made by the command that just ran, when the host does not
/// say how long it took (or it took less): the longest a host lets one shell command run by
/// default (Claude Code's 10 minutes). A host that says so widens it to the command's start.
const RECENT_SECS: i128 = 10 * 60;
/// How many changed files one call snapshots at most.
pub(super) const MAX_FILES: usize = 512;
/// How many bytes of changed files one call reads at most (a file over the snapshot size cap
/// is not read at all, only listed).
const MAX_BYTES: u64 = 64 << 20;
/// How much earlier than the host's run time a change still counts as the command's (clock
/// granularity, the hook's own start).
const SLACK_NS: i128 = 2_000_000_000;

/// How many of a command line's words are looked at for paths into other worktrees.
const MAX_WORDS: usize = 64;
/// How many worktrees one call scans at most.
const MAX_WORKTREES: usize = 8;
/// How deep below a directory that is no repository its repositories are looked for, and how
/// many folder entries that search reads at most.
const WORKSPACE_DEPTH: usize = 2;
const WORKSPACE_ENTRIES: usize = 512;
/// How many of the folders a line runs in have their links to repositories followed.
const MAX_LINK_FOLDERS: usize = 4;
/// How many ignored files one call lists as left out at most.
const MAX_IGNORED_LISTED: usize = 64;

/// The worktrees (by root) the command line ran in or named: the event's own directory (or,
/// when that is no repository, those just below it), every directory one of its commands is
/// known to run in, every worktree an argument names by a path that exists (`python3
/// gen.py ../wt-b`, `git -C wt-b ...`), and every repository a link in the worktree's top
/// folder or in a folder the line runs in leads to (`vendor -> ../lib`).
pub(super) fn worktrees(event: &Event, cmds: &[SimpleCommand]) -> Vec<Worktree> {
    let mut out: Vec<Worktree> = Vec::new();
    let add = |out: &mut Vec<Worktree>, dir: &Path, path: &Path| {
        if let Some(l) = git::locate(dir, path)
            && !out.iter().any(|w| w.root == l.worktree.root)
        {
            out.push(l.worktree);
        }
    };
    add(&mut out, &event.cwd, Path::new("."));
    let here = out.first().cloned();
    // A session started in a folder of repositories (a workspace) that is none itself: the
    // repositories just below it are in reach.
    if out.is_empty() {
        let (below, _) = git::worktree_roots_under(&event.cwd, WORKSPACE_DEPTH, WORKSPACE_ENTRIES);
        for root in below.iter().take(MAX_WORKTREES) {
            add(&mut out, root, Path::new("."));
        }
    }
    for c in cmds.iter().filter(|c| c.cwd_known) {
        add(&mut out, &c.cwd, Path::new("."));
    }
    let named = cmds
        .iter()
        .filter(|c| c.cwd_known)
        .flat_map(|c| c.argv.iter().skip(1).map(move |w| (c, w)))
        .filter(|(_, w)| !w.starts_with('-') && !w.is_empty())
        .take(MAX_WORDS);
    for (c, word) in named {
        let path = c.cwd.join(word);
        if path.is_dir() || (word.contains('/') && path.parent().is_some_and(Path::is_dir)) {
            add(&mut out, &c.cwd, Path::new(word));
        }
    }
    // Repositories linked into the folders the line runs in (`vendor -> ../lib`): a program
    // writes through the link by a path the line need not show.
    let mut dirs: Vec<&Path> = here.iter().map(|w| w.root.as_path()).collect();
    dirs.push(&event.cwd);
    dirs.extend(cmds.iter().filter(|c| c.cwd_known).map(|c| c.cwd.as_path()));
    dirs.dedup();
    for dir in dirs.into_iter().take(MAX_LINK_FOLDERS) {
        for target in git::linked_repositories(dir, WORKSPACE_ENTRIES) {
            if out.len() < MAX_WORKTREES {
                add(&mut out, &target, Path::new("."));
            }
        }
    }
    // The worktrees of other clones the session has work in: a program writes there by any
    // path (`make -C ../b`, a script's own `cd`), named or not.
    for wt in super::reach::reached(event, here.as_ref()) {
        if out.len() < MAX_WORKTREES && !out.iter().any(|w| w.root == wt.root) {
            out.push(wt);
        }
    }
    // A program can write anywhere in reach, and a script's own lines are not read: every
    // other worktree of the clones found, too (the ones named first). Past the cap, half the
    // room goes to the worktrees whose top folder changed last (a file made there) and the
    // rest to the others in turn, so every worktree of a crowded clone is looked at again
    // within a few calls.
    let clones: Vec<PathBuf> = out.iter().map(|w| w.common_dir.clone()).collect();
    for common in clones {
        let mut roots = git::worktree_roots(&common);
        roots.retain(|r| !out.iter().any(|w| &w.root == r));
        let room = MAX_WORKTREES.saturating_sub(out.len());
        if roots.len() > room {
            let changed = |r: &PathBuf| fs::symlink_metadata(r).map(|m| Stamp::of(&m).mtime).ok();
            roots.sort_by_key(|r| std::cmp::Reverse(changed(r)));
            let mut rest = roots.split_off(room / 2);
            if let Ok(store) = Store::open(&common)
                && !rest.is_empty()
            {
                let (turn, len) = (store.scan_turn(), rest.len());
                rest.sort();
                rest.rotate_left(turn % len);
                store.set_scan_turn((turn + room - room / 2) % len);
            }
            roots.extend(rest);
            roots.truncate(room);
        }
        for root in roots {
            add(&mut out, &root, Path::new("."));
        }
    }
    out
}

/// [`RECENT_SECS`]; debug builds (the tests' builds) take it from `DIBS_TEST_RECENT_SECS`
/// when set, since no file can be made older than ten minutes by its change time (only the
/// clock sets it); release builds never read it.
fn recent_secs() -> i128 {
    #[cfg(debug_assertions)]
    if let Some(secs) = std::env::var("DIBS_TEST_RECENT_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<i128>().ok())
    {
        return secs;
    }
    RECENT_SECS
}

/// Nanoseconds since the Unix epoch by the system clock (file times are on it).
pub(super) fn clock_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What one scan looks for: whose files, changed since when, and since when they become the
/// session's (claimed; only for the event's own session).
pub(super) struct Scan<'a> {
    /// The session the snapshot is for.
    pub(super) session: &'a str,
    /// Its host's name.
    pub(super) host: &'a str,
    /// Changes at or after this (nanoseconds since the epoch) are taken.
    pub(super) since: i128,
    /// Changes at or after this become the session's.
    pub(super) claim_since: Option<i128>,
}

/// Snapshot, for the event's session, what the shell command changed in the worktrees it ran
/// in (see the module's note). `cmds` is the parsed line (`None`: it could not be parsed); a
/// line that can only read is not scanned, unless the session has a background job running
/// (`job`: it began then, in nanoseconds) or an earlier scan stopped at its budget. When the
/// host said how long the command ran (`took`), the files changed within that time (and, with
/// a job, since it began) also become the session's, as files an edit tool writes do, so the
/// guard protects them from its peers. `began` is when the command's running mark says it
/// began: a command longer than ten minutes on a host that gives no run time is still scanned
/// back to its start (kept, not claimed). Best effort, never fails the hook.
pub(crate) fn after_shell(
    event: &Event,
    cmds: Option<&[SimpleCommand]>,
    took: Option<Duration>,
    job: Option<i128>,
    began: Option<i128>,
) {
    // After a line that only reads there is nothing new, unless an earlier scan of this
    // session's clone stopped at its budget.
    let reads = job.is_none() && cmds.is_some_and(readers::only_reads);
    if reads
        && !git::locate(&event.cwd, Path::new("."))
            .and_then(|l| Store::with_snapshots(&l.worktree.common_dir))
            .is_some_and(|s| s.scan_pending(&event.session_id))
    {
        return;
    }
    let cmds = cmds.unwrap_or_default();
    let clock = clock_ns();
    let recent = clock - recent_secs() * 1_000_000_000;
    let ran_since = took.map(|t| clock - t.as_nanos() as i128 - SLACK_NS);
    // What changed in the last ten minutes, or since the command (or the job) started when it
    // ran longer.
    let since = recent
        .min(ran_since.unwrap_or(i128::MAX))
        .min(job.unwrap_or(i128::MAX))
        .min(began.unwrap_or(i128::MAX));
    let scan = Scan {
        session: &event.session_id,
        host: event.host.name(),
        since,
        claim_since: match (ran_since, job) {
            (Some(r), Some(j)) => Some(r.min(j)),
            (r, j) => r.or(j),
        },
    };
    // Per clone scanned: each worktree looked at, with where a scan goes on when the budget
    // stopped this one. A scan of the session left unfinished goes on from where it stopped.
    let mut done: BTreeMap<PathBuf, Vec<(PathBuf, Option<Cursor>)>> = BTreeMap::new();
    let mut pending: BTreeMap<PathBuf, Option<store::Running>> = BTreeMap::new();
    let wts = worktrees(event, cmds);
    for wt in &wts {
        let old = pending.entry(wt.common_dir.clone()).or_insert_with(|| {
            Store::existing(&wt.common_dir).and_then(|s| s.pending_of(&event.session_id))
        });
        // After a line that only reads, nothing new needs taking: the scan only goes on.
        let from = match super::pending::cursor_of(old.as_ref(), &wt.root) {
            Some(c) if reads => c,
            Some(c) => c.widened(since),
            None => Cursor::flat(since),
        };
        let outcome = scan_from(event, wt, &scan, &from);
        done.entry(wt.common_dir.clone())
            .or_default()
            .push((wt.root.clone(), outcome.filter(|o| o.over).map(|o| o.next)));
    }
    // The worktrees past the cap were not looked at: pending, like a scan its budget stopped,
    // so the next command that may destroy in that clone scans them first.
    for (common, done) in done {
        let unlooked: Vec<PathBuf> = git::worktree_roots(&common)
            .into_iter()
            .filter(|r| !wts.iter().any(|w| &w.root == r))
            .collect();
        let old = pending.remove(&common).flatten();
        super::pending::scan_left(event, &common, since, done, unlooked, old);
    }
}

/// Snapshot for `scan.session` the dirty and untracked files of `wt` changed since
/// `scan.since` that no other session watches (within the budget); those changed since
/// `scan.claim_since` are touched by the event's session, when it is the scan's. `None` when
/// nothing was looked at; else whether the budget stopped it.
/// The nested repositories inside it (submodules, clones, `git init`s; see
/// `git::nested::inside`) are scanned the same way, their files snapshotted into their own
/// repository and the enclosing one's, a few levels deep.
pub(super) fn scan_worktree(event: &Event, wt: &Worktree, scan: &Scan<'_>) -> Option<bool> {
    scan_at(event, wt, scan, 0)
}

/// [`scan_worktree`] going on from `from` (see `resume`): what it did, and where the next
/// scan goes on.
pub(super) fn scan_from(
    event: &Event,
    wt: &Worktree,
    scan: &Scan<'_>,
    from: &Cursor,
) -> Option<Outcome> {
    scan_depth(event, wt, scan, from, 0)
}

/// [`scan_worktree`] of a worktree `depth` nested repositories down.
pub(super) fn scan_at(event: &Event, wt: &Worktree, scan: &Scan<'_>, depth: usize) -> Option<bool> {
    scan_depth(event, wt, scan, &Cursor::flat(scan.since), depth).map(|o| o.over)
}

fn scan_depth(
    event: &Event,
    wt: &Worktree,
    scan: &Scan<'_>,
    from: &Cursor,
    depth: usize,
) -> Option<Outcome> {
    let began = clock_ns() - SLACK_NS;
    let made = git::shell_made(&wt.root, scan.since.min(from.since)).ok()?;
    let inner = super::nested::scan_inside(event, wt, scan, &made, depth);
    let own = scan_made(event, wt, scan, made, from, began);
    match (own, inner) {
        (None, None) => None,
        (own, inner) => {
            let mut out = own.unwrap_or(Outcome {
                over: false,
                next: from.clone(),
                left: 0,
            });
            if inner == Some(true) && !out.over {
                // What stopped is inside: this worktree's own files are looked at again.
                out.over = true;
                out.next = from.clone();
            }
            Some(out)
        }
    }
}

/// The rest of [`scan_worktree`], on what `shell_made` found in `wt`, going on from `from`;
/// `began` is when the scan began.
fn scan_made(
    event: &Event,
    wt: &Worktree,
    scan: &Scan<'_>,
    made: git::ShellMade,
    from: &Cursor,
    began: i128,
) -> Option<Outcome> {
    let git::ShellMade { dirty, ignored, .. } = made;
    if dirty.is_empty() && ignored.is_empty() {
        return None;
    }
    let store = Store::open(&wt.common_dir).ok()?;
    let now = store::now_secs();
    let batch = |files, source| Batch {
        session: scan.session,
        host: scan.host,
        now,
        files,
        source,
    };
    let ttl = super::facts::settings_of(wt)
        .duration("dibs.ttl")
        .unwrap_or(store::DEFAULT_TTL);
    let others: Vec<_> = store
        .snapshot_states_since(now.saturating_sub(ttl.as_secs()))
        .into_iter()
        .filter(|s| s.session != scan.session)
        .collect();
    let own = store.snapshot_state(scan.session);
    let claims = scan.session == event.session_id;
    let mut mine = Vec::new();
    let mut files = Vec::new();
    let mut peers: Vec<(usize, String)> = Vec::new();
    let mut bytes = 0u64;
    // Once the budget stops taking: on which side of the cursor.
    let mut stop: Option<bool> = None;
    let (mut last_first, mut last_second) = (None, None);
    let mut left = 0;
    // Folders moved in whole since when a change counts, on either side of the cursor.
    let mut fresh = [
        git::FreshFolders::new(&wt.root, from.since),
        git::FreshFolders::new(&wt.root, from.again),
    ];
    let (dirty, first_side) = from.order(dirty.into_iter().collect());
    for (i, path) in dirty.into_iter().enumerate() {
        let first = i < first_side;
        let Ok(meta) = fs::symlink_metadata(wt.root.join(crate::pathtext::to_path(&path))) else {
            continue;
        };
        let stamp = Stamp::of(&meta);
        // A file with old times in a folder moved in whole is the command's too (not
        // claimed: its own times do not say when it was written).
        let changed = stamp.ctime.max(stamp.mtime);
        if changed < from.threshold(first) && !fresh[usize::from(!first)].holds(&path) {
            continue;
        }
        // A file another session watches goes into that session's snapshot now, as the sweep
        // before the next shell command would put it: a revert by an actor no hook sees (a
        // person's editor, a hook-less agent) may come first.
        if let Some(peer) = others
            .iter()
            .position(|s| s.watched(&wt.root, &path).is_some())
        {
            let theirs = others[peer].watched(&wt.root, &path);
            if theirs.is_some_and(|w| w.stamp != stamp) && files.len() + peers.len() < MAX_FILES {
                peers.push((peer, path));
            }
            continue;
        }
        if claims && scan.claim_since.is_some_and(|t| changed >= t) {
            mine.push(FileKey::new(wt.root.clone(), path.clone()));
        }
        let kept = own
            .as_ref()
            .and_then(|s| s.watched(&wt.root, &path))
            .is_some_and(|w| w.stamp == stamp);
        // Within the budget; what is over it is taken by a later call (or left, listed).
        let cost = if meta.len() > MAX_SNAPSHOT_BYTES {
            0
        } else {
            meta.len()
        };
        if kept {
            continue;
        }
        if stop.is_none() && (files.len() == MAX_FILES || bytes + cost > MAX_BYTES) {
            stop = Some(first);
        }
        if stop.is_some() {
            left += 1;
            continue;
        }
        bytes += cost;
        if first {
            last_first = Some(path.clone());
        } else {
            last_second = Some(path.clone());
        }
        files.push(Pending {
            worktree: wt.root.clone(),
            path,
        });
    }
    // Ignored files it changed are listed as left out (never read), a few per call.
    let unseen = |path: &String| {
        let stamp = fs::symlink_metadata(wt.root.join(crate::pathtext::to_path(path)))
            .map(|m| Stamp::of(&m))
            .ok();
        !others.iter().any(|s| s.watched(&wt.root, path).is_some())
            && own
                .as_ref()
                .and_then(|s| s.watched(&wt.root, path))
                .is_none_or(|w| Some(w.stamp) != stamp)
    };
    let left_out: Vec<Pending> = ignored
        .into_iter()
        .filter(unseen)
        .take(MAX_IGNORED_LISTED)
        .map(|path| Pending {
            worktree: wt.root.clone(),
            path,
        })
        .collect();
    if !left_out.is_empty()
        && let Err(e) = snapshot(
            &store,
            &wt.common_dir,
            batch(&left_out, Source::ShellIgnored),
        )
    {
        failed(Some(&store), now, &e);
    }
    for (i, state) in others.iter().enumerate() {
        let theirs: Vec<Pending> = peers
            .iter()
            .filter(|(p, _)| *p == i)
            .map(|(_, path)| Pending {
                worktree: wt.root.clone(),
                path: path.clone(),
            })
            .collect();
        if theirs.is_empty() {
            continue;
        }
        let host = super::snap::host_or_person(&state.host);
        let their_batch = Batch {
            session: &state.session,
            host,
            now,
            files: &theirs,
            source: Source::Sweep,
        };
        if let Err(e) = snapshot(&store, &wt.common_dir, their_batch) {
            failed(Some(&store), now, &e);
        }
    }
    let mut outcome = Outcome {
        over: stop.is_some(),
        next: match stop {
            Some(in_first) => from.next(
                in_first,
                last_first.as_deref(),
                last_second.as_deref(),
                began,
            ),
            None => from.clone(),
        },
        left,
    };
    if files.is_empty() {
        return Some(outcome);
    }
    if !mine.is_empty() {
        let ctx = Ctx::new(event);
        if let Err(e) = ctx.record(&store, wt, false, &[ctx.activity(), Change::Touch(mine)]) {
            eprintln!("git-dibs: could not record what the command changed ({e})");
        }
    }
    if claims {
        super::reach::note(event, wt);
    }
    if let Err(e) = snapshot(&store, &wt.common_dir, batch(&files, Source::ShellScan)) {
        failed(Some(&store), now, &e);
        // Nothing was kept: a scan that goes on takes the same files again.
        if outcome.over {
            outcome.next = from.clone();
            outcome.left += files.len();
        }
    }
    Some(outcome)
}

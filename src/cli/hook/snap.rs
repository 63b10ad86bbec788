//! Snapshots from hook calls: after an edit tool or a shell command wrote files, their content
//! goes into the object store on the session's snapshot ref; before a shell command runs, the
//! files live sessions snapshotted and that changed since (by `stat` alone) go in too; after a
//! shell command, new commits get a retention ref. None of it ever fails or blocks the hook: a
//! failure is one line on stderr and a note in the store for `doctor`.
//!
//! What is left out, and said so in `recover`'s listing: files over [`MAX_SNAPSHOT_BYTES`],
//! FIFOs, sockets and devices (never opened), and files git ignores that only a shell command
//! wrote (an edit tool's file is kept even when ignored: the agent meant to write it), unless
//! only rules HEAD does not hold hide it (`*.py` in `.git/info/exclude`: then it is kept like
//! any other).
//! Binary files are kept; a symlink is kept as a link.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) use super::take::IGNORED;
use super::take::{Taken, git_mode, take, take_ignored};
use crate::git::lanes::LaneRepo;
use crate::git::snapshot::{self, NewSnapshot, Origin, Put, Skipped, WorktreeMeta};
use crate::git::{self, Located, Worktree};
use crate::protocol::{Event, Host};
use crate::shell::SimpleCommand;
use crate::store::{self, SnapState, Store, Watched};

mod sweep;
pub(crate) use sweep::sweep;

/// Files larger than this are left out of snapshots.
pub(crate) const MAX_SNAPSHOT_BYTES: u64 = 8 << 20;
/// How many changed files one sweep before a shell command reads at most.
const SWEEP_LIMIT: usize = 512;
/// How long a session's snapshot log may go without a line when its files are read again and
/// found unchanged (seconds): a minute, well under the shortest lease (ten minutes) that a
/// sweep measures the log's age against.
const LOG_REFRESH: u64 = 60;

/// A file to snapshot for one session.
pub(super) struct Pending {
    /// Its worktree root.
    pub(super) worktree: PathBuf,
    /// Relative to the root.
    pub(super) path: String,
}

/// Who or what the files of a snapshot were found written by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// The session's edit tool.
    Edit,
    /// The session's shell command, by the words of its line (files git ignores are left out).
    ShellLine,
    /// The session's shell command or background job, found by a scan of dirty files.
    ShellScan,
    /// Files git ignores that the scan found changed: listed as left out, never read.
    ShellIgnored,
    /// Stat data alone, before a tool call (anyone may have made the change).
    Sweep,
}

impl Source {
    fn origin(self) -> Origin {
        match self {
            Source::Edit => Origin::Edit,
            Source::ShellLine | Source::ShellScan | Source::ShellIgnored => Origin::Shell,
            Source::Sweep => Origin::Sweep,
        }
    }
}

/// One batch of files to snapshot for one session: whose, when, which, and how they were
/// found written.
#[derive(Clone, Copy)]
pub(super) struct Batch<'a> {
    /// The session whose snapshot ref gets them.
    pub(super) session: &'a str,
    /// Its host's name.
    pub(super) host: &'a str,
    /// The time of the snapshot (seconds since the epoch).
    pub(super) now: u64,
    /// The files.
    pub(super) files: &'a [Pending],
    /// Who or what wrote them.
    pub(super) source: Source,
}

/// Snapshot `batch` in the clone whose common dir is `common_dir` (see [`snapshot_into`]),
/// and the files of a nested repository also in the repository around it (see
/// [`super::nested::mirror`]). Returns the new commit in `common_dir`, if one was made.
pub(super) fn snapshot(
    store: &Store,
    common_dir: &Path,
    batch: Batch<'_>,
) -> Result<Option<String>, String> {
    let made = snapshot_into(store, common_dir, batch);
    super::nested::mirror(common_dir, batch);
    made
}

/// Snapshot `batch` for its session (whose state the store keeps): each file whose stat data
/// differs from what the state remembers is read and put in one new snapshot, described as
/// found by the batch's source (a shell command's named files that git ignores are left out).
/// Returns the new commit, if one was made.
pub(super) fn snapshot_into(
    store: &Store,
    common_dir: &Path,
    batch: Batch<'_>,
) -> Result<Option<String>, String> {
    match take_and_write(store, common_dir, batch, false) {
        // A chain whose newest objects are gone (pruned while they were written) refuses
        // every later snapshot: made whole again, this one is tried once more.
        Err(e) if super::chain::repaired(store, common_dir, batch.session, batch.now) => {
            take_and_write(store, common_dir, batch, true)
                .map_err(|again| format!("{e}; after repairing the chain: {again}"))
        }
        done => done,
    }
}

/// [`snapshot_into`] with every file the session's state watches read again, whatever its
/// stat data says (its chain was just repaired).
pub(super) fn snapshot_again(
    store: &Store,
    common_dir: &Path,
    batch: Batch<'_>,
) -> Result<Option<String>, String> {
    take_and_write(store, common_dir, batch, true)
}

/// [`snapshot_into`] once: with `again_all`, every file the session's state watches is read
/// again, whatever its stat data says.
fn take_and_write(
    store: &Store,
    common_dir: &Path,
    batch: Batch<'_>,
    again_all: bool,
) -> Result<Option<String>, String> {
    let Batch {
        session,
        host,
        now,
        files,
        source,
    } = batch;
    let skip_ignored = source == Source::ShellLine;
    let mut state = store.snapshot_state(session).unwrap_or_else(|| SnapState {
        session: session.to_owned(),
        host: host.to_owned(),
        ..SnapState::default()
    });
    let key = Store::snapshot_key(session);
    // A chain whose ref and commits are gone holds nothing: every file the state watches is
    // taken again, whatever its stat data says.
    let lost = again_all || super::chain::lost(store, common_dir, &key, &state, now);
    let again: Vec<Pending> = if lost {
        state
            .files
            .iter()
            .filter(|w| w.skipped.is_none())
            .filter(|w| {
                !files
                    .iter()
                    .any(|f| f.worktree == w.worktree && f.path == w.path)
            })
            .map(|w| Pending {
                worktree: w.worktree.clone(),
                path: w.path.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut puts = Vec::new();
    let mut skipped = Vec::new();
    let mut watched = Vec::new();
    let mut touched = Vec::new();
    let mut repos: BTreeMap<PathBuf, Option<LaneRepo>> = BTreeMap::new();
    for f in files.iter().chain(&again) {
        let full = f.worktree.join(crate::pathtext::to_path(&f.path));
        let taken = if source == Source::ShellIgnored {
            take_ignored(&full)
        } else {
            take(&full)
        };
        let Some((taken, stamp)) = taken else {
            continue;
        };
        let before = state.watched(&f.worktree, &f.path).filter(|_| !lost);
        // An edit tool's file is read whatever its stat data says: its pre-tool hook took the
        // stat data of the file it was about to change, and a write of the same size within
        // the same clock tick would leave them equal.
        if source != Source::Edit && before.is_some_and(|w| w.stamp == stamp) {
            continue;
        }
        let taken = match taken {
            Taken::Put(_) if skip_ignored && before.is_none() => {
                let repo = repos
                    .entry(f.worktree.clone())
                    .or_insert_with(|| LaneRepo::open(&f.worktree).ok());
                // Only the committed rules say a file is nobody's work (`*.py` appended to
                // `.git/info/exclude` hides nothing here).
                if repo
                    .as_ref()
                    .is_some_and(|r| r.hidden_by_committed_rules(&f.path))
                {
                    Taken::Skip(IGNORED.into())
                } else {
                    taken
                }
            }
            t => t,
        };
        let (reason, blob) = match taken {
            Taken::Put(content) => {
                // Without libgit2: starting its runtime for one blob id cost every edit's
                // post-tool hook a good part of its CPU time.
                let blob = Some(git::sha1::blob_id(content.bytes()));
                // The same bytes under another mode (`chmod +x`) are a change: git keeps the
                // executable bit, and so does recover.
                if blob.is_some()
                    && before.is_some_and(|w| {
                        w.blob == blob && git_mode(w.stamp.mode) == git_mode(stamp.mode)
                    })
                {
                    // Touched, not changed: remember the new stat data, make no snapshot.
                    touched.push(Watched {
                        worktree: f.worktree.clone(),
                        path: f.path.clone(),
                        stamp,
                        skipped: None,
                        blob,
                    });
                    continue;
                }
                puts.push(Put {
                    worktree: f.worktree.clone(),
                    path: f.path.clone(),
                    content,
                });
                (None, blob)
            }
            Taken::Skip(reason) => {
                skipped.push(Skipped {
                    worktree: f.worktree.clone(),
                    path: f.path.clone(),
                    reason: reason.clone(),
                });
                (Some(reason), None)
            }
        };
        watched.push(Watched {
            worktree: f.worktree.clone(),
            path: f.path.clone(),
            stamp,
            skipped: reason,
            blob,
        });
    }
    if !touched.is_empty() && puts.is_empty() && skipped.is_empty() {
        // Read again and found as the state has it (stat data, bytes and mode): nothing new
        // to record. The log is left alone while it is fresh (every edit's post-tool hook
        // reads its file: an append each time made every later read of the log longer, and
        // same-session hooks queued for its lock); once older than [`LOG_REFRESH`] it gets the
        // line anyway, since its age is what tells a sweep that the session still works.
        let same = touched.iter().all(|t| {
            state
                .watched(&t.worktree, &t.path)
                .is_some_and(|w| w.stamp == t.stamp && w.skipped.is_none())
        });
        if same && store.snapshot_log_written_since(session, now.saturating_sub(LOG_REFRESH)) {
            return Ok(None);
        }
        return store
            .add_snapshot_state(&mut state, None, now, touched)
            .map_err(|e| e.to_string())
            .map(|()| None);
    }
    watched.extend(touched);
    if puts.is_empty() && skipped.is_empty() {
        return Ok(None);
    }
    let mut roots: Vec<&PathBuf> = puts
        .iter()
        .map(|p| &p.worktree)
        .chain(skipped.iter().map(|s| &s.worktree))
        .collect();
    roots.sort();
    roots.dedup();
    let worktrees: Vec<WorktreeMeta> = roots
        .into_iter()
        .map(|root| {
            let wt = git::worktree_at(root);
            WorktreeMeta {
                root: root.clone(),
                branch: wt.as_ref().and_then(Worktree::branch),
                head: wt.as_ref().and_then(git::head_commit),
                identity: wt
                    .as_ref()
                    .and_then(|w| git::identity::of(w, common_dir, true)),
            }
        })
        .collect();
    let new = NewSnapshot {
        session,
        host,
        at: now,
        puts: &puts,
        skipped: &skipped,
        worktrees: &worktrees,
        origin: source.origin(),
    };
    let commit = snapshot::write(common_dir, &key, &new).map_err(|e| e.to_string())?;
    if state.host.is_empty() {
        state.host = host.to_owned();
    }
    store
        .add_snapshot_state(&mut state, Some(&commit), now, watched)
        .map_err(|e| e.to_string())?;
    Ok(Some(commit))
}

/// The host a snapshot state names, or a person's when it names none (a state the sweep
/// began: anyone may have made the change).
pub(super) fn host_or_person(host: &str) -> &str {
    if host.is_empty() {
        Host::Person.name()
    } else {
        host
    }
}

/// Report a snapshot failure: one line on stderr, and a note for `doctor`.
pub(super) fn failed(store: Option<&Store>, now: u64, what: &str) {
    eprintln!("git-dibs: could not snapshot ({what}); the tool call goes ahead");
    if let Some(store) = store {
        store.note_snapshot_failure(now, what);
    }
}

/// After an edit tool or a shell command wrote `located` (all in one clone): snapshot them for
/// the event's session. `from_shell` leaves out files git ignores.
pub(crate) fn after_write(event: &Event, store: &Store, located: &[Located], from_shell: bool) {
    let source = if from_shell {
        Source::ShellLine
    } else {
        Source::Edit
    };
    let Some(first) = located.first() else {
        return;
    };
    super::nested::enclosed_by_session(event, &first.worktree);
    super::reach::note(event, &first.worktree);
    let files: Vec<Pending> = located
        .iter()
        .map(|l| Pending {
            worktree: l.worktree.root.clone(),
            path: l.relative.clone(),
        })
        .collect();
    let now = store::now_secs();
    let batch = Batch {
        session: &event.session_id,
        host: event.host.name(),
        now,
        files: &files,
        source,
    };
    if let Err(e) = snapshot(store, &first.worktree.common_dir, batch) {
        failed(Some(store), now, &e);
    }
}

/// Keep `paths` (relative to `wt`'s root) as they are in the snapshot of `session` (of host
/// `host`), found by state (anyone may have made them): what a session that is gone left
/// dirty, before the guard lets a command over it. Nothing for files already kept as they are.
pub(crate) fn keep_for(store: &Store, wt: &Worktree, session: &str, host: &str, paths: &[String]) {
    if paths.is_empty() {
        return;
    }
    let files: Vec<Pending> = paths
        .iter()
        .map(|p| Pending {
            worktree: wt.root.clone(),
            path: p.clone(),
        })
        .collect();
    let now = store::now_secs();
    let batch = Batch {
        session,
        host,
        now,
        files: &files,
        source: Source::Sweep,
    };
    if let Err(e) = snapshot(store, &wt.common_dir, batch) {
        failed(Some(store), now, &e);
    }
}

/// The clones (by one worktree of each) that a command line's commands run in, the event's
/// own first.
pub(super) fn clones(event: &Event, cmds: &[SimpleCommand]) -> Vec<Worktree> {
    let here = git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree);
    clones_from(event, here.as_ref(), cmds)
}

/// [`clones`], the event's own worktree (`here`, of its cwd) located already.
fn clones_from(event: &Event, here: Option<&Worktree>, cmds: &[SimpleCommand]) -> Vec<Worktree> {
    let mut out: Vec<Worktree> = here.into_iter().cloned().collect();
    let mut seen_dirs: Vec<&Path> = vec![event.cwd.as_path()];
    let add = |wt: Worktree, out: &mut Vec<Worktree>| {
        if !out.iter().any(|w| w.common_dir == wt.common_dir) {
            out.push(wt);
        }
    };
    for c in cmds.iter().filter(|c| c.cwd_known) {
        // git run in another repository by its options (`git -C lib commit`, `--git-dir`,
        // `GIT_DIR=`): that repository too.
        if let Some(inv) = git::parse_invocation(&c.argv, &c.cwd, &c.assignments)
            && (inv.cwd != c.cwd || inv.git_dir.is_some() || inv.work_tree.is_some())
            && let Some(wt) = git::invocation_worktree(&inv)
        {
            add(wt, &mut out);
        }
        let dir = c.cwd.as_path();
        if seen_dirs.contains(&dir) {
            continue;
        }
        seen_dirs.push(dir);
        if let Some(l) = git::locate(dir, Path::new(".")) {
            add(l.worktree, &mut out);
        }
    }
    super::reach::add_clones(event, here, &mut out);
    out
}

/// Delete expired snapshots (`dibs.snapshotExpiry`, default 14 days): their refs, then their
/// states. Called when the store prunes; best effort.
pub(crate) fn expire(store: &Store, wt: &Worktree, expiry: Option<Duration>, now: u64) {
    let expiry = expiry.unwrap_or(store::DEFAULT_SNAPSHOT_EXPIRY);
    let cutoff = now.saturating_sub(expiry.as_secs());
    if !store.has_snapshots() {
        return;
    }
    match snapshot::Snapshots::open(&wt.common_dir).and_then(|s| s.expire(cutoff)) {
        Ok(_) => store.drop_snapshot_states_before(cutoff),
        Err(e) => failed(Some(store), now, &format!("expiring old snapshots: {e}")),
    }
}

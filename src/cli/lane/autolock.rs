//! Autolock: while a live session holds dirty files in a linked worktree, or the worktree's
//! HEAD has commits that exist on no remote, that worktree is locked (`git worktree lock
//! --reason "git-dibs: <host> <short id> holds N uncommitted files"`, or `... holds N commits on
//! no remote`), so a host's cleanup, a GUI or a script that no agent hook sees cannot remove or
//! prune it without forcing twice. The lock is lifted when the worktree is clean and every
//! commit of its HEAD is on a remote-tracking ref. A lock someone else set is never touched.
//!
//! Cost: on an edit this reads one session record and `stat`s the worktree's `locked` file; only
//! an unlocked linked worktree is scanned for status, and `git` runs only to change the lock.
//! Unpushed commits are looked at after git commands that move refs and at session end.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::git::lanes::git;
use crate::git::{self, Worktree};
use crate::store::{Actor, Session, Store};

pub(crate) use crate::git::lanes::LOCK_PREFIX;

/// The lock state of a linked worktree, from its `locked` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LockState {
    /// Not locked.
    Open,
    /// Locked by git-dibs (the reason).
    Ours(String),
    /// Locked by someone else (the reason, maybe empty).
    Foreign(String),
}

/// The lock state of the worktree whose git dir is `git_dir`.
pub(crate) fn lock_state(git_dir: &Path) -> LockState {
    match fs::read_to_string(git_dir.join("locked")) {
        Ok(reason) if reason.trim_start().starts_with(LOCK_PREFIX) => {
            LockState::Ours(reason.trim().to_owned())
        }
        Ok(reason) => LockState::Foreign(reason.trim().to_owned()),
        Err(_) => LockState::Open,
    }
}

/// The lock reason naming `holder` and its count of uncommitted files.
fn reason(holder: &Session, files: usize) -> String {
    format!(
        "{LOCK_PREFIX} {} {} holds {files} uncommitted file{}",
        holder.host.name(),
        holder.short_id(),
        if files == 1 { "" } else { "s" }
    )
}

/// The lock reason for commits of HEAD on no remote, naming the live session working there.
fn reason_unpushed(holder: Option<&Session>, commits: usize, branch: Option<&str>) -> String {
    let who = holder
        .map(|h| format!(" {} {}", h.host.name(), h.short_id()))
        .unwrap_or_default();
    let on = branch.map(|b| format!(" on {b}")).unwrap_or_default();
    format!(
        "{LOCK_PREFIX}{who} holds {commits}{} commit{} on no remote{on}",
        if commits >= UNPUSHED_LIMIT { "+" } else { "" },
        if commits == 1 { "" } else { "s" }
    )
}

/// How many unpushed commits are counted at most.
const UNPUSHED_LIMIT: usize = 50;

/// The commits of the HEAD of the worktree at `root` that are on no remote-tracking ref
/// (counted up to [`UNPUSHED_LIMIT`]), and its branch; `None` when it cannot be read.
fn unpushed(root: &Path) -> Option<(usize, Option<String>)> {
    let repo = git::Repo::open(root).ok()?;
    let head = repo.head()?;
    let n = repo.unpushed(&head, UNPUSHED_LIMIT).ok()?.len();
    Some((n, git::worktree_at(root).and_then(|w| w.branch())))
}

/// Where to run `git worktree` for a clone: its main worktree, else the common dir.
fn admin_dir(wt_common: &Path) -> &Path {
    match wt_common.parent() {
        Some(p) if wt_common.file_name().is_some_and(|n| n == ".git") => p,
        _ => wt_common,
    }
}

/// Lock the worktree at `root` with a git-dibs reason (a lost race with another locker is fine).
pub(crate) fn lock(common: &Path, root: &Path, why: &str) -> bool {
    let root = root.to_string_lossy();
    git(
        admin_dir(common),
        &["worktree", "lock", "--reason", why, &root],
    )
    .is_ok()
}

/// Unlock the worktree at `root` if, and only if, git-dibs locked it.
pub(crate) fn unlock_ours(common: &Path, root: &Path, git_dir: &Path) -> bool {
    if !matches!(lock_state(git_dir), LockState::Ours(_)) {
        return false;
    }
    let root = root.to_string_lossy();
    git(admin_dir(common), &["worktree", "unlock", &root]).is_ok()
}

/// Bring the autolock of the worktrees around a hook call in line. Called after an edit (with
/// the edited file's worktree) and at session end (with the session's worktree). Never fails:
/// errors leave the locks as they were.
pub(crate) fn refresh_autolock(
    store: &Store,
    wt: &Worktree,
    actor: Actor<'_>,
    now: u64,
    ttl: impl FnOnce() -> Duration,
) {
    let Ok(Some(me)) = store.session(actor) else {
        return;
    };
    refresh_autolock_as(store, wt, &me, now, ttl);
}

/// [`refresh_autolock`] for `me`, the actor's record as just written (not read again). The
/// lease (`ttl`) is asked for only when `me` has ended.
pub(crate) fn refresh_autolock_as(
    store: &Store,
    wt: &Worktree,
    me: &Session,
    now: u64,
    ttl: impl FnOnce() -> Duration,
) {
    if me.ended.is_none() {
        lock_if_dirty(wt, me);
        return;
    }
    let Ok(sessions) = store.sessions() else {
        return;
    };
    settle_all(&wt.common_dir, Some(&wt.root), &sessions, now, ttl());
}

/// The edit path: lock `wt` when it is linked, unlocked, and `me` holds dirty files there.
fn lock_if_dirty(wt: &Worktree, me: &Session) {
    if wt.git_dir == wt.common_dir || lock_state(&wt.git_dir) != LockState::Open {
        return;
    }
    let mine: BTreeSet<&str> = me
        .files
        .iter()
        .filter(|f| f.key.worktree == wt.root)
        .map(|f| f.key.path.as_str())
        .collect();
    if mine.is_empty() {
        return;
    }
    let Ok(dirty) = git::dirty_paths(&wt.root) else {
        return;
    };
    let held = dirty.iter().filter(|p| mine.contains(p.as_str())).count();
    if held > 0 {
        lock(&wt.common_dir, &wt.root, &reason(me, held));
    }
}

/// After a git command that may have made, moved or pushed commits in `wt`: lock or unlock it
/// as its uncommitted files and unpushed commits say. Only a linked worktree is looked at, and
/// a lock someone else set is left alone.
pub(crate) fn refresh_after_git(store: &Store, wt: &Worktree, now: u64, ttl: Duration) {
    if wt.git_dir == wt.common_dir || matches!(lock_state(&wt.git_dir), LockState::Foreign(_)) {
        return;
    }
    let Ok(sessions) = store.sessions() else {
        return;
    };
    settle(&wt.common_dir, &wt.root, &wt.git_dir, &sessions, now, ttl);
}

/// Re-evaluate every linked worktree git-dibs locked, and `extra` when it is linked: lock where
/// a live session holds dirty files, unlock where the work is clean and either pushed or held
/// by no live session.
pub(crate) fn settle_all(
    common: &Path,
    extra: Option<&Path>,
    sessions: &[Session],
    now: u64,
    ttl: Duration,
) {
    for entry in git::list_worktrees(common) {
        if entry.main || entry.husk {
            continue;
        }
        let ours = matches!(lock_state(&entry.git_dir), LockState::Ours(_));
        if ours || extra == Some(entry.root.as_path()) {
            settle(common, &entry.root, &entry.git_dir, sessions, now, ttl);
        }
    }
}

/// Re-evaluate one linked worktree.
pub(crate) fn settle(
    common: &Path,
    root: &Path,
    git_dir: &Path,
    sessions: &[Session],
    now: u64,
    ttl: Duration,
) {
    let state = lock_state(git_dir);
    if matches!(state, LockState::Foreign(_)) {
        return;
    }
    let Ok(dirty) = git::dirty_paths(root) else {
        return;
    };
    let live: Vec<&Session> = sessions
        .iter()
        .filter(|s| s.is_alive(now, ttl) && s.works_in(root))
        .collect();
    let holder = live.iter().find_map(|s| {
        let n = s
            .files
            .iter()
            .filter(|f| f.key.worktree == root && dirty.contains(&f.key.path))
            .count();
        (n > 0).then_some((*s, n))
    });
    match state {
        LockState::Open => {
            if let Some((s, n)) = holder {
                lock(common, root, &reason(s, n));
            } else if let Some((n, branch)) = unpushed(root).filter(|(n, _)| *n > 0) {
                let why = reason_unpushed(live.first().copied(), n, branch.as_deref());
                lock(common, root, &why);
            }
        }
        LockState::Ours(_) => {
            // Kept while anything there is uncommitted or exists on no remote (or cannot be
            // read); lifted once it is clean and pushed.
            if !dirty.is_empty() || unpushed(root).is_none_or(|(n, _)| n > 0) {
                return;
            }
            unlock_ours(common, root, git_dir);
        }
        LockState::Foreign(_) => {}
    }
}

//! A live session's own files under paths git ignores (`.env`, `notes/plan.md`): git's status
//! never lists them, so without this fact the guard would not count them, though they exist
//! only here. Counted: a file the session holds, that is there now, that git ignores, and that
//! its snapshots kept as written (git-dibs keeps an ignored file only when an edit tool wrote
//! it; build output a shell command made is left out, so it never counts). Read only for the
//! files a live session with a snapshot log holds that the status did not list: one `lstat`
//! each, one read of the session's snapshot log, one pass over the index (a tracked file is
//! clean, never counted), and one repository opened when one of them is left.

use std::collections::BTreeSet;
use std::path::Path;

use crate::git::FileState;
use crate::git::lanes::LaneRepo;
use crate::store::{Session, Store};

/// Whether `rel` is ignored in the worktree at `root` (its repository opened once, on the
/// first question).
struct Ignores<'a> {
    root: &'a Path,
    repo: Option<Option<LaneRepo>>,
}

impl Ignores<'_> {
    fn ignored(&mut self, rel: &str) -> bool {
        let root = self.root;
        self.repo
            .get_or_insert_with(|| LaneRepo::open(root).ok())
            .as_ref()
            .is_some_and(|r| r.is_ignored(&crate::pathtext::to_path(rel)))
    }
}

/// The files session `s` holds in the worktree at `root`, not among `listed` (what the status
/// gave), that git ignores and that its snapshots kept as its own (see the module), as
/// `!!` states.
pub(super) fn held_ignored(
    store: &Store,
    s: &Session,
    root: &Path,
    listed: &BTreeSet<&str>,
) -> Vec<FileState> {
    let candidates: Vec<&str> = s
        .files
        .iter()
        .filter(|f| f.key.worktree == root && !listed.contains(f.key.path.as_str()))
        .map(|f| f.key.path.as_str())
        .filter(|p| {
            std::fs::symlink_metadata(root.join(crate::pathtext::to_path(p)))
                .is_ok_and(|m| !m.is_dir())
        })
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some(state) = store.snapshot_state(&s.id) else {
        return Vec::new();
    };
    let kept: Vec<&str> = candidates
        .into_iter()
        .filter(|p| {
            state
                .watched(root, p)
                .is_some_and(|w| w.blob.is_some() && w.skipped.is_none())
        })
        .collect();
    if kept.is_empty() {
        return Vec::new();
    }
    // A file the index tracks (and the status did not list) is clean: HEAD holds it, whatever
    // the ignore rules say of its name. One pass over the index, before any rule is asked.
    let tracked = crate::git::worktree_at(root)
        .and_then(|w| crate::git::tracked_among(&w.git_dir, &kept))
        .unwrap_or_default();
    let mut ignores = Ignores { root, repo: None };
    kept.into_iter()
        .filter(|p| !tracked.contains(*p))
        .filter(|p| ignores.ignored(p))
        .map(|p| FileState {
            path: p.to_owned(),
            index: '!',
            worktree: '!',
        })
        .collect()
}

/// The porcelain lines (`!! PATH`) of the ignored files that the live sessions of the clone
/// whose store is `store` hold in the worktree at `root` (see [`held_ignored`]); the acting
/// session's own left out unless `own` (a host removing its own worktree loses them too).
fn live_held_ignored(
    store: &Store,
    event: &crate::protocol::Event,
    root: &Path,
    ttl: impl FnOnce() -> std::time::Duration,
    own: bool,
    listed: &[String],
) -> Vec<String> {
    let now = crate::store::now_secs();
    // Only a session with a snapshot log can have kept a file as written (any session may hold
    // files here, wherever it works): none is read when no session ever snapshotted.
    let Ok(sessions) = store.sessions_with_snapshots() else {
        return Vec::new();
    };
    if sessions.is_empty() {
        return Vec::new();
    }
    let ttl = ttl();
    let me = crate::store::Actor::from(event);
    let listed: BTreeSet<&str> = listed.iter().filter_map(|l| l.get(3..)).collect();
    let mut out: Vec<String> = sessions
        .iter()
        .filter(|s| s.origin.is_none() && s.ended.is_none() && s.is_alive(now, ttl))
        .filter(|s| own || !s.is(me))
        .flat_map(|s| held_ignored(store, s, root, &listed))
        .map(|f| f.porcelain())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Count in `state` (a worktree a removal reaches) the ignored files live sessions hold there
/// (see [`live_held_ignored`]): removing it loses them.
pub(super) fn add_to_worktree(
    event: &crate::protocol::Event,
    state: &mut crate::policy::guard::WorktreeState,
    own: bool,
) {
    if state.husk {
        return;
    }
    let Some(wt) = crate::git::worktree_at(&state.root) else {
        return;
    };
    let Some(store) = Store::in_use(&wt.common_dir) else {
        return;
    };
    let ttl = || {
        crate::git::read_config_duration(&wt.git_dir, "dibs.ttl")
            .unwrap_or(crate::store::DEFAULT_TTL)
    };
    let held = live_held_ignored(&store, event, &state.root, ttl, own, &state.status);
    state.status.extend(held);
}

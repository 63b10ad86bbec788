//! `doctor`'s look at damage in the store: it mends what can be rebuilt (the lock, rosters,
//! index markers, snapshot refs deleted or pointed elsewhere from outside git-dibs), then reports each file set aside and each session that ended or died with
//! uncommitted files, with what to do.

use super::Report;
use crate::git::{self, Worktree};
use crate::store::{self, AsideKind, Store};

/// Repair, then report.
pub(super) fn check(r: &mut Report, wt: &Worktree) {
    let Ok(store) = Store::open(&wt.common_dir) else {
        return; // check_store said why
    };
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    match store.repair(ttl, now) {
        Ok(true) => {}
        Ok(false) => r.problem(format!(
            "the store's lock {} stayed held by another process for {} s: if it stays so, find \
             that process (`fuser -v {}`) and let it finish or end it",
            store.dir().join("lock").display(),
            store::LOCK_TIMEOUT.as_secs(),
            store.dir().join("lock").display()
        )),
        Err(e) => r.problem(format!("the store could not be repaired: {e}")),
    }
    if let Some(lost) = store.erasure() {
        r.problem(lost);
    }
    let aside = store.set_aside();
    for a in &aside {
        let shown = a.path.display();
        match a.kind {
            AsideKind::Session => r.problem(super::super::status::set_aside_line(a)),
            AsideKind::Roster => r.repaired(format!(
                "a worktree roster could not be read; it was set aside as {shown} and rebuilt \
                 from the index, so session starts see their peers again. Delete {shown}."
            )),
            AsideKind::Lock => r.repaired(format!(
                "the store's lock was not a file (a folder or link put there); it was set aside \
                 as {shown} and made anew, so claims work again. Delete {shown}."
            )),
            AsideKind::Foreign => r.problem(format!(
                "{shown} is a link or special file that someone put in the store; it was set \
                 aside, never followed nor written through. Find who made it, then delete it"
            )),
            AsideKind::Other => r.problem(format!(
                "{shown} was set aside by the store (it could not be used); look at it, then \
                 delete it"
            )),
        }
    }
    // Snapshot refs deleted or pointed elsewhere from outside git-dibs are put back.
    let before = store.last_snapshot_failure();
    crate::cli::hook::chain::reattach_unexpired(&store, wt, now);
    if let Some(f) = store
        .last_snapshot_failure()
        .filter(|f| Some(f) != before.as_ref())
    {
        r.repaired(f.what);
    }
    let Ok(everyone) = store.everyone() else {
        return;
    };
    let alive: Vec<bool> = everyone.iter().map(|s| s.is_alive(now, ttl)).collect();
    let left = super::super::status::left_uncommitted(&everyone, &alive);
    for (s, files) in &left {
        r.problem(super::super::status::left_uncommitted_line(s, files));
    }
    if aside.is_empty() && left.is_empty() {
        r.ok("no damaged records, and no ended session left files uncommitted");
    }
}

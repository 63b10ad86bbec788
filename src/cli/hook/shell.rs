//! Shell-tool hook calls as file touches: the files a Bash command writes (by its words) warn
//! before it runs when a live peer holds them, and are recorded as touched after it ran.

use std::collections::BTreeMap;

use super::facts::Ctx;
use crate::git::{self, Located};
use crate::policy::claims::{self, EditFacts};
use crate::policy::writes;
use crate::protocol::{Event, Response};
use crate::shell::SimpleCommand;
use crate::store::{Actor, Change, FileKey, Store, StoreError};

/// The files `cmds` write, resolved to worktrees and grouped by clone (common dir).
fn written(cmds: &[SimpleCommand]) -> BTreeMap<std::path::PathBuf, Vec<Located>> {
    let mut by_clone: BTreeMap<_, Vec<Located>> = BTreeMap::new();
    for w in writes::shell_writes(cmds) {
        if let Some(l) = git::locate(&w.cwd, &w.path).filter(|l| !l.relative.is_empty()) {
            let group = by_clone.entry(l.worktree.common_dir.clone()).or_default();
            if !group.contains(&l) {
                group.push(l);
            }
        }
    }
    by_clone
}

fn keys(located: &[Located]) -> Vec<FileKey> {
    located
        .iter()
        .map(|l| FileKey::new(l.worktree.root.clone(), l.relative.clone()))
        .collect()
}

/// Before a shell command: an advisory co-edit warning for the files it writes. Never blocks.
pub fn before(event: &Event, cmds: &[SimpleCommand]) -> Result<Response, StoreError> {
    let groups = written(cmds);
    if groups.is_empty() {
        return Ok(Response::Silent);
    }
    let ctx = Ctx::new(event);
    let mut files = Vec::new();
    let mut holders = Vec::new();
    for located in groups.values() {
        let wt = &located[0].worktree;
        let store = Store::open(&wt.common_dir)?;
        for key in keys(located) {
            let mut live = store.holders(&key, Actor::of(event), ctx.now)?;
            live.retain(|h| ctx.alive(&h.session, wt));
            files.push(key);
            holders.push(live);
        }
    }
    let (response, _) = claims::before_edit(&EditFacts {
        files,
        holders,
        now: ctx.now,
        viewer: event.session_id.clone(),
    });
    Ok(response)
}

/// After a shell command ran: the files it wrote are touched by the session.
pub fn after(event: &Event, cmds: &[SimpleCommand]) -> Result<Response, StoreError> {
    let groups = written(cmds);
    if groups.is_empty() {
        return Ok(Response::Silent);
    }
    let ctx = Ctx::new(event);
    for located in groups.values() {
        let wt = &located[0].worktree;
        let store = Store::open(&wt.common_dir)?;
        ctx.record(
            &store,
            wt,
            false,
            &[ctx.activity(), Change::Touch(keys(located))],
        )?;
    }
    Ok(Response::Silent)
}

//! Edit-tool hook calls: the co-edit warning and claim before an edit, the lost-update check
//! before a whole-file write, and the renewed touch and content digest after edits and reads.

use std::path::PathBuf;

use super::facts::Ctx;
use crate::git::{self, Located};
use crate::policy::claims::{self, EditFacts, OverwriteFacts};
use crate::protocol::{EditChange, Response};
use crate::store::{self, Actor, Change, FileKey, Holder, Store, StoreError};

/// Resolve `paths` to files in worktrees; paths outside any repository are dropped.
fn locate_all(ctx: &Ctx<'_>, paths: &[PathBuf]) -> Vec<Located> {
    paths
        .iter()
        .filter_map(|p| git::locate(&ctx.event.cwd, p))
        .filter(|l| !l.relative.is_empty())
        .collect()
}

fn key(l: &Located) -> FileKey {
    FileKey::new(l.worktree.root.clone(), l.relative.clone())
}

fn digest_of(l: &Located) -> Option<String> {
    git::read_worktree_file(&l.worktree.root.join(&l.relative)).map(|b| store::content_digest(&b))
}

/// Before an edit tool runs.
pub(crate) fn before(
    ctx: &Ctx<'_>,
    tool: &str,
    paths: &[PathBuf],
    change: &EditChange,
) -> Result<Response, StoreError> {
    let located = locate_all(ctx, paths);
    let Some(first) = located.first() else {
        return Ok(Response::Silent);
    };
    let wt = &first.worktree;
    let store = Store::open(&wt.common_dir)?;
    if ctx.event.event_name == "AfterTool" {
        // Gemini's AfterTool of an edit comes here (only then can the model be told): the file
        // is already written, so it goes into the session's snapshot now.
        snapshot_written(ctx, &store, &located);
    }
    let files: Vec<FileKey> = located.iter().map(key).collect();
    let mut holders = Vec::with_capacity(files.len());
    let mut watchers: Vec<(String, crate::protocol::Host)> = Vec::new();
    for f in &files {
        let mut live = store.holders(f, Actor::from(ctx.event), ctx.now)?;
        if !live.is_empty() {
            watchers.extend(live.iter().map(|h| (h.session.id.clone(), h.session.host)));
            live.retain(|h| ctx.alive(&h.session, wt));
        }
        holders.push(live);
    }
    if ctx.event.event_name != "AfterTool" {
        // What the edit replaces may be a change nobody's snapshot has yet (a person's editor).
        super::pre_edit::keep_changed(ctx.event, &store, &located, &watchers);
        super::pre_edit::mark_writing(ctx.event, &store, &located);
    }
    // The actor's own record, read only when someone else holds one of the files.
    let me = if holders.iter().any(|h| !h.is_empty()) {
        store.session(Actor::from(ctx.event))?
    } else {
        None
    };
    let told: Vec<(String, FileKey)> = files
        .iter()
        .zip(&holders)
        .flat_map(|(f, hs)| hs.iter().map(move |h| (f, h)))
        .filter(|(f, h)| {
            me.as_ref()
                .is_some_and(|m| m.was_warned(&claims::peer_key(&h.session), f))
        })
        .map(|(f, h)| (claims::peer_key(&h.session), f.clone()))
        .collect();
    // A host's delete tool is `rm`: a live peer's uncommitted file is not its to delete.
    if let Some(refusal) = refuse_delete(ctx, paths, change, &located, &holders) {
        return ctx.record_then(&store, wt, &[ctx.activity()], refusal);
    }
    if tool == "Write"
        && !holders[0].is_empty()
        && let (Some(me), Some(current)) = (&me, digest_of(first))
    {
        let facts = OverwriteFacts {
            file: files[0].clone(),
            seen: me.seen.iter().find(|s| s.key == files[0]).cloned(),
            current,
            viewer: ctx.event.session_id.clone(),
        };
        if let Some(refusal) = claims::lost_update(&facts, &holders[0]) {
            return ctx.record_then(&store, wt, &[ctx.activity()], refusal);
        }
    }
    let facts = EditFacts {
        files,
        holders,
        now: ctx.now,
        viewer: ctx.event.session_id.clone(),
        told,
    };
    let (response, mut touch) = claims::before_edit(&facts);
    // A warning the model does not read (Gemini's BeforeTool) is given in full again later.
    if !crate::protocol::warning_reaches_model(ctx.event) {
        touch.retain(|c| !matches!(c, Change::Warned(_)));
    }
    let mut changes = vec![ctx.activity()];
    changes.extend(touch);
    ctx.record_then(&store, wt, &changes, response)
}

/// The refusal of a delete tool's deletion of a file a live peer holds while it is uncommitted
/// (untracked or changed: the only copy of that work is the file).
fn refuse_delete(
    ctx: &Ctx<'_>,
    paths: &[PathBuf],
    change: &EditChange,
    located: &[Located],
    holders: &[Vec<Holder>],
) -> Option<Response> {
    let at_risk: Vec<(&Located, &[Holder])> = paths
        .iter()
        .enumerate()
        .filter(|(i, p)| matches!(change.of(p, *i), EditChange::Delete))
        .filter_map(|(i, _)| Some((located.get(i)?, holders.get(i)?.as_slice())))
        .filter(|(_, hs)| !hs.is_empty())
        .collect();
    let (l, hs) = at_risk.into_iter().find(|(l, _)| {
        git::uncommitted_files(&l.worktree.root, std::slice::from_ref(&l.relative))
            .is_ok_and(|dirty| dirty.contains(&l.relative))
    })?;
    Some(claims::delete_refusal(
        &l.relative,
        hs,
        &ctx.event.session_id,
    ))
}

/// Snapshot the files an edit tool wrote: those of `store`'s clone there, any in another clone
/// (an edit tool given paths in two repositories) in that clone's own.
fn snapshot_written(ctx: &Ctx<'_>, store: &Store, located: &[Located]) {
    let Some(first) = located.first() else {
        return;
    };
    let (here, elsewhere): (Vec<Located>, Vec<Located>) = located
        .iter()
        .cloned()
        .partition(|l| l.worktree.common_dir == first.worktree.common_dir);
    super::snap::after_write(ctx.event, store, &here, false);
    for l in elsewhere {
        if let Ok(other) = Store::open(&l.worktree.common_dir) {
            super::snap::after_write(ctx.event, &other, std::slice::from_ref(&l), false);
        }
    }
}

/// After an edit tool ran: renew the touch and remember the content this session wrote.
pub(crate) fn after(ctx: &Ctx<'_>, paths: &[PathBuf]) -> Result<Response, StoreError> {
    let located = locate_all(ctx, paths);
    let Some(first) = located.first() else {
        return Ok(Response::Silent);
    };
    let store = Store::open(&first.worktree.common_dir)?;
    let mut changes = vec![
        ctx.activity(),
        Change::Touch(located.iter().map(key).collect()),
    ];
    changes.extend(
        located
            .iter()
            .filter_map(|l| digest_of(l).map(|d| Change::Seen(key(l), d))),
    );
    let recorded = ctx.record(&store, &first.worktree, false, &changes);
    // What the tool wrote is kept whatever became of the record: a process fenced out by a
    // resume elsewhere, or a store lock held past the wait, still leaves no work unkept.
    snapshot_written(ctx, &store, &located);
    ctx.refresh_autolock_as(&store, &first.worktree, &recorded?);
    Ok(Response::Silent)
}

/// After a read: remember the content this session saw (no claim is made by reading).
pub(crate) fn after_read(ctx: &Ctx<'_>, path: &PathBuf) -> Result<Response, StoreError> {
    let Some(l) = locate_all(ctx, std::slice::from_ref(path)).pop() else {
        return Ok(Response::Silent);
    };
    let Some(digest) = digest_of(&l) else {
        return Ok(Response::Silent);
    };
    let store = Store::open(&l.worktree.common_dir)?;
    ctx.record(
        &store,
        &l.worktree,
        false,
        &[ctx.activity(), Change::Seen(key(&l), digest)],
    )?;
    Ok(Response::Silent)
}

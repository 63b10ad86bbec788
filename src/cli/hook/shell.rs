//! Shell-tool hook calls as file touches: the files a Bash command writes (by its words) warn
//! before it runs when a live peer holds them, and are recorded as touched after it ran.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::facts::Ctx;
use crate::git::{self, Located};
use crate::policy::claims::{self, EditFacts};
use crate::policy::writes;
use crate::protocol::{Event, Response};
use crate::shell::SimpleCommand;
use crate::store::{Actor, Change, FileKey, Store, StoreError};

/// Most files a folder copy or a `find -exec` writer is followed into.
const MAX_TREE_FILES: usize = 2000;

/// The files under `src` (no `.git`, links not followed), at most [`MAX_TREE_FILES`] of them,
/// relative to it.
fn tree_files(src: &Path) -> Vec<PathBuf> {
    crate::platform::files::files_below(src, MAX_TREE_FILES).0
}

/// A write as the files it reaches: a folder copy (or a `find -exec` writer) as each file
/// under its source, at its place in the destination.
fn expand(w: writes::Written) -> Vec<(PathBuf, PathBuf)> {
    let Some(from) = w.from else {
        return vec![(w.cwd, w.path)];
    };
    let whole = from == w.path || from.ends_with(".") || from.to_string_lossy().ends_with("/.");
    let dest = if whole || !w.cwd.join(&w.path).is_dir() {
        w.path.clone()
    } else {
        match from.file_name() {
            Some(n) => w.path.join(n),
            None => w.path.clone(),
        }
    };
    tree_files(&w.cwd.join(&from))
        .into_iter()
        .map(|rel| (w.cwd.clone(), dest.join(rel)))
        .collect()
}

/// The files `cmds` write, resolved to worktrees and grouped by clone (common dir).
fn written(cmds: &[SimpleCommand]) -> BTreeMap<PathBuf, Vec<Located>> {
    let mut by_clone: BTreeMap<_, Vec<Located>> = BTreeMap::new();
    for (cwd, path) in writes::shell_writes(cmds).into_iter().flat_map(expand) {
        if let Some(l) = git::locate(&cwd, &path).filter(|l| !l.relative.is_empty()) {
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
pub(crate) fn before(event: &Event, cmds: &[SimpleCommand]) -> Result<Response, StoreError> {
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
            let mut live = store.holders(&key, Actor::from(event), ctx.now)?;
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
        told: Vec::new(),
    });
    Ok(response)
}

/// git subcommands that make, move or push commits: after one, the autolock of its worktree is
/// brought in line with its unpushed commits.
const MOVES_COMMITS: &[&str] = &[
    "commit",
    "push",
    "pull",
    "fetch",
    "merge",
    "rebase",
    "reset",
    "cherry-pick",
    "revert",
    "am",
    "switch",
    "checkout",
    "branch",
    "update-ref",
];

/// The worktrees of the git commands among `cmds` that may have moved commits.
fn moved_commits(cmds: &[SimpleCommand]) -> Vec<crate::git::Worktree> {
    let mut out: Vec<crate::git::Worktree> = Vec::new();
    for c in cmds {
        let Some(inv) = git::parse_invocation(&c.argv, &c.cwd, &c.assignments) else {
            continue;
        };
        if !inv
            .args
            .first()
            .is_some_and(|sub| MOVES_COMMITS.contains(&sub.as_str()))
        {
            continue;
        }
        if let Some(wt) = git::invocation_worktree(&inv)
            && !out.iter().any(|w| w.root == wt.root)
        {
            out.push(wt);
        }
    }
    out
}

/// After a shell command ran: the files it wrote are touched by the session, and a linked
/// worktree where it made or pushed commits is locked or unlocked as its unpushed commits say.
pub(crate) fn after(event: &Event, cmds: &[SimpleCommand]) -> Result<Response, StoreError> {
    let moved = moved_commits(cmds);
    let groups = written(cmds);
    if groups.is_empty() && moved.is_empty() {
        return Ok(Response::Silent);
    }
    let ctx = Ctx::new(event);
    for wt in &moved {
        if wt.git_dir != wt.common_dir {
            let store = Store::open(&wt.common_dir)?;
            crate::cli::lane::refresh_after_git(&store, wt, ctx.now, ctx.ttl(wt));
        }
    }
    for located in groups.values() {
        let wt = &located[0].worktree;
        let store = Store::open(&wt.common_dir)?;
        ctx.record(
            &store,
            wt,
            false,
            &[ctx.activity(), Change::Touch(keys(located))],
        )?;
        super::snap::after_write(event, &store, located, true);
    }
    Ok(Response::Silent)
}

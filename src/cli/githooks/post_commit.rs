//! The `post-commit` git hook: bookkeeping after a commit. The committer's session releases its
//! claims on files of this worktree that are now clean (committed, or put back), so peers stop
//! being told about them; the retention-refs step runs; and a linked worktree holding commits
//! on no remote is autolocked (`lane::refresh_after_git`). Never
//! stops anything: git ignores this hook's exit status, and so does the shim's caller.

use std::process::ExitCode;

use anyhow::{Context, Result};

use super::{Committer, fail_open};
use crate::git::{self, Worktree};
use crate::store::{self, Store, Target, Writer};

const HOOK: &str = "post-commit";

/// Run the hook; always exits 0.
pub(super) fn run() -> ExitCode {
    let Some((_, wt)) = super::here() else {
        return fail_open(HOOK, "not inside a git worktree");
    };
    // Hook point for retention refs (commits that exist nowhere else kept under a ref, so a
    // later branch or worktree removal cannot lose them). Another engineer builds it (in
    // `src/git/retention.rs`, e.g. `retain_head(&wt.root)`); it runs here, before the claims are
    // released.
    keep_retention_refs(&wt);
    if let Err(e) = release_clean(&wt) {
        return fail_open(HOOK, format!("{e:#}"));
    }
    // A linked worktree now holding a commit on no remote is locked against removal.
    if wt.git_dir != wt.common_dir
        && let Ok(store) = Store::open(&wt.common_dir)
    {
        crate::cli::lane::refresh_after_git(&store, &wt, store::now_secs(), super::ttl(&wt));
    }
    ExitCode::SUCCESS
}

/// After a commit: a retention ref on the new HEAD while it is on no remote-tracking ref, so
/// `git branch -D` plus `git gc` cannot drop it (best effort; never fails the hook).
fn keep_retention_refs(wt: &Worktree) {
    let _ = crate::git::retention::retain_head(&wt.root);
}

/// Release the committer session's file claims in `wt` whose files are clean now. A person
/// (no session in the environment) holds nothing by touch, so nothing is released for them.
fn release_clean(wt: &Worktree) -> Result<()> {
    let me = Committer::from_env();
    if !me.from_env {
        return Ok(());
    }
    let store = Store::open(&wt.common_dir)?;
    let Some(session) = store
        .session(&me.id)
        .context("cannot read the git-dibs store")?
    else {
        return Ok(());
    };
    let mut held: Vec<Target> = session
        .files
        .iter()
        .filter(|f| f.key.worktree == wt.root)
        .map(|f| Target::File(f.key.clone()))
        .collect();
    for c in &session.claims {
        if let Target::File(k) = &c.target
            && k.worktree == wt.root
            && !held.contains(&c.target)
        {
            held.push(c.target.clone());
        }
    }
    if held.is_empty() {
        return Ok(());
    }
    let dirty = git::dirty_paths(&wt.root)?;
    let clean: Vec<Target> = held
        .into_iter()
        .filter(|t| matches!(t, Target::File(k) if !dirty.contains(&k.path)))
        .collect();
    if clean.is_empty() {
        return Ok(());
    }
    store
        .release(&me.id, Writer::Anonymous, store::now_secs(), Some(&clean))
        .context("cannot release claims in the git-dibs store")?;
    Ok(())
}

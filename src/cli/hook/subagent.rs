//! Sub-agent hook calls: at `SubagentStart` the sub-agent is registered as an actor of its own
//! and told which files its live siblings, its main thread and other live sessions hold; at
//! `SubagentStop` what it held becomes its session's (the main thread's) own.

use std::path::Path;

use super::facts::Ctx;
use super::session::{live_others, related_worktrees};
use crate::policy::awareness::{self, Holding};
use crate::protocol::Response;
use crate::store::{Store, StoreError};

/// How many holders the sub-agent start block names one by one.
const SHOWN_HOLDERS: usize = 6;

/// A sub-agent starts: record it (under its session's generation) and disclose what others
/// hold in this checkout.
pub(crate) fn start(ctx: &Ctx<'_>) -> Result<Response, StoreError> {
    let Some(here) = &ctx.here else {
        return Ok(Response::Silent);
    };
    let wt = &here.worktree;
    let store = Store::open(&wt.common_dir)?;
    ctx.record(&store, wt, false, &[ctx.activity()])?;
    let roots = related_worktrees(wt);
    let in_checkout = |root: &Path| roots.iter().any(|r| r == root);
    let (others, more) = live_others(ctx, &store, wt, SHOWN_HOLDERS)?;
    let holdings: Vec<Holding> = others
        .into_iter()
        .map(|session| Holding {
            files: session
                .files
                .iter()
                .filter(|f| in_checkout(&f.key.worktree))
                .map(|f| f.key.path.clone())
                .collect(),
            session,
        })
        .collect();
    Ok(awareness::sub_agent_start(
        &holdings,
        more,
        &ctx.event.session_id,
    ))
}

/// A sub-agent stopped: its files and claims become the main thread's, its record ends, and
/// the autolock of its worktree follows.
pub(crate) fn stop(ctx: &Ctx<'_>) -> Result<Response, StoreError> {
    let (Some(here), Some(agent)) = (&ctx.here, &ctx.event.actor) else {
        return Ok(Response::Silent);
    };
    // Its calls are all over: one whose end never came is scanned a last time, and unmarked.
    super::running::stopped(ctx.event);
    let store = Store::open(&here.worktree.common_dir)?;
    store.fold_sub_agent(
        &ctx.event.session_id,
        agent,
        ctx.event.host,
        ctx.writer(false),
        ctx.now,
    )?;
    crate::cli::lane::refresh_autolock(
        &store,
        &here.worktree,
        crate::store::Actor::main(&ctx.event.session_id),
        ctx.now,
        || ctx.ttl(&here.worktree),
    );
    Ok(Response::Silent)
}

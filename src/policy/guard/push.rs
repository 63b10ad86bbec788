//! Rule 4, the other half: a forced push (`-f`, `+SRC:DST`, `--force-with-lease`, `--mirror`,
//! `-f --all`, a bare `git push` whose configured refspec forces) that writes over a remote
//! branch holding commits no other ref has is refused, like deleting that branch; where what
//! it drops cannot be told (never fetched, a source that names no commit), the person is asked.

use super::{Finding, Guarded, Op, Verdict, list, list_commits};
use crate::git::{ForcedUpdate, PushRequest};

/// `git push` that may force: which remote, refspecs and options (a deletion is the remote
/// rule's, a push into this very repository the branch rule's).
pub(crate) fn classify_git(args: &[String]) -> Option<(Op, Vec<String>)> {
    // `git send-pack`, the plumbing under `git push`, takes the same refspecs and options.
    if !matches!(args.first().map(String::as_str), Some("push" | "send-pack")) {
        return None;
    }
    let t = super::transfer::parse(args)?;
    if t.dry_run || t.delete {
        return None;
    }
    let (remote, refspecs) = t.remote_and_specs();
    let req = PushRequest {
        remote,
        refspecs,
        force: t.force,
        lease: t.lease,
        all: t.all,
        mirror: t.mirror,
        config: Vec::new(),
    };
    if req.remote.as_deref() == Some(".") {
        return None;
    }
    let forcing = req.force
        || req.mirror
        || !req.lease.is_empty()
        || req.refspecs.iter().any(|s| s.starts_with('+'));
    // Without a refspec, the configured one (`remote.<name>.push`) may force.
    let configured = req.refspecs.is_empty() && !req.all;
    if !forcing && !configured {
        return None;
    }
    let targets = req.refspecs.clone();
    Some((Op::PushOver(req), targets))
}

/// Refuse a forced push that drops commits no other ref has; ask where it cannot be told.
pub(crate) fn check(g: &Guarded, updates: &[ForcedUpdate]) -> Verdict {
    let losing: Vec<&ForcedUpdate> = updates.iter().filter(|u| !u.dropped.is_empty()).collect();
    if let Some(first) = losing.first() {
        let parts: Vec<String> = losing
            .iter()
            .map(|u| {
                format!(
                    "it writes {} over {}/{}, which holds {} commit(s) that no other ref has: {}",
                    u.source,
                    u.remote,
                    u.branch,
                    u.dropped.len(),
                    list_commits(&u.dropped)
                )
            })
            .collect();
        return Verdict::Block(Finding::new(
            "force-push",
            format!(
                "git-dibs refused `{}`: {}. Forcing it loses those commits (on the remote, and \
                 here at the next fetch and gc). Keep them first (git branch keep-{} {}/{}) or \
                 build on them, or ask the person.",
                g.display,
                parts.join("; "),
                first.branch.replace('/', "-"),
                first.remote,
                first.branch,
            ),
        ));
    }
    let unknown: Vec<String> = updates.iter().filter_map(|u| u.unknown.clone()).collect();
    if unknown.is_empty() {
        return Verdict::Allow;
    }
    let remote = &updates[0].remote;
    Verdict::Ask(Finding::new(
        "force-push-unknown",
        format!(
            "git-dibs cannot tell what `{}` writes over: {}. Fetch first (git fetch {remote}) and \
             look, or push without forcing, or ask the person.",
            g.display,
            list(&unknown)
        ),
    ))
}

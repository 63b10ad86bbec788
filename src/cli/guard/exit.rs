//! The `ExitWorktree` guard's orchestration: the worktree the session entered (see
//! [`leaving`]), its status and unpushed commits (the same facts as for `git worktree remove`), the other live
//! actors working there; the pure rule decides; an ask is audited like every refusal.

use std::path::Path;

use anyhow::{Context as _, Result};

use super::facts::worktree_state;
use super::write_audit;
use crate::git;
use crate::policy::claims::describe_to;
use crate::policy::guard::exit_worktree::{self, ExitFacts};
use crate::policy::guard::{AuditEntry, Finding, Verdict};
use crate::protocol::{Event, Response};
use crate::store::{self, Actor, Store};

/// Decide a `PreToolUse` of the host's worktree removal. Facts that cannot be established are
/// put to the person (fail closed); a cwd in no repository has no worktree to lose.
pub(crate) fn before_exit(event: &Event, discard_changes: bool) -> Response {
    let Some(here) = git::locate(&event.cwd, Path::new(".")) else {
        return Response::Silent;
    };
    let wt = here.worktree;
    let mut found = None;
    for root in leaving(event, &wt) {
        let Some(target) = git::worktree_at(&root) else {
            continue;
        };
        let verdict = match facts(event, &target, discard_changes) {
            Ok(facts) => exit_worktree::check_exit(&facts),
            Err(e) => Verdict::Ask(Finding::new(
                exit_worktree::RULE,
                format!(
                    "git-dibs cannot tell what removing worktree {} would lose ({e:#}); the \
                     person decides.",
                    target.root.display()
                ),
            )),
        };
        if let Verdict::Ask(finding) | Verdict::Block(finding) = verdict {
            found = Some(finding);
            break;
        }
    }
    let Some(finding) = found else {
        return Response::Silent;
    };
    let entry = AuditEntry {
        index: 0,
        verdict: "ask",
        reason: finding.reason.clone(),
        worktrees: finding.worktrees,
        rule: finding.rule,
    };
    let command = format!("ExitWorktree action=remove discard_changes={discard_changes}");
    if let Err(e) = write_audit(&wt.common_dir, event, &command, &entry) {
        eprintln!("git-dibs: cannot write the audit log: {e:#}");
    }
    Response::Ask {
        reason: finding.reason,
    }
}

/// The worktrees the host may be about to remove. The host removes the worktree the session
/// entered (`claude -w`, `EnterWorktree`: one under `.claude/worktrees/`), which is the cwd's
/// only while the session has not `cd`-ed out of it. From elsewhere: the host's worktrees this
/// session worked in, or when it worked in none of them, every one of them (which of them is
/// meant cannot be told, so none is let go unjudged); with no host worktree at all, the cwd's.
fn leaving(event: &Event, wt: &git::Worktree) -> Vec<std::path::PathBuf> {
    let host_made = |root: &Path| {
        root.parent()
            .is_some_and(|p| p.ends_with(".claude/worktrees"))
    };
    if host_made(&wt.root) {
        return vec![wt.root.clone()];
    }
    let hosts: Vec<std::path::PathBuf> = git::list_worktrees(&wt.common_dir)
        .into_iter()
        .filter(|e| !e.main && !e.husk && host_made(&e.root))
        .map(|e| e.root)
        .collect();
    if hosts.is_empty() {
        return vec![wt.root.clone()];
    }
    let me = Actor::from(event);
    let mine: Vec<std::path::PathBuf> = Store::open(&wt.common_dir)
        .and_then(|s| s.sessions())
        .map(|sessions| {
            hosts
                .iter()
                .filter(|root| sessions.iter().any(|s| s.is(me) && s.works_in(root)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if mine.is_empty() { hosts } else { mine }
}

fn facts(event: &Event, wt: &git::Worktree, discard_changes: bool) -> Result<ExitFacts> {
    let entries = git::list_worktrees(&wt.common_dir);
    let entry = entries
        .iter()
        .find(|e| e.root == wt.root)
        .context("the worktree is not in git's list of worktrees")?;
    let mut worktree = worktree_state(entry)?;
    // The host removes the worktree whoever's files are in it: the session's own count too.
    super::ignored::add_to_worktree(event, &mut worktree, true);
    let store = Store::open(&wt.common_dir)?;
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    let me = Actor::from(event);
    let others = store
        .sessions()?
        .iter()
        .filter(|s| !s.is(me) && s.works_in(&wt.root) && s.is_alive(now, ttl))
        .map(|s| describe_to(s, &event.session_id))
        .collect();
    Ok(ExitFacts {
        worktree,
        others,
        discard_changes,
    })
}

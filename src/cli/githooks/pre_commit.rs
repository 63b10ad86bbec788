//! The `pre-commit` git hook: refuse a commit whose staged files include a file that a live
//! session other than the committer holds in this worktree, naming that session and the files
//! and saying how to leave them out. `WT_GUARD_BYPASS=1` lets the commit through; both outcomes
//! are audited.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::{AuditLine, Committer, fail_open, git_argv};
use crate::policy::claims::{ago, describe_to, may_commit_co_held};
use crate::store::{self, FileKey, Session, Store};

const HOOK: &str = "pre-commit";

/// Run the hook: exit 1 to refuse the commit, 0 to let it through.
pub(super) fn run() -> ExitCode {
    let Some((cwd, wt)) = super::here() else {
        return fail_open(HOOK, "not inside a git worktree");
    };
    match check(&cwd, &wt) {
        Ok(code) => code,
        Err(e) => fail_open(HOOK, format!("{e:#}")),
    }
}

/// One live peer and the staged files it holds.
struct Held {
    session: Session,
    files: Vec<String>,
}

fn check(cwd: &Path, wt: &crate::git::Worktree) -> Result<ExitCode> {
    let index_file = std::env::var_os("GIT_INDEX_FILE").filter(|v| !v.is_empty());
    let staged =
        crate::git::hookreads::staged_paths(cwd, &wt.root, index_file.as_deref().map(Path::new))?;
    if staged.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let store = Store::open(&wt.common_dir)?;
    let me = Committer::from_env();
    let now = store::now_secs();
    let ttl = super::ttl(wt);
    let mut held: Vec<Held> = Vec::new();
    let mut shared: Vec<Held> = Vec::new();
    for path in &staged {
        let key = FileKey::new(wt.root.clone(), path.clone());
        let holders = store
            .holders(&key, "", now)
            .context("cannot read the git-dibs store")?;
        let mine: BTreeSet<String> = holders
            .iter()
            .filter(|h| me.owns(&h.session) && h.touch.is_some())
            .map(|_| path.clone())
            .collect();
        for h in holders {
            // A session on another machine holds its own copy: this commit cannot take it.
            if me.owns(&h.session) || h.session.origin.is_some() || !h.session.is_alive(now, ttl) {
                continue;
            }
            // Both changed it: the committer may commit it, and is told whose work goes in.
            let list = if may_commit_co_held(&mine, path) {
                &mut shared
            } else {
                &mut held
            };
            match list.iter_mut().find(|x| x.session.is(h.session.actor())) {
                Some(x) => x.files.push(path.clone()),
                None => list.push(Held {
                    session: h.session,
                    files: vec![path.clone()],
                }),
            }
        }
    }
    for h in &shared {
        eprintln!(
            "git-dibs: this commit includes {}, which {} changed too (both of you hold it): \
             its changes go in with yours; tell it they are committed, so it does not commit or \
             revert them again.",
            h.files.join(", "),
            describe_to(&h.session, &me.id)
        );
    }
    if held.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let mut files: Vec<String> = held.iter().flat_map(|h| h.files.clone()).collect();
    files.sort();
    files.dedup();
    let holders: Vec<String> = held
        .iter()
        .map(|h| {
            let who = describe_to(&h.session, &me.id);
            format!("{who} holds {}", h.files.join(", "))
        })
        .collect();
    let reason = format!(
        "the commit includes files a live session holds: {}",
        holders.join("; ")
    );
    let line = AuditLine {
        files: files.clone(),
        ..AuditLine::decided(HOOK, &me.id, cwd, git_argv().join(" "), &reason)
    };
    line.write(&wt.common_dir);
    if line.is_bypass() {
        eprintln!("git-dibs: WT_GUARD_BYPASS=1: committing anyway ({reason}); this is audited");
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{}", message(&held, &files, now, &me.id));
    Ok(ExitCode::from(1))
}

/// The refusal, for the person or agent who ran `git commit`.
fn message(held: &[Held], files: &[String], now: u64, viewer: &str) -> String {
    let mut text = String::from(
        "git-dibs: commit refused: it includes files that another live session holds in this \
         worktree:\n",
    );
    for h in held {
        let branch = h
            .session
            .branch
            .as_deref()
            .map(|b| format!(" on branch {b}"))
            .unwrap_or_default();
        text.push_str(&format!(
            "  {} (active {}{branch}): {}\n",
            describe_to(&h.session, viewer),
            ago(now, h.session.last_seen),
            h.files.join(", ")
        ));
    }
    let quoted: Vec<String> = files.iter().map(|f| crate::shell::quote_word(f)).collect();
    text.push_str(&format!(
        "Those are its changes, not yours to commit. Unstage them (paths from the top of the \
         worktree) and commit the rest:\n  git restore --staged -- {}\nor ask that session to \
         commit or release them first (`git dibs status` shows who holds what).",
        quoted.join(" ")
    ));
    text
}

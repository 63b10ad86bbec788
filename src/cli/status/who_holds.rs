//! `git dibs status PATH...`: who holds these files, one answer per path.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::git;
use crate::policy::claims::{ago, describe};
use crate::store::{FileKey, Store, rfc3339};

/// One holder of a file, as `--json` prints it.
#[derive(Serialize)]
struct HolderView {
    id: String,
    short_id: String,
    host: &'static str,
    label: Option<String>,
    /// How messages name it.
    name: String,
    branch: Option<String>,
    last_touch: Option<String>,
    claimed: bool,
    exclusive: bool,
    intent: Option<String>,
}

/// One asked-about path.
#[derive(Serialize)]
struct PathView {
    path: String,
    worktree: std::path::PathBuf,
    /// `null` when git could not read its worktree.
    dirty: Option<bool>,
    holders: Vec<HolderView>,
}

/// Answer for each of `paths`; exit 0 when a live session holds at least one, else 1.
pub(super) fn run(
    store: &Store,
    paths: &[String],
    json: bool,
    now: u64,
    ttl: Duration,
) -> Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let mut views = Vec::new();
    for text in paths {
        let loc = git::locate(&cwd, std::path::Path::new(text))
            .filter(|l| !l.relative.is_empty())
            .with_context(|| format!("`{text}` is not a file inside a git worktree"))?;
        let key = FileKey::new(loc.worktree.root.clone(), loc.relative.clone());
        let dirty = super::dirty_in(&loc.worktree.root).map(|d| d.contains(&loc.relative));
        let live: Vec<_> = store
            .holders(&key, "", now)?
            .into_iter()
            .filter(|h| h.session.is_alive(now, ttl))
            .collect();
        let touched: Vec<Option<u64>> = live
            .iter()
            .map(|h| h.touch.as_ref().map(|t| t.last))
            .collect();
        let holders = live
            .iter()
            .map(|h| HolderView {
                id: h.session.id.clone(),
                short_id: h.session.short_id().to_owned(),
                host: h.session.host.name(),
                label: h.session.label.clone(),
                name: describe(&h.session),
                branch: h.session.branch.clone(),
                last_touch: h.touch.as_ref().map(|t| rfc3339(t.last)),
                claimed: h.claim.is_some(),
                exclusive: h.claim.as_ref().is_some_and(|c| c.exclusive),
                intent: h.claim.as_ref().and_then(|c| c.intent.clone()),
            })
            .collect::<Vec<_>>();
        if !json {
            print_one(&loc.relative, dirty, &holders, &touched, now);
        }
        views.push(PathView {
            path: loc.relative,
            worktree: loc.worktree.root,
            dirty,
            holders,
        });
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&views)?);
    }
    let held = views.iter().any(|v| !v.holders.is_empty());
    Ok(if held {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_one(
    path: &str,
    dirty: Option<bool>,
    holders: &[HolderView],
    touched: &[Option<u64>],
    now: u64,
) {
    let state = match dirty {
        Some(true) => "uncommitted",
        Some(false) => "clean",
        None => "unread (git could not read its worktree)",
    };
    if holders.is_empty() {
        println!("{path} ({state}): no live session holds it");
        return;
    }
    for (h, t) in holders.iter().zip(touched) {
        let mut line = format!("{path} ({state}): held by {}", h.name);
        if let Some(t) = t {
            line.push_str(&format!(", touched {}", ago(now, *t)));
        }
        if let Some(b) = &h.branch {
            line.push_str(&format!(" on branch {b}"));
        }
        if h.claimed {
            line.push_str(if h.exclusive {
                "; claimed exclusively"
            } else {
                "; claimed"
            });
            if let Some(i) = &h.intent {
                line.push_str(&format!(" ({i})"));
            }
        }
        println!("{line}");
    }
}

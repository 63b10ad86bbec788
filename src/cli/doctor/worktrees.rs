//! `doctor`'s look at every session the hosts start in this clone: Claude Code reads the project
//! settings of the worktree a session runs in (a `claude -w NAME` worktree has only what its
//! commit holds) and the user's settings and plugins. A worktree with no git-dibs wiring of its
//! own, when the user scope has none either, runs unguarded sessions; so does every new
//! `claude -w` worktree when the wiring is not committed. Also the line for the worktree doctor
//! runs in.

use std::path::{Path, PathBuf};

use super::Report;
use crate::cli::install::{Scope, load};
use crate::git::{self, Worktree};

/// Whether the settings file at `path` wires git-dibs at all (or enables its plugin).
fn wires(path: &Path) -> bool {
    matches!(load(path), Ok(Some((_, s)))
        if !s.wiring().is_empty() || s.enabled_plugins().iter().any(|p| p.contains("git-dibs")))
}

/// Whether the project or local settings of the worktree at `root` wire git-dibs.
fn wired_in(root: &Path) -> bool {
    [Scope::Project, Scope::Local]
        .iter()
        .filter_map(|s| s.path(Some(root)))
        .any(|p| wires(&p))
}

/// Report the worktrees of `wt`'s clone whose Claude Code sessions would run without git-dibs.
pub(super) fn check(r: &mut Report, wt: &Worktree) {
    if Scope::User.path(None).is_some_and(|p| wires(&p)) {
        r.ok(
            "git-dibs is wired for this user: sessions in every worktree of this clone, new \
             `claude -w` worktrees included, run it",
        );
        return;
    }
    let entries = git::list_worktrees(&wt.common_dir);
    let unguarded: Vec<PathBuf> = entries
        .iter()
        .filter(|e| !e.husk && !wired_in(&e.root))
        .map(|e| e.root.clone())
        .collect();
    if unguarded.len() == entries.iter().filter(|e| !e.husk).count() {
        return; // Claude Code is not wired here at all: the settings check said so
    }
    if !unguarded.is_empty() {
        let shown: Vec<String> = unguarded.iter().map(|p| p.display().to_string()).collect();
        r.problem(format!(
            "Claude Code sessions in {} would run without git-dibs (no wiring in that worktree \
             nor for this user): install the plugin or run `git dibs install --user`, which \
             cover every worktree, `claude -w` ones included",
            shown.join(", ")
        ));
    }
    // `claude -w` makes its worktree from a commit: only committed wiring goes with it.
    let Some(main) = entries.iter().find(|e| e.main) else {
        return;
    };
    let file = ".claude/settings.json".to_owned();
    let project = main.root.join(&file);
    let committed = wires(&project)
        && git::uncommitted_files(&main.root, std::slice::from_ref(&file))
            .is_ok_and(|d| d.is_empty());
    if !committed {
        r.problem(
            "new `claude -w` worktrees would run without git-dibs: they are made from a commit, \
             and no committed .claude/settings.json wires it, nor the user settings: install the \
             plugin or run `git dibs install --user` (or commit .claude/settings.json)",
        );
    }
}

/// The line for the worktree `doctor` runs in (its branch, its format), a problem when the git
/// on PATH cannot read it; `None` outside any worktree.
pub(super) fn here(r: &mut Report) -> Option<Worktree> {
    match crate::cli::current_worktree_any() {
        Ok(wt) => {
            let unreadable = crate::git::cli::oldgit::cannot_read(&wt.common_dir);
            let branch = match &unreadable {
                Some(_) => "its branch unknown: git cannot read it".to_owned(),
                None => wt.branch().unwrap_or_else(|| "detached HEAD".to_owned()),
            };
            r.ok(format!(
                "in the git worktree {} ({branch})",
                wt.root.display()
            ));
            if let Some(format) = crate::git::cli::Format::of_common_dir(&wt.common_dir) {
                r.ok(format!(
                    "this repository has {format}, which libgit2 cannot open: git-dibs reads and \
                     writes it through the git command (the same protection, a few milliseconds \
                     slower per guarded command and per snapshot)"
                ));
            }
            if let Some(why) = unreadable {
                r.problem(why);
            }
            Some(wt)
        }
        Err(e) => {
            r.problem(format!(
                "{e:#} (the project settings and the store were not checked)"
            ));
            None
        }
    }
}

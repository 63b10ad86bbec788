//! What `recover` brings back of nested repositories (see `git::nested`): their commits this
//! repository keeps (fetched under `refs/dibs/nested/<id>/…`, or, for a repository of another
//! object format, as a bundle under `refs/dibs/nested/bundle/<id>`), listed once the nested
//! repository no longer has them; and `recover PATH` of a nested repository that is gone makes
//! it again from its bundle (same object format, same commit ids, its branch checked out)
//! before its snapshotted files are written back.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::shown;
use crate::git::lanes::{LaneRepo, git, short_sha};
use crate::git::nested::NESTED_PREFIX;
use crate::git::nested::bundle::{self, BUNDLE_PREFIX, KeptBundle};
use crate::git::{self, Worktree};
use crate::store::Store;

/// A commit of a nested repository kept in this one (`refs/dibs/nested/…`) that the nested
/// repository does not have (gone, or the commit dropped there).
#[derive(Serialize)]
pub(super) struct NestedCommit {
    /// The nested worktree's root, when known.
    worktree: Option<PathBuf>,
    /// The ref that keeps it here.
    #[serde(rename = "ref")]
    reference: String,
    commit: String,
}

/// The history of a nested repository of another object format, kept here as a bundle, that
/// the nested repository no longer has.
#[derive(Serialize)]
pub(super) struct NestedBundle {
    /// The nested worktree's root, when known.
    worktree: Option<PathBuf>,
    /// The ref that keeps it here.
    #[serde(rename = "ref")]
    reference: String,
    /// Its object format.
    object_format: String,
    /// The branch it was on.
    branch: Option<String>,
    /// Its HEAD.
    head: Option<String>,
    /// The size of the bundle in bytes.
    bytes: u64,
}

/// What this clone keeps of nested repositories that they no longer have.
#[derive(Serialize, Default)]
pub(super) struct Kept {
    /// Commits fetched from them.
    #[serde(rename = "nested_commits", skip_serializing_if = "Vec::is_empty")]
    commits: Vec<NestedCommit>,
    /// Histories kept as bundles.
    #[serde(rename = "nested_bundles", skip_serializing_if = "Vec::is_empty")]
    bundles: Vec<NestedBundle>,
}

impl Kept {
    /// What the clone of `wt` keeps of nested repositories that they no longer have.
    pub(super) fn load(wt: &Worktree) -> Kept {
        let Ok(here) = LaneRepo::open(&wt.root) else {
            return Kept::default();
        };
        let store = Store::in_use(&wt.common_dir);
        let root_of = |id: &str| store.as_ref().and_then(|s| s.nested_root(id));
        // Only the nested repository's own store answers (never the one around it).
        let has = |root: Option<&Path>, commit: &str| {
            root.and_then(git::worktree_at)
                .filter(|w| w.common_dir != wt.common_dir)
                .and_then(|w| LaneRepo::open(&w.root).ok())
                .is_some_and(|r| r.commit_of(commit).is_some())
        };
        let mut kept = Kept::default();
        for (reference, commit) in here.refs_under(NESTED_PREFIX) {
            if reference.starts_with(BUNDLE_PREFIX) {
                continue;
            }
            let id = reference[NESTED_PREFIX.len()..]
                .split('/')
                .next()
                .unwrap_or("");
            let worktree = root_of(id);
            if !has(worktree.as_deref(), &commit) {
                kept.commits.push(NestedCommit {
                    worktree,
                    reference,
                    commit,
                });
            }
        }
        for b in bundle::all_kept(&wt.root) {
            let worktree = root_of(&b.id);
            let head = b.meta.head.clone().unwrap_or_default();
            if !has(worktree.as_deref(), &head) {
                kept.bundles.push(NestedBundle {
                    worktree,
                    reference: b.reference,
                    object_format: b.meta.format,
                    branch: b.meta.branch,
                    head: b.meta.head,
                    bytes: b.bytes,
                });
            }
        }
        kept
    }

    /// Whether nothing is kept.
    pub(super) fn is_empty(&self) -> bool {
        self.commits.is_empty() && self.bundles.is_empty()
    }

    /// One line each: how to bring it back.
    pub(super) fn print(&self, common_dir: &Path) {
        let here = common_dir.to_string_lossy();
        let root_text = |w: &Option<PathBuf>| {
            w.as_ref()
                .map_or("NESTED".to_owned(), |r| r.to_string_lossy().into_owned())
        };
        for c in &self.commits {
            let short = short_sha(&c.commit);
            let root = root_text(&c.worktree);
            println!(
                "commit {short} of the nested repository {} is kept here by {}: clone it again, then git -C {} fetch {} {}:refs/heads/recovered-{short}",
                shown(&root),
                shown(&c.reference),
                crate::shell::quote_word(&shown(&root)),
                crate::shell::quote_word(&shown(&here)),
                shown(&c.reference)
            );
        }
        for b in &self.bundles {
            let root = root_text(&b.worktree);
            let at = match (&b.branch, &b.head) {
                (Some(branch), Some(head)) => format!("branch {branch} at {}", short_sha(head)),
                (None, Some(head)) => format!("HEAD {}", short_sha(head)),
                _ => "no HEAD".to_owned(),
            };
            println!(
                "commits of {} kept as a bundle ({}, {at}, {} KiB, by {}): git dibs recover {} makes the repository again with its history, then writes its files back",
                shown(&root),
                shown(&b.object_format),
                b.bytes.div_ceil(1024),
                shown(&b.reference),
                crate::shell::quote_word(&shown(&root)),
            );
        }
    }
}

/// A nested repository made again from its bundle.
#[derive(Debug, Serialize)]
pub(super) struct Rebuilt {
    /// Its worktree root.
    pub(super) worktree: PathBuf,
    /// What was checked out (`branch main`, `detached HEAD abc1234`).
    pub(super) checked_out: String,
    /// Its HEAD commit's time, for which snapshots are newer than it.
    #[serde(skip)]
    pub(super) head_time: i64,
}

/// Whether every folder from `home` down to `root` is a real folder or missing: nothing on
/// the way is a link that would take a new repository out of the worktree.
fn real_folders(home: &Path, root: &Path) -> bool {
    let Ok(rel) = root.strip_prefix(home) else {
        return false;
    };
    let mut at = home.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return false,
            Err(_) => return true,
        }
    }
    true
}

/// Before `recover PATH` writes files back: every nested repository at `full` or below it
/// that is gone (its folder missing or empty) and whose history this clone keeps as a bundle
/// is made again there. Returns those made, and one line for each that could not be.
pub(super) fn rebuild(wt: &Worktree, full: &Path) -> (Vec<Rebuilt>, Vec<String>) {
    let mut made = Vec::new();
    let mut problems = Vec::new();
    let Some(store) = Store::in_use(&wt.common_dir) else {
        return (made, problems);
    };
    for kept in bundle::all_kept(&wt.root) {
        let Some(root) = store.nested_root(&kept.id) else {
            continue;
        };
        if !root.starts_with(full) || git::worktree_at(&root).is_some() {
            continue;
        }
        match rebuild_one(wt, &kept, &root) {
            Ok(Some(r)) => made.push(r),
            Ok(None) => {}
            Err(e) => problems.push(format!(
                "{}: its history is kept as a bundle but was not brought back: {e}",
                root.display()
            )),
        }
    }
    (made, problems)
}

fn rebuild_one(wt: &Worktree, kept: &KeptBundle, root: &Path) -> Result<Option<Rebuilt>> {
    // Only where a nested repository of this clone belongs, by plain names, through real
    // folders: a remembered root is local data anyone in the clone can write.
    let Some(home) = git::nested::home_of(&wt.common_dir, root) else {
        return Ok(None);
    };
    if !real_folders(&home, root) {
        anyhow::bail!("a folder on the way is a link; move it away and run recover again");
    }
    if std::fs::read_dir(root).is_ok_and(|mut d| d.next().is_some()) {
        anyhow::bail!(
            "the folder is there and is not a repository; move it away and run recover again"
        );
    }
    let checked_out = bundle::restore(&wt.root, kept, root)?;
    let head_time = git(root, &["log", "-1", "--format=%ct", "HEAD"])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    Ok(Some(Rebuilt {
        worktree: root.to_path_buf(),
        checked_out,
        head_time,
    }))
}

/// One line for each repository made again, and each that could not be.
pub(super) fn print_rebuilt(made: &[Rebuilt], problems: &[String]) {
    for r in made {
        println!(
            "{} is back as a repository: {} (its history from the bundle kept here)",
            super::shown_path(&r.worktree),
            shown(&r.checked_out)
        );
    }
    for p in problems {
        println!("{}", shown(p));
    }
}

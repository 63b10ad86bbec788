//! The facts about worktrees a guarded removal needs: the worktree `git worktree remove` names,
//! every worktree at or below an `rm -r` or `find -delete` target (registered ones of each clone
//! involved and any `.git` a bounded search finds), and each one's status, HEAD and unpushed
//! commits.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::facts::{COMMIT_LIMIT, SCAN_DEPTH, SCAN_ENTRIES, canonical_lenient};
use crate::git::{self, Repo, WorktreeEntry};
use crate::policy::guard::{self, WorktreeFacts, WorktreeState};
use crate::protocol::Event;

pub(super) fn worktree_state(entry: &WorktreeEntry) -> Result<WorktreeState> {
    let mut state = WorktreeState {
        root: entry.root.clone(),
        main: entry.main,
        husk: entry.husk,
        locked: entry.locked.clone(),
        ..WorktreeState::default()
    };
    if entry.husk {
        return Ok(state);
    }
    state.branch = git::worktree_at(&entry.root).and_then(|w| w.branch());
    let from_git = |mut state: WorktreeState| -> Result<WorktreeState> {
        let v = git::porcelain::view(&entry.root, entry.main, COMMIT_LIMIT)?;
        state.status = v.status;
        state.head = v.head;
        state.unpushed = v.unpushed;
        state.unpushed_branches = v.unpushed_branches;
        Ok(state)
    };
    // The fast reader is not certain (submodules, extensions, split or sparse index): git's
    // own answer.
    if git::porcelain::needs_git(&entry.root, &entry.git_dir, &common(entry)) {
        return from_git(state);
    }
    // The worktree is walked against its index on this thread (no repository needed) while a
    // second one opens the repository and reads HEAD and what of it is unpushed; the repository
    // then confirms the walk and settles what stat data could not.
    let pushed = |root: &Path| -> Result<_> {
        let repo = Repo::open(root)?;
        let head = repo.head();
        let unpushed = match &head {
            Some(head) => repo.unpushed(head, COMMIT_LIMIT)?,
            None => Vec::new(),
        };
        Ok((repo, head, unpushed))
    };
    let (walked, other) = std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .spawn_scoped(s, || pushed(&entry.root))
            .ok();
        let walked = git::Walked::run(&entry.root, &entry.git_dir);
        let other = match other.map(|h| h.join()) {
            Some(Ok(done)) => done,
            _ => pushed(&entry.root),
        };
        (walked, other)
    });
    // A repository libgit2 cannot open (reftable, a newer extension): ask git.
    let Ok((repo, head, unpushed)) = other else {
        return from_git(state);
    };
    state.head = head;
    state.unpushed = unpushed;
    let status = repo.status_after(walked)?;
    state.status = status.iter().map(git::FileState::porcelain).collect();
    if entry.main {
        for (name, tip) in repo.local_branches() {
            if !repo.unpushed(&tip, 1)?.is_empty() {
                state.unpushed_branches.push(name);
            }
        }
    }
    Ok(state)
}

/// The common dir of a worktree entry's repository.
fn common(entry: &WorktreeEntry) -> PathBuf {
    git::common_dir_of(&entry.git_dir)
}

pub(super) fn worktree_remove(
    event: &Event,
    common_dir: &Path,
    resolved: PathBuf,
    target: &str,
) -> Result<WorktreeFacts> {
    let entries = git::list_worktrees(common_dir);
    let mut facts = WorktreeFacts {
        targets: vec![resolved.clone()],
        worktrees: Vec::new(),
        own: None,
    };
    if let Some(entry) = guard::worktree::pick_worktree(&entries, &resolved, target) {
        let mut state = worktree_state(entry)?;
        super::ignored::add_to_worktree(event, &mut state, false);
        facts.worktrees.push(state);
    }
    Ok(facts)
}

/// The worktrees at or below each `rm -r`/`find` target: registered ones of every clone
/// involved, and any `.git` found by a bounded search.
pub(super) fn tree(
    event: &Event,
    cwd: &Path,
    paths: &[PathBuf],
) -> Result<(WorktreeFacts, Option<PathBuf>)> {
    let mut targets = Vec::new();
    for p in paths {
        let written = p.as_os_str().to_string_lossy();
        let is_link = fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !written.ends_with('/') {
            continue; // rm removes the link, not what it points at
        }
        if fs::symlink_metadata(p).is_ok() {
            let t = canonical_lenient(p);
            // Deleting a repository's own data (`rm -rf .git`, `.git/worktrees`) loses what
            // only it holds: count it as deleting its main worktree.
            if let Some(main_root) = inside_repository_data(&t) {
                targets.push(main_root);
            }
            targets.push(t);
        }
    }
    let mut common_dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for base in [event.cwd.as_path(), cwd] {
        if let Some(l) = git::locate(base, Path::new(".")) {
            common_dirs.insert(l.worktree.common_dir);
        }
    }
    let mut found: BTreeMap<PathBuf, WorktreeEntry> = BTreeMap::new();
    for t in &targets {
        if let Some(l) = git::locate(t, Path::new(".")) {
            common_dirs.insert(l.worktree.common_dir);
        }
        let (roots, cut) = git::worktree_roots_under(t, SCAN_DEPTH, SCAN_ENTRIES);
        if cut && git::locate(t, Path::new(".")).is_none() {
            anyhow::bail!(
                "the search for worktrees below {} stopped at its bound ({SCAN_ENTRIES} entries, \
                 {SCAN_DEPTH} levels)",
                t.display()
            );
        }
        for root in roots {
            let Some(w) = git::worktree_at(&root) else {
                continue;
            };
            common_dirs.insert(w.common_dir.clone());
            let main = w.git_dir == w.common_dir;
            found.entry(root.clone()).or_insert(WorktreeEntry {
                root,
                git_dir: w.git_dir,
                main,
                locked: None,
                husk: false,
            });
        }
    }
    let own = git::locate(cwd, Path::new(".")).map(|l| canonical_lenient(&l.worktree.root));
    for dir in &common_dirs {
        for e in git::list_worktrees(dir) {
            // At or below a target; or holding a target inside it, when it is another
            // worktree than the command's own (`rm -rf ../lane/*`).
            let holds = targets
                .iter()
                .any(|t| t.starts_with(&e.root) && Some(&e.root) != own.as_ref());
            if targets.iter().any(|t| e.root.starts_with(t)) || holds {
                found.insert(e.root.clone(), e);
            }
        }
    }
    let mut worktrees = Vec::new();
    for entry in found.values() {
        let mut state = worktree_state(entry)?;
        super::ignored::add_to_worktree(event, &mut state, false);
        worktrees.push(state);
    }
    let anchor = common_dirs.into_iter().next();
    Ok((
        WorktreeFacts {
            targets,
            worktrees,
            own,
        },
        anchor,
    ))
}

/// When `path` is a clone's `.git` folder or inside it, the main worktree root of that clone.
fn inside_repository_data(path: &Path) -> Option<PathBuf> {
    let git_dir = path.ancestors().find(|d| {
        d.join("HEAD").is_file() && d.join("objects").is_dir() && d.join("refs").is_dir()
    })?;
    // git-dibs's own store (`.git/dibs`) holds none of the repository's work; deleting it is
    // the self-protection rule's to refuse, and it says so.
    if path
        .strip_prefix(git_dir)
        .is_ok_and(|rest| rest.starts_with("dibs"))
    {
        return None;
    }
    Some(git_dir)
        .filter(|d| d.file_name().is_some_and(|n| n == ".git"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// `paths` with the folders the links there lead to, as a `find` that follows them reaches
/// them: the starting points themselves, and with `all` every link to a folder below them (a
/// bounded walk, as deep as the worktree search goes), each written with a trailing `/` so that
/// what it points at is what counts. A walk that reaches its bound is an error: links past it
/// are not known.
pub(super) fn through_links(paths: &[PathBuf], all: bool) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = Vec::new();
    let linked = |p: &Path| {
        fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
            && fs::metadata(p).is_ok_and(|m| m.is_dir())
    };
    let mut budget = SCAN_ENTRIES;
    for p in paths {
        out.push(if linked(p) {
            PathBuf::from(format!("{}/", p.display()))
        } else {
            p.clone()
        });
        if !all {
            continue;
        }
        let mut stack = vec![(p.clone(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                if budget == 0 {
                    anyhow::bail!(
                        "the search for links below {} stopped at its bound ({SCAN_ENTRIES} \
                         entries)",
                        p.display()
                    );
                }
                budget -= 1;
                let path = e.path();
                let Ok(kind) = e.file_type() else { continue };
                if kind.is_symlink() && linked(&path) {
                    out.push(PathBuf::from(format!("{}/", path.display())));
                } else if kind.is_dir() && depth < SCAN_DEPTH && e.file_name() != ".git" {
                    stack.push((path, depth + 1));
                }
            }
        }
    }
    Ok(out)
}

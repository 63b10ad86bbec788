//! A worktree's status as `git status --porcelain` would give it, for [`super::Repo`] and the
//! hooks: from the stat-data scan where it can tell, the rest from libgit2.

use super::FileState;

/// Past this many paths left for libgit2 by the scan, libgit2 reads the whole status instead.
const ASK_AT_MOST: usize = 500;

/// The status of `repo`'s worktree, as [`super::Repo::status`] describes it: from
/// [`scan`](crate::git::scan::scan) where stat data tells, the rest (or everything, when the scan
/// cannot answer) from libgit2.
pub(crate) fn worktree_status(repo: &git2::Repository) -> Result<Vec<FileState>, git2::Error> {
    status_from(repo, crate::git::scan::scan(repo), false).map(|(files, _)| files)
}

/// [`worktree_status`], and the untracked paths the ignore rules hide (a folder with a `/` at
/// its end; ignored folders are not entered).
pub(crate) fn worktree_status_and_ignored(
    repo: &git2::Repository,
) -> Result<(Vec<FileState>, Vec<String>), git2::Error> {
    status_from(repo, crate::git::scan::scan(repo), true)
}

/// The status of `repo`'s worktree from what a scan found (libgit2 settling what the scan
/// could not), or libgit2's full status when there was no usable scan; with `ignored`, also
/// the ignored paths.
pub(super) fn status_from(
    repo: &git2::Repository,
    scan: Option<crate::git::scan::Scan>,
    ignored: bool,
) -> Result<(Vec<FileState>, Vec<String>), git2::Error> {
    let untracked = !untracked_hidden(repo);
    let (mut out, mut hidden) = match scan {
        Some(scan) if scan.ask.len() <= ASK_AT_MOST => {
            let mut found = scan.found;
            let mut hidden = scan.ignored;
            if !scan.ask.is_empty() {
                let (more, more_hidden) = entries(repo, &scan.ask, ignored, untracked)?;
                found.extend(more);
                hidden.extend(more_hidden);
            }
            (found, hidden)
        }
        // The scan gives up on an index with entries marked assume-unchanged or skip-worktree,
        // which libgit2 takes for unchanged without looking: those are compared here.
        _ => {
            let (mut found, hidden) = entries(repo, &[], ignored, untracked)?;
            if let Some(root) = repo.workdir() {
                found.extend(crate::git::flagged::changed_marked(root, repo.path(), None));
            }
            (found, hidden)
        }
    };
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    if !untracked {
        out.retain(|f| f.index != '?');
        hidden.clear();
    }
    if let Some(inner) = git_dir_inside(repo) {
        // A git dir inside its own work tree under another name than `.git` (a dotfiles
        // clone at `~/.dotfiles` for the work tree `~`): its files are no work of anyone's.
        out.retain(|f| !f.path.starts_with(&inner));
        hidden.retain(|p| !p.starts_with(&inner));
    }
    if ignored {
        hidden.sort();
        hidden.dedup();
    } else {
        hidden.clear();
    }
    Ok((out, hidden))
}

/// Whether untracked files are left out of `repo`'s status: the work tree git's environment
/// names (a dotfiles clone over a home folder, see `envrepo`) when its config says
/// `status.showUntrackedFiles=no`, as git's own status there does: the home's untracked
/// files are no one's work in it, and walking them all would make every hook slow. An edit
/// tool's files are still kept, by their paths.
fn untracked_hidden(repo: &git2::Repository) -> bool {
    repo.workdir()
        .is_some_and(|w| crate::git::envrepo::git_env_for(w).is_some())
        && repo
            .config()
            .and_then(|c| c.get_string("status.showUntrackedFiles"))
            .is_ok_and(|v| v.eq_ignore_ascii_case("no"))
}

/// The path (relative, with a `/` at its end) of `repo`'s git dir inside its work tree, when it
/// is there under another name than `.git` (which git leaves out by itself).
fn git_dir_inside(repo: &git2::Repository) -> Option<String> {
    let root = repo.workdir()?;
    let rel = repo.path().strip_prefix(root).ok()?;
    let rel = rel.to_string_lossy().trim_end_matches('/').to_owned();
    (!rel.is_empty() && rel != ".git").then(|| format!("{rel}/"))
}

/// libgit2's status of the whole worktree, or only of `paths` (files, or folders with all that
/// is below them) when there are any. Not sorted.
#[cfg(test)]
pub(crate) fn libgit2_status(
    repo: &git2::Repository,
    paths: &[String],
) -> Result<Vec<FileState>, git2::Error> {
    entries(repo, paths, false, true).map(|(files, _)| files)
}

/// [`libgit2_status`], and with `ignored` the ignored paths too (folders not entered); without
/// `untracked`, no untracked path (nor an ignored one).
fn entries(
    repo: &git2::Repository,
    paths: &[String],
    ignored: bool,
    untracked: bool,
) -> Result<(Vec<FileState>, Vec<String>), git2::Error> {
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(untracked)
        .recurse_untracked_dirs(true)
        .include_ignored(ignored && untracked)
        .recurse_ignored_dirs(false)
        .exclude_submodules(true);
    if !paths.is_empty() {
        opts.disable_pathspec_match(true);
        for p in paths {
            opts.pathspec(p);
        }
    }
    let statuses = repo.statuses(Some(&mut opts))?;
    let mut files = Vec::new();
    let mut hidden = Vec::new();
    for e in statuses.iter() {
        let s = e.status();
        if s == git2::Status::CURRENT {
            continue;
        }
        // A name that is not UTF-8 is held as `pathtext` says.
        let path = crate::pathtext::from_bytes(e.path_bytes()).into_owned();
        if s.is_ignored() {
            hidden.push(path);
        } else {
            files.push(file_state(s, path));
        }
    }
    Ok((files, hidden))
}

/// The porcelain state of a path with libgit2 status `s`.
pub(super) fn file_state(s: git2::Status, path: String) -> FileState {
    use git2::Status as S;
    if s.is_conflicted() {
        return FileState {
            path,
            index: 'U',
            worktree: 'U',
        };
    }
    if s.contains(S::WT_NEW) && !s.intersects(S::INDEX_NEW | S::INDEX_MODIFIED) {
        return FileState {
            path,
            index: '?',
            worktree: '?',
        };
    }
    let index = if s.contains(S::INDEX_NEW) {
        'A'
    } else if s.contains(S::INDEX_MODIFIED) {
        'M'
    } else if s.contains(S::INDEX_DELETED) {
        'D'
    } else if s.contains(S::INDEX_RENAMED) {
        'R'
    } else if s.contains(S::INDEX_TYPECHANGE) {
        'T'
    } else {
        ' '
    };
    let worktree = if s.contains(S::WT_MODIFIED) {
        'M'
    } else if s.contains(S::WT_DELETED) {
        'D'
    } else if s.contains(S::WT_TYPECHANGE) {
        'T'
    } else if s.contains(S::WT_RENAMED) {
        'R'
    } else {
        ' '
    };
    FileState {
        path,
        index,
        worktree,
    }
}

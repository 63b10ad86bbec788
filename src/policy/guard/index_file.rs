//! The index file as the staging it holds: deleting, truncating, overwriting or moving a
//! worktree's index (`rm .git/index`, `cp /dev/null .git/index`, `mv .git/index /tmp/i`,
//! `> .git/index`, a linked worktree's `.git/worktrees/<id>/index`, named through `..`, a `cd`,
//! `$(git rev-parse --git-dir)` or a link to the git dir) drops what every session staged
//! there, as `git read-tree` does: judged by the unstaging rule in the worktree whose index it
//! is. Found by what is on disk: a file named `index` directly in a git dir.

use std::path::{Path, PathBuf};

use super::Op;
use super::resets::unstaged;
use crate::git;
use crate::shell::SimpleCommand;

/// Programs that change a file's flags or times but keep its content: no staging is lost.
const KEEPS_CONTENT: &[&str] = &["touch", "chmod", "chown", "chgrp", "setfattr", "chattr"];

/// The unstaging of everything staged, and the worktree it is judged in, when `cmd` (its argv
/// with long options spelled out) deletes, moves, truncates or writes over a worktree's index.
pub(super) fn classify(argv: &[String], cmd: &SimpleCommand) -> Option<(Op, PathBuf)> {
    let first = argv.first()?;
    let base = first.rsplit('/').next().unwrap_or(first);
    // Removing or renaming replaces the name, not what a link there points at; writing
    // through a name follows it.
    let replaces = matches!(base, "rm" | "unlink" | "mv" | "ln");
    let mut words: Vec<(&str, bool)> = cmd
        .redirects
        .iter()
        .filter(|r| !r.append && matches!(r.fd, None | Some(1 | 2)))
        .map(|r| (r.target.as_str(), true))
        .collect();
    if !KEEPS_CONTENT.contains(&base) {
        let written = super::self_protect::written(base, argv);
        // A hard link's sources are named too (a later write through the link goes unjudged),
        // but linking the index loses nothing: only the destination counts there.
        let written = match base {
            "cp" | "ln" | "install" | "rsync" => written.last().copied().into_iter().collect(),
            _ => written,
        };
        words.extend(written.into_iter().map(|w| {
            let w = w.strip_prefix("of=").unwrap_or(w);
            (w, !replaces)
        }));
    }
    words
        .into_iter()
        .find_map(|(w, follow)| index_of(w, &cmd.cwd, follow))
        .map(|root| (Op::Take(vec![unstaged(Vec::new())]), root))
}

/// The root of the worktree whose index `word` names, if it names one.
fn index_of(word: &str, cwd: &Path, follow: bool) -> Option<PathBuf> {
    if word.is_empty() || super::classify::has_expansion(word) {
        return None;
    }
    let path = Path::new(word);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let full = if follow {
        git::normalize(Path::new(""), &joined)
    } else {
        let name = joined.file_name()?;
        if name == "." || name == ".." {
            return None;
        }
        git::normalize(Path::new(""), joined.parent()?).join(name)
    };
    if full.file_name()? != "index" {
        return None;
    }
    let dir = full.parent()?;
    if !git::gitdir::is_git_dir(dir) {
        return None;
    }
    let here = git::locate(cwd, Path::new(".")).map(|l| l.worktree);
    if let Some(wt) = here.filter(|w| w.git_dir == dir) {
        return Some(wt.root);
    }
    let common = git::common_dir_of(dir);
    let common = std::fs::canonicalize(&common).unwrap_or(common);
    git::list_worktrees(&common)
        .into_iter()
        .find(|w| std::fs::canonicalize(&w.git_dir).is_ok_and(|g| g == dir))
        .map(|w| w.root)
}

//! What a worktree is whatever folder it is in, so that snapshots keyed by its root are found
//! again after it moved (the clone moved with `mv`, a linked worktree with `git worktree move`,
//! or `mv` then `git worktree repair`, a lane's folder renamed): `main` for the clone's main
//! worktree, and `<admin name>/<token>` for a linked one, its admin folder's name under
//! `.git/worktrees/` with a token git-dibs writes in that folder (`dibs-id`) the first time it
//! snapshots there. Git keeps the admin folder through a move and deletes it with the worktree,
//! so a later worktree that reuses the name gets another token and is never taken for the
//! one that was removed.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::Worktree;

/// The identity of a clone's main worktree.
pub(crate) const MAIN: &str = "main";
/// The file in a linked worktree's admin folder that holds its token.
const TOKEN_FILE: &str = "dibs-id";

/// The identity of `wt` (see the module's note), when it is a worktree of the clone whose
/// common dir is `common_dir`; with `create`, a linked worktree without a token gets one.
/// `None` for another clone's worktree (a nested repository's), or a token that cannot be
/// read or written.
pub(crate) fn of(wt: &Worktree, common_dir: &Path, create: bool) -> Option<String> {
    if wt.common_dir != common_dir {
        return None;
    }
    if wt.git_dir == wt.common_dir {
        return Some(MAIN.to_owned());
    }
    let admin = wt.git_dir.file_name()?.to_str()?;
    let token = token(&wt.git_dir).or_else(|| create.then(|| new_token(&wt.git_dir)).flatten())?;
    Some(format!("{admin}/{token}"))
}

/// The token in the admin folder `git_dir`, when it holds a well-formed one.
fn token(git_dir: &Path) -> Option<String> {
    use crate::platform::files::{Links, read_regular};
    let bytes = read_regular(&git_dir.join(TOKEN_FILE), Links::Refuse, 64).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?.trim();
    (text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| text.to_owned())
}

/// Write a new token in the admin folder `git_dir` (created exclusively: when another call
/// wrote one first, that one is read).
fn new_token(git_dir: &Path) -> Option<String> {
    let seed = format!(
        "{}:{}:{:?}",
        std::process::id(),
        git_dir.display(),
        std::time::SystemTime::now()
    );
    let mut id = super::sha1::blob_id(seed.as_bytes());
    id.truncate(16);
    let path = git_dir.join(TOKEN_FILE);
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut f) => {
            f.write_all(format!("{id}\n").as_bytes()).ok()?;
            Some(id)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => token(git_dir),
        Err(_) => None,
    }
}

/// The identity of the worktree whose root is `root` now, when it is one of the clone whose
/// common dir is `common_dir` (nothing is written).
pub(crate) fn at(root: &Path, common_dir: &Path) -> Option<String> {
    of(&super::worktree_at(root)?, common_dir, false)
}

/// Every worktree of the clone whose common dir is `common_dir` as it is now, by identity:
/// its main worktree and the linked ones whose admin folder names a root that leads back to
/// it, and `here` (the worktree a command runs in: where it is, even before `git worktree
/// repair` told git).
pub(crate) fn current(common_dir: &Path, here: Option<&Worktree>) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    if let Some(wt) = here
        && let Some(id) = of(wt, common_dir, false)
    {
        out.push((id, wt.root.clone()));
    }
    for entry in super::list_worktrees(common_dir) {
        if entry.husk {
            continue;
        }
        let Some(wt) = super::worktree_at(&entry.root) else {
            continue;
        };
        // (A root whose `.git` leads to another admin folder is that one's.)
        if wt.git_dir != entry.git_dir && !entry.main {
            continue;
        }
        if let Some(id) = of(&wt, common_dir, false)
            && !out.iter().any(|(i, _)| *i == id)
        {
            out.push((id, wt.root));
        }
    }
    out
}

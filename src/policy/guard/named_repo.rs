//! A git command whose repository is named rather than found (`GIT_DIR`, `GIT_WORK_TREE`,
//! `GIT_COMMON_DIR`, `--git-dir`, `--work-tree`, in the line or inherited from the host's
//! environment): judged against that repository where the guard can read it, and asked about
//! where it cannot (a name only known when it runs, another clone's refs and objects, a work
//! tree that holds another clone's worktree at the command's cwd, a `-C` folder that does not
//! exist yet).

use super::classify::has_expansion;
use crate::git::{self, GitInvocation};

/// Why the repository `inv` works on cannot be judged, when it cannot.
pub(super) fn unjudged(inv: &GitInvocation) -> Option<String> {
    let dir_unknown = [&inv.git_dir, &inv.work_tree].iter().any(|d| {
        d.as_ref()
            .is_some_and(|p| has_expansion(&p.to_string_lossy()))
    });
    if dir_unknown {
        return Some(
            "its repository (`GIT_DIR`, `GIT_WORK_TREE`) is only known when it runs".into(),
        );
    }
    if let Some((_, v)) = inv.env.iter().rev().find(|(k, _)| k == "GIT_COMMON_DIR")
        && !v.is_empty()
    {
        return Some(format!(
            "`GIT_COMMON_DIR={v}` gives it another repository's branches and objects"
        ));
    }
    let foreign = git::foreign_between(inv)?;
    Some(format!(
        "it runs in {}, a worktree of another repository, on the repository `GIT_DIR` or \
         `GIT_WORK_TREE` names",
        foreign.display()
    ))
}

/// Why the folder `git -C DIR` runs in cannot be judged: it does not exist when the guard looks
/// (a worktree, clone or folder made earlier in the same line), so what it holds is only known
/// when the command runs.
/// Only a folder named from one that exists counts (`cwd` is where the command itself runs).
pub(super) fn not_there_yet(
    inv: &GitInvocation,
    cwd: &std::path::Path,
    cwd_known: bool,
) -> Option<String> {
    if !cwd_known || !cwd.exists() || inv.cwd.exists() || has_expansion(&inv.cwd.to_string_lossy())
    {
        return None;
    }
    Some(format!(
        "the folder it runs in ({}) does not exist yet, so what it holds is only known when it \
         runs",
        inv.cwd.display()
    ))
}

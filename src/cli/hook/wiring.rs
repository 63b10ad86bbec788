//! The edits a claim hook refuses: an edit tool's change to an agent host's settings file
//! that takes git-dibs's hooks out, disables them, or sets the guard's bypass (or a `dibs.*`
//! setting) in the file's `env`; and a write into git-dibs's store or a git directory's config,
//! refs, objects or git-dibs's git hooks. Every other edit goes ahead, warned about at most.
//! Claude Code's `ConfigChange` is refused the same way for a settings change made by any other
//! means.

use std::path::{Path, PathBuf};

use crate::protocol::settings::{PROJECT_FILES, host_of_file, weakening};
use crate::protocol::{EditChange, Event, Response};

/// What an edit of each of `paths` really writes: the file behind any link on the way (a
/// linked folder or file), and for a file with another name (a hard link) the host settings
/// file of the worktree it is.
pub(crate) fn real_targets(event: &Event, paths: &[PathBuf]) -> Vec<PathBuf> {
    let settings = || {
        crate::git::locate(&event.cwd, Path::new("."))
            .map(|l| {
                PROJECT_FILES
                    .iter()
                    .map(|f| l.worktree.root.join(f))
                    .collect()
            })
            .unwrap_or_default()
    };
    paths
        .iter()
        .map(|named| {
            let real = crate::git::normalize(&event.cwd, named);
            crate::platform::files::other_name_of(&real, settings).unwrap_or(real)
        })
        .collect()
}

/// The refusal of an edit of `paths` (really of `real`, see [`real_targets`]) by `change`
/// that weakens git-dibs, if it does (of any path the tool names: Codex's patch changes
/// several).
pub(crate) fn refuse_weakening(
    paths: &[PathBuf],
    real: &[PathBuf],
    change: &EditChange,
) -> Option<Response> {
    paths
        .iter()
        .zip(real)
        .enumerate()
        .find_map(|(i, (named, path))| {
            let host = host_of_file(path)?;
            let current = crate::git::read_worktree_file(path).unwrap_or_default();
            let current = String::from_utf8_lossy(&current);
            // A change that cannot be told is left to the ConfigChange hook and `doctor`.
            let after = change.of(named, i).apply(&current)?;
            let found = weakening(host, current.as_bytes(), after.as_bytes());
            (!found.is_empty()).then(|| refusal(path, &found))
        })
}

/// The refusal of an edit tool's write into git-dibs's store or a git directory of this clone
/// (`.git/config` with git-dibs's settings, the refs, the objects, the audit log, git-dibs's git
/// hooks), if `paths` reach one: git's own commands do that, and the guard judges them.
pub(crate) fn refuse_internals(event: &Event, real: &[PathBuf]) -> Option<Response> {
    real.iter().find_map(|path| {
        let what = crate::policy::guard::self_protect::protected_file(path, &event.cwd)?;
        let reason = format!(
            "git-dibs refused this edit of {}: it is {what}, which an edit tool does not \
             change. Use git's own commands (`git config`, `git update-ref`, ...), which the \
             guard judges, or ask the person. [guard:self-protect]",
            path.display()
        );
        Some(Response::Deny {
            person: Some(reason.clone()),
            reason,
        })
    })
}

/// The refusal naming what the change of `path` would take away.
pub(crate) fn refusal(path: &Path, found: &[String]) -> Response {
    let reason = format!(
        "git-dibs refused this change to {}: {}. git-dibs's hooks keep every session's work \
         guarded, and only the person may unwire them (`git dibs uninstall`, or by editing the \
         file themselves). [guard:self-protect]",
        path.display(),
        found.join("; ")
    );
    Response::Deny {
        person: Some(reason.clone()),
        reason,
    }
}

/// A settings file changed by any means (Claude Code's `ConfigChange`): refused when what it
/// holds now weakens git-dibs on its face: the bypass or a `dibs.*` setting in its `env`,
/// all hooks disabled, or some of git-dibs's hooks gone while others remain; or when it takes
/// out hooks its committed copy has. (A file with no git-dibs hook at all, committed or not,
/// may simply not be where git-dibs is wired.)
pub(crate) fn config_change(path: Option<&Path>) -> Response {
    let Some(path) = path else {
        return Response::Silent;
    };
    let Some(host) = host_of_file(path) else {
        return Response::Silent;
    };
    let Some(now) = crate::git::read_worktree_file(path) else {
        return Response::Silent;
    };
    let mut found = weakening(host, b"{}", &now);
    let partial = crate::protocol::settings::partly_unwired(host, &now);
    found.extend(partial);
    // A committed file that wires git-dibs, changed to wire it no more (or less).
    if found.is_empty()
        && let Some(dir) = path.parent()
        && let Some(l) = crate::git::locate(dir, path)
        && let Some(committed) = crate::git::committed_file(&l.worktree.root, &l.relative, 1 << 20)
    {
        found = weakening(host, &committed, &now);
    }
    if found.is_empty() {
        Response::Silent
    } else {
        refusal(path, &found)
    }
}

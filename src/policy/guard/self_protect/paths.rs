//! Which paths are git-dibs's state or wiring, or git's own: the store, refs, objects, git
//! hooks and git directories of this clone (by what the folders are on disk, whatever they are
//! named), and the hosts' hook wiring files and the folders that hold them.

use std::fs;
use std::path::{Component, Path};

/// What the file an edit tool is about to write is, when it is git-dibs's state or wiring or
/// git's own (the same judgement as a shell command's path; the hosts' settings files are
/// judged by what the edit changes instead, elsewhere).
pub(crate) fn protected_file(path: &Path, cwd: &Path) -> Option<&'static str> {
    protected(&path.to_string_lossy(), cwd).filter(|what| !what.starts_with("an agent host's"))
}

/// What a protected path is.
pub(super) fn protected(word: &str, cwd: &Path) -> Option<&'static str> {
    if word.is_empty() {
        return None;
    }
    // `$(git rev-parse --git-common-dir)/dibs`, `$GIT_DIR/dibs/audit.log`: the store by name.
    let dynamic_git_dir = (word.contains("git-common-dir")
        || word.contains("git-dir")
        || word.contains("GIT_DIR")
        || word.contains("GIT_COMMON_DIR"))
        && (word.ends_with("/dibs") || word.contains("/dibs/") || word.ends_with("/dibs/"));
    if dynamic_git_dir {
        return Some("the git-dibs store");
    }
    if word.starts_with("refs/dibs") {
        return Some("git-dibs's refs under refs/dibs/");
    }
    let path = crate::git::normalize(cwd, Path::new(word));
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let git_dir = |n: &str| n == ".git" || n.ends_with(".git");
    for (i, n) in names.iter().enumerate() {
        if !git_dir(n) {
            continue;
        }
        match (
            names.get(i + 1).map(String::as_str),
            names.get(i + 2).map(String::as_str),
        ) {
            (None, _) if n == ".git" => {
                return Some("the repository's .git folder, with the git-dibs store in it");
            }
            (Some("dibs"), _) => return Some("the git-dibs store"),
            (Some("refs"), None) => return Some("the repository's refs, with refs/dibs/ in them"),
            (Some("refs"), Some("dibs")) => return Some("git-dibs's refs under refs/dibs/"),
            _ => {}
        }
    }
    if let Some(what) = by_state(&path, cwd) {
        return Some(what);
    }
    if let Some(last) = names.last()
        && wiring_folder(last, &path)
    {
        return Some("an agent host's hook wiring (the folder that holds it)");
    }
    let [.., dir, file] = names.as_slice() else {
        return None;
    };
    let wiring = match dir.as_str() {
        ".claude" => file.starts_with("settings") && file.ends_with(".json"),
        ".gemini" => file == "settings.json",
        ".codex" | ".cursor" => file == "hooks.json",
        _ => false,
    };
    wiring.then_some("an agent host's hook wiring")
}

/// What a path inside a git dir of this clone (or of any clone git-dibs keeps a store in) is,
/// judged by what the folders are on disk, whatever they are named (`proj/.bare`,
/// `--separate-git-dir`, `.git/modules/<name>`, `.git/worktrees/<id>`). Lock files, logs of
/// git's own and the like are not protected.
fn by_state(path: &Path, cwd: &Path) -> Option<&'static str> {
    let Some(held) = crate::git::gitdir::holding(path) else {
        // A folder that holds this clone's git dir (`rm -rf ../store.d` of a separate one).
        let holds_ours = path.is_dir()
            && crate::git::gitdir::common_dir_from(cwd)
                .is_some_and(|c| c.starts_with(path) && !cwd.starts_with(path));
        return holds_ours.then_some("a folder holding this clone's git directory");
    };
    let ours = held.common_dir.join("dibs").is_dir()
        || crate::git::gitdir::common_dir_from(cwd).is_some_and(|c| {
            c == held.common_dir || fs::canonicalize(&held.git_dir).is_ok_and(|g| g.starts_with(&c))
        });
    if !ours {
        return None;
    }
    let rel: Vec<String> = path
        .strip_prefix(&held.git_dir)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let first = rel.first().map(String::as_str);
    Some(match first {
        None => "a git directory of this clone (every branch, object and the git-dibs store)",
        Some("dibs") => "the git-dibs store",
        Some("refs" | "packed-refs" | "reftable" | "logs" | "HEAD") => {
            "the repository's refs (branches, refs/dibs/ snapshots and retention)"
        }
        Some("objects") => "the repository's objects",
        Some("worktrees") if rel.len() <= 2 => "the worktrees' git directories",
        Some("modules") => "the submodules' repositories",
        Some("commondir" | "gitdir") => "a worktree's link to its repository",
        Some("config") => "the repository's config (with git-dibs's settings)",
        Some("hooks") if rel.len() == 1 || dibs_hook(path) => "git-dibs's git hooks",
        _ => return None,
    })
}

/// Whether the git hook at `path` is one of git-dibs's shims (it names git-dibs).
fn dibs_hook(path: &Path) -> bool {
    crate::platform::files::read_regular(path, crate::platform::files::Links::Follow, 64 * 1024)
        .is_ok_and(|b| String::from_utf8_lossy(&b).contains("dibs"))
}

/// Whether `path`, named `name`, is a host's settings folder holding its hook wiring.
fn wiring_folder(name: &str, path: &Path) -> bool {
    let files: &[&str] = match name {
        ".claude" => &["settings.json", "settings.local.json"],
        ".gemini" => &["settings.json"],
        ".codex" | ".cursor" => &["hooks.json"],
        _ => return false,
    };
    files.iter().any(|f| path.join(f).is_file())
}

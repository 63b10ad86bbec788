//! A line that writes into a git hooks folder (a git directory's `hooks/`, or the folder the
//! clone's `core.hooksPath` names) and then runs git (red team 8b/08, 09): the hook
//! it writes (`post-checkout`, `post-index-change`, which even `git status` fires, ...) runs
//! code the guard did not read when the later git command runs. That git command is judged like
//! a program that runs code (by what is at risk within reach). git-dibs's own hooks are
//! [`super::self_protect`]'s; `-c core.hooksPath=` on the line is asked about by
//! [`super::programs`].

use std::path::{Component, Path, PathBuf};

use super::{Guarded, Op};
use crate::shell::SimpleCommand;

/// `cwd` joined with `p`, `.` and `..` folded.
fn folded(cwd: &Path, p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(p).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `path` is a git directory's `hooks` folder or a file in it.
fn in_hooks(path: &Path) -> bool {
    let Some(held) = crate::git::gitdir::holding(path) else {
        return false;
    };
    path.strip_prefix(&held.git_dir)
        .ok()
        .and_then(|rel| rel.components().next())
        .is_some_and(|c| c.as_os_str() == "hooks")
}

/// The hooks folder `core.hooksPath` names in the config of the clone `cwd` is in (its own
/// config file only; a relative path is from the worktree's top).
fn hooks_path(cwd: &Path) -> Option<PathBuf> {
    let common = crate::git::gitdir::common_dir_from(cwd)?;
    let text = crate::platform::files::read_regular(
        &common.join("config"),
        crate::platform::files::Links::Follow,
        256 * 1024,
    )
    .ok()?;
    let text = String::from_utf8_lossy(&text);
    let mut core = false;
    let mut value = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            core = line
                .trim_matches(['[', ']'])
                .trim()
                .eq_ignore_ascii_case("core");
        } else if core
            && let Some((k, v)) = line.split_once('=')
            && k.trim().eq_ignore_ascii_case("hookspath")
        {
            value = Some(v.trim().trim_matches('"').to_owned());
        }
    }
    let value = value.filter(|v| !v.is_empty() && !v.starts_with('~'))?;
    let top = cwd.ancestors().find(|d| d.join(".git").exists())?;
    Some(folded(top, Path::new(&value)))
}

/// The git commands of `cmds` that run after an earlier one wrote into a hooks folder, each as
/// a program that runs code git-dibs did not read.
pub(super) fn after_hook_writes(cmds: &[SimpleCommand]) -> Vec<Guarded> {
    let mut out = Vec::new();
    let mut written: Option<PathBuf> = None;
    for c in cmds {
        if let Some(hook) = &written
            && crate::git::parse_invocation(&c.argv, &c.cwd, &c.assignments).is_some()
        {
            out.push(Guarded {
                op: Op::Runs {
                    what: format!(
                        "a git hook written earlier in this line ({}) runs when git does, and it \
                         may",
                        hook.display()
                    ),
                },
                cwd: c.cwd.clone(),
                git: None,
                display: super::classify::display(&c.argv),
                bypass: c
                    .assignments
                    .iter()
                    .any(|(k, v)| k == super::BYPASS_VAR && v == "1"),
                unknown: None,
                runner: None,
            });
        }
        if written.is_none() {
            let writes = crate::policy::writes::shell_writes(std::slice::from_ref(c));
            // The config is read only for a command that writes something.
            let configured = (!writes.is_empty()).then(|| hooks_path(&c.cwd)).flatten();
            written = writes
                .into_iter()
                .map(|w| folded(&w.cwd, &w.path))
                .find(|p| in_hooks(p) || configured.as_ref().is_some_and(|h| p.starts_with(h)));
        }
    }
    out
}

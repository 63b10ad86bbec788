//! `git dibs install --git-hooks` and `uninstall --git-hooks`: small shell shims in the hooks
//! folder git actually uses (`git rev-parse --git-path hooks`, which follows `core.hooksPath`)
//! that run `git-dibs githook <name>` and then the hook that was there before. Nothing is
//! overwritten: an existing hook is renamed `<name>.dibs-chained` and the shim calls it with the
//! same arguments and input, its exit status respected. Uninstall renames it back, so what was
//! there returns byte for byte with its mode. Also the check `doctor` shows.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::HOOKS;
use crate::cli::install::{Mode, Report, find_on_path};
use crate::platform::files;

/// The line that marks a file as a git-dibs shim.
const MARKER: &str = "# git-dibs githook shim:";
/// The suffix of a hook moved aside to be chained.
const CHAINED: &str = ".dibs-chained";

/// The shim for hook `name`. Hooks with input on stdin (`reference-transaction`) read it once
/// and hand the same bytes to git-dibs and to the chained hook.
pub(crate) fn shim(name: &str) -> String {
    let stdin = name == "reference-transaction";
    let mut s = format!(
        "#!/bin/sh\n{MARKER} {name}\n# Written by `git dibs install --git-hooks`; `git dibs \
         uninstall --git-hooks` removes it\n# and puts back the hook it chains ({name}{CHAINED}), \
         if there is one.\nchained=\"$(dirname \"$0\")/{name}{CHAINED}\"\n"
    );
    // `reference-transaction` runs git-dibs twice: `prepared` (it may refuse) and `committed`
    // (it keeps what the updates left); the warning is said once.
    let (feed, guard_when, warn_when) = if stdin {
        s.push_str("input=$(cat; echo .)\ninput=${input%.}\n");
        (
            "printf '%s' \"$input\" | ",
            "[ \"$1\" = prepared ] || [ \"$1\" = committed ]",
            "elif [ \"$1\" = prepared ]; then",
        )
    } else {
        ("", "true", "else")
    };
    let redirect = if stdin { "" } else { " </dev/null" };
    s.push_str(&format!(
        "if {guard_when}; then\n\tif command -v git-dibs >/dev/null 2>&1; then\n\t\t{feed}\
         git-dibs githook {name} \"$@\"{redirect} || exit $?\n\t{warn_when}\n\t\techo \"git-dibs \
         is not on PATH: its {name} check is skipped\" >&2\n\tfi\nfi\n"
    ));
    if stdin {
        s.push_str(
            "if [ -x \"$chained\" ]; then\n\tprintf '%s' \"$input\" | \"$chained\" \"$@\"\n\texit \
             $?\nfi\nexit 0\n",
        );
    } else {
        s.push_str("if [ -x \"$chained\" ]; then\n\texec \"$chained\" \"$@\"\nfi\nexit 0\n");
    }
    s
}

/// The hooks folder git uses from the current directory (absolute).
pub(crate) fn hooks_dir() -> Result<PathBuf> {
    let out = Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .stdin(Stdio::null())
        .output()
        .context("cannot run git: install git or put it on PATH")?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        if crate::git::cli::oldgit::is_too_old(&text) {
            bail!("{}", crate::git::cli::oldgit::message(&text));
        }
        bail!(
            "cannot find the git hooks folder: {}",
            crate::text::clean(&text, crate::text::MAX_SHOWN)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Ok(PathBuf::from(text))
}

/// What is at a hook's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    /// Nothing.
    Missing,
    /// Someone else's hook (a file or link that is not our shim).
    Foreign,
    /// Our shim; `current` when it is this version's text.
    Ours {
        /// Same text as this version writes.
        current: bool,
    },
}

/// The most a hook file may hold to be read for the marker.
const MAX_HOOK: u64 = 1 << 20;

/// What is at `path`. Only a regular file (not a link) is read, so a FIFO there never blocks.
fn state(path: &Path, name: &str) -> State {
    if fs::symlink_metadata(path).is_err() {
        return State::Missing;
    }
    match files::read_regular(path, files::Links::Refuse, MAX_HOOK) {
        Ok(bytes) if String::from_utf8_lossy(&bytes).contains(MARKER) => State::Ours {
            current: bytes == shim(name).as_bytes(),
        },
        _ => State::Foreign,
    }
}

/// A hook place holding a FIFO, a socket or a device (itself or behind a link): git cannot run
/// it, and it is neither chained nor replaced. The message names it and what to do.
fn special(path: &Path) -> Option<String> {
    let kind = files::special_kind(path).filter(|k| *k != "a folder")?;
    Some(format!(
        "{} is {kind}, not a hook script: git cannot run it, and git-dibs neither chains nor \
         replaces it; remove it (`rm {}`), then run `git dibs install --git-hooks`",
        path.display(),
        crate::text::shell_word(&path.to_string_lossy())
    ))
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// One step of an install or uninstall.
#[derive(Debug)]
enum Step {
    /// Write the shim (new, or replacing an older shim).
    Write,
    /// Move the existing hook aside, then write the shim.
    Chain,
    /// Remove the shim.
    Remove,
    /// Put the chained hook back (after removing the shim, if there is one).
    Restore,
}

/// Plan the steps for `mode` in `dir`; refuses (changing nothing) when a hook is in the way.
fn plan(dir: &Path, mode: Mode) -> Result<Vec<(&'static str, Option<Step>)>> {
    let mut steps = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let chained = dir.join(format!("{name}{CHAINED}"));
        if let (Mode::Install, Some(problem)) = (mode, special(&path)) {
            bail!("refusing to install: {problem}. Nothing was changed");
        }
        let step = match (mode, state(&path, name)) {
            (Mode::Install, State::Ours { current: true }) => None,
            (Mode::Install, State::Ours { current: false } | State::Missing) => Some(Step::Write),
            (Mode::Install, State::Foreign) if exists(&chained) => bail!(
                "refusing to install: {} is not git-dibs's shim and {} exists too, so neither \
                 can be chained without overwriting the other; move one of them away. Nothing \
                 was changed",
                path.display(),
                chained.display()
            ),
            (Mode::Install, State::Foreign) => Some(Step::Chain),
            (Mode::Uninstall, State::Ours { .. }) if exists(&chained) => Some(Step::Restore),
            (Mode::Uninstall, State::Ours { .. }) => Some(Step::Remove),
            (Mode::Uninstall, State::Missing) if exists(&chained) => Some(Step::Restore),
            (Mode::Uninstall, _) => None,
        };
        steps.push((name, step));
    }
    Ok(steps)
}

/// Write `text` to `path` as an executable file, atomically.
fn write_shim(path: &Path, text: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    files::replace_atomically(path, |tmp| {
        fs::write(tmp, text)?;
        fs::set_permissions(tmp, fs::Permissions::from_mode(0o755))
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

fn apply(dir: &Path, name: &str, step: &Step) -> Result<()> {
    let path = dir.join(name);
    let chained = dir.join(format!("{name}{CHAINED}"));
    let rename = |from: &Path, to: &Path| {
        fs::rename(from, to)
            .with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))
    };
    match step {
        Step::Write => write_shim(&path, &shim(name)),
        Step::Chain => {
            rename(&path, &chained)?;
            write_shim(&path, &shim(name))
        }
        Step::Remove => match fs::remove_file(&path) {
            Err(e) if e.kind() != ErrorKind::NotFound => {
                Err(e).with_context(|| format!("cannot remove {}", path.display()))
            }
            _ => Ok(()),
        },
        Step::Restore => rename(&chained, &path),
    }
}

fn describe(dir: &Path, name: &str, step: &Step, dry_run: bool) -> String {
    let would = if dry_run { "would " } else { "" };
    let path = dir.join(name);
    let shown = path.display();
    match (step, dry_run) {
        (Step::Write, _) => format!("{would}write {shown}"),
        (Step::Chain, _) => format!(
            "{would}move the existing {shown} to {name}{CHAINED} and write {shown}, which runs it \
             after git-dibs"
        ),
        (Step::Remove, true) => format!("would remove {shown}"),
        (Step::Remove, false) => format!("removed {shown}"),
        (Step::Restore, true) => format!("would put {name}{CHAINED} back as {shown}"),
        (Step::Restore, false) => format!("put {name}{CHAINED} back as {shown}"),
    }
}

/// Run `install --git-hooks` or `uninstall --git-hooks` from the current directory.
pub(crate) fn run(mode: Mode, dry_run: bool, report: &mut Report) -> Result<()> {
    let dir = hooks_dir()?;
    let steps = plan(&dir, mode)?;
    let todo: Vec<(&str, Step)> = steps
        .into_iter()
        .filter_map(|(n, s)| Some((n, s?)))
        .collect();
    if todo.is_empty() {
        let summary = match mode {
            Mode::Install => format!(
                "git-dibs git hooks are already installed in {}; nothing changed",
                dir.display()
            ),
            Mode::Uninstall => format!(
                "no git-dibs git hooks in {}; nothing changed",
                dir.display()
            ),
        };
        report.file("git", &dir, false, summary);
        return Ok(());
    }
    if mode == Mode::Install && !dry_run && find_on_path().is_none() {
        report.note(
            "note: git-dibs is not on PATH, so these git hooks skip their checks until it is: put \
             the folder holding git-dibs on PATH",
        );
    }
    if !dry_run && mode == Mode::Install {
        fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    for (name, step) in &todo {
        if !dry_run {
            apply(&dir, name, step)?;
        }
        let line = describe(&dir, name, step, dry_run);
        let line = match (dry_run, step) {
            (false, Step::Write | Step::Chain) => format!("installed {name}: {line}"),
            _ => line,
        };
        report.file("git", &dir.join(name), true, line);
    }
    if dry_run {
        report.note("dry run, nothing written");
    }
    Ok(())
}

/// What `doctor` says about the git hooks: `Ok(line)` or `Err(problem)`.
pub(crate) fn health() -> std::result::Result<String, String> {
    let dir = match hooks_dir() {
        Ok(d) => d,
        Err(e) => return Err(format!("{e:#}: the git hooks were not checked")),
    };
    if let Some(problem) = HOOKS.iter().find_map(|n| special(&dir.join(n))) {
        return Err(problem);
    }
    let states: Vec<(&str, State)> = HOOKS.iter().map(|n| (*n, state(&dir.join(n), n))).collect();
    let ours: Vec<&str> = states
        .iter()
        .filter(|(_, s)| matches!(s, State::Ours { .. }))
        .map(|(n, _)| *n)
        .collect();
    let shown = dir.display();
    if ours.is_empty() {
        return Ok(format!(
            "git hooks are not installed in {shown} (optional: `git dibs install --git-hooks` \
             guards commits and branch deletions by people and agents no host hook covers)"
        ));
    }
    let missing: Vec<&str> = states
        .iter()
        .filter(|(_, s)| !matches!(s, State::Ours { .. }))
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "git hooks are only partly installed in {shown}: {} missing; run `git dibs install \
             --git-hooks`",
            missing.join(", ")
        ));
    }
    let stale: Vec<&str> = states
        .iter()
        .filter(|(_, s)| *s == State::Ours { current: false })
        .map(|(n, _)| *n)
        .collect();
    if !stale.is_empty() {
        return Err(format!(
            "the git hooks {} in {shown} are from another git-dibs version: run `git dibs \
             install --git-hooks` to update them",
            stale.join(", ")
        ));
    }
    let not_exec: Vec<&str> = HOOKS
        .iter()
        .filter(|n| !is_executable(&dir.join(n)))
        .copied()
        .collect();
    if !not_exec.is_empty() {
        return Err(format!(
            "the git hooks {} in {shown} are not executable, so git skips them: run `chmod +x` \
             on them",
            not_exec.join(", ")
        ));
    }
    let chained: Vec<&str> = HOOKS
        .iter()
        .filter(|n| exists(&dir.join(format!("{n}{CHAINED}"))))
        .copied()
        .collect();
    let chain = if chained.is_empty() {
        String::new()
    } else {
        format!(", chaining the earlier {}", chained.join(", "))
    };
    Ok(format!(
        "git hooks are installed in {shown}: {}{chain}",
        HOOKS.join(", ")
    ))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_call_git_dibs_and_the_chained_hook() {
        for name in HOOKS {
            let s = shim(name);
            assert!(s.starts_with("#!/bin/sh\n"));
            assert!(s.contains(&format!("git-dibs githook {name} \"$@\"")));
            assert!(s.contains(&format!("{name}{CHAINED}")));
        }
        assert!(shim("reference-transaction").contains("input=$(cat; echo .)"));
        assert!(!shim("pre-commit").contains("cat"));
    }
}

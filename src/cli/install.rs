//! `git dibs install` and `git dibs uninstall`: wiring the hooks into a Claude Code settings file
//! (project, local or user), merging without clobbering and writing atomically. Also the
//! look-ups `doctor` shares: where each settings file is and whether `git-dibs` is on PATH.

use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow};

use crate::platform::files;
use crate::protocol::settings::{self, HOOKS, Settings};

mod hosts;
mod report;

pub(crate) use report::Report;

/// Options of `install` and `uninstall`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Write `.claude/settings.local.json` (personal, not committed).
    #[arg(long, conflicts_with = "user")]
    pub(crate) local: bool,
    /// Write the user's `~/.claude/settings.json` (every project).
    #[arg(long)]
    pub(crate) user: bool,
    /// Wire Claude Code (the default when no host is named).
    #[arg(long)]
    pub(crate) claude: bool,
    /// Wire Cursor: `.cursor/hooks.json`.
    #[arg(long, conflicts_with_all = ["local", "user"])]
    pub(crate) cursor: bool,
    /// Wire Gemini CLI: `.gemini/settings.json`.
    #[arg(long, conflicts_with_all = ["local", "user"])]
    pub(crate) gemini: bool,
    /// Wire Codex: `.codex/hooks.json`.
    #[arg(long, conflicts_with_all = ["local", "user"])]
    pub(crate) codex: bool,
    /// Wire every host: Claude Code, Cursor, Gemini CLI and Codex.
    #[arg(long, conflicts_with_all = ["local", "user"])]
    pub(crate) all: bool,
    /// Print the resulting file instead of writing it.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Install (or uninstall) the git hooks instead: pre-commit, reference-transaction and
    /// post-commit shims in git's hooks folder, chaining any hook already there.
    #[arg(long, conflicts_with_all = ["local", "user"])]
    pub(crate) git_hooks: bool,
    /// Print one JSON object: each file, whether it changed, and the notes.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Install or uninstall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Add our hooks.
    Install,
    /// Remove our hooks.
    Uninstall,
}

/// Which Claude Code settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// `<worktree>/.claude/settings.json`, shared through the repository.
    Project,
    /// `<worktree>/.claude/settings.local.json`, personal.
    Local,
    /// `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/settings.json`, every project.
    User,
}

impl Scope {
    /// Every scope, in the order they are reported.
    pub(crate) const ALL: [Scope; 3] = [Scope::Project, Scope::Local, Scope::User];

    fn of(args: &Args) -> Scope {
        match (args.local, args.user) {
            (true, _) => Scope::Local,
            (_, true) => Scope::User,
            _ => Scope::Project,
        }
    }

    /// A short name for messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }

    /// The command-line flag that selects this scope (with a leading space), or nothing.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Scope::Project => "",
            Scope::Local => " --local",
            Scope::User => " --user",
        }
    }

    /// The settings file of this scope; `root` is the worktree (needed for project and local).
    pub(crate) fn path(self, root: Option<&Path>) -> Option<PathBuf> {
        match self {
            Scope::Project => Some(root?.join(".claude").join("settings.json")),
            Scope::Local => Some(root?.join(".claude").join("settings.local.json")),
            Scope::User => Some(user_config_dir()?.join("settings.json")),
        }
    }
}

/// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
fn user_config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(std::env::home_dir)?;
    Some(home.join(".claude"))
}

/// The first executable `git-dibs` on PATH, if any.
pub(crate) fn find_on_path() -> Option<PathBuf> {
    let name = format!("{}{}", settings::PROGRAM, std::env::consts::EXE_SUFFIX);
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(&name))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The most a settings or hook file may hold to be read.
const MAX_SETTINGS: u64 = 16 << 20;

/// Read and parse a settings file; `None` when it does not exist. The error names the file.
/// Only a regular file is read (a link to one too): a FIFO, a socket or a device is never
/// opened for reading, so neither `doctor` nor `install` waits on one.
pub(crate) fn load(path: &Path) -> Result<Option<(Vec<u8>, Settings)>> {
    let bytes = match files::read_regular(path, files::Links::Follow, MAX_SETTINGS) {
        Ok(b) => b,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == ErrorKind::InvalidData => {
            let kind = files::special_kind(path).unwrap_or("not a regular file");
            return Err(anyhow!(
                "{} is {kind}, not a settings file, so git-dibs does not read it: remove it, or \
                 put a JSON file there",
                path.display()
            ));
        }
        Err(e) => return Err(anyhow!(e).context(format!("cannot read {}", path.display()))),
    };
    let parsed = Settings::parse(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Some((bytes, parsed)))
}

/// The hook command to wire for `scope`, and a note for the person when PATH lacks git-dibs.
///
/// With `git-dibs` on PATH the command is `git-dibs hook`, which survives upgrades and moves.
/// Without it, a personal file (local, user) gets this binary's absolute path so the hooks work
/// now; the project file, which is shared, keeps the portable `git-dibs hook` and says why.
fn choose_command(scope: Scope) -> (String, Option<String>) {
    let portable = settings::hook_command(settings::PROGRAM);
    if find_on_path().is_some() {
        return (portable, None);
    }
    let exe = std::env::current_exe().and_then(fs::canonicalize).ok();
    match (scope, exe.as_deref().and_then(Path::to_str)) {
        (Scope::Local | Scope::User, Some(exe)) => (
            settings::hook_command(exe),
            Some(format!(
                "note: git-dibs is not on PATH, so the hooks run it by its full path, {exe}"
            )),
        ),
        _ => (
            portable,
            Some(
                "note: git-dibs is not on PATH, so these hooks fail until it is: put the folder \
                 holding git-dibs on PATH (or use --local to wire this binary's full path)"
                    .to_owned(),
            ),
        ),
    }
}

/// Replace `path` with `bytes` atomically: a temporary file in the same folder, then a rename.
/// The folder is created if needed and an existing file's permissions are kept.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    files::replace_atomically(path, |tmp| {
        let mut file = File::create_new(tmp)?;
        file.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

/// The file to write for `path`: its target when it is a symbolic link (dotfile managers), so
/// the link survives the rename; then `report` says which file that is ([`load`] refuses it
/// when it is not a regular file).
fn write_target(path: &Path, report: &mut Report) -> Result<PathBuf> {
    let target = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)
            .with_context(|| format!("{} is a link to a missing file", path.display()))?,
        _ => path.to_path_buf(),
    };
    if target != path {
        report.note(format!(
            "note: {} is a symbolic link; git-dibs reads and writes the file it points to, {}",
            path.display(),
            target.display()
        ));
    }
    Ok(target)
}

/// Run `install` or `uninstall`.
pub(crate) fn run(args: Args, mode: Mode) -> Result<ExitCode> {
    if mode == Mode::Install && !args.dry_run {
        super::docs::install_man_page_beside_binary();
    }
    let mut report = Report::new(mode, args.dry_run, args.json);
    if args.git_hooks {
        super::githooks::install::run(mode, args.dry_run, &mut report)?;
    } else if hosts::run_others(&args, mode, &mut report)? {
        run_claude(&args, mode, &mut report)?;
    }
    report.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Install or uninstall in Claude Code's settings file of the scope `args` names.
fn run_claude(args: &Args, mode: Mode, report: &mut Report) -> Result<()> {
    let scope = Scope::of(args);
    let root = match scope {
        Scope::User => None,
        Scope::Project | Scope::Local => Some(super::current_worktree_any()?.root),
    };
    let path = scope
        .path(root.as_deref())
        .context("cannot find your home folder: set HOME or CLAUDE_CONFIG_DIR")?;
    let shown = path.display();
    let target = write_target(&path, report)?;
    let loaded = load(&target).map_err(|e| anyhow!("{e:#}; nothing was changed"))?;
    let (original, mut settings) = match loaded {
        Some((bytes, parsed)) => (Some(bytes), parsed),
        None => (None, Settings::empty()),
    };
    let (wire, remove) = if args.dry_run {
        ("would wire", "would remove")
    } else {
        ("wired", "removed")
    };
    let (changed, summary) = match mode {
        Mode::Install => {
            let (command, note) = choose_command(scope);
            if let Some(note) = note {
                report.note(note);
            }
            let changed = settings
                .install(&command)
                .map_err(|e| anyhow!("refusing to change {shown}: {e}; nothing was changed"))?;
            let summary = if changed {
                format!(
                    "{wire} {} git-dibs hooks (`{command}`) into {shown}",
                    HOOKS.len()
                )
            } else {
                format!("git-dibs hooks are already wired in {shown}; nothing changed")
            };
            (changed, summary)
        }
        Mode::Uninstall => {
            let removed = settings.uninstall();
            let summary = if removed > 0 {
                format!("{remove} {removed} git-dibs hooks from {shown}")
            } else {
                format!("no git-dibs hooks in {shown}; nothing changed")
            };
            (removed > 0, summary)
        }
    };
    if args.dry_run {
        let content = match (changed, &original) {
            (true, _) => Some(settings.render()),
            (false, Some(bytes)) => Some(String::from_utf8_lossy(bytes).into_owned()),
            (false, None) => None,
        };
        report.dry_run_file("claude", &path, changed, summary, content);
        return Ok(());
    }
    if changed {
        write_atomic(&target, settings.render().as_bytes())?;
    }
    report.file("claude", &path, changed, summary);
    if changed && mode == Mode::Install && scope == Scope::Project {
        report.commit_later(relative(&path, root.as_deref()));
    }
    Ok(())
}

/// `path` relative to the worktree `root`, as a person would type it to commit it.
pub(crate) fn relative(path: &Path, root: Option<&Path>) -> String {
    root.and_then(|r| path.strip_prefix(r).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

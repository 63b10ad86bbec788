//! The `git dibs` command line: one module per subcommand, and the mapping of their results to
//! exit codes and error messages.

mod audit;
mod caller;
mod check;
mod claim;
mod docs;
mod doctor;
mod githooks;
mod guard;
mod hook;
mod install;
mod landed;
mod lane;
mod recover;
mod status;
pub(crate) mod sync;
#[cfg(target_os = "linux")]
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use crate::git::{self, Worktree};
use crate::store::Store;

/// Who holds what in this checkout: claims, co-edit warnings and a guard for several coding
/// agents and people sharing one git repository.
#[derive(Debug, Parser)]
#[command(name = "git-dibs", bin_name = "git dibs", version, about, long_about = None)]
pub(crate) struct Cli {
    /// Print nothing but errors; the exit code answers (0 yes or done, 1 refused or no, 2
    /// error).
    #[arg(short, long, global = true)]
    pub(crate) quiet: bool,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The entry point for every agent hook: reads one event on stdin.
    Hook(hook::Args),
    /// Who is live here, on which worktree and branch, holding what.
    Status(status::Args),
    /// Claim a file, branch, worktree or record, with an intent and a lease.
    Claim(claim::ClaimArgs),
    /// End claims (your own, or with --force a dead session's).
    Release(claim::ReleaseArgs),
    /// Wire the hooks into this repository's agent settings.
    Install(install::Args),
    /// Remove the hooks that `install` wired.
    Uninstall(install::Args),
    /// The guard's audit log: blocks, asks and bypasses, newest last.
    Audit(audit::Args),
    /// What the guard would answer for a command here and now, the rule and the facts.
    Check(check::Args),
    /// Check that everything is wired, readable and current.
    Doctor(doctor::Args),
    /// Lanes: a worktree per session, with a life cycle that never loses work.
    Lane(lane::Args),
    /// Whether a branch's or commit's work is on the remote base (exit 0 yes, 1 no, 2 error).
    Landed(landed::Args),
    /// Share live sessions and exclusive claims with other machines through the remote.
    Sync(sync::Args),
    /// Print the manual page (or --install it where `man`, and so `git dibs --help`, finds it).
    Man(docs::ManArgs),
    /// Print shell completions (`git dibs completions bash > ~/.local/share/bash-completion/completions/git-dibs`).
    Completions(docs::CompletionsArgs),
    /// Bring back what agents made, from the snapshots (exit 0 done, 1 nothing, 2 error).
    Recover(recover::Args),
    /// Run one git hook (called by the shims `install --git-hooks` writes).
    #[command(hide = true)]
    Githook(githooks::Args),
    /// Run this clone's file watcher (started by the hooks).
    #[cfg(target_os = "linux")]
    #[command(hide = true)]
    Watch(watch::Args),
}

/// The program: `git-dibs hook` (what every agent hook runs) and `git-dibs githook NAME ...`
/// (what git's hook shims run) are recognised before the full command line is built, since
/// that costs more than a hook's own work; everything else, including `--help`, goes through
/// the parser.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let text: Option<Vec<&str>> = args.iter().map(|a| a.to_str()).collect();
    match text.as_deref() {
        Some(["hook"]) => return hook::run(hook::Args { host: None }),
        Some(["hook", "--host", host]) => {
            if let Some(host) = hook::HostArg::from_name(host) {
                return hook::run(hook::Args { host: Some(host) });
            }
        }
        Some(["githook", name, rest @ ..])
            if !name.starts_with('-') && !rest.iter().any(|a| *a == "--help" || *a == "-h") =>
        {
            return githooks::run(githooks::Args {
                name: (*name).to_owned(),
                args: rest.iter().map(|a| (*a).to_owned()).collect(),
            });
        }
        _ => {}
    }
    die_quietly_on_closed_pipe();
    match Cli::try_parse() {
        Ok(cli) => run(cli),
        Err(e) => usage_error(&e),
    }
}

/// Print a command-line error the way clap does, but pointing at help that works: git turns
/// `git dibs --help` into `man git-dibs`, which exists only once the page is installed, so the
/// hint names `git dibs -h` and `git-dibs --help`. Help and version go to stdout, exit 0.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand && e.exit_code() == 0
    {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let text = e
        .render()
        .to_string()
        .replace("try '--help'", "try 'git dibs -h' or 'git-dibs --help'");
    eprint!("{text}");
    ExitCode::from(2)
}

/// `git dibs status | head` should end quietly when `head` stops reading, as other command-line
/// tools do, instead of panicking on the failed write: take back the default action of
/// `SIGPIPE`, which the Rust runtime sets to ignore. Not done for hooks, whose reader is the
/// host and whose every outcome is handled.
fn die_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called once at start, before any thread exists; SIG_DFL is a valid disposition.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `-q`: whatever a command prints on stdout goes to `/dev/null`; stderr (errors, refusals)
/// stays.
fn silence_stdout() {
    use std::os::fd::AsRawFd;
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
        return;
    };
    // SAFETY: dup2 onto fd 1 with a valid, open descriptor; nothing else holds a borrowed
    // handle to stdout's descriptor at this point (before any command runs), and Rust's stdout
    // keeps using fd 1, which now names /dev/null.
    #[allow(unsafe_code)]
    unsafe {
        libc::dup2(null.as_raw_fd(), 1);
    }
}

/// Run a parsed command line and return the process exit code.
pub(crate) fn run(cli: Cli) -> ExitCode {
    if cli.quiet {
        silence_stdout();
    }
    let result = match cli.command {
        Command::Hook(args) => return hook::run(args),
        Command::Githook(args) => return githooks::run(args),
        Command::Status(args) => status::run(args),
        Command::Claim(args) => claim::claim(args),
        Command::Release(args) => claim::release(args),
        Command::Install(args) => install::run(args, install::Mode::Install),
        Command::Uninstall(args) => install::run(args, install::Mode::Uninstall),
        Command::Check(args) => check::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Lane(args) => lane::run(args),
        Command::Landed(args) => landed::run(args),
        Command::Sync(args) => sync::run(args),
        Command::Man(args) => docs::man(args),
        Command::Completions(args) => docs::completions(args),
        Command::Recover(args) => recover::run(args),
        #[cfg(target_os = "linux")]
        Command::Watch(args) => watch::run(&args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("git dibs: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Print `doc` as the one JSON document of a `--json` answer (pretty, then a newline). Every
/// command that answers (exit 0 or 1) prints one; an error (exit 2) prints none and says why
/// on stderr.
pub(crate) fn print_json(doc: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(doc)?);
    Ok(())
}

/// The worktree the current directory is in, or a clear error; also an error when the git on
/// PATH cannot read the repository (a format newer than it), which every command needs.
pub(crate) fn current_worktree() -> Result<Worktree> {
    let wt = current_worktree_any()?;
    if let Some(why) = git::cli::oldgit::cannot_read(&wt.common_dir) {
        anyhow::bail!("{why}");
    }
    Ok(wt)
}

/// [`current_worktree`] without asking whether git can read it: for `install`, which only
/// writes files, and `doctor`, which reports it.
pub(crate) fn current_worktree_any() -> Result<Worktree> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    git::locate(&cwd, &PathBuf::from("."))
        .map(|l| l.worktree)
        .with_context(|| not_in_a_worktree(&cwd))
}

/// Why `cwd` is in no worktree, and where to run instead: inside a git folder (a `.git`, a
/// bare repository), the worktrees of that repository; elsewhere, a repository's worktree.
fn not_in_a_worktree(cwd: &std::path::Path) -> String {
    let shown = cwd.display();
    let Some(held) = git::gitdir::holding(cwd) else {
        return format!(
            "{shown} is not inside a git working tree; run this in a repository's working tree \
             (a clone, or a worktree of one)"
        );
    };
    let roots = git::worktree_roots(&held.common_dir);
    let common = held.common_dir.display();
    match roots.as_slice() {
        [] => format!(
            "{shown} is in the bare repository {common}, which has no working tree for \
             git-dibs to guard; run this in a clone of it, or in a worktree you add \
             (`git -C {common} worktree add PATH`)"
        ),
        _ => format!(
            "{shown} is inside the git folder {}, not in a working tree; run this from a \
             worktree of that repository: {}",
            held.git_dir.display(),
            roots
                .iter()
                .take(3)
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The store of the repository the current directory is in.
pub(crate) fn current_store() -> Result<(Worktree, Store)> {
    let wt = current_worktree()?;
    let store = Store::open(&wt.common_dir)?;
    Ok((wt, store))
}

/// [`current_store`] even where the git on PATH cannot read the repository (for commands that
/// read the store alone, `status` and `audit`); the reason, when it cannot, comes along.
pub(crate) fn current_store_any() -> Result<(Worktree, Store, Option<String>)> {
    let wt = current_worktree_any()?;
    let unreadable = git::cli::oldgit::cannot_read(&wt.common_dir);
    let store = Store::open(&wt.common_dir)?;
    Ok((wt, store, unreadable))
}

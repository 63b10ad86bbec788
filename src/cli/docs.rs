//! `git dibs man` and `git dibs completions`: the manual page (which `git dibs --help` opens,
//! since git turns `--help` into `man git-dibs`) and shell completions, both generated from the
//! command line's own definition.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::CommandFactory;

use super::Cli;

/// Options of `man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write the page where `man` finds it (`<prefix>/share/man/man1/git-dibs.1` beside the
    /// binary's `bin` folder, else `~/.local/share/man/man1/`) instead of printing it.
    #[arg(long)]
    pub(crate) install: bool,
    /// With --install: the `man1` folder (or any folder) to write `git-dibs.1` into.
    #[arg(long, value_name = "DIR", requires = "install")]
    pub(crate) dir: Option<PathBuf>,
}

/// Options of `completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// The command line as `git-dibs` (the name `man` and completions look up).
fn command() -> clap::Command {
    Cli::command().name("git-dibs").bin_name("git-dibs")
}

/// The manual page, in roff.
pub(crate) fn man_page() -> Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command())
        .render(&mut out)
        .context("cannot render the manual page")?;
    Ok(out)
}

/// Where the manual page goes: beside the binary's prefix when it lives in a `bin` folder
/// (`~/.cargo/bin/git-dibs` → `~/.cargo/share/man/man1`; man-db searches `../share/man` of
/// every folder on PATH), else `$XDG_DATA_HOME/man/man1` or `~/.local/share/man/man1`.
pub(crate) fn man_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    let bin = exe.parent()?;
    if bin.file_name().is_some_and(|n| n == "bin") {
        return Some(bin.parent()?.join("share/man/man1"));
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|h| h.join(".local/share")))?;
    Some(data.join("man/man1"))
}

/// Write the manual page into `dir`; returns the file written.
pub(crate) fn install_man_page(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("git-dibs.1");
    if let Some(kind) = crate::platform::files::special_kind(&path) {
        anyhow::bail!(
            "{} is {kind}, not a manual page, so git-dibs does not write it: remove it and run \
             this again",
            path.display()
        );
    }
    std::fs::write(&path, man_page()?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// For `install`: an installed binary (one in a `bin` folder) puts its manual page beside it,
/// so that `git dibs --help` works; said on stderr when written, silent when already there.
pub(crate) fn install_man_page_beside_binary() {
    let Some(dir) = man_dir().filter(|d| d.ends_with("share/man/man1")) else {
        return;
    };
    let exe_prefix = std::env::current_exe()
        .ok()
        .and_then(|e| e.canonicalize().ok());
    if !exe_prefix.is_some_and(|e| e.parent().is_some_and(|b| b.ends_with("bin"))) {
        return;
    }
    let Ok(page) = man_page() else { return };
    let path = dir.join("git-dibs.1");
    let files = crate::platform::files::Links::Follow;
    if crate::platform::files::read_regular(&path, files, 4 << 20).is_ok_and(|old| old == page) {
        return;
    }
    match install_man_page(&dir) {
        Ok(p) => eprintln!(
            "wrote the manual page {} (`git dibs --help` opens it)",
            p.display()
        ),
        Err(e) => eprintln!("note: no manual page for `git dibs --help`: {e:#}"),
    }
}

/// Run `man`.
pub(crate) fn man(args: ManArgs) -> Result<ExitCode> {
    if !args.install {
        std::io::stdout().write_all(&man_page()?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let dir = match args.dir {
        Some(d) => d,
        None => man_dir().context("cannot tell where manual pages go here; give --dir")?,
    };
    let path = install_man_page(&dir)?;
    println!(
        "wrote {}; `git dibs --help` (`man git-dibs`) finds it when {} is on man's path",
        path.display(),
        dir.parent().unwrap_or(&dir).display()
    );
    Ok(ExitCode::SUCCESS)
}

/// What bash needs beyond clap's script so that `git dibs <Tab>` completes too: git's own bash
/// completion calls `_git_dibs` for `git dibs`, with its words in `words`, the cursor in
/// `cword` and the subcommand's index in `__git_cmd_idx`.
const BASH_GIT_SUBCOMMAND: &str = r#"
# `git dibs <Tab>`: git's completion calls _git_dibs; hand it the words from `dibs` on.
_git_dibs() {
    local COMP_WORDS=(git-dibs "${words[@]:__git_cmd_idx+1}")
    local COMP_CWORD=$((cword - __git_cmd_idx))
    _git__dibs git-dibs "$cur" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// Run `completions`.
pub(crate) fn completions(args: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "git-dibs", &mut script);
    if args.shell == clap_complete::Shell::Bash {
        // clap_complete names a subcommand's case after the binary with `-` made `__subcmd__`
        // (`git__subcmd__dibs__subcmd__lane`) but dispatches to it with `-` made `__`
        // (`git__dibs__subcmd__lane`): without this, no subcommand's options complete.
        let text = String::from_utf8_lossy(&script).replace("git__subcmd__dibs", "git__dibs");
        script = format!("{text}{BASH_GIT_SUBCOMMAND}").into_bytes();
    }
    std::io::stdout()
        .write_all(&script)
        .context("cannot write the completions")?;
    Ok(ExitCode::SUCCESS)
}

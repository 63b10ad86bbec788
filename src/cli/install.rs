//! `git dibs install` and `git dibs uninstall`: wiring the hooks into agent settings files.

use std::process::ExitCode;

use anyhow::{Result, bail};

/// Options of `install` and `uninstall`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write `.claude/settings.local.json` (personal, not committed).
    #[arg(long, conflicts_with = "user")]
    pub local: bool,
    /// Write the user's `~/.claude/settings.json` (every project).
    #[arg(long)]
    pub user: bool,
    /// Print the resulting file instead of writing it.
    #[arg(long)]
    pub dry_run: bool,
}

/// Install or uninstall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Add our hooks.
    Install,
    /// Remove our hooks.
    Uninstall,
}

pub fn run(_args: Args, _mode: Mode) -> Result<ExitCode> {
    bail!("install is not built yet")
}

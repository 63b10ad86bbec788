//! `git dibs doctor`: whether the binary is on PATH, the hooks are wired and the store readable.

use std::process::ExitCode;

use anyhow::{Result, bail};

/// Options of `doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode> {
    bail!("doctor is not built yet")
}

//! The `git-dibs` binary: parse the command line, run the library, map the result to an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = git_dibs::cli::Cli::parse();
    git_dibs::cli::run(cli)
}

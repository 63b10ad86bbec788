//! The `git-dibs` binary: parse the command line, run the library, map the result to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    git_dibs::cli::main()
}

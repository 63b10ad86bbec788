//! `git dibs audit [--json]`: the guard's audit log (blocks, asks and bypasses), newest last.

use std::process::ExitCode;

use anyhow::Result;
use serde::Deserialize;

/// Options of `audit`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the raw JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// The fields of an audit line shown in the human form.
#[derive(Debug, Deserialize)]
struct Line {
    #[serde(default)]
    at: String,
    #[serde(default)]
    verdict: String,
    #[serde(default)]
    session: String,
    #[serde(default)]
    command: String,
    #[serde(default)]
    reason: String,
}

/// Print the audit log of the current clone.
pub fn run(args: Args) -> Result<ExitCode> {
    let (_, store) = super::current_store()?;
    let lines = store.audit_lines()?;
    for raw in &lines {
        if args.json {
            println!("{raw}");
            continue;
        }
        match serde_json::from_str::<Line>(raw) {
            Ok(l) => println!(
                "{} {:<6} {} `{}`: {}",
                l.at,
                l.verdict,
                crate::store::short_id(&l.session),
                l.command.replace('\n', " "),
                l.reason.replace('\n', " ")
            ),
            Err(_) => println!("(unreadable line) {raw}"),
        }
    }
    if lines.is_empty() && !args.json {
        eprintln!("git dibs: the audit log is empty");
    }
    Ok(ExitCode::SUCCESS)
}

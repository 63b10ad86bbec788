//! `git dibs check [--json] [--session ID] -- COMMAND`: what the Bash guard would answer for this
//! command here and now, through the hook's own code path (nothing is written), with the rule
//! that decided and the facts it used. Exit 0 when it would let the command through, 1 when it
//! would refuse it, 3 when it would ask the person.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;

use super::caller;
use super::guard::{self, Item};
use crate::protocol::{Event, EventKind, Host, Response, SubAgent};

/// Options of `check`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    /// Judge as this session (default: the session this shell belongs to, else yours).
    #[arg(long)]
    pub(crate) session: Option<String>,
    /// The command line, as the agent would type it (one word is taken as a whole line).
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    answer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    session: &'a str,
    cwd: &'a std::path::Path,
    command: &'a str,
    commands: &'a [Item],
}

/// Run `check`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    // One word is a whole line; several are argv as the shell split it: quote each again, so
    // `check -- bash -c "git reset --hard"` judges what bash would run.
    let command = match args.command.as_slice() {
        [line] => line.clone(),
        words => words
            .iter()
            .map(|w| crate::shell::quote_word(w))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let session = args
        .session
        .clone()
        .or_else(|| caller::env_session().map(|(id, _)| id))
        .unwrap_or_else(caller::person_session);
    let event = Event {
        host: Host::Claude,
        session_id: session.clone(),
        cwd: cwd.clone(),
        event_name: "PreToolUse".into(),
        actor: SubAgent::from_fields(std::env::var("DIBS_AGENT").ok().as_deref(), None),
        call: None,
        kind: EventKind::BeforeShell {
            command: command.clone(),
        },
    };
    let judged = guard::judge(&event, &command, false);
    let (answer, reason, code) = match &judged.response {
        Response::Deny { reason, .. } => ("deny", Some(reason.as_str()), 1),
        Response::Ask { reason } => ("ask", Some(reason.as_str()), 3),
        _ => ("allow", None, 0),
    };
    let rule = judged
        .items
        .iter()
        .find(|i| i.verdict == if code == 1 { "block" } else { "ask" })
        .and_then(|i| i.rule);
    let report = Report {
        answer,
        rule,
        reason,
        session: &session,
        cwd: &cwd,
        command: &command,
        commands: &judged.items,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    Ok(ExitCode::from(code))
}

fn print_text(r: &Report<'_>) {
    match r.rule {
        Some(rule) => println!("{} [guard:{rule}]", r.answer),
        None => println!("{}", r.answer),
    }
    if let Some(reason) = r.reason {
        println!("  {reason}");
    }
    if r.commands.is_empty() {
        println!("  nothing in this command line is guarded");
    }
    for item in r.commands {
        let rule = item
            .rule
            .map(|r| format!(" [guard:{r}]"))
            .unwrap_or_default();
        let bypass = if item.bypass { " (bypassed)" } else { "" };
        println!("- {}: {}{rule}{bypass}", item.command, item.verdict);
        for fact in &item.facts {
            println!("    {fact}");
        }
    }
}

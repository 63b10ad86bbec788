//! `git dibs audit`: the guard's audit log (blocks, asks, bypasses and forced releases), newest
//! last, filtered by time, session and verdict. `--json` prints JSON lines: one object per
//! line, each a whole audit record (a line the log holds damaged comes out as
//! `{"unreadable": "<text>"}`), so `jq -c` and line tools read it.

use crate::text::{MAX_SHOWN, clean};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// Options of `audit`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print JSON lines: one audit record (a JSON object) per line.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only lines from this long ago on (`2h`, `30m`), or since this time (RFC 3339,
    /// `2026-11-29T06:00:00Z`).
    #[arg(long, value_name = "WHEN")]
    pub(crate) since: Option<String>,
    /// Only lines of this session (its id, or the short id messages print).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Only lines with this verdict: block, ask, bypass or force-release.
    #[arg(long, value_name = "VERDICT")]
    pub(crate) verdict: Option<String>,
}

/// The fields of an audit line that are shown and filtered on.
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

/// A line of the log that is not a JSON object, as `--json` prints it.
#[derive(Serialize)]
struct Unreadable<'a> {
    unreadable: &'a str,
}

/// The verdicts an audit line may carry.
const VERDICTS: [&str; 4] = ["block", "ask", "bypass", "force-release"];

/// The earliest time `--since` lets through, in seconds since the Unix epoch.
fn since_secs(text: &str, now: u64) -> Result<u64> {
    if let Some(d) = crate::git::parse_duration(text) {
        return Ok(now.saturating_sub(d.as_secs()));
    }
    crate::git::parse_time(text).with_context(|| {
        format!(
            "--since `{text}` is neither a duration (2h, 30m) nor a time (2026-11-29T06:00:00Z, \
             2026-11-29T07:00:00+01:00)"
        )
    })
}

/// Seconds since the Unix epoch of an audit line's `at`; `None` when unreadable.
fn line_secs(at: &str) -> Option<u64> {
    crate::git::parse_time(at)
}

/// Print the audit log of the current clone.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let (_, store, _) = super::current_store_any()?;
    if let Some(v) = &args.verdict
        && !VERDICTS.contains(&v.as_str())
    {
        bail!("--verdict `{v}` is not one of {}", VERDICTS.join(", "));
    }
    let since = match &args.since {
        Some(t) => Some(since_secs(t, crate::store::now_secs())?),
        None => None,
    };
    let session = match &args.session {
        Some(s) if s.trim().is_empty() => bail!("--session names no session"),
        Some(s) => Some(s.trim().to_owned()),
        None => None,
    };
    let filtered = since.is_some() || session.is_some() || args.verdict.is_some();
    let lines = store.audit_lines()?;
    // A prefix stands for a session from four characters on (as `--session` elsewhere); a
    // shorter text must be a whole id.
    if let Some(s) = session.as_deref().filter(|s| s.chars().count() < 4)
        && !lines
            .iter()
            .any(|l| serde_json::from_str::<Line>(l).is_ok_and(|l| l.session == s))
    {
        bail!(
            "--session `{}` is too short to stand for a session: give its id or four or more \
             of its first characters (the short id messages print)",
            crate::text::clean(s, crate::text::MAX_SHOWN)
        );
    }
    let mut shown = 0;
    for raw in &lines {
        let parsed = serde_json::from_str::<Line>(raw).ok();
        if let Some(l) = &parsed {
            let keep = since.is_none_or(|s| line_secs(&l.at).is_some_and(|at| at >= s))
                && session.as_deref().is_none_or(|s| l.session.starts_with(s))
                && args.verdict.as_deref().is_none_or(|v| l.verdict == v);
            if !keep {
                continue;
            }
        } else if filtered {
            continue;
        }
        shown += 1;
        match (&parsed, args.json) {
            (Some(_), true) => println!("{raw}"),
            (None, true) => println!(
                "{}",
                serde_json::to_string(&Unreadable { unreadable: raw })?
            ),
            // Every field may hold anyone's words: cleaned of escapes before it reaches a terminal.
            (Some(l), false) => println!(
                "{} {:<6} {} `{}`: {}",
                clean(&l.at, 40),
                clean(&l.verdict, 10),
                clean(crate::store::short_id(&l.session), 8),
                clean(&l.command, MAX_SHOWN),
                clean(&l.reason, usize::MAX)
            ),
            (None, false) => println!("(unreadable line) {}", clean(raw, MAX_SHOWN)),
        }
    }
    if shown == 0 && !args.json {
        let what = if filtered {
            "no audit line matches"
        } else {
            "the audit log is empty"
        };
        eprintln!("git dibs: {what}");
    }
    Ok(ExitCode::SUCCESS)
}

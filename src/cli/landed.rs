//! `git dibs landed BRANCH|COMMIT`: is this work on the remote base? Ancestor of it; else
//! patch-equivalent (`git cherry`, or the whole diff squashed into one commit); else a merged
//! pull request for the branch (`gh`, skipped offline). Prints which test answered; exits 0
//! when landed, 1 when not, 2 on error. A "No commits between" from `gh pr create` is a
//! question for this command.

use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::git::landed::{self, Answer};
use crate::git::lanes::{LaneRepo, git};

/// Options of `landed`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A branch or a commit.
    pub(crate) what: String,
    /// The remote base to compare with (default: the upstream of the lane's base, else
    /// `origin/HEAD`, `origin/main`, `origin/master`).
    #[arg(long, value_name = "REF")]
    pub(crate) base: Option<String>,
    /// Fetch the base's remote first (off by default: no network unless asked).
    #[arg(long)]
    pub(crate) fetch: bool,
    /// Skip the pull request test (no `gh`).
    #[arg(long)]
    pub(crate) offline: bool,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Serialize)]
struct View {
    commit: String,
    base: String,
    landed: bool,
    test: &'static str,
    detail: String,
    notes: Vec<String>,
}

/// Run `landed`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let (wt, _) = super::current_store()?;
    let mut notes = Vec::new();
    if args.fetch {
        let repo = LaneRepo::open(&wt.root)?;
        let remote = args
            .base
            .as_deref()
            .and_then(|b| repo.full_ref_name(b))
            .or_else(|| repo.remote_base(None))
            .and_then(|r| {
                r.strip_prefix("refs/remotes/")?
                    .split('/')
                    .next()
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "origin".into());
        if let Err(e) = git(&wt.root, &["fetch", "--quiet", "--end-of-options", &remote]) {
            notes.push(format!("fetch failed, using the last fetched state: {e}"));
        }
    }
    let report = landed::landed(&wt.root, &args.what, args.base.as_deref(), !args.offline)?;
    notes.extend(report.notes.iter().cloned());
    let test = match &report.answer {
        Answer::Ancestor => "ancestor",
        Answer::PatchEquivalent { .. } => "patch-equivalent",
        Answer::Squashed { .. } => "squashed",
        Answer::MergedPullRequest { .. } => "merged-pull-request",
        Answer::NotLanded => "none",
    };
    let landed = report.answer != Answer::NotLanded;
    let detail = report.answer.describe(&report.base);
    if args.json {
        let view = View {
            commit: report.commit.clone(),
            base: report.base.clone(),
            landed,
            test,
            detail,
            notes,
        };
        println!("{}", serde_json::to_string_pretty(&view)?);
    } else {
        println!("{detail}");
        for n in &notes {
            eprintln!("note: {n}");
        }
    }
    Ok(if landed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

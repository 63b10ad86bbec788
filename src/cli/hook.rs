//! `git dibs hook`: read one host event on stdin, gather the facts it needs, let policy decide,
//! apply the store changes and answer in the host's format. Never fails an edit: every error
//! becomes exit 0 with one line on stderr.

use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use crate::git::{self, Located};
use crate::policy::claims::{self, EditFacts};
use crate::protocol::{self, Event, EventKind, Host, Response};
use crate::store::{self, Change, FileKey, Store};

/// Options of `hook`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The host that runs this hook, when known (otherwise read from the input).
    #[arg(long, value_enum)]
    pub host: Option<HostArg>,
}

/// Hosts that can be named on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum HostArg {
    /// Claude Code.
    Claude,
}

impl From<HostArg> for Host {
    fn from(h: HostArg) -> Host {
        match h {
            HostArg::Claude => Host::Claude,
        }
    }
}

/// Run the hook; always exits 0 unless a host format calls for a blocking code.
pub fn run(args: Args) -> ExitCode {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| handle(args)));
    let output = match outcome {
        Ok(out) => out,
        Err(_) => protocol::Output {
            stderr: Some("git-dibs: internal error; the tool call goes ahead".into()),
            ..Default::default()
        },
    };
    if let Some(text) = &output.stdout {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
    if let Some(text) = &output.stderr {
        eprintln!("{text}");
    }
    ExitCode::from(output.code)
}

fn quiet(message: impl std::fmt::Display) -> protocol::Output {
    protocol::Output {
        stderr: Some(format!("git-dibs: {message}")),
        ..Default::default()
    }
}

fn handle(args: Args) -> protocol::Output {
    let bytes = match protocol::read_input(std::io::stdin().lock()) {
        Ok(b) => b,
        Err(e) => return quiet(e),
    };
    let event = match protocol::parse_event(&bytes, args.host.map(Host::from)) {
        Ok(e) => e,
        Err(e) => return quiet(e),
    };
    if event.kind == EventKind::Ignored {
        return protocol::Output::default();
    }
    match decide(&event) {
        Ok(response) => protocol::render(&event, &response),
        Err(e) => quiet(e),
    }
}

/// The lease from git config `dibs.ttl`, or the default.
fn ttl(git_dir: &Path) -> Duration {
    git::read_config_duration(git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL)
}

/// Gather facts, decide, apply.
fn decide(event: &Event) -> Result<Response, store::StoreError> {
    let here = git::locate(&event.cwd, Path::new("."));
    let activity = Change::Activity {
        worktree: here.as_ref().map(|l| l.worktree.root.clone()),
        branch: here.as_ref().and_then(|l| l.worktree.branch()),
    };
    let now = store::now_secs();
    let (response, changes, anchor) = match &event.kind {
        EventKind::BeforeEdit { paths, .. } | EventKind::AfterEdit { paths, .. } => {
            let located: Vec<Located> = paths
                .iter()
                .filter_map(|p| git::locate(&event.cwd, p))
                .filter(|l| !l.relative.is_empty())
                .collect();
            let Some(first) = located.first() else {
                return Ok(Response::Silent);
            };
            let anchor = first.worktree.clone();
            let files: Vec<FileKey> = located
                .iter()
                .map(|l| FileKey::new(l.worktree.root.clone(), l.relative.clone()))
                .collect();
            let store = Store::open(&anchor.common_dir)?;
            if matches!(event.kind, EventKind::AfterEdit { .. }) {
                let mut changes = vec![activity];
                changes.extend(claims::after_edit(&files));
                return finish(
                    &store,
                    event,
                    &anchor.git_dir,
                    now,
                    Response::Silent,
                    changes,
                );
            }
            let mut holders = Vec::with_capacity(files.len());
            for f in &files {
                holders.push(store.holders(f, &event.session_id)?);
            }
            let ttl = if holders.iter().any(|h| !h.is_empty()) {
                ttl(&anchor.git_dir)
            } else {
                store::DEFAULT_TTL
            };
            let facts = EditFacts {
                files,
                holders,
                ttl,
                now,
            };
            let (response, touch) = claims::before_edit(&facts);
            let mut changes = vec![activity];
            changes.extend(touch);
            return finish(&store, event, &anchor.git_dir, now, response, changes);
        }
        EventKind::SessionStart { .. } => (Response::Silent, vec![activity], here),
        EventKind::SessionEnd { .. } => (
            Response::Silent,
            vec![Change::ReleaseAll, Change::End],
            here,
        ),
        EventKind::Prompt { prompt } => {
            let mut changes = vec![activity];
            changes.extend(claims::label_from_prompt(prompt).map(Change::Label));
            (Response::Silent, changes, here)
        }
        EventKind::BeforeShell { .. } | EventKind::Ignored => return Ok(Response::Silent),
    };
    let Some(anchor) = anchor else {
        return Ok(Response::Silent);
    };
    let store = Store::open(&anchor.worktree.common_dir)?;
    finish(
        &store,
        event,
        &anchor.worktree.git_dir,
        now,
        response,
        changes,
    )
}

/// Apply `changes` for the event's session, prune when due, and pass `response` on.
fn finish(
    store: &Store,
    event: &Event,
    git_dir: &Path,
    now: u64,
    response: Response,
    changes: Vec<Change>,
) -> Result<Response, store::StoreError> {
    store.apply(&event.session_id, event.host, None, now, &changes)?;
    store.prune_if_due(|| ttl(git_dir), now)?;
    Ok(response)
}

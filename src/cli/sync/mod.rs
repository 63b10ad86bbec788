//! `git dibs sync [REMOTE]`: share this clone's live sessions and exclusive claims with other
//! machines through the remote's `refs/dibs/`, and bring theirs into the local store. Also the
//! remote half of `claim --exclusive` and `release` ([`claims`]) and the background sync the
//! hooks start ([`background`]).

pub(crate) mod background;
pub(crate) mod claims;
mod report;
mod view;

pub(crate) use report::{Report, health};
pub(crate) use view::fetch_all;

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use serde::Serialize;

use crate::git::dibsrefs::{DibsRemote, RefUpdate, SyncError};
use crate::git::{self, Settings, Worktree};
use crate::policy::sync::{self as decide, Branches, Put, SyncFacts};
use crate::store::shared::{CLAIM_FILE, SESSION_FILE};
use crate::store::{self, Store};

/// The default `dibs.syncInterval`.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);
/// The default `dibs.clockSkew`.
pub(crate) const DEFAULT_SKEW: Duration = Duration::from_secs(5 * 60);
/// How long a foreground sync waits for a running one.
const WAIT_FOR_RUNNING: Duration = Duration::from_secs(45);

/// Options of `sync`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The remote to sync with (default: `dibs.remote`, else `origin`, else the only remote).
    pub(crate) remote: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Run as the hooks' background sync: quiet, and skipped when another sync is running.
    #[arg(long, hide = true)]
    pub(crate) background: bool,
}

/// Everything a sync needs about this clone.
pub(crate) struct Here {
    pub(crate) wt: Worktree,
    pub(crate) store: Store,
    pub(crate) settings: Settings,
    pub(crate) machine: String,
    pub(crate) now: u64,
}

impl Here {
    pub(crate) fn new(wt: Worktree, store: Store) -> Here {
        let settings = Settings::load(&wt.git_dir);
        let machine = settings
            .string("dibs.machine")
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(hostname);
        let machine = store::shared::ref_component(machine.trim());
        Here {
            wt,
            store,
            settings,
            machine,
            now: store::now_secs(),
        }
    }

    fn ttl(&self) -> u64 {
        self.settings
            .duration("dibs.ttl")
            .unwrap_or(store::DEFAULT_TTL)
            .as_secs()
    }

    pub(crate) fn skew(&self) -> u64 {
        self.settings
            .duration("dibs.clockSkew")
            .unwrap_or(DEFAULT_SKEW)
            .as_secs()
    }

    /// Whether `dibs.sync` is on.
    pub(crate) fn sync_on(&self) -> bool {
        self.settings.bool("dibs.sync") == Some(true)
    }

    pub(crate) fn open_remote(&self, named: Option<&str>) -> Result<DibsRemote, SyncError> {
        DibsRemote::open(&self.wt.git_dir, named, self.settings.string("dibs.remote"))
    }

    /// Every worktree of this clone with the branch it has checked out.
    pub(crate) fn branches(&self) -> Branches {
        git::worktree_roots(&self.wt.common_dir)
            .into_iter()
            .map(|root| {
                let branch = git::worktree_at(&root).and_then(|w| w.branch());
                (root, branch)
            })
            .collect()
    }
}

/// This machine's name when `dibs.machine` is not set.
fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Run `sync`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let (wt, store) = super::current_store()?;
    let here = Here::new(wt, store);
    let wait = if args.background {
        Duration::ZERO
    } else {
        WAIT_FOR_RUNNING
    };
    let Some(_lock) = here.store.sync_lock(wait)? else {
        if args.background {
            return Ok(ExitCode::SUCCESS);
        }
        bail!(
            "another `git dibs sync` has been running for {} s; try again later",
            wait.as_secs()
        );
    };
    let outcome = sync(&here, args.remote.as_deref());
    let report = match &outcome {
        Ok(r) => r.clone(),
        Err(e) => Report {
            at: here.now,
            machine: here.machine.clone(),
            error: Some(e.to_string()),
            ..Report::default()
        },
    };
    let _ = here
        .store
        .write_sync_report(&serde_json::to_vec_pretty(&report)?);
    if here.sync_on() {
        let interval = here
            .settings
            .duration("dibs.syncInterval")
            .unwrap_or(DEFAULT_INTERVAL);
        let _ = here
            .store
            .set_sync_due(store::now_secs() + interval.as_secs().max(1));
    } else {
        here.store.clear_sync_due();
    }
    if args.background {
        return Ok(ExitCode::SUCCESS);
    }
    let report = outcome?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report::summary(&report));
        for p in &report.problems {
            eprintln!("git dibs: {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One whole sync.
fn sync(here: &Here, named: Option<&str>) -> Result<Report> {
    let remote = here.open_remote(named)?;
    let branches = here.branches();
    let (local, local_claims) = view::local_facts(here, &branches)?;
    let own: BTreeSet<String> = local
        .iter()
        .map(|s| store::shared::session_ref(&here.machine, &s.id))
        .chain(local_claims.iter().map(|c| c.target.claim_ref()))
        .collect();
    let ((sessions, claims), skipped) = view::fetch_capped(&remote, here, &own)?;
    let facts = SyncFacts {
        machine: here.machine.clone(),
        now: here.now,
        ttl: here.ttl(),
        skew: here.skew(),
        local,
        local_claims,
        sessions,
        claims,
    };
    let plan = decide::plan(&facts);
    let mut updates = Vec::new();
    for put in &plan.sessions {
        updates.push(to_update(&remote, here, put, SESSION_FILE)?);
    }
    for put in &plan.claims {
        updates.push(to_update(&remote, here, put, CLAIM_FILE)?);
    }
    let outcomes = remote.push(&updates)?;
    let failed: BTreeSet<&str> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.name.as_str())
        .collect();
    let mut problems: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| {
            format!(
                "{} was not written ({}); the next sync retries",
                o.name, o.summary
            )
        })
        .collect();
    for (mine, theirs) in &plan.conflicts {
        problems.push(format!(
            "{} is claimed exclusively both here (session {}) and on {} (session {}); one of \
             you should release it",
            mine.target,
            store::short_id(&mine.session),
            theirs.machine,
            store::short_id(&theirs.session)
        ));
    }
    let removed = plan
        .lapsed
        .iter()
        .filter(|name| !failed.contains(name.as_str()))
        .count();
    let imported: Vec<store::Session> = plan
        .import
        .iter()
        .map(|s| decide::import(s, remote.remote(), &branches))
        .collect();
    let machines: BTreeSet<String> = plan.import.iter().map(|s| s.machine.clone()).collect();
    here.store.import_remote(remote.remote(), imported)?;
    let published =
        |refs: Vec<String>| refs.iter().filter(|r| !failed.contains(r.as_str())).count();
    Ok(Report {
        at: here.now,
        remote: remote.remote().to_owned(),
        machine: here.machine.clone(),
        published_sessions: published(
            facts
                .local
                .iter()
                .map(|s| store::shared::session_ref(&here.machine, &s.id))
                .collect(),
        ),
        published_claims: published(
            facts
                .local_claims
                .iter()
                .filter(|c| !plan.conflicts.iter().any(|(m, _)| m == *c))
                .map(|c| c.target.claim_ref())
                .collect(),
        ),
        imported_sessions: plan.import.len(),
        machines: machines.into_iter().collect(),
        removed,
        problems,
        rejected: report::rejected(&facts, &plan),
        skipped,
        error: None,
    })
}

/// The ref update for one planned write or deletion, writing the record commit first.
pub(crate) fn to_update<T: Serialize>(
    remote: &DibsRemote,
    here: &Here,
    put: &Put<T>,
    file: &str,
) -> Result<RefUpdate, SyncError> {
    Ok(match put {
        Put::Write {
            name,
            record,
            expect,
        } => {
            let bytes = serde_json::to_vec_pretty(record).expect("a shared record serializes");
            let oid = remote.record(file, &bytes, &here.machine, here.now, name)?;
            RefUpdate {
                name: name.clone(),
                new: Some(oid),
                expect: expect.clone(),
            }
        }
        Put::Delete { name, expect } => RefUpdate {
            name: name.clone(),
            new: None,
            expect: Some(expect.clone()),
        },
    })
}

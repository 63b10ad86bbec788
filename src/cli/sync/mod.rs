//! `git dibs sync [REMOTE]`: share this clone's live sessions and exclusive claims with other
//! machines through the remote's `refs/dibs/`, and bring theirs into the local store. Also the
//! remote half of `claim --exclusive` and `release` ([`claims`]) and the background sync the
//! hooks start ([`background`]).

pub(crate) mod background;
pub(crate) mod claims;

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};

use crate::git::dibsrefs::{DibsRemote, RefUpdate, RemoteRef, SyncError};
use crate::git::{self, Settings, Worktree};
use crate::policy::sync::{self as decide, Branches, Fetched, Put, SyncFacts};
use crate::store::shared::{
    CLAIM_FILE, CLAIMS_PREFIX, MAX_RECORD, REFS_PREFIX, Rejected, SESSION_FILE, SESSIONS_PREFIX,
    SharedClaim, SharedSession,
};
use crate::store::{self, FileKey, Store};
use crate::text;

/// The default `dibs.syncInterval`.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);
/// The default `dibs.clockSkew`.
pub const DEFAULT_SKEW: Duration = Duration::from_secs(5 * 60);
/// How long a foreground sync waits for a running one.
const WAIT_FOR_RUNNING: Duration = Duration::from_secs(45);

/// Options of `sync`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The remote to sync with (default: `dibs.remote`, else `origin`, else the only remote).
    pub remote: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Run as the hooks' background sync: quiet, and skipped when another sync is running.
    #[arg(long, hide = true)]
    pub background: bool,
}

/// What one sync did, as `--json` prints it and `sync/last.json` keeps it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    /// When, seconds since the Unix epoch.
    pub at: u64,
    /// The remote.
    pub remote: String,
    /// This clone's machine name.
    pub machine: String,
    /// This clone's live sessions now on the remote.
    pub published_sessions: usize,
    /// This clone's exclusive claims now on the remote.
    pub published_claims: usize,
    /// Sessions of other machines now in the local store.
    pub imported_sessions: usize,
    /// Those machines.
    pub machines: Vec<String>,
    /// Other machines' lapsed refs removed.
    pub removed: usize,
    /// Problems worth a person's attention (claims held twice, refs that could not be written).
    pub problems: Vec<String>,
    /// Remote records not taken, each as `ref: why` (out of range, malformed, over a cap).
    pub rejected: Vec<String>,
    /// Why the sync failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Everything a sync needs about this clone.
pub(crate) struct Here {
    pub wt: Worktree,
    pub store: Store,
    pub settings: Settings,
    pub machine: String,
    pub now: u64,
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

/// For `doctor`: whether sync is on, and how the last one went (`Err` is a problem to fix).
pub(crate) fn health(wt: &Worktree, store: &Store) -> Result<String, String> {
    let here = Here::new(wt.clone(), store.clone());
    if !here.sync_on() {
        return Ok(
            "sync across machines is off (`git config dibs.sync true` shares sessions and \
             exclusive claims through the remote)"
                .to_owned(),
        );
    }
    if let Err(e) = here.open_remote(None) {
        return Err(format!("dibs.sync is on but {e}"));
    }
    let last = store
        .sync_report()
        .and_then(|b| serde_json::from_slice::<Report>(&b).ok());
    let ago = |at: u64| crate::policy::claims::ago(here.now, at);
    match last {
        None => Ok(format!(
            "sync is on as machine {}; none has run yet (the next hook starts one, or run \
             `git dibs sync`)",
            here.machine
        )),
        Some(r) => match r.error {
            Some(e) => Err(format!(
                "the last sync ({}) failed: {e}; or turn background sync off with `git config \
                 dibs.sync false`",
                ago(r.at)
            )),
            // Records someone pushed that are out of range or malformed: worth a look.
            None if !r.rejected.is_empty() => Err(format!(
                "{} ({}); find who pushed them (`git ls-remote {} 'refs/dibs/*'`)",
                summary(&r),
                ago(r.at),
                r.remote
            )),
            None => Ok(format!("{} ({})", summary(&r), ago(r.at))),
        },
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
pub fn run(args: Args) -> Result<ExitCode> {
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
        println!("{}", summary(&report));
        for p in &report.problems {
            eprintln!("git dibs: {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn summary(r: &Report) -> String {
    let from = if r.machines.is_empty() {
        String::new()
    } else {
        format!(
            " from {} ({})",
            plural(r.machines.len(), "other machine", "other machines"),
            r.machines.join(", ")
        )
    };
    let rejected = if r.rejected.is_empty() {
        String::new()
    } else {
        format!(
            "; rejected {} from the remote ({})",
            plural(r.rejected.len(), "record", "records"),
            r.rejected.join("; ")
        )
    };
    let imported = match r.imported_sessions {
        0 => "no sessions from other machines".to_owned(),
        n => format!("{}{from}", plural(n, "session", "sessions")),
    };
    format!(
        "synced with {} as {}: published {}, {}; {imported}; removed {}{rejected}",
        r.remote,
        r.machine,
        plural(r.published_sessions, "session", "sessions"),
        plural(r.published_claims, "claim", "claims"),
        plural(r.removed, "lapsed ref", "lapsed refs"),
    )
}

/// The session refs and claim refs of the remote, fetched and read.
pub(crate) type RemoteView = (Vec<Fetched<SharedSession>>, Vec<Fetched<SharedClaim>>);

/// The refs under `refs/dibs/` on the remote that match `patterns`, fetched and read.
pub(crate) fn fetch_all(remote: &DibsRemote, patterns: &[&str]) -> Result<RemoteView, SyncError> {
    let refs = remote.list(patterns)?;
    remote.fetch(&refs.iter().map(|r| r.oid.clone()).collect::<Vec<_>>())?;
    let now = store::now_secs();
    let sessions = read_refs(remote, &refs, SESSIONS_PREFIX, SESSION_FILE, |b| {
        SharedSession::check(b, now)
    });
    let claims = read_refs(remote, &refs, CLAIMS_PREFIX, CLAIM_FILE, |b| {
        SharedClaim::check(b, now)
    });
    Ok((sessions, claims))
}

/// The refs of `refs` under `prefix`, each with the record `file` of its commit when `check`
/// accepts it, else why it was rejected.
fn read_refs<T>(
    remote: &DibsRemote,
    refs: &[RemoteRef],
    prefix: &str,
    file: &str,
    check: impl Fn(&[u8]) -> Result<T, Rejected>,
) -> Vec<Fetched<T>> {
    refs.iter()
        .filter(|r| r.name.starts_with(prefix))
        .map(|r| {
            // A record that cannot be read at all (not fetched?) is left alone, as a newer one.
            let read = match remote.read(&r.oid, file, MAX_RECORD) {
                Some(b) => check(&b),
                None => Err(Rejected::Newer(0)),
            };
            let (record, rejected) = match read {
                Ok(t) => (Some(t), None),
                Err(Rejected::Newer(_)) => (None, None),
                Err(Rejected::Invalid(why)) => (None, Some(why)),
            };
            Fetched {
                name: r.name.clone(),
                oid: r.oid.clone(),
                record,
                rejected,
            }
        })
        .collect()
}

/// This clone's live sessions and exclusive claims in their shared form.
fn local_facts(here: &Here, branches: &Branches) -> Result<(Vec<SharedSession>, Vec<SharedClaim>)> {
    let ttl = Duration::from_secs(here.ttl());
    let mut live: Vec<store::Session> = Vec::new();
    // Another machine sees a session as one: its live sub-agents' files are published with it.
    for s in here.store.sessions()? {
        if s.origin.is_some() || !s.is_alive(here.now, ttl) {
            continue;
        }
        match live.iter_mut().find(|m| m.id == s.id) {
            Some(m) => {
                for f in s.files {
                    if m.touch_of(&f.key).is_none() {
                        m.files.push(f);
                    }
                }
            }
            None => live.push(store::Session {
                sub_agent: None,
                ..s
            }),
        }
    }
    let mut by_root: BTreeMap<&std::path::Path, Vec<String>> = BTreeMap::new();
    for f in live.iter().flat_map(|s| &s.files) {
        by_root
            .entry(f.key.worktree.as_path())
            .or_default()
            .push(f.key.path.clone());
    }
    let dirty: BTreeSet<FileKey> = by_root
        .into_iter()
        .flat_map(|(root, paths)| {
            git::uncommitted_among(root, &paths)
                .unwrap_or_default()
                .into_iter()
                .map(move |p| FileKey::new(root, p))
        })
        .collect();
    let sessions = live
        .iter()
        .map(|s| decide::export(s, &here.machine, here.now, branches, &dirty))
        .collect();
    let claims = live
        .iter()
        .flat_map(|s| {
            s.claims
                .iter()
                .filter(|c| c.until > here.now)
                .filter_map(|c| decide::export_claim(c, &s.id, &here.machine, branches))
        })
        .collect();
    Ok((sessions, claims))
}

/// One whole sync.
fn sync(here: &Here, named: Option<&str>) -> Result<Report> {
    let remote = here.open_remote(named)?;
    let (sessions, claims) = fetch_all(&remote, &[&format!("{REFS_PREFIX}*")])?;
    let branches = here.branches();
    let (local, local_claims) = local_facts(here, &branches)?;
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
        rejected: rejected(&facts, &plan),
        error: None,
    })
}

/// The most rejected records a report names one by one.
const MAX_REJECTED_SHOWN: usize = 20;

/// Every remote record a sync did not take, as `ref: why`, the first
/// [`MAX_REJECTED_SHOWN`] named and the rest counted.
fn rejected(facts: &SyncFacts, plan: &decide::SyncPlan) -> Vec<String> {
    let mut all: Vec<String> = facts
        .sessions
        .iter()
        .filter_map(|r| r.rejected.as_ref().map(|why| (&r.name, why)))
        .chain(
            facts
                .claims
                .iter()
                .filter_map(|r| r.rejected.as_ref().map(|why| (&r.name, why))),
        )
        .chain(plan.rejected.iter().map(|(n, why)| (n, why)))
        .map(|(name, why)| format!("{}: {}", text::clean(name, text::MAX_SHOWN), why))
        .collect();
    if all.len() > MAX_REJECTED_SHOWN {
        let more = all.len() - MAX_REJECTED_SHOWN;
        all.truncate(MAX_REJECTED_SHOWN);
        all.push(format!("and {more} more"));
    }
    all
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

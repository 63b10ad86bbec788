//! `git dibs claim` and `git dibs release`: explicit claims on a file, branch, worktree or record,
//! with an intent and a lease, granted by compare-and-swap inside the store.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::git;
use crate::policy::claims::describe;
use crate::protocol::Host;
use crate::store::{self, Change, ClaimRequest, Grant, Target, Writer};

mod target;
use target::{TARGET_KINDS, check_claimable, parse_target};

/// Options of `claim`.
#[derive(Debug, clap::Args)]
pub(crate) struct ClaimArgs {
    /// What to claim: a path, `branch:NAME`, `worktree:PATH` or `record:ID`.
    #[arg(required = true, value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Why, in a few words ("about to delete SessionsView").
    #[arg(long)]
    pub(crate) intent: Option<String>,
    /// Refuse if anyone else holds any of the targets; of racing claims exactly one wins.
    #[arg(long)]
    pub(crate) exclusive: bool,
    /// Lease: the claim lapses after this long without activity (`90m`, `2h`; default `dibs.ttl`).
    #[arg(long, value_name = "DURATION")]
    pub(crate) ttl: Option<String>,
    /// The session that claims (default: `DIBS_SESSION`, `CLAUDE_CODE_SESSION_ID`, else you).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// With `dibs.sync` on: claim on this machine only, without taking the remote's claim ref.
    #[arg(long)]
    pub(crate) local: bool,
}

/// Options of `release`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReleaseArgs {
    /// What to release (as for `claim`).
    #[arg(value_name = "TARGET")]
    pub(crate) targets: Vec<String>,
    /// Release every claim and file of the session.
    #[arg(long, conflicts_with = "targets")]
    pub(crate) all: bool,
    /// The session whose claims to release (default: as for `claim`).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Release another session's claims (refused while it is live; written to the audit log).
    #[arg(long)]
    pub(crate) force: bool,
    /// Print JSON: `{"session": ID, "released": [TARGET...]}`.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The caller's own session: from the environment an agent's shell exports (a short id
/// resolved to the session it abbreviates), else a person's session named after the user and
/// terminal. The flag says whether it came from the environment.
fn own_session(store: &store::Store) -> Result<(String, Host, bool)> {
    Ok(match super::caller::env_session() {
        Some((id, host)) => {
            let id = super::caller::resolve_session(store, &id)?;
            if let Some(agent) = super::caller::impersonated(store, &id) {
                bail!(
                    "the environment names session {id}, which is live under another process \
                     (pid {}), not this command's: a command speaks only for the session it runs \
                     under. Unset DIBS_SESSION (and CLAUDE_CODE_SESSION_ID) to act as yourself",
                    agent.pid
                );
            }
            (id, host, true)
        }
        None => (super::caller::person_session(), Host::Person, false),
    })
}

/// The session a command acts for: `--session` (resolved as a short id too), else the caller's.
fn acting_session(store: &store::Store, flag: Option<&str>) -> Result<(String, Host, bool)> {
    let own = own_session(store)?;
    match flag {
        Some(text) => Ok((super::caller::resolve_session(store, text)?, own.1, false)),
        None => Ok(own),
    }
}

use crate::store::rfc3339;

/// The lease `--ttl` asks for, within [`store::MIN_LEASE`] and [`store::MAX_LEASE`].
pub(crate) fn parse_lease(text: &str) -> Result<Duration> {
    let range = "between 1m and 365d";
    let lease = git::parse_duration(text).with_context(|| {
        format!("--ttl `{text}` is not a duration; write e.g. 90m, 2h or 3600 (seconds), {range}")
    })?;
    if lease < store::MIN_LEASE || lease > store::MAX_LEASE {
        bail!("--ttl `{text}` is out of range: a lease is {range}");
    }
    Ok(lease)
}

/// One granted claim, as `--json` prints it.
#[derive(Serialize)]
struct Granted {
    target: String,
    granted: bool,
    token: String,
    exclusive: bool,
    intent: Option<String>,
    until: String,
}

/// One refused claim, as `--json` prints it (the command exits 1, nothing was claimed).
#[derive(Serialize)]
struct Refused {
    target: String,
    granted: bool,
    holder: String,
    holder_intent: Option<String>,
    message: String,
}

/// Run `claim`.
pub(crate) fn claim(args: ClaimArgs) -> Result<ExitCode> {
    let (wt, store) = super::current_store()?;
    let cwd = std::env::current_dir()?;
    let now = store::now_secs();
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let lease = match &args.ttl {
        Some(t) => parse_lease(t)?,
        None => ttl,
    };
    let requests = args
        .targets
        .iter()
        .map(|t| {
            let target = parse_target(t, &cwd)?;
            check_claimable(&target, t)?;
            Ok(ClaimRequest {
                target,
                intent: args.intent.clone(),
                exclusive: args.exclusive,
                ttl: lease,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let (id, host, from_env) = acting_session(&store, args.session.as_deref())?;
    let process = if from_env {
        super::caller::session_agent(&store, &id)
    } else {
        None
    };
    let writer = Writer::from_process(process.as_ref());
    let before = store.session(&id)?;
    let host = before.as_ref().map_or(host, |s| s.host);
    let held_before: Vec<Target> = before
        .iter()
        .flat_map(|s| s.claims.iter().filter(|c| c.until > now))
        .map(|c| c.target.clone())
        .collect();
    // With sync on, the remote's claim refs decide between machines: the local grant then
    // leaves out the (possibly stale) copies of other machines' sessions.
    let here = super::sync::Here::new(wt.clone(), store.clone());
    let remote = if args.exclusive && !args.local {
        super::sync::claims::claim_remote(&here).map_err(|e| anyhow::anyhow!("{e}"))?
    } else {
        None
    };
    let grants = store.claim(&id, host, writer, now, &requests, |s| {
        s.is_alive(now, ttl) && !(remote.is_some() && s.origin.is_some())
    })?;
    if let Some(remote) = &remote {
        let claims: Vec<store::Claim> = grants
            .iter()
            .filter_map(|g| match g {
                Grant::Granted(c) => Some(c.clone()),
                Grant::Refused { .. } => None,
            })
            .collect();
        if claims.len() == grants.len() {
            let fresh: Vec<Target> = claims
                .iter()
                .map(|c| c.target.clone())
                .filter(|t| !held_before.contains(t))
                .collect();
            if let Err(outcome) = take_remote(&here, remote, &id, &claims) {
                store.withdraw(&id, writer, &fresh)?;
                return outcome;
            }
        }
    }
    let mut refused = Vec::new();
    let mut granted = Vec::new();
    for grant in grants {
        match grant {
            Grant::Granted(c) => granted.push(Granted {
                target: c.target.to_string(),
                granted: true,
                token: c.token,
                exclusive: c.exclusive,
                intent: c.intent,
                until: rfc3339(c.until),
            }),
            Grant::Refused { target, holder } => {
                let holder_intent = holder.claim_on(&target, now).and_then(|c| c.intent.clone());
                let intent = holder_intent
                    .as_deref()
                    .map(|i| format!(" (intent: {i})"))
                    .unwrap_or_default();
                let message = format!(
                    "{target} is held by {}{intent}; nothing was claimed. Ask the person, or \
                     wait for that session to release it.",
                    describe(&holder)
                );
                refused.push(Refused {
                    target: target.to_string(),
                    granted: false,
                    holder: holder.id.clone(),
                    holder_intent,
                    message,
                });
            }
        }
    }
    if !refused.is_empty() {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&refused)?);
        } else {
            for r in &refused {
                eprintln!("git dibs: {}", r.message);
            }
        }
        return Ok(ExitCode::from(1));
    }
    // A person's session (and any session first seen here) works where it claims from.
    if host == Host::Person || before.as_ref().is_none_or(|s| s.worktree.is_none()) {
        let place = Change::Activity {
            worktree: Some(wt.root.clone()),
            branch: wt.branch(),
        };
        store.apply(&id, host, writer, now, &[place])?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&granted)?);
    } else {
        for g in &granted {
            println!("{}  {}  until {}", g.token, g.target, g.until);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Take the remote claim refs of `claims` too. `Err` carries the command's outcome when the
/// remote refused or could not be reached.
fn take_remote(
    here: &super::sync::Here,
    remote: &crate::git::dibsrefs::DibsRemote,
    id: &str,
    claims: &[store::Claim],
) -> std::result::Result<(), Result<ExitCode>> {
    match super::sync::claims::take(here, remote, id, claims) {
        Ok(refused) if refused.is_empty() => Ok(()),
        Ok(refused) => {
            for r in refused {
                eprintln!(
                    "git dibs: {} is held by {}; nothing was claimed. Ask them, or wait for the \
                     claim to be released or to lapse.",
                    r.target, r.holder
                );
            }
            Err(Ok(ExitCode::from(1)))
        }
        Err(e) => Err(Err(anyhow::anyhow!(
            "{e}; nothing was claimed (claim with --local to hold it on this machine only)"
        ))),
    }
}

/// One audit line for a forced release.
#[derive(Serialize)]
struct ForcedRelease<'a> {
    at: String,
    verdict: &'static str,
    session: &'a str,
    cwd: &'a Path,
    command: String,
    reason: String,
}

/// The `--json` answer of `release`.
#[derive(Serialize)]
struct Released<'a> {
    session: &'a str,
    released: Vec<String>,
    /// Why nothing was released (exit 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
}

/// Refuse a release (exit 1): nothing was released, and why.
fn refuse_release(args: &ReleaseArgs, id: &str, why: String) -> Result<ExitCode> {
    if args.json {
        super::print_json(&Released {
            session: id,
            released: Vec::new(),
            refused: Some(why),
        })?;
    } else {
        eprintln!("git dibs: {why}");
    }
    Ok(ExitCode::from(1))
}

/// Run `release`.
pub(crate) fn release(args: ReleaseArgs) -> Result<ExitCode> {
    if args.targets.is_empty() && !args.all {
        bail!(
            "name what to release ({TARGET_KINDS}), or release every claim and file of the \
             session with --all"
        );
    }
    let (wt, store) = super::current_store()?;
    let cwd = std::env::current_dir()?;
    let now = store::now_secs();
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let (own, _, own_from_env) = own_session(&store)?;
    let (id, _, from_env) = acting_session(&store, args.session.as_deref())?;
    let targets = if args.all {
        None
    } else {
        Some(
            args.targets
                .iter()
                .map(|t| parse_target(t, &cwd))
                .collect::<Result<Vec<_>>>()?,
        )
    };
    // A person or script (no session of its own in the environment) speaks for a live
    // `--session X` as `claim --session X` does. Another agent session, or a session that is
    // gone, needs --force, which is refused while it is live and written to the audit log.
    let mut foreign = false;
    if id != own {
        let Some(other) = store.session(&id)? else {
            bail!("no session `{id}` in this repository; `git dibs status --all` lists them");
        };
        let alive = other.is_alive(now, ttl);
        foreign = args.force || own_from_env || !alive;
        if foreign && !args.force {
            return refuse_release(
                &args,
                &id,
                format!(
                    "{} is another session; releasing its claims needs --force (and is refused \
                     while it is live)",
                    describe(&other)
                ),
            );
        }
        if alive && args.force {
            return refuse_release(
                &args,
                &id,
                format!(
                    "{} is live (active {}); it must release its own claims, or wait until it \
                     is gone",
                    describe(&other),
                    crate::policy::claims::ago(now, other.last_seen)
                ),
            );
        }
    }
    let process = if from_env && !foreign {
        super::caller::session_agent(&store, &id)
    } else {
        None
    };
    let writer = Writer::from_process(process.as_ref());
    let released = store.release(&id, writer, now, targets.as_deref())?;
    let here = super::sync::Here::new(wt.clone(), store.clone());
    if let Some(note) = super::sync::claims::give_back(&here, &id, &released) {
        eprintln!("git dibs: {note}");
    }
    if foreign {
        let line = ForcedRelease {
            at: rfc3339(now),
            verdict: "force-release",
            session: &own,
            cwd: &cwd,
            command: std::env::args().collect::<Vec<_>>().join(" "),
            reason: format!(
                "released {} of session {id}: {}",
                released.len(),
                released
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        store.append_audit(&serde_json::to_string(&line)?)?;
    }
    if args.json {
        super::print_json(&Released {
            session: &id,
            released: released.iter().map(ToString::to_string).collect(),
            refused: None,
        })?;
    } else if released.is_empty() {
        println!("Nothing to release for session {}.", store::short_id(&id));
    } else {
        for t in &released {
            println!("released {t}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

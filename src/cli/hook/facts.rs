//! Facts every hook handler shares: where the session is, now, the calling agent process, the
//! lease from git config (read only when needed), and whether a peer is alive.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::agent::{self, AgentProcess};
use crate::git::{self, Located, Settings, Worktree};
use crate::protocol::{Event, EventKind, Response};
use crate::store::{self, Actor, Change, Lease, Session, Store, StoreError, Writer};

/// The `dibs.*` settings of the worktree `wt`, kept in the store while the config files stay
/// the same: no config parser (and no libgit2 start-up) on the hooks' path.
pub(crate) fn settings_of(wt: &Worktree) -> Settings {
    settings_in(wt, Store::open(&wt.common_dir).ok().as_ref())
}

/// [`settings_of`], the clone's store (where they are kept) open already.
pub(crate) fn settings_in(wt: &Worktree, store: Option<&Store>) -> Settings {
    if let Some(kept) = with_kept(|k| {
        k.iter()
            .find(|(d, _)| *d == wt.git_dir)
            .map(|(_, s)| s.clone())
    }) {
        return kept;
    }
    let settings = settings_read(wt, store);
    with_kept(|k| {
        k.push((wt.git_dir.clone(), settings.clone()));
        Some(())
    });
    settings
}

/// [`settings_in`] from the files (or the store's copy).
fn settings_read(wt: &Worktree, store: Option<&Store>) -> Settings {
    let fingerprint = Settings::fingerprint(&wt.git_dir);
    if let (Some(fp), Some(store)) = (&fingerprint, store)
        && let Some(values) = store.cached_settings(fp)
    {
        return Settings::from_values(values);
    }
    let settings = Settings::load(&wt.git_dir);
    if let (Some(fp), Some(store)) = (&fingerprint, store) {
        store.cache_settings(fp, settings.values());
    }
    settings
}

/// The settings this process read, by git dir, once [`remember_settings`] was called.
static KEPT: Mutex<Option<Vec<(PathBuf, Settings)>>> = Mutex::new(None);

/// Keep the settings read for the rest of this process: a hook call asks for them up to three
/// times (the sweep, the marks of running commands, the record) and writes no config.
pub(crate) fn remember_settings() {
    if let Ok(mut kept) = KEPT.lock() {
        kept.get_or_insert_with(Vec::new);
    }
}

fn with_kept<T>(f: impl FnOnce(&mut Vec<(PathBuf, Settings)>) -> Option<T>) -> Option<T> {
    KEPT.lock().ok()?.as_mut().and_then(f)
}

/// The session lease at `wt` (`dibs.ttl`, default 2 h), its settings read (through `store`
/// when open) only once an age is past the shortest lease any setting gives.
pub(crate) fn lease_in<'a>(
    wt: &'a Worktree,
    store: Option<&'a Store>,
) -> Lease<impl FnOnce() -> u64 + 'a> {
    let least = git::DURATION_FLOORS
        .iter()
        .find(|(key, _)| *key == "dibs.ttl")
        .map_or(0, |(_, floor)| floor.as_secs());
    Lease::new(least, move || {
        match store {
            Some(store) => settings_in(wt, Some(store)),
            None => settings_of(wt),
        }
        .duration("dibs.ttl")
        .unwrap_or(store::DEFAULT_TTL)
        .as_secs()
    })
}

/// [`lease_in`], the store not open.
pub(crate) fn lease_of(wt: &Worktree) -> Lease<impl FnOnce() -> u64 + '_> {
    lease_in(wt, None)
}

/// The context of one hook call.
pub(crate) struct Ctx<'a> {
    /// The event.
    pub(crate) event: &'a Event,
    /// The worktree of the event's cwd, if any.
    pub(crate) here: Option<Located>,
    /// Now, seconds since the Unix epoch.
    pub(crate) now: u64,
    /// The agent process running the session, when it can be known.
    pub(crate) agent: Option<AgentProcess>,
    settings: OnceCell<Settings>,
}

impl<'a> Ctx<'a> {
    /// Gather the shared facts for `event`.
    pub(crate) fn new(event: &'a Event) -> Self {
        Ctx {
            event,
            here: git::locate(&event.cwd, Path::new(".")),
            now: store::now_secs(),
            agent: agent::current(),
            settings: OnceCell::new(),
        }
    }

    /// The `dibs.*` settings of the worktree, on first use.
    pub(crate) fn settings(&self, wt: &Worktree) -> &Settings {
        self.settings.get_or_init(|| settings_of(wt))
    }

    /// The lease (`dibs.ttl`, default 2 h), read from git config on first use.
    pub(crate) fn ttl(&self, wt: &Worktree) -> Duration {
        self.settings(wt)
            .duration("dibs.ttl")
            .unwrap_or(store::DEFAULT_TTL)
    }

    /// How long a touched file stays warm (`dibs.warm`, default 30 min).
    pub(crate) fn warm(&self, wt: &Worktree) -> Duration {
        self.settings(wt)
            .duration("dibs.warm")
            .unwrap_or(Duration::from_secs(30 * 60))
    }

    /// Whether `s` is live: within its lease, not ended, and its agent process not gone.
    pub(crate) fn alive(&self, s: &Session, wt: &Worktree) -> bool {
        s.is_alive(self.now, self.ttl(wt))
    }

    /// This call's identity for the store's fencing check.
    pub(crate) fn writer(&self, register: bool) -> Writer<'_> {
        match &self.agent {
            Some(process) => Writer::Agent { process, register },
            None => Writer::Anonymous,
        }
    }

    /// The activity change for this call (cwd's worktree and branch).
    pub(crate) fn activity(&self) -> Change {
        Change::Activity {
            worktree: self.here.as_ref().map(|l| l.worktree.root.clone()),
            branch: self.here.as_ref().and_then(|l| l.worktree.branch()),
        }
    }

    /// Lock or unlock the lane at `wt` as this session's files there say (see
    /// `lane::refresh_autolock`).
    pub(crate) fn refresh_autolock(&self, store: &Store, wt: &Worktree) {
        crate::cli::lane::refresh_autolock(store, wt, Actor::from(self.event), self.now, || {
            self.ttl(wt)
        });
    }

    /// [`Ctx::refresh_autolock`] for `me`, this call's record as [`Ctx::record`] just wrote it.
    pub(crate) fn refresh_autolock_as(&self, store: &Store, wt: &Worktree, me: &Session) {
        crate::cli::lane::refresh_autolock_as(store, wt, me, self.now, || self.ttl(wt));
    }

    /// [`Ctx::record`] after `response` was worked out: a warning or refusal is delivered
    /// even when the store write fails (held lock, read-only or full disk), with the failure
    /// on stderr; a silent answer passes the failure on.
    pub(crate) fn record_then(
        &self,
        store: &Store,
        wt: &Worktree,
        changes: &[Change],
        response: Response,
    ) -> Result<Response, StoreError> {
        match self.record(store, wt, false, changes) {
            Ok(_) => Ok(response),
            Err(e) if response != Response::Silent => {
                eprintln!("git-dibs: {e}; the answer below was worked out before it");
                Ok(response)
            }
            Err(e) => Err(e),
        }
    }

    /// Apply `changes` for this session, then prune when due.
    pub(crate) fn record(
        &self,
        store: &Store,
        wt: &Worktree,
        register: bool,
        changes: &[Change],
    ) -> Result<Session, StoreError> {
        let session = store.apply(
            Actor::from(self.event),
            self.event.host,
            self.writer(register),
            self.now,
            changes,
        )?;
        if store.prune_if_due(|| self.ttl(wt), self.now)? {
            let expiry = self.settings(wt).duration("dibs.snapshotExpiry");
            super::snap::expire(store, wt, expiry, self.now);
            let kept_since = self.now.saturating_sub(
                expiry
                    .unwrap_or(crate::store::DEFAULT_SNAPSHOT_EXPIRY)
                    .as_secs(),
            );
            super::chain::reattach_all(store, wt, kept_since, self.now);
        }
        let first = matches!(
            self.event.kind,
            EventKind::SessionStart { .. } | EventKind::Prompt { .. }
        );
        crate::cli::sync::background::kick(store, &wt.root, first, self.now, || self.settings(wt));
        Ok(session)
    }
}

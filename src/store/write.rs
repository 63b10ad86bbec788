//! Writes to the store: applying changes to a session with the fencing check, granting
//! explicit claims by compare-and-swap, and bringing the index in line with a record.

use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use super::actors::Actor;
use super::changes::{apply_all, worth_writing};
use super::fence::{Writer, fence};
use super::record::{Change, Claim, Session, SessionHead, Target};
use super::{Store, StoreError, actor_key, fsio, io_err, recfile};
use crate::host::Host;

/// How often [`Store::apply`] prepares a record outside the lock before it works under it.
const OPTIMISTIC_TRIES: usize = 3;

/// One explicit claim asked for.
#[derive(Debug, Clone)]
pub(crate) struct ClaimRequest {
    /// What to claim.
    pub(crate) target: Target,
    /// Why.
    pub(crate) intent: Option<String>,
    /// No one else at the same time.
    pub(crate) exclusive: bool,
    /// Lease.
    pub(crate) ttl: Duration,
}

/// The answer to one claim request.
#[derive(Debug, Clone)]
pub(crate) enum Grant {
    /// Granted (or renewed).
    Granted(Claim),
    /// Refused: someone else holds it.
    Refused {
        /// What was asked.
        target: Target,
        /// Who holds it.
        holder: Box<Session>,
    },
}

impl Store {
    /// Apply `changes` to `actor`'s record (a session id is its main thread) as `writer`, under
    /// the lock, and return the new record. A fenced writer changes nothing and gets
    /// [`StoreError::Fenced`]. A sub-agent's record is fenced by its session's: it carries the
    /// session's generation and agent process, and a writer the session refuses is refused.
    ///
    /// A change that only moves time stamps forward by less than a minute is not written
    /// (no lock, no write): hooks fire on every tool call, and a write is the most expensive
    /// thing a hook does. Leases are hours long, so the record lags by seconds at most.
    pub(crate) fn apply<'a>(
        &self,
        actor: impl Into<Actor<'a>>,
        host: Host,
        writer: Writer<'_>,
        now: u64,
        changes: &[Change],
    ) -> Result<Session, StoreError> {
        let actor = actor.into();
        let path = self.session_path(actor);
        let parent = match actor.agent {
            Some(_) => self.read_record(&self.session_path(Actor::main(actor.session)), false)?,
            None => None,
        };
        let stamp = |session: &mut Session, exists: bool| match &parent {
            Some(main) => {
                let mut main = main.clone();
                fence(&mut main, writer, true)?;
                session.generation = main.generation;
                session.agent = main.agent;
                Ok(())
            }
            None => fence(session, writer, exists),
        };
        // Optimistic look without the lock: most calls change nothing worth a write, and for
        // one that does the new record and its index markers are made before the lock is
        // taken, so that the lock is held for a comparison and the record's overwrite. When
        // another writer of this session changed the record meanwhile, that is done again from
        // its new record; the last try works under the lock.
        let key = actor_key(actor);
        for _ in 0..OPTIMISTIC_TRIES {
            let Some(seen) = self.read_record(&path, false)? else {
                break;
            };
            let mut session = seen.clone();
            stamp(&mut session, true)?;
            apply_all(&mut session, now, changes);
            if !worth_writing(&seen, &session) {
                return Ok(session);
            }
            session.indexed = true;
            // New index markers first: a marker whose record does not (yet) hold its file only
            // costs a reader one record read.
            self.put_markers(Some(&seen), &session)?;
            // Only this session's shard is locked: other sessions write on meanwhile.
            let _guard = self.lock_actor(&key)?;
            let old = self.read_record(&path, true)?;
            if old.as_ref() == Some(&seen) {
                self.commit_session(old.as_ref(), &session)?;
                return Ok(session);
            }
        }
        let _guard = self.lock_actor(&key)?;
        let old = self.read_record(&path, true)?;
        let mut session = old.clone().unwrap_or_else(|| {
            let mut new = Session::new(actor.session, host, now);
            new.sub_agent = actor.agent.cloned();
            new
        });
        stamp(&mut session, old.is_some())?;
        apply_all(&mut session, now, changes);
        self.write_session(old.as_ref(), &mut session)?;
        Ok(session)
    }

    /// Raise session `id`'s generation by hand and return it.
    #[cfg(test)]
    pub(crate) fn bump_generation(
        &self,
        id: &str,
        host: Host,
        now: u64,
    ) -> Result<u64, StoreError> {
        let _guard = self.lock()?;
        let old = self.read_record(&self.session_path(id), true)?;
        let mut session = old.clone().unwrap_or_else(|| Session::new(id, host, now));
        session.generation += 1;
        session.last_seen = now;
        self.write_session(old.as_ref(), &mut session)?;
        Ok(session.generation)
    }

    /// Grant explicit claims to session `id`, all or none: under the lock, a request is refused
    /// when another session for which `is_live` holds the target exclusively, or holds it at
    /// all and the request is exclusive. Of racing processes exactly one wins.
    pub(crate) fn claim(
        &self,
        id: &str,
        host: Host,
        writer: Writer<'_>,
        now: u64,
        requests: &[ClaimRequest],
        is_live: impl Fn(&Session) -> bool,
    ) -> Result<Vec<Grant>, StoreError> {
        let _guard = self.lock()?;
        let mut refused = Vec::new();
        for req in requests {
            let others = self.indexed(
                &req.target.digest(),
                Actor::main(id),
                true,
                match &req.target {
                    Target::File(k) => Some(k),
                    _ => None,
                },
            )?;
            let holder = others.into_iter().filter(|s| is_live(s)).find(|s| {
                let claim = s.claim_on(&req.target, now);
                let touched = match &req.target {
                    Target::File(k) => s.touch_of(k).is_some(),
                    _ => false,
                };
                claim.is_some_and(|c| c.exclusive)
                    || (req.exclusive && (claim.is_some() || touched))
            });
            if let Some(holder) = holder {
                refused.push(Grant::Refused {
                    target: req.target.clone(),
                    holder: Box::new(holder),
                });
            }
        }
        if !refused.is_empty() {
            return Ok(refused);
        }
        let old = self.read_record(&self.session_path(id), true)?;
        let mut session = old.clone().unwrap_or_else(|| Session::new(id, host, now));
        fence(&mut session, writer, old.is_some())?;
        session.last_seen = session.last_seen.max(now);
        session.ended = None;
        let mut granted = Vec::new();
        for req in requests {
            // The command line refuses leases outside this range; the store holds to it too.
            let lease = req.ttl.clamp(super::MIN_LEASE, super::MAX_LEASE).as_secs();
            let token = format!(
                "{}-{}-g{}",
                session.short_id(),
                &req.target.digest()[..8],
                session.generation
            );
            // Claiming again renews; it never turns an exclusive claim into a shared one, nor
            // drops the intent it had (release it to end it).
            let held = session.claim_on(&req.target, now);
            let exclusive = req.exclusive || held.is_some_and(|c| c.exclusive);
            let intent = req
                .intent
                .as_deref()
                .and_then(crate::text::note)
                .or_else(|| held.and_then(|c| c.intent.clone()));
            session.claims.retain(|c| c.target != req.target);
            let claim = Claim {
                target: req.target.clone(),
                intent,
                exclusive,
                since: now,
                until: now.saturating_add(lease),
                lease,
                token,
            };
            session.claims.push(claim.clone());
            granted.push(Grant::Granted(claim));
        }
        self.write_session(old.as_ref(), &mut session)?;
        Ok(granted)
    }

    /// End explicit claims of `actor` (a session id is its main thread; all when `targets` is
    /// `None`; file targets also drop the touch). Returns what was released.
    pub(crate) fn release<'a>(
        &self,
        actor: impl Into<Actor<'a>>,
        writer: Writer<'_>,
        now: u64,
        targets: Option<&[Target]>,
    ) -> Result<Vec<Target>, StoreError> {
        let _guard = self.lock()?;
        let Some(old) = self.read_record(&self.session_path(actor), true)? else {
            return Ok(Vec::new());
        };
        let mut session = old.clone();
        fence(&mut session, writer, true)?;
        let wanted = |t: &Target| targets.is_none_or(|ts| ts.contains(t));
        let mut released: Vec<Target> = session
            .claims
            .iter()
            .filter(|c| wanted(&c.target))
            .map(|c| c.target.clone())
            .collect();
        session.claims.retain(|c| !wanted(&c.target));
        for f in &session.files {
            let t = Target::File(f.key.clone());
            if wanted(&t) && !released.contains(&t) {
                released.push(t);
            }
        }
        session
            .files
            .retain(|f| !wanted(&Target::File(f.key.clone())));
        session.last_seen = session.last_seen.max(now);
        self.write_session(Some(&old), &mut session)?;
        Ok(released)
    }

    /// Withdraw session `id`'s explicit claims on `targets`, keeping its touches: undoes a
    /// grant that the remote then refused.
    pub(crate) fn withdraw(
        &self,
        id: &str,
        writer: Writer<'_>,
        targets: &[Target],
    ) -> Result<(), StoreError> {
        let _guard = self.lock()?;
        let Some(old) = self.read_record(&self.session_path(id), true)? else {
            return Ok(());
        };
        let mut session = old.clone();
        fence(&mut session, writer, true)?;
        session.claims.retain(|c| !targets.contains(&c.target));
        self.write_session(Some(&old), &mut session)
    }

    /// Write `new` (the lock is held) and bring the index in line with it.
    pub(super) fn write_session(
        &self,
        old: Option<&Session>,
        new: &mut Session,
    ) -> Result<(), StoreError> {
        new.indexed = true;
        self.commit_session(old, new)
    }

    /// Put `new`'s record in place of `old` (the lock is held), with the index markers, the
    /// worktree listing and the claim list in line with it. Only what changed is written.
    fn commit_session(&self, old: Option<&Session>, new: &Session) -> Result<(), StoreError> {
        let old_digests = match old {
            Some(o) if o.indexed => o.digests(),
            _ => Default::default(),
        };
        let new_digests = new.digests();
        let name = actor_key(new.actor());
        self.put_markers(old, new)?;
        for digest in old_digests.difference(&new_digests) {
            self.remove_marker(digest, &name);
        }
        let path = self.session_path(new.actor());
        recfile::write(&path, old, new).map_err(io_err(&path))?;
        self.write_head_marker(old, new, &name);
        self.update_claim_list(old, new);
        Ok(())
    }

    /// Write the index markers `new` has and `old` has not (none is removed here).
    fn put_markers(&self, old: Option<&Session>, new: &Session) -> Result<(), StoreError> {
        let old_digests = match old {
            Some(o) if o.indexed => o.digests(),
            _ => Default::default(),
        };
        let name = actor_key(new.actor());
        // The marker under its worktree carries the session's header: a file of its own.
        let head = (new.ended.is_none())
            .then(|| new.worktree.as_deref().map(super::record::worktree_digest))
            .flatten();
        for digest in new.digests().difference(&old_digests) {
            let marker = self.index_dir(digest).join(&name);
            // Already there when written before the lock was taken.
            if !fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file()) {
                if head.as_ref() == Some(digest) {
                    self.put_marker(digest, &name, b"")?;
                } else {
                    self.put_marker_with(digest, &name, |m| self.link_marker(m))?;
                }
            }
        }
        Ok(())
    }

    /// Write session `name`'s marker under `digest` with `bytes` in it.
    fn put_marker(&self, digest: &str, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        self.put_marker_with(digest, name, |m| write_marker(m, bytes))
    }

    /// Make session `name`'s marker under `digest` with `put`. The folder is made first; a
    /// writer of another session may remove it when it empties it at the same moment, so that
    /// is tried again.
    fn put_marker_with(
        &self,
        digest: &str,
        name: &str,
        put: impl Fn(&Path) -> io::Result<()>,
    ) -> Result<(), StoreError> {
        let dir = self.index_dir(digest);
        let marker = dir.join(name);
        let mut tries = 0;
        loop {
            self.make_dir(&dir)?;
            match put(&marker) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::NotFound && tries < 3 => tries += 1,
                Err(e) => return Err(io_err(&marker)(e)),
            }
        }
    }

    /// Make the empty marker at `marker` as another name of the store's one empty file
    /// (`empty`): a new name costs no new file, which is what made a writing hook slow
    /// (ext4's search for a free inode passes every one freed in the last minutes). The empty
    /// file is made when missing, replaced when it is anything else (a link is never linked
    /// to) or has as many names as a file may have; a marker is a plain empty file where a
    /// name cannot be added.
    fn link_marker(&self, marker: &Path) -> io::Result<()> {
        let anchor = self.dir.join(ANCHOR);
        for _ in 0..2 {
            match fs::symlink_metadata(&anchor) {
                Ok(m) if m.is_file() && m.len() == 0 => {}
                Ok(_) => {
                    fsio::set_aside(&anchor)?;
                    fsio::write_atomic(&anchor, b"")?;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => fsio::write_atomic(&anchor, b"")?,
                Err(e) => return Err(e),
            }
            match fs::hard_link(&anchor, marker) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if fs::symlink_metadata(marker).is_ok_and(|m| m.is_file()) {
                        return Ok(());
                    }
                    fsio::set_aside(marker)?;
                }
                Err(e) if e.raw_os_error() == Some(libc::EMLINK) => {
                    fsio::write_atomic(&anchor, b"")?;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(e),
                Err(_) => break,
            }
        }
        write_marker(marker, b"")
    }

    /// The marker under the session's worktree carries its header, so listing the sessions of
    /// a worktree reads a few bytes each instead of whole records. Written in place: a reader
    /// that finds it torn falls back to the record. A marker left under a worktree the session
    /// no longer works in (it still claims it) is emptied; an ended session has none.
    fn write_head_marker(&self, old: Option<&Session>, new: &Session, name: &str) {
        if let Some(prev) = old.and_then(|o| o.worktree.as_ref())
            && new.worktree.as_ref() != Some(prev)
        {
            let _ = self.set_roster(prev, name, None);
            let stale = self
                .index_dir(&super::record::worktree_digest(prev))
                .join(name);
            if fs::symlink_metadata(&stale).is_ok() && fsio::is_real_dir(stale.parent().unwrap()) {
                let _ = write_marker(&stale, b"");
            }
        }
        if let Some(w) = &new.worktree {
            let listed = new.ended.is_none().then_some(new.last_seen);
            let _ = self.set_roster(w, name, listed);
        }
        if let Some(w) = &new.worktree {
            let marker = self
                .index_dir(&super::record::worktree_digest(w))
                .join(name);
            if new.ended.is_none() {
                let head = SessionHead::from(new);
                let bytes = serde_json::to_vec(&head).expect("a header serializes");
                // The same header as the record it replaces (calls in the same second): the
                // marker that write left is looked at, not written again.
                let same = old.is_some_and(|o| o.indexed && SessionHead::from(o) == head)
                    && fs::symlink_metadata(&marker).is_ok_and(|m| {
                        use std::os::unix::fs::MetadataExt;
                        m.is_file() && m.nlink() == 1 && m.len() == bytes.len() as u64
                    });
                if !same {
                    let digest = super::record::worktree_digest(w);
                    let _ = self.put_marker(&digest, name, &bytes);
                }
            } else if fs::symlink_metadata(&marker).is_ok() {
                // Still there because the session claims its worktree: no longer a listing.
                let _ = write_marker(&marker, b"");
            }
        }
    }

    /// Remove session `name`'s marker under `digest` (never through a linked folder: a link
    /// there is set aside), and the folder when that leaves it empty.
    pub(super) fn remove_marker(&self, digest: &str, name: &str) {
        let dir = self.index_dir(digest);
        match fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                let _ = fsio::set_aside(&dir);
                return;
            }
            Err(_) => return,
        }
        let _ = fs::remove_file(dir.join(name));
        let _ = fs::remove_dir(&dir); // only succeeds when empty
    }
}

/// The store's one empty file, of which empty index markers are other names.
const ANCHOR: &str = "empty";

/// Write `bytes` in the marker at `marker` (made when missing). A marker that is another name
/// of the store's empty file ([`Store::link_marker`]) loses that name first: it is never
/// written through.
fn write_marker(marker: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if fs::symlink_metadata(marker).is_ok_and(|m| m.is_file() && m.nlink() > 1) {
        if bytes.is_empty() {
            return Ok(()); // empty already
        }
        fs::remove_file(marker)?;
    }
    fsio::write_in_place(marker, bytes).map(drop)
}

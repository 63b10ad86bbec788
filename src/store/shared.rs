//! The records git-dibs shares through the remote, under `refs/dibs/`: what one machine
//! publishes about a live session ([`SharedSession`], in `session.json`) and about an exclusive
//! claim ([`SharedClaim`], in `claim.json`), the ref names they live under, and the checks an
//! imported record must pass (it comes from anyone who can push to the remote).

use serde::{Deserialize, Serialize};

use super::record::{Claim, fnv1a};
use crate::host::Host;

/// The version of the shared format this build writes and reads.
pub const SHARED_VERSION: u32 = 1;
/// Where every shared ref lives on the remote.
pub(crate) const REFS_PREFIX: &str = "refs/dibs/";
/// The folder of session refs: `refs/dibs/sessions/<machine>/<session>`.
pub(crate) const SESSIONS_PREFIX: &str = "refs/dibs/sessions/";
/// The folder of claim refs: `refs/dibs/claims/<digest>`.
pub(crate) const CLAIMS_PREFIX: &str = "refs/dibs/claims/";
/// The file in a session ref's tree.
pub(crate) const SESSION_FILE: &str = "session.json";
/// The file in a claim ref's tree.
pub(crate) const CLAIM_FILE: &str = "claim.json";
/// The largest shared record read (a record is a few kilobytes).
pub(crate) const MAX_RECORD: usize = 1 << 20;
/// The most files one shared session may list.
pub const MAX_SHARED_FILES: usize = 2_000;
/// The most explicit claims one shared session may list.
pub const MAX_SHARED_CLAIMS: usize = 256;
/// How far ahead of this machine's clock a time in a shared record may be (clocks differ; a
/// day is far more than any honest skew).
pub const MAX_AHEAD: u64 = 24 * 60 * 60;

/// Why a fetched record was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejected {
    /// A newer version of the format than this build reads: left alone, never replaced.
    Newer(u32),
    /// Not a record of this format, or one whose fields are out of range: what is wrong.
    Invalid(String),
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::Newer(v) => write!(f, "written in format {v}, newer than this version's"),
            Rejected::Invalid(why) => f.write_str(why),
        }
    }
}

/// Just the version of a record, read before the rest.
#[derive(Deserialize)]
struct VersionOnly {
    version: u32,
}

/// Parse `bytes` as a record of this format: a newer version is [`Rejected::Newer`], anything
/// that is not JSON of this shape [`Rejected::Invalid`].
fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Rejected> {
    let bad = |e: serde_json::Error| Rejected::Invalid(format!("not a record ({e})"));
    let v: VersionOnly = serde_json::from_slice(bytes).map_err(bad)?;
    if v.version > SHARED_VERSION {
        return Err(Rejected::Newer(v.version));
    }
    if v.version != SHARED_VERSION {
        return Err(Rejected::Invalid(format!(
            "format {} is unknown",
            v.version
        )));
    }
    serde_json::from_slice(bytes).map_err(bad)
}

/// `Ok` when `cond` holds, else the reason.
fn need(cond: bool, why: impl FnOnce() -> String) -> Result<(), Rejected> {
    if cond {
        Ok(())
    } else {
        Err(Rejected::Invalid(why()))
    }
}

/// A time in a record: not after `now` plus `ahead` (so never at or past year 10000).
fn time_ok(at: u64, now: u64, ahead: u64) -> bool {
    at <= now.saturating_add(ahead).min(super::LATEST_TIME)
}

/// An id shown to people and used as a key: 1 to 256 bytes, no control characters.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 256 && crate::text::clean(id, usize::MAX) == id
}

/// A shared claim entry's fields in range at `now`, its intent cleaned.
fn check_claim<T>(c: &mut Claim<T>, now: u64) -> Result<(), Rejected> {
    let lease = super::MAX_LEASE.as_secs();
    need(time_ok(c.since, now, MAX_AHEAD), || {
        "a claim granted in the future".into()
    })?;
    need(
        c.since <= c.until && time_ok(c.until, now, lease + MAX_AHEAD),
        || "a claim lasting past the longest lease".into(),
    )?;
    need(c.lease <= lease, || "a lease longer than a year".into())?;
    need(c.token.len() <= 256 && valid_id(&c.token), || {
        "a malformed claim token".into()
    })?;
    c.intent = c.intent.as_deref().and_then(crate::text::note);
    Ok(())
}

/// A claim target that means the same thing on every machine. Worktree targets are paths on
/// one machine and are not shared; a file is named by the branch it is on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SharedTarget {
    /// A branch.
    Branch {
        /// Its name, without `refs/heads/`.
        name: String,
    },
    /// A record outside git, such as an issue id.
    Record {
        /// The id.
        id: String,
    },
    /// A file on a branch.
    File {
        /// The branch checked out where the file was claimed.
        branch: String,
        /// The path relative to the worktree root, `/`-separated.
        path: String,
    },
}

impl SharedTarget {
    /// The claim ref of this target on the remote.
    pub(crate) fn claim_ref(&self) -> String {
        let mut bytes = Vec::new();
        match self {
            SharedTarget::Branch { name } => {
                bytes.extend_from_slice(b"branch\0");
                bytes.extend_from_slice(name.as_bytes());
            }
            SharedTarget::Record { id } => {
                bytes.extend_from_slice(b"record\0");
                bytes.extend_from_slice(id.as_bytes());
            }
            SharedTarget::File { branch, path } => {
                bytes.extend_from_slice(b"file\0");
                bytes.extend_from_slice(branch.as_bytes());
                bytes.push(0);
                bytes.extend_from_slice(path.as_bytes());
            }
        }
        format!("{CLAIMS_PREFIX}{:016x}", fnv1a(&bytes))
    }

    fn is_valid(&self) -> bool {
        match self {
            SharedTarget::Branch { name } => valid_name(name),
            SharedTarget::Record { id } => valid_id(id),
            SharedTarget::File { branch, path } => valid_name(branch) && valid_path(path),
        }
    }
}

impl std::fmt::Display for SharedTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SharedTarget::Branch { name } => write!(f, "branch:{name}"),
            SharedTarget::Record { id } => write!(f, "record:{id}"),
            SharedTarget::File { branch, path } => write!(f, "{path} (on {branch})"),
        }
    }
}

/// One file a shared session holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedFile {
    /// The branch of the worktree the file is in, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The path relative to the worktree root, `/`-separated.
    pub path: String,
    /// First touch, seconds since the Unix epoch (the publishing machine's clock).
    pub first: u64,
    /// Latest touch.
    pub last: u64,
    /// Whether it was uncommitted on the publishing machine when published.
    #[serde(default)]
    pub dirty: bool,
}

/// One explicit claim of a shared session.
pub(crate) type SharedClaimEntry = Claim<SharedTarget>;

/// What one machine publishes about one of its live sessions (`session.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedSession {
    /// [`SHARED_VERSION`].
    pub version: u32,
    /// The publishing machine (`dibs.machine`).
    pub machine: String,
    /// The host's session id.
    pub id: String,
    /// The host.
    pub host: Host,
    /// The session's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The branch it works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// First activity (publisher's clock).
    pub first_seen: u64,
    /// Latest activity (publisher's clock).
    pub last_seen: u64,
    /// When this version of the record was published (publisher's clock).
    pub published: u64,
    /// Files it holds.
    #[serde(default)]
    pub files: Vec<SharedFile>,
    /// Its explicit claims.
    #[serde(default)]
    pub claims: Vec<SharedClaimEntry>,
}

impl SharedSession {
    /// The record as read from a fetched blob, when it is of this version and well formed
    /// (see [`SharedSession::check`], at this machine's clock).
    #[cfg(test)]
    pub(crate) fn parse(bytes: &[u8]) -> Option<SharedSession> {
        SharedSession::check(bytes, super::now_secs()).ok()
    }

    /// The record in a fetched blob, checked at `now`: names, ids and paths of the shapes git
    /// and this format accept; at most [`MAX_SHARED_FILES`] files and [`MAX_SHARED_CLAIMS`]
    /// claims; every time at most [`MAX_AHEAD`] ahead of `now` (a claim's end: its lease
    /// more), in order; the label and intents cleaned of control characters and capped. The
    /// record comes from anyone who can push to the remote.
    pub fn check(bytes: &[u8], now: u64) -> Result<SharedSession, Rejected> {
        let mut s: SharedSession = decode(bytes)?;
        need(valid_name(&s.machine), || "a malformed machine name".into())?;
        need(valid_id(&s.id), || "a malformed session id".into())?;
        need(s.branch.as_deref().is_none_or(valid_name), || {
            "a malformed branch name".into()
        })?;
        need(s.files.len() <= MAX_SHARED_FILES, || {
            format!("{} files (at most {MAX_SHARED_FILES})", s.files.len())
        })?;
        need(s.claims.len() <= MAX_SHARED_CLAIMS, || {
            format!("{} claims (at most {MAX_SHARED_CLAIMS})", s.claims.len())
        })?;
        need(
            s.first_seen <= s.last_seen
                && time_ok(s.last_seen, now, MAX_AHEAD)
                && time_ok(s.published, now, MAX_AHEAD),
            || "times out of order or in the future".into(),
        )?;
        for f in &s.files {
            need(valid_path(&f.path), || {
                "a file path outside the worktree".into()
            })?;
            need(f.branch.as_deref().is_none_or(valid_name), || {
                "a malformed branch name".into()
            })?;
            need(f.first <= f.last && time_ok(f.last, now, MAX_AHEAD), || {
                "a file touched in the future".into()
            })?;
        }
        for c in &mut s.claims {
            need(c.target.is_valid(), || "a malformed claim target".into())?;
            check_claim(c, now)?;
        }
        s.label = s.label.as_deref().and_then(crate::text::note);
        Ok(s)
    }

    /// Whether `other` says the same as this record, apart from its publishing time and a
    /// last activity moved forward by less than `slack` seconds.
    pub(crate) fn same_as(&self, other: &SharedSession, slack: u64) -> bool {
        let mut a = self.clone();
        let mut b = other.clone();
        let close = a.last_seen.abs_diff(b.last_seen) < slack;
        a.published = 0;
        b.published = 0;
        if close {
            b.last_seen = a.last_seen;
        }
        a == b
    }
}

/// What the remote claim ref of an exclusive claim holds (`claim.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedClaim {
    /// [`SHARED_VERSION`].
    pub version: u32,
    /// The machine holding it.
    pub machine: String,
    /// The session holding it (the host's id).
    pub session: String,
    /// What is claimed.
    pub target: SharedTarget,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// When it lapses unless renewed (holder's clock).
    pub until: u64,
    /// The claim's token.
    pub token: String,
}

impl SharedClaim {
    /// The record in a fetched blob, checked at `now` as [`SharedSession::check`] checks a
    /// session's claims.
    pub fn check(bytes: &[u8], now: u64) -> Result<SharedClaim, Rejected> {
        let mut c: SharedClaim = decode(bytes)?;
        need(valid_name(&c.machine), || "a malformed machine name".into())?;
        need(valid_id(&c.session), || "a malformed session id".into())?;
        need(c.target.is_valid(), || "a malformed claim target".into())?;
        need(c.token.len() <= 256 && valid_id(&c.token), || {
            "a malformed claim token".into()
        })?;
        need(
            time_ok(c.until, now, super::MAX_LEASE.as_secs() + MAX_AHEAD),
            || "a claim lasting past the longest lease".into(),
        )?;
        c.intent = c.intent.as_deref().and_then(crate::text::note);
        Ok(c)
    }
}

/// `text` made safe as one ref name component: `[A-Za-z0-9._-]`, other bytes as `-`, no
/// leading dot, no `..`, no `.lock` ending; empty becomes `unnamed`.
pub(crate) fn ref_component(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("..") {
        out = out.replace("..", ".");
    }
    let out = out.trim_matches('.').to_owned();
    let out = out.strip_suffix(".lock").map(str::to_owned).unwrap_or(out);
    if out.is_empty() {
        "unnamed".to_owned()
    } else {
        out
    }
}

/// The session ref of session `id` published by `machine`. An id that is not already a safe
/// component is named by its digest, so two ids never share a ref.
pub(crate) fn session_ref(machine: &str, id: &str) -> String {
    let plain = ref_component(id) == id;
    let name = if plain {
        id.to_owned()
    } else {
        format!("h-{:016x}", fnv1a(id.as_bytes()))
    };
    format!("{SESSIONS_PREFIX}{}/{name}", ref_component(machine))
}

/// The machine a session ref belongs to, from its name.
pub(crate) fn machine_of_ref(name: &str) -> Option<&str> {
    name.strip_prefix(SESSIONS_PREFIX)?.split('/').next()
}

/// A branch or machine name as git and this format accept it.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 256
        && !name.starts_with(['-', '/', '.'])
        && !name.contains("..")
        && !name.chars().any(|c| c.is_control() || c == '\\')
}

/// A relative, `/`-separated path that stays inside the worktree.
fn valid_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 4096
        && !path.starts_with('/')
        && !path.chars().any(|c| c.is_control() || c == '\\')
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != ".." && c != ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_components_are_safe_and_ids_never_collide() {
        assert_eq!(ref_component("laptop.local"), "laptop.local");
        assert_eq!(ref_component("my box/..x.lock"), "my-box-.x");
        assert_eq!(ref_component("..."), "unnamed");
        assert_eq!(session_ref("m", "5f1c-aa"), "refs/dibs/sessions/m/5f1c-aa");
        assert_ne!(session_ref("m", "a b"), session_ref("m", "a-b"));
        assert_eq!(machine_of_ref(&session_ref("box", "x")), Some("box"));
    }

    #[test]
    fn imported_records_that_reach_outside_the_worktree_are_rejected() {
        let good = SharedSession {
            version: SHARED_VERSION,
            machine: "m".into(),
            id: "s".into(),
            host: Host::Claude,
            label: None,
            branch: Some("main".into()),
            first_seen: 1,
            last_seen: 2,
            published: 3,
            files: vec![SharedFile {
                branch: Some("main".into()),
                path: "src/a.rs".into(),
                first: 1,
                last: 2,
                dirty: true,
            }],
            claims: Vec::new(),
        };
        let bytes = serde_json::to_vec(&good).unwrap();
        assert_eq!(SharedSession::parse(&bytes), Some(good.clone()));
        for bad in ["../etc/passwd", "/etc/passwd", "a/./b", "a//b"] {
            let mut s = good.clone();
            s.files[0].path = bad.into();
            assert_eq!(SharedSession::parse(&serde_json::to_vec(&s).unwrap()), None);
        }
        let mut newer = good.clone();
        newer.version = 2;
        assert_eq!(
            SharedSession::parse(&serde_json::to_vec(&newer).unwrap()),
            None
        );
        assert_eq!(SharedSession::parse(b"{not json"), None);
    }

    #[test]
    fn a_record_is_the_same_when_only_time_moved_a_little() {
        let a = SharedSession {
            version: 1,
            machine: "m".into(),
            id: "s".into(),
            host: Host::Codex,
            label: None,
            branch: None,
            first_seen: 1,
            last_seen: 100,
            published: 100,
            files: Vec::new(),
            claims: Vec::new(),
        };
        let mut b = a.clone();
        b.published = 150;
        b.last_seen = 140;
        assert!(a.same_as(&b, 300));
        assert!(!a.same_as(&b, 30));
        b.label = Some("x".into());
        assert!(!a.same_as(&b, 300));
    }
}

//! The records the store keeps: one [`Session`] per host session, with the files it touched and
//! the explicit claims it holds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::actors::Actor;
use crate::agent::AgentProcess;
use crate::host::Host;
use crate::host::SubAgent;

/// FNV-1a over `bytes`: small, stable across processes and versions.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn digest(kind: &str, parts: &[&[u8]]) -> String {
    let mut bytes = kind.as_bytes().to_vec();
    for p in parts {
        bytes.push(0);
        bytes.extend_from_slice(p);
    }
    format!("{:016x}", fnv1a(&bytes))
}

/// A file in a worktree: the unit a claim is on. The same relative path in two worktrees is two
/// different files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FileKey {
    /// The worktree root (canonical).
    pub(crate) worktree: PathBuf,
    /// The path relative to the worktree root, `/`-separated.
    pub(crate) path: String,
}

impl FileKey {
    /// A file key for `path` inside the worktree at `worktree`.
    pub(crate) fn new(worktree: impl Into<PathBuf>, path: impl Into<String>) -> Self {
        FileKey {
            worktree: worktree.into(),
            path: path.into(),
        }
    }

    /// The name of this file's index folder.
    pub(crate) fn digest(&self) -> String {
        digest(
            "file",
            &[
                self.worktree.as_os_str().as_encoded_bytes(),
                self.path.as_bytes(),
            ],
        )
    }
}

/// What an explicit claim is on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Target {
    /// A file in a worktree.
    File(FileKey),
    /// A branch of the clone.
    Branch {
        /// The branch name (without `refs/heads/`).
        name: String,
    },
    /// A worktree, by its root.
    Worktree {
        /// The worktree root (canonical).
        path: PathBuf,
    },
    /// A record outside git, such as an issue id.
    Record {
        /// The id.
        id: String,
    },
}

impl Target {
    /// The name of this target's index folder; a file target shares its file's folder.
    pub(crate) fn digest(&self) -> String {
        match self {
            Target::File(f) => f.digest(),
            Target::Branch { name } => digest("branch", &[name.as_bytes()]),
            Target::Worktree { path } => worktree_digest(path),
            Target::Record { id } => digest("record", &[id.as_bytes()]),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::File(k) => write!(f, "{}", k.path),
            Target::Branch { name } => write!(f, "branch:{name}"),
            Target::Worktree { path } => write!(f, "worktree:{}", path.display()),
            Target::Record { id } => write!(f, "record:{id}"),
        }
    }
}

/// The index folder of the sessions working in (or claiming) a worktree.
pub(crate) fn worktree_digest(root: &Path) -> String {
    digest("worktree", &[root.as_os_str().as_encoded_bytes()])
}

/// One file a session has touched, with when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileTouch {
    /// Which file.
    #[serde(flatten)]
    pub(crate) key: FileKey,
    /// First touch, seconds since the Unix epoch.
    pub(crate) first: u64,
    /// Latest touch, seconds since the Unix epoch.
    pub(crate) last: u64,
}

/// The content of a file as a session last read or wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SeenFile {
    /// Which file.
    #[serde(flatten)]
    pub(crate) key: FileKey,
    /// Digest of the content.
    pub(crate) digest: String,
    /// When, seconds since the Unix epoch.
    pub(crate) at: u64,
}

/// An explicit claim made with `git dibs claim`: on a [`Target`] of this clone, or (as
/// published to other machines) on a `SharedTarget`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim<T = Target> {
    /// What is claimed.
    pub target: T,
    /// Why, in the holder's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Whether no one else may hold it at the same time.
    #[serde(default)]
    pub exclusive: bool,
    /// When it was granted, seconds since the Unix epoch.
    pub since: u64,
    /// When it lapses unless renewed.
    pub until: u64,
    /// The lease in seconds: activity on the target extends `until` to now plus this.
    pub lease: u64,
    /// The claim's generation-stamped id.
    pub token: String,
}

impl<T> Claim<T> {
    /// The same claim on another form of its target.
    pub(crate) fn on<U>(&self, target: U) -> Claim<U> {
        Claim {
            target,
            intent: self.intent.clone(),
            exclusive: self.exclusive,
            since: self.since,
            until: self.until,
            lease: self.lease,
            token: self.token.clone(),
        }
    }
}

/// An agent process that used to run a session, with the generation it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FormerAgent {
    /// The process.
    pub(crate) process: AgentProcess,
    /// The generation it held.
    pub(crate) generation: u64,
}

/// Everything the store knows about one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Session {
    /// The host's durable session id.
    pub(crate) id: String,
    /// For a sub-agent's record: which sub-agent of session `id` (absent for the main thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sub_agent: Option<SubAgent>,
    /// Which host runs it.
    pub(crate) host: Host,
    /// A short human label (the first prompt, shortened), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    /// The fencing generation: raised when the session re-registers from a new agent process.
    #[serde(default)]
    pub(crate) generation: u64,
    /// First activity, seconds since the Unix epoch.
    pub(crate) first_seen: u64,
    /// Latest activity, seconds since the Unix epoch.
    pub(crate) last_seen: u64,
    /// The worktree the session works in (its cwd's worktree), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) worktree: Option<PathBuf>,
    /// The branch checked out there, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// When the host said the session ended, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended: Option<u64>,
    /// The agent process running the session now, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<AgentProcess>,
    /// Processes that ran it before (their hook calls are refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) former: Vec<FormerAgent>,
    /// Files touched, in first-touch order.
    #[serde(default)]
    pub(crate) files: Vec<FileTouch>,
    /// Explicit claims.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) claims: Vec<Claim>,
    /// File contents as last seen by this session, newest last (bounded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) seen: Vec<SeenFile>,
    /// The (peer, file) pairs this session was warned about in full; later co-edit warnings
    /// about them are brief (bounded, oldest dropped first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) warned: Vec<Warned>,
    /// Set once `status` had reported that the session died holding dirty files (kept for
    /// records of older versions; `status` now lists such work until it is dealt with).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) death_reported: bool,
    /// Whether the lookup index currently lists this session (cleared when pruned).
    #[serde(default = "yes")]
    pub(crate) indexed: bool,
    /// For a session imported from another machine by `git dibs sync`: where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<Origin>,
}

/// One co-edit warning given in full: about `peer`'s hold on the file with this digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Warned {
    /// The peer's session id.
    pub(crate) peer: String,
    /// The file's digest (as in the index).
    pub(crate) file: String,
}

impl Session {
    /// Whether this session was already warned in full that `peer` holds `key`.
    pub(crate) fn was_warned(&self, peer: &str, key: &FileKey) -> bool {
        let digest = key.digest();
        self.warned
            .iter()
            .any(|w| w.peer == peer && w.file == digest)
    }
}

/// Where a session imported from another machine came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Origin {
    /// The machine that published it (its `dibs.machine`).
    pub(crate) machine: String,
    /// The remote it was fetched from.
    pub(crate) remote: String,
    /// When that machine published this version (its clock).
    pub(crate) published: u64,
    /// The session's id on that machine.
    pub(crate) id: String,
    /// Its files that were uncommitted there when published (relative paths).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) dirty: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Session {
    /// A new, empty record.
    pub(crate) fn new(id: &str, host: Host, now: u64) -> Self {
        Session {
            id: id.to_owned(),
            sub_agent: None,
            host,
            label: None,
            generation: 0,
            first_seen: now,
            last_seen: now,
            worktree: None,
            branch: None,
            ended: None,
            agent: None,
            former: Vec::new(),
            files: Vec::new(),
            claims: Vec::new(),
            seen: Vec::new(),
            warned: Vec::new(),
            death_reported: false,
            indexed: true,
            origin: None,
        }
    }

    /// The first 8 characters of the id, as shown to people (of the id on its own machine,
    /// for a session imported from another machine).
    pub(crate) fn short_id(&self) -> &str {
        short_id(self.origin.as_ref().map_or(&self.id, |o| &o.id))
    }

    /// The actor this record belongs to: the session's main thread or one of its sub-agents.
    pub(crate) fn actor(&self) -> Actor<'_> {
        Actor {
            session: &self.id,
            agent: self.sub_agent.as_ref(),
        }
    }

    /// Whether this record is `actor`'s own.
    pub(crate) fn is(&self, actor: Actor<'_>) -> bool {
        self.id == actor.session
            && self.sub_agent.as_ref().map(|a| a.id.as_str()) == actor.agent_id()
    }

    /// The machine of a session imported from another machine; `None` for this clone's own.
    pub(crate) fn machine(&self) -> Option<&str> {
        self.origin.as_ref().map(|o| o.machine.as_str())
    }

    /// Live by the record alone: not ended, and active within `ttl` of `now`. Whether its agent
    /// process still runs is a separate fact ([`AgentProcess::is_gone`]).
    pub(crate) fn is_live(&self, now: u64, ttl: Duration) -> bool {
        self.ended.is_none() && now.saturating_sub(self.last_seen) < ttl.as_secs()
    }

    /// Live by the record and by its agent process: [`Session::is_live`], and the agent
    /// process, where one is recorded and this system can tell, has not ended.
    pub(crate) fn is_alive(&self, now: u64, ttl: Duration) -> bool {
        self.is_live(now, ttl)
            && self
                .agent
                .as_ref()
                .is_none_or(|a| a.is_gone() != Some(true))
    }

    /// The touch of `key`, if this session holds it.
    pub(crate) fn touch_of(&self, key: &FileKey) -> Option<&FileTouch> {
        self.files.iter().find(|f| &f.key == key)
    }

    /// The unexpired explicit claim on `target`, if any.
    pub(crate) fn claim_on(&self, target: &Target, now: u64) -> Option<&Claim> {
        self.claims
            .iter()
            .find(|c| &c.target == target && c.until > now)
    }

    /// Whether this session works in, or holds files in, the worktree at `root`.
    pub(crate) fn works_in(&self, root: &Path) -> bool {
        self.worktree.as_deref() == Some(root) || self.files.iter().any(|f| f.key.worktree == root)
    }

    /// The index folders that should list this session.
    pub(crate) fn digests(&self) -> std::collections::BTreeSet<String> {
        let mut out: std::collections::BTreeSet<String> =
            self.files.iter().map(|f| f.key.digest()).collect();
        out.extend(self.claims.iter().map(|c| c.target.digest()));
        // An ended session no longer works anywhere: it leaves its worktree's listing.
        if let (Some(w), None) = (&self.worktree, self.ended) {
            out.insert(worktree_digest(w));
        }
        out
    }
}

/// The header of a [`Session`] record: everything but its files, claims and digests, read
/// without building those (for listing many sessions cheaply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SessionHead {
    /// The host's durable session id.
    pub(crate) id: String,
    /// The sub-agent, for a sub-agent's record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sub_agent: Option<SubAgent>,
    /// Latest activity, seconds since the Unix epoch.
    pub(crate) last_seen: u64,
    /// When the host said the session ended, if it did.
    #[serde(default)]
    pub(crate) ended: Option<u64>,
    /// The agent process running the session now, when known.
    #[serde(default)]
    pub(crate) agent: Option<AgentProcess>,
    /// The worktree the session works in, if known.
    #[serde(default)]
    pub(crate) worktree: Option<PathBuf>,
}

impl From<&Session> for SessionHead {
    fn from(s: &Session) -> Self {
        SessionHead {
            id: s.id.clone(),
            sub_agent: s.sub_agent.clone(),
            last_seen: s.last_seen,
            ended: s.ended,
            agent: s.agent.clone(),
            worktree: s.worktree.clone(),
        }
    }
}

impl SessionHead {
    /// The actor the header belongs to.
    pub(crate) fn actor(&self) -> Actor<'_> {
        Actor {
            session: &self.id,
            agent: self.sub_agent.as_ref(),
        }
    }

    /// As [`Session::is_alive`].
    pub(crate) fn is_alive(&self, now: u64, ttl: Duration) -> bool {
        self.ended.is_none()
            && now.saturating_sub(self.last_seen) < ttl.as_secs()
            && self
                .agent
                .as_ref()
                .is_none_or(|a| a.is_gone() != Some(true))
    }
}

/// The first 8 characters of a session id; a person's session (`person-<user>-<tty>`) whole,
/// up to 48 characters, since its first 8 (`person-s`) would say nothing.
pub(crate) fn short_id(id: &str) -> &str {
    let keep = if id.starts_with("person-") { 48 } else { 8 };
    match id.char_indices().nth(keep) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

/// A change to one session's record, as decided by policy and applied by the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// The session was active now, in this worktree and branch (when known).
    Activity {
        /// Its cwd's worktree root.
        worktree: Option<PathBuf>,
        /// The branch there.
        branch: Option<String>,
    },
    /// Set the label if none is set yet.
    Label(String),
    /// The session touched these files now.
    Touch(Vec<FileKey>),
    /// The session saw this content of a file (read or wrote it).
    Seen(FileKey, String),
    /// Drop every explicit claim and every file claim but these (a session that ends keeps its
    /// uncommitted files on record, so `status` shows them as work left behind).
    ReleaseAllBut(Vec<FileKey>),
    /// The host ended the session.
    End,
    /// The session was warned in full that these peers (ids) hold these files.
    Warned(Vec<(String, FileKey)>),
}

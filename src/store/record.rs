//! The records the store keeps: one [`Session`] per host session, with the files it touched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::Host;

/// A file in a worktree: the unit a claim is on. The same relative path in two worktrees is two
/// different files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FileKey {
    /// The worktree root (canonical).
    pub worktree: PathBuf,
    /// The path relative to the worktree root, `/`-separated.
    pub path: String,
}

impl FileKey {
    /// A file key for `path` inside the worktree at `worktree`.
    pub fn new(worktree: impl Into<PathBuf>, path: impl Into<String>) -> Self {
        FileKey {
            worktree: worktree.into(),
            path: path.into(),
        }
    }

    /// A stable 64-bit digest of the key (FNV-1a), used to name its index folder.
    pub(crate) fn digest(&self) -> String {
        let mut bytes = self.worktree.as_os_str().as_encoded_bytes().to_vec();
        bytes.push(0);
        bytes.extend_from_slice(self.path.as_bytes());
        format!("{:016x}", fnv1a(&bytes))
    }
}

/// FNV-1a over `bytes`: small, stable across processes and versions.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// One file a session has touched, with when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTouch {
    /// Which file.
    #[serde(flatten)]
    pub key: FileKey,
    /// First touch, seconds since the Unix epoch.
    pub first: u64,
    /// Latest touch, seconds since the Unix epoch.
    pub last: u64,
}

/// Everything the store knows about one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The host's durable session id.
    pub id: String,
    /// Which host runs it.
    pub host: Host,
    /// A short human label (the first prompt, shortened), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The fencing generation: raised when the session re-registers from a new agent process.
    #[serde(default)]
    pub generation: u64,
    /// First activity, seconds since the Unix epoch.
    pub first_seen: u64,
    /// Latest activity, seconds since the Unix epoch.
    pub last_seen: u64,
    /// The worktree the session works in (its cwd's worktree), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<PathBuf>,
    /// The branch checked out there, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// When the host said the session ended, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<u64>,
    /// Files touched, in first-touch order.
    #[serde(default)]
    pub files: Vec<FileTouch>,
    /// Whether the lookup index currently lists this session's files (cleared when pruned).
    #[serde(default = "yes")]
    pub(crate) indexed: bool,
}

fn yes() -> bool {
    true
}

impl Session {
    /// A new, empty record.
    pub fn new(id: &str, host: Host, now: u64) -> Self {
        Session {
            id: id.to_owned(),
            host,
            label: None,
            generation: 0,
            first_seen: now,
            last_seen: now,
            worktree: None,
            branch: None,
            ended: None,
            files: Vec::new(),
            indexed: true,
        }
    }

    /// The first 8 characters of the id, as shown to people.
    pub fn short_id(&self) -> &str {
        short_id(&self.id)
    }

    /// Live: not ended, and active within `ttl` of `now`.
    pub fn is_live(&self, now: u64, ttl: Duration) -> bool {
        self.ended.is_none() && now.saturating_sub(self.last_seen) < ttl.as_secs()
    }

    /// The touch of `key`, if this session holds it.
    pub fn touch_of(&self, key: &FileKey) -> Option<&FileTouch> {
        self.files.iter().find(|f| &f.key == key)
    }

    /// Whether this session works in, or holds files in, the worktree at `root`.
    pub fn works_in(&self, root: &Path) -> bool {
        self.worktree.as_deref() == Some(root) || self.files.iter().any(|f| f.key.worktree == root)
    }
}

/// The first 8 characters of a session id.
pub fn short_id(id: &str) -> &str {
    match id.char_indices().nth(8) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

/// A change to one session's record, as decided by policy and applied by the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
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
    /// Drop every file claim of the session.
    ReleaseAll,
    /// The host ended the session.
    End,
}

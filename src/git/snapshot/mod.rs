//! Snapshots in the object store: one ref per session, `refs/dibs/snapshots/<session key>`,
//! pointing at a chain of commits, each parented on the session's previous snapshot. A
//! snapshot's tree holds every file the session has had snapshotted so far (the newest content
//! of each), so the tip alone brings back everything, and its ancestors hold the older versions.
//! The tree is flat: one entry per file at its top, `<worktree id>:<path>` (see `tree_path`;
//! a symlink is stored as a link, mode 120000), so a snapshot of one file writes three objects
//! however deep the file lies; chains begun before keep their nested `<worktree id>/<path>`
//! entries, read the same. The commit message's body is the snapshot's description, one line
//! of JSON ([`Meta`]): who (session, host), when, the worktrees (root, branch, HEAD), what this
//! snapshot changed and what it skipped, and why. (In the message, not in a file of the tree:
//! one object less to write on every edit.)
//!
//! `<worktree id>` is the first 16 hex digits of the SHA-1 of the worktree root's path, so files
//! of several worktrees of the clone (and the same path in two of them) never collide; the
//! root itself is in the description. These refs are local: nothing pushes
//! `refs/dibs/snapshots/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub(crate) use reattach::{
    REWRITTEN_PREFIX, Reattach, Repair, loose_ref_exists, loose_ref_tip, mend_damaged,
};
pub(crate) use tree::{file_at, newest_entries, tree_path};
pub(crate) use write::write;
#[cfg(test)]
use write::write_through_libgit2;

mod loose;
mod reattach;
#[cfg(test)]
mod tests;
mod tree;
mod write;
mod zlib;

/// The prefix of every snapshot ref.
pub(crate) const SNAPSHOT_PREFIX: &str = "refs/dibs/snapshots/";
/// The first line of every snapshot commit's message.
const SUBJECT: &str = "git-dibs snapshot";
/// How many commits of one session's chain are read at most.
pub(crate) const HISTORY_LIMIT: usize = 5000;
/// How often a snapshot is tried when its ref keeps moving under it: sub-agents run in
/// parallel on their session's one ref (sixteen at once seen), and a snapshot that gives up
/// is left to the next sweep.
pub(crate) const WRITE_ATTEMPTS: usize = 40;

/// What can go wrong writing or reading snapshots.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SnapshotError {
    /// libgit2 failed.
    #[error(transparent)]
    Git(#[from] git2::Error),
    /// git failed, in a repository libgit2 cannot open.
    #[error("this repository has {1}, which git-dibs reads and writes through git, and {0}")]
    Cli(super::cli::CliError, super::cli::Format),
    /// The session's ref moved under every attempt.
    #[error("the snapshot ref {0} kept moving; try again")]
    Raced(String),
    /// The session's ref, and its spare, are held by a lock file nobody releases.
    #[error(
        "the snapshot ref is locked by {} (left by a git process that died?); remove that file \
         if no git command is running",
        .0.display()
    )]
    Locked(PathBuf),
    /// Writing an object or the ref failed.
    #[error("could not write the snapshot: {0}")]
    Io(#[from] std::io::Error),
}

/// A file's content as it goes into a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Content {
    /// A regular file's bytes, and whether it is executable.
    File {
        /// The bytes.
        bytes: Vec<u8>,
        /// Whether any execute bit is set.
        executable: bool,
    },
    /// A symlink's target, as bytes.
    Link(Vec<u8>),
}

impl Content {
    fn mode(&self) -> git2::FileMode {
        match self {
            Content::File {
                executable: true, ..
            } => git2::FileMode::BlobExecutable,
            Content::File { .. } => git2::FileMode::Blob,
            Content::Link(_) => git2::FileMode::Link,
        }
    }

    /// The tree entry mode, in octal as git writes it.
    pub(crate) fn octal_mode(&self) -> String {
        format!("{:o}", i32::from(self.mode()))
    }

    /// The bytes stored: the file's content, or the link's target.
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Content::File { bytes, .. } | Content::Link(bytes) => bytes,
        }
    }
}

/// One file to put into a snapshot.
#[derive(Debug, Clone)]
pub(crate) struct Put {
    /// Its worktree's root.
    pub(crate) worktree: PathBuf,
    /// Relative to the root, `/`-separated.
    pub(crate) path: String,
    /// What it holds now.
    pub(crate) content: Content,
}

/// A worktree as a snapshot records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WorktreeMeta {
    /// The root.
    pub(crate) root: PathBuf,
    /// The branch checked out there at the time, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// Its HEAD commit at the time, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) head: Option<String>,
    /// What the worktree is wherever it moves (see [`crate::git::identity`]); `None` in
    /// snapshots made before this was recorded, and for another clone's worktree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) identity: Option<String>,
}

/// A file a snapshot changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Changed {
    /// The worktree id (a key of [`Meta::worktrees`]).
    pub(crate) worktree: String,
    /// The path.
    pub(crate) path: String,
}

/// A file left out of a snapshot, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Skipped {
    /// The worktree root.
    pub(crate) worktree: PathBuf,
    /// The path.
    pub(crate) path: String,
    /// Why, in a few words (`larger than 8 MiB`, `a FIFO`, `ignored by git`).
    pub(crate) reason: String,
}

/// `snapshot.json`: who made the snapshot, when, and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// The format, 1.
    pub(crate) version: u32,
    /// The session's id.
    pub(crate) session: String,
    /// Its host (`claude`, `cursor`, …).
    pub(crate) host: String,
    /// When, seconds since the Unix epoch.
    pub(crate) at: u64,
    /// The nanoseconds past `at` (0 in snapshots made before this was recorded): two
    /// snapshots of one file made in the same second, on two chains, are told apart by it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) nanos: u32,
    /// Every worktree the chain holds files of, by id (carried over from the parent).
    pub(crate) worktrees: BTreeMap<String, WorktreeMeta>,
    /// What this snapshot changed.
    #[serde(default)]
    pub(crate) changed: Vec<Changed>,
    /// What this snapshot left out.
    #[serde(default)]
    pub(crate) skipped: Vec<Skipped>,
    /// Where its content came from; `None` in snapshots made before this was recorded (taken
    /// as the agent's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<Origin>,
}

/// Where a snapshot's content came from, so `recover` can tell the agent's own work from a
/// state found on disk that anyone may have made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Origin {
    /// Written by the session's edit tool.
    Edit,
    /// Written by the session's shell command (named on its line, or found after it ran, or
    /// by a background job it started).
    Shell,
    /// Found changed by stat data alone, before a tool call: a person's editor, a formatter,
    /// another program, or a command that reverted the file.
    Sweep,
    /// What `recover --force` overwrote, kept before it did.
    Kept,
}

impl Origin {
    /// The name shown in listings.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Origin::Edit => "edit",
            Origin::Shell => "shell",
            Origin::Sweep => "sweep",
            Origin::Kept => "kept",
        }
    }
}

/// One new snapshot of a session.
#[derive(Debug, Clone)]
pub(crate) struct NewSnapshot<'a> {
    /// The session's id.
    pub(crate) session: &'a str,
    /// Its host's name.
    pub(crate) host: &'a str,
    /// Now.
    pub(crate) at: u64,
    /// The files, with their content.
    pub(crate) puts: &'a [Put],
    /// What was left out.
    pub(crate) skipped: &'a [Skipped],
    /// The worktrees of `puts` and `skipped` as they are now (branch, HEAD).
    pub(crate) worktrees: &'a [WorktreeMeta],
    /// Where the content came from.
    pub(crate) origin: Origin,
}

/// The id under `files/` of the worktree at `root`.
pub(crate) fn worktree_id(root: &Path) -> String {
    // Git's blob id of the path, computed here: libgit2 would start its runtime for it.
    let mut id = super::sha1::blob_id(root.as_os_str().as_encoded_bytes());
    id.truncate(16);
    id
}

/// The snapshot ref of the session whose store key is `key`.
pub(crate) fn snapshot_ref(key: &str) -> String {
    format!("{SNAPSHOT_PREFIX}{key}")
}

/// How old a snapshot ref's lock file is when it is taken for a leftover (a ref move takes
/// microseconds; git's own lock on a loose ref lasts as long as a `pack-refs`).
const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(60);

/// The store key of the spare chain of the session whose key is `key`: where its snapshots go
/// while a lock file nobody releases holds its ref (a ref name may not end in `.lock`, so
/// this one never is a lock).
pub(crate) fn spare_key(key: &str) -> String {
    format!("{key}.spare")
}

/// The lock file of the loose ref `name` in the clone whose common git dir is `common_dir`.
fn lock_path(common_dir: &Path, name: &str) -> PathBuf {
    common_dir.join(format!("{name}.lock"))
}

/// Whether the loose ref `name` has a lock file (a regular file, not followed).
fn lock_left(common_dir: &Path, name: &str) -> bool {
    std::fs::symlink_metadata(lock_path(common_dir, name)).is_ok_and(|m| m.is_file())
}

/// Remove the lock file of the loose ref `name` when it is a leftover ([`remove_if_stale`]).
fn clear_stale_lock(common_dir: &Path, name: &str) -> bool {
    remove_if_stale(&lock_path(common_dir, name))
}

/// Remove the lock file `lock` when it is a regular file older than [`STALE_LOCK`]: no live
/// writer holds a ref's lock that long. Whether one was removed.
fn remove_if_stale(lock: &Path) -> bool {
    let stale = std::fs::symlink_metadata(lock)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > STALE_LOCK);
    stale && std::fs::remove_file(lock).is_ok()
}

/// Open the clone whose common git dir is `common_dir` for snapshots.
fn open(common_dir: &Path) -> Result<git2::Repository, SnapshotError> {
    Ok(git2::Repository::open_ext(
        common_dir,
        git2::RepositoryOpenFlags::NO_SEARCH,
        std::iter::empty::<&std::ffi::OsStr>(),
    )?)
}

/// The name and email every snapshot commit is made by (at the snapshot's time, UTC).
pub(crate) const IDENTITY: (&str, &str) = ("git-dibs", "git-dibs@localhost");

/// The description of snapshot `new` on top of its parent's (`parent`, whose worktrees carry
/// over).
pub(crate) fn describe(new: &NewSnapshot<'_>, parent: Option<Meta>) -> Meta {
    let mut meta = Meta {
        version: 1,
        session: new.session.to_owned(),
        host: new.host.to_owned(),
        at: new.at,
        nanos: nanos_past(new.at),
        worktrees: parent.map(|m| m.worktrees).unwrap_or_default(),
        changed: Vec::new(),
        skipped: new.skipped.to_vec(),
        origin: Some(new.origin),
    };
    for w in new.worktrees {
        meta.worktrees.insert(worktree_id(&w.root), w.clone());
    }
    for p in new.puts {
        meta.changed.push(Changed {
            worktree: worktree_id(&p.worktree),
            path: p.path.clone(),
        });
    }
    meta
}

/// The nanoseconds of the clock now past the second `at`, when it is still that second; the
/// last nanosecond of it once that second is over (a snapshot whose hook began in second `at`
/// and wrote it in the next one is later than any other written within `at`: with 0 it was
/// taken for older than one made earlier in that second, on another chain).
fn nanos_past(at: u64) -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok();
    match now {
        Some(d) if d.as_secs() == at => d.subsec_nanos(),
        Some(d) if d.as_secs() > at => 999_999_999,
        _ => 0,
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The commit message of snapshot `new` described by `meta`.
pub(crate) fn message(new: &NewSnapshot<'_>, meta: &Meta) -> String {
    format!(
        "{SUBJECT}: {} file{} of {} session {}\n\n{}\n",
        new.puts.len(),
        if new.puts.len() == 1 { "" } else { "s" },
        new.host,
        new.session,
        serde_json::to_string(meta).expect("snapshot metadata serializes")
    )
}

/// The description in a snapshot commit's message: its body; `None` for another commit.
pub(crate) fn meta_of_message(message: &[u8]) -> Option<Meta> {
    if !message.starts_with(SUBJECT.as_bytes()) {
        return None;
    }
    let body = message.splitn(3, |b| *b == b'\n').nth(2)?;
    serde_json::from_slice(body).ok()
}

/// The description of a snapshot commit.
fn meta_of(commit: &git2::Commit<'_>) -> Option<Meta> {
    meta_of_message(commit.message_bytes())
}

/// One snapshot commit, as read back.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// The commit id.
    pub(crate) id: String,
    /// Its description.
    pub(crate) meta: Meta,
}

/// A file held by a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Held {
    /// The worktree id.
    pub(crate) worktree: String,
    /// The path.
    pub(crate) path: String,
    /// The blob.
    pub(crate) blob: String,
    /// Whether it is a symlink.
    pub(crate) link: bool,
    /// Whether it is executable.
    pub(crate) executable: bool,
}

/// Reads the snapshots of one clone.
pub(crate) struct Snapshots {
    inner: Reader,
}

/// Who reads: libgit2, or git for a repository libgit2 cannot open.
enum Reader {
    Lib(git2::Repository),
    Cli(super::cli::snapshots::Cli),
}

impl Snapshots {
    /// Open the clone whose common git dir is `common_dir`.
    pub(crate) fn open(common_dir: &Path) -> Result<Snapshots, SnapshotError> {
        let inner = match open(common_dir) {
            Ok(repo) => Reader::Lib(repo),
            Err(e) => Reader::Cli(super::cli::snapshots::Cli::for_format(common_dir).ok_or(e)?),
        };
        Ok(Snapshots { inner })
    }

    /// Every snapshot ref and its tip, by name.
    pub(crate) fn refs(&self) -> Result<Vec<(String, String)>, SnapshotError> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => {
                return Ok(cli.refs()?.into_iter().map(|(n, t, _)| (n, t)).collect());
            }
        };
        let mut out = Vec::new();
        for r in repo.references_glob(&format!("{SNAPSHOT_PREFIX}*"))? {
            // A ref damaged from outside (an empty or torn file) hides no other session's.
            let Ok(r) = r else {
                continue;
            };
            if let (Some(name), Ok(c)) = (r.name(), r.peel_to_commit()) {
                out.push((name.to_owned(), c.id().to_string()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// The chain from `tip` back, newest first (at most [`HISTORY_LIMIT`] commits); commits
    /// without a readable description end it.
    pub(crate) fn history(&self, tip: &str) -> Vec<Snapshot> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.history(tip),
        };
        let mut out = Vec::new();
        let mut next = git2::Oid::from_str(tip)
            .ok()
            .and_then(|id| repo.find_commit(id).ok());
        while let Some(c) = next {
            let Some(meta) = meta_of(&c) else {
                break;
            };
            out.push(Snapshot {
                id: c.id().to_string(),
                meta,
            });
            if out.len() >= HISTORY_LIMIT {
                break;
            }
            next = c.parent(0).ok();
        }
        out
    }

    /// Every file the snapshot `commit` holds.
    pub(crate) fn files(&self, commit: &str) -> Result<Vec<Held>, SnapshotError> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.files(commit),
        };
        let commit = repo.find_commit(git2::Oid::from_str(commit)?)?;
        let mut out = Vec::new();
        commit
            .tree()?
            .walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
                if entry.kind() == Some(git2::ObjectType::Blob)
                    && let Some(name) = entry.name()
                    && let Some((worktree, path)) = file_at(&format!("{dir}{name}"))
                {
                    let mode = entry.filemode();
                    let flat = dir.is_empty();
                    out.push((
                        Held {
                            worktree,
                            path,
                            blob: entry.id().to_string(),
                            link: mode == i32::from(git2::FileMode::Link),
                            executable: mode == i32::from(git2::FileMode::BlobExecutable),
                        },
                        flat,
                    ));
                }
                git2::TreeWalkResult::Ok
            })?;
        Ok(newest_entries(out))
    }

    /// The bytes of blob `id`.
    pub(crate) fn blob(&self, id: &str) -> Result<Vec<u8>, SnapshotError> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.blob(id),
        };
        Ok(repo.find_blob(git2::Oid::from_str(id)?)?.content().to_vec())
    }

    /// The size of blob `id` in bytes, read from its header alone; `None` when it cannot be
    /// read.
    pub(crate) fn blob_size(&self, id: &str) -> Option<u64> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.blob_size(id),
        };
        let (size, _) = repo
            .odb()
            .ok()?
            .read_header(git2::Oid::from_str(id).ok()?)
            .ok()?;
        u64::try_from(size).ok()
    }

    /// Delete the snapshot refs whose newest snapshot is older than `cutoff` (seconds since the
    /// Unix epoch); their objects go with git's next `gc`. Returns the deleted names.
    pub(crate) fn expire(&self, cutoff: u64) -> Result<Vec<String>, SnapshotError> {
        let repo = match &self.inner {
            Reader::Lib(repo) => repo,
            Reader::Cli(cli) => return cli.expire(cutoff),
        };
        let mut gone = Vec::new();
        for (name, tip) in self.refs()? {
            let commit = repo.find_commit(git2::Oid::from_str(&tip)?)?;
            if u64::try_from(commit.time().seconds()).unwrap_or(0) < cutoff {
                repo.find_reference(&name)?.delete()?;
                gone.push(name);
            }
        }
        Ok(gone)
    }

    /// The blob id of `path` in the commit checked out in the worktree at `root` (what a
    /// reset or checkout there puts back), or in commit `at` when given; `None` when it is not
    /// in that commit.
    pub(crate) fn committed_blob(
        &self,
        root: &Path,
        path: &str,
        at: Option<&str>,
    ) -> Option<String> {
        if let Reader::Cli(cli) = &self.inner {
            return cli.committed_blob(root, path, at);
        }
        let repo = crate::git::envrepo::open(root).ok()?;
        let tree = match at {
            Some(id) => repo
                .find_commit(git2::Oid::from_str(id).ok()?)
                .ok()?
                .tree()
                .ok()?,
            None => repo.head().ok()?.peel_to_tree().ok()?,
        };
        let entry = tree.get_path(&crate::pathtext::to_path(path)).ok()?;
        (entry.kind() == Some(git2::ObjectType::Blob)).then(|| entry.id().to_string())
    }

    /// The blob id the file at `full` would have in this repository now (see
    /// [`current_blob`]; in a SHA-256 repository git hashes it).
    pub(crate) fn current_blob(&self, full: &Path) -> Option<String> {
        match &self.inner {
            Reader::Cli(cli) if cli.sha256() => cli.current_blob(full),
            _ => current_blob(full),
        }
    }
}

/// The blob id (hex) the file at `full` would have now, without following a symlink (a link's
/// target is hashed) or opening anything but a regular file; `None` when there is no such file.
pub(crate) fn current_blob(full: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(full).ok()?;
    let id = if meta.file_type().is_symlink() {
        let target = std::fs::read_link(full).ok()?.into_os_string();
        git2::Oid::hash_object(git2::ObjectType::Blob, target.as_encoded_bytes()).ok()?
    } else if meta.is_file() {
        git2::Oid::hash_file(git2::ObjectType::Blob, full).ok()?
    } else {
        return None;
    };
    Some(id.to_string())
}

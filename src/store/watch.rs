//! The clone's file watcher as the hooks see it: where it listens (`watch.sock` in the store),
//! how it is asked, and when it is started. The watcher (`git dibs watch`, Linux only) keeps,
//! through inotify, the set of watched files (those in any session's snapshot state) whose stat
//! data differ from every stamp the logs hold for them; before a shell command the sweep asks it
//! for that set instead of `lstat`ing every watched file. It is caught up by construction: it
//! reads every event queued before it answers, and the kernel queues an event in the writing
//! call itself. Whatever goes wrong (no watcher, a refused or slow connection, an answer that
//! does not parse, another version) the answer is `None` and the sweep stats every file, as it
//! does without a watcher.
//!
//! Wire format: the hook sends `DIBSW1 ask\n` and reads to the end: `DIBSW1 <n> <dev> <ino>\n`
//! and `n` entries `<root>\0<path>\0` (path relative to the worktree root, both as the bytes
//! handed to the file system). `dev` and `ino` name the store folder the watcher watches: an
//! answer about another clone's store (a socket linked to another clone's) is no answer. `DIBSW1 quit\n` asks it to end. A watcher that reads another version's
//! line ends (the hooks then start one of their own version).

use std::collections::HashSet;
use std::io::{self, Read as _, Write as _};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub(crate) use super::snapshots::Stamp;
use super::{Store, fsio};

/// The version word every message starts with.
pub(crate) const MAGIC: &[u8] = b"DIBSW1";
/// The fewest watched files a sweep must check before a watcher is started for its clone:
/// below this the stat calls cost less than a watcher's upkeep.
pub(crate) const MIN_FILES: usize = 64;
/// How long a hook waits for the watcher's answer before it stats every file itself.
const ANSWER_WAIT: Duration = Duration::from_millis(250);
/// The largest answer read (bytes); a longer one is no answer.
const MAX_ANSWER: u64 = 4 << 20;
/// The least time between two starts of a watcher for one clone (seconds): a watcher that
/// cannot run (no inotify, its limits reached) is not started on every call.
const RESTART_PAUSE: u64 = 60;
/// The longest socket path the kernel takes (`sun_path` less its final NUL).
const MAX_SOCKET_PATH: usize = 107;
/// `DIBS_WATCH`: `off` never asks nor starts a watcher; `on` starts one whatever the number of
/// watched files.
pub(crate) const ENV: &str = "DIBS_WATCH";

/// Whether watchers are used at all, and whether one is started however few files there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Not used (`DIBS_WATCH=off`, or a system without inotify).
    Off,
    /// Started once a sweep checks [`MIN_FILES`] files.
    Auto,
    /// Started for any number of files (`DIBS_WATCH=on`).
    On,
}

impl Mode {
    /// The mode this process runs in.
    pub(crate) fn current() -> Mode {
        if !cfg!(target_os = "linux") {
            return Mode::Off;
        }
        match std::env::var_os(ENV).as_deref().map(OsStrExt::as_bytes) {
            Some(b"off" | b"0" | b"false" | b"no") => Mode::Off,
            Some(b"on" | b"1" | b"true" | b"yes") => Mode::On,
            _ => Mode::Auto,
        }
    }
}

/// The watched files a watcher says may differ from their last snapshot.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// Each as `<root>\0<path>`.
    files: HashSet<Vec<u8>>,
}

impl Answer {
    /// Whether the file at `rel` below `root` may have changed since its last snapshot: only
    /// these need a `stat`.
    pub(crate) fn may_have_changed(&self, root: &Path, rel: &[u8]) -> bool {
        !self.files.is_empty() && self.files.contains(&key(root, rel))
    }

    /// How many files it names.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it names none.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Read an answer about the store folder `store` (its device and inode): `None` unless it
    /// is whole, of this version and about that folder.
    pub(crate) fn parse(bytes: &[u8], store: (u64, u64)) -> Option<Answer> {
        let end = bytes.iter().position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(&bytes[..end]).ok()?;
        let mut words = head.strip_prefix("DIBSW1 ")?.split(' ');
        let count: usize = words.next()?.parse().ok()?;
        let dev: u64 = words.next()?.parse().ok()?;
        let ino: u64 = words.next()?.parse().ok()?;
        if words.next().is_some() || (dev, ino) != store {
            return None;
        }
        let mut fields = bytes[end + 1..].split(|&b| b == 0);
        let mut files = HashSet::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let root = fields.next()?;
            let rel = fields.next()?;
            if root.is_empty() || rel.is_empty() {
                return None;
            }
            let mut k = Vec::with_capacity(root.len() + 1 + rel.len());
            k.extend_from_slice(root);
            k.push(0);
            k.extend_from_slice(rel);
            files.insert(k);
        }
        // All consumed: after the last NUL there is nothing.
        (fields.next() == Some(&[][..]) && fields.next().is_none()).then_some(Answer { files })
    }
}

/// The key of a file: its worktree root, a NUL, its path below the root.
fn key(root: &Path, rel: &[u8]) -> Vec<u8> {
    let root = root.as_os_str().as_bytes();
    let mut k = Vec::with_capacity(root.len() + 1 + rel.len());
    k.extend_from_slice(root);
    k.push(0);
    k.extend_from_slice(rel);
    k
}

/// Write an answer about the store folder `store` (device, inode) naming `files` (each a
/// worktree root and a path below it).
pub(crate) fn encode_answer<'a>(
    store: (u64, u64),
    files: impl ExactSizeIterator<Item = (&'a Path, &'a [u8])>,
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    let (dev, ino) = store;
    out.extend_from_slice(format!(" {} {dev} {ino}\n", files.len()).as_bytes());
    for (root, rel) in files {
        out.extend_from_slice(root.as_os_str().as_bytes());
        out.push(0);
        out.extend_from_slice(rel);
        out.push(0);
    }
    out
}

/// What a connection to the watcher asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Request {
    /// The files that may have changed.
    Ask,
    /// End.
    Quit,
    /// Another version's line, or none: the watcher ends, a hook of the current version
    /// starts its own.
    Other,
}

impl Request {
    /// Read a request line.
    pub(crate) fn parse(line: &[u8]) -> Request {
        match line.strip_suffix(b"\n").unwrap_or(line) {
            b"DIBSW1 ask" => Request::Ask,
            b"DIBSW1 quit" => Request::Quit,
            _ => Request::Other,
        }
    }
}

impl Store {
    /// Where this clone's watcher listens.
    pub(crate) fn watch_socket(&self) -> PathBuf {
        self.dir().join("watch.sock")
    }

    /// The file the running watcher holds locked.
    pub(crate) fn watch_lock(&self) -> PathBuf {
        self.dir().join("watch.lock")
    }

    /// The store folder's device and inode, which a watcher's answer must name.
    pub(crate) fn identity(&self) -> Option<(u64, u64)> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(self.dir()).ok()?;
        meta.is_dir().then(|| (meta.dev(), meta.ino()))
    }

    /// Hold this clone's watcher lock: `None` when another watcher holds it.
    pub(crate) fn take_watch_lock(&self) -> io::Result<Option<fsio::LockGuard>> {
        match fsio::lock(&self.watch_lock(), Duration::ZERO)? {
            fsio::Locked::Held(guard) => Ok(Some(guard)),
            fsio::Locked::TimedOut => Ok(None),
        }
    }

    /// When a watcher was last started for this clone.
    fn watch_started(&self) -> PathBuf {
        self.dir().join("watch.started")
    }

    /// Ask this clone's watcher which watched files may have changed. `None` when there is
    /// none, or it does not answer in time or in this version: then every file is to be
    /// stat'ed.
    pub(crate) fn ask_watcher(&self) -> Option<Answer> {
        let path = self.watch_socket();
        if path.as_os_str().len() > MAX_SOCKET_PATH {
            return None;
        }
        let bytes = exchange(&path, b"DIBSW1 ask\n").ok()?;
        Answer::parse(&bytes, self.identity()?)
    }

    /// Whether a watcher may be started now: none was in the last [`RESTART_PAUSE`] seconds.
    /// Notes the start when it may.
    pub(crate) fn may_start_watcher(&self, now: u64) -> bool {
        let path = self.watch_started();
        if self.watch_socket().as_os_str().len() > MAX_SOCKET_PATH {
            return false;
        }
        let last = fsio::read(&path)
            .ok()
            .and_then(|b| std::str::from_utf8(&b).ok()?.trim().parse::<u64>().ok());
        if last.is_some_and(|t| now < t.saturating_add(RESTART_PAUSE) && t <= now) {
            return false;
        }
        fsio::write_atomic(&path, format!("{now}\n").as_bytes()).is_ok()
    }
}

/// One file a session's snapshots watch, as the sweep's `lstat` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WatchedFile {
    /// Its worktree's root.
    pub(crate) root: PathBuf,
    /// Its path below the root, as the bytes handed to the file system.
    pub(crate) rel: Vec<u8>,
    /// Its stat data when it was last snapshotted.
    pub(crate) stamp: Stamp,
    /// When the session last snapshotted anything (seconds since the Unix epoch).
    pub(crate) at: u64,
}

impl Store {
    /// The folder of the snapshot state logs: a change there may change the watched files.
    pub(crate) fn snapshot_logs_dir(&self) -> PathBuf {
        self.dir().join("snapshots")
    }

    /// Every file any session's snapshot state watches, whatever the session's age, each
    /// with the stamp that log holds (a file two sessions watch comes twice).
    pub(crate) fn all_watched_files(&self) -> Vec<WatchedFile> {
        let mut out = Vec::new();
        for state in self.snapshot_states_since(0) {
            for w in state.files {
                let Some(root) = w.worktree.to_str() else {
                    continue;
                };
                out.push(WatchedFile {
                    root: crate::pathtext::to_path(root).into_owned(),
                    rel: crate::pathtext::to_bytes(&w.path).into_owned(),
                    stamp: w.stamp,
                    at: state.at,
                });
            }
        }
        out
    }
}

/// Send `request` to the socket at `path` and read its whole answer, all within
/// [`ANSWER_WAIT`] (a listener that takes no more connections is no answer at once).
#[cfg(target_os = "linux")]
fn exchange(path: &Path, request: &[u8]) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + ANSWER_WAIT;
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| io::Error::from(io::ErrorKind::TimedOut))
    };
    let mut stream = crate::platform::notify::connect_now(path)?;
    stream.set_write_timeout(Some(left()?))?;
    stream.write_all(request)?;
    stream.shutdown(std::net::Shutdown::Write)?;
    let mut out = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    loop {
        stream.set_read_timeout(Some(left()?))?;
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..n]);
        if out.len() as u64 > MAX_ANSWER {
            return Err(io::Error::from(io::ErrorKind::InvalidData));
        }
    }
}

/// No watcher elsewhere.
#[cfg(not(target_os = "linux"))]
fn exchange(_path: &Path, _request: &[u8]) -> io::Result<Vec<u8>> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: (u64, u64) = (7, 9);

    #[test]
    fn an_answer_reads_back_as_written() {
        let root = Path::new("/r/o o t");
        let files = [(root, &b"a/b.rs"[..]), (root, &b"c\nd"[..])];
        let bytes = encode_answer(ID, files.iter().copied());
        let answer = Answer::parse(&bytes, ID).unwrap();
        assert!(Answer::parse(&bytes, (ID.0, ID.1 + 1)).is_none());
        assert_eq!(answer.len(), 2);
        assert!(answer.may_have_changed(root, b"a/b.rs"));
        assert!(answer.may_have_changed(root, b"c\nd"));
        assert!(!answer.may_have_changed(root, b"a/b"));
        assert!(!answer.may_have_changed(Path::new("/r"), b"a/b.rs"));
        let none = Answer::parse(&encode_answer(ID, std::iter::empty()), ID).unwrap();
        assert!(none.is_empty() && !none.may_have_changed(root, b"a/b.rs"));
    }

    #[test]
    fn a_torn_or_foreign_answer_is_none() {
        let root = Path::new("/r");
        let whole = encode_answer(ID, [(root, &b"a"[..]), (root, &b"b"[..])].into_iter());
        for cut in 0..whole.len() {
            assert!(Answer::parse(&whole[..cut], ID).is_none(), "cut at {cut}");
        }
        let mut longer = whole.clone();
        longer.extend_from_slice(b"/x\0y\0");
        assert!(Answer::parse(&longer, ID).is_none());
        for bad in [
            &b"DIBSW2 0 7 9\n"[..],
            b"DIBSW1 -1 7 9\n",
            b"DIBSW1 0\n",
            b"DIBSW1 0 7 9 1\n",
            b"DIBSW1 1 7 9\n\0a\0",
            b"",
        ] {
            assert!(Answer::parse(bad, ID).is_none(), "{bad:?}");
        }
        assert!(Answer::parse(b"DIBSW1 0 7 9\n", ID).is_some());
    }

    #[test]
    fn requests_of_another_version_are_other() {
        assert_eq!(Request::parse(b"DIBSW1 ask\n"), Request::Ask);
        assert_eq!(Request::parse(b"DIBSW1 quit"), Request::Quit);
        assert_eq!(Request::parse(b"DIBSW2 ask\n"), Request::Other);
        assert_eq!(Request::parse(b""), Request::Other);
    }
}

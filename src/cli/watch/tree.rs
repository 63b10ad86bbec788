//! The watcher's picture of one clone's watched files: which of them differ, by stat data, from
//! every stamp the snapshot logs hold for them ("dirty"), kept current by inotify. Each watched
//! file's inode is watched (a write through any name of it is seen), and so is every folder
//! from `/` down to each file's folder, for names coming and going (a file replaced by a rename,
//! a folder moved away or made anew). Whatever event could mean a file changed makes it
//! `lstat`ed again (the sweep's own way, no link below its worktree's root followed) and
//! compared. What cannot be watched (a folder on a file system whose other side writes unseen,
//! a limit reached) is always answered as dirty, so the hook stats it itself.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

mod logs;

use crate::platform::below::Below;
use crate::platform::notify;
use crate::store::Store;
use crate::store::watch::{Stamp, encode_answer};

/// Names coming and going in a folder, and the folder itself moved or removed.
fn dir_mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
}

/// A watched file's content or stat data changing, or the file moved or removed.
fn file_mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CLOSE_WRITE
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::DONT_FOLLOW
}

/// What a watch descriptor stands for.
#[derive(Debug, Clone)]
enum Watch {
    /// The store folder: the watcher ends when it or its socket goes.
    Store,
    /// The snapshot logs' folder: a change there is a new set of watched files.
    Logs,
    /// A folder on the way to watched files.
    Dir(PathBuf),
    /// The inode of watched files (more than one path when they are links of one file).
    File(Vec<PathBuf>),
}

/// One watched file.
#[derive(Debug, Default)]
struct File {
    /// The names the logs give it: (worktree root, path below it).
    names: Vec<(PathBuf, Vec<u8>)>,
    /// The stamps the logs hold for it.
    stamps: Vec<Stamp>,
    /// Its stat data differ from every stamp.
    dirty: bool,
    /// Its inode's watch, when it exists.
    wd: Option<WatchDescriptor>,
    /// Its inode could not be watched (other than for being gone): always answered.
    unwatched: bool,
    /// When a session that watches it last snapshotted anything: the newest are watched
    /// first when watches run short.
    at: u64,
}

/// A clone's watched files and the watches that keep them current.
pub(super) struct Tree {
    inotify: Inotify,
    store: Store,
    files: BTreeMap<PathBuf, File>,
    watches: HashMap<WatchDescriptor, Watch>,
    dirs: HashMap<PathBuf, WatchDescriptor>,
    /// Every folder from `/` to each watched file's folder.
    wanted: BTreeSet<PathBuf>,
    /// Folders that could not be watched, or whose file system inotify does not see whole:
    /// files below them are always answered.
    blind: BTreeSet<PathBuf>,
    /// The logs changed: the set is read again before the next answer.
    reload: bool,
    /// The store or the socket went: the watcher ends.
    pub(super) gone: bool,
    /// The store folder's device and inode, named in every answer.
    identity: (u64, u64),
    /// The inode of the socket this watcher listens on, once it does.
    socket: Option<u64>,
    /// The most watches it takes: a share of what the system allows a user, so that the
    /// editors' and build tools' watchers are not starved.
    budget: usize,
    /// `/proc/self/mountinfo`, which polls as changed when a file system is mounted or
    /// unmounted.
    mounts: Option<std::fs::File>,
}

impl Tree {
    /// Watch the store of `store` and every file its logs watch, each checked once, with at
    /// most `budget` watches (default [`budget`]).
    pub(super) fn new(store: Store, budget: Option<usize>) -> io::Result<Tree> {
        let identity = store
            .identity()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let mut tree = Tree {
            inotify: Inotify::init()?,
            store,
            files: BTreeMap::new(),
            watches: HashMap::new(),
            dirs: HashMap::new(),
            wanted: BTreeSet::new(),
            blind: BTreeSet::new(),
            reload: true,
            gone: false,
            identity,
            socket: None,
            budget: budget.unwrap_or_else(self::budget),
            mounts: std::fs::File::open("/proc/self/mountinfo").ok(),
        };
        if let Some(m) = &tree.mounts {
            // Take the first report (a fresh handle reports a change once).
            notify::mounts_changed(m.as_fd());
        }
        let dir = tree.store.dir().to_path_buf();
        let wd = tree
            .inotify
            .watches()
            .add(&dir, dir_mask() | WatchMask::ATTRIB)?;
        tree.watches.insert(wd, Watch::Store);
        tree.catch_up()?;
        Ok(tree)
    }

    /// A second handle of the inotify descriptor, to wait on without holding the tree.
    pub(super) fn wait_handle(&self) -> io::Result<std::os::fd::OwnedFd> {
        self.inotify.as_fd().try_clone_to_owned()
    }

    /// Take in every event queued so far, then the logs when they changed: after this, the
    /// answer holds for every change made before the call.
    pub(super) fn catch_up(&mut self) -> io::Result<()> {
        // The store moved (its clone's git folder moved or renamed: no event reaches a watch
        // below it): this watcher's paths are stale, it ends.
        if self.store.identity() != Some(self.identity) {
            self.gone = true;
            return Ok(());
        }
        // A file system mounted or unmounted (over a watched folder, say) makes no inotify
        // event: every watch anew.
        if self
            .mounts
            .as_ref()
            .is_some_and(|m| notify::mounts_changed(m.as_fd()))
        {
            self.rewatch_all();
        }
        let mut buffer = vec![0u8; 64 << 10];
        loop {
            let events: Vec<(WatchDescriptor, EventMask, Option<PathBuf>)> =
                match self.inotify.read_events(&mut buffer) {
                    Ok(events) => events
                        .map(|e| (e.wd, e.mask, e.name.map(PathBuf::from)))
                        .collect(),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                };
            if events.is_empty() {
                break;
            }
            for (wd, mask, name) in events {
                self.take(&wd, mask, name.as_deref());
            }
        }
        if self.reload {
            self.reload = false;
            self.read_logs();
        }
        Ok(())
    }

    /// One event.
    fn take(&mut self, wd: &WatchDescriptor, mask: EventMask, name: Option<&Path>) {
        if mask.contains(EventMask::Q_OVERFLOW) {
            // Events were lost: every watch anew, every file checked.
            self.rewatch_all();
            return;
        }
        let Some(watch) = self.watches.get(wd).cloned() else {
            return;
        };
        let itself =
            mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF | EventMask::IGNORED);
        match watch {
            Watch::Store => {
                let name = name.map(Path::as_os_str);
                if itself || (name == Some(OsStr::new("watch.sock")) && !self.socket_is_ours()) {
                    self.gone = true;
                } else if name == Some(OsStr::new("snapshots")) {
                    self.reload = true;
                }
            }
            Watch::Logs => {
                let log = name.is_some_and(|n| n.as_os_str().as_bytes().ends_with(b".log"));
                if itself {
                    self.watches.remove(wd);
                    self.reload = true;
                } else if log {
                    self.reload = true;
                }
            }
            Watch::Dir(dir) => {
                if itself {
                    self.rewatch_below(&dir);
                } else if let Some(name) = name {
                    let child = dir.join(name);
                    if self.wanted.contains(&child) {
                        self.rewatch_below(&child);
                    } else if self.files.contains_key(&child) {
                        self.rewatch_file(&child);
                        self.check(&child);
                    }
                }
            }
            Watch::File(paths) => {
                for path in paths {
                    if itself {
                        self.rewatch_file(&path);
                    }
                    self.check(&path);
                }
            }
        }
    }

    /// Watch the folder `dir` (no link followed). A folder that is not there (or not a folder)
    /// is left to its parent's watch, which sees it come. (Masks are added to, never replaced:
    /// a path the logs name as a file may be a folder on the way to others now.)
    fn watch_dir(&mut self, dir: &Path) {
        if self.watches.len() >= self.budget {
            self.blind.insert(dir.to_path_buf());
            return;
        }
        match self
            .inotify
            .watches()
            .add(dir, dir_mask() | WatchMask::MASK_ADD)
        {
            Ok(wd) => {
                self.watches
                    .insert(wd.clone(), Watch::Dir(dir.to_path_buf()));
                self.dirs.insert(dir.to_path_buf(), wd);
                if notify::sees_every_change(dir) {
                    self.blind.remove(dir);
                } else {
                    self.blind.insert(dir.to_path_buf());
                }
            }
            Err(e) if gone(&e) => {
                self.blind.remove(dir);
            }
            Err(_) => {
                self.blind.insert(dir.to_path_buf());
            }
        }
    }

    /// Watch `path`'s inode anew (it may be another file now).
    fn rewatch_file(&mut self, path: &Path) {
        if let Some(wd) = self.files.get_mut(path).and_then(|f| f.wd.take()) {
            self.unwatch_file(path, wd);
        }
        let added = if self.watches.len() >= self.budget {
            Err(io::Error::from_raw_os_error(libc::ENOSPC))
        } else {
            self.inotify
                .watches()
                .add(path, file_mask() | WatchMask::MASK_ADD)
        };
        let Some(file) = self.files.get_mut(path) else {
            return;
        };
        match added {
            // A folder's inode (the path is a folder on the way to other files now): its
            // folder watch stays what it is, and the file is checked by its events.
            Ok(wd) if !matches!(self.watches.get(&wd), None | Some(Watch::File(_))) => {
                file.unwatched = false;
            }
            Ok(wd) => {
                file.unwatched = false;
                file.wd = Some(wd.clone());
                match self.watches.entry(wd) {
                    std::collections::hash_map::Entry::Occupied(mut o) => {
                        if let Watch::File(paths) = o.get_mut()
                            && !paths.iter().any(|p| p == path)
                        {
                            paths.push(path.to_path_buf());
                        }
                    }
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(Watch::File(vec![path.to_path_buf()]));
                    }
                }
            }
            Err(e) => file.unwatched = !gone(&e),
        }
    }

    /// Stop counting `path` among the files of the inode watch `wd` (the watch goes with its
    /// last file).
    fn unwatch_file(&mut self, path: &Path, wd: WatchDescriptor) {
        let last = match self.watches.get_mut(&wd) {
            Some(Watch::File(paths)) => {
                paths.retain(|p| p != path);
                paths.is_empty()
            }
            _ => false,
        };
        if last {
            self.watches.remove(&wd);
            let _ = self.inotify.watches().remove(wd);
        }
    }

    /// The folder `top` was moved, removed or made: every watch at or below it anew, every
    /// file below it checked.
    fn rewatch_below(&mut self, top: &Path) {
        let dirs: Vec<PathBuf> = self
            .dirs
            .keys()
            .filter(|d| d.starts_with(top))
            .cloned()
            .collect();
        for dir in dirs {
            if let Some(wd) = self.dirs.remove(&dir) {
                self.watches.remove(&wd);
                let _ = self.inotify.watches().remove(wd);
            }
        }
        let wanted: Vec<PathBuf> = self
            .wanted
            .range(top.to_path_buf()..)
            .take_while(|d| d.starts_with(top))
            .cloned()
            .collect();
        for dir in wanted {
            self.watch_dir(&dir);
        }
        let files: Vec<PathBuf> = self
            .files
            .range(top.to_path_buf()..)
            .take_while(|(p, _)| p.starts_with(top))
            .map(|(p, _)| p.clone())
            .collect();
        for path in files {
            self.rewatch_file(&path);
            self.check(&path);
        }
    }

    /// Every watch anew and every file checked (at the start, and after lost events).
    fn rewatch_all(&mut self) {
        let dirs: Vec<WatchDescriptor> = self.dirs.drain().map(|(_, wd)| wd).collect();
        for wd in dirs {
            self.watches.remove(&wd);
            let _ = self.inotify.watches().remove(wd);
        }
        self.reload = true;
        let root = PathBuf::from("/");
        if self.wanted.contains(&root) {
            self.rewatch_below(&root);
        }
    }

    /// The watcher listens on the socket whose inode is `ino`.
    pub(super) fn listening(&mut self, ino: u64) {
        self.socket = Some(ino);
    }

    /// Whether `watch.sock` is still the socket this watcher listens on (or it does not
    /// listen yet): one put in its place by anyone else ends it, so that a new one can start.
    fn socket_is_ours(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Some(ino) = self.socket else {
            return true;
        };
        std::fs::symlink_metadata(self.store.watch_socket())
            .is_ok_and(|m| m.file_type().is_socket() && m.ino() == ino)
    }

    /// Compare `path`'s stat data with its stamps, as the sweep does for each session: dirty
    /// when they differ from any session's (a session whose stamp is older has not kept this
    /// content yet).
    fn check(&mut self, path: &Path) {
        let Some(file) = self.files.get_mut(path) else {
            return;
        };
        file.dirty = file.names.iter().any(|(root, rel)| {
            Below::new(root).lstat(rel).is_some_and(|s| {
                let now = Stamp::from(s);
                file.stamps.iter().any(|st| *st != now)
            })
        });
    }

    /// Check every file again: what no event reports (a write through a shared memory map)
    /// is found within one period.
    pub(super) fn check_all(&mut self) {
        if !self.socket_is_ours() {
            self.gone = true;
        }
        let paths: Vec<PathBuf> = self.files.keys().cloned().collect();
        for path in paths {
            self.check(&path);
        }
    }

    /// The answer: every name of every file that is dirty or cannot be vouched for.
    pub(super) fn answer(&self) -> Vec<u8> {
        let blind =
            |p: &Path| !self.blind.is_empty() && folders_of(p).any(|d| self.blind.contains(&d));
        let names: Vec<(&Path, &[u8])> = self
            .files
            .iter()
            .filter(|(p, f)| f.dirty || f.unwatched || blind(p))
            .flat_map(|(_, f)| f.names.iter().map(|(r, p)| (r.as_path(), p.as_slice())))
            .collect();
        encode_answer(self.identity, names.into_iter())
    }
}

/// The most inotify watches one watcher takes: a quarter of the user's limit, at most 8,192.
fn budget() -> usize {
    std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()
        .and_then(|t| t.trim().parse::<usize>().ok())
        .map_or(2048, |max| max / 4)
        .clamp(64, 8192)
}

/// Every folder from `/` down to `path`'s own.
fn folders_of(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    path.ancestors().skip(1).map(Path::to_path_buf)
}

/// An error that only says the path is not there (or not a folder) now.
fn gone(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
    )
}

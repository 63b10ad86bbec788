//! A worktree's status for the common case, read without libgit2's walk: the index file is
//! parsed here, every tracked file's stat data is compared with it (folders spread over a few
//! threads), and only what stat data cannot settle is left for libgit2 to tell.
//!
//! Why: on a large worktree nearly all of `git status` is one `lstat` per tracked file and one
//! listing per folder, which libgit2 does on one thread, after checking the whole index file's
//! SHA-1 (collision-detecting, slow) and diffing HEAD's trees against it. Here the checksum is not
//! checked (git itself only checks it in `git fsck`), HEAD against the index is one comparison of
//! tree ids (the index's cached tree), and the stat calls run in parallel.
//!
//! The walk ([`Walked::run`]) needs no repository: the index is mapped and the files stat'ed
//! first, so a caller can open the repository meanwhile; [`settle`] then checks what only the
//! repository can tell (configuration, HEAD's tree, ignore rules) before the walk is believed.
//!
//! The scan only answers when it can answer exactly as libgit2 would; otherwise it says so and
//! the caller runs libgit2's full status. It gives up on: an index it does not fully understand
//! (split or sparse index, unknown required extension, non-UTF-8 paths), conflicts, entries
//! marked assume-unchanged, skip-worktree or intent-to-add, anything staged (or no valid cached
//! tree to tell), `core.filemode`/`core.symlinks` off, `core.ignorecase` on, a non-SHA-1
//! repository, a tracked file that became a folder (or the reverse), and any read error.

use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::facts::FileState;
use super::index::{self, Compared, MODE_EXEC, MODE_FILE, MODE_GITLINK, MODE_LINK, Stamp};

mod hashed;

/// Up to this many untracked files and folders, ignore rules are asked path by path; past it
/// they are left for libgit2, which reads each folder's rules once.
const IGNORE_CHECKS: usize = 64;
/// From this many index entries on, folders are scanned by several threads.
const THREADS_FROM: usize = 1000;
/// At most this many threads.
const THREADS_MAX: usize = 4;

/// What a scan found on its own, and the paths only libgit2 can settle.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Modified, deleted, type-changed and untracked paths, as libgit2 would report them.
    pub(crate) found: Vec<FileState>,
    /// Tracked files whose content must be hashed (stat data changed, size did not; or racily
    /// clean), and untracked paths whose ignore rules were not asked: ask libgit2 about these.
    pub(crate) ask: Vec<String>,
    /// Untracked paths the ignore rules hide (a folder with a `/` at its end), as libgit2
    /// reports them without entering ignored folders.
    pub(crate) ignored: Vec<String>,
}

/// The status of the worktree of `repo`, when it can be read exactly without libgit2's status
/// (see the module documentation); `None` when the caller must run libgit2's full status.
pub(crate) fn scan(repo: &git2::Repository) -> Option<Scan> {
    if !usable(repo) {
        return None;
    }
    settle(repo, Walked::run(repo.workdir()?, repo.path())?)
}

/// Whether the configuration lets stat data alone tell a tracked file's state as libgit2 would.
fn usable(repo: &git2::Repository) -> bool {
    let Ok(config) = repo.config() else {
        return false;
    };
    let flag = |key: &str, default: bool| config.get_bool(key).unwrap_or(default);
    flag("core.filemode", true)
        && flag("core.symlinks", true)
        && !flag("core.ignorecase", false)
        && config
            .get_string("extensions.objectformat")
            .map_or(true, |f| f.eq_ignore_ascii_case("sha1"))
}

/// A worktree's files compared with its index by stat data, read without libgit2: it needs no
/// open repository, so it can run while one is being opened. What only the repository can tell
/// (its configuration, HEAD's tree, ignore rules) is settled afterwards by [`settle`].
#[derive(Debug)]
pub(crate) struct Walked {
    root: PathBuf,
    git_dir: PathBuf,
    /// The tree the index's cache says it holds: when HEAD's tree is this one, nothing is staged.
    tree: git2::Oid,
    found: Vec<Found>,
    /// Whether a listing showed a `.gitattributes` (then a file's content may be converted on
    /// its way into git, and only libgit2 can hash it as git would).
    attributes: bool,
}

impl Walked {
    /// Walk the worktree at `root`, whose own git dir (holding its index) is `git_dir`. `None`
    /// when the index is one this reader does not rely on, or something turned up that only
    /// libgit2's full status handles.
    pub(crate) fn run(root: &Path, git_dir: &Path) -> Option<Walked> {
        let (map, stamp) = index::map(git_dir)?;
        let mut bytes = map.bytes();
        let count = index::entry_count(&mut bytes)?;
        let threads = if count >= THREADS_FROM {
            THREADS_MAX
        } else {
            1
        };
        let walk = Walk {
            root,
            stamp,
            index: OnceLock::new(),
            dirs: OnceLock::new(),
            ready: OnceLock::new(),
            next: AtomicUsize::new(0),
            give_up: AtomicBool::new(false),
            attributes: AtomicBool::new(false),
        };
        // The other threads start while the index is read, and wait for its folders.
        let (found, tree) = walk.run(threads, || {
            let index = read_index(bytes, count)?;
            // Without a valid cached tree it cannot tell whether anything is staged.
            index.tree?;
            let index = walk.index.get_or_init(|| index);
            walk.dirs.get_or_init(|| folders(index));
            Some(index)
        })?;
        Some(Walked {
            root: root.to_path_buf(),
            git_dir: git_dir.to_path_buf(),
            tree: tree?,
            found,
            attributes: walk.attributes.load(Ordering::Relaxed),
        })
    }
}

/// What `walked` found, once `repo` confirms the walk read its worktree and index as libgit2
/// would (same folders, usable configuration, nothing staged), with ignore rules asked about the
/// untracked paths; `None` when libgit2's full status must answer instead.
pub(crate) fn settle(repo: &git2::Repository, walked: Walked) -> Option<Scan> {
    let same = |a: &Path, b: &Path| a == b || fs::canonicalize(a).ok() == fs::canonicalize(b).ok();
    if !same(repo.workdir()?, &walked.root) || !same(repo.path(), &walked.git_dir) {
        return None;
    }
    if !usable(repo) {
        return None;
    }
    // Whether HEAD's tree is the index's: otherwise something is staged.
    let head_tree = repo.head().ok()?.peel_to_commit().ok()?.tree_id();
    if head_tree != walked.tree {
        return None;
    }
    let mut scan = Scan::default();
    let mut untracked = Vec::new();
    // A file whose stat data cannot tell is hashed here, as libgit2 would hash it, when
    // nothing can convert its content on its way into git (no attributes, no autocrlf).
    let mut hasher = hashed::Hasher::new(repo, &walked.root, walked.attributes);
    for f in walked.found {
        match f {
            Found::Changed(path, worktree) => scan.found.push(FileState {
                path,
                index: ' ',
                worktree,
            }),
            Found::Ask(path, oid) => match hasher.same(&path, oid) {
                Some(true) => {}
                Some(false) => scan.found.push(FileState {
                    path,
                    index: ' ',
                    worktree: 'M',
                }),
                None => scan.ask.push(path),
            },
            Found::Untracked(path, is_dir) => untracked.push((path, is_dir)),
        }
    }
    if untracked.len() > IGNORE_CHECKS {
        scan.ask.extend(untracked.into_iter().map(|(p, _)| p));
        return Some(scan);
    }
    for (path, is_dir) in untracked {
        match repo.is_path_ignored(&path) {
            Ok(true) if is_dir => scan.ignored.push(format!("{path}/")),
            Ok(true) => scan.ignored.push(path),
            // An untracked folder is listed file by file, and one holding a repository is not
            // entered: libgit2 knows how.
            Ok(false) if !is_dir => scan.found.push(FileState {
                path,
                index: '?',
                worktree: '?',
            }),
            _ => scan.ask.push(path),
        }
    }
    Some(scan)
}

/// The index: its entries in order, and the id of the tree its cache says it holds.
#[derive(Debug)]
struct Index<'m> {
    /// The index file's bytes (mapped), where each entry's stat data is read when needed.
    bytes: &'m [u8],
    /// Every entry's path, one after the other (one allocation, not one per entry).
    paths: String,
    /// Each entry: where its path ends in `paths`, and where it starts in `bytes`.
    entries: Vec<(u32, u32)>,
    tree: Option<git2::Oid>,
}

impl Index<'_> {
    /// The path of entry `i`.
    fn path(&self, i: usize) -> &str {
        let start = i.checked_sub(1).map_or(0, |p| self.entries[p].0 as usize);
        &self.paths[start..self.entries[i].0 as usize]
    }

    /// The stat data, mode and id of entry `i`.
    fn entry(&self, i: usize) -> Option<index::Entry> {
        index::entry_at(self.bytes, self.entries[i].1 as usize)
    }
}

/// The index in `bytes`, which holds `count` entries. `None` for anything the scan must not
/// rely on (see [`index::walk`]), and for conflicts, assume-unchanged, skip-worktree or
/// intent-to-add entries, a mode other than a file's, a link's or a submodule's, non-UTF-8
/// paths, and an index of 4 GiB or more.
fn read_index(bytes: &[u8], count: usize) -> Option<Index<'_>> {
    u32::try_from(bytes.len()).ok()?;
    // Room for all at once (growing copies, and each new page costs a fault), as much as the
    // file can hold: an entry takes at least 62 bytes.
    let mut paths = String::with_capacity(count.saturating_mul(24).min(bytes.len()));
    let mut entries = Vec::with_capacity(count.min(bytes.len() / 62));
    let mut source = bytes;
    let tree = index::walk(&mut source, |path, raw| {
        if raw.special() {
            return None;
        }
        let mode = raw.entry()?.mode;
        if ![MODE_FILE, MODE_EXEC, MODE_LINK, MODE_GITLINK].contains(&mode) {
            return None;
        }
        paths.push_str(std::str::from_utf8(path).ok()?);
        entries.push((u32::try_from(paths.len()).ok()?, raw.at as u32));
        Some(())
    })?;
    Some(Index {
        bytes,
        paths,
        entries,
        tree,
    })
}

/// A folder that holds tracked files: its path, its entries' names (with their place in the
/// entry list, in name order) and the names of its sub-folders that hold tracked files.
#[derive(Debug)]
struct Folder<'a> {
    rel: &'a str,
    files: Vec<(&'a str, usize)>,
    subdirs: Vec<&'a str>,
}

fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// Every folder that holds tracked files (the root first), from the index entries.
fn folders<'a>(index: &'a Index<'_>) -> Vec<Folder<'a>> {
    fn folder<'a>(
        rel: &'a str,
        dirs: &mut Vec<Folder<'a>>,
        at: &mut HashMap<&'a str, usize>,
    ) -> usize {
        if let Some(&i) = at.get(rel) {
            return i;
        }
        let (parent, name) = split(rel);
        let p = folder(parent, dirs, at);
        dirs[p].subdirs.push(name);
        dirs.push(Folder {
            rel,
            files: Vec::new(),
            subdirs: Vec::new(),
        });
        at.insert(rel, dirs.len() - 1);
        dirs.len() - 1
    }
    let mut dirs = vec![Folder {
        rel: "",
        files: Vec::new(),
        subdirs: Vec::new(),
    }];
    let mut at = HashMap::from([("", 0)]);
    let mut last = ("", 0);
    for i in 0..index.entries.len() {
        let (parent, name) = split(index.path(i));
        if parent != last.0 {
            // Entries are in path order, so most share the previous entry's folder.
            last = (parent, folder(parent, &mut dirs, &mut at));
        }
        dirs[last.1].files.push((name, i));
    }
    for d in &mut dirs {
        d.files.sort_unstable();
        d.subdirs.sort_unstable();
    }
    dirs
}

/// What the walk found about one path.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    /// A tracked file modified (`M`), deleted (`D`) or changed type (`T`).
    Changed(String, char),
    /// A tracked file whose content must be hashed to know, and its index entry's id when it
    /// is a regular file's.
    Ask(String, Option<[u8; 20]>),
    /// A path not in the index (a folder when the flag is set), ignore rules not yet asked.
    Untracked(String, bool),
}

/// Sets the walk off when dropped, unless it was set already.
struct Release<'a>(&'a OnceLock<bool>);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        let _ = self.0.set(false);
    }
}

/// One walk of the worktree: what its threads share.
struct Walk<'a> {
    root: &'a Path,
    stamp: Stamp,
    index: OnceLock<Index<'a>>,
    dirs: OnceLock<Vec<Folder<'a>>>,
    /// Set once the folders are known (`true`) or the walk is off (`false`).
    ready: OnceLock<bool>,
    /// The next folder to take.
    next: AtomicUsize,
    give_up: AtomicBool,
    /// Set when a listing shows a `.gitattributes`.
    attributes: AtomicBool,
}

impl<'a> Walk<'a> {
    /// List every folder and stat every tracked file, on up to `threads` threads (as many as
    /// the machine has cores). This thread first runs `prepare`, which reads the index into
    /// [`Walk::index`] and its folders into [`Walk::dirs`], then joins the others, which start
    /// meanwhile. What was found, sorted by path, and the index's cached tree; `None` when
    /// `prepare` says so or something turned up that only libgit2's full status handles.
    fn run(
        &'a self,
        threads: usize,
        prepare: impl FnOnce() -> Option<&'a Index<'a>>,
    ) -> Option<(Vec<Found>, Option<git2::Oid>)> {
        let (mut found, tree) = std::thread::scope(|s| {
            // A helper that cannot be started leaves its share to the others.
            let helper = (threads > 1)
                .then(|| {
                    std::thread::Builder::new()
                        .spawn_scoped(s, || self.help(s, threads))
                        .ok()
                })
                .flatten();
            // Whatever happens here (even a panic), the others stop waiting.
            let release = Release(&self.ready);
            let index = prepare();
            let _ = self.ready.set(index.is_some());
            drop(release);
            let tree = index?.tree;
            let mut found = self.work();
            if let Some(h) = helper {
                found.extend(h.join().ok()??);
            }
            Some((found, tree))
        })?;
        if self.give_up.load(Ordering::Relaxed) {
            return None;
        }
        found.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        Some((found, tree))
    }

    /// The first helper: starts the others the machine has cores for (up to `threads` in all;
    /// counting the cores takes a few file reads, done here off the first thread's path), then
    /// works with them once the folders are known.
    fn help<'s>(&'s self, s: &'s std::thread::Scope<'s, '_>, threads: usize) -> Option<Vec<Found>>
    where
        'a: 's,
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return Some(Vec::new());
        }
        let others: Vec<_> = (2..threads.min(cores))
            .filter_map(|_| {
                std::thread::Builder::new()
                    .spawn_scoped(s, || {
                        self.ready.wait();
                        self.work()
                    })
                    .ok()
            })
            .collect();
        self.ready.wait();
        let mut found = self.work();
        for h in others {
            found.extend(h.join().ok()?);
        }
        Some(found)
    }

    /// Take folders until none is left or the walk is off.
    fn work(&self) -> Vec<Found> {
        let mut out = Vec::new();
        let (Some(true), Some(index), Some(dirs)) =
            (self.ready.get(), self.index.get(), self.dirs.get())
        else {
            return out;
        };
        while !self.give_up.load(Ordering::Relaxed) {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(dir) = dirs.get(i) else { break };
            if visit(self, dir, index, &mut out).is_none() {
                self.give_up.store(true, Ordering::Relaxed);
            }
        }
        out
    }
}

fn key(f: &Found) -> &str {
    match f {
        Found::Changed(p, _) | Found::Ask(p, _) | Found::Untracked(p, _) => p,
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// One folder: what is in it that the index does not know, and each tracked file's state. A
/// tracked file is looked at through the listing (`fstatat` on the open folder, no path walk
/// from the root); one the listing does not show was deleted.
fn visit(walk: &Walk<'_>, dir: &Folder<'_>, index: &Index<'_>, out: &mut Vec<Found>) -> Option<()> {
    let (root, stamp) = (walk.root, walk.stamp);
    let path = root.join(dir.rel);
    let mut seen = vec![false; dir.files.len()];
    match fs::read_dir(&path) {
        Ok(listing) => {
            for item in listing {
                let item = item.ok()?;
                let name = item.file_name();
                let name = name.to_str()?;
                if name.eq_ignore_ascii_case(".git") {
                    continue;
                }
                if name.eq_ignore_ascii_case(".gitattributes") {
                    walk.attributes.store(true, Ordering::Relaxed);
                }
                if let Ok(at) = dir.files.binary_search_by(|f| f.0.cmp(name)) {
                    seen[at] = true;
                    let i = dir.files[at].1;
                    let e = index.entry(i)?;
                    if e.mode == MODE_GITLINK {
                        continue; // submodules are left out, as the status options say
                    }
                    let meta = match item.metadata() {
                        Ok(m) => m,
                        Err(err) if err.kind() == ErrorKind::NotFound => {
                            out.push(Found::Changed(index.path(i).to_owned(), 'D'));
                            continue;
                        }
                        Err(_) => return None,
                    };
                    match index::compare(&e, &meta, stamp)? {
                        Compared::Same => {}
                        Compared::Changed(c) => {
                            out.push(Found::Changed(index.path(i).to_owned(), c));
                        }
                        Compared::Uncertain => {
                            let file = e.mode == MODE_FILE || e.mode == MODE_EXEC;
                            out.push(Found::Ask(index.path(i).to_owned(), file.then_some(e.oid)));
                        }
                    }
                    continue;
                }
                let kind = item.file_type().ok()?;
                if dir.subdirs.binary_search(&name).is_ok() {
                    if !kind.is_dir() {
                        return None; // a tracked folder became a file or a link
                    }
                    continue;
                }
                // libgit2 passes over fifos, sockets and devices.
                if kind.is_dir() || kind.is_file() || kind.is_symlink() {
                    out.push(Found::Untracked(join(dir.rel, name), kind.is_dir()));
                }
            }
        }
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {}
        Err(_) => return None,
    }
    for (&(_, i), _) in dir.files.iter().zip(&seen).filter(|(_, seen)| !**seen) {
        if index.entry(i)?.mode != MODE_GITLINK {
            out.push(Found::Changed(index.path(i).to_owned(), 'D'));
        }
    }
    Some(())
}

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
//! The scan only answers when it can answer exactly as libgit2 would; otherwise it says so and
//! the caller runs libgit2's full status. It gives up on: an index it does not fully understand
//! (split or sparse index, unknown required extension, non-UTF-8 paths), conflicts, entries
//! marked assume-unchanged, skip-worktree or intent-to-add, anything staged (or no valid cached
//! tree to tell), `core.filemode`/`core.symlinks` off, `core.ignorecase` on, a non-SHA-1
//! repository, a tracked file that became a folder (or the reverse), and any read error.

use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::facts::FileState;

/// Up to this many untracked files and folders, ignore rules are asked path by path; past it
/// they are left for libgit2, which reads each folder's rules once.
const IGNORE_CHECKS: usize = 64;
/// From this many index entries on, folders are scanned by several threads.
const THREADS_FROM: usize = 1000;
/// At most this many threads.
const THREADS_MAX: usize = 4;

const MODE_TYPE: u32 = 0o170000;
const MODE_FILE: u32 = 0o100644;
const MODE_EXEC: u32 = 0o100755;
const MODE_LINK: u32 = 0o120000;
const MODE_GITLINK: u32 = 0o160000;

/// What a scan found on its own, and the paths only libgit2 can settle.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Modified, deleted, type-changed and untracked paths, as libgit2 would report them.
    pub found: Vec<FileState>,
    /// Tracked files whose content must be hashed (stat data changed, size did not; or racily
    /// clean), and untracked paths whose ignore rules were not asked: ask libgit2 about these.
    pub ask: Vec<String>,
}

/// The status of the worktree of `repo`, when it can be read exactly without libgit2's status
/// (see the module documentation); `None` when the caller must run libgit2's full status.
pub(crate) fn scan(repo: &git2::Repository) -> Option<Scan> {
    let root = repo.workdir()?;
    let config = repo.config().ok()?;
    let flag = |key: &str, default: bool| config.get_bool(key).unwrap_or(default);
    if !flag("core.filemode", true)
        || !flag("core.symlinks", true)
        || flag("core.ignorecase", false)
    {
        return None;
    }
    if config
        .get_string("extensions.objectformat")
        .is_ok_and(|f| !f.eq_ignore_ascii_case("sha1"))
    {
        return None;
    }
    // The index's time stamp is taken before it is read, as libgit2 does: if it is rewritten in
    // between, more entries count as racily clean, never fewer.
    let index_path = repo.path().join("index");
    let stamp = fs::metadata(&index_path).ok()?;
    let stamp = (stamp.mtime() as i32, stamp.mtime_nsec() as u32);
    let index = parse_index(&fs::read(&index_path).ok()?)?;
    let head_tree = repo.head().ok()?.peel_to_commit().ok()?.tree_id();
    if index.tree != Some(head_tree) {
        return None; // something is staged, or the cached tree cannot tell
    }
    if index
        .entries
        .iter()
        .any(|e| ![MODE_FILE, MODE_EXEC, MODE_LINK, MODE_GITLINK].contains(&e.mode))
    {
        return None;
    }
    let dirs = folders(&index.entries);
    let found = walk(root, &dirs, &index.entries, stamp)?;

    let mut scan = Scan::default();
    let mut untracked = Vec::new();
    for f in found {
        match f {
            Found::Changed(path, worktree) => scan.found.push(FileState {
                path,
                index: ' ',
                worktree,
            }),
            Found::Ask(path) => scan.ask.push(path),
            Found::Untracked(path, is_dir) => untracked.push((path, is_dir)),
        }
    }
    if untracked.len() > IGNORE_CHECKS {
        scan.ask.extend(untracked.into_iter().map(|(p, _)| p));
        return Some(scan);
    }
    for (path, is_dir) in untracked {
        match repo.is_path_ignored(&path) {
            Ok(true) => {}
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

/// One index entry, as much of it as the scan needs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    ctime: (u32, u32),
    mtime: (u32, u32),
    ino: u32,
    mode: u32,
    uid: u32,
    gid: u32,
    size: u32,
}

/// The index: its entries in order, and the id of the tree its cache says it holds.
#[derive(Debug)]
struct Index {
    entries: Vec<Entry>,
    tree: Option<git2::Oid>,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

/// git's variable-length offset encoding (index version 4): the value and the bytes it took.
fn varint(b: &[u8]) -> Option<(usize, usize)> {
    let mut used = 1;
    let mut c = *b.first()?;
    let mut val = usize::from(c & 127);
    while c & 128 != 0 {
        c = *b.get(used)?;
        used += 1;
        val = val
            .checked_add(1)?
            .checked_mul(128)?
            .checked_add(usize::from(c & 127))?;
    }
    Some((val, used))
}

/// Parse an index file (versions 2 to 4). `None` for anything the scan must not rely on: a
/// malformed file, conflicts, assume-unchanged, skip-worktree or intent-to-add entries, a split
/// or sparse index, an unknown required extension, a non-UTF-8 path. The trailing checksum is
/// not verified, as git does not outside `git fsck`.
fn parse_index(bytes: &[u8]) -> Option<Index> {
    if bytes.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(bytes, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(bytes, 8)? as usize;
    let end = bytes.len().checked_sub(20)?;
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    let mut entries = Vec::with_capacity(count.min(end / 62));
    for _ in 0..count {
        let word = |i: usize| be32(bytes, at + 4 * i);
        let flags = be16(bytes, at + 60)?;
        let mut name_at = at + 62;
        let mut extended = 0;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return None;
            }
            extended = be16(bytes, name_at)?;
            name_at += 2;
        }
        // assume-valid, a conflict stage; skip-worktree, intent-to-add
        if flags & 0xb000 != 0 || extended & 0x6000 != 0 {
            return None;
        }
        let (path, next) = if version == 4 {
            let (strip, used) = varint(bytes.get(name_at..end)?)?;
            name_at += used;
            let len = bytes.get(name_at..end)?.iter().position(|&c| c == 0)?;
            prev.truncate(prev.len().checked_sub(strip)?);
            prev.extend_from_slice(&bytes[name_at..name_at + len]);
            (prev.clone(), name_at + len + 1)
        } else {
            // NUL-terminated, padded with NULs to a multiple of 8 bytes.
            let len = bytes.get(name_at..end)?.iter().position(|&c| c == 0)?;
            let padded = (name_at - at + len + 8) & !7;
            (bytes[name_at..name_at + len].to_vec(), at + padded)
        };
        let entry = Entry {
            path: String::from_utf8(path).ok()?,
            ctime: (word(0)?, word(1)?),
            mtime: (word(2)?, word(3)?),
            ino: word(5)?,
            mode: word(6)?,
            uid: word(7)?,
            gid: word(8)?,
            size: word(9)?,
        };
        at = next;
        if at > end {
            return None;
        }
        entries.push(entry);
    }
    let mut tree = None;
    while at < end {
        let sig = bytes.get(at..at + 4)?;
        let size = be32(bytes, at + 4)? as usize;
        let data = bytes.get(at + 8..(at + 8).checked_add(size)?)?;
        match sig {
            b"TREE" => tree = cached_root_tree(data),
            // Optional extensions start with a capital letter; any other must be understood.
            s if s[0].is_ascii_uppercase() => {}
            _ => return None,
        }
        at += 8 + size;
    }
    (at == end).then_some(Index { entries, tree })
}

/// The root's tree id from the index's `TREE` extension, if that entry is valid.
fn cached_root_tree(data: &[u8]) -> Option<git2::Oid> {
    // The root comes first: an empty path, then "<entries> <subtrees>\n" and, when the entry
    // count is not -1 (invalidated), the tree id.
    let rest = data.strip_prefix(b"\0")?;
    let line_end = rest.iter().position(|&c| c == b'\n')?;
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    let entries: i64 = line.split_once(' ')?.0.parse().ok()?;
    if entries < 0 {
        return None;
    }
    git2::Oid::from_bytes(rest.get(line_end + 1..line_end + 21)?).ok()
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
fn folders(entries: &[Entry]) -> Vec<Folder<'_>> {
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
    for (i, e) in entries.iter().enumerate() {
        let (parent, name) = split(&e.path);
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
    /// A tracked file whose content must be hashed to know.
    Ask(String),
    /// A path not in the index (a folder when the flag is set), ignore rules not yet asked.
    Untracked(String, bool),
}

/// List every folder in `dirs` and stat every tracked file, on up to [`THREADS_MAX`] threads.
/// `None` when something turned up that only libgit2's full status handles.
fn walk(
    root: &Path,
    dirs: &[Folder<'_>],
    entries: &[Entry],
    stamp: (i32, u32),
) -> Option<Vec<Found>> {
    let next = AtomicUsize::new(0);
    let give_up = AtomicBool::new(false);
    let work = || {
        let mut out = Vec::new();
        while !give_up.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(dir) = dirs.get(i) else { break };
            if visit(root, dir, entries, stamp, &mut out).is_none() {
                give_up.store(true, Ordering::Relaxed);
            }
        }
        out
    };
    let threads = if entries.len() >= THREADS_FROM {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(THREADS_MAX))
    } else {
        1
    };
    let mut found = std::thread::scope(|s| {
        // A helper that cannot be started leaves its share to the others.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, work).ok())
            .collect();
        let mut found = work();
        for h in helpers {
            found.extend(h.join().ok()?);
        }
        Some(found)
    })?;
    if give_up.load(Ordering::Relaxed) {
        return None;
    }
    found.sort_unstable_by(|a, b| key(a).cmp(key(b)));
    Some(found)
}

fn key(f: &Found) -> &str {
    match f {
        Found::Changed(p, _) | Found::Ask(p) | Found::Untracked(p, _) => p,
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
fn visit(
    root: &Path,
    dir: &Folder<'_>,
    entries: &[Entry],
    stamp: (i32, u32),
    out: &mut Vec<Found>,
) -> Option<()> {
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
                if let Ok(at) = dir.files.binary_search_by(|f| f.0.cmp(name)) {
                    seen[at] = true;
                    let e = &entries[dir.files[at].1];
                    if e.mode == MODE_GITLINK {
                        continue; // submodules are left out, as the status options say
                    }
                    let meta = match item.metadata() {
                        Ok(m) => m,
                        Err(err) if err.kind() == ErrorKind::NotFound => {
                            out.push(Found::Changed(e.path.clone(), 'D'));
                            continue;
                        }
                        Err(_) => return None,
                    };
                    match compare(e, &meta, stamp)? {
                        Compared::Same => {}
                        Compared::Changed(c) => out.push(Found::Changed(e.path.clone(), c)),
                        Compared::Uncertain => out.push(Found::Ask(e.path.clone())),
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
        let e = &entries[i];
        if e.mode != MODE_GITLINK {
            out.push(Found::Changed(e.path.clone(), 'D'));
        }
    }
    Some(())
}

/// A tracked file against its index entry, by stat data alone.
#[derive(Debug, PartialEq, Eq)]
enum Compared {
    Same,
    Changed(char),
    Uncertain,
}

/// libgit2's rules (`maybe_modified` in diff_generate.c): a change of type is `T`; a change of
/// mode or size is `M` (unless the index holds size 0, a "smudged" racy entry: hash to know);
/// any other change of stat data, or a file not older than the index, needs its content hashed.
/// `None` for a folder or a special file where a file was.
fn compare(e: &Entry, m: &fs::Metadata, stamp: (i32, u32)) -> Option<Compared> {
    let kind = m.file_type();
    let mode = if kind.is_symlink() {
        MODE_LINK
    } else if kind.is_file() {
        if m.mode() & 0o100 != 0 {
            MODE_EXEC
        } else {
            MODE_FILE
        }
    } else {
        return None;
    };
    let size = m.size() as u32;
    if e.mode & MODE_TYPE != mode & MODE_TYPE {
        return Some(Compared::Changed('T'));
    }
    if e.mode != mode || e.size != size {
        let smudged = e.mode == mode && e.size == 0 && size > 0;
        return Some(if smudged {
            Compared::Uncertain
        } else {
            Compared::Changed('M')
        });
    }
    let mtime = (m.mtime() as u32, m.mtime_nsec() as u32);
    let racy = match (mtime.0 as i32).cmp(&stamp.0) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => stamp.1 <= mtime.1,
        std::cmp::Ordering::Less => false,
    };
    let same = e.mtime == mtime
        && e.ctime == (m.ctime() as u32, m.ctime_nsec() as u32)
        && e.ino == m.ino() as u32
        && e.uid == m.uid()
        && e.gid == m.gid()
        && !racy;
    Some(if same {
        Compared::Same
    } else {
        Compared::Uncertain
    })
}

//! Which of a few files differ from HEAD, settled by their stat data where git's index vouches
//! for them: one read of the index file, one `lstat` per file, and no repository opened.
//!
//! Why: a session start names its peers' uncommitted files. Hashing each file against its blob
//! in HEAD's trees costs a repository open, a walk of HEAD's trees and a read and a hash per file;
//! here a file whose stat data matches its index entry (and is not racily clean) is known to hold
//! the index's content, and the index's cached tree, when it equals HEAD's tree, says that content
//! is HEAD's. Only what this cannot settle (a changed stat, a new file and its ignore rules, an
//! index or HEAD it does not understand) is left to [`super::uncommitted_among`], so the answer
//! is the same, except that a file git's filters changed on checkout reads as clean here.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fs;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::{GitError, Worktree, uncommitted_among, worktree_at};

const MODE_FILE: u32 = 0o100644;
const MODE_EXEC: u32 = 0o100755;

/// Of `paths` (relative, `/`-separated) in the worktree at `root`, those whose content differs
/// from HEAD: changed, deleted, or new and not ignored, as [`super::uncommitted_among`] tells,
/// which is asked only about the files stat data cannot settle.
pub fn uncommitted_files(root: &Path, paths: &[String]) -> Result<BTreeSet<String>, GitError> {
    match worktree_at(root) {
        Some(wt) => uncommitted_files_in(&wt, paths),
        None => uncommitted_among(root, paths),
    }
}

/// [`uncommitted_files`] in a worktree already located.
pub fn uncommitted_files_in(wt: &Worktree, paths: &[String]) -> Result<BTreeSet<String>, GitError> {
    if paths.is_empty() {
        return Ok(BTreeSet::new());
    }
    let Some(settled) = settle(&wt.root, wt, paths) else {
        return uncommitted_among(&wt.root, paths);
    };
    let mut dirty = settled.dirty;
    if !settled.unsettled.is_empty() {
        dirty.extend(uncommitted_among(&wt.root, &settled.unsettled)?);
    }
    Ok(dirty)
}

/// What the index and stat data told.
#[derive(Debug, Default)]
struct Settled {
    dirty: BTreeSet<String>,
    unsettled: Vec<String>,
}

/// The index entry of a wanted path, as much of it as the check needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    ctime: (u32, u32),
    mtime: (u32, u32),
    dev: u32,
    ino: u32,
    mode: u32,
    uid: u32,
    gid: u32,
    size: u32,
    oid: [u8; 20],
    /// Staged in a conflict, or marked assume-unchanged, skip-worktree or intent-to-add.
    special: bool,
}

/// Past this many bytes of index per file asked about, reading the whole index costs more than
/// hashing the files (an 80-byte entry takes about as long to walk as 1/150 of a small file's
/// read and hash): leave them to libgit2.
const INDEX_BYTES_PER_PATH: u64 = 16 * 1024;

/// `None` when the index cannot vouch for HEAD (something staged, no valid cached tree, an
/// index or HEAD this reader does not understand) or is too large for so few files: the caller
/// asks libgit2 about every path.
fn settle(root: &Path, wt: &Worktree, paths: &[String]) -> Option<Settled> {
    let mut wanted: Vec<&str> = paths.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let (entries, stamp) = read_index(wt, &wanted)?;
    let mut out = Settled::default();
    for (rel, entry) in wanted.iter().zip(entries) {
        let state = match (entry, fs::symlink_metadata(root.join(rel))) {
            (Some(e), _) if e.special || (e.mode != MODE_FILE && e.mode != MODE_EXEC) => None,
            // In HEAD (the index holds HEAD's tree), gone from the worktree.
            (Some(_), Err(err)) if err.kind() == ErrorKind::NotFound => Some(true),
            (Some(e), Ok(m)) if m.file_type().is_file() => {
                if same_stat(&e, &Stat::from(&m), stamp) {
                    Some(false)
                } else {
                    let bytes = fs::read(root.join(rel)).ok()?;
                    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()?;
                    Some(oid.as_bytes() != e.oid)
                }
            }
            // Neither in HEAD nor in the worktree.
            (None, Err(err)) if err.kind() == ErrorKind::NotFound => Some(false),
            // New (ignore rules decide), a folder or link where a file was, an unreadable one.
            _ => None,
        };
        match state {
            Some(true) => {
                out.dirty.insert((*rel).to_owned());
            }
            Some(false) => {}
            None => out.unsettled.push((*rel).to_owned()),
        }
    }
    Some(out)
}

/// The index entries of `wanted` (sorted) and the index's time stamp, when the index vouches
/// for HEAD and is small enough to be worth reading for them.
fn read_index(wt: &Worktree, wanted: &[&str]) -> Option<(Vec<Option<Entry>>, Stamp)> {
    // git replaces the index by renaming a new file over it: the open file's time stamp is the
    // stamp of exactly what is read.
    let file = fs::File::open(wt.git_dir.join("index")).ok()?;
    let meta = file.metadata().ok()?;
    if meta.len() > INDEX_BYTES_PER_PATH.saturating_mul(wanted.len() as u64) {
        return None;
    }
    let stamp = (meta.mtime(), meta.mtime_nsec());
    let mut index = Window::new(file, meta.len().checked_sub(20)?);
    let (entries, cached_tree) = lookup(&mut index, wanted)?;
    (cached_tree? == head_tree(wt)?).then_some((entries, stamp))
}

/// A modification time: seconds and nanoseconds since the Unix epoch.
type Stamp = (i64, i64);

/// The stat data an index entry records, as read from a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    mode: u32,
    size: u64,
    mtime: Stamp,
    ctime: Stamp,
    dev: u64,
    ino: u64,
    uid: u32,
    gid: u32,
}

impl From<&fs::Metadata> for Stat {
    fn from(m: &fs::Metadata) -> Self {
        Stat {
            mode: if m.mode() & 0o100 != 0 {
                MODE_EXEC
            } else {
                MODE_FILE
            },
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            dev: m.dev(),
            ino: m.ino(),
            uid: m.uid(),
            gid: m.gid(),
        }
    }
}

/// Whether a file's stat data is its index entry's, and the entry is not racily clean (the file
/// not older than the index, whose time stamp is `stamp`): then it holds the entry's content.
/// The index keeps the low 32 bits of each number.
fn same_stat(e: &Entry, m: &Stat, stamp: Stamp) -> bool {
    let low = |(s, ns): Stamp| (s as u32, ns as u32);
    m.mtime < stamp
        && e.mode == m.mode
        && e.size == m.size as u32
        && e.mtime == low(m.mtime)
        && e.ctime == low(m.ctime)
        && e.ino == m.ino as u32
        && e.dev == m.dev as u32
        && e.uid == m.uid
        && e.gid == m.gid
}

/// The id of HEAD's tree, from the ref files and the commit object (loose or packed); `None`
/// for an unborn branch, a ref outside `refs/heads/`, a non-SHA-1 repository or a read error.
fn head_tree(wt: &Worktree) -> Option<git2::Oid> {
    let head = fs::read_to_string(wt.git_dir.join("HEAD")).ok()?;
    let head = head.trim_end();
    let commit = match head.strip_prefix("ref: ") {
        Some(name) if name.starts_with("refs/heads/") => resolve_ref(&wt.common_dir, name)?,
        Some(_) => return None,
        None => head.to_owned(),
    };
    if commit.len() != 40 {
        return None;
    }
    let odb = git2::Odb::new().ok()?;
    odb.add_disk_alternate(wt.common_dir.join("objects").to_str()?)
        .ok()?;
    let object = odb.read(git2::Oid::from_str(&commit).ok()?).ok()?;
    if object.kind() != git2::ObjectType::Commit {
        return None;
    }
    let hex = object.data().strip_prefix(b"tree ")?.get(..40)?;
    git2::Oid::from_str(std::str::from_utf8(hex).ok()?).ok()
}

/// A branch's commit id (hex): its loose ref file, else its line in `packed-refs`.
fn resolve_ref(common_dir: &Path, name: &str) -> Option<String> {
    match fs::read_to_string(common_dir.join(name)) {
        Ok(text) => {
            let text = text.trim_end();
            (!text.starts_with("ref:")).then(|| text.to_owned())
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let packed = fs::read_to_string(common_dir.join("packed-refs")).ok()?;
            packed
                .lines()
                .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
                .filter_map(|l| l.split_once(' '))
                .find(|(_, r)| *r == name)
                .map(|(id, _)| id.to_owned())
        }
        Err(_) => None,
    }
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

/// git's variable-length number (index version 4): the value and the bytes it took.
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

/// The longest index entry this reader takes: its fixed part, a path of up to 4 KiB, padding.
const ENTRY_MAX: usize = 64 + 10 + 4096 + 8;
/// How much of the index is read at a time (little in tests, so that they cross many refills).
const CHUNK: usize = if cfg!(test) { 256 } else { 64 * 1024 };

/// A forward-only window on a file, refilled as a walk advances: a large index goes through one
/// small buffer, instead of into a fresh allocation of its size (whose page faults cost more
/// than copying it).
struct Window<R> {
    file: R,
    /// Read bytes, `buf[..filled]`; the rest is room, zeroed once.
    buf: Vec<u8>,
    filled: usize,
    /// The file offset of `buf[0]`; the file's position is always `base + filled`.
    base: u64,
    /// Where the walk ends (the index's trailing checksum is not read).
    limit: u64,
}

impl<R: Read + Seek> Window<R> {
    fn new(file: R, limit: u64) -> Self {
        Window {
            file,
            buf: Vec::new(),
            filled: 0,
            base: 0,
            limit,
        }
    }

    /// Up to `want` bytes from offset `at`, fewer only at the limit; `None` before the window,
    /// past the limit, or on a read error.
    #[inline]
    fn get(&mut self, at: usize, want: usize) -> Option<&[u8]> {
        let at = at as u64;
        if at < self.base || at > self.limit {
            return None;
        }
        let want = (want as u64).min(self.limit - at) as usize;
        if at + want as u64 > self.base + self.filled as u64 {
            let passed = at - self.base;
            if passed <= self.filled as u64 {
                self.buf.copy_within(passed as usize..self.filled, 0);
                self.filled -= passed as usize;
            } else {
                self.filled = 0;
                self.file.seek(SeekFrom::Start(at)).ok()?;
            }
            self.base = at;
            let fill = (want.max(CHUNK) as u64).min(self.limit - at) as usize;
            if self.buf.len() < fill {
                self.buf.resize(fill, 0);
            }
            self.file
                .read_exact(&mut self.buf[self.filled..fill])
                .ok()?;
            self.filled = fill;
        }
        let from = (at - self.base) as usize;
        self.buf[..self.filled].get(from..from + want)
    }
}

/// The entries found for the wanted paths, and the root tree id the index's cache holds.
type Found = (Vec<Option<Entry>>, Option<git2::Oid>);

/// Walk an index file (versions 2 to 4) once, picking the entries of `wanted` (sorted, as the
/// index is): each one's entry, if it has one, and the root tree id its cache holds, if valid.
/// `None` for anything this reader must not rely on: a malformed file, a split or sparse index,
/// an unknown required extension. The trailing checksum is not verified, as git does not outside
/// `git fsck`.
fn lookup<R: Read + Seek>(index: &mut Window<R>, wanted: &[&str]) -> Option<Found> {
    let header = index.get(0, 12)?;
    if header.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(header, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(header, 8)? as usize;
    let end = index.limit as usize;
    let mut found: Vec<Option<Entry>> = vec![None; wanted.len()];
    let prefixes: Vec<u64> = wanted.iter().map(|w| prefix(w.as_bytes())).collect();
    let mut next = 0; // the first wanted path not passed yet
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let e = index.get(at, ENTRY_MAX)?;
        let word = |i: usize| be32(e, 4 * i);
        let flags = be16(e, 60)?;
        let mut name_at = 62;
        let mut extended = 0;
        if flags & 0x4000 != 0 {
            if version < 3 {
                return None;
            }
            extended = be16(e, name_at)?;
            name_at += 2;
        }
        let (name, len): (&[u8], usize) = if version == 4 {
            let (strip, used) = varint(e.get(name_at..)?)?;
            name_at += used;
            let len = e.get(name_at..)?.iter().position(|&c| c == 0)?;
            prev.truncate(prev.len().checked_sub(strip)?);
            prev.extend_from_slice(&e[name_at..name_at + len]);
            (&prev, name_at + len + 1)
        } else {
            // Its length is in the flags when shorter than 0xfff; NUL-terminated, padded with
            // NULs to a multiple of 8 bytes.
            let len = match usize::from(flags & 0xfff) {
                0xfff => e.get(name_at..)?.iter().position(|&c| c == 0)?,
                len => len,
            };
            if *e.get(name_at + len)? != 0 {
                return None;
            }
            (&e[name_at..name_at + len], (name_at + len + 8) & !7)
        };
        // Pass the wanted paths that have no entry; is this entry the next one? Most entries
        // are told apart by their first 8 bytes.
        let mut hit = false;
        let first = prefix(name);
        while let Some(w) = wanted.get(next) {
            let order = match prefixes[next].cmp(&first) {
                Ordering::Equal => w.as_bytes().cmp(name),
                unequal => unequal,
            };
            match order {
                Ordering::Less => next += 1,
                Ordering::Equal => {
                    hit = true;
                    break;
                }
                Ordering::Greater => break,
            }
        }
        if hit {
            let mode = word(6)?;
            let entry = Entry {
                ctime: (word(0)?, word(1)?),
                mtime: (word(2)?, word(3)?),
                dev: word(4)?,
                ino: word(5)?,
                mode,
                uid: word(7)?,
                gid: word(8)?,
                size: word(9)?,
                oid: e.get(40..60)?.try_into().ok()?,
                // assume-valid or a conflict stage; skip-worktree or intent-to-add
                special: flags & 0xb000 != 0 || extended & 0x6000 != 0,
            };
            let slot = &mut found[next];
            *slot = match slot {
                // A path listed twice is in conflict.
                Some(first) => Some(Entry {
                    special: true,
                    ..*first
                }),
                None => Some(entry),
            };
        }
        at += len;
        if at > end {
            return None;
        }
    }
    let mut tree = None;
    while at < end {
        let header = index.get(at, 8)?;
        let sig: [u8; 4] = header.get(..4)?.try_into().ok()?;
        let size = be32(header, 4)? as usize;
        let data_at = at + 8;
        match &sig {
            // The root's entry comes first and is short.
            b"TREE" => tree = cached_root_tree(index.get(data_at, size.min(128))?),
            // A split index keeps entries elsewhere; a sparse one folds folders into entries.
            b"link" | b"sdir" => return None,
            // Optional extensions start with a capital letter; any other must be understood.
            s if s[0].is_ascii_uppercase() => {}
            _ => return None,
        }
        at = data_at.checked_add(size)?;
    }
    (at == end).then_some((found, tree))
}

/// A path's first 8 bytes as a number, padded with zeros (no path holds a NUL): comparing two
/// of these orders the paths as comparing the paths would, when they differ.
#[inline]
fn prefix(path: &[u8]) -> u64 {
    if let Some(first) = path.first_chunk::<8>() {
        return u64::from_be_bytes(*first);
    }
    let mut first = [0u8; 8];
    let n = path.len().min(8);
    first[..n].copy_from_slice(&path[..n]);
    u64::from_be_bytes(first)
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

#[cfg(test)]
mod tests;

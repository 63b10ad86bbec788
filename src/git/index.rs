//! git's index file, read without libgit2: its entries (versions 2 to 4) and its cached root
//! tree, through a small window on the file, and the rules by which a file's stat data tells
//! whether it still holds its entry's content (libgit2's `maybe_modified`).
//!
//! Only what is understood exactly is read: a split or sparse index, an unknown required
//! extension or a malformed file reads as `None`, and the caller asks libgit2. The trailing
//! checksum is not verified, as git does not outside `git fsck`.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The type bits of a mode.
pub(crate) const MODE_TYPE: u32 = 0o170000;
/// A regular file's mode.
pub(crate) const MODE_FILE: u32 = 0o100644;
/// An executable file's mode.
pub(crate) const MODE_EXEC: u32 = 0o100755;
/// A symbolic link's mode.
pub(crate) const MODE_LINK: u32 = 0o120000;
/// A submodule's mode.
pub(crate) const MODE_GITLINK: u32 = 0o160000;

/// A modification time: seconds and nanoseconds since the Unix epoch.
pub(crate) type Stamp = (i64, i64);

/// An index entry's stat data, id and flags (the index keeps the low 32 bits of each number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) ctime: (u32, u32),
    pub(crate) mtime: (u32, u32),
    pub(crate) dev: u32,
    pub(crate) ino: u32,
    pub(crate) mode: u32,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) size: u32,
    pub(crate) oid: [u8; 20],
    /// Staged in a conflict, or marked assume-unchanged, skip-worktree or intent-to-add.
    pub(crate) special: bool,
}

/// The stat data an index entry records, as read from a file or link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub(crate) mode: u32,
    pub(crate) size: u64,
    pub(crate) mtime: Stamp,
    pub(crate) ctime: Stamp,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
}

impl From<&fs::Metadata> for Stat {
    fn from(m: &fs::Metadata) -> Self {
        Stat {
            mode: if m.file_type().is_symlink() {
                MODE_LINK
            } else if m.mode() & 0o100 != 0 {
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
/// The device is compared too (libgit2 does not): a change of it only means hashing to know.
pub(crate) fn same_stat(e: &Entry, m: &Stat, stamp: Stamp) -> bool {
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

/// A tracked file against its index entry, by stat data alone.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Compared {
    /// It holds the entry's content.
    Same,
    /// Changed type (`T`) or modified (`M`), for sure.
    Changed(char),
    /// Its content must be hashed to know.
    Uncertain,
}

/// libgit2's rules (`maybe_modified` in diff_generate.c): a change of type is `T`; a change of
/// mode or size is `M` (unless the index holds size 0, a "smudged" racy entry: hash to know);
/// any other change of stat data, or a file not older than the index, needs its content hashed.
/// `None` for a folder or a special file where a file was.
pub(crate) fn compare(e: &Entry, m: &fs::Metadata, stamp: Stamp) -> Option<Compared> {
    let kind = m.file_type();
    if !kind.is_symlink() && !kind.is_file() {
        return None;
    }
    let stat = Stat::from(m);
    if e.mode & MODE_TYPE != stat.mode & MODE_TYPE {
        return Some(Compared::Changed('T'));
    }
    let size = stat.size as u32;
    if e.mode != stat.mode || e.size != size {
        let smudged = e.mode == stat.mode && e.size == 0 && size > 0;
        return Some(if smudged {
            Compared::Uncertain
        } else {
            Compared::Changed('M')
        });
    }
    Some(if same_stat(e, &stat, stamp) {
        Compared::Same
    } else {
        Compared::Uncertain
    })
}

/// The index file of the git dir `git_dir`, open, and its time stamp; `None` when it cannot be
/// read or is longer than `max_len` bytes. git replaces the index by renaming a new file over
/// it: the open file's time stamp is the stamp of exactly what is read.
pub(crate) fn open(git_dir: &Path, max_len: u64) -> Option<(Window<fs::File>, Stamp)> {
    let file = fs::File::open(git_dir.join("index")).ok()?;
    let meta = file.metadata().ok()?;
    if meta.len() > max_len {
        return None;
    }
    let stamp = (meta.mtime(), meta.mtime_nsec());
    Some((Window::new(file, meta.len().checked_sub(20)?), stamp))
}

/// The index file of the git dir `git_dir`, mapped into memory (less its trailing checksum), and
/// its time stamp; `None` when it cannot be read.
///
/// Mapping costs no copy and no fresh memory: the pages are the page cache's. git and libgit2
/// map the index the same way, and for the same reason it is safe: git never rewrites an index
/// in place, it writes a new file and renames it over, so a mapped index never changes.
pub(crate) fn map(git_dir: &Path) -> Option<(Mapped, Stamp)> {
    let file = fs::File::open(git_dir.join("index")).ok()?;
    let meta = file.metadata().ok()?;
    let stamp = (meta.mtime(), meta.mtime_nsec());
    let limit = usize::try_from(meta.len()).ok()?.checked_sub(20)?;
    // SAFETY: the mapping is read-only and private, and git replaces an index by renaming a new
    // file over it rather than by changing it in place (see above); `limit` is checked against
    // the mapped length before use.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    (map.len() >= limit + 20).then_some((Mapped { map, limit }, stamp))
}

/// An index file mapped into memory: [`Source`] over all of it but its checksum.
pub(crate) struct Mapped {
    map: memmap2::Mmap,
    limit: usize,
}

impl Mapped {
    /// The bytes a walk covers.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map[..self.limit]
    }
}

/// Where a walk reads an index from: a window on the file, or the whole of it in memory.
pub(crate) trait Source {
    /// Up to `want` bytes from offset `at`, fewer only at the end; `None` past the end, or
    /// before what a forward-only source still holds, or on a read error.
    fn get(&mut self, at: usize, want: usize) -> Option<&[u8]>;
    /// How many bytes the walk covers: the whole index less its checksum.
    fn len(&self) -> usize;
}

impl Source for &[u8] {
    fn get(&mut self, at: usize, want: usize) -> Option<&[u8]> {
        let end = at.checked_add(want)?.min(<[u8]>::len(self));
        <[u8]>::get(self, at..end)
    }

    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
}

/// The entry at offset `at` of an index's bytes (where [`Raw::at`] said it was).
pub(crate) fn entry_at(bytes: &[u8], at: usize) -> Option<Entry> {
    let e = bytes.get(at..at.checked_add(64)?)?;
    let flags = be16(e, 60)?;
    let extended = if flags & 0x4000 != 0 {
        be16(bytes, at + 62)?
    } else {
        0
    };
    Raw {
        bytes: e,
        flags,
        extended,
        at,
    }
    .entry()
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
pub(crate) struct Window<R> {
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
    /// A window on `file`, whose bytes up to `limit` are read.
    pub(crate) fn new(file: R, limit: u64) -> Self {
        Window {
            file,
            buf: Vec::new(),
            filled: 0,
            base: 0,
            limit,
        }
    }
}

impl<R: Read + Seek> Source for Window<R> {
    fn len(&self) -> usize {
        self.limit as usize
    }

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

/// How many entries the index holds, by its header (`None` for what is not an index file).
pub(crate) fn entry_count(index: &mut impl Source) -> Option<usize> {
    let header = index.get(0, 12)?;
    (header.get(..4)? == b"DIRC").then_some(be32(header, 8)? as usize)
}

/// One entry as the walk meets it: its path and its raw bytes, decoded on demand.
pub(crate) struct Raw<'a> {
    bytes: &'a [u8],
    flags: u16,
    extended: u16,
    /// Where the entry starts in the file.
    pub(crate) at: usize,
}

impl Raw<'_> {
    /// Staged in a conflict, or marked assume-unchanged, skip-worktree or intent-to-add.
    pub(crate) fn special(&self) -> bool {
        // assume-valid or a conflict stage; skip-worktree or intent-to-add
        self.flags & 0xb000 != 0 || self.extended & 0x6000 != 0
    }

    /// Marked assume-unchanged or skip-worktree (not in a conflict): git and libgit2 take
    /// such an entry's file for unchanged without looking at it.
    pub(crate) fn hidden(&self) -> bool {
        self.flags & 0x3000 == 0 && (self.flags & 0x8000 != 0 || self.extended & 0x4000 != 0)
    }

    /// The whole entry.
    pub(crate) fn entry(&self) -> Option<Entry> {
        let word = |i: usize| be32(self.bytes, 4 * i);
        Some(Entry {
            ctime: (word(0)?, word(1)?),
            mtime: (word(2)?, word(3)?),
            dev: word(4)?,
            ino: word(5)?,
            mode: word(6)?,
            uid: word(7)?,
            gid: word(8)?,
            size: word(9)?,
            oid: self.bytes.get(40..60)?.try_into().ok()?,
            special: self.special(),
        })
    }
}

/// Walk an index file (versions 2 to 4) once, handing each entry in order to `each` with its
/// path, and return the root tree id the index's cache holds, if valid. `None` for anything
/// this reader must not rely on (a malformed file, a split or sparse index, an unknown required
/// extension) or when `each` says `None`.
pub(crate) fn walk(
    index: &mut impl Source,
    mut each: impl FnMut(&[u8], Raw<'_>) -> Option<()>,
) -> Option<Option<git2::Oid>> {
    let header = index.get(0, 12)?;
    if header.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(header, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(header, 8)? as usize;
    let end = index.len();
    let mut at = 12;
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..count {
        let e = index.get(at, ENTRY_MAX)?;
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
        let raw = Raw {
            bytes: e,
            flags,
            extended,
            at,
        };
        each(name, raw)?;
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
    (at == end).then_some(tree)
}

/// Of `paths` (relative to the worktree's top), those the index of the git dir `git_dir` tracks
/// as plain entries (not in a conflict, not marked assume-unchanged, skip-worktree or
/// intent-to-add): one pass over the mapped index. `None` when the index cannot be read so.
pub(crate) fn tracked_among(
    git_dir: &Path,
    paths: &[&str],
) -> Option<std::collections::BTreeSet<String>> {
    let wanted: std::collections::BTreeSet<&[u8]> = paths.iter().map(|p| p.as_bytes()).collect();
    let (map, _) = map(git_dir)?;
    let mut found = std::collections::BTreeSet::new();
    walk(&mut map.bytes(), |name, raw| {
        if !raw.special()
            && wanted.contains(name)
            && let Ok(name) = std::str::from_utf8(name)
        {
            found.insert(name.to_owned());
        }
        Some(())
    })?;
    Some(found)
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

//! The sweep's copy of a snapshot state log (`snapshots/<key>.stat` beside `<key>.log`): the
//! files the log watches, grouped by worktree and in path order, each as the bytes handed to
//! `lstat` and its stat data when last snapshotted, in fixed-width binary fields. The sweep
//! before a shell command reads it in one small read and compares in place: no text parsed, no
//! name unescaped, nothing allocated per file. The log stays the only source of truth: the copy
//! names the stat data of the log it was made from (size, times to the nanosecond, inode) and
//! is used only while the log still has exactly those; a copy that is missing, stale, torn or
//! damaged (its checksum) is ignored, and the sweep that reads the log instead writes a new one
//! over it in place (no file created once there is one: creating files is what costs a store's
//! writers most; a reader that finds it half written finds its checksum wrong and reads the
//! log). It only ever answers "none of this session's files changed": when one did, the sweep
//! reads the log itself.
//!
//! Layout (integers little-endian): `DIBSSWP1`; the log's size, mtime (seconds, nanoseconds),
//! ctime (seconds, nanoseconds) and inode; the body's length and checksum; then the body: the
//! session's id as the log writes it, then per worktree its root and its files, each file as
//! size, mtime and ctime (nanoseconds), inode, mode and its path below the root. Strings are a
//! `u32` length and bytes.

use std::hash::Hasher as _;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::fsio;
use super::snaplog::{Fx, View};
use super::snapshots::Stamp;
use crate::platform::below::Lstat;

const MAGIC: &[u8; 8] = b"DIBSSWP1";
/// The magic, the log's stat data (six numbers) and the body's length and checksum.
const HEADER: usize = 8 + 6 * 8 + 2 * 8;
/// A file's fixed-width fields: size, mtime, ctime, inode, mode, its path's length.
const FILE: usize = 4 * 8 + 4 + 4;
/// The largest copy read back (bytes): as large as the largest log.
const MAX_BYTES: u64 = 8 << 20;

/// Where the copy of the log at `log` is kept.
pub(super) fn path_of(log: &Path) -> PathBuf {
    log.with_extension("stat")
}

/// The stat data of a log a copy is tied to.
fn key_bytes(log: &Lstat) -> [u8; 48] {
    let mut out = [0u8; 48];
    let fields = [
        log.len,
        log.mtime.0 as u64,
        log.mtime.1 as u64,
        log.ctime.0 as u64,
        log.ctime.1 as u64,
        log.ino,
    ];
    for (i, f) in fields.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&f.to_le_bytes());
    }
    out
}

fn checksum(body: &[u8]) -> u64 {
    let mut h = Fx::default();
    h.write(body);
    h.finish()
}

/// A copy read back and found to belong to its log as the log is now.
pub(super) struct Cache {
    bytes: Vec<u8>,
}

/// Reads fields off a body, each bounds-checked.
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn str(&mut self) -> Option<&'b [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// The fixed-width fields of one file, as written.
fn stamp_at(f: &[u8]) -> Stamp {
    let n = |i: usize| u64::from_le_bytes(f[i * 8..i * 8 + 8].try_into().expect("eight bytes"));
    Stamp {
        len: n(0),
        mtime: i128::from(n(1) as i64),
        ctime: i128::from(n(2) as i64),
        ino: n(3),
        mode: u32::from_le_bytes(f[32..36].try_into().expect("four bytes")),
    }
}

impl Cache {
    /// The copy at `path`, when it is whole, undamaged and made from the log whose stat data
    /// are `log` now; `None` otherwise (then the log is to be read).
    pub(super) fn read(path: &Path, log: &Lstat) -> Option<Cache> {
        let bytes = crate::platform::files::read_regular(
            path,
            crate::platform::files::Links::Refuse,
            MAX_BYTES,
        )
        .ok()?;
        let header = bytes.get(..HEADER)?;
        if &header[..8] != MAGIC || header[8..56] != key_bytes(log) {
            return None;
        }
        let len = u64::from_le_bytes(header[56..64].try_into().ok()?);
        let sum = u64::from_le_bytes(header[64..72].try_into().ok()?);
        let body = &bytes[HEADER..];
        if body.len() as u64 != len || checksum(body) != sum {
            return None;
        }
        let cache = Cache { bytes };
        // Whole: every field where the layout puts it, nothing after the last.
        cache.walk(|_, _, _| false)?;
        Some(cache)
    }

    /// The session's id as its log writes it (escaped).
    pub(super) fn session(&self) -> &str {
        let mut c = self.body();
        c.str()
            .and_then(|s| std::str::from_utf8(s).ok())
            .unwrap_or_default()
    }

    fn body(&self) -> Cursor<'_> {
        Cursor {
            bytes: &self.bytes[HEADER..],
            at: 0,
        }
    }

    /// Whether `changed` says any of the files changed (asked in path order within each
    /// worktree, with the worktree's root, the path below it and the stat data when last
    /// snapshotted; no more are asked once one did).
    pub(super) fn any_changed(&self, changed: impl FnMut(&Path, &[u8], &Stamp) -> bool) -> bool {
        self.walk(changed).unwrap_or(true)
    }

    /// Go through the files until `changed` says one changed: `Some(true)` then, `Some(false)`
    /// when none did, `None` when the body does not follow the layout.
    fn walk(&self, mut changed: impl FnMut(&Path, &[u8], &Stamp) -> bool) -> Option<bool> {
        let mut c = self.body();
        c.str()?;
        let roots = c.u32()?;
        for _ in 0..roots {
            let root = Path::new(std::ffi::OsStr::from_bytes(c.str()?));
            let files = c.u32()?;
            for _ in 0..files {
                let fixed = c.take(FILE)?;
                let rel_len = u32::from_le_bytes(fixed[36..40].try_into().ok()?) as usize;
                let rel = c.take(rel_len)?;
                if changed(root, rel, &stamp_at(fixed)) {
                    return Some(true);
                }
            }
        }
        (c.at == c.bytes.len()).then_some(false)
    }
}

/// Write the copy of a log whose stat data were `log` and whose text reads as `view`, at
/// `path` (over the old copy, in place). Nothing is written, and no error, when a time does
/// not fit the layout (before 1678 or after 2262): the log is read each time then.
pub(super) fn write(path: &Path, log: &Lstat, view: &View<'_>) -> io::Result<()> {
    let Some(bytes) = encode(log, view) else {
        return Ok(());
    };
    fsio::write_in_place(path, &bytes).map(drop)
}

/// A file of a copy being made: its root (by place), its path below it, its stat data.
type Entry<'s> = (usize, Vec<u8>, &'s Stamp);

/// The bytes of the copy ([`write`]).
fn encode(log: &Lstat, view: &View<'_>) -> Option<Vec<u8>> {
    let roots: Vec<Vec<u8>> = view
        .roots
        .iter()
        .map(|r| {
            let root = super::snaplog::owned(r);
            crate::pathtext::to_path(&root)
                .as_os_str()
                .as_bytes()
                .to_vec()
        })
        .collect();
    let mut files: Vec<Entry<'_>> = view
        .files
        .iter()
        .map(|f| {
            let rel = super::snaplog::owned(f.path);
            (
                f.root,
                crate::pathtext::to_bytes(&rel).into_owned(),
                &f.stamp,
            )
        })
        .collect();
    files.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut body = Vec::with_capacity(64 + files.len() * (FILE + 24));
    let put_str = |body: &mut Vec<u8>, s: &[u8]| -> Option<()> {
        body.extend_from_slice(&u32::try_from(s.len()).ok()?.to_le_bytes());
        body.extend_from_slice(s);
        Some(())
    };
    put_str(&mut body, view.session.as_bytes())?;
    let groups: Vec<&[Entry<'_>]> = files.chunk_by(|a, b| a.0 == b.0).collect();
    body.extend_from_slice(&u32::try_from(groups.len()).ok()?.to_le_bytes());
    for chunk in groups {
        put_str(&mut body, &roots[chunk[0].0])?;
        body.extend_from_slice(&u32::try_from(chunk.len()).ok()?.to_le_bytes());
        for (_, rel, s) in chunk {
            body.extend_from_slice(&s.len.to_le_bytes());
            body.extend_from_slice(&i64::try_from(s.mtime).ok()?.to_le_bytes());
            body.extend_from_slice(&i64::try_from(s.ctime).ok()?.to_le_bytes());
            body.extend_from_slice(&s.ino.to_le_bytes());
            body.extend_from_slice(&s.mode.to_le_bytes());
            body.extend_from_slice(&u32::try_from(rel.len()).ok()?.to_le_bytes());
            body.extend_from_slice(rel);
        }
    }
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&key_bytes(log));
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&checksum(&body).to_le_bytes());
    out.extend_from_slice(&body);
    Some(out)
}

#[cfg(test)]
mod tests;

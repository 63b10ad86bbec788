//! The file of one session record (`sessions/<key>.json`), rewritten in place. Creating a new
//! file and renaming it over the old one, on every write, was most of a writing hook's cost
//! under load (ext4 allocates an inode for each new file and searches past every inode freed
//! in the last minutes), so a record is overwritten where it is instead, and checked when read:
//!
//! - The record is a JSON object whose first member is `"check":"<length>-<digest>"`: the
//!   document's length in bytes (ten digits) and the FNV-1a digest of everything after that
//!   member. A read that does not match was torn by a writer still overwriting the file, or
//!   one killed while it did; bytes past the length are what a longer version left before the
//!   file was cut to length, and are ignored.
//! - Before a record is overwritten, the version it replaces is written (the same way) to
//!   `sessions/.<key>.json.prev`. A reader that finds the record torn takes that one, so a
//!   writer killed mid-write loses its own change and nothing before it; a torn record is
//!   never read as a record.
//! - A record without the `check` member (an older version's, or one written by hand) is read
//!   as plain JSON, and is replaced whole (new file, rename) the first time it is written, as is
//!   a record that is missing or not a plain file of its own (a link or a second name of
//!   another file is replaced by the rename, never written through).
//!
//! Writers hold the record's lock (the store's, or its session's), so one file has one writer
//! at a time; readers take no lock.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::fsio;
use super::record::{Session, fnv1a};

/// How a checked record starts.
const START: &[u8] = b"{\"check\":\"";
/// The length of the `check` member with its comma: `{"check":"0000000123-0123456789abcdef",`.
const HEADER: usize = START.len() + 10 + 1 + 16 + 2;
/// How many times a torn record (and a torn previous version) is read again before it counts
/// as damaged.
const TRIES: usize = 3;

/// What reading a record file found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// No record there.
    Missing,
    /// A whole document (the record, or its previous version when the record was torn).
    Whole(Vec<u8>),
    /// The record's bytes, torn, and no whole previous version.
    Torn(Vec<u8>),
}

/// The document `session` is written as.
pub(super) fn encode(session: &Session) -> Vec<u8> {
    let body = serde_json::to_vec(session).expect("a session record always serializes");
    let rest = &body[1..]; // after the object's `{`
    let mut doc = Vec::with_capacity(HEADER + rest.len());
    doc.extend_from_slice(START);
    let len = HEADER + rest.len();
    doc.extend_from_slice(format!("{len:010}-{:016x}\",", fnv1a(rest)).as_bytes());
    debug_assert_eq!(doc.len(), HEADER);
    doc.extend_from_slice(rest);
    doc
}

/// The whole document in `bytes`: a checked record that matches its check (without what
/// follows it), or a record without a check (as it is); `None` when torn.
fn whole(bytes: &[u8]) -> Option<&[u8]> {
    if !bytes.starts_with(START) {
        return Some(bytes);
    }
    let head = bytes.get(START.len()..HEADER)?;
    let len: usize = std::str::from_utf8(head.get(..10)?).ok()?.parse().ok()?;
    let sum = u64::from_str_radix(std::str::from_utf8(head.get(11..27)?).ok()?, 16).ok()?;
    let ok = head[10] == b'-' && &head[27..] == b"\"," && len > HEADER && bytes.len() >= len;
    let doc = &bytes[..len.min(bytes.len())];
    (ok && fnv1a(&doc[HEADER..]) == sum).then_some(doc)
}

/// The file that keeps the version a record replaced (a dot name: never listed as a record).
pub(super) fn prev_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".prev");
    path.with_file_name(name)
}

/// Read the record at `path`: a torn one is read again, and its previous version taken
/// instead when that is whole. No link is followed; anything but a plain file there is an
/// error for which [`fsio::is_foreign`] holds.
pub(super) fn read(path: &Path) -> io::Result<Found> {
    let mut torn = Vec::new();
    for attempt in 0..TRIES {
        let bytes = match fsio::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(e),
        };
        if let Some(doc) = whole(&bytes) {
            let len = doc.len();
            let mut bytes = bytes;
            bytes.truncate(len);
            return Ok(Found::Whole(bytes));
        }
        if let Ok(prev) = fsio::read(&prev_path(path))
            && prev.starts_with(START)
            && let Some(doc) = whole(&prev)
        {
            return Ok(Found::Whole(doc.to_vec()));
        }
        torn = bytes;
        if attempt + 1 < TRIES {
            std::thread::yield_now();
        }
    }
    Ok(Found::Torn(torn))
}

/// The session recorded at `path`, when it is a record (not a dot name: a previous version or
/// a temporary file) that reads whole and parses; for sweeps over every record, which skip
/// the others.
pub(super) fn read_session(path: &Path) -> Option<Session> {
    if path
        .file_name()
        .is_none_or(|n| n.as_encoded_bytes().starts_with(b"."))
    {
        return None;
    }
    match read(path).ok()? {
        Found::Whole(bytes) => serde_json::from_slice(&bytes).ok(),
        _ => None,
    }
}

/// Write `new` as the record at `path`, which holds `old` (the caller holds the record's
/// lock). A checked record of its own is overwritten in place after `old` was kept as its
/// previous version; anything else there is replaced whole.
pub(super) fn write(path: &Path, old: Option<&Session>, new: &Session) -> io::Result<()> {
    let doc = encode(new);
    if let Some(old) = old
        && let Some((file, len)) = open_checked(path)?
    {
        overwrite(&prev_path(path), &encode(old))?;
        file.write_all_at(&doc, 0)?;
        if len > doc.len() as u64 {
            file.set_len(doc.len() as u64)?;
        }
        return Ok(());
    }
    fsio::write_atomic(path, &doc)?;
    // The previous version's file made now, with the record: the record's next writes then
    // create no file at all.
    overwrite(&prev_path(path), &doc)
}

/// Remove the record at `path` and its previous version.
pub(super) fn remove(path: &Path) -> io::Result<()> {
    let _ = std::fs::remove_file(prev_path(path));
    std::fs::remove_file(path)
}

/// Whether `file` is a plain file with no other name (never one planted as a second name of
/// another file, which an overwrite would write through).
fn own_plain(meta: &std::fs::Metadata) -> bool {
    meta.file_type().is_file() && meta.nlink() == 1
}

/// The record file at `path` opened for overwriting, with its length, when it is a checked
/// record that is a plain file of its own; `None` when it is not (or is missing).
fn open_checked(path: &Path) -> io::Result<Option<(File, u64)>> {
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !own_plain(&meta) {
        return Ok(None);
    }
    let mut start = [0u8; START.len()];
    let checked = file.read_exact_at(&mut start, 0).is_ok() && start == START;
    Ok(checked.then_some((file, meta.len())))
}

/// Write `bytes` over the file at `path` (made when missing), cut to their length. A link,
/// a special file or a second name of another file there is set aside first, never written
/// through.
fn overwrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let open = || {
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
    };
    let own = |f: io::Result<File>| {
        let f = f?;
        let meta = f.metadata()?;
        Ok::<_, io::Error>(own_plain(&meta).then_some((f, meta.len())))
    };
    let (file, len) = match own(open()) {
        Ok(Some(found)) => found,
        _ => {
            fsio::set_aside(path)?;
            own(open())?.ok_or_else(|| crate::platform::files::not_regular(path))?
        }
    };
    file.write_all_at(bytes, 0)?;
    if len > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "tests_recfile.rs"]
mod tests;

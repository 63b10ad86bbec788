//! A file read for a snapshot: its content (a link as a link, with the executable bit), or
//! why it is left out (too large, a FIFO, socket or device, never opened; ignored by git),
//! with its stat data from before the read.

use std::fs;
use std::path::Path;

use super::snap::MAX_SNAPSHOT_BYTES;
use crate::git::snapshot::Content;
use crate::platform::files::{Links, read_regular};
use crate::store::Stamp;

/// A file as read for a snapshot.
pub(super) enum Taken {
    /// Its content.
    Put(Content),
    /// Left out, and why.
    Skip(String),
}

/// Why a file git ignores is left out when only a shell command wrote it.
pub(crate) const IGNORED: &str = "ignored by git, written by a shell command";

/// The file at `full`, which git ignores, as left out (never read); `None` for a folder or
/// no file.
pub(super) fn take_ignored(full: &Path) -> Option<(Taken, Stamp)> {
    let meta = fs::symlink_metadata(full).ok()?;
    (!meta.is_dir()).then(|| (Taken::Skip(IGNORED.into()), Stamp::of(&meta)))
}

/// Read the file at `full` for a snapshot, with its stat data from before the read; `None`
/// when there is no file there (gone, or a folder). A FIFO or device is never opened.
pub(super) fn take(full: &Path) -> Option<(Taken, Stamp)> {
    let meta = fs::symlink_metadata(full).ok()?;
    let stamp = Stamp::of(&meta);
    let kind = meta.file_type();
    if kind.is_dir() {
        return None;
    }
    if kind.is_symlink() {
        let target = fs::read_link(full).ok()?;
        let bytes = target.into_os_string().into_encoded_bytes();
        return Some((Taken::Put(Content::Link(bytes)), stamp));
    }
    if !kind.is_file() {
        return Some((Taken::Skip(special_kind(&meta).into()), stamp));
    }
    let too_large = || format!("larger than {} MiB", MAX_SNAPSHOT_BYTES >> 20);
    let bytes = match read_regular(full, Links::Refuse, MAX_SNAPSHOT_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
            return Some((Taken::Skip(too_large()), stamp));
        }
        Err(_) => return None,
    };
    Some((
        Taken::Put(Content::File {
            bytes,
            executable: executable(&meta),
        }),
        stamp,
    ))
}

#[cfg(unix)]
fn special_kind(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (never read)"
    } else if t.is_socket() {
        "a socket (never read)"
    } else if t.is_block_device() || t.is_char_device() {
        "a device (never read)"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_meta: &fs::Metadata) -> &'static str {
    "not a regular file"
}

#[cfg(unix)]
fn executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_meta: &fs::Metadata) -> bool {
    false
}

/// The mode git would record for a file of stat mode `mode`: a link, an executable or a
/// plain file (`0o120000`, `0o100755`, `0o100644`).
pub(super) fn git_mode(mode: u32) -> u32 {
    const KIND: u32 = 0o170000;
    const LINK: u32 = 0o120000;
    if mode & KIND == LINK {
        LINK
    } else if mode & 0o111 != 0 {
        0o100755
    } else {
        0o100644
    }
}

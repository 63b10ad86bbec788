//! File-system primitives of the store: atomic replace, the lock with a timeout, setting a
//! damaged or foreign file aside, and every open, create and delete of the store's files.
//! Nothing here follows a symbolic link: a link (or a FIFO, a device, a folder) found where a
//! file of the store belongs is set aside (renamed, reported by `doctor`) and never written
//! through; a link where a folder of the store belongs is set aside too, before anything is
//! created, listed or removed in it.

use std::fs::{self, File, TryLockError};
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::platform::files::{self, Links, TEMP_MARK};

/// The largest store file read (a session record with thousands of files is a few megabytes).
pub(crate) const MAX_FILE: u64 = 32 << 20;
/// How old a temporary file must be before another writer takes it for a killed writer's.
pub(crate) const STALE_TEMP: Duration = Duration::from_secs(10 * 60);

/// The bytes of the store file at `path`: a plain file of at most [`MAX_FILE`] bytes, no link
/// followed. Anything else is an error for which [`is_foreign`] holds.
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    files::read_regular(path, Links::Refuse, MAX_FILE)
}

/// [`read`] as text (lossy).
pub(crate) fn read_text(path: &Path) -> io::Result<String> {
    read(path).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Whether a read failed because the file is not a plain file of the store (a link, a FIFO, a
/// folder, a device, or a file too large to be one of ours).
pub(crate) fn is_foreign(err: &io::Error) -> bool {
    files::is_foreign(err)
}

/// Replace `path` with `bytes` atomically: write a temporary file in the same folder, then
/// rename it over the target. A reader sees the old whole file or the new whole file. The
/// rename replaces a link there, never what it points to.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    files::replace_atomically(path, |tmp| files::create_new(tmp)?.write_all(bytes))
}

/// Write `bytes` into `path` in place (created when missing; empty bytes make an empty marker
/// or a stamp, whose modification time moves). A link or anything but a plain file there is set aside first, never written
/// through. The bytes go over the old ones and the file is then cut to their length:
/// truncating a file to nothing first makes ext4 flush it when it is closed (its
/// replace-by-truncate safeguard), milliseconds of waiting on the disk.
pub(crate) fn write_in_place(path: &Path, bytes: &[u8]) -> io::Result<File> {
    use std::os::unix::fs::FileExt;
    let file = open_plain(path, false)?;
    if bytes.is_empty() {
        // A stamp: the truncation also moves its modification time, which is what it tells.
        file.set_len(0)?;
        return Ok(file);
    }
    let len = file.metadata()?.len();
    file.write_all_at(bytes, 0)?;
    if len > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(file)
}

/// Append `bytes` to `path` (created when missing); a link or anything but a plain file there
/// is set aside first.
pub(crate) fn append(path: &Path, bytes: &[u8]) -> io::Result<()> {
    open_plain(path, true)?.write_all(bytes)
}

fn open_plain(path: &Path, append: bool) -> io::Result<File> {
    match files::open_for_write(path, append) {
        Err(e) if is_foreign(&e) || fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => {
            set_aside(path)?;
            files::open_for_write(path, append)
        }
        other => other,
    }
}

/// Open `path` for appending (created when missing, a foreign file there set aside) and take
/// an exclusive lock on that file itself ([`lock_until`]), waiting at most [`FILE_LOCK_WAIT`].
/// The file opened is the one at `path` once locked (a compaction may have
/// replaced it in between); `None` when it kept being replaced or stayed locked.
fn open_locked(path: &Path) -> io::Result<Option<LockGuard>> {
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;
    let deadline = Instant::now() + FILE_LOCK_WAIT;
    loop {
        let Locked::Held(guard) = lock_until(path, deadline, false)? else {
            return Ok(None);
        };
        #[cfg(unix)]
        let same = {
            let open = guard.file.metadata()?;
            fs::symlink_metadata(path).is_ok_and(|m| m.ino() == open.ino() && m.dev() == open.dev())
        };
        #[cfg(not(unix))]
        let same = true;
        if same {
            return Ok(Some(guard));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
    }
}

/// How long [`append_locked`] and [`replace_locked`] wait for the file's lock (held by others
/// only while they append a few lines or compact a log).
pub(crate) const FILE_LOCK_WAIT: Duration = Duration::from_secs(2);

/// Append `bytes` to `path` in one write, under the file's own lock (see [`replace_locked`]):
/// no file is created but the first time, none replaced. Returns the file's length after.
pub(crate) fn append_locked(path: &Path, bytes: &[u8]) -> io::Result<u64> {
    let Some(mut locked) = open_locked(path)? else {
        return Err(io::Error::new(
            ErrorKind::TimedOut,
            format!("{} stayed locked", path.display()),
        ));
    };
    locked.file.write_all(bytes)?;
    Ok(locked.file.metadata()?.len())
}

/// Replace the file at `path` with what `rewrite` makes of its bytes (nothing is written when
/// it returns `None`), atomically and under the file's own lock, so that no [`append_locked`]
/// of another process is lost: one that opened the old file finds it replaced once it gets the
/// lock, and appends to the new one.
pub(crate) fn replace_locked(
    path: &Path,
    rewrite: impl FnOnce(&[u8]) -> Option<Vec<u8>>,
) -> io::Result<()> {
    let Some(_locked) = open_locked(path)? else {
        return Ok(());
    };
    if let Some(bytes) = rewrite(&read(path)?) {
        write_atomic(path, &bytes)?;
    }
    Ok(())
}

/// Whether `path` is a folder itself (not a link to one).
pub(crate) fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Make sure `path` is a folder of its own: a link, a file or anything else there is set aside
/// and a folder made. Its parent must already be one.
pub(crate) fn ensure_dir(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => {
            set_aside(path)?;
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    match fs::create_dir(path) {
        Err(e) if e.kind() == ErrorKind::AlreadyExists && is_real_dir(path) => Ok(()),
        other => other,
    }
}

/// Rename a damaged or foreign file (or link) aside as `<name>.corrupt-<unix seconds>`; never
/// deletes it, never follows it.
pub(crate) fn set_aside(path: &Path) -> io::Result<PathBuf> {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".corrupt-{secs}"));
    let aside = path.with_file_name(name);
    fs::rename(path, &aside)?;
    Ok(aside)
}

/// Remove the temporary files in `dir` (a real folder of the store) that writers killed
/// mid-write left behind: only those older than [`STALE_TEMP`], so that a live writer's is never
/// taken. Returns how many were removed.
pub(crate) fn sweep_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let b = name.as_encoded_bytes();
        if !b.starts_with(b".") || !name.to_string_lossy().contains(TEMP_MARK) {
            continue;
        }
        let stale = entry
            .metadata() // of the entry itself: never follows a link
            .ok()
            .filter(|m| m.is_file() || m.is_symlink())
            .and_then(|m| m.modified().ok())
            .is_some_and(|t| now.duration_since(t).is_ok_and(|age| age >= STALE_TEMP));
        if stale && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// A lock on a file of the store, released on drop.
#[derive(Debug)]
pub(crate) struct LockGuard {
    file: File,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Outcome of waiting for the lock.
pub(crate) enum Locked {
    /// Got it.
    Held(LockGuard),
    /// Someone else held it for the whole timeout.
    TimedOut,
}

/// Take the exclusive lock on `path` (created if missing), waiting at most `timeout`. Anything
/// but a plain file there (a folder, a symbolic link, which is never followed, a device) is set
/// aside first and a fresh lock file made.
pub(crate) fn lock(path: &Path, timeout: Duration) -> io::Result<Locked> {
    lock_until(path, Instant::now() + timeout, false)
}

/// As [`lock`], until `deadline`; `shared`: a shared hold, which excludes only exclusive ones.
pub(crate) fn lock_until(path: &Path, deadline: Instant, shared: bool) -> io::Result<Locked> {
    let file = match files::open_for_write(path, true) {
        Ok(f) => f,
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) => {
            set_aside(path)?;
            files::open_for_write(path, true)?
        }
        Err(e) => return Err(e),
    };
    let tried = if shared {
        file.try_lock_shared()
    } else {
        file.try_lock()
    };
    match tried {
        Ok(()) => return Ok(Locked::Held(LockGuard { file })),
        Err(TryLockError::WouldBlock) if Instant::now() >= deadline => {
            return Ok(Locked::TimedOut);
        }
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(e),
    }
    // Held by another: wait in the kernel's queue, so the lock passes on the moment it is
    // released (no polling, no oversleeping). A thread waits on a second handle of the same
    // open file (which takes the same lock) while this one waits for it with the timeout; one
    // that gets the lock after the timeout closes its handle, which releases it.
    let waiter = file.try_clone()?;
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let got = if shared {
            waiter.lock_shared()
        } else {
            waiter.lock()
        };
        let _ = tx.send(got);
    });
    match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(())) => Ok(Locked::Held(LockGuard { file })),
        Ok(Err(e)) => Err(e),
        Err(_) => Ok(Locked::TimedOut),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_append_is_lost_to_a_concurrent_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("state.log");
        std::thread::scope(|s| {
            for t in 0..4 {
                let log = &log;
                s.spawn(move || {
                    for i in 0..150 {
                        append_locked(log, format!("{t} {i}\n").as_bytes()).unwrap();
                    }
                });
            }
            let log = &log;
            s.spawn(move || {
                for _ in 0..100 {
                    // Rewritten whole, as a compaction does: the same lines in a new file.
                    replace_locked(log, |old| Some(old.to_vec())).unwrap();
                }
            });
        });
        let text = fs::read_to_string(&log).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        lines.dedup();
        assert_eq!(lines.len(), 600);
        assert_eq!(text.lines().count(), 600);
    }
}

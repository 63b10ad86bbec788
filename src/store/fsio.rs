//! File-system primitives of the store: atomic replace, the lock with a timeout, and setting a
//! damaged file aside.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Replace `path` with `bytes` atomically: write a temporary file in the same folder, then
/// rename it over the target. A reader sees the old whole file or the new whole file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Rename a damaged file aside as `<name>.corrupt-<unix seconds>`; never deletes it.
pub fn set_aside(path: &Path) -> io::Result<PathBuf> {
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

/// An exclusive lock on the store, released on drop.
#[derive(Debug)]
pub struct LockGuard {
    file: File,
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Outcome of waiting for the lock.
pub enum Locked {
    /// Got it.
    Held(LockGuard),
    /// Someone else held it for the whole timeout.
    TimedOut,
}

/// Take the exclusive lock on `path` (created if missing), waiting at most `timeout`. Anything
/// but a plain file there (a folder, a symbolic link, which is never followed, a device) is set
/// aside first and a fresh lock file made.
pub fn lock(path: &Path, timeout: Duration) -> io::Result<Locked> {
    if fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        set_aside(path)?;
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(200);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Locked::Held(LockGuard { file })),
            Err(TryLockError::WouldBlock) => {
                if Instant::now() >= deadline {
                    return Ok(Locked::TimedOut);
                }
                thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
    }
}

//! What the file watcher needs of the kernel beyond the `inotify` crate: whether a folder's
//! file system is one where inotify sees every change (a local one, not a network or FUSE
//! mount whose other side writes unseen), and a wait for a descriptor to become readable.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

/// File systems whose every change goes through this kernel, so inotify reports it: ext2/3/4,
/// XFS, Btrfs, tmpfs, overlayfs, F2FS, ZFS, bcachefs, JFS, ReiserFS, ramfs.
const LOCAL: &[i64] = &[
    0xEF53,
    0x5846_5342,
    0x9123_683E,
    0x0102_1994,
    0x794C_7630,
    0xF2F5_2010,
    0x2FC1_2FC1,
    0xCA45_1A4E,
    0x3153_464A,
    0x5265_4973,
    0x8584_58F6,
];

/// Whether `dir` is on a file system where inotify sees every change made to it. False when
/// it cannot be told.
#[allow(unsafe_code)]
pub(crate) fn sees_every_change(dir: &Path) -> bool {
    let Ok(c) = CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    let mut st = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `c` is NUL-terminated and outlives the call; `st` has room for one `statfs`,
    // which the call fills when it succeeds.
    let rc = unsafe { libc::statfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return false;
    }
    // SAFETY: filled, the call succeeded.
    let st = unsafe { st.assume_init() };
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    let kind = i64::from(st.f_type as i64);
    LOCAL.contains(&kind)
}

/// Wait until `fd` can be read, at most `wait`. Ok(true) when it can.
#[allow(unsafe_code)]
pub(crate) fn readable(fd: BorrowedFd<'_>, wait: Duration) -> io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    // SAFETY: `pfd` is one valid `pollfd` for the length of the call.
    let rc = unsafe { libc::poll(&raw mut pfd, 1, ms) };
    match rc {
        n if n > 0 => Ok(true),
        0 => Ok(false),
        _ => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
    }
}

/// Whether the mount table behind `mountinfo` (an open `/proc/self/mountinfo`) changed since
/// this was last asked of it: the kernel reports a change once per handle.
#[allow(unsafe_code)]
pub(crate) fn mounts_changed(mountinfo: BorrowedFd<'_>) -> bool {
    let mut pfd = libc::pollfd {
        fd: mountinfo.as_raw_fd(),
        events: libc::POLLPRI,
        revents: 0,
    };
    // SAFETY: `pfd` is one valid `pollfd` for the length of the call; no wait.
    let rc = unsafe { libc::poll(&raw mut pfd, 1, 0) };
    rc > 0 && pfd.revents & (libc::POLLPRI | libc::POLLERR) != 0
}

/// Connect to the Unix socket at `path` without waiting: a listener whose queue is full (a
/// watcher stopped or stuck) is an error at once, not a wait without end.
#[allow(unsafe_code)]
pub(crate) fn connect_now(path: &Path) -> io::Result<std::os::unix::net::UnixStream> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: an all-zero `sockaddr_un` is a valid value (family 0, empty path).
    let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.is_empty() || bytes.len() >= addr.sun_path.len() || bytes.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "socket path too long",
        ));
    }
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (to, from) in addr.sun_path.iter_mut().zip(bytes) {
        *to = *from as libc::c_char;
    }
    // SAFETY: plain call with constant arguments; the result is checked.
    let fd = unsafe {
        libc::socket(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            0,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a descriptor this call just opened and nothing else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
    // SAFETY: `addr` is a filled `sockaddr_un` of `len` bytes that outlives the call.
    let rc = unsafe { libc::connect(fd, (&raw const addr).cast::<libc::sockaddr>(), len) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let stream = std::os::unix::net::UnixStream::from(owned);
    stream.set_nonblocking(false)?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_folder_is_seen_and_a_missing_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        // The machines this runs on keep temporary folders on a local file system.
        assert!(sees_every_change(dir.path()));
        assert!(!sees_every_change(&dir.path().join("missing")));
        assert!(!sees_every_change(Path::new("/proc")));
    }
}

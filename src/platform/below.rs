//! Stat data of many files below one folder, as the sweep before a shell command asks it of
//! every file sessions snapshotted: each folder on the way is opened once (a handle, never
//! read) and each file costs one short lookup in its folder (`fstatat`) instead of a walk of
//! its whole path. No symbolic link is followed below the folder, and no file is opened: a file
//! reached only through a link to a folder, or under something that is no longer a folder, is
//! not there.

use std::ffi::CStr;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What `lstat` says of a file, as far as telling whether it changed goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lstat {
    /// Size in bytes.
    pub(crate) len: u64,
    /// Modification time: seconds and nanoseconds since the Unix epoch.
    pub(crate) mtime: (i64, i64),
    /// Status change time: seconds and nanoseconds since the Unix epoch.
    pub(crate) ctime: (i64, i64),
    /// Inode.
    pub(crate) ino: u64,
    /// File type and permission bits.
    pub(crate) mode: u32,
}

impl Lstat {
    /// The stat data of `meta` (from `symlink_metadata`).
    pub(crate) fn of(meta: &fs::Metadata) -> Lstat {
        Lstat {
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }
}

/// A folder on the way to the files asked for.
enum Dir {
    /// Open: its handle.
    Open(OwnedFd),
    /// Not a folder there (missing, a file, a symbolic link): nothing below it is there.
    Absent,
    /// It could not be opened for another reason (no permission, no handle left): files below
    /// it are asked for by their whole path, as `lstat` does.
    Unknown,
}

/// Stat data of files below the folder `root`, by their paths relative to it (`/`-separated
/// bytes).
/// Asked in path order, each folder is opened once: the handles of the folders the last path
/// went through stay open while the next path shares them.
pub(crate) struct Below {
    root: PathBuf,
    /// The folders open now, outermost (the root, `""`) first, each with its path relative
    /// to the root.
    open: Vec<(Vec<u8>, Dir)>,
    /// The name looked up, NUL-terminated (reused).
    name: Vec<u8>,
    /// Handles of folders left behind, closed together ([`close_together`]): at most
    /// [`SPENT`] at a time, and the rest when this is dropped.
    spent: Vec<OwnedFd>,
}

/// How many handles of folders left behind are kept open before they are closed together.
const SPENT: usize = 32;

impl Below {
    /// Files below `root` (a path whose links are followed, as given); nothing is opened yet.
    pub(crate) fn new(root: &Path) -> Below {
        Below {
            root: root.to_path_buf(),
            open: Vec::new(),
            name: Vec::new(),
            spent: Vec::new(),
        }
    }

    /// The folder the paths are relative to.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The stat data of the file at `rel` below the root, not following it when it is a link;
    /// `None` when nothing is there (or it cannot be told).
    pub(crate) fn lstat(&mut self, rel: &[u8]) -> Option<Lstat> {
        let (dir, name) = match rel.iter().rposition(|&b| b == b'/') {
            Some(i) => (&rel[..i], &rel[i + 1..]),
            None => (&b""[..], rel),
        };
        let plain = |part: &[u8]| !matches!(part, b"" | b"." | b"..");
        if !plain(name) || (!dir.is_empty() && !dir.split(|&b| b == b'/').all(plain)) {
            return self.whole(rel);
        }
        let fd = match self.enter(dir) {
            Dir::Open(fd) => fd.as_raw_fd(),
            Dir::Absent => return None,
            Dir::Unknown => return self.whole(rel),
        };
        stat_at(fd, cstr(&mut self.name, name)?).ok()
    }

    /// `lstat` of the whole path (links on the way followed).
    fn whole(&self, rel: &[u8]) -> Option<Lstat> {
        fs::symlink_metadata(self.root.join(std::ffi::OsStr::from_bytes(rel)))
            .ok()
            .map(|m| Lstat::of(&m))
    }

    /// The folder `dir` (relative to the root; `""` for the root), opened from the deepest
    /// folder open now that holds it, one component at a time, none followed when a link.
    fn enter(&mut self, dir: &[u8]) -> &Dir {
        let holds = |outer: &[u8]| {
            outer.is_empty()
                || (dir.starts_with(outer)
                    && (dir.len() == outer.len() || dir[outer.len()] == b'/'))
        };
        let kept = self.open.iter().take_while(|(p, _)| holds(p)).count();
        for (_, left) in self.open.drain(kept..) {
            if let Dir::Open(fd) = left {
                self.spent.push(fd);
            }
        }
        if self.spent.len() >= SPENT {
            close_together(std::mem::take(&mut self.spent));
        }
        if self.open.is_empty() {
            let root = self.root.as_os_str().as_bytes();
            let state = match cstr(&mut self.name, root) {
                Some(path) => dir_state(open_dir(libc::AT_FDCWD, path, true)),
                None => Dir::Absent,
            };
            self.open.push((Vec::new(), state));
        }
        loop {
            let (at, state) = self.open.last().expect("the root is open");
            if at.len() == dir.len() {
                break;
            }
            let start = if at.is_empty() { 0 } else { at.len() + 1 };
            let part = dir[start..]
                .split(|&b| b == b'/')
                .next()
                .unwrap_or_default();
            let next = match state {
                Dir::Open(fd) => {
                    let fd = fd.as_raw_fd();
                    match cstr(&mut self.name, part) {
                        Some(name) => dir_state(open_dir(fd, name, false)),
                        None => Dir::Absent,
                    }
                }
                Dir::Absent => Dir::Absent,
                Dir::Unknown => Dir::Unknown,
            };
            let path = dir[..start + part.len()].to_vec();
            self.open.push((path, next));
        }
        &self.open.last().expect("the root is open").1
    }
}

impl Drop for Below {
    fn drop(&mut self) {
        let open = self.open.drain(..).filter_map(|(_, d)| match d {
            Dir::Open(fd) => Some(fd),
            Dir::Absent | Dir::Unknown => None,
        });
        let mut fds = std::mem::take(&mut self.spent);
        fds.extend(open);
        close_together(fds);
    }
}

/// Close `fds`: each run of consecutive numbers among them (as folder handles opened one after
/// another are) by one `close_range`, a lone one by `close`. A sweep leaves a folder every 30
/// files or so; a `close` each was 1–2% of a sweeping hook here.
#[allow(unsafe_code)]
fn close_together(fds: Vec<OwnedFd>) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Owned here from now on: released from their `OwnedFd`s, each closed exactly once.
        let mut raw: Vec<RawFd> = fds
            .into_iter()
            .map(std::os::fd::IntoRawFd::into_raw_fd)
            .collect();
        raw.sort_unstable();
        for run in raw.chunk_by(|a, b| a + 1 == *b) {
            let (first, last) = (run[0], run[run.len() - 1]);
            // SAFETY: `run` holds every number from `first` to `last` (consecutive and
            // distinct), each a descriptor owned here and used by nothing else.
            #[allow(clippy::cast_sign_loss)]
            let closed = run.len() > 1
                && unsafe { libc::close_range(first as libc::c_uint, last as libc::c_uint, 0) }
                    == 0;
            if !closed {
                for &fd in run {
                    // SAFETY: as above; not closed yet (a lone one, or `close_range` failed).
                    drop(unsafe { OwnedFd::from_raw_fd(fd) });
                }
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    drop(fds);
}

/// What an attempt to open a folder tells of it.
fn dir_state(opened: io::Result<OwnedFd>) -> Dir {
    match opened {
        Ok(fd) => Dir::Open(fd),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
            ) =>
        {
            Dir::Absent
        }
        Err(_) => Dir::Unknown,
    }
}

/// `bytes` NUL-terminated in `buf`; `None` when they hold a NUL (no file has such a name).
fn cstr<'b>(buf: &'b mut Vec<u8>, bytes: &[u8]) -> Option<&'b CStr> {
    buf.clear();
    buf.extend_from_slice(bytes);
    buf.push(0);
    CStr::from_bytes_with_nul(buf).ok()
}

/// Open the folder `name` in the folder `at` (or `AT_FDCWD`) as a handle to look names up in
/// (never read); a symbolic link is followed only when `follow`.
#[allow(unsafe_code)]
pub(crate) fn open_dir(at: RawFd, name: &CStr, follow: bool) -> io::Result<OwnedFd> {
    // A handle for lookups alone where the system has one (no read permission needed).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let access = libc::O_PATH;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let access = libc::O_RDONLY;
    let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
    let flags = access | libc::O_DIRECTORY | libc::O_CLOEXEC | nofollow;
    // SAFETY: `name` is NUL-terminated and outlives the call, which only reads it; `at` is an
    // open folder handle or `AT_FDCWD`.
    let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened by this call and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `lstat` of `name` in the folder `at`.
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn stat_at(at: RawFd, name: &CStr) -> io::Result<Lstat> {
    let st = fstatat_nofollow(at, name)?;
    Ok(Lstat {
        len: st.st_size as u64,
        mtime: (i64::from(st.st_mtime), i64::from(st.st_mtime_nsec)),
        ctime: (i64::from(st.st_ctime), i64::from(st.st_ctime_nsec)),
        ino: u64::from(st.st_ino),
        mode: u32::from(st.st_mode),
    })
}

/// The system's `stat` of `name` in the folder `at`, the name itself not followed.
#[allow(unsafe_code)]
pub(crate) fn fstatat_nofollow(at: RawFd, name: &CStr) -> io::Result<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is NUL-terminated and outlives the call; `st` points to room for one
    // `stat`, which the call fills when it succeeds.
    let rc = unsafe {
        libc::fstatat(
            at,
            name.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the call succeeded, so it filled `st`.
    Ok(unsafe { st.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn lstat(path: &Path) -> Option<Lstat> {
        fs::symlink_metadata(path).ok().map(|m| Lstat::of(&m))
    }

    #[test]
    fn same_stat_data_as_lstat_of_the_whole_path_and_nothing_behind_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wt");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("top.txt"), "1").unwrap();
        fs::write(root.join("a/one.rs"), "22").unwrap();
        fs::write(root.join("a/b/two.rs"), "333").unwrap();
        fs::write(root.join("a.rs"), "4444").unwrap();
        fs::write(outside.join("secret"), "55555").unwrap();
        symlink("top.txt", root.join("link")).unwrap();
        symlink(&outside, root.join("linked")).unwrap();
        fs::write(root.join("a/plain"), "").unwrap();
        let mut below = Below::new(&root);
        assert_eq!(below.root(), root.as_path());
        for rel in [
            "a.rs",
            "a/b/two.rs",
            "a/one.rs",
            "link",
            "top.txt",
            "a/b",
            "a",
        ] {
            let got = below.lstat(rel.as_bytes());
            assert!(got.is_some(), "{rel}");
            assert_eq!(got, lstat(&root.join(rel)), "{rel}");
        }
        // The link itself, not what it names.
        assert_ne!(below.lstat(b"link"), lstat(&root.join("top.txt")));
        // Missing, below a link to a folder, below a file, odd components: not there.
        for rel in [
            "nope",
            "a/nope",
            "nope/x",
            "linked/secret",
            "a/plain/x",
            "a/one.rs/x",
        ] {
            assert_eq!(below.lstat(rel.as_bytes()), None, "{rel}");
        }
        assert!(lstat(&root.join("linked/secret")).is_some());
        // `.`, `..` and empty components go by the whole path, as before.
        assert_eq!(below.lstat(b"a/../top.txt"), lstat(&root.join("top.txt")));
        assert_eq!(below.lstat(b"a/"), lstat(&root.join("a")));
        // A root that is not there: nothing below it is.
        assert_eq!(Below::new(&dir.path().join("gone")).lstat(b"a.rs"), None);
        // A root named through a link is followed.
        assert_eq!(
            Below::new(&dir.path().join("wt/a/../a")).lstat(b"b/two.rs"),
            lstat(&root.join("a/b/two.rs"))
        );
    }

    /// Whether `fd` is (still) a handle of the folder whose inode is `ino`: another thread of
    /// the test process may reuse a closed number, never for this folder.
    #[allow(unsafe_code)]
    fn is_handle_of(fd: RawFd, ino: u64) -> bool {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: `st` has room for one `stat`; a closed `fd` only makes the call fail.
        let rc = unsafe { libc::fstat(fd, st.as_mut_ptr()) };
        // SAFETY: filled when the call succeeded.
        rc == 0 && unsafe { st.assume_init() }.st_ino == ino
    }

    #[test]
    fn folder_handles_are_all_closed_in_runs_and_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wt");
        for i in 0..(SPENT * 2 + 5) {
            fs::create_dir_all(root.join(format!("d{i:03}"))).unwrap();
            fs::write(root.join(format!("d{i:03}/f")), "x").unwrap();
        }
        let inos: Vec<u64> = (0..(SPENT * 2 + 5))
            .map(|i| lstat(&root.join(format!("d{i:03}"))).unwrap().ino)
            .collect();
        let mut below = Below::new(&root);
        let mut seen = Vec::new();
        for (i, ino) in inos.iter().enumerate() {
            assert!(below.lstat(format!("d{i:03}/f").as_bytes()).is_some());
            let (_, Dir::Open(fd)) = below.open.last().unwrap() else {
                panic!("d{i:03} is open");
            };
            seen.push((fd.as_raw_fd(), *ino));
            // Never more than the run's worth of left folders held open.
            assert!(below.spent.len() < SPENT);
        }
        drop(below);
        for (fd, ino) in seen {
            assert!(!is_handle_of(fd, ino), "handle {fd} left open");
        }
        // Handles that are not one run of numbers are closed one by one.
        let own = std::ffi::CString::new(root.as_os_str().as_bytes()).unwrap();
        let a = open_dir(libc::AT_FDCWD, &own, true).unwrap();
        let gap = open_dir(libc::AT_FDCWD, &own, true).unwrap();
        let b = open_dir(libc::AT_FDCWD, &own, true).unwrap();
        let root_ino = lstat(&root).unwrap().ino;
        let (ra, rb) = (a.as_raw_fd(), b.as_raw_fd());
        close_together(vec![b, a]);
        assert!(!is_handle_of(ra, root_ino) && !is_handle_of(rb, root_ino));
        assert!(
            is_handle_of(gap.as_raw_fd(), root_ino),
            "a handle not given is kept"
        );
    }

    #[test]
    fn a_folder_replaced_by_a_link_between_two_sweeps_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wt");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join("src/f.rs"), "x").unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("f.rs"), "other").unwrap();
        assert!(Below::new(&root).lstat(b"src/f.rs").is_some());
        fs::rename(root.join("src"), dir.path().join("moved")).unwrap();
        symlink(&elsewhere, root.join("src")).unwrap();
        assert_eq!(Below::new(&root).lstat(b"src/f.rs"), None);
    }
}

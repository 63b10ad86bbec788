//! `lstat` of many files of a worktree by their paths relative to its root, each folder opened
//! once (a handle for lookups, never read) and each file looked up in it (`fstatat`) instead of
//! a walk of its whole path: what a session start pays for each file its peers hold. The answer
//! is the whole path's `lstat`: the folder is reached as that walk reaches it (links on the way
//! followed), the file itself is not followed; anything else goes by the whole path.

use std::collections::HashMap;
use std::ffi::CString;
use std::fs;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::index::{MODE_EXEC, MODE_FILE, MODE_LINK, Stat};
use crate::platform::below;

/// At most this many folder handles are kept open at once.
const KEPT: usize = 64;

/// Whether a file is a regular file, and its stat data as an index entry records it.
pub(super) type Looked = (bool, Stat);

/// Files below the worktree root `root`, looked at folder by folder.
pub(super) struct Lookups {
    root: PathBuf,
    /// Each folder asked about (relative to the root): its handle, `None` when it could not be
    /// opened (its files then go by their whole paths, with whatever error that gives).
    open: HashMap<String, Option<OwnedFd>>,
}

impl Lookups {
    pub(super) fn new(root: &Path) -> Lookups {
        Lookups {
            root: root.to_path_buf(),
            open: HashMap::new(),
        }
    }

    /// `lstat` of `rel` (relative to the root, `/`-separated).
    pub(super) fn lstat(&mut self, rel: &str) -> io::Result<Looked> {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let plain = !matches!(name, "" | "." | "..");
        let Some(fd) = plain.then(|| self.folder(dir)).flatten() else {
            return self.whole(rel);
        };
        let Ok(name) = CString::new(name) else {
            return self.whole(rel);
        };
        stat_at(fd, &name)
    }

    /// The whole path's `lstat`.
    fn whole(&self, rel: &str) -> io::Result<Looked> {
        let m = fs::symlink_metadata(self.root.join(rel))?;
        Ok((m.file_type().is_file(), Stat::from(&m)))
    }

    /// The handle of folder `dir` (`""`: the root), opened on first use.
    fn folder(&mut self, dir: &str) -> Option<RawFd> {
        if !self.open.contains_key(dir) {
            if self.open.len() >= KEPT {
                self.open.clear();
            }
            let path = if dir.is_empty() {
                self.root.clone()
            } else {
                self.root.join(dir)
            };
            let fd = CString::new(path.as_os_str().as_bytes())
                .ok()
                .and_then(|p| below::open_dir(libc::AT_FDCWD, &p, true).ok());
            self.open.insert(dir.to_owned(), fd);
        }
        self.open.get(dir)?.as_ref().map(AsRawFd::as_raw_fd)
    }
}

/// `lstat` of `name` in the folder `at`, as [`Stat::from`] reads a file's metadata.
#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn stat_at(at: RawFd, name: &std::ffi::CStr) -> io::Result<Looked> {
    let st = below::fstatat_nofollow(at, name)?;
    let kind = u32::from(st.st_mode) & u32::from(libc::S_IFMT);
    let mode = if kind == u32::from(libc::S_IFLNK) {
        MODE_LINK
    } else if u32::from(st.st_mode) & 0o100 != 0 {
        MODE_EXEC
    } else {
        MODE_FILE
    };
    Ok((
        kind == u32::from(libc::S_IFREG),
        Stat {
            mode,
            size: st.st_size as u64,
            mtime: (i64::from(st.st_mtime), i64::from(st.st_mtime_nsec)),
            ctime: (i64::from(st.st_ctime), i64::from(st.st_ctime_nsec)),
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            uid: st.st_uid as u32,
            gid: st.st_gid as u32,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_in_its_folder_is_the_whole_paths_lstat() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("top.txt"), b"t").unwrap();
        fs::write(root.join("a/b/f.rs"), b"fn x() {}").unwrap();
        std::os::unix::fs::symlink("a", root.join("link")).unwrap();
        std::os::unix::fs::symlink("b/f.rs", root.join("a/to-file")).unwrap();
        let mut at = Lookups::new(root);
        for rel in [
            "top.txt",
            "a/b/f.rs",
            "link",
            "link/b/f.rs",
            "a/to-file",
            "a/b",
            "a/b/.",
            "a/b/..",
        ] {
            let m = fs::symlink_metadata(root.join(rel)).unwrap();
            let want = (m.file_type().is_file(), Stat::from(&m));
            assert_eq!(at.lstat(rel).unwrap(), want, "{rel}");
        }
        for rel in ["missing", "a/missing", "nowhere/f.rs", "top.txt/x"] {
            let whole = fs::symlink_metadata(root.join(rel)).unwrap_err().kind();
            assert_eq!(at.lstat(rel).unwrap_err().kind(), whole, "{rel}");
        }
    }
}

//! What the store of an enclosing repository remembers of the nested repositories below it
//! (see `git::nested`): `nested/<worktree id>` holds the nested worktree's root, so the commits
//! kept under `refs/dibs/nested/<worktree id>/` can be named by path once the folder is gone.

use std::path::{Path, PathBuf};

use super::{Store, fsio, read_small};

impl Store {
    /// The store of the clone whose common git dir is `common_dir` when git-dibs keeps one
    /// there already (a session ran there); nothing is created.
    pub(crate) fn in_use(common_dir: &Path) -> Option<Store> {
        let store = Store {
            dir: common_dir.join("dibs"),
        };
        fsio::is_real_dir(&store.dir.join("sessions")).then_some(store)
    }

    fn nested_dir(&self) -> PathBuf {
        self.dir.join("nested")
    }

    /// Remember that the nested repository whose worktree id is `id` is at `root` (one
    /// `lstat` when it is remembered already).
    pub(crate) fn remember_nested(&self, id: &str, root: &Path) {
        let path = self.nested_dir().join(id);
        if std::fs::symlink_metadata(&path).is_ok() {
            return;
        }
        if self.make_dir(&self.nested_dir()).is_ok() {
            let _ = fsio::write_atomic(&path, root.as_os_str().as_encoded_bytes());
        }
    }

    /// The root remembered for the nested repository whose worktree id is `id`.
    pub(crate) fn nested_root(&self, id: &str) -> Option<PathBuf> {
        if !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let bytes = read_small(&self.nested_dir().join(id))?;
        // Written from a path by `remember_nested`: on Unix a path is any bytes.
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
}

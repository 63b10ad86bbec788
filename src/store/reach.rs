//! Where else a session's work is: the worktrees of other clones in which a session working in
//! this clone has files (an edit tool given a path in a sibling repository, a command's write
//! found there). The scan after a shell command and the sweep before one look there too, so a
//! program that writes into that sibling by a path no word of the line names (a script, `make
//! -C`, a `cd` inside a child shell) has what it wrote kept before the next command destroys
//! it. One small file per session (`reach/<key>`): one line per worktree, its root and its
//! clone's common dir, newest first, at most [`MAX_REACHED`]; written only when a worktree not
//! listed yet is added (rare), read only by hooks that scan or sweep. What it names is checked
//! by the reader before it is looked at (see `cli/hook/reach.rs`): it is a hint, never trusted.

use std::path::{Path, PathBuf};

use super::{Store, fsio, session_key};

/// How many worktrees one session's list keeps (the newest).
pub(crate) const MAX_REACHED: usize = 16;
/// The longest path kept in the list (bytes); a longer one is not listed.
const MAX_PATH: usize = 1024;

impl Store {
    fn reach_file(&self, session: &str) -> PathBuf {
        self.dir.join("reach").join(session_key(session))
    }

    /// The worktrees of other clones (root, common dir) where `session` has work, as noted,
    /// newest first. Lines that are not two absolute paths are skipped.
    pub(crate) fn reached(&self, session: &str) -> Vec<(PathBuf, PathBuf)> {
        let Ok(text) = fsio::read_text(&self.reach_file(session)) else {
            return Vec::new();
        };
        text.lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(root, common)| (PathBuf::from(root), PathBuf::from(common)))
            .filter(|(r, c)| r.is_absolute() && c.is_absolute())
            .take(MAX_REACHED)
            .collect()
    }

    /// Note that `session` has work in the worktree at `root` of the clone whose common dir is
    /// `common` (best effort; nothing is written when it is the newest noted already).
    pub(crate) fn note_reached(&self, session: &str, root: &Path, common: &Path) {
        let (Some(r), Some(c)) = (root.to_str(), common.to_str()) else {
            return;
        };
        let plain = |p: &str| p.len() <= MAX_PATH && !p.contains(['\t', '\n', '\r']);
        if !plain(r) || !plain(c) {
            return;
        }
        let mut list = self.reached(session);
        if list
            .first()
            .is_some_and(|(lr, lc)| lr == root && lc == common)
        {
            return;
        }
        list.retain(|(lr, _)| lr != root);
        list.insert(0, (root.to_path_buf(), common.to_path_buf()));
        list.truncate(MAX_REACHED);
        let mut text = String::new();
        for (r, c) in &list {
            text.push_str(&format!("{}\t{}\n", r.display(), c.display()));
        }
        let dir = self.dir.join("reach");
        if self.make_dir(&dir).is_ok() {
            let _ = fsio::write_atomic(&self.reach_file(session), text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_bounded_newest_first_and_skips_what_is_no_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path()).unwrap();
        assert!(store.reached("s").is_empty());
        for i in 0..20 {
            store.note_reached("s", Path::new(&format!("/w/{i}")), Path::new("/c/.git"));
        }
        store.note_reached("s", Path::new("/w/3"), Path::new("/c/.git"));
        let list = store.reached("s");
        assert_eq!(list.len(), MAX_REACHED);
        assert_eq!(list[0].0, Path::new("/w/3"));
        assert_eq!(list[1].0, Path::new("/w/19"));
        assert!(!list.iter().skip(1).any(|(r, _)| r == Path::new("/w/3")));
        // A name with a newline is not listed; hostile lines are skipped on reading.
        store.note_reached("s", Path::new("/w/x\ny"), Path::new("/c/.git"));
        assert_eq!(store.reached("s")[0].0, Path::new("/w/3"));
        let file = store.reach_file("t");
        std::fs::write(&file, "relative\t/c\n/ok\t/c/.git\nnot a line\n").unwrap();
        assert_eq!(
            store.reached("t"),
            vec![(PathBuf::from("/ok"), PathBuf::from("/c/.git"))]
        );
        // A link where the list belongs is not followed.
        let other = tmp.path().join("elsewhere");
        std::fs::write(&other, "/w/evil\t/c/.git\n").unwrap();
        let link = store.reach_file("u");
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert!(store.reached("u").is_empty());
    }
}

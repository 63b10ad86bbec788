//! Tracked files the index marks assume-unchanged or skip-worktree (`git ls-files -v` shows
//! them `h` and `S`; every file outside a sparse checkout's cone is skip-worktree). git's and
//! libgit2's status take such a file for unchanged without looking at it, so what a program
//! writes into one would be nobody's work: here each is compared with its entry by stat data
//! all the same (its content hashed when stat data cannot tell). A file that is not there is
//! not reported: outside a sparse cone that is how it should be.

use std::fs;
use std::path::Path;

use super::facts::FileState;
use super::index::{self, Compared, MODE_EXEC, MODE_FILE};

/// How many marked entries are looked at at most (a sparse checkout may mark most of a large
/// index; only those whose file exists cost more than a failed `lstat`).
const MAX_MARKED: usize = 100_000;

/// The files of the worktree at `root` (git dir `git_dir`, holding its index) that the index
/// marks assume-unchanged or skip-worktree and that differ from their entry: modified (`M`) or
/// changed type (`T`), as [`FileState`]s. Empty when the index cannot be read so (a split or
/// sparse index, a SHA-256 one) or nothing is marked. With `only`, just those paths are looked
/// at.
pub(crate) fn changed_marked(root: &Path, git_dir: &Path, only: Option<&[&str]>) -> Vec<FileState> {
    let Some((map, stamp)) = index::map(git_dir) else {
        return Vec::new();
    };
    let mut marked: Vec<(String, index::Entry)> = Vec::new();
    let walked = index::walk(&mut map.bytes(), |name, raw| {
        if raw.hidden()
            && marked.len() < MAX_MARKED
            && only.is_none_or(|o| o.iter().any(|p| p.as_bytes() == name))
            && let Some(e) = raw.entry()
        {
            marked.push((crate::pathtext::from_bytes(name).into_owned(), e));
        }
        Some(())
    });
    if walked.is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (path, e) in marked {
        let full = root.join(crate::pathtext::to_path(&path));
        let Ok(meta) = fs::symlink_metadata(&full) else {
            continue;
        };
        let state = match index::compare(&e, &meta, stamp) {
            None | Some(Compared::Same) => continue,
            Some(Compared::Changed(c)) => c,
            Some(Compared::Uncertain) => {
                let file = e.mode == MODE_FILE || e.mode == MODE_EXEC;
                let same = file
                    && git2::Oid::hash_file(git2::ObjectType::Blob, &full)
                        .is_ok_and(|id| id.as_bytes() == e.oid);
                if same {
                    continue;
                }
                'M'
            }
        };
        out.push(FileState {
            path,
            index: ' ',
            worktree: state,
        });
    }
    out
}

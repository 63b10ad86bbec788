//! The stat fingerprint of a clone's ref storage: equal fingerprints mean no branch moved.

use std::path::{Path, PathBuf};

/// A fingerprint of where the clone at `common_dir` keeps its local branches and remote-tracking
/// refs: the stat data of `packed-refs`, of `refs/stash` and its reflog, of every folder under
/// `refs/` but git-dibs' own, of `refs/dibs` and every folder of the retention and kept-stash
/// refs (a loose ref made, moved or deleted renames a file in its folder) and of a reftable's
/// table list. Equal fingerprints mean no
/// branch moved. Reads no ref and opens no repository; `None` when the folders are too many to
/// look at cheaply (then every call looks at the branches).
pub(crate) fn branch_fingerprint(common_dir: &Path) -> Option<String> {
    use std::fmt::Write as _;
    const MAX_FOLDERS: usize = 256;
    let mut out = String::new();
    let mut stamp = |path: &Path| {
        let _ = match std::fs::symlink_metadata(path) {
            Ok(m) => {
                use std::os::unix::fs::MetadataExt;
                write!(
                    out,
                    "{}:{}.{}:{}:{};",
                    m.ino(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime_nsec(),
                    m.len()
                )
            }
            Err(_) => write!(out, "-;"),
        };
    };
    stamp(&common_dir.join("packed-refs"));
    stamp(&common_dir.join("reftable/tables.list"));
    // The stash and its entries (`git stash`, `drop`, `clear`): their commits are kept too.
    stamp(&common_dir.join("refs/stash"));
    stamp(&common_dir.join("logs/refs/stash"));
    // Every namespace but git-dibs' own: branches, remote-tracking refs, tags, `refs/wip/…`.
    let mut folders: Vec<PathBuf> = std::fs::read_dir(common_dir.join("refs"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name() != "dibs" && e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    // git-dibs' own refs that keep commits, deleted from outside it (`git update-ref -d`, a
    // script): put back after the command (see `gone`).
    stamp(&common_dir.join("refs/dibs"));
    for kept in [super::RETENTION_PREFIX, crate::git::stashes::STASH_PREFIX] {
        folders.push(common_dir.join(kept.trim_end_matches('/')));
    }
    folders.sort();
    stamp(&common_dir.join("refs"));
    let mut seen = 0;
    while let Some(dir) = folders.pop() {
        seen += 1;
        if seen > MAX_FOLDERS {
            return None;
        }
        stamp(&dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subs: Vec<_> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        subs.sort();
        folders.extend(subs);
    }
    Some(out)
}

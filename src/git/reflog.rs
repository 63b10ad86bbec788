//! What reflogs gained since last looked at: the commits refs pointed to during a command,
//! including the ones it then moved away from (`git commit && git reset --hard HEAD~1`, a
//! rebase that dropped commits, a branch set twice). Read from the files backend's reflog files
//! (`logs/HEAD` of each worktree, `logs/refs/heads/...`), by length alone when nothing was
//! appended; a reftable repository keeps its reflogs in the table and is not read here.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most reflog files looked at per clone.
const MAX_FILES: usize = 256;
/// The most bytes read from one reflog per call (the newest entries).
const MAX_READ: u64 = 64 << 10;
/// On the first look in a clone, how far back reflog entries count as the command's own.
pub(crate) const FIRST_LOOK_SECS: u64 = 600;

/// One reflog file: whose it is, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reflog {
    /// The branch it is the log of, or for a worktree's `HEAD` the branch checked out there
    /// (`detached/<folder>` when none).
    pub(crate) label: String,
    /// The file.
    pub(crate) path: PathBuf,
}

/// The reflog files of the clone at `common_dir` whose worktrees are `worktrees`: each
/// worktree's `HEAD` log, then every branch's.
pub(crate) fn reflogs(common_dir: &Path, worktrees: &[super::Worktree]) -> Vec<Reflog> {
    let mut out = Vec::new();
    for wt in worktrees {
        let label = wt.branch().unwrap_or_else(|| {
            let folder = wt
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            format!("detached/{}", folder.unwrap_or_else(|| "worktree".into()))
        });
        out.push(Reflog {
            label,
            path: wt.git_dir.join("logs/HEAD"),
        });
    }
    let base = common_dir.join("logs/refs/heads");
    let mut folders = vec![base.clone()];
    while let Some(dir) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            if out.len() >= MAX_FILES {
                return out;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(path),
                Ok(t) if t.is_file() => {
                    let Ok(rel) = path.strip_prefix(&base) else {
                        continue;
                    };
                    let label = rel.to_string_lossy().replace('\\', "/");
                    out.push(Reflog { label, path });
                }
                _ => {}
            }
        }
    }
    out
}

/// The commits (`label`, full id) that the reflogs gained since `before` (file to length), and
/// their lengths now. When `before` is empty (the first look in this clone: the first shell
/// command after install, or after the store was rebuilt) only the entries of the last
/// [`FIRST_LOOK_SECS`] before `now` are taken, so the first command's own commits count and
/// older history does not; later, a file not in `before` (a branch made since) and a file that
/// shrank (expired, rewritten) are read from their start.
pub(crate) fn gained(
    logs: &[Reflog],
    before: &BTreeMap<PathBuf, u64>,
    now: u64,
) -> (Vec<(String, String)>, BTreeMap<PathBuf, u64>) {
    let mut found = Vec::new();
    let mut lengths = BTreeMap::new();
    for log in logs {
        let Ok(meta) = std::fs::symlink_metadata(&log.path) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let len = meta.len();
        lengths.insert(log.path.clone(), len);
        let (old, since) = if before.is_empty() {
            (0, now.saturating_sub(FIRST_LOOK_SECS))
        } else {
            (before.get(&log.path).copied().unwrap_or(0), 0)
        };
        if old == len {
            continue;
        }
        let from = if old < len { old } else { 0 };
        for commit in new_ids(
            &log.path,
            from.max(len.saturating_sub(MAX_READ)),
            len,
            since,
        ) {
            found.push((log.label.clone(), commit));
        }
    }
    (found, lengths)
}

/// The new-side ids of the reflog lines in `path` between `from` and `to` made at or after
/// `since` (seconds since the Unix epoch; a partial first line is skipped when `from` is not a
/// line start).
fn new_ids(path: &Path, from: u64, to: u64, since: u64) -> Vec<String> {
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut bytes = Vec::new();
    let start = from.saturating_sub(1);
    if file.seek(SeekFrom::Start(start)).is_err()
        || file.take(to - start).read_to_end(&mut bytes).is_err()
    {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines = text.split('\n');
    // The byte before `from` tells whether the first line is whole.
    if from > 0 && !text.starts_with('\n') {
        lines.next();
    }
    lines
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let _old = fields.next()?;
            let new = fields.next()?;
            let hex = new.len() >= 40 && new.bytes().all(|b| b.is_ascii_hexdigit());
            let recent = since == 0 || entry_time(line).is_some_and(|t| t >= since);
            (hex && recent && new.bytes().any(|b| b != b'0')).then(|| new.to_owned())
        })
        .collect()
}

/// When the reflog line `line` was written (`<old> <new> <name> <<email>> <time> <tz>\t<msg>`).
fn entry_time(line: &str) -> Option<u64> {
    let head = line.split('\t').next()?;
    let mut fields = head.rsplit(' ');
    let _tz = fields.next()?;
    fields.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::entry_time;

    #[test]
    fn entry_times_are_read_from_the_identity_part() {
        let line = "0000000000000000000000000000000000000000 \
                    1111111111111111111111111111111111111111 A U Thor <a@b> 1796135478 +0000\t\
                    commit (initial): base time 5 +0100";
        assert_eq!(entry_time(line), Some(1_796_135_478));
        assert_eq!(entry_time("garbage"), None);
        assert_eq!(entry_time("a b c <d> notanumber +0000\tmsg"), None);
    }
}

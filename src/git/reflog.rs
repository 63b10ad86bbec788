//! What reflogs gained since last looked at: the commits refs pointed to during a command,
//! including the ones it then moved away from (`git commit && git reset --hard HEAD~1`, a
//! rebase that dropped commits, a branch set twice). Read from the files backend's reflog files
//! (`logs/HEAD` of each worktree, `logs/refs/heads/...`), by length alone when nothing was
//! appended; a reftable repository's, which are in the table, through `git reflog` when its
//! table list changed. Each worktree's `ORIG_HEAD` is read too: what a reset, rebase or merge
//! moved away from stays there after the line expired the reflogs.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The most reflog files looked at per clone (their stat data; only those that grew are read).
const MAX_FILES: usize = 4096;
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
/// worktree's `HEAD` log, then, with `branches` (the branch storage changed since last looked
/// at: no branch's log can have grown otherwise), every branch's.
pub(crate) fn reflogs(
    common_dir: &Path,
    worktrees: &[super::Worktree],
    branches: bool,
) -> Vec<Reflog> {
    let mut out = Vec::new();
    for wt in worktrees {
        out.push(Reflog {
            label: label_of(wt),
            path: wt.git_dir.join("logs/HEAD"),
        });
    }
    let base = common_dir.join("logs/refs/heads");
    let mut folders = if branches {
        vec![base.clone()]
    } else {
        Vec::new()
    };
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

/// The commits each worktree's `ORIG_HEAD` came to name since last looked at (`label`, full
/// id): `git reset`, `rebase`, `merge` and `am` leave the commit they moved away from there,
/// so a line that commits and resets (`git commit && git reset --hard HEAD~1`) and then expires
/// the reflogs (`git reflog expire --expire=now --all`) still shows what it made. Remembered in
/// `lengths` by the first 15 hex digits of the id (a path's value there is a length for a
/// reflog); on the first look only an `ORIG_HEAD` written in the last [`FIRST_LOOK_SECS`]
/// counts.
pub(crate) fn orig_heads(
    worktrees: &[super::Worktree],
    before: &BTreeMap<PathBuf, u64>,
    now: u64,
    lengths: &mut BTreeMap<PathBuf, u64>,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for wt in worktrees {
        let path = wt.git_dir.join("ORIG_HEAD");
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || meta.len() > 128 {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let id = text.trim();
        if id.len() < 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let Ok(stamp) = u64::from_str_radix(&id[..15], 16) else {
            continue;
        };
        lengths.insert(path.clone(), stamp);
        let fresh = if before.is_empty() {
            use std::os::unix::fs::MetadataExt;
            u64::try_from(meta.mtime()).unwrap_or(0) >= now.saturating_sub(FIRST_LOOK_SECS)
        } else {
            before.get(&path) != Some(&stamp)
        };
        if fresh {
            found.push((label_of(wt), id.to_owned()));
        }
    }
    found
}

/// What [`reflogs`] and [`gained`] read from files, for a reftable repository (its reflogs
/// and `ORIG_HEAD` are in the table): when the table list changed since last looked at, each
/// worktree's `HEAD` reflog entries written since then (through `git reflog`) and its
/// `ORIG_HEAD`. The table list's stat data and the time of the look are remembered in
/// `lengths` under `reftable/tables.list` and `reftable/.dibs-looked`.
pub(crate) fn reftable_gained(
    common_dir: &Path,
    worktrees: &[super::Worktree],
    before: &BTreeMap<PathBuf, u64>,
    now: u64,
    lengths: &mut BTreeMap<PathBuf, u64>,
) -> Vec<(String, String)> {
    use std::os::unix::fs::MetadataExt;
    let list = common_dir.join("reftable/tables.list");
    let looked = common_dir.join("reftable/.dibs-looked");
    let Ok(meta) = std::fs::symlink_metadata(&list) else {
        return Vec::new();
    };
    let stamp = (u64::try_from(meta.mtime()).unwrap_or(0) << 30)
        ^ u64::try_from(meta.mtime_nsec()).unwrap_or(0)
        ^ (meta.len() << 52)
        ^ meta.ino();
    lengths.insert(list.clone(), stamp);
    let since = before
        .get(&looked)
        .copied()
        .unwrap_or_else(|| now.saturating_sub(FIRST_LOOK_SECS));
    lengths.insert(looked, now);
    if before.get(&list) == Some(&stamp) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for wt in worktrees {
        let label = label_of(wt);
        let Ok(text) = super::cli::run_text(
            &wt.root,
            &[
                "reflog",
                "show",
                "--date=unix",
                "--format=%H %gd",
                "-n",
                "64",
                "HEAD",
            ],
        ) else {
            continue;
        };
        for line in text.lines() {
            // `<id> HEAD@{<unix time>}`
            let Some((id, at)) = line.split_once(' ') else {
                continue;
            };
            let time = at
                .rsplit_once('{')
                .and_then(|(_, t)| t.trim_end_matches('}').parse::<u64>().ok());
            if time.is_some_and(|t| t + 1 >= since) {
                found.push((label.clone(), id.to_owned()));
            }
        }
        if let Ok(id) =
            super::cli::run_text(&wt.root, &["rev-parse", "-q", "--verify", "ORIG_HEAD"])
        {
            let id = id.trim();
            if id.len() >= 40 {
                found.push((label.clone(), id.to_owned()));
            }
        }
    }
    found
}

/// The label of a worktree's `HEAD`: the branch checked out there, or `detached/<folder>`.
fn label_of(wt: &super::Worktree) -> String {
    wt.branch().unwrap_or_else(|| {
        let folder = wt
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        format!("detached/{}", folder.unwrap_or_else(|| "worktree".into()))
    })
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

//! What the scan after a shell command looks at in one worktree: its dirty and untracked paths
//! and, beside them, the recent files its ignore rules hide. Ignore rules are anyone's to write
//! (`echo '*.py' >> .git/info/exclude`, `core.excludesFile`, a `.gitignore` of `*` in one
//! folder), so they are not trusted to say what is nobody's work: only the committed,
//! unchanged `.gitignore` files do (see [`committed`]). A path any other rule hides is taken as
//! untracked; the recent files the committed rules hide are returned so that the scan can say
//! it left them out. A folder whose own change time is recent (moved in whole: `mv`, `cp -a`,
//! `tar x` keep its files' old times) counts with all it holds.

mod committed;

pub(crate) use committed::{hidden_by_committed, one_hidden_by_committed};

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use super::status::GitError;

/// How many entries below ignored folders one scan lists at most.
const MAX_LISTED: usize = 4096;
/// How deep below an ignored folder repositories of their own are looked for, and how many
/// folder entries that search reads at most (for each ignored folder).
const REPOS_DEPTH: usize = 2;
const REPOS_ENTRIES: usize = 64;

/// The paths of one worktree a shell command may have made.
#[derive(Debug, Default)]
pub(crate) struct ShellMade {
    /// Modified, staged and untracked paths (and those only rules not committed hide).
    pub(crate) dirty: BTreeSet<String>,
    /// Files committed rules hide, changed since the time asked.
    pub(crate) ignored: Vec<String>,
    /// Repositories of their own at or a little below ignored folders (one at an ignored
    /// folder is not entered here: the scan goes into them as nested repositories), each
    /// ending in `/`.
    pub(crate) ignored_repos: Vec<String>,
}

/// What the worktree at `root` holds that a shell command may have made since `since_ns`
/// (nanoseconds since the epoch; see [`ShellMade`]). Folders committed rules hide are entered
/// only when their own change time is that recent, [`MAX_LISTED`] entries at most; those only
/// other rules hide always are.
pub(crate) fn shell_made(root: &Path, since_ns: i128) -> Result<ShellMade, GitError> {
    // A repository libgit2 cannot open (SHA-256, reftable) or read: git's status, no ignored
    // files.
    let plain = || {
        super::dirty_paths(root).map(|dirty| ShellMade {
            dirty,
            ..ShellMade::default()
        })
    };
    let Ok(repo) = super::envrepo::open(root) else {
        return plain();
    };
    let Ok((files, hidden)) = super::facts::worktree_status_and_ignored(&repo) else {
        return plain();
    };
    let mut out = ShellMade {
        dirty: files.into_iter().map(|f| f.path).collect(),
        ..ShellMade::default()
    };
    let committed = hidden_by_committed(&repo, &out.dirty, &hidden);
    let mut budget = MAX_LISTED;
    let mut fresh = FreshFolders::new(root, since_ns);
    for path in hidden {
        if let Some(dir) = path.strip_suffix('/') {
            // A clone kept out of the project's commits (`vendor/lib`, a few levels down).
            let at = root.join(crate::pathtext::to_path(dir));
            let (repos, _) =
                super::worktrees::worktree_roots_under(&at, REPOS_DEPTH, REPOS_ENTRIES);
            let whole = repos.first().is_some_and(|r| *r == at);
            out.ignored_repos.extend(repos.iter().filter_map(|r| {
                let rel = r.strip_prefix(root).ok()?;
                Some(format!("{}/", crate::pathtext::from_os(rel.as_os_str())))
            }));
            if whole {
                continue;
            }
        }
        let all = !committed.contains(&path);
        let found = below(root, &path, since_ns, all, &mut budget, &mut fresh);
        if all {
            out.dirty.extend(found);
        } else {
            out.ignored.extend(found);
        }
    }
    Ok(out)
}

/// The files at or below the ignored `path` (a folder ends in `/`) changed since `since_ns`;
/// a folder is entered when `all`, or when it changed since then. With `all`, a folder that
/// changed (or sits in one that did) counts with all it holds. Counts what it lists.
fn below(
    root: &Path,
    path: &str,
    since_ns: i128,
    all: bool,
    budget: &mut usize,
    fresh: &mut FreshFolders<'_>,
) -> Vec<String> {
    let changed = |m: &fs::Metadata| changed_ns(m) >= since_ns;
    let mut out = Vec::new();
    let top = path.trim_end_matches('/').to_owned();
    let inside = all && fresh.holds(&top);
    let mut todo = vec![(top, inside)];
    while let Some((rel, inside)) = todo.pop() {
        let full = root.join(crate::pathtext::to_path(&rel));
        let Ok(meta) = fs::symlink_metadata(&full) else {
            continue;
        };
        if !meta.is_dir() {
            if inside || changed(&meta) {
                out.push(rel);
            }
            continue;
        }
        if !(all || changed(&meta)) {
            continue;
        }
        let inside = all && (inside || changed(&meta));
        let Ok(listing) = fs::read_dir(&full) else {
            continue;
        };
        for entry in listing.flatten() {
            if *budget == 0 {
                return out;
            }
            *budget -= 1;
            let name = entry.file_name();
            if name == ".git" {
                continue; // a repository of its own
            }
            todo.push((format!("{rel}/{}", crate::pathtext::from_os(&name)), inside));
        }
    }
    out
}

/// Which folders of a worktree changed since a time, asked of the folders holding a path:
/// a folder moved in whole (`mv`, or `cp -a`, `tar x`, `rsync -a`, which give its files old
/// times) has a recent change time of its own, its files do not. The worktree's own folder is
/// not asked: it changes with every file made at its top.
pub(crate) struct FreshFolders<'a> {
    root: &'a Path,
    since_ns: i128,
    known: HashMap<String, bool>,
}

impl<'a> FreshFolders<'a> {
    /// For the worktree at `root`, changes since `since_ns` (nanoseconds since the epoch).
    pub(crate) fn new(root: &'a Path, since_ns: i128) -> FreshFolders<'a> {
        FreshFolders {
            root,
            since_ns,
            known: HashMap::new(),
        }
    }

    /// Whether a folder holding `rel` (relative to the root), below the root, changed since
    /// the time asked. One `lstat` per folder, each asked once.
    pub(crate) fn holds(&mut self, rel: &str) -> bool {
        let Some((dir, _)) = rel.rsplit_once('/') else {
            return false;
        };
        if let Some(&known) = self.known.get(dir) {
            return known;
        }
        let own = fs::symlink_metadata(self.root.join(crate::pathtext::to_path(dir)))
            .is_ok_and(|m| m.is_dir() && changed_ns(&m) >= self.since_ns);
        let fresh = own || self.holds(dir);
        self.known.insert(dir.to_owned(), fresh);
        fresh
    }
}

/// When `meta`'s file last changed (content or status), nanoseconds since the epoch.
#[cfg(unix)]
fn changed_ns(meta: &fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    ns(meta.mtime(), meta.mtime_nsec()).max(ns(meta.ctime(), meta.ctime_nsec()))
}

/// When `meta`'s file last changed, nanoseconds since the epoch.
#[cfg(not(unix))]
fn changed_ns(meta: &fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

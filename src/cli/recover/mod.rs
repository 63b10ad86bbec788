//! `git dibs recover`: bring back what agents made, from the snapshot refs. Alone it lists what
//! can be brought back (by session, worktree and file, with when, and whether the working copy
//! still matches) and what was left out; `recover PATH` restores a file or a folder's files;
//! `recover --worktree PATH` restores a removed worktree. Exits 0 when done, 1 when there is
//! nothing to recover (or it refused), 2 on error.

mod file;
mod listing;
mod moved;
mod nested;
mod restore;
mod versions;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::git::retention;
use crate::git::snapshot::{Origin, Snapshots, WorktreeMeta};
use crate::policy::guard::AtRisk;
use crate::protocol::{Event, Response};
use crate::store::Store;

/// A session's newest snapshot, as the audit log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SnapshotId {
    session: String,
    commit: String,
}

/// The newest snapshot of each session with files in (or below) one of `roots`.
fn snapshots_in(store: &Store, roots: &[&Path]) -> Vec<SnapshotId> {
    store
        .snapshot_heads_in(roots)
        .into_iter()
        .map(|(session, commit)| SnapshotId { session, commit })
        .collect()
}

/// For an audit line: the snapshots of the worktrees `at_risk`, else of the event's worktree.
pub(crate) fn snapshots_at(store: &Store, event: &Event, at_risk: &[AtRisk]) -> Vec<SnapshotId> {
    let here = crate::git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree.root);
    let roots: Vec<&Path> = if at_risk.is_empty() {
        here.iter().map(PathBuf::as_path).collect()
    } else {
        at_risk.iter().map(|w| w.root.as_path()).collect()
    };
    snapshots_in(store, &roots)
}

/// Add to a refusal or question one line per worktree at risk that snapshots hold, saying how
/// to bring it back if it is removed anyway.
pub(crate) fn point_at(common_dir: &Path, at_risk: &[AtRisk], response: &mut Response) {
    let Ok(store) = Store::open(common_dir) else {
        return;
    };
    for w in at_risk {
        if snapshots_in(&store, &[w.root.as_path()]).is_empty() {
            continue;
        }
        let line = format!(
            "\nrecoverable: git dibs recover --worktree {}",
            crate::shell::quote_word(&w.root.to_string_lossy())
        );
        match response {
            Response::Deny { reason, person } if !reason.contains(&line) => {
                reason.push_str(&line);
                if let Some(p) = person {
                    p.push_str(&line);
                }
            }
            Response::Ask { reason } if !reason.contains(&line) => reason.push_str(&line),
            _ => {}
        }
    }
}

/// Options of `recover`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A file (or folder) to bring back; without it, list what can be brought back.
    pub(crate) path: Option<PathBuf>,
    /// Restore a removed worktree at this path: its branch (or retained commit) checked out
    /// again, and its files from the snapshots.
    #[arg(long, value_name = "PATH", conflicts_with = "path")]
    pub(crate) worktree: Option<PathBuf>,
    /// Only this session's snapshots (an id or its first characters).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// The version as it was at this time (RFC 3339, or a duration ago such as `20m`).
    #[arg(long, value_name = "TIME")]
    pub(crate) at: Option<String>,
    /// Overwrite a file whose current content differs (otherwise it is written beside it).
    #[arg(long)]
    pub(crate) force: bool,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// One stored version of a file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Version {
    session: String,
    host: String,
    commit: String,
    at: u64,
    /// Nanoseconds past `at` (orders versions of one second; not shown).
    #[serde(skip)]
    nanos: u32,
    blob: String,
    link: bool,
    executable: bool,
    /// Where its content came from (`None`: a snapshot older than this record, the agent's).
    origin: Option<Origin>,
    /// The worktree's HEAD when the snapshot was taken, when recorded.
    #[serde(skip)]
    head: Option<String>,
    /// The worktree's root when the snapshot was taken, when it has moved since.
    #[serde(skip_serializing_if = "Option::is_none")]
    taken_at: Option<PathBuf>,
}

/// A file left out of a snapshot.
#[derive(Debug, Clone, Serialize)]
struct Skip {
    session: String,
    worktree: PathBuf,
    path: String,
    reason: String,
    at: u64,
    /// Nanoseconds past `at` (orders it among versions of one second; not shown).
    #[serde(skip)]
    nanos: u32,
}

/// Everything the snapshot refs hold.
pub(crate) struct Catalog {
    snapshots: Snapshots,
    /// The clone's common git dir.
    common_dir: PathBuf,
    /// Versions of each file (worktree root, path), newest first.
    files: BTreeMap<(PathBuf, String), Vec<Version>>,
    /// Each worktree as last recorded, with when (by where it is now).
    worktrees: BTreeMap<PathBuf, (WorktreeMeta, u64)>,
    /// The roots snapshots recorded of worktrees that moved since, by where they are now.
    moved: BTreeMap<PathBuf, Vec<PathBuf>>,
    skipped: Vec<Skip>,
    /// (session, host, ref, snapshots, newest) per ref.
    sessions: Vec<(String, String, String, usize, u64)>,
    /// The worktree roots that are nested repositories' (as the store remembers them).
    nested: Vec<PathBuf>,
}

impl Catalog {
    /// Read every snapshot ref of the clone whose common dir is `common_dir`.
    pub(crate) fn load(common_dir: &Path) -> Result<Catalog> {
        let snapshots = Snapshots::open(common_dir).context("cannot read the snapshots")?;
        let mut files: BTreeMap<(PathBuf, String), Vec<Version>> = BTreeMap::new();
        let mut worktrees: BTreeMap<PathBuf, (WorktreeMeta, u64)> = BTreeMap::new();
        let mut skipped = Vec::new();
        let mut sessions = Vec::new();
        let mut places = moved::Places::new(common_dir);
        let mut moved: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        for (name, tip) in snapshots.refs()? {
            let history = snapshots.history(&tip);
            let Some(newest) = history.first() else {
                continue;
            };
            // Each worktree id's root now, and the root recorded when that is another.
            let roots: BTreeMap<String, (PathBuf, Option<PathBuf>)> = newest
                .meta
                .worktrees
                .iter()
                .map(|(id, w)| {
                    let now = places.root_of(w);
                    let was = (now != w.root).then(|| w.root.clone());
                    (id.clone(), (now, was))
                })
                .collect();
            sessions.push((
                newest.meta.session.clone(),
                newest.meta.host.clone(),
                name,
                history.len(),
                newest.meta.at,
            ));
            for s in &history {
                for w in s.meta.worktrees.values() {
                    let now = places.root_of(w);
                    if now != w.root {
                        let formers = moved.entry(now.clone()).or_default();
                        if !formers.contains(&w.root) {
                            formers.push(w.root.clone());
                        }
                    }
                    let e = worktrees.entry(now).or_insert((w.clone(), 0));
                    if s.meta.at >= e.1 {
                        *e = (w.clone(), s.meta.at);
                    }
                }
                // A commit whose tree a `git gc --prune=now` took mid-write is passed over:
                // the older ones still hold what they held.
                let Ok(held) = snapshots.files(&s.id) else {
                    continue;
                };
                for c in &s.meta.changed {
                    // A description is local data, but nothing it names may leave its worktree.
                    if !is_plain_relative(&c.path) {
                        continue;
                    }
                    let (Some((root, was)), Some(h)) = (
                        roots.get(&c.worktree),
                        held.iter()
                            .find(|h| h.worktree == c.worktree && h.path == c.path),
                    ) else {
                        continue;
                    };
                    files
                        .entry((root.clone(), c.path.clone()))
                        .or_default()
                        .push(Version {
                            session: s.meta.session.clone(),
                            host: s.meta.host.clone(),
                            commit: s.id.clone(),
                            at: s.meta.at,
                            nanos: s.meta.nanos,
                            blob: h.blob.clone(),
                            link: h.link,
                            executable: h.executable,
                            origin: s.meta.origin,
                            head: s
                                .meta
                                .worktrees
                                .get(&c.worktree)
                                .and_then(|w| w.head.clone()),
                            taken_at: was.clone(),
                        });
                }
                for k in &s.meta.skipped {
                    let worktree = match s.meta.worktrees.values().find(|w| w.root == k.worktree) {
                        Some(w) => places.root_of(w),
                        None => k.worktree.clone(),
                    };
                    skipped.push(Skip {
                        session: s.meta.session.clone(),
                        worktree,
                        path: k.path.clone(),
                        reason: k.reason.clone(),
                        at: s.meta.at,
                        nanos: s.meta.nanos,
                    });
                }
            }
        }
        for versions in files.values_mut() {
            versions.sort_by_key(|v| std::cmp::Reverse((v.at, v.nanos)));
        }
        let store = Store::in_use(common_dir);
        let nested = worktrees
            .keys()
            .filter(|root| {
                store.as_ref().is_some_and(|s| {
                    let id = crate::git::snapshot::worktree_id(root);
                    s.nested_root(&id).as_deref() == Some(root.as_path())
                })
            })
            .cloned()
            .collect();
        Ok(Catalog {
            snapshots,
            common_dir: common_dir.to_path_buf(),
            files,
            worktrees,
            moved,
            skipped,
            sessions,
            nested,
        })
    }
}

/// The file `rel` (a path as [`crate::pathtext`] holds it) of the worktree at `root`.
pub(super) fn file_in(root: &Path, rel: &str) -> PathBuf {
    root.join(crate::pathtext::to_path(rel))
}

/// A path on disk as shown (see [`shown`]): a name that is not UTF-8 with its bytes quoted.
pub(super) fn shown_path(path: &Path) -> String {
    shown(&crate::pathtext::from_os(path.as_os_str()))
}

/// Whether `path` is relative, stays below where it is joined (no `..`, no root) and stays
/// out of any git directory (no `.git` on the way, in any case: a forged snapshot naming
/// `.git/hooks/pre-commit` must not get a hook written).
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path).components().all(|c| match c {
            std::path::Component::Normal(n) => !n.eq_ignore_ascii_case(".git"),
            _ => false,
        })
}

/// Whether `id` is session `filter` (the whole id, or its start).
/// Whether the regular file at `full` has the same bytes as `v` could have but another
/// executable bit (a link, or a file that is not there, never does).
fn mode_differs(full: &Path, v: &Version) -> bool {
    use std::os::unix::fs::PermissionsExt;
    !v.link
        && std::fs::symlink_metadata(full)
            .is_ok_and(|m| m.is_file() && (m.permissions().mode() & 0o111 != 0) != v.executable)
}

fn session_matches(id: &str, filter: Option<&str>) -> bool {
    filter.is_none_or(|f| !f.is_empty() && id.starts_with(f))
}

/// `--at`: an RFC 3339 time (`Z` or an offset such as `+01:00`; a time without either is
/// UTC), or a duration before now.
fn parse_at(text: &str) -> Result<u64> {
    if let Some(t) = crate::git::parse_time(text) {
        return Ok(t);
    }
    if let Some(d) = crate::git::parse_duration(text) {
        return Ok(crate::store::now_secs().saturating_sub(d.as_secs()));
    }
    bail!("cannot read `--at {text}`: give a time (2026-12-01T09:30:00Z) or a duration ago (20m)")
}

/// The session `--session` names among those with snapshots (`known`): the whole id, or a
/// prefix of four or more characters that only one of them starts with. Otherwise an error
/// that says which sessions there are.
fn one_session<'a>(filter: &str, known: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let known: std::collections::BTreeSet<&str> = known.into_iter().collect();
    if known.contains(filter) {
        return Ok(());
    }
    let listed = || {
        if known.is_empty() {
            "no session has snapshots here".to_owned()
        } else {
            let shown: Vec<String> = known.iter().take(8).map(|k| shown(k)).collect();
            format!("sessions with snapshots here: {}", shown.join(", "))
        }
    };
    if filter.chars().count() < 4 {
        bail!(
            "`--session {}` is too short: give a session id or its first four or more characters ({})",
            shown(filter),
            listed()
        );
    }
    let matching: Vec<&&str> = known.iter().filter(|k| k.starts_with(filter)).collect();
    match matching.len() {
        1 => Ok(()),
        0 => bail!(
            "no session starting with `{}` has snapshots here ({})",
            shown(filter),
            listed()
        ),
        _ => bail!(
            "`--session {}` names {} sessions; give more of the id ({})",
            shown(filter),
            matching.len(),
            listed()
        ),
    }
}

/// A time for people.
pub(crate) fn when(at: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(at)).to_string()
}

/// Run `recover`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    // Run outside any repository, a PATH inside one names it (as `git -C` would).
    let wt = match super::current_worktree() {
        Ok(wt) => wt,
        Err(err) => args
            .path
            .as_deref()
            .or(args.worktree.as_deref())
            .and_then(|p| crate::git::locate(&cwd, p))
            .map(|l| l.worktree)
            .ok_or(err)?,
    };
    // Snapshot refs deleted or damaged from outside are put back first, so that what they
    // held is listed (`doctor` does the same, and the next hook call would).
    if let Some(store) = Store::in_use(&wt.common_dir) {
        crate::cli::hook::chain::reattach_unexpired(&store, &wt, crate::store::now_secs());
    }
    let catalog = Catalog::load(&wt.common_dir)?;
    if let Some(filter) = &args.session {
        one_session(filter, catalog.sessions.iter().map(|s| s.0.as_str()))?;
    }
    let at = args.at.as_deref().map(parse_at).transpose()?;
    if let Some(target) = &args.worktree {
        let full = crate::git::normalize(&cwd, target);
        let target = if catalog.worktrees.contains_key(&full) {
            full
        } else {
            catalog.now_at(full)
        };
        return restore::worktree(&catalog, &wt, &cwd, &target, &args, at);
    }
    if let Some(path) = &args.path {
        // A file replaced by a link is named by its path, not by where the link leads.
        let path = &catalog.now_at(crate::git::normalize_no_follow(&cwd, path));
        // A nested repository that is gone, whose history is kept here as a bundle, is made
        // again first; its files then come back into it.
        let rebuilt = nested::rebuild(&wt, &crate::git::normalize_no_follow(&cwd, path));
        // A file of another repository (a submodule's, a nested clone's) comes from that
        // repository's snapshots, or from this one's when it keeps none of it (its `.git` was
        // deleted, or its snapshot ref).
        if let Some(other) = crate::git::locate(&cwd, path)
            .map(|l| l.worktree)
            .filter(|w| w.common_dir != wt.common_dir)
        {
            let theirs = Catalog::load(&other.common_dir)?;
            if theirs.has_under(&crate::git::normalize_no_follow(&cwd, path)) {
                return restore::files(&theirs, &cwd, path, &args, at, &rebuilt);
            }
        }
        return restore::files(&catalog, &cwd, path, &args, at, &rebuilt);
    }
    let (commits, stashes, nested) = if args.session.is_some() {
        (Vec::new(), Vec::new(), nested::Kept::default())
    } else {
        (
            retention::unheld(&wt.root).unwrap_or_default(),
            crate::git::stashes::dropped(&wt.root).unwrap_or_default(),
            nested::Kept::load(&wt),
        )
    };
    listing::list(&catalog, &args, (commits, stashes), nested)
}

impl Catalog {
    /// Where the nested repository whose worktree was at `root` belongs: the worktree of this
    /// clone it lies in, when the store remembers `root` as a nested repository's (a lane
    /// deleted inside the main worktree is none) and it lies below one by plain names.
    pub(super) fn nested_home(&self, root: &Path) -> Option<PathBuf> {
        if !self.nested.iter().any(|n| n == root) {
            return None;
        }
        crate::git::nested::home_of(&self.common_dir, root)
    }

    /// Where `full` (a path at or below a root that snapshots recorded of a worktree that moved
    /// since) is now: the same path below where that worktree is; `full` itself when it is in
    /// no such root, or in a worktree whose snapshots are listed, or in a worktree of this
    /// clone there now.
    /// Said on stderr when it moves.
    fn now_at(&self, full: PathBuf) -> PathBuf {
        if self.worktrees.keys().any(|r| full.starts_with(r)) {
            return full;
        }
        let best = self
            .moved
            .iter()
            .flat_map(|(now, formers)| formers.iter().map(move |f| (now, f)))
            .filter(|(_, f)| {
                full.starts_with(f)
                    && crate::git::worktree_at(f).is_none_or(|w| w.common_dir != self.common_dir)
            })
            .max_by_key(|(_, f)| f.as_os_str().len());
        let Some((now, former)) = best else {
            return full;
        };
        let rest = full.strip_prefix(former).unwrap_or(Path::new(""));
        let there = if rest.as_os_str().is_empty() {
            now.clone()
        } else {
            now.join(rest)
        };
        eprintln!(
            "git-dibs: {} moved to {}: brought back there",
            shown_path(former),
            shown_path(now)
        );
        there
    }

    /// Whether any file the snapshots hold is at `full` or below it.
    fn has_under(&self, full: &Path) -> bool {
        self.files
            .keys()
            .any(|(root, rel)| file_in(root, rel).starts_with(full))
    }
}

/// A name or path as shown to a person or model: control, escape and hidden characters
/// dropped, so a file name cannot forge lines or drive a terminal.
pub(super) fn shown(text: &str) -> String {
    crate::text::clean(text, crate::text::MAX_SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_restored() {
        for ok in ["a", "src/lib.rs", "a/b/c.txt", ".env"] {
            assert!(is_plain_relative(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "./a",
            "a/./b/..",
            ".git/hooks/pre-commit",
            "sub/.git/config",
            ".GIT/hooks/post-checkout",
        ] {
            assert!(!is_plain_relative(bad), "{bad}");
        }
    }

    #[test]
    fn at_reads_times_and_durations_ago() {
        assert_eq!(parse_at("2026-12-01T09:30:00Z").unwrap(), 1_796_117_400);
        let ago = parse_at("20m").unwrap();
        assert!(crate::store::now_secs().abs_diff(ago + 1200) <= 2);
        assert!(parse_at("yesterday-ish").is_err());
    }
}

//! Restoring from snapshots: files (never over a different current content without `--force`:
//! the snapshot is written beside it and the message says where), and removed worktrees (their
//! branch, or the commit a retention ref or the snapshot kept, checked out again with `git
//! worktree add`, then their files from the snapshots).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::nested::Rebuilt;
use super::{Args, Catalog, Version, when};
use crate::git::lanes::{LaneRepo, git, short_sha};
use crate::git::snapshot::{self, Content, NewSnapshot, Origin, Put, WorktreeMeta};
use crate::git::{self, Worktree, retention};
use crate::platform::files;
use crate::store::short_id;

/// What was done with one file.
#[derive(Debug, Serialize)]
struct Restored {
    /// The file (a name that is not UTF-8 held as [`crate::pathtext`] says).
    path: String,
    written_to: Option<String>,
    action: &'static str,
    session: String,
    commit: String,
    at: String,
    /// The snapshot that keeps what `--force` overwrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    kept: Option<String>,
}

#[derive(Serialize)]
struct WorktreeOutcome<'a> {
    worktree: &'a Path,
    created: bool,
    branch: Option<String>,
    commit: Option<String>,
    files: &'a [Restored],
    /// Why nothing was brought back (exit 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
}

/// `recover --worktree` brings nothing back (exit 1): `why` on stdout, or in the JSON.
fn nothing(root: &Path, args: &Args, why: String) -> Result<ExitCode> {
    if args.json {
        super::super::print_json(&WorktreeOutcome {
            worktree: root,
            created: false,
            branch: None,
            commit: None,
            files: &[],
            refused: Some(why),
        })?;
    } else {
        println!("{why}");
    }
    Ok(ExitCode::from(1))
}

/// The version of a file to bring back: the newest of `--session`'s, at or before `--at`
/// (see [`Catalog::pick`]).
fn pick<'a>(
    catalog: &Catalog,
    root: &Path,
    rel: &str,
    versions: &'a [Version],
    args: &Args,
    at: Option<u64>,
) -> Option<&'a Version> {
    catalog
        .pick(root, rel, versions, args.session.as_deref(), at)
        .0
}

/// The session id of the copies `recover --force` keeps of what it overwrites.
pub(super) const KEPT_SESSION: &str = "kept";

/// Keep the current content of `rel` in the worktree at `root` on the `kept` snapshot ref
/// before it is overwritten (a regular file or a link; anything else is not overwritten).
fn keep_current(catalog: &Catalog, root: &Path, rel: &str) -> Result<String> {
    let full = super::file_in(root, rel);
    let meta = fs::symlink_metadata(&full)?;
    let content = if meta.file_type().is_symlink() {
        Content::Link(fs::read_link(&full)?.into_os_string().into_encoded_bytes())
    } else {
        use std::os::unix::fs::PermissionsExt;
        Content::File {
            bytes: files::read_regular(&full, files::Links::Refuse, 1 << 40)?,
            executable: meta.permissions().mode() & 0o111 != 0,
        }
    };
    let wt = git::worktree_at(root);
    let new = NewSnapshot {
        session: KEPT_SESSION,
        host: "recover",
        at: crate::store::now_secs(),
        puts: &[Put {
            worktree: root.to_path_buf(),
            path: rel.to_owned(),
            content,
        }],
        skipped: &[],
        worktrees: &[WorktreeMeta {
            root: root.to_path_buf(),
            branch: wt.as_ref().and_then(Worktree::branch),
            head: wt.as_ref().and_then(git::head_commit),
        }],
        origin: Origin::Kept,
    };
    let key = crate::store::Store::snapshot_key(KEPT_SESSION);
    snapshot::write(&catalog.common_dir, &key, &new).with_context(|| {
        format!(
            "cannot keep a copy of {} before overwriting it",
            full.display()
        )
    })
}

/// The first folder between `root` and the file at `target` (below it) that is not a real
/// folder (a symbolic link, a file), when one is.
fn linked_folder(root: &Path, target: &Path) -> Option<PathBuf> {
    let mut at = root.to_path_buf();
    let parent = target.strip_prefix(root).ok()?.parent()?;
    for part in parent.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Some(at),
            Err(_) => return None,
        }
    }
    None
}

/// Whether `current` (the blob a file has now) is kept elsewhere: it is the committed content
/// of `rel` there, or a version in the snapshots.
fn kept_elsewhere(catalog: &Catalog, root: &Path, rel: &str, current: &str) -> bool {
    let key = (root.to_path_buf(), rel.to_owned());
    catalog
        .files
        .get(&key)
        .is_some_and(|vs| vs.iter().any(|v| v.blob == current))
        || catalog.snapshots.committed_blob(root, rel).as_deref() == Some(current)
}

/// Write `v`'s content at `target` (a new file, or over one with `replace`), atomically.
fn write_version(catalog: &Catalog, v: &Version, target: &Path) -> Result<()> {
    let bytes = catalog.snapshots.blob(&v.blob)?;
    let dir = target.parent().context("a file has a parent folder")?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let written = files::replace_atomically(target, |tmp| {
        if v.link {
            use std::os::unix::ffi::OsStrExt;
            return std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(&bytes), tmp);
        }
        fs::write(tmp, &bytes)?;
        if v.executable {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(tmp, fs::Permissions::from_mode(0o755))?;
        }
        Ok(())
    });
    written.with_context(|| format!("cannot write {}", target.display()))
}

/// Bring back `v` at `target`: nothing to do when it matches; written there when nothing is
/// there (or with `force`); else written beside as `<name>.recovered-<short commit>`.
/// What `recover PATH --json` prints for a folder: what came back, and the worktrees that are
/// gone (to be brought back first).
#[derive(Serialize)]
struct Folder<'a> {
    restored: &'a [Restored],
    worktrees_gone: &'a [PathBuf],
    /// Nested repositories made again from their bundles.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repositories: &'a [Rebuilt],
    /// Nested repositories whose bundle could not be brought back, and why.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    repository_problems: &'a [String],
}

fn restore_one(
    catalog: &Catalog,
    v: &Version,
    root: &Path,
    rel: &str,
    force: bool,
) -> Result<Restored> {
    let target = super::file_in(root, rel);
    let target = target.as_path();
    let here = fs::symlink_metadata(target).ok();
    let current = catalog.snapshots.current_blob(target);
    let mut out = Restored {
        path: text_of(target),
        written_to: None,
        action: "matches",
        session: v.session.clone(),
        commit: v.commit.clone(),
        at: when(v.at),
        kept: None,
    };
    // A snapshot is data anyone in the clone can write: only a worktree of this clone, or a
    // nested repository's folder below one (there or gone), is written into (never a folder
    // a forged snapshot names, never a `.git`).
    let own = git::worktree_at(root).is_some_and(|w| w.common_dir == catalog.common_dir);
    let home = catalog.nested_home(root);
    if !own && home.is_none() {
        out.action = "outside";
        out.written_to = Some(text_of(root));
        return Ok(out);
    }
    if let Some(link) = linked_folder(home.as_deref().unwrap_or(root), target) {
        // A folder on the way was replaced by a link: writing would land outside the worktree.
        out.action = "refused";
        out.written_to = Some(text_of(&link));
        return Ok(out);
    }
    if current.as_deref() == Some(v.blob.as_str()) {
        return Ok(out);
    }
    let in_the_way = here.as_ref().is_some_and(|m| m.is_dir());
    // What is there now may be overwritten when nothing of it would be lost: it is the
    // committed content or in the snapshots; with --force it is kept first.
    let known = current
        .as_deref()
        .is_some_and(|c| kept_elsewhere(catalog, root, rel, c));
    let to = if here.is_none() || (!in_the_way && (known || force)) {
        out.action = if here.is_none() {
            "restored"
        } else if known {
            "replaced"
        } else {
            out.kept = Some(keep_current(catalog, root, rel)?);
            "overwritten"
        };
        target.to_path_buf()
    } else {
        out.action = "beside";
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".recovered-{}", short_sha(&v.commit)));
        target.with_file_name(name)
    };
    write_version(catalog, v, &to)?;
    out.written_to = Some(text_of(&to));
    Ok(out)
}

/// A path or id as shown: see [`super::shown`].
fn shown(text: &str) -> String {
    super::shown(text)
}

/// A path on disk as text, held as [`crate::pathtext`] says.
fn text_of(path: &Path) -> String {
    crate::pathtext::from_os(path.as_os_str()).into_owned()
}

fn print_restored(list: &[Restored]) {
    for r in list {
        let who = format!("session {} at {}", shown(short_id(&r.session)), r.at);
        match (r.action, &r.written_to) {
            ("matches", _) => println!("{}: already as snapshotted ({who})", shown(&r.path)),
            ("outside", Some(root)) => println!(
                "{}: not written: {} is not a worktree of this clone (a snapshot is data: it \
                 may name any folder)",
                shown(&r.path),
                shown(root)
            ),
            ("refused", Some(link)) => println!(
                "{}: not written: {} is not a folder (a link would take the file out of the \
                 worktree); move it away and run recover again",
                shown(&r.path),
                shown(link)
            ),
            ("beside", Some(to)) => println!(
                "{} differs now; the snapshot ({who}) is in {} (--force to overwrite)",
                shown(&r.path),
                shown(to)
            ),
            ("replaced", _) => println!(
                "{}: restored from {who} (what it replaced is committed or in the snapshots)",
                shown(&r.path)
            ),
            ("overwritten", _) => println!(
                "{}: overwritten from {who}; what was there is kept (snapshot {}): git dibs \
                 recover {} --session {KEPT_SESSION}",
                shown(&r.path),
                r.kept.as_deref().map_or("?", short_sha),
                shown(&r.path)
            ),
            (action, _) => println!("{}: {action} from {who}", shown(&r.path)),
        }
    }
}

/// `recover PATH`: every snapshotted file at `path` or below it; `rebuilt` are the nested
/// repositories made again there just before (and those that could not be), where a snapshot
/// newer than the commit checked out is the uncommitted work and goes in place.
pub(super) fn files(
    catalog: &Catalog,
    cwd: &Path,
    path: &Path,
    args: &Args,
    at: Option<u64>,
    rebuilt: &(Vec<Rebuilt>, Vec<String>),
) -> Result<ExitCode> {
    let (repositories, problems) = rebuilt;
    let full = git::normalize(cwd, path);
    let mut done = Vec::new();
    let mut gone = Vec::new();
    for ((root, rel), versions) in &catalog.files {
        let target = super::file_in(root, rel);
        if !target.starts_with(&full) {
            continue;
        }
        let Some(v) = pick(catalog, root, rel, versions, args, at) else {
            continue;
        };
        // A nested repository's folder that is gone comes back as folders and files.
        if git::worktree_at(root).is_none() && catalog.nested_home(root).is_none() {
            if !gone.contains(root) {
                gone.push(root.clone());
            }
            continue;
        }
        let fresh = repositories
            .iter()
            .any(|r| r.worktree == *root && i64::try_from(v.at).unwrap_or(0) >= r.head_time);
        done.push(restore_one(catalog, v, root, rel, args.force || fresh)?);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Folder {
                restored: &done,
                worktrees_gone: &gone,
                repositories,
                repository_problems: problems,
            })?
        );
    } else {
        super::nested::print_rebuilt(repositories, problems);
        print_restored(&done);
        for root in &gone {
            println!(
                "the worktree {} is gone; bring it back first: git dibs recover --worktree {}",
                root.display(),
                crate::shell::quote_word(&root.to_string_lossy())
            );
        }
        if done.is_empty() && gone.is_empty() && repositories.is_empty() && problems.is_empty() {
            println!("nothing to recover at {}", super::shown_path(&full));
        }
    }
    let any = !repositories.is_empty() || done.iter().any(|r| r.action != "refused");
    Ok(ExitCode::from(if any { 0 } else { 1 }))
}

/// What to check out for a removed worktree: (branch to create or check out, commit, whether
/// the branch still exists).
fn checkout_of(
    repo_dir: &Path,
    branch: Option<&str>,
    head: Option<&str>,
) -> Option<(Option<String>, String, bool)> {
    let repo = LaneRepo::open(repo_dir).ok()?;
    if let Some(b) = branch {
        if let Some(tip) = repo.branch_tip(b) {
            return Some((Some(b.to_owned()), tip, true));
        }
        let kept = retention::retained_tip(repo_dir, b)
            .or_else(|| head.and_then(|h| repo.commit_of(h)))?;
        return Some((Some(b.to_owned()), kept, false));
    }
    let commit = head.and_then(|h| repo.commit_of(h))?;
    Some((None, commit, false))
}

/// `recover --worktree PATH`.
pub(super) fn worktree(
    catalog: &Catalog,
    wt: &Worktree,
    cwd: &Path,
    target: &Path,
    args: &Args,
    at: Option<u64>,
) -> Result<ExitCode> {
    let root = git::normalize(cwd, target);
    let Some((meta, _)) = catalog.worktrees.get(&root) else {
        let why = format!("no snapshot knows a worktree at {}", root.display());
        return nothing(&root, args, why);
    };
    if let Some(home) = catalog.nested_home(&root) {
        // Not a worktree of this clone: a repository of its own inside one. Its git directory
        // is not rebuilt; its files come back by path, its commits from refs/dibs/nested/.
        let word = crate::shell::quote_word(&root.to_string_lossy());
        let why = format!(
            "{} is a repository of its own inside {}: git dibs recover {word} brings its files back, and the repository too when its history is kept here as a bundle (else clone it again first to have its history; git dibs recover lists its kept commits)",
            root.display(),
            home.display()
        );
        return nothing(&root, args, why);
    }
    let mut created = false;
    let mut checked_out = None;
    if git::worktree_at(&root).is_none() {
        if fs::read_dir(&root).is_ok_and(|mut d| d.next().is_some()) {
            let why = format!(
                "{} exists and is not a worktree; move it away first",
                root.display()
            );
            return nothing(&root, args, why);
        }
        let Some((branch, commit, exists)) =
            checkout_of(&wt.root, meta.branch.as_deref(), meta.head.as_deref())
        else {
            bail!(
                "no commit of {} is left to check out (branch {}, HEAD {})",
                root.display(),
                meta.branch.as_deref().unwrap_or("none"),
                meta.head.as_deref().unwrap_or("unknown")
            );
        };
        let root_text = root.to_string_lossy().into_owned();
        if let Some(b) = &branch
            && let Some(other) = git::checked_out_elsewhere(&wt.common_dir, &root, b)
        {
            bail!(
                "branch {b} is checked out at {}: bring the files back there (git dibs recover \
                 PATH), or switch that worktree to another branch and run this again",
                other.display()
            );
        }
        let mut add: Vec<&str> = vec!["worktree", "add"];
        // Its folder was deleted but git still registers it (locked, perhaps by git-dibs while
        // a session had work there): the new checkout takes the registration over.
        if git::registration_gone(&wt.common_dir, &root) {
            add.extend(["-f", "-f"]);
        }
        match (&branch, exists) {
            (Some(b), true) => add.extend([root_text.as_str(), b.as_str()]),
            (Some(b), false) => add.extend(["-b", b.as_str(), root_text.as_str(), &commit]),
            (None, _) => add.extend(["--detach", root_text.as_str(), &commit]),
        }
        git(&wt.root, &add)?;
        created = true;
        checked_out = Some((branch, commit));
    }
    let head_time = LaneRepo::open(&root)
        .ok()
        .and_then(|r| r.commit_of("HEAD").and_then(|c| r.commit_time(&c)))
        .unwrap_or(0);
    let mut done = Vec::new();
    for ((r, rel), versions) in &catalog.files {
        if *r != root {
            continue;
        }
        let Some(v) = pick(catalog, r, rel, versions, args, at) else {
            continue;
        };
        // In a fresh checkout a snapshot newer than HEAD is the uncommitted work: it goes in
        // place. An older one may predate a commit that changed the file: it goes beside.
        let fresh = created && i64::try_from(v.at).unwrap_or(0) >= head_time;
        done.push(restore_one(catalog, v, &root, rel, args.force || fresh)?);
    }
    let (branch, commit) = checked_out.unzip();
    if args.json {
        let outcome = WorktreeOutcome {
            worktree: &root,
            created,
            branch: branch.flatten(),
            commit,
            files: &done,
            refused: None,
        };
        println!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        if created {
            println!(
                "{} is back: {} at {}",
                root.display(),
                branch
                    .flatten()
                    .map_or("detached HEAD".to_owned(), |b| format!("branch {b}")),
                commit.as_deref().map_or("?", short_sha)
            );
        }
        print_restored(&done);
    }
    Ok(ExitCode::from(if created || !done.is_empty() {
        0
    } else {
        1
    }))
}

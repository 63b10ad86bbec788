//! Bringing one file back from a snapshot: never over a different current content without
//! `--force` (the snapshot is written beside it and the message says where), never through a
//! folder that became a link, never outside a worktree of this clone; a file that cannot be
//! written is reported and the others still come back.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::{Catalog, Version, when};
use crate::git::lanes::short_sha;
use crate::git::snapshot::{self, Content, NewSnapshot, Origin, Put, WorktreeMeta};
use crate::git::{self, Worktree};
use crate::platform::files;
use crate::store::short_id;

/// What was done with one file.
#[derive(Debug, Serialize)]
pub(super) struct Restored {
    /// The file (a name that is not UTF-8 held as [`crate::pathtext`] says).
    pub(super) path: String,
    pub(super) written_to: Option<String>,
    pub(super) action: &'static str,
    pub(super) session: String,
    pub(super) commit: String,
    pub(super) at: String,
    /// The snapshot that keeps what `--force` overwrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) kept: Option<String>,
    /// Why the file could not be written (action `failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<String>,
    /// A later version of the file that no snapshot holds: when, and why it was left out (so
    /// what came back is older than what was there last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) newer_not_kept: Option<NotKept>,
}

/// A version of a file newer than the one brought back, left out of its snapshot.
#[derive(Debug, Serialize)]
pub(super) struct NotKept {
    /// When it was left out.
    pub(super) at: String,
    /// Why.
    pub(super) reason: String,
}

/// The newest time `rel` in the worktree at `root` was left out of a snapshot after `v` was
/// taken, with the reason.
fn newer_not_kept(catalog: &Catalog, v: &Version, root: &Path, rel: &str) -> Option<NotKept> {
    catalog
        .skipped
        .iter()
        .filter(|k| k.path == rel && k.worktree == root && (k.at, k.nanos) > (v.at, v.nanos))
        .max_by_key(|k| (k.at, k.nanos))
        .map(|k| NotKept {
            at: when(k.at),
            reason: k.reason.clone(),
        })
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
            identity: wt
                .as_ref()
                .and_then(|w| git::identity::of(w, &catalog.common_dir, true)),
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
        || catalog.snapshots.committed_blob(root, rel, None).as_deref() == Some(current)
}

/// Give the regular file at `target` the executable bit of a snapshot (0o755 or 0o644 of the
/// owner's, group's and others' permission bits, as git keeps them).
fn set_executable(target: &Path, executable: bool) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::symlink_metadata(target)?.permissions().mode();
    let mode = if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    };
    fs::set_permissions(target, fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the mode of {}", target.display()))
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

/// [`restore_one`], with a failure (a folder that cannot be made, a full disk) kept as the
/// outcome of that file, so that the files after it are still brought back.
pub(super) fn restore_or_fail(
    catalog: &Catalog,
    v: &Version,
    root: &Path,
    rel: &str,
    force: bool,
) -> Restored {
    let mut out = restore_one(catalog, v, root, rel, force).unwrap_or_else(|e| Restored {
        path: text_of(&super::file_in(root, rel)),
        written_to: None,
        action: "failed",
        session: v.session.clone(),
        commit: v.commit.clone(),
        at: when(v.at),
        kept: None,
        error: Some(format!("{e:#}")),
        newer_not_kept: None,
    });
    out.newer_not_kept = newer_not_kept(catalog, v, root, rel);
    out
}

/// Bring back `v` at `target`: nothing to do when it matches; written there when nothing is
/// there (or with `force`); else written beside as `<name>.recovered-<short commit>` (the
/// name shortened to fit the system's limit).
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
    // Hashed only when it may be the version or content kept elsewhere (a huge file put in
    // its place is not read: it is neither).
    let committed = catalog.snapshots.committed_blob(root, rel, None);
    let kept = catalog.files.get(&(root.to_path_buf(), rel.to_owned()));
    let current = catalog.current_blob_among(
        target,
        std::iter::once(v.blob.as_str())
            .chain(committed.as_deref())
            .chain(kept.into_iter().flatten().map(|k| k.blob.as_str())),
    );
    let mut out = Restored {
        path: text_of(target),
        written_to: None,
        action: "matches",
        session: v.session.clone(),
        commit: v.commit.clone(),
        at: when(v.at),
        kept: None,
        error: None,
        newer_not_kept: None,
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
        // The same bytes: only the executable bit may be different (a `chmod +x` reverted).
        if super::mode_differs(target, v) {
            set_executable(target, v.executable)?;
            out.action = "mode";
            out.written_to = Some(text_of(target));
        }
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
        target.with_file_name(beside_name(target, &v.commit))
    };
    write_version(catalog, v, &to)?;
    out.written_to = Some(text_of(&to));
    Ok(out)
}

/// The name a snapshot is written under beside a file that differs: `<name>.recovered-<short
/// commit>`, with the name cut so that the whole is within 255 bytes (the usual `NAME_MAX`).
fn beside_name(target: &Path, commit: &str) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    let suffix = format!(".recovered-{}", short_sha(commit));
    let name = target.file_name().unwrap_or_default().as_bytes();
    let keep = name.len().min(255usize.saturating_sub(suffix.len()));
    let mut out = name[..keep].to_vec();
    out.extend_from_slice(suffix.as_bytes());
    std::ffi::OsStr::from_bytes(&out).to_os_string()
}

/// A path or id as shown: see [`super::shown`].
fn shown(text: &str) -> String {
    super::shown(text)
}

/// A path on disk as text, held as [`crate::pathtext`] says.
pub(super) fn text_of(path: &Path) -> String {
    crate::pathtext::from_os(path.as_os_str()).into_owned()
}

pub(super) fn print_restored(list: &[Restored]) {
    for r in list {
        let who = format!("session {} at {}", shown(short_id(&r.session)), r.at);
        match (r.action, &r.written_to) {
            ("matches", _) => println!("{}: already as snapshotted ({who})", shown(&r.path)),
            ("mode", _) => println!(
                "{}: same content; its executable bit set back as {who} had it",
                shown(&r.path)
            ),
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
            ("failed", _) => println!(
                "{}: not written ({who}): {}; the snapshot is still there, run recover again \
                 once that is fixed",
                shown(&r.path),
                shown(r.error.as_deref().unwrap_or("?"))
            ),
            (action, _) => println!("{}: {action} from {who}", shown(&r.path)),
        }
        if let Some(n) = &r.newer_not_kept {
            println!(
                "  (a newer version of {}, at {}, was not kept: {}; this is the one before it)",
                shown(&r.path),
                n.at,
                shown(&n.reason)
            );
        }
    }
}

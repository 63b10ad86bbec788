//! The everyday snapshot, written as plain files in git's own formats: the blobs, the flat
//! tree and the commit as loose objects, and the session's ref moved by git's lock-file
//! protocol (`<ref>.lock` created exclusively, the old value checked under it, renamed into
//! place). No repository is opened and no config read: a hook's snapshot costs the objects it
//! writes. The previous snapshot's commit and tree are read through an object database on
//! `objects/` alone (loose or packed, alternates too).
//!
//! It applies when the session's ref is a loose file holding a SHA-1 id (a chain exists, in
//! the files backend); otherwise (a first snapshot, refs packed by `git gc`, SHA-256, reftable)
//! [`super::write`] goes through libgit2 or git as before. Like git with
//! `core.logAllRefUpdates=true`, no reflog is kept for `refs/dibs/`.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{NewSnapshot, SnapshotError, describe, message, meta_of_message, tree_path};

/// Mode of a loose object file, as git writes them.
#[cfg(unix)]
const OBJECT_MODE: u32 = 0o444;

/// One entry of a tree object, as stored.
struct Entry {
    mode: Vec<u8>,
    name: Vec<u8>,
    id: [u8; 20],
}

impl Entry {
    fn is_tree(&self) -> bool {
        self.mode == b"40000"
    }
}

/// The entries of tree object `data`; `None` when it does not parse.
fn parse_tree(mut data: &[u8]) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let space = data.iter().position(|b| *b == b' ')?;
        let nul = space + data[space..].iter().position(|b| *b == 0)?;
        let id: [u8; 20] = data.get(nul + 1..nul + 21)?.try_into().ok()?;
        out.push(Entry {
            mode: data[..space].to_vec(),
            name: data[space + 1..nul].to_vec(),
            id,
        });
        data = &data[nul + 21..];
    }
    Some(out)
}

/// Tree object bytes of `entries`, sorted as git sorts them (a tree's name compares as if
/// it ended in `/`).
fn tree_bytes(entries: &mut [Entry]) -> Vec<u8> {
    entries.sort_by(|a, b| {
        let key = |e: &Entry| {
            let mut k = e.name.clone();
            if e.is_tree() {
                k.push(b'/');
            }
            k
        };
        key(a).cmp(&key(b))
    });
    let mut out = Vec::with_capacity(entries.len() * 64);
    for e in entries.iter() {
        out.extend_from_slice(&e.mode);
        out.push(b' ');
        out.extend_from_slice(&e.name);
        out.push(0);
        out.extend_from_slice(&e.id);
    }
    out
}

/// The tree id and message of commit object `data`.
fn parse_commit(data: &[u8]) -> Option<(git2::Oid, &[u8])> {
    let first = data.strip_prefix(b"tree ")?;
    let tree = git2::Oid::from_str(std::str::from_utf8(first.get(..40)?).ok()?).ok()?;
    let body = data.windows(2).position(|w| w == b"\n\n")? + 2;
    Some((tree, &data[body..]))
}

/// The id a loose ref file at `path` holds, when it is a plain file holding a SHA-1 id.
fn read_ref(path: &Path) -> Option<git2::Oid> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 128 {
        return None;
    }
    let text = fs::read_to_string(path).ok()?;
    let hex = text.strip_suffix('\n').unwrap_or(&text);
    if hex.len() != 40 {
        return None;
    }
    git2::Oid::from_str(hex).ok()
}

/// The loose objects of one repository.
struct Objects {
    dir: PathBuf,
    db: git2::Odb<'static>,
    /// Distinguishes this process's temporary files.
    tmp: u32,
}

impl Objects {
    fn open(common_dir: &Path) -> Option<Objects> {
        let dir = common_dir.join("objects");
        if !fs::symlink_metadata(&dir).ok()?.is_dir() {
            return None;
        }
        let db = git2::Odb::new().ok()?;
        db.add_disk_alternate(dir.to_str()?).ok()?;
        Some(Objects { dir, db, tmp: 0 })
    }

    /// After the ref moved onto them: write again each of `written` that is gone. A
    /// `git gc --prune=now` that listed what is reachable before the ref moved deletes the new
    /// objects, unreferenced then; once the ref holds them, a later prune keeps them. Checked
    /// until a look finds them all (three looks at most, 20 ms apart).
    #[cfg(unix)]
    fn keep(&mut self, written: &[(git2::Oid, git2::ObjectType, &[u8])]) -> std::io::Result<()> {
        for look in 0..3 {
            let mut gone = false;
            for &(id, kind, data) in written {
                let hex = id.to_string();
                let loose = self.dir.join(&hex[..2]).join(&hex[2..]);
                if fs::symlink_metadata(&loose).is_err() && !self.db.exists(id) {
                    gone = true;
                    self.write(kind, data)?;
                }
            }
            if !gone {
                break;
            }
            if look < 2 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        Ok(())
    }

    fn read(&self, id: git2::Oid, kind: git2::ObjectType) -> Option<Vec<u8>> {
        let object = self.db.read(id).ok()?;
        (object.kind() == kind).then(|| object.data().to_vec())
    }

    /// Write `data` as a loose object of `kind` (unless it is there already) and return its id.
    #[cfg(unix)]
    fn write(&mut self, kind: git2::ObjectType, data: &[u8]) -> std::io::Result<git2::Oid> {
        use std::os::unix::fs::OpenOptionsExt;
        let id = git2::Oid::hash_object(kind, data).map_err(std::io::Error::other)?;
        let hex = id.to_string();
        let folder = self.dir.join(&hex[..2]);
        let file = folder.join(&hex[2..]);
        if fs::symlink_metadata(&file).is_ok() {
            return Ok(id);
        }
        let mut raw = format!("{} {}\0", kind.str(), data.len()).into_bytes();
        raw.extend_from_slice(data);
        let packed = super::zlib::deflate(&raw)
            .ok_or_else(|| std::io::Error::other("zlib could not compress the object"))?;
        // `tmp_obj_` as git names its own: `git prune` removes those a killed writer left.
        self.tmp += 1;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = folder.join(format!(
            "tmp_obj_dibs_{}_{}_{nanos}",
            std::process::id(),
            self.tmp
        ));
        let create = || {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(OBJECT_MODE)
                .open(&tmp)
        };
        // The folder of the id's first two digits is made when the first create says it is
        // missing (most exist).
        let created = match create() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::create_dir(&folder) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
                _ => create(),
            },
            other => other,
        };
        let written = created
            .and_then(|mut f| f.write_all(&packed))
            .and_then(|()| fs::rename(&tmp, &file));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map(|()| id)
    }
}

/// What [`write`] did: made the snapshot, or found it cannot here.
pub(super) enum Outcome {
    /// The new commit.
    Made(String),
    /// This repository or ref is not one written this way (see the module's doc).
    NotHere,
}

/// Write snapshot `new` on the chain whose ref is `name` (under `common_dir`) as plain files.
#[cfg(unix)]
pub(super) fn write(
    common_dir: &Path,
    name: &str,
    new: &NewSnapshot<'_>,
) -> Result<Outcome, SnapshotError> {
    let ref_file = common_dir.join(name);
    if read_ref(&ref_file).is_none() {
        return Ok(Outcome::NotHere);
    }
    let Some(mut objects) = Objects::open(common_dir) else {
        return Ok(Outcome::NotHere);
    };
    let mut blobs = Vec::with_capacity(new.puts.len());
    for p in new.puts {
        let id = objects.write(git2::ObjectType::Blob, p.content.bytes())?;
        blobs.push(Entry {
            mode: p.content.octal_mode().into_bytes(),
            name: tree_path(p).into_bytes(),
            id: id.as_bytes().try_into().expect("a SHA-1 id is 20 bytes"),
        });
    }
    let lock = {
        let mut l = ref_file.clone().into_os_string();
        l.push(".lock");
        PathBuf::from(l)
    };
    for _ in 0..super::WRITE_ATTEMPTS {
        let Some(parent) = read_ref(&ref_file) else {
            return Ok(Outcome::NotHere);
        };
        let Some(commit) = objects.read(parent, git2::ObjectType::Commit) else {
            return Ok(Outcome::NotHere);
        };
        let Some((tree, body)) = parse_commit(&commit) else {
            return Ok(Outcome::NotHere);
        };
        let Some(mut entries) = objects
            .read(tree, git2::ObjectType::Tree)
            .and_then(|t| parse_tree(&t))
        else {
            return Ok(Outcome::NotHere);
        };
        entries.retain(|e| !blobs.iter().any(|b| b.name == e.name));
        entries.extend(blobs.iter().map(|b| Entry {
            mode: b.mode.clone(),
            name: b.name.clone(),
            id: b.id,
        }));
        let tree_data = tree_bytes(&mut entries);
        let tree = objects.write(git2::ObjectType::Tree, &tree_data)?;
        let meta = describe(new, meta_of_message(body));
        let (who, email) = super::IDENTITY;
        let at = new.at;
        let text = format!(
            "tree {tree}\nparent {parent}\nauthor {who} <{email}> {at} +0000\n\
             committer {who} <{email}> {at} +0000\n\n{}",
            message(new, &meta)
        );
        let commit = objects.write(git2::ObjectType::Commit, text.as_bytes())?;
        match move_ref(&ref_file, &lock, parent, commit) {
            Ok(true) => {
                let mut written: Vec<(git2::Oid, git2::ObjectType, &[u8])> = new
                    .puts
                    .iter()
                    .zip(&blobs)
                    .filter_map(|(p, b)| {
                        let id = git2::Oid::from_bytes(&b.id).ok()?;
                        Some((id, git2::ObjectType::Blob, p.content.bytes()))
                    })
                    .collect();
                written.push((tree, git2::ObjectType::Tree, &tree_data));
                written.push((commit, git2::ObjectType::Commit, text.as_bytes()));
                objects.keep(&written)?;
                return Ok(Outcome::Made(commit.to_string()));
            }
            Ok(false) => {}
            Err(e) => return Err(SnapshotError::Io(e)),
        }
    }
    Err(SnapshotError::Raced(name.to_owned()))
}

/// Not on this platform: always [`Outcome::NotHere`].
#[cfg(not(unix))]
pub(super) fn write(
    _common_dir: &Path,
    _name: &str,
    _new: &NewSnapshot<'_>,
) -> Result<Outcome, SnapshotError> {
    Ok(Outcome::NotHere)
}

/// Move the loose ref `ref_file` from `old` to `new` under its lock file `lock`, as git does;
/// `false` when it no longer holds `old` or another writer holds the lock (try again).
fn move_ref(ref_file: &Path, lock: &Path, old: git2::Oid, new: git2::Oid) -> std::io::Result<bool> {
    let mut file = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(lock)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // A lock this old has no live holder (a writer killed between lock and rename, a
            // killed `git pack-refs`): left there, it would stop every later snapshot.
            if !super::remove_if_stale(lock) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    let moved = (|| {
        if read_ref(ref_file) != Some(old) {
            return Ok(false);
        }
        file.write_all(format!("{new}\n").as_bytes())?;
        drop(file);
        crate::platform::files::rename_over(lock, ref_file)?;
        Ok(true)
    })();
    if !matches!(moved, Ok(true)) {
        let _ = fs::remove_file(lock);
    }
    moved
}

#[cfg(test)]
mod tests;

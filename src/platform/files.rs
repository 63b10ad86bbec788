//! Opening files that someone else may have planted: never following a symbolic link where the
//! caller says not to, never blocking on a FIFO or a device, never reading more than a bound.
//! The store's files and the worktree files a hook hashes are read through here.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Whether the last component of a path is followed when it is a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// A link is refused ([`not_regular`]).
    Refuse,
    /// A link is followed, and what it names must itself be a regular file.
    Follow,
}

/// The error for a path that is not a plain file (a link where links are refused, a folder, a
/// FIFO, a socket, a device): `InvalidData`, so callers can tell it from "missing".
pub(crate) fn not_regular(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{} is not a regular file", path.display()),
    )
}

/// What kind of file `path` is when it is not a regular file (after following links; a stat,
/// which never blocks on a FIFO), in words for a message: `a FIFO (named pipe)`, `a folder`,
/// `a socket`, `a device`; `None` for a regular file or nothing at all.
pub(crate) fn special_kind(path: &Path) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let ft = fs::metadata(path).ok()?.file_type();
    Some(if ft.is_file() {
        return None;
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_dir() {
        "a folder"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    })
}

/// Whether `err` says the file is not a plain file or is larger than asked (see [`read_regular`]).
pub(crate) fn is_foreign(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::InvalidData | io::ErrorKind::FileTooLarge
    )
}

fn flags(links: Links) -> i32 {
    let nofollow = match links {
        Links::Refuse => libc::O_NOFOLLOW,
        Links::Follow => 0,
    };
    // Non-blocking, so that opening a FIFO returns at once instead of waiting for a writer.
    nofollow | libc::O_NONBLOCK | libc::O_CLOEXEC
}

/// Map the error of an open with `O_NOFOLLOW` on a link (`ELOOP`) to [`not_regular`].
fn open_error(path: &Path, err: io::Error) -> io::Error {
    if err.raw_os_error() == Some(libc::ELOOP) {
        not_regular(path)
    } else {
        err
    }
}

/// Open `path` for reading; only a regular file is accepted (checked on the open handle).
pub(crate) fn open_regular(path: &Path, links: Links) -> io::Result<(File, Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags(links))
        .open(path)
        .map_err(|e| open_error(path, e))?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(not_regular(path));
    }
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `max` of them: a larger file is an error
/// (`FileTooLarge`), as is anything but a regular file (`InvalidData`, see [`not_regular`]). A
/// FIFO, a socket or a device is never read, so this never blocks and never grows without bound.
pub(crate) fn read_regular(path: &Path, links: Links, max: u64) -> io::Result<Vec<u8>> {
    let (mut file, meta) = open_regular(path, links)?;
    if meta.len() > max {
        return Err(too_large(path, max));
    }
    // Room for the whole file and a byte more, so that a file whose size did not change is read
    // by one call (and one more that finds the end), not by reads of 8, 16, 32... KiB; a file
    // that grew meanwhile is read on, up to one byte past `max`.
    let cap = max.saturating_add(1);
    let mut buf = vec![0u8; usize::try_from(meta.len().saturating_add(1).min(cap)).unwrap_or(0)];
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            if filled as u64 >= cap {
                break;
            }
            let grown = (filled as u64).saturating_mul(2).max(64).min(cap);
            buf.resize(usize::try_from(grown).unwrap_or(usize::MAX), 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    if filled as u64 > max {
        return Err(too_large(path, max));
    }
    Ok(buf)
}

fn too_large(path: &Path, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("{} is larger than {max} bytes", path.display()),
    )
}

/// Open (creating when missing) `path` for writing without following a link: in place (the
/// caller cuts it to length), or appended to when `append`. A link, a FIFO or a device there is refused ([`not_regular`]).
pub(crate) fn open_for_write(path: &Path, append: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).custom_flags(flags(Links::Refuse));
    if append {
        options.append(true);
    } else {
        options.write(true).truncate(false);
    }
    let file = options.open(path).map_err(|e| open_error(path, e))?;
    if !file.metadata()?.file_type().is_file() {
        return Err(not_regular(path));
    }
    Ok(file)
}

/// Create `path`, which must not exist (no link followed), for writing: a temporary file.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// What the name of every temporary file [`replace_atomically`] makes holds (the store's
/// pruning removes killed writers' ones by it).
pub(crate) const TEMP_MARK: &str = ".tmp-";

/// How much of a file's name the name of its temporary file keeps (see [`stage`]).
const TEMP_NAME_PART: usize = 96;

/// Replace `path` atomically, the one way git-dibs does it: `fill` makes the new content at a
/// temporary path in the same folder (`.<name>.tmp-<pid>-<nanos>`, with at most 96 bytes of
/// the name: a file it creates, or a link), which is then put in place of `path`
/// ([`rename_over`]). A reader sees the old whole file or the new whole file, never a torn one;
/// a link at `path` is replaced, never what it points to. The temporary file is removed when
/// anything fails.
pub(crate) fn replace_atomically(
    path: &Path,
    fill: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    stage(path, fill)?.commit()
}

/// The first half of [`replace_atomically`]: the new content made at the temporary path, put in
/// place later by [`Staged::commit`] (the rename), or removed when dropped. A writer prepares
/// it before it takes a lock, so that the lock covers the rename alone.
pub(crate) fn stage(path: &Path, fill: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<Staged> {
    let dir = path.parent().unwrap_or(Path::new("."));
    // At most [`TEMP_NAME_PART`] bytes of the name: a name near the system's limit (255 bytes)
    // would make the temporary one longer than it.
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.len() > TEMP_NAME_PART {
        let mut end = TEMP_NAME_PART;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let staged = Staged {
        tmp: dir.join(format!(".{name}{TEMP_MARK}{}-{nanos}", std::process::id())),
        path: path.to_path_buf(),
        done: false,
    };
    fill(&staged.tmp)?;
    Ok(staged)
}

/// New content made beside its target by [`stage`].
#[derive(Debug)]
pub(crate) struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    done: bool,
}

impl Staged {
    /// Put the new content in place of the target ([`rename_over`]).
    pub(crate) fn commit(mut self) -> io::Result<()> {
        rename_over(&self.tmp, &self.path)?;
        self.done = true;
        Ok(())
    }
}

/// Put the file at `tmp` in place of `path` in one step, as renaming it over `path` does (a
/// reader sees the old file or the new one, never none). Where the system can, the two names
/// are exchanged and the old file, now at `tmp`, removed: ext4 writes a file renamed over
/// another out to the disk at once (its replace-by-rename safeguard, `auto_da_alloc`), which
/// cost a hook 0.2 ms on a quiet disk and 1 to 2 ms on a busy one; an exchange is not written
/// out early.
pub(crate) fn rename_over(tmp: &Path, path: &Path) -> io::Result<()> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) && exchange(tmp, path).is_ok() {
        let _ = fs::remove_file(tmp);
        return Ok(());
    }
    fs::rename(tmp, path)
}

/// Exchange the names `a` and `b` (`renameat2` with `RENAME_EXCHANGE`); fails, changing
/// nothing, where the file system cannot.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are NUL-terminated paths that outlive the call, which only reads them.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Which of the files `names` gives (asked only when `path` is a regular file with more than
/// one name, a hard link) is the same file as `path`.
pub(crate) fn other_name_of(path: &Path, names: impl FnOnce() -> Vec<PathBuf>) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file() && m.nlink() > 1)?;
    names().into_iter().find(|name| {
        std::fs::metadata(name).is_ok_and(|m| m.ino() == meta.ino() && m.dev() == meta.dev())
    })
}

/// The files below `dir`, relative to it (links not followed, `.git` skipped), at most `max`
/// of them; the second value is `true` when more were left unread.
pub(crate) fn files_below(dir: &Path, max: usize) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(rel) = dirs.pop() {
        let Ok(entries) = fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for e in entries.flatten() {
            if out.len() >= max {
                return (out, true);
            }
            let Ok(kind) = e.file_type() else { continue };
            let name = e.file_name();
            if name == ".git" {
                continue;
            }
            if kind.is_dir() {
                dirs.push(rel.join(name));
            } else {
                out.push(rel.join(name));
            }
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_over_replaces_a_file_a_link_or_nothing_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let (tmp, path) = (dir.path().join("t"), dir.path().join("p"));
        let listing = || {
            let mut names: Vec<String> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        // Nothing there yet, then a file there: the new content in place, `tmp` gone.
        for content in ["one", "two"] {
            fs::write(&tmp, content).unwrap();
            rename_over(&tmp, &path).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), content);
            assert_eq!(listing(), ["p"]);
        }
        // A link there is replaced, never what it points to.
        let target = dir.path().join("target");
        fs::write(&target, "kept").unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        fs::write(&tmp, "three").unwrap();
        rename_over(&tmp, &path).unwrap();
        assert!(fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(fs::read_to_string(&path).unwrap(), "three");
        assert_eq!(fs::read_to_string(&target).unwrap(), "kept");
        assert_eq!(listing(), ["p", "target"]);
    }

    #[test]
    fn links_fifos_and_devices_are_refused_and_sizes_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"hello").unwrap();
        assert_eq!(read_regular(&plain, Links::Refuse, 5).unwrap(), b"hello");
        let big = read_regular(&plain, Links::Refuse, 4).unwrap_err();
        assert_eq!(big.kind(), io::ErrorKind::FileTooLarge);

        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&plain, &link).unwrap();
        assert!(is_foreign(
            &read_regular(&link, Links::Refuse, 99).unwrap_err()
        ));
        assert_eq!(read_regular(&link, Links::Follow, 99).unwrap(), b"hello");
        assert!(is_foreign(&open_for_write(&link, true).unwrap_err()));
        assert_eq!(
            std::fs::read(&plain).unwrap(),
            b"hello",
            "not written through"
        );

        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(is_foreign(
            &read_regular(&zero, Links::Follow, 1 << 30).unwrap_err()
        ));

        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        #[allow(unsafe_code)]
        let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        assert!(is_foreign(
            &read_regular(&fifo, Links::Follow, 99).unwrap_err()
        ));
    }
}

//! Files written over by copying into a folder or extracting an archive (red team 8b/01-03,
//! 20-22): `cp SRC... DIR` / `cp -t DIR SRC...` (each source's name in DIR, a folder's files
//! below it), `rsync SRC... DEST` without `--delete` (the same, `SRC/` copying its contents),
//! `tar -x` / `bsdtar -x` (into `-C DIR`), `unzip` (into `-d DIR`) and `7z x`. Judged as
//! [`cpio -i`](super::syncers) is, by the peers rule as files they may change
//! ([`Take::maybe`]): asked about only where a live peer holds files, so extracting into a new
//! or empty folder stays silent. A copy onto one named file (`cp a b`) is a plain write, left to
//! the co-edit warning. Folders are listed on disk (bounded).

use std::path::{Path, PathBuf};

use super::files::Found;
use super::{Op, Take};

/// Most files of a source folder listed; past it the whole destination counts.
const MAX_LISTED: usize = 2000;

/// What the programs of this module may write over, guarded.
pub(crate) fn classify(argv: &[String], cwd: &Path) -> Option<Found> {
    let name = argv.first()?.rsplit('/').next()?;
    let args = &argv[1..];
    match name {
        "cp" | "gcp" => copy(args, cwd),
        "rsync" => rsync(args, cwd),
        "tar" | "gtar" | "bsdtar" => tar(args, cwd),
        "unzip" => unzip(args, cwd),
        "7z" | "7za" | "7zz" => seven_zip(args, cwd),
        _ => None,
    }
}

/// `cwd` joined with `p`, `.` and `..` folded as written.
fn join(cwd: &Path, p: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(p).components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The literal pathspec of `path`, or of everything under it.
fn spec(path: &Path) -> String {
    format!(":(literal){}", path.display())
}

fn found(specs: Vec<String>, targets: Vec<String>, why: &str) -> Option<Found> {
    (!specs.is_empty()).then(|| {
        let take = Take::new(true, true, specs).maybe(why);
        (Op::Take(vec![take]), targets)
    })
}

/// The files under `dir` relative to it (links not followed, `.git` skipped); `None` past
/// [`MAX_LISTED`].
fn listed(dir: &Path) -> Option<Vec<PathBuf>> {
    match crate::platform::files::files_below(dir, MAX_LISTED) {
        (files, false) => Some(files),
        (_, true) => None,
    }
}

/// What copying `src` into the folder `dest` writes: `dest/NAME` (and below it, for a folder),
/// or with `contents` (`rsync SRC/`, `cp -r SRC/.`) the folder's files straight into `dest`.
fn into(src: &Path, dest: &Path, contents: bool, specs: &mut Vec<String>) {
    let target = match src.file_name() {
        Some(n) if !contents => dest.join(n),
        _ => dest.to_path_buf(),
    };
    if !src.is_dir() {
        specs.push(spec(&target));
        return;
    }
    match listed(src) {
        Some(files) => specs.extend(files.iter().map(|f| spec(&target.join(f)))),
        None => specs.push(spec(&target)),
    }
}

/// `cp` (its options already in one spelling): sources into a folder.
fn copy(args: &[String], cwd: &Path) -> Option<Found> {
    let mut dir: Option<&str> = None;
    let mut ops: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => ops.extend(it.by_ref().map(String::as_str)),
            "-t" | "--target-directory" => dir = it.next().map(String::as_str),
            "-S" | "--suffix" => {
                it.next();
            }
            "-n" | "--no-clobber" | "--update=none" | "--attributes-only" => return None,
            t if t.starts_with('-') && t.len() > 1 => {}
            t => ops.push(t),
        }
    }
    let (dest, sources) = match dir {
        Some(d) => (d, &ops[..]),
        None => {
            let (last, rest) = ops.split_last()?;
            let is_dir = last.ends_with('/') || cwd.join(last).is_dir();
            if rest.is_empty() || !is_dir {
                return None;
            }
            (*last, rest)
        }
    };
    let dest_path = join(cwd, dest);
    let mut specs = Vec::new();
    for s in sources {
        let contents = s.ends_with("/.");
        into(&join(cwd, s), &dest_path, contents, &mut specs);
    }
    found(
        specs,
        vec![dest.to_owned()],
        "it copies over them whatever its sources hold",
    )
}

/// rsync's options that take the next word (with no `=`).
const RSYNC_VALUED: &[&str] = &[
    "--rsh",
    "--exclude",
    "--include",
    "--filter",
    "--files-from",
    "--exclude-from",
    "--include-from",
    "--rsync-path",
    "--chmod",
    "--backup-dir",
    "--suffix",
    "--log-file",
    "--password-file",
    "--compare-dest",
    "--copy-dest",
    "--link-dest",
    "--temp-dir",
    "--partial-dir",
    "--out-format",
    "--timeout",
    "--max-size",
    "--min-size",
    "--bwlimit",
    "--port",
    "--chown",
    "--usermap",
    "--groupmap",
    "--info",
    "--debug",
    "--iconv",
    "--skip-compress",
];

/// `rsync SRC... DEST` into a local folder (without `--delete`: [`super::files::rsync_delete`]
/// judges that).
fn rsync(args: &[String], cwd: &Path) -> Option<Found> {
    let mut ops: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        let name = t.split('=').next().unwrap_or(t);
        if t == "--" {
            ops.extend(it.by_ref().map(String::as_str));
        } else if t.starts_with("--") {
            if matches!(
                name,
                "--dry-run" | "--ignore-existing" | "--list-only" | "--only-write-batch"
            ) || name.starts_with("--del")
            {
                return None;
            }
            if !t.contains('=') && RSYNC_VALUED.contains(&name) {
                it.next();
            }
        } else if t.starts_with('-') && t.len() > 1 {
            if t.contains('n') {
                return None;
            }
            if t.ends_with(['e', 'f', 'T', 'B', 'M']) {
                it.next();
            }
        } else {
            ops.push(t);
        }
    }
    let (dest, sources) = ops.split_last()?;
    let remote = |o: &str| o.contains(':') && !o.starts_with(['/', '.']);
    if sources.is_empty() || remote(dest) {
        return None;
    }
    let dest_path = join(cwd, dest);
    let mut specs = Vec::new();
    for s in sources {
        if remote(s) {
            // What a remote source holds is only known when it runs.
            specs.push(spec(&dest_path));
            continue;
        }
        into(&join(cwd, s), &dest_path, s.ends_with('/'), &mut specs);
    }
    found(
        specs,
        vec![(*dest).to_owned()],
        "it copies over them whatever its sources hold",
    )
}

/// Where an extraction writes: the members named (as globs below `dir`), else all of `dir`.
fn extracted(dir: &Path, members: &[&str], shown: String) -> Option<Found> {
    let specs = if members.is_empty() {
        vec![spec(dir)]
    } else {
        members
            .iter()
            .map(|m| format!(":(glob){}", dir.join(m).display()))
            .collect()
    };
    found(
        specs,
        vec![shown],
        "it writes over them whatever its archive holds",
    )
}

/// `tar -x` (`x` in the first word, `-x`, `--extract`, `--get`): into `-C DIR`, unless it keeps
/// existing files (`-k`, `--keep-old-files`, `--skip-old-files`) or writes to standard output.
fn tar(args: &[String], cwd: &Path) -> Option<Found> {
    // Short options that take a value, in the order their letters come.
    const VALUED: &str = "fCbTXgKNVLFHI";
    let mut extract = false;
    let mut dir: Option<String> = None;
    let mut members: Vec<&str> = Vec::new();
    let mut it = args.iter().enumerate();
    while let Some((i, a)) = it.next() {
        let t = a.as_str();
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            match name {
                "extract" | "get" => extract = true,
                "keep-old-files" | "skip-old-files" | "to-stdout" | "list" | "diff" | "compare"
                | "to-command" | "keep-newer-files" => return None,
                "directory" => dir = value.or_else(|| it.next().map(|(_, v)| v.clone())),
                "file"
                | "files-from"
                | "exclude-from"
                | "use-compress-program"
                | "format"
                | "newer"
                | "transform"
                | "xform"
                | "exclude"
                | "owner"
                | "group"
                | "mode"
                | "blocking-factor"
                | "label"
                | "info-script"
                | "volno-file"
                    if value.is_none() =>
                {
                    it.next();
                }
                _ => {}
            }
        } else if let Some(flags) = t
            .strip_prefix('-')
            .or_else(|| (i == 0 && !t.is_empty()).then_some(t))
        {
            let old = !t.starts_with('-');
            for (k, c) in flags.char_indices() {
                match c {
                    'x' => extract = true,
                    'k' | 'O' | 't' | 'd' => return None,
                    c if VALUED.contains(c) => {
                        let rest = &flags[k + 1..];
                        let value = if old || rest.is_empty() {
                            it.next().map(|(_, v)| v.clone())
                        } else {
                            Some(rest.to_owned())
                        };
                        if c == 'C' {
                            dir = value;
                        }
                        if !old {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        } else {
            members.push(t);
        }
    }
    if !extract {
        return None;
    }
    let shown = dir.clone().unwrap_or_else(|| ".".to_owned());
    let base = dir.map_or_else(|| cwd.to_path_buf(), |d| join(cwd, &d));
    extracted(&base, &members, shown)
}

/// `unzip ARCHIVE [MEMBER...] [-d DIR]`, unless it never overwrites (`-n`), lists or tests
/// (`-l`, `-t`, `-v`, `-Z`, `-z`) or writes to standard output (`-p`, `-c`).
fn unzip(args: &[String], cwd: &Path) -> Option<Found> {
    let mut dir: Option<String> = None;
    let mut ops: Vec<&str> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if t == "-d" {
            dir = it.next().cloned();
        } else if t == "-x" {
            // Exclusions run to the end (or to `-d`).
            for x in it.by_ref() {
                if x == "-d" {
                    dir = it.next().cloned();
                    break;
                }
            }
        } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
            if flags.contains(['n', 'l', 't', 'v', 'Z', 'z', 'p', 'c']) {
                return None;
            }
            if let Some(d) = flags.strip_prefix('d') {
                dir = Some(d.to_owned());
            }
        } else {
            ops.push(t);
        }
    }
    let members = ops.get(1..).unwrap_or_default();
    let shown = dir.clone().unwrap_or_else(|| ".".to_owned());
    let base = dir.map_or_else(|| cwd.to_path_buf(), |d| join(cwd, &d));
    extracted(&base, members, shown)
}

/// `7z x|e ARCHIVE [-oDIR]`, unless it skips existing files (`-aos`) or renames (`-aou`,
/// `-aot`).
fn seven_zip(args: &[String], cwd: &Path) -> Option<Found> {
    let (verb, rest) = args.split_first()?;
    if !matches!(verb.as_str(), "x" | "e") {
        return None;
    }
    let mut dir: Option<String> = None;
    let mut ops: Vec<&str> = Vec::new();
    for a in rest {
        if let Some(d) = a.strip_prefix("-o") {
            dir = Some(d.to_owned());
        } else if matches!(a.as_str(), "-aos" | "-aou" | "-aot" | "-so") {
            return None;
        } else if !a.starts_with('-') {
            ops.push(a);
        }
    }
    let members = ops.get(1..).unwrap_or_default();
    let shown = dir.clone().unwrap_or_else(|| ".".to_owned());
    let base = dir.map_or_else(|| cwd.to_path_buf(), |d| join(cwd, &d));
    extracted(&base, members, shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs(line: &str) -> Vec<String> {
        let argv: Vec<String> = line.split(' ').map(str::to_owned).collect();
        match classify(&argv, Path::new("/nonexistent/w")) {
            Some((Op::Take(t), _)) => t[0].paths.clone().unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn what_copies_and_extractions_may_write_over() {
        let w = |p: &str| format!(":(literal)/nonexistent/w/{p}");
        assert_eq!(specs("cp -t src /x/lib.rs"), [w("src/lib.rs")]);
        assert_eq!(specs("cp -f /x/lib.rs src/"), [w("src/lib.rs")]);
        assert!(specs("cp a.rs b.rs").is_empty());
        assert!(specs("cp -n /x/lib.rs src/").is_empty());
        assert_eq!(specs("rsync -a /x/a.rs ./"), [w("a.rs")]);
        assert!(specs("rsync -an /x/ ./").is_empty());
        assert!(specs("rsync -a --delete /x/ ./").is_empty());
        assert_eq!(
            specs("tar xf a.tar"),
            [":(literal)/nonexistent/w".to_owned()]
        );
        assert_eq!(specs("tar -xzf a.tgz -C src"), [w("src")]);
        assert_eq!(specs("tar xfC a.tar src"), [w("src")]);
        assert_eq!(
            specs("tar --extract --file=a.tar --directory=src"),
            [w("src")]
        );
        assert_eq!(
            specs("tar -xf a.tar notes.txt"),
            [":(glob)/nonexistent/w/notes.txt".to_owned()]
        );
        assert!(specs("tar -xkf a.tar").is_empty());
        assert!(specs("tar -tf a.tar").is_empty());
        assert!(specs("tar -czf a.tgz src").is_empty());
        assert!(specs("tar -xOf a.tar").is_empty());
        assert_eq!(specs("unzip -oq a.zip -d src"), [w("src")]);
        assert!(specs("unzip -l a.zip").is_empty());
        assert!(specs("unzip -n a.zip").is_empty());
        assert_eq!(specs("7z x a.7z -osrc"), [w("src")]);
        assert!(specs("7z l a.7z").is_empty());
    }
}

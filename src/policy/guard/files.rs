//! A live peer's files deleted or written over by plain programs: `rm` (any flags), `unlink`,
//! `shred`, `mv` (sources and what the destination replaces), `ln -f` (what its link replaces),
//! the programs of [`super::removers`] (compressors, `zip -m`, `7z -sdel`, `rename`) and `tar
//! --remove-files`, judged by the peers rule as literal pathspecs.

use super::{Op, Take};

/// `rm` (any flags), `unlink`, `shred` and `mv` of files a live peer may hold: the paths
/// deleted or written over, as literal pathspecs.
/// Under `xargs` or `find -exec` (`open`), a bare `rm` deletes paths only known when it runs:
/// every file is in reach.
pub(crate) fn classify_paths(
    argv: &[String],
    cwd: &std::path::Path,
    open: bool,
) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    let name = first.rsplit('/').next()?;
    if let Some(operands) = super::removers::removed(name, &argv[1..]) {
        let paths: Vec<std::path::PathBuf> = operands.iter().map(|o| cwd.join(o)).collect();
        if super::removers::is_pattern(name) {
            let specs = paths.iter().map(|p| match p.to_str() {
                Some(t) if t.contains(['*', '?', '[']) => format!(":(glob){t}"),
                _ => format!(":(literal){}", p.display()),
            });
            return Some((Op::Take(vec![Take::removal(specs.collect())]), operands));
        }
        return Some(taken(&paths, operands));
    }
    if !matches!(name, "rm" | "unlink" | "shred" | "mv" | "ln") {
        return None;
    }
    // `ln -f` replaces its link name with a link: the file there is gone.
    let force = |a: &String| {
        a == "--force" || (!a.starts_with("--") && a.starts_with('-') && a.contains('f'))
    };
    if name == "ln" && !argv[1..].iter().any(force) {
        return None;
    }
    let mut operands = Vec::new();
    let mut dashdash = false;
    let mut target_dir: Option<String> = None;
    let mut no_target_dir = false;
    let mut it = argv[1..].iter();
    while let Some(a) = it.next() {
        if !dashdash && a == "--" {
            dashdash = true;
        } else if !dashdash
            && matches!(name, "mv" | "ln")
            && (a == "-t" || a == "--target-directory")
        {
            target_dir = it.next().cloned();
        } else if !dashdash && matches!(name, "mv" | "ln") && (a == "-S" || a == "--suffix") {
            it.next();
        } else if !dashdash && a.starts_with('-') && a.len() > 1 {
            no_target_dir |=
                a == "--no-target-directory" || (!a.starts_with("--") && a.contains('T'));
        } else {
            operands.push(a.clone());
        }
    }
    if operands.is_empty() {
        let every = vec![":/".to_owned()];
        return (open && name != "mv").then(|| (Op::Take(vec![Take::removal(every)]), vec![]));
    }
    // `ln` deletes only what its links replace: the last operand, or with `-t DIR` (or one
    // operand) the names its links get in that folder.
    let deleted = match name {
        "ln" if target_dir.is_some() => &operands[..0],
        "ln" if operands.len() == 1 => {
            target_dir = Some(".".to_owned());
            &operands[..0]
        }
        "ln" => &operands[operands.len() - 1..],
        // `mv SRC... DIR` into a folder that is there (no `-T`): only the sources go and the
        // names they get in it are written over (below), not the folder.
        "mv" if target_dir.is_none()
            && operands.len() > 1
            && !no_target_dir
            && cwd.join(&operands[operands.len() - 1]).is_dir() =>
        {
            &operands[..operands.len() - 1]
        }
        _ => &operands[..],
    };
    let mut paths: Vec<String> = deleted
        .iter()
        .map(|o| cwd.join(o).to_string_lossy().into_owned())
        .collect();
    if name == "mv" || (name == "ln" && (operands.len() > 1 || target_dir.is_some())) {
        // The destination, and the file of that name inside it, are written over.
        let dest = target_dir
            .map(|d| cwd.join(d))
            .or_else(|| operands.last().map(|o| cwd.join(o)));
        if let Some(dest) = dest {
            for o in &operands {
                if let Some(n) = std::path::Path::new(o).file_name() {
                    paths.push(dest.join(n).to_string_lossy().into_owned());
                }
            }
        }
    }
    let specs: Vec<String> = paths.iter().map(|p| format!(":(literal){p}")).collect();
    Some((Op::Take(vec![Take::removal(specs)]), operands))
}

/// A guarded operation and the targets it names.
pub(crate) type Found = (Op, Vec<String>);

/// The files under `paths` taken away, as the peers rule's literal pathspecs.
fn taken(paths: &[std::path::PathBuf], targets: Vec<String>) -> Found {
    let specs = paths
        .iter()
        .map(|p| format!(":(literal){}", p.display()))
        .collect();
    (Op::Take(vec![Take::removal(specs)]), targets)
}

/// `tar --remove-files`: besides the worktrees it removes ([`super::find::classify_tar`]), the
/// files it archives are gone from their paths.
pub(crate) fn tar_removes(argv: &[String], cwd: &std::path::Path) -> Option<Found> {
    match super::find::classify_tar(argv, cwd)? {
        (Op::RemoveTree { paths }, targets) => Some(taken(&paths, targets)),
        _ => None,
    }
}

/// `rsync --delete` (any spelling) and `--remove-source-files`: the destination's files that the
/// source lacks are deleted (judged as `rm -r DEST`, the worktrees and a peer's files there), and
/// so are the sources once copied.
pub(crate) fn rsync_delete(argv: &[String], cwd: &std::path::Path) -> Option<(Found, Found)> {
    if argv.first()?.rsplit('/').next()? != "rsync" {
        return None;
    }
    let mut delete = false;
    let mut remove_sources = false;
    let mut operands = Vec::new();
    let mut dashdash = false;
    let mut it = argv[1..].iter();
    while let Some(a) = it.next() {
        if !dashdash && a == "--" {
            dashdash = true;
        } else if !dashdash && a.starts_with("--") {
            let name = a.split('=').next().unwrap_or(a);
            delete |= name == "--del" || name.starts_with("--delete");
            remove_sources |= name == "--remove-source-files" || name == "--remove-sent-files";
            // Options that take the next word.
            if !a.contains('=')
                && matches!(
                    name,
                    "--rsh"
                        | "--exclude"
                        | "--include"
                        | "--filter"
                        | "--files-from"
                        | "--exclude-from"
                        | "--include-from"
                        | "--rsync-path"
                        | "--chmod"
                        | "--backup-dir"
                        | "--suffix"
                        | "--log-file"
                        | "--password-file"
                        | "--compare-dest"
                        | "--copy-dest"
                        | "--link-dest"
                        | "--temp-dir"
                        | "--partial-dir"
                        | "--out-format"
                        | "--timeout"
                        | "--max-size"
                        | "--min-size"
                        | "--bwlimit"
                        | "--port"
                        | "--chown"
                        | "--usermap"
                        | "--groupmap"
                        | "--info"
                        | "--debug"
                        | "--iconv"
                        | "--skip-compress"
                )
            {
                it.next();
            }
        } else if !dashdash && a.starts_with('-') && a.len() > 1 {
            // `-e CMD`, `-f RULE`, `-T DIR`, `-B SIZE` take the next word.
            if a.ends_with(['e', 'f', 'T', 'B', 'M']) {
                it.next();
            }
        } else {
            operands.push(a.clone());
        }
    }
    if (!delete && !remove_sources) || operands.len() < 2 {
        return None;
    }
    let local = |o: &String| !o.contains(':') || o.starts_with('/') || o.starts_with('.');
    let mut gone: Vec<String> = Vec::new();
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    if delete && let Some(dest) = operands.last().filter(|d| local(d)) {
        gone.push(dest.clone());
        // rsync goes into its destination even through a link (`L/` or `L`): written with a
        // trailing `/`, what the link points at is what counts.
        paths.push(format!("{}/", cwd.join(dest.trim_end_matches('/')).display()).into());
    }
    if remove_sources {
        let n = operands.len() - 1;
        for o in operands[..n].iter().filter(|o| local(o)) {
            gone.push(o.clone());
            paths.push(cwd.join(o));
        }
    }
    if gone.is_empty() {
        return None;
    }
    let take = taken(&paths, gone.clone());
    Some(((Op::RemoveTree { paths }, gone), take))
}

/// The folders `mv ARGS` moves away (its sources that are folders, not links), made absolute:
/// a worktree among them, or below one, is judged as `rm -r` of it would be.
pub(crate) fn moved_folders(args: &[String], cwd: &std::path::Path) -> Option<(Op, Vec<String>)> {
    let mut operands = Vec::new();
    let mut into_dir = false;
    let mut dashdash = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            _ if dashdash => operands.push(a.clone()),
            "--" => dashdash = true,
            "-t" | "--target-directory" => {
                into_dir = true;
                it.next();
            }
            "-S" | "--suffix" => {
                it.next();
            }
            s if s.starts_with("--target-directory=") => into_dir = true,
            s if s.starts_with('-') && s.len() > 1 => {}
            _ => operands.push(a.clone()),
        }
    }
    if !into_dir {
        operands.pop();
    }
    let folders: Vec<String> = operands
        .into_iter()
        .filter(|o| std::fs::symlink_metadata(cwd.join(o)).is_ok_and(|m| m.is_dir()))
        .collect();
    if folders.is_empty() {
        return None;
    }
    let paths = folders
        .iter()
        .map(|o| cwd.join(o.trim_end_matches('/')))
        .collect();
    Some((Op::RemoveTree { paths }, folders))
}

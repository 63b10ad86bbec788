//! Programs that change whole folders in ways their command line does not spell out (red team
//! 4, leftovers): `rclone delete|purge|deletefile` over a local path (read as the `rm -rf` it
//! is), `rclone sync|bisync` into one (as `rsync --delete`), `rclone move|moveto` from one (its
//! sources go); and, judged by the peers rule as files they may change ([`Take::maybe`]):
//! `unison` (a two-way sync: either root may lose files), `cpio -i`/`-p` (an archive or a list
//! of names only known when it runs, written over a folder) and the interactive bulk renamers
//! `vidir`, `qmv`, `vimv`, `edir` (whatever is typed into the editor they open).

use std::path::Path;

use super::files::Found;
use super::{Op, Take};

/// rclone's flags, besides its filters, that take the next word as their value (the common
/// ones; `--flag=value` needs none).
const RCLONE_VALUED: &[&str] = &[
    "--config",
    "--log-file",
    "--log-level",
    "--transfers",
    "--checkers",
    "--bwlimit",
    "--backup-dir",
    "--suffix",
    "--max-delete",
    "--max-transfer",
    "--order-by",
    "--stats",
    "--timeout",
    "--contimeout",
    "--retries",
    "--low-level-retries",
    "--tpslimit",
    "--user-agent",
    "--compare-dest",
    "--copy-dest",
    "--track-renames-strategy",
    "--cutoff-mode",
    "--cache-dir",
    "--temp-dir",
    "--header",
    "--password-command",
    "--workdir",
    "--conflict-resolve",
    "--conflict-loser",
];

/// rclone's filter flags (each takes a value): with one, which files a deletion takes is only
/// known when it runs.
const RCLONE_FILTERS: &[&str] = &[
    "--exclude",
    "--include",
    "--filter",
    "--exclude-from",
    "--include-from",
    "--filter-from",
    "--files-from",
    "--files-from-raw",
    "--exclude-if-present",
    "--max-age",
    "--min-age",
    "--max-size",
    "--min-size",
    "--max-depth",
];

/// What the programs of this module do to the files they reach, guarded.
pub(crate) fn classify(argv: &[String], cwd: &Path, open: bool) -> Vec<Found> {
    let Some(name) = argv.first().and_then(|a| a.rsplit('/').next()) else {
        return Vec::new();
    };
    let args = &argv[1..];
    match name {
        "rclone" => rclone(args, cwd, open),
        "unison" | "unison-gtk" | "unison-text" => unison(args, cwd),
        "cpio" => cpio(args, cwd).into_iter().collect(),
        "vidir" | "qmv" | "vimv" | "edir" | "massren" => {
            renamer(name, args, cwd, open).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// `rclone`'s path as a local one (`:local:` stripped); `None` for a remote (`name:path`,
/// `:backend:path`).
fn rclone_local(word: &str) -> Option<&str> {
    if let Some(p) = word.strip_prefix(":local:") {
        return Some(p);
    }
    if word.starts_with('/') || word.starts_with("./") || word.starts_with("../") {
        return Some(word);
    }
    match word.split_once(':') {
        Some((before, _)) if !before.contains('/') => None,
        _ => Some(word),
    }
}

/// The literal pathspec of everything under `dir` (relative to `cwd`).
fn under(cwd: &Path, dir: &str) -> String {
    let path = cwd.join(dir.trim_end_matches('/'));
    format!(":(literal){}", path.display())
}

fn rclone(args: &[String], cwd: &Path, open: bool) -> Vec<Found> {
    let mut operands: Vec<&String> = Vec::new();
    let mut filtered = false;
    let mut dry = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = a.split('=').next().unwrap_or(a);
        if a == "--" {
            operands.extend(it.by_ref());
        } else if a.starts_with("--") {
            filtered |= RCLONE_FILTERS.contains(&name);
            dry |= name == "--dry-run";
            if !a.contains('=') && (RCLONE_VALUED.contains(&name) || RCLONE_FILTERS.contains(&name))
            {
                it.next();
            }
        } else if a.starts_with('-') && a.len() > 1 {
            dry |= a[1..].contains('n');
        } else {
            operands.push(a);
        }
    }
    let Some((verb, paths)) = operands.split_first() else {
        return Vec::new();
    };
    if dry {
        return Vec::new();
    }
    let gone: Vec<&String> = match verb.as_str() {
        "delete" | "purge" | "deletefile" => paths.to_vec(),
        // The destination loses what the source lacks.
        "sync" => paths.get(1).into_iter().copied().collect(),
        "bisync" => paths.iter().take(2).copied().collect(),
        // The sources go once copied.
        "move" | "moveto" => paths.first().into_iter().copied().collect(),
        _ => return Vec::new(),
    };
    let local: Vec<String> = gone
        .iter()
        .filter_map(|w| rclone_local(w))
        .map(str::to_owned)
        .collect();
    if local.is_empty() {
        // `xargs rclone purge`: the path comes from the input.
        let removes = matches!(verb.as_str(), "delete" | "purge" | "deletefile");
        return if open && gone.is_empty() && removes {
            vec![(Op::Take(vec![Take::removal(vec![":/".into()])]), Vec::new())]
        } else {
            Vec::new()
        };
    }
    let specs: Vec<String> = local.iter().map(|d| under(cwd, d)).collect();
    let take = if filtered {
        Take::removal(specs).maybe("its filters pick the files it deletes when it runs")
    } else {
        Take::removal(specs)
    };
    let mut out = vec![(Op::Take(vec![take]), local.clone())];
    // A folder deleted whole may be, or hold, a worktree.
    if !filtered && verb.as_str() != "deletefile" {
        let paths = local
            .iter()
            .map(|d| cwd.join(d.trim_end_matches('/')))
            .collect();
        out.insert(0, (Op::RemoveTree { paths }, local));
    }
    out
}

/// `unison ROOT1 ROOT2` (or a profile's roots): either side may lose or get written over
/// whatever changed on the other.
fn unison(args: &[String], cwd: &Path) -> Vec<Found> {
    let valued = [
        "-root",
        "-path",
        "-ignore",
        "-ignorenot",
        "-prefer",
        "-force",
        "-logfile",
        "-ui",
        "-backup",
        "-backupdir",
        "-sshargs",
        "-servercmd",
        "-merge",
        "-follow",
        "-repeat",
        "-retry",
        "-label",
        "-perms",
        "-maxthreads",
        "-noupdate",
        "-nodeletion",
        "-nocreation",
    ];
    let mut roots: Vec<String> = Vec::new();
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "-version" | "-help" | "-doc" | "-testserver") {
            return Vec::new();
        }
        if a == "-root" {
            roots.extend(it.next().cloned());
        } else if valued.contains(&a.as_str()) {
            it.next();
        } else if !a.starts_with('-') {
            positional.push(a.clone());
        }
    }
    // Two operands are the roots; one is a profile, whose roots are only known when it runs.
    if positional.len() >= 2 {
        roots.extend(positional);
    }
    let local: Vec<String> = roots
        .into_iter()
        .filter(|r| !r.contains("://") && !r.starts_with("socket:"))
        .collect();
    let why = "a two-way sync deletes and writes over whatever changed on the other side";
    let specs: Vec<String> = if local.is_empty() {
        vec![":/".to_owned()]
    } else {
        local.iter().map(|d| under(cwd, d)).collect()
    };
    vec![(Op::Take(vec![Take::removal(specs).maybe(why)]), local)]
}

/// `cpio -i` (extract an archive over its folder, `-D DIR`) and `cpio -p DIR` (copy the files
/// its input names into DIR): which files they write over is only known when they run.
fn cpio(args: &[String], cwd: &Path) -> Option<Found> {
    let mut mode = None;
    let mut dir: Option<String> = None;
    let mut operands = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with("--") {
            let (name, value) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (a.as_str(), None),
            };
            match name {
                "--extract" => mode = Some('i'),
                "--pass-through" => mode = Some('p'),
                "--create" | "--list" | "--to-stdout" | "--only-verify-crc" => return None,
                "--directory" => dir = value.or_else(|| it.next().cloned()),
                "--file" | "--format" | "--pattern-file" | "--owner" | "--message"
                | "--block-size" | "--io-size" | "--rsh-command"
                    if value.is_none() =>
                {
                    it.next();
                }
                _ => {}
            }
        } else if let Some(flags) = a.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (k, c) in flags.char_indices() {
                match c {
                    'i' | 'p' => mode = Some(c),
                    'o' | 't' => return None,
                    'D' | 'F' | 'H' | 'E' | 'I' | 'O' | 'R' | 'C' | 'M' => {
                        let rest = &flags[k + 1..];
                        let value = if rest.is_empty() {
                            it.next().cloned()
                        } else {
                            Some(rest.to_owned())
                        };
                        if c == 'D' {
                            dir = value;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        } else {
            operands.push(a.clone());
        }
    }
    let (specs, targets, why) = match mode? {
        'p' => {
            let dest = operands.last()?.clone();
            let why = "it copies over it the files its input names";
            (vec![under(cwd, &dest)], vec![dest], why)
        }
        _ => {
            let base = dir
                .as_deref()
                .map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
            let why = "it writes over them whatever its archive holds";
            let specs = if operands.is_empty() {
                vec![format!(":(literal){}", base.display())]
            } else {
                operands
                    .iter()
                    .map(|p| format!(":(glob){}", base.join(p).display()))
                    .collect()
            };
            let shown = dir.map_or_else(|| ".".to_owned(), |d| d.clone());
            (specs, vec![shown], why)
        }
    };
    Some((
        Op::Take(vec![Take::new(true, true, specs).maybe(why)]),
        targets,
    ))
}

/// `vidir`, `qmv`, `vimv`, `edir`, `massren` over files or folders (their folder without
/// operands; `-` or `xargs`: names from the input, anywhere).
fn renamer(name: &str, args: &[String], cwd: &Path, open: bool) -> Option<Found> {
    let valued: &[&str] = match name {
        "qmv" => &["-f", "--format", "-o", "--options", "-e", "--editor"],
        _ => &[],
    };
    let mut operands = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if matches!(a.as_str(), "--help" | "--version" | "-h" | "-V") {
            return None;
        }
        if valued.contains(&a.as_str()) {
            it.next();
        } else if a == "-" || !a.starts_with('-') {
            operands.push(a.clone());
        }
    }
    let specs: Vec<String> = if open || operands.iter().any(|o| o == "-") {
        vec![":/".to_owned()]
    } else if operands.is_empty() {
        vec![format!(":(literal){}", cwd.display())]
    } else {
        operands.iter().map(|o| under(cwd, o)).collect()
    };
    let why = "what it renames or deletes is whatever is typed into the editor it opens";
    Some((Op::Take(vec![Take::removal(specs).maybe(why)]), operands))
}

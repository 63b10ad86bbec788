//! Files written back from the repository's history by a pipeline rather than by `git
//! checkout`: `git show REV:PATH > FILE` (or `| tee FILE`), `git cat-file -p|blob REV:PATH >
//! FILE`, `git archive TREE | tar -x` (through `gzip -d` and the like), and (read in
//! [`super::patches`]) `git diff | patch -R` (or `| git apply -R`), which puts every change it
//! shows back, and the patches `git show`, `git stash show`, `git log -p` print, reversed. What they write over is judged like `git checkout -- PATHS` by the peers rule
//! (red-team 2/12, 3/24).

use std::path::{Path, PathBuf};

use super::patches::Judged;
use super::{Op, Take};
use crate::git;
use crate::shell::{Input, SimpleCommand, quote_word};

/// Programs that pass an archive through on a pipe (`git archive | gzip -d | tar -x`).
pub(super) const FILTERS: &[&str] = &[
    "cat", "pv", "gzip", "gunzip", "zcat", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd",
    "buffer", "mbuffer",
];

/// The files the pipeline starting at `cmds[at]` writes back from history, and the other
/// commands of the line judged with it; `None` when `cmds[at]` starts no such pipeline.
pub(crate) fn classify(cmds: &[SimpleCommand], at: usize) -> Option<Judged> {
    let cmd = &cmds[at];
    if let Some(j) = super::patch_program::patch_alone(cmds, at) {
        return Some(j);
    }
    let inv = git::parse_invocation(&cmd.argv, &cmd.cwd, &cmd.assignments)?;
    let sub = inv.args.first()?.as_str();
    let ((paths, last), untracked) = match sub {
        "show" | "cat-file" => match blob_targets(cmds, at, &inv) {
            Some(found) => (found, true),
            None => return super::patches::printed(cmds, at, &inv),
        },
        "archive" => (archive_targets(cmds, at, &inv)?, false),
        "diff" => return super::patches::diff(cmds, at, &inv),
        _ => return super::patches::printed(cmds, at, &inv),
    };
    let specs: Vec<String> = paths
        .iter()
        .map(|p| format!(":(literal){}", p.display()))
        .collect();
    let shown = paths.iter().map(|p| p.display().to_string()).collect();
    Some(Judged {
        op: Some(Op::Take(vec![Take::new(true, untracked, specs)])),
        targets: shown,
        with: (at + 1..=last).collect(),
        cwd: cmd.cwd.clone(),
        unknown: None,
    })
}

/// How a command judged with the commands `with` of its line is shown: `a | b` where one reads
/// the other's pipe, `a; b` where it reads a file, with the files written and read.
pub(super) fn shown(cmds: &[SimpleCommand], at: usize, with: &[usize]) -> String {
    let mut shown = String::new();
    for k in std::iter::once(at).chain(with.iter().copied()) {
        let c = &cmds[k];
        if !shown.is_empty() {
            let piped = c.pipe_in.is_some() && cmds[..k].iter().any(|w| w.pipe_out == c.pipe_in);
            shown.push_str(if piped { " | " } else { "; " });
        }
        shown.push_str(&super::classify::display(&c.argv));
        for r in c.redirects.iter().filter(|r| r.fd.is_none() && !r.append) {
            shown.push_str(&format!(" > {}", quote_word(&r.target)));
        }
        if let Some(f) = &c.stdin_path {
            shown.push_str(&format!(" < {}", quote_word(&f.to_string_lossy())));
        }
    }
    shown
}

/// The command after `cmds[at]` when `cmds[at]`'s output goes into it (its input is a pipe and
/// `cmds[at]` sends its output nowhere else).
fn piped_into(cmds: &[SimpleCommand], at: usize) -> Option<&SimpleCommand> {
    let cmd = &cmds[at];
    let redirected = cmd.redirects.iter().any(|r| matches!(r.fd, None | Some(1)));
    let next = cmds.get(at + 1)?;
    (!redirected && next.stdin == Input::Unknown).then_some(next)
}

fn program(cmd: &SimpleCommand) -> &str {
    cmd.argv
        .first()
        .map_or("", |a| a.rsplit('/').next().unwrap_or(a))
}

/// `git show REV:PATH` / `git cat-file -p|blob REV:PATH` writing into files: the redirection
/// targets (`>`, not `>>`) and what a `tee` it is piped into writes.
fn blob_targets(
    cmds: &[SimpleCommand],
    at: usize,
    inv: &git::GitInvocation,
) -> Option<(Vec<PathBuf>, usize)> {
    let args = &inv.args[1..];
    let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let blob = match inv.args[0].as_str() {
        "show" => operands.len() == 1 && operands[0].contains(':'),
        _ => match operands.as_slice() {
            [spec] => args.iter().any(|a| a == "-p") && spec.contains(':'),
            [kind, spec] => *kind == "blob" && spec.contains(':'),
            _ => false,
        },
    };
    if !blob {
        return None;
    }
    let cmd = &cmds[at];
    let mut out: Vec<PathBuf> = cmd
        .redirects
        .iter()
        .filter(|r| matches!(r.fd, None | Some(1)) && !r.append)
        .map(|r| cmd.cwd.join(&r.target))
        .collect();
    let mut last = at;
    if let Some(tee) = piped_into(cmds, at).filter(|c| program(c) == "tee") {
        last = at + 1;
        let append = tee.argv[1..]
            .iter()
            .any(|a| a == "-a" || a == "--append" || (a.starts_with("-a") && !a.starts_with("--")));
        if !append {
            out.extend(
                tee.argv[1..]
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .map(|a| tee.cwd.join(a)),
            );
        }
    }
    (!out.is_empty()).then_some((out, last))
}

/// `git archive TREE [PATHS]` piped (through filters) into `tar -x` reading its input: the
/// folder tar extracts into, with `--prefix`, and the archived paths below it.
fn archive_targets(
    cmds: &[SimpleCommand],
    at: usize,
    inv: &git::GitInvocation,
) -> Option<(Vec<PathBuf>, usize)> {
    let args = &inv.args[1..];
    let mut prefix = String::new();
    let mut operands = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" | "--output" | "--remote" | "--exec" | "-l" | "--list" => return None,
            "--format" => {
                let _ = it.next();
            }
            "--prefix" => prefix = it.next().cloned().unwrap_or_default(),
            _ if a.starts_with("--output=") || a.starts_with("--remote=") => return None,
            _ if a.starts_with("--prefix=") => prefix = a["--prefix=".len()..].to_owned(),
            _ if a.starts_with('-') => {}
            _ => operands.push(a.clone()),
        }
    }
    // The tree-ish, then the paths (relative to where it is extracted, as archived).
    operands.first()?;
    let paths = &operands[1..];
    // Walk the pipe to a `tar -x` that reads it.
    let mut i = at;
    let tar = loop {
        let next = piped_into(cmds, i)?;
        i += 1;
        let name = program(next);
        if FILTERS.contains(&name) {
            continue;
        }
        if matches!(name, "tar" | "gtar" | "bsdtar") {
            break next;
        }
        return None;
    };
    let dir = tar_extracts_into(tar)?;
    let root = if prefix.is_empty() {
        dir
    } else {
        normalize(&dir.join(&prefix))
    };
    let targets = if paths.is_empty() {
        vec![root]
    } else {
        paths.iter().map(|p| root.join(p)).collect()
    };
    Some((targets, i))
}

/// Where `tar` extracts an archive read from its input (`-x`/`--extract`, no `-f` or `-f -`,
/// overwriting): its folder after `-C`; `None` when it lists, keeps old files, or reads a file.
fn tar_extracts_into(tar: &SimpleCommand) -> Option<PathBuf> {
    let mut dir = tar.cwd.clone();
    let mut extract = false;
    let mut file: Option<String> = None;
    let args = &tar.argv[1..];
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let next = args.get(i + 1).cloned();
        i += 1;
        match a {
            "-C" | "--directory" => {
                dir = dir.join(next?);
                i += 1;
            }
            "-f" | "--file" => {
                file = next;
                i += 1;
            }
            "--extract" | "--get" => extract = true,
            "-k" | "--keep-old-files" | "--skip-old-files" | "--keep-newer-files" | "-t"
            | "--list" | "--diff" | "-d" | "--compare" => return None,
            _ if a.starts_with("--directory=") => dir = dir.join(&a["--directory=".len()..]),
            _ if a.starts_with("--file=") => file = Some(a["--file=".len()..].to_owned()),
            _ if a.starts_with("--") => {}
            // `-xzf -`, or the old style `xzf -` as the first word.
            _ if a.starts_with('-') || i == 1 => {
                let flags = a.trim_start_matches('-');
                if flags.contains(['t', 'k', 'd']) {
                    return None;
                }
                extract |= flags.contains('x');
                if flags.contains('f') {
                    file = args.get(i).cloned();
                    i += 1;
                }
            }
            _ => {}
        }
    }
    let stdin = file
        .as_deref()
        .is_none_or(|f| f == "-" || f == "/dev/stdin");
    (extract && stdin).then(|| normalize(&dir))
}

fn normalize(p: &Path) -> PathBuf {
    git::normalize(Path::new(""), p)
}

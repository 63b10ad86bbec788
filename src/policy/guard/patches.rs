//! Changes put back by applying a diff in reverse (red-team 3/24, 4/03, 4/07): `git diff` read
//! by `patch -R` or `git apply -R`, with the reversal on either side (`git diff -R | git apply`,
//! `-R` among bundled short options), the reader found through `tee`, filters, subshells,
//! groups and nested shells (`| (cd . && patch -R -p1)`, `| sh -c 'patch -R'`) by the pipe ids
//! the shell parser gives, or through a file the diff is saved to and applied later in the line
//! (`git diff -R > f && git apply f`). What they revert is judged like `git checkout -- PATHS`
//! by the peers rule (into the index, `apply --cached`, as unstaging); the diff's pathspec
//! limits it (`git diff -- b.txt | git apply -R` reverts b.txt only). A reader of a reversed
//! diff that cannot be judged is asked. `patch -R` of a patch file is [`super::patch_program`]'s.
//! A patch git prints from history or the stash (`git stash show -p`, `git show REV`, `git log
//! -p`, `git format-patch --stdout`, `git diff-tree -p`) is followed the same way; which files it
//! changes only running it tells, so a peer's file within its pathspec is asked about.

use std::path::{Path, PathBuf};

use super::patch_program::PatchArgs;
use super::resets::unstaged;
use super::{Op, Take};
use crate::git;
use crate::shell::{SimpleCommand, Unknown};

/// Programs that pass what they read on to their output, changed or not (a reader after them
/// reads the diff).
const PASS_ON: &[&str] = &[
    "tee",
    "sed",
    "gsed",
    "grep",
    "egrep",
    "fgrep",
    "filterdiff",
    "awk",
    "gawk",
    "mawk",
    "tr",
    "dos2unix",
    "unix2dos",
    "expand",
    "unexpand",
];

/// Programs (and shell builtins) that read a diff only to show, count or keep it, or do not
/// read it at all: they put nothing back.
const VIEWS: &[&str] = &[
    "less",
    "more",
    "most",
    "pg",
    "head",
    "tail",
    "wc",
    "diffstat",
    "delta",
    "bat",
    "batcat",
    "colordiff",
    "diff-so-fancy",
    "diff-highlight",
    "ydiff",
    "view",
    "sort",
    "uniq",
    "cut",
    "nl",
    "od",
    "hexdump",
    "xxd",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "base64",
    "xclip",
    "xsel",
    "pbcopy",
    "wl-copy",
    "cd",
    "pushd",
    "popd",
    "echo",
    "printf",
    "true",
    "false",
    ":",
    "test",
    "[",
    "read",
    "sleep",
    "export",
    "set",
    "exit",
    "return",
    "wait",
    "ls",
    "pwd",
];

/// What the peers rule judges for a patch applied in reverse.
pub(crate) struct Judged {
    /// The take; `None` when the readers judged with it put nothing back (`git diff -R | git
    /// apply -R`, `| git apply --check -R`): they are not judged again on their own.
    pub(crate) op: Option<Op>,
    /// The paths, for the message.
    pub(crate) targets: Vec<String>,
    /// The other commands of the line judged with it (the readers, the appliers).
    pub(crate) with: Vec<usize>,
    /// The directory its paths are relative to.
    pub(crate) cwd: PathBuf,
    /// Why what it reverts is only known when it runs, if it is.
    pub(crate) unknown: Option<String>,
}

/// Where a reversed patch is applied.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Into {
    /// The files (`patch`, `git apply`).
    Files,
    /// The index only (`git apply --cached`).
    Index,
    /// Both (`git apply --index`).
    Both,
}

/// What a command does with a patch it reads.
enum Applies {
    /// Applies it, reversed or not, into the files or the index.
    Yes { reverse: bool, into: Into },
    /// Does not apply it (a dry run, another output, a look).
    No,
    /// Cannot be told before it runs.
    Unknown(String),
    /// A program the guard does not know reads it: what it does is only known when it runs,
    /// which matters when what it reads is a reversed diff.
    Reads(String),
}

pub(super) fn program(cmd: &SimpleCommand) -> &str {
    cmd.argv
        .first()
        .map_or("", |a| a.rsplit('/').next().unwrap_or(a))
}

/// Whether a short-option word (`-R`, `-pR`, `-uR`) holds `letter` before an option that takes
/// the rest of the word as its value (`values`).
fn short_has(word: &str, letter: char, values: &str) -> bool {
    let Some(flags) = word.strip_prefix('-').filter(|f| !f.starts_with('-')) else {
        return false;
    };
    for c in flags.chars() {
        if c == letter {
            return true;
        }
        if values.contains(c) {
            return false;
        }
    }
    false
}

/// Options after which a diff command prints no patch.
fn no_patch(opts: &[&String]) -> bool {
    opts.iter().any(|a| {
        matches!(
            a.as_str(),
            "--stat"
                | "--name-only"
                | "--name-status"
                | "--quiet"
                | "--numstat"
                | "--shortstat"
                | "--summary"
                | "--raw"
                | "--check"
                | "--no-patch"
                | "-s"
        ) || a.starts_with("--stat=")
            || a.starts_with("--dirstat")
    })
}

/// Whether options ask a command that prints no patch by default (`git log`, `diff-tree`) for
/// one: `-p`, `-u`, `--patch`, `-U<n>`, `--unified`, `--cc`.
fn asks_patch(opts: &[&String]) -> bool {
    opts.iter().any(|a| {
        a.starts_with("--patch")
            || (a.len() >= 5 && "--patch".starts_with(a.as_str()))
            || a.starts_with("--unified")
            || a.as_str() == "--cc"
            || short_has(a, 'p', "UMCBlSGOIn")
            || short_has(a, 'u', "UMCBlSGOIn")
            || short_has(a, 'U', "")
    })
}

/// `git diff ...` at `at` whose patch is applied in reverse, through a pipe or a file, later in
/// the line.
pub(super) fn diff(cmds: &[SimpleCommand], at: usize, inv: &git::GitInvocation) -> Option<Judged> {
    let args = &inv.args[1..];
    follow(cmds, at, inv, args, None)
}

/// A patch git prints from history or the stash (`git stash show [-p]`, `git show REV`, `git
/// log -p`, `git format-patch --stdout`, `git diff-tree -p`, `diff-index -p`, `diff-files -p`)
/// at `at`, applied in reverse later in the line: which of the files it names it changes is
/// only known when it runs, so a live peer's file within its pathspec (or anywhere, without
/// one) is asked about.
pub(super) fn printed(
    cmds: &[SimpleCommand],
    at: usize,
    inv: &git::GitInvocation,
) -> Option<Judged> {
    let (sub, rest) = inv.args.split_first()?;
    let opts = |args: &[String]| -> bool {
        let o: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
        asks_patch(&o)
    };
    let args = match sub.as_str() {
        "stash" if rest.first().is_some_and(|v| v == "show") => &rest[1..],
        "show" => rest,
        "log" | "whatchanged" | "diff-tree" | "diff-index" | "diff-files" if opts(rest) => rest,
        "format-patch" if rest.iter().any(|a| a == "--stdout") => rest,
        _ => return None,
    };
    let shown = super::classify::display(&cmds[at].argv);
    let shown: String = shown.chars().take(80).collect();
    let why = format!("it reverts what `{shown}` prints, which only running it tells");
    follow(cmds, at, inv, args, Some(why))
}

/// The patch `cmds[at]` prints (`args`, the subcommand's), followed through pipes and files to
/// what applies it; `printed` says why its content is not known when it is not the worktree's
/// own changes.
fn follow(
    cmds: &[SimpleCommand],
    at: usize,
    inv: &git::GitInvocation,
    args: &[String],
    printed: Option<String>,
) -> Option<Judged> {
    let opts: Vec<&String> = args.iter().take_while(|a| *a != "--").collect();
    if no_patch(&opts) {
        return None;
    }
    // `-R` swaps the sides (`--reverse` is no diff option: git ignores it).
    let reversed = opts.iter().any(|a| short_has(a, 'R', "UMCBlSGOI"));
    let cmd = &cmds[at];
    // Files the diff is written to: `> F`, `--output=F`, and what a `tee` it feeds writes.
    let mut files: Vec<PathBuf> = cmd
        .redirects
        .iter()
        .filter(|r| matches!(r.fd, None | Some(1)) && !r.append)
        .map(|r| cmd.cwd.join(&r.target))
        .collect();
    let mut it = opts.iter();
    while let Some(a) = it.next() {
        if let Some(f) = a.strip_prefix("--output=") {
            files.push(inv.cwd.join(f));
        } else if a.as_str() == "--output" {
            files.extend(it.next().map(|f| inv.cwd.join(f.as_str())));
        }
    }
    let mut with = Vec::new();
    let mut applied: Vec<(usize, Applies)> = Vec::new();
    let mut writers = vec![at];
    while let Some(w) = writers.pop() {
        for r in readers(cmds, w) {
            if with.contains(&r) || with.len() > 32 {
                continue;
            }
            let reader = &cmds[r];
            let name = program(reader);
            if PASS_ON.contains(&name) || super::reverts::FILTERS.contains(&name) {
                with.push(r);
                writers.push(r);
                if name == "tee" {
                    let ops = reader.argv[1..].iter().filter(|a| !a.starts_with('-'));
                    files.extend(ops.map(|a| reader.cwd.join(a)));
                }
            } else if !VIEWS.contains(&name) {
                let a = applies(reader, None);
                // A program that reads a patch not reversed is judged on its own.
                if matches!(a, Applies::Reads(_)) && !reversed {
                    continue;
                }
                with.push(r);
                applied.push((r, a));
            }
        }
    }
    // The saved diff applied later in the line.
    if !files.is_empty() {
        for (k, later) in cmds.iter().enumerate().skip(at + 1) {
            let files = files.iter().map(|f| git::normalize(Path::new(""), f));
            let files: Vec<PathBuf> = files.collect();
            if let Some(a) = applies_file(later, &files) {
                with.push(k);
                applied.push((k, a));
            }
        }
    }
    // Nothing applies it: the filters and the rest are judged on their own.
    if applied.is_empty() {
        return None;
    }
    let mut into = Vec::new();
    let mut unknown = None;
    for (_, a) in applied {
        match a {
            Applies::Yes { reverse, into: i } if reverse != reversed => into.push(i),
            Applies::Unknown(why) if unknown.is_none() => unknown = Some(why),
            Applies::Reads(why) if reversed && unknown.is_none() => unknown = Some(why),
            _ => {}
        }
    }
    let paths = diff_paths(args, &inv.cwd);
    if into.is_empty() && unknown.is_none() {
        with.sort_unstable();
        return Some(Judged {
            op: None,
            targets: paths,
            with,
            cwd: inv.cwd.clone(),
            unknown,
        });
    }
    let mut takes = Vec::new();
    if into.is_empty() || into.iter().any(|i| *i != Into::Index) {
        // A reversed patch of unknown content may delete a file it created: untracked too.
        takes.push(Take::new(true, printed.is_some(), paths.clone()));
    }
    if into.iter().any(|i| *i != Into::Files) {
        takes.push(unstaged(paths.clone()));
    }
    if let Some(why) = printed.filter(|_| unknown.is_none()) {
        takes = takes.into_iter().map(|t| t.maybe(why.clone())).collect();
    }
    with.sort_unstable();
    Some(Judged {
        op: Some(Op::Take(takes)),
        targets: paths,
        with,
        cwd: inv.cwd.clone(),
        unknown,
    })
}

/// The paths a `git diff` shows: after `--`, or without it the operands that name files or
/// folders there (as git tells them from revisions); none is the whole tree.
fn diff_paths(args: &[String], cwd: &Path) -> Vec<String> {
    if args.iter().any(|a| a == "--") {
        return args
            .iter()
            .skip_while(|a| *a != "--")
            .skip(1)
            .cloned()
            .collect();
    }
    args.iter()
        .filter(|a| !a.starts_with('-'))
        .filter(|a| std::fs::symlink_metadata(cwd.join(a.as_str())).is_ok())
        .cloned()
        .collect()
}

/// The commands that read what `cmds[w]` writes to its pipe.
fn readers(cmds: &[SimpleCommand], w: usize) -> Vec<usize> {
    let Some(pipe) = cmds[w].pipe_out else {
        return Vec::new();
    };
    (w + 1..cmds.len())
        .filter(|&j| cmds[j].pipe_in == Some(pipe))
        .collect()
}

/// What `cmd` does with a patch on its input (`file` `None`) or in `file`.
fn applies(cmd: &SimpleCommand, file: Option<&[PathBuf]>) -> Applies {
    let shown = super::classify::display(&cmd.argv);
    if cmd.unknown == Some(Unknown::Xargs) || cmd.dynamic.iter().any(|d| *d) {
        return Applies::Unknown(format!(
            "`{shown}` reads the diff with arguments only known when it runs"
        ));
    }
    match program(cmd) {
        "patch" | "gpatch" => {
            let p = PatchArgs::parse(&cmd.argv[1..]);
            let reads_it = match (file, &p.input) {
                (None, None) => true,
                (None, Some(_)) => false,
                (Some(files), Some(i)) => {
                    files.contains(&git::normalize(&cmd.cwd, Path::new(i.as_str())))
                }
                (Some(files), None) => cmd
                    .stdin_path
                    .as_ref()
                    .is_some_and(|s| files.contains(&git::normalize(Path::new(""), s))),
            };
            if !reads_it || p.dry || p.output {
                return Applies::No;
            }
            Applies::Yes {
                reverse: p.reverse,
                into: Into::Files,
            }
        }
        "git" => {
            let Some(inv) = git::parse_invocation(&cmd.argv, &cmd.cwd, &cmd.assignments) else {
                return Applies::No;
            };
            let mut args = inv.args.clone();
            super::options::canonical_git(&mut args);
            if args.first().map(String::as_str) != Some("apply") {
                return match args.first().map(String::as_str) {
                    // `git diff | git am`, `git hash-object --stdin`: nothing put back.
                    Some(_) => Applies::No,
                    None => Applies::Unknown(format!("`{shown}` is only known when it runs")),
                };
            }
            let rest = &args[1..];
            let p = super::takes::parse(
                rest,
                "pC",
                "",
                &["directory", "exclude", "include", "whitespace"],
            );
            let looks = ["--check", "--stat", "--numstat", "--summary"];
            if p.has(&looks) {
                return Applies::No;
            }
            let operands: Vec<PathBuf> = p
                .specs()
                .iter()
                .filter(|o| *o != "-")
                .map(|o| git::normalize(&inv.cwd, Path::new(o.as_str())))
                .collect();
            let reads_it = match file {
                None => operands.is_empty(),
                Some(files) => {
                    operands.iter().any(|o| files.contains(o))
                        || (operands.is_empty()
                            && cmd
                                .stdin_path
                                .as_ref()
                                .is_some_and(|s| files.contains(&git::normalize(Path::new(""), s))))
                }
            };
            if !reads_it {
                return Applies::No;
            }
            let into = if p.has(&["--cached"]) {
                Into::Index
            } else if p.has(&["--index"]) {
                Into::Both
            } else {
                Into::Files
            };
            Applies::Yes {
                reverse: p.has(&["-R", "--reverse"]),
                into,
            }
        }
        _ if file.is_some() => Applies::No,
        _ => Applies::Reads(format!(
            "`{shown}` reads the reversed diff, and what it does with it is only known when it runs"
        )),
    }
}

/// What a later command does with a patch saved in one of `files`, if it reads one.
fn applies_file(cmd: &SimpleCommand, files: &[PathBuf]) -> Option<Applies> {
    match applies(cmd, Some(files)) {
        Applies::No => None,
        a => Some(a),
    }
}

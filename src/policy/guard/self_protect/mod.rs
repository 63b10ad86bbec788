//! Self-protection (`[guard:self-protect]`): git-dibs's own state and wiring are work at risk
//! too. Commands that delete, move, truncate or rewrite the store (`<git common dir>/dibs`, its
//! audit log), the refs under `refs/dibs/` (locally or on a remote), or the hosts' hook wiring
//! (`.claude/settings*.json`, `.gemini/settings.json`, `.codex/hooks.json`,
//! `.cursor/hooks.json`), and `git dibs uninstall`, are refused; where the words that would say
//! so are only known when the command runs (`xargs git update-ref -d`), the person is asked.
//! Reading them is never stopped. Pure: judged from the command's words and the paths' shapes.

mod git;
mod paths;
mod rewrite;

use std::path::Path;

use super::{Finding, Guarded, Op, Verdict};
use crate::shell::SimpleCommand;
use paths::protected;
pub(crate) use paths::protected_file;

/// The rule id.
pub(crate) const RULE: &str = "self-protect";

/// `find PATHS ... -delete` / `-exec rm` over a folder that holds this clone's git dir, when
/// its matches may include the git dir or what is in it: no name filter, or a `-name` that
/// matches `.git` (or the git dir's own name, or a part of it such as `refs`); a filter too
/// loose to read (`-o`, `!`, `-path`) is asked. `find . -name '*.tmp' -delete` stays silent.
fn find_reaching_git_dir(argv: &[String], cwd: &Path) -> Option<Op> {
    let (Op::FindDelete { paths, names, .. }, _) = super::find::classify_find(argv, cwd)? else {
        return None;
    };
    let common = crate::git::gitdir::common_dir_from(cwd)?;
    let start = paths
        .iter()
        .map(|p| crate::git::normalize(cwd, p))
        .find(|p| common.starts_with(p))?;
    let own = common.file_name()?.to_string_lossy().into_owned();
    let parts = [
        ".git",
        &own,
        "dibs",
        "refs",
        "objects",
        "packed-refs",
        "logs",
        "modules",
        "worktrees",
    ];
    let tests = [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-regex",
        "-iregex",
    ];
    let filtered = argv.iter().any(|a| tests.contains(&a.as_str()));
    let sure = if names.is_empty() {
        !filtered
    } else if names
        .iter()
        .all(|n| parts.iter().any(|p| super::find::name_matches(n, p)))
    {
        true
    } else {
        return None;
    };
    Some(Op::Tamper {
        what: format!(
            "this clone's git directory ({}), which `find` under {} may match",
            common.display(),
            start.display()
        ),
        sure,
    })
}

/// The positional words of `argv` after the command name (options dropped).
fn operands(argv: &[String]) -> Vec<&String> {
    let mut out = Vec::new();
    let mut ended = false;
    for w in argv.iter().skip(1) {
        if !ended && w == "--" {
            ended = true;
        } else if ended || !w.starts_with('-') {
            out.push(w);
        }
    }
    out
}

/// The words of a command that it writes, deletes or moves, when it is one that does.
pub(super) fn written<'a>(base: &str, argv: &'a [String]) -> Vec<&'a String> {
    let ops = operands(argv);
    match base {
        "rm" | "rmdir" | "unlink" | "mv" | "truncate" | "shred" | "touch" | "chmod" | "chown"
        | "chgrp" | "tee" | "setfattr" | "chattr" => ops,
        // A hard link is a second name for its sources, through which a write of them goes
        // unjudged: they count as written (a symbolic link is judged through, by its target).
        "ln" | "cp"
            if argv.iter().skip(1).any(|w| {
                w == "--link"
                    || (w.starts_with('-')
                        && !w.starts_with("--")
                        && w.contains('l')
                        && base == "cp")
            }) || (base == "ln"
                && !argv.iter().skip(1).any(|w| {
                    w == "--symbolic"
                        || (w.starts_with('-') && !w.starts_with("--") && w.contains('s'))
                })) =>
        {
            ops
        }
        // The destination only.
        "cp" | "ln" | "install" | "rsync" => ops.last().copied().into_iter().collect(),
        "sed" | "perl" | "gsed" => {
            let in_place = argv.iter().skip(1).any(|w| {
                (w.starts_with("-i") && w.len() <= 6)
                    || w.starts_with("--in-place")
                    || (w.starts_with("-p") && w.contains('i'))
            });
            if in_place { ops } else { Vec::new() }
        }
        "dd" => argv.iter().filter(|w| w.starts_with("of=")).collect(),

        "find" => {
            let deletes = argv.iter().any(|w| {
                matches!(
                    w.as_str(),
                    "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir"
                )
            });
            if deletes {
                argv.iter()
                    .skip(1)
                    .take_while(|w| !w.starts_with('-') && !w.starts_with('(') && *w != "!")
                    .collect()
            } else {
                Vec::new()
            }
        }
        // Archivers and compressors that delete what they take in (`zip -m`, `7z a -sdel`,
        // `gzip`): the operands they remove.
        _ => super::removers::removed(base, &argv[1..]).map_or_else(Vec::new, |removed| {
            argv.iter()
                .skip(1)
                .filter(|w| removed.contains(w))
                .collect()
        }),
    }
}

/// The operation `cmd` (its argv with long options spelled out) performs on git-dibs's own
/// state or wiring, if any.
pub(crate) fn classify(argv: &[String], cmd: &SimpleCommand) -> Option<Op> {
    let first = argv.first()?;
    let base = first.rsplit('/').next().unwrap_or(first);
    let words = |ws: Vec<&String>| -> Option<String> {
        ws.into_iter().find_map(|w| {
            let w = w.strip_prefix("of=").unwrap_or(w);
            protected(w, &cmd.cwd).map(|what| format!("{what} ({w})"))
        })
    };
    for r in &cmd.redirects {
        if let Some(what) = protected(&r.target, &cmd.cwd) {
            return Some(Op::Tamper {
                what: format!("{what} ({})", r.target),
                sure: true,
            });
        }
    }
    if let Some(what) = words(written(base, argv)) {
        return Some(Op::Tamper { what, sure: true });
    }
    // The files sed's `w` commands write (truncated when it starts).
    if matches!(base, "sed" | "gsed") {
        let files = crate::policy::sed_files::written(&argv[1..]);
        if let Some(what) = words(files.iter().collect()) {
            return Some(Op::Tamper { what, sure: true });
        }
    }
    if let Some(op) = find_reaching_git_dir(argv, &cmd.cwd) {
        return Some(op);
    }
    if base == "git" || base == "git-dibs" {
        return git::classify_git(argv, cmd);
    }
    if let Some(sub) = base.strip_prefix("git-") {
        let rest: Vec<&String> = argv.iter().skip(1).collect();
        return rewrite::classify(sub, &rest, cmd.dynamic.get(1..).unwrap_or_default());
    }
    None
}

/// The history rewrite `SUB ARGS…` (git's arguments from the subcommand on, an alias
/// expanded) performs over `refs/dibs/`, if any.
pub(crate) fn classify_rewrite(args: &[String]) -> Option<Op> {
    let (sub, rest) = args.split_first()?;
    let rest: Vec<&String> = rest.iter().collect();
    rewrite::classify(sub, &rest, &[])
}

/// Refuse a push that would send git-dibs's snapshots to a remote.
pub(crate) fn check_send(g: &Guarded) -> Verdict {
    Verdict::Block(Finding::new(
        RULE,
        format!(
            "git-dibs refused `{}`: it would send git-dibs's snapshots (refs/dibs/snapshots/) to \
             the remote. They never leave this machine: they hold whatever agents wrote, ignored \
             files and secrets too. Push branches and tags by name (`git push origin BRANCH`, \
             `--all`, `--tags`) instead.",
            g.display
        ),
    ))
}

/// Refuse (or, when its words cannot tell, ask about) a history rewrite whose ref selection
/// reaches `refs/dibs/`.
pub(crate) fn check_rewrite(g: &Guarded, what: &str, instead: &str, sure: bool) -> Verdict {
    let finding = Finding::new(
        RULE,
        format!(
            "git-dibs refused `{}`: {what}, so it would rewrite git-dibs's snapshot chains and \
             the refs that keep the sessions' unpushed commits, and their work is lost at the \
             next gc. Name the refs to rewrite instead: {instead}.",
            g.display
        ),
    );
    if sure {
        Verdict::Block(finding)
    } else {
        Verdict::Ask(finding)
    }
}

/// Refuse (or, when it cannot be told, ask about) an operation on git-dibs's own state.
pub(crate) fn check(g: &Guarded, what: &str, sure: bool) -> Verdict {
    let reason = format!(
        "git-dibs refused `{}`: it would delete, move or rewrite {what}, which records who holds \
         what and keeps every session's work guarded. Leave git-dibs's state and wiring alone; \
         if it is broken, run `git dibs doctor`, and only the person may unwire it (`git dibs \
         uninstall`).",
        g.display
    );
    let finding = Finding::new(RULE, reason);
    if sure {
        Verdict::Block(finding)
    } else {
        Verdict::Ask(finding)
    }
}

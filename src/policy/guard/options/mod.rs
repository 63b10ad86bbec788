//! Long options spelled the way git's parse-options and GNU getopt accept them: an unambiguous
//! prefix names the option (`--har` is `--hard`, `--del --forc` is `--delete --force`, `rm
//! --rec` is `rm --recursive`). Arguments are rewritten to the full names before any rule
//! reads them, so every rule sees one spelling.
//!
//! The git subcommands' option names are in [`git_longs`].

mod copiers;
mod git_longs;

pub(crate) use copiers::copier_args;

use git_longs::LONGS;

/// Long options of GNU `rm`.
pub(crate) const RM_LONGS: &[&str] = &[
    "force",
    "interactive",
    "one-file-system",
    "no-preserve-root",
    "preserve-root",
    "recursive",
    "dir",
    "verbose",
    "help",
    "version",
];

/// The full spelling of `word` (`--pre[=value]`) among `known`: itself when exact, the one
/// option it is a prefix of when unambiguous, else unchanged.
pub(crate) fn full(word: &str, known: &[&str]) -> String {
    let Some(body) = word.strip_prefix("--").filter(|b| !b.is_empty()) else {
        return word.to_owned();
    };
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    if known.contains(&name) {
        return word.to_owned();
    }
    let mut hits = known.iter().filter(|k| k.starts_with(name));
    let (Some(only), None) = (hits.next(), hits.next()) else {
        return word.to_owned();
    };
    match value {
        Some(v) => format!("--{only}={v}"),
        None => format!("--{only}"),
    }
}

/// Rewrite the long options of a git subcommand's arguments (`args[0]` is the subcommand, or
/// for `worktree`, `stash`, the verb follows it) to their full spelling, up to `--`.
pub(crate) fn canonical_git(args: &mut [String]) {
    let Some(sub) = args.first() else { return };
    let Some((_, known)) = LONGS.iter().find(|(s, _)| *s == sub.as_str()) else {
        return;
    };
    canonical(&mut args[1..], known);
}

/// Rewrite every long option before `--` to its full spelling among `known`.
pub(crate) fn canonical(args: &mut [String], known: &[&str]) {
    for a in args.iter_mut() {
        if a == "--" {
            return;
        }
        if a.starts_with("--") {
            *a = full(a, known);
        }
    }
}

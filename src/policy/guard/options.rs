//! Long options spelled the way git's parse-options and GNU getopt accept them: an unambiguous
//! prefix names the option (`--har` is `--hard`, `--del --forc` is `--delete --force`, `rm
//! --rec` is `rm --recursive`). Arguments are rewritten to the full names before any rule
//! reads them, so every rule sees one spelling.

/// Long options of the commands the guard reads, by git subcommand (or program).
const LONGS: &[(&str, &[&str])] = &[
    (
        "add",
        &[
            "all",
            "update",
            "dry-run",
            "force",
            "interactive",
            "patch",
            "edit",
            "intent-to-add",
            "refresh",
            "ignore-errors",
            "ignore-missing",
            "ignore-removal",
            "no-all",
            "no-ignore-removal",
            "no-warn-embedded-repo",
            "renormalize",
            "chmod",
            "verbose",
            "sparse",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "commit",
        &[
            "all",
            "include",
            "only",
            "patch",
            "interactive",
            "message",
            "file",
            "reuse-message",
            "reedit-message",
            "fixup",
            "squash",
            "author",
            "date",
            "template",
            "cleanup",
            "trailer",
            "dry-run",
            "amend",
            "no-edit",
            "edit",
            "signoff",
            "no-signoff",
            "no-verify",
            "verify",
            "allow-empty",
            "allow-empty-message",
            "quiet",
            "verbose",
            "status",
            "no-status",
            "gpg-sign",
            "no-gpg-sign",
            "untracked-files",
            "reset-author",
            "short",
            "branch",
            "porcelain",
            "long",
            "null",
            "no-post-rewrite",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "stash",
        &[
            "include-untracked",
            "no-include-untracked",
            "all",
            "staged",
            "keep-index",
            "no-keep-index",
            "patch",
            "quiet",
            "message",
            "only-untracked",
            "index",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "reset",
        &[
            "hard",
            "soft",
            "mixed",
            "merge",
            "keep",
            "quiet",
            "no-quiet",
            "patch",
            "intent-to-add",
            "refresh",
            "no-refresh",
            "recurse-submodules",
            "no-recurse-submodules",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "checkout",
        &[
            "force",
            "ours",
            "theirs",
            "merge",
            "conflict",
            "detach",
            "orphan",
            "track",
            "no-track",
            "guess",
            "no-guess",
            "overlay",
            "no-overlay",
            "quiet",
            "progress",
            "no-progress",
            "ignore-skip-worktree-bits",
            "ignore-other-worktrees",
            "recurse-submodules",
            "no-recurse-submodules",
            "patch",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "switch",
        &[
            "create",
            "force-create",
            "detach",
            "guess",
            "no-guess",
            "force",
            "discard-changes",
            "merge",
            "conflict",
            "quiet",
            "progress",
            "no-progress",
            "track",
            "no-track",
            "orphan",
            "ignore-other-worktrees",
            "recurse-submodules",
            "no-recurse-submodules",
        ],
    ),
    (
        "restore",
        &[
            "source",
            "staged",
            "worktree",
            "ours",
            "theirs",
            "merge",
            "conflict",
            "overlay",
            "no-overlay",
            "ignore-unmerged",
            "ignore-skip-worktree-bits",
            "recurse-submodules",
            "no-recurse-submodules",
            "patch",
            "quiet",
            "progress",
            "no-progress",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "clean",
        &["force", "dry-run", "quiet", "exclude", "interactive"],
    ),
    (
        "rm",
        &[
            "cached",
            "force",
            "recursive",
            "dry-run",
            "quiet",
            "ignore-unmatch",
            "sparse",
            "pathspec-from-file",
            "pathspec-file-nul",
        ],
    ),
    (
        "branch",
        &[
            "delete",
            "force",
            "remotes",
            "all",
            "list",
            "move",
            "copy",
            "set-upstream-to",
            "unset-upstream",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
            "sort",
            "format",
            "track",
            "no-track",
            "create-reflog",
            "edit-description",
            "show-current",
            "verbose",
            "quiet",
            "abbrev",
            "no-abbrev",
            "column",
            "no-column",
            "color",
            "no-color",
            "ignore-case",
            "omit-empty",
            "recurse-submodules",
        ],
    ),
    (
        "push",
        &[
            "delete",
            "prune",
            "repo",
            "all",
            "branches",
            "mirror",
            "tags",
            "force",
            "force-with-lease",
            "no-force-with-lease",
            "force-if-includes",
            "dry-run",
            "porcelain",
            "set-upstream",
            "follow-tags",
            "atomic",
            "push-option",
            "receive-pack",
            "exec",
            "thin",
            "no-thin",
            "verbose",
            "quiet",
            "progress",
            "signed",
            "no-verify",
            "verify",
            "ipv4",
            "ipv6",
            "recurse-submodules",
        ],
    ),
    (
        "worktree",
        &["force", "lock", "reason", "expire", "verbose"],
    ),
    (
        "update-ref",
        &[
            "delete",
            "no-deref",
            "stdin",
            "create-reflog",
            "message",
            "batch-updates",
        ],
    ),
    (
        "checkout-index",
        &[
            "all",
            "force",
            "index",
            "quiet",
            "no-create",
            "prefix",
            "stage",
            "temp",
            "stdin",
            "ignore-skip-worktree-bits",
        ],
    ),
    (
        "read-tree",
        &[
            "reset",
            "merge",
            "update",
            "dry-run",
            "prefix",
            "index-output",
            "trivial",
            "aggressive",
            "empty",
            "quiet",
            "no-sparse-checkout",
            "recurse-submodules",
        ],
    ),
    (
        "apply",
        &[
            "reverse",
            "index",
            "cached",
            "check",
            "stat",
            "numstat",
            "summary",
            "3way",
            "reject",
            "include",
            "exclude",
            "directory",
            "unsafe-paths",
            "allow-empty",
            "recount",
            "verbose",
            "quiet",
            "whitespace",
            "ignore-whitespace",
            "inaccurate-eof",
        ],
    ),
    (
        "rebase",
        &[
            "exec",
            "interactive",
            "onto",
            "root",
            "autosquash",
            "continue",
            "abort",
            "skip",
            "quit",
            "edit-todo",
            "keep-base",
            "merge",
            "strategy",
            "autostash",
            "no-autostash",
        ],
    ),
];

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

#[cfg(test)]
mod tests {
    use super::*;

    fn git(line: &str) -> Vec<String> {
        let mut v: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        canonical_git(&mut v);
        v
    }

    #[test]
    fn prefixes_resolve_as_git_and_getopt_do() {
        assert_eq!(git("reset --har"), ["reset", "--hard"]);
        assert_eq!(git("add --al"), ["add", "--all"]);
        assert_eq!(
            git("branch --del --forc x"),
            ["branch", "--delete", "--force", "x"]
        );
        assert_eq!(
            git("push --del origin x"),
            ["push", "--delete", "origin", "x"]
        );
        assert_eq!(git("stash --include-u"), ["stash", "--include-untracked"]);
        assert_eq!(git("reset -- --har"), ["reset", "--", "--har"]);
        // Ambiguous: left as written (git refuses it too).
        assert_eq!(git("branch --co x"), ["branch", "--co", "x"]);
        assert_eq!(full("--rec", RM_LONGS), "--recursive");
        assert_eq!(full("--r", RM_LONGS), "--recursive");
        assert_eq!(full("--force=1", RM_LONGS), "--force=1");
    }
}

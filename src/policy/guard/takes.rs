//! Which git commands take, discard or switch the branch under a live peer's files (rule 5),
//! read from their options and operands: `add`, `commit`, `stash`, `reset`, `checkout`,
//! `restore`, `switch`, `clean` and the rest of the family.

use super::Op;
use super::peers::Take;
use super::resets::{self, staged_only};

/// Split options from operands; `values` are short options (and long ones) taking a value.
pub(super) struct Parsed {
    flags: Vec<String>,
    pub(super) operands: Vec<String>,
    pub(super) after_dashdash: Option<Vec<String>>,
}

/// `short_values` take a value (attached or the next word); `short_optional` take one only when
/// attached (`-uno`), so they end the cluster without eating the next word.
pub(super) fn parse(
    args: &[String],
    short_values: &str,
    short_optional: &str,
    long_values: &[&str],
) -> Parsed {
    let mut p = Parsed {
        flags: Vec::new(),
        operands: Vec::new(),
        after_dashdash: None,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(rest) = &mut p.after_dashdash {
            rest.push(a.clone());
        } else if a == "--" {
            p.after_dashdash = Some(Vec::new());
        } else if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            if long_values.contains(&name) && !long.contains('=') {
                i += 1;
            }
            p.flags.push(format!("--{name}"));
        } else if a.starts_with('-') && a.len() > 1 {
            for (j, c) in a.char_indices().skip(1) {
                p.flags.push(format!("-{c}"));
                if short_optional.contains(c) {
                    break;
                }
                if short_values.contains(c) {
                    if j + 1 == a.len() {
                        i += 1;
                    }
                    break;
                }
            }
        } else {
            p.operands.push(a.clone());
        }
    }
    p
}

impl Parsed {
    pub(super) fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }

    /// Operands and everything after `--`.
    pub(super) fn specs(&self) -> Vec<String> {
        let mut out = self.operands.clone();
        out.extend(self.after_dashdash.iter().flatten().cloned());
        out
    }
}

/// The rule-5 commands: what they take, or that they switch the branch.
pub(crate) fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    let (sub, rest) = args.split_first()?;
    let op = match sub.as_str() {
        "add" => {
            let p = parse(rest, "", "", &["chmod", "pathspec-from-file"]);
            if p.has(&["-n", "--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            let all = p.has(&["-A", "--all"]);
            let update = p.has(&["-u", "--update"]);
            // Patch modes with no pathspec offer every tracked change (`-i` untracked files
            // too), as `.` would.
            let hunks = p.has(&["-p", "--patch", "-e", "--edit"]);
            let interactive = p.has(&["-i", "--interactive"]);
            if specs.is_empty() && !all && !update && !open && !hunks && !interactive {
                return None;
            }
            let untracked = !update && (!hunks || interactive || all || !specs.is_empty());
            Op::Take(vec![Take::new(true, untracked, specs)])
        }
        "commit" => {
            let p = parse(
                rest,
                "mFCct",
                "uS",
                &[
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
                    "pathspec-from-file",
                ],
            );
            if p.has(&["--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            let mut takes = Vec::new();
            let hunks = p.has(&["-p", "--patch", "--interactive"]);
            if p.has(&["-a", "--all"]) || (hunks && specs.is_empty()) {
                takes.push(Take::new(true, false, Vec::new()));
            } else if !specs.is_empty() {
                takes.push(Take::new(true, false, specs.clone()));
            }
            if takes.is_empty() || p.has(&["-i", "--include"]) {
                takes.push(Take {
                    staged_only: true,
                    ..Take::new(false, false, Vec::new())
                });
            }
            return Some((Op::Take(takes), specs));
        }
        // The stash's entries are its reflog: deleting the ref or its entries drops them.
        "update-ref"
            if rest.iter().any(|a| a == "-d" || a == "--delete")
                && rest.iter().any(|a| a == "refs/stash") =>
        {
            return Some((Op::StashDrop { all: true }, Vec::new()));
        }
        "reflog" => {
            let stash = |a: &String| a.starts_with("stash@{") || a.starts_with("refs/stash");
            return match rest.first().map(String::as_str) {
                Some("delete") if rest.iter().any(stash) => {
                    Some((Op::StashDrop { all: false }, Vec::new()))
                }
                Some("expire")
                    if rest
                        .iter()
                        .any(|a| a == "--all" || a == "stash" || stash(a)) =>
                {
                    Some((Op::StashDrop { all: true }, Vec::new()))
                }
                _ => None,
            };
        }
        "stash" => {
            let (verb, opts) = match rest.first().map(String::as_str) {
                None => ("push", rest),
                Some("push") => ("push", &rest[1..]),
                Some("save") => ("save", &rest[1..]),
                Some(o) if o.starts_with('-') => ("push", rest),
                Some("drop") => return Some((Op::StashDrop { all: false }, Vec::new())),
                Some("clear") => return Some((Op::StashDrop { all: true }, Vec::new())),
                Some(_) => return None,
            };
            let p = parse(opts, "m", "", &["message", "pathspec-from-file"]);
            let specs = if verb == "push" {
                p.specs()
            } else {
                Vec::new()
            };
            let untracked = p.has(&["-u", "--include-untracked", "-a", "--all"]);
            let take = if p.has(&["-S", "--staged"]) {
                Take {
                    staged_only: true,
                    ..Take::new(false, false, specs.clone())
                }
            } else {
                Take::new(true, untracked, specs.clone())
            };
            return Some((Op::Take(vec![take]), specs));
        }
        "reset" => resets::reset(rest)?,
        "merge" | "cherry-pick" | "revert" | "am" | "rebase"
            if resets::sequencer(sub, rest).is_some() =>
        {
            resets::sequencer(sub, rest)?
        }
        "bisect" => resets::bisect(rest)?,
        // `--autostash` stashes every tracked change first, and a conflict on the way leaves
        // it in the stash with conflict markers in the files: `git stash` by another name.
        "merge" | "rebase" | "pull"
            if rest.iter().any(|a| a == "--autostash")
                && !rest.iter().any(|a| a == "--no-autostash") =>
        {
            Op::Take(vec![Take::new(true, false, Vec::new())])
        }
        // The same stash when git config asks for it (`rebase.autoStash`, `merge.autoStash`):
        // judged once the config is read.
        "merge" | "rebase" | "pull" if !rest.iter().any(|a| no_autostash(a)) => Op::Autostash {
            rebase: rebases(sub, rest),
        },
        "mv" => {
            // Sources move away; the destination is written over only with `-f` (git refuses
            // an existing one otherwise): the file it names, or the source's name in it when it
            // is a folder. Moving into a folder takes nothing else of it.
            let p = parse(rest, "", "", &[]);
            if p.has(&["-n", "--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            let force = p.has(&["-f", "--force"]);
            let literal = |s: &str| format!(":(literal){s}");
            let (sources, dest) = match specs.split_last() {
                Some((dest, sources)) if !sources.is_empty() => (sources, Some(dest)),
                _ => (&specs[..], None),
            };
            let mut paths: Vec<String> = sources.iter().map(|s| literal(s)).collect();
            if let Some(dest) = dest.filter(|_| force) {
                if sources.len() == 1 && !dest.ends_with('/') {
                    paths.push(literal(dest));
                }
                for s in sources {
                    let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                    paths.push(literal(&format!("{}/{name}", dest.trim_end_matches('/'))));
                }
            }
            if paths.is_empty() {
                return None;
            }
            Op::Take(vec![Take::new(true, force, paths)])
        }
        "checkout" => return resets::checkout(rest, open),
        "restore" => {
            let p = parse(rest, "s", "", &["source", "pathspec-from-file"]);
            let staged = p.has(&["-S", "--staged"]);
            let worktree = p.has(&["-W", "--worktree"]);
            let specs = p.specs();
            if specs.is_empty() && !open && !resets::patch_mode(&p) {
                return None;
            }
            // `--staged` alone puts the index back: what is staged is lost.
            let take = if staged && !worktree {
                resets::unstaged(specs.clone())
            } else {
                Take::new(true, false, specs.clone())
            };
            return Some((Op::Take(vec![take]), specs));
        }
        "clean" => {
            let p = parse(rest, "e", "", &["exclude"]);
            if p.has(&["-n", "--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            // `-X` deletes only ignored files (no peer's: only git-dibs's own wiring may be).
            let only_ignored = p.has(&["-X"]);
            let take = Take {
                prefix_default: true,
                ignored: only_ignored || p.has(&["-x"]),
                ..Take::new(false, !only_ignored, specs.clone())
            };
            return Some((Op::Take(vec![take]), specs));
        }
        "switch" => {
            // `switch -c NEW` from HEAD leaves every file as it is.
            let p = parse(rest, "cC", "", &["create", "force-create", "orphan"]);
            let create = p.has(&["-c", "--create"]);
            if create && p.operands.is_empty() && !p.has(&["--discard-changes", "-f"]) {
                return None;
            }
            Op::Switch
        }
        "symbolic-ref" => {
            // Pointing HEAD at another branch changes no file, but the files then stand against
            // another commit: the branch changes under everyone in the worktree.
            let p = parse(rest, "m", "", &[]);
            let writes = p.has(&["-d", "--delete"]) || p.operands.len() == 2;
            if !writes || p.operands.first().map(String::as_str) != Some("HEAD") {
                return None;
            }
            Op::Switch
        }
        "rm" => {
            let p = parse(rest, "", "", &["pathspec-from-file"]);
            let cached = p.has(&["--cached"]);
            if !(cached || p.has(&["-f", "--force"])) || p.has(&["-n", "--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            if specs.is_empty() && !open {
                return None;
            }
            // `--cached` drops the index entries only: what is staged there is lost.
            Op::Take(vec![if cached {
                resets::unstaged(specs)
            } else {
                Take::new(true, false, specs)
            }])
        }
        "checkout-index" => {
            let p = parse(rest, "", "", &["prefix", "stage"]);
            if !p.has(&["-f", "--force"]) {
                return None;
            }
            let specs = p.specs();
            if specs.is_empty() && !p.has(&["-a", "--all"]) && !open {
                return None;
            }
            Op::Take(vec![Take::new(true, false, specs)])
        }
        // Files left outside the new patterns go from the worktree when their copy matches
        // the index: a peer's staged file among them is then only in the index.
        "sparse-checkout"
            if matches!(
                rest.first().map(String::as_str),
                Some("set" | "add" | "reapply" | "init")
            ) =>
        {
            Op::Take(vec![staged_only(Vec::new())])
        }
        "read-tree" => resets::read_tree(rest)?,
        "update-index" => resets::update_index(rest)?,
        "apply" => {
            // What `git apply -R` reverts, rewritten by the classifier as `--reverse-paths P...`.
            let p = parse(
                rest,
                "pC",
                "",
                &["directory", "exclude", "include", "whitespace"],
            );
            if !p.has(&["-R", "--reverse"])
                || p.has(&["--cached", "--check", "--stat", "--numstat", "--summary"])
            {
                return None;
            }
            let paths: Vec<String> = p.after_dashdash.clone().unwrap_or_default();
            if paths.is_empty() && !open {
                // Nothing known of the patch: every tracked file may be reverted.
                return Some((
                    Op::Take(vec![Take::new(true, false, Vec::new())]),
                    vec!["$patch".into()],
                ));
            }
            Op::Take(vec![Take::new(true, false, paths)])
        }
        _ => return None,
    };
    let targets = match &op {
        Op::Take(t) => t
            .iter()
            .flat_map(|t| t.paths.iter().flatten().cloned())
            .collect(),
        _ => Vec::new(),
    };
    Some((op, targets))
}

/// Options under which `merge`/`rebase`/`pull` stash nothing: `--no-autostash`, a look or a step
/// within an operation already under way, a dry run.
fn no_autostash(a: &str) -> bool {
    matches!(
        a,
        "--no-autostash"
            | "--continue"
            | "--skip"
            | "--quit"
            | "--edit-todo"
            | "--show-current-patch"
            | "--dry-run"
            | "-h"
            | "--help"
    )
}

/// Whether the command rebases (`rebase`, `pull --rebase`), merges (`merge`, `pull
/// --no-rebase`), or, for a bare `pull`, leaves it to the config (`None`).
fn rebases(sub: &str, rest: &[String]) -> Option<bool> {
    match sub {
        "rebase" => Some(true),
        "merge" => Some(false),
        _ => rest.iter().rev().find_map(|a| match a.as_str() {
            "-r" | "--rebase" => Some(true),
            "--no-rebase" | "--rebase=false" | "--ff-only" => Some(false),
            a if a.starts_with("--rebase=") => Some(true),
            _ => None,
        }),
    }
}

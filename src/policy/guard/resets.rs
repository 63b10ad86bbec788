//! The rule-5 commands that put files or the index back to a commit: `reset` in each mode,
//! `read-tree`, `checkout` (of paths, or patch mode), a sequencer's `--abort` and `--skip`,
//! and `bisect`, which checks commits out. Patch modes with no pathspec (`checkout -p`,
//! `restore -p`, `reset -p`) take the whole tree, as `.` would; unstaging (`git reset`,
//! `restore --staged`, `rm --cached`, `read-tree`, `update-index --force-remove`) takes what is
//! staged.

use super::Op;
use super::peers::Take;
use super::takes::{Parsed, parse};

/// Files with staged changes among `paths` (all when empty).
pub(super) fn staged_only(paths: Vec<String>) -> Take {
    Take {
        staged_only: true,
        ..Take::new(false, false, paths)
    }
}

/// What is staged among `paths` (all when empty) put back in the index only: unstaged.
pub(super) fn unstaged(paths: Vec<String>) -> Take {
    Take {
        unstages: true,
        ..staged_only(paths)
    }
}

/// `paths` whose first one may be a revision (`git reset REV`, `git checkout -p REV`): when it
/// names a commit it is no path, and with no other paths the whole tree is taken.
fn rev_first(mut take: Take) -> Take {
    take.rev_first = take.paths.is_some();
    take
}

/// `git reset [MODE] [REV] [[--] PATHS]`: what it reverts or unstages. The branch it moves is
/// the branch rule's ([`super::branch`]).
pub(super) fn reset(rest: &[String]) -> Option<Op> {
    let p = parse(rest, "", "", &["pathspec-from-file"]);
    let specs = p.specs();
    let take = if p.has(&["--hard"]) {
        Take::new(true, false, Vec::new())
    } else if p.has(&["--soft"]) {
        return None;
    } else if p.has(&["--merge", "--keep"]) {
        // `--merge` reverts staged files (and deletes staged new ones); `--keep` drops what is
        // staged of a file whose worktree copy differs.
        staged_only(Vec::new())
    } else {
        // Mixed (the default) and `-p`: the index is put back, so what is staged is lost.
        match &p.after_dashdash {
            Some(after) if !after.is_empty() => unstaged(after.clone()),
            Some(_) => unstaged(Vec::new()),
            None => rev_first(unstaged(specs)),
        }
    };
    Some(Op::Take(vec![take]))
}

/// The one commit `git reset ARGS` moves the checked-out branch to, when it names one: a
/// single operand before `--` and no paths after it (`git reset --hard HEAD~1`, `git reset
/// origin/main`). Whether that operand is a commit or a path is for the facts to tell.
pub(super) fn reset_target(rest: &[String]) -> Option<String> {
    let p = parse(rest, "", "", &["pathspec-from-file"]);
    if p.has(&["-p", "--patch", "--pathspec-from-file"]) {
        return None;
    }
    match (p.operands.as_slice(), &p.after_dashdash) {
        ([one], None) => Some(one.clone()),
        ([one], Some(after)) if after.is_empty() => Some(one.clone()),
        _ => None,
    }
}

/// `git read-tree`: with `-u --reset` every tracked file is reverted; otherwise the index is
/// replaced by the trees read, so what is staged is lost (`git read-tree HEAD`), unless it
/// only looks (`-n`) or writes another index file (`--index-output` naming a file other than
/// an `index`).
pub(super) fn read_tree(rest: &[String]) -> Option<Op> {
    let p = parse(rest, "", "", &["prefix", "index-output"]);
    let other_index = rest
        .iter()
        .zip(rest.iter().skip(1).map(Some).chain([None]))
        .find_map(|(a, next)| match a.strip_prefix("--index-output") {
            Some("") => next.map(String::as_str),
            Some(v) => v.strip_prefix('='),
            None => None,
        })
        .is_some_and(|f| {
            std::path::Path::new(f)
                .file_name()
                .is_none_or(|n| n != "index")
        });
    if p.has(&["-n", "--dry-run"]) || other_index {
        return None;
    }
    if p.has(&["-u", "--update"]) && p.has(&["--reset"]) {
        return Some(Op::Take(vec![Take::new(true, false, Vec::new())]));
    }
    if p.has(&["--prefix"]) {
        // Adds a tree below a folder and refuses to write over entries already there.
        return None;
    }
    let update = p.has(&["-u", "--update"]);
    Some(Op::Take(vec![if update {
        staged_only(Vec::new())
    } else {
        unstaged(Vec::new())
    }]))
}

/// A sequencer step that resets: `--abort` of a merge, cherry-pick, revert or am is `reset
/// --merge`, a rebase's is a hard reset to where it started; `--skip` drops the step under
/// way the same way.
pub(super) fn sequencer(sub: &str, rest: &[String]) -> Option<Op> {
    let resets = rest.iter().any(|a| a == "--abort")
        || (sub != "merge" && rest.iter().any(|a| a == "--skip"));
    if !resets {
        return None;
    }
    Some(Op::Take(vec![if sub == "rebase" {
        Take::new(true, false, Vec::new())
    } else {
        staged_only(Vec::new())
    }]))
}

/// `git bisect`: each step checks out another commit (`start` with its bad and good commits,
/// `good`, `bad`, `skip`, `reset`, `replay`, `run`), moving the branch under everyone in the
/// worktree. `start --no-checkout` and the verbs that only look change no file.
pub(super) fn bisect(rest: &[String]) -> Option<Op> {
    let verb = rest.first().map_or("", String::as_str);
    let looks = matches!(
        verb,
        "" | "log" | "visualize" | "view" | "terms" | "help" | "-h" | "--help"
    );
    if looks {
        return None;
    }
    if verb == "start" {
        // Only with its bad and a good commit given does `start` check one out.
        let revs = rest[1..]
            .iter()
            .take_while(|a| *a != "--")
            .filter(|a| !a.starts_with('-'))
            .count();
        if revs < 2 || rest.iter().any(|a| a == "--no-checkout") {
            return None;
        }
    }
    Some(Op::Switch)
}

/// Patch mode (`-p`, `--patch`) of a command that reverts files: every hunk of every tracked
/// file is offered, so no pathspec means the whole tree.
pub(super) fn patch_mode(p: &Parsed) -> bool {
    p.has(&["-p", "--patch"])
}

/// `git checkout ARGS`: a switch, files taken back from a commit, or (patch mode) hunks.
pub(super) fn checkout(rest: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    let p = parse(
        rest,
        "bB",
        "t",
        &["orphan", "conflict", "pathspec-from-file"],
    );
    let specs = p.specs();
    if patch_mode(&p) {
        // `checkout -p [REV] [--] [PATHS]`.
        let take = match &p.after_dashdash {
            Some(after) => Take::new(true, false, after.clone()),
            None => rev_first(Take::new(true, false, p.operands.clone())),
        };
        return Some((Op::Take(vec![take]), specs));
    }
    if p.has(&["-b", "-B", "--orphan", "--detach"]) {
        // `checkout -b NEW` from HEAD leaves every file as it is (`-B` over an existing branch
        // is the branch rule's).
        if p.has(&["-b", "-B"]) && p.operands.is_empty() && !p.has(&["-f", "--force"]) {
            return None;
        }
        return Some((Op::Switch, Vec::new()));
    }
    if let Some(after) = &p.after_dashdash {
        if after.is_empty() {
            return Some((Op::Switch, specs));
        }
        return Some((Op::Take(vec![Take::new(true, false, after.clone())]), specs));
    }
    match p.operands.split_first() {
        None if p.has(&["-f", "--force"]) || open => {
            Some((Op::Take(vec![Take::new(true, false, Vec::new())]), specs))
        }
        None => None,
        Some((first, _)) if first == "-" => Some((Op::Switch, specs)),
        Some((first, others)) => Some((
            Op::Checkout {
                first: first.clone(),
                rest: others.to_vec(),
            },
            specs,
        )),
    }
}

/// Long options of `git update-index` (it takes unambiguous prefixes, as parse-options does).
pub(super) const UPDATE_INDEX_LONGS: &[&str] = &[
    "add",
    "remove",
    "force-remove",
    "replace",
    "refresh",
    "really-refresh",
    "cacheinfo",
    "index-info",
    "chmod",
    "assume-unchanged",
    "no-assume-unchanged",
    "skip-worktree",
    "no-skip-worktree",
    "ignore-skip-worktree-entries",
    "fsmonitor-valid",
    "no-fsmonitor-valid",
    "unmerged",
    "ignore-missing",
    "ignore-submodules",
    "info-only",
    "again",
    "unresolve",
    "stdin",
    "verbose",
    "index-version",
    "show-index-version",
    "split-index",
    "no-split-index",
    "untracked-cache",
    "no-untracked-cache",
    "test-untracked-cache",
    "force-untracked-cache",
    "fsmonitor",
    "no-fsmonitor",
    "clear-resolve-undo",
    "force-write-index",
    "quiet",
];

/// `git update-index ARGS`: its options apply, in order, to the paths after them. A path's
/// worktree copy is staged (as `git add PATH`, with `--add` new files too), unless
/// `--force-remove` drops its entry (as `rm --cached`) or a marking option (`--assume-unchanged`,
/// `--skip-worktree`, ...) only flags it; `--cacheinfo` writes an entry over what is staged,
/// `--again` restages every staged path from its worktree copy. Paths read from standard input
/// (`--stdin`, `--index-info`) arrive as arguments after `--stdin-paths` or `--index-info-paths`
/// (`$stdin` when unknown).
pub(super) fn update_index(rest: &[String]) -> Option<Op> {
    let mut args = rest.to_vec();
    super::options::canonical(&mut args, UPDATE_INDEX_LONGS);
    let (mut add, mut drop, mut marks) = (false, false, false);
    let (mut swept, mut swept_new, mut dropped) = (Vec::new(), Vec::new(), Vec::new());
    let mut again = false;
    let mut from_stdin = Vec::new();
    let mut ended = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if !ended && a.starts_with('-') && a.len() > 1 {
            match a.as_str() {
                "--" => ended = true,
                "--add" => add = true,
                "--force-remove" => drop = true,
                "--assume-unchanged"
                | "--no-assume-unchanged"
                | "--skip-worktree"
                | "--no-skip-worktree"
                | "--fsmonitor-valid"
                | "--no-fsmonitor-valid" => marks = true,
                "-g" | "--again" => again = true,
                "--index-version" => {
                    it.next();
                }
                // `--cacheinfo MODE,SHA,PATH` or `--cacheinfo MODE SHA PATH`.
                "--cacheinfo" => match it.next() {
                    Some(v) if v.contains(',') => {
                        dropped.extend(v.splitn(3, ',').nth(2).map(str::to_owned));
                    }
                    Some(_) => dropped.extend(it.nth(1).cloned()),
                    None => {}
                },
                // What `--stdin` read: staged as the options in force at the end say.
                "--stdin-paths" => from_stdin.extend(it.by_ref().cloned()),
                "--index-info-paths" => dropped.extend(it.by_ref().cloned()),
                _ => {
                    if let Some(v) = a.strip_prefix("--cacheinfo=") {
                        dropped.extend(v.splitn(3, ',').nth(2).map(str::to_owned));
                    }
                }
            }
            continue;
        }
        if marks {
            continue;
        }
        if drop {
            dropped.push(a.clone());
        } else if add {
            swept_new.push(a.clone());
        } else {
            swept.push(a.clone());
        }
    }
    if !marks {
        match (drop, add) {
            (true, _) => dropped.extend(from_stdin),
            (false, true) => swept_new.extend(from_stdin),
            (false, false) => swept.extend(from_stdin),
        }
    }
    let literal = |ps: Vec<String>| -> Vec<String> {
        ps.into_iter()
            .map(|p| {
                if super::classify::has_expansion(&p) {
                    p
                } else {
                    format!(":(literal){p}")
                }
            })
            .collect()
    };
    let mut takes = Vec::new();
    if !swept.is_empty() {
        takes.push(Take::new(true, false, literal(swept)));
    }
    if !swept_new.is_empty() {
        takes.push(Take::new(true, true, literal(swept_new)));
    }
    if !dropped.is_empty() {
        takes.push(unstaged(literal(dropped)));
    }
    if again {
        takes.push(staged_only(Vec::new()));
    }
    (!takes.is_empty()).then_some(Op::Take(takes))
}

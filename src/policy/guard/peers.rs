//! Rule 5: another live session's uncommitted files. Sweeping them into your own commit (`git
//! add -A`/`.`/`-u`, `git add PATH`, `commit -a`, `commit` with their files staged), taking or
//! discarding them (`stash`, `reset --hard`, `checkout .`, `restore`, `clean`), or switching the
//! branch under them is refused. Your own files named by explicit path always pass; with no live
//! peer holding dirty files in the worktree, nothing here applies.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::pathspec::{self, Spec};
use super::{Finding, Guarded, Op, Verdict, list, show_path};
use crate::git::FileState;

/// Which files of the worktree a command takes or discards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    /// Tracked files with changes (staged or not).
    pub tracked: bool,
    /// Only files with staged changes (`git commit` without `-a`, `stash --staged`).
    pub staged_only: bool,
    /// Untracked files.
    pub untracked: bool,
    /// Pathspecs as written; `None` means the whole tree.
    pub paths: Option<Vec<String>>,
    /// `true` when no pathspec means the command's own directory rather than the whole tree.
    pub prefix_default: bool,
    /// Pathspecs match case-insensitively (`--icase-pathspecs`, `GIT_ICASE_PATHSPECS`).
    pub icase: bool,
}

impl Take {
    pub(super) fn new(tracked: bool, untracked: bool, paths: Vec<String>) -> Take {
        Take {
            tracked,
            staged_only: false,
            untracked,
            paths: (!paths.is_empty()).then_some(paths),
            prefix_default: false,
            icase: false,
        }
    }

    fn kind_matches(&self, f: &FileState) -> bool {
        if f.untracked() {
            self.untracked
        } else {
            self.tracked || (self.staged_only && f.staged())
        }
    }
}

/// A live peer and its files that are dirty now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    /// How it is named in messages (host, short id, label).
    pub name: String,
    /// Its files in this worktree that are modified, staged or untracked now.
    pub files: Vec<FileState>,
}

/// The worktree a command acts on, with its live peers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PeerFacts {
    /// The worktree root.
    pub root: PathBuf,
    /// The branch checked out there.
    pub branch: Option<String>,
    /// The command's directory relative to the root (`""` at the root).
    pub prefix: String,
    /// Live peers holding dirty files here.
    pub peers: Vec<Peer>,
    /// Files the session itself holds here.
    pub mine: BTreeSet<String>,
    /// For `git checkout X ...`: whether X names a commit.
    pub first_is_rev: bool,
}

impl PeerFacts {
    /// Whether some live peer holds a dirty file here.
    pub fn has_dirty_peers(&self) -> bool {
        self.peers.iter().any(|p| !p.files.is_empty())
    }

    fn place(&self) -> String {
        match &self.branch {
            Some(b) => format!("worktree {} (branch {b})", show_path(&self.root)),
            None => format!("worktree {}", show_path(&self.root)),
        }
    }
}

/// Split options from operands; `values` are short options (and long ones) taking a value.
struct Parsed {
    flags: Vec<String>,
    operands: Vec<String>,
    after_dashdash: Option<Vec<String>>,
}

/// `short_values` take a value (attached or the next word); `short_optional` take one only when
/// attached (`-uno`), so they end the cluster without eating the next word.
fn parse(
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
    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }

    /// Operands and everything after `--`.
    fn specs(&self) -> Vec<String> {
        let mut out = self.operands.clone();
        out.extend(self.after_dashdash.iter().flatten().cloned());
        out
    }
}

/// The rule-5 commands: what they take, or that they switch the branch.
pub fn classify_git(args: &[String], open: bool) -> Option<(Op, Vec<String>)> {
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
            if specs.is_empty() && !all && !update && !open {
                return None;
            }
            Op::Take(vec![Take::new(true, !update, specs)])
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
            if p.has(&["-a", "--all"]) {
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
        "reset" => {
            let p = parse(rest, "", "", &[]);
            if !p.has(&["--hard"]) {
                return None;
            }
            Op::Take(vec![Take::new(true, false, Vec::new())])
        }
        "checkout" => return classify_checkout(rest, open),
        "restore" => {
            let p = parse(rest, "s", "", &["source", "pathspec-from-file"]);
            let staged = p.has(&["-S", "--staged"]);
            let worktree = p.has(&["-W", "--worktree"]);
            let specs = p.specs();
            if (staged && !worktree) || (specs.is_empty() && !open) {
                return None;
            }
            return Some((Op::Take(vec![Take::new(true, false, specs.clone())]), specs));
        }
        "clean" => {
            let p = parse(rest, "e", "", &["exclude"]);
            if p.has(&["-n", "--dry-run", "-X"]) {
                return None;
            }
            let specs = p.specs();
            let take = Take {
                prefix_default: true,
                ..Take::new(false, true, specs.clone())
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
        "rm" => {
            let p = parse(rest, "", "", &["pathspec-from-file"]);
            if !p.has(&["-f", "--force"]) || p.has(&["--cached", "-n", "--dry-run"]) {
                return None;
            }
            let specs = p.specs();
            if specs.is_empty() && !open {
                return None;
            }
            Op::Take(vec![Take::new(true, false, specs)])
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
        "read-tree" => {
            let p = parse(rest, "", "", &["prefix", "index-output"]);
            if !(p.has(&["-u"]) && p.has(&["--reset"])) {
                return None;
            }
            Op::Take(vec![Take::new(true, false, Vec::new())])
        }
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

fn classify_checkout(rest: &[String], open: bool) -> Option<(Op, Vec<String>)> {
    let p = parse(
        rest,
        "bB",
        "t",
        &["orphan", "conflict", "pathspec-from-file"],
    );
    let specs = p.specs();
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

/// Rule 5 for commands that take files: refuse when one of a live peer's dirty files is among
/// them (unless the session itself holds it and named it by explicit path).
pub fn check_take(g: &Guarded, takes: &[Take], facts: &PeerFacts) -> Verdict {
    let mut hit: Vec<(&Peer, Vec<&FileState>)> = Vec::new();
    for peer in &facts.peers {
        let files: Vec<&FileState> = peer
            .files
            .iter()
            .filter(|f| takes.iter().any(|t| takes_file(t, f, facts)))
            .collect();
        if !files.is_empty() {
            hit.push((peer, files));
        }
    }
    if hit.is_empty() {
        return Verdict::Allow;
    }
    let staging = g
        .git
        .as_ref()
        .and_then(|i| i.args.first())
        .is_some_and(|s| s == "add" || s == "commit");
    let instead = if staging {
        "Stage and commit only your own files, by explicit path (git add <your files>; git \
         commit -- <your files>), or ask the person."
    } else {
        "Leave those files alone: act on your own files by explicit path, or ask the person to \
         coordinate with that session."
    };
    Verdict::Block(Finding::new(
        "peer-files",
        format!(
            "git-dibs refused `{}`: in {} it would take uncommitted work of another live session: \
         {}. {instead}",
            g.display,
            facts.place(),
            describe_peers(&hit)
        ),
    ))
}

fn takes_file(take: &Take, f: &FileState, facts: &PeerFacts) -> bool {
    if !take.kind_matches(f) {
        return false;
    }
    let specs: Vec<Spec> = match &take.paths {
        None if take.prefix_default => vec![pathspec::resolve(".", &facts.prefix, &facts.root)]
            .into_iter()
            .flatten()
            .collect(),
        None => Vec::new(),
        Some(raw) => {
            let specs: Vec<Spec> = raw
                .iter()
                .filter_map(|s| pathspec::resolve(s, &facts.prefix, &facts.root))
                .map(|mut s| {
                    s.icase |= take.icase;
                    s
                })
                .collect();
            if specs.is_empty() {
                return false;
            }
            specs
        }
    };
    if !pathspec::selects(&specs, &f.path) {
        return false;
    }
    !(crate::policy::claims::may_commit_co_held(&facts.mine, &f.path)
        && pathspec::names_exactly(&specs, &f.path))
}

fn state_word(f: &FileState) -> &'static str {
    if f.untracked() {
        "untracked"
    } else if f.staged() {
        "staged"
    } else if f.worktree == 'D' {
        "deleted"
    } else {
        "modified"
    }
}

fn describe_peers(hit: &[(&Peer, Vec<&FileState>)]) -> String {
    hit.iter()
        .map(|(peer, files)| {
            let names: Vec<String> = files
                .iter()
                .map(|f| format!("{} ({})", f.path, state_word(f)))
                .collect();
            format!("{} holds {}", peer.name, list(&names))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Rule 5 for a branch switch: refuse while a live peer has dirty files in the worktree.
pub fn check_switch(g: &Guarded, facts: &PeerFacts) -> Verdict {
    let hit: Vec<(&Peer, Vec<&FileState>)> = facts
        .peers
        .iter()
        .filter(|p| !p.files.is_empty())
        .map(|p| (p, p.files.iter().collect()))
        .collect();
    if hit.is_empty() {
        return Verdict::Allow;
    }
    Verdict::Block(Finding::new(
        "peer-switch",
        format!(
            "git-dibs refused `{}`: it moves the branch of {} under another live session with \
         uncommitted files there: {}. Work in a worktree of your own instead (git worktree add \
         ../<name> -b <name>), or ask the person.",
            g.display,
            facts.place(),
            describe_peers(&hit)
        ),
    ))
}

/// `git checkout X [PATHS]` without `--`: a switch when X names a commit and no paths follow,
/// paths from X when some do, else all operands are paths.
pub fn check_checkout(g: &Guarded, first: &str, rest: &[String], facts: &PeerFacts) -> Verdict {
    if facts.first_is_rev && rest.is_empty() {
        return check_switch(g, facts);
    }
    let paths: Vec<String> = if facts.first_is_rev {
        rest.to_vec()
    } else {
        std::iter::once(first.to_owned())
            .chain(rest.iter().cloned())
            .collect()
    };
    check_take(g, &[Take::new(true, false, paths)], facts)
}

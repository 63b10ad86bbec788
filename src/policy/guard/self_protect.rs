//! Self-protection (`[guard:self-protect]`): git-dibs's own state and wiring are work at risk
//! too. Commands that delete, move, truncate or rewrite the store (`<git common dir>/dibs`, its
//! audit log), the refs under `refs/dibs/` (locally or on a remote), or the hosts' hook wiring
//! (`.claude/settings*.json`, `.gemini/settings.json`, `.codex/hooks.json`,
//! `.cursor/hooks.json`), and `git dibs uninstall`, are refused; where the words that would say
//! so are only known when the command runs (`xargs git update-ref -d`), the person is asked.
//! Reading them is never stopped. Pure: judged from the command's words and the paths' shapes.

use std::fs;
use std::path::{Component, Path};

use super::{Finding, Guarded, Op, Verdict};
use crate::shell::SimpleCommand;

/// The rule id.
pub(crate) const RULE: &str = "self-protect";

/// What the file an edit tool is about to write is, when it is git-dibs's state or wiring or
/// git's own (the same judgement as a shell command's path; the hosts' settings files are
/// judged by what the edit changes instead, elsewhere).
pub(crate) fn protected_file(path: &Path, cwd: &Path) -> Option<&'static str> {
    protected(&path.to_string_lossy(), cwd).filter(|what| !what.starts_with("an agent host's"))
}

/// What a protected path is.
fn protected(word: &str, cwd: &Path) -> Option<&'static str> {
    if word.is_empty() {
        return None;
    }
    // `$(git rev-parse --git-common-dir)/dibs`, `$GIT_DIR/dibs/audit.log`: the store by name.
    let dynamic_git_dir = (word.contains("git-common-dir")
        || word.contains("git-dir")
        || word.contains("GIT_DIR")
        || word.contains("GIT_COMMON_DIR"))
        && (word.ends_with("/dibs") || word.contains("/dibs/") || word.ends_with("/dibs/"));
    if dynamic_git_dir {
        return Some("the git-dibs store");
    }
    if word.starts_with("refs/dibs") {
        return Some("git-dibs's refs under refs/dibs/");
    }
    let path = crate::git::normalize(cwd, Path::new(word));
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let git_dir = |n: &str| n == ".git" || n.ends_with(".git");
    for (i, n) in names.iter().enumerate() {
        if !git_dir(n) {
            continue;
        }
        match (
            names.get(i + 1).map(String::as_str),
            names.get(i + 2).map(String::as_str),
        ) {
            (None, _) if n == ".git" => {
                return Some("the repository's .git folder, with the git-dibs store in it");
            }
            (Some("dibs"), _) => return Some("the git-dibs store"),
            (Some("refs"), None) => return Some("the repository's refs, with refs/dibs/ in them"),
            (Some("refs"), Some("dibs")) => return Some("git-dibs's refs under refs/dibs/"),
            _ => {}
        }
    }
    if let Some(what) = by_state(&path, cwd) {
        return Some(what);
    }
    if let Some(last) = names.last()
        && wiring_folder(last, &path)
    {
        return Some("an agent host's hook wiring (the folder that holds it)");
    }
    let [.., dir, file] = names.as_slice() else {
        return None;
    };
    let wiring = match dir.as_str() {
        ".claude" => file.starts_with("settings") && file.ends_with(".json"),
        ".gemini" => file == "settings.json",
        ".codex" | ".cursor" => file == "hooks.json",
        _ => false,
    };
    wiring.then_some("an agent host's hook wiring")
}

/// What a path inside a git dir of this clone (or of any clone git-dibs keeps a store in) is,
/// judged by what the folders are on disk, whatever they are named (`proj/.bare`,
/// `--separate-git-dir`, `.git/modules/<name>`, `.git/worktrees/<id>`). Lock files, logs of
/// git's own and the like are not protected.
fn by_state(path: &Path, cwd: &Path) -> Option<&'static str> {
    let Some(held) = crate::git::gitdir::holding(path) else {
        // A folder that holds this clone's git dir (`rm -rf ../store.d` of a separate one).
        let holds_ours = path.is_dir()
            && crate::git::gitdir::common_dir_from(cwd)
                .is_some_and(|c| c.starts_with(path) && !cwd.starts_with(path));
        return holds_ours.then_some("a folder holding this clone's git directory");
    };
    let ours = held.common_dir.join("dibs").is_dir()
        || crate::git::gitdir::common_dir_from(cwd).is_some_and(|c| {
            c == held.common_dir || fs::canonicalize(&held.git_dir).is_ok_and(|g| g.starts_with(&c))
        });
    if !ours {
        return None;
    }
    let rel: Vec<String> = path
        .strip_prefix(&held.git_dir)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let first = rel.first().map(String::as_str);
    Some(match first {
        None => "a git directory of this clone (every branch, object and the git-dibs store)",
        Some("dibs") => "the git-dibs store",
        Some("refs" | "packed-refs" | "reftable" | "logs" | "HEAD") => {
            "the repository's refs (branches, refs/dibs/ snapshots and retention)"
        }
        Some("objects") => "the repository's objects",
        Some("worktrees") if rel.len() <= 2 => "the worktrees' git directories",
        Some("modules") => "the submodules' repositories",
        Some("commondir" | "gitdir") => "a worktree's link to its repository",
        Some("config") => "the repository's config (with git-dibs's settings)",
        Some("hooks") if rel.len() == 1 || dibs_hook(path) => "git-dibs's git hooks",
        _ => return None,
    })
}

/// Whether the git hook at `path` is one of git-dibs's shims (it names git-dibs).
fn dibs_hook(path: &Path) -> bool {
    crate::platform::files::read_regular(path, crate::platform::files::Links::Follow, 64 * 1024)
        .is_ok_and(|b| String::from_utf8_lossy(&b).contains("dibs"))
}

/// Whether `path`, named `name`, is a host's settings folder holding its hook wiring.
fn wiring_folder(name: &str, path: &Path) -> bool {
    let files: &[&str] = match name {
        ".claude" => &["settings.json", "settings.local.json"],
        ".gemini" => &["settings.json"],
        ".codex" | ".cursor" => &["hooks.json"],
        _ => return false,
    };
    files.iter().any(|f| path.join(f).is_file())
}

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
        _ => Vec::new(),
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
    if let Some(op) = find_reaching_git_dir(argv, &cmd.cwd) {
        return Some(op);
    }
    if base == "git" || base == "git-dibs" {
        return classify_git(argv, cmd);
    }
    None
}

fn classify_git(argv: &[String], cmd: &SimpleCommand) -> Option<Op> {
    let dibs_word = |w: &String| w.contains("refs/dibs");
    let args: Vec<&String> = argv.iter().skip(1).collect();
    // Skip git's global options to find the subcommand.
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if matches!(
            args[i].as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            i += 1;
        }
        i += 1;
    }
    let sub = args.get(i).map(|s| s.as_str());
    let rest: Vec<&String> = args.iter().skip(i + 1).copied().collect();
    let unknown = cmd.unknown.is_some();
    let base = argv[0].rsplit('/').next().unwrap_or_default();
    let uninstall = (base == "git-dibs" && sub == Some("uninstall"))
        || (sub == Some("dibs") && rest.first().is_some_and(|w| *w == "uninstall"));
    if uninstall {
        return Some(Op::Tamper {
            what: "git-dibs's hook wiring (`git dibs uninstall`)".into(),
            sure: true,
        });
    }
    if base != "git" {
        return None;
    }
    match sub {
        Some("update-ref") => {
            let deletes = rest.iter().any(|w| *w == "-d" || *w == "--stdin");
            if rest.iter().any(|w| dibs_word(w)) && (deletes || rest.len() >= 2)
                || cmd
                    .input
                    .as_deref()
                    .is_some_and(|t| t.contains("refs/dibs"))
            {
                Some(Op::Tamper {
                    what: "git-dibs's refs under refs/dibs/".into(),
                    sure: true,
                })
            } else if deletes && unknown {
                Some(Op::Tamper {
                    what: "refs only known when it runs, which may be git-dibs's under refs/dibs/"
                        .into(),
                    sure: false,
                })
            } else {
                None
            }
        }
        Some("push") if sends_snapshots(&rest) => Some(Op::SendSnapshots),
        Some("push") => {
            let deletes = rest.iter().any(|w| {
                *w == "-d"
                    || *w == "--delete"
                    || w.starts_with("--prune")
                    || w.starts_with("--mirror")
            });
            // A refspec whose destination is under refs/dibs/ writes there (`push . X:refs/dibs/…`
            // replaces a local snapshot chain; on a remote it is another machine's record).
            let into = |w: &String| {
                !w.starts_with('-')
                    && match w.split_once(':') {
                        Some((_, dst)) => dst.contains("refs/dibs"),
                        None => w.trim_start_matches('+').starts_with("refs/dibs"),
                    }
            };
            let named = rest.iter().any(|w| {
                dibs_word(w) && (deletes || w.starts_with(':') || w.starts_with('+') || into(w))
            });
            named.then(|| Op::Tamper {
                what: "git-dibs's refs under refs/dibs/ on the remote".into(),
                sure: true,
            })
        }
        // `symbolic-ref NAME REF` (or `-d NAME`) of a ref under refs/dibs/ writes it; with one
        // operand it only reads.
        Some("symbolic-ref")
            if rest.iter().any(|w| dibs_word(w))
                && (rest.iter().filter(|w| !w.starts_with('-')).count() >= 2
                    || rest.iter().any(|w| *w == "-d" || *w == "--delete")) =>
        {
            Some(Op::Tamper {
                what: "git-dibs's refs under refs/dibs/".into(),
                sure: true,
            })
        }
        // fast-import writes whatever refs its stream names.
        Some("fast-import") => match cmd.input.as_deref() {
            Some(t) if !t.contains("refs/dibs") && !unknown => None,
            Some(_) if !unknown => Some(Op::Tamper {
                what: "git-dibs's refs under refs/dibs/".into(),
                sure: true,
            }),
            _ => Some(Op::Tamper {
                what: "refs only known when it runs, which may be git-dibs's under refs/dibs/"
                    .into(),
                sure: false,
            }),
        },
        // A configured fetch or push refspec that writes into refs/dibs/ does so at every fetch.
        Some("config")
            if rest.iter().any(|w| dibs_word(w))
                && rest.iter().any(|w| {
                    let k = w.to_ascii_lowercase();
                    k.starts_with("remote.") && (k.ends_with(".fetch") || k.ends_with(".push"))
                }) =>
        {
            Some(Op::Tamper {
                what: "git-dibs's refs under refs/dibs/ (a configured refspec writes over them)"
                    .into(),
                sure: true,
            })
        }
        Some("config") => config_write(&rest).map(|key| Op::Tamper {
            what: format!(
                "git-dibs's settings (`{key}`: a changed `dibs.*` setting or hooks path can turn \
                 the guard, its timeouts or its snapshots against the other sessions)"
            ),
            sure: true,
        }),
        // `git rm` of the wiring (tracked and clean, so only a name tells).
        Some("rm") if !rest.iter().any(|w| *w == "--cached") => rest
            .iter()
            .filter(|w| !w.starts_with('-'))
            .find_map(|w| protected(w, &cmd.cwd))
            .map(|what| Op::Tamper {
                what: what.into(),
                sure: true,
            }),
        Some("fetch" | "pull") => fetch_into_dibs(&rest).then(|| Op::Tamper {
            what: "git-dibs's refs under refs/dibs/ (a fetch refspec writes over them)".into(),
            sure: true,
        }),
        _ => None,
    }
}

/// The key a `git config` command writes, when it is a `dibs.*` setting or `core.hooksPath`
/// (set, unset, add, replace, or the whole `dibs` section removed or renamed). Reads pass.
fn config_write(rest: &[&String]) -> Option<String> {
    let valued = [
        "-f",
        "--file",
        "--blob",
        "--type",
        "--default",
        "--comment",
        "--value",
    ];
    let mut positional = Vec::new();
    let mut writes = false;
    let mut reads = false;
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i].as_str();
        if valued.contains(&w) {
            i += 2;
            continue;
        }
        if w.starts_with("--get") || matches!(w, "-l" | "--list" | "--show-origin" | "-z") {
            reads |= w != "--show-origin" && w != "-z";
        } else if w.starts_with("--unset")
            || matches!(
                w,
                "--add" | "--replace-all" | "--rename-section" | "--remove-section"
            )
        {
            writes = true;
        } else if !w.starts_with('-') {
            positional.push(w);
        }
        i += 1;
    }
    let (sub_writes, words): (bool, &[&str]) = match positional.first() {
        Some(&("set" | "unset" | "rename-section" | "remove-section" | "replace-all")) => {
            (true, &positional[1..])
        }
        Some(&("get" | "list" | "edit")) => return None,
        _ => (false, &positional[..]),
    };
    let key = words.first()?.to_ascii_lowercase();
    let write = sub_writes || writes || (!reads && words.len() >= 2);
    let ours = key.starts_with("dibs.") || key == "dibs" || key == "core.hookspath";
    (write && ours).then_some(key)
}

/// Whether a fetch's refspecs write into `refs/dibs/`: a destination there, or a wildcard
/// destination that covers it (`+refs/*:refs/*`), which with `--prune` also deletes every local
/// ref the remote lacks.
fn fetch_into_dibs(rest: &[&String]) -> bool {
    rest.iter()
        .filter(|w| !w.starts_with('-'))
        .filter_map(|w| w.trim_start_matches('+').split_once(':').map(|(_, d)| d))
        .any(|dst| {
            let dst = dst.strip_prefix("refs/").unwrap_or(dst);
            let wild = dst.split('*').next().unwrap_or(dst);
            dst.starts_with("dibs")
                || (dst.contains('*') && "dibs/".starts_with(wild))
                || (dst.contains('*') && wild.is_empty())
        })
}

/// Whether a push's words send `refs/dibs/snapshots/`: a refspec whose source is there or a
/// glob reaching there (`refs/dibs/*`, `refs/*`), or `--mirror`, which sends every ref.
fn sends_snapshots(rest: &[&String]) -> bool {
    const SNAPSHOTS: &str = "refs/dibs/snapshots/";
    rest.iter().any(|w| {
        if w.starts_with("--mirror") {
            return true;
        }
        if w.starts_with('-') {
            return false;
        }
        let src = w
            .trim_start_matches('+')
            .split(':')
            .next()
            .unwrap_or_default();
        match src.split_once('*') {
            Some((prefix, _)) => SNAPSHOTS.starts_with(prefix) && prefix.starts_with("refs/"),
            None => src.starts_with(SNAPSHOTS.trim_end_matches('/')),
        }
    })
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

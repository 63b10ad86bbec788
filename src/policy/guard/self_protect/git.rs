//! git's own commands over git-dibs's state: `update-ref`/`branch`/`tag` over `refs/dibs/`,
//! pushes that delete or send them, fetches that write into them, `git config` of `dibs.*` or
//! `core.hooksPath`, and `git dibs uninstall`.

use super::protected;
use crate::policy::guard::Op;
use crate::shell::SimpleCommand;

/// The operation a `git` (or `git-dibs`) command line performs on git-dibs's own state or
/// wiring, if any.
pub(super) fn classify_git(argv: &[String], cmd: &SimpleCommand) -> Option<Op> {
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
        Some(sub @ ("filter-branch" | "filter-repo")) => {
            let dynamic = cmd.dynamic.get(i + 2..).unwrap_or_default();
            super::rewrite::classify(sub, &rest, dynamic)
        }
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

//! History rewriters whose ref selection reaches `refs/dibs/`: `git filter-branch … -- --all`
//! (or a `--glob` that covers it, or a ref there by name) and `git filter-repo` without
//! `--refs` rewrite git-dibs's snapshot chains and the refs that keep unpushed commits, and
//! with their backups dropped a gc loses what those held. Naming the refs to rewrite
//! (`--branches --tags`, `--exclude='refs/dibs/*' --all`, `--refs main`) passes.

use crate::policy::guard::Op;

/// What to run instead of a `filter-branch` that reaches `refs/dibs/`.
const FILTER_BRANCH_INSTEAD: &str =
    "`git filter-branch … -- --branches --tags` (or `-- --exclude='refs/dibs/*' --all`)";

/// What to run instead of a `filter-repo` that reaches `refs/dibs/`.
const FILTER_REPO_INSTEAD: &str =
    "`git filter-repo … --refs main` (the branches and tags you mean)";

/// The operation `git SUB REST…` (`filter-branch` or `filter-repo`) performs on `refs/dibs/`,
/// if it reaches there. `dynamic[i]` tells that `rest[i]` came from an unquoted expansion.
pub(super) fn classify(sub: &str, rest: &[&String], dynamic: &[bool]) -> Option<Op> {
    let reaches = match sub {
        "filter-branch" => filter_branch(rest, dynamic),
        "filter-repo" => filter_repo(rest, dynamic),
        _ => return None,
    }?;
    let (what, instead) = match sub {
        "filter-branch" => ("`git filter-branch`", FILTER_BRANCH_INSTEAD),
        _ => ("`git filter-repo`", FILTER_REPO_INSTEAD),
    };
    Some(Op::Rewrites {
        what: format!("{what} {}", reaches.why),
        instead: instead.into(),
        sure: reaches.sure,
    })
}

/// Why a rewriter reaches `refs/dibs/`, and whether its words show it.
struct Reach {
    why: &'static str,
    sure: bool,
}

/// The sure answer for `why`.
fn sure(why: &'static str) -> Reach {
    Reach { why, sure: true }
}

/// A ref word naming something under `refs/dibs/` (written or read as a place to write).
fn names_dibs(w: &str) -> bool {
    let w = w.trim_start_matches('+');
    w.contains("refs/dibs") || w.starts_with("dibs/")
}

/// `git filter-branch [OPTIONS] [--] [REV-LIST ARGS]`: its own options (each but `-f`,
/// `--force`, `--prune-empty` and `--remap-to-ancestor` takes a value) end at `--` or the first
/// non-option; the rest goes to `git rev-parse`, and every positive ref it names is rewritten.
fn filter_branch(rest: &[&String], dynamic: &[bool]) -> Option<Reach> {
    let flags = ["-f", "--force", "--remap-to-ancestor", "--prune-empty"];
    let mut i = 0;
    while i < rest.len() {
        let w = rest[i].as_str();
        if w == "--" {
            i += 1;
            break;
        }
        if flags.contains(&w) {
            i += 1;
            continue;
        }
        if !w.starts_with('-') {
            break;
        }
        // `--original refs/dibs` / `--state-branch refs/dibs/x` write there.
        if matches!(w, "--original" | "--state-branch")
            && rest.get(i + 1).is_some_and(|v| names_dibs(v))
        {
            return Some(sure("writes its backups or state under refs/dibs/"));
        }
        i += 2;
    }
    let revs = rest.get(i..).unwrap_or_default();
    let mut excluded = false;
    let mut negated = false;
    for w in revs {
        let w = w.as_str();
        if let Some(p) = w.strip_prefix("--exclude=") {
            excluded |= excludes_dibs(p);
            continue;
        }
        if w == "--not" {
            negated = !negated;
            continue;
        }
        let all = w == "--all";
        let glob = w.strip_prefix("--glob=").is_some_and(glob_reaches_dibs);
        let family = all
            || w.starts_with("--glob=")
            || ["--branches", "--tags", "--remotes"]
                .iter()
                .any(|f| w == *f || w.strip_prefix(f).is_some_and(|r| r.starts_with('=')));
        if (all || glob) && !excluded && !negated {
            return Some(sure(if all {
                "with `--all` rewrites every ref, refs/dibs/ too"
            } else {
                "with that `--glob` rewrites refs under refs/dibs/"
            }));
        }
        if family {
            excluded = false;
        } else if !negated && !w.starts_with('^') && names_dibs(w) {
            return Some(sure("rewrites the refs it names under refs/dibs/"));
        }
    }
    let offset = rest.len() - revs.len();
    let unknown = dynamic.iter().skip(offset).any(|d| *d);
    unknown.then_some(Reach {
        why: "rewrites refs only known when it runs, which may be under refs/dibs/",
        sure: false,
    })
}

/// Whether `--exclude=P` (a wildmatch whose `*` crosses `/`) leaves out all of `refs/dibs/`.
fn excludes_dibs(p: &str) -> bool {
    let lit = p.trim_end_matches('*');
    p.ends_with('*')
        && !lit.contains(['*', '?', '[', '\\'])
        && lit.starts_with("refs/")
        && "refs/dibs/".starts_with(lit)
}

/// Whether `--glob=P` may match a ref under `refs/dibs/` (`refs/` is prefixed when missing, and
/// `/*` appended when it has no glob character, as git does).
fn glob_reaches_dibs(p: &str) -> bool {
    let mut p = if p.starts_with("refs/") {
        p.to_owned()
    } else {
        format!("refs/{p}")
    };
    if !p.contains(['*', '?', '[']) {
        p = format!("{}/*", p.trim_end_matches('/'));
    }
    let lit = &p[..p.find(['*', '?', '[', '\\']).unwrap_or(p.len())];
    "refs/dibs/".starts_with(lit) || lit.starts_with("refs/dibs/")
}

/// `git filter-repo [OPTIONS]`: it rewrites every ref unless `--refs REF…` (argparse, so also
/// its abbreviations `--ref`, `--refs=REF`) limits it; `--analyze` and `--dry-run` rewrite
/// nothing.
fn filter_repo(rest: &[&String], dynamic: &[bool]) -> Option<Reach> {
    let long = |w: &str, name: &str, min: usize| w.len() >= min && name.starts_with(w);
    let mut limited = false;
    let mut in_refs = false;
    for (i, w) in rest.iter().enumerate() {
        let w = w.as_str();
        let (opt, value) = match w.split_once('=') {
            Some((o, v)) if w.starts_with("--") => (o, Some(v)),
            _ => (w, None),
        };
        if long(opt, "--analyze", 4) || long(opt, "--dry-run", 4) {
            return None;
        }
        if long(opt, "--refs", 5) {
            limited = true;
            in_refs = value.is_none();
            if value.is_some_and(|v| names_dibs(v) || glob_word_reaches_dibs(v)) {
                return Some(sure("rewrites the refs it names under refs/dibs/"));
            }
            continue;
        }
        if w.starts_with('-') {
            in_refs = false;
            continue;
        }
        if in_refs && (names_dibs(w) || glob_word_reaches_dibs(w)) {
            return Some(sure("rewrites the refs it names under refs/dibs/"));
        }
        if in_refs && dynamic.get(i).copied().unwrap_or(false) {
            return Some(Reach {
                why: "rewrites refs only known when it runs, which may be under refs/dibs/",
                sure: false,
            });
        }
    }
    if limited {
        return None;
    }
    if dynamic.iter().any(|d| *d) {
        // An expansion may hold `--refs …`: asked, not refused.
        return Some(Reach {
            why: "without `--refs` rewrites every ref, refs/dibs/ too",
            sure: false,
        });
    }
    Some(sure("without `--refs` rewrites every ref, refs/dibs/ too"))
}

/// A `--refs` value that is a glob covering `refs/dibs/` (`refs/*`).
fn glob_word_reaches_dibs(w: &str) -> bool {
    w.contains(['*', '?', '[']) && w.starts_with("refs/") && glob_reaches_dibs(w)
}

//! Deletions whose targets the file system settles when they run: `find ... -delete` / `-exec
//! rm` (asked when their `-name` filter may match uncommitted work in a worktree below them) and
//! `tar --remove-files`.

use std::path::Path;

use super::worktree::{WorktreeFacts, WorktreeState, at_risk_under, kinds};
use super::{Finding, Guarded, Op, Verdict, list, show_path};

/// `tar ... --remove-files PATHS`: the paths are deleted once archived.
pub(crate) fn classify_tar(argv: &[String], cwd: &Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if first.rsplit('/').next() != Some("tar") {
        return None;
    }
    let removes = argv[1..]
        .iter()
        .any(|a| a.len() >= 5 && "--remove-files".starts_with(a.as_str()));
    if !removes {
        return None;
    }
    let mut base = cwd.to_path_buf();
    let mut operands = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let takes_value = matches!(
            a,
            "-f" | "--file"
                | "-T"
                | "--files-from"
                | "-X"
                | "--exclude-from"
                | "-b"
                | "-H"
                | "--format"
                | "-g"
                | "-N"
                | "--exclude"
        );
        if a == "-C" || a == "--directory" {
            if let Some(d) = argv.get(i + 1) {
                base = base.join(d);
            }
            i += 2;
            continue;
        }
        if takes_value {
            i += 2;
            continue;
        }
        if i == 1 && !a.starts_with('-') {
            // Old style `tar czf ARCHIVE ...`: `f` takes the next word.
            i += if a.contains('f') { 2 } else { 1 };
            continue;
        }
        if a.starts_with('-') {
            // `-czf ARCHIVE`
            if !a.starts_with("--") && a.ends_with('f') {
                i += 1;
            }
            i += 1;
            continue;
        }
        operands.push(a.to_owned());
        i += 1;
    }
    if operands.is_empty() {
        return None;
    }
    let paths = operands.iter().map(|o| base.join(o)).collect();
    Some((Op::RemoveTree { paths }, operands))
}

/// `find PATHS ... -delete` or `find PATHS ... -exec rm ...` (also `-execdir`, `-ok`), and
/// whether it follows symbolic links (`-H`, `-L`, `-follow`).
pub(crate) fn classify_find(argv: &[String], cwd: &Path) -> Option<(Op, Vec<String>)> {
    let first = argv.first()?;
    if first.rsplit('/').next() != Some("find") {
        return None;
    }
    let deletes = argv.iter().enumerate().any(|(i, a)| {
        a == "-delete"
            || (matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && argv
                    .get(i + 1)
                    .is_some_and(|c| c.rsplit('/').next() == Some("rm")))
    });
    if !deletes {
        return None;
    }
    let starts: Vec<String> = argv[1..]
        .iter()
        .skip_while(|a| matches!(a.as_str(), "-H" | "-L" | "-P"))
        .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
        .cloned()
        .collect();
    let starts = if starts.is_empty() {
        vec![".".to_owned()]
    } else {
        starts
    };
    let paths = starts.iter().map(|s| cwd.join(s)).collect();
    // The last of `-H`/`-L`/`-P` before the starting points wins; `-follow` is `-L`.
    let mut follow = argv[1..]
        .iter()
        .take_while(|a| matches!(a.as_str(), "-H" | "-L" | "-P"))
        .last()
        .and_then(|a| match a.as_str() {
            "-L" => Some(true),
            "-H" => Some(false),
            _ => None,
        });
    if argv.iter().any(|a| a == "-follow") {
        follow = Some(true);
    }
    Some((
        Op::FindDelete {
            paths,
            names: name_filter(&argv[1..]),
            follow,
        },
        starts,
    ))
}

/// The `-name`/`-iname` patterns every match of a find expression must satisfy, when the
/// expression is a plain conjunction (no `-o`, `!`, `-not`, parentheses or path tests).
fn name_filter(args: &[String]) -> Vec<String> {
    let loose = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-o" | "-or"
                | "!"
                | "-not"
                | "("
                | ")"
                | "-path"
                | "-wholename"
                | "-regex"
                | "-iregex"
                | "-ipath"
        )
    });
    if loose {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if (a == "-name" || a == "-iname")
            && let Some(p) = it.next()
        {
            out.push(if a == "-iname" {
                format!("(?i){p}")
            } else {
                p.clone()
            });
        }
    }
    out
}

/// Whether a path component matches a find `-name` pattern (`(?i)` for `-iname`).
pub(crate) fn name_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_prefix("(?i)") {
        Some(p) => super::pathspec::wildmatch_str(&p.to_lowercase(), &name.to_lowercase()),
        None => super::pathspec::wildmatch_str(pattern, name),
    }
}

/// `find ... -delete` / `-exec rm` over worktrees with work at risk: ask, unless its `-name`
/// filter matches none of their uncommitted paths (nor a worktree root), as for `find . -name
/// '*.tmp' -delete`.
pub(crate) fn check_find(g: &Guarded, facts: &WorktreeFacts) -> Verdict {
    let Op::FindDelete { names, .. } = &g.op else {
        return Verdict::Allow;
    };
    let mut risky: Vec<&WorktreeState> = Vec::new();
    let mut hits: Vec<String> = Vec::new();
    for t in &facts.targets {
        for w in at_risk_under(facts, t) {
            if risky.iter().any(|r| r.root == w.root) {
                continue;
            }
            let matched: Vec<String> = if names.is_empty() {
                w.status.clone()
            } else {
                let mut m: Vec<String> = w
                    .status
                    .iter()
                    .filter(|line| {
                        let full = w.root.join(line.get(3..).unwrap_or(""));
                        let below = full.strip_prefix(t).unwrap_or(&full);
                        below.components().any(|c| {
                            let c = c.as_os_str().to_string_lossy();
                            names.iter().all(|n| name_matches(n, &c))
                        })
                    })
                    .cloned()
                    .collect();
                let root_name = w.root.file_name().map(|n| n.to_string_lossy().into_owned());
                if let Some(rn) = root_name
                    && w.root != *t
                    && names.iter().all(|n| name_matches(n, &rn))
                {
                    m.push(format!("the worktree {}", show_path(&w.root)));
                }
                m
            };
            if !matched.is_empty() || (names.is_empty() && w.loses_commits()) {
                hits.extend(matched);
                risky.push(w);
            }
        }
    }
    if risky.is_empty() {
        return Verdict::Allow;
    }
    let roots: Vec<String> = risky.iter().map(|w| show_path(&w.root)).collect();
    Verdict::Ask(
        Finding::new(
            "worktree-find",
            format!(
                "git-dibs cannot tell what `{}` deletes: it searches over {} with uncommitted \
                 or unpushed work ({}) and may delete {}. Name the files to delete explicitly, \
                 or ask the person.",
                g.display,
                kinds(&risky),
                list(&roots),
                list(&hits)
            ),
        )
        .with_worktrees(risky.iter().map(|w| w.audit()).collect()),
    )
}

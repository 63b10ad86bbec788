//! git's own command line: the global options before the subcommand (`-C DIR`, `-c k=v`,
//! `--git-dir`, `--work-tree`, `--no-pager`, ...), resolved the way git resolves them, so the
//! guard knows which repository and which subcommand a `git ...` command really names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::discover::{Worktree, locate, worktree_at};

/// One `git` command with its global options resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitInvocation {
    /// The directory git runs in, after every `-C` (relative ones chain).
    pub(crate) cwd: PathBuf,
    /// `--git-dir` or `GIT_DIR`, absolute.
    pub(crate) git_dir: Option<PathBuf>,
    /// `--work-tree` or `GIT_WORK_TREE`, absolute.
    pub(crate) work_tree: Option<PathBuf>,
    /// Every `-c key=value` given, in order.
    pub(crate) config: Vec<String>,
    /// The subcommand and its arguments (empty for `git --version` and the like).
    pub(crate) args: Vec<String>,
    /// Aliases defined for this command alone (`-c alias.x=...`, `GIT_CONFIG_KEY_n`,
    /// `GIT_CONFIG_PARAMETERS`, `--config-env`): `None` when the value is only known when it
    /// runs.
    pub(crate) alias_from_env: BTreeMap<String, Option<String>>,
    /// Every config key given for this command alone, by any of those spellings, in order, as
    /// written (`None` when the value is only known when it runs): the programs git runs come
    /// from some of them (`core.editor`, `core.fsmonitor`, `diff.external`, ...).
    pub(crate) line_config: Vec<(String, Option<String>)>,
    /// Pathspecs match case-insensitively (`--icase-pathspecs`, `GIT_ICASE_PATHSPECS=1`).
    pub(crate) icase: bool,
    /// The command's own `GIT_*`, `HOME` and `XDG_CONFIG_HOME` assignments (exported earlier
    /// in the line too): git reads its config through them (`GIT_CONFIG_GLOBAL`, ...).
    pub(crate) env: Vec<(String, String)>,
}

/// Global options that are plain flags.
const FLAGS: &[&str] = &[
    "-p",
    "-P",
    "--paginate",
    "--no-pager",
    "--bare",
    "--no-replace-objects",
    "--no-lazy-fetch",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-advice",
    "--exec-path",
];

/// Global options that take a value, given as `--opt VALUE` or `--opt=VALUE`.
const VALUED: &[&str] = &[
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--attr-source",
    "--super-prefix",
];

/// Whether `word` (possibly a path) names the `git` program.
pub(crate) fn is_git(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    base == "git" || base == "git.exe"
}

/// Split a `git` argv into its global options and the subcommand, the way git does. `assignments`
/// are the command's leading `NAME=value` words (`GIT_DIR`, `GIT_WORK_TREE` count). Returns
/// `None` when `argv[0]` is not git. Pure: no file is read.
pub(crate) fn parse_invocation(
    argv: &[String],
    cwd: &Path,
    assignments: &[(String, String)],
) -> Option<GitInvocation> {
    if !argv.first().is_some_and(|a| is_git(a)) {
        return None;
    }
    let mut cwd = cwd.to_path_buf();
    let mut git_dir: Option<String> = None;
    let mut work_tree: Option<String> = None;
    let mut icase = false;
    let mut aliases: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut line_config: Vec<(String, Option<String>)> = Vec::new();
    let mut note = |key: &str, value: Option<String>| {
        note_alias(&mut aliases, key, value.clone());
        line_config.push((key.to_owned(), value));
    };
    let value_of = |name: &str| {
        assignments
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    for (k, v) in assignments {
        match k.as_str() {
            // Set to nothing (`env -u`, `unset`): git looks for the repository itself.
            "GIT_DIR" => git_dir = (!v.is_empty()).then(|| v.clone()),
            "GIT_WORK_TREE" => work_tree = (!v.is_empty()).then(|| v.clone()),
            "GIT_ICASE_PATHSPECS" => icase = v == "1" || v == "true",
            "GIT_CONFIG_PARAMETERS" => {
                for (key, value) in super::config::parameters(v) {
                    note(&key, Some(value));
                }
            }
            _ => {}
        }
    }
    if let Some(n) = value_of("GIT_CONFIG_COUNT").and_then(|n| n.parse::<usize>().ok()) {
        for i in 0..n.min(64) {
            if let Some(key) = value_of(&format!("GIT_CONFIG_KEY_{i}")) {
                note(&key, value_of(&format!("GIT_CONFIG_VALUE_{i}")));
            }
        }
    }
    let mut config = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "-C" {
            if let Some(dir) = argv.get(i + 1)
                && !dir.is_empty()
            {
                cwd = cwd.join(dir);
            }
            i += 2;
        } else if a == "-c" {
            if let Some(kv) = argv.get(i + 1) {
                config.push(kv.clone());
                match kv.split_once('=') {
                    Some((k, v)) => note(k, Some(v.to_owned())),
                    // `-c key` alone sets it to true.
                    None => note(kv, Some("true".to_owned())),
                }
            }
            i += 2;
        } else if a == "--config-env" || a.starts_with("--config-env=") {
            let spec = match a.strip_prefix("--config-env=") {
                Some(s) => Some(s.to_owned()),
                None => {
                    i += 1;
                    argv.get(i).cloned()
                }
            };
            if let Some((k, var)) = spec.as_deref().and_then(|s| s.split_once('=')) {
                let value = value_of(var).or_else(|| std::env::var(var).ok());
                note(k, value);
            }
            i += 1;
        } else if FLAGS.contains(&a) || a.starts_with("--exec-path=") {
            icase |= a == "--icase-pathspecs";
            i += 1;
        } else if let Some((name, value)) = a.split_once('=')
            && VALUED.contains(&name)
        {
            match name {
                "--git-dir" => git_dir = Some(value.to_owned()),
                "--work-tree" => work_tree = Some(value.to_owned()),
                _ => {}
            }
            i += 1;
        } else if VALUED.contains(&a) {
            let value = argv.get(i + 1).cloned();
            match a {
                "--git-dir" => git_dir = value,
                "--work-tree" => work_tree = value,
                _ => {}
            }
            i += 2;
        } else if a.starts_with('-') {
            // --version, --help, --list-cmds=...: no subcommand runs.
            return Some(GitInvocation {
                git_dir: git_dir.map(|d| cwd.join(d)),
                work_tree: work_tree.map(|d| cwd.join(d)),
                cwd,
                config,
                args: Vec::new(),
                alias_from_env: aliases,
                line_config,
                icase,
                env: config_env(assignments),
            });
        } else {
            break;
        }
    }
    let mut args: Vec<String> = argv.get(i..).map(<[String]>::to_vec).unwrap_or_default();
    expand_inline_alias(&config, &mut args);
    Some(GitInvocation {
        git_dir: git_dir.map(|d| cwd.join(d)),
        work_tree: work_tree.map(|d| cwd.join(d)),
        cwd,
        config,
        args,
        alias_from_env: aliases,
        line_config,
        icase,
        env: config_env(assignments),
    })
}

/// The assignments through which git finds its config.
fn config_env(assignments: &[(String, String)]) -> Vec<(String, String)> {
    assignments
        .iter()
        .filter(|(k, _)| k.starts_with("GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME")
        .cloned()
        .collect()
}

/// The value of `alias.<name>` as git itself resolves it for `inv` ([`config_via_git`]). `None`
/// when git defines no such alias.
pub(crate) fn alias_via_git(inv: &GitInvocation, name: &str) -> Option<String> {
    config_via_git(inv, &format!("alias.{name}"), false)
}

/// The value of a config key as git itself resolves it for `inv`: every config file git reads
/// (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`,
/// `include.path`, `includeIf`, the repository's and the worktree's), with the command's own
/// `-c` options and assignments; `boolean`: as git reads a boolean (`true`/`false`). `None`
/// when it is not set (or git cannot read it).
pub(crate) fn config_via_git(inv: &GitInvocation, key: &str, boolean: bool) -> Option<String> {
    let dir = if inv.cwd.is_dir() {
        inv.cwd.clone()
    } else {
        invocation_worktree(inv)?.root
    };
    let mut args: Vec<&str> = Vec::new();
    for kv in &inv.config {
        args.extend(["-c", kv.as_str()]);
    }
    args.push("config");
    if boolean {
        args.push("--type=bool");
    }
    args.extend(["--get", key]);
    let mut env: Vec<(&str, &std::ffi::OsStr)> = inv
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), std::ffi::OsStr::new(v.as_str())))
        .collect();
    if let Some(d) = &inv.git_dir {
        env.push(("GIT_DIR", d.as_os_str()));
    }
    let out = super::cli::run_with(&dir, &args, None, &env).ok()?;
    let value = String::from_utf8_lossy(&out)
        .trim_end_matches('\n')
        .to_owned();
    Some(value)
}

/// The autostash setting that makes `git pull`/`merge`/`rebase` stash every tracked change
/// first, when it is true for `inv`: `rebase.autoStash` when it rebases (`rebase: None`, a bare
/// `pull`: as `branch.<current>.rebase` or `pull.rebase` say), else `merge.autoStash`.
pub(crate) fn autostash_set(inv: &GitInvocation, rebase: Option<bool>) -> Option<&'static str> {
    let rebase = rebase.unwrap_or_else(|| {
        let branch = invocation_worktree(inv).and_then(|w| w.branch());
        let value = branch
            .and_then(|b| config_via_git(inv, &format!("branch.{b}.rebase"), false))
            .or_else(|| config_via_git(inv, "pull.rebase", false))
            .unwrap_or_default()
            .to_ascii_lowercase();
        matches!(
            value.as_str(),
            "true" | "yes" | "on" | "1" | "merges" | "m" | "interactive" | "i" | "preserve" | "p"
        )
    });
    let key = if rebase {
        "rebase.autoStash"
    } else {
        "merge.autoStash"
    };
    (config_via_git(inv, key, true).as_deref() == Some("true")).then_some(key)
}

/// Record `key=value` when it defines an alias (`alias.NAME`, any case).
fn note_alias(aliases: &mut BTreeMap<String, Option<String>>, key: &str, value: Option<String>) {
    let lower = key.to_ascii_lowercase();
    if let Some(name) = lower.strip_prefix("alias.") {
        aliases.insert(name.to_owned(), value);
    }
}

/// Replace an alias defined on the command line (`-c alias.x='branch -D'`) by its expansion.
/// Shell aliases (`!...`) are left alone.
fn expand_inline_alias(config: &[String], args: &mut Vec<String>) {
    let Some(name) = args.first().cloned() else {
        return;
    };
    let key = format!("alias.{name}");
    let found = config.iter().rev().find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        k.eq_ignore_ascii_case(&key).then(|| v.to_owned())
    });
    if let Some(value) = found {
        expand_alias(&value, args);
    }
}

/// Replace `args[0]` by the words of a non-shell alias `value`; `false` for a shell alias.
pub(crate) fn expand_alias(value: &str, args: &mut Vec<String>) -> bool {
    if value.trim_start().starts_with('!') {
        return false;
    }
    let words: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return false;
    }
    args.splice(0..1, words);
    true
}

/// Subcommands built into git (an alias cannot shadow them).
pub(crate) const BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ref-format",
    "checkout-index",
    "commit-tree",
    "count-objects",
    "diff-files",
    "diff-index",
    "diff-tree",
    "hash-object",
    "maintenance",
    "merge-file",
    "merge-tree",
    "mktree",
    "name-rev",
    "pack-refs",
    "prune",
    "read-tree",
    "repack",
    "replace",
    "rerere",
    "send-pack",
    "write-tree",
    "check-ignore",
    "checkout",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "describe",
    "diff",
    "difftool",
    "fetch",
    "for-each-ref",
    "format-patch",
    "fsck",
    "gc",
    "grep",
    "help",
    "init",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "merge",
    "merge-base",
    "mv",
    "notes",
    "pull",
    "push",
    "range-diff",
    "rebase",
    "reflog",
    "remote",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "update-index",
    "update-ref",
    "var",
    "version",
    "whatchanged",
    "worktree",
];

/// The worktree a git invocation acts on: `--work-tree`/`--git-dir` when given, else the
/// worktree holding its directory. Std-only (reads `.git` files, opens no repository).
pub(crate) fn invocation_worktree(inv: &GitInvocation) -> Option<Worktree> {
    if let Some(wt) = &inv.work_tree {
        let wt = &super::normalize(Path::new(""), wt);
        if let Some(found) = worktree_at(wt) {
            return Some(found);
        }
        let git_dir = inv.git_dir.clone()?;
        return from_git_dir(&git_dir, wt);
    }
    if let Some(git_dir) = &inv.git_dir {
        // With only --git-dir, git takes the current directory as the top of the tree.
        return from_git_dir(git_dir, &inv.cwd);
    }
    locate(&inv.cwd, Path::new(".")).map(|l| l.worktree)
}

fn from_git_dir(git_dir: &Path, root: &Path) -> Option<Worktree> {
    super::discover::with_git_dir(super::normalize(Path::new(""), root), git_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn global_options_are_resolved() {
        let inv = parse_invocation(
            &argv("/usr/bin/git -C a -C b --no-pager -c x=y --git-dir=.git branch -D f"),
            Path::new("/w"),
            &[],
        )
        .unwrap();
        assert_eq!(inv.cwd, Path::new("/w/a/b"));
        assert_eq!(inv.git_dir.as_deref(), Some(Path::new("/w/a/b/.git")));
        assert_eq!(inv.config, vec!["x=y"]);
        assert_eq!(inv.args, argv("branch -D f"));
    }

    #[test]
    fn inline_alias_expands_and_env_counts() {
        let mut words = argv("git -c ALIAS nuke f");
        words[2] = "alias.nuke=branch -D".into();
        let inv = parse_invocation(
            &words,
            Path::new("/w"),
            &[("GIT_WORK_TREE".into(), "/x".into())],
        )
        .unwrap();
        assert_eq!(inv.args, argv("branch -D f"));
        assert_eq!(inv.work_tree.as_deref(), Some(Path::new("/x")));
        assert!(parse_invocation(&argv("gitk"), Path::new("/"), &[]).is_none());
        assert!(
            parse_invocation(&argv("git --version"), Path::new("/"), &[])
                .unwrap()
                .args
                .is_empty()
        );
    }
}

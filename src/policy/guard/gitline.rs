//! git's own command-line semantics the classifier sees through before judging: git's dashed
//! programs (`/usr/lib/git-core/git-reset`), aliases a `git config alias.NAME VALUE` earlier
//! on the line defines, and the shell text `git submodule foreach` runs in each submodule.

use std::path::{Path, PathBuf};

use crate::git;
use crate::shell::SimpleCommand;

/// `git config [--global|--local|--file F|...] [set] alias.NAME VALUE`: the alias it defines.
pub(super) fn alias_definition(cmd: &SimpleCommand) -> Option<(String, String)> {
    let inv = git::parse_invocation(&cmd.argv, &cmd.cwd, &cmd.assignments)?;
    let (key, value) = config_assignment(&inv.args)?;
    let name = key.to_ascii_lowercase().strip_prefix("alias.")?.to_owned();
    Some((name, value))
}

/// `git config [--global|--local|--worktree|--file F|...] [set|--add|--replace-all] KEY VALUE
/// [VALUE-PATTERN]` (its subcommand and arguments): the key (as written) and the value it
/// writes. Reads, unsets and section
/// renames write no value.
pub(super) fn config_assignment(args: &[String]) -> Option<(String, String)> {
    let (sub, rest) = args.split_first()?;
    if sub != "config" {
        return None;
    }
    let mut operands = Vec::new();
    let mut skip = false;
    for a in rest {
        if skip {
            skip = false;
        } else if matches!(
            a.as_str(),
            "-f" | "--file" | "--blob" | "--type" | "--comment" | "--value" | "--default"
        ) {
            skip = true;
        } else if a.starts_with("--get")
            || a.starts_with("--unset")
            || matches!(
                a.as_str(),
                "-l" | "--list" | "-e" | "--edit" | "--rename-section" | "--remove-section"
            )
        {
            return None;
        } else if !a.starts_with('-') {
            operands.push(a.as_str());
        }
    }
    match operands.first() {
        Some(&"set") => {
            operands.remove(0);
        }
        Some(&("get" | "unset" | "list" | "edit" | "rename-section" | "remove-section")) => {
            return None;
        }
        _ => {}
    }
    match operands.as_slice() {
        [key, value] | [key, value, _] => Some(((*key).to_owned(), (*value).to_owned())),
        _ => None,
    }
}

/// `git-reset ARGS` (git's dashed programs, as `/usr/lib/git-core/git-reset` or
/// `"$(git --exec-path)"/git-clean`): the same as `git reset ARGS`. Other `git-*` programs
/// (`git-dibs`, `git-lfs`) are left alone.
pub(super) fn undash(argv: &[String]) -> Option<Vec<String>> {
    let base = argv.first()?.rsplit('/').next()?;
    let sub = base.strip_prefix("git-")?;
    if !git::BUILTINS.contains(&sub) || super::classify::has_expansion(base) {
        return None;
    }
    let mut out = vec!["git".to_owned(), sub.to_owned()];
    out.extend(argv[1..].iter().cloned());
    Some(out)
}

/// How many submodules (nested ones included) a `foreach` is followed into.
const MAX_SUBMODULES: usize = 32;

/// `git submodule [--quiet] foreach [--recursive] COMMAND...` in the worktree at `top`: the
/// shell text it runs and each submodule folder it runs in (from `.gitmodules`, nested ones with
/// `--recursive`). `None` when the arguments are not a `foreach`.
pub(super) fn submodule_foreach(args: &[String], top: &Path) -> Option<(String, Vec<PathBuf>)> {
    let (sub, rest) = args.split_first()?;
    if sub != "submodule" {
        return None;
    }
    let at = rest.iter().position(|a| a == "foreach")?;
    if rest[..at].iter().any(|a| !a.starts_with('-')) {
        return None;
    }
    let mut words = rest[at + 1..].iter().peekable();
    let mut recursive = false;
    while let Some(w) = words.peek() {
        match w.as_str() {
            "--recursive" => recursive = true,
            "-q" | "--quiet" => {}
            _ => break,
        }
        words.next();
    }
    let text = words.cloned().collect::<Vec<_>>().join(" ");
    let mut dirs = Vec::new();
    let mut todo = vec![top.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for path in submodule_paths(&dir) {
            if dirs.len() == MAX_SUBMODULES {
                return Some((text, dirs));
            }
            let root = dir.join(path);
            if recursive {
                todo.push(root.clone());
            }
            dirs.push(root);
        }
    }
    Some((text, dirs))
}

/// The `path = …` entries of the `.gitmodules` file in `dir` (bounded; none when unreadable).
fn submodule_paths(dir: &Path) -> Vec<String> {
    let file = dir.join(".gitmodules");
    let Some(bytes) = std::fs::metadata(&file)
        .ok()
        .filter(|m| m.is_file() && m.len() <= 64 * 1024)
        .and_then(|_| std::fs::read(&file).ok())
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "path").then(|| v.trim().trim_matches('"').to_owned())
        })
        .filter(|p| !p.is_empty() && !p.starts_with('/') && !p.split('/').any(|c| c == ".."))
        .collect()
}

/// The `GIT_CONFIG_PARAMETERS` git gives the commands it runs (a `!` alias's shell text): every
/// config key `inv` sets for itself alone, whatever the spelling, in git's own quoting (values
/// only known when it runs are left out). `None` when it sets none.
pub(super) fn config_parameters(inv: &git::GitInvocation) -> Option<String> {
    let sq = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let parts: Vec<String> = inv
        .line_config
        .iter()
        .filter_map(|(k, v)| Some(format!("{}={}", sq(k), sq(v.as_deref()?))))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

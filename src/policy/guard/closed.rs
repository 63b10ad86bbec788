//! Failing closed: a command line the parser cannot read, or a guarded command whose facts
//! cannot be established, is put to the person, unless its text cannot reach a guarded
//! operation at all (a cheap lexical check: no git, rm, find, mv, shell, interpreter, ...).

use super::classify::has_expansion;
use super::{Finding, Guarded, Verdict};
use crate::shell::{SimpleCommand, Unknown};

/// Programs whose mere mention in unreadable text means a guarded effect cannot be ruled out:
/// the guarded programs themselves and everything that runs other commands.
const REACHING: &[&str] = &[
    "git", "rm", "find", "mv", "tar", "rsync", "unlink", "rmdir", "shred", "gh", "xargs", "eval",
    "mmv", "gio", "srm", "exec", "source", ".", "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash",
    "fish", "busybox", "env", "sudo", "doas", "su", "command", "builtin", "nohup", "setsid",
    "timeout", "nice", "time", "watch", "script", "flock", "strace", "ltrace", "taskset", "chrt",
    "ionice", "unshare", "stdbuf", "python", "python3", "python2", "perl", "ruby", "node", "deno",
    "bun", "php", "lua", "tclsh", "awk", "gawk", "mawk", "nawk", "sed", "gsed", "make", "gmake",
    "remake", "bmake", "parallel", "coproc", "trap", "alias", "function",
];

/// Whether `text` may run a guarded operation, judged on its words alone. Used only where the
/// parser could not read the text: `ls -la (` stays silent, `git reset --hard (` does not.
pub(crate) fn may_reach_guarded(text: &str) -> bool {
    let mut prev: char = ' ';
    for c in text.chars() {
        // A command name from a variable or a substitution can be anything.
        if (c == '$' || c == '`') && " \t\n;&|({`!".contains(prev) {
            return true;
        }
        if c == '`' {
            return true;
        }
        prev = if c.is_whitespace() { ' ' } else { c };
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .any(|w| {
            let w = w.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            REACHING.contains(&w) || (w == "." || w.starts_with("python"))
        })
}

/// The verdict on a command line that cannot be parsed: ask when it may reach a guarded
/// operation, else allow.
pub fn unparsable(command: &str, error: &str) -> Verdict {
    if !may_reach_guarded(command) {
        return Verdict::Allow;
    }
    Verdict::Ask(Finding::new(
        "unparsable",
        format!(
            "git-dibs cannot read this command line ({error}), and it may run a command that \
             destroys work (git, rm, a shell or an interpreter). Split it into simpler commands \
             with literal targets, or ask the person."
        ),
    ))
}

/// The verdict on a guarded command whose facts could not be established (a repository format
/// or a directory that cannot be read, git itself failing): the person decides.
pub(crate) fn facts_unknown(g: &Guarded, error: &str) -> Verdict {
    Verdict::Ask(Finding::new(
        "facts-unknown",
        format!(
            "git-dibs cannot establish what `{}` would destroy: {error}. Check the state by hand \
             (git status, git worktree list, git log @{{u}}..), or ask the person.",
            g.display
        ),
    ))
}

/// Why a guarded command's targets or directory are only known when it runs, if they are.
pub(super) fn unknown_reason(cmd: &SimpleCommand, targets: &[String]) -> Option<String> {
    match cmd.unknown {
        Some(Unknown::Xargs) => {
            return Some("its targets come from `xargs` or `find -exec` when it runs".into());
        }
        Some(Unknown::Eval) => {
            return Some("it runs under `eval` or from a script whose text is not known".into());
        }
        Some(Unknown::Glob) => {
            return Some("a glob in it matches more than git-dibs expands".into());
        }
        Some(Unknown::Made) => {
            return Some("it goes through a link or a move made earlier in the same line".into());
        }
        _ => {}
    }
    if let Some(t) = targets.iter().find(|t| has_expansion(t)) {
        return Some(format!("its target `{t}` is only known when it runs"));
    }
    if !cmd.cwd_known {
        return Some("the directory it runs in is only known when it runs".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_check() {
        for t in [
            "git reset --hard (",
            "rm -rf x )",
            "bash -c 'x",
            "$CMD (",
            "echo `x",
            "a; python3 -c 'import os' (",
            "/usr/bin/git push --delete (",
        ] {
            assert!(may_reach_guarded(t), "{t}");
        }
        for t in [
            "ls -la (",
            "cargo test )",
            "echo hi |&&",
            "grep -r 'x' src (",
        ] {
            assert!(!may_reach_guarded(t), "{t}");
        }
    }
}

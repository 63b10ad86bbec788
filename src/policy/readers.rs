//! Command lines that can only read: every command a program known to write no file (`ls`,
//! `cat`, `grep`, `git status`, ...), with no output redirected to a file and nothing left
//! unknown. After such a line there is nothing new to snapshot, so the scan for unseen
//! changes is skipped; before a line that can only read and runs no git (see
//! [`destroys_nothing`]), the sweep of watched files is left to the next command that may.
//! Conservative: anything not on the list counts as a possible writer. Pure: no file system.

use crate::git::parse_invocation;
use crate::shell::SimpleCommand;

/// Programs that write no file whatever their arguments (shell builtins included).
const READERS: &[&str] = &[
    "basename",
    "cat",
    "cd",
    "cmp",
    "column",
    "comm",
    "cut",
    "date",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "false",
    "fgrep",
    "file",
    "grep",
    "head",
    "hostname",
    "id",
    "less",
    "ls",
    "md5sum",
    "more",
    "nl",
    "od",
    "printf",
    "pwd",
    "readlink",
    "realpath",
    "rg",
    "sha1sum",
    "sha256sum",
    "stat",
    "tail",
    "test",
    "tr",
    "tree",
    "true",
    "type",
    "uname",
    "wc",
    "which",
    "whoami",
    "xxd",
    "[",
];

/// git subcommands that write no file in the worktree (they may refresh git's own index).
const GIT_READERS: &[&str] = &[
    "blame",
    "cat-file",
    "describe",
    "diff",
    "help",
    "grep",
    "log",
    "ls-files",
    "ls-tree",
    "merge-base",
    "rev-list",
    "rev-parse",
    "shortlog",
    "show",
    "status",
    "version",
];

/// `find` actions that write, delete or run something.
const FIND_WRITERS: &[&str] = &[
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
];

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Whether `cmd` can only read.
fn reads_only(cmd: &SimpleCommand) -> bool {
    if cmd.unknown.is_some() || cmd.redirects.iter().any(|r| r.target != "/dev/null") {
        return false;
    }
    let Some(program) = cmd.argv.first() else {
        return true;
    };
    match basename(program) {
        "find" => !cmd.argv.iter().any(|a| FIND_WRITERS.contains(&a.as_str())),
        "sort" => !cmd.argv.iter().any(|a| {
            a == "-o" || a.starts_with("--output") || (a.starts_with("-o") && a.len() > 2)
        }),
        "git" => parse_invocation(&cmd.argv, &cmd.cwd, &cmd.assignments).is_some_and(|inv| {
            inv.config.is_empty()
                && inv.alias_from_env.is_empty()
                && inv
                    .args
                    .first()
                    .is_some_and(|s| GIT_READERS.contains(&s.as_str()))
                && !inv.args.iter().any(|a| a.starts_with("--output"))
        }),
        name => READERS.contains(&name),
    }
}

/// Whether every command of a parsed line can only read (see the module's note). An empty
/// line reads only.
pub(crate) fn only_reads(cmds: &[SimpleCommand]) -> bool {
    cmds.iter().all(reads_only)
}

/// Whether a parsed line can destroy no file whatever the repository's configuration says: it
/// only reads, runs no `git` (whose reading commands still start programs its configuration
/// names: `core.fsmonitor`, clean filters, `diff.external`, textconv) and sets no variable
/// (`LD_PRELOAD=./x.so ls`, `LESSOPEN='|...' less`). Before such a line the sweep of watched
/// files can wait for the next line that may destroy one.
pub(crate) fn destroys_nothing(cmds: &[SimpleCommand]) -> bool {
    cmds.iter().all(|c| {
        reads_only(c)
            && c.assignments.is_empty()
            && c.argv.first().is_none_or(|p| basename(p) != "git")
    })
}

#[cfg(test)]
mod tests {
    use super::only_reads;
    use std::path::Path;

    fn reads(line: &str) -> bool {
        let cmds = crate::shell::parse(line, Path::new("/nonexistent-dibs/w")).unwrap();
        only_reads(&cmds)
    }

    #[test]
    fn everyday_readers_read_only() {
        for line in [
            "ls -la",
            "git status",
            "git -C sub log --oneline -5",
            "cat a.txt | grep x | wc -l",
            "rg -n foo src/ 2>/dev/null",
            "find . -name '*.rs' -type f",
            "git diff --stat || true",
            "cd src && ls",
        ] {
            assert!(reads(line), "{line}");
        }
    }

    #[test]
    fn readers_other_than_git_destroy_nothing_git_readers_may() {
        let destroys_nothing = |line: &str| {
            let cmds = crate::shell::parse(line, Path::new("/nonexistent-dibs/w")).unwrap();
            super::destroys_nothing(&cmds)
        };
        for line in ["ls -la", "cat a.txt | grep x | wc -l", "cd src && ls"] {
            assert!(destroys_nothing(line), "{line}");
        }
        for line in [
            "git status",
            "git diff --stat",
            "ls && git log",
            "/usr/bin/git show",
            "cargo build",
            "make",
            "ls > x",
            "rm -f x",
            "LD_PRELOAD=./x.so ls",
            "env LESSOPEN='|./x %s' less a.txt",
            "bash -c 'ls; ./build.sh'",
        ] {
            assert!(!destroys_nothing(line), "{line}");
        }
    }

    #[test]
    fn anything_that_may_write_does_not() {
        for line in [
            "ls > listing.txt",
            "cat a >> b",
            "cargo test",
            "python3 -c 'print(1)'",
            "sed -n 1p a.txt",
            "find . -name x -delete",
            "find . -exec touch {} +",
            "sort -o out.txt in.txt",
            "git -c core.fsmonitor=./x status",
            "git diff --output=patch.diff",
            "git config user.name x",
            "git checkout -- .",
            "./script.sh",
            "echo hi | tee out.txt",
            "ls $(touch x)",
            "npm run build",
        ] {
            assert!(!reads(line), "{line}");
        }
    }
}

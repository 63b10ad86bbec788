//! Command lines that can only read: every command a program known to write no file (`ls`,
//! `cat`, `grep`, `git status`, ...), with no output redirected to a file and nothing left
//! unknown. After such a line there is nothing new to snapshot, so the scan for unseen
//! changes is skipped; before a line that can only read and runs no git (see
//! [`destroys_nothing`]), the sweep of watched files is left to the next command that may.
//! Conservative: anything not on the list counts as a possible writer. Pure: no file system.

use crate::git::parse_invocation;
use crate::shell::SimpleCommand;

/// Programs that write no file and run no other program (shell builtins included), except by
/// the spellings [`writes_by_option`] names.
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
    "sort",
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

/// xxd's options that take the next word as their value (so it is no file operand).
const XXD_VALUES: &[&str] = &[
    "-c",
    "-cols",
    "-g",
    "-groupsize",
    "-l",
    "-len",
    "-s",
    "-seek",
    "-o",
    "-offset",
    "-n",
    "-name",
    "-R",
];

/// Whether a short-option word (`-xyz`, not `--x`) holds any of `letters`: clusters and
/// attached values are read as letters, which errs on the side of "may write".
fn short_has(word: &str, letters: &[char]) -> bool {
    word.len() > 1
        && word.starts_with('-')
        && !word.starts_with("--")
        && word[1..].chars().any(|c| letters.contains(&c))
}

/// Whether a program on the reader list writes a file or runs another program by one of its
/// own spellings: `xxd IN OUT`, `tree -o F` (and `-R`, which writes `00Tree.html` files),
/// `rg --pre CMD`, `less -o F` / `--log-file`, `sort -o F` / `--compress-program`,
/// `file -C` (writes `magic.mgc`). Long options are matched by prefix where the program takes
/// abbreviations.
fn writes_by_option(program: &str, args: &[String]) -> bool {
    let any = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    match program {
        "xxd" => {
            let (mut operands, mut value, mut ended) = (0, false, false);
            for a in args {
                if value {
                    value = false;
                } else if ended || a == "-" || !a.starts_with('-') {
                    operands += 1;
                } else if a == "--" {
                    ended = true;
                } else {
                    value = XXD_VALUES.contains(&a.as_str());
                }
            }
            operands > 1
        }
        "tree" => any(&|a| short_has(a, &['o', 'R']) || a.starts_with("--o")),
        "rg" => any(&|a| {
            ["--pre", "--pre-glob", "--hostname-bin"]
                .iter()
                .any(|n| a == *n || a.strip_prefix(n).is_some_and(|r| r.starts_with('=')))
        }),
        "less" => any(&|a| {
            short_has(a, &['o', 'O'])
                || a.to_ascii_lowercase().starts_with("--lo")
                || a.starts_with('+')
        }),
        "sort" => any(&|a| short_has(a, &['o']) || a.starts_with("--o") || a.starts_with("--com")),
        "file" => any(&|a| short_has(a, &['C']) || a.starts_with("--c")),
        _ => false,
    }
}

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
        "git" => parse_invocation(&cmd.argv, &cmd.cwd, &cmd.assignments).is_some_and(|inv| {
            inv.config.is_empty()
                && inv.alias_from_env.is_empty()
                && inv
                    .args
                    .first()
                    .is_some_and(|s| GIT_READERS.contains(&s.as_str()))
                // `--output=F` (and its abbreviations); `git grep -O CMD` runs CMD.
                && !inv.args.iter().any(|a| {
                    a.starts_with("--ou")
                        || (inv.args[0] == "grep"
                            && (a.starts_with("--op") || short_has(a, &['O'])))
                })
        }),
        name => READERS.contains(&name) && !writes_by_option(name, &cmd.argv[1..]),
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

    #[test]
    fn readers_spellings_that_write_or_run_others_do_not_read_only() {
        for line in [
            "xxd a.txt out.txt",
            "xxd -r dump.hex a.bin",
            "xxd -l 16 a.bin out.hex",
            "xxd - out.hex",
            "xxd -- -in -out",
            "tree -o listing.txt",
            "tree -ao listing.txt",
            "tree --output=listing.txt",
            "tree -R -H . -L 1",
            "rg --pre ./conv.sh foo",
            "rg --pre=./conv.sh foo",
            "rg --pre-glob '*.pdf' foo",
            "rg --hostname-bin ./h foo",
            "less -o log.txt a.txt",
            "less -olog.txt a.txt",
            "less -O log.txt a.txt",
            "less --log-file=log.txt a.txt",
            "less --LOG-FILE log.txt a.txt",
            "less --log log.txt a.txt",
            "less '+!touch x' a.txt",
            "sort -o out.txt in.txt",
            "sort -no out.txt in.txt",
            "sort --output=out.txt in.txt",
            "sort --out=out.txt in.txt",
            "sort --compress-program=./z in.txt",
            "uniq a.txt out.txt",
            "file -C -m magic",
            "file --compile -m magic",
            "git log --output=log.txt",
            "git diff --out=patch.diff",
            "git show --output patch.diff",
            "git grep -O./x foo",
            "git grep --open-files-in-pager=./x foo",
            "git grep --open foo",
        ] {
            assert!(!reads(line), "{line}");
        }
    }

    #[test]
    fn readers_plain_spellings_stay_read_only() {
        for line in [
            "xxd a.bin",
            "xxd -l 16 a.bin",
            "xxd -s 0x10 -c 8 a.bin | head",
            "xxd -i a.bin",
            "tree",
            "tree -L 2 src",
            "tree -a -I target",
            "rg foo --glob '*.rs'",
            "rg -n --type rust foo src",
            "rg -z foo logs",
            "less -R a.txt",
            "less -N a.txt",
            "sort -u a.txt",
            "sort -k2 -t, a.csv",
            "sort -rn a.txt | head",
            "file a.bin",
            "file -b --mime-type a.bin",
            "git log --oneline -5",
            "git diff --stat",
            "git grep -n foo",
            "git grep --only-matching foo",
            "cut -d, -f1 --output-delimiter=: a.csv",
            "head -n 5 a.txt",
            "grep -rn foo src",
            "du -sh .",
            "diff -u a b",
        ] {
            assert!(reads(line), "{line}");
        }
    }
}

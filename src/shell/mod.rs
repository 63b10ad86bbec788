//! Parsing a shell command line into simple commands (argv, redirections, the directory each
//! runs in), with wrappers peeled off.
//!
//! Design: a hand-written POSIX/bash tokenizer and recursive-descent parser. `yash-syntax` is
//! GPL-3.0 (this crate is MIT/Apache) and async; `brush-parser` pulls in peg, cached, bon and
//! insta and its recursion has no depth bound. Ours has no dependencies, bounds size and depth.

mod ast;
mod builtins;
mod compound;
mod consoles;
mod dollar;
mod editors;
mod effects;
mod emit;
mod eval;
mod ex;
mod expand;
mod file_tools;
mod js_runners;
mod lex;
mod parse;
mod quote;
mod runners;
mod shells;
mod simple;
mod small_tools;
mod sources;
mod state;
mod vars;
mod wrapper_specs;
mod wrappers;

pub(crate) use editors::opaque_code as editor_code;
pub(crate) use ex::{is_vim, judge as ex_judge};
pub(crate) use sources::interpreter_of;
pub(crate) use vars::{Resolver, builtin_output};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_expand;
#[cfg(test)]
mod tests_prop;
#[cfg(test)]
mod tests_runners;

use std::path::{Path, PathBuf};

/// Largest command line accepted by [`parse()`], in bytes.
pub const MAX_INPUT: usize = 256 * 1024;
/// Deepest nesting (lists, substitutions, nested shells) accepted by [`parse()`].
pub const MAX_DEPTH: u32 = 16;

/// One command that will run: its argv with wrappers peeled off, its environment prefix, the
/// directory it runs in and its output redirections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimpleCommand {
    /// argv after quote removal, with wrappers peeled off (env, sudo, command, exec, nohup, time,
    /// timeout DURATION, nice [-n N], and `bash -c`/`sh -c`/`bash -lc`/`zsh -c` whose string is
    /// parsed recursively). `argv[0]` is as written (may be an absolute path like /usr/bin/git);
    /// unquoted globs are expanded against the file system relative to `cwd` (no match: the word
    /// stays literal). Unquoted brace expansion (`{a,b}`, `{1..3}`) and a leading `~` are expanded.
    pub argv: Vec<String>,
    /// Leading NAME=value assignments that apply to THIS command (including those given via
    /// `env`, `sudo`, and those of an enclosing `bash -c` / `eval`).
    pub assignments: Vec<(String, String)>,
    /// The directory this command will run in: the starting cwd, updated by `cd DIR` earlier in
    /// the same list (`cd a && git ...`, `cd a; git ...`), scoped to subshells/brace groups
    /// correctly, `cd` with no arg or `cd ~` = $HOME, `cd -` = unknown. `pushd`/`popd`,
    /// `env -C DIR` and `sudo -D DIR` are followed too.
    pub cwd: PathBuf,
    /// False when the cwd could not be known (cd $VAR, cd $(..), cd -).
    pub cwd_known: bool,
    /// Output redirections of this command (`>`, `>>`, `>|`, `&>`, `2>` etc.), targets as
    /// written after quote removal. Descriptor duplications (`2>&1`, `>&-`) are not listed.
    pub redirects: Vec<Redirect>,
    /// Set when part of this command cannot be known before it runs.
    pub unknown: Option<Unknown>,
    /// For each word of `argv`: it came from an unquoted expansion, so its value may be several
    /// words or an option (`git branch $FLAGS x`).
    pub dynamic: Vec<bool>,
    /// Its standard input when that is literal text (a heredoc, a here-string, `echo ... |`).
    pub input: Option<String>,
    /// Where its standard input comes from (code on stdin: `echo CODE | python3`).
    pub stdin: Input,
    /// Files written earlier in the same line (`>`, `tee`, `cp`, ...), with their content when
    /// it is literal: what a script run from one of them holds is that, not what is on disk.
    pub written: Vec<(PathBuf, Option<String>)>,
    /// The pipe its standard input reads, directly or as part of a subshell, group or nested
    /// shell in a pipeline (`a | (cd x && b)`, `a | sh -c 'b'`): the same id as the writer's
    /// [`pipe_out`](Self::pipe_out). `None` when its input is not a pipe of the line.
    pub pipe_in: Option<u32>,
    /// The pipe its standard output writes, the same way.
    pub pipe_out: Option<u32>,
    /// The file its standard input is redirected from (`< FILE`), whatever is known of its
    /// content (see [`stdin`](Self::stdin)).
    pub stdin_path: Option<PathBuf>,
    /// The program whose arguments hold this command, when it is not known to run it
    /// ([`Unknown::Runner`]).
    pub runner: Option<String>,
}

impl SimpleCommand {
    /// What a file this command reads holds: as written earlier in its line, else as on disk
    /// (bounded); `None` when there is no such file, `Some(None)` when it cannot be read.
    pub(crate) fn file_in_reach(&self, path: &Path) -> Option<Option<String>> {
        // `dir/../f` is the `f` written earlier (folded as the shell does).
        let folded = expand::join_dir(&self.cwd, &path.to_string_lossy());
        match self
            .written
            .iter()
            .rev()
            .find(|(p, _)| *p == path || *p == folded)
        {
            Some((_, t)) => Some(t.clone()),
            None if std::fs::symlink_metadata(path).is_ok() => Some(effects::read_script(path)),
            None => None,
        }
    }

    /// What a vim-family editor this command runs does (shell text, writes, other code),
    /// reading the script files and the input it is given; `None` for other programs.
    pub(crate) fn ex(&self, argv: &[String]) -> Option<ex::Ex> {
        let read = |p: &Path| self.file_in_reach(p);
        ex::judge(argv, &self.stdin, &self.cwd, &read)
    }
}

/// Where a [`SimpleCommand`]'s standard input comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Input {
    /// Neither redirected nor piped.
    #[default]
    Inherited,
    /// Literal text (a heredoc, a here-string, `echo ... |`, a file written earlier in the line).
    Text(String),
    /// A file on disk (`< FILE`).
    File(PathBuf),
    /// A pipe, a substitution or a file whose content is not known here.
    Unknown,
}

/// An output redirection of a [`SimpleCommand`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor written before the operator (`2>` is `Some(2)`); `None` when none was
    /// written (standard output, or both outputs for `&>`).
    pub(crate) fd: Option<u32>,
    /// True for `>>` and `&>>`.
    pub(crate) append: bool,
    /// The target file, as written after quote removal.
    pub(crate) target: String,
    /// True when both standard output and standard error go to the target (`&>`, `&>>`, `>&FILE`).
    pub(crate) both: bool,
    /// True when the target has a variable or command substitution in it (`> f$i.txt`): the
    /// file it names is known only when the command runs, not by `target`'s literal text.
    pub(crate) expands: bool,
}

/// Why part of a [`SimpleCommand`] cannot be known before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// `$(...)` or backticks somewhere in argv (argv keeps the literal text of that word).
    CommandSubstitution,
    /// A `$VAR`/`${VAR}` expansion in `argv[0]` or in an argument.
    Variable,
    /// `eval ...` (argv is the eval's words) or `source`/`.` of a script, or a shell reading
    /// its commands from a pipe or file whose content is not literal.
    Eval,
    /// The command runs under `xargs` (argv = the command xargs runs, with its fixed args), or
    /// is run by another program with arguments it adds (`find -exec`, `git rebase -x`).
    Xargs,
    /// A glob hit its expansion bound: what it matches is not known.
    Glob,
    /// A path it names goes through a link or a move made earlier in the same line.
    Made,
    /// Shell text it runs could not be read; `argv`'s last word is that text.
    Unreadable,
    /// It is an argument of a program the guard does not know (see
    /// [`SimpleCommand::runner`]), which may run it.
    Runner,
}

/// Why a command line could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The command line is longer than [`MAX_INPUT`] bytes.
    #[error("command line longer than {} bytes", MAX_INPUT)]
    TooLarge,
    /// The command line nests deeper than [`MAX_DEPTH`] levels.
    #[error("command line nested deeper than {} levels", MAX_DEPTH)]
    TooDeep,
    /// The command line is not valid shell syntax.
    #[error("shell syntax error: {0}")]
    Syntax(String),
}

/// Whether `name` (a program's last path component) is a shell that runs its own command text.
pub(crate) fn is_shell(name: &str) -> bool {
    wrappers::SHELLS.contains(&name)
}

/// Whether `name` is a shell whose syntax is not POSIX's (fish, csh, pwsh, nu, ...).
pub(crate) fn is_foreign_shell(name: &str) -> bool {
    wrappers::FOREIGN_SHELLS.contains(&name)
}

/// A word quoted for shell text (left bare when it holds only characters no shell treats
/// specially): what the guard shows in messages, and what nested command text is built from.
pub(crate) fn quote_word(w: &str) -> String {
    if !w.is_empty()
        && !w.starts_with('~')
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+%,^~".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Parse a command line as bash would, starting in `cwd` (HOME from the environment for `~`).
pub fn parse(command: &str, cwd: &Path) -> Result<Vec<SimpleCommand>, ParseError> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    parse_with_home(command, cwd, home.as_deref())
}

/// [`parse()`] with an explicit home directory (`None`: `cd` and `~` lead to an unknown cwd).
pub fn parse_with_home(
    command: &str,
    cwd: &Path,
    home: Option<&Path>,
) -> Result<Vec<SimpleCommand>, ParseError> {
    if command.len() > MAX_INPUT {
        return Err(ParseError::TooLarge);
    }
    parse_resolved(command, cwd, home, &builtin_output)
}

/// [`parse_with_home`] where `resolver` gives the output of commands whose output can be known
/// without running them (`$(git rev-parse --show-toplevel)`); [`builtin_output`] knows `pwd`,
/// `mktemp`, `dirname` and `basename`.
pub(crate) fn parse_resolved(
    command: &str,
    cwd: &Path,
    home: Option<&Path>,
    resolver: Resolver<'_>,
) -> Result<Vec<SimpleCommand>, ParseError> {
    if command.len() > MAX_INPUT {
        return Err(ParseError::TooLarge);
    }
    let list = lex::Parser::new(command, 0).parse_program()?;
    eval::run(&list, cwd, home, resolver)
}

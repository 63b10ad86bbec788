//! Where the text a shell runs comes from, when it is not `-c TEXT`: a script operand, `.`/
//! `source`, a file run by its path, standard input (`/dev/stdin`), a process substitution
//! (`sh <(...)`), or a file written earlier in the same line (`echo ... > x.sh; sh x.sh`).
//! Text that cannot be known is [`Stdin::Opaque`]: the guard then fails closed.

use std::path::{Path, PathBuf};

use super::Input;
use super::ast::Word;
use super::effects::read_script;
use super::expand::{Arg, join_dir};
use super::state::{State, Stdin};
use super::wrappers::basename;

/// Outputs of the process substitutions among a command's words: (word as written, output).
pub(super) type ProcSubs = Vec<(String, Option<String>)>;

/// Whether a word is a process substitution `<(...)` (it names a pipe, not its output).
pub(super) fn is_procsub(w: &Word) -> bool {
    w.subs.len() == 1
        && matches!(w.spans.first(), Some(Some((0, _, false))))
        && matches!(w.chars.as_slice(), [a, b, ..] if a.c == '<' && b.c == '(')
}

/// Paths that read the command's own standard input.
const STDIN_PATHS: &[&str] = &["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// What a file written earlier in the line holds: `Some(None)` written, content unknown.
pub(super) fn written<'a>(st: &'a State, path: &Path) -> Option<&'a Option<String>> {
    st.written
        .iter()
        .rev()
        .find(|(p, _)| p == path)
        .map(|(_, t)| t)
}

/// The text a shell (or `.`/`source`) runs from the file operand `f`: `None` when there is
/// nothing to run (the file does not exist, so the shell fails). A file missing now may be
/// made by a command earlier in the line (`tar x`, `git checkout`): `after` says one ran, and
/// then its content is unknown.
pub(super) fn script(
    f: &Arg,
    stdin: &Stdin,
    st: &State,
    cwd: &Path,
    procs: &ProcSubs,
    after: bool,
) -> Option<Stdin> {
    if let Some((_, out)) = procs.iter().find(|(w, _)| *w == f.text) {
        return Some(out.clone().map_or(Stdin::Opaque, Stdin::Text));
    }
    if f.var || f.cmdsub {
        return Some(Stdin::Opaque);
    }
    if !STDIN_PATHS.contains(&f.text.as_str())
        && (f.text.starts_with("/dev/fd/") || f.text.starts_with("/proc/"))
    {
        // Another descriptor, or a process's files: not known here.
        return Some(Stdin::Opaque);
    }
    if STDIN_PATHS.contains(&f.text.as_str()) {
        return match stdin {
            Stdin::None => None,
            Stdin::File(p) => Some(file(p, st)),
            s => Some(s.clone()),
        };
    }
    let path = join_dir(cwd, &f.text);
    if written(st, &path).is_some() || std::fs::symlink_metadata(&path).is_ok() {
        return Some(file(&path, st));
    }
    after.then_some(Stdin::Opaque)
}

/// The content of a file: as written earlier in the line, else as on disk.
fn file(path: &Path, st: &State) -> Stdin {
    let text = match written(st, path) {
        Some(t) => t.clone(),
        None => read_script(path),
    };
    text.map_or(Stdin::Opaque, Stdin::Text)
}

/// What a file a program reads holds: as written earlier in the line, else as on disk; `None`
/// when there is no such file, `Some(None)` when it cannot be read.
pub(super) fn in_reach(path: &Path, st: &State) -> Option<Option<String>> {
    match written(st, path) {
        Some(t) => Some(t.clone()),
        None if std::fs::symlink_metadata(path).is_ok() => Some(read_script(path)),
        None => None,
    }
}

/// Standard input with a file written earlier in the line replaced by what it holds.
pub(super) fn resolve_stdin(stdin: Stdin, st: &State) -> Stdin {
    match stdin {
        Stdin::File(p) => match written(st, &p) {
            Some(Some(t)) => Stdin::Text(t.clone()),
            Some(None) => Stdin::Opaque,
            None => Stdin::File(p),
        },
        s => s,
    }
}

/// The public form of a command's standard input.
pub(super) fn input(stdin: &Stdin) -> Input {
    match stdin {
        Stdin::None => Input::Inherited,
        Stdin::Text(t) => Input::Text(t.clone()),
        Stdin::File(p) => Input::File(p.clone()),
        Stdin::Opaque => Input::Unknown,
    }
}

/// What running a file written earlier in the line by its path (`./x`) runs: shell text (no
/// `#!` line, or one naming a shell), or the interpreter its `#!` line names, which then runs
/// the file as a script. `None`: the file was not written in this line.
pub(super) enum Run {
    Shell(Stdin),
    Interpreter(String),
}

pub(super) fn run_by_path(argv0: &str, st: &State, cwd: &Path) -> Option<Run> {
    if !argv0.contains('/') || st.written.is_empty() {
        return None;
    }
    let text = written(st, &join_dir(cwd, argv0))?;
    let Some(text) = text else {
        return Some(Run::Shell(Stdin::Opaque));
    };
    Some(match interpreter_of(text) {
        None => Run::Shell(Stdin::Text(text.clone())),
        Some(prog) => Run::Interpreter(prog.to_owned()),
    })
}

/// The program a script's `#!` line names (through `env`), unless it is a shell or there is no
/// `#!` line: then a shell runs the text (`None`).
pub(crate) fn interpreter_of(text: &str) -> Option<&str> {
    let line = text.strip_prefix("#!").and_then(|t| t.lines().next())?;
    let mut words = line.split_whitespace();
    let mut prog = basename(words.next().unwrap_or(""));
    if prog == "env" {
        prog = words.find(|w| !w.starts_with('-')).unwrap_or("");
    }
    (!super::is_shell(prog)).then_some(prog)
}

/// Record the files a command writes, with their content when it is literal: `> FILE` of a
/// command whose output is known, `tee FILE` of known input; `>>`, `cp`, `mv`, `install`,
/// `curl -o`, `wget -O`, `dd of=` and `npm pkg set` leave content that is not known here.
pub(super) fn note_written(
    argv: &[Arg],
    redirects: &[super::Redirect],
    output: Option<&str>,
    input: &Stdin,
    cwd: &Path,
    st: &mut State,
) {
    let mut put = |path: PathBuf, text: Option<String>| {
        st.written.retain(|(p, _)| *p != path);
        st.written.push((path, text));
    };
    for r in redirects {
        let out = r.fd.is_none_or(|fd| fd == 1);
        let text = (out && !r.append)
            .then(|| output.map(str::to_owned))
            .flatten();
        put(join_dir(cwd, &r.target), text);
    }
    let Some(first) = argv.first() else { return };
    let rest = &argv[1..];
    let operands = || rest.iter().filter(|a| !a.text.starts_with('-'));
    match basename(&first.text) {
        "tee" => {
            let append = rest.iter().any(|a| a.text == "-a" || a.text == "--append");
            let text = match input {
                Stdin::Text(t) if !append => Some(t.clone()),
                _ => None,
            };
            for a in operands() {
                put(join_dir(cwd, &a.text), text.clone());
            }
        }
        "cp" | "mv" | "install" | "ln" => {
            if let Some(dest) = operands().next_back() {
                put(join_dir(cwd, &dest.text), None);
            }
        }
        // `npm pkg set scripts.x=…`, `npm set-script`: the nearest `package.json` changes.
        "npm" | "pnpm" | "yarn" | "bun"
            if rest.first().is_some_and(|a| a.text == "set-script")
                || (rest.first().is_some_and(|a| a.text == "pkg")
                    && rest.get(1).is_some_and(|a| a.text != "get")) =>
        {
            let pkg = cwd
                .ancestors()
                .map(|d| d.join("package.json"))
                .find(|p| p.is_file())
                .unwrap_or_else(|| cwd.join("package.json"));
            put(pkg, None);
        }
        "curl" | "wget" => {
            let flag = if basename(&first.text) == "curl" {
                "-o"
            } else {
                "-O"
            };
            for w in rest.windows(2) {
                if w[0].text == flag || w[0].text == "--output" || w[0].text == "--output-document"
                {
                    put(join_dir(cwd, &w[1].text), None);
                }
            }
        }
        // In-place edits: the file's content is no longer what is on disk.
        "sed" | "gsed" | "perl" | "ruby" | "patch" | "truncate" | "shred" => {
            let inplace = rest.iter().any(|a| {
                a.text.starts_with("--in-place")
                    || (a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('i'))
            });
            if inplace || matches!(basename(&first.text), "patch" | "truncate" | "shred") {
                for a in operands() {
                    put(join_dir(cwd, &a.text), None);
                }
            }
        }
        "dd" => {
            for a in rest {
                if let Some(f) = a.text.strip_prefix("of=") {
                    put(join_dir(cwd, f), None);
                }
            }
        }
        _ => {}
    }
}

/// The value of a shell alias defined earlier in the line: `Some(None)` when it was defined to
/// something only known when it runs.
pub(super) fn alias(st: &State, name: &str) -> Option<Option<String>> {
    st.aliases
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

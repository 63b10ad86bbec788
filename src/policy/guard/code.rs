//! Programs that run code the shell parser cannot follow: interpreters with inline code or a
//! script in reach (`python -c`, `perl -e`, `node -e`, `ruby -e`, `php -r`), `awk` with
//! `system()` or pipes, `sed` with its `e` command, editors given code (`vim -c 'call system()'`,
//! `emacs --eval`), and `make` (its makefile's recipes). The
//! code is looked into; when it may reach a guarded operation, the command is judged by what is
//! at risk within reach ([`super::Op::Runs`]).

use std::path::{Path, PathBuf};

use super::interp::{self, Source};
use super::make::Recipes;
use super::readonly::{self, Lang, read_only};
use crate::shell::{Input, SimpleCommand, Unknown};

/// Largest script or makefile read.
const MAX_CODE: u64 = 256 * 1024;

/// A shell (or `.`/`source`, or a file written earlier in the line and run by its path) whose
/// commands come from text the parser could not know: a pipe (`base64 -d | sh`), a process
/// substitution, a file it cannot read or one whose content was written in the line by a
/// command whose output is not known. Judged like code (reach), never silent.
pub(crate) fn unread_commands(cmd: &SimpleCommand, base: &str) -> Option<String> {
    if !matches!(cmd.unknown, Some(Unknown::Eval | Unknown::Xargs)) {
        return None;
    }
    let first = cmd.argv.first()?;
    let written = first.contains('/')
        && cmd
            .written
            .iter()
            .any(|(p, _)| *p == cmd.cwd.join(first.as_str()));
    if written {
        return Some(format!(
            "`{first}` was written earlier in this line with content git-dibs cannot know, and it may"
        ));
    }
    if !(crate::shell::is_shell(base)
        || crate::shell::is_foreign_shell(base)
        || matches!(base, "." | "source"))
    {
        return None;
    }
    let args = &cmd.argv[1..];
    let stdin = args
        .iter()
        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('s'));
    Some(match args.iter().find(|a| !a.starts_with('-')) {
        Some(file) if !stdin => {
            format!("`{base}` runs `{file}`, which git-dibs cannot read, and it may")
        }
        _ => format!(
            "`{base}` runs commands from its input, which git-dibs cannot read, and they may"
        ),
    })
}

/// What an interpreter's code amounts to, when it may reach a guarded operation.
pub(crate) enum Found {
    /// It may: why, as the start of "... delete files or run git".
    Ask(String),
    /// A script that runs only these commands (shell text, literal in it) and destroys nothing
    /// itself: they are judged as the commands they are.
    Commands {
        /// The script, as named.
        script: String,
        /// The commands.
        lines: Vec<String>,
        /// The folder they run in, when not the command's own (`make -C DIR`).
        dir: Option<std::path::PathBuf>,
    },
}

/// What code from `source` may do; `None` when it is clearly harmless (or there is none:
/// nothing on standard input).
fn judge_source(lang: Lang, source: &Source, name: &str, cmd: &SimpleCommand) -> Option<Found> {
    let ask = |s: String| Some(Found::Ask(s));
    let expanded = matches!(
        cmd.unknown,
        Some(Unknown::Variable | Unknown::CommandSubstitution)
    );
    let (text, what) = match source {
        // `python3 -c "$CODE"`: the code is only known when it runs.
        Source::Inline(code) if expanded && code.contains(['$', '`']) => {
            return ask(format!(
                "`{name}` runs inline code that is only known when it runs, which may"
            ));
        }
        Source::Inline(code) => (
            Some(code.clone()),
            format!("`{name}` runs inline code that may"),
        ),
        Source::Script(script) => {
            let Some(text) = file_text(&cmd.cwd.join(script), cmd) else {
                return ask(format!(
                    "`{name}` runs `{script}`, which git-dibs cannot read, and it may"
                ));
            };
            // A script file is judged by what it can destroy, not by what it imports or
            // writes: the snapshots keep what its writes replace.
            match readonly::power(lang, &text) {
                Some(readonly::Power::Runs(lines)) if lines.is_empty() => return None,
                Some(readonly::Power::Runs(lines)) => {
                    return Some(Found::Commands {
                        script: script.clone(),
                        lines,
                        dir: None,
                    });
                }
                Some(readonly::Power::Destroys(why)) => {
                    return ask(format!(
                        "the script `{script}` that `{name}` runs {why}, so it may"
                    ));
                }
                None => (
                    Some(text),
                    format!("the script `{script}` that `{name}` runs may"),
                ),
            }
        }
        Source::Stdin => {
            let text = match &cmd.stdin {
                Input::Inherited => return None,
                Input::Text(t) => Some(t.clone()),
                Input::File(f) => file_text(f, cmd),
                Input::Unknown => None,
            };
            if text.is_none() {
                return ask(format!(
                    "`{name}` runs code from its input, which git-dibs cannot read, and it may"
                ));
            }
            (text, format!("`{name}` runs code from its input that may"))
        }
    };
    let text = text?;
    // Inline code and code on standard input are judged as a script file is: by what they can
    // destroy, not by what they import or write (the snapshots keep what a write replaces).
    match readonly::power(lang, &text) {
        Some(readonly::Power::Runs(lines)) if !lines.is_empty() => {
            return Some(Found::Commands {
                script: format!("{name}'s code"),
                lines,
                dir: None,
            });
        }
        Some(readonly::Power::Destroys(why)) => {
            return ask(format!("the code `{name}` runs {why}, so it may"));
        }
        // Writing over a file that exists (a peer's, say) is put to the person as before.
        Some(readonly::Power::Runs(_)) if !writes_existing(&text, &cmd.cwd) => {}
        _ if !read_only(lang, &text) => return ask(what),
        _ => {}
    }
    // `import json` runs ./json.py when there is one (or one was written in the line).
    let shadowed = lang == Lang::Python
        && readonly::python_modules_named(&text).any(|m| {
            let file = cmd.cwd.join(format!("{m}.py"));
            let dir = cmd.cwd.join(m);
            file.exists()
                || dir.is_dir()
                || cmd
                    .written
                    .iter()
                    .any(|(p, _)| *p == file || p.starts_with(&dir))
        });
    shadowed.then(|| {
        Found::Ask(format!(
            "`{name}` imports a module that a file beside it replaces, which may"
        ))
    })
}

/// Whether inline code writes a file that already exists, by a literal name: Python's
/// `open('F', 'w…')` (or `a`, `x`, `+`), `Path('F').write_text`/`write_bytes`, JavaScript's
/// `writeFileSync('F'`/`appendFileSync('F'`/`writeFile('F'`. New files it makes are the
/// session's own output.
fn writes_existing(code: &str, cwd: &Path) -> bool {
    const CALLS: [&str; 6] = [
        "open(",
        "Path(",
        "writeFileSync(",
        "appendFileSync(",
        "writeFile(",
        "appendFile(",
    ];
    CALLS.iter().any(|call| {
        code.match_indices(call).any(|(at, _)| {
            let rest = code[at + call.len()..].trim_start();
            let Some(quote) = rest
                .chars()
                .next()
                .filter(|c| matches!(c, '\'' | '"' | '`'))
            else {
                return false;
            };
            let Some((name, after)) = rest[1..].split_once(quote) else {
                return false;
            };
            let writes = match *call {
                "open(" => after
                    .split(')')
                    .next()
                    .is_some_and(|args| args.contains(['w', 'a', 'x', '+'])),
                "Path(" => after
                    .trim_start_matches(')')
                    .trim_start()
                    .starts_with(".write_"),
                _ => true,
            };
            writes && !name.is_empty() && cwd.join(name).exists()
        })
    })
}

/// Perl's `-n`/`-p`/`<>` open their file operands with the two-argument `open`: `'cmd |'` runs a
/// command and `'>f'` truncates a file.
fn perl_magic_operand(argv: &[String], sources: &[Source]) -> Option<String> {
    let code: Vec<&str> = sources
        .iter()
        .filter_map(|s| match s {
            Source::Inline(c) => Some(c.as_str()),
            _ => None,
        })
        .collect();
    argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-') && !code.iter().any(|c| a.ends_with(c)))
        .find(|a| a.contains('|') || a.trim_start().starts_with(['>', '<', '+']))
        .map(|a| format!("`perl` opens `{a}` as a command or for writing, which may"))
}

/// A file's text: as written earlier in the line when it was, else as on disk.
fn file_text(path: &Path, cmd: &SimpleCommand) -> Option<String> {
    match cmd.written.iter().rev().find(|(p, _)| p == path) {
        Some((_, text)) => text.clone(),
        None => read(path),
    }
}

fn read(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CODE {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// What `argv` runs that may reach a guarded operation, when it is such a program. `cmd` gives
/// its standard input and the files written earlier in its line.
pub(crate) fn runs(argv: &[String], cmd: &SimpleCommand) -> Option<Found> {
    let name = argv.first()?.rsplit('/').next()?;
    if is_make(name) {
        // `-f -` and `-f /dev/stdin` read the makefile from standard input.
        let read = |p: &Path| {
            let stdin = p.ends_with("-")
                || ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]
                    .iter()
                    .any(|s| p == Path::new(s));
            if !stdin {
                return cmd.file_in_reach(p);
            }
            match &cmd.stdin {
                crate::shell::Input::Text(t) => Some(Some(t.clone())),
                crate::shell::Input::File(f) if f == Path::new("/dev/null") => {
                    Some(Some(String::new()))
                }
                crate::shell::Input::File(f) => cmd.file_in_reach(f).or(Some(None)),
                crate::shell::Input::Inherited => Some(Some(String::new())),
                crate::shell::Input::Unknown => Some(None),
            }
        };
        match super::make::recipes(&argv[1..], &cmd.cwd, &cmd.assignments, &read) {
            Recipes::Lines { dir, early, lines } => return make_commands(dir, early, lines),
            Recipes::Unread(why) => return Some(Found::Ask(why)),
            Recipes::Whole { texts, dir, early } => {
                if let Some((p, _)) = texts.iter().find(|(_, t)| risky_recipes(t)) {
                    return Some(Found::Ask(format!("the recipes of {} may", p.display())));
                }
                return make_commands(dir, early, Vec::new());
            }
            Recipes::NotRead => {}
        }
    }
    runs_why(argv, cmd).map_or_else(|| interpreted(argv, cmd), |why| Some(Found::Ask(why)))
}

/// The commands `make` runs: `early` as it reads its makefiles, then the recipe `lines`.
fn make_commands(dir: PathBuf, early: Vec<String>, lines: Vec<String>) -> Option<Found> {
    let script = match (early.is_empty(), lines.is_empty()) {
        (true, true) => return None,
        (true, false) => "its recipes",
        (false, true) => "its makefiles as make reads them",
        (false, false) => "its makefiles and recipes",
    };
    Some(Found::Commands {
        script: script.to_owned(),
        lines: early.into_iter().chain(lines).collect(),
        dir: Some(dir),
    })
}

/// An interpreter's code, judged source by source.
fn interpreted(argv: &[String], cmd: &SimpleCommand) -> Option<Found> {
    let name = argv.first()?.rsplit('/').next()?;
    let (lang, sources) = interp::sources(argv)?;
    sources
        .iter()
        .find_map(|s| judge_source(lang, s, name, cmd))
}

/// Why a non-interpreter (awk, sed, make) or perl's magic operands may reach a guarded
/// operation.
fn runs_why(argv: &[String], cmd: &SimpleCommand) -> Option<String> {
    let cwd = cmd.cwd.as_path();
    let name = argv.first()?.rsplit('/').next()?;
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let args = &argv[1..];
    let read = |p: &Path| cmd.file_in_reach(p);
    if let Some(why) = crate::shell::editor_code(argv, &cmd.stdin, cwd, &read) {
        return Some(why);
    }
    if let Some((lang, sources)) = interp::sources(argv) {
        return (lang == Lang::Perl)
            .then(|| perl_magic_operand(argv, &sources))
            .flatten();
    }
    match stem {
        "awk" | "gawk" | "mawk" | "nawk" => {
            let program = awk_program(args, cwd)?;
            let runs = program.contains("system") || program.contains('|');
            runs.then(|| format!("`{name}` runs commands that may"))
        }
        "sed" | "gsed" => {
            let scripts = super::sed::scripts(args);
            scripts
                .iter()
                .any(|s| super::sed::executes(s))
                .then(|| format!("`{name}` runs text as commands (its `e` command), which may"))
        }
        _ if is_make(name) => {
            let makefile = makefile(args, cwd)?;
            let stdin = makefile == Path::new("/dev/stdin")
                || makefile.file_name().is_some_and(|n| n == "-");
            let shown = makefile.to_string_lossy();
            if shown.contains("<(") || shown.contains("/dev/fd/") || shown.starts_with("/proc/") {
                return Some(format!(
                    "`{name}` reads a makefile git-dibs cannot read, which may"
                ));
            }
            let text = if stdin {
                match &cmd.stdin {
                    Input::Text(t) => t.clone(),
                    Input::Inherited => return None,
                    _ => {
                        return Some(format!(
                            "`{name}` reads a makefile git-dibs cannot read, which may"
                        ));
                    }
                }
            } else {
                match file_text(&makefile, cmd) {
                    Some(t) => t,
                    None if makefile.exists() => {
                        return Some(format!("the recipes of {} may", makefile.display()));
                    }
                    None => return None,
                }
            };
            risky_recipes(&text).then(|| format!("the recipes of {} may", makefile.display()))
        }
        _ => None,
    }
}

fn awk_program(args: &[String], cwd: &Path) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-f" {
            return read(&cwd.join(args.get(i + 1)?));
        }
        if matches!(a, "-v" | "-F") {
            i += 2;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            i += 1;
            continue;
        }
        return Some(a.to_owned());
    }
    None
}

fn makefile(args: &[String], cwd: &Path) -> Option<std::path::PathBuf> {
    let mut dir = cwd.to_path_buf();
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-C" | "--directory" => {
                dir = dir.join(args.get(i + 1)?);
                i += 1;
            }
            "-f" | "--file" | "--makefile" => {
                file = args.get(i + 1).cloned();
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    super::make::makefile(&dir, file.as_deref())
}

/// Whether `name` is a make: GNU make (`gmake`, `remake`) or a BSD one.
fn is_make(name: &str) -> bool {
    matches!(name, "make" | "gmake" | "remake" | "bmake" | "pmake")
}

/// Whether a makefile's recipe lines, looked at as a whole, may destroy work.
fn risky_recipes(text: &str) -> bool {
    text.lines()
        .filter(|l| l.starts_with('\t') || l.contains(';'))
        .any(recipe_reaches)
}

/// Whether a recipe line may destroy work beyond its own build output: a git command that
/// sweeps, resets, cleans, deletes branches or worktrees, or `rm -r` of a path outside the
/// project (`..`, absolute, a variable).
fn recipe_reaches(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let git_risky = words.windows(2).any(|w| {
        w[0].ends_with("git")
            && matches!(
                w[1],
                "worktree"
                    | "branch"
                    | "reset"
                    | "clean"
                    | "stash"
                    | "checkout"
                    | "restore"
                    | "push"
                    | "update-ref"
                    | "switch"
                    | "add"
                    | "commit"
                    | "rm"
            )
    });
    let rm_risky = words
        .iter()
        .position(|w| w.ends_with("rm"))
        .is_some_and(|i| {
            let rest = &words[i + 1..];
            rest.iter()
                .any(|w| w.starts_with('-') && w.contains(['r', 'R']))
                && rest.iter().any(|w| {
                    w.starts_with('/') || w.contains("..") || w.starts_with('$') || *w == "*"
                })
        });
    git_risky || rm_risky || line.contains("$(shell")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_line(line: &str) -> Option<Found> {
        let cmds = crate::shell::parse_with_home(line, Path::new("/nonexistent"), None).unwrap();
        let c = cmds.last().unwrap();
        runs(&c.argv, c)
    }

    #[test]
    fn inline_code_is_looked_into() {
        for line in [
            "python3 -c 'import shutil; shutil.rmtree(\"x\")'",
            "perl -e 'system(\"git reset --hard\")'",
            "perl -e'unlink q(new.txt)'",
            "node -e 'require(\"fs\").rmSync(\"x\")'",
            "node --eval='require(\"fs\").rmSync(\"x\")'",
            "python missing.py",
            "echo 'unlink \"x\"' | perl",
            "python3 - <<< 'import os; os.remove(\"x\")'",
            "curl -s x | python3",
            "echo 'import os' > t.py; echo 'os.remove(1)' >> t.py; python3 t.py",
            "awk '{ system(\"rm -rf \" $1) }'",
            "sed s/x/y/e f",
            "sed -e '1e git reset --hard' f",
            "make -f /dev/stdin <<< $'all:\\n\\tgit reset --hard'",
        ] {
            assert!(runs_line(line).is_some(), "{line}");
        }
        for line in [
            "python3 -c 'print(1)'",
            "python -m pytest",
            "python3",
            "perl -ne 'print if /x/' f",
            "echo 'print(1)' | python3",
            "cat > t.py <<'EOF'\nimport sys\nprint(sys.argv)\nEOF\npython3 t.py",
            "awk '{ print $1 }'",
            "sed -i s/x/y/g f",
            "ls",
        ] {
            assert!(runs_line(line).is_none(), "{line}");
        }
    }

    #[test]
    fn recipes() {
        assert!(recipe_reaches("\tgit reset --hard"));
        assert!(recipe_reaches("\trm -rf ../other"));
        assert!(!recipe_reaches("\trm -rf build"));
        assert!(!recipe_reaches("\tcargo test"));
    }
}

//! The Ex commands a vim-family editor (`vim`, `vi`, `ex`, `view`, `nvim`, `nvi`, `vim.tiny`,
//! ...) runs: `--cmd`, `-c`, `+CMD`, the files of `-S`, `-u` and `-s`, and its standard input
//! (Ex commands in Ex mode, keystrokes otherwise), split at `|` as vim splits them. From them:
//! the shell text they run (`!CMD`, `r !CMD`, `g/x/!CMD`, `make`, backticks in a file name),
//! the files they write (`w`, `wq FILE`, `sav FILE`, an `e FILE` then `w`), and whether they
//! run programs by other means (`call system()`, `py3`, `so FILE`) or come from text that cannot
//! be read (a pipe, a script file git-dibs cannot read).

use std::path::Path;

use super::Input;
pub(super) use syntax::shell_of;
use syntax::{Cmd, abbrev, is_any, parse_cmd, script_commands, split};

mod syntax;

/// Whether `name` (a program's basename) is a vim-family editor.
pub(crate) fn is_vim(name: &str) -> bool {
    let stem = if name.starts_with("vim.") {
        "vim"
    } else {
        name
    };
    matches!(
        stem,
        "vim"
            | "vi"
            | "nvim"
            | "ex"
            | "view"
            | "gvim"
            | "gview"
            | "vimdiff"
            | "gvimdiff"
            | "nvimdiff"
            | "rvim"
            | "rview"
            | "rgvim"
            | "evim"
            | "vimx"
            | "nvi"
            | "nex"
            | "nview"
    )
}

/// What a file read by the editor holds: `None` when there is no such file (the editor, or the
/// shell's `<`, then fails and runs nothing), `Some(None)` when it is there but cannot be read.
pub(crate) type Reader<'a> = &'a dyn Fn(&Path) -> Option<Option<String>>;

/// What a vim-family editor's line and the text it reads amount to.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Ex {
    /// Shell text its commands run, as written.
    pub(crate) shell: Vec<String>,
    /// Files it writes, as named (file operands when it writes the buffer it starts with).
    pub(crate) writes: Vec<String>,
    /// Why its commands may run programs or delete files by means not read as shell text.
    pub(crate) opaque: Option<String>,
}

/// Where the editor's commands come from, in the order it runs them.
enum Source<'a> {
    Command(&'a str),
    File(&'a str),
    /// Keystrokes (`-s FILE` outside Ex mode).
    Keys(&'a str),
}

/// The editor's options: its command sources, file operands and modes.
#[derive(Default)]
struct Line<'a> {
    first: Vec<Source<'a>>,
    later: Vec<Source<'a>>,
    files: Vec<&'a str>,
    ex_mode: bool,
    readonly: bool,
    /// `-` outside Ex mode: standard input is the text to edit.
    stdin_text: bool,
    lua: Option<&'a str>,
}

fn line<'a>(name: &str, args: &'a [String]) -> Line<'a> {
    let nvim = name.starts_with("nvim");
    let mut l = Line {
        ex_mode: matches!(name, "ex" | "nex"),
        readonly: matches!(name, "view" | "rview" | "gview" | "nview"),
        ..Line::default()
    };
    let mut it = args.iter().map(String::as_str).peekable();
    while let Some(t) = it.next() {
        if t == "--" {
            l.files.extend(it.by_ref());
            break;
        }
        if let Some(c) = t.strip_prefix('+') {
            l.later.push(Source::Command(c));
            continue;
        }
        if t == "-" {
            l.stdin_text |= !l.ex_mode;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            match long {
                "cmd" => l.first.extend(it.next().map(Source::Command)),
                "remote-send" | "remote-expr" => l.later.extend(it.next().map(Source::Command)),
                "startuptime" | "servername" | "listen" | "socketid" | "windowid" => {
                    it.next();
                }
                _ => {}
            }
            continue;
        }
        let Some(flags) = t.strip_prefix('-') else {
            l.files.push(t);
            continue;
        };
        for (i, ch) in flags.char_indices() {
            let rest = &flags[i + 1..];
            let value = |it: &mut std::iter::Peekable<_>| -> Option<&'a str> {
                if rest.is_empty() {
                    Iterator::next(it)
                } else {
                    Some(rest)
                }
            };
            match ch {
                'e' | 'E' => l.ex_mode = true,
                'R' | 'M' => l.readonly = true,
                's' if !l.ex_mode && rest.is_empty() => {
                    // `-s FILE` outside Ex mode: keystrokes from FILE.
                    l.later.extend(it.next().map(Source::Keys));
                }
                'c' => {
                    l.later.extend(value(&mut it).map(Source::Command));
                    break;
                }
                'S' => {
                    let file = if rest.is_empty() {
                        match it.peek() {
                            Some(n) if !n.starts_with('-') => it.next(),
                            _ => Some("Session.vim"),
                        }
                    } else {
                        Some(rest)
                    };
                    l.later.extend(file.map(Source::File));
                    break;
                }
                'u' | 'U' => {
                    match value(&mut it) {
                        Some("NONE" | "NORC" | "DEFAULTS" | "NOPLUGIN") | None => {}
                        Some(f) => l.first.push(Source::File(f)),
                    }
                    break;
                }
                'l' if nvim => {
                    l.lua = value(&mut it).or(Some(""));
                    break;
                }
                'i' | 'T' | 't' | 'q' | 'w' | 'W' => {
                    value(&mut it);
                    break;
                }
                'V' | 'o' | 'O' | 'p' => break,
                _ => {}
            }
        }
    }
    l
}

/// Commands that edit a named file (then written by a plain `w`).
const EDITS: &[(&str, usize)] = &[
    ("edit", 1),
    ("visual", 2),
    ("view", 3),
    ("split", 2),
    ("vsplit", 2),
    ("new", 3),
    ("vnew", 3),
    ("tabedit", 4),
    ("tabnew", 4),
    ("tabfind", 4),
    ("badd", 3),
    ("next", 1),
    ("args", 2),
    ("argadd", 4),
    ("file", 1),
    ("find", 3),
    ("sfind", 2),
    ("drop", 2),
    ("ex", 2),
];

/// Commands that write the current buffer, or the file they name.
const WRITES: &[(&str, usize)] = &[
    ("write", 1),
    ("wq", 2),
    ("wnext", 2),
    ("wNext", 2),
    ("wprevious", 2),
    ("xit", 1),
    ("exit", 3),
    ("update", 2),
    ("wall", 2),
    ("xall", 2),
    ("wqall", 3),
    ("saveas", 3),
];

/// Commands that write only the file they name.
const NAMED_WRITES: &[(&str, usize)] = &[
    ("mksession", 3),
    ("mkvimrc", 3),
    ("mkexrc", 2),
    ("mkview", 5),
    ("wviminfo", 2),
    ("wshada", 3),
    ("wundo", 2),
    ("redir", 3),
];

/// Ex commands that run code or files by means not read as shell text.
const CODE: &[(&str, usize)] = &[
    ("execute", 3),
    ("source", 2),
    ("runtime", 2),
    ("shell", 2),
    ("terminal", 3),
    ("lua", 3),
    ("luado", 4),
    ("luafile", 4),
    ("python", 2),
    ("python3", 3),
    ("pythonx", 3),
    ("pyxdo", 4),
    ("pydo", 3),
    ("py3do", 4),
    ("pyfile", 3),
    ("py3file", 4),
    ("pyxfile", 4),
    ("perl", 3),
    ("perldo", 5),
    ("ruby", 3),
    ("rubydo", 5),
    ("rubyfile", 5),
    ("tcl", 3),
    ("tcldo", 4),
    ("tclfile", 4),
    ("mzscheme", 2),
    ("mzfile", 3),
];

/// vim script functions that run programs or delete files.
const CODE_CALLS: &[&str] = &[
    "system",
    "delete(",
    "rename(",
    "writefile(",
    "job_start",
    "jobstart",
    "termopen",
    "term_start",
    "libcall",
    "luaeval",
    "pyeval",
    "py3eval",
    "pyxeval",
    "perleval",
    "rubyeval",
    "mzeval",
    "execute(",
    "feedkeys",
    "timer_start",
    "remote_",
    "rpcrequest",
    "rpcnotify",
    "chansend",
];

/// Commands that end the editor: what would come after them does not run.
const QUITS: &[(&str, usize)] = &[
    ("quit", 1),
    ("qall", 2),
    ("wq", 2),
    ("xit", 1),
    ("exit", 3),
    ("cquit", 2),
    ("wqall", 3),
    ("xall", 2),
];

/// The file a write command names, as written (`>>`, `++opt` arguments dropped).
fn named_file(arg: &str) -> Option<&str> {
    let arg = arg.trim_start_matches('>').trim_start();
    let file = arg
        .split_whitespace()
        .find(|w| !w.starts_with("++"))
        .filter(|w| !w.starts_with('!'))?;
    Some(file)
}

/// Whether one command runs code by other means, and why.
fn code_in(c: &Cmd<'_>, command: &str) -> bool {
    if is_any(c.name, CODE) && !c.name.is_empty() {
        return true;
    }
    if abbrev(c.name, "set", 2) || abbrev(c.name, "setlocal", 4) || abbrev(c.name, "setglobal", 4) {
        return ["prg", "shell", "expr", "exrc", "secure"]
            .iter()
            .any(|w| c.arg.contains(w));
    }
    if abbrev(c.name, "normal", 4) {
        return c.arg.chars().any(char::is_control);
    }
    let unread_backtick = command.contains('`') && backtick_shell(c).is_none();
    unread_backtick || CODE_CALLS.iter().any(|w| command.contains(w))
}

/// Shell text in backticks in a file name (vim runs it to get the name): `e \`cmd\``.
fn backtick_shell(c: &Cmd<'_>) -> Option<String> {
    let takes_file = is_any(c.name, EDITS)
        || is_any(c.name, WRITES)
        || is_any(c.name, NAMED_WRITES)
        || matches!(c.name, "r" | "re" | "rea" | "read");
    let start = c.arg.find('`')?;
    let inner = &c.arg[start + 1..];
    let end = inner.find('`')?;
    let text = &inner[..end];
    (takes_file && !text.starts_with('=')).then(|| text.to_owned())
}

/// What the vim-family editor of `argv` runs and writes, reading its script files and its
/// standard input; `None` when `argv` is not such an editor.
pub(crate) fn judge(argv: &[String], stdin: &Input, cwd: &Path, read: Reader<'_>) -> Option<Ex> {
    let name = argv.first()?.rsplit('/').next()?;
    if !is_vim(name) {
        return None;
    }
    let l = line(name, &argv[1..]);
    let mut ex = Ex::default();
    let mut unread: Option<String> = None;
    let mut commands: Vec<String> = Vec::new();
    // Keystrokes that write and quit (`ZZ`) are not Ex commands.
    let mut keys_write = false;
    let mut take = |text: &str, keys: bool, out: &mut Vec<String>| {
        keys_write |= keys && text.contains("ZZ");
        script_commands(text, out);
    };
    for s in l.first.iter().chain(&l.later) {
        match s {
            Source::Command(c) => split(c, &mut commands, 0),
            Source::File(f) | Source::Keys(f) => match read(&cwd.join(f)) {
                Some(Some(text)) => take(&text, matches!(s, Source::Keys(_)), &mut commands),
                Some(None) => unread = Some(format!("`{f}`")),
                None => {}
            },
        }
    }
    // Standard input holds commands (keystrokes outside Ex mode; nvim reads it as text then)
    // unless a command before it quits.
    let quits = commands.iter().any(|c| is_any(parse_cmd(c).name, QUITS));
    let stdin_commands = !quits && !l.stdin_text && (l.ex_mode || !name.starts_with("nvim"));
    let mut open_stdin = false;
    if stdin_commands {
        let keys = !l.ex_mode;
        match stdin {
            Input::Inherited => open_stdin = l.ex_mode,
            Input::Text(t) => take(t, keys, &mut commands),
            Input::File(p) if p == Path::new("/dev/null") => {}
            Input::File(p) => match read(p) {
                Some(Some(text)) => take(&text, keys, &mut commands),
                Some(None) => unread = Some("its input".to_owned()),
                None => {}
            },
            Input::Unknown => unread = Some("its input".to_owned()),
        }
    }
    if let Some(lua) = l.lua {
        ex.opaque = Some(format!("`{name}` runs Lua code (`-l {lua}`) that may"));
    }
    let mut writes_current = (open_stdin || keys_write) && !l.readonly;
    let mut written: Vec<String> = Vec::new();
    let mut edited: Vec<String> = Vec::new();
    for command in &commands {
        if let Some(text) = shell_of(command) {
            ex.shell.push(text);
            continue;
        }
        let c = parse_cmd(command);
        ex.shell.extend(backtick_shell(&c));
        if ex.opaque.is_none() && code_in(&c, command) {
            ex.opaque = Some(format!("`{name}` runs editor commands that may"));
        }
        let file = named_file(c.arg).map(str::to_owned);
        if is_any(c.name, WRITES) {
            writes_current |= file.is_none() && (c.bang || !l.readonly);
            written.extend(file);
        } else if abbrev(c.name, "redir", 3) {
            written.extend(file.filter(|_| c.arg.starts_with('>')));
        } else if is_any(c.name, NAMED_WRITES) {
            written.extend(file);
        } else if is_any(c.name, EDITS) {
            edited.extend(file);
        } else if abbrev(c.name, "normal", 4) && c.arg.contains("ZZ") {
            writes_current = true;
        }
    }
    if let Some(what) = unread {
        ex.opaque = Some(format!(
            "`{name}` runs editor commands from {what}, which git-dibs cannot read, and they may"
        ));
        writes_current = !l.readonly;
    }
    // The files it opens count as written once a command writes the buffer it holds.
    let mut all: Vec<String> = Vec::new();
    if writes_current {
        all.extend(l.files.iter().map(|f| (*f).to_owned()));
        all.extend(edited);
    }
    all.extend(written);
    for f in all {
        if !ex.writes.contains(&f) && !f.contains(['`', '%', '#']) {
            ex.writes.push(f);
        }
    }
    Some(ex)
}

#[cfg(test)]
mod tests;

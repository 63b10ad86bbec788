//! What a Python or JavaScript script file can do to other people's work, judged more loosely
//! than a one-liner: its imports and its reads and writes are its own business (the pre-command
//! snapshots keep what a write replaces), but deleting, moving or truncating files, running a
//! command, or reaching either through code built at run time is not. A command it runs from a
//! literal (`subprocess.run(["git", "status"])`, `execSync('git rev-parse HEAD')`) is handed
//! back to be judged as shell text; anything else it runs cannot be judged.
//!
//! Perl, ruby and the rest are judged as one-liners are ([`super::read_only`]).

use std::collections::HashMap;

use super::Lang;
use super::lex::{Tok, tokenize};

/// How many commands a script may run from literals before it is not judged at all.
const MAX_COMMANDS: usize = 32;

/// What a script file may do.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Power {
    /// Nothing that destroys work: it runs these literal commands (shell text) at most.
    Runs(Vec<String>),
    /// It deletes, moves or truncates files, or does something this cannot judge: what, as
    /// the end of "the script ..." (`calls `shutil.rmtree``).
    Destroys(String),
}

/// Python names that delete, move or truncate files.
const PY_DESTROY: &[&str] = &[
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "os.rename",
    "os.renames",
    "os.replace",
    "os.truncate",
    "os.ftruncate",
    "shutil.rmtree",
    "shutil.move",
    "send2trash",
];
/// Python and JavaScript removals judged, with a literal path, as `rm -rf PATH`.
const PY_REMOVE: &[&str] = &[
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "shutil.rmtree",
];
const JS_REMOVE: &[&str] = &[
    "rm",
    "rmSync",
    "rmdir",
    "rmdirSync",
    "unlink",
    "unlinkSync",
    "remove",
    "removeSync",
];

/// `rm -rf -- PATH` for a call at `open` whose first argument is the literal path `PATH`.
fn literal_removal(lang: Lang, toks: &[Tok], open: usize) -> Option<String> {
    let args = call_args(toks, open)?;
    let path = literal_str(lang, args.first()?)?;
    (!path.is_empty()).then(|| format!("rm -rf -- {}", crate::shell::quote_word(&path)))
}

/// Python calls that run a command given as their first argument.
const PY_RUN: &[&str] = &[
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
];
/// Python names that run or build code this cannot follow.
const PY_OPAQUE: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "__import__",
    "importlib",
    "ctypes",
    "pty",
    "globals",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "os.fork",
    "sh",
    "plumbum",
    "invoke",
    "fabric",
    "pexpect",
    "sys.modules",
    "builtins",
    "__builtins__",
];
/// Modules whose objects, passed around or looked up by name, reach the names above.
const PY_POWER_MODULES: &[&str] = &["os", "shutil", "subprocess", "pathlib", "sys", "builtins"];

/// Method names that delete or move whatever their receiver is (`Path.unlink`, `fs.rmSync`).
const DESTROY_METHODS: &[&str] = &["unlink", "rmdir", "rmtree"];

/// What a script of `lang` may do; `None` for a language judged as one-liners are.
pub(crate) fn power(lang: Lang, text: &str) -> Option<Power> {
    let judged = match lang {
        Lang::Python => {
            let Some(toks) = tokenize(lang, text) else {
                return Some(Power::Destroys("cannot be read as Python".into()));
            };
            python(&toks)
        }
        Lang::Js => {
            let Some(toks) = tokenize(lang, text) else {
                return Some(Power::Destroys("cannot be read as JavaScript".into()));
            };
            js(&toks)
        }
        _ => return None,
    };
    Some(match judged {
        Ok(cmds) if cmds.len() > MAX_COMMANDS => {
            Power::Destroys(format!("runs more than {MAX_COMMANDS} commands"))
        }
        Ok(cmds) => Power::Runs(cmds),
        Err(why) => Power::Destroys(why),
    })
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(w)) => Some(w),
        _ => None,
    }
}

/// The dotted name starting at `toks[i]` (`os.path.join`) and the index after it.
fn dotted(toks: &[Tok], i: usize) -> (String, usize) {
    let mut name = ident(toks.get(i)).unwrap_or_default().to_owned();
    let mut j = i + 1;
    while toks.get(j) == Some(&Tok::Punct('.'))
        && let Some(m) = ident(toks.get(j + 1))
    {
        name.push('.');
        name.push_str(m);
        j += 2;
    }
    (name, j)
}

/// Whether `name` is `entry` or something under it (`os.execv` under `os.exec` counts, as
/// the `exec*` family is one entry).
fn under(name: &str, list: &[&str]) -> bool {
    list.iter().any(|e| {
        name == *e
            || name
                .strip_prefix(e)
                .is_some_and(|rest| rest.starts_with('.') || e.starts_with("os."))
    })
}

/// The tokens of each argument of the call whose `(` is `toks[open]` (line ends left out).
fn call_args(toks: &[Tok], open: usize) -> Option<Vec<Vec<Tok>>> {
    if toks.get(open) != Some(&Tok::Punct('(')) {
        return None;
    }
    let mut depth = 0;
    let mut args = Vec::new();
    let mut start = open + 1;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    if j > start {
                        args.push(clean(&toks[start..j]));
                    }
                    args.retain(|a| !a.is_empty());
                    return Some(args);
                }
            }
            Tok::Punct(',') if depth == 1 => {
                args.push(clean(&toks[start..j]));
                start = j + 1;
            }
            _ => {}
        }
    }
    None
}

fn clean(toks: &[Tok]) -> Vec<Tok> {
    toks.iter()
        .filter(|t| **t != Tok::Punct('\n'))
        .cloned()
        .collect()
}

/// A literal string argument (`'x'`, an f-string or template without code, `'a b'.split()`).
fn literal_str(lang: Lang, arg: &[Tok]) -> Option<String> {
    let arg = match arg {
        [
            rest @ ..,
            Tok::Punct('.'),
            Tok::Ident(split),
            Tok::Punct('('),
            Tok::Punct(')'),
        ] if split == "split" => rest,
        a => a,
    };
    match arg {
        [Tok::Str(s)] => Some(s.clone()),
        // An f-string or template literal: its text was read into tokens before it.
        [code @ .., Tok::Str(s)]
            if !s.contains(['{', '$']) && tokenize(lang, s).is_some_and(|t| t == code) =>
        {
            Some(s.clone())
        }
        _ => None,
    }
}

/// A literal argument vector (`["git", "status"]`), as shell words.
fn literal_list(lang: Lang, arg: &[Tok]) -> Option<Vec<String>> {
    let [Tok::Punct('[' | '('), inner @ .., Tok::Punct(']' | ')')] = arg else {
        return None;
    };
    inner
        .split(|t| *t == Tok::Punct(','))
        .filter(|w| !w.is_empty())
        .map(|w| literal_str(lang, w))
        .collect()
}

/// The command a run call's arguments name, as shell text; `None` when it is built at run time.
fn command_of(lang: Lang, args: &[Vec<Tok>], with_argv: bool) -> Option<String> {
    let first = args.first()?;
    if let Some(words) = literal_list(lang, first) {
        let shown: Vec<String> = words.iter().map(|w| crate::shell::quote_word(w)).collect();
        return Some(shown.join(" "));
    }
    let text = literal_str(lang, first)?;
    // `spawn('git', ['status'], {...})`: the program, then its argument vector.
    match args.get(1).map(Vec::as_slice) {
        Some([Tok::Punct('['), ..]) if with_argv => {
            let rest = literal_list(lang, &args[1])?;
            let mut words = vec![crate::shell::quote_word(&text)];
            words.extend(rest.iter().map(|w| crate::shell::quote_word(w)));
            Some(words.join(" "))
        }
        None | Some([Tok::Punct('{'), ..]) => Some(text),
        Some(_) if with_argv => None,
        Some(_) => Some(text),
    }
}

/// The local names a Python import statement at `toks[i]` binds, with what they stand for.
fn py_import(toks: &[Tok], i: usize, names: &mut HashMap<String, String>) -> usize {
    let from = ident(toks.get(i)) == Some("from");
    let mut j = i + 1;
    let (module, next) = dotted(toks, j);
    j = next;
    let bind = |names: &mut HashMap<String, String>, local: String, full: String| {
        names.insert(local, full);
    };
    if from {
        if ident(toks.get(j)) != Some("import") {
            return j;
        }
        j += 1;
        while let Some(t) = toks.get(j) {
            match t {
                Tok::Ident(w) => {
                    let full = format!("{module}.{w}");
                    if ident(toks.get(j + 1)) == Some("as")
                        && let Some(local) = ident(toks.get(j + 2))
                    {
                        bind(names, local.to_owned(), full);
                        j += 3;
                        continue;
                    }
                    bind(names, w.clone(), full);
                }
                Tok::Punct('*') => bind(names, format!("*{module}"), module.clone()),
                Tok::Punct(',' | '(' | ')') => {}
                Tok::Punct('\n') if toks[i..j].contains(&Tok::Punct('(')) => {}
                _ => break,
            }
            j += 1;
        }
        return j;
    }
    let mut module = module;
    loop {
        let top = module.split('.').next().unwrap_or_default().to_owned();
        if ident(toks.get(j)) == Some("as")
            && let Some(local) = ident(toks.get(j + 1))
        {
            bind(names, local.to_owned(), module.clone());
            j += 2;
        } else {
            bind(names, top.clone(), top);
        }
        if toks.get(j) != Some(&Tok::Punct(',')) {
            return j;
        }
        let (m, next) = dotted(toks, j + 1);
        module = m;
        j = next;
    }
}

fn python(toks: &[Tok]) -> Result<Vec<String>, String> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut cmds = Vec::new();
    let pathlib = toks
        .iter()
        .any(|t| matches!(t, Tok::Ident(w) if w == "pathlib"));
    let mut i = 0;
    while i < toks.len() {
        let Some(w) = ident(toks.get(i)) else {
            i += 1;
            continue;
        };
        let after_dot = i > 0 && toks[i - 1] == Tok::Punct('.');
        if !after_dot && (w == "import" || w == "from") {
            let end = py_import(toks, i, &mut names);
            for (local, full) in &names {
                let top = full.split('.').next().unwrap_or_default();
                if local.starts_with('*')
                    && (PY_POWER_MODULES.contains(&top) || under(full, PY_OPAQUE))
                {
                    return Err(format!("imports every name of `{full}`"));
                }
                if under(full, PY_OPAQUE) {
                    return Err(format!("uses `{full}`"));
                }
                if under(full, PY_DESTROY) {
                    return Err(format!("imports `{full}`"));
                }
            }
            i = end;
            continue;
        }
        if after_dot {
            let call = toks.get(i + 1) == Some(&Tok::Punct('('));
            if call && DESTROY_METHODS.contains(&w) {
                return Err(format!("calls `.{w}()`"));
            }
            // pathlib's `rename(target)` and one-argument `replace(target)`, not `str.replace(a, b)`.
            let one_arg = call_args(toks, i + 1).is_some_and(|a| a.len() == 1);
            if call && pathlib && (w == "rename" || (w == "replace" && one_arg)) {
                return Err(format!("calls `.{w}()`"));
            }
            i += 1;
            continue;
        }
        let (name, next) = dotted(toks, i);
        let head = name.split('.').next().unwrap_or_default();
        let full = match names.get(head) {
            Some(m) => format!("{m}{}", &name[head.len()..]),
            None => name.clone(),
        };
        let call = toks.get(next) == Some(&Tok::Punct('('));
        if under(&full, PY_DESTROY) {
            // A removal of a literal path is judged as the `rm -rf` it is.
            if let Some(rm) = PY_REMOVE
                .contains(&full.as_str())
                .then(|| literal_removal(Lang::Python, toks, next))
                .flatten()
            {
                cmds.push(rm);
                i = next;
                continue;
            }
            return Err(format!("calls `{full}`"));
        }
        if under(&full, PY_OPAQUE) && (names.contains_key(head) || call) {
            return Err(format!("uses `{full}`"));
        }
        if under(&full, PY_RUN) {
            let cmd = call_args(toks, next)
                .filter(|_| call)
                .and_then(|a| command_of(Lang::Python, &a, false));
            match cmd {
                Some(c) => cmds.push(c),
                None => {
                    return Err(format!(
                        "runs a command with `{full}` that is only known when it runs"
                    ));
                }
            }
        } else if head == "getattr" && call {
            let target = call_args(toks, next)
                .and_then(|a| a.first().and_then(|t| ident(t.first()).map(str::to_owned)));
            let target = target.map(|t| names.get(&t).cloned().unwrap_or(t));
            if target.is_none_or(|t| PY_POWER_MODULES.contains(&t.split('.').next().unwrap_or("")))
            {
                return Err("looks up a name with `getattr`".into());
            }
        } else if name == head
            && names
                .get(head)
                .is_some_and(|m| PY_POWER_MODULES.contains(&m.as_str()) && m != "sys")
        {
            // `o = os`, `f(shutil)`: the module passed on, out of sight.
            return Err(format!("passes the module `{full}` on"));
        }
        i = next;
    }
    Ok(cmds)
}

/// JavaScript calls that run a command: `exec`-style (shell text) and `spawn`-style (a program
/// and its argument vector).
const JS_RUN_TEXT: &[&str] = &["exec", "execSync"];
const JS_RUN_ARGV: &[&str] = &["execFile", "execFileSync", "spawn", "spawnSync", "fork"];
/// JavaScript names that delete, move or truncate files.
const JS_DESTROY: &[&str] = &[
    "rmSync",
    "rmdirSync",
    "unlinkSync",
    "renameSync",
    "truncateSync",
    "ftruncateSync",
    "removeSync",
    "emptyDirSync",
    "moveSync",
    "rimraf",
];
/// Methods that delete, move or truncate whatever fs-like object they are called on.
const JS_DESTROY_METHODS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "rename",
    "truncate",
    "ftruncate",
    "remove",
    "emptyDir",
    "move",
];
/// Modules that delete files, or run commands in ways this cannot follow.
const JS_MODULES_DESTROY: &[&str] = &[
    "rimraf",
    "del",
    "trash",
    "shelljs",
    "execa",
    "zx",
    "cross-spawn",
    "vm",
    "worker_threads",
];
/// Names that run or build code at run time.
const JS_OPAQUE: &[&str] = &["eval", "Function", "dlopen", "binding"];

fn js(toks: &[Tok]) -> Result<Vec<String>, String> {
    let modules: Vec<&str> = toks
        .windows(3)
        .filter_map(|w| match w {
            [Tok::Ident(r), Tok::Punct('('), Tok::Str(m)] if r == "require" || r == "import" => {
                Some(m.as_str())
            }
            _ => None,
        })
        .chain(toks.windows(2).filter_map(|w| match w {
            [Tok::Ident(i), Tok::Str(m)] if i == "import" || i == "from" => Some(m.as_str()),
            _ => None,
        }))
        .collect();
    let plain = |m: &str| m.strip_prefix("node:").unwrap_or(m).to_owned();
    if let Some(m) = modules
        .iter()
        .map(|m| plain(m))
        .find(|m| JS_MODULES_DESTROY.contains(&m.split('/').next().unwrap_or("")))
    {
        return Err(format!("uses `{m}`"));
    }
    let child = modules.iter().any(|m| plain(m) == "child_process");
    let fs_like = modules.iter().any(|m| plain(m).contains("fs"));
    if let Some(why) = js_computed_module_member(toks) {
        return Err(why);
    }
    let mut cmds = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Tok::Ident(w) = t else { continue };
        let w = w.as_str();
        let after_dot = i > 0 && toks[i - 1] == Tok::Punct('.');
        let call = toks.get(i + 1) == Some(&Tok::Punct('('));
        // A removal of a literal path is judged as the `rm -rf` it is.
        let removes =
            JS_DESTROY.contains(&w) || (after_dot && fs_like && JS_DESTROY_METHODS.contains(&w));
        if removes
            && call
            && JS_REMOVE.contains(&w)
            && let Some(rm) = literal_removal(Lang::Js, toks, i + 1)
        {
            cmds.push(rm);
            continue;
        }
        if JS_DESTROY.contains(&w) {
            return Err(format!("uses `{w}`"));
        }
        if (JS_OPAQUE.contains(&w) && call) || (!after_dot && (w == "Deno" || w == "Bun")) {
            return Err(format!("uses `{w}`"));
        }
        if (w == "require" || w == "import")
            && call
            && !matches!(toks.get(i + 2), Some(Tok::Str(_)))
        {
            return Err("loads a module whose name is only known when it runs".into());
        }
        if after_dot && call && fs_like && JS_DESTROY_METHODS.contains(&w) {
            return Err(format!("calls `.{w}()`"));
        }
        if child && (JS_RUN_TEXT.contains(&w) || JS_RUN_ARGV.contains(&w)) {
            // Named in `const { execSync } = require(...)` or `import { spawn } from ...`.
            let listed = matches!(toks.get(i + 1), Some(Tok::Punct(',' | '}' | ':')));
            if !call && listed {
                continue;
            }
            let args = if call { call_args(toks, i + 1) } else { None };
            let cmd = args.and_then(|a| command_of(Lang::Js, &a, JS_RUN_ARGV.contains(&w)));
            match cmd {
                Some(c) => cmds.push(c),
                None => {
                    return Err(format!(
                        "runs a command with `{w}` that is only known when it runs"
                    ));
                }
            }
        }
    }
    Ok(cmds)
}

/// A module's member looked up by a computed name (`require('fs')['rm' + 'Sync']`, `fs[name]`,
/// `process[k]`): any member, so anything it can do. A number as the name is an element.
fn js_computed_module_member(toks: &[Tok]) -> Option<String> {
    // Names bound to a module: `const fs = require(...)`, `import fs from ...`, `import * as fs`.
    let mut bound: Vec<&str> = vec!["process", "global", "globalThis"];
    for w in toks.windows(4) {
        match w {
            [Tok::Ident(_), Tok::Ident(n), Tok::Punct('='), Tok::Ident(r)] if r == "require" => {
                bound.push(n);
            }
            [Tok::Ident(i), Tok::Ident(n), Tok::Ident(f), _] if i == "import" && f == "from" => {
                bound.push(n);
            }
            [Tok::Punct('*'), Tok::Ident(a), Tok::Ident(n), _] if a == "as" => bound.push(n),
            _ => {}
        }
    }
    for (i, t) in toks.iter().enumerate() {
        if toks.get(i + 1) != Some(&Tok::Punct('['))
            || toks.get(i + 3) == Some(&Tok::Punct(']'))
                && matches!(toks.get(i + 2), Some(Tok::Num))
        {
            continue;
        }
        let module = match t {
            Tok::Ident(n) => {
                bound.contains(&n.as_str()) && (i == 0 || toks[i - 1] != Tok::Punct('.'))
            }
            // `require('fs')[...]`
            Tok::Punct(')') => toks[..i]
                .iter()
                .rposition(|t| *t == Tok::Punct('('))
                .is_some_and(|o| {
                    o > 0
                        && matches!(&toks[o - 1], Tok::Ident(r) if r == "require" || r == "import")
                }),
            _ => false,
        };
        if module {
            return Some("looks up a module's member by a computed name".into());
        }
    }
    None
}

//! Python script files: the names a script imports and calls that delete, move or truncate
//! files or run commands, followed through `import ... as` and `from ... import`.

use std::collections::HashMap;

use super::{Lang, Tok, call_args, command_of, dotted, ident, literal_removal, under};

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
/// Python removals judged, with a literal path, as `rm -rf PATH`.
const PY_REMOVE: &[&str] = &[
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "shutil.rmtree",
];

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

/// The literal commands a Python script runs, or what it does that destroys work.
pub(super) fn python(toks: &[Tok]) -> Result<Vec<String>, String> {
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

//! JavaScript script files: the modules a script loads and the calls that delete, move or
//! truncate files or run commands (`child_process`, `fs` and its look-alikes).

use super::{Lang, Tok, call_args, command_of, literal_removal};

/// JavaScript removals judged, with a literal path, as `rm -rf PATH`.
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

/// The literal commands a JavaScript script runs, or what it does that destroys work.
pub(super) fn js(toks: &[Tok]) -> Result<Vec<String>, String> {
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

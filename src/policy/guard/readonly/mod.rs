//! Whether one-liner code is clearly read-only (`python3 -c "print(os.getcwd())"`, `perl -ne
//! 'print if /x/'`, `node -e` with `readFileSync`): then it cannot delete files or run commands,
//! and the reach rule lets it through. Anything else, or anything this cannot tell, is not.
//!
//! The decision is deliberately conservative, in three layers; code must pass all of them:
//! 1. **Words, over the raw text** (strings and comments included, so no tokenizer mistake
//!    can hide one): no word that names a power to delete, write, rename, run a program or
//!    build code at run time (`remove`, `unlink`, `rmtree`, `system`, `exec`, `eval`,
//!    `getattr`, `__import__`, `child_process`, `writeFileSync`, `constructor`, ...), no
//!    backtick (perl and ruby run it as a command), no dunder name (`__class__`).
//! 2. **Tokens**: strings and comments are read as the language does, and unterminated text
//!    fails. Python: imports only of modules with no such power (`os` and `sys` only with
//!    listed members, never bound to another name), `open` only with a read mode. JavaScript:
//!    `require` only of `fs`/`path`/`os`/`util`, `fs` and `process` only through listed
//!    members, computed member access (`x[k]`) only with a number. Perl: every bareword on a
//!    list of read-only builtins, no `s///e`, no `(?{...})`, no symbolic call (`&{...}`).
//!    Ruby: constants from a list, `File`/`Dir` only through listed members, no `%x`.
//! 3. In-place flags (`perl -pi`, `ruby -i`) are writes of the named files, judged like
//!    `sed -i` (the snapshots keep what they overwrite), not as code that runs commands.
//!
//! php, lua, R and tcl code is never judged read-only. Script files of Python and JavaScript
//! are judged by what they can destroy instead ([`power`]).

mod lex;
mod script;
#[cfg(test)]
mod tests;
mod words;

pub(crate) use script::{Power, power};

use lex::{Tok, tokenize};
use words::*;

/// The languages judged here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Js,
    Perl,
    Ruby,
    Other,
}

/// Whether `code` in `lang` is clearly read-only.
pub(crate) fn read_only(lang: Lang, code: &str) -> bool {
    if lang == Lang::Other || code.len() > 16 * 1024 {
        return false;
    }
    let backtick_runs = lang != Lang::Js;
    if backtick_runs && code.contains('`') {
        return false;
    }
    let dunder = |w: &str| w.len() > 4 && w.starts_with("__") && w.ends_with("__");
    let extra: &[&str] = match lang {
        Lang::Js => DENY_JS,
        Lang::Perl => DENY_PERL,
        Lang::Ruby => DENY_RUBY,
        Lang::Python => DENY_PY,
        Lang::Other => &[],
    };
    if words(code)
        .any(|w| DENY_ANY.contains(&w) || extra.contains(&w) || (dunder(w) && w != "__name__"))
    {
        return false;
    }
    let Some(toks) = tokenize(lang, code) else {
        return false;
    };
    match lang {
        Lang::Python => python_ok(&toks),
        Lang::Js => js_ok(&toks) && js_computed_ok(code),
        Lang::Perl => perl_ok(&toks, code),
        Lang::Ruby => ruby_ok(&toks, code),
        Lang::Other => false,
    }
}

/// The identifier-like words of a text (ruby's `exist?` keeps its `?`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '?' || c == '!'))
        .map(|w| w.trim_end_matches(['?', '!']))
        .filter(|w| !w.is_empty())
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(w)) => Some(w),
        _ => None,
    }
}

/// The word at `toks[i]`, if it is one, and whether a `.` comes right before it (a member,
/// not a name of its own).
fn word_at(toks: &[Tok], i: usize) -> Option<(&str, bool)> {
    let w = ident(toks.get(i))?;
    Some((w, i > 0 && toks[i - 1] == Tok::Punct('.')))
}

/// `NAME.MEMBER` with MEMBER in `allowed`.
fn member_in(toks: &[Tok], at: usize, allowed: &[&str]) -> bool {
    toks.get(at + 1) == Some(&Tok::Punct('.'))
        && ident(toks.get(at + 2)).is_some_and(|m| allowed.contains(&m))
}

fn python_ok(toks: &[Tok]) -> bool {
    let mut i = 0;
    while i < toks.len() {
        let Some((w, prev_dot)) = word_at(toks, i) else {
            i += 1;
            continue;
        };
        match w {
            "import" | "from" if !prev_dot => {
                if !python_import(toks, &mut i) {
                    return false;
                }
                continue;
            }
            "os" | "sys" if prev_dot => return false,
            _ if prev_dot && w.starts_with('_') => return false,
            "os" => {
                let ok = member_in(toks, i, PY_OS)
                    && (ident(toks.get(i + 2)) != Some("path")
                        || member_in(toks, i + 2, PY_OS_PATH));
                if !ok {
                    return false;
                }
            }
            "sys" if !member_in(toks, i, PY_SYS) => return false,
            "open" if !prev_dot && !python_open_reads(toks, i) => return false,
            _ => {}
        }
        i += 1;
    }
    true
}

/// An import statement at `toks[*i]`: only listed modules, `os`/`sys` never renamed, and from
/// `os` only listed members. Moves `i` past the statement.
fn python_import(toks: &[Tok], i: &mut usize) -> bool {
    let from = ident(toks.get(*i)) == Some("from");
    *i += 1;
    let mut module = String::new();
    while let Some(t) = toks.get(*i) {
        match t {
            Tok::Ident(w) if w == "import" && from => break,
            Tok::Ident(w) if w == "as" => {
                if matches!(module.as_str(), "os" | "sys" | "os.path") {
                    return false;
                }
            }
            Tok::Ident(w) => module.push_str(w),
            Tok::Punct('.') => module.push('.'),
            Tok::Punct(',') if !from => {
                if !PY_MODULES.contains(&module.split('.').next().unwrap_or("")) {
                    return false;
                }
                module.clear();
            }
            _ => break,
        }
        *i += 1;
    }
    let top = module.split('.').next().unwrap_or("");
    if !PY_MODULES.contains(&top) || (module.starts_with("os.") && module != "os.path") {
        return false;
    }
    if from {
        *i += 1;
        let allowed: Option<&[&str]> = match module.as_str() {
            "os" => Some(PY_OS),
            "sys" => Some(PY_SYS),
            "os.path" => Some(PY_OS_PATH),
            _ => None,
        };
        let mut depth = 0;
        while let Some(t) = toks.get(*i) {
            match t {
                Tok::Punct('*') => return false,
                Tok::Ident(w) if w == "as" => {}
                Tok::Ident(w) => {
                    if allowed.is_some_and(|a| !a.contains(&w.as_str())) {
                        return false;
                    }
                }
                Tok::Punct('(') => depth += 1,
                Tok::Punct(')') => depth -= 1,
                Tok::Punct(',') => {}
                Tok::Punct('\n') if depth > 0 => {}
                _ => break,
            }
            *i += 1;
        }
    }
    true
}

/// `open(PATH)` / `open(PATH, 'r')` / with `encoding=`/`errors=`/`newline=` only.
fn python_open_reads(toks: &[Tok], at: usize) -> bool {
    if toks.get(at + 1) != Some(&Tok::Punct('(')) {
        return false;
    }
    let mut depth = 0;
    let mut arg = 0;
    let mut j = at + 1;
    let mut kw: Option<&str> = None;
    while let Some(t) = toks.get(j) {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            Tok::Punct(',') if depth == 1 => {
                arg += 1;
                kw = None;
            }
            Tok::Ident(w) if depth == 1 && toks.get(j + 1) == Some(&Tok::Punct('=')) => {
                if !matches!(w.as_str(), "encoding" | "errors" | "newline" | "mode") {
                    return false;
                }
                kw = Some(w);
            }
            t if depth == 1
                && (arg == 1 || kw == Some("mode"))
                && kw.is_none_or(|k| k == "mode") =>
            {
                match t {
                    Tok::Str(m) if m.chars().all(|c| "rbt".contains(c)) => {}
                    Tok::Punct('=') => {}
                    _ => return false,
                }
            }
            _ => {}
        }
        j += 1;
    }
    false
}

fn js_ok(toks: &[Tok]) -> bool {
    let mut gated: Vec<String> = vec!["process".into()];
    let mut i = 0;
    while i < toks.len() {
        let Some((w, prev_dot)) = word_at(toks, i) else {
            i += 1;
            continue;
        };
        if prev_dot {
            if w.starts_with('_') {
                return false;
            }
            i += 1;
            continue;
        }
        if w == "require" {
            let module = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                (Some(Tok::Punct('(')), Some(Tok::Str(m)), Some(Tok::Punct(')'))) => m.as_str(),
                _ => return false,
            };
            if !JS_MODULES.contains(&module) {
                return false;
            }
            let fs = module.ends_with("fs");
            let bound = i >= 3
                && toks[i - 1] == Tok::Punct('=')
                && matches!(ident(toks.get(i - 3)), Some("const" | "let" | "var"));
            if bound {
                if fs && let Some(name) = ident(toks.get(i - 2)) {
                    gated.push(name.to_owned());
                }
            } else if (fs && !member_in(toks, i + 3, JS_FS))
                || (!fs && toks.get(i + 4) != Some(&Tok::Punct('.')))
            {
                return false;
            }
            i += 4;
            continue;
        }
        if gated.iter().any(|g| g == w) {
            // The binding itself (`const fs = require('fs')`).
            let binding = matches!(
                ident(toks.get(i.wrapping_sub(1))),
                Some("const" | "let" | "var")
            );
            let allowed = if w == "process" { JS_PROCESS } else { JS_FS };
            if !binding && !member_in(toks, i, allowed) {
                return false;
            }
        }
        i += 1;
    }
    true
}

/// JavaScript computed member access (`x[k]`) only with a number: a string or a variable
/// there can reach any member (`fs['rm' + 'Sync']`, `[]['constructor']`).
fn js_computed_ok(code: &str) -> bool {
    let c: Vec<char> = code.chars().collect();
    for (i, &ch) in c.iter().enumerate() {
        if ch != '[' {
            continue;
        }
        let prev = c[..i].iter().rev().find(|x| !x.is_whitespace());
        let member = prev.is_some_and(|p| p.is_alphanumeric() || "_$)]'\"`".contains(*p));
        if !member {
            continue;
        }
        let inner: String = c[i + 1..].iter().take_while(|x| **x != ']').collect();
        let inner = inner.trim();
        let number = inner.strip_prefix('-').unwrap_or(inner);
        if number.is_empty() || !number.chars().all(|d| d.is_ascii_digit()) {
            return false;
        }
    }
    true
}

fn perl_ok(toks: &[Tok], code: &str) -> bool {
    if code.contains("::") || code.contains("&{") || code.contains("*{") || code.contains("&$") {
        return false;
    }
    for (i, t) in toks.iter().enumerate() {
        let Tok::Ident(w) = t else { continue };
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        // `$x`, `@F`, `%h`, `$#a`: variables.
        if matches!(prev, Some(Tok::Punct('$' | '@' | '%' | '#'))) {
            continue;
        }
        // `$h{KEY}`: a string (the words that could run are refused over the raw text).
        if prev == Some(&Tok::Punct('{')) && toks.get(i + 1) == Some(&Tok::Punct('}')) {
            continue;
        }
        if !PERL_WORDS.contains(&w.as_str()) {
            return false;
        }
    }
    true
}

fn ruby_ok(toks: &[Tok], code: &str) -> bool {
    if code.contains("::") {
        return false;
    }
    for (i, t) in toks.iter().enumerate() {
        let Tok::Ident(w) = t else { continue };
        let prev = i.checked_sub(1).map(|p| &toks[p]);
        if matches!(prev, Some(Tok::Punct('.' | '$' | '@' | ':'))) {
            continue;
        }
        if w == "require" {
            match toks.get(i + 1) {
                Some(Tok::Str(lib)) if RUBY_LIBS.contains(&lib.as_str()) => continue,
                _ => return false,
            }
        }
        if w == "open" {
            return false;
        }
        if w.starts_with(|c: char| c.is_ascii_uppercase()) {
            if !RUBY_CONSTANTS.contains(&w.as_str()) {
                return false;
            }
            if matches!(w.as_str(), "File" | "Dir")
                && !member_in(toks, i, RUBY_FILE)
                && toks.get(i + 1) != Some(&Tok::Punct('['))
            {
                return false;
            }
        }
    }
    true
}

/// The modules of the read-only list that python code names: a file of that name in the
/// directory it runs in (`json.py`) would be imported instead.
pub(crate) fn python_modules_named(code: &str) -> impl Iterator<Item = &'static str> + '_ {
    PY_MODULES
        .iter()
        .copied()
        .filter(move |m| words(code).any(|w| w == *m))
}

//! What a Python or JavaScript script file can do to other people's work, judged more loosely
//! than a one-liner: its imports and its reads and writes are its own business (the pre-command
//! snapshots keep what a write replaces), but deleting, moving or truncating files, running a
//! command, or reaching either through code built at run time is not. A command it runs from a
//! literal (`subprocess.run(["git", "status"])`, `execSync('git rev-parse HEAD')`) is handed
//! back to be judged as shell text; anything else it runs cannot be judged.
//!
//! Perl, ruby and the rest are judged as one-liners are ([`super::read_only`]).

use super::Lang;
use super::lex::{Tok, tokenize};

mod js;
mod python;

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

/// `rm -rf -- PATH` for a call at `open` whose first argument is the literal path `PATH`.
fn literal_removal(lang: Lang, toks: &[Tok], open: usize) -> Option<String> {
    let args = call_args(toks, open)?;
    let path = literal_str(lang, args.first()?)?;
    (!path.is_empty()).then(|| format!("rm -rf -- {}", crate::shell::quote_word(&path)))
}

/// What a script of `lang` may do; `None` for a language judged as one-liners are.
pub(crate) fn power(lang: Lang, text: &str) -> Option<Power> {
    let judged = match lang {
        Lang::Python => {
            let Some(toks) = tokenize(lang, text) else {
                return Some(Power::Destroys("cannot be read as Python".into()));
            };
            python::python(&toks)
        }
        Lang::Js => {
            let Some(toks) = tokenize(lang, text) else {
                return Some(Power::Destroys("cannot be read as JavaScript".into()));
            };
            js::js(&toks)
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

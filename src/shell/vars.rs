//! Shell variables the evaluator can follow: `NAME=value` earlier in the line, `export`,
//! `for NAME in WORDS`, the few environment variables the agent's shell shares with the hook
//! (`HOME`, `TMPDIR`, ...), and command substitutions whose output is known (`$(pwd)`,
//! `$(mktemp -d)`, `$(git rev-parse --show-toplevel)` through the caller's resolver).

use std::collections::BTreeMap;
use std::path::Path;

use super::ast::{WChar, Word};

/// Variables set in the line: `Some(value)` known, `None` set to something unknown here.
pub(super) type Vars = BTreeMap<String, Option<String>>;

/// Environment variables the agent's shell and this hook share.
const SHARED_ENV: &[&str] = &["HOME", "TMPDIR", "USER", "LOGNAME", "SHELL"];

/// The output of a command that prints something knowable: `(argv, cwd) -> output`.
pub(crate) type Resolver<'a> = &'a dyn Fn(&[String], &Path) -> Option<String>;

/// The value of `$name`, when it can be known.
pub(super) fn lookup(vars: &Vars, name: &str, cwd: Option<&Path>) -> Option<String> {
    if let Some(v) = vars.get(name) {
        return v.clone();
    }
    match name {
        "PWD" => cwd.map(|c| c.to_string_lossy().into_owned()),
        // Unset, bash expands it to nothing: so does this, given the same environment.
        n if SHARED_ENV.contains(&n) => Some(std::env::var(n).unwrap_or_default()),
        _ => None,
    }
}

/// `word` with every variable and substitution replaced by its value, when all of them are
/// known (`outs`: the literal output of each of its substitutions); `None` otherwise.
pub(super) fn resolve(
    w: &Word,
    outs: &[Option<String>],
    vars: &Vars,
    cwd: Option<&Path>,
) -> Option<Word> {
    if !w.has_var && !w.has_cmdsub {
        return Some(w.clone());
    }
    if w.opaque || w.spans.len() != outs.len() {
        return None;
    }
    let mut parts: Vec<(usize, usize, String, bool)> = Vec::new();
    for (from, to, name, quoted) in &w.vars {
        parts.push((*from, *to, lookup(vars, name, cwd)?, *quoted));
    }
    for (span, out) in w.spans.iter().zip(outs) {
        let (from, to, quoted) = (*span)?;
        let text = out.as_ref()?.trim_end_matches('\n').to_owned();
        parts.push((from, to, text, quoted));
    }
    parts.sort_by_key(|p| p.0);
    let mut chars = Vec::new();
    let mut at = 0;
    for (from, to, text, quoted) in parts {
        if from < at || to > w.chars.len() {
            return None;
        }
        // Unquoted, a value splits into words (at `IFS`, when the line set it) and globs:
        // follow only the plain ones.
        let splits = |c: char| match vars.get("IFS") {
            None => c.is_whitespace(),
            Some(Some(ifs)) => ifs.contains(c),
            Some(None) => true,
        };
        if !quoted && text.contains(|c: char| splits(c) || "*?[".contains(c)) {
            return None;
        }
        chars.extend_from_slice(&w.chars[at..from]);
        chars.extend(text.chars().map(|c| WChar { c, quoted: true }));
        at = to;
    }
    chars.extend_from_slice(&w.chars[at..]);
    Some(Word {
        chars,
        any_quote: w.any_quote,
        ..Word::default()
    })
}

/// What the shell itself knows the output of: `pwd`, `mktemp` (a fresh name, made nowhere
/// that holds work), `dirname`, `basename`.
pub(crate) fn builtin_output(argv: &[String], cwd: &Path) -> Option<String> {
    let name = argv.first()?.rsplit('/').next()?;
    let args = &argv[1..];
    match name {
        "pwd" => Some(cwd.to_string_lossy().into_owned()),
        "mktemp" => {
            let mut dir = None;
            let mut template = None;
            let mut i = 0;
            while i < args.len() {
                let a = args[i].as_str();
                if a == "-p" || a == "--tmpdir" {
                    dir = args.get(i + 1).cloned();
                    i += 1;
                } else if let Some(d) = a.strip_prefix("--tmpdir=").or(a.strip_prefix("-p")) {
                    dir = Some(d.to_owned());
                } else if !a.starts_with('-') {
                    template = Some(a.to_owned());
                }
                i += 1;
            }
            let base = match (&dir, &template) {
                (Some(d), _) => d.clone(),
                (None, Some(t)) if t.contains('/') => {
                    Path::new(t).parent()?.to_string_lossy().into_owned()
                }
                _ => std::env::var("TMPDIR").unwrap_or_else(|_| "/tmp".into()),
            };
            let base = if Path::new(&base).is_absolute() {
                base
            } else {
                cwd.join(base).to_string_lossy().into_owned()
            };
            Some(format!("{base}/tmp.git-dibs-mktemp-fresh"))
        }
        "dirname" if args.len() == 1 => {
            let p = Path::new(&args[0]);
            Some(match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_string_lossy().into_owned(),
                _ => ".".into(),
            })
        }
        "basename" if args.len() == 1 => Path::new(&args[0])
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
        _ => None,
    }
}

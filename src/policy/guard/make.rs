//! `make [TARGET...]`: the recipe lines of the targets it builds (the named ones, else the
//! default) and of their prerequisites, with simple variables expanded (`$(RM)`, `$@`, command
//! line `VAR=value`, `$(VAR:.o=.d)`), to be read like `bash -c LINE` in the folder make runs
//! in. Every makefile make reads counts: those of `MAKEFILES`, every `-f`, and what they include
//! ([`read`]). A target whose recipe may come from an include that cannot be read is asked
//! about; a makefile this does not follow (conditionals, functions other than `$(wildcard)`,
//! `!=`, `define`) is left to [`super::code`]'s look at its recipe lines, judged by reach.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use read::{Makefile, Reader, Text};

mod read;

/// How deep variables are expanded inside one another.
const MAX_EXPANSION: usize = 8;
/// Most recipe lines gathered.
const MAX_LINES: usize = 512;

/// What `make ARGS` is told: its folder, makefile, targets, variables; `None` when it runs no
/// recipe (`-n`, `-q`, `-t`) or takes an option this does not follow.
struct Call {
    dir: PathBuf,
    files: Vec<String>,
    include_dirs: Vec<PathBuf>,
    targets: Vec<String>,
    vars: Vec<(String, String)>,
    /// Whether it runs recipes (not `-n`, `-q`, `-t`: make still reads its makefiles then).
    runs: bool,
}

fn call(args: &[String], cwd: &Path) -> Option<Call> {
    let mut c = Call {
        dir: cwd.to_path_buf(),
        files: Vec::new(),
        include_dirs: Vec::new(),
        targets: Vec::new(),
        vars: Vec::new(),
        runs: true,
    };
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let t = a.as_str();
        let value = |it: &mut std::iter::Peekable<std::slice::Iter<'_, String>>, v: &str| {
            if v.is_empty() {
                it.next().cloned()
            } else {
                Some(v.to_owned())
            }
        };
        if let Some(v) = t.strip_prefix("--directory=") {
            c.dir = c.dir.join(v);
        } else if let Some(v) = t
            .strip_prefix("--file=")
            .or_else(|| t.strip_prefix("--makefile="))
        {
            c.files.push(v.to_owned());
        } else if let Some(v) = t.strip_prefix("--include-dir=") {
            c.include_dirs.push(v.into());
        } else if matches!(t, "--directory" | "--file" | "--makefile" | "--include-dir") {
            let v = it.next()?.clone();
            match t {
                "--directory" => c.dir = c.dir.join(v),
                "--include-dir" => c.include_dirs.push(v.into()),
                _ => c.files.push(v),
            }
        } else if matches!(
            t,
            "--just-print" | "--dry-run" | "--recon" | "--question" | "--touch"
        ) {
            c.runs = false;
        } else if t.starts_with("--eval") {
            return None;
        } else if t.starts_with("--") {
        } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (i, ch) in flags.char_indices() {
                let rest = &flags[i + 1..];
                match ch {
                    'n' | 'q' | 't' => c.runs = false,
                    'C' => {
                        c.dir = c.dir.join(value(&mut it, rest)?);
                        break;
                    }
                    'f' => {
                        c.files.push(value(&mut it, rest)?);
                        break;
                    }
                    'I' => {
                        c.include_dirs.push(value(&mut it, rest)?.into());
                        break;
                    }
                    'o' | 'W' => {
                        value(&mut it, rest)?;
                        break;
                    }
                    'j' | 'l' => {
                        if rest.is_empty()
                            && it
                                .peek()
                                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
                        {
                            it.next();
                        }
                        break;
                    }
                    _ => {}
                }
            }
        } else if let Some((k, v)) = t.split_once('=') {
            let k = k.trim_end_matches([':', '?', '+']);
            c.vars.push((k.to_owned(), v.to_owned()));
        } else {
            c.targets.push(t.to_owned());
        }
    }
    Some(c)
}

/// Make's own defaults for the variables recipes use most.
fn default_var(name: &str) -> Option<&'static str> {
    Some(match name {
        "RM" => "rm -f",
        "MAKE" => "make",
        "CC" => "cc",
        "CXX" => "g++",
        "AR" => "ar",
        "SHELL" => "/bin/sh",
        "CP" => "cp",
        "MV" => "mv",
        _ => return None,
    })
}

/// Variables as make sees them for one target: the command line's, the makefile's, the
/// environment's, make's defaults, and the automatic ones.
pub(super) struct Scope<'a> {
    call: &'a [(String, String)],
    mk: &'a Makefile,
    target: &'a str,
    prereqs: &'a [String],
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> String {
        match name {
            "@" => return self.target.to_owned(),
            "<" => return self.prereqs.first().cloned().unwrap_or_default(),
            "^" | "+" | "?" => return self.prereqs.join(" "),
            _ => {}
        }
        if let Some((_, v)) = self.call.iter().rev().find(|(k, _)| k == name) {
            return v.clone();
        }
        if let Some(v) = self.mk.vars.get(name) {
            return v.clone();
        }
        std::env::var(name)
            .ok()
            .or_else(|| default_var(name).map(str::to_owned))
            .unwrap_or_default()
    }

    /// `text` with its variables expanded; `None` on a function or an expansion this does not
    /// follow.
    pub(super) fn expand(&self, text: &str, depth: usize) -> Option<String> {
        if depth > MAX_EXPANSION {
            return None;
        }
        let mut out = String::new();
        let mut chars = text.char_indices().peekable();
        while let Some((_, c)) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            let Some((j, n)) = chars.next() else {
                break;
            };
            let name = match n {
                '$' => {
                    out.push('$');
                    continue;
                }
                '(' | '{' => {
                    let close = if n == '(' { ')' } else { '}' };
                    let end = text[j + 1..].find(close)? + j + 1;
                    let inner = &text[j + 1..end];
                    while chars.peek().is_some_and(|(k, _)| *k <= end) {
                        chars.next();
                    }
                    if inner.contains(['$', '(', '{']) {
                        return None;
                    }
                    if let Some(pattern) = inner.strip_prefix("wildcard ") {
                        out.push_str(pattern.trim());
                        continue;
                    }
                    if let Some((var, subst)) = inner.split_once(':')
                        && let Some((from, to)) = subst.split_once('=')
                        && !var.contains([' ', ',', '='])
                        && !from.contains(['%', ' ', ','])
                    {
                        // `$(VAR:.o=.d)`: the suffix replaced in each word.
                        let value = self.expand(&self.lookup(var), depth + 1)?;
                        let words: Vec<String> = value
                            .split_whitespace()
                            .map(|w| match w.strip_suffix(from) {
                                Some(stem) => format!("{stem}{to}"),
                                None => w.to_owned(),
                            })
                            .collect();
                        out.push_str(&words.join(" "));
                        continue;
                    }
                    if inner.contains([' ', ',', ':', '=']) {
                        return None;
                    }
                    inner.to_owned()
                }
                '*' => return None,
                c => c.to_string(),
            };
            let value = self.lookup(&name);
            out.push_str(&self.expand(&value, depth + 1)?);
        }
        Some(out)
    }
}

/// The recipe lines of `target` after those of its prerequisites.
fn gather(
    mk: &Makefile,
    vars: &[(String, String)],
    target: &str,
    seen: &mut HashSet<String>,
    out: &mut Vec<String>,
) -> Option<()> {
    if !seen.insert(target.to_owned()) || out.len() >= MAX_LINES {
        return Some(());
    }
    let Some((prereqs, recipe)) = mk.rules.get(target) else {
        return Some(());
    };
    for p in prereqs {
        gather(mk, vars, p, seen, out)?;
    }
    let scope = Scope {
        call: vars,
        mk,
        target,
        prereqs,
    };
    for line in recipe {
        let line = scope.expand(line, 0)?;
        let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
        if !line.is_empty() {
            out.push(line.to_owned());
        }
    }
    Some(())
}

/// The makefile `make` reads in `dir`: the one named, else GNUmakefile, makefile, Makefile.
pub(super) fn makefile(dir: &Path, file: Option<&str>) -> Option<PathBuf> {
    match file {
        Some(f) => Some(dir.join(f)),
        None => ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file()),
    }
}

/// What `make ARGS` runs, as far as its makefiles can be read.
pub(super) enum Recipes {
    /// The folder make runs in, the commands it runs as it reads its makefiles (`!=`,
    /// `$(shell)`) and the recipe lines of what it builds (none: it runs none).
    Lines {
        dir: PathBuf,
        early: Vec<String>,
        lines: Vec<String>,
    },
    /// Why what it builds may get its recipe from a makefile git-dibs cannot read.
    Unread(String),
    /// The makefiles it reads, one of which uses what this does not follow: their text, to be
    /// looked at as a whole, with the folder and the commands it runs as it reads them.
    Whole {
        texts: Vec<(PathBuf, String)>,
        dir: PathBuf,
        early: Vec<String>,
    },
    /// Its makefile is not read here (standard input, a pipe, an option not followed).
    NotRead,
}

/// What `make ARGS` runs; `env` is the command's environment prefix (for `MAKEFILES`), `text`
/// reads a makefile (as written earlier in the line, or on disk).
pub(super) fn recipes(
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
    text: Text<'_>,
) -> Recipes {
    let Some(c) = call(args, cwd) else {
        return Recipes::NotRead;
    };
    let mut reader = Reader {
        dir: &c.dir,
        include_dirs: &c.include_dirs,
        call: &c.vars,
        text,
        stack: Vec::new(),
    };
    let mut mk = Makefile::default();
    // `MAKEFILES` (the command line's, the environment's): read first, missing ones skipped,
    // never the default goal.
    let listed = c
        .vars
        .iter()
        .chain(env)
        .rev()
        .find(|(k, _)| k == "MAKEFILES")
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var("MAKEFILES").ok());
    if let Some(listed) = listed.filter(|l| !l.trim().is_empty()) {
        reader.include_line(&mut mk, &listed);
        mk.first = None;
        mk.goal_unknown = false;
    }
    let files: Vec<PathBuf> = if c.files.is_empty() {
        makefile(&c.dir, None).into_iter().collect()
    } else {
        c.files.iter().map(|f| c.dir.join(f)).collect()
    };
    if files.is_empty() && mk.texts.is_empty() {
        return Recipes::Lines {
            dir: c.dir,
            early: Vec::new(),
            lines: Vec::new(),
        };
    }
    for f in &files {
        // A makefile named with `-f` that cannot be read (input from a pipe, one written
        // earlier in the line by a program whose output is not known, or one that does not
        // exist yet): what it runs is only known when make runs.
        let named = !c.files.is_empty();
        match (reader.text)(f) {
            Some(Some(_)) => {
                reader.read(&mut mk, f);
            }
            Some(None) if named => return unread_makefile(f),
            // Missing now and run with `-n`: make stops, having run nothing.
            None if named && c.runs => return unread_makefile(f),
            Some(None) => return Recipes::NotRead,
            None => {}
        }
    }
    judge(&mk, &c)
}

/// A makefile named with `-f` that cannot be read.
fn unread_makefile(f: &Path) -> Recipes {
    Recipes::Unread(format!(
        "`make` reads its recipes from `{}`, which git-dibs cannot read, and they may",
        f.display()
    ))
}

/// The commands make runs as it reads its makefiles, their variables expanded; `Err` with
/// the reason when one cannot be.
fn early(mk: &Makefile, c: &Call) -> Result<Vec<String>, String> {
    let scope = Scope {
        call: &c.vars,
        mk,
        target: "",
        prereqs: &[],
    };
    let mut out = Vec::new();
    for text in mk.early.iter().take(MAX_LINES) {
        let Some(line) = scope.expand(text, 0) else {
            let shown: String = text.chars().take(80).collect();
            return Err(format!(
                "`make` runs `{shown}` as it reads its makefiles, text git-dibs cannot expand, \
                 which may"
            ));
        };
        if !line.trim().is_empty() {
            out.push(line.trim().to_owned());
        }
    }
    Ok(out)
}

/// The recipes `make` runs once its makefiles are read.
fn judge(mk: &Makefile, c: &Call) -> Recipes {
    let early = match early(mk, c) {
        Ok(e) => e,
        Err(why) => return Recipes::Unread(why),
    };
    let whole = || Recipes::Whole {
        texts: mk.texts.clone(),
        dir: c.dir.clone(),
        early: early.clone(),
    };
    if !c.runs {
        return Recipes::Lines {
            dir: c.dir.clone(),
            early,
            lines: Vec::new(),
        };
    }
    let named = !c.targets.is_empty();
    let targets: Vec<String> = if named {
        c.targets.clone()
    } else {
        mk.first.iter().cloned().collect()
    };
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    // A missing included makefile that a rule makes: make runs that rule first, then reads
    // what it made.
    let mut unresolved = mk.unresolved.clone();
    let mut goal_unknown = mk.goal_unknown;
    for (m, before) in &mk.missing {
        if mk.rules.contains_key(m) {
            goal_unknown |= before;
            if gather(mk, &c.vars, m, &mut seen, &mut lines).is_none() {
                return whole();
            }
            unresolved.push(m.clone());
        }
    }
    if let Some(inc) = unresolved.first() {
        let shown: String = inc.chars().take(80).collect();
        let why = |t: &str| {
            format!(
                "`make` may take the recipe of {t} from `{shown}`, a makefile git-dibs cannot read,                  and it may"
            )
        };
        if !named && (goal_unknown || mk.first.is_none()) {
            return Recipes::Unread(why("its default target"));
        }
        if let Some(t) = targets.iter().find(|t| !mk.rules.contains_key(*t)) {
            return Recipes::Unread(why(&format!("`{t}`")));
        }
    }
    if mk.unsupported {
        return whole();
    }
    for t in &targets {
        if gather(mk, &c.vars, t, &mut seen, &mut lines).is_none() {
            return whole();
        }
    }
    Recipes::Lines {
        dir: c.dir.clone(),
        early,
        lines,
    }
}

#[cfg(test)]
mod tests;

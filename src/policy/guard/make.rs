//! `make [TARGET...]`: the recipe lines of the targets it builds (the named ones, else the
//! default) and of their prerequisites, with simple variables expanded (`$(RM)`, `$@`, command
//! line `VAR=value`), to be read like `bash -c LINE` in the folder make runs in. A makefile this
//! does not follow (`include`, conditionals, functions other than `$(wildcard)`, `!=`,
//! `define`) is left to [`super::code`]'s look at its recipe lines, judged by reach.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How deep variables are expanded inside one another.
const MAX_EXPANSION: usize = 8;
/// Most recipe lines gathered.
const MAX_LINES: usize = 512;

/// A makefile's rules and variables.
#[derive(Default)]
struct Makefile {
    vars: HashMap<String, String>,
    /// target -> (prerequisites, recipe lines).
    rules: HashMap<String, (Vec<String>, Vec<String>)>,
    first: Option<String>,
}

/// What `make ARGS` is told: its folder, makefile, targets, variables; `None` when it runs no
/// recipe (`-n`, `-q`, `-t`) or takes an option this does not follow.
struct Call {
    dir: PathBuf,
    file: Option<String>,
    targets: Vec<String>,
    vars: Vec<(String, String)>,
}

fn call(args: &[String], cwd: &Path) -> Option<Option<Call>> {
    let mut c = Call {
        dir: cwd.to_path_buf(),
        file: None,
        targets: Vec::new(),
        vars: Vec::new(),
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
            c.file = Some(v.to_owned());
        } else if matches!(t, "--directory" | "--file" | "--makefile") {
            let v = it.next()?.clone();
            if t == "--directory" {
                c.dir = c.dir.join(v);
            } else {
                c.file = Some(v);
            }
        } else if matches!(
            t,
            "--just-print" | "--dry-run" | "--recon" | "--question" | "--touch"
        ) {
            return Some(None);
        } else if t.starts_with("--eval") {
            return None;
        } else if t.starts_with("--") {
        } else if let Some(flags) = t.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (i, ch) in flags.char_indices() {
                let rest = &flags[i + 1..];
                match ch {
                    'n' | 'q' | 't' => return Some(None),
                    'C' => {
                        c.dir = c.dir.join(value(&mut it, rest)?);
                        break;
                    }
                    'f' => {
                        c.file = Some(value(&mut it, rest)?);
                        break;
                    }
                    'I' | 'o' | 'W' => {
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
    Some(Some(c))
}

/// A makefile's text parsed; `None` when it uses what this does not follow.
fn parse(text: &str) -> Option<Makefile> {
    let mut mk = Makefile::default();
    let mut current: Vec<String> = Vec::new();
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            if current.is_empty() {
                continue;
            }
            for t in &current {
                mk.rules
                    .entry(t.clone())
                    .or_default()
                    .1
                    .push(recipe.to_owned());
            }
            continue;
        }
        let line = line.split('#').next().unwrap_or("");
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let word = trimmed.split_whitespace().next().unwrap_or("");
        if matches!(
            word,
            "include"
                | "-include"
                | "sinclude"
                | "ifeq"
                | "ifneq"
                | "ifdef"
                | "ifndef"
                | "else"
                | "endif"
                | "define"
                | "endef"
                | "vpath"
                | "load"
                | "-load"
        ) || trimmed.starts_with(".RECIPEPREFIX")
        {
            return None;
        }
        let body = trimmed
            .strip_prefix("export ")
            .or_else(|| trimmed.strip_prefix("override "))
            .unwrap_or(trimmed);
        let eq = body.find('=');
        let colon = body.find(':');
        match (eq, colon) {
            (Some(e), c) if c.is_none_or(|c| c + 2 >= e) => {
                current.clear();
                let (name, op) = match body[..e].chars().last() {
                    Some(op @ ('?' | '+' | ':' | '!')) => (&body[..e - 1], Some(op)),
                    _ => (&body[..e], None),
                };
                let name = name.trim_end_matches(':').trim().to_owned();
                let value = body[e + 1..].trim().to_owned();
                match op {
                    Some('!') => return None,
                    Some('?') if mk.vars.contains_key(&name) => {}
                    Some('+') => {
                        let v = mk.vars.entry(name).or_default();
                        if !v.is_empty() {
                            v.push(' ');
                        }
                        v.push_str(&value);
                    }
                    _ => {
                        mk.vars.insert(name, value);
                    }
                }
            }
            (_, Some(c)) => {
                let targets: Vec<String> =
                    body[..c].split_whitespace().map(str::to_owned).collect();
                let rest = body[c..].trim_start_matches(':');
                let (prereqs, inline) = match rest.split_once(';') {
                    Some((p, r)) => (p, Some(r.trim())),
                    None => (rest, None),
                };
                if prereqs.contains('=') {
                    return None; // a target-specific variable
                }
                let prereqs: Vec<String> = prereqs
                    .split_whitespace()
                    .filter(|p| *p != "|")
                    .map(str::to_owned)
                    .collect();
                for t in &targets {
                    let rule = mk.rules.entry(t.clone()).or_default();
                    rule.0.extend(prereqs.iter().cloned());
                    if let Some(r) = inline.filter(|r| !r.is_empty()) {
                        rule.1.push(r.to_owned());
                    }
                    if mk.first.is_none() && !t.starts_with('.') && !t.contains('%') {
                        mk.first = Some(t.clone());
                    }
                }
                current = targets;
            }
            _ => return None,
        }
    }
    Some(mk)
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
struct Scope<'a> {
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
    fn expand(&self, text: &str, depth: usize) -> Option<String> {
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

/// What `make ARGS` runs: `Some((folder, recipe lines))` when its makefile is followed
/// (`Some` with no lines: it runs nothing), `None` when it is not (then its recipes are looked
/// at as a whole). `text` reads a makefile's text (as written earlier in the line, or on disk).
pub(super) fn recipes(
    args: &[String],
    cwd: &Path,
    text: impl Fn(&Path) -> Option<String>,
) -> Option<(PathBuf, Vec<String>)> {
    let Some(c) = call(args, cwd)? else {
        return Some((cwd.to_path_buf(), Vec::new()));
    };
    let Some(path) = makefile(&c.dir, c.file.as_deref()) else {
        return Some((c.dir, Vec::new()));
    };
    let mk = parse(&text(&path)?)?;
    let targets = if c.targets.is_empty() {
        mk.first.iter().cloned().collect()
    } else {
        c.targets.clone()
    };
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    for t in &targets {
        gather(&mk, &c.vars, t, &mut seen, &mut lines)?;
    }
    Some((c.dir, lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_of_the_targets_built() {
        let mk = "RM_ALL = $(RM) -r\nOUT := build\n\nall: build\n\nbuild: gen\n\tcargo build\n\
                  gen:\n\t@echo gen > $@.txt\nclean:\n\t-$(RM_ALL) $(OUT) *.txt\n\
                  clean2: ; rm -rf .worktrees\n.PHONY: all clean\n";
        let mkfile = |args: &str| {
            let args: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
            recipes(&args, Path::new("/nonexistent"), |_| Some(mk.to_owned())).map(|(_, l)| l)
        };
        assert_eq!(
            mkfile("-f Makefile").unwrap(),
            ["echo gen > gen.txt", "cargo build"]
        );
        assert_eq!(
            mkfile("-fMakefile clean clean2").unwrap(),
            ["rm -f -r build *.txt", "rm -rf .worktrees"]
        );
        assert_eq!(
            mkfile("-f Makefile clean OUT=dist").unwrap(),
            ["rm -f -r dist *.txt"]
        );
        assert_eq!(
            mkfile("-f Makefile -n clean").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            mkfile("-f Makefile -j 4 test").unwrap(),
            Vec::<String>::new()
        );
        assert!(mkfile("-f Makefile -sk clean").is_some());
    }

    #[test]
    fn what_is_not_followed_is_left_to_the_whole_look() {
        for mk in [
            "include common.mk\nclean:\n\trm -f x\n",
            "ifeq ($(A),1)\nX=1\nendif\nclean:\n\trm -f x\n",
            "clean:\n\trm -f $(shell ls)\n",
            "X != ls\nclean:\n\trm -f x\n",
            "clean: X = 1\nclean:\n\trm -f x\n",
        ] {
            let args = vec!["-f".to_owned(), "M".to_owned(), "clean".to_owned()];
            let got = recipes(&args, Path::new("/n"), |_| Some(mk.to_owned()));
            assert!(got.is_none(), "{mk}");
        }
    }
}

//! Reading a makefile as make does: rules, variables, and the makefiles it includes
//! (`include`, `-include`, `sinclude`, BSD `.include`), found where make looks (its folder, the
//! `-I` folders, the system ones), globbed, with variables expanded, bounded in depth and count
//! and read once each. What this does not follow (conditionals, `define`, functions, `!=`,
//! target-specific variables) is noted, not fatal: the text read is then judged as a whole.
//! The commands make runs as it reads (`VAR != CMD`, `$(shell CMD)`) are kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Scope;

/// Deepest chain of includes followed.
const MAX_DEPTH: usize = 8;
/// Most makefiles read for one `make`.
const MAX_FILES: usize = 32;
/// Where GNU make looks for an included makefile after its folder and the `-I` folders.
const SYSTEM_DIRS: &[&str] = &["/usr/local/include", "/usr/gnu/include", "/usr/include"];

/// A file's text: `None` when there is no such file, `Some(None)` when it cannot be read.
pub(super) type Text<'a> = &'a dyn Fn(&Path) -> Option<Option<String>>;

/// A makefile's rules and variables, with what was included.
#[derive(Default)]
pub(super) struct Makefile {
    pub(super) vars: HashMap<String, String>,
    /// target -> (prerequisites, recipe lines).
    pub(super) rules: HashMap<String, (Vec<String>, Vec<String>)>,
    pub(super) first: Option<String>,
    /// Includes that could not be read, as written.
    pub(super) unresolved: Vec<String>,
    /// An include that could not be read came before the first rule: the default goal may be
    /// its.
    pub(super) goal_unknown: bool,
    /// Something this does not follow was met.
    pub(super) unsupported: bool,
    /// Every makefile read, with its text.
    pub(super) texts: Vec<(PathBuf, String)>,
    /// Included makefiles that do not exist (make tries to make them by a rule), and whether
    /// each came before the first rule.
    pub(super) missing: Vec<(String, bool)>,
    /// Commands make runs as it reads the makefiles, whatever it then builds: each `VAR !=
    /// CMD` and `$(shell CMD)`, as written.
    pub(super) early: Vec<String>,
}

/// Where and how includes are looked for.
pub(super) struct Reader<'a> {
    pub(super) dir: &'a Path,
    pub(super) include_dirs: &'a [PathBuf],
    pub(super) call: &'a [(String, String)],
    pub(super) text: Text<'a>,
    pub(super) stack: Vec<PathBuf>,
}

/// The names an include directive's line gives, as written.
/// The commands the `$(shell CMD)` calls in `line` run (`${shell CMD}`, nested ones too);
/// `$$(...)` is the shell's.
fn early_calls(line: &str, out: &mut Vec<String>) {
    let b = line.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let (open, close) = match b[i + 1] {
            b'$' => {
                i += 2;
                continue;
            }
            b'(' => (b'(', b')'),
            b'{' => (b'{', b'}'),
            _ => {
                i += 1;
                continue;
            }
        };
        let start = i + 2;
        let mut depth = 1;
        let mut j = start;
        while j < b.len() && depth > 0 {
            if b[j] == open {
                depth += 1;
            } else if b[j] == close {
                depth -= 1;
            }
            j += 1;
        }
        let inner = if depth == 0 {
            &line[start..j - 1]
        } else {
            &line[start..]
        };
        if let Some(cmd) = inner
            .strip_prefix("shell")
            .filter(|c| c.starts_with([' ', '\t']))
        {
            out.push(cmd.trim().to_owned());
        }
        // Calls nested inside are read on.
        i = start;
    }
}

fn include(trimmed: &str) -> Option<&str> {
    let (word, rest) = trimmed.split_once([' ', '\t']).unwrap_or((trimmed, ""));
    matches!(
        word,
        "include" | ".include" | "-include" | "sinclude" | ".-include" | ".sinclude" | ".dinclude"
    )
    .then_some(rest)
}

impl Reader<'_> {
    /// The makefile an include name gives: in make's folder, the `-I` folders, the system
    /// ones; `None` when it is nowhere.
    fn find(&self, name: &str) -> Option<PathBuf> {
        if Path::new(name).is_absolute() {
            return (self.text)(Path::new(name)).map(|_| PathBuf::from(name));
        }
        let dirs = std::iter::once(self.dir.to_path_buf())
            .chain(self.include_dirs.iter().map(|d| self.dir.join(d)))
            .chain(SYSTEM_DIRS.iter().map(PathBuf::from));
        dirs.map(|d| d.join(name))
            .find(|p| (self.text)(p).is_some())
    }

    /// The names an include's words give: globs matched in make's folder.
    fn names(&self, words: &str) -> Vec<String> {
        let mut out = Vec::new();
        for w in words.split_whitespace() {
            let w = w.trim_matches(['"', '<', '>']);
            if !w.contains(['*', '?', '[']) {
                out.push(w.to_owned());
                continue;
            }
            let (parent, pattern) = match w.rsplit_once('/') {
                Some((p, f)) => (p, f),
                None => ("", w),
            };
            let Ok(entries) = std::fs::read_dir(self.dir.join(parent)) else {
                continue;
            };
            let mut found: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| super::super::pathspec::wildmatch_str(pattern, n))
                .map(|n| match parent {
                    "" => n,
                    p => format!("{p}/{n}"),
                })
                .collect();
            found.sort();
            out.extend(found);
        }
        out
    }

    /// Read the makefile at `path` into `mk`, includes and all; false when it cannot be read.
    pub(super) fn read(&mut self, mk: &mut Makefile, path: &Path) -> bool {
        let Some(Some(text)) = (self.text)(path) else {
            return false;
        };
        if self.stack.contains(&path.to_path_buf()) {
            return true;
        }
        self.stack.push(path.to_path_buf());
        mk.texts.push((path.to_path_buf(), text.clone()));
        self.parse(mk, &text);
        self.stack.pop();
        true
    }

    pub(super) fn include_line(&mut self, mk: &mut Makefile, words: &str) {
        let scope = Scope {
            call: self.call,
            mk,
            target: "",
            prereqs: &[],
        };
        let Some(expanded) = scope.expand(words, 0) else {
            return self.unresolved(mk, words);
        };
        for name in self.names(&expanded) {
            if self.stack.len() >= MAX_DEPTH || mk.texts.len() >= MAX_FILES {
                self.unresolved(mk, &name);
                continue;
            }
            match self.find(&name) {
                Some(p) => {
                    if !self.read(mk, &p) {
                        self.unresolved(mk, &name);
                    }
                }
                // A missing makefile is made by a rule for it, if there is one (then its
                // content is only known when make runs), else `include` stops make and
                // `-include` reads nothing.
                None => {
                    let before = mk.first.is_none();
                    mk.missing.push((name, before));
                }
            }
        }
    }

    fn unresolved(&self, mk: &mut Makefile, name: &str) {
        if mk.first.is_none() {
            mk.goal_unknown = true;
        }
        mk.unresolved.push(name.trim().to_owned());
    }

    /// A makefile's text, into `mk`.
    fn parse(&mut self, mk: &mut Makefile, text: &str) {
        let mut current: Vec<String> = Vec::new();
        let mut defines = 0usize;
        let joined = text.replace("\\\n", " ");
        for line in joined.lines() {
            if let Some(recipe) = line.strip_prefix('\t')
                && defines == 0
            {
                early_calls(recipe, &mut mk.early);
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
            early_calls(line, &mut mk.early);
            let trimmed = line.trim();
            let word = trimmed.split_whitespace().next().unwrap_or("");
            if word == "define" || trimmed.starts_with("define ") {
                defines += 1;
                mk.unsupported = true;
                continue;
            }
            if word == "endef" {
                defines = defines.saturating_sub(1);
                continue;
            }
            if defines > 0 || trimmed.is_empty() {
                continue;
            }
            if let Some(words) = include(trimmed) {
                current.clear();
                self.include_line(mk, words);
                continue;
            }
            if matches!(word, "load" | "-load" | ".load") {
                self.unresolved(mk, trimmed);
                continue;
            }
            if matches!(
                word,
                "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif" | "vpath" | "unexport"
            ) || word.starts_with(".if")
                || word.starts_with(".el")
                || word.starts_with(".end")
                || trimmed.starts_with(".RECIPEPREFIX")
            {
                mk.unsupported = true;
                continue;
            }
            self.statement(mk, trimmed, &mut current);
        }
    }

    /// A variable assignment or a rule.
    fn statement(&mut self, mk: &mut Makefile, trimmed: &str, current: &mut Vec<String>) {
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
                    Some('!') => {
                        mk.unsupported = true;
                        mk.early.push(value);
                    }
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
                    // A target-specific variable.
                    mk.unsupported = true;
                    current.clear();
                    return;
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
                *current = targets;
            }
            _ => mk.unsupported = true,
        }
    }
}

//! Word expansion the parser can do without running anything: braces, `~`, and globs against
//! the file system. All of it is bounded.

use std::path::{Component, Path, PathBuf};

use super::ast::{WChar, Word};

/// Most words one brace expansion may produce before the word is left as written.
const MAX_BRACE_WORDS: usize = 1024;
/// Most characters brace expansion may scan for one word.
const MAX_BRACE_WORK: usize = 1 << 20;
/// Longest glob pattern component tried against the file system.
const MAX_GLOB_COMPONENT: usize = 1024;
/// Most directories one glob may read before the word is left as written.
const MAX_GLOB_DIRS: usize = 256;
/// Most paths one glob may produce before the word is left as written.
const MAX_GLOB_MATCHES: usize = 4096;

/// One expanded argument and what it depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Arg {
    pub(crate) text: String,
    pub(crate) var: bool,
    pub(crate) cmdsub: bool,
    /// An unquoted expansion: the value may split into several words or be an option.
    pub(crate) bare: bool,
    /// A glob hit its work bound and was left as written: its matches are unknown.
    pub(crate) cut: bool,
}

impl Arg {
    pub(crate) fn plain(text: &str) -> Arg {
        Arg {
            text: text.to_string(),
            var: false,
            cmdsub: false,
            bare: false,
            cut: false,
        }
    }
}

/// Expand one word into arguments; `dotglob`: globs match names starting with a dot too.
pub(super) fn expand_word(
    w: &Word,
    cwd: &Path,
    cwd_known: bool,
    home: Option<&Path>,
    dotglob: bool,
) -> Vec<Arg> {
    let mut out = Vec::new();
    for chars in brace_expand(&w.chars) {
        let (chars, tilde_unknown) = tilde(chars, home, cwd_known.then_some(cwd));
        let mut cut = false;
        let absolute = chars.first().is_some_and(|c| c.c == '/');
        let globbed = if !w.has_var && !w.has_cmdsub && has_glob(&chars) && !cwd_known && !absolute
        {
            // A relative pattern in a directory that is not known: its matches are not either.
            cut = true;
            None
        } else if !w.has_var && !w.has_cmdsub && has_glob(&chars) {
            match glob(&chars, cwd, dotglob) {
                Globbed::Matched(m) => Some(m),
                Globbed::NoMatch => None,
                Globbed::TooMany => {
                    cut = true;
                    None
                }
            }
        } else {
            None
        };
        let texts = globbed.unwrap_or_else(|| vec![chars.iter().map(|c| c.c).collect()]);
        out.extend(texts.into_iter().map(|text| Arg {
            text,
            var: w.has_var || tilde_unknown,
            cmdsub: w.has_cmdsub,
            bare: w.bare,
            cut,
        }));
    }
    out
}

/// What a glob expanded to.
enum Globbed {
    Matched(Vec<String>),
    NoMatch,
    /// The work bound was hit: the matches are not known.
    TooMany,
}

/// A leading unquoted `~`, `~+` (the directory, `$PWD`) or `~-` (`$OLDPWD`) replaced by its
/// value; true when the word starts with a tilde whose value is not known here (`~-`, `~user`).
fn tilde(mut chars: Vec<WChar>, home: Option<&Path>, cwd: Option<&Path>) -> (Vec<WChar>, bool) {
    if !chars.first().is_some_and(|c| c.c == '~' && !c.quoted) {
        return (chars, false);
    }
    let end = chars.iter().position(|c| c.c == '/').unwrap_or(chars.len());
    let prefix: String = chars[1..end].iter().map(|c| c.c).collect();
    if chars[1..end].iter().any(|c| c.quoted) {
        return (chars, false);
    }
    let value = match prefix.as_str() {
        "" => home,
        "+" => cwd,
        _ => return (chars, true),
    };
    match value.and_then(Path::to_str) {
        Some(h) => {
            let mut v: Vec<WChar> = h.chars().map(|c| WChar { c, quoted: true }).collect();
            v.extend_from_slice(&chars[end..]);
            chars = v;
            (chars, false)
        }
        None => (chars, prefix == "+"),
    }
}

/// Bash brace expansion over unquoted `{a,b}` and `{x..y}`; iterative and bounded.
pub(super) fn brace_expand(chars: &[WChar]) -> Vec<Vec<WChar>> {
    let mut todo = vec![chars.to_vec()];
    let mut done = Vec::new();
    if !chars.iter().any(|w| unq(w, '{')) {
        return todo;
    }
    let mut work = 0usize;
    while let Some(cur) = todo.pop() {
        work += cur.len() + 1;
        if work > MAX_BRACE_WORK || done.len() + todo.len() > MAX_BRACE_WORDS {
            return vec![chars.to_vec()];
        }
        match find_brace(&cur) {
            None => done.push(cur),
            Some((open, close, alts)) => {
                for alt in alts.into_iter().rev() {
                    let mut v = cur[..open].to_vec();
                    v.extend(alt);
                    v.extend_from_slice(&cur[close + 1..]);
                    todo.push(v);
                }
            }
        }
    }
    done
}

fn unq(w: &WChar, c: char) -> bool {
    w.c == c && !w.quoted
}

/// The first expandable brace pair: (open index, close index, alternatives). Linear.
fn find_brace(chars: &[WChar]) -> Option<(usize, usize, Vec<Vec<WChar>>)> {
    // For every `{`, its matching `}` and the commas at its level, in one pass.
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    for (i, w) in chars.iter().enumerate() {
        if unq(w, '{') {
            stack.push((i, Vec::new()));
        } else if unq(w, ',') {
            if let Some((_, commas)) = stack.last_mut() {
                commas.push(i);
            }
        } else if unq(w, '}')
            && let Some((open, commas)) = stack.pop()
        {
            if best.as_ref().is_some_and(|b| b.0 < open) {
                continue;
            }
            let expandable = !commas.is_empty() || {
                let inner = &chars[open + 1..i];
                inner.len() <= 64
                    && inner.iter().all(|w| !w.quoted)
                    && sequence(&inner.iter().map(|w| w.c).collect::<String>()).is_some()
            };
            if expandable {
                best = Some((open, i, commas));
            }
        }
    }
    let (open, close, commas) = best?;
    if commas.is_empty() {
        let inner: String = chars[open + 1..close].iter().map(|w| w.c).collect();
        let alts = sequence(&inner)?
            .into_iter()
            .map(|s| s.chars().map(|c| WChar { c, quoted: true }).collect())
            .collect();
        return Some((open, close, alts));
    }
    let mut alts = Vec::new();
    let mut start = open + 1;
    for &c in commas.iter().chain(std::iter::once(&close)) {
        alts.push(chars[start..c].to_vec());
        start = c + 1;
    }
    Some((open, close, alts))
}

/// `1..5`, `a..e`, `10..1..3`.
fn sequence(s: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = s.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(p) => p.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let count = usize::try_from(a.abs_diff(b) / step.unsigned_abs())
            .ok()?
            .checked_add(1)?;
        if count > MAX_BRACE_WORDS {
            return None;
        }
        let dir = if a <= b { step } else { -step };
        return Some(
            (0..count)
                .map(|i| (a + dir * i as i64).to_string())
                .collect(),
        );
    }
    let (mut a, mut b) = (parts[0].chars(), parts[1].chars());
    let (Some(x), None, Some(y), None) = (a.next(), a.next(), b.next(), b.next()) else {
        return None;
    };
    if !x.is_ascii_alphabetic() || !y.is_ascii_alphabetic() {
        return None;
    }
    let (x, y) = (x as i64, y as i64);
    let dir = if x <= y { step } else { -step };
    let count = (x.abs_diff(y) / step.unsigned_abs()) as usize + 1;
    Some(
        (0..count)
            .filter_map(|i| char::from_u32((x + dir * i as i64) as u32).map(String::from))
            .collect(),
    )
}

fn has_glob(chars: &[WChar]) -> bool {
    let last_close = chars.iter().rposition(|w| unq(w, ']'));
    chars.iter().enumerate().any(|(i, w)| {
        unq(w, '*') || unq(w, '?') || (unq(w, '[') && last_close.is_some_and(|c| c > i))
    })
}

/// Expand a glob pattern.
fn glob(chars: &[WChar], cwd: &Path, dotglob: bool) -> Globbed {
    let absolute = chars.first().is_some_and(|w| w.c == '/');
    let comps: Vec<&[WChar]> = chars.split(|w| w.c == '/').collect();
    let mut cands: Vec<(String, PathBuf)> = vec![if absolute {
        ("/".to_string(), PathBuf::from("/"))
    } else {
        (String::new(), cwd.to_path_buf())
    }];
    let mut dirs_read = 0usize;
    let last = comps.len() - 1;
    for (i, comp) in comps.iter().enumerate() {
        if comp.is_empty() {
            if i == last && i > 0 {
                cands.retain(|(_, p)| p.is_dir());
                for (d, _) in &mut cands {
                    d.push('/');
                }
            }
            continue;
        }
        let text: String = comp.iter().map(|w| w.c).collect();
        if !has_glob(comp) {
            for (d, p) in &mut cands {
                join_display(d, &text);
                p.push(&text);
            }
            continue;
        }
        if comp.len() > MAX_GLOB_COMPONENT {
            return Globbed::TooMany;
        }
        let mut next = Vec::new();
        for (d, p) in &cands {
            dirs_read += 1;
            if dirs_read > MAX_GLOB_DIRS {
                return Globbed::TooMany;
            }
            let Ok(rd) = std::fs::read_dir(p) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| {
                    if dotglob {
                        n != "." && n != ".."
                    } else {
                        !n.starts_with('.') || comp[0].c == '.'
                    }
                })
                .filter(|n| matches(comp, &n.chars().collect::<Vec<_>>()))
                .collect();
            names.sort();
            for n in names {
                let mut d2 = d.clone();
                join_display(&mut d2, &n);
                next.push((d2, p.join(&n)));
                if next.len() > MAX_GLOB_MATCHES {
                    return Globbed::TooMany;
                }
            }
        }
        cands = next;
    }
    cands.retain(|(_, p)| p.symlink_metadata().is_ok());
    if cands.is_empty() {
        Globbed::NoMatch
    } else {
        Globbed::Matched(cands.into_iter().map(|(d, _)| d).collect())
    }
}

fn join_display(d: &mut String, comp: &str) {
    if !d.is_empty() && !d.ends_with('/') {
        d.push('/');
    }
    d.push_str(comp);
}

/// Match one path component against a pattern (`*`, `?`, `[...]`), with star backtracking.
fn matches(pat: &[WChar], name: &[char]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pat.len() {
            let w = pat[p];
            if unq(&w, '*') {
                star = Some((p, n));
                p += 1;
                continue;
            }
            if unq(&w, '?') {
                p += 1;
                n += 1;
                continue;
            }
            if unq(&w, '[')
                && let Some((ok, after)) = bracket(pat, p, name[n])
            {
                if ok {
                    p = after;
                    n += 1;
                    continue;
                }
            } else if w.c == name[n] {
                p += 1;
                n += 1;
                continue;
            }
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|w| unq(w, '*'))
}

/// A bracket expression at `pat[open]`: (does `c` match, index after `]`); `None` if unclosed.
fn bracket(pat: &[WChar], open: usize, c: char) -> Option<(bool, usize)> {
    let mut i = open + 1;
    let negate = pat
        .get(i)
        .is_some_and(|w| !w.quoted && (w.c == '!' || w.c == '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    loop {
        let w = *pat.get(i)?;
        if unq(&w, ']') && !first {
            return Some((found != negate, i + 1));
        }
        first = false;
        if unq(&w, '[') && pat.get(i + 1).is_some_and(|x| x.c == ':') {
            let rest: String = pat[i + 2..].iter().map(|x| x.c).collect();
            if let Some(end) = rest.find(":]") {
                let class = &rest[..end];
                found |= match class {
                    "alpha" => c.is_alphabetic(),
                    "digit" => c.is_ascii_digit(),
                    "alnum" => c.is_alphanumeric(),
                    "upper" => c.is_uppercase(),
                    "lower" => c.is_lowercase(),
                    "space" => c.is_whitespace(),
                    "punct" => c.is_ascii_punctuation(),
                    "xdigit" => c.is_ascii_hexdigit(),
                    _ => false,
                };
                i += 2 + class.chars().count() + 2;
                continue;
            }
        }
        if pat.get(i + 1).is_some_and(|x| unq(x, '-')) && pat.get(i + 2).is_some_and(|x| x.c != ']')
        {
            let hi = pat[i + 2].c;
            found |= w.c <= c && c <= hi;
            i += 3;
            continue;
        }
        found |= w.c == c;
        i += 1;
    }
}

/// `base` joined with `dir`, with `.` and `..` resolved lexically (as `cd` does by default).
pub(super) fn join_dir(base: &Path, dir: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(dir).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                } else if out.as_os_str().is_empty() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

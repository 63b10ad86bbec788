//! git pathspecs, as far as the guard needs them: resolved against the command's directory
//! inside the worktree (`.`, `..`, absolute paths, `:/`, `:(top)`, `:!`/`:(exclude)`), and
//! matched against paths relative to the worktree root (`*` crosses `/` as in git's default).

use std::path::Path;

/// One pathspec, resolved to the worktree root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spec {
    /// The pattern relative to the worktree root (empty: the whole tree).
    pub(crate) pattern: String,
    /// `:!` / `:(exclude)`.
    pub(crate) exclude: bool,
    /// Holds wildcards.
    pub(crate) glob: bool,
    /// `:(icase)`: matched without regard to case.
    pub(crate) icase: bool,
}

/// Resolve `spec` as written in a command run in `prefix` (its directory relative to `root`).
/// `None` when it points outside the worktree.
pub(crate) fn resolve(spec: &str, prefix: &str, root: &Path) -> Option<Spec> {
    let (mut top, mut exclude, mut literal, mut icase) = (false, false, false, false);
    let mut rest = spec;
    if let Some(long) = spec.strip_prefix(":(")
        && let Some((magic, after)) = long.split_once(')')
    {
        let mut unknown = false;
        for word in magic.split(',') {
            match word.trim() {
                "top" => top = true,
                "exclude" => exclude = true,
                "literal" => literal = true,
                "icase" => icase = true,
                "glob" => {}
                // `attr:...` and magic git-dibs does not know: it may select anything.
                _ => unknown = true,
            }
        }
        rest = if unknown && !exclude { "" } else { after };
        top |= unknown;
    } else if let Some(short) = spec.strip_prefix(':') {
        let mut chars = short.char_indices();
        let mut end = short.len();
        for (i, c) in chars.by_ref() {
            match c {
                '/' => top = true,
                '!' | '^' => exclude = true,
                _ => {
                    end = i;
                    break;
                }
            }
        }
        rest = &short[end..];
        rest = rest.strip_prefix(':').unwrap_or(rest);
    }
    let joined = if Path::new(rest).is_absolute() {
        // Through a symlink, the path names a file of the worktree only once resolved.
        let rel = match Path::new(rest).strip_prefix(root) {
            Ok(rel)
                if !rel
                    .components()
                    .any(|c| c == std::path::Component::ParentDir) =>
            {
                rel.to_path_buf()
            }
            _ => {
                let path = crate::git::normalize(Path::new(""), Path::new(rest));
                match path.strip_prefix(root) {
                    Ok(rel) => rel.to_path_buf(),
                    // A folder holding the worktree holds every file of it.
                    Err(_) if root.starts_with(&path) && !rest.contains(['*', '?', '[']) => {
                        std::path::PathBuf::new()
                    }
                    Err(_) => return None,
                }
            }
        };
        rel.to_string_lossy().into_owned()
    } else if top || prefix.is_empty() {
        rest.to_owned()
    } else {
        format!("{prefix}/{rest}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let pattern = parts.join("/");
    let glob = !literal && pattern.contains(['*', '?', '[']);
    Some(Spec {
        pattern,
        exclude,
        glob,
        icase,
    })
}

/// Whether a single spec's pattern covers `path`.
fn covers(spec: &Spec, path: &str) -> bool {
    if spec.pattern.is_empty() {
        return true;
    }
    if spec.icase {
        let lower = Spec {
            pattern: spec.pattern.to_lowercase(),
            icase: false,
            ..spec.clone()
        };
        return covers(&lower, &path.to_lowercase());
    }
    if spec.glob && wildmatch(spec.pattern.as_bytes(), path.as_bytes()) {
        return true;
    }
    path == spec.pattern
        || path
            .strip_prefix(spec.pattern.as_str())
            .is_some_and(|r| r.starts_with('/'))
}

/// Whether the pathspec list `specs` selects `path`: some positive spec covers it (or there is
/// none) and no exclusion does.
pub(crate) fn selects(specs: &[Spec], path: &str) -> bool {
    let mut positives = specs.iter().filter(|s| !s.exclude).peekable();
    let included = positives.peek().is_none() || positives.any(|s| covers(s, path));
    included && !specs.iter().any(|s| s.exclude && covers(s, path))
}

/// Whether `path` is named exactly (not through a folder or a wildcard) by a positive spec.
pub(crate) fn names_exactly(specs: &[Spec], path: &str) -> bool {
    specs
        .iter()
        .any(|s| !s.exclude && !s.glob && s.pattern == path)
}

/// [`wildmatch`] over strings.
pub(super) fn wildmatch_str(pattern: &str, text: &str) -> bool {
    wildmatch(pattern.as_bytes(), text.as_bytes())
}

/// `*` (crossing `/`), `?` and `[...]` classes, as git matches pathspecs by default.
fn wildmatch(pat: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((ok, next)) = class(&pat[p..], text[t])
                        && ok
                    {
                        p += next;
                        t += 1;
                        continue;
                    }
                }
                c if c == text[t] => {
                    p += 1;
                    t += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// Match one byte against the class starting at `pat[0] == b'['`: (matched, length of class).
fn class(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while i < pat.len() {
        if pat[i] == b']' && !first {
            return Some((found != negate, i + 1));
        }
        first = false;
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&e| e != b']') {
            found |= pat[i] <= c && c <= pat[i + 2];
            i += 3;
        } else {
            found |= pat[i] == c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(spec: &str, prefix: &str) -> Option<Spec> {
        resolve(spec, prefix, Path::new("/w"))
    }

    #[test]
    fn resolution() {
        assert_eq!(r(".", "src").unwrap().pattern, "src");
        assert_eq!(r("..", "src").unwrap().pattern, "");
        assert_eq!(r(":/", "src").unwrap().pattern, "");
        assert_eq!(r(":/a.rs", "src").unwrap().pattern, "a.rs");
        assert_eq!(r("/w/src/x", "").unwrap().pattern, "src/x");
        assert!(r("/elsewhere/x", "").is_none());
        assert!(r("../..", "src").is_none());
        let ex = r(":!notes.txt", "").unwrap();
        assert!(ex.exclude);
        assert_eq!(ex.pattern, "notes.txt");
        assert!(r(":(exclude,top)x", "a").unwrap().exclude);
    }

    #[test]
    fn selection() {
        let specs = vec![r("src", "").unwrap(), r(":!src/keep.rs", "").unwrap()];
        assert!(selects(&specs, "src/lib.rs"));
        assert!(!selects(&specs, "src/keep.rs"));
        assert!(!selects(&specs, "srcx"));
        let glob = vec![r("*.rs", "").unwrap()];
        assert!(selects(&glob, "src/deep/x.rs"));
        assert!(!selects(&glob, "README.md"));
        assert!(selects(&[r("[a-c]?.md", "").unwrap()], "b1.md"));
        assert!(names_exactly(
            &[r("./src/lib.rs", "").unwrap()],
            "src/lib.rs"
        ));
        assert!(!names_exactly(&[r("src", "").unwrap()], "src/lib.rs"));
    }
}

//! The text of a session's snapshot state (`snapshots/<key>.log`): lines appended as snapshots
//! are made, never rewritten in place, so recording a snapshot is one append to a file that
//! exists (no file created, none replaced) and reading it back is one read and a split. The
//! last line about a file wins; the log is compacted (rewritten whole) once it is mostly
//! superseded lines.
//!
//! Lines, fields separated by tabs (a `\`, tab, newline or carriage return in a field is written
//! `\\`, `\t`, `\n`, `\r`):
//! - `s <session> <host>`: whose state this is (the first line);
//! - `c <commit> <at>`: the newest snapshot commit and when it was made (seconds);
//! - `w <worktree id> <root>`: the worktree root an id stands for;
//! - `f <worktree id> <len> <mtime> <ctime> <ino> <mode> <blob or -> <skipped or -> <path>`:
//!   a file watched, with its stat data when last snapshotted (or skipped).
//!
//! Lines that do not parse (a torn last line, a later format) are left out.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;

use super::snapshots::{MAX_WATCHED, SnapState, Stamp, Watched};

/// The pieces of `text` between `sep` bytes (an ASCII separator, so every piece is a `str`): a
/// plain byte scan, cheaper than a pattern search over fields this short.
struct Pieces<'t> {
    rest: Option<&'t str>,
    sep: u8,
}

impl<'t> Iterator for Pieces<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == self.sep) {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

fn pieces(text: &str, sep: u8) -> Pieces<'_> {
    Pieces {
        rest: Some(text),
        sep,
    }
}

/// FNV-1a ([`super::fnv1a`]) for the short keys of one log: SipHash's defence against chosen
/// keys buys nothing for a file only this program writes, and costs more than the parse.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(17) ^ super::fnv1a(bytes);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// Escape one field.
fn escape(out: &mut String, field: &str) {
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// Unescape one field.
fn unescape(field: &str) -> String {
    if !field.contains('\\') {
        return field.to_owned();
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The `s` line.
pub(crate) fn session_line(out: &mut String, session: &str, host: &str) {
    out.push_str("s\t");
    escape(out, session);
    out.push('\t');
    escape(out, host);
    out.push('\n');
}

/// The `c` line.
pub(crate) fn commit_line(out: &mut String, commit: &str, at: u64) {
    out.push_str("c\t");
    escape(out, commit);
    out.push('\t');
    out.push_str(&at.to_string());
    out.push('\n');
}

/// The `w` line of the worktree at `root`, whose id is `wid`.
pub(crate) fn worktree_line(out: &mut String, wid: &str, root: &str) {
    out.push_str("w\t");
    escape(out, wid);
    out.push('\t');
    escape(out, root);
    out.push('\n');
}

/// The `f` line of `w`, whose worktree's id is `wid`.
pub(crate) fn file_line(out: &mut String, wid: &str, w: &Watched) {
    use std::fmt::Write as _;
    let s = &w.stamp;
    out.push_str("f\t");
    escape(out, wid);
    let _ = write!(
        out,
        "\t{}\t{}\t{}\t{}\t{}\t",
        s.len, s.mtime, s.ctime, s.ino, s.mode
    );
    escape(out, w.blob.as_deref().unwrap_or("-"));
    out.push('\t');
    escape(out, w.skipped.as_deref().unwrap_or("-"));
    out.push('\t');
    escape(out, &w.path);
    out.push('\n');
}

/// The whole text of `state`, as a compaction writes it: each worktree once, each file once.
pub(crate) fn encode(state: &SnapState, wid_of: impl Fn(&std::path::Path) -> String) -> String {
    let mut out = String::new();
    session_line(&mut out, &state.session, &state.host);
    if let Some(c) = &state.commit {
        commit_line(&mut out, c, state.at);
    }
    let mut ids: HashMap<&std::path::Path, String> = HashMap::new();
    for w in &state.files {
        let wid = ids.entry(w.worktree.as_path()).or_insert_with(|| {
            let wid = wid_of(&w.worktree);
            worktree_line(&mut out, &wid, &w.worktree.to_string_lossy());
            wid
        });
        let wid = wid.clone();
        file_line(&mut out, &wid, w);
    }
    out
}

/// The state a log's text describes, and how many lines it has; `None` without an `s` line.
pub(crate) fn decode(text: &str) -> Option<(SnapState, usize)> {
    let mut state = SnapState::default();
    let mut named = false;
    let mut roots: FnvMap<&str, PathBuf> = FnvMap::default();
    let mut files: Vec<Option<Watched>> = Vec::new();
    let mut at: FnvMap<(&str, &str), usize> = FnvMap::default();
    let mut lines = 0;
    // Only whole lines: a torn last line (a writer killed mid-append) is left out.
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    for line in pieces(whole, b'\n') {
        lines += 1;
        let mut fields = pieces(line, b'\t');
        match fields.next() {
            Some("s") => {
                if let (Some(session), Some(host)) = (fields.next(), fields.next()) {
                    let host = unescape(host);
                    if !named || !host.is_empty() {
                        state.host = host;
                    }
                    state.session = unescape(session);
                    named = true;
                }
            }
            Some("c") => {
                if let (Some(commit), Some(when)) = (fields.next(), fields.next())
                    && let Ok(when) = when.parse()
                {
                    state.commit = Some(unescape(commit));
                    state.at = when;
                }
            }
            Some("w") => {
                if let (Some(wid), Some(root)) = (fields.next(), fields.next()) {
                    roots.insert(wid, PathBuf::from(unescape(root)));
                }
            }
            Some("f") => {
                let Some((key, w)) = file_of(&mut fields, &roots) else {
                    continue;
                };
                if let Some(old) = at.insert(key, files.len()) {
                    files[old] = None;
                }
                files.push(Some(w));
            }
            _ => {}
        }
    }
    if !named {
        return None;
    }
    state.files = files.into_iter().flatten().collect();
    if state.files.len() > MAX_WATCHED {
        let extra = state.files.len() - MAX_WATCHED;
        state.files.drain(..extra);
    }
    Some((state, lines))
}

/// The newest `f` line of `path` in the worktree whose id is `wid` (root `root`), found by
/// searching `text` back from its end for that line alone (no other line is decoded); `None`
/// when no whole line names it.
pub(crate) fn last_file(
    text: &str,
    wid: &str,
    root: &std::path::Path,
    path: &str,
) -> Option<Watched> {
    let mut needle = String::with_capacity(path.len() + 2);
    needle.push('\t');
    escape(&mut needle, path);
    needle.push('\n');
    let mut roots: FnvMap<&str, PathBuf> = FnvMap::default();
    roots.insert(wid, root.to_path_buf());
    // An escaped field holds no tab or newline, so the needle can only be a line's last field.
    for (at, _) in text.rmatch_indices(needle.as_str()) {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[start..at + needle.len() - 1];
        let mut fields = pieces(line, b'\t');
        if fields.next() != Some("f") {
            continue;
        }
        if let Some((_, w)) = file_of(&mut fields, &roots) {
            return Some(w);
        }
    }
    None
}

/// The file of an `f` line's fields (after the `f`), with its key: its worktree id and its
/// path as written.
fn file_of<'t>(
    fields: &mut Pieces<'t>,
    roots: &FnvMap<&str, PathBuf>,
) -> Option<((&'t str, &'t str), Watched)> {
    let wid = fields.next()?;
    let worktree = roots.get(wid)?.clone();
    let stamp = Stamp {
        len: fields.next()?.parse().ok()?,
        mtime: fields.next()?.parse().ok()?,
        ctime: fields.next()?.parse().ok()?,
        ino: fields.next()?.parse().ok()?,
        mode: fields.next()?.parse().ok()?,
    };
    let optional = |f: &str| (f != "-").then(|| unescape(f));
    let blob = optional(fields.next()?);
    let skipped = optional(fields.next()?);
    let raw = fields.next()?;
    let path = unescape(raw);
    if path.is_empty() || fields.next().is_some() {
        return None;
    }
    Some((
        (wid, raw),
        Watched {
            worktree,
            path,
            stamp,
            skipped,
            blob,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched(root: &str, path: &str, len: u64) -> Watched {
        Watched {
            worktree: root.into(),
            path: path.into(),
            stamp: Stamp {
                len,
                mtime: -5,
                ctime: 1_700_000_000_123_456_789,
                ino: 42,
                mode: 0o100644,
            },
            skipped: None,
            blob: Some("ab12".into()),
        }
    }

    #[test]
    fn odd_names_round_trip_and_the_last_line_wins() {
        let mut state = SnapState {
            session: "s\t1\\x".into(),
            host: "claude".into(),
            commit: Some("c0ffee".into()),
            at: 9,
            files: vec![
                watched("/w/a\tb", "x\ny.rs", 1),
                watched("/w/a\tb", "x\\y\r", 2),
            ],
        };
        state.files[1].skipped = Some("a FIFO (never read)".into());
        state.files[1].blob = None;
        let text = encode(&state, |p| format!("id{}", p.as_os_str().len()));
        assert_eq!(decode(&text), Some((state.clone(), 5)));
        // An appended line about a file replaces its entry and moves it last.
        let mut more = text.clone();
        file_line(&mut more, "id6", &watched("/w/a\tb", "x\ny.rs", 7));
        let (back, lines) = decode(&more).unwrap();
        assert_eq!(lines, 6);
        assert_eq!(back.files.len(), 2);
        assert_eq!(
            (back.files[1].path.as_str(), back.files[1].stamp.len),
            ("x\ny.rs", 7)
        );
        // A torn last line, an unknown line, a file of an unknown worktree: left out.
        more.push_str("q\tlater format\nf\tnope\t1\t2\t3\t4\t5\t-\t-\tz\n");
        more.push_str("f\tid6\t1\t2");
        assert_eq!(decode(&more).unwrap().0, back);
        assert_eq!(decode("c\tabc\t1\n"), None);
        // One file's newest line is found alone, whatever its name holds; a torn line, another
        // worktree's or a path that only ends the same are not it.
        let root = std::path::Path::new("/w/a\tb");
        let found = last_file(&more, "id6", root, "x\ny.rs").unwrap();
        assert_eq!((found.stamp.len, found.worktree.as_path()), (7, root));
        assert_eq!(
            last_file(&more, "id6", root, "x\\y\r"),
            Some(back.files[0].clone())
        );
        assert_eq!(last_file(&more, "id6", root, "y.rs"), None);
        assert_eq!(last_file(&more, "id7", root, "x\ny.rs"), None);
        assert_eq!(last_file(&more, "id6", root, "z"), None);
        assert_eq!(
            last_file("f\tid6\t1\t2\t3\t4\t5\t-\t-\tq", "id6", root, "q"),
            None
        );
    }
}

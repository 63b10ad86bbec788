//! The text of a session's snapshot state (`snapshots/<key>.log`): lines appended as snapshots
//! are made, never rewritten in place, so recording a snapshot is one append to a file that
//! exists (no file created, none replaced) and reading it back is one read and a split. The
//! last line about a file wins; the log is compacted (rewritten whole) once it is mostly
//! superseded lines.
//!
//! Lines, fields separated by tabs (a `\`, tab, newline, carriage return or NUL in a field is
//! written `\\`, `\t`, `\n`, `\r`, `\0`; a NUL marks a name's byte that is not UTF-8):
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

mod fields;
use fields::{file_of, pieces};
#[cfg(test)]
use fields::{general_file, quick_file};

/// A hash for the short keys of one log, eight bytes at a step (as rustc's `FxHasher`):
/// SipHash's defence against chosen keys buys nothing for a file only this program writes,
/// and costs more than the parse.
#[derive(Default)]
pub(super) struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().expect("eight bytes")));
        }
        let rest = words.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ (rest.len() as u64) << 56);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// Escape one field.
fn escape(out: &mut String, field: &str) {
    for c in field.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
}

/// Unescape one field.
fn unescape(field: &str) -> String {
    let mut out = String::new();
    unescape_into(&mut out, field);
    out
}

/// Unescape one field onto the end of `out`.
pub(super) fn unescape_into(out: &mut String, field: &str) {
    if !field.contains('\\') {
        out.push_str(field);
        return;
    }
    out.reserve(field.len());
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
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => {}
        }
    }
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
    let view = View::of(text)?;
    let roots: Vec<PathBuf> = view
        .roots
        .iter()
        .map(|r| PathBuf::from(unescape(r)))
        .collect();
    let files = view
        .files
        .iter()
        .map(|f| f.watched(roots[f.root].clone()))
        .collect();
    let state = SnapState {
        session: unescape(view.session),
        host: unescape(view.host),
        commit: view.commit.map(unescape),
        at: view.at,
        files,
    };
    Some((state, view.lines))
}

/// Every snapshot commit a log's text names, oldest first (until the log is compacted, older
/// commits of the chain are still named).
pub(super) fn commits(text: &str) -> Vec<String> {
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    whole
        .split('\n')
        .filter_map(|line| {
            let mut fields = pieces(line, b'\t');
            match (fields.next(), fields.next(), fields.next()) {
                (Some("c"), Some(c), Some(when)) if when.parse::<u64>().is_ok() => {
                    Some(unescape(c))
                }
                _ => None,
            }
        })
        .collect()
}

/// What a log's text says of its session's newest snapshot: the session (escaped), the commit
/// (escaped) and the roots (escaped) that a well-formed file line names, each once. Lighter than
/// a [`View`]: no stat data parsed, no file told apart from another.
pub(super) fn heads(text: &str) -> Option<(&str, Option<&str>, Vec<&str>)> {
    let mut session = None;
    let mut commit = None;
    let mut roots: Vec<(&str, &str, bool)> = Vec::new();
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    for line in whole.split('\n') {
        let mut fields = pieces(line, b'\t');
        match (fields.next(), fields.next(), fields.next()) {
            (Some("s"), Some(id), Some(_)) => session = Some(id),
            (Some("c"), Some(c), Some(when)) if when.parse::<u64>().is_ok() => commit = Some(c),
            (Some("w"), Some(wid), Some(root)) => roots.push((wid, root, false)),
            (Some("f"), Some(wid), Some(_)) if fields.count() == 7 => {
                if let Some(r) = roots.iter_mut().rev().find(|r| r.0 == wid) {
                    r.2 = true;
                }
            }
            _ => {}
        }
    }
    let mut used: Vec<&str> = roots.iter().filter(|r| r.2).map(|r| r.1).collect();
    used.sort_unstable();
    used.dedup();
    Some((session?, commit, used))
}

/// A field of a [`View`], unescaped.
pub(super) fn owned(field: &str) -> String {
    unescape(field)
}

/// A file of a [`View`] as its worktree root and its path, unescaped.
pub(super) fn owned_file(view: &View<'_>, f: &FileView<'_>) -> (PathBuf, String) {
    (
        PathBuf::from(unescape(view.roots[f.root])),
        unescape(f.path),
    )
}

/// A log's text read in place: what [`decode`] makes of it, with every field borrowed as
/// written (escaped), so that reading a log allocates per worktree, not per file.
#[derive(Debug)]
pub(super) struct View<'t> {
    /// The session's id (escaped).
    pub(super) session: &'t str,
    /// Its host (escaped).
    pub(super) host: &'t str,
    /// The newest snapshot commit (escaped) and when it was made.
    pub(super) commit: Option<&'t str>,
    pub(super) at: u64,
    /// Each `w` line's root (escaped), in order; a file names its root by place here.
    pub(super) roots: Vec<&'t str>,
    /// The files watched, oldest first, each once (its last line), at most [`MAX_WATCHED`].
    pub(super) files: Vec<FileView<'t>>,
    /// How many lines the log has.
    pub(super) lines: usize,
}

/// One file of a [`View`].
#[derive(Debug)]
pub(super) struct FileView<'t> {
    /// Its worktree root, by place in [`View::roots`].
    pub(super) root: usize,
    /// Its path relative to the root (escaped).
    pub(super) path: &'t str,
    pub(super) stamp: Stamp,
    /// Its blob id and why it was skipped (escaped; `-` for none).
    blob: &'t str,
    skipped: &'t str,
}

impl FileView<'_> {
    /// This file, owned, in the worktree at `root`.
    fn watched(&self, root: PathBuf) -> Watched {
        let optional = |f: &str| (f != "-").then(|| unescape(f));
        Watched {
            worktree: root,
            path: unescape(self.path),
            stamp: self.stamp,
            skipped: optional(self.skipped),
            blob: optional(self.blob),
        }
    }
}

impl<'t> View<'t> {
    /// The view of a log's text; `None` without an `s` line. Lines that do not parse are left
    /// out (see the module's note).
    pub(super) fn of(text: &'t str) -> Option<View<'t>> {
        let mut view = View {
            session: "",
            host: "",
            commit: None,
            at: 0,
            roots: Vec::new(),
            files: Vec::new(),
            lines: 0,
        };
        let mut named = false;
        let mut root_of: FxMap<&str, usize> = FxMap::default();
        let mut last_root: Option<(&str, usize)> = None;
        // Room at once for as many files as a log of this length can hold (a file's line is
        // 100 bytes or more; room not written to costs no memory), without a pass to count
        // them; the map of where each file's line is, sized for the usual lines (those of a
        // file and its snapshot, 160 bytes or more), grows in the rare log that needs it.
        let mut files: Vec<FileView<'t>> = Vec::with_capacity(text.len() / 100 + 1);
        // Whether each of `files` is its file's last line so far.
        let mut last: Vec<bool> = Vec::with_capacity(text.len() / 100 + 1);
        let mut at: FxMap<(&str, &str), usize> =
            FxMap::with_capacity_and_hasher(text.len() / 160 + 1, BuildHasherDefault::default());
        // Only whole lines: a torn last line (a writer killed mid-append) is left out.
        let whole = text.rfind('\n').map_or("", |end| &text[..end]);
        // Lines found by `memchr` (a line is long), then read field by field.
        for line in whole.split('\n') {
            view.lines += 1;
            let mut fields = pieces(line, b'\t');
            match fields.next() {
                Some("s") => {
                    if let (Some(session), Some(host)) = (fields.next(), fields.next()) {
                        if !named || !host.is_empty() {
                            view.host = host;
                        }
                        view.session = session;
                        named = true;
                    }
                }
                Some("c") => {
                    if let (Some(commit), Some(when)) = (fields.next(), fields.next())
                        && let Ok(when) = when.parse()
                    {
                        view.commit = Some(commit);
                        view.at = when;
                    }
                }
                Some("w") => {
                    if let (Some(wid), Some(root)) = (fields.next(), fields.next()) {
                        root_of.insert(wid, view.roots.len());
                        last_root = None;
                        view.roots.push(root);
                    }
                }
                Some("f") => {
                    // A worktree's files follow one another: its id is looked up once for all.
                    let root = |wid: &'t str| match last_root {
                        Some((w, r)) if w == wid => Some(r),
                        _ => {
                            let r = *root_of.get(wid)?;
                            last_root = Some((wid, r));
                            Some(r)
                        }
                    };
                    let Some((key, f)) = fields.rest.and_then(|rest| file_of(rest, root)) else {
                        continue;
                    };
                    if let Some(old) = at.insert(key, files.len()) {
                        last[old] = false;
                    }
                    files.push(f);
                    last.push(true);
                }
                _ => {}
            }
        }
        if !named {
            return None;
        }
        // In place: no second copy of every file.
        let mut kept = last.into_iter();
        files.retain(|_| kept.next().unwrap_or(false));
        view.files = files;
        if view.files.len() > MAX_WATCHED {
            let extra = view.files.len() - MAX_WATCHED;
            view.files.drain(..extra);
        }
        Some(view)
    }
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
    // An escaped field holds no tab or newline, so the needle can only be a line's last field.
    for (at, _) in text.rmatch_indices(needle.as_str()) {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[start..at + needle.len() - 1];
        let mut fields = pieces(line, b'\t');
        if fields.next() != Some("f") {
            continue;
        }
        let found = fields
            .rest
            .and_then(|rest| file_of(rest, |w| (w == wid).then_some(0)));
        if let Some((_, f)) = found {
            return Some(f.watched(root.to_path_buf()));
        }
    }
    None
}

#[cfg(test)]
mod tests;

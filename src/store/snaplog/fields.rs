//! The fields of a snapshot state log's lines: split at tabs, and a file's line read in one
//! pass the way this program writes it (the general split-and-parse when it is not).

use super::FileView;
use crate::store::snapshots::Stamp;

/// The pieces of `text` between `sep` bytes (an ASCII separator, so every piece is a `str`): a
/// plain byte scan, cheaper than a pattern search over fields this short.
pub(super) struct Pieces<'t> {
    /// What is left after the pieces read so far.
    pub(super) rest: Option<&'t str>,
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

pub(super) fn pieces(text: &str, sep: u8) -> Pieces<'_> {
    Pieces {
        rest: Some(text),
        sep,
    }
}

/// A time in nanoseconds as written: read as an `i64` (every time from 1678 to 2262), which
/// costs a fraction of an `i128`'s parse, and as an `i128` only when it does not fit.
fn nanos(field: &str) -> Option<i128> {
    match field.parse::<i64>() {
        Ok(n) => Some(i128::from(n)),
        Err(_) => field.parse().ok(),
    }
}

/// The file of an `f` line, from the text after its `f` and tab, with its key: its worktree id
/// and its path as written. `root_of` tells the place of a worktree id's root.
pub(super) fn file_of<'t>(
    rest: &'t str,
    root_of: impl FnOnce(&'t str) -> Option<usize>,
) -> Option<((&'t str, &'t str), FileView<'t>)> {
    let (wid, stamp, blob, skipped, path) = quick_file(rest).or_else(|| general_file(rest))?;
    // (A lone `\` unescapes to nothing.)
    if path.is_empty() || path == "\\" {
        return None;
    }
    let root = root_of(wid)?;
    Some((
        (wid, path),
        FileView {
            root,
            path,
            stamp,
            blob,
            skipped,
        },
    ))
}

/// The fields of an `f` line after the `f`: worktree id, stat data, blob, why skipped, path.
pub(super) type FileFields<'t> = (&'t str, Stamp, &'t str, &'t str, &'t str);

/// An `f` line's fields read the general way: split at tabs, each number by `parse`.
pub(super) fn general_file(rest: &str) -> Option<FileFields<'_>> {
    let mut fields = pieces(rest, b'\t');
    let wid = fields.next()?;
    let stamp = Stamp {
        len: fields.next()?.parse().ok()?,
        mtime: nanos(fields.next()?)?,
        ctime: nanos(fields.next()?)?,
        ino: fields.next()?.parse().ok()?,
        mode: fields.next()?.parse().ok()?,
    };
    let blob = fields.next()?;
    let skipped = fields.next()?;
    let path = fields.next()?;
    if fields.next().is_some() {
        return None;
    }
    Some((wid, stamp, blob, skipped, path))
}

/// An `f` line's fields as this program writes them, read in one pass (each number as its
/// digits are split off): a log's lines are nearly all files', and splitting then parsing
/// them cost most of a read. `None` for anything else: [`general_file`] then reads the line.
pub(super) fn quick_file(rest: &str) -> Option<FileFields<'_>> {
    let bytes = rest.as_bytes();
    let mut at = 0;
    let wid = field_at(rest, &mut at)?;
    let stamp = Stamp {
        len: digits_at(bytes, &mut at)?,
        mtime: signed_at(bytes, &mut at)?,
        ctime: signed_at(bytes, &mut at)?,
        ino: digits_at(bytes, &mut at)?,
        mode: u32::try_from(digits_at(bytes, &mut at)?).ok()?,
    };
    let blob = field_at(rest, &mut at)?;
    let skipped = field_at(rest, &mut at)?;
    let path = &rest[at..];
    if path.contains('\t') {
        return None;
    }
    Some((wid, stamp, blob, skipped, path))
}

/// The field of `text` from `*at` to the next tab; `*at` moves past the tab.
fn field_at<'t>(text: &'t str, at: &mut usize) -> Option<&'t str> {
    let start = *at;
    let len = tab_in(&text.as_bytes()[start..])?;
    *at = start + len + 1;
    Some(&text[start..start + len])
}

/// Where the first tab of `bytes` is: eight bytes at a step (a blob's id is 40 of them).
pub(super) fn tab_in(bytes: &[u8]) -> Option<usize> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const TABS: u64 = 0x0909_0909_0909_0909;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ TABS;
        // The high bit of each byte that was a tab (exact: no carry crosses a byte).
        let tabs = !(((x & LOW7) + LOW7) | x | LOW7);
        if tabs != 0 {
            return Some(at + tabs.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\t')
        .map(|i| at + i)
}

/// The number of 1 to 19 decimal digits (no sign) in `text` from `*at` to the next tab;
/// `*at` moves past the tab.
fn digits_at(text: &[u8], at: &mut usize) -> Option<u64> {
    let mut n = 0u64;
    for (i, &b) in text[*at..].iter().enumerate() {
        if b == b'\t' {
            if i == 0 || i > 19 {
                return None;
            }
            *at += i + 1;
            return Some(n);
        }
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n.wrapping_mul(10).wrapping_add(u64::from(digit));
    }
    None
}

/// [`digits_at`] after an optional `-`, as an `i64`'s worth of nanoseconds.
fn signed_at(text: &[u8], at: &mut usize) -> Option<i128> {
    let negative = text.get(*at) == Some(&b'-');
    let mut from = *at + usize::from(negative);
    let n = i128::from(i64::try_from(digits_at(text, &mut from)?).ok()?);
    *at = from;
    Some(if negative { -n } else { n })
}

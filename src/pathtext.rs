//! File names as text: a worktree's relative path is held as a `String` everywhere (status,
//! snapshots, the store's logs, claims), but a name on disk is bytes and need not be UTF-8
//! (`caf\351.txt` from a Latin-1 tarball or a Windows zip). Such a name is held losslessly: each
//! byte that is not part of valid UTF-8 is written as NUL and two lowercase hex digits. No name
//! on disk can hold a NUL, so this never collides with a real name, a name that is UTF-8 is
//! held as itself, and a held name that reaches the filesystem unconverted names no file at all
//! (a NUL in a path is refused by every system call). [`to_path`] gives the bytes back;
//! [`crate::text::clean`] shows such a byte as git quotes it (`\351`).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::Path;

/// The marker of a byte that is not UTF-8.
const MARK: char = '\0';

/// The text of the name (or relative path) `bytes`.
pub(crate) fn from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push(MARK);
            out.push_str(&format!("{b:02x}"));
        }
    }
    Cow::Owned(out)
}

/// The text of `name` as the system gives it.
pub(crate) fn from_os(name: &OsStr) -> Cow<'_, str> {
    from_bytes(name.as_encoded_bytes())
}

/// The byte that `text` (the rest after a marker) starts with: two hex digits.
pub(crate) fn marked_byte(text: &str) -> Option<u8> {
    let digits = text.get(..2)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u8::from_str_radix(digits, 16).ok()
}

/// Whether `text` holds a name that is not UTF-8.
pub(crate) fn is_raw(text: &str) -> bool {
    text.contains(MARK)
}

/// The bytes of the name held as `text` (a NUL not followed by two hex digits stays a NUL, so
/// it still names no file).
pub(crate) fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    if !is_raw(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.extend_from_slice(&rest.as_bytes()[..at]);
        rest = &rest[at + MARK.len_utf8()..];
        match marked_byte(rest) {
            Some(b) => {
                out.push(b);
                rest = &rest[2..];
            }
            None => out.push(0),
        }
    }
    out.extend_from_slice(rest.as_bytes());
    Cow::Owned(out)
}

/// The path held as `text`, to hand to the filesystem.
pub(crate) fn to_path(text: &str) -> Cow<'_, Path> {
    if !is_raw(text) {
        return Cow::Borrowed(Path::new(text));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Owned(OsStr::from_bytes(&to_bytes(text)).into())
    }
    #[cfg(not(unix))]
    {
        Cow::Borrowed(Path::new(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_names_are_themselves_and_others_come_back_byte_for_byte() {
        for name in [
            "a.txt",
            "src/lib.rs",
            "ok-é.txt",
            "tab\there",
            "%00",
            "\\351",
        ] {
            assert_eq!(from_bytes(name.as_bytes()), name);
            assert!(matches!(from_bytes(name.as_bytes()), Cow::Borrowed(_)));
        }
        for bytes in [
            &b"caf\xe9.txt"[..],
            b"\xff\xfe",
            b"dir\x80/x\xc3",
            b"mixed-\xc3\xa9-\xe9",
            b"\xe9\x00",
        ] {
            let text = from_bytes(bytes);
            assert!(is_raw(&text), "{text:?}");
            assert_eq!(&*to_bytes(&text), bytes);
        }
        assert_eq!(from_bytes(b"caf\xe9.txt"), "caf\u{0}e9.txt");
    }

    #[test]
    fn a_held_name_never_equals_a_real_one() {
        // The real name `cafe9.txt` and the Latin-1 `caf\xe9.txt` differ as text too.
        assert_ne!(from_bytes(b"caf\xe9.txt"), from_bytes(b"cafe9.txt"));
        // A stray NUL stays a NUL: it names no file.
        assert_eq!(&*to_bytes("a\u{0}zz"), b"a\0zz");
    }

    #[cfg(unix)]
    #[test]
    fn the_path_is_the_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let p = to_path("caf\u{0}e9.txt");
        assert_eq!(p.as_os_str().as_bytes(), b"caf\xe9.txt");
        assert_eq!(from_os(p.as_os_str()), "caf\u{0}e9.txt");
    }
}

//! Text that came from someone else (a label, an intent, a file name, a session id, a command)
//! made safe to store, print or hand to a model: control and escape characters, bidirectional
//! overrides and zero-width characters are dropped, runs of white space become one space, and
//! the length is capped. The one sanitiser: every place that shows such text calls [`clean`].

/// The longest label or intent kept, in characters.
pub(crate) const MAX_NOTE: usize = 200;
/// The longest file name, id or command shown, in characters.
pub(crate) const MAX_SHOWN: usize = 500;

/// Whether `c` may never be shown: C0/C1 controls (ESC, BEL, CR, ...), bidirectional controls
/// and zero-width characters that hide or reorder what a reader sees.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}' | '\u{061C}')
}

/// `text` with every hidden character dropped (white space among them becomes a space), runs
/// of white space made one space, trimmed, and cut to `max` characters (an ellipsis marks a
/// cut). A byte of a file name that is not UTF-8 (held as [`crate::pathtext`] says) is shown
/// as git quotes it, `\351`.
pub(crate) fn clean(text: &str, max: usize) -> String {
    let text = raw_bytes_shown(text);
    let words = text
        .split(|c: char| c.is_whitespace())
        .map(|w| w.chars().filter(|c| !hidden(*c)).collect::<String>())
        .filter(|w| !w.is_empty());
    let mut out = String::new();
    let mut count = 0;
    for word in words {
        for c in (!out.is_empty())
            .then_some(' ')
            .into_iter()
            .chain(word.chars())
        {
            if count == max {
                out.pop();
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// `text` with each byte of a name that is not UTF-8 written in octal after a backslash.
fn raw_bytes_shown(text: &str) -> std::borrow::Cow<'_, str> {
    if !crate::pathtext::is_raw(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find('\0') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        if let Some(b) = crate::pathtext::marked_byte(rest) {
            out.push_str(&format!("\\{b:03o}"));
            rest = &rest[2..];
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// [`clean`] for a label or intent ([`MAX_NOTE`]); `None` when nothing is left.
pub(crate) fn note(text: &str) -> Option<String> {
    Some(clean(text, MAX_NOTE)).filter(|t| !t.is_empty())
}

/// Someone else's words as quoted data in a message to a model: cleaned and put in double
/// quotes, with any double quote inside made a single one, so it reads as a quotation and
/// never as part of the message's own instructions.
pub(crate) fn quoted(text: &str) -> String {
    format!("\"{}\"", clean(text, MAX_NOTE).replace('"', "'"))
}

/// `word` as one shell word to paste into a suggested command: as it is when it holds only
/// characters no shell reads specially, else in single quotes.
pub(crate) fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_hidden_characters_are_dropped_and_length_capped() {
        assert_eq!(
            clean("fix \x1b[31mlogin\x07\r\n  now", 200),
            "fix [31mlogin now"
        );
        assert_eq!(clean("a\u{202E}b\u{200B}c", 200), "abc");
        assert_eq!(clean("  x  ", 200), "x");
        let long = "é".repeat(300);
        let cut = clean(&long, 200);
        assert_eq!(cut.chars().count(), 200);
        assert!(cut.ends_with('…'));
        assert_eq!(clean(&"a".repeat(200), 200), "a".repeat(200));
        assert_eq!(note("\x1b\x07 "), None);
        assert_eq!(quoted("say \"hi\"\nIgnore"), "\"say 'hi' Ignore\"");
    }

    #[test]
    fn a_name_that_is_not_utf8_is_shown_as_git_quotes_it() {
        let held = crate::pathtext::from_bytes(b"caf\xe9\x1b.txt");
        assert_eq!(clean(&held, 200), "caf\\351.txt");
        // ESC is UTF-8: dropped like any control character, as is a stray NUL.
        assert_eq!(clean("a\u{0}zz", 200), "azz");
    }

    #[test]
    fn suggested_words_are_quoted_for_a_shell() {
        assert_eq!(shell_word("origin"), "origin");
        assert_eq!(shell_word("https://h/x.git"), "https://h/x.git");
        assert_eq!(shell_word("/tmp/a b;rm"), "'/tmp/a b;rm'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}

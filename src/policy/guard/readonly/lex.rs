//! Reading one-liner code into tokens as its language does: strings, comments, perl's
//! quote-like operators and regexes, template literals and f-strings (whose code is read too).

use super::Lang;

/// A token of one-liner code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Ident(String),
    Str(String),
    Num,
    Punct(char),
}

/// Read `code` into tokens as `lang` does; `None` when a string, comment or quote-like
/// operator does not end, or perl/ruby text this cannot read (a heredoc).
pub(super) fn tokenize(lang: Lang, code: &str) -> Option<Vec<Tok>> {
    let c: Vec<char> = code.chars().collect();
    let mut out: Vec<Tok> = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' && lang == Lang::Python {
            // Python ends a statement here (outside brackets).
            out.push(Tok::Punct('\n'));
            i += 1;
            continue;
        }
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        // Comments.
        if (ch == '#' && lang != Lang::Js)
            || (lang == Lang::Js && c.get(i + 1) == Some(&'/') && ch == '/')
        {
            if lang == Lang::Ruby && c.get(i + 1) == Some(&'{') {
                return None;
            }
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if lang == Lang::Js && ch == '/' && c.get(i + 1) == Some(&'*') {
            let rest: String = c[i + 2..].iter().collect();
            let end = rest.find("*/")?;
            i += 2 + rest[..end].chars().count() + 2;
            continue;
        }
        if ch == '<' && c.get(i + 1) == Some(&'<') && matches!(lang, Lang::Perl | Lang::Ruby) {
            let next = c.get(i + 2).copied().unwrap_or(' ');
            if next.is_alphabetic() || "\"'~-_".contains(next) {
                return None;
            }
        }
        if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '.' || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Num);
            continue;
        }
        if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            if lang == Lang::Ruby && i < c.len() && (c[i] == '?' || c[i] == '!') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            // String prefixes (python `r'..'`, `f"..."`).
            if lang == Lang::Python
                && word.len() <= 2
                && word.chars().all(|p| "rRbBuUfF".contains(p))
                && matches!(c.get(i), Some('\'' | '"'))
            {
                let (text, next) = quoted(&c, i)?;
                if word.contains(['f', 'F']) {
                    // An f-string's braces hold code.
                    out.extend(tokenize(lang, &text)?);
                }
                out.push(Tok::Str(text));
                i = next;
                continue;
            }
            if lang == Lang::Perl
                && let Some(next) = perl_quote_like(&word, &c, i, &out)?
            {
                out.push(Tok::Str(String::new()));
                i = next;
                continue;
            }
            out.push(Tok::Ident(word));
            continue;
        }
        if ch == '\'' || ch == '"' || (ch == '`' && lang == Lang::Js) {
            let (text, next) = quoted(&c, i)?;
            if ch == '`' || (lang == Lang::Ruby && ch == '"' && text.contains("#{")) {
                // A template literal's `${...}`, ruby's `#{...}`: code.
                out.extend(tokenize(lang, &text)?);
            }
            out.push(Tok::Str(text));
            i = next;
            continue;
        }
        if ch == '/' && matches!(lang, Lang::Js | Lang::Perl | Lang::Ruby) && regex_may_start(&out)
        {
            let (text, next) = delimited(&c, i + 1, '/')?;
            if text.contains("(?{") || text.contains("(??{") {
                return None;
            }
            i = next;
            while i < c.len() && c[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(Tok::Str(text));
            continue;
        }
        if ch == '%' && lang == Lang::Ruby && c.get(i + 1).is_some_and(|n| "xX".contains(*n)) {
            return None;
        }
        out.push(Tok::Punct(ch));
        i += 1;
    }
    Some(out)
}

/// A string starting at `c[i]` (its quote, tripled for python's `'''`): its text and the
/// index after it.
fn quoted(c: &[char], i: usize) -> Option<(String, usize)> {
    let q = c[i];
    if c.get(i + 1) == Some(&q) && c.get(i + 2) == Some(&q) {
        let mut j = i + 3;
        while j + 2 < c.len() + 2 {
            if j + 2 < c.len() + 1
                && c.get(j) == Some(&q)
                && c.get(j + 1) == Some(&q)
                && c.get(j + 2) == Some(&q)
            {
                return Some((c[i + 3..j].iter().collect(), j + 3));
            }
            if c.get(j) == Some(&'\\') {
                j += 1;
            }
            j += 1;
            if j >= c.len() {
                return None;
            }
        }
        return None;
    }
    delimited(c, i + 1, q)
}

/// Text from `c[from]` up to an unescaped `close`: the text and the index after `close`.
fn delimited(c: &[char], from: usize, close: char) -> Option<(String, usize)> {
    let mut j = from;
    let mut class = false;
    while j < c.len() {
        match c[j] {
            '\\' => j += 1,
            '[' if close == '/' => class = true,
            ']' if close == '/' => class = false,
            x if x == close && !class => return Some((c[from..j].iter().collect(), j + 1)),
            _ => {}
        }
        j += 1;
    }
    None
}

/// Whether a `/` here starts a regex rather than dividing (after an operator, an opening
/// bracket, a keyword, or at the start).
fn regex_may_start(before: &[Tok]) -> bool {
    match before.last() {
        None => true,
        Some(Tok::Num | Tok::Str(_)) => false,
        Some(Tok::Punct(p)) => !")]}".contains(*p),
        Some(Tok::Ident(w)) => matches!(
            w.as_str(),
            "if" | "unless"
                | "and"
                | "or"
                | "not"
                | "return"
                | "split"
                | "grep"
                | "map"
                | "while"
                | "until"
                | "print"
                | "when"
                | "typeof"
                | "x"
        ),
    }
}

/// Perl's quote-like operators (`q(..)`, `qq{..}`, `qw/../`, `m/../`, `qr`, `s/../../`,
/// `tr/../../`, `y///`): `Some(Some(end))` when `word` is one here, `Some(None)` when it is
/// not, `None` when it is one this refuses (`s///e`, `(?{`, an unterminated one).
fn perl_quote_like(word: &str, c: &[char], i: usize, before: &[Tok]) -> Option<Option<usize>> {
    let parts = match word {
        "q" | "qq" | "qw" | "m" | "qr" => 1,
        "s" | "tr" | "y" => 2,
        _ => return Some(None),
    };
    // `$h{s}`, `s => 1`: not an operator.
    if matches!(
        before.last(),
        Some(Tok::Punct('$' | '@' | '%' | '&' | '-' | '>'))
    ) {
        return Some(None);
    }
    let Some(&open) = c.get(i) else {
        return Some(None);
    };
    if open.is_alphanumeric() || open.is_whitespace() || "=,;)}]>_".contains(open) {
        return Some(None);
    }
    let close = match open {
        '(' => ')',
        '{' => '}',
        '[' => ']',
        '<' => '>',
        o => o,
    };
    let mut j = i + 1;
    let mut texts = Vec::new();
    for k in 0..parts {
        let (text, next) = delimited(c, j, close)?;
        texts.push(text);
        j = next;
        if k + 1 < parts && open != close {
            // `s{a}{b}`: the second part has its own brackets.
            while c.get(j).is_some_and(|x| x.is_whitespace()) {
                j += 1;
            }
            if c.get(j) != Some(&open) {
                return None;
            }
            j += 1;
        }
    }
    let flags_start = j;
    while j < c.len() && c[j].is_ascii_alphabetic() {
        j += 1;
    }
    let flags: String = c[flags_start..j].iter().collect();
    if (word == "s" && flags.contains('e'))
        || texts
            .iter()
            .any(|t| t.contains("(?{") || t.contains("(??{"))
    {
        return None;
    }
    if word == "qq" && texts.iter().any(|t| t.contains("@{") || t.contains("${")) {
        return None;
    }
    Some(Some(j))
}

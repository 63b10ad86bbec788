//! Ex command syntax as vim reads it: modifiers (`silent!`, `keepalt`), ranges (`%`, `1,$`,
//! `/pat/`), abbreviations, splitting at `|` (with the commands that take it as their
//! argument, and `g/pat/CMD`), script lines, and the shell text a command runs.

/// Most Ex commands looked at for one editor.
const MAX_COMMANDS: usize = 4096;

/// Ex command modifiers, stripped before the command itself.
const MODIFIERS: &[(&str, usize)] = &[
    ("silent", 3),
    ("unsilent", 3),
    ("noautocmd", 3),
    ("keepalt", 5),
    ("keepjumps", 5),
    ("keeppatterns", 5),
    ("keepmarks", 3),
    ("lockmarks", 3),
    ("noswapfile", 3),
    ("vertical", 4),
    ("topleft", 2),
    ("botright", 2),
    ("aboveleft", 3),
    ("belowright", 3),
    ("tab", 3),
    ("hide", 3),
    ("confirm", 4),
    ("browse", 3),
    ("verbose", 4),
    ("sandbox", 3),
];

/// Whether `word` is `full` or an abbreviation of it at least `min` letters long.
pub(super) fn abbrev(word: &str, full: &str, min: usize) -> bool {
    word.len() >= min && full.starts_with(word)
}

pub(super) fn is_any(word: &str, table: &[(&str, usize)]) -> bool {
    table.iter().any(|(full, min)| abbrev(word, full, *min))
}

/// `s` without its leading range (`%`, `1,$`, `.`, `'a`, `/pat/`, `?pat?`).
fn skip_range(s: &str) -> &str {
    let mut rest = s;
    loop {
        let t = rest.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '%' | ',' | ';' | '.' | '$' | '+' | '-' | ' ')
        });
        if let Some(m) = t.strip_prefix('\'') {
            rest = m.get(1..).unwrap_or("");
        } else if let Some(d) = t.chars().next().filter(|c| matches!(c, '/' | '?')) {
            rest = after_pattern(&t[1..], d);
        } else if let Some(m) = t
            .strip_prefix('\\')
            .filter(|m| m.starts_with(['/', '?', '&']))
        {
            rest = &m[1..];
        } else {
            return t;
        }
    }
}

/// What follows a pattern ended by `delim` (backslash escapes it).
fn after_pattern(s: &str, delim: char) -> &str {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == delim {
            return &s[i + c.len_utf8()..];
        }
    }
    ""
}

/// One Ex command: its name, `!` and argument, after modifiers and range.
pub(super) struct Cmd<'a> {
    /// The text from the command name on.
    pub(super) text: &'a str,
    pub(super) name: &'a str,
    pub(super) bang: bool,
    /// Whether blanks stood between the name and a `!` (`w !cmd`, not `w!`).
    pub(super) spaced_bang: bool,
    pub(super) arg: &'a str,
}

pub(super) fn parse_cmd(raw: &str) -> Cmd<'_> {
    let mut s = raw.trim_start_matches([' ', '\t', ':']);
    loop {
        let s2 = skip_range(s);
        let end = s2
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(s2.len());
        let word = &s2[..end];
        if !word.is_empty() && is_any(word, MODIFIERS) {
            s = s2[end..]
                .trim_start_matches('!')
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
            continue;
        }
        let after = &s2[end..];
        let bang = after.starts_with('!');
        let spaced_bang = !bang && after.trim_start().starts_with('!');
        let arg = if bang { &after[1..] } else { after };
        return Cmd {
            text: s2,
            name: word,
            bang,
            spaced_bang,
            arg: arg.trim_start(),
        };
    }
}

/// Commands that take the rest of the line, `|` included, as their argument.
const WHOLE_LINE: &[(&str, usize)] = &[
    ("normal", 4),
    ("argdo", 5),
    ("bufdo", 5),
    ("windo", 5),
    ("tabdo", 5),
    ("cdo", 3),
    ("cfdo", 4),
    ("ldo", 3),
    ("lfdo", 4),
    ("autocmd", 2),
    ("command", 3),
];

/// Commands whose argument is an expression, where `|` inside quotes does not split.
const EXPRESSIONS: &[(&str, usize)] = &[
    ("call", 3),
    ("let", 3),
    ("echo", 2),
    ("execute", 3),
    ("if", 2),
    ("return", 3),
    ("eval", 3),
];

/// The text a `:command [-opts] NAME TEXT` defines, run when NAME is.
fn command_body(arg: &str) -> Option<&str> {
    let mut rest = arg.trim_start();
    while rest.starts_with('-') {
        rest = rest.split_once(' ')?.1.trim_start();
    }
    Some(rest.split_once(' ')?.1)
}

/// Split an Ex line at `|` as vim does, into single commands; `g/pat/CMD` gives CMD's.
pub(super) fn split(line: &str, out: &mut Vec<String>, depth: usize) {
    if out.len() >= MAX_COMMANDS || depth > 4 {
        return;
    }
    let c = parse_cmd(line);
    let read = matches!(c.name, "r" | "re" | "rea" | "read") && (c.bang || c.spaced_bang);
    if c.text.starts_with('!') || read {
        out.push(line.to_owned());
        return;
    }
    if (abbrev(c.name, "write", 1) || c.name == "wq") && c.spaced_bang {
        out.push(line.to_owned());
        return;
    }
    if abbrev(c.name, "global", 1) || abbrev(c.name, "vglobal", 1) {
        let mut chars = c.arg.chars();
        if let Some(d) = chars.next() {
            let body = after_pattern(chars.as_str(), d);
            out.push(line.to_owned());
            split(
                if body.trim().is_empty() { "p" } else { body },
                out,
                depth + 1,
            );
            return;
        }
    }
    if is_any(c.name, WHOLE_LINE) {
        out.push(line.to_owned());
        let body = match c.name {
            n if abbrev(n, "autocmd", 2) => c.arg.splitn(3, ' ').nth(2),
            n if abbrev(n, "command", 3) => command_body(c.arg),
            n if abbrev(n, "normal", 4) => None,
            _ => Some(c.arg),
        };
        if let Some(b) = body.filter(|b| !b.trim().is_empty()) {
            split(b, out, depth + 1);
        }
        return;
    }
    let quoted = is_any(c.name, EXPRESSIONS);
    let (mut quote, mut escaped) = (None, false);
    for (i, ch) in line.char_indices() {
        match (quote, ch) {
            _ if escaped => escaped = false,
            (_, '\\') => escaped = true,
            (Some(q), _) if ch == q => quote = None,
            (None, '\'' | '"') if quoted => quote = Some(ch),
            (None, '|') => {
                out.push(line[..i].to_owned());
                return split(&line[i + 1..], out, depth);
            }
            _ => {}
        }
    }
    out.push(line.to_owned());
}

/// The commands of a script file or of keystrokes: one per line (`"` comments and blank lines
/// skipped, `\` continuation lines joined), `:` stripped.
pub(super) fn script_commands(text: &str, out: &mut Vec<String>) {
    let mut lines: Vec<String> = Vec::new();
    for l in text.split(['\n', '\r']) {
        let t = l.trim_start();
        match (t.strip_prefix('\\'), lines.last_mut()) {
            (Some(more), Some(last)) => last.push_str(more),
            _ => lines.push(t.to_owned()),
        }
    }
    for l in lines {
        let l = l.trim_start_matches([':', ' ', '\t']);
        if !l.is_empty() && !l.starts_with('"') {
            split(l, out, 0);
        }
    }
}

/// The shell text of one Ex command: `!CMD`, `RANGE!CMD`, `r !CMD`, `w !CMD`, `make ARGS`.
pub(in crate::shell) fn shell_of(command: &str) -> Option<String> {
    let c = parse_cmd(command);
    if let Some(text) = c.text.strip_prefix('!') {
        return Some(text.to_owned());
    }
    let read = matches!(c.name, "r" | "re" | "rea" | "read") && (c.bang || c.spaced_bang);
    let write = (abbrev(c.name, "write", 1) || c.name == "wq") && c.spaced_bang;
    if read || write {
        return Some(c.arg.trim_start_matches('!').to_owned());
    }
    if abbrev(c.name, "make", 3) {
        return Some(format!("make {}", c.arg));
    }
    None
}

//! Handler command lines: how git-dibs's hook command is written (shell-quoted), recognised
//! (any path to the binary, `git dibs hook`) and split into words for the exec form.

use std::path::Path;

use super::PROGRAM;
pub(super) use crate::shell::quote_word;

/// The command line for a handler that runs `program` (a bare name or a path), shell-quoted.
pub(crate) fn hook_command(program: &str) -> String {
    format!("{} hook", quote_word(program))
}

/// Whether a handler's command string runs git-dibs's hook: `git-dibs hook`, `/any/path/git-dibs
/// hook` (quoted or not) or `git dibs hook`, with or without more arguments.
pub(crate) fn is_our_command(command: &str) -> bool {
    let words = words(command, 3);
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["git", "dibs", "hook", ..] => true,
        [program, "hook", ..] => is_our_program(program),
        _ => false,
    }
}

/// The program a command line runs: its first shell word, unquoted.
pub(crate) fn program_of(command: &str) -> Option<String> {
    words(command, 1).into_iter().next()
}

/// Whether `word` names the git-dibs executable (by file name, any folder).
pub(super) fn is_our_program(word: &str) -> bool {
    Path::new(word)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == PROGRAM || n == "git-dibs.exe")
}

/// The first `n` shell words of `command`, with quotes and backslashes taken off.
pub(super) fn words(command: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                    if out.len() == n {
                        return out;
                    }
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

//! The files a sed script writes besides its input (red team 8b/17): the `w FILE` and `W FILE`
//! commands and the `w FILE` flag of `s`, each file name running to the end of its line. sed
//! truncates each such file when it starts, so each counts as written, as `> FILE` does.

/// The files the scripts of `sed ARGS` write with `w`/`W` (`/dev/stdout` and `/dev/stderr`
/// left out).
pub(crate) fn written(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for script in super::guard::sed::scripts(args) {
        for line in script.lines() {
            out.extend(in_line(line));
        }
    }
    out.retain(|f| !f.is_empty() && f != "/dev/stdout" && f != "/dev/stderr");
    out
}

/// Skip an address (`3`, `$`, `/re/`, `\%re%`, `1,5`, `0~2`, `+3`, `!`) at `s[i..]`.
fn skip_address(s: &[char], mut i: usize) -> usize {
    while i < s.len() {
        match s[i] {
            c if c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '+' | '!' | ' ' | '\t') => {
                i += 1;
            }
            '/' | '\\' => {
                let delim = if s[i] == '\\' {
                    i += 1;
                    match s.get(i) {
                        Some(c) => *c,
                        None => return i,
                    }
                } else {
                    '/'
                };
                i = skip_delimited(s, i + 1, delim);
                // `I` and `M` modifiers after a regex address.
                while i < s.len() && matches!(s[i], 'I' | 'M') {
                    i += 1;
                }
            }
            _ => return i,
        }
    }
    i
}

/// The index after the closing `delim` of a part starting at `s[i..]` (`\` escapes).
fn skip_delimited(s: &[char], mut i: usize, delim: char) -> usize {
    while i < s.len() {
        if s[i] == '\\' {
            i += 2;
            continue;
        }
        if s[i] == delim {
            return i + 1;
        }
        i += 1;
    }
    i
}

/// The `w`/`W` files of one line of a sed script.
fn in_line(line: &str) -> Vec<String> {
    let s: Vec<char> = line.chars().collect();
    let rest = |i: usize| s[i.min(s.len())..].iter().collect::<String>();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        while i < s.len() && matches!(s[i], ' ' | '\t' | ';' | '{' | '}') {
            i += 1;
        }
        i = skip_address(&s, i);
        while i < s.len() && matches!(s[i], '{' | ' ' | '\t') {
            i += 1;
        }
        let Some(&cmd) = s.get(i) else { break };
        i += 1;
        match cmd {
            'w' | 'W' => {
                out.push(rest(i).trim_start().to_owned());
                break;
            }
            // Commands whose argument runs to the end of the line.
            'r' | 'R' | 'a' | 'i' | 'c' | ':' | 'e' | '#' => break,
            // A label or a number up to `;`.
            'b' | 't' | 'T' | 'q' | 'Q' | 'l' | 'L' => {
                while i < s.len() && s[i] != ';' && s[i] != '}' {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&delim) = s.get(i) else { break };
                i = skip_delimited(&s, i + 1, delim);
                i = skip_delimited(&s, i, delim);
                if cmd == 'y' {
                    continue;
                }
                // Flags: `w FILE` ends the line.
                while i < s.len() && !matches!(s[i], ';' | '}' | ' ' | '\t') {
                    if s[i] == 'w' {
                        out.push(rest(i + 1).trim_start().to_owned());
                        return out;
                    }
                    if s[i] == 'e' {
                        break;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::written;

    fn w(line: &[&str]) -> Vec<String> {
        let args: Vec<String> = line.iter().map(|s| (*s).to_owned()).collect();
        written(&args)
    }

    #[test]
    fn sed_w_files_are_found() {
        assert_eq!(w(&["-n", "w notes.txt", "mine.rs"]), ["notes.txt"]);
        assert_eq!(w(&["-i", "1w src/lib.rs", "mine.rs"]), ["src/lib.rs"]);
        assert_eq!(w(&["-n", "1W notes.txt", "mine.rs"]), ["notes.txt"]);
        assert_eq!(w(&["s/x/y/w notes.txt", "mine.rs"]), ["notes.txt"]);
        assert_eq!(w(&["s/x/y/gpw notes.txt", "mine.rs"]), ["notes.txt"]);
        assert_eq!(w(&["-e", "/a/,/b/w out; x", "f"]), ["out; x"]);
        assert_eq!(w(&["-e", "p", "-e", "$w a.txt", "f"]), ["a.txt"]);
        assert_eq!(w(&["/re/{w a.txt\n}", "f"]), ["a.txt"]);
        assert_eq!(w(&["\\%w%w b.txt", "f"]), ["b.txt"]);
        assert!(w(&["s/w/x/g", "f"]).is_empty());
        assert!(w(&["-n", "/w/p", "f"]).is_empty());
        assert!(w(&["y/w/x/", "f"]).is_empty());
        assert!(w(&["s/a/b/w /dev/stdout", "f"]).is_empty());
    }
}

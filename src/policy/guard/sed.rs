//! sed's scripts, looked into for its `e` command (and the `e` flag of `s`), which runs text as
//! shell commands.

/// The scripts of a sed command line: `-e SCRIPT`, `--expression=SCRIPT`, else its first operand.
pub(crate) fn scripts(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut explicit = false;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-e" || a == "--expression" {
            if let Some(s) = args.get(i + 1) {
                out.push(s.clone());
            }
            explicit = true;
            i += 2;
            continue;
        }
        if let Some(s) = a.strip_prefix("--expression=") {
            out.push(s.to_owned());
            explicit = true;
        } else if !a.starts_with('-') && !explicit {
            out.push(a.to_owned());
            break;
        }
        i += 1;
    }
    out
}

/// Whether a sed script uses the `e` command or the `e` flag of `s`.
pub(super) fn executes(script: &str) -> bool {
    script.split([';', '\n']).any(|cmd| {
        let c = cmd.trim_start().trim_start_matches(|c: char| {
            c.is_ascii_digit() || c == ',' || c == '$' || c == '/' || c == '!'
        });
        if c == "e" || c.starts_with("e ") {
            return true;
        }
        // s/a/b/FLAGS with an `e` among the flags.
        if let Some(rest) = c.strip_prefix('s')
            && let Some(delim) = rest.chars().next()
        {
            let parts: Vec<&str> = rest[delim.len_utf8()..].split(delim).collect();
            if parts.len() >= 3 {
                return parts[2]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .any(|c| c == 'e');
            }
        }
        false
    })
}

//! Programs that run shell text given to them as their own commands (red team 8b): `watch
//! 'CMD'` (its words joined, run by `sh -c`; `-x` runs them as they are), tmux's commands
//! (`new-session`, `new-window`, `split-window`, `respawn-pane`, `display-popup`, `run-shell`,
//! `if-shell`, `pipe-pane`, `send-keys` typing into a shell, `tmux -c`), gdb's and lldb's
//! `-ex 'shell CMD'` / `'!CMD'` / `'pipe ... | CMD'` / `'python CODE'` (read as `python3 -c`),
//! and ed's `!CMD` (also `r !CMD`, `w !CMD`, `e !CMD`) on its standard input. The literal text
//! is read as shell text ([`texts`]); input that cannot be read is named by [`opaque`] for the
//! guard to judge by what is in reach.

use super::Input;
use super::ex::Reader;
use super::expand::Arg;
use super::wrappers::basename;

/// The shell text `argv` runs, as written (nothing added when it runs).
pub(super) fn texts(argv: &[Arg], stdin: &Input, read: Reader<'_>) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let rest: Vec<&str> = argv[1..].iter().map(|a| a.text.as_str()).collect();
    match basename(&first.text) {
        "watch" => watch(&rest).into_iter().collect(),
        "tmux" => tmux(&rest),
        "gdb" | "cgdb" | "rust-gdb" | "gdb-multiarch" => debugger(&rest, false),
        "lldb" | "rust-lldb" => debugger(&rest, true),
        "ed" => match ed_input(stdin, read) {
            Some(text) => ed(&text),
            None => Vec::new(),
        },
        _ => super::small_tools::texts(argv, stdin, read),
    }
}

/// Why `argv`'s commands cannot all be read, as the start of "... delete files or run git":
/// ed reading commands from input the guard cannot read.
pub(crate) fn opaque(argv: &[String], stdin: &Input, read: Reader<'_>) -> Option<String> {
    let name = basename(argv.first()?);
    // `red` refuses `!`.
    if name != "ed" {
        return super::small_tools::opaque(argv, stdin);
    }
    let unread = match stdin {
        Input::Unknown => true,
        Input::File(p) => {
            !matches!(read(p), Some(Some(_))) && p != std::path::Path::new("/dev/null")
        }
        _ => false,
    };
    unread
        .then(|| format!("`{name}` runs the commands of an input git-dibs cannot read, which may"))
}

/// ed's standard input, when it is known.
fn ed_input(stdin: &Input, read: Reader<'_>) -> Option<String> {
    match stdin {
        Input::Text(t) => Some(t.clone()),
        Input::File(p) => read(p).flatten(),
        _ => None,
    }
}

/// ed's commands that run shell text: `!CMD`, and `r`/`w`/`e`/`W` with `!CMD` (an address may
/// come first).
fn ed(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches(|c: char| c.is_ascii_digit() || ",.$;+-' ".contains(c));
            let l = l
                .strip_prefix(['r', 'w', 'e', 'E', 'W'])
                .map(str::trim_start)
                .filter(|r| r.starts_with('!'))
                .unwrap_or(l);
            l.strip_prefix('!').map(str::to_owned)
        })
        .collect()
}

/// `watch [OPTIONS] CMD...`: the words joined with blanks are run by `sh -c`; with `-x`
/// (`--exec`) they are the command itself.
fn watch(rest: &[&str]) -> Option<String> {
    let mut exec = false;
    let mut i = 0;
    while i < rest.len() {
        let a = rest[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            exec |= long == "exec";
            if matches!(long, "interval" | "equexit") {
                i += 1;
            }
        } else {
            let flags = &a[1..];
            exec |= flags.contains('x');
            // `-n SECS` and `-q CYCLES` take a value (attached or the next word).
            if let Some(at) = flags.find(['n', 'q'])
                && at + 1 == flags.len()
            {
                i += 1;
            }
        }
        i += 1;
    }
    let words = rest.get(i..).filter(|w| !w.is_empty())?;
    Some(if exec {
        words
            .iter()
            .map(|w| super::quote_word(w))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        words.join(" ")
    })
}

/// Each tmux command's words (commands are separated by a `;` word, or a word ending in `;`).
fn tmux_commands<'a>(rest: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = vec![Vec::new()];
    for w in rest {
        if *w == ";" {
            out.push(Vec::new());
        } else if let Some(body) = w.strip_suffix(';').filter(|b| !b.ends_with('\\')) {
            out.last_mut().unwrap().push(body);
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(w);
        }
    }
    out
}

/// tmux's own options before its command, and `tmux -c CMD` (run as a login shell would).
fn tmux(rest: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() && rest[i].starts_with('-') && rest[i] != "--" {
        let flags = &rest[i][1..];
        if let Some(at) = flags.find(['c', 'f', 'L', 'S', 'T']) {
            let value = if at + 1 < flags.len() {
                Some(flags[at + 1..].to_owned())
            } else {
                i += 1;
                rest.get(i).map(|s| (*s).to_owned())
            };
            if flags.as_bytes()[at] == b'c' {
                out.extend(value);
            }
        }
        i += 1;
    }
    if rest.get(i) == Some(&"--") {
        i += 1;
    }
    for cmd in tmux_commands(rest.get(i..).unwrap_or_default()) {
        out.extend(tmux_command(&cmd));
    }
    out
}

/// The shell text one tmux command runs.
fn tmux_command(cmd: &[&str]) -> Vec<String> {
    let Some((name, args)) = cmd.split_first() else {
        return Vec::new();
    };
    // (options with a value, what the operands are)
    let (valued, kind) = match *name {
        "new-session" | "new" => ("cefnstxyF", Kind::Command),
        "new-window" | "neww" => ("censtF", Kind::Command),
        "split-window" | "splitw" => ("celptF", Kind::Command),
        "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => ("cet", Kind::Command),
        "display-popup" | "popup" => ("bcdehsStTwxy", Kind::Command),
        "run-shell" | "run" => ("cdt", Kind::First),
        "if-shell" | "if" => ("t", Kind::First),
        "pipe-pane" | "pipep" => ("t", Kind::First),
        "send-keys" | "send" => ("Nt", Kind::Keys),
        _ => return Vec::new(),
    };
    let mut i = 0;
    let mut literal = false;
    let mut tmux_cmd = false;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        if args[i] == "--" {
            i += 1;
            break;
        }
        let flags = &args[i][1..];
        literal |= flags.contains('l');
        // `run-shell -C` and `if-shell -F` take tmux commands or a format, not shell text.
        tmux_cmd |= (kind == Kind::First) && flags.contains(['C', 'F']);
        if let Some(at) = flags.find(|c| valued.contains(c))
            && at + 1 == flags.len()
        {
            i += 1;
        }
        i += 1;
    }
    let ops = &args[i.min(args.len())..];
    if ops.is_empty() || tmux_cmd {
        return Vec::new();
    }
    match kind {
        Kind::First => vec![ops[0].to_owned()],
        Kind::Command if ops.len() == 1 => vec![ops[0].to_owned()],
        Kind::Command => vec![
            ops.iter()
                .map(|w| super::quote_word(w))
                .collect::<Vec<_>>()
                .join(" "),
        ],
        Kind::Keys => vec![typed(ops, literal)],
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The operands are a command: one is shell text, more are its words.
    Command,
    /// The first operand is shell text.
    First,
    /// The operands are keys typed into the pane.
    Keys,
}

/// What `send-keys KEYS...` types: strings as they are, `Enter` a new line, `Space` a blank;
/// any other key name (`C-c`, `Escape`) breaks the line.
fn typed(keys: &[&str], literal: bool) -> String {
    let mut out = String::new();
    for k in keys {
        match *k {
            _ if literal => out.push_str(k),
            "Enter" | "C-m" | "C-j" | "KPEnter" => out.push('\n'),
            "Space" => out.push(' '),
            "Tab" => out.push('\t'),
            k if k.len() > 1
                && (k.starts_with("C-") || k.starts_with("M-") || k.starts_with("S-")) =>
            {
                out.push('\n');
            }
            k if !k.is_empty()
                && k.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && k.chars().all(|c| c.is_ascii_alphanumeric())
                && k.len() > 1 =>
            {
                out.push('\n');
            }
            k => out.push_str(k),
        }
    }
    out
}

/// gdb's `-ex CMD` / `--ex=CMD` / `-eval-command` / `-iex` (lldb: `-o` / `--one-line`,
/// `-O`, `-k`): the shell text of each command that runs it.
fn debugger(rest: &[&str], lldb: bool) -> Vec<String> {
    let long: &[&str] = if lldb {
        &["one-line", "one-line-before-file", "one-line-on-crash"]
    } else {
        &["ex", "eval-command", "iex", "init-eval-command"]
    };
    let short: &[&str] = if lldb {
        &["o", "O", "k"]
    } else {
        &["ex", "iex"]
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let a = rest[i];
        if a == "--args" || a == "-args" || (lldb && a == "--") {
            break;
        }
        let body = a.strip_prefix("--").or_else(|| a.strip_prefix('-'));
        let Some((name, value)) = body.map(|b| b.split_once('=').unwrap_or((b, ""))) else {
            i += 1;
            continue;
        };
        let named = long.contains(&name) || (short.contains(&name) && !a.starts_with("--"));
        if named {
            let cmd = if a.contains('=') {
                Some(value)
            } else {
                i += 1;
                rest.get(i).copied()
            };
            out.extend(cmd.and_then(|c| debugger_shell(c, lldb)));
        }
        i += 1;
    }
    out
}

/// The shell text of one gdb (or lldb) command, when it runs some.
fn debugger_shell(cmd: &str, lldb: bool) -> Option<String> {
    let c = cmd.trim_start();
    let word = |w: &str| {
        c.strip_prefix(w)
            .filter(|r| r.is_empty() || r.starts_with(char::is_whitespace))
            .map(str::trim_start)
    };
    if lldb {
        if let Some(t) = word("platform shell").or_else(|| word("shell")) {
            return Some(t.to_owned());
        }
        return word("script").map(|code| format!("python3 -c {}", super::quote_word(code)));
    }
    if let Some(t) = c.strip_prefix('!').or_else(|| word("shell")) {
        return Some(t.to_owned());
    }
    // `pipe [COMMAND] | SHELL_COMMAND` (also `|`).
    if let Some(t) = word("pipe").or_else(|| c.strip_prefix('|')) {
        return t.split_once('|').map(|(_, sh)| sh.to_owned());
    }
    word("python")
        .or_else(|| word("py"))
        .or_else(|| word("python-interactive"))
        .map(|code| format!("python3 -c {}", super::quote_word(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str, stdin: Input) -> Vec<String> {
        let argv: Vec<Arg> = line.split(' ').map(Arg::plain).collect();
        texts(&argv, &stdin, &|_| None)
    }

    fn words(argv: &[&str]) -> Vec<String> {
        let argv: Vec<Arg> = argv.iter().map(|w| Arg::plain(w)).collect();
        texts(&argv, &Input::Inherited, &|_| None)
    }

    #[test]
    fn shell_text_these_programs_run_is_found() {
        assert_eq!(
            words(&["watch", "-n", "1", "git checkout ."]),
            ["git checkout ."]
        );
        assert_eq!(words(&["watch", "-gn1", "git", "status"]), ["git status"]);
        assert_eq!(
            words(&["watch", "-d", "git checkout ."]),
            ["git checkout ."]
        );
        assert_eq!(words(&["watch", "-x", "rm", "a b"]), ["rm 'a b'"]);
        assert_eq!(
            words(&["tmux", "new", "-d", "git checkout ."]),
            ["git checkout ."]
        );
        assert_eq!(
            words(&["tmux", "new-session", "-d", "-s", "x", "git", "stash"]),
            ["git stash"]
        );
        assert_eq!(
            words(&["tmux", "-L", "s", "splitw", "-c", "/tmp", "rm x"]),
            ["rm x"]
        );
        assert_eq!(
            words(&["tmux", "send-keys", "-t", "0", "git checkout .", "Enter"]),
            ["git checkout .\n"]
        );
        assert_eq!(
            words(&["tmux", "send", "git", "Space", "stash", "C-m"]),
            ["git stash\n"]
        );
        assert_eq!(words(&["tmux", "run", "-b", "rm x"]), ["rm x"]);
        assert_eq!(words(&["tmux", "-c", "rm x"]), ["rm x"]);
        assert_eq!(words(&["tmux", "new", "-d", ";", "neww", "rm x"]), ["rm x"]);
        assert_eq!(
            words(&["gdb", "-batch", "-ex", "shell git checkout ."]),
            ["git checkout ."]
        );
        assert_eq!(words(&["gdb", "--ex=!rm x"]), ["rm x"]);
        assert_eq!(words(&["gdb", "-ex", "pipe bt | rm x"]), [" rm x"]);
        assert_eq!(
            words(&["gdb", "-ex", "python import os"]),
            ["python3 -c 'import os'"]
        );
        assert_eq!(words(&["lldb", "-o", "platform shell rm x"]), ["rm x"]);
        assert_eq!(
            of(
                "ed -s",
                Input::Text("1,$p\n!git checkout .\nr !rm x\nq\n".into())
            ),
            ["git checkout .", "rm x"]
        );
        // Nothing for everyday uses.
        assert!(words(&["watch", "-n", "2", "cargo", "test"]) == ["cargo test"]);
        assert!(words(&["tmux", "ls"]).is_empty());
        assert!(words(&["tmux", "attach", "-t", "x"]).is_empty());
        assert!(words(&["gdb", "-batch", "-ex", "run", "--args", "./a"]).is_empty());
        assert!(of("ed -s f", Input::Text("1d\nw\nq\n".into())).is_empty());
        assert!(opaque(&["ed".into()], &Input::Unknown, &|_| None).is_some());
        assert!(opaque(&["ed".into()], &Input::Text(String::new()), &|_| None).is_none());
    }
}

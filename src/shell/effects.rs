//! What commands earlier in a line leave for the later ones (variables, `shopt -s dotglob`,
//! links and moves whose targets are then unknown), and the shell text other programs run:
//! script files in reach (`bash FILE`, `. FILE`, `BASH_ENV`), `find -exec`, `git rebase -x`,
//! `watch`, `su -c`, `script -c`, `flock -c`, `trap`.

use std::path::{Path, PathBuf};

use super::MAX_INPUT;
use super::expand::{Arg, join_dir};
use super::state::State;
use super::wrappers::basename;

/// Set `$name` for the rest of the line (`None`: to something unknown here).
pub(super) fn set_var(st: &mut State, name: &str, value: Option<String>) {
    if name == "GLOBIGNORE" && value.as_deref() != Some("") {
        st.dotglob = true;
    }
    // A variable exported already stays exported when set again (git reads the new value;
    // one only known when it runs reads as such).
    if let Some((_, v)) = st.exported.iter_mut().find(|(k, _)| k == name) {
        *v = value.clone().unwrap_or_else(|| format!("${{{name}}}"));
    }
    st.vars.insert(name.to_owned(), value);
}

/// The text of a script file in reach: a regular file of at most [`MAX_INPUT`] bytes.
pub(super) fn read_script(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_INPUT as u64 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The value of environment variable `name` for the command (its prefix, else this process's).
fn env_value(assignments: &[(String, String)], name: &str) -> Option<String> {
    assignments
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .or_else(|| std::env::var(name).ok())
        .filter(|v| !v.is_empty())
}

/// A script a shell reads at start-up from a file named in its environment: `None` when it
/// cannot be read (a process substitution, a pipe, a missing or special file).
fn startup_file(path: &str, cwd: &Path) -> Option<String> {
    if path.starts_with("<(") || path.starts_with("/dev/") || path.starts_with("/proc/") {
        return None;
    }
    read_script(&join_dir(cwd, path))
}

/// What a shell runs from its environment before its own commands: `BASH_ENV` (bash), `ENV`
/// (a POSIX shell, ksh, mksh), `$ZDOTDIR/.zshenv` (zsh), `PS4` under `-x` (expanded as in
/// double quotes), `PROMPT_COMMAND` when interactive. `Some(None)` when one is set but cannot
/// be read.
fn shell_prelude(
    argv: &[Arg],
    assignments: &[(String, String)],
    cwd: &Path,
) -> Option<Option<String>> {
    let name = basename(&argv.first()?.text);
    let flags: String = argv[1..]
        .iter()
        .take_while(|a| a.text.starts_with('-') && !a.text.starts_with("--"))
        .map(|a| a.text.as_str())
        .collect();
    let xtrace = flags.contains('x')
        || argv
            .windows(2)
            .any(|w| w[0].text == "-o" && w[1].text == "xtrace");
    let interactive = flags.contains('i');
    let mut parts = Vec::new();
    let mut unreadable = false;
    let file = match name {
        "bash" | "rbash" | "bash5" => env_value(assignments, "BASH_ENV"),
        "sh" | "dash" | "ash" | "posh" | "ksh" | "ksh93" | "mksh" | "oksh" | "lksh" | "yash" => {
            env_value(assignments, "ENV")
        }
        "zsh" => env_value(assignments, "ZDOTDIR").map(|d| format!("{d}/.zshenv")),
        _ => return None,
    };
    if let Some(f) = file {
        match startup_file(&f, cwd) {
            Some(t) => parts.push(t),
            None if name != "zsh" || !Path::new(&f).parent().is_some_and(Path::is_dir) => {
                unreadable = true;
            }
            None => {}
        }
    }
    if xtrace && let Some(ps4) = env_value(assignments, "PS4") {
        parts.push(format!(": \"{ps4}\""));
    }
    if interactive && let Some(pc) = env_value(assignments, "PROMPT_COMMAND") {
        parts.push(pc);
    }
    if unreadable {
        return Some(None);
    }
    (!parts.is_empty()).then(|| Some(parts.join("\n")))
}

/// `text` with the shell's start-up text before it, when it runs one (`None`: unreadable).
pub(super) fn with_bash_env(
    argv: &[Arg],
    assignments: &[(String, String)],
    cwd: &Path,
    text: &str,
) -> Option<String> {
    match shell_prelude(argv, assignments, cwd) {
        None => Some(text.to_owned()),
        Some(Some(env)) => Some(format!("{env}\n{text}")),
        Some(None) => None,
    }
}

/// Shell text a program runs from its environment: `less`'s `LESSOPEN`/`LESSCLOSE` input
/// preprocessor (`|CMD %s`), `man`'s `MANPAGER`.
pub(super) fn env_texts(argv: &[Arg], assignments: &[(String, String)]) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let vars: &[&str] = match basename(&first.text) {
        "less" => &["LESSOPEN", "LESSCLOSE"],
        "man" => &["MANPAGER"],
        _ => return Vec::new(),
    };
    let file = argv[1..]
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map_or("file", |a| a.text.as_str());
    vars.iter()
        .filter_map(|v| env_value(assignments, v))
        .map(|v| {
            let v = v.trim_start_matches(['|', '-']);
            v.replace("%s", &quote(file))
        })
        .collect()
}

use super::quote_word as quote;

fn join(words: &[Arg]) -> String {
    words
        .iter()
        .map(|a| quote(&a.text))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The value of `-c TEXT` / `--command TEXT` / `--command=TEXT` among `args`.
fn command_option(args: &[Arg]) -> Option<String> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        let cluster = t.starts_with('-') && !t.starts_with("--") && t.ends_with('c');
        if cluster || t == "--command" {
            return it.next().map(|a| a.text.clone());
        }
        if let Some(v) = t.strip_prefix("--command=") {
            return Some(v.to_owned());
        }
    }
    None
}

/// Shell text that the program in `argv` runs itself: `find -exec CMD` (except `rm`, which the
/// find rule judges), `git rebase -x CMD`, `git bisect run CMD`, `su -c`, `script
/// -c`, `runuser -c`, `flock [-c] CMD`.
pub(super) fn embedded(argv: &[Arg]) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let rest = &argv[1..];
    let mut out = Vec::new();
    match basename(&first.text) {
        "find" => {
            let mut i = 0;
            while i < rest.len() {
                if matches!(
                    rest[i].text.as_str(),
                    "-exec" | "-execdir" | "-ok" | "-okdir"
                ) {
                    let end = rest[i + 1..]
                        .iter()
                        .position(|a| a.text == ";" || a.text == "+")
                        .map_or(rest.len(), |p| i + 1 + p);
                    let cmd = &rest[i + 1..end];
                    if cmd.first().is_some_and(|c| basename(&c.text) != "rm") {
                        out.push(join(cmd));
                    }
                    i = end;
                }
                i += 1;
            }
        }
        "git" => {
            // git's own options before the subcommand; `-C DIR` moves where the commands run.
            let mut s = 0;
            let mut dirs = String::new();
            while s < rest.len() && rest[s].text.starts_with('-') {
                let t = rest[s].text.as_str();
                if t == "-C" {
                    if let Some(d) = rest.get(s + 1).filter(|d| !d.text.is_empty()) {
                        dirs.push_str(&format!("cd {} && ", super::quote_word(&d.text)));
                    }
                    s += 1;
                } else if matches!(
                    t,
                    "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
                ) {
                    s += 1;
                }
                s += 1;
            }
            let mut texts = Vec::new();
            match rest.get(s).map(|a| a.text.as_str()) {
                Some("rebase") => {
                    let mut i = s + 1;
                    while i < rest.len() {
                        let t = rest[i].text.as_str();
                        if t == "-x" || t == "--exec" {
                            if let Some(v) = rest.get(i + 1) {
                                texts.push(v.text.clone());
                            }
                            i += 1;
                        } else if let Some(v) = t.strip_prefix("--exec=").or(t.strip_prefix("-x"))
                            && !v.is_empty()
                        {
                            texts.push(v.to_owned());
                        }
                        i += 1;
                    }
                }
                Some("bisect") if rest.get(s + 1).is_some_and(|a| a.text == "run") => {
                    texts.push(join(&rest[s + 2..]));
                }
                _ => {}
            }
            out.extend(texts.into_iter().map(|t| format!("{dirs}{t}")));
        }
        "su" | "runuser" | "script" => out.extend(command_option(rest)),
        // `trap TEXT SIGNAL...`: TEXT runs when the signal (or EXIT) comes.
        "trap" => {
            let args: Vec<&Arg> = rest.iter().skip_while(|a| a.text == "--").collect();
            if let [text, _, ..] = args.as_slice()
                && !text.text.starts_with('-')
            {
                out.push(text.text.clone());
            }
        }
        "flock" => {
            if let Some(c) = command_option(rest) {
                out.push(c);
            } else {
                let mut i = 0;
                while i < rest.len() && rest[i].text.starts_with('-') {
                    if matches!(rest[i].text.as_str(), "-w" | "-E" | "--timeout") {
                        i += 1;
                    }
                    i += 1;
                }
                if i + 1 < rest.len() {
                    out.push(join(&rest[i + 1..]));
                }
            }
        }
        _ => {}
    }
    out
}

/// Whether the command's directory or a path it names goes through a link or a move made
/// earlier in the line.
pub(super) fn through_made(argv: &[Arg], cwd: &Path, made: &[PathBuf]) -> bool {
    if made.is_empty() {
        return false;
    }
    made.iter().any(|m| cwd.starts_with(m))
        || argv[1..].iter().any(|a| {
            !a.text.starts_with('-') && {
                let p = join_dir(cwd, &a.text);
                made.iter().any(|m| p.starts_with(m))
            }
        })
}

/// Record what `ln`, `mv` and a `rm` of a `.git` entry leave: paths whose content is no longer
/// what the file system shows now.
pub(super) fn note_made(argv: &[Arg], cwd: &Path, st: &mut State) {
    let Some(first) = argv.first() else { return };
    let operands: Vec<&Arg> = argv[1..]
        .iter()
        .filter(|a| !a.text.starts_with('-'))
        .collect();
    match basename(&first.text) {
        "ln" | "mv" | "cp" if operands.len() >= 2 => {
            if basename(&first.text) == "cp" && !argv.iter().any(|a| a.text.contains('s')) {
                return;
            }
            let dest = join_dir(cwd, &operands[operands.len() - 1].text);
            if dest.is_dir() {
                for src in &operands[..operands.len() - 1] {
                    if let Some(name) = Path::new(&src.text).file_name() {
                        st.made.push(dest.join(name));
                    }
                }
            }
            st.made.push(dest);
            if basename(&first.text) == "mv" {
                for src in &operands[..operands.len() - 1] {
                    st.made.push(join_dir(cwd, &src.text));
                }
            }
        }
        "rm" | "unlink" => {
            for o in operands {
                let p = join_dir(cwd, &o.text);
                if p.file_name().is_some_and(|n| n == ".git")
                    && let Some(root) = p.parent()
                {
                    st.made.push(root.to_path_buf());
                }
            }
        }
        _ => {}
    }
}

/// Whether git (or make, for `MAKEFILES`) reads environment variable `name`: its own (`GIT_*`), and those that name a
/// program it runs or where its config is.
fn git_reads(name: &str) -> bool {
    name.starts_with("GIT_")
        || matches!(
            name,
            "EDITOR" | "VISUAL" | "PAGER" | "SSH_ASKPASS" | "HOME" | "XDG_CONFIG_HOME"
        )
        // and the makefiles make reads before its own.
        || name == "MAKEFILES"
}

/// The shell builtins whose effect later commands see: `export`/`declare`/`local`/`readonly`/
/// `typeset` (variables), `unset`, `read` (unknown values), `shopt -s dotglob`.
pub(super) fn builtin(argv: &[Arg], st: &mut State) {
    let Some(first) = argv.first() else { return };
    let rest = &argv[1..];
    match first.text.as_str() {
        "export" | "declare" | "local" | "readonly" | "typeset" => {
            let exporting = first.text == "export"
                || rest
                    .iter()
                    .any(|a| a.text.starts_with('-') && a.text.contains('x'));
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some((name, value)) = a.text.split_once('=') {
                    let known = !(a.var || a.cmdsub);
                    set_var(st, name, known.then(|| value.to_owned()));
                    // Exported variables git reads apply to every later command of the line.
                    if exporting && git_reads(name) {
                        st.exported.retain(|(k, _)| k != name);
                        st.exported
                            .push((name.to_owned(), a.text[name.len() + 1..].to_owned()));
                    }
                }
            }
        }
        "alias" => {
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some((name, value)) = a.text.split_once('=') {
                    let known = !(a.var || a.cmdsub);
                    st.aliases
                        .push((name.to_owned(), known.then(|| value.to_owned())));
                }
            }
        }
        "unset" => {
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                st.exported.retain(|(k, _)| *k != a.text);
                set_var(st, &a.text, Some(String::new()));
            }
        }
        "printf" => {
            if let Some(i) = rest.iter().position(|a| a.text == "-v")
                && let Some(name) = rest.get(i + 1)
            {
                st.vars.insert(name.text.clone(), None);
            }
        }
        "read" | "mapfile" | "readarray" => {
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                st.vars.insert(a.text.clone(), None);
            }
        }
        "shopt" => {
            let on = rest.iter().any(|a| a.text == "-s");
            if rest.iter().any(|a| a.text == "dotglob") {
                st.dotglob = on;
            }
        }
        _ => {}
    }
}

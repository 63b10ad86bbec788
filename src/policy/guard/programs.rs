//! Programs git runs from its config, its environment or its options: editors, pagers, the
//! fsmonitor hook, external diff and merge drivers, filters, ssh commands, credential helpers,
//! `interactive.diffFilter`, archive compressors (`tar.FORMAT.command`), configured hooks
//! (`hook.NAME.command`), tool paths (`difftool.X.path`, `sendemail.smtpServer=/path`),
//! `ext::` transports, `--upload-pack`, and the commands of `difftool --extcmd` and `grep
//! --open-files-in-pager`. Given on the line (`-c`, `--config-env`, `GIT_CONFIG_COUNT`,
//! `GIT_EDITOR=`, an option) or written to a config file
//! (`git config KEY VALUE`, which arms it for every later git command), each is shell text git
//! runs: the classifier judges it as `sh -c VALUE`, as it does a `!` alias. A program the guard
//! cannot read (a binary, a value only known when it runs, an included config file) is judged
//! by what is at risk within reach.

use std::path::Path;

use crate::git::GitInvocation;

/// What git runs for one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Run {
    /// Shell text, run as `sh -c TEXT` (with git's own arguments after it).
    Shell(String),
    /// Something the guard cannot read, and why (the start of "... delete files or run git").
    Unknown(String),
}

/// One program git runs, and where it was set (for messages: `GIT_EDITOR`, `core.fsmonitor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Program {
    /// Where it was set, quoted as code.
    pub(super) what: String,
    /// Set by the command for every later git command (`git config KEY VALUE`).
    pub(super) later: bool,
    /// What runs.
    pub(super) run: Run,
}

/// Environment variables whose value git (or ssh under it) runs as a command line.
const PROGRAM_VARS: &[&str] = &[
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "VISUAL",
    "EDITOR",
    "GIT_PAGER",
    "PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
];

/// Environment variables that make git read another config file (`HOME`: `~/.gitconfig`).
const CONFIG_VARS: &[&str] = &[
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
    "HOME",
    "XDG_CONFIG_HOME",
];

/// Largest first line of a script read to find its interpreter.
const MAX_SHEBANG: usize = 256;

/// Values of a boolean config key.
fn boolean(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// What git runs for config `key` set to `value`, when the key names a program. `alias.*` is
/// left to the alias resolution (a `!` alias is shell text there), unless `aliases`.
pub(super) fn of_key(key: &str, value: &str, aliases: bool) -> Option<Run> {
    let lower = key.to_ascii_lowercase();
    let (section, rest) = lower.split_once('.')?;
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    // The subsection keeps its case in git: take it from the key as written.
    let sub_as_written = sub.map(|s| &key[section.len() + 1..section.len() + 1 + s.len()]);
    let shell = || Some(Run::Shell(value.to_owned()));
    let bang = || {
        value
            .trim_start()
            .strip_prefix('!')
            .map(|t| Run::Shell(t.to_owned()))
    };
    match (section, sub, name) {
        (
            "core",
            None,
            "editor" | "sshcommand" | "askpass" | "gitproxy" | "alternaterefscommand",
        )
        | ("sequence", None, "editor")
        | ("diff", None, "external")
        | ("diff", Some(_), "command" | "textconv")
        | ("difftool" | "mergetool" | "browser" | "man" | "guitool", Some(_), "cmd")
        | ("merge", Some(_), "driver")
        | ("filter", Some(_), "clean" | "smudge" | "process")
        | ("gpg", _, "program")
        | ("gpg", Some("ssh"), "defaultkeycommand")
        | ("uploadpack", None, "packobjectshook")
        | ("trailer", Some(_), "command" | "cmd")
        | ("sendemail", _, "tocmd" | "cccmd" | "sendmailcmd" | "headercmd")
        | ("imap", None, "tunnel")
        | ("remote", Some(_), "uploadpack" | "receivepack")
        | ("interactive", None, "difffilter")
        | ("tar" | "hook", Some(_), "command")
        | ("instaweb", None, "httpd")
            if !value.trim().is_empty() =>
        {
            shell()
        }
        // A program by its path: run with git's arguments, as if quoted on a command line.
        ("difftool" | "mergetool" | "browser" | "man", Some(_), "path")
            if !value.trim().is_empty() =>
        {
            Some(Run::Shell(crate::shell::quote_word(value)))
        }
        // A sendmail-like program when it is a path, else a server name.
        ("sendemail", _, "smtpserver") if value.trim_start().starts_with('/') => {
            Some(Run::Shell(crate::shell::quote_word(value.trim())))
        }
        ("core", None, "pager" | "fsmonitor") | ("pager", None, _) if !boolean(value) => shell(),
        ("credential", _, "helper") => {
            let v = value.trim();
            if v.starts_with('/') { shell() } else { bang() }
        }
        ("alias", None, _) if aliases => bang(),
        ("submodule", Some(_), "update") => bang(),
        ("remote", Some(_), "url" | "pushurl") => ext_command(value).map(Run::Shell),
        ("url", Some(_), "insteadof" | "pushinsteadof") => {
            sub_as_written.and_then(ext_command).map(Run::Shell)
        }
        ("include", None, "path") | ("includeif", Some(_), "path") => Some(Run::Unknown(format!(
            "`{key}` makes git read another config file, which may set programs for git to run \
             that"
        ))),
        _ => None,
    }
}

/// The command line an `ext::CMD ARGS` URL runs (`% ` a space within a word, `%%` a percent,
/// `%s`/`%S` the service name), its words shell-quoted.
pub(super) fn ext_command(url: &str) -> Option<String> {
    let spec = url.trim().strip_prefix("ext::")?;
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => cur.push(' '),
                Some('%') => cur.push('%'),
                Some('s') => cur.push_str("upload-pack"),
                Some('S') => cur.push_str("git-upload-pack"),
                Some('G' | 'V') => {}
                Some(o) => cur.push(o),
                None => {}
            },
            ' ' => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let shown: Vec<String> = words.iter().map(|w| crate::shell::quote_word(w)).collect();
    (!shown.is_empty()).then(|| shown.join(" "))
}

/// Every program a git invocation is given on its own line: its `-c` keys (and the other
/// spellings of config for one command), the program variables among its assignments
/// (`GIT_EDITOR=`, `export GIT_PAGER=...` earlier in the line), `ext::` URLs among its
/// arguments, and the options that take a command.
pub(super) fn on_line(inv: &GitInvocation, assignments: &[(String, String)]) -> Vec<Program> {
    let mut out = Vec::new();
    let mut push = |what: String, run: Run| {
        if !out.iter().any(|p: &Program| p.what == what && p.run == run) {
            out.push(Program {
                what,
                later: false,
                run,
            });
        }
    };
    for (key, value) in &inv.line_config {
        match value {
            Some(v) => {
                if let Some(run) = of_key(key, v, false) {
                    push(format!("`{key}`"), run);
                }
            }
            None => {
                if of_key(key, "x", true).is_some() || of_key(key, "!x", true).is_some() {
                    let why = format!("`{key}` is only known when it runs, and what it names may");
                    push(format!("`{key}`"), Run::Unknown(why));
                }
            }
        }
        if key.eq_ignore_ascii_case("core.hooksPath") {
            let why = format!(
                "`{key}` given on the line makes git skip git-dibs's git hooks and run whatever \
                 hooks `{}` holds, which may",
                value.as_deref().unwrap_or("…")
            );
            push(format!("`{key}`"), Run::Unknown(why));
        }
    }
    for (k, v) in assignments {
        if CONFIG_VARS.contains(&k.as_str()) && !matches!(v.trim(), "" | "/dev/null") {
            let why = format!(
                "`{k}` makes git read another config file, which may set programs for git to \
                 run that"
            );
            push(format!("`{k}`"), Run::Unknown(why));
        }
        if PROGRAM_VARS.contains(&k.as_str()) && !v.trim().is_empty() {
            let run = if k == "GIT_SSH" {
                Run::Shell(crate::shell::quote_word(v))
            } else {
                Run::Shell(v.clone())
            };
            push(format!("`{k}`"), run);
        }
    }
    for (what, text) in from_args(&inv.args) {
        push(what, Run::Shell(text));
    }
    out
}

/// Commands a git subcommand's own arguments name: `ext::` URLs of the transports, and
/// `--upload-pack`/`--receive-pack`/`--exec`, `difftool --extcmd`, `grep
/// --open-files-in-pager`. (`rebase -x` and `bisect run` are read by the shell parser, as the
/// commands they run.)
fn from_args(args: &[String]) -> Vec<(String, String)> {
    let Some((sub, rest)) = args.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let transport = matches!(
        sub.as_str(),
        "fetch" | "pull" | "clone" | "push" | "ls-remote" | "remote" | "submodule" | "archive"
    );
    if transport {
        for a in rest {
            if let Some(text) = ext_command(a) {
                out.push((format!("the `ext::` URL `{a}`"), text));
            }
        }
    }
    let (longs, shorts): (&[&str], &[char]) = match sub.as_str() {
        "fetch" | "pull" | "ls-remote" => (&["upload-pack"], &[]),
        "clone" => (&["upload-pack"], &['u']),
        "push" | "send-pack" => (&["receive-pack", "exec"], &[]),
        "archive" => (&["exec"], &[]),
        "difftool" => (&["extcmd"], &['x']),
        "grep" => (&["open-files-in-pager"], &['O']),
        _ => return out,
    };
    let mut words = rest.to_vec();
    let known: Vec<&str> = longs.to_vec();
    super::options::canonical(&mut words, &known);
    let mut it = words.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        let value = if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, v)) if longs.contains(&name) => Some((name.to_owned(), v.to_owned())),
                // `grep -O` takes its value only attached.
                None if longs.contains(&long) && sub != "grep" => {
                    it.next().map(|v| (long.to_owned(), v.clone()))
                }
                _ => None,
            }
        } else if let Some(short) = a.strip_prefix('-').and_then(|s| s.chars().next()) {
            if shorts.contains(&short) && !a.starts_with("--") {
                let attached = &a[1 + short.len_utf8()..];
                if !attached.is_empty() {
                    Some((short.to_string(), attached.to_owned()))
                } else if sub == "grep" {
                    None
                } else {
                    it.next().map(|v| (short.to_string(), v.clone()))
                }
            } else {
                None
            }
        } else {
            None
        };
        if let Some((name, v)) = value {
            let dash = if name.len() == 1 { "-" } else { "--" };
            out.push((format!("`git {sub} {dash}{name}`"), v));
        }
    }
    out
}

/// Judge every program the git command `cmd` (parsed as `inv`) gives git to run, on its line
/// or in the config it writes: shell text goes to `nested(TEXT, TOP, WHAT)`, to be read as `sh
/// -c TEXT` at the top of the worktree; what cannot be read is returned, as the start of "...
/// delete files or run git". Nothing is read unless the command names a program.
pub(super) fn judge_all(
    inv: &GitInvocation,
    cmd: &crate::shell::SimpleCommand,
    nested: &mut dyn FnMut(&str, &Path, &str),
) -> Vec<String> {
    let mut programs = on_line(inv, &cmd.assignments);
    if let Some((key, value)) = super::gitline::config_assignment(&inv.args)
        && let Some(run) = of_key(&key, &value, true)
    {
        programs.push(Program {
            what: format!("`{key}`"),
            later: true,
            run,
        });
    }
    if programs.is_empty() {
        return Vec::new();
    }
    let top = crate::git::invocation_worktree(inv).map_or_else(|| inv.cwd.clone(), |w| w.root);
    let mut unread = Vec::new();
    for p in programs {
        let run = match p.run {
            // `GIT_EDITOR="$X"`: the program itself is only known when it runs.
            Run::Shell(text)
                if text
                    .split_whitespace()
                    .next()
                    .is_some_and(super::classify::has_expansion) =>
            {
                Run::Unknown(format!(
                    "the program {} runs is only known when it runs, and it may",
                    p.what
                ))
            }
            Run::Shell(text) => as_script(&text, &top),
            unknown @ Run::Unknown(_) => unknown,
        };
        match run {
            Run::Shell(text) if p.later => nested(
                &text,
                &top,
                &format!("command {} would run in every later git command", p.what),
            ),
            Run::Shell(text) => nested(&text, &top, &format!("command {} runs", p.what)),
            Run::Unknown(why) => unread.push(why),
        }
    }
    unread
}

/// Shell text to judge for a program value run at the top of the worktree `top`: a value that
/// runs a script by its path is judged as its interpreter running it (`sh FILE`, `python3
/// FILE`), so what the script does is read; a program by path the guard cannot read (a
/// binary outside the system's folders) is [`Run::Unknown`].
pub(super) fn as_script(text: &str, top: &Path) -> Run {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return Run::Shell(text.to_owned());
    };
    if !first.contains('/') || first.contains(['$', '`', '\'', '"', '\\', ';', '|', '&']) {
        return Run::Shell(text.to_owned());
    }
    let path = crate::git::normalize(top, Path::new(first));
    let system = [
        "/usr/",
        "/bin/",
        "/sbin/",
        "/opt/",
        "/nix/",
        "/Applications/",
    ]
    .iter()
    .any(|d| path.starts_with(d));
    let Ok(head) = read_prefix(&path) else {
        // Missing: git cannot run it either.
        return Run::Shell(text.to_owned());
    };
    let rest = text[text.find(first).unwrap_or(0) + first.len()..].to_owned();
    let quoted = crate::shell::quote_word(&path.to_string_lossy());
    let line = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    if let Some(bang) = line.strip_prefix(b"#!") {
        let bang = String::from_utf8_lossy(bang);
        let mut ws = bang.split_whitespace();
        let mut prog = ws.next().unwrap_or("").rsplit('/').next().unwrap_or("");
        if prog == "env" {
            prog = ws.find(|w| !w.starts_with('-')).unwrap_or("");
        }
        if prog.is_empty() {
            return Run::Shell(format!("sh {quoted}{rest}"));
        }
        return Run::Shell(format!("{prog} {quoted}{rest}"));
    }
    if system {
        return Run::Shell(text.to_owned());
    }
    if head.contains(&0) || head.starts_with(b"\x7fELF") {
        return Run::Unknown(format!(
            "`{first}` is a program git-dibs cannot read, and it may"
        ));
    }
    Run::Shell(format!("sh {quoted}{rest}"))
}

/// The first bytes of the regular file at `path` (never a FIFO or a device).
fn read_prefix(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let (mut file, _) =
        crate::platform::files::open_regular(path, crate::platform::files::Links::Follow)?;
    let mut buf = vec![0; MAX_SHEBANG];
    let n = file.read(&mut buf)?;
    buf.truncate(n);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_keys_and_harmless_values() {
        let shell = |t: &str| Some(Run::Shell(t.to_owned()));
        assert_eq!(of_key("core.editor", "vim", false), shell("vim"));
        assert_eq!(of_key("Core.FSMonitor", "rm x #", false), shell("rm x #"));
        assert_eq!(of_key("core.fsmonitor", "true", false), None);
        assert_eq!(of_key("core.pager", "less -R", false), shell("less -R"));
        assert_eq!(of_key("pager.log", "false", false), None);
        assert_eq!(of_key("filter.lfs.smudge", "x", false), shell("x"));
        assert_eq!(of_key("diff.rust.textconv", "x", false), shell("x"));
        assert_eq!(of_key("credential.helper", "store", false), None);
        assert_eq!(of_key("credential.helper", "!rm x", false), shell("rm x"));
        assert_eq!(
            of_key("credential.https://h.example.helper", "/bin/h", false),
            shell("/bin/h")
        );
        assert_eq!(of_key("alias.x", "!rm x", false), None);
        assert_eq!(of_key("alias.x", "!rm x", true), shell("rm x"));
        assert_eq!(of_key("alias.x", "log", true), None);
        assert_eq!(of_key("user.name", "rm x", true), None);
        assert_eq!(of_key("color.ui", "always", true), None);
        assert_eq!(
            of_key("remote.o.url", "ext::sh -c rm% x", false),
            shell("sh -c 'rm x'")
        );
        assert_eq!(
            of_key("url.ext::sh -c rm% x.insteadOf", "o:", false),
            shell("sh -c 'rm x'")
        );
        assert!(matches!(
            of_key("include.path", "/tmp/c", false),
            Some(Run::Unknown(_))
        ));
    }

    #[test]
    fn options_that_take_a_command() {
        let w = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let texts = |s: &str| {
            from_args(&w(s))
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
        };
        assert_eq!(texts("difftool -xmeld"), ["meld"]);
        assert_eq!(texts("difftool --ext meld"), ["meld"]);
        assert_eq!(texts("difftool --extcmd=meld"), ["meld"]);
        assert_eq!(texts("fetch --upload-pack x ../o"), ["x"]);
        assert_eq!(texts("grep -Ovim foo"), ["vim"]);
        assert_eq!(texts("grep -O foo"), Vec::<String>::new());
        assert_eq!(texts("push --receive-pack=x ../o"), ["x"]);
        assert_eq!(texts("clone -u x ../o"), ["x"]);
        assert_eq!(texts("log -x"), Vec::<String>::new());
        assert_eq!(texts("commit -m x"), Vec::<String>::new());
    }
}

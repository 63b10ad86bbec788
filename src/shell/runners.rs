//! Everyday command runners (`perf stat`, `valgrind`, `gdb --args`, `uv run`, `poetry run`,
//! `nix develop -c`, `mise exec --`, `cross-env`, `fd -x`, ...) peeled to the command they run;
//! programs that run shell text given in an argument or an option (`nix-shell --run`,
//! `hyperfine`, `concurrently`, `nodemon --exec`, `tar --to-command`, `rsync -e`, `man -P`,
//! `zip -TT`, `git submodule foreach`); and the fallback for programs
//! the guard does not know: the first argument naming a judged program is taken as a command it
//! may run.

use super::expand::Arg;
use super::wrapper_specs::JUDGED;
use super::wrappers::{Spec, basename, options};

const fn spec(short_arg: &'static str, long_arg: &'static [&'static str]) -> Spec {
    Spec {
        short_arg,
        short_opt_arg: "",
        long_arg,
    }
}

/// The command after `rest`'s options (and `skip` operands), or `None` when there is none.
fn after(rest: &[Arg], spec: &Spec, skip: usize) -> Option<Vec<Arg>> {
    let n = options(rest, spec, |_, _| {}) + skip;
    (n < rest.len()).then(|| rest[n..].to_vec())
}

/// The words after `--` in `rest`.
fn after_dashes(rest: &[Arg]) -> Option<Vec<Arg>> {
    let n = rest.iter().position(|a| a.text == "--")?;
    (n + 1 < rest.len()).then(|| rest[n + 1..].to_vec())
}

/// The argv a runner `name REST...` runs, when it is one.
pub(super) fn rewrite(name: &str, rest: &[Arg]) -> Option<Vec<Arg>> {
    let verb = rest.first().map(|a| a.text.as_str());
    let tail = rest.get(1..).unwrap_or_default();
    match (name, verb) {
        ("perf", Some("stat" | "record" | "trace" | "top" | "sched" | "mem" | "c2c")) => {
            let perf = spec(
                "eoprtxGCIFcmDLjb",
                &[
                    "event",
                    "output",
                    "pid",
                    "tid",
                    "repeat",
                    "field-separator",
                    "cgroup",
                    "cpu",
                    "interval-print",
                    "freq",
                    "count",
                    "mmap-pages",
                    "delay",
                    "post",
                    "pre",
                ],
            );
            after(tail, &perf, 0)
        }
        ("valgrind", _) => after(rest, &spec("", &[]), 0),
        ("gdb" | "cgdb" | "lldb" | "rust-gdb" | "rust-lldb", _) => {
            let n = rest.iter().position(|a| {
                matches!(a.text.as_str(), "--args" | "-args")
                    || (name.ends_with("lldb") && a.text == "--")
            })?;
            (n + 1 < rest.len()).then(|| rest[n + 1..].to_vec())
        }
        ("uv" | "uvx" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye" | "pixi" | "devbox", _)
            if name == "uvx" || verb == Some("run") || (name == "pixi" && verb == Some("exec")) =>
        {
            let args = if name == "uvx" { rest } else { tail };
            let runner = spec(
                "pwe",
                &[
                    "with",
                    "python",
                    "project",
                    "directory",
                    "env-file",
                    "package",
                    "extra",
                    "group",
                    "from",
                    "index",
                    "environment",
                    "manifest-path",
                    "config",
                ],
            );
            after(args, &runner, 0)
        }
        ("conda" | "mamba" | "micromamba", Some("run")) => {
            after(tail, &spec("np", &["name", "prefix", "cwd"]), 0)
        }
        // `direnv exec DIR CMD`.
        ("direnv", Some("exec")) => (tail.len() > 1).then(|| tail[1..].to_vec()),
        ("nix", Some("develop" | "shell")) => {
            let n = tail
                .iter()
                .position(|a| a.text == "-c" || a.text == "--command")?;
            (n + 1 < tail.len()).then(|| tail[n + 1..].to_vec())
        }
        ("mise" | "rtx", Some("exec" | "x")) => after_dashes(tail),
        ("asdf", Some("exec")) => (!tail.is_empty()).then(|| tail.to_vec()),
        ("cross-env" | "cross-env-shell", _) => {
            let n = rest.iter().position(|a| !a.text.contains('='))?;
            Some(rest[n..].to_vec())
        }
        ("dotenv" | "dotenvx", _) => after_dashes(rest).or_else(|| {
            let args = if verb == Some("run") { tail } else { rest };
            after(args, &spec("ecfv", &["env-file", "file", "convention"]), 0)
        }),
        ("env-cmd", _) => after(rest, &spec("fer", &["file", "environments", "rc-file"]), 0),
        ("rlwrap", _) => after(rest, &spec("bCDfHlOpPqSstw", &[]), 0),
        ("cpulimit", _) => after_dashes(rest)
            .or_else(|| after(rest, &spec("lpe", &["limit", "pid", "exe", "cpu"]), 0)),
        ("pueue", Some("add")) => after_dashes(tail).or_else(|| {
            after(
                tail,
                &spec(
                    "wdagl",
                    &["working-directory", "delay", "group", "after", "label"],
                ),
                0,
            )
        }),
        ("watchexec", _) => after_dashes(rest),
        ("entr", _) => {
            let n = options(rest, &spec("", &[]), |_, _| {});
            (n < rest.len() && !rest[..n].iter().any(|a| a.text.contains('s')))
                .then(|| rest[n..].to_vec())
        }
        ("fd" | "fdfind", _) => {
            let n = rest
                .iter()
                .position(|a| matches!(a.text.as_str(), "-x" | "-X" | "--exec" | "--exec-batch"))?;
            (n + 1 < rest.len()).then(|| rest[n + 1..].to_vec())
        }
        _ => None,
    }
}

/// Whether the argv [`rewrite`] gives gets arguments added when it runs (`fd -x`: each file).
pub(super) fn adds_arguments(name: &str) -> bool {
    matches!(name, "fd" | "fdfind" | "entr")
}

/// The value of the long option `--name=V` / `--name V` (or short `-s V` / `-sV`) among `args`.
fn option_values<'a>(args: &'a [Arg], long: &[&str], short: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let t = a.text.as_str();
        for l in long {
            if let Some(v) = t.strip_prefix(l) {
                if let Some(v) = v.strip_prefix('=') {
                    out.push(v);
                } else if v.is_empty()
                    && let Some(n) = args.get(i + 1)
                {
                    out.push(n.text.as_str());
                }
            }
        }
        for s in short {
            if t == *s {
                if let Some(n) = args.get(i + 1) {
                    out.push(n.text.as_str());
                }
            } else if let Some(v) = t.strip_prefix(s)
                && !t.starts_with("--")
                && !v.is_empty()
            {
                out.push(v);
            }
        }
    }
    out
}

/// Shell text the program in `argv` runs as written, from its arguments and options.
pub(super) fn texts(argv: &[Arg]) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let rest = &argv[1..];
    let name = basename(&first.text);
    let operands = |spec: &Spec| -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < rest.len() {
            let n = options(&rest[i..], spec, |_, _| {});
            match rest.get(i + n) {
                Some(a) => out.push(a.text.clone()),
                None => break,
            }
            i += n + 1;
        }
        out
    };
    let mut out: Vec<String> = Vec::new();
    match name {
        "nix-shell" => {
            let v = option_values(rest, &["--run", "--command"], &[]);
            out.extend(v.into_iter().map(str::to_owned));
        }
        "hyperfine" => {
            let s = spec(
                "wrmMpcnLPsSuNe",
                &[
                    "warmup",
                    "runs",
                    "min-runs",
                    "max-runs",
                    "prepare",
                    "conclude",
                    "cleanup",
                    "setup",
                    "parameter-scan",
                    "parameter-step-size",
                    "parameter-list",
                    "shell",
                    "style",
                    "sort",
                    "time-unit",
                    "export-asciidoc",
                    "export-csv",
                    "export-json",
                    "export-markdown",
                    "export-orgmode",
                    "command-name",
                    "output",
                    "input",
                    "reference",
                ],
            );
            out.extend(operands(&s));
            let v = option_values(
                rest,
                &[
                    "--prepare",
                    "--cleanup",
                    "--setup",
                    "--conclude",
                    "--reference",
                ],
                &["-p", "-c", "-s"],
            );
            out.extend(v.into_iter().map(str::to_owned));
        }
        "concurrently" => {
            let s = spec(
                "nckpsrlP",
                &[
                    "names",
                    "name-separator",
                    "prefix",
                    "prefix-colors",
                    "prefix-length",
                    "timestamp-format",
                    "kill-others-on-fail",
                    "success",
                    "restart-tries",
                    "restart-after",
                    "max-processes",
                    "handle-input",
                    "default-input-target",
                    "passthrough-arguments",
                ],
            );
            out.extend(operands(&s));
        }
        "nodemon" => {
            let v = option_values(rest, &["--exec"], &["-x"]);
            out.extend(v.into_iter().map(str::to_owned));
        }
        "watchexec" if !rest.iter().any(|a| a.text == "--") => {
            let s = spec(
                "wefdpsWEo",
                &[
                    "watch",
                    "exts",
                    "filter",
                    "ignore",
                    "debounce",
                    "delay-run",
                    "signal",
                    "shell",
                    "project-origin",
                    "on-busy-update",
                    "env",
                    "workdir",
                ],
            );
            out.extend(operands(&s).into_iter().take(1));
        }
        "entr"
            if rest
                .iter()
                .any(|a| a.text.starts_with('-') && a.text.contains('s')) =>
        {
            out.extend(operands(&spec("", &[])).into_iter().take(1));
        }
        "sg" | "newgrp" => out.extend(
            option_values(rest, &[], &["-c"])
                .into_iter()
                .map(str::to_owned),
        ),
        "expect" => {
            // `spawn CMD ARGS` and `exec CMD ARGS` in its script run CMD.
            for v in option_values(rest, &[], &["-c"]) {
                for line in v.split([';', '\n']) {
                    let line = line.trim();
                    if let Some(cmd) = line
                        .strip_prefix("spawn ")
                        .or_else(|| line.strip_prefix("exec "))
                    {
                        out.push(cmd.to_owned());
                    }
                }
            }
        }
        "tar" | "gtar" | "bsdtar" => {
            for v in option_values(
                rest,
                &[
                    "--checkpoint-action",
                    "--to-command",
                    "--use-compress-program",
                    "--info-script",
                    "--new-volume-script",
                    "--rsh-command",
                ],
                &["-I", "-F"],
            ) {
                let v = v.strip_prefix("exec=").unwrap_or(v);
                out.push(v.to_owned());
            }
        }
        "rsync" => {
            for v in option_values(rest, &["--rsh", "--rsync-path"], &["-e"]) {
                out.push(v.to_owned());
            }
        }
        "man" => out.extend(
            option_values(rest, &["--pager", "--html"], &["-P", "-H"])
                .into_iter()
                .map(str::to_owned),
        ),
        "zip" => out.extend(
            option_values(rest, &["--unzip-command"], &["-TT"])
                .into_iter()
                .map(str::to_owned),
        ),
        "git" => out.extend(git_texts(rest)),
        _ => {}
    }
    out
}

/// Shell text `git submodule foreach CMD` runs in each submodule (git's own `-c` programs
/// and aliases are judged by the guard's git rules).
fn git_texts(rest: &[Arg]) -> Vec<String> {
    let mut i = 0;
    while let Some(t) = rest.get(i).map(|a| a.text.as_str()) {
        if !t.starts_with('-') {
            break;
        }
        if matches!(t, "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") {
            i += 1;
        }
        i += 1;
    }
    if rest.get(i).is_none_or(|a| a.text != "submodule") {
        return Vec::new();
    }
    let sub = &rest[i + 1..];
    let Some(n) = sub.iter().position(|a| a.text == "foreach") else {
        return Vec::new();
    };
    let words: Vec<&str> = sub[n + 1..]
        .iter()
        .map(|a| a.text.as_str())
        .skip_while(|t| t.starts_with('-'))
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    vec![words.join(" ")]
}

/// Programs known not to run their arguments as a command: their words are data (messages,
/// patterns, names), never judged as an embedded command.
const NOT_RUNNERS: &[&str] = &[
    "echo",
    "printf",
    "print",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "cat",
    "ls",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "sed",
    "awk",
    "gawk",
    "jq",
    "yq",
    "test",
    "[",
    "[[",
    "true",
    "false",
    ":",
    "man",
    "less",
    "more",
    "which",
    "type",
    "whereis",
    "whatis",
    "help",
    "tldr",
    "info",
    "apropos",
    "diff",
    "cmp",
    "touch",
    "mkdir",
    "chmod",
    "chown",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "file",
    "date",
    "sleep",
    "ps",
    "pgrep",
    "pkill",
    "tee",
    "column",
    "fmt",
    "fold",
    "nl",
    "rev",
    "base64",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "expr",
    "seq",
    "yes",
    "printenv",
    "export",
    "alias",
    "unalias",
    "declare",
    "local",
    "read",
    "set",
    "unset",
    "history",
    "hash",
    "complete",
    "compgen",
    "cd",
    "pushd",
    "popd",
    "git-dibs",
    "wait",
    "jobs",
    "fg",
    "bg",
    "disown",
    "logger",
    "notify-send",
    "say",
    "espeak",
    "wall",
    "write",
    "mail",
    "curl",
    "wget",
    "http",
    "xh",
    "openssl",
    "code",
    "subl",
    "open",
    "xdg-open",
    "pbcopy",
    "xclip",
    "wl-copy",
    "fzf",
    "bat",
    "glow",
    "tree",
    "du",
    "df",
    "free",
    "uptime",
    "id",
    "whoami",
    "groups",
    "uname",
    "hostname",
    "locale",
    "cowsay",
    "figlet",
    "toilet",
    "banner",
    "apt",
    "apt-get",
    "apt-cache",
    "dpkg",
    "brew",
    "pip",
    "pip3",
    "cargo",
    "rustup",
    "go",
    "gem",
    "composer",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "claude",
    "codex",
    "gemini",
    "cursor",
    "aider",
    "llm",
    "ollama",
    "gh",
    "command",
    "builtin",
    "enable",
    "trap",
    "ssh",
    "mosh",
    "autossh",
    "scp",
    "sftp",
    "kill",
    "killall",
    "lsof",
    "fuser",
    "strings",
    "nm",
    "objdump",
    "ldd",
];

/// Where a command the program in `argv` may run starts, for a program the guard does not
/// know: the first argument that names a program the guard judges.
pub(super) fn fallback(argv: &[Arg]) -> Option<usize> {
    let name = basename(&argv.first()?.text);
    if NOT_RUNNERS.contains(&name) || JUDGED.contains(&name) || super::is_shell(name) {
        return None;
    }
    let at = argv[1..]
        .iter()
        .position(|a| !(a.var || a.cmdsub) && JUDGED.contains(&basename(&a.text)))?;
    Some(at + 1)
}

//! Peeling wrapper commands (`env`, `sudo`, `nohup`, `timeout`, `xargs`, ...) off an argv, and
//! recognising a nested shell (`bash -c STRING`, or a shell reading commands from stdin).

use super::expand::Arg;
use super::shells::shell_mode;
pub(super) use super::shells::{FOREIGN_SHELLS, SHELLS, is_posix_shell};
use super::state::INHERITED;
use super::wrapper_specs::{JUDGED, LOOSE_WRAPPERS, simple_wrapper};

/// How a shell found at the front of an argv gets its commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Shell {
    /// `-c STRING`.
    Command(Arg),
    /// No script operand: commands come from standard input.
    Stdin,
    /// A script file operand.
    Script(Arg),
}

/// An argv with its wrappers peeled off.
#[derive(Clone, Debug, Default)]
pub(super) struct Peeled {
    pub(crate) argv: Vec<Arg>,
    /// Assignments given through `env NAME=v` or `sudo NAME=v`.
    pub(crate) assignments: Vec<(String, String)>,
    /// A directory given by `env -C DIR` or `sudo -D DIR`.
    pub(crate) chdir: Option<Arg>,
    pub(crate) xargs: bool,
    /// A wrapper runs the command as a separate process (so `cd` changes nothing).
    pub(crate) external: bool,
    pub(crate) shell: Option<Shell>,
    /// More wrappers than [`MAX_WRAPPERS`] were stacked; the rest was not peeled.
    pub(crate) exhausted: bool,
    /// The command runs under another root (`chroot DIR`) or behind a wrapper whose options
    /// are not modelled: the paths it names are not known.
    pub(crate) rooted: bool,
    /// `xargs -I STR`: the string replaced by each input item.
    pub(crate) replace: Option<String>,
    /// The shell is not a POSIX one (fish, csh, pwsh, nu, ...): its text is not parsed here.
    pub(crate) foreign: bool,
}

/// Most wrappers peeled off one command.
const MAX_WRAPPERS: usize = 64;

/// The option grammar of one wrapper.
pub(super) struct Spec {
    /// Short options that take an argument.
    pub(super) short_arg: &'static str,
    /// Short options whose argument may only be attached (`-i{}`, `-e`).
    pub(super) short_opt_arg: &'static str,
    /// Long options that take an argument in the next word when no `=` is given.
    pub(super) long_arg: &'static [&'static str],
}

/// Walk the options of a wrapper; returns the index of the first operand. `on` sees each
/// option name (short as a one-letter string) and its argument.
pub(super) fn options(args: &[Arg], spec: &Spec, mut on: impl FnMut(&str, Option<&Arg>)) -> usize {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i].text;
        if a == "--" {
            return i + 1;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => {
                    let v = Arg {
                        text: value.to_string(),
                        ..args[i].clone()
                    };
                    on(name, Some(&v));
                }
                None if spec.long_arg.contains(&long) => {
                    on(long, args.get(i + 1));
                    i += 1;
                }
                None => on(long, None),
            }
            i += 1;
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return i;
        };
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            let name = c.to_string();
            if spec.short_arg.contains(c) {
                if rest.is_empty() {
                    on(&name, args.get(i + 1));
                    i += 1;
                } else {
                    on(
                        &name,
                        Some(&Arg {
                            text: rest.to_string(),
                            ..args[i].clone()
                        }),
                    );
                }
                break;
            }
            if spec.short_opt_arg.contains(c) {
                on(&name, Some(&Arg::plain(rest)));
                break;
            }
            on(&name, None);
        }
        i += 1;
    }
    args.len()
}

/// Leading `NAME=value` words; returns how many there are.
fn take_assignments(args: &[Arg], out: &mut Vec<(String, String)>) -> usize {
    let mut n = 0;
    for a in args {
        match a.text.split_once('=') {
            Some((name, v))
                if name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push((name.to_string(), v.to_string()));
                n += 1;
            }
            _ => break,
        }
    }
    n
}

/// The last path component of a program name.
pub(super) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Peel wrappers off `argv` until a real command remains.
pub(super) fn peel(mut argv: Vec<Arg>) -> Peeled {
    let mut p = Peeled::default();
    for round in 0.. {
        if round == MAX_WRAPPERS {
            p.exhausted = true;
            break;
        }
        let Some(first) = argv.first() else { break };
        // zsh's `=git` is the path of `git`.
        if let Some(bare) = first.text.strip_prefix('=').filter(|b| !b.is_empty()) {
            let bare = bare.to_owned();
            argv[0].text = bare;
        }
        let name = basename(&argv[0].text).to_string();
        let rest = &argv[1..];
        if let Some(run) = super::js_runners::rewrite(&name, rest)
            .or_else(|| super::file_tools::rewrite(&name, rest))
            .or_else(|| super::runners::rewrite(&name, rest))
        {
            p.external = true;
            p.xargs |= super::runners::adds_arguments(&name);
            argv = run;
            continue;
        }
        let start = match name.as_str() {
            "env" => {
                p.external = true;
                let mut split: Option<String> = None;
                let mut chdir = None;
                let spec = Spec {
                    short_arg: "uCSP",
                    short_opt_arg: "",
                    long_arg: &["unset", "chdir", "split-string"],
                };
                let mut unset: Vec<String> = Vec::new();
                let mut n = options(rest, &spec, |o, v| match (o, v) {
                    ("C" | "chdir", Some(v)) => chdir = Some(v.clone()),
                    ("S" | "split-string", Some(v)) => split = Some(v.text.clone()),
                    ("u" | "unset", Some(v)) => unset.push(v.text.clone()),
                    ("i" | "ignore-environment", None) => {
                        unset.extend(INHERITED.map(str::to_owned));
                    }
                    _ => {}
                });
                if rest.get(n).is_some_and(|a| a.text == "-") {
                    unset.extend(INHERITED.map(str::to_owned));
                }
                // An unset variable reads as set to nothing (git takes an empty one as unset).
                p.assignments
                    .extend(unset.into_iter().map(|k| (k, String::new())));
                if rest.get(n).is_some_and(|a| a.text == "-") {
                    n += 1;
                }
                if chdir.is_some() {
                    p.chdir = chdir;
                }
                n += take_assignments(&rest[n..], &mut p.assignments);
                if let Some(s) = split {
                    let mut v: Vec<Arg> = s.split_whitespace().map(Arg::plain).collect();
                    v.extend_from_slice(&rest[n..]);
                    p.external = true;
                    argv = v;
                    continue;
                }
                Some(n)
            }
            "sudo" | "doas" => {
                p.external = true;
                let mut listing = false;
                let mut chdir = None;
                let spec = Spec {
                    short_arg: "ugpCDrtTUcRh",
                    short_opt_arg: "",
                    long_arg: &[
                        "user",
                        "group",
                        "prompt",
                        "close-from",
                        "chdir",
                        "role",
                        "type",
                        "command-timeout",
                        "other-user",
                        "login-class",
                        "host",
                        "chroot",
                    ],
                };
                let mut shell = false;
                let mut n = options(rest, &spec, |o, v| match (o, v) {
                    ("D" | "chdir", Some(v)) => chdir = Some(v.clone()),
                    ("l" | "list" | "v" | "validate" | "k" | "K" | "V" | "version", _) => {
                        listing = true;
                    }
                    ("s" | "shell" | "i" | "login", _) => shell = true,
                    _ => {}
                });
                if chdir.is_some() {
                    p.chdir = chdir;
                }
                n += take_assignments(&rest[n..], &mut p.assignments);
                if shell && n < rest.len() {
                    // `sudo -s CMD...`: the words are run as shell text.
                    let text = rest[n..]
                        .iter()
                        .map(|a| a.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    argv = vec![Arg::plain("sh"), Arg::plain("-c"), Arg::plain(&text)];
                    continue;
                }
                (!listing || n < rest.len()).then_some(n)
            }
            "command" => {
                let mut lookup = false;
                let spec = Spec {
                    short_arg: "",
                    short_opt_arg: "",
                    long_arg: &[],
                };
                let n = options(rest, &spec, |o, _| lookup |= o == "v" || o == "V");
                (!lookup).then_some(n)
            }
            "builtin" => Some(usize::from(rest.first().is_some_and(|a| a.text == "--"))),
            // zsh's precommand modifiers, and `repeat N CMD`.
            "noglob" | "nocorrect" | "-" => Some(0),
            "repeat" => (rest.len() > 1).then_some(1),
            // `at`/`batch` run shell text from their input (or `-f FILE`).
            "at" | "batch" => {
                let mut file = None;
                let mut listing = false;
                let spec = Spec {
                    short_arg: "fqtM",
                    short_opt_arg: "",
                    long_arg: &[],
                };
                options(rest, &spec, |o, v| match (o, v) {
                    ("f", Some(v)) => file = Some(v.clone()),
                    ("l" | "d" | "r" | "c" | "V", _) => listing = true,
                    _ => {}
                });
                if !listing {
                    p.shell = Some(file.map_or(Shell::Stdin, Shell::Script));
                }
                break;
            }
            // `coproc CMD ...` runs CMD in the background (`coproc NAME { ...; }` does not parse
            // as a simple command and is put to the person as unreadable).
            "coproc" => {
                p.external = true;
                Some(0)
            }
            "exec" => {
                let spec = Spec {
                    short_arg: "a",
                    short_opt_arg: "",
                    long_arg: &[],
                };
                Some(options(rest, &spec, |_, _| {}))
            }
            "nohup" | "setsid" => {
                p.external = true;
                let spec = Spec {
                    short_arg: "",
                    short_opt_arg: "",
                    long_arg: &[],
                };
                Some(options(rest, &spec, |_, _| {}))
            }
            "time" | "stdbuf" | "gstdbuf" | "nice" | "ionice" => {
                p.external = true;
                let spec = match name.as_str() {
                    "time" => Spec {
                        short_arg: "fo",
                        short_opt_arg: "",
                        long_arg: &["format", "output"],
                    },
                    "stdbuf" | "gstdbuf" => Spec {
                        short_arg: "ioe",
                        short_opt_arg: "",
                        long_arg: &["input", "output", "error"],
                    },
                    "nice" => Spec {
                        short_arg: "n",
                        short_opt_arg: "",
                        long_arg: &["adjustment"],
                    },
                    _ => Spec {
                        short_arg: "cnpPu",
                        short_opt_arg: "",
                        long_arg: &["class", "classdata", "pid", "pgid", "uid"],
                    },
                };
                Some(options(rest, &spec, |_, _| {}))
            }
            "chroot" => {
                p.external = true;
                let spec = Spec {
                    short_arg: "",
                    short_opt_arg: "",
                    long_arg: &["userspec", "groups"],
                };
                let n = options(rest, &spec, |_, _| {});
                // Paths under another root are not the paths written here.
                if rest
                    .get(n)
                    .is_some_and(|r| !r.text.trim_end_matches('/').is_empty())
                {
                    p.rooted = true;
                }
                (n < rest.len()).then_some(n + 1)
            }
            "flock" => {
                p.external = true;
                let mut command = false;
                let spec = Spec {
                    short_arg: "wEc",
                    short_opt_arg: "",
                    long_arg: &["timeout", "wait", "conflict-exit-code", "command"],
                };
                let n = options(rest, &spec, |o, _| command |= o == "c" || o == "command");
                // `flock FILE -c TEXT` is read as shell text (`effects::embedded`).
                let c = rest
                    .get(n + 1)
                    .is_some_and(|a| a.text == "-c" || a.text == "--command");
                (!command && !c && n < rest.len()).then_some(n + 1)
            }
            name if let Some((spec, skip)) = simple_wrapper(name) => {
                p.external = true;
                let mut no_command = false;
                let n = options(rest, &spec, |o, v| match (o, v) {
                    // taskset -p / chrt -p / -m: a process id or a listing, no command.
                    ("p" | "pid" | "m" | "max", _) if skip > 0 => no_command = true,
                    ("w" | "wd" | "working-directory", Some(v)) if name == "unshare" => {
                        p.chdir = Some(v.clone());
                    }
                    ("R" | "root", Some(_)) if name == "unshare" => p.rooted = true,
                    _ => {}
                });
                (!no_command).then_some(n + skip)
            }
            "timeout" | "gtimeout" => {
                p.external = true;
                let spec = Spec {
                    short_arg: "sk",
                    short_opt_arg: "",
                    long_arg: &["signal", "kill-after"],
                };
                let n = options(rest, &spec, |_, _| {});
                // Skip the DURATION operand.
                (n < rest.len()).then_some(n + 1)
            }
            "xargs" | "gxargs" => {
                p.external = true;
                p.xargs = true;
                let spec = Spec {
                    short_arg: "adEILnPs",
                    short_opt_arg: "eil",
                    long_arg: &[
                        "arg-file",
                        "delimiter",
                        "max-args",
                        "max-procs",
                        "max-chars",
                        "process-slot-var",
                    ],
                };
                let mut replace = None;
                let n = options(rest, &spec, |o, v| {
                    if matches!(o, "I" | "i" | "replace") {
                        let v = v.map(|v| v.text.clone()).filter(|v| !v.is_empty());
                        replace = Some(v.unwrap_or_else(|| "{}".to_owned()));
                    }
                });
                p.replace = replace;
                if n >= rest.len() {
                    argv = vec![Arg::plain("echo")];
                    break;
                }
                Some(n)
            }
            // GNU parallel runs its command once per argument (`::: ARGS`, a file, the input).
            "parallel" => {
                p.external = true;
                p.xargs = true;
                let spec = Spec {
                    short_arg: "jaSEIdnNPsC",
                    short_opt_arg: "",
                    long_arg: &[
                        "jobs",
                        "arg-file",
                        "sshlogin",
                        "delimiter",
                        "max-args",
                        "colsep",
                        "joblog",
                        "results",
                        "tmpdir",
                        "timeout",
                        "retries",
                        "workdir",
                        "max-procs",
                    ],
                };
                let n = options(rest, &spec, |_, _| {});
                // Literal arguments (`::: ARGS`): each command line is known, and is read as
                // written by [`super::small_tools`].
                let groups: Vec<&str> = rest[n.min(rest.len())..]
                    .iter()
                    .map(|a| a.text.as_str())
                    .filter(|t| t.starts_with(":::"))
                    .collect();
                if !groups.is_empty() && groups.iter().all(|g| matches!(*g, ":::" | ":::+")) {
                    p.external = false;
                    p.xargs = false;
                    break;
                }
                if n >= rest.len() || rest[n].text.starts_with(":::") {
                    break;
                }
                Some(n)
            }
            s if SHELLS.contains(&s) => {
                p.shell = shell_mode(rest);
                break;
            }
            s if FOREIGN_SHELLS.contains(&s) => {
                p.foreign = true;
                p.shell = Some(if rest.is_empty() {
                    Shell::Stdin
                } else {
                    let text: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
                    Shell::Command(Arg::plain(&text.join(" ")))
                });
                break;
            }
            s if LOOSE_WRAPPERS.contains(&s) => {
                p.external = true;
                p.rooted = true;
                rest.iter()
                    .position(|a| JUDGED.contains(&basename(&a.text)))
            }
            _ => None,
        };
        match start {
            Some(n) if n < rest.len() => {
                argv = argv.split_off(n + 1);
            }
            _ => break,
        }
    }
    p.argv = argv;
    p
}

//! The shells the parser knows: POSIX ones whose text it reads, non-POSIX ones (fish, csh,
//! pwsh, ...) whose text is judged on its words, and how a shell's arguments give it commands.

use super::expand::Arg;
use super::wrappers::Shell;

pub(super) const SHELLS: &[&str] = &[
    "bash", "rbash", "sh", "zsh", "dash", "ksh", "ksh93", "oksh", "lksh", "pdksh", "mksh", "ash",
    "yash", "posh", "osh", "bash5",
];

/// Shells whose syntax is not POSIX's: their text is judged on its words alone (fail closed).
pub(super) const FOREIGN_SHELLS: &[&str] = &[
    "fish",
    "csh",
    "tcsh",
    "pwsh",
    "powershell",
    "nu",
    "xonsh",
    "elvish",
    "ysh",
    "ion",
    "rc",
    "es",
    "murex",
    "tclsh",
    "wish",
];

/// Whether `name` is a shell whose `((` opens two subshells (no arithmetic command).
pub(super) fn is_posix_shell(name: &str) -> bool {
    matches!(name, "sh" | "dash" | "ash" | "posh")
}

/// How a shell invoked with these arguments (after its name) gets its commands.
pub(super) fn shell_mode(args: &[Arg]) -> Option<Shell> {
    let mut command = false;
    let mut stdin = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].text.as_str();
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            i += 1;
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').or_else(|| a.strip_prefix('+')) else {
            break;
        };
        if cluster.is_empty() {
            break;
        }
        command |= cluster.contains('c');
        // `-s`: commands come from standard input, the operands are positional parameters.
        stdin |= cluster.contains('s') && !a.starts_with('+');
        // `-o NAME` / `-O NAME` take the next word.
        i += 1 + cluster.chars().filter(|&c| c == 'o' || c == 'O').count();
    }
    if command {
        return args.get(i).cloned().map(Shell::Command);
    }
    if stdin {
        return Some(Shell::Stdin);
    }
    match args.get(i) {
        None => Some(Shell::Stdin),
        Some(file) => Some(Shell::Script(file.clone())),
    }
}

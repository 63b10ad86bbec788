//! Programs that run code the shell parser cannot follow: interpreters with inline code or a
//! script in reach (`python -c`, `perl -e`, `node -e`, `ruby -e`, `php -r`), `awk` with
//! `system()` or pipes, `sed` with its `e` command, and `make` (its makefile's recipes). The
//! code is looked into; when it may reach a guarded operation, the command is judged by what is
//! at risk within reach ([`super::Op::Runs`]).

use std::path::Path;

/// Largest script or makefile read.
const MAX_CODE: u64 = 256 * 1024;

/// Words in code that give it the power to delete files or run other programs: code without
/// any of them (`print('git reset --hard')`) can do neither.
const CAPABLE: &[&str] = &[
    "os",
    "subprocess",
    "shutil",
    "pathlib",
    "__import__",
    "exec",
    "eval",
    "execfile",
    "system",
    "popen",
    "spawn",
    "spawnSync",
    "execSync",
    "execFileSync",
    "child_process",
    "fs",
    "fsPromises",
    "Deno",
    "Bun",
    "FileUtils",
    "File",
    "Dir",
    "IO",
    "Open3",
    "unlink",
    "rmtree",
    "rmdir",
    "remove",
    "qx",
    "syscall",
    "proc_open",
    "passthru",
    "shell_exec",
];

fn read(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CODE {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Whether code text may delete files or run a guarded command.
fn code_reaches(text: &str) -> bool {
    text.contains('`')
        || text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| CAPABLE.contains(&w))
}

const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("perl", &["-e", "-E"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("tclsh", &[]),
    ("Rscript", &["-e"]),
];

/// What `argv` runs that may reach a guarded operation, when it is such a program.
pub(crate) fn runs(argv: &[String], cwd: &Path) -> Option<String> {
    let name = argv.first()?.rsplit('/').next()?;
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let args = &argv[1..];
    if let Some((_, flags)) = INTERPRETERS.iter().find(|(n, _)| *n == stem) {
        // Inline code.
        if let Some(i) = args.iter().position(|a| flags.contains(&a.as_str())) {
            let code = args.get(i + 1)?;
            return code_reaches(code).then(|| format!("`{name}` runs inline code that may"));
        }
        // `python -m module`, `node --version`: not code in reach of this rule.
        let script = args.iter().find(|a| !a.starts_with('-'))?;
        if args
            .iter()
            .take_while(|a| a.starts_with('-'))
            .any(|a| a == "-m")
        {
            return None;
        }
        let text = read(&cwd.join(script));
        return match text {
            Some(t) if !code_reaches(&t) => None,
            Some(_) => Some(format!("the script `{script}` that `{name}` runs may")),
            None => Some(format!(
                "`{name}` runs `{script}`, which git-dibs cannot read, and it may"
            )),
        };
    }
    match stem {
        "awk" | "gawk" | "mawk" | "nawk" => {
            let program = awk_program(args, cwd)?;
            let runs = program.contains("system") || program.contains('|');
            runs.then(|| format!("`{name}` runs commands that may"))
        }
        "sed" | "gsed" => {
            let scripts = sed_scripts(args);
            scripts
                .iter()
                .any(|s| sed_executes(s))
                .then(|| format!("`{name}` runs text as commands (its `e` command), which may"))
        }
        "make" | "gmake" => {
            let makefile = makefile(args, cwd)?;
            let text = read(&makefile)?;
            let risky = text
                .lines()
                .filter(|l| l.starts_with('\t') || l.contains(';'))
                .any(recipe_reaches);
            risky.then(|| format!("the recipes of {} may", makefile.display()))
        }
        _ => None,
    }
}

fn awk_program(args: &[String], cwd: &Path) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-f" {
            return read(&cwd.join(args.get(i + 1)?));
        }
        if matches!(a, "-v" | "-F") {
            i += 2;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            i += 1;
            continue;
        }
        return Some(a.to_owned());
    }
    None
}

fn sed_scripts(args: &[String]) -> Vec<String> {
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
fn sed_executes(script: &str) -> bool {
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

fn makefile(args: &[String], cwd: &Path) -> Option<std::path::PathBuf> {
    let mut dir = cwd.to_path_buf();
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-C" | "--directory" => {
                dir = dir.join(args.get(i + 1)?);
                i += 1;
            }
            "-f" | "--file" | "--makefile" => {
                file = args.get(i + 1).cloned();
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    match file {
        Some(f) => Some(dir.join(f)),
        None => ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| p.is_file()),
    }
}

/// Whether a recipe line may destroy work beyond its own build output: a git command that
/// sweeps, resets, cleans, deletes branches or worktrees, or `rm -r` of a path outside the
/// project (`..`, absolute, a variable).
fn recipe_reaches(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let git_risky = words.windows(2).any(|w| {
        w[0].ends_with("git")
            && matches!(
                w[1],
                "worktree"
                    | "branch"
                    | "reset"
                    | "clean"
                    | "stash"
                    | "checkout"
                    | "restore"
                    | "push"
                    | "update-ref"
                    | "switch"
                    | "add"
                    | "commit"
                    | "rm"
            )
    });
    let rm_risky = words
        .iter()
        .position(|w| w.ends_with("rm"))
        .is_some_and(|i| {
            let rest = &words[i + 1..];
            rest.iter()
                .any(|w| w.starts_with('-') && w.contains(['r', 'R']))
                && rest.iter().any(|w| {
                    w.starts_with('/') || w.contains("..") || w.starts_with('$') || *w == "*"
                })
        });
    git_risky || rm_risky || line.contains("$(shell")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn inline_code_is_looked_into() {
        let d = Path::new("/nonexistent");
        assert!(
            runs(
                &argv(&["python3", "-c", "import shutil; shutil.rmtree('x')"]),
                d
            )
            .is_some()
        );
        assert!(runs(&argv(&["python3", "-c", "print(1)"]), d).is_none());
        assert!(runs(&argv(&["perl", "-e", "system('git reset --hard')"]), d).is_some());
        assert!(runs(&argv(&["node", "-e", "require('fs').rmSync('x')"]), d).is_some());
        assert!(runs(&argv(&["python", "-m", "pytest"]), d).is_none());
        assert!(runs(&argv(&["python", "missing.py"]), d).is_some());
        assert!(runs(&argv(&["awk", "{ system(\"rm -rf \" $1) }"]), d).is_some());
        assert!(runs(&argv(&["awk", "{ print $1 }"]), d).is_none());
        assert!(runs(&argv(&["sed", "s/x/y/e", "f"]), d).is_some());
        assert!(runs(&argv(&["sed", "-e", "1e git reset --hard", "f"]), d).is_some());
        assert!(runs(&argv(&["sed", "-i", "s/x/y/g", "f"]), d).is_none());
        assert!(runs(&argv(&["ls"]), d).is_none());
    }

    #[test]
    fn recipes() {
        assert!(recipe_reaches("\tgit reset --hard"));
        assert!(recipe_reaches("\trm -rf ../other"));
        assert!(!recipe_reaches("\trm -rf build"));
        assert!(!recipe_reaches("\tcargo test"));
    }
}

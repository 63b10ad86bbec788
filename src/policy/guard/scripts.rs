//! Package-manager scripts (`npm run X`, `npm test`, `yarn X`, `pnpm [run] X`, `bun [run] X`): the
//! script text from the nearest `package.json` (from the command's directory up), with its `pre`/`post` hooks, to
//! be read like `bash -c TEXT`. A `package.json` that cannot be read leaves the script unknown.

use std::collections::HashMap;
use std::path::Path;

/// How many folders upward a `package.json` is looked for.
const MAX_UP: usize = 64;
/// Largest `package.json` read.
const MAX_PACKAGE: u64 = 256 * 1024;

/// npm subcommands that run the script of the same name.
const NPM_SCRIPT_VERBS: &[&str] = &["test", "t", "tst", "start", "stop", "restart"];
/// yarn subcommands that are its own (anything else names a script).
const YARN_OWN: &[&str] = &[
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "create",
    "dlx",
    "exec",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "outdated",
    "owner",
    "pack",
    "policies",
    "publish",
    "remove",
    "set",
    "tag",
    "team",
    "unlink",
    "unplug",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
    "up",
    "explain",
    "plugin",
    "patch",
    "rebuild",
    "dedupe",
    "constraints",
    "npm",
    "search",
    "stage",
];

/// pnpm subcommands and aliases that are its own (`pnpm X` of anything else runs script X).
const PNPM_OWN: &[&str] = &[
    "add",
    "install",
    "i",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "un",
    "link",
    "ln",
    "unlink",
    "import",
    "rebuild",
    "rb",
    "prune",
    "fetch",
    "install-test",
    "it",
    "patch",
    "patch-commit",
    "patch-remove",
    "audit",
    "list",
    "ls",
    "ll",
    "la",
    "outdated",
    "why",
    "licenses",
    "exec",
    "dlx",
    "create",
    "run",
    "run-script",
    "test",
    "t",
    "tst",
    "start",
    "publish",
    "pack",
    "store",
    "root",
    "bin",
    "setup",
    "init",
    "env",
    "config",
    "c",
    "server",
    "deploy",
    "doctor",
    "self-update",
    "cat-file",
    "cat-index",
    "find-hash",
    "help",
    "recursive",
    "multi",
    "m",
    "approve-builds",
    "ignored-builds",
    "dedupe",
    "completion",
    "owner",
    "login",
    "logout",
    "whoami",
    "version",
    "view",
    "info",
    "search",
    "cache",
    "restart",
    "stop",
];
/// bun subcommands that are its own (`bun X` of anything else runs script X, or file X).
pub(crate) const BUN_OWN: &[&str] = &[
    "run",
    "test",
    "x",
    "repl",
    "exec",
    "install",
    "i",
    "add",
    "a",
    "remove",
    "rm",
    "update",
    "outdated",
    "link",
    "unlink",
    "pm",
    "build",
    "init",
    "create",
    "c",
    "upgrade",
    "publish",
    "patch",
    "patch-commit",
    "audit",
    "info",
    "why",
    "help",
    "completions",
    "discord",
];

#[derive(serde::Deserialize)]
struct Package {
    #[serde(default)]
    scripts: HashMap<String, Entry>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Entry {
    Text(String),
    Other(serde::de::IgnoredAny),
}

/// What a package script run amounts to.
pub(crate) enum Script {
    /// The shell text it runs (with its arguments), hooks first and last.
    Text(String),
    /// Its text cannot be read: why.
    Unknown(String),
}

/// Options naming the package's folder (`npm --prefix`, `pnpm -C`/`--dir`, `yarn`/`bun --cwd`).
const DIR_OPTIONS: &[&str] = &["--prefix", "-C", "--dir", "--cwd"];

/// The name of the package script `argv` runs and the folder it names, when it runs one.
fn script_name(argv: &[String]) -> Option<(String, Option<String>)> {
    let tool = argv.first()?.rsplit('/').next()?;
    let mut words: Vec<&String> = Vec::new();
    let mut dir = None;
    let mut it = argv[1..].iter();
    while let Some(a) = it.next() {
        if DIR_OPTIONS.contains(&a.as_str()) {
            dir = it.next().cloned();
        } else if let Some((k, v)) = a.split_once('=')
            && DIR_OPTIONS.contains(&k)
        {
            dir = Some(v.to_owned());
        } else if !a.starts_with('-') {
            words.push(a);
        }
    }
    let name = script_of(tool, &words)?;
    Some((name, dir))
}

fn script_of(tool: &str, words: &[&String]) -> Option<String> {
    let first = words.first()?.as_str();
    let run = matches!(first, "run" | "run-script" | "rum" | "urn");
    match tool {
        "npm" | "pnpm" if run => words.get(1).map(|w| (*w).clone()),
        "npm" | "pnpm" if NPM_SCRIPT_VERBS.contains(&first) => Some(match first {
            "t" | "tst" => "test".to_owned(),
            s => s.to_owned(),
        }),
        "yarn" if first == "run" => words.get(1).map(|w| (*w).clone()),
        "yarn" if !YARN_OWN.contains(&first) => Some(first.to_owned()),
        "pnpm" if !PNPM_OWN.contains(&first) => Some(first.to_owned()),
        "bun" if first == "run" => words.get(1).map(|w| (*w).clone()),
        "bun" if !BUN_OWN.contains(&first) => Some(first.to_owned()),
        _ => None,
    }
}

/// The script `argv` runs from the nearest `package.json` (from `cwd` or the folder an option
/// names, upward), and the
/// folder it runs in, when it is a package-manager script run. `read` gives a file's text as
/// written earlier in the line or on disk (`None`: no such file; `Some(None)`: not readable, as
/// one written earlier by a program whose output is not known).
pub(crate) fn package_script(
    argv: &[String],
    cwd: &Path,
    read: &dyn Fn(&Path) -> Option<Option<String>>,
) -> Option<(Script, std::path::PathBuf)> {
    let (name, dir) = script_name(argv)?;
    let start = dir.map_or_else(|| cwd.to_path_buf(), |d| cwd.join(d));
    // The package manager uses the nearest `package.json` upward; with none, it runs nothing.
    let (path, text) = start
        .ancestors()
        .take(MAX_UP)
        .map(|d| d.join("package.json"))
        .find_map(|p| read(&p).map(|t| (p, t)))?;
    let top = path
        .parent()
        .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
    let text = text.filter(|t| t.len() as u64 <= MAX_PACKAGE);
    let Some(text) = text else {
        return Some((
            Script::Unknown(format!(
                "the script `{name}` comes from {}, which git-dibs cannot read",
                path.display()
            )),
            top,
        ));
    };
    let Ok(pkg) = serde_json::from_str::<Package>(&text) else {
        return Some((
            Script::Unknown(format!(
                "the script `{name}` comes from {}, which git-dibs cannot parse",
                path.display()
            )),
            top,
        ));
    };
    let mut parts = Vec::new();
    for key in [format!("pre{name}"), name.clone(), format!("post{name}")] {
        match pkg.scripts.get(&key) {
            None => {}
            Some(Entry::Text(s)) => parts.push(s.clone()),
            Some(Entry::Other(_)) => {
                return Some((
                    Script::Unknown(format!(
                        "the script `{key}` in {} is not text",
                        path.display()
                    )),
                    top,
                ));
            }
        }
    }
    // No such script: the package manager runs nothing (or its own binary lookup).
    (!parts.is_empty()).then(|| (Script::Text(parts.join("\n")), top))
}

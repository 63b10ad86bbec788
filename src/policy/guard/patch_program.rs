//! GNU `patch` applying a patch in reverse on its own (red-team 4/03): `patch -R` of a patch
//! file (`< FILE`, `-i FILE`, `cat FILE |`, literal text, a file written earlier in the line)
//! reverts the files that patch names, read as `git apply -R FILE` is (with `-p`/`-d` as
//! patch takes them); `patch -R FILE` reverts FILE; a patch only known when it runs is asked.
//! Its options are read here for [`super::patches`] too.

use std::path::Path;

use super::patches::{Judged, program};
use super::{Op, Take};
use crate::git;
use crate::shell::{Input, SimpleCommand};

/// Largest patch file read.
const MAX_PATCH: u64 = 256 * 1024;

/// `patch`'s options, as far as the guard cares.
#[derive(Default)]
pub(super) struct PatchArgs {
    pub(super) reverse: bool,
    pub(super) dry: bool,
    pub(super) output: bool,
    pub(super) input: Option<String>,
    strip: Option<usize>,
    dir: Option<String>,
    operands: Vec<String>,
}

/// GNU patch's long options (it takes unambiguous prefixes).
const PATCH_LONGS: &[&str] = &[
    "reverse",
    "dry-run",
    "check",
    "input",
    "output",
    "strip",
    "directory",
    "forward",
    "batch",
    "force",
    "backup",
    "binary",
    "silent",
    "quiet",
    "verbose",
    "fuzz",
    "ignore-whitespace",
    "merge",
    "no-backup-if-mismatch",
    "posix",
    "reject-file",
    "remove-empty-files",
    "unified",
    "context",
    "normal",
    "ed",
    "follow-symlinks",
    "read-only",
    "suffix",
    "basename-prefix",
    "prefix",
    "version-control",
    "quoting-style",
    "reject-format",
    "set-time",
    "set-utc",
    "get",
    "help",
    "version",
];

impl PatchArgs {
    pub(super) fn parse(args: &[String]) -> PatchArgs {
        let mut p = PatchArgs::default();
        let mut i = 0;
        let mut ended = false;
        while i < args.len() {
            let a = super::options::full(&args[i], PATCH_LONGS);
            let next = args.get(i + 1).cloned();
            i += 1;
            if ended || !a.starts_with('-') || a == "-" {
                p.operands.push(a);
                continue;
            }
            if a == "--" {
                ended = true;
                continue;
            }
            if let Some(long) = a.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_owned())),
                    None => (long, None),
                };
                let mut value_or_next = || {
                    value.clone().or_else(|| {
                        i += 1;
                        next.clone()
                    })
                };
                match name {
                    "reverse" => p.reverse = true,
                    "dry-run" | "check" => p.dry = true,
                    "input" => p.input = value_or_next(),
                    "output" => {
                        p.output = true;
                        let _ = value_or_next();
                    }
                    "strip" => p.strip = value_or_next().and_then(|v| v.parse().ok()),
                    "directory" => p.dir = value_or_next(),
                    "fuzz" | "reject-file" | "suffix" | "basename-prefix" | "prefix"
                    | "version-control" | "quoting-style" | "reject-format" => {
                        let _ = value_or_next();
                    }
                    _ => {}
                }
                continue;
            }
            let flags: Vec<char> = a[1..].chars().collect();
            for (k, c) in flags.iter().enumerate() {
                let rest: String = flags[k + 1..].iter().collect();
                let mut value = || {
                    if rest.is_empty() {
                        i += 1;
                        next.clone()
                    } else {
                        Some(rest.clone())
                    }
                };
                match c {
                    'R' => p.reverse = true,
                    'i' => {
                        p.input = value();
                        break;
                    }
                    'o' => {
                        p.output = true;
                        let _ = value();
                        break;
                    }
                    'p' => {
                        p.strip = value().and_then(|v| v.parse().ok());
                        break;
                    }
                    'd' => {
                        p.dir = value();
                        break;
                    }
                    'D' | 'B' | 'F' | 'r' | 'V' | 'Y' | 'z' | 'g' | 'x' => {
                        let _ = value();
                        break;
                    }
                    _ => {}
                }
            }
        }
        p
    }
}

/// `patch -R` at `at` applying a patch it reads from a file (`-i FILE`, `< FILE`, `cat FILE |`,
/// literal text) or to a file it names: the files that patch names, reverted; a patch only
/// known when it runs is asked.
pub(super) fn patch_alone(cmds: &[SimpleCommand], at: usize) -> Option<Judged> {
    let cmd = &cmds[at];
    if !matches!(program(cmd), "patch" | "gpatch") {
        return None;
    }
    let p = PatchArgs::parse(&cmd.argv[1..]);
    if !p.reverse || p.dry || p.output {
        return None;
    }
    let dir = p
        .dir
        .as_deref()
        .map_or_else(|| cmd.cwd.clone(), |d| cmd.cwd.join(d));
    let judged = |specs: Vec<String>, unknown: Option<String>| Judged {
        op: Some(Op::Take(vec![Take::new(true, false, specs.clone())])),
        targets: specs,
        with: Vec::new(),
        cwd: dir.clone(),
        unknown,
    };
    // `patch -R FILE [PATCH]` reverts FILE.
    if let Some(target) = p.operands.first() {
        let spec = format!(":(literal){}", dir.join(target).display());
        return Some(judged(vec![spec], None));
    }
    let text = match (&p.input, &cmd.stdin) {
        (Some(f), _) => read_patch(cmd, &cmd.cwd.join(f)),
        (None, Input::Text(t)) => Ok(Some(t.clone())),
        (None, Input::File(f)) => read_patch(cmd, f),
        (None, Input::Unknown) => piped_files(cmds, at),
        (None, Input::Inherited) => return None,
    };
    let why = "the patch it applies in reverse is only known when it runs";
    let text = match text {
        Ok(Some(t)) => t,
        Ok(None) => return None,
        Err(()) => return Some(judged(vec!["$patch".into()], Some(why.into()))),
    };
    let mut specs = Vec::new();
    for name in patch_names(&text) {
        let mut candidates = Vec::new();
        match p.strip {
            Some(n) => candidates.push(strip(&name, n)),
            // Without `-p`, GNU patch takes a git diff's `a/`/`b/` off, else may use the name
            // as it is or its last part: every one counts.
            None => {
                candidates.push(name.clone());
                candidates.push(strip(&name, 1));
                candidates.push(name.rsplit('/').next().unwrap_or(&name).to_owned());
            }
        }
        for c in candidates.into_iter().filter(|c| !c.is_empty()) {
            let spec = format!(":(literal){}", dir.join(&c).display());
            if !specs.contains(&spec) {
                specs.push(spec);
            }
        }
    }
    if specs.is_empty() {
        return None;
    }
    Some(judged(specs, None))
}

/// `name` without its first `n` folders.
fn strip(name: &str, n: usize) -> String {
    name.splitn(n + 1, '/')
        .nth(n)
        .unwrap_or_default()
        .to_owned()
}

/// A patch file's text: as written earlier in the line when it was (`Err` when that content is
/// not known), else from disk (`None` when it is not there or not a readable regular file).
fn read_patch(cmd: &SimpleCommand, path: &Path) -> Result<Option<String>, ()> {
    let path = git::normalize(Path::new(""), path);
    if let Some((_, content)) = cmd.written.iter().rev().find(|(p, _)| *p == path) {
        return content.clone().map(Some).ok_or(());
    }
    let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file());
    if meta.as_ref().is_some_and(|m| m.len() > MAX_PATCH) {
        return Err(());
    }
    Ok(meta.and_then(|_| std::fs::read_to_string(&path).ok()))
}

/// The text of the files `cat FILE...` writes into the pipe `cmds[at]` reads; `Err` when its
/// writer is anything else.
fn piped_files(cmds: &[SimpleCommand], at: usize) -> Result<Option<String>, ()> {
    let pipe = cmds[at].pipe_in.ok_or(())?;
    let writer = cmds[..at]
        .iter()
        .rev()
        .find(|c| c.pipe_out == Some(pipe))
        .ok_or(())?;
    if program(writer) != "cat" || writer.unknown.is_some() {
        return Err(());
    }
    let mut text = String::new();
    for f in writer.argv[1..].iter().filter(|a| !a.starts_with('-')) {
        text.push_str(&read_patch(writer, &writer.cwd.join(f))?.ok_or(())?);
    }
    Ok(Some(text))
}

/// The file names a patch's `---`/`+++` lines name (not `/dev/null`), as written.
pub(super) fn patch_names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let name = line
            .strip_prefix("+++ ")
            .or_else(|| line.strip_prefix("--- "))
            .map(|n| n.split('\t').next().unwrap_or(n).trim());
        if let Some(n) = name.filter(|n| *n != "/dev/null" && !n.is_empty())
            && !out.iter().any(|o| o == n)
        {
            out.push(n.to_owned());
        }
    }
    out
}

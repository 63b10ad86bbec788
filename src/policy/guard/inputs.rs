//! What a git command reads into its arguments, read here when it is in reach:
//! `--pathspec-from-file`, `update-ref --stdin`, `update-index --stdin`/`--index-info`, the
//! patch of `apply -R`, and the words `xargs` adds from its input.

use crate::git::GitInvocation;
use crate::shell::{Input, SimpleCommand};

/// Largest `--pathspec-from-file` (or `xargs` input file) read.
const MAX_PATHSPEC_FILE: u64 = 64 * 1024;

/// `--pathspec-from-file=FILE` (or `-` for standard input): its pathspecs appended after `--`,
/// when the file is in reach; otherwise the pathspecs stay unknown.
pub(super) fn pathspec_file(inv: &mut GitInvocation, cmd: &SimpleCommand) {
    let mut file = None;
    let mut nul = false;
    let mut keep = Vec::new();
    let mut it = inv.args.iter();
    while let Some(a) = it.next() {
        if a == "--pathspec-from-file" {
            file = it.next().cloned();
        } else if let Some(v) = a.strip_prefix("--pathspec-from-file=") {
            file = Some(v.to_owned());
        } else {
            nul |= a == "--pathspec-file-nul";
            keep.push(a.clone());
        }
    }
    let Some(file) = file else { return };
    let text = if file == "-" {
        cmd.input.clone()
    } else {
        let path = inv.cwd.join(&file);
        std::fs::metadata(&path)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MAX_PATHSPEC_FILE)
            .and_then(|_| std::fs::read_to_string(&path).ok())
    };
    let specs: Vec<String> = match text {
        Some(t) => t
            .split(if nul { '\0' } else { '\n' })
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        // Unknown content: every path may be named.
        None => vec![":/".to_owned()],
    };
    if !keep.contains(&"--".to_owned()) {
        keep.push("--".into());
    }
    keep.extend(if specs.is_empty() {
        vec![":/".to_owned()]
    } else {
        specs
    });
    inv.args = keep;
}

/// `git update-ref --stdin` and `git apply -R`: what they read (standard input when literal, a
/// patch file in reach) rewritten into arguments the rules read; unknown input stays unknown.
pub(super) fn read_inputs(inv: &mut GitInvocation, cmd: &SimpleCommand) {
    let Some(sub) = inv.args.first().map(String::as_str) else {
        return;
    };
    match sub {
        "update-ref" if inv.args.iter().any(|a| a == "--stdin") => {
            let mut args = vec!["update-ref".to_owned(), "--stdin-delete".to_owned()];
            match &cmd.input {
                Some(text) => {
                    for line in text.lines() {
                        let words: Vec<&str> = line.split_whitespace().collect();
                        match words.as_slice() {
                            ["delete" | "update" | "create", r, ..]
                                if r.starts_with("refs/heads/") =>
                            {
                                args.push((*r).to_owned());
                            }
                            _ => {}
                        }
                    }
                    if args.len() == 2 {
                        return;
                    }
                }
                None => args.push("refs/heads/$stdin".to_owned()),
            }
            inv.args = args;
        }
        "update-index" => {
            let full = |a: &String| super::options::full(a, super::resets::UPDATE_INDEX_LONGS);
            let (mut stdin, mut info, mut nul) = (false, false, false);
            for a in inv.args[1..].iter().take_while(|a| *a != "--") {
                match full(a).as_str() {
                    "--stdin" => stdin = true,
                    "--index-info" => info = true,
                    "-z" => nul = true,
                    _ => {}
                }
            }
            if !stdin && !info {
                return;
            }
            inv.args.push(
                if info {
                    "--index-info-paths"
                } else {
                    "--stdin-paths"
                }
                .into(),
            );
            let Some(text) = &cmd.input else {
                inv.args.push("$stdin".into());
                return;
            };
            let records = text.split(if nul { '\0' } else { '\n' });
            for r in records.filter(|r| !r.is_empty()) {
                // `--index-info` lines: `MODE SHA [STAGE]\tPATH`.
                let path = if info {
                    r.split_once('\t').map_or(r, |(_, p)| p)
                } else {
                    r
                };
                inv.args.push(path.to_owned());
            }
        }
        "apply" => {
            let reverse = inv.args.iter().any(|a| a == "-R" || a == "--reverse");
            if !reverse {
                return;
            }
            let files: Vec<String> = inv.args[1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .cloned()
                .collect();
            let mut texts = Vec::new();
            if files.is_empty() {
                texts.push(cmd.input.clone());
            }
            for f in &files {
                let path = inv.cwd.join(f);
                let text = std::fs::metadata(&path)
                    .ok()
                    .filter(|m| m.is_file() && m.len() <= 4 * MAX_PATHSPEC_FILE)
                    .and_then(|_| std::fs::read_to_string(&path).ok());
                texts.push(text);
            }
            // Its options stay (`--check`, `--cached`); the patches become the paths.
            let mut args: Vec<String> = inv.args[..1].to_vec();
            args.extend(inv.args[1..].iter().filter(|a| a.starts_with('-')).cloned());
            if texts.iter().any(Option::is_none) {
                inv.args = args;
                return;
            }
            let mut paths: Vec<String> = Vec::new();
            for t in texts.into_iter().flatten() {
                for n in super::patch_program::patch_names(&t) {
                    let n = n.strip_prefix("a/").or(n.strip_prefix("b/")).unwrap_or(&n);
                    let spec = format!(":(top,literal){n}");
                    if !paths.contains(&spec) {
                        paths.push(spec);
                    }
                }
            }
            args.push("--".into());
            args.extend(paths);
            inv.args = args;
        }
        _ => {}
    }
}

/// The words `xargs` adds to its command from its input, when that input is known: literal text
/// (`echo ... |`, a here-string) or a file in reach (`< FILE`). `None`: only known when it runs.
pub(super) fn xargs_input(cmd: &SimpleCommand) -> Option<Vec<String>> {
    let text = match (&cmd.input, &cmd.stdin) {
        (Some(t), _) => t.clone(),
        (None, Input::Text(t)) => t.clone(),
        (None, Input::File(p)) => {
            let meta = std::fs::metadata(p).ok()?;
            if !meta.is_file() || meta.len() > MAX_PATHSPEC_FILE {
                return None;
            }
            std::fs::read_to_string(p).ok()?
        }
        _ => return None,
    };
    Some(text.split_whitespace().map(str::to_owned).collect())
}

//! A committed script run by its path (`./scripts/clean.sh`, `tools/gen.py`): a shell script is
//! read like `sh FILE`, one whose `#!` line names an interpreter like `python3 FILE`. What it
//! leaves to run time (a command named by a variable, `eval`, text the parser cannot read) is
//! treated like the program it is, as running a binary is; a command in it whose targets are only
//! known when it runs is judged by what is at risk within reach.

use std::path::Path;

use super::{Guarded, Op};

/// Largest script read.
const MAX_SCRIPT: u64 = 256 * 1024;

/// What running a file by its path runs.
pub(crate) enum ByPath {
    /// Shell text.
    Shell(String),
    /// The interpreter its `#!` line names, which runs the file.
    Interpreter(String),
}

/// The script `argv0` names, when it is a path to an executable text file in reach.
pub(crate) fn read(argv0: &str, cwd: &Path) -> Option<ByPath> {
    use std::os::unix::fs::PermissionsExt;
    if !argv0.contains('/') {
        return None;
    }
    let path = cwd.join(argv0);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_SCRIPT || meta.permissions().mode() & 0o111 == 0 {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    Some(match crate::shell::interpreter_of(&text) {
        None => ByPath::Shell(text),
        Some(prog) => ByPath::Interpreter(prog.to_owned()),
    })
}

/// The guarded commands of a script run by its path, each shown as run by it.
pub(crate) fn shown(found: &mut [Guarded], by: &str) {
    for g in found {
        g.display = format!("{by} (which runs `{}`)", g.display);
    }
}

/// The guarded commands a script run by its path yields, made lenient: what only the running
/// program knows (its command names, `eval`, unreadable text) dropped, targets only known when
/// it runs judged by reach.
pub(crate) fn lenient(found: &mut Vec<Guarded>, from: usize, script: &str) {
    let mut kept = found.split_off(from);
    kept.retain(|g| !matches!(g.op, Op::Opaque | Op::Unreadable { .. }));
    for g in &mut kept {
        let peer_op = g.op.on_peers_files();
        if let Some(why) = g.unknown.take_if(|_| !peer_op) {
            g.op = Op::Runs {
                what: format!(
                    "the script `{script}` runs `{}` ({why}), which may",
                    g.display
                ),
            };
        }
    }
    found.extend(kept);
}

//! A session's processes as Linux's `/proc` shows them: the state and parent of one process,
//! every process descended from another, whether one still runs. Empty answers where `/proc`
//! is missing.

use std::fs;
use std::process::{Child, Command, Stdio};

/// The state letter and parent pid of process `pid`, from `/proc/<pid>/stat`
/// (`pid (comm) state ppid ...`; comm may hold spaces and parentheses).
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = text.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether process `pid` exists and is neither a zombie nor dead.
pub fn running(pid: u32) -> bool {
    stat(pid).is_some_and(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// Every process descended from `root`, read from /proc (empty where /proc is missing).
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some((_, ppid)) = stat(pid) {
            parent_of.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parent_of
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    found.split_off(1)
}

/// SIGKILL `child` and every process descended from it, then reap it.
pub fn kill_tree(child: &mut Child) {
    let mut pids: Vec<String> = descendants(child.id()).iter().map(u32::to_string).collect();
    pids.push(child.id().to_string());
    let _ = Command::new("kill")
        .arg("-KILL")
        .args(&pids)
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

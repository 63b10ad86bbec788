//! The agent process behind a hook call: walking up the parent chain past shells to the host
//! process, and telling later whether that exact process (pid and start time, same boot) lives.

use std::fs;

use serde::{Deserialize, Serialize};

/// One process, identified so that pid reuse and reboots cannot fool a later check.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AgentProcess {
    /// Process id.
    pub pid: u32,
    /// Start time in clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start: u64,
    /// The first 8 characters of the kernel's boot id.
    pub boot: String,
}

/// Programs that stand between the host and the hook and are not the host.
const PASS_THROUGH: &[&str] = &[
    "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "busybox", "env", "timeout", "nice",
    "nohup", "git", "git-dibs", "sudo", "time",
];

/// `(command name, parent pid, start time)` of `pid`, from `/proc`.
fn stat(pid: u32) -> Option<(String, u32, u64)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let ppid = rest.get(1)?.parse().ok()?;
    let start = rest.get(19)?.parse().ok()?;
    Some((comm, ppid, start))
}

/// The kernel's boot id (first 8 characters), read once per process.
fn boot_id() -> Option<String> {
    static BOOT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| {
        let text = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        Some(text.trim().chars().take(8).collect())
    })
    .clone()
}

/// The host process this hook runs under: the first ancestor that is not a shell or wrapper.
/// `None` where `/proc` cannot tell (other systems, or an orphaned hook).
pub fn current() -> Option<AgentProcess> {
    let boot = boot_id()?;
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        if pid <= 1 {
            return None;
        }
        let (comm, ppid, start) = stat(pid)?;
        if !PASS_THROUGH.contains(&comm.as_str()) {
            return Some(AgentProcess { pid, start, boot });
        }
        pid = ppid;
    }
    None
}

impl AgentProcess {
    /// Whether this exact process is gone: `Some(true)` when it certainly ended (no such pid,
    /// another process under its pid, or another boot), `None` when this system cannot tell.
    pub fn is_gone(&self) -> Option<bool> {
        let boot = boot_id()?;
        if boot != self.boot {
            return Some(true);
        }
        match stat(self.pid) {
            Some((_, _, start)) => Some(start != self.start),
            None => Some(fs::metadata("/proc/self/stat").is_ok()),
        }
    }

    /// A name for this process usable as a file name.
    pub fn key(&self) -> String {
        format!("{}-{}-{}", self.boot, self.pid, self.start)
    }
}

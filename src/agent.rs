//! The agent process behind a hook call: walking up the parent chain past shells to the host
//! process, and telling later whether that exact process (pid and start time, same boot) lives.

use serde::{Deserialize, Serialize};

use crate::platform;

/// One process, identified so that pid reuse and reboots cannot fool a later check.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct AgentProcess {
    /// Process id.
    pub(crate) pid: u32,
    /// Start time, in the unit of the platform module (only compared with itself).
    pub(crate) start: u64,
    /// The first 8 characters of the kernel's boot id.
    pub(crate) boot: String,
}

/// Programs that stand between the host and the hook and are not the host.
const PASS_THROUGH: &[&str] = &[
    "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "busybox", "env", "timeout", "nice",
    "nohup", "git", "git-dibs", "sudo", "time",
];

/// The host process this hook runs under: the first ancestor that is not a shell or wrapper.
/// `None` where the system cannot tell (see `src/platform/`), or for an orphaned hook.
pub(crate) fn current() -> Option<AgentProcess> {
    let boot = platform::boot_id()?;
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        if pid <= 1 {
            return None;
        }
        let info = platform::proc_info(pid)?;
        if !PASS_THROUGH.contains(&info.comm.as_str()) {
            let start = info.start;
            return Some(AgentProcess { pid, start, boot });
        }
        pid = info.ppid;
    }
    None
}

/// Every ancestor of this process that is not a shell or wrapper, nearest first (at most 32):
/// a session's shell descendants (`make`, `npm run`, `perl` running `git dibs claim`) find their
/// session's agent among them.
pub(crate) fn ancestors() -> Vec<AgentProcess> {
    let Some(boot) = platform::boot_id() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..32 {
        if pid <= 1 {
            break;
        }
        let Some(info) = platform::proc_info(pid) else {
            break;
        };
        if !PASS_THROUGH.contains(&info.comm.as_str()) {
            out.push(AgentProcess {
                pid,
                start: info.start,
                boot: boot.clone(),
            });
        }
        pid = info.ppid;
    }
    out
}

/// Processes looked up so far: pid and start time (none when there was no such process).
type Started = Vec<(u32, Option<u64>)>;

/// The processes looked up so far, once [`remember_liveness`] was called.
static STARTED: std::sync::Mutex<Option<Started>> = std::sync::Mutex::new(None);

/// Ask the system about each process once for the rest of this process: for a process as
/// short as a hook call, which asks about each holder of each file (many share an agent).
pub(crate) fn remember_liveness() {
    if let Ok(mut seen) = STARTED.lock() {
        seen.get_or_insert_with(Vec::new);
    }
}

/// When process `pid` started, `None` when there is no such process (see
/// [`remember_liveness`]).
fn started(pid: u32) -> Option<u64> {
    let known = STARTED
        .lock()
        .ok()
        .and_then(|seen| Some(seen.as_ref()?.iter().find(|(p, _)| *p == pid)?.1));
    if let Some(start) = known {
        return start;
    }
    let start = platform::proc_info(pid).map(|i| i.start);
    if let Ok(mut seen) = STARTED.lock()
        && let Some(seen) = seen.as_mut()
    {
        seen.push((pid, start));
    }
    start
}

impl AgentProcess {
    /// Whether this exact process is gone: `Some(true)` when it certainly ended (no such pid,
    /// another process under its pid, or another boot), `None` when this system cannot tell.
    pub(crate) fn is_gone(&self) -> Option<bool> {
        let boot = platform::boot_id()?;
        if boot != self.boot {
            return Some(true);
        }
        match started(self.pid) {
            Some(start) => Some(start != self.start),
            // No such process, when this system can describe processes at all.
            None => Some(started(std::process::id()).is_some()),
        }
    }

    /// A name for this process usable as a file name.
    pub(crate) fn key(&self) -> String {
        format!("{}-{}-{}", self.boot, self.pid, self.start)
    }
}

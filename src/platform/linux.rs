//! Linux: processes from `/proc`, the boot id from `/proc/sys/kernel/random/boot_id`.

use std::fs;

use super::ProcInfo;

pub(super) fn proc_info(pid: u32) -> Option<ProcInfo> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    super::parse_linux_stat(&text)
}

pub(super) fn argv(pid: u32) -> Option<Vec<String>> {
    let bytes = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    super::parse_nul_separated(&bytes)
}

pub(super) fn boot_id() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()
}

pub(super) fn stdin_tty() -> Option<String> {
    let target = fs::read_link("/proc/self/fd/0").ok()?;
    Some(target.to_string_lossy().into_owned())
}

/// Every process id in `/proc`.
pub(super) fn pids() -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
        .collect()
}

/// Process `pid`'s working directory, when it may be read.
pub(super) fn cwd(pid: u32) -> Option<std::path::PathBuf> {
    fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// Process `pid`, unless it has exited (a zombie its parent has not reaped yet counts as
/// exited: in a container whose first process reaps late, many linger).
pub(super) fn running_info(pid: u32) -> Option<ProcInfo> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let state = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .next()?;
    if matches!(state, "Z" | "X" | "x") {
        return None;
    }
    super::parse_linux_stat(&text)
}

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

//! Linux: processes from `/proc`, the boot id from `/proc/sys/kernel/random/boot_id`.

use std::fs;
use std::io::Read;

use super::ProcInfo;

/// A small `/proc` file's text, read with as few system calls as it takes: the kernel gives
/// these a size of 0, so `read_to_string` would look up that size and then probe with reads
/// of 32 bytes and more (six reads for a process's `stat`).
fn read_proc(path: &str) -> Option<String> {
    let mut file = fs::File::open(path).ok()?;
    let mut buf = vec![0u8; 1024];
    let mut len = 0;
    loop {
        if len == buf.len() {
            buf.resize(len * 2, 0);
        }
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    buf.truncate(len);
    String::from_utf8(buf).ok()
}

pub(super) fn proc_info(pid: u32) -> Option<ProcInfo> {
    let text = read_proc(&format!("/proc/{pid}/stat"))?;
    super::parse_linux_stat(&text)
}

pub(super) fn argv(pid: u32) -> Option<Vec<String>> {
    let bytes = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    super::parse_nul_separated(&bytes)
}

pub(super) fn boot_id() -> Option<String> {
    read_proc("/proc/sys/kernel/random/boot_id")
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

/// The directories the environment process `pid` was started with names (`PWD=`,
/// `OLDPWD=`), when it may be read (a process of this user).
pub(super) fn environ_dirs(pid: u32) -> Vec<std::path::PathBuf> {
    fs::read(format!("/proc/{pid}/environ"))
        .map(|b| super::ties::environ_dirs(&b))
        .unwrap_or_default()
}

/// The paths of the first `max` files process `pid` holds open (links into the file system
/// only: no pipes, sockets or anonymous files).
pub(super) fn open_paths(pid: u32, max: usize) -> Vec<std::path::PathBuf> {
    let Ok(entries) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .take(max)
        .filter_map(|e| fs::read_link(e.path()).ok())
        .filter(|p| p.is_absolute())
        .collect()
}

/// Process `pid`'s working directory, when it may be read.
pub(super) fn cwd(pid: u32) -> Option<std::path::PathBuf> {
    fs::read_link(format!("/proc/{pid}/cwd")).ok()
}

/// Process `pid`, unless it has exited (a zombie its parent has not reaped yet counts as
/// exited: in a container whose first process reaps late, many linger).
pub(super) fn running_info(pid: u32) -> Option<ProcInfo> {
    let text = read_proc(&format!("/proc/{pid}/stat"))?;
    let state = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .next()?;
    if matches!(state, "Z" | "X" | "x") {
        return None;
    }
    super::parse_linux_stat(&text)
}

//! What the operating system tells about processes, behind one interface: a process's command
//! name, parent and start time, its argv, the boot it belongs to and the terminal on stdin.
//! Linux reads `/proc` ([`linux`]); macOS asks the kernel through `proc_pidinfo` and `sysctl`
//! (`macos`); elsewhere every answer is "cannot tell" and git-dibs falls back to leases.
//! The parsers of what the kernel returns are plain functions, tested on every system.
//! [`files`] opens files someone else may have planted (no link followed, no FIFO read);
//! [`below`] tells the stat data of many files below one folder, each folder opened once;
//! `notify` (Linux) what the file watcher needs of the kernel.

pub(crate) mod below;
pub(crate) mod deadline;
pub(crate) mod files;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) mod notify;
#[cfg(target_os = "linux")]
use linux as os;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as os;

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod os {
    //! Systems git-dibs has no process interface for: nothing can be told.
    pub(super) fn proc_info(_pid: u32) -> Option<super::ProcInfo> {
        None
    }
    pub(super) fn argv(_pid: u32) -> Option<Vec<String>> {
        None
    }
    pub(super) fn boot_id() -> Option<String> {
        None
    }
    pub(super) fn stdin_tty() -> Option<String> {
        None
    }
    pub(super) fn pids() -> Vec<u32> {
        Vec::new()
    }
    pub(super) fn running_info(_pid: u32) -> Option<super::ProcInfo> {
        None
    }
    pub(super) fn cwd(_pid: u32) -> Option<std::path::PathBuf> {
        None
    }
    pub(super) fn environ_dirs(_pid: u32) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
    pub(super) fn open_paths(_pid: u32, _max: usize) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
}

mod ties;

#[cfg(test)]
mod tests;

/// One process as the kernel describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProcInfo {
    /// The command name (at most 15 or 16 bytes on both systems).
    pub(crate) comm: String,
    /// The parent's process id.
    pub(crate) ppid: u32,
    /// When it started, in a unit fixed per system (Linux: clock ticks after boot; macOS:
    /// microseconds since the epoch): only ever compared with itself.
    pub(crate) start: u64,
}

/// Process `pid`'s command name, parent and start time; `None` when there is no such process
/// or this system cannot tell.
pub(crate) fn proc_info(pid: u32) -> Option<ProcInfo> {
    os::proc_info(pid)
}

/// Process `pid`'s argv, when this system tells.
pub(crate) fn argv(pid: u32) -> Option<Vec<String>> {
    os::argv(pid)
}

/// How many units of [`ProcInfo::start`] make a second (Linux's clock ticks: `USER_HZ`, 100 on
/// every architecture Linux runs on; macOS: microseconds).
#[cfg(target_os = "macos")]
pub(crate) const START_UNITS_PER_SEC: u64 = 1_000_000;
/// How many units of [`ProcInfo::start`] make a second (Linux's clock ticks: `USER_HZ`, 100 on
/// every architecture Linux runs on; macOS: microseconds).
#[cfg(not(target_os = "macos"))]
pub(crate) const START_UNITS_PER_SEC: u64 = 100;

/// How many open files of one process are looked at, at most.
const MAX_OPEN_FILES: usize = 64;

/// The processes (pid, start, index in `roots`) started at or after `since` (in
/// [`ProcInfo::start`]'s unit) tied to one of `roots` (see [`tied`]), other than this process
/// and its ancestors: what a command left running there. A child of an ancestor (the
/// host's own helpers, another hook of the same event) counts only with `children`: a job a
/// command left behind is reparented when its shell exits, while a host's own background
/// shell (Claude Code's `run_in_background`) stays its child. At most `max` looked at; empty
/// where the system cannot list processes or tell their directories.
pub(crate) fn started_in(
    roots: &[std::path::PathBuf],
    since: u64,
    max: usize,
    children: bool,
) -> Vec<(u32, u64, usize)> {
    let own = std::process::id();
    let mut ancestors = vec![own];
    let mut at = own;
    while let Some(p) = proc_info(at) {
        if p.ppid <= 1 || ancestors.contains(&p.ppid) || ancestors.len() > 64 {
            break;
        }
        ancestors.push(p.ppid);
        at = p.ppid;
    }
    let mut out = Vec::new();
    for pid in os::pids().into_iter().take(max) {
        if ancestors.contains(&pid) {
            continue;
        }
        let Some(info) = os::running_info(pid).filter(|p| p.start >= since) else {
            continue;
        };
        if !children && ancestors.contains(&info.ppid) {
            continue;
        }
        if is_own_watcher(pid) {
            continue;
        }
        if let Some(i) = tied(pid, roots) {
            out.push((pid, info.start, i));
        }
    }
    out
}

/// Whether process `pid` is a clone's file watcher that a hook of this program started
/// (`git-dibs watch --dir ...`, run from this very binary): no job of the command it began
/// under.
fn is_own_watcher(pid: u32) -> bool {
    let Some(argv) = os::argv(pid) else {
        return false;
    };
    if argv.get(1).map(String::as_str) != Some("watch")
        || argv.get(2).map(String::as_str) != Some("--dir")
    {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        let exe = std::fs::read_link(format!("/proc/{pid}/exe"));
        let own = std::env::current_exe();
        matches!((exe, own), (Ok(a), Ok(b)) if a == b)
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The index of the first of `roots` process `pid` is tied to: its working directory lies
/// there, or (a job that left with `cd`, `setsid sh -c 'cd /; ...'`, `nohup`, a double fork)
/// the directory its environment says it was started from (`PWD=`, `OLDPWD=`), a word of its
/// argv naming a path there, or a file it holds open there. Only ever asked of the few
/// processes started while one command ran.
fn tied(pid: u32, roots: &[std::path::PathBuf]) -> Option<usize> {
    if let Some(i) = os::cwd(pid).and_then(|d| ties::root_of(&d, roots)) {
        return Some(i);
    }
    os::environ_dirs(pid)
        .iter()
        .find_map(|d| ties::root_of(d, roots))
        .or_else(|| os::argv(pid).and_then(|a| ties::named_root(&a, roots)))
        .or_else(|| {
            os::open_paths(pid, MAX_OPEN_FILES)
                .iter()
                .find_map(|p| ties::root_of(p, roots))
        })
}

/// Whether process `pid` still runs and started at `start` (not a reused pid).
pub(crate) fn still_runs(pid: u32, start: u64) -> bool {
    os::running_info(pid).is_some_and(|p| p.start == start)
}

/// An id of the current boot (first 8 characters), read once per process: a process recorded
/// under another boot has certainly ended. `None` where this system cannot tell, and then no
/// liveness check is made at all.
pub(crate) fn boot_id() -> Option<String> {
    static BOOT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| os::boot_id().map(|b| b.trim().chars().take(8).collect()))
        .clone()
}

/// The terminal on this process's stdin, as a file-name-safe word (`pts3`, `ttys003`), if any.
pub(crate) fn stdin_tty() -> Option<String> {
    let name = os::stdin_tty()?;
    let word: String = name
        .strip_prefix("/dev/")
        .unwrap_or(&name)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    (word.starts_with("pts") || word.starts_with("tty")).then_some(word)
}

/// `(command name, parent pid, start time)` from the text of Linux's `/proc/<pid>/stat`: the
/// name sits in parentheses and may itself hold spaces and parentheses.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn parse_linux_stat(text: &str) -> Option<ProcInfo> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let ppid = rest.get(1)?.parse().ok()?;
    let start = rest.get(19)?.parse().ok()?;
    Some(ProcInfo { comm, ppid, start })
}

/// argv from NUL-separated bytes (Linux's `/proc/<pid>/cmdline`); `None` when empty.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) fn parse_nul_separated(bytes: &[u8]) -> Option<Vec<String>> {
    let argv: Vec<String> = bytes
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (!argv.is_empty()).then_some(argv)
}

/// argv from macOS's `KERN_PROCARGS2` buffer: a native-endian `int` argc, the executable path,
/// NUL padding, then argc NUL-terminated arguments (the environment follows and is not read).
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(crate) fn parse_procargs2(buf: &[u8]) -> Option<Vec<String>> {
    let argc = i32::from_ne_bytes(buf.get(..4)?.try_into().ok()?);
    let argc = usize::try_from(argc)
        .ok()
        .filter(|n| (1..=4096).contains(n))?;
    let rest = buf.get(4..)?;
    let path_end = rest.iter().position(|b| *b == 0)?;
    let mut at = path_end;
    while rest.get(at) == Some(&0) {
        at += 1;
    }
    let mut argv = Vec::with_capacity(argc);
    for arg in rest.get(at..)?.split(|b| *b == 0).take(argc) {
        argv.push(String::from_utf8_lossy(arg).into_owned());
    }
    (argv.len() == argc).then_some(argv)
}

/// A C string in a fixed-size kernel buffer: the bytes up to the first NUL.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(crate) fn c_chars(buf: &[u8]) -> String {
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

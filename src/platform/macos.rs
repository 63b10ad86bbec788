//! macOS: processes through `proc_pidinfo(PROC_PIDTBSDINFO)` and `sysctl(KERN_PROCARGS2)`, the
//! boot through `kern.bootsessionuuid`, the terminal through `ttyname_r`.
// These are the system's own C interfaces; each call is given a buffer of the size it is told
// and its result is checked before the buffer is read.
#![allow(unsafe_code)]

use std::ffi::{CStr, c_int, c_void};
use std::mem::{MaybeUninit, size_of};

use super::ProcInfo;

pub(super) fn proc_info(pid: u32) -> Option<ProcInfo> {
    let pid = c_int::try_from(pid).ok()?;
    let mut info = MaybeUninit::<libc::proc_bsdinfo>::zeroed();
    let size = c_int::try_from(size_of::<libc::proc_bsdinfo>()).ok()?;
    // SAFETY: `info` is a writable buffer of exactly `size` bytes.
    let n = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            info.as_mut_ptr().cast::<c_void>(),
            size,
        )
    };
    if n != size {
        return None;
    }
    // SAFETY: the kernel filled all `size` bytes (checked above); the struct is plain data.
    let info = unsafe { info.assume_init() };
    let comm: Vec<u8> = info.pbi_comm.iter().map(|c| *c as u8).collect();
    Some(ProcInfo {
        comm: super::c_chars(&comm),
        ppid: info.pbi_ppid,
        start: info
            .pbi_start_tvsec
            .saturating_mul(1_000_000)
            .saturating_add(info.pbi_start_tvusec),
    })
}

pub(super) fn argv(pid: u32) -> Option<Vec<String>> {
    let pid = c_int::try_from(pid).ok()?;
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
    let mut len: libc::size_t = 0;
    // SAFETY: a size query: no buffer is passed, `len` receives the size.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            std::ptr::null_mut(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || len == 0 || len > 1 << 20 {
        return None;
    }
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` is writable for `len` bytes; the kernel writes at most that and says how much.
    let rc = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            buf.as_mut_ptr().cast::<c_void>(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    buf.truncate(len);
    super::parse_procargs2(&buf)
}

pub(super) fn boot_id() -> Option<String> {
    let mut buf = [0u8; 64];
    let mut len: libc::size_t = buf.len();
    let name = c"kern.bootsessionuuid";
    // SAFETY: `buf` is writable for `len` bytes; `name` is NUL-terminated.
    let rc = unsafe {
        libc::sysctlbyname(
            name.as_ptr(),
            buf.as_mut_ptr().cast::<c_void>(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    let id = super::c_chars(&buf[..len.min(buf.len())]);
    (!id.is_empty()).then_some(id)
}

pub(super) fn stdin_tty() -> Option<String> {
    let mut buf = [0 as libc::c_char; 128];
    // SAFETY: `buf` is writable for its whole length, which is what is passed.
    let rc = unsafe { libc::ttyname_r(0, buf.as_mut_ptr(), buf.len()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: on success `ttyname_r` wrote a NUL-terminated string into `buf`.
    let name = unsafe { CStr::from_ptr(buf.as_ptr()) };
    Some(name.to_string_lossy().into_owned())
}

/// Not listed on macOS (a background job there is known by its command line alone).
pub(super) fn pids() -> Vec<u32> {
    Vec::new()
}

/// Not read on macOS.
pub(super) fn cwd(_pid: u32) -> Option<std::path::PathBuf> {
    None
}

/// Not read on macOS (no `/proc`): jobs are found by the command line and the lease there.
pub(super) fn environ_dirs(_pid: u32) -> Vec<std::path::PathBuf> {
    Vec::new()
}

/// Not read on macOS (no `/proc`).
pub(super) fn open_paths(_pid: u32, _max: usize) -> Vec<std::path::PathBuf> {
    Vec::new()
}

/// Process `pid` (macOS reports a zombie as gone).
pub(super) fn running_info(pid: u32) -> Option<ProcInfo> {
    proc_info(pid)
}

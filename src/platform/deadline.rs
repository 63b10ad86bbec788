//! A hook's last word before its host's time limit: a hook that cannot finish (git blocked on a
//! FIFO named `.gitignore`, a config include that never ends, a filesystem that stops
//! answering) would otherwise be killed by its host with nothing said, and a host lets the tool
//! call go ahead then. Armed with the answer to give (for a shell command about to run: a
//! question, failing closed), an alarm writes that answer itself, kills the programs the hook
//! started and exits, whatever the hook was doing. Costs one system call to arm and one to
//! disarm.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// What the hook answers when the alarm goes off.
struct Answer {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: i32,
}

static ANSWER: OnceLock<Answer> = OnceLock::new();

/// How many programs started by the hook are known at once (more are not killed).
const TRACKED: usize = 16;
/// Their process ids (0: a free slot).
static CHILDREN: [AtomicI32; TRACKED] = [const { AtomicI32::new(0) }; TRACKED];

/// Arm the alarm: after `after` (whole seconds, at least one), `stdout` and `stderr` are
/// written and the process exits with `code`. Only the first call arms; Unix only (elsewhere
/// nothing happens).
#[allow(unsafe_code)]
pub(crate) fn arm(after: Duration, stdout: &[u8], stderr: &[u8], code: u8) {
    let answer = Answer {
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        code: i32::from(code),
    };
    if ANSWER.set(answer).is_err() {
        return;
    }
    let secs = u32::try_from(after.as_secs()).unwrap_or(u32::MAX).max(1);
    // SAFETY: the handler only reads `ANSWER` (set above, never changed again) and
    // `CHILDREN` (atomics), and calls `write`, `kill` and `_exit`, which are async-signal-safe.
    unsafe {
        libc::signal(libc::SIGALRM, on_alarm as *const () as libc::sighandler_t);
        libc::alarm(secs);
    }
}

/// Disarm the alarm: the hook is about to answer itself.
#[allow(unsafe_code)]
pub(crate) fn disarm() {
    // SAFETY: `alarm(0)` only cancels a pending alarm.
    unsafe {
        libc::alarm(0);
    }
}

/// A program the hook started, killed if the alarm goes off while it runs.
pub(crate) fn track(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    for slot in &CHILDREN {
        if slot
            .compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// A program the hook started that has ended (or been waited for).
pub(crate) fn untrack(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    for slot in &CHILDREN {
        let _ = slot.compare_exchange(pid, 0, Ordering::SeqCst, Ordering::SeqCst);
    }
}

#[allow(unsafe_code)]
extern "C" fn on_alarm(_: libc::c_int) {
    for slot in &CHILDREN {
        let pid = slot.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: `kill` is async-signal-safe; `pid` is a child this process started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    let code = ANSWER.get().map_or(0, |a| {
        write_all(1, &a.stdout);
        write_all(2, &a.stderr);
        a.code
    });
    // SAFETY: `_exit` is async-signal-safe and does not return.
    unsafe { libc::_exit(code) }
}

/// Write `bytes` to the descriptor `fd` with `write` alone (no lock, no allocation).
#[allow(unsafe_code)]
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is valid for reads of its length for the whole call.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        let Ok(n) = usize::try_from(n) else {
            return;
        };
        if n == 0 {
            return;
        }
        bytes = &bytes[n..];
    }
}

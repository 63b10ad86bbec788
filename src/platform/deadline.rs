//! A hook's last word before its host's time limit: a hook that cannot finish (git blocked on a
//! FIFO named `.gitignore`, a config include that never ends, a filesystem that stops
//! answering) would otherwise be killed by its host with nothing said, and a host lets the tool
//! call go ahead then. Armed with the answer to give (for a shell command about to run: a
//! question, failing closed), an alarm writes that answer itself, kills the programs the hook
//! started and exits, whatever the hook was doing. Costs one system call to arm and one to
//! disarm. A crash (a stack overflow, a fault) gets a last word the same way.

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
/// What the hook answers when it crashes (a stack overflow, a fault): see [`on_crash`].
static CRASHED: OnceLock<Answer> = OnceLock::new();
/// Signals a crash raises.
const CRASHES: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];
/// Room for the crash handler to run on when the stack itself is what overflowed: zeroed
/// memory of the program's own, so no page of it is touched unless a crash comes.
static mut CRASH_STACK: [u8; 64 * 1024] = [0; 64 * 1024];

/// How many programs started by the hook are known at once (more are not killed).
const TRACKED: usize = 16;
/// Their process ids (0: a free slot).
static CHILDREN: [AtomicI32; TRACKED] = [const { AtomicI32::new(0) }; TRACKED];

/// Keep an answer in `cell` for a signal handler to give; whether this call was the first.
fn keep(cell: &OnceLock<Answer>, stdout: &[u8], stderr: &[u8], code: u8) -> bool {
    cell.set(Answer {
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        code: i32::from(code),
    })
    .is_ok()
}

/// Arm the alarm: after `after` (whole seconds, at least one), `stdout` and `stderr` are
/// written and the process exits with `code`. Only the first call arms; Unix only (elsewhere
/// nothing happens).
#[allow(unsafe_code)]
pub(crate) fn arm(after: Duration, stdout: &[u8], stderr: &[u8], code: u8) {
    if !keep(&ANSWER, stdout, stderr, code) {
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

/// Give the hook a last word if it crashes (a stack overflow, a fault, an abort): `stdout` and
/// `stderr` are written and the process exits with `code`, as when the alarm goes off, instead
/// of dying with nothing said (a host lets a tool call go ahead then). The handler runs on a
/// stack of its own. Only the first call installs; Unix only.
#[allow(unsafe_code)]
pub(crate) fn on_crash(stdout: &[u8], stderr: &[u8], code: u8) {
    if !keep(&CRASHED, stdout, stderr, code) {
        return;
    }
    // SAFETY: the alternate stack is a static that nothing else uses (only its address is
    // taken, once: `CRASHED` is set only once); the handler only reads `CRASHED` (set above,
    // never changed again) and `CHILDREN` (atomics) and calls `write`, `kill` and `_exit`,
    // which are async-signal-safe.
    unsafe {
        let alt = libc::stack_t {
            ss_sp: (&raw mut CRASH_STACK).cast(),
            ss_flags: 0,
            ss_size: 64 * 1024,
        };
        if libc::sigaltstack(&raw const alt, std::ptr::null_mut()) != 0 {
            return;
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_crash_signal as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_ONSTACK;
        libc::sigemptyset(&raw mut action.sa_mask);
        for signal in CRASHES {
            libc::sigaction(signal, &raw const action, std::ptr::null_mut());
        }
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

extern "C" fn on_alarm(_: libc::c_int) {
    last_word(ANSWER.get());
}

extern "C" fn on_crash_signal(_: libc::c_int) {
    last_word(CRASHED.get());
}

/// Kill the programs the hook started, write `answer` and exit with its code (0 with none).
#[allow(unsafe_code)]
fn last_word(answer: Option<&Answer>) -> ! {
    for slot in &CHILDREN {
        let pid = slot.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: `kill` is async-signal-safe; `pid` is a child this process started.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    let code = answer.map_or(0, |a| {
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

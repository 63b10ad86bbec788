//! The `git-dibs` binary: parse the command line, run the library, map the result to an exit code.
//!
//! The entry point is the C `main` itself, not Rust's: the Rust runtime's start-up (a signal
//! stack and handlers to report a stack overflow, found by reading `/proc/self/maps`) costs a
//! hook process about a tenth of what starting a process costs here, on every tool call. What
//! of it a hook needs is done below: the standard streams made sure to be open, `SIGPIPE`
//! ignored (a write to a closed pipe is an error, not death), a panic mapped to exit code 101,
//! and standard output flushed at exit. Without the handler, a stack overflow ends the process
//! by `SIGSEGV` instead of a message and `SIGABRT`.

#![no_main]

use std::process::ExitCode;

/// The process's entry point, called by the C runtime (arguments are read through
/// `std::env`, which the C runtime hands them to on Linux and macOS alike).
#[allow(unsafe_code)] // `no_mangle`: this is the symbol the C runtime calls.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    open_standard_streams();
    // SAFETY: called first, before any thread exists; SIG_IGN is a valid disposition.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = match std::panic::catch_unwind(git_dibs::cli::main) {
        Ok(code) => (0..=u8::MAX)
            .find(|&n| ExitCode::from(n) == code)
            .map_or(1, libc::c_int::from),
        Err(_) => 101,
    };
    // Flushes standard output, as returning from Rust's `main` does.
    std::process::exit(code)
}

/// Make sure file descriptors 0, 1 and 2 are open (on `/dev/null` where one is closed), so no
/// file the program opens takes the place of a standard stream and receives its output.
fn open_standard_streams() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three `pollfd` for the call's duration.
    #[allow(unsafe_code)]
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    let closed: Vec<libc::c_int> = if polled < 0 {
        // No answer: ask each descriptor directly.
        (0..3).filter(|&fd| !is_open(fd)).collect()
    } else {
        fds.iter()
            .filter(|p| p.revents & libc::POLLNVAL != 0)
            .map(|p| p.fd)
            .collect()
    };
    for fd in closed {
        // SAFETY: a NUL-terminated path; the lowest free descriptor is the closed one, which
        // is the one asked for since the lower ones are open by now.
        #[allow(unsafe_code)]
        let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        if opened < 0 || opened != fd {
            std::process::abort();
        }
    }
}

/// Whether the file descriptor `fd` is open.
#[allow(unsafe_code)]
fn is_open(fd: libc::c_int) -> bool {
    // SAFETY: F_GETFD on any number only reads the descriptor table.
    unsafe { libc::fcntl(fd, libc::F_GETFD) != -1 }
}

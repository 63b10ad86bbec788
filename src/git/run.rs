//! Running a program that may hang or flood (git talking to a remote, `gh` asking GitHub) with
//! a time limit and bounded output: both pipes are read to their end on threads of their own,
//! so the program never blocks on a full pipe, what is past the bound is dropped (and said so),
//! and a program still running at the limit is killed.

use std::io::{self, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a bounded command printed and whether it succeeded.
pub(crate) struct Finished {
    /// It exited with status 0.
    pub(crate) success: bool,
    /// Its stdout, at most the bound (lossy UTF-8).
    pub(crate) stdout: String,
    /// Its stderr, at most the bound (lossy UTF-8).
    pub(crate) stderr: String,
    /// stdout was longer than the bound; the rest was read and dropped.
    pub(crate) truncated: bool,
}

/// Why a bounded command gave no answer.
#[derive(Debug)]
pub(crate) enum RunError {
    /// It could not be started.
    Spawn(io::Error),
    /// It was still running at the limit, and was killed.
    TimedOut,
}

/// Run `cmd` (stdout and stderr piped, at most `max` bytes of each kept) to completion, killing
/// it after `timeout`.
pub(crate) fn bounded(
    mut cmd: Command,
    timeout: Duration,
    max: usize,
) -> Result<Finished, RunError> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(RunError::Spawn)?;
    let pid = child.id();
    crate::platform::deadline::track(pid);
    let finished = wait_bounded(&mut child, timeout, max);
    crate::platform::deadline::untrack(pid);
    finished
}

/// [`bounded`]'s wait for the started `child`.
fn wait_bounded(
    child: &mut std::process::Child,
    timeout: Duration,
    max: usize,
) -> Result<Finished, RunError> {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut truncated = false;
            if let Some(mut p) = pipe {
                let _ = p.by_ref().take(max as u64).read_to_end(&mut buf);
                truncated = io::copy(&mut p, &mut io::sink()).is_ok_and(|n| n > 0);
            }
            (String::from_utf8_lossy(&buf).into_owned(), truncated)
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                // The readers are left behind: a helper such as ssh may still hold the pipes
                // open, and this process is about to move on.
                return Err(RunError::TimedOut);
            }
        }
    };
    let (stdout, truncated) = out.join().unwrap_or_default();
    Ok(Finished {
        success: status.success(),
        stdout,
        stderr: err.join().unwrap_or_default().0,
        truncated,
    })
}

//! `git dibs watch --dir COMMON_DIR` (hidden): the clone's file watcher, which the sweep before a
//! shell command starts once it checks many watched files, and then asks which of them may have
//! changed instead of `lstat`ing them all ([`crate::store::watch`] is its wire format). One per
//! clone (it holds `watch.lock`); it listens on `watch.sock` in the store, answers each
//! question after taking in every event queued before it, checks every file again every few
//! seconds (a write through a shared memory map makes no event), and ends when the store or its
//! socket goes, when asked to, or after half an hour without a question.

mod tree;

use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::platform::notify;
use crate::store::Store;
use crate::store::watch::Request;
use tree::Tree;

/// How long a watcher waits for a question before it ends.
const IDLE: Duration = Duration::from_secs(30 * 60);
/// How often every watched file is checked again, events or not.
const RECHECK: Duration = Duration::from_secs(5);
/// How long a connection may take to say what it wants.
const READ_WAIT: Duration = Duration::from_millis(200);

/// `git dibs watch`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The common git folder of the clone to watch.
    #[arg(long, value_name = "COMMON_DIR")]
    pub(crate) dir: PathBuf,
    /// The most inotify watches to take (default: a quarter of the user's limit, at most
    /// 8,192); files beyond are named in every answer.
    #[arg(long, value_name = "N")]
    pub(crate) budget: Option<usize>,
}

/// Run the watcher until it ends; nothing is printed (it runs detached).
pub(crate) fn run(args: &Args) -> Result<()> {
    let Some(store) = Store::with_snapshots(&args.dir) else {
        return Ok(());
    };
    let Some(_lock) = store.take_watch_lock()? else {
        // Another watcher runs for this clone.
        return Ok(());
    };
    let socket = store.watch_socket();
    let mut tree = Tree::new(
        Store::with_snapshots(&args.dir).context("the store went")?,
        args.budget,
    )
    .context("watching the snapshotted files")?;
    let wait_on = tree.wait_handle()?;
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("listening on {}", socket.display()))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    let ours = std::fs::symlink_metadata(&socket)?.ino();
    tree.listening(ours);
    let shared = Arc::new(Shared {
        tree: Mutex::new(tree),
        end: AtomicBool::new(false),
        asked: AtomicU64::new(0),
    });
    let started = Instant::now();
    let answering = Arc::clone(&shared);
    std::thread::spawn(move || answer_all(&listener, &answering, started));
    let mut last_check = Instant::now();
    loop {
        let ready = notify::readable(std::os::fd::AsFd::as_fd(&wait_on), Duration::from_secs(1))?;
        let mut tree = shared.tree.lock().unwrap_or_else(PoisonError::into_inner);
        if ready {
            tree.catch_up()?;
        }
        if last_check.elapsed() >= RECHECK {
            tree.catch_up()?;
            tree.check_all();
            last_check = Instant::now();
        }
        let asked = Duration::from_millis(shared.asked.load(Ordering::Relaxed));
        let idle = started.elapsed().saturating_sub(asked);
        if tree.gone || shared.end.load(Ordering::Relaxed) || idle >= IDLE {
            break;
        }
    }
    // The socket goes with the watcher, unless another watcher's has taken its place.
    if std::fs::symlink_metadata(&socket).is_ok_and(|m| m.ino() == ours) {
        let _ = std::fs::remove_file(&socket);
    }
    Ok(())
}

/// What the two threads share.
struct Shared {
    tree: Mutex<Tree>,
    /// Asked to end.
    end: AtomicBool,
    /// When the last question came, in milliseconds since the watcher started.
    asked: AtomicU64,
}

/// Answer connections one at a time until the watcher ends.
fn answer_all(listener: &UnixListener, shared: &Shared, started: Instant) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            continue;
        };
        if answer(stream, shared, started).is_err() {
            continue;
        }
        if shared.end.load(Ordering::Relaxed) {
            return;
        }
    }
}

/// Answer one connection.
fn answer(mut stream: UnixStream, shared: &Shared, started: Instant) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_WAIT))?;
    stream.set_write_timeout(Some(READ_WAIT))?;
    let mut line = Vec::new();
    (&mut stream).take(64).read_to_end(&mut line)?;
    match Request::parse(&line) {
        Request::Ask => {
            let at = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            shared.asked.store(at, Ordering::Relaxed);
            let bytes = {
                let mut tree = shared.tree.lock().unwrap_or_else(PoisonError::into_inner);
                tree.catch_up()?;
                if tree.gone {
                    shared.end.store(true, Ordering::Relaxed);
                    return Ok(());
                }
                tree.answer()
            };
            stream.write_all(&bytes)
        }
        Request::Quit | Request::Other => {
            shared.end.store(true, Ordering::Relaxed);
            Ok(())
        }
    }
}

//! Support for the file watcher's tests: a session's shell commands with the watcher used
//! (`DIBS_WATCH=on`), their PostToolUse held back until [`settle`] (a command left running, or
//! a PostToolUse's scan, would snapshot what the sweep missed and hide it), the watcher asked
//! directly over its socket, and its processes found.
#![allow(dead_code)]

use std::io::{Read as _, Write as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use crate::recover_support::*;

/// The watcher started for any number of files.
pub const ON: &[(&str, &str)] = &[("DIBS_WATCH", "on")];
/// No watcher.
pub const OFF: &[(&str, &str)] = &[("DIBS_WATCH", "off")];

/// The watcher's socket of the clone at `root`.
pub fn socket(root: &Path) -> PathBuf {
    root.join(".git/dibs/watch.sock")
}

/// The PreToolUse of `command` with the watcher used (see [`pre_bash_env`]).
pub fn pre_bash(agent: &Agent, command: &str) -> HookRun {
    pre_bash_env(agent, command, ON)
}

thread_local! {
    static PENDING: std::cell::RefCell<Vec<(String, PathBuf, String)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The PreToolUse of `command` alone. Its PostToolUse is sent by [`settle`]: a session's
/// command left running makes every later PreToolUse scan dirty files and snapshot them by
/// itself, and a PostToolUse scans what changed meanwhile; either would hide what the sweep
/// missed, so the tests check the store between the two and settle before the next change.
pub fn pre_bash_env(agent: &Agent, command: &str, env: &[(&str, &str)]) -> HookRun {
    let event = bash_event(&agent.id, &agent.cwd, command);
    let run = hook_raw(&agent.cwd, format!("{event}\n").as_bytes(), env);
    PENDING.with(|p| {
        p.borrow_mut()
            .push((agent.id.clone(), agent.cwd.clone(), command.to_owned()));
    });
    run
}

/// The PostToolUse of every command still pending.
pub fn settle() {
    let pending: Vec<_> = PENDING.with(|p| p.borrow_mut().drain(..).collect());
    for (id, cwd, command) in pending {
        let post = Agent::new(&id, &cwd).post_bash_env(&command, ON);
        assert_eq!(post.code, 0, "{}", post.stderr);
    }
}

/// A PreToolUse killed after `limit`: how long it took (and whether it had to be killed).
pub fn timed_pre_bash(agent: &Agent, command: &str, limit: Duration) -> (Duration, bool) {
    let event = bash_event(&agent.id, &agent.cwd, command);
    let t = Instant::now();
    let mut child = spawn_hook(&agent.cwd, format!("{event}\n").as_bytes(), ON);
    loop {
        if child.try_wait().unwrap().is_some() {
            let took = t.elapsed();
            PENDING.with(|p| {
                p.borrow_mut()
                    .push((agent.id.clone(), agent.cwd.clone(), command.to_owned()));
            });
            return (took, false);
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return (t.elapsed(), true);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What the watcher listening at `sock` answers now: the paths it names (below their roots,
/// sorted), or `None` when none answers.
pub fn ask_at(sock: &Path) -> Option<Vec<String>> {
    let mut stream = UnixStream::connect(sock).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(b"DIBSW1 ask\n").ok()?;
    stream.shutdown(std::net::Shutdown::Write).ok()?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).ok()?;
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    let count: usize = head
        .strip_prefix("DIBSW1 ")?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    let fields: Vec<String> = bytes[end + 1..]
        .split(|&b| b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let mut paths: Vec<String> = fields.chunks(2).take(count).map(|c| c[1].clone()).collect();
    paths.sort();
    Some(paths)
}

/// [`ask_at`] the socket of the clone at `root`.
pub fn ask(root: &Path) -> Option<Vec<String>> {
    ask_at(&socket(root))
}

/// Wait until a watcher answers on `root`'s socket (whatever it names).
pub fn wait_answer(root: &Path) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if let Some(named) = ask(root) {
            return named;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no watcher answered");
}

/// The first sweep starts the watcher; wait until it answers (and names nothing). The
/// watcher the command's hook started is no job the command left running: no mark.
pub fn started(root: &Path, agent: &Agent) {
    pre_bash(agent, "cargo build").assert_silent();
    assert_eq!(
        wait_answer(root),
        Vec::<String>::new(),
        "named before any change"
    );
    settle();
    let marks = std::fs::read_dir(root.join(".git/dibs/background")).map_or(0, |d| d.count());
    assert_eq!(marks, 0, "the watcher was taken for a background job");
}

/// The commit session `session`'s snapshot ref points at.
pub fn snapshot(root: &Path, session: &str) -> String {
    git_out(
        root,
        &["rev-parse", &format!("refs/dibs/snapshots/{session}")],
    )
}

/// A session with `n` snapshotted files `src/d{i % 3}/f{i}.rs`, and its watcher started.
pub fn watched_repo(n: usize) -> (TestRepo, Agent, Vec<PathBuf>) {
    let repo = TestRepo::new();
    let agent = Agent::new("maker", &repo.root);
    let files = (0..n)
        .map(|i| {
            agent.write(
                &format!("src/d{}/f{i:02}.rs", i % 3),
                format!("fn f{i:02}() {{}}\n").as_bytes(),
            )
        })
        .collect();
    started(&repo.root, &agent);
    (repo, agent, files)
}

/// The live watcher processes of the clone whose common folder is `common`.
pub fn watchers(common: &Path) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(argv) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = argv.split(|&b| b == 0).collect();
        let is_watcher = args.windows(3).any(|w| {
            w[0] == b"watch" && w[1] == b"--dir" && w[2] == common.as_os_str().as_encoded_bytes()
        });
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        });
        if is_watcher && !zombie {
            out.push(pid);
        }
    }
    out
}

/// Ask the watcher of the clone at `root` to end.
pub fn quit(root: &Path) {
    if let Ok(mut s) = UnixStream::connect(socket(root)) {
        let _ = s.write_all(b"DIBSW1 quit\n");
    }
}

/// A pause longer than a file time's tick here.
pub fn tick() {
    std::thread::sleep(Duration::from_millis(15));
}

/// End the watcher of the clone at `root` and wait until its process is gone.
pub fn stop_watcher(root: &Path) {
    quit(root);
    let common = root.join(".git");
    let until = Instant::now() + Duration::from_secs(10);
    while !watchers(&common).is_empty() {
        assert!(Instant::now() < until, "the watcher did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// End the watcher of the clone at `root` and listen on its socket instead, as anything that
/// is not the watcher could.
pub fn take_socket(root: &Path) -> UnixListener {
    stop_watcher(root);
    let _ = std::fs::remove_file(socket(root));
    UnixListener::bind(socket(root)).unwrap()
}

/// The one live watcher of the clone whose common folder is `common`.
pub fn the_watcher(common: &Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let pids = watchers(common);
        if pids.len() == 1 {
            return pids[0];
        }
        assert!(Instant::now() < until, "watchers: {pids:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// (open fds, VmRSS kB, inotify watches) of process `pid`.
pub fn resources(pid: u32) -> (usize, u64, usize) {
    let fds: Vec<_> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .flatten()
        .collect();
    let mut watches = 0;
    for fd in &fds {
        let target = std::fs::read_link(fd.path()).unwrap_or_default();
        if target.to_string_lossy().contains("inotify") {
            let info = std::fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                fd.file_name().to_string_lossy()
            ))
            .unwrap_or_default();
            watches += info
                .lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count();
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (fds.len(), rss, watches)
}

/// CPU ticks (utime + stime) of process `pid`.
pub fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = stat.rsplit(')').next().unwrap();
    let f: Vec<&str> = rest.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// A PreToolUse of `command` by `agent` (its PostToolUse left to [`settle`]), timed.
pub fn timed(agent: &Agent, command: &str) -> Duration {
    let t = Instant::now();
    pre_bash(agent, command).assert_silent();
    t.elapsed()
}

/// The control: a sweep without the watcher (`DIBS_WATCH=off`) right after; whether it keeps
/// `bytes`.
pub fn kept_without_watcher(root: &Path, bytes: &[u8]) -> bool {
    settle();
    pre_bash_env(&Agent::new("control", root), "make", OFF).assert_silent();
    has_blob(root, bytes)
}

//! Support for the hook benchmark: the fixture repository (real `git`, a bare remote, an
//! unpushed branch, a dirty linked worktree), its store populated through the real hook, and
//! interleaved whole-process timing of `git-dibs hook` against `/bin/true` spawned the same way.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{self, TestRepo};

/// Files each populated session holds.
pub const FILES_PER_SESSION: usize = 30;
/// The process floor.
pub const FLOOR: &str = "/bin/true";
/// The session whose hook calls are timed.
pub const ME: &str = "b0000000-be0c-4000-8000-000000000000";

/// The id of populated peer session `i` (UUID-shaped, distinct first 8 characters).
pub fn peer_id(i: usize) -> String {
    format!("{:08x}-0000-4000-8000-{i:012x}", 0x5e55_0000 + i)
}

/// The path (relative to the main worktree) of file `j` of peer session `i`.
pub fn peer_file(i: usize, j: usize) -> String {
    format!("src/s{i:03}/f{j:02}.rs")
}

/// The benchmark's repository and how many peer sessions its store holds so far.
pub struct Fixture {
    /// The repository (kept alive for the whole run).
    pub repo: TestRepo,
    /// A linked worktree with a modified file.
    pub dirty_worktree: PathBuf,
    /// A linked worktree with a modified file and a `.gitmodules`: its facts come from git.
    pub git_worktree: PathBuf,
    /// Peer sessions populated so far (ids `peer_id(0..sessions)`).
    pub sessions: usize,
}

impl Fixture {
    /// A repository with files for `max_sessions` peers committed and pushed, a branch
    /// `somebranch` holding a commit no remote has, and a dirty linked worktree `dirtywt`.
    pub fn new(max_sessions: usize) -> Fixture {
        let repo = TestRepo::new();
        let root = repo.root.clone();
        common::git(&root, &["switch", "-q", "-c", "somebranch"]);
        repo.write(&root, "unpushed.txt", "only on this branch\n");
        common::git(&root, &["add", "unpushed.txt"]);
        common::git(&root, &["commit", "-qm", "unpushed work"]);
        common::git(&root, &["switch", "-q", "main"]);
        for i in 0..max_sessions {
            for j in 0..FILES_PER_SESSION {
                repo.write(&root, &peer_file(i, j), &format!("pub fn f{j}() {{}}\n"));
            }
        }
        repo.write(&root, "src/mine.rs", "pub fn mine() {}\n");
        common::git(&root, &["add", "-A"]);
        common::git(&root, &["commit", "-qm", "peer files"]);
        common::git(&root, &["push", "-q", "origin", "main"]);
        let dirty_worktree = repo.worktree("dirtywt");
        repo.write(&dirty_worktree, "README.md", "# changed, not committed\n");
        repo.write(&dirty_worktree, "notes.txt", "untracked\n");
        let git_worktree = repo.worktree("gitwt");
        repo.write(&git_worktree, "README.md", "# changed, not committed\n");
        repo.write(&git_worktree, ".gitmodules", "");
        Fixture {
            repo,
            dirty_worktree,
            git_worktree,
            sessions: 0,
        }
    }

    /// Bring the store up to `upto` live peer sessions of [`FILES_PER_SESSION`] files each, by
    /// running the real hook (SessionStart, then one Edit PreToolUse per file) in parallel
    /// threads, one session per thread at a time. Panics when any call fails or complains.
    pub fn populate(&mut self, upto: usize) {
        let next = AtomicUsize::new(self.sessions);
        let failures = Mutex::new(Vec::new());
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) * 2;
        let root = &self.repo.root;
        std::thread::scope(|s| {
            for _ in 0..threads.max(4) {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= upto {
                            break;
                        }
                        let id = peer_id(i);
                        let mut events = vec![session_start(&id, root)];
                        events.extend((0..FILES_PER_SESSION).map(|j| {
                            common::edit_event(
                                "PreToolUse",
                                "Edit",
                                &id,
                                root,
                                &root.join(peer_file(i, j)),
                            )
                        }));
                        for event in events {
                            let run = common::hook(root, &event);
                            if run.code != 0 || !run.stderr.is_empty() {
                                failures
                                    .lock()
                                    .unwrap()
                                    .push(format!("session {i}: exit {} {}", run.code, run.stderr));
                            }
                        }
                    }
                });
            }
        });
        let failures = failures.into_inner().unwrap();
        assert!(failures.is_empty(), "populating failed: {failures:#?}");
        self.sessions = upto;
    }
}

/// A `SessionStart` (source `startup`) for `session`.
pub fn session_start(session: &str, cwd: &Path) -> Value {
    common::claude_event(
        "SessionStart",
        session,
        cwd,
        json!({"source": "startup", "model": "claude-opus-4-7"}),
    )
}

/// A `UserPromptSubmit` for `session`.
pub fn prompt(session: &str, cwd: &Path, text: &str) -> Value {
    common::claude_event(
        "UserPromptSubmit",
        session,
        cwd,
        json!({"prompt": text, "permission_mode": "default"}),
    )
}

/// Spawn `program hook` in `cwd` exactly as the hook host would (stdin piped with `input`,
/// stdout and stderr captured, waited) and time the whole process.
pub fn spawn_timed(program: &Path, cwd: &Path, input: &[u8]) -> (Duration, Output) {
    let start = Instant::now();
    let mut child = Command::new(program)
        .arg("hook")
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn {}: {e}", program.display()));
    if let Some(mut stdin) = child.stdin.take() {
        // `/bin/true` may exit before reading: a broken pipe is part of the floor, not an error.
        let _ = stdin.write_all(input);
    }
    let output = child.wait_with_output().expect("the child can be waited");
    (start.elapsed(), output)
}

/// Median and 90th percentile of a set of durations, in microseconds.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    /// The median.
    pub median: f64,
    /// The 90th percentile (nearest rank).
    pub p90: f64,
}

impl Stats {
    /// The statistics of `samples` (not empty).
    pub fn of(samples: &[Duration]) -> Stats {
        let mut us: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        us.sort_by(f64::total_cmp);
        let n = us.len();
        let median = if n % 2 == 1 {
            us[n / 2]
        } else {
            f64::midpoint(us[n / 2 - 1], us[n / 2])
        };
        let p90 = us[((n * 9).div_ceil(10)).clamp(1, n) - 1];
        Stats { median, p90 }
    }
}

/// One scenario's timings.
pub struct Measurement {
    /// `/bin/true` spawned the same way.
    pub floor: Stats,
    /// `git-dibs hook`.
    pub hook: Stats,
    /// What the hook answered on its last timed call, in a few words.
    pub outcome: String,
}

impl Measurement {
    /// Ratio of the hook's median to the floor's.
    pub fn ratio(&self) -> f64 {
        self.hook.median / self.floor.median
    }
}

/// Time `iters` pairs (`/bin/true`, then the hook), interleaved, after `warmup` untimed pairs,
/// calling `before` (untimed) before each hook run: to change a file, say.
pub fn measure(
    cwd: &Path,
    event: &Value,
    warmup: usize,
    iters: usize,
    before: impl FnMut(),
) -> Measurement {
    let input = format!("{event}\n").into_bytes();
    let floor = || spawn_timed(Path::new(FLOOR), cwd, &input).0;
    interleaved(cwd, &input, warmup, iters, floor, before)
}

/// [`measure`] against `git status` in `worktree` instead of `/bin/true`: for a guarded command
/// whose facts come from git itself, whose own floor is git's answer.
pub fn measure_against_git_status(
    cwd: &Path,
    worktree: &Path,
    event: &Value,
    warmup: usize,
    iters: usize,
) -> Measurement {
    let input = format!("{event}\n").into_bytes();
    let status = || {
        let start = Instant::now();
        let out = Command::new("git")
            .args(["status", "--porcelain=v2", "--ignore-submodules=none"])
            .current_dir(worktree)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .expect("git status runs");
        assert!(out.status.success(), "git status in {}", worktree.display());
        start.elapsed()
    };
    interleaved(cwd, &input, warmup, iters, status, || {})
}

/// `warmup` untimed then `iters` timed pairs of `floor` (which times itself) and the hook fed
/// `input`, `before` running untimed ahead of each hook run.
fn interleaved(
    cwd: &Path,
    input: &[u8],
    warmup: usize,
    iters: usize,
    mut floor: impl FnMut() -> Duration,
    mut before: impl FnMut(),
) -> Measurement {
    let hook = common::bin();
    for _ in 0..warmup {
        floor();
        before();
        spawn_timed(&hook, cwd, input);
    }
    let mut floor_times = Vec::with_capacity(iters);
    let mut hook_times = Vec::with_capacity(iters);
    let mut last = None;
    for _ in 0..iters.max(1) {
        floor_times.push(floor());
        before();
        let (elapsed, output) = spawn_timed(&hook, cwd, input);
        hook_times.push(elapsed);
        last = Some(output);
    }
    Measurement {
        floor: Stats::of(&floor_times),
        hook: Stats::of(&hook_times),
        outcome: describe(&last.expect("at least one run")),
    }
}

/// A few words on what a hook process answered.
pub fn describe(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    let mut what = if code == 2 {
        "blocked (exit 2)".to_owned()
    } else if stdout.contains("\"deny\"") {
        "blocked (deny)".to_owned()
    } else if stdout.contains("\"ask\"") {
        "ask".to_owned()
    } else if stdout.contains("systemMessage") || stdout.contains("additionalContext") {
        "warned".to_owned()
    } else if !stdout.trim().is_empty() {
        "printed output".to_owned()
    } else {
        "silent".to_owned()
    };
    if code != 0 && code != 2 {
        what.push_str(&format!(", exit {code}"));
    }
    if let Some(line) = stderr.lines().next().filter(|l| !l.trim().is_empty()) {
        let short: String = line.chars().take(60).collect();
        what.push_str(&format!(", stderr: {}", short.replace('|', "/")));
    }
    what
}

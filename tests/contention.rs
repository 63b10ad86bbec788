//! Contention: 200 hook processes at once against one store, each timed against the floor of
//! 200 trivial processes started the same way: all alive at once and then given their input
//! (everyday edits by 40 sessions of 10 shared files; and calls that all write), and spawned
//! back to back. No call waits for the lock timeout, and the time spent waiting for the store's
//! locks stays under a bound (`DIBS_LOCK_TRACE` makes each process report its lock wait and
//! hold times). The latencies of both, the CPU time a process (started together: and how much
//! of it came after its input) and the lock's times are printed; README "How it works" quotes them. Run with
//! `cargo test --release --test contention -- --nocapture`; `DIBS_CONTENTION_BIN=<a git-dibs
//! binary>` measures another build the same way.

mod common;

use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::*;

const PROCESSES: usize = 200;
/// Rounds of each kind, interleaved, so that a burst of other work on the machine falls on
/// both alike.
const ROUNDS: usize = 3;

/// What one round of `PROCESSES` processes measured.
#[derive(Default)]
struct Round {
    /// Each process's time from its spawn to its exit.
    latency: Vec<Duration>,
    /// CPU time (user and system) of all processes of the round.
    cpu: Duration,
    /// Of that, what the processes started together had spent when given their input (their
    /// start, which no input waits for).
    before_input: Duration,
    wall: Duration,
    outputs: Vec<Output>,
}

/// CPU time (user and system) of this process's children that have been waited for: fields
/// `cutime` and `cstime` of `/proc/self/stat`, in clock ticks (USER_HZ, 100 a second).
fn rusage_children() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_name.split(' ').collect();
    // Fields 16 and 17 of the line (1-based); the name was field 2, so 13 and 14 from here.
    let ticks: u64 = fields[13].parse::<u64>().unwrap() + fields[14].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// The CPU time process `pid` has spent so far (`/proc/<pid>/schedstat`, in nanoseconds).
fn cpu_of(pid: u32) -> Duration {
    std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .ok()
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// How the processes of a round are started.
#[derive(Clone, Copy, PartialEq)]
enum Start {
    /// All started first, each waiting for its input; then the inputs are written one after
    /// the other: every process is alive at once. Timed from its input to its exit.
    Together,
    /// Spawned back to back, each with its input at once. Timed from its spawn to its exit.
    BackToBack,
}

/// Start `PROCESSES` processes, each `command(i)` with `inputs[i]` on stdin, and time each (a
/// waiting thread per process notes the moment it ends).
fn round(start: Start, command: impl Fn(usize) -> Command, inputs: &[String]) -> Round {
    use std::io::Write;
    let cpu = rusage_children();
    let spawn = |i: usize| {
        let mut cmd = command(i);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.spawn().expect("the process starts")
    };
    let feed = |child: &mut std::process::Child, input: &str| {
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(input.as_bytes());
    };
    let wait = |at: Instant, child: std::process::Child| {
        thread::spawn(move || {
            let out = child.wait_with_output().unwrap();
            (at.elapsed(), out)
        })
    };
    let started = Instant::now();
    let mut before_input = Duration::ZERO;
    let waiters: Vec<_> = match start {
        Start::Together => {
            let mut children: Vec<_> = (0..inputs.len()).map(spawn).collect();
            // Let every process reach its read of stdin.
            thread::sleep(Duration::from_millis(300));
            let fed: Vec<_> = children
                .iter_mut()
                .zip(inputs)
                .map(|(child, input)| {
                    before_input += cpu_of(child.id());
                    let at = Instant::now();
                    feed(child, input);
                    at
                })
                .collect();
            children
                .into_iter()
                .zip(fed)
                .map(|(child, at)| wait(at, child))
                .collect()
        }
        Start::BackToBack => inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                let at = Instant::now();
                let mut child = spawn(i);
                feed(&mut child, input);
                wait(at, child)
            })
            .collect(),
    };
    let mut r = Round::default();
    for w in waiters {
        let (latency, out) = w.join().unwrap();
        r.latency.push(latency);
        r.outputs.push(out);
    }
    r.wall = started.elapsed();
    r.cpu = rusage_children().saturating_sub(cpu);
    r.before_input = before_input;
    r
}

/// The `q` quantile of `times` (sorted here).
fn quantile(times: &mut [Duration], q: f64) -> Duration {
    times.sort();
    times[((times.len() as f64 * q) as usize).min(times.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The lock wait and hold times a process reported (`DIBS_LOCK_TRACE`), in µs.
fn lock_times(stderr: &str) -> Vec<(u64, u64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("git-dibs lock: waited ")?;
            let (wait, rest) = rest.split_once(" us, held ")?;
            let hold = rest.strip_suffix(" us")?;
            Some((wait.parse().ok()?, hold.parse().ok()?))
        })
        .collect()
}

/// What the rounds of one kind measured, pooled.
#[derive(Default)]
struct Pooled {
    latency: Vec<Duration>,
    cpu: Duration,
    before_input: Duration,
    walls: Vec<Duration>,
    outputs: Vec<Output>,
}

impl Pooled {
    fn add(&mut self, r: Round) {
        self.latency.extend(r.latency);
        self.cpu += r.cpu;
        self.before_input += r.before_input;
        self.walls.push(r.wall);
        self.outputs.extend(r.outputs);
    }

    fn report(&mut self, name: &str) -> Duration {
        let calls = self.latency.len() as u32;
        let p99 = quantile(&mut self.latency, 0.99);
        // Started together, a process's CPU after its input is what the others queue for.
        let after = if self.before_input.is_zero() {
            String::new()
        } else {
            format!(
                " ({} after its input)",
                ms(self.cpu.saturating_sub(self.before_input) / calls)
            )
        };
        eprintln!(
            "contention: {name}: p50 {}, p99 {}, max {}; CPU {} a process{after}; rounds took {}",
            ms(quantile(&mut self.latency, 0.5)),
            ms(p99),
            ms(quantile(&mut self.latency, 1.0)),
            ms(self.cpu / calls),
            self.walls
                .iter()
                .map(|w| ms(*w))
                .collect::<Vec<_>>()
                .join(", "),
        );
        p99
    }
}

/// What the hook processes said about the lock: lock timeouts, and each call's total wait.
struct LockReport {
    timeouts: Vec<String>,
    wait_p99: Duration,
}

fn lock_report(name: &str, outputs: &[Output]) -> LockReport {
    let mut timeouts = Vec::new();
    let (mut waits, mut holds) = (Vec::new(), Vec::new());
    let mut locked = 0;
    for out in outputs {
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("locked by another process") {
            timeouts.push(err.clone().into_owned());
        }
        let times = lock_times(&err);
        locked += usize::from(!times.is_empty());
        waits.push(Duration::from_micros(times.iter().map(|t| t.0).sum()));
        holds.extend(times.iter().map(|t| Duration::from_micros(t.1)));
    }
    if holds.is_empty() {
        holds.push(Duration::ZERO);
    }
    let wait_p99 = quantile(&mut waits, 0.99);
    eprintln!(
        "contention: {name}: lock taken by {locked} of {} calls; wait a call p50 {}, p99 {}, \
         max {}; each hold p50 {}, p99 {}, max {}",
        outputs.len(),
        ms(quantile(&mut waits, 0.5)),
        ms(wait_p99),
        ms(quantile(&mut waits, 1.0)),
        ms(quantile(&mut holds, 0.5)),
        ms(quantile(&mut holds, 0.99)),
        ms(quantile(&mut holds, 1.0)),
    );
    LockReport { timeouts, wait_p99 }
}

/// The bound on a call's total wait for the store's locks, at the 99th percentile: a writer
/// queues only behind writers of its own session (or of its shard of 4,096), so even when
/// every call writes they hardly wait. Debug builds (`cargo test` without `--release`) spend
/// about twice the CPU time a call, on the same 2 cores.
const WAIT_P99: Duration = Duration::from_millis(if cfg!(debug_assertions) { 150 } else { 50 });

/// What the processes of a round do.
#[derive(Clone, Copy, PartialEq)]
enum Load {
    /// 40 sessions editing 10 shared files again, before and after (the everyday case: most
    /// calls find nothing worth writing).
    Everyday,
    /// 200 sessions, each claiming a file it never touched (before an edit), 4 sessions a
    /// file: every call writes its record and an index marker, and most are warned of a peer.
    EveryCallWrites,
}

#[test]
fn two_hundred_concurrent_hooks_never_wait_for_the_lock_timeout() {
    let repo = TestRepo::new();
    let session = |i: usize| format!("{i:08x}-0000-4000-8000-{i:012x}");
    let event = |load: Load, r: usize, i: usize| match load {
        Load::Everyday => {
            let name = if i.is_multiple_of(2) {
                "PreToolUse"
            } else {
                "PostToolUse"
            };
            let file = repo.root.join(format!("src/f{}.rs", i % 10));
            edit_event(name, "Edit", &session(i % 40), &repo.root, &file)
        }
        Load::EveryCallWrites => {
            let file = repo.root.join(format!("src/r{r}/f{}.rs", i % 50));
            edit_event("PreToolUse", "Edit", &session(100 + i), &repo.root, &file)
        }
    };
    let configs = [
        (Load::Everyday, Start::Together),
        (Load::EveryCallWrites, Start::Together),
        (Load::Everyday, Start::BackToBack),
    ];
    for i in 0..10 {
        repo.write(&repo.root, &format!("src/f{i}.rs"), "x\n");
    }
    for r in 0..ROUNDS * configs.len() {
        for j in 0..50 {
            repo.write(&repo.root, &format!("src/r{r}/f{j}.rs"), "x\n");
        }
    }
    // Each session once, so that the timed rounds are the everyday case (records exist).
    for i in 0..40 {
        hook(&repo.root, &event(Load::Everyday, 0, i));
    }
    let warm = ROUNDS * configs.len();
    for j in 0..50 {
        repo.write(&repo.root, &format!("src/r{warm}/f{j}.rs"), "x\n");
    }
    for i in 0..PROCESSES {
        hook(&repo.root, &event(Load::EveryCallWrites, warm, i));
    }
    let env = |cmd: &mut Command| {
        cmd.current_dir(&repo.root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
    };
    // Another build can be measured the same way (an older one, for a comparison).
    let program = std::env::var_os("DIBS_CONTENTION_BIN").map_or_else(bin, Into::into);
    let hook_cmd = |_| {
        let mut cmd = Command::new(&program);
        cmd.arg("hook").env("DIBS_LOCK_TRACE", "1");
        env(&mut cmd);
        cmd
    };
    // The floor: a trivial process started the same way. Started together, it reads its input
    // as the hook does (`cat`); spawned back to back, it is `/bin/true`.
    let floor_cmd = |start: Start| {
        move |_| {
            let mut cmd = Command::new(match start {
                Start::Together => "/bin/cat",
                Start::BackToBack => "/bin/true",
            });
            env(&mut cmd);
            cmd
        }
    };
    let mut failures = Vec::new();
    for (k, (load, start)) in configs.into_iter().enumerate() {
        let (mut floor, mut hooks) = (Pooled::default(), Pooled::default());
        for n in 0..ROUNDS {
            let r = k * ROUNDS + n;
            let inputs: Vec<String> = (0..PROCESSES)
                .map(|i| format!("{}\n", event(load, r, i)))
                .collect();
            floor.add(round(start, floor_cmd(start), &inputs));
            hooks.add(round(start, hook_cmd, &inputs));
        }
        let (how, floor_name) = match start {
            Start::Together => ("started together", "cat"),
            Start::BackToBack => ("spawned back to back", "/bin/true"),
        };
        let what = match load {
            Load::Everyday => "everyday edits",
            Load::EveryCallWrites => "every call writes",
        };
        let label = format!("{what}, {how}");
        eprintln!("contention: {ROUNDS} rounds of {PROCESSES} processes, {label}:");
        let floor_p99 = floor.report(&format!("  {floor_name} (floor)"));
        let hook_p99 = hooks.report("  git-dibs hook");
        let lock = lock_report("  git-dibs hook", &hooks.outputs);
        eprintln!(
            "contention:   git-dibs's own share of p99: {} over the floor's",
            ms(hook_p99.saturating_sub(floor_p99))
        );
        if !lock.timeouts.is_empty() {
            failures.push(format!(
                "{label}: {} lock timeouts: {:?}",
                lock.timeouts.len(),
                lock.timeouts.first()
            ));
        }
        // A holder descheduled while it holds a lock makes the others wait as long as the
        // machine makes any process wait: on a loaded machine the bound grows with the floor.
        let bound = WAIT_P99.max(floor_p99 * 3);
        if lock.wait_p99 > bound {
            failures.push(format!(
                "{label}: lock wait p99 {} over {} (floor p99 {})",
                ms(lock.wait_p99),
                ms(bound),
                ms(floor_p99)
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

//! The scenario runner: a scratch repository with a bare remote, the hooks wired into its
//! `.claude/settings.json`, a stand-in API, and `claude -p` sessions run offline against it with
//! a time limit each. Failures name the scenario and step and show what the host printed.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::api::StandIn;
use super::cli;
use super::procs::{self, descendants};
use crate::common::{self, TestRepo};
use report::Progress;

/// The failure report shared with the Gemini CLI and Codex scenarios.
#[path = "../e2e_hosts/report.rs"]
mod report;

/// How long a scenario waits for a session to reach a scripted point.
pub const REACH: Duration = Duration::from_secs(60);

/// How long one session may run before it is killed and reported: 90 s, or
/// `GIT_DIBS_E2E_SESSION_SECS`.
pub fn session_limit() -> Duration {
    let secs = std::env::var("GIT_DIBS_E2E_SESSION_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(90);
    Duration::from_secs(secs)
}

/// One scenario: its repository, stand-in, sessions and the step being checked.
pub struct Scenario {
    /// Scenario name, for reports.
    pub name: String,
    /// The scratch repository (main worktree at `repo.root`).
    pub repo: TestRepo,
    /// The stand-in API all sessions of this scenario talk to.
    pub api: StandIn,
    /// Scratch folder outside the repository (homes, logs, flag files).
    pub scratch: PathBuf,
    /// The Claude Code executable.
    pub claude: PathBuf,
    progress: Progress,
}

/// A running `claude -p` session.
pub struct Session {
    /// The name given by the scenario.
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: PathBuf,
    started: Instant,
}

impl Session {
    /// Close a streaming session's input: it ends after its current turn.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Kill the session and every process it started (the Bash tool detaches its commands
    /// from the host's process group, so they are found through /proc), then reap it.
    fn kill(&mut self) {
        procs::kill_tree(&mut self.child);
    }
}

impl Drop for Session {
    /// A session left running by a failed scenario is killed, never left behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// What a finished session printed.
#[derive(Debug)]
pub struct Finished {
    /// The session's name.
    pub name: String,
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// stream-json events, one per stdout line that parsed.
    pub events: Vec<Value>,
    /// The session id the host reported.
    pub session_id: String,
}

impl Finished {
    /// `system` events of subtype `informational` (what `systemMessage` becomes).
    pub fn informational(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
            .map(|e| e.to_string())
            .collect()
    }
}

impl Scenario {
    /// A new scenario on a fresh repository, with its own stand-in API.
    pub fn new(name: &str) -> Scenario {
        let claude = cli::claude();
        let repo = TestRepo::new();
        let scratch = repo.tmp.path().canonicalize().unwrap().join("e2e");
        fs::create_dir_all(&scratch).unwrap();
        // The harness's own files stay out of `git status`, so only what a scenario makes is dirty.
        let exclude = repo.root.join(".git/info/exclude");
        let mut text = fs::read_to_string(&exclude).unwrap_or_default();
        text.push_str("/.claude/\n");
        fs::write(&exclude, text).unwrap();
        Scenario {
            name: name.to_owned(),
            repo,
            api: StandIn::start(),
            scratch,
            claude,
            progress: Progress::new("session ", "…"),
        }
    }

    /// Name the step being checked, for failure reports.
    pub fn step(&self, what: &str) {
        self.progress.step(what);
    }

    /// Fail the scenario: the step, `message`, the tails of every session's output and what
    /// the stand-in received.
    #[track_caller]
    pub fn fail(&self, message: &str) -> ! {
        let mut report = self.progress.report(&self.name, message);
        report.push_str(&format!(
            "--- stand-in requests ---\n{}",
            self.api.summary()
        ));
        panic!("{report}");
    }

    /// Fail unless `cond`.
    #[track_caller]
    pub fn check(&self, cond: bool, message: impl FnOnce() -> String) {
        if !cond {
            self.fail(&message());
        }
    }

    /// The folder holding the `git-dibs` binary, first on PATH so `git dibs` finds it.
    fn path_var(&self) -> String {
        let bin_dir = common::bin().parent().unwrap().to_path_buf();
        let rest = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        format!("{}:{rest}", bin_dir.display())
    }

    /// Run `git dibs ARGS` in `dir` as a person would: through git, the binary's folder first
    /// on PATH, a scratch HOME.
    pub fn dibs(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        let home = self.scratch.join("home-person");
        fs::create_dir_all(&home).unwrap();
        Command::new("git")
            .arg("dibs")
            .args(args)
            .current_dir(dir)
            .env("PATH", self.path_var())
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .unwrap_or_else(|e| self.fail(&format!("cannot run git dibs: {e}")))
    }

    /// Wire the git-dibs hooks into `dir` (a worktree root) the way a person does:
    /// `git dibs install`, which writes `.claude/settings.json`.
    pub fn wire_hooks(&self, dir: &Path) {
        self.step(&format!("git dibs install in {}", dir.display()));
        let out = self.dibs(dir, &["install"]);
        self.check(out.status.success(), || {
            format!(
                "`git dibs install` failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
        self.check(dir.join(".claude/settings.json").is_file(), || {
            "`git dibs install` wrote no .claude/settings.json".into()
        });
    }

    /// Start `claude -p <prompt>` in `cwd`, offline against this scenario's stand-in.
    pub fn start(&self, name: &str, cwd: &Path, prompt: &str) -> Session {
        self.spawn(name, cwd, &["-p", prompt], false)
    }

    /// Start `claude ARGS` (`-p` and a prompt among them) in `cwd`, offline like [`Scenario::start`].
    pub fn start_with(&self, name: &str, cwd: &Path, args: &[&str]) -> Session {
        self.spawn(name, cwd, args, false)
    }

    /// [`Scenario::start_with`], with `path` as the session's whole `PATH`.
    pub fn start_with_path(&self, name: &str, cwd: &Path, args: &[&str], path: &str) -> Session {
        self.spawn_in(name, cwd, args, false, path)
    }

    /// Start `claude -p --input-format stream-json` in `cwd`: several prompts in one session,
    /// sent with [`Scenario::say`]; it ends when [`Session::close_input`] is called.
    pub fn start_streaming(&self, name: &str, cwd: &Path) -> Session {
        self.spawn(name, cwd, &["-p", "--input-format", "stream-json"], true)
    }

    fn spawn(&self, name: &str, cwd: &Path, args: &[&str], streaming: bool) -> Session {
        self.spawn_in(name, cwd, args, streaming, &self.path_var())
    }

    fn spawn_in(
        &self,
        name: &str,
        cwd: &Path,
        args: &[&str],
        streaming: bool,
        path: &str,
    ) -> Session {
        let home = self.scratch.join(format!("home-{name}"));
        fs::create_dir_all(&home).unwrap();
        let stdout = self.scratch.join(format!("{name}.stdout"));
        let stderr = self.scratch.join(format!("{name}.stderr"));
        self.progress.session(name, &stdout, &stderr);
        let mut cmd = Command::new(&self.claude);
        cmd.args(args)
            .args(["--output-format", "stream-json", "--verbose"])
            .args(["--allowedTools", "Read,Edit,Write,Bash,Agent,ExitWorktree"])
            .current_dir(cwd)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &home)
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("ANTHROPIC_BASE_URL", self.api.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-stand-in")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Agent")
            .env("GIT_AUTHOR_EMAIL", "agent@example.invalid")
            .env("GIT_COMMITTER_NAME", "Agent")
            .env("GIT_COMMITTER_EMAIL", "agent@example.invalid")
            .stdin(if streaming {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(File::create(&stdout).unwrap())
            .stderr(File::create(&stderr).unwrap());
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        self.step(&format!("start session {name}"));
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| self.fail(&format!("cannot start {}: {e}", self.claude.display())));
        Session {
            name: name.to_owned(),
            stdin: child.stdin.take(),
            child,
            stdout,
            started: Instant::now(),
        }
    }

    /// Send one user prompt to a streaming session.
    pub fn say(&self, session: &mut Session, prompt: &str) {
        self.step(&format!("prompt session {}", session.name));
        let line = json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "text", "text": prompt}]}});
        let sent = session
            .stdin
            .as_mut()
            .map(|stdin| writeln!(stdin, "{line}").and_then(|()| stdin.flush()));
        self.check(matches!(sent, Some(Ok(()))), || {
            format!("cannot send a prompt to session {}: {sent:?}", session.name)
        });
    }

    /// Wait until a session has finished `turns` turns (stream-json `result` events).
    pub fn wait_turns(&self, session: &mut Session, turns: usize) {
        let what = format!("session {} to finish turn {turns}", session.name);
        let stdout = session.stdout.clone();
        self.wait_on(session, &what, || {
            let done = events(&stdout)
                .iter()
                .filter(|e| e["type"] == "result")
                .count();
            done >= turns
        });
    }

    /// Wait until `cond` holds while `session` runs, polling. Fails at once when the session
    /// exits first, and after [`REACH`] when it is still running.
    pub fn wait_on(&self, session: &mut Session, what: &str, mut cond: impl FnMut() -> bool) {
        let start = Instant::now();
        while !cond() {
            if let Ok(Some(status)) = session.child.try_wait() {
                // One last look: the condition may have come true just before the exit.
                if cond() {
                    return;
                }
                self.fail(&format!(
                    "session {} exited ({status}) before {what}",
                    session.name
                ));
            }
            if start.elapsed() > REACH {
                self.fail(&format!("timed out after {REACH:?} waiting for {what}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait for `session` to exit within [`session_limit`] of its start; kill and fail if not.
    /// Fails too when it exits non-zero or reports no session id.
    pub fn finish(&self, mut session: Session) -> Finished {
        self.step(&format!("session {} runs to the end", session.name));
        let status = loop {
            if let Some(status) = session.child.try_wait().unwrap() {
                break status;
            }
            if session.started.elapsed() > session_limit() {
                session.kill();
                self.fail(&format!(
                    "session {} hung: killed after {:?}",
                    session.name,
                    session_limit()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let events = events(&session.stdout);
        let session_id = session_id(&events).unwrap_or_default();
        let code = status.code().unwrap_or(-1);
        self.check(code == 0, || {
            format!("session {} exited with {status}", session.name)
        });
        self.check(!session_id.is_empty(), || {
            format!("session {} reported no session_id", session.name)
        });
        Finished {
            name: session.name.clone(),
            code,
            events,
            session_id,
        }
    }

    /// SIGKILL `session` and every process it started, as a crash or `kill -9` would: no hook
    /// runs. Fails unless all of them are gone (or left as zombies) within a few seconds.
    pub fn kill(&self, mut session: Session) {
        self.step(&format!(
            "SIGKILL session {} and what it started",
            session.name
        ));
        let mut pids = descendants(session.child.id());
        pids.push(session.child.id());
        session.kill();
        let start = Instant::now();
        let running = || -> Vec<u32> {
            pids.iter()
                .copied()
                .filter(|pid| procs::running(*pid))
                .collect()
        };
        while !running().is_empty() && start.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let left = running();
        self.check(left.is_empty(), || {
            format!(
                "processes of session {} survived SIGKILL: {left:?}",
                session.name
            )
        });
    }

    /// The session id a running session has reported so far, waiting for it.
    pub fn session_id_of(&self, session: &mut Session) -> String {
        let mut id = None;
        let stdout = session.stdout.clone();
        let what = format!("session id of {}", session.name);
        self.wait_on(session, &what, || {
            id = session_id(&events(&stdout));
            id.is_some()
        });
        id.unwrap()
    }

    /// Every session record in the store, parsed.
    pub fn store_sessions(&self) -> Vec<Value> {
        let dir = self.repo.store_dir().join("sessions");
        let Ok(entries) = fs::read_dir(&dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect()
    }

    /// The store record of session `id`, if any.
    pub fn store_session(&self, id: &str) -> Option<Value> {
        self.store_sessions().into_iter().find(|s| s["id"] == id)
    }

    /// A flag file path in the scratch folder.
    pub fn flag(&self, name: &str) -> PathBuf {
        self.scratch.join(name)
    }

    /// Fail unless the tool call of `step` in conversation `marker` was refused with a reason
    /// naming every one of `names`; the reason as the model saw it.
    pub fn refused(&self, marker: &str, step: usize, names: &[&str]) -> String {
        let result = self.result(marker, step);
        let text = super::api::content_text(&result["content"]);
        self.check(result["is_error"] == Value::Bool(true), || {
            format!("{marker} step {step} was not refused: {result}")
        });
        for name in names {
            self.check(text.contains(name), || {
                format!("{marker} step {step}: the reason does not name {name:?}: {text}")
            });
        }
        text
    }

    /// Fail unless the tool call of `step` in conversation `marker` went through.
    pub fn allowed(&self, marker: &str, step: usize) {
        let result = self.result(marker, step);
        self.check(result["is_error"] != Value::Bool(true), || {
            format!("{marker} step {step} was refused: {result}")
        });
    }

    fn result(&self, marker: &str, step: usize) -> Value {
        self.api
            .tool_result(marker, step)
            .unwrap_or_else(|| self.fail(&format!("{marker}: no tool_result for step {step}")))
    }
}

/// A Bash command that touches `ready`, then waits (at most `limit_secs`) until `release`
/// exists: keeps a session live while others act.
pub fn hold_command(ready: &Path, release: &Path, limit_secs: u32) -> String {
    format!(
        "touch '{}' && {}",
        ready.display(),
        wait_command(release, limit_secs)
    )
}

/// A Bash command that waits (at most `limit_secs`) until `flag` exists. A polling loop, since
/// the Bash tool refuses a standalone `sleep`.
pub fn wait_command(flag: &Path, limit_secs: u32) -> String {
    format!(
        "for i in $(seq {ticks}); do [ -e '{}' ] && break; sleep 0.05; done",
        flag.display(),
        ticks = limit_secs * 20
    )
}

/// The stream-json events in a stdout file.
fn events(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The first `session_id` among `events`.
fn session_id(events: &[Value]) -> Option<String> {
    events
        .iter()
        .find_map(|e| e["session_id"].as_str().map(str::to_owned))
}

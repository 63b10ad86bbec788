//! One real-host scenario: a scratch repository with a bare remote, the host's hooks wired by
//! `git dibs install --<host>`, a simulated live peer, and host sessions run with a time limit.
//! Failures name the scenario and step and show what the host printed and the stand-in got.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http::Server;
use super::report::Progress;
use crate::common::{self, TestRepo};

/// How long one host session may run: 60 s, or `GIT_DIBS_E2E_SESSION_SECS`.
pub fn session_limit() -> Duration {
    let secs = std::env::var("GIT_DIBS_E2E_SESSION_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// What a finished host session printed.
#[derive(Debug)]
pub struct Finished {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// stdout, parsed one JSON event per line (lines that do not parse are skipped).
    pub events: Vec<Value>,
    /// stderr, whole.
    pub stderr: String,
}

/// A scenario: its repository, scratch folder, stand-in and the step being checked.
pub struct Scenario {
    /// Scenario name, for reports.
    pub name: String,
    /// The scratch repository (main worktree at `repo.root`).
    pub repo: TestRepo,
    /// A folder outside the repository for homes and logs.
    pub scratch: PathBuf,
    progress: Progress,
    api: Mutex<Option<Server>>,
}

impl Scenario {
    /// A fresh repository; the hosts' own folders are kept out of `git status`.
    pub fn new(name: &str) -> Scenario {
        let repo = TestRepo::new();
        let scratch = repo.tmp.path().canonicalize().unwrap().join("e2e");
        fs::create_dir_all(&scratch).unwrap();
        let exclude = repo.root.join(".git/info/exclude");
        let mut text = fs::read_to_string(&exclude).unwrap_or_default();
        text.push_str("/.claude/\n/.gemini/\n/.codex/\n");
        fs::write(&exclude, text).unwrap();
        Scenario {
            name: name.to_owned(),
            repo,
            scratch,
            progress: Progress::new("", ""),
            api: Mutex::new(None),
        }
    }

    /// Show `server`'s requests in failure reports.
    pub fn attach(&self, server: &Server) {
        *self.api.lock().unwrap() = Some(server.clone());
    }

    /// Name the step being checked.
    pub fn step(&self, what: &str) {
        self.progress.step(what);
    }

    /// Fail the scenario with the step, `message`, the host's output and the stand-in's log.
    #[track_caller]
    pub fn fail(&self, message: &str) -> ! {
        let mut report = self.progress.report(&self.name, message);
        if let Some(api) = self.api.lock().unwrap().as_ref() {
            report.push_str(&format!("--- stand-in requests ---\n{}", api.summary()));
        }
        panic!("{report}");
    }

    /// Fail unless `cond`.
    #[track_caller]
    pub fn check(&self, cond: bool, message: impl FnOnce() -> String) {
        if !cond {
            self.fail(&message());
        }
    }

    /// PATH with the folder of the built `git-dibs` first.
    pub fn path_var(&self) -> String {
        let bin_dir = common::bin().parent().unwrap().to_path_buf();
        let rest = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        format!("{}:{rest}", bin_dir.display())
    }

    /// `git dibs ARGS` in the repository, as a person runs it.
    pub fn dibs(&self, args: &[&str]) -> Output {
        let home = self.scratch.join("home-person");
        fs::create_dir_all(&home).unwrap();
        Command::new("git")
            .arg("dibs")
            .args(args)
            .current_dir(&self.repo.root)
            .env("PATH", self.path_var())
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .unwrap_or_else(|e| self.fail(&format!("cannot run git dibs: {e}")))
    }

    /// Wire the hooks with `git dibs install <flag>`; `file` must then exist.
    pub fn install(&self, flag: &str, file: &str) {
        self.step(&format!("git dibs install {flag}"));
        let out = self.dibs(&["install", flag]);
        self.check(out.status.success(), || {
            format!("install failed: {}", String::from_utf8_lossy(&out.stderr))
        });
        self.check(self.repo.root.join(file).is_file(), || {
            format!("no {file} written")
        });
    }

    /// A live Claude Code peer edits `rel` (its PreToolUse runs through the binary, from this
    /// test process, which stays alive as its agent). Returns the peer's short id.
    pub fn peer_edits(&self, rel: &str) -> String {
        self.step("a live peer edits the file");
        let id = "9eef1234-peer-4000-8000-000000000001";
        let root = &self.repo.root;
        let event = common::edit_event("PreToolUse", "Edit", id, root, &root.join(rel));
        let run = common::hook(root, &event);
        self.check(run.code == 0 && run.stdout.is_empty(), || {
            format!("the peer's hook call failed: {run:?}")
        });
        id[..8].to_owned()
    }

    /// A branch `name` whose only commit is on no remote.
    pub fn unpushed_branch(&self, name: &str) {
        let repo = &self.repo;
        let wt = self.scratch.join(format!("wt-{name}"));
        common::git(
            &repo.root,
            &["worktree", "add", "-q", "-b", name, wt.to_str().unwrap()],
        );
        repo.write(&wt, "only-here.txt", "x\n");
        common::git(&wt, &["add", "only-here.txt"]);
        common::git(&wt, &["commit", "-qm", "only here"]);
        common::git(&repo.root, &["worktree", "remove", wt.to_str().unwrap()]);
    }

    /// Whether branch `name` exists.
    pub fn branch_exists(&self, name: &str) -> bool {
        common::git_command(&self.repo.root)
            .args(["rev-parse", "--verify", "-q", &format!("refs/heads/{name}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The store's session records, parsed.
    pub fn store_sessions(&self) -> Vec<Value> {
        let dir = self.repo.store_dir().join("sessions");
        fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice(&b).ok())
            .collect()
    }

    /// Run a host session to its end within [`session_limit`]; kill it and fail when it hangs,
    /// fail when it exits non-zero.
    pub fn run(&self, name: &str, mut cmd: Command) -> Finished {
        let stdout = self.scratch.join(format!("{name}.stdout"));
        let stderr = self.scratch.join(format!("{name}.stderr"));
        self.progress.session(name, &stdout, &stderr);
        self.step(&format!("session {name} runs to the end"));
        cmd.current_dir(&self.repo.root)
            .stdin(Stdio::null())
            .stdout(File::create(&stdout).unwrap())
            .stderr(File::create(&stderr).unwrap());
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| self.fail(&format!("cannot start the host: {e}")));
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > session_limit() {
                let _ = child.kill();
                let _ = child.wait();
                self.fail(&format!(
                    "session {name} hung: killed after {:?}",
                    session_limit()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let code = status.code().unwrap_or(-1);
        self.check(code == 0, || format!("session {name} exited with {status}"));
        Finished {
            code,
            events: fs::read_to_string(&stdout)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            stderr: fs::read_to_string(&stderr).unwrap_or_default(),
        }
    }

    /// The environment every host session starts from: nothing of the test's own, PATH with
    /// git-dibs first, a scratch HOME, a fixed git identity.
    pub fn base_command(&self, program: &Path, home: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("PATH", self.path_var())
            .env("HOME", home)
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Agent")
            .env("GIT_AUTHOR_EMAIL", "agent@example.invalid")
            .env("GIT_COMMITTER_NAME", "Agent")
            .env("GIT_COMMITTER_EMAIL", "agent@example.invalid");
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        cmd
    }
}

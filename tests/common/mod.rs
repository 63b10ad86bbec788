//! Test support shared by the integration tests: real repositories built with the real `git`
//! in temporary folders (bare remotes, linked worktrees, dirty files) and the real binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use tempfile::TempDir;

mod fake_host;
pub mod snap;
#[allow(unused_imports)] // not every test uses it
pub use fake_host::FakeHost;

/// The built `git-dibs` binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-dibs"))
}

/// Run `git` with a fixed identity and no user or system config.
pub fn git(dir: &Path, args: &[&str]) -> Output {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {:?} in {} failed: {}",
        args,
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A `git` command with a clean, fixed environment.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    with_git_env(cmd.current_dir(dir))
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    cmd
}

/// No user or system git config, and a fixed author and committer.
pub fn with_git_env(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
}

/// `git submodule add` of `url` as `name` in the worktree at `root` (file URLs allowed).
pub fn add_submodule(root: &Path, url: &str, name: &str) {
    git(
        root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            name,
        ],
    );
}

/// Trimmed stdout of a git command.
pub fn git_out(dir: &Path, args: &[&str]) -> String {
    String::from_utf8_lossy(&git(dir, args).stdout)
        .trim()
        .to_owned()
}

/// A scratch repository: a clone of a bare remote, with one pushed commit on `main`.
pub struct TestRepo {
    /// Keeps the folder alive.
    pub tmp: TempDir,
    /// The main worktree (canonical path).
    pub root: PathBuf,
    /// The bare remote.
    pub remote: PathBuf,
}

impl TestRepo {
    /// A new repository with `README.md` and `src/lib.rs` committed and pushed.
    pub fn new() -> TestRepo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = tmp.path().canonicalize().unwrap();
        let remote = base.join("remote.git");
        let root = base.join("repo");
        git(&base, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
        git(&base, &["init", "-q", "-b", "main", "repo"]);
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("README.md"), "# test\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-qm", "init"]);
        git(
            &root,
            &["remote", "add", "origin", remote.to_str().unwrap()],
        );
        git(&root, &["push", "-q", "-u", "origin", "main"]);
        TestRepo { tmp, root, remote }
    }

    /// Add a linked worktree at `<tmp>/<name>` on a new branch `name`.
    pub fn worktree(&self, name: &str) -> PathBuf {
        let path = self.tmp.path().canonicalize().unwrap().join(name);
        git(
            &self.root,
            &["worktree", "add", "-q", "-b", name, path.to_str().unwrap()],
        );
        path
    }

    /// The worktree `claude -w NAME` makes: `.claude/worktrees/NAME` on a new branch
    /// `worktree-NAME`, pushed.
    pub fn host_worktree(&self, name: &str) -> PathBuf {
        let wt = self.root.join(".claude/worktrees").join(name);
        let branch = format!("worktree-{name}");
        git(
            &self.root,
            &["worktree", "add", "-q", "-b", &branch, wt.to_str().unwrap()],
        );
        git(&wt, &["push", "-q", "-u", "origin", &branch]);
        wt
    }

    /// Write a file (creating folders) under `dir`.
    pub fn write(&self, dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A Claude Code `PreToolUse` Edit by `session`, run from the main worktree, of `rel` in it.
    pub fn pre_edit(&self, session: &str, rel: &str) -> Value {
        edit_event(
            "PreToolUse",
            "Edit",
            session,
            &self.root,
            &self.root.join(rel),
        )
    }

    /// The store folder of this clone.
    pub fn store_dir(&self) -> PathBuf {
        self.root.join(".git/dibs")
    }
}

/// What a hook process did.
#[derive(Debug)]
pub struct HookRun {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl HookRun {
    /// stdout parsed as one JSON object (panics when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", self.stdout))
    }

    /// Exit 0 and nothing on stdout.
    pub fn assert_silent(&self) {
        assert_eq!(self.code, 0, "exit code; stderr: {}", self.stderr);
        assert_eq!(
            self.stdout, "",
            "expected no output; stderr: {}",
            self.stderr
        );
    }
}

/// Pipe `input` into `git-dibs hook` run in `cwd` with extra `env`.
pub fn hook_raw(cwd: &Path, input: &[u8], env: &[(&str, &str)]) -> HookRun {
    finish(spawn_hook(cwd, input, env))
}

/// Wait for a hook process and collect what it answered.
fn finish(child: std::process::Child) -> HookRun {
    let out = child.wait_with_output().expect("git-dibs finishes");
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Start `git-dibs hook` in `cwd` with extra `env`, `input` written to its stdin (then closed),
/// without waiting for it.
pub fn spawn_hook(cwd: &Path, input: &[u8], env: &[(&str, &str)]) -> std::process::Child {
    spawn_hook_with(&["hook"], cwd, input, env)
}

/// [`spawn_hook`] with `args` for the binary (`hook` and its options).
fn spawn_hook_with(
    args: &[&str],
    cwd: &Path,
    input: &[u8],
    env: &[(&str, &str)],
) -> std::process::Child {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("git-dibs runs");
    {
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(input);
    }
    child
}

/// Pipe one JSON event into the hook.
pub fn hook(cwd: &Path, event: &Value) -> HookRun {
    hook_raw(cwd, format!("{event}\n").as_bytes(), &[])
}

/// A Claude Code event of `name` for `session` in `cwd`, with `extra` fields merged in.
pub fn claude_event(name: &str, session: &str, cwd: &Path, extra: Value) -> Value {
    let mut v = json!({
        "session_id": session,
        "transcript_path": format!("/tmp/.claude/projects/x/{session}.jsonl"),
        "cwd": cwd,
        "hook_event_name": name,
    });
    if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
        for (k, val) in more {
            obj.insert(k.clone(), val.clone());
        }
    }
    v
}

/// A Claude Code `PreToolUse` (or `PostToolUse`) for an edit tool on `file`.
pub fn edit_event(name: &str, tool: &str, session: &str, cwd: &Path, file: &Path) -> Value {
    let input = if tool == "NotebookEdit" {
        json!({"notebook_path": file, "new_source": "x"})
    } else {
        json!({"file_path": file, "old_string": "a", "new_string": "b"})
    };
    claude_event(
        name,
        session,
        cwd,
        json!({"tool_name": tool, "tool_input": input, "permission_mode": "default"}),
    )
}

/// A Claude Code `PreToolUse` for Bash.
/// A Bash `PreToolUse` by `session` in `cwd`, run with extra environment.
pub fn bash_hook_env(cwd: &Path, session: &str, command: &str, env: &[(&str, &str)]) -> HookRun {
    let ev = bash_event(session, cwd, command);
    hook_raw(cwd, format!("{ev}\n").as_bytes(), env)
}

/// The (decision, reason, whole answer) of a hook run, None when it said nothing.
pub fn hook_decision(run: &HookRun) -> Option<(String, String, Value)> {
    if run.stdout.trim().is_empty() {
        return None;
    }
    let v = run.json();
    let out = &v["hookSpecificOutput"];
    Some((
        out["permissionDecision"].as_str().unwrap_or("").to_owned(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        v.clone(),
    ))
}

/// `status --json` in `dir`, parsed.
pub fn status_of(dir: &Path) -> Value {
    serde_json::from_slice(&dibs(dir, &["status", "--json"]).stdout).expect("status --json is JSON")
}

/// The sessions of a `status --json` answer.
pub fn session_list(status: &Value) -> &Vec<Value> {
    status["sessions"].as_array().expect("a sessions array")
}

/// Session `id` of a `status --json` answer (panics when it is not listed).
pub fn session_of<'a>(status: &'a Value, id: &str) -> &'a Value {
    session_list(status)
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("session {id} listed: {status}"))
}

/// The paths one session of a `status --json` answer holds, in order.
pub fn held_paths(session: &Value) -> Vec<&str> {
    session["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect()
}

pub fn bash_event(session: &str, cwd: &Path, command: &str) -> Value {
    claude_event(
        "PreToolUse",
        session,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command}}),
    )
}

/// `git dibs install --git-hooks` in the repository at `root` (panics when it fails); the PATH
/// under which git's hooks find the built binary.
pub fn install_git_hooks(root: &Path) -> String {
    let out = dibs(root, &["install", "--git-hooks"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Run the binary with `args` in `cwd`.
pub fn dibs(cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git-dibs runs")
}

/// Run the binary in `cwd` as `session` (through `DIBS_SESSION`; `None`: a person or script,
/// with no session of its own in the environment), with extra `env` (`USER`, `DIBS_NOW`, ...).
pub fn dibs_env(cwd: &Path, session: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("DIBS_SESSION")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("WT_GUARD_BYPASS");
    if let Some(s) = session {
        cmd.env("DIBS_SESSION", s);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git-dibs runs")
}

/// stdout and stderr of a run, together.
pub fn out_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A Claude Code `SessionStart` of `session` in `cwd` with `source` (`startup`, `clear`, ...).
pub fn session_start(session: &str, cwd: &Path, source: &str) -> Value {
    claude_event(
        "SessionStart",
        session,
        cwd,
        json!({"source": source, "model": "m"}),
    )
}

/// `PATH` with the built binary's folder first, so git's hook shims and `git dibs` find it.
pub fn path_with_bin() -> std::ffi::OsString {
    let mut paths = vec![bin().parent().unwrap().to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// `git` in `dir` as `session` (through `DIBS_SESSION`), with the binary on `PATH`.
pub fn git_as(dir: &Path, session: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = git_command(dir);
    cmd.args(args)
        .env("PATH", path_with_bin())
        .env("DIBS_SESSION", session)
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("WT_GUARD_BYPASS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git runs")
}

/// Pipe `event` into `git-dibs hook --host HOST` in `cwd`, with extra `env`.
pub fn hook_host(cwd: &Path, host: &str, event: &Value, env: &[(&str, &str)]) -> HookRun {
    let input = format!("{event}\n");
    finish(spawn_hook_with(
        &["hook", "--host", host],
        cwd,
        input.as_bytes(),
        env,
    ))
}

/// The binary as `cargo install` leaves it: copied to `<tmp>/<name>/bin/git-dibs`; returns that
/// prefix and a `PATH` with its `bin` first.
pub fn installed_prefix(repo: &TestRepo, name: &str) -> (PathBuf, std::ffi::OsString) {
    let prefix = repo.tmp.path().join(name);
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::copy(bin(), prefix.join("bin/git-dibs")).unwrap();
    let path = std::env::join_paths(
        std::iter::once(prefix.join("bin"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    (prefix, path)
}

/// Seconds since the Unix epoch now, for a `DIBS_NOW` some time on (debug builds honour it).
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is past 1970")
        .as_secs()
}

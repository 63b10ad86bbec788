//! Support for the recovery tests: an agent session driven through the real hook with
//! Claude-shaped events (an edit tool's PostToolUse, a Bash command's PreToolUse, the command run
//! for real, then its PostToolUse), destruction by real commands, git's own garbage collection,
//! and `git dibs recover`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::common::{self, HookRun, claude_event, edit_event, hook, hook_decision, hook_raw};

/// An agent session working in `cwd`.
pub struct Agent {
    /// The session id.
    pub id: String,
    /// Where its tool calls run.
    pub cwd: PathBuf,
}

impl Agent {
    /// Session `id` working in `cwd`.
    pub fn new(id: &str, cwd: &Path) -> Agent {
        Agent {
            id: id.to_owned(),
            cwd: cwd.to_path_buf(),
        }
    }

    /// Session `id` starts in `cwd` (its host's SessionStart, which must exit 0), and is
    /// driven from there.
    pub fn started(id: &str, cwd: &Path) -> Agent {
        let run = hook(cwd, &common::session_start(id, cwd, "startup"));
        assert_eq!(run.code, 0, "{}", run.stderr);
        Agent::new(id, cwd)
    }

    /// The edit tool writes `bytes` to `rel` (under the session's cwd), then its PostToolUse
    /// runs. The hook must say nothing and exit 0.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let file = self.cwd.join(rel);
        let pre = edit_event("PreToolUse", "Write", &self.id, &self.cwd, &file);
        assert_eq!(hook(&self.cwd, &pre).code, 0);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, bytes).unwrap();
        self.post_edit(&file).assert_silent();
        file
    }

    /// The PostToolUse of an edit tool on `file`.
    pub fn post_edit(&self, file: &Path) -> HookRun {
        hook(
            &self.cwd,
            &edit_event("PostToolUse", "Write", &self.id, &self.cwd, file),
        )
    }

    /// The PreToolUse of a Bash command.
    pub fn pre_bash(&self, command: &str) -> HookRun {
        hook(&self.cwd, &common::bash_event(&self.id, &self.cwd, command))
    }

    /// The PostToolUse of a Bash command.
    pub fn post_bash(&self, command: &str) -> HookRun {
        self.post_bash_env(command, &[])
    }

    /// [`Agent::post_bash`] with extra `env` for the hook.
    pub fn post_bash_env(&self, command: &str, env: &[(&str, &str)]) -> HookRun {
        let event = claude_event(
            "PostToolUse",
            &self.id,
            &self.cwd,
            json!({
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
            }),
        );
        hook_raw(&self.cwd, format!("{event}\n").as_bytes(), env)
    }

    /// A Bash tool call as a host makes it: PreToolUse (whatever it answers: a destroyer the
    /// guard would stop is run anyway, as if it had slipped through), the command run for real
    /// with `sh -c` and `WT_GUARD_BYPASS=1`, then PostToolUse.
    pub fn bash(&self, command: &str) -> Output {
        assert_eq!(self.pre_bash(command).code, 0);
        let out = sh(&self.cwd, command);
        assert_eq!(self.post_bash(command).code, 0);
        out
    }

    /// A Bash tool call as [`Agent::bash`] makes it, whose hooks must both say nothing.
    pub fn bash_silent(&self, command: &str) -> Output {
        self.pre_bash(command).assert_silent();
        let out = sh(&self.cwd, command);
        self.post_bash(command).assert_silent();
        out
    }
}

/// The guard's (decision, reason) for `command` run by `who`; `None` when silent. The hook
/// must exit 0.
pub fn verdict(who: &Agent, command: &str) -> Option<(String, String)> {
    let run = who.pre_bash(command);
    assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    hook_decision(&run).map(|(d, r, _)| (d, r))
}

/// The reason of the guard's refusal of `command` run by `who` (panics when not refused).
#[track_caller]
pub fn refused(who: &Agent, command: &str) -> String {
    match verdict(who, command) {
        Some((d, reason)) if d == "deny" => reason,
        other => panic!("`{command}` was not refused: {other:?}"),
    }
}

/// The reason of the guard's question on `command` run by `who` (panics when not asked).
#[track_caller]
pub fn asked(who: &Agent, command: &str) -> String {
    match verdict(who, command) {
        Some((d, reason)) if d == "ask" => reason,
        other => panic!("`{command}` was not asked: {other:?}"),
    }
}

/// The guard says nothing on `command` run by `who` (panics when it answers).
#[track_caller]
pub fn silent(who: &Agent, command: &str) {
    if let Some(v) = verdict(who, command) {
        panic!("`{command}` was not silent: {v:?}");
    }
}

/// Run `command` with `sh -c` in `cwd` (test git identity, `WT_GUARD_BYPASS=1`); it must
/// succeed.
pub fn sh(cwd: &Path, command: &str) -> Output {
    sh_with(cwd, command, |cmd| {
        cmd.env("WT_GUARD_BYPASS", "1");
    })
}

/// [`sh`] with the environment `setup` makes instead of `WT_GUARD_BYPASS=1`; it must succeed.
pub fn sh_with(cwd: &Path, command: &str, setup: impl FnOnce(&mut Command)) -> Output {
    let mut cmd = Command::new("sh");
    common::with_git_env(cmd.arg("-c").arg(command).current_dir(cwd))
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    setup(&mut cmd);
    let out = cmd.output().expect("sh runs");
    assert!(
        out.status.success(),
        "`{command}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Drop everything git keeps only through reflogs, then collect garbage at once.
pub fn collect_garbage(root: &Path) {
    sh(
        root,
        "git reflog expire --expire=now --all && git gc -q --prune=now",
    );
}

/// `git dibs recover ARGS` in `cwd`: (exit code, stdout, stderr).
pub fn recover(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["recover"];
    all.extend_from_slice(args);
    let out = common::dibs(cwd, &all);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `git dibs recover --json ARGS`, parsed (it must exit 0).
pub fn recover_json(cwd: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let (code, out, err) = recover(cwd, &all);
    assert_eq!(code, 0, "recover {args:?}: {out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// `git dibs recover ARGS` in `cwd` succeeds, and afterwards each `(path, bytes)` holds
/// exactly those bytes.
#[track_caller]
pub fn assert_recovers(cwd: &Path, args: &[&str], files: &[(PathBuf, Vec<u8>)]) {
    let (code, out, err) = recover(cwd, args);
    assert_eq!(code, 0, "recover {args:?}: {out}{err}");
    assert_files(files);
}

/// Bytes that are not text: every byte value, some twice.
pub fn binary(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 % 256) as u8).collect()
}

/// Assert each `(path, bytes)` holds exactly those bytes.
#[track_caller]
pub fn assert_files(files: &[(PathBuf, Vec<u8>)]) {
    for (path, bytes) in files {
        let now = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            now == *bytes,
            "{} differs from what the agent wrote",
            path.display()
        );
    }
}

/// The edit tool writes `bytes` to `rel` as `agent` with both hooks (exit 0, nothing on
/// stdout); the PostToolUse's answer, whose stderr is the caller's to look at.
pub fn write_seen(agent: &Agent, rel: &str, bytes: &[u8]) -> HookRun {
    let file = agent.cwd.join(rel);
    let pre = edit_event("PreToolUse", "Write", &agent.id, &agent.cwd, &file);
    assert_eq!(hook(&agent.cwd, &pre).code, 0);
    std::fs::write(&file, bytes).unwrap();
    let post = agent.post_edit(&file);
    assert_eq!(post.code, 0, "{}", post.stderr);
    assert!(post.stdout.is_empty(), "{}", post.stdout);
    post
}

/// The entry of `path` for `session` in a `recover --json` listing (panics when none).
#[track_caller]
pub fn listed<'a>(listing: &'a Value, session: &str, path: &str) -> &'a Value {
    listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["session"] == session && f["path"] == path)
        .unwrap_or_else(|| panic!("{session} {path} not listed: {listing}"))
}

/// The snapshot refs of the clone at `root`.
pub fn snapshot_refs(root: &Path) -> String {
    common::git_out(
        root,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/dibs/snapshots/",
        ],
    )
}

/// The paths of the files a `recover --json` listing names, in its order.
pub fn listed_paths(listing: &Value) -> Vec<&str> {
    listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect()
}

/// Whether a blob of exactly `bytes` is in the object store of the clone at `root` (shared by
/// all its worktrees).
pub fn has_blob(root: &Path, bytes: &[u8]) -> bool {
    let mut hash = common::git_command(root);
    hash.args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = hash.spawn().expect("git runs");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git hash-object failed");
    let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    common::git_command(root)
        .args(["cat-file", "-e", &id])
        .status()
        .unwrap()
        .success()
}

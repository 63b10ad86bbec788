//! Two "machines" sharing one bare remote, for the `git dibs sync` tests: clone A (`alpha`, the
//! `TestRepo` clone) and clone B (`beta`, a second `git clone` of the same bare remote), with
//! helpers that run the real binary in either, read `status --json`, and read the remote's refs
//! and the records their commits hold.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;

/// Session ids: distinct in their first 8 characters (the short id).
pub const S1: &str = "aaaaaaaa-1111-4111-8111-111111111111";
pub const S2: &str = "bbbbbbbb-2222-4222-8222-222222222222";
pub const S3: &str = "cccccccc-3333-4333-8333-333333333333";

/// Two clones of one bare remote, each with its own `dibs.machine`.
pub struct Machines {
    /// Owns the temporary folder; `repo.root` is clone A.
    pub repo: TestRepo,
    /// The folder holding the remote and both clones.
    pub base: PathBuf,
    /// Clone A, `dibs.machine=alpha`.
    pub a: PathBuf,
    /// Clone B, `dibs.machine=beta`.
    pub b: PathBuf,
    /// The bare remote both clones call `origin`.
    pub remote: PathBuf,
}

/// A new pair of machines. No identity is configured in either clone (like the other tests,
/// user and system git config are off): git-dibs must not need one.
pub fn machines() -> Machines {
    let repo = TestRepo::new();
    let base = repo.root.parent().unwrap().to_path_buf();
    let remote = repo.remote.clone();
    git(&base, &["clone", "-q", remote.to_str().unwrap(), "b"]);
    let a = repo.root.clone();
    let b = base.join("b");
    git(&a, &["config", "dibs.machine", "alpha"]);
    git(&b, &["config", "dibs.machine", "beta"]);
    Machines {
        repo,
        base,
        a,
        b,
        remote,
    }
}

impl Machines {
    /// `git config KEY VALUE` in `dir`'s local config.
    pub fn config(&self, dir: &Path, key: &str, value: &str) {
        git(dir, &["config", key, value]);
    }

    /// Make `dir`'s fetches from `origin` run the shell script `body` (at `script`) as the
    /// remote's upload-pack: a slow network, or a moment to act in between.
    pub fn upload_pack(&self, dir: &Path, script: &Path, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(script, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
        self.config(dir, "remote.origin.uploadpack", script.to_str().unwrap());
    }

    /// Make `dir`'s fetches from `origin` hang up `secs` seconds late after listing the
    /// remote's refs (only the first fetch when `once`), a slow network; the file returned
    /// appears once a fetch has listed them (see [`listed`]).
    pub fn slow_hang_up(&self, dir: &Path, name: &str, secs: u32, once: bool) -> PathBuf {
        let marker = self.base.join(format!("{name}-listed"));
        let skip = if once {
            format!(
                "if [ -e '{0}' ]; then exec git upload-pack \"$@\"; fi\n",
                marker.display()
            )
        } else {
            String::new()
        };
        let body = format!(
            "{skip}git upload-pack \"$@\"\ntouch '{}'\nsleep {secs}\n",
            marker.display()
        );
        self.upload_pack(dir, &self.base.join(format!("{name}-upload-pack")), &body);
        marker
    }

    /// Every ref of the bare remote, as (name, object id).
    pub fn remote_refs(&self) -> Vec<(String, String)> {
        git_out(&self.base, &["ls-remote", self.remote.to_str().unwrap()])
            .lines()
            .filter_map(|l| {
                let (oid, name) = l.split_once('\t')?;
                Some((name.to_owned(), oid.to_owned()))
            })
            .collect()
    }

    /// The remote's ref names under `prefix`.
    pub fn remote_refs_under(&self, prefix: &str) -> Vec<String> {
        self.remote_refs()
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| name.starts_with(prefix))
            .collect()
    }

    /// The remote's session refs of `machine`.
    pub fn session_refs(&self, machine: &str) -> Vec<String> {
        self.remote_refs_under(&format!("refs/dibs/sessions/{machine}/"))
    }

    /// `git --git-dir <bare> show REF:FILE`, or None when it fails.
    pub fn show(&self, reference: &str, file: &str) -> Option<String> {
        let out = git_command(&self.base)
            .args(["--git-dir", self.remote.to_str().unwrap()])
            .args(["show", &format!("{reference}:{file}")])
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The remote's claim refs whose `claim.json` names `target`, with that record.
    pub fn remote_claims_of(&self, target: &str) -> Vec<(String, Value)> {
        self.remote_refs_under("refs/dibs/claims/")
            .into_iter()
            .filter_map(|name| {
                let text = self.show(&name, "claim.json")?;
                let v: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{name}: claim.json is not JSON ({e}): {text}"));
                (target_text(&v["target"]) == target).then_some((name, v))
            })
            .collect()
    }
}

/// A `claim.json` target as `claim` spells it: a string as is; an object such as
/// `{"kind":"record","id":"X"}` or `{"kind":"branch","name":"B"}` as `record:X`, `branch:B`.
pub fn target_text(t: &Value) -> String {
    if let Some(s) = t.as_str() {
        return s.to_owned();
    }
    let kind = t["kind"].as_str().unwrap_or("?");
    let what = ["id", "name", "path"]
        .iter()
        .find_map(|k| t[*k].as_str())
        .unwrap_or("?");
    format!("{kind}:{what}")
}

/// Run the binary in `dir` with `args`, as session `session` when given, with extra `env`.
pub fn run(dir: &Path, session: Option<&str>, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("DIBS_SESSION")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    if let Some(s) = session {
        cmd.env("DIBS_SESSION", s);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git-dibs runs")
}

/// Run the binary as `session`.
pub fn dibs_as(dir: &Path, session: &str, args: &[&str]) -> Output {
    run(dir, Some(session), args, &[])
}

/// Start the binary as `session` without waiting for it.
pub fn spawn_as(dir: &Path, session: &str, args: &[&str]) -> std::process::Child {
    Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env("DIBS_SESSION", session)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git-dibs starts")
}

/// stdout and stderr together.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `git dibs ARGS` in `dir`, which must succeed.
#[track_caller]
fn succeed(dir: &Path, args: &[&str]) -> Output {
    let out = run(dir, None, args, &[]);
    assert!(
        out.status.success(),
        "git dibs {} in {} failed ({:?}): {}",
        args.join(" "),
        dir.display(),
        out.status.code(),
        text(&out)
    );
    out
}

/// `git dibs sync` in `dir`, which must succeed; its stdout.
#[track_caller]
pub fn sync(dir: &Path) -> String {
    let out = succeed(dir, &["sync"]);
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// `git dibs sync --json` in `dir`, which must succeed.
#[track_caller]
pub fn sync_json(dir: &Path) -> Value {
    let out = succeed(dir, &["sync", "--json"]);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("sync --json is not JSON ({e}): {}", text(&out)))
}

/// `git dibs status --json` in `dir`.
#[track_caller]
pub fn status(dir: &Path) -> Value {
    let out = run(dir, None, &["status", "--json"], &[]);
    assert!(out.status.success(), "status failed: {}", text(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("status --json is not JSON ({e}): {}", text(&out)))
}

/// The sessions of a `status --json`.
pub fn sessions(status: &Value) -> Vec<Value> {
    status["sessions"].as_array().cloned().unwrap_or_default()
}

/// The session with `id` in a `status --json`.
pub fn session<'a>(status: &'a Value, id: &str) -> Option<&'a Value> {
    status["sessions"]
        .as_array()?
        .iter()
        .find(|s| s["id"] == id)
}

/// The ids of the sessions in a `status --json`.
pub fn ids(status: &Value) -> Vec<String> {
    sessions(status)
        .iter()
        .map(|s| s["id"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The sessions of a `status --json` holding a claim on `target`, by id.
pub fn holders(status: &Value, target: &str) -> Vec<String> {
    sessions(status)
        .iter()
        .filter(|s| {
            s["claims"]
                .as_array()
                .is_some_and(|cs| cs.iter().any(|c| c["target"] == target))
        })
        .map(|s| s["id"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The file paths a session of a `status --json` holds.
pub fn file_paths(session: &Value) -> Vec<String> {
    session["files"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|f| f["path"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A Claude Code `PreToolUse` Edit of `rel` by `session` in clone `dir`.
pub fn pre_edit(dir: &Path, session: &str, rel: &str) -> HookRun {
    hook(
        dir,
        &edit_event("PreToolUse", "Edit", session, dir, &dir.join(rel)),
    )
}

/// A whole edit of `rel` by `session` in clone `dir`: PreToolUse, optionally a real change to
/// the file, PostToolUse. Both hooks must stay silent (no peer holds it).
#[track_caller]
pub fn edit_alone(dir: &Path, session: &str, rel: &str, new_text: Option<&str>) {
    pre_edit(dir, session, rel).assert_silent();
    if let Some(t) = new_text {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    post_edit(dir, session, rel).assert_silent();
}

/// A Claude Code `PostToolUse` Edit of `rel` by `session` in clone `dir`.
pub fn post_edit(dir: &Path, session: &str, rel: &str) -> HookRun {
    hook(
        dir,
        &edit_event("PostToolUse", "Edit", session, dir, &dir.join(rel)),
    )
}

/// A Claude Code lifecycle event (`SessionStart`, `SessionEnd`) for `session` in `dir`.
pub fn lifecycle(dir: &Path, name: &str, session: &str) -> HookRun {
    let extra = if name == "SessionStart" {
        json!({"source": "startup"})
    } else {
        json!({"reason": "prompt_input_exit"})
    };
    hook(dir, &claude_event(name, session, dir, extra))
}

/// The person-facing message of a co-edit warning (panics when the hook said nothing).
#[track_caller]
pub fn warning(run: &HookRun) -> String {
    assert_eq!(run.code, 0, "hook exit code; stderr: {}", run.stderr);
    let v = run.json();
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "a warning never decides: {v}"
    );
    v["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("no systemMessage: {v}"))
        .to_owned()
}

/// A Bash `PreToolUse` by `session` in `dir`, with extra environment.
pub fn bash_as(dir: &Path, session: &str, command: &str, env: &[(&str, &str)]) -> HookRun {
    bash_hook_env(dir, session, command, env)
}

/// The (decision, reason) of a hook answer, None when it said nothing.
pub fn decision(run: &HookRun) -> Option<(String, String)> {
    hook_decision(run).map(|(d, reason, _)| (d, reason))
}

/// A PATH whose `gh` answers "no pull requests" for everything (the guard asks `gh` about
/// branch deletions; this keeps the network out of it).
pub fn path_with_quiet_gh(base: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = base.join("stub-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let gh = bin.join("gh");
    std::fs::write(&gh, "#!/bin/sh\necho '[]'\n").unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Poll `check` every `every` until it holds or `limit` passes; whether it held.
/// Whether a fetch made slow by [`Machines::slow_hang_up`] listed the remote's refs within ten
/// seconds (its `marker` appeared).
pub fn listed(marker: &Path) -> bool {
    wait_until(Duration::from_secs(10), Duration::from_millis(20), || {
        marker.exists()
    })
}

pub fn wait_until(limit: Duration, every: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if check() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(every);
    }
}

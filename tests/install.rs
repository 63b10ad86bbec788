//! `git dibs install`, `uninstall` and `doctor` against real repositories and real settings
//! files: merging, idempotence, refusal, scopes, the example files, and the doctor's verdicts.

mod common;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A repository plus a private HOME, so no test reads or writes the real user settings.
struct Setup {
    repo: TestRepo,
    home: TempDir,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            repo: TestRepo::new(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn project(&self) -> PathBuf {
        self.repo.root.join(".claude/settings.json")
    }

    fn local(&self) -> PathBuf {
        self.repo.root.join(".claude/settings.local.json")
    }

    fn user(&self) -> PathBuf {
        self.home.path().join(".claude/settings.json")
    }

    /// Run git-dibs in the repository with the built binary's folder first on PATH.
    fn run(&self, args: &[&str]) -> Output {
        self.run_with(&self.repo.root, args, path_with_bin(), &[])
    }

    /// Run git-dibs in `cwd` with `path` as PATH and extra `env`.
    fn run_with(&self, cwd: &Path, args: &[&str], path: OsString, env: &[(&str, &Path)]) -> Output {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(cwd)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("PATH", path);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("git-dibs runs")
    }
}

/// PATH with the built binary's folder first.
fn path_with_bin() -> OsString {
    let dir = bin().parent().unwrap().to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir).chain(std::env::split_paths(&rest))).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A handler's command line: `command` itself, or in the exec form (`args`) the program, shell
/// quoted where needed, and its arguments.
fn command_line(h: &Value) -> String {
    let cmd = h["command"].as_str().unwrap_or("");
    let Some(args) = h["args"].as_array() else {
        return cmd.to_owned();
    };
    let program = if cmd.contains([' ', '\'']) {
        format!("'{}'", cmd.replace('\'', r"'\''"))
    } else {
        cmd.to_owned()
    };
    let args: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
    format!("{program} {}", args.join(" "))
}

/// Every command in `settings` whose command line runs the git-dibs hook, as (event, matcher).
fn ours(settings: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (event, groups) in settings["hooks"].as_object().into_iter().flatten() {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group["matcher"].as_str().unwrap_or("").to_owned();
            for h in group["hooks"].as_array().into_iter().flatten() {
                let cmd = command_line(h);
                if cmd.ends_with("git-dibs hook") || cmd.ends_with("git-dibs' hook") {
                    out.push((event.clone(), matcher.clone(), cmd));
                }
            }
        }
    }
    out
}

const EXPECTED_PLACES: [(&str, &str); 10] = [
    ("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit"),
    ("PreToolUse", "Bash"),
    ("PreToolUse", "ExitWorktree"),
    ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit|Read|Bash"),
    ("SessionStart", ""),
    ("SessionEnd", ""),
    ("UserPromptSubmit", ""),
    ("SubagentStart", ""),
    ("SubagentStop", ""),
    ("ConfigChange", ""),
];

fn assert_wired(settings: &Value, command: &str) {
    let mut found = ours(settings);
    found.sort();
    let mut want: Vec<(String, String, String)> = EXPECTED_PLACES
        .iter()
        .map(|(e, m)| (e.to_string(), m.to_string(), command.to_owned()))
        .collect();
    want.sort();
    assert_eq!(found, want, "{settings:#}");
}

#[test]
fn install_into_a_repo_without_settings() {
    let s = Setup::new();
    let out = s.run(&["install"]);
    ok(&out);
    assert!(
        stdout(&out).contains(&s.project().display().to_string()),
        "{}",
        stdout(&out)
    );
    assert_eq!(stdout(&out).lines().count(), 1);
    let v = read_json(&s.project());
    assert_wired(&v, "git-dibs hook");
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10);
    assert!(v["hooks"]["SessionStart"][0].get("matcher").is_none());
    assert!(fs::read_to_string(s.project()).unwrap().ends_with("}\n"));
    assert!(!s.local().exists() && !s.user().exists());
}

#[test]
fn example_files_are_what_install_writes() {
    let s = Setup::new();
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    let generated = stdout(&out);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in ["settings.example.json", "hooks/claude-code.json"] {
        let path = root.join(rel);
        if std::env::var_os("UPDATE_EXAMPLES").is_some() {
            fs::write(&path, &generated).unwrap();
        }
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            generated,
            "{rel} drifted from `git dibs install`; regenerate with UPDATE_EXAMPLES=1"
        );
    }
}

#[test]
fn install_merges_and_keeps_everything_else() {
    let s = Setup::new();
    let before = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "my-bash-guard", "timeout": 5}
                ]},
                {"matcher": "Glob", "hooks": [{"type": "command", "command": "glob-log"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
        },
        "env": {"A": "1"}
    });
    // Written by hand so the keys are not in sorted order.
    let text = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-bash-guard", "timeout": 5}]},
      {"matcher": "Glob", "hooks": [{"type": "command", "command": "glob-log"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
  },
  "env": {"A": "1"}
}"#;
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), before);
    write(&s.project(), text);
    ok(&s.run(&["install"]));
    let after = read_json(&s.project());
    for key in ["model", "permissions", "env"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let pre = after["hooks"]["PreToolUse"].as_array().unwrap();
    // Our Bash handler joined the existing Bash group, after the person's own.
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(
        pre[0]["hooks"][0],
        before["hooks"]["PreToolUse"][0]["hooks"][0]
    );
    assert_eq!(command_line(&pre[0]["hooks"][1]), "git-dibs hook");
    assert_eq!(pre[0]["hooks"][1]["onFailure"], "block");
    assert_eq!(pre[1], before["hooks"]["PreToolUse"][1]);
    assert_eq!(pre.len(), 4);
    assert_eq!(ours(&after).len(), EXPECTED_PLACES.len());
    // Keys keep their order in the file.
    let text = fs::read_to_string(s.project()).unwrap();
    let at = |k: &str| text.find(&format!("\"{k}\"")).unwrap();
    assert!(at("model") < at("permissions") && at("permissions") < at("hooks"));
    assert!(at("hooks") < at("env"));
}

#[test]
fn install_twice_changes_nothing() {
    let s = Setup::new();
    write(
        &s.project(),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
    );
    ok(&s.run(&["install"]));
    let first = fs::read(s.project()).unwrap();
    let out = s.run(&["install"]);
    ok(&out);
    assert!(stdout(&out).contains("nothing changed"), "{}", stdout(&out));
    assert_eq!(fs::read(s.project()).unwrap(), first);
}

#[test]
fn refuses_invalid_json_and_changes_nothing() {
    let s = Setup::new();
    let bad = "{\n  \"model\": \"opus\",,\n}\n";
    write(&s.project(), bad);
    let out = s.run(&["install"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(&s.project().display().to_string()), "{err}");
    assert!(err.contains("line 2 column"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(fs::read_to_string(s.project()).unwrap(), bad);

    let hooks_array = r#"{"hooks": []}"#;
    write(&s.project(), hooks_array);
    let out = s.run(&["install"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("\"hooks\" is not a JSON object"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(s.project()).unwrap(), hooks_array);
    let out = s.run(&["uninstall"]);
    assert!(!out.status.success());
    assert_eq!(fs::read_to_string(s.project()).unwrap(), hooks_array);
}

#[test]
fn dry_run_writes_nothing() {
    let s = Setup::new();
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    assert_wired(
        &serde_json::from_str(&stdout(&out)).unwrap(),
        "git-dibs hook",
    );
    assert!(!s.repo.root.join(".claude").exists());

    let existing = r#"{"model": "x"}"#;
    write(&s.project(), existing);
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    let shown: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(shown["model"], "x");
    assert_eq!(fs::read_to_string(s.project()).unwrap(), existing);

    ok(&s.run(&["install"]));
    let installed = fs::read(s.project()).unwrap();
    let out = s.run(&["uninstall", "--dry-run"]);
    ok(&out);
    assert_eq!(stdout(&out), "{\n  \"model\": \"x\"\n}\n");
    assert_eq!(fs::read(s.project()).unwrap(), installed);
}

#[test]
fn local_and_user_scopes() {
    let s = Setup::new();
    ok(&s.run(&["install", "--local"]));
    assert_wired(&read_json(&s.local()), "git-dibs hook");
    assert!(!s.project().exists());

    ok(&s.run(&["install", "--user"]));
    assert_wired(&read_json(&s.user()), "git-dibs hook");

    // --user works outside any repository and follows CLAUDE_CONFIG_DIR.
    let config = tempfile::tempdir().unwrap();
    let out = s.run_with(
        s.home.path(),
        &["install", "--user"],
        path_with_bin(),
        &[("CLAUDE_CONFIG_DIR", config.path())],
    );
    ok(&out);
    assert_wired(
        &read_json(&config.path().join("settings.json")),
        "git-dibs hook",
    );

    ok(&s.run(&["uninstall", "--local"]));
    assert!(ours(&read_json(&s.local())).is_empty());
    assert_wired(&read_json(&s.user()), "git-dibs hook");
}

#[test]
fn without_git_dibs_on_path_personal_files_get_the_full_path() {
    let s = Setup::new();
    let empty = tempfile::tempdir().unwrap();
    let no_bin: OsString = empty.path().into();
    let out = s.run_with(&s.repo.root, &["install", "--local"], no_bin.clone(), &[]);
    ok(&out);
    assert!(stderr(&out).contains("not on PATH"), "{}", stderr(&out));
    let exe = bin().canonicalize().unwrap();
    let full = format!("{} hook", exe.display());
    let v = read_json(&s.local());
    assert!(
        ours(&v)
            .iter()
            .all(|h| h.2 == full || h.2.ends_with("git-dibs' hook"))
    );
    assert_eq!(ours(&v).len(), EXPECTED_PLACES.len());

    // The shared project file stays portable.
    let out = s.run_with(&s.repo.root, &["install"], no_bin, &[]);
    ok(&out);
    assert!(stderr(&out).contains("not on PATH"));
    assert_wired(&read_json(&s.project()), "git-dibs hook");

    // Once git-dibs is on PATH, installing again replaces the full path instead of adding.
    ok(&s.run(&["install", "--local"]));
    assert_wired(&read_json(&s.local()), "git-dibs hook");
}

#[test]
fn uninstall_removes_only_ours() {
    let s = Setup::new();
    let original = json!({
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-bash-guard"}]}
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "beep"}]}]
        },
        "model": "opus"
    });
    let text = format!("{}\n", serde_json::to_string_pretty(&original).unwrap());
    write(&s.project(), &text);
    ok(&s.run(&["install"]));
    assert_ne!(fs::read_to_string(s.project()).unwrap(), text);
    let out = s.run(&["uninstall"]);
    ok(&out);
    assert!(stdout(&out).contains("removed 10"), "{}", stdout(&out));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), text);
    let out = s.run(&["uninstall"]);
    ok(&out);
    assert!(stdout(&out).contains("nothing changed"));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), text);

    // Uninstall where nothing was ever installed creates no file.
    ok(&s.run(&["uninstall", "--local"]));
    assert!(!s.local().exists());
}

#[test]
fn uninstall_after_a_fresh_install_leaves_no_hooks() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    ok(&s.run(&["uninstall"]));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), "{}\n");
}

#[test]
fn doctor_before_and_after_install() {
    let s = Setup::new();
    let out = s.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("hooks are not wired: run `git dibs install`"),
        "{text}"
    );
    assert!(text.contains("is on PATH"), "{text}");
    assert!(
        text.contains("`git dibs` works as a git subcommand"),
        "{text}"
    );

    ok(&s.run(&["install"]));
    // Uncommitted, the project file does not reach the worktrees `claude -w` makes.
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("new `claude -w` worktrees would run without git-dibs"),
        "{text}"
    );
    git(&s.repo.root, &["add", ".claude/settings.json"]);
    git(&s.repo.root, &["commit", "-qm", "wire git-dibs"]);
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("hooks are wired in the project settings"),
        "{text}"
    );
    assert!(text.contains("readable and writable"), "{text}");
    assert!(text.contains("0 live sessions"), "{text}");
    assert!(text.contains("all is well"), "{text}");
    assert!(!text.contains("problem"), "{text}");

    // A session makes the count go up.
    let cwd = s.repo.root.clone();
    hook(
        &cwd,
        &claude_event(
            "SessionStart",
            "sess-doctor-1",
            &cwd,
            json!({"source": "startup"}),
        ),
    )
    .assert_silent();
    let text = stdout(&s.run(&["doctor"]));
    assert!(text.contains("1 live session "), "{text}");
}

#[test]
fn doctor_names_worktrees_whose_sessions_would_run_unguarded() {
    let s = Setup::new();
    // A worktree made from a commit without the wiring, then the wiring committed.
    let old = s.repo.worktree("old-wt");
    ok(&s.run(&["install"]));
    git(&s.repo.root, &["add", ".claude/settings.json"]);
    git(&s.repo.root, &["commit", "-qm", "wire git-dibs"]);
    let fresh = s.repo.root.join(".claude/worktrees/fresh");
    git(
        &s.repo.root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "worktree-fresh",
            fresh.to_str().unwrap(),
        ],
    );
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("would run without git-dibs"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&old.display().to_string()), "{line}");
    assert!(
        !line.contains("fresh"),
        "made from the wired commit: {line}"
    );
    assert!(!text.contains("new `claude -w` worktrees would"), "{text}");
    // Wired for the user, every worktree is covered.
    ok(&s.run(&["install", "--user"]));
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("git-dibs is wired for this user"), "{text}");
}

#[test]
fn doctor_names_broken_and_partial_settings() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    let mut v = read_json(&s.project());
    v["hooks"].as_object_mut().unwrap().remove("SessionEnd");
    write(&s.project(), &serde_json::to_string_pretty(&v).unwrap());
    write(&s.user(), "{ not json");
    let out = s.run(&["doctor"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("lack the git-dibs hooks for SessionEnd: run `git dibs install`"),
        "{text}"
    );
    assert!(text.contains(&s.user().display().to_string()), "{text}");
    assert!(text.contains("not valid JSON"), "{text}");

    // Wired twice under different commands is reported too.
    fs::remove_file(s.user()).unwrap();
    ok(&s.run(&["install"]));
    let empty = tempfile::tempdir().unwrap();
    ok(&s.run_with(
        &s.repo.root,
        &["install", "--user"],
        empty.path().into(),
        &[],
    ));
    let text = stdout(&s.run(&["doctor"]));
    assert!(text.contains("different commands"), "{text}");
}

#[test]
fn doctor_without_git_dibs_or_with_an_old_one_on_path() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    let empty = tempfile::tempdir().unwrap();
    let out = s.run_with(&s.repo.root, &["doctor"], empty.path().into(), &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("git-dibs is not on PATH"), "{text}");

    let fake = tempfile::tempdir().unwrap();
    let script = fake.path().join("git-dibs");
    fs::write(&script, "#!/bin/sh\necho 'git-dibs 0.0.1'\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(fake.path().to_path_buf()).chain(std::env::split_paths(&rest)),
    )
    .unwrap();
    let out = s.run_with(&s.repo.root, &["doctor"], path, &[]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("0.0.1"), "{text}");
}

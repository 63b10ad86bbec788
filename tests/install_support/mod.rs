//! Helpers shared by the install and doctor tests: a repository with a private HOME, running the
//! binary there, reading settings files and finding git-dibs's handlers in them.
#![allow(dead_code)]

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;
use serde_json::Value;
use tempfile::TempDir;

/// A repository plus a private HOME, so no test reads or writes the real user settings.
pub struct Setup {
    pub repo: TestRepo,
    pub home: TempDir,
}

impl Setup {
    pub fn new() -> Setup {
        Setup {
            repo: TestRepo::new(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    pub fn project(&self) -> PathBuf {
        self.repo.root.join(".claude/settings.json")
    }

    pub fn local(&self) -> PathBuf {
        self.repo.root.join(".claude/settings.local.json")
    }

    pub fn user(&self) -> PathBuf {
        self.home.path().join(".claude/settings.json")
    }

    /// Run git-dibs in the repository with the built binary's folder first on PATH.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(&self.repo.root, args, path_with_bin(), &[])
    }

    /// Run git-dibs in `cwd` with `path` as PATH and extra `env`.
    pub fn run_with(
        &self,
        cwd: &Path,
        args: &[&str],
        path: OsString,
        env: &[(&str, &Path)],
    ) -> Output {
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

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A handler's command line: `command` itself, or in the exec form (`args`) the program, shell
/// quoted where needed, and its arguments.
pub fn command_line(h: &Value) -> String {
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
pub fn ours(settings: &Value) -> Vec<(String, String, String)> {
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

pub const EXPECTED_PLACES: [(&str, &str); 14] = [
    ("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit"),
    ("PreToolUse", "Bash"),
    ("PreToolUse", "ExitWorktree"),
    ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit|Read|Bash"),
    ("PostToolUseFailure", "Bash"),
    ("SessionStart", ""),
    ("SessionEnd", ""),
    ("UserPromptSubmit", ""),
    ("SubagentStart", ""),
    ("SubagentStop", ""),
    ("ConfigChange", ""),
    ("PreToolUse", "mcp__.*"),
    ("PostToolUse", "mcp__.*"),
    ("PostToolUseFailure", "mcp__.*"),
];

pub fn assert_wired(settings: &Value, command: &str) {
    let mut found = ours(settings);
    found.sort();
    let mut want: Vec<(String, String, String)> = EXPECTED_PLACES
        .iter()
        .map(|(e, m)| (e.to_string(), m.to_string(), command.to_owned()))
        .collect();
    want.sort();
    assert_eq!(found, want, "{settings:#}");
}

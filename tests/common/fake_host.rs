//! A stand-in agent host for the tests: a separate, long-lived process that runs
//! `git-dibs hook` (or a shell script) through `sh -c` for each request, as Claude Code does, so
//! its pid is the session's agent process and killing it is a crash.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

use super::{HookRun, bin};

/// A stand-in agent host: a separate, long-lived process that runs `git-dibs hook` through
/// `sh -c` for each event it is sent, as Claude Code does. Its pid is the session's agent.
pub struct FakeHost {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

const FAKE_HOST: &str = r#"
import json, subprocess, sys
for line in sys.stdin:
    req = json.loads(line)
    env = dict(__import__("os").environ, **req.get("env", {}))
    p = subprocess.run(["sh", "-c", req["bin"] + " hook"], input=req["event"].encode(),
                       cwd=req["cwd"], capture_output=True, env=env)
    print(json.dumps({"code": p.returncode, "stdout": p.stdout.decode(), "stderr": p.stderr.decode()}), flush=True)
"#;

impl FakeHost {
    /// Start a host process.
    pub fn start() -> FakeHost {
        let mut child = Command::new("python3")
            .args(["-c", FAKE_HOST])
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        FakeHost {
            child,
            stdin,
            stdout,
        }
    }

    /// The host's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Have the host run `sh -c "<program> hook"` in `cwd` with `input` on stdin and extra
    /// `env`, and collect what it answered.
    fn run(&mut self, program: &str, cwd: &Path, input: &str, env: &[(&str, &str)]) -> HookRun {
        let env: serde_json::Map<String, Value> =
            env.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        let req = json!({"bin": program, "cwd": cwd, "event": input, "env": env});
        writeln!(self.stdin, "{req}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).expect("host answers");
        HookRun {
            code: v["code"].as_i64().unwrap() as i32,
            stdout: v["stdout"].as_str().unwrap().to_owned(),
            stderr: v["stderr"].as_str().unwrap().to_owned(),
        }
    }

    /// Run the hook for `event` in `cwd` from this host, with extra environment.
    pub fn hook_env(&mut self, cwd: &Path, event: &Value, env: &[(&str, &str)]) -> HookRun {
        let program = bin().to_string_lossy().into_owned();
        self.run(&program, cwd, &event.to_string(), env)
    }

    /// Run shell `script` in `cwd` as a child of this host (as the host's Bash tool would).
    pub fn shell(&mut self, cwd: &Path, script: &str, env: &[(&str, &str)]) -> HookRun {
        // The host runs `sh -c "<bin> hook"`: a trailing comment swallows the ` hook`.
        self.run(&format!("{script} #"), cwd, "", env)
    }

    /// Run the hook for `event` in `cwd` from this host.
    pub fn hook(&mut self, cwd: &Path, event: &Value) -> HookRun {
        self.hook_env(cwd, event, &[])
    }

    /// Kill the host (as a crash would) and wait for it to be gone.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for FakeHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

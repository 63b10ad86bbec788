//! What a failed real-host scenario reports, shared by the Claude Code runner
//! (`tests/e2e/scenario.rs`) and the Gemini CLI and Codex one (`tests/e2e_hosts/scenario.rs`):
//! the scenario and the step being checked, then the tails of what each session printed.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A scenario's step being checked and its sessions' output files, for failure reports.
pub struct Progress {
    step: Mutex<String>,
    logs: Mutex<Vec<(String, PathBuf, PathBuf)>>,
    /// Put before a session's name in the report.
    label: &'static str,
    /// Put after a line cut to 400 characters.
    cut_mark: &'static str,
}

impl Progress {
    /// At step `setup`, with no sessions yet.
    pub fn new(label: &'static str, cut_mark: &'static str) -> Progress {
        Progress {
            step: Mutex::new("setup".into()),
            logs: Mutex::new(Vec::new()),
            label,
            cut_mark,
        }
    }

    /// Name the step being checked.
    pub fn step(&self, what: &str) {
        *self.step.lock().unwrap() = what.to_owned();
    }

    /// Show session `name`'s `stdout` and `stderr` files in failure reports.
    pub fn session(&self, name: &str, stdout: &Path, stderr: &Path) {
        self.logs
            .lock()
            .unwrap()
            .push((name.to_owned(), stdout.to_owned(), stderr.to_owned()));
    }

    /// The report of scenario `scenario` failing with `message`: the step, then the tails of
    /// every session's output.
    pub fn report(&self, scenario: &str, message: &str) -> String {
        let mut report = format!(
            "e2e scenario `{scenario}` failed at step `{}`: {message}\n",
            self.step.lock().unwrap()
        );
        let label = self.label;
        for (name, out, err) in self.logs.lock().unwrap().iter() {
            let (out, err) = (self.tail(out), self.tail(err));
            report.push_str(&format!("--- {label}{name}: stdout (tail) ---\n{out}\n"));
            report.push_str(&format!("--- {label}{name}: stderr (tail) ---\n{err}\n"));
        }
        report
    }

    /// The last 40 lines of a file (each cut to 400 characters).
    fn tail(&self, path: &Path) -> String {
        let text = fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..]
            .iter()
            .map(|l| {
                let cut: String = l.chars().take(400).collect();
                if cut.len() < l.len() {
                    format!("{cut}{}", self.cut_mark)
                } else {
                    cut
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

//! What `install` and `uninstall` say: each file's line on stdout and notes on stderr as they
//! happen, or, with `--json`, one JSON object at the end.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::Mode;

/// The answer of `install` / `uninstall`, printed as it goes or kept for `--json`.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    /// Whether the answer is kept for one JSON document.
    #[serde(skip)]
    json: bool,
    /// `install` or `uninstall`.
    mode: &'static str,
    /// Whether nothing was written (`--dry-run`).
    dry_run: bool,
    /// Every file looked at, in order.
    files: Vec<FileChange>,
    /// What the person should know or still do (trust prompts, PATH, what to commit).
    notes: Vec<String>,
    /// Project files written, to be committed (said once, at the end).
    #[serde(skip)]
    to_commit: Vec<String>,
}

/// One file `install` or `uninstall` looked at.
#[derive(Debug, Serialize)]
struct FileChange {
    /// `claude`, `cursor`, `gemini`, `codex` or `git` (a git hook shim).
    host: &'static str,
    /// The file.
    path: PathBuf,
    /// Whether it was (or, with `--dry-run`, would be) changed.
    changed: bool,
    /// The line a person reads.
    summary: String,
    /// With `--dry-run`, the file as it would be written.
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

impl FileChange {
    fn of(host: &'static str, path: &Path, changed: bool, summary: String) -> FileChange {
        FileChange {
            host,
            path: path.to_path_buf(),
            changed,
            summary,
            content: None,
        }
    }
}

impl Report {
    /// An empty answer.
    pub(crate) fn new(mode: Mode, dry_run: bool, json: bool) -> Report {
        Report {
            json,
            mode: match mode {
                Mode::Install => "install",
                Mode::Uninstall => "uninstall",
            },
            dry_run,
            files: Vec::new(),
            notes: Vec::new(),
            to_commit: Vec::new(),
        }
    }

    /// A file's outcome: `summary` on stdout, or kept.
    pub(crate) fn file(&mut self, host: &'static str, path: &Path, changed: bool, summary: String) {
        if !self.json {
            println!("{summary}");
        }
        self.files
            .push(FileChange::of(host, path, changed, summary));
    }

    /// A dry run's outcome: the file as it would be (stdout), then `summary` (stderr), or kept.
    pub(crate) fn dry_run_file(
        &mut self,
        host: &'static str,
        path: &Path,
        changed: bool,
        summary: String,
        content: Option<String>,
    ) {
        if !self.json {
            if let Some(text) = &content {
                print!("{text}");
            }
            eprintln!("dry run, nothing written: {summary}");
        }
        self.files.push(FileChange {
            content,
            ..FileChange::of(host, path, changed, summary)
        });
    }

    /// A note for the person: stderr, or kept; said once however many files it is about.
    pub(crate) fn note(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.notes.contains(&text) {
            return;
        }
        if !self.json {
            eprintln!("{text}");
        }
        self.notes.push(text);
    }

    /// A project file was written (`rel`, relative to the worktree): what `install` leaves to
    /// do is commit it, so that other clones, and worktrees made from later commits, have it.
    pub(crate) fn commit_later(&mut self, rel: String) {
        self.to_commit.push(rel);
    }

    /// The end: the note on what to commit, and with `--json` the one document.
    pub(crate) fn finish(mut self) -> Result<()> {
        if !self.to_commit.is_empty() {
            let files = self.to_commit.join(" ");
            self.note(format!(
                "next: commit {files} (`git add {files} && git commit`) so other clones, and \
                 worktrees made from later commits, are wired too"
            ));
        }
        if self.json {
            super::super::print_json(&self)?;
        }
        Ok(())
    }
}

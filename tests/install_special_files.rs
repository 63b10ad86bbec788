//! Special files where git-dibs looks for its wiring: a FIFO (itself or behind a link) at a
//! Claude Code settings file, another host's hook file or a git hook never makes `doctor`,
//! `install` or `uninstall` wait for a writer. `doctor` says what the file is and what to do;
//! `install` and `uninstall` refuse, naming it, and change nothing. A settings file that is a
//! link to a regular file is written through, and `install` says which file it wrote.

mod common;
#[path = "install_support/mod.rs"]
mod support;

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use support::*;

/// Run git-dibs `args` in the repository of `s` (HOME private), failing the test rather than
/// hanging when it has not ended within 20 s.
fn run_bounded(s: &Setup, args: &[&str]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(&s.repo.root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", s.home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("PATH", path_with_bin())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("git-dibs {args:?} still ran after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = fs::remove_file(path);
    let done = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(done.success());
}

fn is_fifo(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Every file under `dir` (but git's logs and index), for "nothing was changed".
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.ends_with("logs") || p.ends_with("index") {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                todo.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

/// What a run said, with the temporary folders masked.
fn said(s: &Setup, out: &Output) -> String {
    let home = s.home.path().canonicalize().unwrap();
    let text = format!(
        "exit {}\n{}{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    text.replace(s.repo.root.to_str().unwrap(), "[REPO]")
        .replace(home.to_str().unwrap(), "[HOME]")
        .replace(s.home.path().to_str().unwrap(), "[HOME]")
}

#[test]
fn a_fifo_where_wiring_or_a_git_hook_belongs_is_named_and_never_read() {
    // (the place, the install line that writes it)
    let places: [(&str, &[&str]); 8] = [
        (".claude/settings.json", &["install"]),
        (".claude/settings.local.json", &["install", "--local"]),
        ("[HOME]/.claude/settings.json", &["install", "--user"]),
        (".gemini/settings.json", &["install", "--gemini"]),
        (".codex/hooks.json", &["install", "--codex"]),
        (".cursor/hooks.json", &["install", "--cursor"]),
        (".git/hooks/pre-commit", &["install", "--git-hooks"]),
        (
            ".git/hooks/reference-transaction",
            &["install", "--git-hooks"],
        ),
    ];
    let mut transcript = String::new();
    for (place, install) in places {
        let s = Setup::new();
        let path = match place.strip_prefix("[HOME]/") {
            Some(rel) => s.home.path().join(rel),
            None => s.repo.root.join(place),
        };
        mkfifo(&path);
        let doctor = run_bounded(&s, &["doctor"]);
        let before = tree(&s.repo.root);
        assert_eq!(
            doctor.status.code(),
            Some(1),
            "{place}: {}",
            said(&s, &doctor)
        );
        let doctor_text = said(&s, &doctor);
        let lines: Vec<&str> = doctor_text.lines().filter(|l| l.contains("FIFO")).collect();
        assert!(!lines.is_empty(), "{place}: {doctor_text}");
        transcript.push_str(&format!(
            "## {place}\n$ git dibs doctor\n{}\n",
            lines.join("\n")
        ));
        let mut uninstall = install.to_vec();
        uninstall[0] = "uninstall";
        for args in [install, &uninstall[..]] {
            let out = run_bounded(&s, args);
            let text = said(&s, &out);
            assert!(is_fifo(&path), "{place}: {args:?} replaced the FIFO");
            assert_eq!(
                tree(&s.repo.root),
                before,
                "{place}: {args:?} changed files"
            );
            if args[0] == "install" {
                assert_eq!(out.status.code(), Some(2), "{place}: {args:?}: {text}");
                assert!(text.contains("FIFO"), "{place}: {args:?}: {text}");
                assert!(
                    text.to_lowercase().contains("nothing was changed"),
                    "{place}: {args:?}: {text}"
                );
            }
            transcript.push_str(&format!("$ git dibs {}\n{text}\n", args.join(" ")));
        }
    }
    insta::assert_snapshot!("fifo_wiring", transcript);
}

#[test]
fn a_link_to_a_fifo_is_refused_too() {
    let s = Setup::new();
    let fifo = s.repo.tmp.path().join("pipe");
    mkfifo(&fifo);
    fs::create_dir_all(s.repo.root.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&fifo, s.project()).unwrap();
    std::os::unix::fs::symlink(&fifo, s.repo.root.join(".git/hooks/pre-commit")).unwrap();
    let doctor = run_bounded(&s, &["doctor"]);
    let text = said(&s, &doctor);
    assert_eq!(doctor.status.code(), Some(1), "{text}");
    assert_eq!(text.matches("is a FIFO (named pipe)").count(), 2, "{text}");
    for args in [&["install"][..], &["install", "--git-hooks"]] {
        let out = run_bounded(&s, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&s, &out));
        assert!(is_fifo(&fifo));
    }
}

#[test]
fn a_settings_file_linked_to_a_regular_file_is_written_through_and_install_says_so() {
    let s = Setup::new();
    let real = s.repo.tmp.path().join("dotfiles/claude-settings.json");
    write(&real, "{\"model\": \"opus\"}\n");
    fs::create_dir_all(s.repo.root.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&real, s.project()).unwrap();
    let out = run_bounded(&s, &["install"]);
    ok(&out);
    let text = said(&s, &out);
    assert!(
        text.contains("is a symbolic link; git-dibs reads and writes the file it points to"),
        "{text}"
    );
    assert!(
        fs::symlink_metadata(s.project())
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is kept"
    );
    let settings = read_json(&real);
    assert_eq!(settings["model"], "opus");
    assert!(!ours(&settings).is_empty(), "{settings}");
}

#[test]
fn a_fifo_where_the_manual_page_goes_is_refused_not_waited_on() {
    let s = Setup::new();
    let dir = s.repo.tmp.path().join("man1");
    mkfifo(&dir.join("git-dibs.1"));
    let out = run_bounded(&s, &["man", "--install", "--dir", dir.to_str().unwrap()]);
    let text = said(&s, &out).replace(s.repo.tmp.path().to_str().unwrap(), "[TMP]");
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(is_fifo(&dir.join("git-dibs.1")));
    insta::assert_snapshot!("fifo_man_page", text);
}

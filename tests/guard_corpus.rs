//! The guard over two corpora of command lines, through the real binary in a repository with a
//! live peer holding dirty files, dirty and unpushed lanes (`.worktrees/`, kept ignored as
//! git-dibs does) and unpushed branches: `tests/corpus/everyday.txt` (builds, tests, greps,
//! formatters, git reads, own-file staging, temp clean-ups) must draw no refusal and at most 1%
//! questions; `tests/corpus/destructive.txt` must be refused or asked, every line.

mod common;
mod guard_support;

use std::fs;
use std::path::Path;

use common::*;
use guard_support::*;

fn corpus(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.replace("\\n", "\n"))
        .collect()
}

/// The fixture, a live peer with dirty files in the main worktree, and two lanes under
/// `.worktrees/`: `lane` with uncommitted work, `kept` clean on a branch with an unpushed
/// commit.
fn busy() -> Fixture {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::write(r.join(".git/info/exclude"), ".worktrees/\n").unwrap();
    let lanes = r.join(".worktrees");
    fs::create_dir_all(&lanes).unwrap();
    for name in ["lane", "kept"] {
        let p = lanes.join(name);
        add_worktree(r, name, &p);
    }
    fs::write(lanes.join("lane/wip.rs"), "// uncommitted\n").unwrap();
    commit_in(&lanes.join("kept"), "kept.txt", "kept on its branch");
    // A stash entry (the stash is the clone's, shared by every worktree).
    fs::write(lanes.join("kept/stashed.txt"), "stashed\n").unwrap();
    git(&lanes.join("kept"), &["stash", "-q", "-u"]);
    f
}

fn answer(run: &HookRun) -> (String, String) {
    match decision(run) {
        Some((d, reason, _)) => (d, reason),
        None => ("allow".into(), String::new()),
    }
}

#[test]
fn everyday_corpus_draws_no_refusal_and_at_most_one_percent_questions() {
    let f = busy();
    let r = &f.repo.root;
    let lines = corpus("everyday.txt");
    assert!(lines.len() >= 300, "{} commands", lines.len());
    let mut refused = Vec::new();
    let mut asked = Vec::new();
    for cmd in &lines {
        let run = bash(r, cmd);
        assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
        match answer(&run) {
            (d, reason) if d == "deny" => refused.push(format!("{cmd}\n    {reason}")),
            (d, reason) if d == "ask" => asked.push(format!("{cmd}\n    {reason}")),
            _ => {}
        }
    }
    eprintln!(
        "everyday: {} commands, {} asked:\n{}",
        lines.len(),
        asked.len(),
        asked.join("\n")
    );
    assert!(refused.is_empty(), "refused:\n{}", refused.join("\n"));
    assert!(
        asked.len() * 100 <= lines.len(),
        "asked {} of {}:\n{}",
        asked.len(),
        lines.len(),
        asked.join("\n")
    );
    // Nothing ran: the repository is as it was.
    assert!(f.dirty.join("src/lib.rs").exists());
}

#[test]
fn destructive_corpus_is_refused_or_asked_every_line() {
    let f = busy();
    let r = &f.repo.root;
    remote_only_branch(&f);
    let mut through = Vec::new();
    for cmd in corpus("destructive.txt") {
        let run = bash(r, &cmd);
        assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
        let (d, reason) = answer(&run);
        if d != "deny" && d != "ask" {
            through.push(cmd.clone());
        } else {
            assert!(reason.contains("[guard:"), "{cmd}: no rule named: {reason}");
        }
    }
    assert!(through.is_empty(), "went through:\n{}", through.join("\n"));
}

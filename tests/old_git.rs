//! A repository the git on PATH cannot read (a reftable repository under a git older than
//! 2.45, or a format no git here knows): every command says so in words, naming the git on
//! PATH by its version and the git to put first instead, rather than passing on git's raw
//! error or a wrong answer ("names no commit", "detached HEAD"); `status` and `audit`, which
//! read the store alone, still answer (`status` with that note); `doctor` reports it as a
//! problem; the hook still exits 0 with at most one line on stderr.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

const S: &str = "11112222-3333-4444-5555-666677778888";

/// The command lines that need git, for the transcript.
const LINES: [&[&str]; 6] = [
    &["claim", "src/lib.rs"],
    &["release", "--all"],
    &["landed", "main"],
    &["recover"],
    &["lane", "list"],
    &["sync"],
];

/// Run `args` in `root` with `path` as PATH.
fn run(root: &Path, path: &std::ffi::OsStr, args: &[&str]) -> Output {
    dibs_env(
        root,
        None,
        args,
        &[("PATH", path.to_str().unwrap()), ("USER", "sam")],
    )
}

/// The transcript of every line, doctor's problems and a hook call, after checking them.
fn transcript(root: &Path, path: &std::ffi::OsStr, needs: &str) -> String {
    let mut text = String::new();
    for args in LINES {
        let out = run(root, path, args);
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(said.contains("the git on PATH"), "{args:?}: {said}");
        assert!(said.contains(needs), "{args:?}: {said}");
        text.push_str(&format!("$ git dibs {}\n{said}", args.join(" ")));
    }
    // `status` reads the store alone: it answers, files marked unread, and says why.
    let status = run(root, path, &["status"]);
    let said = String::from_utf8_lossy(&status.stderr).into_owned();
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    assert!(
        said.contains("the git on PATH") && said.contains(needs),
        "{said}"
    );
    text.push_str(&format!("$ git dibs status\n{said}"));
    let audit = run(root, path, &["audit"]);
    assert_eq!(audit.status.code(), Some(0), "{audit:?}");
    let doctor = run(root, path, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{doctor:?}");
    let doctor = String::from_utf8_lossy(&doctor.stdout).into_owned();
    assert!(!doctor.contains("detached HEAD"), "{doctor}");
    text.push_str("$ git dibs doctor (its lines on the repository)\n");
    for line in doctor
        .lines()
        .filter(|l| l.contains("the git on PATH") || l.contains("in the git worktree"))
    {
        text.push_str(line);
        text.push('\n');
    }
    assert!(text.contains("problem  the git on PATH"), "{doctor}");
    std::fs::write(root.join("f.txt"), "x\n").unwrap();
    let event = edit_event("PostToolUse", "Write", S, root, &root.join("f.txt"));
    let hook = hook_raw(
        root,
        format!("{event}\n").as_bytes(),
        &[("PATH", path.to_str().unwrap())],
    );
    assert_eq!(hook.code, 0, "{}", hook.stderr);
    assert!(hook.stderr.lines().count() <= 1, "{}", hook.stderr);
    text.push_str(&format!(
        "$ git-dibs hook (PostToolUse Write)\n{}",
        hook.stderr
    ));
    text.replace(root.to_str().unwrap(), "[REPO]")
}

/// A `git` that says it is 2.39.5 and, like that version in a reftable repository, refuses
/// every command with git's own words; the folder holding it, to put first on PATH.
fn old_git(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("old-git-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("git");
    std::fs::write(
        &script,
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version 2.39.5'; exit 0; fi\n\
         printf 'fatal: unknown repository extension found:\\n\\trefstorage\\n' >&2\nexit 128\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn path_first(dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    std::env::join_paths(dirs).unwrap()
}

#[test]
fn a_reftable_repository_under_an_old_git_is_named_with_the_git_to_use() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let made = git_command(&base)
        .args(["init", "-q", "-b", "main", "--ref-format=reftable", "repo"])
        .status()
        .unwrap();
    if !made.success() {
        eprintln!("skipped: the installed git cannot make a reftable repository");
        return;
    }
    let root = base.join("repo");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "init"]);
    let path = path_first(&old_git(&base));
    let text = transcript(&root, &path, "git version 2.39.5");
    assert!(
        text.contains("put git 2.45 or later first on PATH"),
        "{text}"
    );
    insta::assert_snapshot!("reftable_old_git", text);
}

#[test]
fn a_format_no_git_here_knows_is_named_too() {
    let repo = TestRepo::new();
    git(&repo.root, &["config", "core.repositoryFormatVersion", "1"]);
    git(&repo.root, &["config", "extensions.dibsFuture", "true"]);
    let path = std::env::var_os("PATH").unwrap();
    let text = transcript(&repo.root, &path, "extensions.dibsfuture");
    assert!(text.contains("put a newer git first on PATH"), "{text}");
}

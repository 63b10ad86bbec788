//! Repository formats libgit2 cannot open (SHA-256 object ids, reftable refs, both) and one it
//! opens but cannot read the status of (a split index): git-dibs falls back to the `git`
//! command there, so its promises hold as in an ordinary repository. For each format: what the
//! issue-12 destroyers take comes back byte for byte with `git dibs recover`, the guard refuses
//! a peer's `git stash`, `git reset --hard` and `git branch -D` of an unpushed branch, everyday
//! commands stay silent, session start and status read the branch and the dirty files, and the
//! git hooks work. A format the installed git lacks is skipped with a message.

mod common;
mod recover_support;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;
use tempfile::TempDir;

/// The formats: a name, `git init` options, and git commands run in the new clone.
const FORMATS: [(&str, &[&str], &[&str]); 4] = [
    ("sha256", &["--object-format=sha256"], &[]),
    ("reftable", &["--ref-format=reftable"], &[]),
    (
        "sha256+reftable",
        &["--object-format=sha256", "--ref-format=reftable"],
        &[],
    ),
    ("split index", &[], &["config", "core.splitIndex", "true"]),
];

/// A clone of a bare remote in `format`, with `README.md`, `src/lib.rs` and `.gitignore`
/// (`scratch/`, `*.local`) committed and pushed on `main`; `None` (said on stderr) when the
/// installed git cannot make this format.
fn clone_in(format: &(&str, &[&str], &[&str])) -> Option<(TempDir, PathBuf)> {
    let (name, init, after) = *format;
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let mut args = vec!["init", "-q", "--bare", "-b", "main"];
    args.extend_from_slice(init);
    args.push("remote.git");
    if !git_command(&base).args(&args).status().unwrap().success() {
        eprintln!("skipped: the installed git cannot make a {name} repository");
        return None;
    }
    let mut args = vec!["init", "-q", "-b", "main"];
    args.extend_from_slice(init);
    args.push("repo");
    git(&base, &args);
    let root = base.join("repo");
    if !after.is_empty() {
        git(&root, after);
    }
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("README.md"), "# test\n").unwrap();
    fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
    fs::write(root.join(".gitignore"), "scratch/\n*.local\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "init"]);
    git(&root, &["remote", "add", "origin", "../remote.git"]);
    git(&root, &["push", "-q", "-u", "origin", "main"]);
    Some((tmp, root))
}

/// The decision the guard gives `session` for `command` in `cwd` (`None`: silent).
fn decide(cwd: &Path, session: &str, command: &str) -> Option<(String, String)> {
    let run = bash_hook_env(cwd, session, command, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    hook_decision(&run).map(|(d, r, _)| (d, r))
}

#[test]
fn destroyed_work_comes_back_byte_for_byte_in_every_format() {
    for format in &FORMATS {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        let agent = Agent::new("maker", &root);
        let edited = agent.write("src/lib.rs", b"pub fn a() { /* mine */ }\n");
        let fresh = agent.write("notes/plan.md", b"- [ ] step\n");
        let ignored = agent.write("scratch/findings.md", b"found it\n");
        let env = agent.write("app.local", b"PORT=1\n");
        let bin = agent.write("assets/logo.bin", &binary(5000));
        let expect = [
            (edited.clone(), b"pub fn a() { /* mine */ }\n".to_vec()),
            (fresh.clone(), b"- [ ] step\n".to_vec()),
            (ignored.clone(), b"found it\n".to_vec()),
            (env.clone(), b"PORT=1\n".to_vec()),
            (bin, binary(5000)),
        ];
        assert!(
            snapshot_refs(&root).contains("refs/dibs/snapshots/"),
            "{name}: no snapshot ref"
        );
        // Three destroyers in a row, as if the guard had let each through.
        sh(
            &root,
            "git checkout -- . && git clean -fdq && git clean -ffdXq",
        );
        sh(
            &root,
            "git stash -u -q 2>/dev/null; git stash drop -q 2>/dev/null; true",
        );
        collect_garbage(&root);
        assert_eq!(fs::read(&edited).unwrap(), b"pub fn a() {}\n", "{name}");
        assert!(
            !fresh.exists() && !ignored.exists() && !env.exists(),
            "{name}"
        );

        let listing = recover_json(&root, &[]);
        let files = listing["files"].as_array().unwrap();
        assert_eq!(files.len(), 5, "{name}: {listing}");
        assert!(
            files
                .iter()
                .any(|f| f["path"] == "src/lib.rs" && f["working_copy"] == "differs"),
            "{name}: {listing}"
        );
        assert!(
            files
                .iter()
                .filter(|f| f["path"] != "src/lib.rs")
                .all(|f| f["working_copy"] == "missing"),
            "{name}: {listing}"
        );
        let (code, out, err) = recover(&root, &["--force", "."]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert_files(&expect);
        // Now every copy matches: the listing says so (the hash is the repository's own).
        let listing = recover_json(&root, &[]);
        assert!(
            listing["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["working_copy"] == "matches"),
            "{name}: {listing}"
        );
    }
}

#[test]
fn a_removed_lane_and_its_deleted_branch_come_back_in_every_format() {
    for format in &FORMATS {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        sh(&root, "git worktree add -q -b lane/auth .worktrees/auth");
        let lane = root.join(".worktrees/auth");
        let agent = Agent::new("lane-agent", &lane);
        let committed = agent.write("src/auth.rs", b"pub fn login() {}\n");
        let out = agent.bash("git add src/auth.rs && git commit -qm 'auth: login'");
        assert!(out.status.success(), "{name}");
        let commit = git_out(&lane, &["rev-parse", "HEAD"]);
        let refs = git_out(
            &root,
            &["for-each-ref", "--format=%(refname)", "refs/dibs/"],
        );
        assert!(
            refs.contains("refs/dibs/retention/lane/auth/"),
            "{name}: no retention ref: {refs}"
        );
        let wip = agent.write("notes/wip.md", b"half done\n");

        let main = Agent::new("cleaner", &root);
        main.bash("rm -rf .worktrees/auth .git/worktrees/auth && git branch -D lane/auth");
        collect_garbage(&root);
        assert!(!lane.exists(), "{name}");

        let (code, out, err) = recover(&root, &["--worktree", ".worktrees/auth"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains("branch lane/auth"), "{name}: {out}");
        assert_eq!(git_out(&lane, &["rev-parse", "HEAD"]), commit, "{name}");
        assert_files(&[
            (committed, b"pub fn login() {}\n".to_vec()),
            (wip, b"half done\n".to_vec()),
        ]);
    }
}

#[test]
fn the_guard_refuses_what_it_refuses_elsewhere_and_everyday_commands_stay_silent() {
    for format in &FORMATS {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        let peer = Agent::new("peer-one", &root);
        peer.write("src/lib.rs", b"pub fn a() { /* peer */ }\n");
        peer.write("notes.md", b"peer notes\n");
        sh(
            &root,
            "git branch unpushed && git checkout -q unpushed && echo u > u.txt && git add u.txt \
             && git commit -qm 'only here' && git checkout -q main",
        );
        let me = Agent::new("me-two", &root);
        me.write("mine.txt", b"mine\n");
        for command in [
            "git stash",
            "git stash -u",
            "git reset --hard",
            "git checkout -- .",
        ] {
            let (verdict, reason) = decide(&root, &me.id, command)
                .unwrap_or_else(|| panic!("{name}: `{command}` went through"));
            assert_eq!(verdict, "deny", "{name}: `{command}`: {reason}");
            assert!(
                reason.contains("src/lib.rs") && reason.contains("[guard:peer-files]"),
                "{name}: `{command}`: {reason}"
            );
        }
        let (verdict, reason) = decide(&root, &me.id, "git branch -D unpushed").unwrap();
        assert_eq!(verdict, "deny", "{name}: {reason}");
        assert!(reason.contains("only here"), "{name}: {reason}");
        for command in [
            "git status",
            "git log --oneline -5",
            "git diff",
            "git add mine.txt",
            "git commit -m mine -- mine.txt",
            "git branch -d main2 2>/dev/null || true",
            "ls -la",
            "cargo build",
            "grep -rn fn src",
            "git branch --show-current",
        ] {
            assert_eq!(decide(&root, &me.id, command), None, "{name}: `{command}`");
        }
    }
}

#[test]
fn session_start_and_status_read_the_branch_and_the_dirty_files_in_every_format() {
    for format in &FORMATS {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        git(&root, &["checkout", "-q", "-b", "feature/x"]);
        let peer = Agent::new("peer-one", &root);
        peer.write("src/lib.rs", b"pub fn a() { /* peer */ }\n");
        let start = hook(&root, &session_start("newcomer", &root, "startup"));
        let told = start.json()["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            told.contains("on branch feature/x") && told.contains("uncommitted: src/lib.rs"),
            "{name}: {told}"
        );
        let status = status_of(&root);
        let s = session_of(&status, "peer-one");
        assert_eq!(s["branch"], "feature/x", "{name}: {status}");
        let text = out_text(&dibs(&root, &["status"]));
        assert!(text.contains("dirty  src/lib.rs"), "{name}: {text}");
    }
}

#[test]
fn doctor_says_when_the_format_sends_git_dibs_to_git() {
    for format in &FORMATS[..3] {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let text = out_text(&dibs(&root, &["doctor"]));
        assert!(
            text.contains("reads and writes it through the git command"),
            "{}: {text}",
            format.0
        );
    }
    let plain = TestRepo::new();
    let text = out_text(&dibs(&plain.root, &["doctor"]));
    assert!(!text.contains("through the git command"), "{text}");
}

#[test]
fn the_git_hooks_work_in_every_format() {
    for format in &FORMATS {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        let path = install_git_hooks(&root);
        // post-commit: a commit made outside any agent hook gets a retention ref.
        git(&root, &["checkout", "-q", "-b", "side"]);
        fs::write(root.join("side.txt"), "side\n").unwrap();
        git(&root, &["add", "side.txt"]);
        let out = git_command(&root)
            .env("PATH", &path)
            .args(["commit", "-qm", "side work"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", out_text(&out));
        let refs = git_out(
            &root,
            &[
                "for-each-ref",
                "--format=%(refname)",
                "refs/dibs/retention/",
            ],
        );
        assert!(refs.contains("refs/dibs/retention/side/"), "{name}: {refs}");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("cannot"),
            "{name}: {}",
            out_text(&out)
        );
        // pre-commit: a peer's file staged by someone else is refused.
        let peer = Agent::new("peer-one", &root);
        peer.write("peer.txt", b"peer work\n");
        git(&root, &["add", "peer.txt"]);
        let out = git_command(&root)
            .env("PATH", &path)
            .args(["commit", "-qm", "takes the peer's file"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name}: {}", out_text(&out));
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("commit refused") && said.contains("peer.txt"),
            "{name}: {said}"
        );
        git(&root, &["restore", "--staged", "peer.txt"]);
        // reference-transaction: deleting the unpushed branch is refused, naming its commit.
        git(&root, &["checkout", "-q", "main"]);
        let out = git_command(&root)
            .env("PATH", &path)
            .args(["branch", "-D", "side"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {said}");
        assert!(
            said.contains("refusing to delete branch side") && said.contains("side work"),
            "{name}: {said}"
        );
        // A pushed branch goes without a word.
        git(&root, &["push", "-q", "origin", "side"]);
        let out = git_command(&root)
            .env("PATH", &path)
            .args(["branch", "-D", "side"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", out_text(&out));
        assert!(out.stderr.is_empty(), "{name}: {}", out_text(&out));
    }
}

#[test]
fn where_even_git_cannot_read_the_repository_nothing_is_said_to_be_safe() {
    let repo = TestRepo::new();
    let root = repo.root.clone();
    let peer = Agent::new("peer-one", &root);
    peer.write("src/lib.rs", b"pub fn a() { /* peer */ }\n");
    // A new file: whether git ignores it takes a repository to tell.
    peer.write("notes.md", b"new\n");
    // An extension neither libgit2 nor this git knows: git itself refuses the repository.
    git(&root, &["config", "core.repositoryformatversion", "1"]);
    git(&root, &["config", "extensions.fromthefuture", "true"]);

    let start = hook(&root, &session_start("newcomer", &root, "startup"));
    let told = start.json()["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!told.contains("no uncommitted files"), "{told}");
    assert!(told.contains("could not be read"), "{told}");

    let text = out_text(&dibs(&root, &["status"]));
    assert!(text.contains("unread  src/lib.rs"), "{text}");
    assert!(!text.contains("clean  src/lib.rs"), "{text}");

    let (verdict, reason) = decide(&root, "newcomer", "git stash").expect("not silent");
    assert_eq!(verdict, "ask", "{reason}");
    assert!(reason.contains("extensions.fromthefuture"), "{reason}");
    assert!(
        !reason.contains("class="),
        "libgit2's error chain: {reason}"
    );

    let (code, out, err) = recover(&root, &[]);
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("extensions.fromthefuture"), "{err}");
    // Said in words: the git on PATH cannot read it, and which git to put first.
    let cause = "cannot read this repository";
    assert_eq!(err.matches(cause).count(), 1, "the cause once: {err}");
}

#[test]
fn sessions_cross_machines_through_sync_in_every_format() {
    for format in &FORMATS[..3] {
        let Some((_tmp, a)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        let base = a.parent().unwrap().to_path_buf();
        let mut args = vec!["clone", "-q"];
        if format.1.contains(&"--ref-format=reftable") {
            args.push("--ref-format=reftable");
        }
        args.extend(["remote.git", "b"]);
        git(&base, &args);
        let b = base.join("b");
        git(&a, &["config", "dibs.machine", "alpha"]);
        git(&b, &["config", "dibs.machine", "beta"]);
        Agent::new("alpha-one", &a).write("src/lib.rs", b"pub fn a() { /* alpha */ }\n");
        let out = dibs(&a, &["sync"]);
        assert!(out.status.success(), "{name}: {}", out_text(&out));
        assert!(
            out_text(&out).contains("published 1 session"),
            "{name}: {}",
            out_text(&out)
        );
        let out = dibs(&b, &["sync"]);
        assert!(out.status.success(), "{name}: {}", out_text(&out));
        let status = status_of(&b);
        let s = session_of(&status, "alpha-one@alpha");
        assert_eq!(s["machine"], "alpha", "{name}: {status}");
        assert_eq!(held_paths(s), ["src/lib.rs"], "{name}: {status}");
    }
}

#[test]
fn a_snapshot_ref_deleted_or_pointed_elsewhere_from_outside_comes_back_in_every_format() {
    for (format, pointed) in FORMATS.iter().flat_map(|f| [(f, false), (f, true)]) {
        let Some((_tmp, root)) = clone_in(format) else {
            continue;
        };
        let name = format.0;
        let agent = Agent::new("kept-on", &root);
        agent.write("notes.md", b"only copy\n");
        let refs = snapshot_refs(&root);
        assert_eq!(refs.lines().count(), 1, "{name}: {refs}");
        if pointed {
            let foreign = git_out(
                &root,
                &["commit-tree", "HEAD^{tree}", "-m", "not a snapshot"],
            );
            sh(&root, &format!("git update-ref {refs} {foreign}"));
        } else {
            sh(&root, &format!("git update-ref -d {refs}"));
        }
        let run = write_seen(&agent, "more.md", b"more\n");
        let said = if pointed {
            "was pointed at"
        } else {
            "was deleted"
        };
        assert!(run.stderr.contains(said), "{name}: {}", run.stderr);
        assert_eq!(snapshot_refs(&root), refs, "{name}");
        sh(&root, "rm notes.md");
        collect_garbage(&root);
        assert_recovers(
            &root,
            &["notes.md"],
            &[(root.join("notes.md"), b"only copy\n".to_vec())],
        );
    }
}

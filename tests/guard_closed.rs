//! The guard fails closed: a command line it cannot read that may reach a guarded operation,
//! and a guarded command whose facts cannot be established, are put to the person (refused
//! with a way to go ahead on hosts without "ask"); `git dibs check` answers as the hook does and
//! names the rule. Real repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn unreadable_lines_that_may_reach_a_guarded_operation_are_asked() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git branch -D topic $(",
        "rm -rf ../dirty (",
        "bash -c 'git worktree remove ../dirty",
        "$X (",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:unparsable]"), "{cmd}: {reason}");
    }
    denied(r, "coproc git branch -D topic");
    asked(r, "coproc X { git branch -D topic; }");
    for cmd in ["ls -la (", "cargo test )", "echo \"unterminated"] {
        allowed(r, cmd);
    }
}

#[test]
fn an_unreadable_line_with_the_bypass_goes_ahead_and_is_audited() {
    let f = fixture();
    let r = &f.repo.root;
    allowed(r, "WT_GUARD_BYPASS=1 git branch -D topic $(");
    let lines = audit(&f.repo);
    assert_eq!(lines.last().unwrap()["verdict"], "bypass");
    assert_eq!(lines.last().unwrap()["rule"], "unparsable");
}

#[test]
fn deep_nesting_and_long_lines_are_asked_when_they_name_git() {
    let f = fixture();
    let r = &f.repo.root;
    let deep = format!("{}git branch -D topic{}", "( ".repeat(40), " )".repeat(40));
    asked(r, &deep);
    let long = format!("git branch -D topic # {}", "x".repeat(300 * 1024));
    asked(r, &long);
    // Arithmetic inside arithmetic nests like any other expansion: past the bound the line is
    // asked (it crashed the hook with a stack overflow at a few thousand levels), in the
    // command itself, inside `bash -c` and in an array; a shallow one is judged as usual.
    let arith = |n: usize| format!("{}1{}", "$(( ".repeat(n), " ))".repeat(n));
    for cmd in [
        format!("git branch -D topic {}", arith(5000)),
        format!("bash -c 'git branch -D topic {}'", arith(5000)),
        format!("a=({}); git branch -D topic", arith(5000)),
        format!("rm -rf ../dirty $(( {} ))", arith(40)),
    ] {
        let reason = asked(r, &cmd);
        assert!(reason.contains("[guard:unparsable]"), "{reason}");
    }
    let shallow = asked(r, &format!("git branch -D topic {}", arith(3)));
    assert!(shallow.contains("[guard:unknown-target]"), "{shallow}");
    // Wrappers stacked past the bound leave no command known below them: asked, not let
    // through as an unknown program (`env env … rm -rf ../dirty` was allowed past 64).
    for wrapper in ["env ", "sudo ", "nice ", "command "] {
        let reason = asked(r, &format!("{}rm -rf ../dirty", wrapper.repeat(100)));
        assert!(reason.contains("[guard:unparsable]"), "{wrapper}: {reason}");
        denied(r, &format!("{}rm -rf ../dirty", wrapper.repeat(10)));
    }
}

#[test]
fn a_repository_libgit2_cannot_open_is_asked_not_allowed() {
    let f = fixture();
    // A repository extension libgit2 does not know: its facts cannot be read.
    git(&f.dirty, &["config", "core.repositoryformatversion", "1"]);
    git(&f.dirty, &["config", "extensions.frobnicate", "true"]);
    let run = bash(&f.repo.root, "git worktree remove ../clean");
    let (d, reason, _) = decision(&run).expect("an answer");
    assert_eq!(d, "ask", "{reason}");
    assert!(reason.contains("[guard:facts-unknown]"), "{reason}");
}

#[test]
fn refusals_and_questions_name_their_rule() {
    let f = fixture();
    let r = &f.repo.root;
    assert!(denied(r, "git worktree remove ../dirty").contains("[guard:worktree-dirty]"));
    assert!(denied(r, "rm -rf ../dirty").contains("[guard:worktree-rm]"));
    assert!(denied(r, "git branch -D topic").contains("[guard:branch-unpushed]"));
    assert!(asked(r, "rm -rf \"$X\"").contains("[guard:unknown-target]"));
}

#[test]
fn hosts_without_ask_refuse_and_tell_the_person_how_to_go_ahead() {
    let f = fixture();
    let r = &f.repo.root;
    let event = serde_json::json!({
        "session_id": "019a7c3e-5b21-7d40-9e8f-3c6a1b2d4e5f", "turn_id": "7",
        "cwd": r, "hook_event_name": "PreToolUse", "model": "gpt-5.1-codex",
        "tool_name": "Bash", "tool_input": {"command": "git branch -D topic $("},
        "permission_mode": "default", "tool_use_id": "call_1",
    });
    let run = hook_raw(r, format!("{event}\n").as_bytes(), &[]);
    let v = run.json();
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{v}");
    let model = out["permissionDecisionReason"].as_str().unwrap();
    assert!(!model.contains("WT_GUARD_BYPASS"), "{model}");
    let person = v["systemMessage"].as_str().unwrap();
    assert!(person.contains("WT_GUARD_BYPASS=1"), "{person}");
}

#[test]
fn check_answers_as_the_hook_does_with_rule_and_facts() {
    let f = fixture();
    let r = &f.repo.root;
    let out = dibs(r, &["check", "--", "git worktree remove ../dirty"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("deny [guard:worktree-dirty]"), "{text}");
    assert!(text.contains("M src/lib.rs"), "{text}");
    let out = dibs(
        r,
        &["check", "--json", "--", "git", "branch", "-D", "topic"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer"], "deny");
    assert_eq!(v["rule"], "branch-unpushed");
    let facts = v["commands"][0]["facts"][0].as_str().unwrap();
    assert!(facts.starts_with("branch topic tip "), "{facts}");
    let out = dibs(r, &["check", "--json", "--", "rm -rf \"$X\""]);
    assert_eq!(out.status.code(), Some(3));
    let out = dibs(r, &["check", "--", "cargo test"]);
    assert_eq!(out.status.code(), Some(0));
    // Several words are argv as the shell split them: each is one word again (finding 07).
    let out = dibs(
        r,
        &["check", "--", "bash", "-c", "git worktree remove ../dirty"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", out_text(&out));
    let out = dibs(r, &["check", "--", "echo", "rm -rf ../dirty"]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    // Nothing was written: check is not the hook.
    assert!(audit(&f.repo).is_empty());
    assert!(!fs::read_dir(f.repo.store_dir()).is_ok_and(|d| {
        d.filter_map(Result::ok)
            .any(|e| e.file_name() == "audit.log")
    }));
}

/// A repository in `dir` with one commit pushed to a bare remote, made with `init_args`.
fn plain_repo(dir: &std::path::Path, init_args: &[&str]) -> std::path::PathBuf {
    let remote = dir.join("remote.git");
    let root = dir.join("repo");
    let mut args = vec!["init", "-q", "--bare"];
    args.extend_from_slice(init_args);
    args.push(remote.to_str().unwrap());
    git(dir, &args);
    let mut args = vec!["init", "-q", "-b", "main"];
    args.extend_from_slice(init_args);
    args.push(root.to_str().unwrap());
    git(dir, &args);
    fs::write(root.join("a.txt"), "a\n").unwrap();
    git(&root, &["add", "a.txt"]);
    git(&root, &["commit", "-qm", "init"]);
    git(
        &root,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(&root, &["push", "-q", "-u", "origin", "main"]);
    root
}

#[test]
fn a_reftable_repository_is_judged_by_git_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let root = plain_repo(&dir, &["--ref-format=reftable"]);
    let lane = dir.join("lane");
    add_worktree(&root, "lane", &lane);
    fs::write(lane.join("wip.txt"), "uncommitted\n").unwrap();
    let reason = denied(&root, "git worktree remove ../lane");
    assert!(reason.contains("?? wip.txt"), "{reason}");
    fs::remove_file(lane.join("wip.txt")).unwrap();
    allowed(&root, "git worktree remove ../lane");
}

#[test]
fn a_submodule_with_uncommitted_work_makes_its_worktree_at_risk() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let sub = dir.join("sub");
    git(&dir, &["init", "-q", "-b", "main", sub.to_str().unwrap()]);
    fs::write(sub.join("s.txt"), "s\n").unwrap();
    git(&sub, &["add", "s.txt"]);
    git(&sub, &["commit", "-qm", "sub"]);
    let root = plain_repo(&dir, &[]);
    let lane = dir.join("lane");
    add_worktree(&root, "lane", &lane);
    git(
        &lane,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub.to_str().unwrap(),
            "sub",
        ],
    );
    git(&lane, &["commit", "-qm", "add sub"]);
    git(&lane, &["push", "-q", "origin", "lane"]);
    // Uncommitted work inside the submodule only.
    fs::write(lane.join("sub/s.txt"), "changed in the submodule\n").unwrap();
    let reason = denied(&root, "git worktree remove --force ../lane");
    assert!(reason.contains("sub"), "{reason}");
}

/// The dirty paths `git dibs check` reports for removing `lane`, as a sorted list.
fn check_dirty(root: &std::path::Path) -> Vec<String> {
    let out = dibs(
        root,
        &["check", "--json", "--", "git worktree remove ../lane"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let facts: Vec<String> = v["commands"][0]["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect();
    let line = facts
        .iter()
        .find(|f| f.starts_with("worktree "))
        .cloned()
        .unwrap_or_default();
    let Some((_, dirty)) = line.split_once(" dirty: ") else {
        return Vec::new();
    };
    let dirty = dirty.split(" unpushed").next().unwrap_or(dirty);
    let mut v: Vec<String> = dirty.split(", ").map(|s| s.trim().to_owned()).collect();
    v.sort();
    v
}

/// What `git status --porcelain` says, as the same sorted list.
fn git_dirty(lane: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = git_out(lane, &["status", "--porcelain", "--untracked-files=all"])
        .lines()
        .map(|l| l.trim().to_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn facts_agree_with_git_status_in_every_repository_format() {
    for (name, init, after) in [
        ("plain", &[][..], &[][..]),
        ("sha256", &["--object-format=sha256"][..], &[][..]),
        ("reftable", &["--ref-format=reftable"][..], &[][..]),
        (
            "split index",
            &[][..],
            &["update-index", "--split-index"][..],
        ),
        (
            "sparse",
            &[][..],
            &["sparse-checkout", "set", "--no-cone", "/*"][..],
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let root = plain_repo(&dir, init);
        let lane = dir.join("lane");
        add_worktree(&root, "lane", &lane);
        if !after.is_empty() {
            git(&lane, after);
        }
        fs::write(lane.join("a.txt"), "changed\n").unwrap();
        fs::write(lane.join("new.txt"), "new\n").unwrap();
        fs::create_dir_all(lane.join("d")).unwrap();
        fs::write(lane.join("d/deep.txt"), "deep\n").unwrap();
        let ours: Vec<String> = check_dirty(&root)
            .iter()
            .map(|s| s.trim().to_owned())
            .collect();
        assert_eq!(ours, git_dirty(&lane), "{name}");
    }
}

#[test]
fn a_worktree_registered_with_relative_paths_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let root = plain_repo(&dir, &[]);
    let lane = dir.join("lane");
    add_worktree(&root, "lane", &lane);
    // What `worktree.useRelativePaths` writes: both links relative.
    fs::write(lane.join(".git"), "gitdir: ../repo/.git/worktrees/lane\n").unwrap();
    fs::write(
        root.join(".git/worktrees/lane/gitdir"),
        "../../../../lane/.git\n",
    )
    .unwrap();
    fs::write(lane.join("wip.txt"), "uncommitted\n").unwrap();
    let reason = denied(&root, "git worktree remove ../lane");
    assert!(reason.contains("?? wip.txt"), "{reason}");
}

#[test]
fn files_stat_data_cannot_settle_are_judged_by_content_as_git_does() {
    // Right after a checkout files are racily clean; a rewrite of the same size changes only
    // times. The guard hashes such files itself where nothing converts content, and leaves
    // them to libgit2 where attributes or autocrlf may (there the bytes on disk are not git's).
    for name in ["plain", "attributes", "autocrlf"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let root = plain_repo(&dir, &[]);
        fs::write(root.join("same.txt"), "same\n").unwrap();
        fs::write(root.join("edit.txt"), "edit\n").unwrap();
        match name {
            "attributes" => {
                fs::write(root.join(".gitattributes"), "*.txt text eol=crlf\n").unwrap();
            }
            "autocrlf" => {
                git(&root, &["config", "core.autocrlf", "true"]);
            }
            _ => {}
        }
        git(&root, &["add", "-A"]);
        git(&root, &["commit", "-qm", "files"]);
        let lane = dir.join("lane");
        add_worktree(&root, "lane", &lane);
        if name != "plain" {
            let checked_out = fs::read(lane.join("same.txt")).unwrap();
            assert_eq!(checked_out, b"same\r\n", "{name}: converted on checkout");
        }
        // The same bytes written again, and a change that keeps the size.
        let same = fs::read(lane.join("same.txt")).unwrap();
        fs::write(lane.join("same.txt"), same).unwrap();
        let edit = fs::read(lane.join("edit.txt"))
            .unwrap()
            .to_ascii_uppercase();
        fs::write(lane.join("edit.txt"), edit).unwrap();
        let ours = check_dirty(&root);
        assert_eq!(ours, vec!["M edit.txt".to_owned()], "{name}");
        assert_eq!(ours, git_dirty(&lane), "{name}");
    }
}

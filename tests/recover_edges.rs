//! The edges of snapshots: what is left out and said so, edits made between hook calls, a
//! failure that never fails the hook, retention at commit time, and snapshots that never leave
//! the machine.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn an_edit_between_hook_calls_is_snapshotted_before_the_next_bash_command() {
    let repo = TestRepo::new();
    let agent = Agent::new("swept", &repo.root);
    let file = agent.write("src/lib.rs", b"pub fn v1() {}\n");
    // A person's editor (or a formatter) changes it; no hook sees that.
    std::fs::write(&file, b"pub fn v2_by_editor() {}\n").unwrap();
    // Another session's line that can only read destroys nothing: no sweep before it.
    let other = Agent::new("other", &repo.root);
    let first = git_out(&repo.root, &["rev-parse", "refs/dibs/snapshots/swept"]);
    other
        .pre_bash("ls -la && cat src/lib.rs | wc -l")
        .assert_silent();
    assert_eq!(
        git_out(&repo.root, &["rev-parse", "refs/dibs/snapshots/swept"]),
        first
    );
    // Its next command may destroy anything (a build, a script): the sweep before it keeps v2.
    other.pre_bash("make").assert_silent();
    sh(&repo.root, "git checkout -- src/lib.rs");
    collect_garbage(&repo.root);
    assert_recovers(
        &repo.root,
        &["src/lib.rs", "--force"],
        &[(file.clone(), b"pub fn v2_by_editor() {}\n".to_vec())],
    );
    // And the first version is still there, by time.
    let listing = recover_json(&repo.root, &["--session", "swept"]);
    assert_eq!(listing["files"][0]["versions"], 2, "{listing}");
    // Nothing changed since: the next sweep makes no snapshot (git's readers sweep too: its
    // configuration may name programs they run).
    let before = git_out(&repo.root, &["rev-parse", "refs/dibs/snapshots/swept"]);
    other.pre_bash("git status").assert_silent();
    assert_eq!(
        git_out(&repo.root, &["rev-parse", "refs/dibs/snapshots/swept"]),
        before
    );
}

#[test]
fn a_refused_command_does_not_sweep_and_the_bypass_that_runs_it_does() {
    let repo = TestRepo::new();
    let wt = repo.worktree("wt-edited");
    let agent = Agent::new("lane-agent", &wt);
    let file = agent.write("wip.rs", b"pub fn v1() {}\n");
    std::fs::write(&file, b"pub fn v2_by_editor() {}\n").unwrap();
    let snap = || git_out(&repo.root, &["rev-parse", "refs/dibs/snapshots/lane-agent"]);
    let first = snap();
    let main = Agent::new("main-remover", &repo.root);
    // (git-dibs locked the worktree, so it takes forcing twice.)
    let remove = format!("git worktree remove -f -f {}", wt.display());
    let run = main.pre_bash(&remove);
    assert_eq!(hook_decision(&run).map(|d| d.0).as_deref(), Some("deny"));
    // Refused, so it does not run: nothing to sweep for.
    assert_eq!(snap(), first);
    // Let through on purpose, it runs: the editor's change is kept before it.
    let bypass = format!("WT_GUARD_BYPASS=1 {remove}");
    assert_eq!(main.pre_bash(&bypass).code, 0);
    assert_ne!(snap(), first);
    sh(&repo.root, &remove);
    collect_garbage(&repo.root);
    let wt_arg = wt.display().to_string();
    assert_recovers(
        &repo.root,
        &["--worktree", &wt_arg],
        &[(file, b"pub fn v2_by_editor() {}\n".to_vec())],
    );
}

#[test]
fn fifos_big_files_and_ignored_shell_output_are_left_out_and_listed_symlinks_kept() {
    let repo = TestRepo::new();
    repo.write(&repo.root, ".gitignore", "build/\n");
    sh(&repo.root, "git add .gitignore && git commit -qm ignore");
    let agent = Agent::new("edges", &repo.root);
    sh(&repo.root, "mkfifo pipe");
    sh(&repo.root, "head -c 9000000 /dev/zero > big.bin");
    for name in ["pipe", "big.bin"] {
        let run = agent.post_edit(&repo.root.join(name));
        run.assert_silent();
        assert_eq!(run.stderr, "", "{name}");
    }
    agent.bash("echo out > build/log.txt || (mkdir build && echo out > build/log.txt)");
    agent.bash("echo kept > kept.txt");
    // A file the agent wrote, replaced by a symlink outside any hook: kept as a link.
    agent.write("link.rs", b"pub fn was_a_file() {}\n");
    sh(&repo.root, "rm link.rs && ln -s src/lib.rs link.rs");
    agent.pre_bash("./build.sh").assert_silent();
    let listing = recover_json(&repo.root, &[]);
    let skipped: Vec<String> = listing["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["path"], s["reason"]))
        .collect();
    let text = skipped.join("\n");
    assert!(text.contains("\"pipe\" \"a FIFO (never read)\""), "{text}");
    assert!(text.contains("\"big.bin\" \"larger than 8 MiB\""), "{text}");
    assert!(text.contains("build/log.txt"), "{text}");
    let paths = listed_paths(&listing);
    assert!(
        paths.contains(&"link.rs") && paths.contains(&"kept.txt"),
        "{paths:?}"
    );
    std::fs::remove_file(repo.root.join("link.rs")).unwrap();
    let (code, out, err) = recover(&repo.root, &["link.rs", "--at", "0s"]);
    assert_eq!(code, 0, "{out}{err}");
    let target = std::fs::read_link(repo.root.join("link.rs")).unwrap();
    assert_eq!(target, std::path::PathBuf::from("src/lib.rs"));
    let (_, text, _) = recover(&repo.root, &[]);
    assert!(
        text.contains("not kept:") && text.contains("a FIFO"),
        "{text}"
    );
}

#[test]
fn a_failed_snapshot_never_fails_the_hook_and_doctor_says_so() {
    let repo = TestRepo::new();
    // A file where the snapshot refs' folder must go: no ref can be written.
    std::fs::create_dir_all(repo.root.join(".git/refs/dibs")).unwrap();
    std::fs::write(repo.root.join(".git/refs/dibs/snapshots"), "in the way").unwrap();
    let agent = Agent::new("unlucky", &repo.root);
    let file = repo.root.join("src/lib.rs");
    std::fs::write(&file, "pub fn changed() {}\n").unwrap();
    let run = agent.post_edit(&file);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("could not snapshot"), "{}", run.stderr);
    let doctor = dibs(&repo.root, &["doctor"]);
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("a snapshot failed"), "{text}");
}

#[test]
fn a_commit_made_through_bash_is_retained_through_worktree_and_branch_removal() {
    let repo = TestRepo::new();
    let wt = repo.worktree("short-lived");
    let agent = Agent::new("committer", &wt);
    std::fs::write(wt.join("made.txt"), "made in a shell\n").unwrap();
    agent.bash("git add made.txt && git commit -qm 'made in a shell'");
    let commit = git_out(&wt, &["rev-parse", "HEAD"]);
    let refs = git_out(&repo.root, &["for-each-ref", "refs/dibs/retention/"]);
    assert!(refs.contains(&commit), "{refs}");
    sh(
        &repo.root,
        &format!(
            "git worktree remove --force --force {} && git branch -D short-lived",
            wt.display()
        ),
    );
    collect_garbage(&repo.root);
    assert_eq!(git_out(&repo.root, &["cat-file", "-t", &commit]), "commit");
    // An everyday command that made no commit opens nothing and adds no ref.
    let main = Agent::new("main", &repo.root);
    main.bash("ls");
    assert_eq!(
        git_out(&repo.root, &["for-each-ref", "refs/dibs/retention/"]),
        refs
    );
}

#[test]
fn sync_never_pushes_snapshot_refs() {
    let repo = TestRepo::new();
    let agent = Agent::new("secretive", &repo.root);
    agent.write(".env", b"TOKEN=secret\n");
    assert!(snapshot_refs(&repo.root).contains("secretive"));
    let out = dibs(&repo.root, &["sync"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let remote = git_out(&repo.remote, &["for-each-ref", "--format=%(refname)"]);
    assert!(!remote.contains("snapshots"), "{remote}");
    assert!(
        remote.contains("refs/dibs/sessions/"),
        "sync did publish: {remote}"
    );
}

#[test]
fn cursor_gemini_and_codex_edits_are_snapshotted_too() {
    use serde_json::json;
    let repo = TestRepo::new();
    let root = &repo.root;
    let write = |rel: &str, text: &str| {
        repo.write(root, rel, text);
        root.join(rel)
    };
    let cursor = write("src/cursor.rs", "cursor wrote this\n");
    let event = json!({
        "conversation_id": "c2e7a9f0-cursor", "generation_id": "g1",
        "hook_event_name": "afterFileEdit", "cursor_version": "2.3.8",
        "workspace_roots": [root], "file_path": cursor, "edits": [],
    });
    hook(root, &event).assert_silent();
    let gemini = write("src/gemini.rs", "gemini wrote this\n");
    let event = json!({
        "session_id": "gemini-1", "cwd": root, "hook_event_name": "AfterTool",
        "timestamp": "2026-12-01T09:00:00Z", "transcript_path": "/tmp/g.json",
        "tool_name": "write_file", "tool_input": {"file_path": gemini, "content": "x"},
        "tool_response": {"llmContent": "ok", "returnDisplay": "ok"},
    });
    assert_eq!(hook(root, &event).code, 0);
    let codex = write("src/lib.rs", "pub fn b() {}\n");
    let event = json!({
        "session_id": "codex-1", "cwd": root, "hook_event_name": "PostToolUse",
        "model": "gpt-5-codex", "transcript_path": null, "turn_id": "t1",
        "tool_name": "apply_patch", "tool_use_id": "u1",
        "tool_input": {"command":
            "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn a() {}\n+pub fn b() {}\n*** End Patch\n"},
        "tool_response": "Success",
    });
    assert_eq!(hook(root, &event).code, 0);
    let refs = snapshot_refs(root);
    for id in ["c2e7a9f0-cursor", "gemini-1", "codex-1"] {
        assert!(refs.contains(id), "{id}: {refs}");
    }
    sh(
        root,
        "rm -f src/cursor.rs src/gemini.rs && git checkout -- src/lib.rs",
    );
    collect_garbage(root);
    assert_recovers(
        root,
        &["src", "--force"],
        &[
            (cursor, b"cursor wrote this\n".to_vec()),
            (gemini, b"gemini wrote this\n".to_vec()),
            (codex, b"pub fn b() {}\n".to_vec()),
        ],
    );
}

#[test]
fn refusals_point_at_recover_and_the_audit_records_the_snapshot() {
    let repo = TestRepo::new();
    let wt = repo.worktree("wt-risky");
    let agent = Agent::new("risky-agent", &wt);
    agent.write("wip.rs", b"pub fn wip() {}\n");
    let snapshot = git_out(
        &repo.root,
        &["rev-parse", "refs/dibs/snapshots/risky-agent"],
    );
    let main = Agent::new("main-agent", &repo.root);
    let run = main.pre_bash(&format!("git worktree remove --force {}", wt.display()));
    let (decision, reason, _) = hook_decision(&run).expect("the guard answers");
    assert_eq!(decision, "deny", "{reason}");
    assert!(
        reason.contains(&format!(
            "recoverable: git dibs recover --worktree {}",
            wt.display()
        )),
        "{reason}"
    );
    let audit = std::fs::read_to_string(repo.store_dir().join("audit.log")).unwrap();
    let last: serde_json::Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
    assert_eq!(last["snapshots"][0]["session"], "risky-agent", "{last}");
    assert_eq!(last["snapshots"][0]["commit"], snapshot.as_str(), "{last}");
    // Everyday commands in a checkout without snapshots at risk say nothing more.
    main.pre_bash("git status").assert_silent();
}

#[test]
fn snapshots_expire_when_the_store_prunes() {
    let repo = TestRepo::new();
    // The least expiry git-dibs takes, however short the setting and however it arrives (here
    // through a config include, as an agent might slip it in): a day.
    let evil = repo.root.parent().unwrap().join("evil.cfg");
    std::fs::write(&evil, "[dibs]\n\tsnapshotExpiry = 1s\n").unwrap();
    git(
        &repo.root,
        &["config", "include.path", evil.to_str().unwrap()],
    );
    let agent = Agent::new("short-memory", &repo.root);
    agent.write("src/lib.rs", b"pub fn soon_gone() {}\n");
    assert!(snapshot_refs(&repo.root).contains("short-memory"));
    // Pruning runs at most every ten minutes: make it due, then any recorded call prunes. An
    // hour on (the test clock of debug builds) the snapshot is kept; two days on it is not.
    let prune_at = |secs: u64| {
        let _ = std::fs::remove_file(repo.store_dir().join("pruned"));
        let at = (now_secs() + secs).to_string();
        let event = repo.pre_edit("someone", "README.md");
        hook_raw(
            &repo.root,
            format!("{event}\n").as_bytes(),
            &[("DIBS_NOW", &at)],
        )
        .assert_silent();
    };
    prune_at(60 * 60);
    assert!(
        snapshot_refs(&repo.root).contains("short-memory"),
        "a day at least"
    );
    let doctor = dibs(&repo.root, &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(
        said.contains("dibs.snapshotExpiry is set to 1s, less than git-dibs takes: it uses 1day"),
        "{said}"
    );
    prune_at(2 * 24 * 60 * 60);
    assert_eq!(snapshot_refs(&repo.root), "", "expired");
    let (code, out, _) = recover(&repo.root, &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn an_edit_of_a_file_of_several_mebibytes_is_snapshotted_though_its_event_is_large() {
    let repo = TestRepo::new();
    // Claude Code's PostToolUse of an Edit carries the whole old file besides the new one: for
    // a 5 MiB JSON file, more than 6 MB of hook input (it was cut off at 4 MiB).
    let old = "{\"k\": \"v\"}\n".repeat(5 * 1024 * 1024 / 13);
    let new = old.replacen("\"v\"", "\"edited\"", 1);
    let file = repo.root.join("big.json");
    std::fs::write(&file, &new).unwrap();
    let mut event = edit_event("PostToolUse", "Edit", "big-editor", &repo.root, &file);
    event["tool_input"]["old_string"] = "\"v\"".into();
    event["tool_input"]["new_string"] = "\"edited\"".into();
    event["tool_response"] = serde_json::json!({"filePath": file, "originalFile": old});
    let bytes = format!("{event}\n");
    assert!(bytes.len() > 6 << 20, "{}", bytes.len());
    let run = hook_raw(&repo.root, bytes.as_bytes(), &[]);
    run.assert_silent();
    std::fs::write(&file, &old).unwrap();
    let (code, out, err) = recover(&repo.root, &["big.json", "--force"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        std::fs::read(&file).unwrap() == new.as_bytes(),
        "big.json not restored"
    );
}

#[test]
fn a_file_brought_back_older_than_a_version_left_out_says_so() {
    let repo = TestRepo::new();
    let agent = Agent::new("grew", &repo.root);
    let data = agent.write("data.bin", b"small and kept\n");
    // It grows past the size cap through a shell command, then is deleted.
    agent.bash("head -c 9000000 /dev/zero >> data.bin");
    std::fs::remove_file(&data).unwrap();
    let (code, out, err) = recover(&repo.root, &["data.bin"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[(data.clone(), b"small and kept\n".to_vec())]);
    insta::assert_snapshot!(
        "recover_newer_not_kept",
        common::snap::stable(&repo, &common::snap::mask_times(&out))
    );
    let json = recover_json(&repo.root, &["data.bin"]);
    assert!(json.to_string().contains("\"newer_not_kept\""), "{json}");
    // A file with no later version left out gets no such line.
    let other = agent.write("other.txt", b"x\n");
    std::fs::remove_file(&other).unwrap();
    let (code, out, _) = recover(&repo.root, &["other.txt"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("newer version"), "{out}");
}

#[test]
fn a_file_replaced_by_a_link_is_named_by_its_path_and_a_huge_one_is_not_read() {
    let repo = TestRepo::new();
    let agent = Agent::new("linked-away", &repo.root);
    let file = agent.write("f.txt", b"precious work\n");
    // Replaced by a link leading out of the worktree: `recover f.txt` is about f.txt, and
    // the snapshot goes beside the link (nothing is written through it).
    let outside = repo.root.parent().unwrap().join("outside.txt");
    std::fs::write(&outside, b"outside\n").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let (code, out, err) = recover(&repo.root, &["f.txt"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("f.txt differs now") && out.contains(".recovered-"),
        "{out}"
    );
    assert_eq!(std::fs::read(&outside).unwrap(), b"outside\n");
    let beside = std::fs::read_dir(&repo.root)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("f.txt.recovered-")
        })
        .expect("written beside");
    assert_eq!(std::fs::read(beside.path()).unwrap(), b"precious work\n");

    // A sparse file of 64 GiB in its place: listed as differing and brought back beside it,
    // without reading it (a read would take minutes).
    let big = agent.write("big.txt", b"small\n");
    std::fs::remove_file(&big).unwrap();
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(64 << 30).unwrap();
    let started = std::time::Instant::now();
    let listing = recover_json(&repo.root, &[]);
    assert_eq!(
        listed(&listing, "linked-away", "big.txt")["working_copy"],
        "differs"
    );
    let (code, out, err) = recover(&repo.root, &["big.txt"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("big.txt differs now"), "{out}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "it read the file"
    );
}

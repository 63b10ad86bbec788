//! A job a shell command leaves running (Claude Code's `run_in_background`, Gemini CLI's
//! `is_background`, `cmd &`, a script that starts a server) writes after its PostToolUse ran.
//! Its files still reach the object store before any later tool call that may destroy them: the
//! session's own later calls scan whatever they run, and any session's shell command that may
//! write is preceded by a scan of the job's worktree; the mark ends once the job's processes
//! are gone.

mod common;
mod recover_support;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use recover_support::*;
use serde_json::json;

/// A Bash call of `session` whose command starts a job: PreToolUse, the command run for real
/// (it returns at once), then PostToolUse with the run time and, when `flag`, Claude Code's
/// `run_in_background` and `backgroundTaskId`.
fn start_job(session: &str, cwd: &Path, command: &str, flag: bool) {
    let pre = claude_event(
        "PreToolUse",
        session,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command, "run_in_background": flag}}),
    );
    assert_eq!(hook(cwd, &pre).code, 0);
    let began = Instant::now();
    sh(cwd, command);
    let took = began.elapsed().as_millis() as u64;
    let mut response = json!({"stdout": "", "stderr": "", "interrupted": false});
    if flag {
        response["backgroundTaskId"] = json!("bash_1");
    }
    let post = claude_event(
        "PostToolUse",
        session,
        cwd,
        json!({"tool_name": "Bash", "tool_input": {"command": command, "run_in_background": flag},
               "tool_response": response, "duration_ms": took}),
    );
    let run = hook(cwd, &post);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// Wait until `path` holds `text` (the job wrote it).
fn wait_for(path: &Path, text: &str) {
    let until = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        assert!(Instant::now() < until, "{} never written", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn marks(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.store_dir().join("background")).map_or(0, |d| d.count())
}

#[test]
fn a_background_jobs_file_is_kept_and_held_by_the_sessions_next_read_only_call() {
    let repo = TestRepo::new();
    let s1 = Agent::new("bg-owner", &repo.root);
    s1.write("notes.md", b"plan\n");
    start_job(
        &s1.id,
        &repo.root,
        "(sleep 1; echo 'generated report' > report.txt) >/dev/null 2>&1",
        true,
    );
    // Claude Code ran it in the background: here the test's own `&` does that.
    sh(
        &repo.root,
        "(sleep 1; echo 'generated report' > report.txt) >/dev/null 2>&1 &",
    );
    let report = repo.root.join("report.txt");
    wait_for(&report, "generated report\n");
    // The session only reads from now on.
    s1.bash("git log --oneline -1");
    s1.bash("ls");
    // A peer's clean is refused: the session holds the job's file.
    let peer = Agent::new("bg-peer", &repo.root);
    let run = peer.pre_bash("git clean -fd");
    let (decision, reason, _) = hook_decision(&run).expect("the guard answers");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("report.txt"), "{reason}");
    // Run anyway, then gc: recover brings it back.
    peer.bash("git clean -fdq");
    collect_garbage(&repo.root);
    assert!(!report.exists());
    assert_recovers(
        &repo.root,
        &["report.txt"],
        &[(report, b"generated report\n".to_vec())],
    );
}

#[test]
fn a_job_started_by_a_script_is_found_by_its_process_and_swept_before_a_peers_command() {
    let repo = TestRepo::new();
    let s1 = Agent::new("script-owner", &repo.root);
    s1.write("notes.md", b"plan\n");
    // The line says nothing of a background: the script starts the job itself.
    std::fs::write(
        repo.root.join("start.sh"),
        "#!/bin/sh\n(sleep 2; echo 'served' > out.log; sleep 1) >/dev/null 2>&1 &\n",
    )
    .unwrap();
    sh(
        &repo.root,
        "chmod +x start.sh && git add start.sh && git commit -qm start",
    );
    start_job(&s1.id, &repo.root, "./start.sh", false);
    assert_eq!(marks(&repo), 1, "the job is marked by its process");
    let out = repo.root.join("out.log");
    wait_for(&out, "served\n");
    // s1 makes no further call. A peer's command that may write is preceded by a scan of the
    // job's worktree into s1's snapshot, before it runs.
    let peer = Agent::new("script-peer", &repo.root);
    peer.bash("rm -f out.log");
    collect_garbage(&repo.root);
    let (code, text, err) = recover(&repo.root, &["out.log"]);
    assert_eq!(code, 0, "{text}{err}");
    assert!(
        text.contains("script-o"),
        "kept for the job's session: {text}"
    );
    assert_files(&[(out, b"served\n".to_vec())]);
    // Once the job's process is gone, the next scan ends the mark.
    let until = Instant::now() + Duration::from_secs(20);
    while marks(&repo) > 0 {
        assert!(Instant::now() < until, "the mark outlived its job");
        std::thread::sleep(Duration::from_millis(200));
        peer.bash("touch y.tmp");
    }
}

#[test]
fn a_peers_read_only_line_costs_no_scan_and_no_job_means_no_mark() {
    let repo = TestRepo::new();
    let s1 = Agent::new("plain", &repo.root);
    s1.write("notes.md", b"plan\n");
    // A command that leaves nothing running: no mark, though the host runs other helpers in
    // the worktree meanwhile (its own children, not the command's).
    let mut helper = std::process::Command::new("sleep")
        .arg("30")
        .current_dir(&repo.root)
        .spawn()
        .unwrap();
    start_job(&s1.id, &repo.root, "echo done > done.txt", false);
    helper.kill().unwrap();
    helper.wait().unwrap();
    assert_eq!(marks(&repo), 0);
    // With a job marked, a peer's `ls` scans nothing: a file the job writes stays unsnapshotted
    // until a command that may write.
    start_job(
        &s1.id,
        &repo.root,
        "(sleep 1; echo late > late.txt; sleep 2) >/dev/null 2>&1 &",
        false,
    );
    assert_eq!(marks(&repo), 1);
    let late = repo.root.join("late.txt");
    wait_for(&late, "late\n");
    let peer = Agent::new("reader", &repo.root);
    peer.bash("ls");
    let listing = recover_json(&repo.root, &[]);
    let has_late = |l: &serde_json::Value| {
        l["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "late.txt")
    };
    assert!(!has_late(&listing), "{listing}");
    peer.bash("touch x.tmp");
    assert!(has_late(&recover_json(&repo.root, &[])));
}

/// A `run_shell_command` call of Gemini CLI session `session`: BeforeTool, then AfterTool at
/// once (Gemini gives no run time), `is_background` as given.
fn gemini_shell(session: &str, cwd: &Path, command: &str, is_background: bool) {
    for event in ["BeforeTool", "AfterTool"] {
        let input = json!({"session_id": session, "transcript_path": "", "cwd": cwd,
            "hook_event_name": event, "timestamp": "2026-12-01T22:00:00Z",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command, "is_background": is_background},
            "tool_response": {"llmContent": "started"}});
        let run = hook_host(cwd, "gemini", &input, &[]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
}

#[test]
fn a_gemini_is_background_job_is_marked_and_its_later_output_kept() {
    let repo = TestRepo::new();
    // Without the flag (no `&`, no run time) nothing says a job runs: no mark.
    gemini_shell("gm-plain", &repo.root, "python3 tool.py", false);
    assert_eq!(marks(&repo), 0);
    // With it, the host starts the command in the background and AfterTool comes at once;
    // the job writes afterwards.
    let job = "sleep 1; echo 'gemini job output' > out.txt; sleep 5";
    gemini_shell("gm-job", &repo.root, job, true);
    assert_eq!(marks(&repo), 1, "is_background marks the job");
    sh(&repo.root, &format!("({job}) >/dev/null 2>&1 &"));
    let out = repo.root.join("out.txt");
    wait_for(&out, "gemini job output\n");
    // A peer's clean is refused: the job's session holds its file.
    let peer = Agent::new("gm-peer", &repo.root);
    let run = peer.pre_bash("git clean -fdq");
    let (decision, reason, _) = hook_decision(&run).expect("the guard answers");
    assert_eq!(decision, "deny", "{reason}");
    assert!(reason.contains("out.txt"), "{reason}");
    // Run deliberately anyway, then gc: the job's file comes back.
    peer.bash("WT_GUARD_BYPASS=1 git clean -fdq");
    collect_garbage(&repo.root);
    assert!(!out.exists());
    assert_recovers(
        &repo.root,
        &["out.txt"],
        &[(out, b"gemini job output\n".to_vec())],
    );
}

/// A committed script `start.sh` whose `body` starts a job (the line that runs it says nothing
/// of a background).
fn script(repo: &TestRepo, body: &str) {
    std::fs::write(repo.root.join("start.sh"), format!("#!/bin/sh\n{body}\n")).unwrap();
    sh(
        &repo.root,
        "chmod +x start.sh && git add start.sh && git commit -qm start",
    );
}

#[test]
fn a_job_that_leaves_the_worktree_is_still_found_and_what_it_writes_later_kept() {
    let repo = TestRepo::new();
    let abs = repo.root.display().to_string();
    let name = repo
        .root
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let s1 = Agent::new("escaper", &repo.root);
    let kept = s1.write("src/kept.rs", b"pub fn kept() {}\n");
    // Three ways out of the worktree before writing into it: `setsid sh -c 'cd /; ...'`,
    // `nohup sh -c 'cd /tmp && ... python3'`, and a double fork that climbs out with `cd ..`
    // (a forked subshell: no argv of its own, only the environment it was started with).
    let jobs = [
        (
            format!(
                "setsid sh -c 'cd /; sleep 1; echo served > {abs}/out.log; sleep 3; rm -rf {abs}/src' \
                 >/dev/null 2>&1 &"
            ),
            "out.log",
            "served\n",
        ),
        (
            format!(
                "nohup sh -c 'cd /tmp && sleep 1 && python3 -c \"open(\\\"{abs}/py.txt\\\",\\\"w\\\").write(\\\"py\\\\n\\\")\" \
                 && sleep 3' >/dev/null 2>&1 &"
            ),
            "py.txt",
            "py\n",
        ),
        (
            format!(
                "( ( cd ..; sleep 1; echo twice > {name}/twice.txt; sleep 3 ) >/dev/null 2>&1 & )"
            ),
            "twice.txt",
            "twice\n",
        ),
    ];
    for (i, (body, file, text)) in jobs.iter().enumerate() {
        script(&repo, body);
        start_job(&s1.id, &repo.root, "./start.sh", false);
        assert_eq!(marks(&repo), 1, "job {i} is marked by its process");
        let path = repo.root.join(file);
        wait_for(&path, text);
        // s1 makes no further call; a peer removes the job's new file.
        let peer = Agent::new("escape-peer", &repo.root);
        peer.bash(&format!("rm -f {file}"));
        collect_garbage(&repo.root);
        assert_recovers(&repo.root, &[file], &[(path, text.as_bytes().to_vec())]);
    }
    // The first job removed src/ meanwhile: the session's edit made before is still there.
    let until = Instant::now() + Duration::from_secs(20);
    while kept.exists() {
        assert!(Instant::now() < until, "the job never removed src/");
        std::thread::sleep(Duration::from_millis(100));
    }
    collect_garbage(&repo.root);
    assert_recovers(
        &repo.root,
        &["src/kept.rs"],
        &[(kept, b"pub fn kept() {}\n".to_vec())],
    );
}

#[test]
fn a_process_of_another_repository_started_meanwhile_is_no_job_of_this_one() {
    let repo = TestRepo::new();
    let other = TestRepo::new();
    let s1 = Agent::new("not-mine", &repo.root);
    s1.write("notes.md", b"plan\n");
    // Another repository's job, started from there just before this call and left running
    // outside it (as a parallel session, or a parallel test, does).
    sh(
        &other.root,
        "setsid sh -c 'cd /; sleep 4' >/dev/null 2>&1 & ( ( cd /; sleep 4 ) >/dev/null 2>&1 & )",
    );
    start_job(&s1.id, &repo.root, "echo done > done.txt", false);
    assert_eq!(marks(&repo), 0);
}

//! Work no hook saw written is not lost for good either: files a shell command changed by a
//! program whose writes the command line does not show (an interpreter, a script, a renamed
//! tool), and commits on branches no worktree has checked out (plumbing, `git branch -f`),
//! destroyed by another unreadable program, then `reflog expire` and `gc --prune=now`, come
//! back byte for byte.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn files_an_interpreter_wrote_come_back_after_an_interpreter_removed_them() {
    let repo = TestRepo::new();
    let agent = Agent::new("py-writer", &repo.root);
    let made = "import os\nos.makedirs('gen/deep')\n\
                open('gen/deep/out.txt','w').write('made by python\\n')\n\
                open('README.md','w').write('# rewritten by python\\n')\n\
                open('gen/blob.bin','wb').write(bytes(range(256))*40)\n";
    std::fs::write(repo.root.join("make.py"), made).unwrap();
    // A script run by a name the guard cannot read, from a file: nothing on the command line
    // says what it writes.
    let out = agent.bash("python3 make.py && rm make.py");
    assert!(out.status.success(), "{out:?}");
    let expect = vec![
        (
            repo.root.join("gen/deep/out.txt"),
            b"made by python\n".to_vec(),
        ),
        (
            repo.root.join("README.md"),
            b"# rewritten by python\n".to_vec(),
        ),
        (
            repo.root.join("gen/blob.bin"),
            (0..=255u8).collect::<Vec<u8>>().repeat(40),
        ),
    ];

    let other = Agent::new("py-remover", &repo.root);
    other.bash(
        "python3 -c \"import shutil,subprocess; shutil.rmtree('gen'); \
         subprocess.run(['git','checkout','--','README.md'])\"",
    );
    collect_garbage(&repo.root);
    assert!(!repo.root.join("gen").exists());

    let listing = recover_json(&repo.root, &[]);
    let files = listing["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .any(|f| f["path"] == "gen/deep/out.txt" && f["session"] == "py-writer"),
        "{listing}"
    );
    let (code, out, err) = recover(&repo.root, &["gen"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_recovers(&repo.root, &["README.md", "--force"], &expect);
}

#[test]
fn a_peers_file_and_ignored_output_are_not_taken_into_another_sessions_snapshot() {
    let repo = TestRepo::new();
    repo.write(&repo.root, ".gitignore", "target/\n");
    sh(&repo.root, "git add .gitignore && git commit -qm ignore");
    let peer = Agent::new("peer-editor", &repo.root);
    peer.write("src/peer.rs", b"// the peer's own work\n");
    let builder = Agent::new("builder", &repo.root);
    // Its build writes ignored output and, through a program, touches the peer's file.
    builder.bash(
        "mkdir -p target && echo artefact > target/out.o && \
         python3 -c \"import os; os.utime('src/peer.rs')\"",
    );
    builder.bash("echo mine > mine.txt");

    let listing = recover_json(&repo.root, &[]);
    let files = listing["files"].as_array().unwrap();
    let of = |session: &str| -> Vec<String> {
        files
            .iter()
            .filter(|f| f["session"] == session)
            .map(|f| f["path"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(of("builder"), ["mine.txt"], "{listing}");
    assert_eq!(of("peer-editor"), ["src/peer.rs"], "{listing}");
}

#[test]
fn everyday_commands_after_work_stay_silent_and_make_no_snapshot_of_unchanged_files() {
    let repo = TestRepo::new();
    let agent = Agent::new("steady", &repo.root);
    agent.write("notes.md", b"plan\n");
    let refs = snapshot_refs(&repo.root);
    for cmd in [
        "ls -la",
        "git status",
        "cat notes.md",
        "git log --oneline -1",
    ] {
        agent.bash_silent(cmd);
    }
    assert_eq!(snapshot_refs(&repo.root), refs);
}

#[test]
fn a_commit_made_by_plumbing_on_a_branch_nobody_has_checked_out_survives_its_deletion() {
    let repo = TestRepo::new();
    let agent = Agent::new("plumber", &repo.root);
    agent.bash("echo warm-up");
    let out = agent.bash(
        "echo 'only copy' > side.txt && B=$(git hash-object -w side.txt) && \
         T=$(printf '100644 blob %s\\tside.txt\\n' \"$B\" | git mktree) && \
         C=$(echo 'side work' | git commit-tree \"$T\" -p HEAD) && \
         git update-ref refs/heads/side \"$C\" && rm side.txt",
    );
    assert!(out.status.success(), "{out:?}");
    let side = git_out(&repo.root, &["rev-parse", "side"]);
    // Moved by `branch -f` too: its new tip is kept as well.
    let out = agent.bash(
        "C=$(git commit-tree side^{tree} -p side -m 'more side work') && git branch -f side \"$C\"",
    );
    assert!(out.status.success(), "{out:?}");
    let moved = git_out(&repo.root, &["rev-parse", "side"]);
    assert_ne!(moved, side);

    // Deleted behind the guard's back, reflogs expired, garbage collected.
    sh(
        &repo.root,
        "python3 -c \"import os; os.remove('.git/refs/heads/side')\"",
    );
    collect_garbage(&repo.root);
    for commit in [&side, &moved] {
        let kind = git_out(&repo.root, &["cat-file", "-t", commit]);
        assert_eq!(kind, "commit", "{commit} was lost");
    }
    let kept = git_out(
        &repo.root,
        &[
            "for-each-ref",
            "--format=%(objectname)",
            "refs/dibs/retention/",
        ],
    );
    assert!(kept.contains(&moved), "{kept}");
    let file = git_out(&repo.root, &["show", &format!("{side}:side.txt")]);
    assert_eq!(file, "only copy");
}

#[test]
fn what_a_program_wrote_into_another_worktree_it_named_comes_back() {
    let repo = TestRepo::new();
    sh(&repo.root, "git worktree add -q -b lane/gen ../gen-lane");
    let lane = repo.root.parent().unwrap().join("gen-lane");
    let agent = Agent::new("cross-writer", &repo.root);
    let out = agent.bash(
        "python3 -c \"import sys; open(sys.argv[1] + '/draft.md','w').write('draft\\n')\" ../gen-lane",
    );
    assert!(out.status.success(), "{out:?}");
    assert!(lane.join("draft.md").exists());
    agent.bash("python3 -c \"import shutil; shutil.rmtree('../gen-lane')\"");
    sh(&repo.root, "git worktree prune && git branch -D lane/gen");
    collect_garbage(&repo.root);
    assert_recovers(
        &repo.root,
        &["--worktree", "../gen-lane"],
        &[(lane.join("draft.md"), b"draft\n".to_vec())],
    );
}

/// The PostToolUse of a Bash command that ran for `ms` milliseconds, as Claude Code sends it.
fn post_bash_took(session: &str, cwd: &std::path::Path, command: &str, ms: u64) -> HookRun {
    let event = claude_event(
        "PostToolUse",
        session,
        cwd,
        serde_json::json!({
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
            "duration_ms": ms,
        }),
    );
    hook_raw(cwd, format!("{event}\n").as_bytes(), &[])
}

#[test]
fn a_file_a_program_made_while_the_host_timed_it_is_the_sessions_and_guarded_from_peers() {
    let repo = TestRepo::new();
    let maker = Agent::new("py-maker", &repo.root);
    let peer = Agent::new("py-peer", &repo.root);
    let cmd = "python3 -c \"open('gen.txt','w').write('generated\\n')\"";
    assert_eq!(maker.pre_bash(cmd).code, 0);
    sh(&repo.root, cmd);
    post_bash_took("py-maker", &repo.root, cmd, 900).assert_silent();

    let run = peer.pre_bash("rm gen.txt");
    let (decision, reason, _) = hook_decision(&run).expect("the guard speaks");
    assert_eq!(decision, "deny", "{reason}");
    assert!(
        reason.contains("py-maker") && reason.contains("gen.txt"),
        "{reason}"
    );
    // Everyday work of the maker itself stays silent.
    maker.pre_bash("cat gen.txt").assert_silent();
}

#[test]
fn what_a_command_longer_than_ten_minutes_wrote_at_its_start_is_kept() {
    let repo = TestRepo::new();
    let cmd = "python3 gen_schema.py && sleep 700";
    // The generator wrote its file in the command's first second, twelve minutes ago.
    std::fs::write(repo.root.join("schema.sql"), b"create table t(id int);\n").unwrap();
    sh(&repo.root, "touch -d '12 minutes ago' schema.sql");
    post_bash_took("long-runner", &repo.root, cmd, 13 * 60 * 1000).assert_silent();
    sh(&repo.root, "rm schema.sql");
    let (code, out, err) = recover(&repo.root, &["schema.sql"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[(
        repo.root.join("schema.sql"),
        b"create table t(id int);\n".to_vec(),
    )]);
}

#[test]
fn without_a_run_time_an_unseen_file_is_kept_but_not_claimed() {
    let repo = TestRepo::new();
    let maker = Agent::new("py-untimed", &repo.root);
    maker.bash("python3 -c \"open('gen.txt','w').write('generated\\n')\"");
    let peer = Agent::new("py-other", &repo.root);
    // Not the session's for sure (a person may have made it meanwhile): no refusal, but the
    // content is in the maker's snapshot.
    peer.pre_bash("rm gen.txt").assert_silent();
    sh(&repo.root, "rm gen.txt");
    let (code, out, err) = recover(&repo.root, &["gen.txt"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        std::fs::read(repo.root.join("gen.txt")).unwrap(),
        b"generated\n"
    );
}

#[test]
fn a_command_that_makes_many_large_files_is_kept_within_a_budget_per_call() {
    let repo = TestRepo::new();
    let agent = Agent::new("bulk-maker", &repo.root);
    // 20 files of 4 MiB: more than one call reads (64 MiB); the next call takes the rest.
    let out = agent.bash(
        "python3 -c \"import os; os.makedirs('bulk'); \
         [open('bulk/f%02d.bin' % i,'wb').write(bytes([i])*(4<<20)) for i in range(20)]\"",
    );
    assert!(out.status.success(), "{out:?}");
    let kept = |root: &std::path::Path| {
        let listing = recover_json(root, &[]);
        listing["files"].as_array().unwrap().len()
    };
    let first = kept(&repo.root);
    assert!(first > 0 && first < 20, "{first} files in the first call");
    // The next calls only read: the scan that stopped at its budget goes on all the same.
    for _ in 0..2 {
        agent.bash("ls");
    }
    assert_eq!(kept(&repo.root), 20);
}

#[test]
fn what_a_failing_command_wrote_is_kept_from_its_post_tool_use_failure() {
    let repo = TestRepo::new();
    let cmd = "python3 -c \"open('schema.sql','w').write('create table t(id int);\\n')\" && false";
    let agent = Agent::new("failing-gen", &repo.root);
    assert_eq!(agent.pre_bash(cmd).code, 0);
    let out = std::process::Command::new("sh")
        .args(["-c", cmd])
        .current_dir(&repo.root)
        .output()
        .unwrap();
    assert!(!out.status.success());
    // Claude Code reports a command that exited non-zero with PostToolUseFailure.
    let event = claude_event(
        "PostToolUseFailure",
        "failing-gen",
        &repo.root,
        serde_json::json!({
            "tool_name": "Bash",
            "tool_input": {"command": cmd},
            "error": "Exit code 1",
            "duration_ms": 300,
        }),
    );
    hook_raw(&repo.root, format!("{event}\n").as_bytes(), &[]).assert_silent();
    let peer = Agent::new("cleaner", &repo.root);
    let run = peer.pre_bash("git clean -fd");
    assert_eq!(hook_decision(&run).map(|d| d.0).as_deref(), Some("deny"));
    sh(&repo.root, "git clean -fdq");
    collect_garbage(&repo.root);
    let (code, out, err) = recover(&repo.root, &["schema.sql"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[(
        repo.root.join("schema.sql"),
        b"create table t(id int);\n".to_vec(),
    )]);
}

#[test]
fn a_commit_made_and_discarded_within_one_command_is_kept_from_the_reflog() {
    let repo = TestRepo::new();
    // Before any hook ran here, long ago: a commit made and moved away from. That is not a
    // command's of this session, and the first look must not keep it.
    let long_ago = "@1000000000 +0000";
    let old = std::process::Command::new("git")
        .current_dir(&repo.root)
        .env("GIT_COMMITTER_DATE", long_ago)
        .args(["commit", "-q", "--allow-empty", "-m", "old and dropped"])
        .status()
        .unwrap();
    assert!(old.success());
    let dropped = git_out(&repo.root, &["rev-parse", "HEAD"]);
    git(&repo.root, &["reset", "-q", "--hard", "HEAD~1"]);
    let agent = Agent::new("reset-back", &repo.root);
    // The very first shell command in the clone: nothing measured the reflogs before it, and
    // what it appended is still read.
    let out = agent.bash(
        "echo important > imp.txt && git add imp.txt && git commit -qm imp && \
         git rev-parse HEAD > ../discarded && git reset -q --hard HEAD~1",
    );
    assert!(out.status.success(), "{out:?}");
    let commit = std::fs::read_to_string(repo.root.parent().unwrap().join("discarded")).unwrap();
    let commit = commit.trim();
    // A branch set twice in one command: the first value is kept too.
    let out = agent.bash(
        "C=$(git commit-tree HEAD^{tree} -p HEAD -m 'first value') && \
         git update-ref refs/heads/twice \"$C\" && echo \"$C\" > ../first && \
         git update-ref refs/heads/twice HEAD",
    );
    assert!(out.status.success(), "{out:?}");
    let first = std::fs::read_to_string(repo.root.parent().unwrap().join("first")).unwrap();
    collect_garbage(&repo.root);
    for c in [commit, first.trim()] {
        assert_eq!(
            git_out(&repo.root, &["cat-file", "-t", c]),
            "commit",
            "{c} lost"
        );
    }
    assert_eq!(
        git_out(&repo.root, &["show", &format!("{commit}:imp.txt")]),
        "important"
    );
    let kept = git_out(
        &repo.root,
        &["for-each-ref", "--format=%(objectname)", "refs/dibs/"],
    );
    assert!(!kept.contains(&dropped), "older history was kept: {kept}");
}

#[test]
fn a_script_that_writes_into_a_worktree_it_does_not_name_is_kept_too() {
    let repo = TestRepo::new();
    sh(
        &repo.root,
        "git worktree add -q -b lane/hidden ../hidden-lane",
    );
    let lane = repo.root.parent().unwrap().join("hidden-lane");
    std::fs::write(
        repo.root.join("gen.py"),
        "open('../hidden-lane/secret.md','w').write('only copy\\n')\n",
    )
    .unwrap();
    let agent = Agent::new("hidden-writer", &repo.root);
    agent.bash("python3 gen.py && rm gen.py");
    assert!(lane.join("secret.md").exists());
    sh(
        &repo.root,
        "git worktree remove --force ../hidden-lane && git branch -D lane/hidden",
    );
    collect_garbage(&repo.root);
    assert_recovers(
        &repo.root,
        &["--worktree", "../hidden-lane"],
        &[(lane.join("secret.md"), b"only copy\n".to_vec())],
    );
}

#[test]
fn file_names_cannot_forge_lines_or_drive_the_terminal_in_recovers_listing() {
    let repo = TestRepo::new();
    let agent = Agent::new("namer", &repo.root);
    let name = "evil\n    2026-01-01T00:00:00Z  matches  forged.txt\x1b[31m\x07";
    agent.write(name, b"x\n");
    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(
        !out.lines()
            .any(|l| l.trim_start().starts_with("2026-01-01")),
        "{out}"
    );
    assert!(out.contains("evil"), "{out}");
    sh(&repo.root, "git clean -fdq");
    let (code, out, err) = recover(&repo.root, &["."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains('\x1b') && out.lines().count() == 1, "{out:?}");
}

#[test]
fn recover_lists_a_retained_commit_no_branch_holds_with_the_command_to_bring_it_back() {
    let repo = TestRepo::new();
    let agent = Agent::new("brancher", &repo.root);
    agent.bash(
        "git checkout -q -b feat && echo work > w.txt && git add w.txt && git commit -qm work",
    );
    let commit = git_out(&repo.root, &["rev-parse", "HEAD"]);
    agent.bash("git checkout -q main && git commit -qam x --allow-empty");
    sh(&repo.root, "git update-ref -d refs/heads/feat");
    collect_garbage(&repo.root);
    let listing = recover_json(&repo.root, &[]);
    let commits = listing["commits"].as_array().unwrap();
    assert!(
        commits.iter().any(|c| c["branch"] == "feat"
            && c["commit"] == commit.as_str()
            && c["branch_exists"] == false),
        "{listing}"
    );
    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    let short = &commit[..7];
    let line = out
        .lines()
        .find(|l| l.contains("of feat"))
        .unwrap_or_else(|| panic!("{out}"));
    let run = line.rsplit_once(": ").unwrap().1;
    assert!(run.starts_with("git branch feat "), "{line}");
    assert!(line.contains(short), "{line}");
    sh(&repo.root, run);
    assert_eq!(git_out(&repo.root, &["rev-parse", "feat"]), commit);
    // Held by a branch again: no longer listed.
    let listing = recover_json(&repo.root, &[]);
    assert!(
        listing["commits"].as_array().unwrap().is_empty(),
        "{listing}"
    );
}

#[test]
fn in_a_clone_with_more_worktrees_than_one_scan_takes_each_is_looked_at_in_turn() {
    let repo = TestRepo::new();
    let lanes: Vec<_> = (1..=11).map(|i| repo.worktree(&format!("l{i}"))).collect();
    let agent = Agent::new("many-lanes", &repo.root);
    // A script that names no lane writes into every one of them.
    let out = agent.bash(
        "python3 -c \"import glob\nfor d in glob.glob('../l*'): open(d + '/gen.sql', 'w').write(d)\"",
    );
    assert!(out.status.success(), "{out:?}");
    // The next commands that may write take the lanes the first scan did not reach.
    agent.bash("make -v > /dev/null 2>&1; true");
    agent.bash("make -v > /dev/null 2>&1; true");
    for lane in &lanes {
        sh(lane, "rm gen.sql");
        let (code, out, err) = recover(lane, &["gen.sql"]);
        assert_eq!(code, 0, "{}: {out}{err}", lane.display());
    }
}

#[test]
fn the_lane_a_script_just_wrote_into_is_scanned_first_in_a_crowded_clone() {
    let repo = TestRepo::new();
    let lanes: Vec<_> = (1..=11).map(|i| repo.worktree(&format!("w{i}"))).collect();
    // Every lane was touched a while ago; the script then writes into the last one only.
    for lane in &lanes {
        sh(lane, "touch -d '20 minutes ago' .");
    }
    let agent = Agent::new("one-lane", &repo.root);
    let out = agent.bash("python3 -c \"open('../w11/schema.gen.sql', 'w').write('generated')\"");
    assert!(out.status.success(), "{out:?}");
    // The very next thing is a peer's deletion there: one scan must have been enough.
    sh(&lanes[10], "rm schema.gen.sql");
    let (code, out, err) = recover(&lanes[10], &["schema.gen.sql"]);
    assert_eq!(code, 0, "{out}{err}");
}

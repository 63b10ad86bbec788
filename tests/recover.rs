//! Nothing an agent made is lost for good: work made through the real hook, destroyed by real
//! commands (as if the guard had let them through), then `reflog expire` and `gc --prune=now`,
//! comes back byte for byte with `git dibs recover`.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn rm_rf_of_a_lane_and_its_branch_comes_back_with_recover_worktree() {
    let repo = TestRepo::new();
    let lane = repo.root.join(".worktrees/auth");
    sh(
        &repo.root,
        "git worktree add -q -b lane/auth .worktrees/auth",
    );
    let agent = Agent::new("lane-agent", &lane);
    let committed = agent.write("src/auth.rs", b"pub fn login() {}\n");
    let out = agent.bash("git add src/auth.rs && git commit -qm 'auth: login'");
    assert!(out.status.success());
    let commit = git_out(&lane, &["rev-parse", "HEAD"]);
    let edited = agent.write("src/lib.rs", b"pub fn a() { /* uncommitted */ }\n");
    let fresh = agent.write("notes/plan.md", b"- [ ] logout\n");
    let blob = agent.write("assets/logo.bin", &binary(10_000));
    let expect = vec![
        (edited, b"pub fn a() { /* uncommitted */ }\n".to_vec()),
        (fresh, b"- [ ] logout\n".to_vec()),
        (blob, binary(10_000)),
        (committed, b"pub fn login() {}\n".to_vec()),
    ];

    let main = Agent::new("cleaner", &repo.root);
    // The lane is locked while it holds uncommitted work, so `git worktree prune` would keep
    // its entry: the cleaner removes that too, then the branch.
    main.bash("rm -rf .worktrees/auth .git/worktrees/auth && git branch -D lane/auth");
    collect_garbage(&repo.root);
    assert!(!lane.exists());

    let listing = recover_json(&repo.root, &[]);
    let files = listing["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .any(|f| f["path"] == "notes/plan.md" && f["worktree_exists"] == false),
        "{listing}"
    );
    let (code, out, err) = recover(&repo.root, &["--worktree", ".worktrees/auth"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("branch lane/auth"), "{out}");
    assert_eq!(git_out(&lane, &["rev-parse", "HEAD"]), commit);
    assert_files(&expect);
}

#[test]
fn git_clean_ffdx_loses_no_ignored_file_an_agent_wrote() {
    let repo = TestRepo::new();
    repo.write(&repo.root, ".gitignore", "scratch/\n*.local\n");
    sh(&repo.root, "git add .gitignore && git commit -qm ignore");
    let agent = Agent::new("cleaner-victim", &repo.root);
    let notes = agent.write("scratch/notes.md", b"findings so far\n");
    let env = agent.write("app.local", b"PORT=8080\n");
    let tracked = agent.write("README.md", b"# changed\n");

    agent.bash("git clean -ffdX");
    collect_garbage(&repo.root);
    assert!(!notes.exists() && !env.exists());
    assert_eq!(std::fs::read(&tracked).unwrap(), b"# changed\n");

    assert_recovers(
        &repo.root,
        &["."],
        &[
            (notes, b"findings so far\n".to_vec()),
            (env, b"PORT=8080\n".to_vec()),
            (tracked, b"# changed\n".to_vec()),
        ],
    );
}

#[test]
fn python_rmtree_of_a_folder_comes_back() {
    let repo = TestRepo::new();
    let agent = Agent::new("py-victim", &repo.root);
    let a = agent.write("gen/a/one.rs", b"pub const ONE: u8 = 1;\n");
    let b = agent.write("gen/b/two.dat", &binary(4096));
    let lib = agent.write("src/lib.rs", b"pub mod gen;\n");

    agent.bash("python3 -c 'import shutil; shutil.rmtree(\"gen\"); shutil.rmtree(\"src\")'");
    collect_garbage(&repo.root);
    assert!(!repo.root.join("gen").exists());

    let (code, out, err) = recover(&repo.root, &[repo.root.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_files(&[
        (a, b"pub const ONE: u8 = 1;\n".to_vec()),
        (b, binary(4096)),
        (lib, b"pub mod gen;\n".to_vec()),
    ]);
}

#[test]
fn git_checkout_dot_is_undone_in_place_and_a_change_kept_nowhere_goes_beside() {
    let repo = TestRepo::new();
    let agent = Agent::new("checkout-victim", &repo.root);
    let lib = agent.write("src/lib.rs", b"pub fn a() { 42 }\n");
    let readme = agent.write("README.md", b"# new words\n");

    agent.bash("git checkout -- .");
    collect_garbage(&repo.root);
    assert_eq!(std::fs::read(&lib).unwrap(), b"pub fn a() {}\n");

    // The reverted file holds the committed content, which nothing loses: the snapshot goes
    // in place.
    let done = recover_json(&repo.root, &["src/lib.rs"]);
    assert_eq!(done["restored"][0]["action"], "replaced", "{done}");
    assert_files(&[(lib.clone(), b"pub fn a() { 42 }\n".to_vec())]);

    // A content no snapshot and no commit holds (a person's edit since) is never overwritten
    // without --force: the snapshot goes beside it.
    std::fs::write(&readme, b"# the person's words\n").unwrap();
    let done = recover_json(&repo.root, &["README.md"]);
    let r = &done["restored"][0];
    assert_eq!(r["action"], "beside", "{done}");
    let beside = std::path::PathBuf::from(r["written_to"].as_str().unwrap());
    assert!(beside.to_string_lossy().contains("README.md.recovered-"));
    assert_files(&[
        (readme.clone(), b"# the person's words\n".to_vec()),
        (beside, b"# new words\n".to_vec()),
    ]);

    // --force overwrites it, and keeps a copy of what it overwrote first.
    let (code, out, err) = recover(&repo.root, &["README.md", "--force"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("overwritten") && out.contains("--session kept"),
        "{out}"
    );
    assert_files(&[(readme.clone(), b"# new words\n".to_vec())]);
    collect_garbage(&repo.root);
    let listing = recover_json(&repo.root, &[]);
    let kept = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["session"] == "kept")
        .unwrap_or_else(|| panic!("{listing}"));
    assert_eq!(
        (kept["path"].as_str(), kept["origin"].as_str()),
        (Some("README.md"), Some("kept"))
    );
    // A plain recover does not bring the kept copy back; naming its session does.
    assert_recovers(
        &repo.root,
        &["README.md"],
        &[(readme.clone(), b"# new words\n".to_vec())],
    );
    assert_recovers(
        &repo.root,
        &["README.md", "--session", "kept"],
        &[(readme, b"# the person's words\n".to_vec())],
    );
}

#[test]
fn git_stash_clear_then_gc_is_undone() {
    let repo = TestRepo::new();
    let agent = Agent::new("stash-victim", &repo.root);
    let lib = agent.write("src/lib.rs", b"pub fn stashed() {}\n");

    agent.bash("git stash -q && git stash clear");
    collect_garbage(&repo.root);
    assert_eq!(std::fs::read(&lib).unwrap(), b"pub fn a() {}\n");

    let (code, out, err) = recover(&repo.root, &["src/lib.rs"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("restored from"), "{out}");
    assert_files(&[(lib, b"pub fn stashed() {}\n".to_vec())]);
}

#[test]
fn bypassed_worktree_remove_force_comes_back_on_its_branch() {
    let repo = TestRepo::new();
    let wt = repo.worktree("wt-feature");
    let agent = Agent::new("wt-agent", &wt);
    agent.write("feature.rs", b"pub fn feature() {}\n");
    agent.bash("git add feature.rs && git commit -qm feature");
    let commit = git_out(&wt, &["rev-parse", "HEAD"]);
    let dirty = agent.write("feature.rs", b"pub fn feature() { todo!() }\n");
    let untracked = agent.write("docs/feature.md", b"# Feature\n");

    let main = Agent::new("remover", &repo.root);
    // git-dibs locked the dirty worktree, so one `--force` is not enough: force twice.
    main.bash(&format!(
        "WT_GUARD_BYPASS=1 git worktree remove --force --force {}",
        wt.display()
    ));
    collect_garbage(&repo.root);
    assert!(!wt.exists());

    // `status` does not call the files of a removed worktree clean: it says where they went.
    let status = dibs(&repo.root, &["status"]);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("gone   feature.rs"), "{text}");
    let hint = format!("git dibs recover --worktree {}", wt.display());
    assert!(text.contains(&hint) && !text.contains("clean"), "{text}");
    let json: serde_json::Value =
        serde_json::from_slice(&dibs(&repo.root, &["status", "--json"]).stdout).unwrap();
    let sessions = json["sessions"].as_array().unwrap();
    let owner = sessions.iter().find(|s| s["id"] == "wt-agent").unwrap();
    let files = &owner["files"];
    assert_eq!(files[0]["worktree_gone"], true, "{json}");
    assert!(files[0]["dirty"].is_null(), "{json}");

    let done = recover_json(&repo.root, &["--worktree", wt.to_str().unwrap()]);
    assert_eq!(done["created"], true, "{done}");
    assert_eq!(done["branch"], "wt-feature");
    assert_eq!(git_out(&wt, &["rev-parse", "HEAD"]), commit);
    assert_files(&[
        (dirty, b"pub fn feature() { todo!() }\n".to_vec()),
        (untracked, b"# Feature\n".to_vec()),
    ]);
}

#[test]
fn a_host_removing_its_worktree_and_branch_loses_nothing() {
    let repo = TestRepo::new();
    let wt = repo.root.join(".claude/worktrees/agent-7");
    sh(
        &repo.root,
        "git worktree add -q -b worktree-agent-7 .claude/worktrees/agent-7",
    );
    let agent = Agent::new("claude-w", &wt);
    agent.write("src/one.rs", b"pub fn one() {}\n");
    agent.bash("git add -A && git commit -qm one");
    agent.write("src/two.rs", b"pub fn two() {}\n");
    agent.bash("git add src/two.rs && git commit -qm two");
    let commit = git_out(&wt, &["rev-parse", "HEAD"]);
    let wip = agent.write("src/three.rs", b"pub fn three() { /* wip */ }\n");

    // The host cleans up as Claude Code's `claude -w` does: the worktree, then its branch.
    sh(
        &repo.root,
        "git worktree unlock .claude/worktrees/agent-7; \
         git worktree remove --force .claude/worktrees/agent-7 && git branch -D worktree-agent-7",
    );
    collect_garbage(&repo.root);
    assert_eq!(
        git_out(&repo.root, &["cat-file", "-t", &commit]),
        "commit",
        "the retention ref kept the commits"
    );

    let (code, out, err) = recover(&repo.root, &["--worktree", ".claude/worktrees/agent-7"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(git_out(&wt, &["rev-parse", "HEAD"]), commit);
    assert_eq!(
        git_out(&wt, &["branch", "--show-current"]),
        "worktree-agent-7"
    );
    assert_files(&[
        (wt.join("src/one.rs"), b"pub fn one() {}\n".to_vec()),
        (wt.join("src/two.rs"), b"pub fn two() {}\n".to_vec()),
        (wip, b"pub fn three() { /* wip */ }\n".to_vec()),
    ]);
}

#[test]
fn nothing_to_recover_exits_1_and_an_unknown_worktree_too() {
    let repo = TestRepo::new();
    let (code, out, _) = recover(&repo.root, &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("nothing to recover"), "{out}");
    let (code, out, _) = recover(&repo.root, &["--worktree", "../nowhere"]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn a_lane_whose_folder_alone_was_deleted_comes_back_over_its_locked_registration() {
    // The common death of a lane: its folder deleted (a bypass, a tool the guard does not
    // know, a file manager), git's registration left behind and locked by git-dibs while the
    // lane held uncommitted work. Then also with its branch deleted.
    for drop_branch in [false, true] {
        let repo = TestRepo::new();
        sh(&repo.root, "git worktree add -q -b lane/l1 .worktrees/l1");
        let lane = repo.root.join(".worktrees/l1");
        let agent = Agent::new("lane-agent", &lane);
        let committed = agent.write("done.rs", b"pub fn done() {}\n");
        agent.bash("git add done.rs && git commit -qm done");
        let commit = git_out(&lane, &["rev-parse", "HEAD"]);
        let wip = agent.write("feature.txt", b"lane work\n");
        let listed = git_out(&repo.root, &["worktree", "list", "--porcelain"]);
        assert!(listed.contains("locked"), "{listed}");

        let other = Agent::new("other", &repo.root);
        other.bash("WT_GUARD_BYPASS=1 rm -rf .worktrees/l1");
        if drop_branch {
            // (`git branch -D` refuses a branch git still sees checked out.)
            other.bash("WT_GUARD_BYPASS=1 git update-ref -d refs/heads/lane/l1");
        }
        collect_garbage(&repo.root);
        assert!(!lane.exists());

        let (code, out, err) = recover(&repo.root, &["--worktree", ".worktrees/l1"]);
        assert_eq!(code, 0, "drop_branch {drop_branch}: {out}{err}");
        assert!(out.contains("branch lane/l1"), "{out}");
        assert_eq!(git_out(&lane, &["rev-parse", "HEAD"]), commit);
        assert_files(&[
            (wip.clone(), b"lane work\n".to_vec()),
            (committed.clone(), b"pub fn done() {}\n".to_vec()),
        ]);
        // One registration, at the same place, not a second one beside the stale entry.
        let listed = git_out(&repo.root, &["worktree", "list", "--porcelain"]);
        assert_eq!(listed.matches("worktree ").count(), 2, "{listed}");
    }
}

#[test]
fn a_gone_registration_is_not_taken_over_when_its_branch_lives_elsewhere() {
    let repo = TestRepo::new();
    sh(&repo.root, "git worktree add -q -b lane/l2 .worktrees/l2");
    let lane = repo.root.join(".worktrees/l2");
    let agent = Agent::new("lane-agent", &lane);
    agent.write("feature.txt", b"lane work\n");
    let other = Agent::new("other", &repo.root);
    other.bash("WT_GUARD_BYPASS=1 rm -rf .worktrees/l2");
    // Someone else now has the branch checked out: forcing would check it out twice.
    sh(
        &repo.root,
        "git worktree unlock .worktrees/l2 && git worktree prune && git worktree add -q .worktrees/l2b lane/l2 && mkdir -p .git/worktrees/l2 && echo \"$PWD/.worktrees/l2/.git\" > .git/worktrees/l2/gitdir",
    );
    let (code, out, err) = recover(&repo.root, &["--worktree", ".worktrees/l2"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        err.contains("branch lane/l2 is checked out at") && err.contains(".worktrees/l2b"),
        "{err}"
    );
    let branches = git_out(&repo.root, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        branches.matches("branch refs/heads/lane/l2").count(),
        1,
        "{branches}"
    );
}

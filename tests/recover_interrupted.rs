//! Work whose hooks did not all run is not lost for good either: an edit tool's new file or
//! rewrite of a file it snapshotted, whose post-tool hook never came (the host died, the call
//! was killed), a shell command's output whose post-tool hook never came, a shell command's change to
//! a file another session watches (then reverted by an actor no hook sees), and a session whose
//! snapshot ref was deleted from outside git-dibs. Each comes back byte for byte after
//! `reflog expire` and `gc --prune=now`; a declined edit and a packed ref make no snapshot and
//! no report.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

/// The snapshot refs and their tips.
fn tips(root: &std::path::Path) -> String {
    git_out(
        root,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/dibs/snapshots/",
        ],
    )
}

/// Each `(rel, text)` is deleted behind every hook's back (it must be there), reflogs expire,
/// garbage is collected: then `recover rel` brings back exactly `text`, file by file.
#[track_caller]
fn lost_then_recovered(root: &std::path::Path, files: &[(&str, &str)]) {
    let rels: Vec<&str> = files.iter().map(|(rel, _)| *rel).collect();
    sh(root, &format!("rm {}", rels.join(" ")));
    collect_garbage(root);
    for (rel, text) in files {
        assert_recovers(root, &[rel], &[(root.join(rel), text.as_bytes().to_vec())]);
    }
}

/// Delete the clone's snapshot ref from outside git-dibs (`git update-ref -d`); its name.
fn delete_the_snapshot_ref(root: &std::path::Path) -> String {
    let name = snapshot_refs(root);
    sh(root, &format!("git update-ref -d {name}"));
    name
}

/// Another session's tool call when the store is due to prune (ten minutes since the last).
fn another_call_when_the_store_is_due_to_prune(root: &std::path::Path) {
    sh(root, "touch -d '-1 hour' .git/dibs/pruned");
    Agent::new("other", root).write("other.txt", b"other's\n");
}

/// The PreToolUse event of edit tool `tool` on `rel` in `agent`'s session.
fn pre_edit_event(agent: &Agent, tool: &str, rel: &str) -> serde_json::Value {
    edit_event(
        "PreToolUse",
        tool,
        &agent.id,
        &agent.cwd,
        &agent.cwd.join(rel),
    )
}

/// The edit tool's PreToolUse for `rel` in `agent`'s session (it must exit 0).
fn pre_edit(agent: &Agent, tool: &str, rel: &str) {
    assert_eq!(hook(&agent.cwd, &pre_edit_event(agent, tool, rel)).code, 0);
}

/// [`pre_edit`] from a host process that is gone right after (`python3` runs the hook and
/// exits), as a host that crashed before the tool's end is.
fn pre_edit_then_die(agent: &Agent, tool: &str, rel: &str) {
    let pre = pre_edit_event(agent, tool, rel);
    let mut cmd = std::process::Command::new("python3");
    cmd.args([
        "-c",
        "import subprocess,sys; sys.exit(subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read()).returncode)",
    ])
    .arg(bin())
    .arg("hook")
    .current_dir(&agent.cwd)
    .stdin(std::process::Stdio::piped());
    let mut child = with_git_env(&mut cmd).spawn().expect("python3 runs");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{pre}\n").as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn an_edit_whose_post_tool_hook_never_came_is_kept_before_a_peer_destroys_it() {
    let repo = TestRepo::new();
    let crashed = Agent::new("crashed", &repo.root);
    crashed.write("notes.md", b"earlier, snapshotted\n");
    // The host writes a new file and rewrites one it snapshotted before, then dies: no
    // PostToolUse for either.
    pre_edit_then_die(&crashed, "Write", "src/new.rs");
    std::fs::write(repo.root.join("src/new.rs"), b"fn only_copy() {}\n").unwrap();
    pre_edit_then_die(&crashed, "Edit", "notes.md");
    std::fs::write(repo.root.join("notes.md"), b"later, never snapshotted\n").unwrap();

    // Its session is dead, so a peer's cleanup is allowed: it is the sweep before it that
    // keeps what the dead session wrote.
    let other = Agent::new("cleaner", &repo.root);
    let cleanup = "git reset -q --hard && git clean -fdq && rm -f notes.md";
    other.pre_bash(cleanup).assert_silent();
    sh(&repo.root, cleanup);
    assert_eq!(other.post_bash(cleanup).code, 0);
    collect_garbage(&repo.root);
    assert!(!repo.root.join("src/new.rs").exists());

    assert_recovers(
        &repo.root,
        &["src/new.rs"],
        &[(
            repo.root.join("src/new.rs"),
            b"fn only_copy() {}\n".to_vec(),
        )],
    );
    assert_recovers(
        &repo.root,
        &["notes.md"],
        &[(
            repo.root.join("notes.md"),
            b"later, never snapshotted\n".to_vec(),
        )],
    );
}

#[test]
fn a_declined_edit_makes_no_snapshot() {
    let repo = TestRepo::new();
    let agent = Agent::new("declined", &repo.root);
    agent.write("notes.md", b"plan\n");
    let before = tips(&repo.root);
    // The person declines both at the permission prompt: nothing is written, no PostToolUse.
    pre_edit(&agent, "Edit", "src/lib.rs");
    pre_edit(&agent, "Write", "src/never.rs");
    let other = Agent::new("builder", &repo.root);
    for cmd in ["true", "git clean -n", "rm -f nothing.txt"] {
        other.bash_silent(cmd);
    }
    assert_eq!(tips(&repo.root), before);
    let listing = recover_json(&repo.root, &[]);
    assert_eq!(listed_paths(&listing), ["notes.md"], "{listing}");
}

#[test]
fn a_shell_commands_change_to_a_watched_file_is_kept_before_any_later_tool_call() {
    let repo = TestRepo::new();
    let holder = Agent::new("holder", &repo.root);
    holder.write("src/shared.rs", b"// holder's line\n");
    let formatter = Agent::new("formatter", &repo.root);
    std::fs::write(
        repo.root.join("fmt.py"),
        "open('src/shared.rs','a').write('// formatter\\'s line\\n')\n",
    )
    .unwrap();
    formatter.bash("python3 fmt.py && rm fmt.py");
    // A person's "discard changes" in an editor: no hook runs before it.
    sh(&repo.root, "git checkout -- . && rm src/shared.rs");
    collect_garbage(&repo.root);

    assert_recovers(
        &repo.root,
        &["src/shared.rs"],
        &[(
            repo.root.join("src/shared.rs"),
            b"// holder's line\n// formatter's line\n".to_vec(),
        )],
    );
    // The earlier version is the holder's own, still there by session and time.
    let listing = recover_json(&repo.root, &[]);
    let shared = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == "src/shared.rs")
        .count();
    assert!(shared >= 1, "{listing}");
}

#[test]
fn a_snapshot_ref_deleted_from_outside_is_put_back_on_the_next_snapshot() {
    let repo = TestRepo::new();
    let agent = Agent::new("keeper", &repo.root);
    agent.write("a.txt", b"first, only copy\n");
    let name = delete_the_snapshot_ref(&repo.root);
    assert_eq!(name.lines().count(), 1, "{name}");

    // The session goes on: its next snapshot finds the chain gone, puts it back, says so.
    let post = write_seen(&agent, "b.txt", b"second\n");
    assert!(
        post.stderr
            .contains("snapshot ref was deleted outside git-dibs"),
        "{}",
        post.stderr
    );
    let doctor = out_text(&dibs(&repo.root, &["doctor"]));
    assert!(doctor.contains("deleted outside git-dibs"), "{doctor}");

    lost_then_recovered(&repo.root, &[("a.txt", "first, only copy\n")]);
}

#[test]
fn a_chain_deleted_and_collected_is_taken_again_from_the_files_as_they_are() {
    let repo = TestRepo::new();
    let agent = Agent::new("rebuilt", &repo.root);
    agent.write("a.txt", b"still on disk\n");
    agent.write("b.txt", b"also on disk\n");
    delete_the_snapshot_ref(&repo.root);
    collect_garbage(&repo.root);

    agent.write("c.txt", b"new\n");
    lost_then_recovered(
        &repo.root,
        &[("a.txt", "still on disk\n"), ("b.txt", "also on disk\n")],
    );
}

#[test]
fn an_idle_sessions_deleted_ref_is_put_back_when_the_store_prunes() {
    let repo = TestRepo::new();
    let idle = Agent::new("idle", &repo.root);
    idle.write("a.txt", b"idle's work\n");
    let name = delete_the_snapshot_ref(&repo.root);
    another_call_when_the_store_is_due_to_prune(&repo.root);
    assert!(
        snapshot_refs(&repo.root).lines().any(|l| l == name),
        "{name}"
    );
    lost_then_recovered(&repo.root, &[("a.txt", "idle's work\n")]);
}

#[test]
fn packed_snapshot_refs_are_not_taken_for_deleted_ones() {
    let repo = TestRepo::new();
    let agent = Agent::new("packed", &repo.root);
    agent.write("a.txt", b"one\n");
    sh(&repo.root, "git pack-refs --all");
    let post = write_seen(&agent, "b.txt", b"two\n");
    assert!(post.stderr.is_empty(), "{}", post.stderr);
    let doctor = out_text(&dibs(&repo.root, &["doctor"]));
    assert!(!doctor.contains("deleted outside"), "{doctor}");
    let listing = recover_json(&repo.root, &[]);
    let mut paths = listed_paths(&listing);
    paths.sort_unstable();
    assert_eq!(paths, ["a.txt", "b.txt"], "{listing}");
}

/// Delete the loose object `id` of the clone at `root`, as a `git gc --prune=now` that ran
/// while it was unreferenced does.
fn prune_object(root: &std::path::Path, id: &str) {
    let file = root.join(".git/objects").join(&id[..2]).join(&id[2..]);
    std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
}

#[test]
fn a_chain_whose_newest_objects_were_pruned_mid_write_is_repaired_and_goes_on() {
    let repo = TestRepo::new();
    let agent = Agent::new("raced", &repo.root);
    agent.write("a.txt", b"first\n");
    agent.write("b.txt", b"second\n");
    let name = snapshot_refs(&repo.root);
    let tip = git_out(&repo.root, &["rev-parse", &name]);
    // The newest commit is gone: its parent cannot be found from it.
    prune_object(&repo.root, &tip);
    // `recover` repairs the chain before it lists (as the session's next snapshot would)
    // and says so; it lists what the intact part holds.
    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "recover must not fail: {out}{err}");
    assert!(
        err.contains("lost their objects") && err.contains("back on"),
        "{err}"
    );
    assert!(out.contains("a.txt"), "{out}");

    let post = write_seen(&agent, "c.txt", b"third\n");
    assert!(post.stderr.is_empty(), "{}", post.stderr);
    // git's own gc works again, and every file comes back.
    lost_then_recovered(
        &repo.root,
        &[
            ("a.txt", "first\n"),
            ("b.txt", "second\n"),
            ("c.txt", "third\n"),
        ],
    );
}

#[test]
fn a_chain_whose_newest_tree_was_pruned_goes_back_to_its_parent() {
    let repo = TestRepo::new();
    let agent = Agent::new("treeless", &repo.root);
    agent.write("a.txt", b"first\n");
    std::fs::write(repo.root.join("a.txt"), b"first, changed\n").unwrap();
    agent.post_edit(&repo.root.join("a.txt")).assert_silent();
    let name = snapshot_refs(&repo.root);
    let tree = git_out(&repo.root, &["rev-parse", &format!("{name}^{{tree}}")]);
    prune_object(&repo.root, &tree);
    // An idle session: the store's next prune repairs it.
    another_call_when_the_store_is_due_to_prune(&repo.root);
    // Back on the parent, then the same files taken again: the same tree, written anew.
    let kind = git_out(&repo.root, &["cat-file", "-t", &format!("{name}^{{tree}}")]);
    assert_eq!(kind, "tree");
    let doctor = out_text(&dibs(&repo.root, &["doctor"]));
    assert!(doctor.contains("lost their objects"), "{doctor}");
    lost_then_recovered(&repo.root, &[("a.txt", "first, changed\n")]);
}

#[test]
fn a_first_edit_of_a_tracked_file_whose_host_died_is_kept_before_a_peer_takes_it() {
    for destroyer in [
        "git checkout -- .",
        "git reset -q --hard",
        "git stash -q",
        "git restore README.md",
    ] {
        let repo = TestRepo::new();
        let crashed = Agent::new("crashed-first-edit", &repo.root);
        // The host edits a tracked file no snapshot of its session ever held, then dies: no
        // PostToolUse, and no sweep watches the file.
        pre_edit_then_die(&crashed, "Edit", "README.md");
        std::fs::write(
            repo.root.join("README.md"),
            b"# the only copy of this edit\n",
        )
        .unwrap();
        // The session is dead, so the peer's command is allowed: the guard keeps the dead
        // session's dirty file before letting it through.
        let other = Agent::new("tidier", &repo.root);
        other.pre_bash(destroyer).assert_silent();
        sh(&repo.root, destroyer);
        assert_eq!(other.post_bash(destroyer).code, 0);
        sh(&repo.root, "git stash clear");
        assert_eq!(
            std::fs::read(repo.root.join("README.md")).unwrap(),
            b"# test\n"
        );
        collect_garbage(&repo.root);
        // The committed content is there now: recover puts the edit back in its place.
        assert_recovers(
            &repo.root,
            &["README.md", "--session", &crashed.id],
            &[(
                repo.root.join("README.md"),
                b"# the only copy of this edit\n".to_vec(),
            )],
        );
    }
}

#[test]
fn a_dead_sessions_declined_edit_keeps_nothing_and_a_live_ones_file_is_refused() {
    let repo = TestRepo::new();
    let declined = Agent::new("declined-then-died", &repo.root);
    pre_edit_then_die(&declined, "Edit", "README.md");
    let other = Agent::new("tidier", &repo.root);
    other.bash("git checkout -- .");
    assert_eq!(tips(&repo.root), "", "a clean file is nothing to keep");
    // A live holder's edit is refused outright, as before.
    let live = Agent::new("live-holder", &repo.root);
    live.write("src/lib.rs", b"pub fn live() {}\n");
    let run = other.pre_bash("git checkout -- .");
    assert_eq!(
        hook_decision(&run).map(|d| d.0).as_deref(),
        Some("deny"),
        "{}",
        run.stdout
    );
}

//! A session working in repository A that has work in another repository B too (it edited a
//! file there): a command run in A that writes into B by a path no word of the line names (a
//! script, `make -C`, a here-doc) has what it wrote kept in B's snapshots before a later command
//! destroys it, and what changed in B since the session's last snapshot is swept before a
//! command from A runs. Found by state: the clones where a session has work are noted in its
//! stores; an entry naming what is no longer that clone's worktree is passed over.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

/// Two sibling clones `a` and `b` in one folder; session `s1` works in `a` and has edited
/// `b/README.md`.
struct Siblings {
    a: TestRepo,
    b: TestRepo,
    agent: Agent,
}

impl Siblings {
    fn new() -> Siblings {
        let a = TestRepo::new();
        let b = TestRepo::new();
        let agent = Agent::started("s1", &a.root);
        let readme = b.root.join("README.md");
        let edited = agent.write(&format!("{}", readme.display()), b"# b, edited by s1\n");
        assert_eq!(edited, readme);
        Siblings { a, b, agent }
    }

    /// A file of B's worktree.
    fn b(&self, rel: &str) -> PathBuf {
        self.b.root.join(rel)
    }
}

/// Destroy what is untracked in the worktree at `root` with no hook seeing it, then drop
/// reflogs and collect garbage.
fn wipe_untracked(root: &Path) {
    sh(root, "git clean -qfdx");
    collect_garbage(root);
}

#[test]
fn a_script_run_in_a_writing_into_b_is_kept_in_bs_snapshots() {
    let s = Siblings::new();
    let b_abs = s.b.root.display().to_string();
    // The script names B's file by an absolute path inside its own text.
    std::fs::write(
        s.a.root.join("gen.py"),
        format!("open('{b_abs}/gen.txt', 'w').write('generated\\n')\n"),
    )
    .unwrap();
    std::fs::write(s.b("tool.sh"), "echo made by tool > tool.txt\n").unwrap();
    sh(&s.b.root, "git add tool.sh && git commit -qm tool");
    let heredoc = format!(
        "python3 - <<'EOF'\nopen('{b_abs}/here.txt', 'w').write('from a here-doc\\n')\nEOF"
    );
    let tool = format!("sh -c 'cd {b_abs} && sh tool.sh'");
    let writes = [
        ("python3 gen.py", "gen.txt"),
        (heredoc.as_str(), "here.txt"),
        (tool.as_str(), "tool.txt"),
    ];
    // Each destroyed before the next command runs (its scan would find the others).
    for (command, rel) in &writes {
        s.agent.bash(command);
        let made = (s.b(rel), std::fs::read(s.b(rel)).unwrap());
        assert!(!made.1.is_empty(), "{command} wrote {rel}");
        wipe_untracked(&s.b.root);
        assert!(!made.0.exists());
        // `recover` in B lists and restores it, from B's store.
        let listing = recover_json(&s.b.root, &[]);
        assert!(listed_paths(&listing).contains(rel), "{rel}: {listing}");
        assert_recovers(&s.b.root, &[rel], std::slice::from_ref(&made));
        std::fs::remove_file(&made.0).unwrap();
    }
}

#[test]
fn what_changed_in_b_since_its_snapshot_is_swept_before_a_command_from_a() {
    let s = Siblings::new();
    // Changed again with no hook seeing it (a person's editor, a job of the session's).
    let readme = s.b("README.md");
    let later = b"# b, changed later\n".to_vec();
    std::fs::write(&readme, &later).unwrap();
    // A program in A reverts B's files: no word of the line names B.
    std::fs::write(
        s.a.root.join("reset.py"),
        format!(
            "import subprocess\nsubprocess.run(['git', '-C', '{}', 'checkout', '-q', '--', '.'])\n",
            s.b.root.display()
        ),
    )
    .unwrap();
    s.agent.bash("python3 reset.py");
    assert_eq!(std::fs::read(&readme).unwrap(), b"# test\n");
    collect_garbage(&s.b.root);
    assert_recovers(&s.b.root, &["README.md"], &[(readme, later)]);
}

#[test]
fn a_noted_sibling_that_is_gone_or_replaced_is_passed_over_and_everyday_work_notes_nothing() {
    let s = Siblings::new();
    // Everyday work in one clone notes nothing there.
    let solo = TestRepo::new();
    let other = Agent::started("s2", &solo.root);
    other.write("notes.txt", b"mine\n");
    other.bash_silent("echo more >> notes.txt && git status --short");
    assert!(!solo.store_dir().join("reach").exists());
    // B replaced by a link to another clone (C), whose files are not the session's.
    let c = TestRepo::new();
    let moved = s.b.tmp.path().join("b-moved");
    std::fs::rename(&s.b.root, &moved).unwrap();
    std::os::unix::fs::symlink(&c.root, &s.b.root).unwrap();
    std::fs::write(c.root.join("c-file.txt"), "c's own\n").unwrap();
    std::fs::write(s.a.root.join("touch.py"), "print('hi')\n").unwrap();
    s.agent.bash("python3 touch.py");
    assert!(
        snapshot_refs(&c.root).is_empty(),
        "nothing of C's taken into its snapshots by s1: {}",
        snapshot_refs(&c.root)
    );
    // B gone altogether, its entry (and a damaged list) change nothing.
    std::fs::remove_file(&s.b.root).unwrap();
    std::fs::write(
        s.a.store_dir().join("reach/s1"),
        "relative\tpath\n/nonexistent\t/nonexistent/.git\n\0\0\n",
    )
    .unwrap();
    s.agent.bash("python3 touch.py");
    // The session's own repository is still scanned.
    std::fs::write(s.a.root.join("mine.py"), "open('out.txt','w').write('a')\n").unwrap();
    s.agent.bash("python3 mine.py");
    let out = std::fs::read(s.a.root.join("out.txt")).unwrap();
    wipe_untracked(&s.a.root);
    assert_recovers(&s.a.root, &["out.txt"], &[(s.a.root.join("out.txt"), out)]);
}

#[test]
fn a_session_that_moved_to_b_still_has_what_it_writes_into_a_kept() {
    let s = Siblings::new();
    // The host's cwd is now B (a `cd` that stays); a program there writes into A.
    let from_b = Agent::new("s1", &s.b.root);
    let target = s.a.root.join("made-from-b.txt");
    std::fs::write(
        s.b("gen.py"),
        format!("open('{}', 'w').write('from b\\n')\n", target.display()),
    )
    .unwrap();
    from_b.bash("python3 gen.py");
    let made = std::fs::read(&target).unwrap();
    wipe_untracked(&s.a.root);
    assert_recovers(&s.a.root, &["made-from-b.txt"], &[(target, made)]);
}

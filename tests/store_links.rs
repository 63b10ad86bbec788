//! The store cannot be turned against its user: a symbolic link planted anywhere in
//! `.git/dibs` (an index folder, a marker, a record, `pruned`, `sync/due`, `audit.log`) is set
//! aside and reported, never followed, written through or descended into; temporary files that
//! killed writers left are cleaned up by a later writer.

mod common;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::json;

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";

/// A folder outside the store with files an attacker wants gone or rewritten.
struct Victim {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Victim {
    fn new() -> Victim {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        for name in ["precious.txt", "bashrc", "other"] {
            std::fs::write(dir.join(name), format!("keep {name}\n")).unwrap();
        }
        Victim { _tmp: tmp, dir }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Every file still there with its first content.
    fn assert_untouched(&self) {
        for name in ["precious.txt", "bashrc", "other"] {
            let text = std::fs::read_to_string(self.dir.join(name))
                .unwrap_or_else(|e| panic!("{name} is gone: {e}"));
            assert_eq!(text, format!("keep {name}\n"), "{name} was written through");
        }
    }
}

fn start(repo: &TestRepo, session: &str) {
    let ev = claude_event(
        "SessionStart",
        session,
        &repo.root,
        json!({"source": "startup"}),
    );
    assert_eq!(hook(&repo.root, &ev).code, 0);
}

fn doctor_text(dir: &Path) -> String {
    let out = dibs(dir, &["doctor"]);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Replace `path` (a file or folder of the store) with a link to `to`.
fn plant(path: &Path, to: &Path) {
    if path.is_dir() {
        std::fs::remove_dir_all(path).unwrap();
    } else {
        let _ = std::fs::remove_file(path);
    }
    symlink(to, path).unwrap();
}

fn links_left(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let t = e.file_type().unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if t.is_symlink() && !name.contains(".corrupt-") {
                out.push(e.path());
            } else if t.is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

#[test]
fn a_linked_index_folder_is_set_aside_and_pruning_deletes_nothing_it_points_to() {
    let repo = TestRepo::new();
    let victim = Victim::new();
    start(&repo, A);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    let index = repo.store_dir().join("index");
    for dir in std::fs::read_dir(&index).unwrap().flatten() {
        plant(&dir.path(), &victim.dir);
    }
    // Every path that lists, writes or prunes the index: edits, session starts, doctor's repair.
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    hook(&repo.root, &repo.pre_edit(A, "README.md"));
    start(&repo, B);
    assert_set_aside_and_reported(&repo, &victim);
}

#[test]
fn a_linked_marker_or_record_is_never_written_through() {
    let repo = TestRepo::new();
    let victim = Victim::new();
    start(&repo, A);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    let index = repo.store_dir().join("index");
    for dir in std::fs::read_dir(&index).unwrap().flatten() {
        for marker in std::fs::read_dir(dir.path()).unwrap().flatten() {
            plant(&marker.path(), &victim.file("bashrc"));
        }
    }
    plant(
        &repo.store_dir().join(format!("sessions/{B}.json")),
        &victim.file("other"),
    );
    // A's next write rewrites its worktree marker and removes stale ones; B's first writes
    // its record.
    hook(&repo.root, &repo.pre_edit(A, "README.md"));
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    start(&repo, B);
    assert_set_aside_and_reported(&repo, &victim);
}

#[test]
fn a_linked_audit_log_is_set_aside_not_appended_to() {
    let repo = TestRepo::new();
    let victim = Victim::new();
    start(&repo, A);
    std::fs::create_dir_all(repo.store_dir()).unwrap();
    plant(&repo.store_dir().join("audit.log"), &victim.file("bashrc"));
    let run = bash_hook_env(&repo.root, A, "echo x | xargs rm -rf", &[]);
    assert!(run.stdout.contains("ask"), "{run:?}");
    victim.assert_untouched();
    let log = std::fs::read_to_string(repo.store_dir().join("audit.log")).unwrap();
    assert!(log.contains("xargs rm -rf"), "{log}");
    assert!(doctor_text(&repo.root).contains("link or special file"));
}

#[test]
fn linked_stamps_are_set_aside_not_truncated() {
    let repo = TestRepo::new();
    let victim = Victim::new();
    start(&repo, A);
    let pruned = repo.store_dir().join("pruned");
    plant(&pruned, &victim.file("precious.txt"));
    // An old link: pruning is due.
    let ok = std::process::Command::new("touch")
        .args(["-h", "-d", "2001-01-01", pruned.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success());
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));

    std::fs::create_dir_all(repo.store_dir().join("sync")).unwrap();
    plant(&repo.store_dir().join("sync/due"), &victim.file("other"));
    git(&repo.root, &["config", "dibs.sync", "true"]);
    let _ = dibs(&repo.root, &["sync"]);
    victim.assert_untouched();
    assert_eq!(links_left(&repo.store_dir()), Vec::<PathBuf>::new());
}

#[test]
fn a_linked_store_folder_is_set_aside() {
    let repo = TestRepo::new();
    let victim = Victim::new();
    plant(&repo.store_dir(), &victim.dir);
    start(&repo, A);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    let _ = dibs(&repo.root, &["doctor"]);
    victim.assert_untouched();
    let names: Vec<String> = std::fs::read_dir(&victim.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        3,
        "nothing made in the linked folder: {names:?}"
    );
    assert!(repo.store_dir().is_dir() && !repo.store_dir().is_symlink());
}

#[test]
fn temporary_files_of_killed_writers_are_cleaned_up_but_a_fresh_one_is_kept() {
    let repo = TestRepo::new();
    start(&repo, A);
    let sessions = repo.store_dir().join("sessions");
    let old = sessions.join(format!(".{A}.json.tmp-4242-1"));
    let fresh = sessions.join(format!(".{A}.json.tmp-4243-2"));
    std::fs::write(&old, "half").unwrap();
    std::fs::write(&fresh, "half").unwrap();
    let ok = std::process::Command::new("touch")
        .args(["-d", "2001-01-01", old.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(ok.success());
    let _ = dibs(&repo.root, &["doctor"]);
    assert!(!old.exists(), "an old temporary file is removed");
    assert!(fresh.exists(), "a live writer's temporary file is kept");
}

#[test]
fn an_erased_store_is_noticed_and_a_lost_index_rebuilt_from_the_records() {
    let repo = TestRepo::new();
    start(&repo, A);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn half_done() {}\n");
    // The index goes (an agent's `find .git/dibs/index -delete`): B is still warned about A.
    std::fs::remove_dir_all(repo.store_dir().join("index")).unwrap();
    let run = hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    assert!(
        run.stdout.contains("aaaaaaaa"),
        "the holder is still named: {run:?}"
    );
    let shown = doctor_text(&repo.root);
    assert!(shown.contains("index was removed"), "{shown}");

    // The whole store goes: the next session start and doctor say so.
    std::fs::rename(repo.store_dir(), repo.root.join(".git/elsewhere")).unwrap();
    let ev = claude_event("SessionStart", B, &repo.root, json!({"source": "startup"}));
    let run = hook(&repo.root, &ev);
    assert!(run.stdout.contains("was removed or moved away"), "{run:?}");
    assert!(doctor_text(&repo.root).contains("was removed or moved away"));
}

#[test]
fn a_co_edit_warning_is_delivered_when_the_store_write_that_follows_fails() {
    let repo = TestRepo::new();
    start(&repo, A);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    // Another process holds the store's lock past the timeout.
    let lock = repo.store_dir().join("lock");
    let mut holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["sleep", "6"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let run = hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(
        run.stdout.contains("aaaaaaaa"),
        "the warning still arrives: {run:?}"
    );
    assert!(run.stderr.contains("locked"), "{run:?}");
}

#[test]
fn a_lost_update_refusal_is_delivered_when_the_store_write_that_follows_fails() {
    let repo = TestRepo::new();
    let file = repo.root.join("src/lib.rs");
    let read = claude_event(
        "PostToolUse",
        A,
        &repo.root,
        json!({"tool_name": "Read", "tool_input": {"file_path": file}, "tool_response": {}}),
    );
    // A reads; B changes the file afterwards; A's whole-file Write would erase B's change.
    hook(&repo.root, &read);
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    hook(&repo.root, &repo.pre_edit(B, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn from_b() {}\n");
    hook(
        &repo.root,
        &edit_event("PostToolUse", "Edit", B, &repo.root, &file),
    );
    // Another process holds the store's lock past the timeout; A's call comes two minutes on
    // (the test clock of debug builds), so its record must be written.
    let lock = repo.store_dir().join("lock");
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&lock)
        .args(["sleep", "6"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let later = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 120)
        .to_string();
    let write = edit_event("PreToolUse", "Write", A, &repo.root, &file);
    let run = hook_raw(
        &repo.root,
        format!("{write}\n").as_bytes(),
        &[("DIBS_NOW", &later)],
    );
    let _ = holder.kill();
    let _ = holder.wait();
    let v = run.json();
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecision"], "deny",
        "the refusal still arrives: {run:?}"
    );
    assert!(run.stderr.contains("locked"), "{run:?}");
}

/// What was planted is untouched, no link is left in the store, and `doctor` reports what it set
/// aside.
fn assert_set_aside_and_reported(repo: &TestRepo, victim: &Victim) {
    let shown = doctor_text(&repo.root);
    victim.assert_untouched();
    assert_eq!(links_left(&repo.store_dir()), Vec::<PathBuf>::new());
    assert!(shown.contains("link or special file"), "{shown}");
}

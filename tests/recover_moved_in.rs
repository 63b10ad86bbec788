//! Files a shell command brings in from outside the worktree keep their old times: `mv` of a
//! folder changes the change time of the folder alone (not of the files in it), `cp -a`,
//! `tar x`, `rsync -a` and `touch -d` set old modification times. The scan after the command still takes
//! them as the command's: a folder whose own change time is recent counts with all it holds,
//! so the next command's `rm -rf` loses nothing. An old untracked file next to nothing that
//! changed stays out of the scan. No file can be made older than ten minutes by its change time
//! (only the clock sets it), so the scans here look back one second (`DIBS_TEST_RECENT_SECS`),
//! and the old files are made a few seconds before the command.

mod common;
mod recover_support;

use std::fs::{self, File, FileTimes};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::*;
use recover_support::*;

/// How far back the scans of these tests look, in seconds.
const WINDOW: &str = "1";

/// A Bash tool call as [`Agent::bash`] makes it, the scan after it looking back [`WINDOW`];
/// the post-tool hook must say nothing.
fn bash(agent: &Agent, command: &str) {
    assert_eq!(agent.pre_bash(command).code, 0);
    sh(&agent.cwd, command);
    agent
        .post_bash_env(command, &[("DIBS_TEST_RECENT_SECS", WINDOW)])
        .assert_silent();
}

/// Wait until what was made so far is out of the scans' window.
fn out_of_window() {
    std::thread::sleep(Duration::from_millis(3200));
}

/// 2001-09-09, long before any scan's window.
fn long_ago() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
}

/// Set both times of `path` (a file or a folder) to [`long_ago`].
fn age(path: &Path) {
    let times = FileTimes::new()
        .set_accessed(long_ago())
        .set_modified(long_ago());
    File::open(path).unwrap().set_times(times).unwrap();
}

/// A folder `work` in `outside` (no repository) holding two files and a sub-folder, every
/// file and folder dated [`long_ago`]: (the folder, the files as (path below `work`, bytes)).
fn aged_work(outside: &Path) -> (PathBuf, Vec<(&'static str, Vec<u8>)>) {
    let work = outside.join("work");
    let files = vec![
        ("notes.md", b"results of a long run\n".to_vec()),
        ("deep/er/data.bin", binary(3000)),
    ];
    for (rel, bytes) in &files {
        let path = work.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, bytes).unwrap();
        age(&path);
    }
    for dir in ["deep/er", "deep", ""] {
        age(&work.join(dir));
    }
    out_of_window();
    (work, files)
}

/// In a new repository where `setup` ran first (no hook sees it), session "mover" runs `bring`
/// (`{src}`: the aged folder outside, `{dst}`: `DST`, which does not exist yet); session
/// "cleaner" then runs `clean`; git collects garbage; `recover` of `DST`'s parent brings back
/// every file, byte for byte.
#[track_caller]
fn brought_in_survives(setup: &str, bring: &str, clean: &str) {
    const DST: &str = "lane/work";
    let repo = TestRepo::new();
    let root = &repo.root;
    sh(root, setup);
    let outside = tempfile::tempdir().unwrap();
    let (work, files) = aged_work(outside.path());
    let command = bring
        .replace("{src}", &work.display().to_string())
        .replace("{dst}", DST);
    bash(&Agent::new("mover", root), &command);
    let landed = root.join(DST).join(files[0].0);
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    assert!(
        fs::metadata(&landed).unwrap().modified().unwrap() < hour_ago,
        "`{command}`: the file kept its old time"
    );
    Agent::new("cleaner", root).bash(clean);
    collect_garbage(root);
    let want: Vec<(PathBuf, Vec<u8>)> = files
        .iter()
        .map(|(rel, bytes)| (root.join(DST).join(rel), bytes.clone()))
        .collect();
    assert_recovers(root, &["lane"], &want);
}

#[test]
fn a_folder_moved_in_with_old_times_is_kept() {
    brought_in_survives("mkdir lane", "mv {src} {dst}", "rm -rf lane");
}

#[test]
fn a_folder_moved_in_then_written_to_is_kept_whole() {
    // The folder's own modification time is new too: it is not told apart from a folder a
    // file was added to, and still counts whole.
    brought_in_survives(
        "mkdir lane",
        "mv {src} {dst} && echo new > {dst}/new.txt",
        "rm -rf lane",
    );
}

#[test]
fn a_folder_copied_or_unpacked_with_old_times_is_kept() {
    brought_in_survives("mkdir lane", "cp -a {src} {dst}", "rm -rf lane");
    brought_in_survives(
        "mkdir lane",
        "mkdir -p {dst} && tar -C {src} -cf - . | tar -C {dst} -xf -",
        "rm -rf lane",
    );
    brought_in_survives(
        "mkdir lane",
        "cp -r {src} {dst} && find {dst} -exec touch -d 2001-09-09 {} +",
        "rm -rf lane",
    );
}

#[test]
fn a_folder_moved_into_a_tracked_folder_is_kept() {
    brought_in_survives(
        "mkdir lane && echo t > lane/t.txt && git add lane && git commit -qm lane",
        "mv {src} {dst}",
        "git clean -fdq lane",
    );
}

#[test]
fn a_folder_moved_in_under_a_rule_of_ones_own_is_kept() {
    // Hidden by a line in `.git/info/exclude` (not HEAD's rules): the folder is entered as
    // untracked, and counts whole.
    brought_in_survives(
        "echo 'lane/' >> .git/info/exclude && mkdir lane",
        "mv {src} {dst}",
        "rm -rf lane",
    );
}

#[test]
fn old_untracked_files_where_nothing_changed_are_not_scanned() {
    // The worktree's own folder changes with every file made at its top: it does not make
    // every old file there the command's. Nor does a folder no one touched.
    let repo = TestRepo::new();
    let root = &repo.root;
    fs::create_dir_all(root.join("old")).unwrap();
    for rel in ["notes.txt", "old/notes.txt"] {
        fs::write(root.join(rel), "from last week\n").unwrap();
        age(&root.join(rel));
    }
    out_of_window();
    bash(&Agent::new("worker", root), "echo fresh > fresh.txt");
    let v = recover_json(root, &[]);
    assert_eq!(listed_paths(&v), ["fresh.txt"]);
}

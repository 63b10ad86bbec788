//! Tests of the sweep's copy of a snapshot state log: used only while it is the log's, rebuilt
//! when missing, stale or damaged, and never the reason a changed file is missed.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::platform::below::Below;
use crate::store::lease::known;
use crate::store::{Lease, SnapState, Store, Watched};

/// A store and a worktree with `n` files below two folders, all snapshotted by session `s`.
struct Setup {
    _dir: tempfile::TempDir,
    store: Store,
    root: PathBuf,
    state: SnapState,
}

fn stamp(path: &Path) -> Stamp {
    Stamp::of(&fs::symlink_metadata(path).unwrap())
}

fn setup(n: usize) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let root = dir.path().join("wt");
    let mut files = Vec::new();
    for i in 0..n {
        let rel = format!("{}/f{i:03}.rs", ["src", "src/deep"][i % 2]);
        let full = root.join(&rel);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(&full, format!("content {i:03}\n")).unwrap();
        files.push(Watched {
            worktree: root.clone(),
            path: rel,
            stamp: stamp(&full),
            skipped: None,
            blob: Some(format!("{i:040x}")),
        });
    }
    let mut state = SnapState {
        session: "s".into(),
        host: "claude".into(),
        ..SnapState::default()
    };
    store
        .add_snapshot_state(&mut state, Some(&"c".repeat(40)), 1, files)
        .unwrap();
    Setup {
        _dir: dir,
        store,
        root,
        state,
    }
}

impl Setup {
    fn log(&self) -> PathBuf {
        self.store.state_path("s")
    }

    fn copy(&self) -> PathBuf {
        path_of(&self.log())
    }

    /// The copy as the sweep would take it now.
    fn fresh_copy(&self) -> Option<Cache> {
        let key = Lstat::of(&fs::symlink_metadata(self.log()).unwrap());
        Cache::read(&self.copy(), &key)
    }

    /// What the sweep finds changed, by real `lstat` as the hook asks it, and how many files
    /// it asked about.
    fn sweep(&self) -> (Vec<String>, usize) {
        self.sweep_at(0, &mut known(0))
    }

    /// [`Setup::sweep`] at `now`, sessions active within `lease`.
    fn sweep_at<F: FnOnce() -> u64>(&self, now: u64, lease: &mut Lease<F>) -> (Vec<String>, usize) {
        let mut below: Option<Below> = None;
        let mut asked = 0;
        let found = self
            .store
            .changed_watched(now, lease, 512, |root, rel, stamp| {
                asked += 1;
                let files = match &mut below {
                    Some(b) if b.root() == root => b,
                    slot => slot.insert(Below::new(root)),
                };
                files.lstat(rel).is_some_and(|s| Stamp::from(s) != *stamp)
            });
        let mut paths: Vec<String> = found
            .into_iter()
            .flat_map(|c| c.files.into_iter().map(|(_, p)| p))
            .collect();
        paths.sort();
        (paths, asked)
    }
}

#[test]
fn the_first_sweep_writes_the_copy_and_later_ones_read_it_in_path_order() {
    let s = setup(40);
    assert!(!s.copy().exists());
    assert_eq!(s.sweep(), (vec![], 40));
    let copy = s
        .fresh_copy()
        .expect("written by the sweep that read the log");
    assert_eq!(copy.session(), "s");
    // Every file, once, grouped by worktree and in path order below it.
    let mut seen = Vec::new();
    assert!(!copy.any_changed(|root, rel, stamp| {
        assert_eq!(root, s.root);
        let rel = String::from_utf8(rel.to_vec()).unwrap();
        assert_eq!(*stamp, self::stamp(&root.join(&rel)));
        seen.push(rel);
        false
    }));
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted);
    let mut watched: Vec<String> = s.state.files.iter().map(|w| w.path.clone()).collect();
    watched.sort();
    assert_eq!(seen, watched);
    // Nothing changed: the log is not read again, the copy answers.
    let before = fs::symlink_metadata(s.copy()).unwrap().modified().unwrap();
    assert_eq!(s.sweep(), (vec![], 40));
    assert_eq!(
        fs::symlink_metadata(s.copy()).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_file_rewritten_to_the_same_size_at_once_is_found_through_the_copy() {
    let s = setup(10);
    assert_eq!(s.sweep().0, Vec::<String>::new());
    assert!(s.fresh_copy().is_some());
    // Same length, same inode, within the same second (and likely the same clock tick).
    let file = s.root.join("src/deep/f003.rs");
    fs::write(&file, "content XYZ\n").unwrap();
    assert!(s.fresh_copy().is_some(), "the log did not change");
    assert_eq!(s.sweep().0, vec!["src/deep/f003.rs".to_owned()]);
    // A file gone is not a change (its last content is in the snapshot already).
    fs::remove_file(&file).unwrap();
    assert_eq!(s.sweep().0, Vec::<String>::new());
}

#[test]
fn a_copy_made_stale_by_a_new_line_in_the_log_is_not_believed() {
    let mut s = setup(10);
    assert_eq!(s.sweep().0, Vec::<String>::new());
    // The log now remembers other stat data for a file than the copy (and the file) has:
    // the copy would say "unchanged", the log says it changed.
    let file = s.root.join("src/f004.rs");
    let mut entry = s.state.watched(&s.root, "src/f004.rs").unwrap().clone();
    entry.stamp.mtime -= 1;
    s.store
        .add_snapshot_state(&mut s.state, None, 2, vec![entry])
        .unwrap();
    assert!(s.fresh_copy().is_none(), "stale once the log grew");
    let ino = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let was = ino(&s.copy());
    assert_eq!(s.sweep().0, vec!["src/f004.rs".to_owned()]);
    // That sweep wrote a fresh copy, over the old one (no file created), which tells the same.
    assert!(s.fresh_copy().is_some());
    assert_eq!(ino(&s.copy()), was);
    assert_eq!(s.sweep().0, vec!["src/f004.rs".to_owned()]);
    // Snapshotted again as it is: unchanged, by the copy rebuilt after the new line.
    let entry = Watched {
        stamp: stamp(&file),
        ..s.state.watched(&s.root, "src/f004.rs").unwrap().clone()
    };
    s.store
        .add_snapshot_state(&mut s.state, None, 3, vec![entry])
        .unwrap();
    assert_eq!(s.sweep().0, Vec::<String>::new());
    assert!(s.fresh_copy().is_some());
}

#[test]
fn a_damaged_torn_foreign_or_missing_copy_is_rebuilt_and_changes_are_still_found() {
    let s = setup(12);
    assert_eq!(s.sweep().0, Vec::<String>::new());
    let good = fs::read(s.copy()).unwrap();
    fs::write(s.root.join("src/f002.rs"), "content 2!!\n").unwrap();
    let flipped = |at: usize| {
        let mut b = good.clone();
        b[at] ^= 0x40;
        b
    };
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("a byte of a stamp", flipped(HEADER + 40)),
        ("a byte of the key", flipped(10)),
        ("the magic", flipped(0)),
        ("the body's length", flipped(57)),
        ("torn", good[..good.len() - 3].to_vec()),
        ("header only", good[..HEADER].to_vec()),
        ("empty", Vec::new()),
        ("extra bytes", [good.as_slice(), b"xx"].concat()),
    ];
    for (what, bytes) in damaged {
        fs::write(s.copy(), &bytes).unwrap();
        assert!(s.fresh_copy().is_none(), "{what}: not believed");
        assert_eq!(s.sweep().0, vec!["src/f002.rs".to_owned()], "{what}");
        assert!(s.fresh_copy().is_some(), "{what}: rebuilt");
    }
    fs::remove_file(s.copy()).unwrap();
    assert_eq!(s.sweep().0, vec!["src/f002.rs".to_owned()], "missing");
    assert!(s.fresh_copy().is_some(), "missing: rebuilt");
    // A link where the copy goes is never followed.
    fs::remove_file(s.copy()).unwrap();
    let elsewhere = s.root.join("elsewhere");
    fs::write(&elsewhere, &good).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.copy()).unwrap();
    assert!(s.fresh_copy().is_none(), "a link");
    assert_eq!(s.sweep().0, vec!["src/f002.rs".to_owned()], "a link");
}

#[test]
fn a_compacted_log_is_a_new_log() {
    let mut s = setup(4);
    assert_eq!(s.sweep().0, Vec::<String>::new());
    let key = Lstat::of(&fs::symlink_metadata(s.log()).unwrap());
    // Rewrite the log whole (as a compaction does), same text: a new file.
    let text = fs::read(s.log()).unwrap();
    crate::store::fsio::write_atomic(&s.log(), &text).unwrap();
    let now = Lstat::of(&fs::symlink_metadata(s.log()).unwrap());
    assert_ne!(key, now);
    assert!(s.fresh_copy().is_none());
    // Lots of snapshots of one file: the log is compacted along the way, and the sweep's
    // answer is the log's all through.
    let file = s.root.join("src/f000.rs");
    for round in 0..900 {
        let entry = Watched {
            stamp: stamp(&file),
            ..s.state.watched(&s.root, "src/f000.rs").unwrap().clone()
        };
        s.store
            .add_snapshot_state(&mut s.state, None, 4 + round, vec![entry])
            .unwrap();
        if round % 150 == 0 {
            assert_eq!(s.sweep().0, Vec::<String>::new(), "round {round}");
            fs::write(&file, format!("round {round:07}\n")).unwrap();
            assert_eq!(s.sweep().0, vec!["src/f000.rs".to_owned()], "round {round}");
        }
    }
}

#[test]
fn the_lease_is_read_only_for_a_log_older_than_the_shortest_lease() {
    let s = setup(6);
    fs::write(s.root.join("src/f002.rs"), "changed!\n").unwrap();
    let written = fs::symlink_metadata(s.log())
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let reads = std::cell::Cell::new(0);
    let at = |age: u64, lease: u64| {
        let mut lease = Lease::new(600, || {
            reads.set(reads.get() + 1);
            lease
        });
        s.sweep_at(written + age, &mut lease).0
    };
    let changed = vec!["src/f002.rs".to_owned()];
    // Younger than any lease can be: swept, and no setting read.
    assert_eq!(at(0, 3600), changed);
    assert_eq!(at(600, 3600), changed);
    assert_eq!(reads.get(), 0);
    // Older: the lease read says (once per sweep), to its last second.
    assert_eq!(at(1200, 3600), changed);
    assert_eq!(at(3600, 3600), changed);
    assert_eq!(at(3601, 3600), Vec::<String>::new());
    assert_eq!(at(1200, 900), Vec::<String>::new());
    assert_eq!(reads.get(), 4);
    // A setting under the floor is the floor.
    assert_eq!(at(600, 5), changed);
    assert_eq!(at(601, 5), Vec::<String>::new());
}

#[test]
fn a_folder_or_file_swapped_for_a_link_is_never_followed_and_a_new_folder_is_new_files() {
    let s = setup(8);
    assert_eq!(s.sweep().0, Vec::<String>::new());
    // `src/deep` becomes a link to a folder whose files all differ: nothing is read through
    // it (the files' last content is in the snapshot already).
    let deep = s.root.join("src/deep");
    let moved = s.root.join("moved");
    fs::rename(&deep, &moved).unwrap();
    for f in fs::read_dir(&moved).unwrap() {
        fs::write(f.unwrap().path(), "other content, other size\n").unwrap();
    }
    std::os::unix::fs::symlink(&moved, &deep).unwrap();
    assert_eq!(s.sweep().0, Vec::<String>::new());
    // A real folder again, holding the same names anew (new inodes): all changed.
    fs::remove_file(&deep).unwrap();
    fs::create_dir(&deep).unwrap();
    for i in [1, 3, 5, 7] {
        fs::write(
            deep.join(format!("f{i:03}.rs")),
            format!("content {i:03}\n"),
        )
        .unwrap();
    }
    let deep_files: Vec<String> = [1, 3, 5, 7]
        .iter()
        .map(|i| format!("src/deep/f{i:03}.rs"))
        .collect();
    assert_eq!(s.sweep().0, deep_files);
    // A file swapped for a link to a copy of itself: a change (the link is what is there).
    let file = s.root.join("src/f000.rs");
    let copy = s.root.join("copy");
    fs::copy(&file, &copy).unwrap();
    fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&copy, &file).unwrap();
    let mut expected = deep_files;
    expected.insert(0, "src/f000.rs".to_owned());
    expected.sort();
    assert_eq!(s.sweep().0, expected);
}

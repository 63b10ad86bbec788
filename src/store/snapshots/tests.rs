//! Tests of the snapshot state: appends, compactions, bounds, reads in place.

use super::*;
use crate::store::lease::known;
use std::os::unix::ffi::OsStrExt;

#[test]
fn states_round_trip_through_appends_and_compactions_and_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert!(store.snapshot_states().is_empty());
    let meta = fs::symlink_metadata(dir.path()).unwrap();
    let mut state = SnapState {
        session: "s/1".into(),
        host: "claude".into(),
        ..SnapState::default()
    };
    let file = |root: &str, i: usize, skipped: Option<&str>| Watched {
        worktree: root.into(),
        path: format!("d/f{i}"),
        stamp: Stamp::of(&meta),
        skipped: skipped.map(str::to_owned),
        blob: skipped.is_none().then(|| format!("{i:040x}")),
    };
    // Batches of files, some seen again, in two worktrees: the log grows past the point
    // where it is compacted, more than once.
    let path = store.state_path("s/1");
    let mut longest = 0;
    for batch in 0..120 {
        let files: Vec<Watched> = (0..40)
            .map(|k| file(["/w", "/v"][k % 2], (batch * 37 + k) % 300, None))
            .collect();
        let commit = format!("{batch:040x}");
        store
            .add_snapshot_state(&mut state, Some(&commit), batch as u64, files)
            .unwrap();
        longest = longest.max(fs::metadata(&path).unwrap().len());
        assert_eq!(
            store.snapshot_state("s/1").as_ref(),
            Some(&state),
            "batch {batch}"
        );
    }
    assert!(longest > COMPACT_AT);
    assert!(fs::metadata(&path).unwrap().len() < longest, "compacted");
    assert_eq!(state.files.len(), 600);
    // At most MAX_WATCHED files, the newest.
    let many = (1000..1000 + MAX_WATCHED)
        .map(|i| file("/v", i, None))
        .collect();
    store.add_snapshot_state(&mut state, None, 6, many).unwrap();
    assert_eq!(state.files.len(), MAX_WATCHED);
    assert_eq!(store.snapshot_state("s/1").as_ref(), Some(&state));
    store
        .add_snapshot_state(&mut state, None, 7, vec![file("/w", 5, Some("a FIFO"))])
        .unwrap();
    assert_eq!(state.files.len(), MAX_WATCHED);
    assert_eq!(state.files.last().unwrap().path, "d/f5");
    assert_eq!(
        state.commit.as_deref(),
        Some(format!("{:040x}", 119).as_str())
    );
    assert_eq!(store.snapshot_state("s/1"), Some(state.clone()));
    assert_eq!(store.snapshot_state("s/2"), None);
    // Read in place: the files `changed` picks, taken newest first, within the limit.
    let mut asked = Vec::new();
    let changed = store.changed_watched(0, &mut known(0), 3, |root, rel, stamp| {
        let full = root.join(std::ffi::OsStr::from_bytes(rel));
        asked.push(full.clone());
        *stamp == Stamp::of(&meta) && !full.ends_with("d/f1001")
    });
    let newest: Vec<(PathBuf, String)> = state
        .files
        .iter()
        .rev()
        .filter(|w| w.path != "d/f1001")
        .take(3)
        .map(|w| (w.worktree.clone(), w.path.clone()))
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        (changed[0].session.as_str(), changed[0].host.as_str()),
        ("s/1", "claude")
    );
    assert_eq!(changed[0].files, newest);
    // Every file is stat'ed once, in path order within each worktree.
    assert_eq!(asked.len(), state.files.len());
    let in_w: Vec<&PathBuf> = asked.iter().filter(|p| p.starts_with("/w")).collect();
    assert!(in_w.windows(2).all(|p| p[0] < p[1]), "in path order");
    assert!(
        store
            .changed_watched(0, &mut known(0), 9, |_, _, _| false)
            .is_empty()
    );
    assert!(
        store
            .changed_watched(u64::MAX, &mut known(0), 9, |_, _, _| true)
            .is_empty()
    );
    let commit = state.commit.clone().unwrap();
    assert_eq!(
        store.snapshot_heads_in(&[Path::new("/v")]),
        vec![("s/1".to_owned(), commit.clone())]
    );
    assert_eq!(
        store.snapshot_heads_in(&[Path::new("/")]),
        vec![("s/1".to_owned(), commit)]
    );
    assert!(store.snapshot_heads_in(&[Path::new("/x")]).is_empty());
    assert_eq!(store.snapshot_states_since(0), vec![state]);
    assert!(store.snapshot_states_since(u64::MAX).is_empty());
    store.drop_snapshot_states_before(u64::MAX);
    assert!(store.snapshot_states().is_empty());
}

#[test]
fn heads_and_failures_are_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.last_head(Path::new("/a")), None);
    store.remember_head(Path::new("/a"), "1111");
    store.remember_head(Path::new("/b"), "2222");
    store.remember_head(Path::new("/a"), "3333");
    assert_eq!(store.last_head(Path::new("/a")).as_deref(), Some("3333"));
    assert_eq!(store.last_head(Path::new("/b")).as_deref(), Some("2222"));
    assert_eq!(store.last_snapshot_failure(), None);
    store.note_snapshot_failure(7, "disk full\n");
    let failed = store.last_snapshot_failure().unwrap();
    assert_eq!((failed.at, failed.what.as_str()), (7, "disk full"));
}

#[test]
fn a_log_read_again_in_one_process_is_read_anew_once_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let meta = fs::symlink_metadata(dir.path()).unwrap();
    let mut state = SnapState {
        session: "s-memo".into(),
        host: "claude".into(),
        ..SnapState::default()
    };
    let file = |i: usize| Watched {
        worktree: "/m".into(),
        path: format!("f{i}"),
        stamp: Stamp::of(&meta),
        skipped: None,
        blob: Some(format!("{i:040x}")),
    };
    let heads = |store: &Store| store.snapshot_heads_in(&[Path::new("/m")]);
    store
        .add_snapshot_state(&mut state, Some(&format!("{:040x}", 1)), 1, vec![file(1)])
        .unwrap();
    assert_eq!(
        heads(&store),
        vec![("s-memo".to_owned(), format!("{:040x}", 1))]
    );
    // The same answer from what was read, then the newer commit once the log grew.
    assert_eq!(
        heads(&store),
        vec![("s-memo".to_owned(), format!("{:040x}", 1))]
    );
    store
        .add_snapshot_state(&mut state, Some(&format!("{:040x}", 2)), 2, vec![file(2)])
        .unwrap();
    assert_eq!(
        heads(&store),
        vec![("s-memo".to_owned(), format!("{:040x}", 2))]
    );
    store.drop_snapshot_states_before(u64::MAX);
    assert!(heads(&store).is_empty());
}

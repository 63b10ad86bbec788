//! Unit tests of the store: fencing by generation, pruning, the index staying in line.

use std::time::Duration;

use super::*;
use crate::host::Host;

pub(super) fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    (dir, store)
}

pub(super) fn key(path: &str) -> FileKey {
    FileKey::new("/work/repo", path)
}

/// Apply `changes` to session `id` (a Claude session) as an anonymous writer at `now`.
pub(super) fn apply_anon(store: &Store, id: &str, now: u64, changes: &[Change]) -> Session {
    store
        .apply(id, Host::Claude, Writer::Anonymous, now, changes)
        .unwrap()
}

/// Assert that `err` fences a writer of generation 0 off a record at generation 1.
#[track_caller]
pub(super) fn assert_fenced_0_1(err: &StoreError) {
    assert!(
        matches!(
            err,
            StoreError::Fenced {
                held: 0,
                current: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_writer_with_an_older_generation_is_refused() {
    let (_dir, store) = store();
    let touch = [Change::Touch(vec![key("a.rs")])];
    // A write by a writer holding generation `g`.
    let stamped = |g, now, changes: &[Change]| {
        store.apply("s1", Host::Claude, Writer::Stamped(g), now, changes)
    };
    stamped(0, 100, &touch).unwrap();
    assert_eq!(store.bump_generation("s1", Host::Claude, 101).unwrap(), 1);

    let err = stamped(0, 102, &[Change::Touch(vec![key("b.rs")])]).unwrap_err();
    assert_fenced_0_1(&err);
    let err = stamped(0, 102, &[Change::ReleaseAllBut(Vec::new())]).unwrap_err();
    assert!(matches!(err, StoreError::Fenced { .. }));
    // Nothing the stale writer tried landed.
    let s = store.session("s1").unwrap().unwrap();
    assert_eq!(s.files.len(), 1);
    assert_eq!(s.last_seen, 101);

    // The current generation, and callers without a stamp, still write.
    stamped(1, 103, &[Change::Touch(vec![key("b.rs")])]).unwrap();
    apply_anon(&store, "s1", 104, &[]);
    assert_eq!(store.session("s1").unwrap().unwrap().files.len(), 2);
}

#[test]
fn holders_follow_touches_and_releases() {
    let (_dir, store) = store();
    apply_anon(
        &store,
        "s1",
        100,
        &[Change::Touch(vec![key("a.rs"), key("b.rs")])],
    );
    store
        .apply(
            "s2",
            Host::Codex,
            Writer::Anonymous,
            110,
            &[Change::Touch(vec![key("a.rs")])],
        )
        .unwrap();
    let holders = store.holders(&key("a.rs"), "s2", 0).unwrap();
    assert_eq!(holders.len(), 1);
    assert_eq!(holders[0].session.id, "s1");
    assert_eq!(holders[0].touch.as_ref().unwrap().first, 100);
    assert!(store.holders(&key("b.rs"), "s1", 0).unwrap().is_empty());

    apply_anon(&store, "s1", 120, &[Change::ReleaseAllBut(Vec::new())]);
    assert!(store.holders(&key("a.rs"), "s2", 0).unwrap().is_empty());
    assert!(
        !store.index_dir(&key("b.rs").digest()).exists(),
        "empty index folders go away"
    );
}

#[test]
fn unusual_session_ids_get_safe_file_names() {
    let (_dir, store) = store();
    for id in [
        "../../etc/passwd",
        ".hidden",
        "a/b",
        "",
        "ü-unicode",
        &"x".repeat(300),
    ] {
        apply_anon(&store, id, 100, &[Change::Touch(vec![key("a.rs")])]);
        assert_eq!(store.session(id).unwrap().unwrap().id, id);
    }
    assert_eq!(store.sessions().unwrap().len(), 6);
    assert_eq!(store.holders(&key("a.rs"), "nobody", 0).unwrap().len(), 6);
}

#[test]
fn pruning_unindexes_dead_sessions_and_later_deletes_them() {
    let (_dir, store) = store();
    let ttl = Duration::from_secs(60);
    let day = 24 * 60 * 60;
    apply_anon(&store, "old", 1_000, &[Change::Touch(vec![key("a.rs")])]);
    apply_anon(&store, "new", 1_050, &[Change::Touch(vec![key("a.rs")])]);
    store.prune_locked(ttl, 1_100).unwrap();
    let holders = store.holders(&key("a.rs"), "x", 0).unwrap();
    assert_eq!(holders.len(), 1, "the dead session left the index");
    assert_eq!(holders[0].session.id, "new");
    assert!(
        store.session("old").unwrap().is_some(),
        "kept for status --all"
    );

    // Coming back to life puts it back in the index.
    apply_anon(&store, "old", 1_200, &[]);
    assert_eq!(store.holders(&key("a.rs"), "x", 0).unwrap().len(), 2);

    store.prune_locked(ttl, 1_200 + 60 + day).unwrap();
    assert!(store.sessions().unwrap().is_empty());
    assert!(store.holders(&key("a.rs"), "x", 0).unwrap().is_empty());
}

#[test]
fn prune_is_rate_limited() {
    let (_dir, store) = store();
    apply_anon(&store, "s", 1, &[Change::Touch(vec![key("a.rs")])]);
    let mut asked = 0;
    for _ in 0..2 {
        store
            .prune_if_due(
                || {
                    asked += 1;
                    Duration::from_secs(1)
                },
                now_secs(),
            )
            .unwrap();
    }
    assert_eq!(asked, 1, "the second call found pruning not due");
}

#[test]
fn pruning_removes_markers_of_records_that_are_gone() {
    let (_dir, store) = store();
    apply_anon(&store, "gone", 1_000, &[Change::Touch(vec![key("a.rs")])]);
    std::fs::remove_file(store.session_path("gone")).unwrap();
    assert!(store.index_dir(&key("a.rs").digest()).exists());
    store.prune_locked(Duration::from_secs(60), 1_001).unwrap();
    assert!(!store.index_dir(&key("a.rs").digest()).exists());
}

#[test]
fn empty_markers_are_names_of_one_empty_file_and_a_header_is_never_written_through_them() {
    use std::os::unix::fs::MetadataExt;
    let (_dir, store) = store();
    let ino = |p: &Path| fs::symlink_metadata(p).unwrap().ino();
    let marker = |k: &FileKey, s: &str| store.index_dir(&k.digest()).join(s);
    let anchor = store.dir().join("empty");
    let in_repo = Change::Activity {
        worktree: Some("/work/repo".into()),
        branch: None,
    };
    apply_anon(
        &store,
        "s1",
        100,
        &[in_repo, Change::Touch(vec![key("a.rs")])],
    );
    apply_anon(
        &store,
        "s2",
        100,
        &[Change::Touch(vec![key("a.rs"), key("b.rs")])],
    );
    for m in [marker(&key("a.rs"), "s1"), marker(&key("a.rs"), "s2")] {
        assert_eq!(ino(&m), ino(&anchor), "{m:?} is a name of the empty file");
    }
    // The worktree marker carries s1's header: a file of its own, and the empty file stays
    // empty.
    let head = store
        .index_dir(&record::worktree_digest(Path::new("/work/repo")))
        .join("s1");
    assert_ne!(ino(&head), ino(&anchor));
    assert!(fs::read(&head).unwrap().starts_with(b"{\"id\":\"s1\""));
    assert_eq!(fs::metadata(&anchor).unwrap().len(), 0);
    // An empty file with something in it, or a link in its place, is never linked to again.
    fs::write(&anchor, "planted").unwrap();
    apply_anon(&store, "s1", 200, &[Change::Touch(vec![key("c.rs")])]);
    let c = marker(&key("c.rs"), "s1");
    assert_eq!(fs::read(&c).unwrap(), b"");
    assert_eq!(ino(&c), ino(&anchor));
    let victim = store.dir().join("victim");
    fs::write(&victim, "").unwrap();
    fs::remove_file(&anchor).unwrap();
    std::os::unix::fs::symlink(&victim, &anchor).unwrap();
    apply_anon(&store, "s1", 300, &[Change::Touch(vec![key("d.rs")])]);
    let d = marker(&key("d.rs"), "s1");
    assert!(fs::symlink_metadata(&d).unwrap().is_file());
    assert_eq!(fs::symlink_metadata(&victim).unwrap().nlink(), 1);
    assert_eq!(store.holders(&key("d.rs"), "s2", 0).unwrap().len(), 1);
}

#[test]
fn every_session_id_makes_a_valid_snapshot_ref_name() {
    let ids = [
        "3f2a9c1e-0b7d-4e55-9a61-1c2d3e4f5a6b",
        "review.lock",
        "a..b",
        "ends.",
        ".hidden",
        "x y:~^",
        "..",
        "/abs",
        "new\nline",
        "ok-id_1.2",
        "a.lock.b",
    ];
    for id in ids {
        let key = Store::snapshot_key(id);
        // A ref component's rules are a branch name's (`refs/dibs/snapshots/<key>`).
        assert!(
            crate::git::is_valid_branch_name(&format!("dibs/snapshots/{key}")),
            "{id:?} -> {key}"
        );
        assert!(!key.ends_with(".lock"), "{id:?} -> {key}");
    }
    // Plain ids stay readable; only those git or the store would misread are hashed.
    assert_eq!(Store::snapshot_key("ok-id_1.2"), "ok-id_1.2");
    assert_eq!(Store::snapshot_key("a.lock.b"), "a.lock.b");
    assert!(Store::snapshot_key("review.lock").starts_with("h-"));
}

#[test]
fn a_store_file_denied_to_the_user_says_so_once_and_what_to_do() {
    let e = StoreError::Io {
        path: std::path::PathBuf::from("/r/.git/dibs/locks/gate"),
        cause: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    };
    let text = format!("{:#}", anyhow::Error::from(e));
    assert_eq!(text.matches("permission denied").count(), 1, "{text}");
    assert!(
        text.contains("the store /r/.git/dibs must be readable and writable by you"),
        "{text}"
    );
    let other = StoreError::Io {
        path: std::path::PathBuf::from("/r/.git/dibs/x"),
        cause: std::io::Error::from(std::io::ErrorKind::NotFound),
    };
    assert!(!other.to_string().contains("chmod"), "{other}");
}

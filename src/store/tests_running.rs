//! Unit tests of the running and pending marks: markers merge while fresh, each call of an
//! actor has its own, an actor's unended calls are shown to it until scanned, and markers
//! nobody ended neither crowd out a live one nor outlive the lease.

use super::*;

fn run(session: &str, since: u64, root: &str) -> Running {
    Running {
        session: session.into(),
        host: "claude".into(),
        since,
        at: since,
        roots: vec![PathBuf::from(root)],
        agent: None,
        call: None,
        scanned: None,
        resume: Vec::new(),
    }
}

/// What `except` is shown at time 1000 with a lease of an hour.
fn seen(store: &Store, marks: Marks, except: Option<&str>) -> Vec<Running> {
    store.running_except(marks, except, 1000, &mut crate::store::lease::known(3600))
}

#[test]
fn markers_merge_while_fresh_and_are_listed_for_the_others() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dibs")).unwrap();
    let store = Store::existing(dir.path()).unwrap();
    store.mark_running(Marks::Running, run("s1", 100, "/a"), 60);
    store.mark_running(Marks::Running, run("s1", 130, "/b"), 60);
    store.mark_running(Marks::Running, run("s2", 140, "/a"), 60);
    let shown = seen(&store, Marks::Running, Some("s2"));
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].since, 100);
    assert_eq!(shown[0].roots, [PathBuf::from("/b"), PathBuf::from("/a")]);
    // A marker older than `fresh` is replaced, not merged.
    store.mark_running(Marks::Running, run("s1", 500, "/c"), 60);
    let shown = seen(&store, Marks::Running, Some("s2"));
    assert_eq!((shown[0].since, shown[0].roots.len()), (500, 1));
    store.end_running(Marks::Running, "s1", None);
    assert!(seen(&store, Marks::Pending, None).is_empty());
    assert!(seen(&store, Marks::Running, Some("s2")).is_empty());
    assert_eq!(seen(&store, Marks::Running, Some("s1")).len(), 1);
    assert!(Store::existing(&dir.path().join("nothing")).is_none());
    // A sub-agent's marker is its own: a peer of its session's.
    let mut sub = run("s2", 600, "/d");
    sub.agent = Some("agent-1".into());
    store.mark_running(Marks::Running, sub.clone(), 60);
    assert_eq!(seen(&store, Marks::Running, Some("s2")), [sub.clone()]);
    store.end_running(Marks::Running, &sub.key(), None);
    assert!(seen(&store, Marks::Running, Some("s2")).is_empty());
}

#[test]
fn each_call_of_one_actor_has_its_own_marker() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dibs")).unwrap();
    let store = Store::existing(dir.path()).unwrap();
    let call = |id: &str, since| Running {
        call: Some(id.into()),
        ..run("s1", since, "/a")
    };
    store.mark_running(Marks::Running, call("toolu_1", 100), 60);
    store.mark_running(Marks::Running, call("toolu_2", 110), 60);
    // One entry for the actor: the earliest start of its calls.
    assert_eq!(
        seen(&store, Marks::Running, Some("s2")),
        [Running {
            call: None,
            at: 110,
            ..call("toolu_1", 100)
        }]
    );
    // The actor's own calls are all left out of what it is shown.
    assert!(seen(&store, Marks::Running, Some("s1")).is_empty());
    // The first call's end leaves the second one marked.
    store.end_running(Marks::Running, "s1", Some("toolu_1"));
    let shown = seen(&store, Marks::Running, Some("s2"));
    assert_eq!(shown[0].since, 110);
    store.end_running(Marks::Running, "s1", Some("toolu_2"));
    assert!(seen(&store, Marks::Running, Some("s2")).is_empty());
    // The longest ids a host may send still make a marker.
    let long = Running {
        session: "s".repeat(128),
        call: Some("c".repeat(128)),
        ..run("x", 130, "/c")
    };
    store.mark_running(Marks::Running, long.clone(), 60);
    assert_eq!(
        seen(&store, Marks::Running, Some("s2")),
        [Running {
            call: None,
            ..long.clone()
        }]
    );
    store.end_running(Marks::Running, &long.key(), long.call.as_deref());
    // A session whose id begins with another's is not taken for it.
    store.mark_running(Marks::Running, call("toolu_3", 120), 60);
    store.mark_running(Marks::Running, run("s1x", 120, "/b"), 60);
    assert_eq!(seen(&store, Marks::Running, Some("s1")).len(), 1);
}

#[test]
fn an_actors_own_unended_calls_are_shown_to_it_until_it_scanned_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dibs")).unwrap();
    let store = Store::existing(dir.path()).unwrap();
    let call = |id: &str, since| Running {
        call: Some(id.into()),
        ..run("s1", since, "/a")
    };
    store.mark_running(Marks::Running, call("toolu_1", 900), 60);
    store.mark_running(Marks::Running, call("toolu_2", 950), 60);
    store.mark_running(Marks::Running, run("s2", 960, "/b"), 60);
    let around = |call: Option<&str>| {
        store.running_around(
            Marks::Running,
            Some(("s1", call)),
            1000,
            &mut crate::store::lease::known(3600),
        )
    };
    // The call about to run is not its own earlier one.
    let (peers, own) = around(Some("toolu_2"));
    assert_eq!(peers.len(), 1);
    assert_eq!(own, [call("toolu_1", 900)]);
    store.running_scanned(Marks::Running, &own[0], 1000);
    let (_, own) = around(Some("toolu_3"));
    assert_eq!(
        own,
        [call("toolu_2", 950)],
        "a scanned call is not shown again"
    );
    // Peers still see the scanned one: it may still run.
    let seen = seen(&store, Marks::Running, Some("s2"));
    assert_eq!(seen[0].since, 900);
    // A call that ended meanwhile is not written back by its scan.
    store.end_running(Marks::Running, "s1", Some("toolu_2"));
    store.running_scanned(Marks::Running, &call("toolu_2", 950), 1000);
    assert_eq!(store.running_of(Marks::Running, "s1").len(), 1);
    // Unnamed calls share one marker: a new call merged into a scanned one is unscanned.
    store.mark_running(Marks::Running, run("s3", 900, "/c"), 600);
    let s3 = || {
        store
            .running_around(
                Marks::Running,
                Some(("s3", None)),
                1000,
                &mut crate::store::lease::known(3600),
            )
            .1
    };
    store.running_scanned(Marks::Running, &s3()[0], 950);
    assert!(s3().is_empty());
    store.mark_running(Marks::Running, run("s3", 990, "/c"), 600);
    assert_eq!(s3().len(), 1);
    assert_eq!(s3()[0].since, 900);
}

#[test]
fn markers_nobody_ended_neither_crowd_out_a_live_one_nor_outlive_the_lease() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dibs")).unwrap();
    let store = Store::existing(dir.path()).unwrap();
    // 90 calls of s2's the person declined (no PostToolUse came), and 90 of s3's an hour
    // and more ago.
    for i in 0..90 {
        let call = |session: &str, at| Running {
            call: Some(format!("toolu_{i}")),
            ..run(session, at, "/a")
        };
        store.mark_running(Marks::Running, call("s2", 4900), 60);
        store.mark_running(Marks::Running, call("s3", 100), 60);
    }
    store.mark_running(Marks::Running, run("s1", 4990, "/a"), 60);
    let live = store.running_except(
        Marks::Running,
        Some("s2"),
        5000,
        &mut crate::store::lease::known(3600),
    );
    assert_eq!(
        live.iter().map(|r| r.session.as_str()).collect::<Vec<_>>(),
        ["s1"]
    );
    // The stale ones are gone from the folder.
    let left = std::fs::read_dir(store.marks_dir(Marks::Running))
        .unwrap()
        .count();
    assert_eq!(left, 91);
}

//! Unit tests of the store's continuity and claims: takeover by a new agent process, exclusive
//! claims raced by threads, leases, `/clear` hand-over, coalesced writes, worktree listings.

use std::time::Duration;

use super::tests::{apply_anon, assert_fenced_0_1, key, store};
use super::*;
use crate::host::Host;

fn process(pid: u32) -> crate::agent::AgentProcess {
    crate::agent::AgentProcess {
        pid,
        start: u64::from(pid) * 10,
        boot: "testboot".into(),
    }
}

#[test]
fn a_new_agent_process_takes_the_session_over_and_the_old_one_is_fenced() {
    let (_dir, store) = store();
    let (p1, p2) = (process(100), process(200));
    // A session start from `p` (registers), and a later hook call from `p` (does not).
    let start = |p, t| {
        let w = Writer::Agent {
            process: p,
            register: true,
        };
        store.apply("s", Host::Claude, w, t, &[])
    };
    let call = |p, t, changes: &[Change]| {
        let w = Writer::Agent {
            process: p,
            register: false,
        };
        store.apply("s", Host::Claude, w, t, changes)
    };
    start(&p1, 1).unwrap();
    call(&p1, 2, &[Change::Touch(vec![key("a.rs")])]).unwrap();
    // Resumed in a new window: a session start from another process raises the generation.
    let s = start(&p2, 3).unwrap();
    assert_eq!(s.generation, 1);
    assert_eq!(s.agent.as_ref(), Some(&p2));
    // The old window can no longer claim, release or renew.
    for change in [
        Change::Touch(vec![key("b.rs")]),
        Change::ReleaseAllBut(Vec::new()),
        Change::Activity {
            worktree: None,
            branch: None,
        },
    ] {
        let err = call(&p1, 4, &[change]).unwrap_err();
        assert_fenced_0_1(&err);
    }
    let stale = Writer::Agent {
        process: &p1,
        register: false,
    };
    assert!(matches!(
        store.release("s", stale, 4, None).unwrap_err(),
        StoreError::Fenced { .. }
    ));
    let s = store.session("s").unwrap().unwrap();
    assert_eq!((s.files.len(), s.last_seen), (1, 3));
    // The new process writes on.
    call(&p2, 5, &[Change::Touch(vec![key("b.rs")])]).unwrap();
    // Resuming again in the first window (a session start there) takes it back.
    let s = start(&p1, 6).unwrap();
    assert_eq!(s.generation, 2);
    assert!(call(&p2, 7, &[]).is_err());
}

#[test]
fn exclusive_claims_are_granted_to_exactly_one_racer() {
    let (_dir, store) = store();
    let target = Target::Branch {
        name: "feature".into(),
    };
    let request = ClaimRequest {
        target: target.clone(),
        intent: Some("rebasing".into()),
        exclusive: true,
        ttl: Duration::from_secs(600),
    };
    let winners: Vec<bool> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (store, request) = (&store, request.clone());
                scope.spawn(move || {
                    let grants = store
                        .claim(
                            &format!("s{i}"),
                            Host::Claude,
                            Writer::Anonymous,
                            100,
                            &[request],
                            |_| true,
                        )
                        .unwrap();
                    matches!(grants[0], Grant::Granted(_))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(winners.iter().filter(|w| **w).count(), 1);
    assert_eq!(store.claimants(&target, "nobody", 100).unwrap().len(), 1);
    // A lapsed claim no longer counts.
    assert!(
        store
            .claimants(&target, "nobody", 100 + 600)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn activity_on_a_claimed_file_renews_its_lease() {
    let (_dir, store) = store();
    let request = ClaimRequest {
        target: Target::File(key("a.rs")),
        intent: None,
        exclusive: false,
        ttl: Duration::from_secs(100),
    };
    store
        .claim(
            "s",
            Host::Claude,
            Writer::Anonymous,
            1_000,
            &[request],
            |_| true,
        )
        .unwrap();
    apply_anon(&store, "s", 1_090, &[Change::Touch(vec![key("a.rs")])]);
    let s = store.session("s").unwrap().unwrap();
    assert_eq!(s.claims[0].until, 1_190);
    assert!(s.claims[0].token.starts_with("s-"), "{}", s.claims[0].token);
}

#[test]
fn after_clear_the_new_session_takes_over_the_old_ones_claims() {
    let (_dir, store) = store();
    let p = process(300);
    let w = Writer::Agent {
        process: &p,
        register: false,
    };
    store
        .apply(
            "old",
            Host::Claude,
            w,
            1,
            &[
                Change::Touch(vec![key("a.rs")]),
                Change::Label("first".into()),
            ],
        )
        .unwrap();
    store.note_cleared(&p, "old").unwrap();
    store
        .apply("old", Host::Claude, w, 2, &[Change::End])
        .unwrap();
    let taken = store.take_over_cleared(&p, "new", Host::Claude, 3).unwrap();
    assert_eq!(taken.as_deref(), Some("old"));
    let new = store.session("new").unwrap().unwrap();
    assert_eq!(new.files.len(), 1);
    assert_eq!(new.label.as_deref(), Some("first"));
    let old = store.session("old").unwrap().unwrap();
    assert!(old.files.is_empty() && old.ended.is_some());
    assert_eq!(
        store.holders(&key("a.rs"), "x", 3).unwrap()[0].session.id,
        "new"
    );
    // The note is used once; a second `/clear` in the same process without a `SessionEnd`
    // hands the claims on again, from the process's latest session.
    assert!(!store.dir().join("cleared").join(p.key()).exists());
    assert_eq!(
        store
            .take_over_cleared(&p, "newer", Host::Claude, 4)
            .unwrap()
            .as_deref(),
        Some("new")
    );
    // Another process's clear never merges.
    let other = process(301);
    assert_eq!(
        store
            .take_over_cleared(&other, "x", Host::Claude, 5)
            .unwrap(),
        None
    );
}

#[test]
fn time_only_changes_within_a_minute_are_not_written() {
    let (_dir, store) = store();
    let touch = [
        Change::Touch(vec![key("a.rs")]),
        Change::Seen(key("a.rs"), "d1".into()),
    ];
    apply_anon(&store, "s", 1_000, &touch);
    let path = store.session_path("s");
    let before = std::fs::read(&path).unwrap();
    // Renewing the same file within the minute writes nothing...
    let s = apply_anon(&store, "s", 1_030, &touch);
    assert_eq!(s.last_seen, 1_030, "the caller still sees the new record");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // ...a new file, a new digest or a minute's drift does.
    apply_anon(
        &store,
        "s",
        1_031,
        &[Change::Seen(key("a.rs"), "d2".into())],
    );
    assert_ne!(std::fs::read(&path).unwrap(), before);
    let before = std::fs::read(&path).unwrap();
    apply_anon(&store, "s", 1_100, &touch[..1]);
    assert_eq!(store.session("s").unwrap().unwrap().last_seen, 1_100);
    assert_ne!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn the_sessions_of_a_worktree_are_listed_from_its_roster() {
    let (_dir, store) = store();
    let here = |w: &str| Change::Activity {
        worktree: Some(w.into()),
        branch: None,
    };
    apply_anon(&store, "a", 100, &[here("/w/main")]);
    apply_anon(&store, "b", 100, &[here("/w/main")]);
    let ids = |root: &str| -> Vec<String> {
        let mut v: Vec<String> = store
            .recent_in(std::path::Path::new(root), "nobody", 0)
            .unwrap()
            .iter()
            .filter_map(|l| store.head_of(l))
            .map(|h| h.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids("/w/main"), ["a", "b"]);
    // b moves to a lane but keeps claiming the main worktree: it is listed there no more.
    let claim = ClaimRequest {
        target: Target::Worktree {
            path: "/w/main".into(),
        },
        intent: None,
        exclusive: false,
        ttl: Duration::from_secs(600),
    };
    store
        .claim("b", Host::Claude, Writer::Anonymous, 101, &[claim], |_| {
            true
        })
        .unwrap();
    apply_anon(&store, "b", 200, &[here("/w/lane")]);
    assert_eq!(ids("/w/main"), ["a"]);
    assert_eq!(ids("/w/lane"), ["b"]);
    // An ended session leaves the listing; a live one's header follows its record.
    apply_anon(&store, "a", 300, &[Change::End]);
    assert!(ids("/w/main").is_empty());
    let lane = store
        .recent_in(std::path::Path::new("/w/lane"), "x", 0)
        .unwrap();
    assert_eq!(store.head_of(&lane[0]).unwrap().last_seen, 200);
    // Listings written before `since` are left out.
    assert!(
        store
            .recent_in(std::path::Path::new("/w/lane"), "x", u64::MAX)
            .unwrap()
            .is_empty()
    );
    // Pruning a dead session takes it off the roster too.
    store
        .prune_if_due(|| Duration::from_secs(60), 10_000)
        .unwrap();
    assert!(ids("/w/lane").is_empty());
    assert!(
        store
            .recent_in(std::path::Path::new("/w/lane"), "x", 0)
            .unwrap()
            .is_empty()
    );
}

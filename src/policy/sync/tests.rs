//! Tests of the sync decisions: mapping between machines, what is published, removed and
//! imported, and who may take a remote claim.

use super::*;
use crate::protocol::Host;

fn branches() -> Branches {
    BTreeMap::from([
        (PathBuf::from("/a/repo"), Some("main".to_owned())),
        (PathBuf::from("/a/repo-feat"), Some("feat".to_owned())),
        (PathBuf::from("/a/detached"), None),
    ])
}

fn session(id: &str, now: u64) -> Session {
    let mut s = Session::new(id, Host::Claude, now - 100);
    s.last_seen = now;
    s.branch = Some("main".into());
    s.files.push(FileTouch {
        key: FileKey::new("/a/repo", "src/a.rs"),
        first: now - 100,
        last: now - 50,
    });
    s.files.push(FileTouch {
        key: FileKey::new("/a/detached", "x.rs"),
        first: now - 90,
        last: now - 90,
    });
    s.claims.push(Claim {
        target: Target::Record {
            id: "ISSUE-1".into(),
        },
        intent: Some("fixing it".into()),
        exclusive: true,
        since: now - 10,
        until: now + 3600,
        lease: 3600,
        token: "t".into(),
    });
    s.claims.push(Claim {
        target: Target::Worktree {
            path: "/a/repo".into(),
        },
        intent: None,
        exclusive: false,
        since: now - 10,
        until: now + 3600,
        lease: 3600,
        token: "w".into(),
    });
    s
}

#[test]
fn a_session_maps_onto_the_worktrees_with_the_same_branch() {
    let now = 10_000;
    let dirty = BTreeSet::from([FileKey::new("/a/repo", "src/a.rs")]);
    let shared = export(&session("s1", now), "alpha", now, &branches(), &dirty);
    assert_eq!(shared.files[0].branch.as_deref(), Some("main"));
    assert!(shared.files[0].dirty);
    assert_eq!(shared.files[1].branch, None);
    // The worktree claim is a path on alpha: not shared.
    assert_eq!(shared.claims.len(), 1);

    let there: Branches = BTreeMap::from([
        (PathBuf::from("/b/clone"), Some("main".to_owned())),
        (PathBuf::from("/b/other"), Some("dev".to_owned())),
    ]);
    let imported = import(&shared, "origin", &there);
    assert_eq!(imported.id, "s1@alpha");
    assert_eq!(imported.short_id(), "s1");
    assert_eq!(imported.machine(), Some("alpha"));
    assert_eq!(imported.agent, None);
    assert_eq!(imported.worktree, None);
    assert_eq!(imported.files[0].key, FileKey::new("/b/clone", "src/a.rs"));
    // Uncommitted there: touched as of its publication, so it stays warm.
    assert_eq!(imported.files[0].last, now);
    assert_eq!(
        imported.files[1].key.worktree,
        PathBuf::from("alpha:(detached)")
    );
    assert_eq!(
        imported.claims[0].target,
        Target::Record {
            id: "ISSUE-1".into()
        }
    );
    assert_eq!(
        imported.origin.as_ref().unwrap().dirty,
        vec!["src/a.rs".to_owned()]
    );
}

fn fetched(s: &SharedSession, oid: &str) -> Fetched<SharedSession> {
    Fetched {
        name: session_ref(&s.machine, &s.id),
        oid: oid.into(),
        record: Some(s.clone()),
        rejected: None,
    }
}

fn facts(now: u64) -> SyncFacts {
    SyncFacts {
        machine: "alpha".into(),
        now,
        ttl: 7200,
        skew: 300,
        local: Vec::new(),
        local_claims: Vec::new(),
        sessions: Vec::new(),
        claims: Vec::new(),
    }
}

#[test]
fn publishes_changes_only_and_removes_its_own_ended_sessions() {
    let now = 100_000;
    let b = branches();
    let none = BTreeSet::new();
    let live = export(&session("s1", now), "alpha", now, &b, &none);
    let ended = export(&session("s0", now - 5000), "alpha", now - 5000, &b, &none);
    let mut f = facts(now);
    f.local = vec![live.clone()];
    f.sessions = vec![fetched(&ended, "o0")];
    let p = plan(&f);
    assert_eq!(
        p.sessions,
        vec![
            Put::Write {
                name: "refs/dibs/sessions/alpha/s1".into(),
                record: live.clone(),
                expect: None
            },
            Put::Delete {
                name: "refs/dibs/sessions/alpha/s0".into(),
                expect: "o0".into()
            }
        ]
    );
    assert!(p.lapsed.is_empty());

    // Published a minute ago with the same content: nothing to write.
    let mut earlier = live.clone();
    earlier.published = now - 60;
    earlier.last_seen = now - 60;
    f.sessions = vec![fetched(&earlier, "o1")];
    assert!(plan(&f).sessions.is_empty());
    // A new file is a change.
    let mut grown = live.clone();
    grown.files.pop();
    f.sessions = vec![fetched(&grown, "o2")];
    assert!(matches!(
        &plan(&f).sessions[..],
        [Put::Write { expect: Some(o), .. }] if o == "o2"
    ));
}

#[test]
fn other_machines_live_refs_are_imported_and_only_lapsed_ones_removed() {
    let now = 100_000;
    let b = branches();
    let none = BTreeSet::new();
    let live = export(&session("s2", now - 60), "beta", now - 60, &b, &none);
    let mut old = export(&session("s3", now), "beta", now, &b, &none);
    old.last_seen = now - 7200 - 301;
    let mut skewed = old.clone();
    skewed.id = "s4".into();
    skewed.last_seen = now - 7200 - 200; // lapsed by the clock here, within the skew
    let mut forged = live.clone();
    forged.machine = "gamma".into(); // a record in beta's folder claiming to be gamma's
    let forged_ref = Fetched {
        name: "refs/dibs/sessions/beta/forged".into(),
        oid: "o9".into(),
        record: Some(SharedSession {
            id: "forged".into(),
            ..forged
        }),
        rejected: None,
    };
    let mut f = facts(now);
    f.sessions = vec![
        fetched(&live, "o1"),
        fetched(&old, "o2"),
        fetched(&skewed, "o3"),
        forged_ref,
    ];
    let p = plan(&f);
    assert_eq!(p.import, vec![live, skewed]);
    assert_eq!(
        p.sessions,
        vec![Put::Delete {
            name: "refs/dibs/sessions/beta/s3".into(),
            expect: "o2".into()
        }]
    );
    assert_eq!(p.lapsed.len(), 1);
}

fn claim(machine: &str, session: &str, until: u64) -> SharedClaim {
    SharedClaim {
        version: SHARED_VERSION,
        machine: machine.into(),
        session: session.into(),
        target: SharedTarget::Record { id: "R".into() },
        intent: None,
        until,
        token: "t".into(),
    }
}

#[test]
fn a_remote_claim_is_taken_only_when_free_ours_or_lapsed_beyond_the_skew() {
    let now = 50_000;
    let held = claim("beta", "s9", now - 100);
    assert_eq!(judge_claim(None, "alpha", "s1", now, 300), ClaimRef::Free);
    assert_eq!(
        judge_claim(Some(None), "alpha", "s1", now, 300),
        ClaimRef::Unreadable
    );
    assert_eq!(
        judge_claim(
            Some(Some(&claim("alpha", "s1", now - 9999))),
            "alpha",
            "s1",
            now,
            300
        ),
        ClaimRef::Ours
    );
    // Lapsed 100 s ago by this clock: still within the skew allowance.
    assert_eq!(
        judge_claim(Some(Some(&held)), "alpha", "s1", now, 300),
        ClaimRef::Held(held.clone())
    );
    assert_eq!(
        judge_claim(Some(Some(&held)), "alpha", "s1", now, 60),
        ClaimRef::Lapsed(held.clone())
    );
    // Another session of the same machine is someone else.
    assert!(matches!(
        judge_claim(
            Some(Some(&claim("alpha", "s2", now + 60))),
            "alpha",
            "s1",
            now,
            300
        ),
        ClaimRef::Held(_)
    ));
}

#[test]
fn claim_refs_are_renewed_released_and_cleaned() {
    let now = 50_000;
    let mine = claim("alpha", "s1", now + 3600);
    let gone = SharedClaim {
        target: SharedTarget::Branch { name: "old".into() },
        ..claim("alpha", "s1", now + 3600)
    };
    let theirs_lapsed = SharedClaim {
        target: SharedTarget::Branch { name: "x".into() },
        ..claim("beta", "s2", now - 1000)
    };
    let fetch = |c: &SharedClaim, oid: &str| Fetched {
        name: c.target.claim_ref(),
        oid: oid.into(),
        record: Some(c.clone()),
        rejected: None,
    };
    let mut f = facts(now);
    f.local_claims = vec![mine.clone()];
    f.claims = vec![fetch(&gone, "g"), fetch(&theirs_lapsed, "l")];
    let p = plan(&f);
    assert_eq!(
        p.claims,
        vec![
            Put::Write {
                name: mine.target.claim_ref(),
                record: mine.clone(),
                expect: None
            },
            Put::Delete {
                name: gone.target.claim_ref(),
                expect: "g".into()
            },
            Put::Delete {
                name: theirs_lapsed.target.claim_ref(),
                expect: "l".into()
            },
        ]
    );
    assert_eq!(p.lapsed.len(), 1);
    // Already there and current: nothing to write. Held live by another: a conflict.
    f.claims = vec![fetch(&mine, "m")];
    assert!(plan(&f).claims.is_empty());
    let other = claim("beta", "s2", now + 600);
    f.claims = vec![fetch(&other, "o")];
    let p = plan(&f);
    assert!(p.claims.is_empty());
    assert_eq!(p.conflicts, vec![(mine, other)]);
}

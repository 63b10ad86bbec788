//! Exclusive claims across machines through the real binary: two clones of one real bare remote
//! with `dibs.sync=true`, the remote claim ref taken by compare-and-swap — racing processes on
//! both machines with exactly one winner, a lapsed claim taken over only by CAS, and release.

mod common;
mod sync_support;

use std::process::Output;

use sync_support::*;

#[test]
fn exclusive_claims_raced_from_both_machines_have_exactly_one_winner_every_round() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    m.config(&m.b, "dibs.sync", "true");
    for round in 0..6 {
        let target = format!("record:round-{round}");
        // Ids of at most 8 characters: the short id is the whole id.
        let racers = [
            (&m.a, "alpha", format!("r{round}-a0")),
            (&m.a, "alpha", format!("r{round}-a1")),
            (&m.b, "beta", format!("r{round}-b0")),
            (&m.b, "beta", format!("r{round}-b1")),
        ];
        let children: Vec<_> = racers
            .iter()
            .map(|(dir, _, id)| {
                spawn_as(
                    dir,
                    id,
                    &["claim", &target, "--exclusive", "--intent", "racing"],
                )
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let all = || {
            outs.iter()
                .zip(&racers)
                .map(|(o, (_, _, id))| format!("{id}: {:?} {}", o.status.code(), text(o)))
                .collect::<Vec<_>>()
        };
        let winners: Vec<usize> = (0..4).filter(|&i| outs[i].status.success()).collect();
        assert_eq!(winners.len(), 1, "round {round}: {:#?}", all());
        let w = winners[0];
        let (win_dir, win_machine, win_id) = &racers[w];
        for (i, o) in outs.iter().enumerate().filter(|&(i, _)| i != w) {
            assert_eq!(o.status.code(), Some(1), "round {round}: {:#?}", all());
            let t = text(o);
            assert!(t.contains(&format!("{target} is held by")), "{t}");
            assert!(
                racers
                    .iter()
                    .enumerate()
                    .any(|(j, (_, _, id))| j != i && t.contains(id.as_str())),
                "names who holds it: {t}"
            );
            // A loser on the other machine that names the winner lost to its remote claim:
            // the winner's machine is named too.
            if racers[i].1 != *win_machine && t.contains(win_id.as_str()) {
                assert!(t.contains(&format!("on {win_machine}")), "{t}");
            }
        }

        // Exactly one claim ref on the remote for this target, the winner's.
        let refs = m.remote_claims_of(&target);
        assert_eq!(refs.len(), 1, "round {round}: {refs:?}");
        let rec = &refs[0].1;
        assert_eq!(rec["machine"], *win_machine, "{rec}");
        assert_eq!(rec["session"], win_id.as_str(), "{rec}");
        assert!(
            refs[0].0.len() == "refs/dibs/claims/".len() + 16,
            "{}",
            refs[0].0
        );

        // The winner's clone shows the claim; nobody else holds it, on either machine.
        let st = status(win_dir);
        assert_eq!(
            holders(&st, &target),
            std::slice::from_ref(win_id),
            "round {round}: {st}"
        );
        let other = if *win_dir == &m.a { &m.b } else { &m.a };
        let st = status(other);
        let local_holders: Vec<String> = holders(&st, &target)
            .into_iter()
            .filter(|id| !id.contains('@'))
            .collect();
        assert!(local_holders.is_empty(), "round {round}: {st}");
    }
}

#[test]
fn a_lapsed_remote_claim_is_taken_over_only_by_compare_and_swap() {
    let m = machines();
    for dir in [&m.a, &m.b] {
        m.config(dir, "dibs.sync", "true");
        m.config(dir, "dibs.clockSkew", "0");
    }
    // The test-only clock (`DIBS_NOW`, debug builds) instead of sleeping past the lease.
    let t0 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let later = (t0 + 61).to_string();
    let at_t0 = t0.to_string();
    let out = run(
        &m.a,
        Some(S1),
        &["claim", "record:X", "--exclusive", "--ttl", "1m"],
        &[("DIBS_NOW", &at_t0)],
    );
    assert!(out.status.success(), "{}", text(&out));
    let refs = m.remote_claims_of("record:X");
    assert_eq!(refs.len(), 1, "{:?}", m.remote_refs());
    assert_eq!(refs[0].1["machine"], "alpha");
    let alpha_ref = refs[0].clone();

    // While alpha's claim is live, beta cannot take it, and holds nothing after trying.
    let out = run(
        &m.b,
        Some(S2),
        &["claim", "record:X", "--exclusive"],
        &[("DIBS_NOW", &at_t0)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("record:X is held by"), "{t}");
    assert!(t.contains("on alpha"), "{t}");
    assert!(holders(&status(&m.b), "record:X").is_empty());
    assert_eq!(
        m.remote_claims_of("record:X"),
        std::slice::from_ref(&alpha_ref)
    );

    // Once lapsed, beta takes it over.
    let out = run(
        &m.b,
        Some(S2),
        &["claim", "record:X", "--exclusive", "--intent", "mine now"],
        &[("DIBS_NOW", &later)],
    );
    assert!(out.status.success(), "{}", text(&out));
    let refs = m.remote_claims_of("record:X");
    assert_eq!(refs.len(), 1, "{refs:?}");
    assert_eq!(refs[0].1["machine"], "beta", "{:?}", refs[0].1);
    assert_eq!(refs[0].1["session"], S2);
    assert_ne!(refs[0], alpha_ref);
    assert_eq!(holders(&status(&m.b), "record:X"), [S2]);

    // Alpha's renewal now fails: the remote ref is beta's and live.
    let out = run(
        &m.a,
        Some(S1),
        &["claim", "record:X", "--exclusive"],
        &[("DIBS_NOW", &later)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(
        t.contains("record:X is held by") && t.contains("on beta"),
        "{t}"
    );
    let out = run(&m.a, None, &["status", "--json"], &[("DIBS_NOW", &later)]);
    let alpha: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(holders(&alpha, "record:X").is_empty(), "{alpha}");
    let refs = m.remote_claims_of("record:X");
    assert_eq!(refs[0].1["session"], S2, "beta's claim untouched");

    // A sync on alpha does not take it back either.
    sync(&m.a);
    let refs = m.remote_claims_of("record:X");
    assert_eq!(refs.len(), 1);
    assert_eq!(refs[0].1["machine"], "beta");
}

#[test]
fn sync_renews_an_exclusive_claim_ref_and_release_deletes_it() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    let out = dibs_as(&m.a, S1, &["claim", "branch:topic", "--exclusive"]);
    assert!(out.status.success(), "{}", text(&out));
    let refs = m.remote_claims_of("branch:topic");
    assert_eq!(refs.len(), 1, "{:?}", m.remote_refs());
    assert_eq!(refs[0].1["session"], S1);

    let v = sync_json(&m.a);
    assert_eq!(v["published_claims"], 1, "{v}");
    assert_eq!(m.remote_claims_of("branch:topic").len(), 1);

    // A claim that is not exclusive stays on this machine.
    let out = dibs_as(&m.a, S1, &["claim", "record:shared-1"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(m.remote_claims_of("record:shared-1").is_empty());

    let out = dibs_as(&m.a, S1, &["release", "branch:topic"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        m.remote_claims_of("branch:topic").is_empty(),
        "release deletes the remote ref: {:?}",
        m.remote_refs()
    );
    // Beta can now claim it.
    m.config(&m.b, "dibs.sync", "true");
    let out = dibs_as(&m.b, S2, &["claim", "branch:topic", "--exclusive"]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_claim_whose_view_of_the_remote_went_stale_loses_to_the_claim_that_landed_first() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    m.config(&m.b, "dibs.sync", "true");
    // Beta's remote is slow to hang up after it listed its refs (a slow network): beta's view
    // is taken before alpha's claim lands, and beta pushes after it did.
    let listed = m.slow_hang_up(&m.b, "beta", 2, false);
    let beta = spawn_as(&m.b, S2, &["claim", "record:Z", "--exclusive"]);
    assert!(
        sync_support::listed(&listed),
        "beta never listed the remote's refs"
    );
    let out = dibs_as(&m.a, S1, &["claim", "record:Z", "--exclusive"]);
    assert!(out.status.success(), "alpha, first to land: {}", text(&out));
    let beta = beta.wait_with_output().unwrap();

    let refs = m.remote_claims_of("record:Z");
    assert_eq!(refs.len(), 1, "{refs:?}");
    assert_eq!(
        refs[0].1["machine"],
        "alpha",
        "alpha's claim landed first and must not be overwritten: {:?}; beta said: {}",
        refs[0].1,
        text(&beta)
    );
    assert_eq!(beta.status.code(), Some(1), "{}", text(&beta));
    assert!(text(&beta).contains("on alpha"), "{}", text(&beta));
    assert!(holders(&status(&m.b), "record:Z").is_empty());
}

#[test]
fn a_claim_is_not_refused_by_its_own_sessions_sync_publishing_it_first() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    // The claim's own look at the remote is slow to hang up (only the first one: a marker
    // says it happened), and a sync of this clone runs meanwhile, as a session start's
    // background sync does: it publishes the claim just granted here before the claim's own
    // compare-and-swap, which then finds the ref taken, by this very session.
    let listed = m.slow_hang_up(&m.a, "claim", 3, true);
    let claim = spawn_as(&m.a, S1, &["claim", "record:Z", "--exclusive"]);
    assert!(
        sync_support::listed(&listed),
        "the claim never listed the remote's refs"
    );
    let synced = run(&m.a, None, &["sync"], &[]);
    assert!(synced.status.success(), "{}", text(&synced));
    let published = m.remote_claims_of("record:Z");
    assert_eq!(
        published.len(),
        1,
        "the sync published the claim before the claim's own swap: {published:?}"
    );
    let claim = claim.wait_with_output().unwrap();
    assert!(
        claim.status.success(),
        "its own session's ref is no refusal: {}",
        text(&claim)
    );
    let refs = m.remote_claims_of("record:Z");
    assert_eq!(refs.len(), 1, "{refs:?}");
    assert_eq!(refs[0].1["machine"], "alpha", "{:?}", refs[0].1);
    assert_eq!(refs[0].1["session"], S1, "{:?}", refs[0].1);
    assert_eq!(holders(&status(&m.a), "record:Z"), [S1.to_owned()]);
    // Released, nothing is left on the remote.
    let out = dibs_as(&m.a, S1, &["release", "record:Z"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(m.remote_claims_of("record:Z").is_empty());
}

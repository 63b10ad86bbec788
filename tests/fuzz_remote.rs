//! A fuzz-style test over the readers of remote records (`SharedSession::check`,
//! `SharedClaim::check`): arbitrary bytes and arbitrary JSON of the records' shape never panic,
//! and whatever is accepted is in range — times no later than a day ahead (a claim: its lease
//! more), text clean of control characters and capped, counts bounded.

use git_dibs::store::shared::{
    MAX_AHEAD, MAX_SHARED_CLAIMS, MAX_SHARED_FILES, SharedClaim, SharedSession,
};
use proptest::prelude::*;

const NOW: u64 = 1_800_000_000;
const YEAR: u64 = 365 * 24 * 3600;

fn clean(text: &str) -> bool {
    !text.chars().any(char::is_control) && text.chars().count() <= 200
}

fn any_time() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(u64::MAX),
        Just(253_402_300_800u64),
        NOW - 1000..NOW + 2 * YEAR,
        any::<u64>(),
    ]
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9 ._/-]{0,40}",
        "\\PC{0,40}",
        ".{0,300}",
        Just("\u{1b}]0;x\u{7}\n".to_owned()),
        Just("../../etc/passwd".to_owned()),
    ]
}

prop_compose! {
    fn session_json()(
        id in any_text(), machine in any_text(), label in any_text(), path in any_text(),
        first in any_time(), last in any_time(), published in any_time(),
        until in any_time(), files in 0usize..3, version in 0u32..3,
    ) -> String {
        let file = serde_json::json!({"path": path, "branch": "main", "first": first,
            "last": last, "dirty": true});
        serde_json::json!({
            "version": version, "machine": machine, "id": id, "host": "claude", "label": label,
            "first_seen": first, "last_seen": last, "published": published,
            "files": vec![file; files],
            "claims": [{"target": {"kind": "record", "id": label}, "intent": label,
                        "exclusive": true, "since": first, "until": until, "lease": until,
                        "token": id}],
        })
        .to_string()
    }
}

fn accepted_session_in_range(s: &SharedSession) {
    let ahead = NOW + MAX_AHEAD;
    assert!(s.last_seen <= ahead && s.published <= ahead && s.first_seen <= s.last_seen);
    assert!(s.files.len() <= MAX_SHARED_FILES && s.claims.len() <= MAX_SHARED_CLAIMS);
    for f in &s.files {
        assert!(f.last <= ahead && !f.path.starts_with('/') && !f.path.contains(".."));
    }
    for c in &s.claims {
        assert!(c.until <= ahead + YEAR);
        assert!(c.intent.as_deref().is_none_or(clean));
    }
    assert!(s.label.as_deref().is_none_or(clean));
    assert!(!s.id.chars().any(char::is_control));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = SharedSession::check(&bytes, NOW);
        let _ = SharedClaim::check(&bytes, NOW);
    }

    #[test]
    fn records_of_the_right_shape_are_accepted_only_in_range(json in session_json()) {
        if let Ok(s) = SharedSession::check(json.as_bytes(), NOW) {
            accepted_session_in_range(&s);
        }
    }

    #[test]
    fn claims_are_accepted_only_in_range(
        machine in any_text(), session in any_text(), intent in any_text(),
        until in any_time(), token in any_text(),
    ) {
        let json = serde_json::json!({
            "version": 1, "machine": machine, "session": session,
            "target": {"kind": "branch", "name": "main"}, "intent": intent,
            "until": until, "token": token,
        })
        .to_string();
        if let Ok(c) = SharedClaim::check(json.as_bytes(), NOW) {
            prop_assert!(c.until <= NOW + MAX_AHEAD + YEAR);
            prop_assert!(c.intent.as_deref().is_none_or(clean));
            prop_assert!(!c.session.chars().any(char::is_control));
        }
    }
}

#[test]
fn year_10000_and_far_future_times_are_rejected() {
    let rec = |last: u64| {
        serde_json::json!({"version": 1, "machine": "m", "id": "s", "host": "claude",
            "first_seen": 1, "last_seen": last, "published": NOW})
        .to_string()
    };
    assert!(SharedSession::check(rec(NOW).as_bytes(), NOW).is_ok());
    for bad in [253_402_300_800, u64::MAX, NOW + 2 * MAX_AHEAD] {
        assert!(
            SharedSession::check(rec(bad).as_bytes(), NOW).is_err(),
            "{bad}"
        );
    }
}

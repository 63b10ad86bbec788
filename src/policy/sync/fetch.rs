//! Which of the remote's refs a sync fetches, chosen from the listing alone before anything is
//! fetched: a remote anyone can push to may hold a hundred thousand refs, and a sync must not
//! fetch or read them all. Each machine's session refs are capped (this clone's own live
//! sessions always go first), and so are the machines and the claim refs of other machines;
//! what is left out is said, per machine and in all, so that `sync` and `doctor` can name it.

use std::collections::{BTreeMap, BTreeSet};

use crate::store::shared::{CLAIMS_PREFIX, SESSIONS_PREFIX, machine_of_ref};

use super::MAX_MACHINE_SESSIONS;

/// The most other machines whose session refs a sync reads.
pub(crate) const MAX_MACHINES: usize = 32;
/// The most claim refs a sync reads besides those of this clone's own claims.
pub(crate) const MAX_CLAIM_REFS: usize = 1_024;

/// The refs chosen to fetch, and what was left out and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Chosen {
    /// Indices into the listing, in its order.
    pub(crate) fetch: Vec<usize>,
    /// One line for each reason refs were left out, with how many.
    pub(crate) skipped: Vec<String>,
}

/// Choose from `listed` (ref names, as the remote listed them) what a sync of `machine` fetches:
/// the refs in `own` (this clone's live sessions' and claims' refs) always; every machine's
/// session refs up to [`MAX_MACHINE_SESSIONS`], for this machine and the first [`MAX_MACHINES`]
/// others by name; other claim refs up to [`MAX_CLAIM_REFS`]; nothing else under `refs/dibs/`.
pub(crate) fn choose(listed: &[&str], machine: &str, own: &BTreeSet<String>) -> Chosen {
    let mut out = Chosen::default();
    let mut per_machine: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut claims = Vec::new();
    let mut other = 0;
    for (i, name) in listed.iter().enumerate() {
        if own.contains(*name) {
            out.fetch.push(i);
        } else if let Some(m) = machine_of_ref(name).filter(|_| name.starts_with(SESSIONS_PREFIX)) {
            per_machine.entry(m).or_default().push(i);
        } else if name.starts_with(CLAIMS_PREFIX) {
            claims.push(i);
        } else {
            other += 1;
        }
    }
    let own_sessions = |m: &str| own.iter().filter(|n| machine_of_ref(n) == Some(m)).count();
    let mut machines_read = 0;
    let mut machines_skipped = (0, 0);
    for (m, refs) in &per_machine {
        if *m != machine {
            if machines_read == MAX_MACHINES {
                machines_skipped.0 += 1;
                machines_skipped.1 += refs.len();
                continue;
            }
            machines_read += 1;
        }
        let room = MAX_MACHINE_SESSIONS.saturating_sub(own_sessions(m));
        out.fetch.extend(refs.iter().take(room));
        if refs.len() > room {
            out.skipped.push(format!(
                "machine {m}: {} of its {} session refs (a machine's cap is \
                 {MAX_MACHINE_SESSIONS})",
                refs.len() - room,
                refs.len() + own_sessions(m)
            ));
        }
    }
    if machines_skipped.0 > 0 {
        out.skipped.push(format!(
            "{} session refs of {} more machines (at most {MAX_MACHINES} other machines are read)",
            machines_skipped.1, machines_skipped.0
        ));
    }
    out.fetch.extend(claims.iter().take(MAX_CLAIM_REFS));
    if claims.len() > MAX_CLAIM_REFS {
        out.skipped.push(format!(
            "{} of {} claim refs (at most {MAX_CLAIM_REFS} are read)",
            claims.len() - MAX_CLAIM_REFS,
            claims.len()
        ));
    }
    if other > 0 {
        out.skipped.push(format!(
            "{other} refs under refs/dibs/ that are neither sessions nor claims"
        ));
    }
    out.fetch.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_apply_per_machine_to_machines_and_to_claims_and_own_refs_always_go() {
        let mut names: Vec<String> = (0..100)
            .map(|i| format!("refs/dibs/sessions/flood/s{i:03}"))
            .collect();
        names.extend((0..3).map(|i| format!("refs/dibs/sessions/here/s{i}")));
        names.extend((0..40).map(|i| format!("refs/dibs/sessions/m{i:02}/x")));
        names.extend((0..1_100).map(|i| format!("refs/dibs/claims/{i:040x}")));
        names.push("refs/dibs/other/thing".into());
        let own: BTreeSet<String> = [
            "refs/dibs/sessions/here/s1".to_owned(),
            format!("refs/dibs/claims/{:040x}", 1_099),
        ]
        .into();
        let listed: Vec<&str> = names.iter().map(String::as_str).collect();
        let chosen = choose(&listed, "here", &own);
        let fetched: Vec<&str> = chosen.fetch.iter().map(|&i| listed[i]).collect();
        let count = |p: &str| fetched.iter().filter(|n| n.starts_with(p)).count();
        assert_eq!(count("refs/dibs/sessions/flood/"), MAX_MACHINE_SESSIONS);
        assert_eq!(count("refs/dibs/sessions/here/"), 3);
        // flood and m00..m30: 32 other machines; m31..m39 are left out.
        assert_eq!(count("refs/dibs/sessions/m"), MAX_MACHINES - 1);
        assert_eq!(count("refs/dibs/claims/"), MAX_CLAIM_REFS + 1);
        assert!(fetched.contains(&own.iter().nth(1).unwrap().as_str()));
        assert_eq!(count("refs/dibs/other/"), 0);
        assert_eq!(
            chosen.skipped,
            [
                "machine flood: 36 of its 100 session refs (a machine's cap is 64)",
                "9 session refs of 9 more machines (at most 32 other machines are read)",
                "75 of 1099 claim refs (at most 1024 are read)",
                "1 refs under refs/dibs/ that are neither sessions nor claims",
            ]
        );
    }

    #[test]
    fn a_small_remote_is_fetched_whole() {
        let names = [
            "refs/dibs/sessions/a/1",
            "refs/dibs/sessions/b/2",
            "refs/dibs/claims/abc",
        ];
        let chosen = choose(&names, "a", &BTreeSet::new());
        assert_eq!(chosen.fetch, [0, 1, 2]);
        assert!(chosen.skipped.is_empty());
    }
}

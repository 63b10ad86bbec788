//! `git dibs sync` through the real binary between two clones of one real bare remote, standing
//! for two machines (`alpha` and `beta`): warnings crossing, the refs written on the remote,
//! ended and lapsed sessions, an unreachable or missing remote, background sync from hooks, and
//! the guard seeing the other machine's sessions. Exclusive claims across machines are in
//! `sync_claims.rs`.

mod common;
mod sync_support;

use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;
use sync_support::*;

#[test]
fn a_co_edit_warning_crosses_machines_both_ways_after_syncs() {
    let m = machines();
    // S1 edits (and really changes) src/lib.rs on alpha.
    edit_alone(&m.a, S1, "src/lib.rs", Some("pub fn a() { changed() }\n"));

    let out = sync(&m.a);
    assert!(out.contains("synced with origin as alpha"), "{out}");
    assert!(out.contains("published 1 session"), "{out}");
    let v = sync_json(&m.b);
    assert_eq!(v["remote"], "origin", "{v}");
    assert_eq!(v["machine"], "beta", "{v}");
    assert_eq!(v["published_sessions"], 0, "{v}");
    assert_eq!(v["imported_sessions"], 1, "{v}");
    assert_eq!(v["machines"], serde_json::json!(["alpha"]), "{v}");

    // On beta, S1 is listed as alpha's, holding src/lib.rs, dirty as alpha reported it.
    let st = status(&m.b);
    let id = format!("{S1}@alpha");
    let s1 = session(&st, &id).unwrap_or_else(|| panic!("no {id} in {st}"));
    assert_eq!(s1["machine"], "alpha", "{s1}");
    assert_eq!(s1["short_id"], &S1[..8], "{s1}");
    assert_eq!(file_paths(s1), ["src/lib.rs"], "{s1}");
    assert_eq!(
        s1["files"][0]["dirty"], true,
        "dirty as alpha reported: {s1}"
    );
    let text_status = String::from_utf8(run(&m.b, None, &["status"], &[]).stdout).unwrap();
    assert!(text_status.contains("on alpha"), "{text_status}");
    // Alpha's own session is not marked with a machine there.
    let own = status(&m.a);
    assert_eq!(
        session(&own, S1).expect("S1 on alpha")["machine"],
        Value::Null
    );

    // S2 on beta editing src/lib.rs is told, naming S1's short id and alpha.
    let msg = warning(&pre_edit(&m.b, S2, "src/lib.rs"));
    assert!(msg.contains(&format!("{} on alpha", &S1[..8])), "{msg}");
    assert!(msg.contains("src/lib.rs"), "{msg}");
    assert!(!msg.contains(S1), "only the short id: {msg}");
    post_edit(&m.b, S2, "src/lib.rs");
    // A file S1 does not hold stays silent.
    pre_edit(&m.b, S2, "README.md").assert_silent();

    // The other way: S2's edit reaches alpha.
    let out = sync(&m.b);
    assert!(out.contains("synced with origin as beta"), "{out}");
    assert!(out.contains("published 1 session"), "{out}");
    let v = sync_json(&m.a);
    assert_eq!(v["machines"], serde_json::json!(["beta"]), "{v}");
    assert_eq!(v["imported_sessions"], 1, "{v}");
    let st = status(&m.a);
    let s2 = session(&st, &format!("{S2}@beta")).unwrap_or_else(|| panic!("no S2@beta: {st}"));
    assert_eq!(s2["machine"], "beta");
    let mut paths = file_paths(s2);
    paths.sort();
    assert_eq!(paths, ["README.md", "src/lib.rs"], "{s2}");
    let msg = warning(&pre_edit(&m.a, S1, "src/lib.rs"));
    assert!(msg.contains(&format!("{} on beta", &S2[..8])), "{msg}");
    // Alpha imported beta's sessions only, never its own back.
    assert!(session(&st, &format!("{S1}@alpha")).is_none(), "{st}");
}

#[test]
fn sync_writes_only_refs_under_refs_dibs_each_a_parentless_commit_holding_session_json() {
    let m = machines();
    let before: Vec<(String, String)> = m.remote_refs();
    assert!(before.iter().all(|(n, _)| !n.starts_with("refs/dibs/")));
    let b_local_before = git_out(&m.b, &["for-each-ref", "refs/heads", "refs/tags"]);

    edit_alone(&m.a, S1, "src/lib.rs", None);
    sync(&m.a);
    sync(&m.b);

    let after = m.remote_refs();
    let not_dibs = |refs: &[(String, String)]| -> Vec<(String, String)> {
        refs.iter()
            .filter(|(n, _)| !n.starts_with("refs/dibs/"))
            .cloned()
            .collect()
    };
    assert_eq!(
        not_dibs(&after),
        not_dibs(&before),
        "branches, tags, HEAD unchanged"
    );
    let sessions = m.session_refs("alpha");
    assert_eq!(
        sessions.len(),
        1,
        "one ref per machine and live session: {after:?}"
    );
    let r = &sessions[0];
    assert!(r.ends_with(S1), "{r}");
    assert!(
        m.session_refs("beta").is_empty(),
        "beta has no session: {after:?}"
    );
    assert!(
        m.remote_refs_under("refs/heads/").len() == 1
            && m.remote_refs_under("refs/tags/").is_empty(),
        "{after:?}"
    );

    let rec = m
        .show(r, "session.json")
        .expect("the commit's tree holds session.json");
    let v: Value = serde_json::from_str(&rec).unwrap_or_else(|e| panic!("{e}: {rec}"));
    assert!(rec.contains(S1), "{rec}");
    assert!(rec.contains("src/lib.rs"), "{rec}");
    let _ = v;
    let remote = m.remote.to_str().unwrap();
    let parents = git_out(
        &m.base,
        &["--git-dir", remote, "rev-list", "--parents", "-n1", r],
    );
    assert_eq!(
        parents.split_whitespace().count(),
        1,
        "parentless: {parents}"
    );
    // Beta's own branches and tags are untouched by its sync.
    assert_eq!(
        git_out(&m.b, &["for-each-ref", "refs/heads", "refs/tags"]),
        b_local_before
    );
}

#[test]
fn an_ended_session_disappears_from_the_remote_and_the_other_machine() {
    let m = machines();
    lifecycle(&m.a, "SessionStart", S1);
    edit_alone(&m.a, S1, "src/lib.rs", None);
    sync(&m.a);
    sync(&m.b);
    assert!(session(&status(&m.b), &format!("{S1}@alpha")).is_some());
    assert_eq!(m.session_refs("alpha").len(), 1);

    lifecycle(&m.a, "SessionEnd", S1).assert_silent();
    sync(&m.a);
    assert!(
        m.session_refs("alpha").is_empty(),
        "alpha deletes its ended session's ref: {:?}",
        m.remote_refs()
    );
    let v = sync_json(&m.b);
    assert_eq!(v["imported_sessions"], 0, "{v}");
    let st = status(&m.b);
    assert!(
        ids(&st).iter().all(|id| !id.starts_with(&S1[..8])),
        "beta no longer lists S1: {st}"
    );
    pre_edit(&m.b, S2, "src/lib.rs").assert_silent();
}

#[test]
fn another_machines_live_ref_is_kept_and_its_lapsed_ref_removed_allowing_for_skew() {
    let m = machines();
    // A fifteen-minute lease on both machines, whichever side computes the end of a remote
    // lease; the lapse is the test clock of debug builds moved on, not a wait.
    m.config(&m.a, "dibs.ttl", "15m");
    m.config(&m.b, "dibs.ttl", "15m");
    edit_alone(&m.a, S1, "src/lib.rs", None);
    sync(&m.a);
    let live = m.session_refs("alpha");
    assert_eq!(live.len(), 1);

    // Beta, even allowing no skew at all, keeps alpha's live ref.
    m.config(&m.b, "dibs.clockSkew", "0");
    let v = sync_json(&m.b);
    assert_eq!(v["removed"], 0, "{v}");
    assert_eq!(m.session_refs("alpha"), live, "a live ref is never deleted");
    assert_eq!(v["imported_sessions"], 1, "{v}");

    // Lapsed by a little: with an hour of allowed skew it stays.
    let lapsed = (now_secs() + 15 * 60 + 30).to_string();
    let at_lapse = [("DIBS_NOW", lapsed.as_str())];
    m.config(&m.b, "dibs.clockSkew", "1h");
    let out = run(&m.b, None, &["sync", "--json"], &at_lapse);
    assert!(out.status.success(), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["removed"], 0, "within the allowed skew: {v}");
    assert_eq!(m.session_refs("alpha"), live);

    // With no skew allowed, beta removes it and says so.
    m.config(&m.b, "dibs.clockSkew", "0");
    let out = run(&m.b, None, &["sync"], &at_lapse);
    let out = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(out.contains("removed 1"), "{out}");
    assert!(
        m.session_refs("alpha").is_empty(),
        "lapsed ref cleaned: {:?}",
        m.remote_refs()
    );
    let st = run(&m.b, None, &["status", "--json"], &at_lapse);
    let st: serde_json::Value = serde_json::from_slice(&st.stdout).unwrap();
    assert!(session(&st, &format!("{S1}@alpha")).is_none(), "{st}");
}

#[test]
fn sync_with_an_unreachable_remote_exits_2_saying_cannot_reach_remote() {
    let m = machines();
    edit_alone(&m.a, S1, "src/lib.rs", None);
    git(&m.a, &["remote", "set-url", "origin", "/nonexistent/x.git"]);
    let out = run(&m.a, None, &["sync"], &[]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("git dibs: cannot reach remote `origin`"),
        "{err}"
    );
    assert!(
        err.contains("git ls-remote origin"),
        "says what to check: {err}"
    );
    assert!(m.remote_refs_under("refs/dibs/").is_empty());
    assert_eq!(out.status.code(), Some(2), "an error, not a refusal: {err}");
}

#[test]
fn offline_hooks_stay_silent_and_an_exclusive_claim_fails_unless_local() {
    let m = machines();
    git(&m.a, &["remote", "set-url", "origin", "/nonexistent/x.git"]);
    m.config(&m.a, "dibs.sync", "true");
    m.config(&m.a, "dibs.syncInterval", "1s");
    let t = Instant::now();
    for (pre, rel) in [
        (true, "src/lib.rs"),
        (false, "src/lib.rs"),
        (true, "README.md"),
    ] {
        let hook_run = if pre {
            pre_edit(&m.a, S1, rel)
        } else {
            post_edit(&m.a, S1, rel)
        };
        hook_run.assert_silent();
        assert!(
            !hook_run.stderr.contains("remote"),
            "offline, hooks say nothing about it: {}",
            hook_run.stderr
        );
    }
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "hooks never wait on the network"
    );

    let out = dibs_as(&m.a, S2, &["claim", "record:Y", "--exclusive"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("cannot reach remote"), "{}", text(&out));
    assert!(
        holders(&status(&m.a), "record:Y").is_empty(),
        "nothing claimed"
    );
    let failed_code = out.status.code();

    let out = dibs_as(&m.a, S2, &["claim", "record:Y", "--exclusive", "--local"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(holders(&status(&m.a), "record:Y"), [S2]);
    assert!(m.remote_refs_under("refs/dibs/").is_empty());
    assert_eq!(
        failed_code,
        Some(2),
        "an unreachable remote is an error (exit 2), not a refusal (exit 1)"
    );
}

#[test]
fn sync_with_no_remote_exits_2_naming_how_to_configure_one() {
    let m = machines();
    let lone = m.base.join("lone");
    git(&m.base, &["init", "-q", "-b", "main", "lone"]);
    std::fs::write(lone.join("f.txt"), "x\n").unwrap();
    git(&lone, &["add", "f.txt"]);
    git(&lone, &["commit", "-qm", "one"]);
    git(&lone, &["config", "dibs.sync", "true"]);
    edit_alone(&lone, S1, "f.txt", None);
    let out = run(&lone, None, &["sync"], &[]);
    assert!(!out.status.success(), "{}", text(&out));
    let err = stderr(&out).to_lowercase();
    assert!(err.contains("no remote"), "{err}");
    assert!(
        err.contains("git remote add") || err.contains("dibs.remote"),
        "says how to name one: {err}"
    );
    assert_eq!(out.status.code(), Some(2), "an error, not a refusal: {err}");
}

#[test]
fn hooks_publish_in_the_background_at_most_every_sync_interval() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    m.config(&m.a, "dibs.syncInterval", "1s");
    lifecycle(&m.a, "SessionStart", S1).assert_silent();
    let t = Instant::now();
    pre_edit(&m.a, S1, "src/lib.rs").assert_silent();
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the hook does not wait for the sync"
    );
    post_edit(&m.a, S1, "src/lib.rs").assert_silent();

    let published = wait_until(Duration::from_secs(15), Duration::from_millis(200), || {
        !m.session_refs("alpha").is_empty()
    });
    assert!(
        published,
        "no session ref after 15 s: {:?}",
        m.remote_refs()
    );
    let r = m.session_refs("alpha")[0].clone();
    assert!(r.ends_with(S1), "{r}");

    // Later hooks (past the interval) publish again: the edit shows up in the record.
    let has_file = wait_until(Duration::from_secs(15), Duration::from_millis(1200), || {
        post_edit(&m.a, S1, "src/lib.rs").assert_silent();
        std::thread::sleep(Duration::from_millis(300));
        m.show(&r, "session.json")
            .is_some_and(|t| t.contains("src/lib.rs"))
    });
    assert!(has_file, "{:?}", m.show(&r, "session.json"));
    // Beta reads it with its own sync.
    sync(&m.b);
    assert!(session(&status(&m.b), &format!("{S1}@alpha")).is_some());
}

#[test]
fn a_hook_returns_at_once_while_its_background_sync_hangs_on_the_remote() {
    let m = machines();
    // A remote that answers nothing for 8 s: its "ssh" leaves a mark, then sleeps.
    let mark = m.base.join("ssh-was-run");
    let ssh = m.base.join("slow-ssh");
    std::fs::write(
        &ssh,
        format!("#!/bin/sh\ntouch '{}'\nsleep 8\n", mark.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(
        &m.a,
        &[
            "remote",
            "set-url",
            "origin",
            "ssh://git@example.invalid/x.git",
        ],
    );
    m.config(&m.a, "core.sshCommand", ssh.to_str().unwrap());
    m.config(&m.a, "dibs.sync", "true");
    m.config(&m.a, "dibs.syncInterval", "1s");

    let t = Instant::now();
    lifecycle(&m.a, "SessionStart", S1).assert_silent();
    pre_edit(&m.a, S1, "src/lib.rs").assert_silent();
    let took = t.elapsed();
    let started = wait_until(Duration::from_secs(8), Duration::from_millis(100), || {
        mark.exists()
    });
    assert!(started, "no background sync reached the remote");
    assert!(
        took < Duration::from_secs(4),
        "two hooks took {took:?}: a hook waited on the network (or on its background sync)"
    );
}

#[test]
fn the_guard_refuses_deleting_a_branch_a_session_on_another_machine_works_on() {
    let m = machines();
    let path = path_with_quiet_gh(&m.base);
    let env = [("PATH", path.as_str())];
    // On alpha, S1 works on `feature` (pushed, at main's commit: no commit only there).
    git(&m.a, &["checkout", "-q", "-b", "feature"]);
    git(&m.a, &["push", "-q", "-u", "origin", "feature"]);
    edit_alone(&m.a, S1, "src/lib.rs", Some("pub fn a() { wip() }\n"));
    sync(&m.a);
    git(&m.b, &["fetch", "-q", "origin"]);
    sync(&m.b);
    let st = status(&m.b);
    let s1 = session(&st, &format!("{S1}@alpha")).unwrap_or_else(|| panic!("{st}"));
    assert_eq!(s1["branch"], "feature", "{s1}");

    let cmd = "git push origin --delete feature";
    let run = bash_as(&m.b, S2, cmd, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    match decision(&run) {
        Some((d, reason)) if d == "deny" => {
            assert!(reason.contains("alpha"), "names the machine: {reason}");
            assert!(reason.contains(&S1[..8]), "names the session: {reason}");
        }
        other => panic!("`{cmd}` was not refused: {other:?} / {}", run.stderr),
    }

    // Once that session ended (and both synced), the same command is not refused.
    lifecycle(&m.a, "SessionEnd", S1).assert_silent();
    sync(&m.a);
    sync(&m.b);
    let run = bash_as(&m.b, S2, cmd, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !matches!(decision(&run), Some((ref d, _)) if d == "deny"),
        "refused with no live session on the branch: {}",
        run.stdout
    );
}

#[test]
fn the_guard_lets_beta_sweep_a_path_only_a_session_on_alpha_holds() {
    let m = machines();
    let path = path_with_quiet_gh(&m.base);
    let env = [("PATH", path.as_str())];
    // S1 on alpha holds a dirty src/lib.rs on main; beta has main checked out too.
    edit_alone(&m.a, S1, "src/lib.rs", Some("pub fn a() { alpha() }\n"));
    sync(&m.a);
    sync(&m.b);
    let st = status(&m.b);
    let s1 = session(&st, &format!("{S1}@alpha")).unwrap_or_else(|| panic!("{st}"));
    assert_eq!(
        file_paths(s1),
        ["src/lib.rs"],
        "mapped onto beta's main: {s1}"
    );
    assert_eq!(s1["files"][0]["dirty"], true, "{s1}");

    // Beta's own change to that path is beta's to commit: rule 5 ignores imported sessions.
    std::fs::write(m.b.join("src/lib.rs"), "pub fn a() { beta() }\n").unwrap();
    let sweep = bash_as(&m.b, S2, "git add -A", &env);
    assert_eq!(sweep.code, 0, "{}", sweep.stderr);
    assert!(
        !matches!(decision(&sweep), Some((ref d, _)) if d == "deny"),
        "refused over a file on another machine: {}",
        sweep.stdout
    );

    // The control: a live session on beta itself with a dirty file does stop the sweep.
    edit_alone(&m.b, S3, "README.md", Some("# beta's peer\n"));
    let sweep = bash_as(&m.b, S2, "git add -A", &env);
    match decision(&sweep) {
        Some((d, reason)) if d == "deny" => {
            assert!(reason.contains("README.md"), "{reason}");
            assert!(!reason.contains("src/lib.rs"), "{reason}");
        }
        other => panic!("a local peer's dirty file was swept: {other:?}"),
    }
}

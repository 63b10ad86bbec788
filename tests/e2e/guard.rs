//! Scenarios of the Bash guard in the real host: what destroys work is refused (and the model is
//! told why), an unresolvable target is asked about, and the bypass goes through, audited with
//! the session id the host reported.

use std::path::Path;

use serde_json::Value;

use super::api::{Step, content_text};
use super::scenario::Scenario;
use crate::common;

/// Scenario 3: with a live peer holding README.md in the main worktree, the guard refuses
/// `git worktree remove --force` of a dirty worktree, `git branch -D` of an unpushed branch and
/// `git add -A`; nothing changes and the model is told what is at risk. A deletion whose target
/// is only known at run time is asked about, which a headless host treats as a refusal.
#[test]
fn guard_refuses_what_destroys_work() {
    let s = Scenario::new("guard");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    s.step("setup: dirty worktree, unpushed branch");
    let lane = s.repo.worktree("lane");
    s.repo.write(&lane, "notes.txt", "lane's unsaved notes\n");
    s.repo.write(&lane, "src/lib.rs", "pub fn lane() {}\n");
    unpushed_branch(&root, "unpushed");
    let readme = root.join("README.md");
    let release = s.flag("guard-done");
    let (mp, mg) = ("[e2e:guard-peer]", "[e2e:guard-agent]");
    s.step("the peer holds README.md");
    let peer_work = vec![
        Step::read(&readme),
        Step::edit(&readme, "# test", "# test\n\npeer's work"),
    ];
    let (peer, peer_id) =
        s.start_holding("peer", mp, &root, peer_work, &release, "edit the readme");
    let lane_arg = lane.display().to_string();
    s.api.script(
        mg,
        vec![
            Step::bash(&format!("git worktree remove --force {lane_arg}")),
            Step::bash("git branch -D unpushed"),
            Step::bash("git add -A"),
            // `$(echo …)` is read through now; a target another program prints is not.
            Step::bash("git branch -D $(git branch --list 'unp*' | tr -d ' ')"),
            Step::Text("done".into()),
        ],
    );
    let branch_tip = common::git_out(&root, &["rev-parse", "refs/heads/unpushed"]);
    let index_before = common::git_out(&root, &["ls-files", "--stage"]);
    let lane_status = common::git_out(&lane, &["status", "--porcelain"]);
    let agent = s.start("agent", &root, &format!("{mg} clean up"));
    let agent = s.finish(agent);
    std::fs::write(&release, "").unwrap();
    s.finish(peer);

    let expect_refusal = |step: usize, what: &str, names: &[&str]| {
        s.step(&format!("the model is told why `{what}` was refused"));
        let result = s
            .api
            .tool_result(mg, step)
            .unwrap_or_else(|| s.fail(&format!("no tool_result for `{what}` reached the model")));
        let text = content_text(&result["content"]);
        s.check(result["is_error"] == Value::Bool(true), || {
            format!("`{what}` was not refused: {result}")
        });
        s.check(text.starts_with("PreToolUse:Bash hook error:"), || {
            format!("`{what}`: not a hook refusal: {text:?}")
        });
        for name in names {
            s.check(text.contains(name), || {
                format!("`{what}`: the reason does not name {name:?}: {text:?}")
            });
        }
        s.check(!text.contains("WT_GUARD_BYPASS"), || {
            format!("`{what}`: the reason advertises the bypass to the model: {text:?}")
        });
    };
    expect_refusal(0, "git worktree remove --force", &["lane", "notes.txt"]);
    expect_refusal(1, "git branch -D unpushed", &["unpushed"]);
    expect_refusal(2, "git add -A", &["README.md", &peer_id[..8]]);
    s.step("the person saw each refusal");
    let told = agent.informational();
    for what in ["worktree remove", "branch -D unpushed", "add -A"] {
        s.check(
            told.iter()
                .any(|e| e.contains("PreToolUse:Bash says:") && e.contains(what)),
            || format!("no informational event about `{what}`: {told:#?}"),
        );
    }
    s.step("an unresolvable target is asked about, which headless means refused");
    let asked = s
        .api
        .tool_result(mg, 3)
        .unwrap_or_else(|| s.fail("no tool_result for the `$(...)` branch deletion"));
    s.check(asked["is_error"] == Value::Bool(true), || {
        format!("`git branch -D $(git branch --list …)` ran: {asked}")
    });

    s.step("the worktree, the branch and the index are unchanged");
    s.check(lane.join("notes.txt").is_file(), || {
        "the lane's notes are gone".into()
    });
    let after = common::git_out(&lane, &["status", "--porcelain"]);
    s.check(after == lane_status, || {
        format!("lane status changed: {lane_status:?} -> {after:?}")
    });
    let tip = common::git_out(&root, &["rev-parse", "refs/heads/unpushed"]);
    s.check(tip == branch_tip, || {
        "branch unpushed moved or vanished".into()
    });
    let index_after = common::git_out(&root, &["ls-files", "--stage"]);
    s.check(index_after == index_before, || {
        format!("the index changed:\n{index_before}\n->\n{index_after}")
    });
    s.step("each refusal is in the audit log with the agent's real session id");
    let blocks: Vec<Value> = audit_lines(&s)
        .into_iter()
        .filter(|l| l["session"] == agent.session_id.as_str())
        .collect();
    for (verdict, what) in [
        ("block", "worktree remove"),
        ("block", "branch -D unpushed"),
        ("block", "add -A"),
        ("ask", "$(git branch --list"),
    ] {
        s.check(
            blocks.iter().any(|l| {
                l["verdict"] == verdict && l["command"].as_str().is_some_and(|c| c.contains(what))
            }),
            || {
                format!(
                    "no {verdict} line for `{what}` by {}: {blocks:#?}",
                    agent.session_id
                )
            },
        );
    }
}

/// Scenario 4: `WT_GUARD_BYPASS=1 git branch -D` of an unpushed branch goes through, and the
/// audit log has a bypass line with the session id the host reported.
#[test]
fn bypass_goes_through_and_is_audited() {
    let s = Scenario::new("bypass");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    unpushed_branch(&root, "doomed");
    let marker = "[e2e:bypass]";
    s.api.script(
        marker,
        vec![
            Step::bash("WT_GUARD_BYPASS=1 git branch -D doomed"),
            Step::Text("done".into()),
        ],
    );
    let session = s.start("a", &root, &format!("{marker} drop the branch"));
    let done = s.finish(session);
    s.step("the command ran");
    let result = s
        .api
        .tool_result(marker, 0)
        .unwrap_or_else(|| s.fail("no tool_result reached the model"));
    s.check(result["is_error"] != Value::Bool(true), || {
        format!("the bypass was refused: {result}")
    });
    let gone = common::git_command(&root)
        .args(["rev-parse", "--verify", "-q", "refs/heads/doomed"])
        .output()
        .unwrap();
    s.check(!gone.status.success(), || {
        "branch doomed still exists".into()
    });
    s.step("the audit log holds the bypass with the real session id");
    let lines = audit_lines(&s);
    let found = lines.iter().any(|l| {
        l["verdict"] == "bypass"
            && l["session"] == done.session_id.as_str()
            && l["command"].as_str().is_some_and(|c| c.contains("doomed"))
    });
    s.check(found, || {
        format!(
            "no bypass line for session {} in audit.log: {lines:#?}",
            done.session_id
        )
    });
}

/// The audit log's lines, parsed (lines that are not JSON are skipped).
fn audit_lines(s: &Scenario) -> Vec<Value> {
    let log = std::fs::read_to_string(s.repo.store_dir().join("audit.log")).unwrap_or_default();
    log.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A branch `name` with one commit that exists on no remote; `main` stays checked out.
pub(super) fn unpushed_branch(root: &Path, name: &str) {
    common::git(root, &["checkout", "-q", "-b", name]);
    std::fs::write(root.join(format!("{name}.txt")), "only here\n").unwrap();
    common::git(root, &["add", &format!("{name}.txt")]);
    common::git(root, &["commit", "-qm", &format!("{name}: only here")]);
    common::git(root, &["checkout", "-q", "main"]);
}

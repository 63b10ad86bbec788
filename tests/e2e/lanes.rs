//! Scenario of lanes in the real host: a lane made and written to by a session survives the
//! session being SIGKILLed, with no SessionEnd to tidy up.

use serde_json::{Value, json};

use super::api::{Step, content_text};
use super::scenario::Scenario;
use crate::common::{git_command, git_out};

/// Scenario 5 (lanes): a session runs `git dibs lane new work --json` through its Bash tool,
/// Writes a new file in the lane and stays live; it and everything it started are SIGKILLed.
/// The lane folder and its uncommitted file remain; the worktree is locked by git-dibs, so a
/// plain `git worktree remove --force` fails and changes nothing; `git dibs lane prune` keeps the
/// lane and names the file; `git dibs status` no longer shows the session as live.
#[test]
fn a_lane_survives_a_killed_session() {
    let s = Scenario::new("lane survives a kill");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lane = root.join(".worktrees/work");
    let new_file = lane.join("src/new.rs");
    let body = "pub fn unsaved() {}\n";
    let release = s.flag("never");
    let marker = "[e2e:lane-kill]";
    let work = vec![
        Step::bash("git dibs lane new work --json"),
        Step::tool("Write", json!({"file_path": new_file, "content": body})),
    ];
    let (session, id) = s.start_holding("a", marker, &root, work, &release, "work in a lane");

    s.step("`lane new` ran in the Bash tool and the lane is the session's");
    let result = s
        .api
        .tool_result(marker, 0)
        .unwrap_or_else(|| s.fail("no tool_result for `git dibs lane new` reached the model"));
    let made: Value =
        serde_json::from_str(content_text(&result["content"]).trim()).unwrap_or_else(|e| {
            s.fail(&format!(
                "`lane new --json` printed no JSON ({e}): {result}"
            ))
        });
    s.check(made["path"] == lane.to_str().unwrap(), || {
        format!("`lane new` made another path: {made}")
    });
    let listed = lane_named(&s, "work");
    s.check(
        listed["holder"]["session"] == id.as_str() && listed["holder"]["live"] == true,
        || format!("the lane is not held by the live session {id}: {listed}"),
    );
    s.check(
        session_view(&s, &["status", "--json"], &id).is_some_and(|v| v["live"] == true),
        || format!("status does not show {id} live before the kill"),
    );

    s.kill(session);

    s.step("the lane folder and its uncommitted file are still there");
    s.check(
        std::fs::read_to_string(&new_file).is_ok_and(|t| t == body),
        || format!("{} is gone or changed", new_file.display()),
    );
    let porcelain = git_out(&lane, &["status", "--porcelain"]);
    s.check(porcelain == "?? src/new.rs", || {
        format!("the lane's status: {porcelain:?}")
    });

    s.step("the worktree is locked with a git-dibs reason");
    let lock_file = root.join(".git/worktrees/work/locked");
    let reason = std::fs::read_to_string(&lock_file).unwrap_or_default();
    s.check(
        reason.starts_with("git-dibs:") && reason.contains(&id[..8]),
        || format!("{}: {reason:?}", lock_file.display()),
    );

    s.step("a plain `git worktree remove --force` fails and changes nothing");
    let worktrees = git_out(&root, &["worktree", "list", "--porcelain"]);
    let out = git_command(&root)
        .args(["worktree", "remove", "--force", ".worktrees/work"])
        .output()
        .unwrap();
    s.check(!out.status.success(), || {
        format!(
            "a single --force removed a locked lane: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    s.check(
        std::fs::read_to_string(&new_file).is_ok_and(|t| t == body)
            && git_out(&root, &["worktree", "list", "--porcelain"]) == worktrees
            && std::fs::read_to_string(&lock_file).unwrap_or_default() == reason,
        || "`git worktree remove --force` changed the lane, the worktree list or the lock".into(),
    );

    s.step("`git dibs lane prune` keeps the lane and lists the uncommitted file");
    let out = s.dibs(&root, &["lane", "prune"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    s.check(
        out.status.success() && said.contains("kept lane work") && said.contains("?? src/new.rs"),
        || format!("`lane prune` ({}): {said}", out.status),
    );
    s.check(new_file.is_file() && lock_file.is_file(), || {
        "`lane prune` removed or unlocked the dirty lane".into()
    });

    s.step("`git dibs status` no longer shows the killed session as live");
    s.check(
        session_view(&s, &["status", "--json"], &id).is_none_or(|v| v["live"] != true),
        || format!("status still shows {id} live after SIGKILL"),
    );
    let all = session_view(&s, &["status", "--all", "--json"], &id);
    s.check(all.as_ref().is_some_and(|v| v["live"] == false), || {
        format!("`status --all` does not list {id} as not live: {all:?}")
    });
}

/// The session `id` in `git dibs ARGS` (a `status --json`), if listed.
fn session_view(s: &Scenario, args: &[&str], id: &str) -> Option<Value> {
    let out = s.dibs(&s.repo.root, args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        s.fail(&format!(
            "`git dibs {}` printed no JSON ({e}): {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ))
    });
    v["sessions"]
        .as_array()
        .and_then(|all| all.iter().find(|x| x["id"] == id).cloned())
}

/// The lane `name` in `git dibs lane list --json`.
fn lane_named(s: &Scenario, name: &str) -> Value {
    let out = s.dibs(&s.repo.root, &["lane", "list", "--json"]);
    let lanes: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        s.fail(&format!(
            "`git dibs lane list --json` printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    });
    lanes
        .as_array()
        .and_then(|all| all.iter().find(|l| l["name"] == name).cloned())
        .unwrap_or_else(|| s.fail(&format!("no lane {name} in `lane list`: {lanes}")))
}

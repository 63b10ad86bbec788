//! End-to-end tests in the real Claude Code CLI, run offline against a stand-in of the Messages
//! API: the settings are accepted and the hooks run, a co-edit warning reaches the model, the
//! Bash guard refuses what destroys work, and the bypass is audited with the real session id.
//! The CLI is fetched once per machine (see `e2e/cli.rs`); each test is one scenario.

mod common;
mod e2e;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use e2e::api::{Step, content_text};
use e2e::scenario::{Scenario, hold_command};

/// How long a scenario waits for a session to reach a scripted point.
const REACH: Duration = Duration::from_secs(60);

/// Scenario 1: the settings file is accepted. SessionStart, UserPromptSubmit, PreToolUse and
/// SessionEnd ran: the store has the session id the host reported, holding the edited file while
/// live, labelled from the prompt, and ended with its claims released afterwards.
#[test]
fn settings_are_accepted_and_hooks_run() {
    let s = Scenario::new("settings accepted");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lib = root.join("src/lib.rs");
    let (ready, release) = (s.flag("ready"), s.flag("release"));
    let marker = "[e2e:accepted]";
    s.api.script(
        marker,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn accepted() {}"),
            Step::bash(&hold_command(&ready, &release, 60)),
            Step::Text("done".into()),
        ],
    );
    let session = s.start("a", &root, &format!("{marker} add a function"));
    let id = s.session_id_of(&session);
    s.step("session holds src/lib.rs while live");
    s.wait_for("the session to hold", REACH, || ready.exists());
    let record = s.store_session(&id).unwrap_or_else(|| {
        s.fail(&format!(
            "no store record for the host's session id {id}; records: {:?}",
            s.store_sessions()
        ))
    });
    s.check(record["ended"].is_null(), || {
        format!("record ended while live: {record}")
    });
    s.check(holds(&record, &root, "src/lib.rs"), || {
        format!("PreToolUse on Edit recorded no claim on src/lib.rs: {record}")
    });
    s.check(
        record["label"]
            .as_str()
            .is_some_and(|l| l.contains("add a function")),
        || format!("UserPromptSubmit left no label: {record}"),
    );
    std::fs::write(&release, "").unwrap();
    let done = s.finish(session);

    s.step("SessionStart ran and succeeded");
    let started = done.events.iter().any(|e| {
        e["subtype"] == "hook_response"
            && e["hook_event"] == "SessionStart"
            && e["exit_code"] == 0
            && e["outcome"] == "success"
    });
    s.check(started, || {
        "no successful SessionStart hook_response event".into()
    });
    s.step("SessionEnd ended the record and released its claims");
    let record = s
        .store_session(&id)
        .unwrap_or_else(|| s.fail("record gone"));
    s.check(record["ended"].is_u64(), || {
        format!("record not ended: {record}")
    });
    s.check(!holds(&record, &root, "src/lib.rs"), || {
        format!("claims not released at SessionEnd: {record}")
    });
    s.step("the edit happened");
    let text = std::fs::read_to_string(&lib).unwrap();
    s.check(text.contains("pub fn accepted()"), || {
        format!("src/lib.rs not edited: {text:?}")
    });
    s.step("the host was told nothing (no overlap)");
    s.check(
        s.api
            .system_texts(marker)
            .iter()
            .all(|t| !t.contains("hook additional context")),
        || format!("unexpected hook context: {:?}", s.api.system_texts(marker)),
    );
    s.step("git dibs doctor agrees");
    let out = s.dibs(&root, &["doctor"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("not built yet") {
        eprintln!("e2e: `git dibs doctor` is not built yet; its check is skipped");
    } else {
        s.check(out.status.success(), || {
            format!(
                "`git dibs doctor` disagrees ({}):\n{}\n{stderr}",
                out.status,
                String::from_utf8_lossy(&out.stdout)
            )
        });
    }
}

/// Scenario 2: while session A is live holding src/lib.rs, session B edits it. B's model is
/// told (as a `system` message in a later request) A's short id and the file; B's person sees the
/// systemMessage; the edit still happens.
#[test]
fn co_edit_warning_reaches_the_model() {
    let s = Scenario::new("co-editing");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lib = root.join("src/lib.rs");
    let (ready, release) = (s.flag("a-ready"), s.flag("b-done"));
    let (ma, mb) = ("[e2e:coedit-a]", "[e2e:coedit-b]");
    s.api.script(
        ma,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
            Step::bash(&hold_command(&ready, &release, 60)),
            Step::Text("done".into()),
        ],
    );
    s.api.script(
        mb,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() { /* b */ }"),
            Step::Text("done".into()),
        ],
    );
    let a = s.start("a", &root, &format!("{ma} add from_a"));
    let a_id = s.session_id_of(&a);
    s.step("A holds src/lib.rs");
    s.wait_for("A to hold the file", REACH, || ready.exists());
    let b = s.start("b", &root, &format!("{mb} touch a"));
    let b_done = s.finish(b);
    std::fs::write(&release, "").unwrap();
    let a_done = s.finish(a);
    s.check(a_done.session_id == a_id, || {
        "A changed its session id".into()
    });

    let short = &a_id[..8];
    s.step("B's model received the warning naming A and the file");
    let texts = s.api.system_texts(mb);
    let warning = texts
        .iter()
        .find(|t| t.starts_with("PreToolUse:Edit hook additional context:"));
    let Some(warning) = warning else {
        s.fail(&format!(
            "no PreToolUse:Edit additional context reached B's model; system messages: {texts:?}"
        ))
    };
    s.check(
        warning.contains(short) && warning.contains("src/lib.rs"),
        || format!("the warning does not name A ({short}) and src/lib.rs: {warning:?}"),
    );
    s.step("B's person saw the systemMessage");
    let info = b_done.informational();
    s.check(
        info.iter()
            .any(|e| e.contains("PreToolUse:Edit says:") && e.contains(short)),
        || format!("no informational PreToolUse:Edit event naming A: {info:?}"),
    );
    s.step("A was told nothing when it edited first");
    s.check(
        s.api
            .system_texts(ma)
            .iter()
            .all(|t| !t.contains("hook additional context")),
        || format!("A was warned: {:?}", s.api.system_texts(ma)),
    );
    s.step("both edits are on disk");
    let text = std::fs::read_to_string(&lib).unwrap();
    s.check(text.contains("/* b */") && text.contains("from_a"), || {
        format!("src/lib.rs lacks an edit: {text:?}")
    });
}

/// Scenario 5 (awareness): with A live holding src/lib.rs, B is told at start who else works
/// here (with the house rule), edits the file, and at its next prompt is told, in the prompt-time
/// block, that A shares its file.
#[test]
fn start_disclosure_and_prompt_block_reach_the_model() {
    let s = Scenario::new("awareness");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lib = root.join("src/lib.rs");
    let (ready, release) = (s.flag("a-ready"), s.flag("b-done"));
    let (ma, mb) = ("[e2e:aware-a]", "[e2e:aware-b]");
    s.api.script(
        ma,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
            Step::bash(&hold_command(&ready, &release, 60)),
            Step::Text("done".into()),
        ],
    );
    s.api.script(
        mb,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() { /* b */ }"),
            Step::Text("first prompt done".into()),
            Step::Text("second prompt done".into()),
        ],
    );
    let a = s.start("a", &root, &format!("{ma} add from_a"));
    let a_id = s.session_id_of(&a);
    s.wait_for("A to hold the file", REACH, || ready.exists());
    let mut b = s.start_streaming("b", &root);
    s.say(&mut b, &format!("{mb} touch a"));
    s.wait_turns(&b, 1);
    s.say(&mut b, &format!("{mb} and once more"));
    s.wait_turns(&b, 2);
    b.close_input();
    s.finish(b);
    std::fs::write(&release, "").unwrap();
    s.finish(a);

    let short = &a_id[..8];
    let requests = s.api.conversation(mb);
    s.step("B's model was told at start who else works here");
    let texts = s.api.system_texts(mb);
    let start = texts
        .iter()
        .find(|t| t.starts_with("SessionStart hook additional context:"));
    let Some(start) = start else {
        s.fail(&format!(
            "no SessionStart context reached B's model: {texts:?}"
        ))
    };
    s.check(
        start.contains(short) && start.contains("src/lib.rs") && start.contains("House rule"),
        || format!("the start disclosure does not name A ({short}), its file and the house rule: {start:?}"),
    );
    s.step("B's model was told at its second prompt that A shares src/lib.rs");
    let last = requests
        .last()
        .unwrap_or_else(|| s.fail("B sent no request"));
    let told = last
        .messages()
        .iter()
        .filter(|m| m["role"] == "system")
        .map(|m| content_text(&m["content"]))
        .find(|t| t.starts_with("UserPromptSubmit hook additional context:"));
    let named =
        |t: &String| t.contains(short) && t.contains("src/lib.rs") && t.lines().count() <= 2;
    s.check(told.as_ref().is_some_and(named), || {
        let all: Vec<String> = last.messages().iter().map(|m| content_text(&m["content"])).collect();
        format!("no prompt-time block (at most two lines) naming A ({short}) and src/lib.rs in B's last request: {all:#?}")
    });
}

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
    let (ready, release) = (s.flag("peer-ready"), s.flag("guard-done"));
    let (mp, mg) = ("[e2e:guard-peer]", "[e2e:guard-agent]");
    s.api.script(
        mp,
        vec![
            Step::read(&readme),
            Step::edit(&readme, "# test", "# test\n\npeer's work"),
            Step::bash(&hold_command(&ready, &release, 60)),
            Step::Text("done".into()),
        ],
    );
    let lane_arg = lane.display().to_string();
    s.api.script(
        mg,
        vec![
            Step::bash(&format!("git worktree remove --force {lane_arg}")),
            Step::bash("git branch -D unpushed"),
            Step::bash("git add -A"),
            Step::bash("git branch -D $(echo unpushed)"),
            Step::Text("done".into()),
        ],
    );
    let peer = s.start("peer", &root, &format!("{mp} edit the readme"));
    let peer_id = s.session_id_of(&peer);
    s.step("the peer holds README.md");
    s.wait_for("the peer to hold README.md", REACH, || ready.exists());
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
    s.step("an unresolvable target is asked about, which headless means refused");
    let asked = s
        .api
        .tool_result(mg, 3)
        .unwrap_or_else(|| s.fail("no tool_result for the `$(...)` branch deletion"));
    s.check(asked["is_error"] == Value::Bool(true), || {
        format!("`git branch -D $(echo unpushed)` ran: {asked}")
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
        ("ask", "$(echo unpushed)"),
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

/// Whether a store record holds `path` in the worktree at `root`.
fn holds(record: &Value, root: &Path, path: &str) -> bool {
    record["files"].as_array().is_some_and(|files| {
        files
            .iter()
            .any(|f| f["path"] == path && f["worktree"] == root.to_str().unwrap())
    })
}

/// A branch `name` with one commit that exists on no remote; `main` stays checked out.
fn unpushed_branch(root: &Path, name: &str) {
    common::git(root, &["checkout", "-q", "-b", name]);
    std::fs::write(root.join(format!("{name}.txt")), "only here\n").unwrap();
    common::git(root, &["add", &format!("{name}.txt")]);
    common::git(root, &["commit", "-qm", &format!("{name}: only here")]);
    common::git(root, &["checkout", "-q", "main"]);
}

//! End-to-end tests in the real Claude Code CLI, run offline against a stand-in of the Messages
//! API: the settings are accepted and the hooks run, a co-edit warning reaches the model, the
//! Bash guard refuses what destroys work, and the bypass is audited with the real session id.
//! The CLI is fetched once per machine (see `e2e/cli.rs`); each test is one scenario. The guard's
//! scenarios are in `e2e/guard.rs`, the lanes' in `e2e/lanes.rs`.

mod common;
mod e2e;

use std::path::Path;

use serde_json::Value;

use e2e::api::{Step, content_text};
use e2e::scenario::Scenario;

/// Scenario 1: the settings file is accepted. SessionStart, UserPromptSubmit, PreToolUse and
/// SessionEnd ran: the store has the session id the host reported, holding the edited file while
/// live, labelled from the prompt, and ended with its explicit claims released and its
/// uncommitted file still on record afterwards.
#[test]
fn settings_are_accepted_and_hooks_run() {
    let s = Scenario::new("settings accepted");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lib = root.join("src/lib.rs");
    let release = s.flag("release");
    let marker = "[e2e:accepted]";
    s.step("session holds src/lib.rs while live");
    let (session, id) = s.start_holding(
        "a",
        marker,
        &root,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn accepted() {}"),
        ],
        &release,
        "add a function",
    );
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
    s.step("git dibs status shows the live session holding src/lib.rs");
    let out = s.dibs(&root, &["status", "--json"]);
    let status: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        s.fail(&format!(
            "`git dibs status --json` printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    });
    let me = status["sessions"]
        .as_array()
        .and_then(|all| all.iter().find(|x| x["id"] == id.as_str()));
    s.check(
        me.is_some_and(|me| {
            me["live"] == true && me["host"] == "claude" && holds(me, &root, "src/lib.rs")
        }),
        || format!("status does not show {id} live holding src/lib.rs: {status:#}"),
    );
    s.step("git dibs doctor agrees while the session is live");
    doctor_agrees(&s, &root);
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
    s.step("SessionEnd ended the record and kept only its uncommitted file on it");
    let record = s
        .store_session(&id)
        .unwrap_or_else(|| s.fail("record gone"));
    s.check(record["ended"].is_u64(), || {
        format!("record not ended: {record}")
    });
    // src/lib.rs was edited and not committed: it stays on the ended record, so `status`
    // shows it as work left behind (an ended session protects nothing).
    s.check(holds(&record, &root, "src/lib.rs"), || {
        format!("the uncommitted file left the record at SessionEnd: {record}")
    });
    s.check(
        record["claims"].as_array().is_none_or(|c| c.is_empty()),
        || format!("explicit claims not released at SessionEnd: {record}"),
    );
    s.step("the edit happened");
    let text = std::fs::read_to_string(&lib).unwrap();
    s.check(text.contains("pub fn accepted()"), || {
        format!("src/lib.rs not edited: {text:?}")
    });
    s.step("the host was told nothing (no overlap)");
    told_nothing(&s, marker, "unexpected hook context");
    s.step("git dibs doctor names the work the session left, then agrees once it is committed");
    let out = s.dibs(&root, &["doctor"]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    s.check(
        said.contains("ended with uncommitted files: src/lib.rs"),
        || format!("doctor does not name the work left behind:\n{said}"),
    );
    common::git(&root, &["commit", "-qam", "the session's work"]);
    doctor_agrees(&s, &root);
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
    let release = s.flag("b-done");
    let (ma, mb) = ("[e2e:coedit-a]", "[e2e:coedit-b]");
    s.step("A holds src/lib.rs");
    let (a, a_id) = s.start_holding("a", ma, &root, a_edits(&lib), &release, "add from_a");
    s.api.script(
        mb,
        [b_edits(&lib), vec![Step::Text("done".into())]].concat(),
    );
    let b = s.start("b", &root, &format!("{mb} touch a"));
    let b_done = s.finish(b);
    std::fs::write(&release, "").unwrap();
    let a_done = s.finish(a);
    s.check(a_done.session_id == a_id, || {
        "A changed its session id".into()
    });

    let short = &a_id[..8];
    s.step("B's model received the warning naming A and the file");
    let warning = system_text(
        &s,
        mb,
        "PreToolUse:Edit hook additional context:",
        "no PreToolUse:Edit additional context reached B's model; system messages",
    );
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
    told_nothing(&s, ma, "A was warned");
    s.step("both edits are on disk");
    let text = std::fs::read_to_string(&lib).unwrap();
    s.check(text.contains("/* b */") && text.contains("from_a"), || {
        format!("src/lib.rs lacks an edit: {text:?}")
    });
}

/// Scope is physical: while A is live holding src/lib.rs in the main worktree, C edits
/// src/lib.rs in a linked worktree (hooks installed there too). C is not warned, and its claim is
/// on the linked worktree's file.
#[test]
fn same_path_in_another_worktree_is_not_a_co_edit() {
    let s = Scenario::new("worktree scope");
    let root = s.repo.root.clone();
    let lane = s.repo.worktree("lane");
    s.wire_hooks(&root);
    s.wire_hooks(&lane);
    let (main_lib, lane_lib) = (root.join("src/lib.rs"), lane.join("src/lib.rs"));
    let release = s.flag("c-ready");
    let (ma, mc) = ("[e2e:scope-a]", "[e2e:scope-c]");
    let (a, a_id) = s.start_holding("a", ma, &root, a_edits(&main_lib), &release, "add from_a");
    let lane_edit = vec![
        Step::read(&lane_lib),
        Step::edit(&lane_lib, "pub fn a() {}", "pub fn a() { /* lane */ }"),
    ];
    let (c, c_id) = s.start_holding("c", mc, &lane, lane_edit, &release, "touch the lane");
    s.step("C's claim is on the lane's src/lib.rs, A's on main's");
    let c_record = s.store_session(&c_id).unwrap_or_else(|| {
        s.fail("a session in a linked worktree left no store record (were its hooks run?)")
    });
    s.check(
        holds(&c_record, &lane, "src/lib.rs") && !holds(&c_record, &root, "src/lib.rs"),
        || format!("C's claim is not (only) on the lane's file: {c_record}"),
    );
    s.check(c_record["branch"] == "lane", || {
        format!("C's branch: {c_record}")
    });
    let a_record = s
        .store_session(&a_id)
        .unwrap_or_else(|| s.fail("A has no record"));
    s.check(holds(&a_record, &root, "src/lib.rs"), || {
        format!("A's claim: {a_record}")
    });
    std::fs::write(&release, "").unwrap();
    s.finish(c);
    s.finish(a);
    s.step("C's model got no co-edit warning");
    let texts = s.api.system_texts(mc);
    s.check(
        texts
            .iter()
            .all(|t| !t.starts_with("PreToolUse:Edit hook additional context:")),
        || format!("C was warned about a file in another worktree: {texts:?}"),
    );
    s.step("both edits are on disk, each in its own worktree");
    let (m, l) = (
        std::fs::read_to_string(&main_lib).unwrap(),
        std::fs::read_to_string(&lane_lib).unwrap(),
    );
    s.check(m.contains("from_a") && !m.contains("lane"), || {
        format!("main: {m:?}")
    });
    s.check(l.contains("/* lane */") && !l.contains("from_a"), || {
        format!("lane: {l:?}")
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
    let release = s.flag("b-done");
    let (ma, mb) = ("[e2e:aware-a]", "[e2e:aware-b]");
    let (a, a_id) = s.start_holding("a", ma, &root, a_edits(&lib), &release, "add from_a");
    s.api.script(
        mb,
        [
            b_edits(&lib),
            vec![
                Step::Text("first prompt done".into()),
                Step::Text("second prompt done".into()),
            ],
        ]
        .concat(),
    );
    let mut b = s.start_streaming("b", &root);
    s.say(&mut b, &format!("{mb} touch a"));
    s.wait_turns(&mut b, 1);
    s.say(&mut b, &format!("{mb} and once more"));
    s.wait_turns(&mut b, 2);
    b.close_input();
    s.finish(b);
    std::fs::write(&release, "").unwrap();
    s.finish(a);

    let short = &a_id[..8];
    let requests = s.api.conversation(mb);
    s.step("B's model was told at start who else works here");
    let start = system_text(
        &s,
        mb,
        "SessionStart hook additional context:",
        "no SessionStart context reached B's model",
    );
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

/// Session A's work in the scenarios with a live peer: read `lib`, then add a function to it.
fn a_edits(lib: &Path) -> Vec<Step> {
    vec![
        Step::read(lib),
        Step::edit(lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
    ]
}

/// Session B's edit in the scenarios with a live peer: read `lib`, then change `a` in it.
fn b_edits(lib: &Path) -> Vec<Step> {
    vec![
        Step::read(lib),
        Step::edit(lib, "pub fn a() {}", "pub fn a() { /* b */ }"),
    ]
}

/// The system message to `marker`'s model that starts with `prefix`; fails with `missing` and
/// every system message when there is none.
fn system_text(s: &Scenario, marker: &str, prefix: &str, missing: &str) -> String {
    let texts = s.api.system_texts(marker);
    match texts.iter().find(|t| t.starts_with(prefix)) {
        Some(text) => text.clone(),
        None => s.fail(&format!("{missing}: {texts:?}")),
    }
}

/// Fail with `complaint` and the system messages if any hook context reached `marker`'s model.
fn told_nothing(s: &Scenario, marker: &str, complaint: &str) {
    let texts = s.api.system_texts(marker);
    s.check(
        texts.iter().all(|t| !t.contains("hook additional context")),
        || format!("{complaint}: {texts:?}"),
    );
}

/// `git dibs doctor` in `dir` finds nothing wrong.
fn doctor_agrees(s: &Scenario, dir: &Path) {
    let out = s.dibs(dir, &["doctor"]);
    s.check(out.status.success(), || {
        format!(
            "`git dibs doctor` disagrees ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
}

/// Whether a store record holds `path` in the worktree at `root`.
fn holds(record: &Value, root: &Path, path: &str) -> bool {
    record["files"].as_array().is_some_and(|files| {
        files
            .iter()
            .any(|f| f["path"] == path && f["worktree"] == root.to_str().unwrap())
    })
}

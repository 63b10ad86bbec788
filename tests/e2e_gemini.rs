//! End-to-end tests in the real Gemini CLI, run offline against a stand-in of the Gemini API:
//! hooks wired by `git dibs install --gemini` run, a live peer's co-edit warning reaches the
//! model (in the edit's tool result), and the guard's refusal stops `git branch -D`. The CLI is
//! fetched once per machine (`e2e_hosts/fetch.rs`); each test is one scenario.

mod common;
mod e2e_hosts;

use std::fs;
use std::process::Command;

use serde_json::json;

use e2e_hosts::fetch::Package;
use e2e_hosts::gemini_api::{self, call};
use e2e_hosts::http::Server;
use e2e_hosts::scenario::{Finished, Scenario};

/// The pinned Gemini CLI (see `../shared/reference/real-host-testing.md`).
const GEMINI: Package = Package {
    name: "@google/gemini-cli",
    version: "0.61.0",
    spec: "@google/gemini-cli@0.61.0",
    key: "gemini-cli",
    entry: "package/bundle/gemini.js",
    override_var: "GIT_DIBS_E2E_GEMINI",
};

/// Run `gemini -p <prompt>` headless in the repository against `api`.
fn gemini(s: &Scenario, api: &Server, name: &str, prompt: &str) -> Finished {
    let program = GEMINI.program();
    let home = s.scratch.join(format!("gemini-home-{name}"));
    fs::create_dir_all(home.join(".gemini")).unwrap();
    fs::write(
        home.join(".gemini/settings.json"),
        json!({"security": {"auth": {"selectedType": "gemini-api-key"}}}).to_string(),
    )
    .unwrap();
    let mut cmd = s.base_command("node".as_ref(), &home);
    cmd.arg(&program)
        .args(["-p", prompt, "-o", "stream-json", "--approval-mode", "yolo"])
        .args(["-m", "gemini-2.5-flash"])
        .env("GEMINI_CLI_HOME", &home)
        .env("GOOGLE_GEMINI_BASE_URL", api.base_url())
        .env("GEMINI_API_KEY", "stand-in")
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    s.attach(api);
    s.run(name, cmd)
}

/// The session id Gemini reported in its `init` event.
fn session_id(s: &Scenario, done: &Finished) -> String {
    let id = done
        .events
        .iter()
        .find(|e| e["type"] == "init")
        .and_then(|e| e["session_id"].as_str());
    id.map(str::to_owned)
        .unwrap_or_else(|| s.fail("no init event with a session_id"))
}

fn node_present() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A Gemini session edits a file a live Claude Code peer holds: the person is told at
/// BeforeTool, the model reads the warning (peer's short id, the file) in the edit's result,
/// the edit still happens, and the store records the Gemini session holding the file.
#[test]
fn co_edit_warning_reaches_the_model() {
    assert!(node_present(), "the Gemini CLI needs node on PATH");
    let s = Scenario::new("gemini co-edit");
    s.install("--gemini", ".gemini/settings.json");
    let short = s.peer_edits("src/lib.rs");
    let lib = s.repo.root.join("src/lib.rs");
    let api = gemini_api::start(vec![
        call("read_file", json!({"file_path": lib})),
        call(
            "replace",
            json!({"file_path": lib, "old_string": "pub fn a() {}",
                   "new_string": "pub fn a() { /* gemini */ }", "instruction": "mark a"}),
        ),
    ]);
    let done = gemini(&s, &api, "g", "mark the function a");
    let id = session_id(&s, &done);

    s.step("the model read the warning in the replace result");
    let response = gemini_api::function_response(&api, 1)
        .unwrap_or_else(|| s.fail("the replace call's result never reached the model"));
    let text = response.to_string();
    s.check(text.contains("<hook_context>git-dibs:"), || {
        format!("no git-dibs hook context in the result: {text}")
    });
    s.check(text.contains(&short) && text.contains("src/lib.rs"), || {
        format!("the warning does not name the peer ({short}) and src/lib.rs: {text}")
    });
    s.step("the start disclosure named the peer to the model");
    let first = api
        .requests()
        .into_iter()
        .find(|r| r.path.contains(":streamGenerateContent"));
    let first = first.map(|r| r.body.to_string()).unwrap_or_default();
    s.check(
        first.contains("other live session works in this checkout") && first.contains(&short),
        || format!("the first model request lacks the disclosure of the peer: {first}"),
    );
    s.step("the person saw the warning");
    s.check(
        done.stderr.contains("Hook system message: git-dibs:") && done.stderr.contains(&short),
        || "no hook system message naming the peer on stderr".into(),
    );
    s.step("the edit happened and the session holds the file");
    let text = fs::read_to_string(&lib).unwrap();
    s.check(text.contains("/* gemini */"), || {
        format!("not edited: {text:?}")
    });
    let record = s
        .store_sessions()
        .into_iter()
        .find(|r| r["id"] == id.as_str());
    let record = record.unwrap_or_else(|| s.fail(&format!("no store record for {id}")));
    s.check(record["host"] == "gemini", || {
        format!("host not gemini: {record}")
    });
    s.check(record.to_string().contains("src/lib.rs"), || {
        format!("the Gemini session holds no claim on src/lib.rs: {record}")
    });
}

/// A Gemini session runs `git branch -D` on a branch whose commit is on no remote: the tool is
/// blocked with git-dibs's reason, which the model receives, and the branch still exists.
#[test]
fn guard_refusal_stops_the_tool() {
    assert!(node_present(), "the Gemini CLI needs node on PATH");
    let s = Scenario::new("gemini guard");
    s.install("--gemini", ".gemini/settings.json");
    s.unpushed_branch("feature-x");
    let api = gemini_api::start(vec![
        call(
            "run_shell_command",
            json!({"command": "git branch -D feature-x", "description": "delete"}),
        ),
        call(
            "run_shell_command",
            json!({"command": "git branch | grep feature-x | xargs git branch -D"}),
        ),
    ]);
    let _done = gemini(&s, &api, "g", "delete the branch");
    s.step("the branch survived");
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted".into()
    });
    s.step("the model received the refusal");
    let response = gemini_api::function_response(&api, 0)
        .unwrap_or_else(|| s.fail("the shell call's result never reached the model"));
    let text = response["error"].as_str().unwrap_or_default().to_owned();
    s.check(
        text.starts_with("Tool execution blocked: git-dibs refused"),
        || format!("not git-dibs's refusal: {response}"),
    );
    s.check(text.contains("feature-x"), || {
        format!("the refusal does not name the branch: {text}")
    });

    s.step("a command whose target is unknown is refused, not left waiting for an answer");
    let response = gemini_api::function_response(&api, 1)
        .unwrap_or_else(|| s.fail("the second shell call's result never reached the model"));
    let text = response.to_string();
    s.check(
        text.contains("Tool execution blocked") && text.contains("cannot reliably ask"),
        || format!("not git-dibs's question-turned-refusal: {text}"),
    );
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted through xargs".into()
    });
}

/// The Gemini CLI extension in `plugins/gemini`, installed from this checkout with `gemini
/// extensions install` into the person's home, guards a repository with no settings file of its
/// own: the guard's refusal stops `git branch -D` of an unpushed branch.
#[test]
fn the_extension_guards_a_repository_without_settings() {
    assert!(node_present(), "the Gemini CLI needs node on PATH");
    let s = Scenario::new("gemini extension");
    s.unpushed_branch("feature-x");
    let home = s.scratch.join("gemini-home-g");
    fs::create_dir_all(&home).unwrap();
    let extension = concat!(env!("CARGO_MANIFEST_DIR"), "/plugins/gemini");
    s.step("gemini extensions install plugins/gemini");
    let out = s
        .base_command("node".as_ref(), &home)
        .arg(GEMINI.program())
        .args(["extensions", "install", extension, "--consent"])
        .env("GEMINI_CLI_HOME", &home)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    s.check(out.status.success(), || {
        format!(
            "`gemini extensions install` failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    s.check(!s.repo.root.join(".gemini").exists(), || {
        "the repository must have no .gemini folder".into()
    });
    let api = gemini_api::start(vec![call(
        "run_shell_command",
        json!({"command": "git branch -D feature-x", "description": "delete"}),
    )]);
    let _done = gemini(&s, &api, "g", "delete the branch");
    s.step("the branch survived and the model was told why");
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted: the extension's guard did not run".into()
    });
    let response = gemini_api::function_response(&api, 0)
        .unwrap_or_else(|| s.fail("the shell call's result never reached the model"));
    let text = response["error"].as_str().unwrap_or_default().to_owned();
    s.check(
        text.starts_with("Tool execution blocked: git-dibs refused") && text.contains("feature-x"),
        || format!("not git-dibs's refusal: {response}"),
    );
}

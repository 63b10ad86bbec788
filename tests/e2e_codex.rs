//! End-to-end tests in the real Codex CLI, run offline against a stand-in of the Responses API:
//! hooks wired by `git dibs install --codex` run, a live peer's co-edit warning on an
//! `apply_patch` reaches the model, and the guard's refusal stops `git branch -D`. The CLI is
//! fetched once per machine (`e2e_hosts/fetch.rs`); each test is one scenario.

mod common;
mod e2e_hosts;

use std::fs;

use e2e_hosts::codex_api::{self, exec, patch};
use e2e_hosts::fetch::Package;
use e2e_hosts::http::Server;
use e2e_hosts::scenario::{Finished, Scenario};

/// The pinned Codex CLI: the platform package behind `@openai/codex` 0.171.0.
const CODEX: Package = Package {
    name: "@openai/codex (linux-x64)",
    version: "0.171.0",
    spec: "@openai/codex@0.171.0-linux-x64",
    key: "codex-linux-x64",
    entry: "package/vendor/x86_64-unknown-linux-musl/bin/codex",
    override_var: "GIT_DIBS_E2E_CODEX",
};

/// The Codex home of the person `name`.
fn codex_home(s: &Scenario, name: &str) -> std::path::PathBuf {
    let home = s.scratch.join(format!("codex-home-{name}"));
    fs::create_dir_all(&home).unwrap();
    home
}

/// Run `codex exec` in the repository against `api`, with the project trusted.
fn codex(s: &Scenario, api: &Server, name: &str, prompt: &str) -> Finished {
    let program = CODEX.program();
    let home = codex_home(s, name);
    // What `codex plugin` recorded (marketplaces and plugins tables) stays, after the rest.
    let plugins = fs::read_to_string(home.join("plugins.toml")).unwrap_or_default();
    let config = format!(
        "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
         name = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\n\
         [projects.{:?}]\ntrust_level = \"trusted\"\n\n{plugins}",
        api.base_url(),
        s.repo.root.display().to_string()
    );
    fs::write(home.join("config.toml"), config).unwrap();
    let mut cmd = s.base_command(&program, &home);
    cmd.env("CODEX_HOME", &home)
        .args(["exec", "--json", "--dangerously-bypass-hook-trust"])
        .arg("--dangerously-bypass-approvals-and-sandbox")
        .arg(prompt);
    s.attach(api);
    s.run(name, cmd)
}

/// The thread (session) id Codex reported.
fn thread_id(s: &Scenario, done: &Finished) -> String {
    let id = done
        .events
        .iter()
        .find(|e| e["type"] == "thread.started")
        .and_then(|e| e["thread_id"].as_str());
    id.map(str::to_owned)
        .unwrap_or_else(|| s.fail("no thread.started event"))
}

/// A Codex session patches a file a live Claude Code peer holds: the model is told (peer's short
/// id, the file), the patch still applies, and the store records the Codex session holding the
/// file under its thread id.
#[test]
fn co_edit_warning_reaches_the_model() {
    let s = Scenario::new("codex co-edit");
    s.install("--codex", ".codex/hooks.json");
    let short = s.peer_edits("src/lib.rs");
    let api = codex_api::start(vec![patch(
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn a() {}\n+pub fn a() { /* codex */ }\n*** End Patch\n",
    )]);
    let done = codex(&s, &api, "x", "mark the function a");
    let id = thread_id(&s, &done);

    s.step("the model received the warning");
    let texts = codex_api::context_texts(&api);
    let warning = texts
        .iter()
        .find(|t| t.starts_with("git-dibs:") && t.contains("holds"));
    let Some(warning) = warning else {
        s.fail(&format!(
            "no git-dibs warning reached the model; context: {texts:?}"
        ))
    };
    s.check(
        warning.contains(&short) && warning.contains("src/lib.rs"),
        || format!("the warning does not name the peer ({short}) and src/lib.rs: {warning:?}"),
    );
    s.step("the start disclosure named the peer to the model");
    s.check(
        texts
            .iter()
            .any(|t| t.contains("other live session works in this checkout") && t.contains(&short)),
        || format!("no disclosure of the peer reached the model: {texts:?}"),
    );
    s.step("the patch applied and the session holds the file");
    let text = fs::read_to_string(s.repo.root.join("src/lib.rs")).unwrap();
    s.check(text.contains("/* codex */"), || {
        format!("not patched: {text:?}")
    });
    let record = s
        .store_sessions()
        .into_iter()
        .find(|r| r["id"] == id.as_str());
    let record = record.unwrap_or_else(|| s.fail(&format!("no store record for {id}")));
    s.check(record["host"] == "codex", || {
        format!("host not codex: {record}")
    });
    s.check(record.to_string().contains("src/lib.rs"), || {
        format!("the Codex session holds no claim on src/lib.rs: {record}")
    });
}

/// A Codex session runs `git branch -D` on a branch whose commit is on no remote: the hook's
/// deny stops the command, the model receives git-dibs's reason, and the branch still exists.
#[test]
fn guard_refusal_stops_the_tool() {
    let s = Scenario::new("codex guard");
    s.install("--codex", ".codex/hooks.json");
    s.unpushed_branch("feature-x");
    let api = codex_api::start(vec![
        exec("git branch -D feature-x"),
        exec("git branch | grep feature-x | xargs git branch -D"),
    ]);
    let _done = codex(&s, &api, "x", "delete the branch");
    s.step("the branch survived");
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted".into()
    });
    s.step("the model received the refusal");
    let output = codex_api::tool_output(&api, 0)
        .unwrap_or_else(|| s.fail("the command's output never reached the model"));
    s.check(
        output.contains("blocked by PreToolUse hook: git-dibs refused"),
        || format!("not git-dibs's refusal: {output}"),
    );
    s.check(output.contains("feature-x"), || {
        format!("the refusal does not name the branch: {output}")
    });

    s.step("a command whose target is unknown is refused (Codex has no ask)");
    let output = codex_api::tool_output(&api, 1)
        .unwrap_or_else(|| s.fail("the second command's output never reached the model"));
    s.check(
        output.contains("blocked by PreToolUse hook") && output.contains("cannot reliably ask"),
        || format!("not git-dibs's question-turned-refusal: {output}"),
    );
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted through xargs".into()
    });
}

/// This checkout's marketplace and plugin installed the way the README says (`codex plugin
/// marketplace add`, `codex plugin add`), in a repository with no hook file of its own: the
/// guard's refusal stops `git branch -D` of an unpushed branch.
#[test]
fn the_plugin_guards_a_repository_without_hook_files() {
    let s = Scenario::new("codex plugin");
    s.unpushed_branch("feature-x");
    let home = codex_home(&s, "x");
    let checkout = env!("CARGO_MANIFEST_DIR");
    for args in [
        &["plugin", "marketplace", "add", checkout][..],
        &["plugin", "add", "git-dibs@git-dibs"],
    ] {
        s.step(&format!("codex {}", args.join(" ")));
        let out = s
            .base_command(&CODEX.program(), &home)
            .env("CODEX_HOME", &home)
            .args(args)
            .output()
            .unwrap();
        s.check(out.status.success(), || {
            format!(
                "codex {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    }
    // Keep what the plugin commands recorded apart, so `codex` above can write the provider.
    fs::rename(home.join("config.toml"), home.join("plugins.toml")).unwrap();
    s.check(!s.repo.root.join(".codex").exists(), || {
        "the repository must have no .codex folder".into()
    });
    let api = codex_api::start(vec![exec("git branch -D feature-x")]);
    let _done = codex(&s, &api, "x", "delete the branch");
    s.step("the branch survived and the model was told why");
    s.check(s.branch_exists("feature-x"), || {
        "feature-x was deleted: the plugin's guard did not run".into()
    });
    let output = codex_api::tool_output(&api, 0)
        .unwrap_or_else(|| s.fail("the command's output never reached the model"));
    s.check(
        output.contains("git-dibs refused") && output.contains("feature-x"),
        || format!("not git-dibs's refusal: {output}"),
    );
}

//! Cursor, Gemini CLI and Codex through the real binary: each host's fixtures (paths moved into a
//! real repository) are recognised without `--host`, warnings and refusals come back in each
//! host's format, and `git dibs install --cursor|--gemini|--codex|--all` writes what
//! `hooks/*.json` shows, merging, refusing invalid files, and uninstalling again.

mod common;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use common::*;

/// A fixture of `host` with its example repository path replaced by `root`.
fn fixture(host: &str, name: &str, root: &Path) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks");
    let text = fs::read_to_string(dir.join(host).join(name))
        .unwrap_or_else(|e| panic!("fixture {host}/{name}: {e}"));
    let text = text.replace("/home/dev/work/acme-api", root.to_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

/// A live Claude Code peer holding `file` (its PreToolUse Edit ran).
fn peer_holds(root: &Path, file: &Path) -> String {
    let id = "a1b2c3d4-peer-0000-0000-000000000000";
    hook(root, &edit_event("PreToolUse", "Edit", id, root, file)).assert_silent();
    id[..8].to_owned()
}

/// A branch `name` with a commit that exists nowhere else.
fn unpushed_branch(repo: &TestRepo, name: &str) {
    git(&repo.root, &["branch", name]);
    let wt = repo.tmp.path().canonicalize().unwrap().join("wt-unpushed");
    git(
        &repo.root,
        &["worktree", "add", "-q", wt.to_str().unwrap(), name],
    );
    repo.write(&wt, "new.txt", "x\n");
    git(&wt, &["add", "new.txt"]);
    git(&wt, &["commit", "-qm", "unpushed"]);
    git(&repo.root, &["worktree", "remove", wt.to_str().unwrap()]);
}

fn branch_exists(repo: &TestRepo, name: &str) -> bool {
    git_command(&repo.root)
        .args(["rev-parse", "--verify", "-q", &format!("refs/heads/{name}")])
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn cursor_fixtures_through_the_binary() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let short = peer_holds(root, &root.join("src/lib.rs"));
    // preToolUse Write of a file the peer holds: a warning for the agent and the person, and no
    // `permission` (Cursor would read "allow" as an approval).
    let mut pre = fixture("cursor", "preToolUse-Write.json", root);
    pre["tool_input"]["file_path"] = json!(root.join("src/lib.rs"));
    let run = hook(root, &pre);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert!(v.get("permission").is_none(), "{v}");
    let agent = v["agent_message"].as_str().unwrap();
    assert!(
        agent.contains(short.as_str()) && agent.contains("src/lib.rs"),
        "{v}"
    );
    assert!(v["user_message"].as_str().unwrap().contains(short.as_str()));
    // afterFileEdit: silent, and the edit is recorded for the conversation: a later Claude edit
    // is warned about the Cursor session.
    let mut after = fixture("cursor", "afterFileEdit-Write.json", root);
    after["file_path"] = json!(root.join("README.md"));
    hook(root, &after).assert_silent();
    let other = hook(
        root,
        &edit_event(
            "PreToolUse",
            "Edit",
            "b-other",
            root,
            &root.join("README.md"),
        ),
    );
    let text = other.json()["hookSpecificOutput"]["additionalContext"].to_string();
    assert!(text.contains("cursor session c2e7a9f0"), "{text}");
    // beforeShellExecution of `git branch -D` on an unpushed branch: refused, Cursor's way.
    unpushed_branch(&repo, "feature/auth");
    let run = hook(
        root,
        &fixture("cursor", "beforeShellExecution-Shell.json", root),
    );
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["permission"], "deny", "{v}");
    assert!(
        v["agent_message"]
            .as_str()
            .unwrap()
            .contains("feature/auth"),
        "{v}"
    );
    assert!(!v["user_message"].as_str().unwrap().is_empty());
    assert!(branch_exists(&repo, "feature/auth"));
}

#[test]
fn cursor_is_recognised_from_claude_settings_and_explicit_host_wins() {
    let repo = TestRepo::new();
    let root = &repo.root;
    unpushed_branch(&repo, "feature/auth");
    // Cursor running a hook from .claude/settings.json: `git-dibs hook` with no --host.
    let mut pre = fixture("cursor", "preToolUse-Write.json", root);
    pre["tool_name"] = json!("Shell");
    pre["tool_input"] = json!({"command": "git branch -D feature/auth", "working_directory": root});
    let v = hook(root, &pre).json();
    assert_eq!(v["permission"], "deny", "{v}");
    assert!(v.get("hookSpecificOutput").is_none());
    // A Claude-named event carrying Cursor's markers is still Cursor's...
    let mut claude_named = bash_event("conv-x", root, "git branch -D feature/auth");
    claude_named["conversation_id"] = json!("conv-x");
    let v = hook(root, &claude_named).json();
    assert_eq!(v["permission"], "deny", "{v}");
    // ...unless the command line names the host: `--host claude` is answered Claude's way.
    let run = hook_with_host(root, &claude_named, "claude");
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    assert!(v.get("permission").is_none(), "{v}");
    assert!(branch_exists(&repo, "feature/auth"));
}

/// The answer's `additionalContext` names the peer `short` and `src/lib.rs`.
#[track_caller]
fn assert_context_names(v: &Value, short: &str) {
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains(short) && context.contains("src/lib.rs"),
        "{v}"
    );
}

fn hook_with_host(root: &Path, event: &Value, host: &str) -> HookRun {
    let mut cmd = std::process::Command::new(bin());
    cmd.args(["hook", "--host", host])
        .current_dir(root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = writeln!(stdin, "{event}");
    }
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn gemini_fixture_through_the_binary() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let lib = root.join("src/lib.rs");
    let short = peer_holds(root, &lib);
    let mut before = fixture("gemini-cli", "BeforeTool-replace.json", root);
    before["tool_input"]["file_path"] = json!(lib);
    let v = hook(root, &before).json();
    // BeforeTool gives the model nothing: the person is told.
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains(short.as_str()),
        "{v}"
    );
    let mut after = before.clone();
    after["hook_event_name"] = json!("AfterTool");
    after["tool_response"] = json!({"llmContent": "ok", "returnDisplay": "ok"});
    let v = hook(root, &after).json();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "AfterTool");
    assert_context_names(&v, &short);
    // The guard refuses with Gemini's decision.
    unpushed_branch(&repo, "gone");
    let mut shell = before.clone();
    shell["tool_name"] = json!("run_shell_command");
    shell["tool_input"] = json!({"command": "git branch -D gone"});
    let v = hook(root, &shell).json();
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("gone"));
    assert!(branch_exists(&repo, "gone"));
}

#[test]
fn codex_fixture_and_apply_patch_through_the_binary() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let wt = repo.worktree("acme-api-wt-feature-auth");
    repo.write(&wt, "src/lib.rs", "pub fn dirty() {}\n");
    let mut pre = fixture("codex", "PreToolUse-Bash.json", root);
    pre["tool_input"]["command"] = json!(format!("git worktree remove {}", wt.display()));
    let run = hook(root, &pre);
    assert_eq!(run.code, 0, "{run:?}");
    let v = run.json();
    let specific = &v["hookSpecificOutput"];
    assert_eq!(specific["permissionDecision"], "deny", "{v}");
    assert!(
        !specific["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .trim()
            .is_empty()
    );
    for key in v.as_object().unwrap().keys() {
        assert!(
            ["hookSpecificOutput", "systemMessage"].contains(&key.as_str()),
            "{v}"
        );
    }
    assert!(wt.join("src/lib.rs").exists());
    // apply_patch of a file a live peer holds: additionalContext on PreToolUse.
    let short = peer_holds(root, &root.join("src/lib.rs"));
    let mut patch = pre.clone();
    patch["tool_name"] = json!("apply_patch");
    patch["tool_input"] = json!({"command":
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn a() {}\n+pub fn b() {}\n*** End Patch\n"});
    let v = hook(root, &patch).json();
    assert_context_names(&v, &short);
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "{v}"
    );
}

fn ok(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn install_writes_each_hosts_file_like_the_fragments() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks");
    for (flag, file, fragment) in [
        ("--cursor", ".cursor/hooks.json", "cursor.json"),
        ("--gemini", ".gemini/settings.json", "gemini.json"),
        ("--codex", ".codex/hooks.json", "codex.json"),
    ] {
        // --dry-run writes nothing.
        let shown = ok(&dibs(root, &["install", flag, "--dry-run"]));
        assert!(!root.join(file).exists());
        ok(&dibs(root, &["install", flag]));
        let written = fs::read_to_string(root.join(file)).unwrap();
        // Without git-dibs on PATH the portable command is still written.
        let want = fs::read_to_string(hooks.join(fragment)).unwrap();
        assert_eq!(written, want, "{flag}");
        assert_eq!(shown, want, "{flag} --dry-run");
        let again = ok(&dibs(root, &["install", flag]));
        assert!(again.contains("nothing changed"), "{again}");
        assert!(
            !root.join(".claude/settings.json").exists(),
            "{flag} alone wires only its host"
        );
        ok(&dibs(root, &["uninstall", flag]));
        let left: Value =
            serde_json::from_str(&fs::read_to_string(root.join(file)).unwrap()).unwrap();
        assert!(!left.to_string().contains("git-dibs"), "{flag}: {left}");
    }
}

#[test]
fn install_all_doctor_and_refusal() {
    let repo = TestRepo::new();
    let root = &repo.root;
    ok(&dibs(root, &["install", "--all"]));
    for file in [
        ".claude/settings.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
        ".codex/hooks.json",
    ] {
        assert!(root.join(file).is_file(), "{file}");
    }
    let out = dibs(root, &["doctor"]);
    let report = String::from_utf8_lossy(&out.stdout);
    for host in ["Cursor", "Gemini CLI", "Codex"] {
        assert!(
            report.contains(&format!("ok       {host} hooks are wired in")),
            "{report}"
        );
    }
    // A broken Gemini file is refused and left as it was; doctor names it.
    let broken = "{\"hooks\": [}\n";
    fs::write(root.join(".gemini/settings.json"), broken).unwrap();
    let out = dibs(root, &["install", "--gemini"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing was changed"));
    assert_eq!(
        fs::read_to_string(root.join(".gemini/settings.json")).unwrap(),
        broken
    );
    let report = String::from_utf8_lossy(&dibs(root, &["doctor"]).stdout).into_owned();
    assert!(
        report.contains("problem") && report.contains(".gemini/settings.json"),
        "{report}"
    );
    // A Codex file missing a place is reported.
    let codex = root.join(".codex/hooks.json");
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&codex).unwrap()).unwrap();
    v["hooks"]
        .as_object_mut()
        .unwrap()
        .remove("UserPromptSubmit");
    fs::write(&codex, v.to_string()).unwrap();
    let report = String::from_utf8_lossy(&dibs(root, &["doctor"]).stdout).into_owned();
    assert!(
        report.contains("lacks the git-dibs hooks for UserPromptSubmit"),
        "{report}"
    );
    fs::remove_file(root.join(".gemini/settings.json")).unwrap();
    ok(&dibs(root, &["uninstall", "--all"]));
    let report = String::from_utf8_lossy(&dibs(root, &["doctor"]).stdout).into_owned();
    assert!(report.contains("Cursor hooks are not wired"), "{report}");
    // Host flags are project-only.
    assert!(
        !dibs(root, &["install", "--cursor", "--user"])
            .status
            .success()
    );
}

//! Work of tool calls whose end never came is never lost for good. A shell command whose
//! post-tool hook the host's timeout killed leaves its running mark: the session's own next
//! command that may destroy scans what the call wrote first (once: a call the person declined
//! costs one scan, not one before every later command), whatever the host (Claude Code and
//! Codex and Cursor name their calls, Gemini CLI does not), and two calls of one session at
//! once each keep the other's output. A sub-agent's calls are all over at its `SubagentStop`:
//! what an unended one wrote is taken then and its mark goes. A repository whose first
//! git-dibs hook is such a call's PreToolUse gets its store then, so the mark is made there
//! too. Everyday calls, which end, leave nothing behind to scan.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;
use serde_json::{Value, json};

/// How many running marks the clone's store holds.
fn marks(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.store_dir().join("running")).map_or(0, |d| d.count())
}

/// The running marks' texts.
fn mark_texts(repo: &TestRepo) -> Vec<String> {
    std::fs::read_dir(repo.store_dir().join("running"))
        .map(|d| {
            d.flatten()
                .map(|e| std::fs::read_to_string(e.path()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

/// A host's shell-tool event.
#[derive(Clone, Copy, PartialEq)]
enum Host {
    Claude,
    Codex,
    Gemini,
    Cursor,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Cursor => "cursor",
        }
    }

    /// The event before (`pre`) or after a shell call `call` of `session` running `command`.
    fn event(self, pre: bool, session: &str, cwd: &Path, call: &str, command: &str) -> Value {
        match self {
            Host::Claude => {
                let mut extra = json!({"tool_name": "Bash", "tool_use_id": call,
                    "tool_input": {"command": command}});
                if !pre {
                    extra["tool_response"] =
                        json!({"stdout": "", "stderr": "", "interrupted": false});
                }
                claude_event(
                    if pre { "PreToolUse" } else { "PostToolUse" },
                    session,
                    cwd,
                    extra,
                )
            }
            Host::Codex => {
                let mut v = json!({"session_id": session, "turn_id": "t1",
                    "transcript_path": null, "cwd": cwd, "model": "gpt-5",
                    "permission_mode": "default",
                    "hook_event_name": if pre { "PreToolUse" } else { "PostToolUse" },
                    "tool_name": "Bash", "tool_use_id": call,
                    "tool_input": {"command": command}});
                if !pre {
                    v["tool_response"] = json!({"output": "done"});
                }
                v
            }
            // Gemini CLI names no call.
            Host::Gemini => json!({"session_id": session, "transcript_path": "", "cwd": cwd,
                "hook_event_name": if pre { "BeforeTool" } else { "AfterTool" },
                "timestamp": "2026-12-02T01:00:00Z", "tool_name": "run_shell_command",
                "tool_input": {"command": command},
                "tool_response": {"llmContent": "done"}}),
            Host::Cursor => json!({"conversation_id": session, "generation_id": "g1",
                "cursor_version": "1.7.0", "workspace_roots": [cwd], "cwd": cwd,
                "hook_event_name": if pre { "preToolUse" } else { "postToolUse" },
                "tool_name": "Shell", "tool_use_id": call,
                "tool_input": {"command": command, "working_directory": cwd},
                "tool_output": "", "duration": 1200}),
        }
    }

    /// Run the hook for that event; it must exit 0. Its answer.
    fn call(self, pre: bool, session: &str, cwd: &Path, call: &str, command: &str) -> HookRun {
        let run = hook_host(
            cwd,
            self.name(),
            &self.event(pre, session, cwd, call, command),
            &[],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run
    }
}

/// The generator gen.py writing `out.txt` with `text`.
fn generator(root: &Path, text: &str) -> &'static str {
    std::fs::write(
        root.join("gen.py"),
        format!("open('out.txt','w').write({text:?})\n"),
    )
    .unwrap();
    "python3 gen.py"
}

/// `session`'s own `git clean -fdq` on `host`, as the host runs it: PreToolUse (it must be
/// silent: the files are its own), the command, PostToolUse.
fn own_clean(host: Host, session: &str, root: &Path) {
    let clean = "git clean -fdq";
    let run = host.call(true, session, root, "call_clean", clean);
    assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
    sh(root, clean);
    host.call(false, session, root, "call_clean", clean);
    assert!(!root.join("out.txt").exists());
}

#[test]
fn a_commands_output_whose_post_tool_hook_never_came_is_kept_before_its_own_sessions_clean() {
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
        let repo = TestRepo::new();
        let root = &repo.root;
        let s1 = format!("{}-timed-out", host.name());
        let text = format!("{} generated, only copy\n", host.name());
        let long = generator(root, &text);
        // Its PreToolUse ran, the command wrote, its PostToolUse was killed by the timeout.
        host.call(true, &s1, root, "call_gen", long);
        sh(root, long);
        // The same session's next command may destroy: its own earlier call is scanned first.
        own_clean(host, &s1, root);
        collect_garbage(root);
        assert_recovers(
            root,
            &["out.txt"],
            &[(root.join("out.txt"), text.into_bytes())],
        );
    }
}

#[test]
fn a_repository_whose_first_hook_is_the_unended_call_gets_its_mark() {
    // No session started here: the call's PreToolUse is git-dibs's first hook in this clone.
    let repo = TestRepo::new();
    let root = &repo.root;
    assert!(!repo.store_dir().exists());
    let long = generator(root, "made before any store\n");
    Host::Claude.call(true, "first-hook", root, "toolu_gen", long);
    assert_eq!(marks(&repo), 1, "the store is made for the mark");
    sh(root, long);
    own_clean(Host::Claude, "first-hook", root);
    collect_garbage(root);
    assert_recovers(
        root,
        &["out.txt"],
        &[(root.join("out.txt"), b"made before any store\n".to_vec())],
    );
}

#[test]
fn a_long_codex_command_in_a_clone_without_a_store_is_scanned_before_a_peers_clean() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let report = "./run-report.sh";
    // Codex gives no run time: only the mark says when this began (and that it still runs).
    Host::Codex.call(true, "cx-long", root, "call_long", report);
    repo.write(root, "report.txt", "report, written first\n");
    // A peer's clean meanwhile (the report is nobody's claim: allowed) scans it first.
    let peer = Agent::new("cleaner", root);
    peer.pre_bash("git clean -fdq").assert_silent();
    sh(root, "git clean -fdq");
    peer.post_bash("git clean -fdq").assert_silent();
    Host::Codex.call(false, "cx-long", root, "call_long", report);
    assert_eq!(marks(&repo), 0, "its end removes the mark");
    collect_garbage(root);
    assert_recovers(
        root,
        &["report.txt"],
        &[(root.join("report.txt"), b"report, written first\n".to_vec())],
    );
}

#[test]
fn a_declined_call_costs_its_session_one_scan_not_one_per_command() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let agent = Agent::new("decliner", root);
    agent.write("notes.md", b"plan\n");
    let tips = snapshot_refs(root);
    // The person declines it at the permission prompt: it never runs, no PostToolUse comes.
    Host::Claude.call(
        true,
        &agent.id,
        root,
        "toolu_declined",
        "python3 migrate.py",
    );
    assert_eq!(marks(&repo), 1);
    for (i, cmd) in ["cargo build", "git status", "npm run build", "cargo build"]
        .iter()
        .enumerate()
    {
        let call = format!("toolu_{i}");
        Host::Claude
            .call(true, &agent.id, root, &call, cmd)
            .assert_silent();
        Host::Claude.call(false, &agent.id, root, &call, cmd);
        // Scanned once, by the first of them; the later ones look no further.
        let texts = mark_texts(&repo);
        assert_eq!(texts.len(), 1, "{texts:?}");
        assert!(texts[0].contains("\"scanned\""), "{}", texts[0]);
    }
    // Nothing ran, so nothing was kept for it.
    assert_eq!(snapshot_refs(root), tips);
    assert_eq!(
        git_out(root, &["rev-parse", tips.trim()]),
        git_out(root, &["rev-parse", snapshot_refs(root).trim()])
    );
}

#[test]
fn a_sub_agents_unended_call_is_taken_at_its_stop_and_unmarked() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let run = hook(root, &session_start("lead", root, "startup"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let as_agent = |name: &str, extra: Value| {
        let mut event = claude_event(name, "lead", root, extra);
        event["agent_id"] = json!("agent-gen");
        event["agent_type"] = json!("general-purpose");
        let run = hook(root, &event);
        assert_eq!(run.code, 0, "{}", run.stderr);
    };
    let long = generator(root, "the sub-agent's output\n");
    as_agent(
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_use_id": "toolu_sub",
               "tool_input": {"command": long}}),
    );
    sh(root, long);
    // Its PostToolUse never came; then the sub-agent is done.
    as_agent(
        "SubagentStop",
        json!({"stop_hook_active": false, "agent_transcript_path": "/tmp/a.jsonl"}),
    );
    assert_eq!(marks(&repo), 0, "no peer scans for a stopped sub-agent");
    // A person's clean in a terminal: no hook runs before it.
    sh(root, "git clean -fdq");
    collect_garbage(root);
    assert_recovers(
        root,
        &["out.txt"],
        &[(root.join("out.txt"), b"the sub-agent's output\n".to_vec())],
    );
}

#[test]
fn two_calls_of_one_session_at_once_keep_each_others_output() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = "parallel";
    let long = generator(root, "the generator's, still running\n");
    Host::Claude.call(true, s1, root, "toolu_gen", long);
    sh(root, long);
    // The second call of the same message tidies up while the first still runs.
    own_clean(Host::Claude, s1, root);
    assert_eq!(marks(&repo), 1, "the generator still runs");
    Host::Claude.call(false, s1, root, "toolu_gen", long);
    assert_eq!(marks(&repo), 0);
    collect_garbage(root);
    assert_recovers(
        root,
        &["out.txt"],
        &[(
            root.join("out.txt"),
            b"the generator's, still running\n".to_vec(),
        )],
    );
}

#[test]
fn everyday_calls_that_end_leave_nothing_to_scan() {
    let repo = TestRepo::new();
    let root = &repo.root;
    for host in [Host::Claude, Host::Codex, Host::Gemini, Host::Cursor] {
        let session = format!("{}-everyday", host.name());
        for (i, cmd) in ["cargo build", "git status", "npm run build", "ls -la"]
            .iter()
            .enumerate()
        {
            let call = format!("call_{i}");
            host.call(true, &session, root, &call, cmd).assert_silent();
            host.call(false, &session, root, &call, cmd);
        }
    }
    assert_eq!(marks(&repo), 0, "{:?}", mark_texts(&repo));
    // A file someone else makes afterwards is no session's.
    repo.write(root, "stray.txt", "not theirs\n");
    let (code, _, _) = recover(root, &["--json"]);
    assert_eq!(code, 1, "nothing to recover");
}

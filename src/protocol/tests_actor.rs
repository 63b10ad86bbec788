//! Unit tests of the actor fields (`agent_id`, `agent_type`) and the events around sub-agents
//! and the host's worktree tool, from the fixtures and hostile variations of them.

use serde_json::{Value, json};

use super::*;

fn fixture(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks/claude-code")
        .join(name);
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn parse(v: &Value) -> Event {
    parse_event(v.to_string().as_bytes(), None).expect("parses")
}

#[test]
fn a_sub_agents_calls_carry_its_actor() {
    let edit = parse(&fixture("PreToolUse-Edit-subagent.json"));
    assert_eq!(edit.session_id, "5f0c2b7e-3a41-4c8e-9d2a-1b6e4f8a9c30");
    assert_eq!(
        edit.actor,
        Some(SubAgent {
            id: "a7c41e09".into(),
            kind: Some("general-purpose".into())
        })
    );
    assert!(matches!(edit.kind, EventKind::BeforeEdit { .. }));
    let start = parse(&fixture("SubagentStart.json"));
    assert_eq!(start.kind, EventKind::SubAgentStart);
    assert_eq!(start.actor.unwrap().id, "ada3551d9f4e5a0a0");
    let stop = parse(&fixture("SubagentStop.json"));
    assert_eq!(stop.kind, EventKind::SubAgentStop);
    assert_eq!(stop.actor.unwrap().id, "a37b13129a4430df6");
    // The main thread's calls have none.
    let main = parse(&fixture("PreToolUse-Edit.json"));
    assert_eq!(main.actor, None);
}

#[test]
fn codex_reads_the_same_fields() {
    let v = json!({"session_id": "t", "turn_id": "1", "cwd": "/r",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "agent_id": "w1", "agent_type": "worker"});
    let e = parse(&v);
    assert_eq!(e.host, Host::Codex);
    assert_eq!(e.actor.unwrap().kind.as_deref(), Some("worker"));
    let mut start = v.clone();
    start["hook_event_name"] = json!("SubagentStart");
    assert_eq!(parse(&start).kind, EventKind::SubAgentStart);
}

#[test]
fn hostile_agent_ids_are_bounded_and_printable() {
    let base = fixture("PreToolUse-Edit-subagent.json");
    let with = |id: Value, kind: Value| {
        let mut v = base.clone();
        v["agent_id"] = id;
        v["agent_type"] = kind;
        parse(&v)
    };
    // Blank, missing or not a string: the main thread.
    assert_eq!(with(json!(""), json!("x")).actor, None);
    assert_eq!(with(json!("  \t"), json!("x")).actor, None);
    assert_eq!(with(Value::Null, json!("x")).actor, None);
    // Control characters are dropped, in the id and the type.
    let a = with(json!("a1\u{1b}[31m\n"), json!("gen\u{7}eral"))
        .actor
        .unwrap();
    assert_eq!(a.id, "a1[31m");
    assert_eq!(a.kind.as_deref(), Some("general"));
    // A huge id is shortened, and two different huge ids stay different.
    let huge = "x".repeat(100_000);
    let a = with(json!(format!("{huge}1")), json!("t".repeat(5000)))
        .actor
        .unwrap();
    let b = with(json!(format!("{huge}2")), Value::Null).actor.unwrap();
    assert!(a.id.len() <= 64 && b.id.len() <= 64, "{} {}", a.id, b.id);
    assert_ne!(a.id, b.id);
    assert_eq!(a.kind.unwrap().len(), 40);
    // SubagentStart/Stop without an id is nothing to act on.
    let mut start = fixture("SubagentStart.json");
    start["agent_id"] = json!("");
    assert_eq!(parse(&start).kind, EventKind::Ignored);
}

#[test]
fn exit_worktree_remove_is_an_event_and_keep_is_not() {
    let remove = parse(&fixture("PreToolUse-ExitWorktree.json"));
    assert_eq!(
        remove.kind,
        EventKind::BeforeWorktreeRemove {
            discard_changes: true
        }
    );
    let mut v = fixture("PreToolUse-ExitWorktree.json");
    v["tool_input"] = json!({"action": "remove"});
    assert_eq!(
        parse(&v).kind,
        EventKind::BeforeWorktreeRemove {
            discard_changes: false
        }
    );
    v["tool_input"] = json!({"action": "remove", "discard_changes": "true"});
    assert_eq!(
        parse(&v).kind,
        EventKind::BeforeWorktreeRemove {
            discard_changes: false
        }
    );
    for input in [
        json!({"action": "keep"}),
        json!({}),
        json!("remove"),
        json!({"action": 1}),
    ] {
        v["tool_input"] = input;
        assert_eq!(parse(&v).kind, EventKind::Ignored);
    }
    // After the tool ran there is nothing left to stop.
    let mut post = fixture("PreToolUse-ExitWorktree.json");
    post["hook_event_name"] = json!("PostToolUse");
    assert_eq!(parse(&post).kind, EventKind::Ignored);
}

#[test]
fn the_sub_agent_start_context_is_rendered_for_the_model() {
    let e = parse(&fixture("SubagentStart.json"));
    let out = render(
        &e,
        &Response::Warn {
            person: "P".into(),
            model: "M".into(),
        },
    );
    let v: Value = serde_json::from_str(&out.stdout.unwrap()).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SubagentStart");
    assert_eq!(v["hookSpecificOutput"]["additionalContext"], "M");
}

//! Unit tests of what the hosts say about a shell command that ran: its run time.

use std::time::Duration;

use serde_json::{Value, json};

use super::*;

fn took(host_input: Value) -> Option<Duration> {
    match parse_event(host_input.to_string().as_bytes(), None).map(|e| e.kind) {
        Ok(EventKind::AfterShell { took, .. }) => took,
        other => panic!("{other:?}"),
    }
}

fn claude(duration: Value) -> Value {
    json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": "/r",
        "tool_name": "Bash", "tool_input": {"command": "make"}, "duration_ms": duration})
}

#[test]
fn a_sane_run_time_is_read_in_milliseconds() {
    assert_eq!(took(claude(json!(2500))), Some(Duration::from_millis(2500)));
    assert_eq!(took(claude(json!(12.7))), Some(Duration::from_millis(12)));
    let cursor = json!({"hook_event_name": "afterShellExecution", "conversation_id": "c",
        "cwd": "/r", "command": "make", "duration": 40});
    assert_eq!(took(cursor), Some(Duration::from_millis(40)));
}

#[test]
fn an_absent_or_hostile_run_time_is_unknown_and_the_event_still_reads() {
    for bad in [
        json!(-1),
        json!("12"),
        json!(null),
        json!(1e300),
        json!(90_000_000_000u64),
        json!({"ms": 3}),
    ] {
        assert_eq!(took(claude(bad.clone())), None, "{bad}");
    }
    let no_field = json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": "/r",
        "tool_name": "Bash", "tool_input": {"command": "make"}});
    assert_eq!(took(no_field), None);
}

#[test]
fn a_tool_call_id_is_kept_only_when_plausible() {
    let call = |id: Value| {
        let mut v = claude(json!(5));
        v["tool_use_id"] = id;
        parse_event(v.to_string().as_bytes(), None).map(|e| e.call)
    };
    assert_eq!(
        call(json!("toolu_01Pq8w")).unwrap(),
        Some("toolu_01Pq8w".into())
    );
    for bad in [
        json!(""),
        json!("   "),
        json!("x".repeat(129)),
        json!(7),
        json!(null),
        json!({"id": "t"}),
    ] {
        assert_eq!(call(bad.clone()).unwrap(), None, "{bad}");
    }
}
